/**
 * Runs survive a database outage (docs/operations.md "When the database is away"). A TCP proxy stands between Assay and
 * MariaDB and is cut (connections reset, new ones refused) for `ASSAY_TEST_OUTAGE_SECONDS` while
 * runs are in progress:
 * - every run completes correctly afterwards, each result recorded once;
 * - the outgoing webhook of a deployment's run is delivered, not dropped;
 * - meanwhile the API answers 503 `database-unavailable` with Retry-After (a running run's
 *   document from its workflow, docs/api.md "While the database is away"), and recovers by itself;
 * - an API process started during the outage waits for the database instead of exiting.
 * And a worker started while Temporal is unreachable waits for it, then works.
 *
 * The outage lasts 45 s by default. It was 120 s, to outlast the ~50 s that store activities used
 * to retry; since they retry without limit (workflows/run.ts STORE_RETRY) no window ends at 50 s,
 * and what the outage must outlast are the longest timers in play: the 10 s cap of the store
 * activities' retry interval (reached after 0.5 + 1 + 2 + 4 + 8 s, then retried at the cap), the
 * webhook delivery's retries (5 s cap here), and the 30 s cap of the start-up backoff of the API
 * process started during the outage (reached after 1 + 2 + 4 + 8 + 16 s). 45 s outlasts each with
 * room to spare. A frozen database (connections hang instead of being refused) is
 * database-freeze.test.ts.
 */
import { expect } from 'chai';
import { startTestApp, eventually, waitForRun, type TestApp } from '../../helpers/app';
import { getServices } from '../../helpers/harness';
import { processEnv, spawnAssay, waitForHttp, type AssayProcess } from '../../helpers/processes';
import { startReceiver, type Receiver } from '../../helpers/receiver';
import { startTarget, type Target } from '../../helpers/target';
import { startTcpProxy, type TcpProxy } from '../../helpers/tcp-proxy';
import { freePort } from '../../../src/net/free-port';

