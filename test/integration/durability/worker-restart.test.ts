/**
 * Durability: a worker process killed with SIGKILL in the middle of a run, then started again,
 * finishes the run with nothing lost: every test case recorded once, with its real result. While
 * no worker is up, the API still answers from the stored row.
 */
import { expect } from 'chai';
import { eventually, startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { processEnv, spawnAssay, type AssayProcess } from '../../helpers/processes';
import { startTarget, type Target } from '../../helpers/target';
import { recordHistory } from '../../helpers/temporal';

const spawnWorker = (app: TestApp): AssayProcess => spawnAssay('worker', processEnv(app, { ASSAY_LOG_LEVEL: 'warn' }));

describe('a worker killed mid-run', function () {
  this.timeout(120_000);
  let app: TestApp;
  let target: Target;
  const children: AssayProcess[] = [];

  before(async () => {
    [app, target] = await Promise.all([startTestApp(), startTarget()]);
  });
  after(async () => {
    for (const c of children) await c.kill();
    await target?.close();
    await app?.stop();
  });

  it('is replaced by a new worker and the run completes with every result recorded once', async () => {
    await app.request('POST', '/v1/environments', { name: 'local', variables: { base: target.url } });
    for (let i = 1; i <= 6; i++) {
      const res = await app.request('POST', '/v1/test-cases', {
        name: `step ${i}`,
        folder: 'durable',
        flow: [
          {
            type: 'api',
            request: { method: 'GET', url: '{{base}}/slow?ms=700', timeoutMs: 5000 },
            assertions: [{ target: 'response.body.waited', operator: 'equals', expected: 700 }],
          },
        ],
      });
      expect(res.status).to.equal(201);
    }
    await app.request('POST', '/v1/runners', { name: 'durable', folder: 'durable' });

    const first = spawnWorker(app);
    children.push(first);
    const { runId } = (await app.request('POST', '/v1/runs', { runner: 'durable', environment: 'local' })).body;
    await eventually(
      async () => {
        const run = (await app.request('GET', `/v1/runs/${runId}`)).body;
        return run.status === 'running' && run.progress.completed >= 2;
      },
      60_000,
      100,
    );

    await first.kill();

    // No worker: the stored row answers, and the estimate of completion is still ahead of now.
    const meanwhile = await app.request('GET', `/v1/runs/${runId}`);
    expect(meanwhile.body.status).to.equal('running');
    expect(Date.parse(meanwhile.body.estimatedCompletion)).to.be.greaterThan(Date.now());
    expect(meanwhile.body.progress.completed).to.be.at.least(1);
    expect(meanwhile.body.progress.total).to.equal(6);

    children.push(spawnWorker(app));
    const run = await waitForRun(app, runId, 90_000);
    expect(run).to.include({ status: 'completed', result: 'passed' });
    expect(run.summary).to.deep.equal({ total: 6, passed: 6, failed: 0, skipped: 0 });
    const results = (await app.request('GET', `/v1/runs/${runId}/results`)).body;
    expect(
      results.details.testCases.map((c: { name: string; status: string }) => `${c.name} ${c.status}`),
    ).to.deep.equal([1, 2, 3, 4, 5, 6].map((i) => `step ${i} passed`));
    // At most the node under way is sent again (docs/durability.md "What a crash repeats"), with
    // the same X-Assay-Execution id, so the six node executions show six distinct ids.
    expect(target.hits.get('/slow')).to.be.within(6, 7);
    const ids = target.executions.get('/slow')!;
    expect(ids).to.have.length(target.hits.get('/slow')!);
    expect(new Set(ids).size).to.equal(6);
    for (const id of ids) expect(id).to.match(new RegExp(`^${runId}/[0-5]/[A-Za-z_][\\w-]*$`));
    await recordHistory('worker-killed', `run-${runId}`);
  });
});
