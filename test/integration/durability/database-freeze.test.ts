/**
 * A frozen database (docs/operations.md "When the database is away"): the store's server process is stopped, so its connections hang and
 * nothing is refused (helpers/tcp-proxy.ts `freeze()`). While runs are in flight:
 * - `POST /v1/runs` answers 503 `database-unavailable` with `Retry-After` within 2 s;
 * - `GET /v1/runs/{id}` of a running run answers 200 within 2 s from its workflow (a Temporal
 *   query), marked `source: "workflow"`, `storeUnavailable: true`, with the status and progress the
 *   workflow knows; a scheduled run's workflow (another workflow id) is found by its run id too;
 * - `GET /v1/runs/{id}` of a run the workflow does not know, or of another workspace's run, answers
 *   503 within 2 s (the same answer: nothing tells that the other workspace's run exists);
 * - other DB-backed endpoints, many at once, and `/readyz` answer 503 within 2 s;
 * and after the thaw everything answers from the store again and every run completes and passes,
 * each test case's request sent once and its result recorded once.
 *
 * The freeze lasts as long as the checks take (about 15 s): a 2 s bound shows within seconds, so
 * the test does not sleep through a long outage (database-outage.test.ts covers a long one).
 * `ASSAY_TEST_FREEZE_SECONDS` holds it longer (e.g. 60, past the 30 s start-to-close timeout of
 * the store writes hanging meanwhile).
 */
import { expect } from 'chai';
import { startTestApp, eventually, waitForRun, type Reply, type TestApp } from '../../helpers/app';
import { getServices } from '../../helpers/harness';
import { startTarget, type Target } from '../../helpers/target';
import { startTcpProxy, type TcpProxy } from '../../helpers/tcp-proxy';
import { temporalClient } from '../../helpers/temporal';

/**
 * The answer time asserted: the promise is 2 s (1 s for the store, then at most 1 s for the
 * workflow's query); 0.5 s more absorbs a loaded 2-core test machine. Before the fix these answers
 * took 10 s or never came while frozen, so the bound still tells the two apart.
 */
const ANSWER_BOUND_MS = 2500;
const TEST_CASES = 8;
/** Least time the database stays frozen, ms (`ASSAY_TEST_FREEZE_SECONDS`; default: as long as the checks take). */
const FREEZE_MS = Number(process.env.ASSAY_TEST_FREEZE_SECONDS ?? 0) * 1000;

