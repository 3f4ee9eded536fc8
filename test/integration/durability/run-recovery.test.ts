/**
 * No run lost to an API crash (docs/spec-choices.md "Durability and polling"): an API process killed with SIGKILL at random
 * moments during bursts of `POST /v1/runs` leaves no run `queued` without a workflow (the recovery
 * sweep of the restarted API starts them), and a client that retries with the same
 * `Idempotency-Key` gets the run its first call made, never a second one.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { IsNull } from 'typeorm';
import { Run, queuedRun } from '../../../src/store/entities';
import { newId, runWorkflowId } from '../../../src/ids';
import { eventually, startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { processEnv, spawnAssay, waitForHttp, type AssayProcess } from '../../helpers/processes';
import { startTarget, type Target } from '../../helpers/target';
import { workflowStatus } from '../../helpers/temporal';
import { freePort } from '../../../src/net/free-port';

/** Bursts of runs here are about crashes, not the workspace quotas (docs/security.md "Quotas"): lift them. */
const NO_QUOTAS = { ASSAY_QUOTA_CONCURRENT_RUNS: '1000000', ASSAY_QUOTA_RUNS_PER_MINUTE: '10000000' };

describe('an API process killed while it starts runs', function () {
  this.timeout(240_000);
  let app: TestApp;
  let target: Target;
  const children: AssayProcess[] = [];

  before(async () => {
    // The in-process API sweeps once at start and then hourly: recovery in this test is the child API's.
    [app, target] = await Promise.all([
      startTestApp({ worker: true, env: { ASSAY_RECOVERY_INTERVAL_MS: '3600000', ...NO_QUOTAS } }),
      startTarget(),
    ]);
    await app.request('POST', '/v1/environments', { name: 'local', variables: { base: target.url } });
    await app.request('POST', '/v1/test-cases', {
      name: 'ping',
      folder: 'burst',
      flow: [
        {
          type: 'api',
          request: { method: 'GET', url: '{{base}}/users/1' },
          assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
        },
      ],
    });
    await app.request('POST', '/v1/runners', { name: 'burst', folder: 'burst' });
  });
  after(async () => {
    for (const c of children) await c.kill();
    await target?.close();
    await app?.stop();
  });

  async function startApi(): Promise<{ proc: AssayProcess; url: string }> {
    const port = await freePort();
    const proc = spawnAssay(
      'api',
      processEnv(app, {
        ASSAY_PORT: String(port),
        ASSAY_RECOVERY_INTERVAL_MS: '1000',
        ASSAY_LOG_LEVEL: 'warn',
        ...NO_QUOTAS,
      }),
    );
    children.push(proc);
    const url = `http://127.0.0.1:${port}`;
    await waitForHttp(`${url}/healthz`);
    return { proc, url };
  }

  function post(url: string, key: string): Promise<{ status: number; runId?: string; replayed: boolean }> {
    return fetch(`${url}/v1/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${app.key}`, 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify({ runner: 'burst', environment: 'local' }),
    }).then(async (res) => ({
      status: res.status,
      runId: ((await res.json()) as { runId?: string }).runId,
      replayed: res.headers.get('idempotent-replayed') === 'true',
    }));
  }

  it('leaves no run queued without a workflow, and retried keys make no second run', async () => {
    const answered = new Map<string, string>();
    const keys: string[] = [];
    let unanswered = 0;
    for (let round = 0; round < 6; round++) {
      const { proc, url } = await startApi();
      const burst = Array.from({ length: 12 }, () => randomUUID());
      keys.push(...burst);
      const calls = burst.map((key) =>
        post(url, key).then(
          (r) => {
            if (r.status === 201 && r.runId) answered.set(key, r.runId);
          },
          () => (unanswered += 1),
        ),
      );
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 250)));
      await proc.kill();
      await Promise.all(calls);
    }

    // A restarted API finds every accepted run whose workflow was never started, and starts it.
    const repo = app.dataSource.getRepository(Run);
    const stranded = await repo.countBy({ status: 'queued', workflowStartedAt: IsNull() });
    if (process.env.ASSAY_TEST_VERBOSE)
      console.log(`stranded rows before recovery: ${stranded}; calls without an answer: ${unanswered}`);
    const { url } = await startApi();
    await eventually(
      async () => (await repo.countBy({ status: 'queued', workflowStartedAt: IsNull() })) === 0,
      60_000,
      250,
    );

    // The client retries every call (answered or not) with its key: one run per key, never two.
    const before = await repo.count();
    for (const key of keys) {
      const r = await post(url, key);
      expect(r.status, `retry of ${key}`).to.equal(201);
      if (answered.has(key)) {
        expect(r.runId).to.equal(answered.get(key));
        expect(r.replayed).to.equal(true);
      }
    }
    const runs = await repo.find();
    expect(runs.length).to.equal(keys.length);
    expect(runs.length - before).to.be.at.most(unanswered + (keys.length - answered.size));
    expect(new Set(runs.map((r) => r.idempotencyKey))).to.have.property('size', keys.length);

    // Every run has its workflow and completes.
    await eventually(async () => (await repo.countBy({ status: 'completed' })) === keys.length, 120_000, 500);
    for (const run of runs) expect(['RUNNING', 'COMPLETED']).to.include(await workflowStatus(run.workflowId));
    expect(await repo.countBy({ result: 'passed' })).to.equal(keys.length);
  });
});