const OUTAGE_MS = Number(process.env.ASSAY_TEST_OUTAGE_SECONDS ?? 45) * 1000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a database outage during runs', function () {
  this.timeout(OUTAGE_MS + 180_000);
  let proxy: TcpProxy;
  let app: TestApp;
  let target: Target;
  let receiver: Receiver;
  const children: AssayProcess[] = [];

  before(async () => {
    const { mysqlUrl } = await getServices();
    const db = new URL(mysqlUrl);
    proxy = await startTcpProxy(db.hostname, Number(db.port || 3306));
    [app, target, receiver] = await Promise.all([
      startTestApp({
        worker: true,
        databaseAddress: proxy.address,
        env: { ASSAY_WEBHOOK_RETRY_INITIAL_MS: '500', ASSAY_WEBHOOK_RETRY_MAX_MS: '5000' },
      }),
      startTarget(),
      startReceiver(),
    ]);
  });
  after(async () => {
    for (const c of children) await c.kill();
    if (proxy?.down) await proxy.restore();
    await Promise.all([target?.close(), receiver?.close()]);
    await app?.stop();
    await proxy?.close();
  });

  it('delays the runs, never fails them; the API answers 503 meanwhile and recovers by itself', async () => {
    await app.request('POST', '/v1/environments', { name: 'local', variables: { base: target.url } });
    for (let i = 1; i <= 8; i++) {
      await app.request('POST', '/v1/test-cases', {
        name: `step ${i}`,
        folder: 'outage',
        flow: [
          {
            type: 'api',
            request: { method: 'GET', url: '{{base}}/slow?ms=400' },
            assertions: [{ target: 'response.body.waited', operator: 'equals', expected: 400 }],
          },
        ],
      });
    }
    await app.request('POST', '/v1/runners', { name: 'outage', folder: 'outage' });
    const dep = (
      await app.request('POST', '/v1/deployments', {
        name: 'nightly',
        runner: 'outage',
        environment: 'local',
        webhooks: { onComplete: [{ url: `${receiver.url}/hook` }] },
      })
    ).body;
    receiver.secret = dep.signingSecret;

    const runIds: string[] = [];
    for (let i = 0; i < 2; i++)
      runIds.push((await app.request('POST', '/v1/runs', { runner: 'outage', environment: 'local' })).body.runId);
    runIds.push((await app.request('POST', `/v1/deployments/${dep.id}/runs`)).body.runId);
    await eventually(
      async () => {
        const docs = await Promise.all(runIds.map(async (id) => (await app.request('GET', `/v1/runs/${id}`)).body));
        return docs.every((d) => d.status === 'running' && d.progress.completed >= 1);
      },
      60_000,
      100,
    );

    await proxy.cut();
    const outageEnds = Date.now() + OUTAGE_MS;

    const during = await app.request('GET', `/v1/runs/${runIds[0]}/results`);
    expect(during.status).to.equal(503);
    expect(during.body.code).to.equal('database-unavailable');
    expect(Number(during.headers.get('retry-after'))).to.be.greaterThan(0);
    // A running run's own document comes from its workflow meanwhile (docs/api.md "While the database is away").
    const live = await app.request('GET', `/v1/runs/${runIds[0]}`);
    expect(live.status, JSON.stringify(live.body)).to.equal(200);
    expect(live.body).to.include({ runId: runIds[0], status: 'running', source: 'workflow', storeUnavailable: true });
    const refused = await app.request('POST', '/v1/runs', { runner: 'outage', environment: 'local' });
    expect(refused.status).to.equal(503);

    // An API process started now waits for the database rather than exiting.
    const port = await freePort();
    const late = spawnAssay(
      'api',
      processEnv(app, {
        DATABASE_URL: app.config.database.type === 'mysql' ? app.config.database.url : '',
        ASSAY_PORT: String(port),
      }),
    );
    children.push(late);
    await eventually(async () => /the database is unreachable; retrying/.test(late.output()), 30_000, 200);
    expect(late.child.exitCode).to.equal(null);

    await sleep(Math.max(0, outageEnds - Date.now()));
    expect(late.child.exitCode, 'the API started during the outage is still waiting').to.equal(null);
    await proxy.restore();

    for (const id of runIds) {
      const run = await waitForRun(app, id, 150_000);
      expect(run, id).to.include({ status: 'completed', result: 'passed' });
      expect(run.summary).to.deep.equal({ total: 8, passed: 8, failed: 0, skipped: 0 });
      const results = (await app.request('GET', `/v1/runs/${id}/results`)).body;
      expect(results.details.testCases.map((c: { name: string }) => c.name)).to.deep.equal(
        [1, 2, 3, 4, 5, 6, 7, 8].map((i) => `step ${i}`),
      );
    }
    await waitForHttp(`http://127.0.0.1:${port}/healthz`, 60_000);
    await eventually(async () => receiver.received.length >= 1, 60_000, 250);
    expect(receiver.received.map((r) => r.body.run?.runId)).to.include(runIds[2]);
    const deliveries = (await app.request('GET', `/v1/runs/${runIds[2]}/deliveries`)).body.items;
    expect(deliveries.map((d: { status: string }) => d.status)).to.deep.equal(['delivered']);
  });
});

describe('Temporal unreachable when a worker starts', function () {
  this.timeout(120_000);
  let proxy: TcpProxy;
  let app: TestApp;
  let worker: AssayProcess | undefined;

  before(async () => {
    const { temporalAddress } = await getServices();
    const [host, port] = temporalAddress.split(':');
    proxy = await startTcpProxy(host!, Number(port));
    app = await startTestApp();
  });
  after(async () => {
    await worker?.kill();
    if (proxy?.down) await proxy.restore();
    await app?.stop();
    await proxy?.close();
  });

  it('waits for it with a clear log line, then runs workflows', async () => {
    await proxy.cut();
    worker = spawnAssay('worker', processEnv(app, { TEMPORAL_ADDRESS: proxy.address }));
    await eventually(
      async () => /Temporal at 127\.0\.0\.1:\d+ is unreachable; retrying/.test(worker!.output()),
      60_000,
      200,
    );
    expect(worker.child.exitCode).to.equal(null);
    await proxy.restore();

    await app.request('POST', '/v1/environments', { name: 'e', variables: {} });
    await app.request('POST', '/v1/test-cases', {
      name: 'noop',
      folder: 'w',
      flow: [{ type: 'script', script: { code: '$log("ok")' } }],
    });
    await app.request('POST', '/v1/runners', { name: 'w', folder: 'w' });
    const { runId } = (await app.request('POST', '/v1/runs', { runner: 'w', environment: 'e' })).body;
    const run = await waitForRun(app, runId, 60_000);
    expect(run).to.include({ status: 'completed', result: 'passed' });
  });
});