describe('a frozen database (a stopped server: connections hang, nothing is refused)', function () {
  this.timeout(240_000 + FREEZE_MS);
  let proxy: TcpProxy;
  let app: TestApp;
  let target: Target;
  const timings: string[] = [];

  before(async () => {
    const { mysqlUrl } = await getServices();
    const db = new URL(mysqlUrl);
    proxy = await startTcpProxy(db.hostname, Number(db.port || 3306));
    [app, target] = await Promise.all([startTestApp({ worker: true, databaseAddress: proxy.address }), startTarget()]);
  });
  after(async () => {
    if (proxy?.frozen) proxy.thaw();
    if (process.env.ASSAY_TEST_VERBOSE) console.log(`answer times while frozen: ${timings.join('; ')}`);
    await target?.close();
    await app?.stop();
    await proxy?.close();
  });

  /**
   * Calls the API and measures the answer; asserts it came within {@link ANSWER_BOUND_MS}. Gives up
   * after 20 s (without the bounds a call on a hung connection never answers while frozen).
   */
  async function timed<T = any>(label: string, call: () => Promise<Reply<T>>): Promise<Reply<T>> {
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const reply = await Promise.race([
      call(),
      new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), 20_000))),
    ]);
    clearTimeout(timer);
    const ms = Math.round(performance.now() - started);
    timings.push(`${label} ${reply?.status ?? 'no answer'} in ${ms} ms`);
    if (!reply) expect.fail(`${label}: no answer within 20 s`);
    expect(ms, `${label} answered ${reply.status} after ${ms} ms`).to.be.below(ANSWER_BOUND_MS);
    return reply;
  }

  const expectUnavailable = (reply: Reply, label: string) => {
    expect(reply.status, `${label}: ${JSON.stringify(reply.body)}`).to.equal(503);
    expect(reply.body.code, label).to.equal('database-unavailable');
    expect(Number(reply.headers.get('retry-after')), label).to.be.greaterThan(0);
  };

  it('answers within 2 s, running runs from their workflows; after the thaw every run completes once', async () => {
    await app.request('POST', '/v1/environments', { name: 'local', variables: { base: target.url } });
    for (let i = 1; i <= TEST_CASES; i++) {
      await app.request('POST', '/v1/test-cases', {
        name: `step ${i}`,
        folder: 'freeze',
        flow: [
          {
            type: 'api',
            request: { method: 'GET', url: '{{base}}/slow?ms=500' },
            assertions: [{ target: 'response.body.waited', operator: 'equals', expected: 500 }],
          },
        ],
      });
    }
    await app.request('POST', '/v1/runners', { name: 'freeze', folder: 'freeze' });
    // Another workspace's key, seen by the API before the freeze (so that it could stand in for the store).
    const otherKey = await app.issueKey('read', 'other');
    expect((await app.request('GET', '/v1/runs', undefined, { key: otherKey })).status).to.equal(200);

    // The scheduled run first: its schedule's trigger and our finding it take longest, and every run
    // must still be running (4 s of requests each) when the freeze starts.
    const dep = (
      await app.request('POST', '/v1/deployments', {
        name: 'yearly',
        runner: 'freeze',
        environment: 'local',
        schedule: '0 0 1 1 *',
      })
    ).body;
    await (await temporalClient()).schedule.getHandle(app.api.schedules.scheduleId(dep.id)).trigger();
    // A scheduled run: its workflow id is the schedule's, found through its AssayRunId.
    const scheduledId: string = await eventually(
      async () => (await app.request('GET', `/v1/runs?deployment=${dep.id}`)).body.items[0]?.runId,
      30_000,
      100,
    );
    const runIds: string[] = [];
    for (let i = 0; i < 3; i++)
      runIds.push((await app.request('POST', '/v1/runs', { runner: 'freeze', environment: 'local' })).body.runId);
    runIds.push(scheduledId);
    let seen = '';
    await eventually(
      async () => {
        const docs = await Promise.all(runIds.map(async (id) => (await app.request('GET', `/v1/runs/${id}`)).body));
        seen = docs
          .map((d) => `${d.runId} ${d.status} ${d.progress?.completed ?? '?'}/${d.progress?.total ?? '?'}`)
          .join('; ');
        if (docs.some((d) => d.status === 'completed' || d.status === 'failed'))
          throw new Error(`a run ended before the freeze: ${seen}`);
        return docs.every((d) => d.status === 'running' && d.progress.completed >= 1);
      },
      60_000,
      100,
    ).catch((err: Error) =>
      expect.fail(`runs not all running with a test case done before the freeze (${seen}): ${err.message}`),
    );
    const runsBefore = Number((await app.dataSource.query('SELECT COUNT(*) AS n FROM runs'))[0].n);

    proxy.freeze();
    const frozenAt = Date.now();
    try {
      expectUnavailable(
        await timed('POST /v1/runs', () => app.request('POST', '/v1/runs', { runner: 'freeze', environment: 'local' })),
        'POST /v1/runs',
      );

      for (const [i, id] of runIds.entries()) {
        const label = `GET /v1/runs/{${i === 3 ? 'scheduled' : 'api'} run}`;
        const live = await timed(label, () => app.request('GET', `/v1/runs/${id}`));
        expect(live.status, `${label}: ${JSON.stringify(live.body)}`).to.equal(200);
        expect(live.body).to.include({
          runId: id,
          status: 'running',
          source: 'workflow',
          storeUnavailable: true,
          runner: 'freeze',
          environment: 'local',
          trigger: i === 3 ? 'schedule' : 'api',
        });
        expect(live.body.progress.total).to.equal(TEST_CASES);
        expect(live.body.progress.completed).to.be.within(1, TEST_CASES);
        expect(Date.parse(live.body.startedAt)).to.be.below(Date.now());
        expect(live.body.links.self).to.equal(`/v1/runs/${id}`);
        expect(live.body.links.temporal).to.include(
          i === 3 ? encodeURIComponent(`run-scheduled-${dep.id}-`) : `run-${id}`,
        );
      }

      expectUnavailable(
        await timed('GET /v1/runs/{unknown run}', () => app.request('GET', '/v1/runs/run_01JD3Z8Q0W5T3V2X1Y0Z9A8B7C')),
        'unknown run',
      );
      expectUnavailable(
        await timed('GET /v1/runs/{run} (another workspace)', () =>
          app.request('GET', `/v1/runs/${runIds[0]}`, undefined, { key: otherKey }),
        ),
        'other workspace',
      );
      expectUnavailable(
        await timed('GET /v1/runs/{id}/results', () => app.request('GET', `/v1/runs/${runIds[0]}/results`)),
        'results',
      );
      expectUnavailable(await timed('GET /v1/runs', () => app.request('GET', '/v1/runs')), 'listing');
      expectUnavailable(
        await timed('POST /v1/test-cases', () =>
          app.request('POST', '/v1/test-cases', { name: 'later', folder: 'x', flow: [] }),
        ),
        'test case',
      );

      // Many at once: more than the pool's 10 connections, some hung, the rest waiting for one.
      const many = await timed('15 × GET /v1/test-cases at once (slowest)', async () => {
        const replies = await Promise.all(Array.from({ length: 15 }, () => app.request('GET', '/v1/test-cases')));
        for (const r of replies) expectUnavailable(r, 'concurrent');
        return replies[0]!;
      });
      expect(many.status).to.equal(503);

      const ready = await timed('GET /readyz', () => app.request('GET', '/readyz', undefined, { key: null }));
      expect(ready.status).to.equal(503);
      expect(ready.body.unavailable).to.deep.equal(['store']);
      await new Promise((r) => setTimeout(r, Math.max(0, frozenAt + FREEZE_MS - Date.now())));
    } finally {
      proxy.thaw();
    }

    // After the thaw: the store answers again, by itself.
    await eventually(
      async () => (await app.request('GET', '/readyz', undefined, { key: null })).status === 200,
      30_000,
      200,
    );
    const stored = await app.request('GET', `/v1/runs/${runIds[0]}`);
    expect(stored.status).to.equal(200);
    expect(stored.body).to.not.have.property('source');
    const after = await app.request('POST', '/v1/runs', { runner: 'freeze', environment: 'local' });
    expect(after.status).to.equal(201);
    runIds.push(after.body.runId);

    for (const id of runIds) {
      const run = await waitForRun(app, id, 120_000);
      expect(run, id).to.include({ status: 'completed', result: 'passed' });
      expect(run.summary).to.deep.equal({ total: TEST_CASES, passed: TEST_CASES, failed: 0, skipped: 0 });
      const results = (await app.request('GET', `/v1/runs/${id}/results`)).body;
      expect(results.details.testCases.map((c: { name: string }) => c.name)).to.deep.equal(
        Array.from({ length: TEST_CASES }, (_, i) => `step ${i + 1}`),
      );
    }
    // Each result recorded once, and the refused start created nothing.
    const rows = await app.dataSource.query(
      'SELECT runId, COUNT(*) AS n, COUNT(DISTINCT position) AS positions FROM run_test_case_results GROUP BY runId',
    );
    expect(
      rows.map((r: { n: number | string; positions: number | string }) => [Number(r.n), Number(r.positions)]),
    ).to.deep.equal(runIds.map(() => [TEST_CASES, TEST_CASES]));
    expect(Number((await app.dataSource.query('SELECT COUNT(*) AS n FROM runs'))[0].n)).to.equal(runsBefore + 1);
    // Each test case's request sent once: one execution id per node execution, none repeated.
    const executions = target.executions.get('/slow')!;
    expect(executions).to.have.length(runIds.length * TEST_CASES);
    expect(new Set(executions).size).to.equal(executions.length);
  });
});