describe('the recovery sweep', function () {
  this.timeout(60_000);
  let app: TestApp;

  before(async () => {
    app = await startTestApp({ worker: true, env: { ASSAY_RECOVERY_INTERVAL_MS: '3600000', ...NO_QUOTAS } });
    await app.request('POST', '/v1/environments', { name: 'e', variables: {} });
    await app.request('POST', '/v1/test-cases', {
      name: 'script only',
      folder: 's',
      flow: [{ type: 'script', script: { code: '$log("hi")' } }],
    });
    await app.request('POST', '/v1/runners', { name: 's', folder: 's' });
  });
  after(async () => app?.stop());

  /** A row as an API killed right after storing it leaves it. */
  async function strandedRow(createdAgoMs: number, timeoutSeconds = 60): Promise<string> {
    const id = newId('run');
    const repo = app.dataSource.getRepository(Run);
    const row = repo.create(
      queuedRun({
        id,
        workspaceId: app.workspaceId,
        runnerId: null,
        runnerName: 's',
        environmentId: null,
        environmentName: 'e',
        deploymentId: null,
        trigger: 'api',
        workflowId: runWorkflowId(id),
        timeoutSeconds,
        variables: {},
        context: null,
      }),
    );
    row.createdAt = new Date(Date.now() - createdAgoMs);
    await repo.insert(row as never);
    return id;
  }

  it('starts a stranded run, which then completes; a young row is left to the call that is starting it', async () => {
    const stranded = await strandedRow(30_000);
    const young = await strandedRow(0);
    const outcome = await app.api.recovery.sweep();
    expect(outcome.started).to.deep.equal([stranded]);
    const run = await waitForRun(app, stranded);
    expect(run).to.include({ status: 'completed', result: 'passed' });
    expect((await app.request('GET', `/v1/runs/${young}`)).body.status).to.equal('queued');
    // A second sweep (another API process) finds nothing more to do for the stranded run.
    expect((await app.api.recovery.sweep()).started).to.not.include(stranded);
  });

  it('fails a stranded run whose timeout passed before it could start, saying why', async () => {
    const expired = await strandedRow(120_000, 30);
    const outcome = await app.api.recovery.sweep();
    expect(outcome.failed).to.include(expired);
    const run = (await app.request('GET', `/v1/runs/${expired}`)).body;
    expect(run.status).to.equal('failed');
    expect(run.error).to.match(/could not be started within its timeout of 30 s/);
  });
});
