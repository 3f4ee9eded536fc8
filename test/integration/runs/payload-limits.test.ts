/**
 * Payload caps and the closed-workflow reconciler (docs/security.md "Payload caps", "Reconciler"), on a real Temporal server with
 * a real worker and a target on loopback.
 *
 * - A script setting a 4 MB variable, a `generateValue` returning 4 MB and a hook logging 4 MB
 *   each fail their node with a message naming the cap; the run goes on and ends (result
 *   `failed`) instead of failing workflow tasks with GrpcMessageTooLarge until its timeout.
 * - A run whose plan (test cases and variables, the result of `startRun`) is over its cap fails
 *   with the reason.
 * - With normal activities, a Script node and an API node whose input (earlier responses) is over
 *   its cap fail unsent; the API node with `errorCode` INPUT_TOO_LARGE (docs/flows.md "Error codes").
 * - A run whose workflow is terminated with the Temporal client ends `failed` with the reason after
 *   a recovery sweep; cancelling such a run ends it at once.
 */
import { expect } from 'chai';
import { Run } from '../../../src/store/entities';
import { eventually, startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { startTarget, type Target } from '../../helpers/target';
import { temporalClient } from '../../helpers/temporal';

const FOUR_MB = 4 * 1024 * 1024;

describe('payload caps and the closed-workflow reconciler', function () {
  this.timeout(180_000);
  let app: TestApp;
  let target: Target;

  before(async () => {
    // The in-process sweep runs at start, then hourly: the tests call it themselves.
    [app, target] = await Promise.all([
      startTestApp({ worker: true, env: { ASSAY_RECOVERY_INTERVAL_MS: '3600000' } }),
      startTarget(),
    ]);
    await app.request('POST', '/v1/environments', { name: 'local', variables: { base: target.url } });
  });
  after(async () => {
    await target?.close();
    await app?.stop();
  });

  async function startRun(
    folder: string,
    cases: Array<{ name: string; flow: unknown[] }>,
    timeout = 300,
  ): Promise<string> {
    for (const c of cases) {
      const res = await app.request('POST', '/v1/test-cases', { ...c, folder });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
    }
    expect((await app.request('POST', '/v1/runners', { name: folder, folder, order: 'createdAt' })).status).to.equal(
      201,
    );
    const res = await app.request('POST', '/v1/runs', { runner: folder, environment: 'local', timeout });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.runId;
  }

  it('fails the node whose script output is over a cap, and the run ends instead of retrying until its timeout', async () => {
    const runId = await startRun('big', [
      {
        name: 'big variable',
        flow: [
          { type: 'script', id: 'setBig', script: { code: `$context.set('big', 'x'.repeat(${FOUR_MB}));` } },
          { type: 'context', id: 'after', set: { small: '1' } },
        ],
      },
      {
        name: 'big value',
        flow: [
          {
            type: 'script',
            id: 'genBig',
            variable: 'v',
            script: { code: `async function generateValue() { return 'v'.repeat(${FOUR_MB}); }` },
          },
        ],
      },
      {
        name: 'big log',
        flow: [
          {
            type: 'api',
            id: 'logBig',
            request: { method: 'GET', url: '{{base}}/users/1' },
            // The sandbox keeps 200 lines of 10,000 characters: 200 × 20,000 bytes of 'é' is 3.8 MiB.
            script: {
              code: `async function afterResponse() { for (let i = 0; i < 400; i++) console.log('é'.repeat(${FOUR_MB / 400})); }`,
            },
          },
        ],
      },
      {
        name: 'many log lines',
        flow: [
          {
            type: 'script',
            id: 'logLines',
            script: { code: `for (let i = 0; i < 4096; i++) $log('z'.repeat(2048));` },
          },
        ],
      },
      { name: 'big context value', flow: [{ type: 'context', id: 'ctxBig', set: { big: '$pad("", 300000, "x")' } }] },
      {
        name: 'still runs',
        flow: [
          {
            type: 'api',
            id: 'ok',
            request: { method: 'GET', url: '{{base}}/users/1' },
            assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
          },
        ],
      },
    ]);
    const run = await waitForRun(app, runId, 120_000);
    expect(run.status, JSON.stringify(run)).to.equal('completed');
    expect(run.result).to.equal('failed');
    const results = (await app.request('GET', `/v1/runs/${runId}/results`)).body;
    const cases = results.details.testCases as any[];
    expect(cases.map((c) => `${c.name}:${c.status}`)).to.deep.equal([
      'big variable:failed',
      'big value:failed',
      'big log:failed',
      'many log lines:failed',
      'big context value:failed',
      'still runs:passed',
    ]);

    const node = (i: number, id: string) => cases[i].nodes.find((n: any) => n.id === id);
    expect(node(0, 'setBig').error).to.match(/^script failed: script variables exceed 256 KiB \(4\.0 MiB\)/);
    expect(node(1, 'genBig').error).to.match(/^script failed: the generateValue result exceeds 256 KiB \(4\.0 MiB\)/);
    expect(node(2, 'logBig').error).to.match(/^afterResponse failed: script logs exceed 128 KiB \(3\.\d MiB\)/);
    expect(node(3, 'logLines').error).to.match(/script logs exceed 128 KiB/);
    expect(node(4, 'ctxBig').error).to.match(/^set\.big: the value exceeds 256 KiB \(293 KiB\)/);
    // The logs kept are the first ones, cut, with a line saying so; the whole result stays small.
    const logs = node(2, 'logBig').logs as Array<{ message: string }>;
    expect(logs.at(-1)!.message).to.match(/logs cut: 3\.\d MiB logged, at most 128 KiB are kept/);
    expect(JSON.stringify(cases[2]).length).to.be.below(200 * 1024);
    expect(node(3, 'logLines').logs.length).to.be.within(2, 130);
    expect(run.error ?? null).to.equal(null);
  });

  it('fails a run whose plan is over its cap with the reason, instead of a workflow task that can never complete', async () => {
    // Sixteen test cases with 800 KB request bodies: the plan is 12.2 MiB, over what a run's row keeps (12 MiB).
    const big = (name: string) => ({
      name,
      flow: [{ type: 'api', request: { method: 'POST', url: '{{base}}/echo', body: { blob: 'p'.repeat(800_000) } } }],
    });
    const runId = await startRun(
      'big-plan',
      Array.from({ length: 16 }, (_, i) => big(`big ${i}`)),
    );
    const run = await waitForRun(app, runId, 60_000);
    expect(run.status).to.equal('failed');
    expect(run.error).to.match(
      /^Run could not start: the run's plan \(the runner's test cases and the variables\) exceeds 12\.0 MiB \(12\.\d MiB\);.* Run part of it at a time \(assay run --folder <folder> or --tag <tag>\), or split its test cases over several runners\.$/,
    );
  });

  it('with normal activities, fails a node whose input (earlier responses) is over its cap instead of stalling the run (an API node: errorCode INPUT_TOO_LARGE)', async () => {
    const normal = await startTestApp({
      worker: true,
      env: { ASSAY_API_NODE_ACTIVITY: 'normal', ASSAY_RECOVERY_INTERVAL_MS: '3600000' },
    });
    try {
      await normal.request('POST', '/v1/environments', { name: 'local', variables: { base: target.url } });
      // Eighteen responses of 250 KiB, then a script that sees them all in `nodes`: 4.4 MiB of input, over gRPC's 4 MB.
      const fetches = Array.from({ length: 18 }, (_, i) => ({
        type: 'api',
        id: `big${i}`,
        request: { method: 'GET', url: '{{base}}/big?kb=250' },
      }));
      const flow = [
        ...fetches,
        { type: 'script', id: 'reads', script: { code: '$log(Object.keys($context.nodes ?? {}).length)' } },
      ];
      expect((await normal.request('POST', '/v1/test-cases', { name: 'wide', folder: 'wide', flow })).status).to.equal(
        201,
      );
      // The same for an API node with a hook (it sees `nodes` too): seven responses of 250 KiB, 1.7 MiB of input.
      // It fails unsent, with errorCode INPUT_TOO_LARGE (docs/flows.md "Error codes").
      const hooked = [
        ...fetches.slice(0, 7),
        {
          type: 'api',
          id: 'hooked',
          request: { method: 'GET', url: '{{base}}/users/1' },
          script: { code: 'async function afterResponse() { $log("never run"); }' },
        },
      ];
      expect(
        (await normal.request('POST', '/v1/test-cases', { name: 'wide api', folder: 'wide', flow: hooked })).status,
      ).to.equal(201);
      expect((await normal.request('POST', '/v1/runners', { name: 'wide', folder: 'wide' })).status).to.equal(201);
      const hitsBefore = target.hits.get('/users/1') ?? 0;
      const { runId } = (
        await normal.request('POST', '/v1/runs', { runner: 'wide', environment: 'local', timeout: 40 })
      ).body;
      const run = await waitForRun(normal, runId, 100_000);
      expect(run.status, JSON.stringify(run)).to.equal('completed');
      const cases = (await normal.request('GET', `/v1/runs/${runId}/results`)).body.details.testCases as any[];
      const tc = cases.find((c) => c.name === 'wide');
      const reads = tc.nodes.find((n: any) => n.id === 'reads');
      expect(reads.status).to.equal('failed');
      expect(reads.error).to.match(
        /the node's input \(variables and earlier nodes' requests and responses\) exceeds 1\.5 MiB \(\d\.\d MiB\)/,
      );
      const hookedResult = cases.find((c) => c.name === 'wide api').nodes.find((n: any) => n.id === 'hooked');
      expect(hookedResult).to.include({ status: 'failed', errorCode: 'INPUT_TOO_LARGE' });
      expect(hookedResult.error).to.match(/the node's input .* exceeds 1\.5 MiB \(1\.\d MiB\)/);
      expect(hookedResult).to.not.have.property('logs');
      expect(target.hits.get('/users/1') ?? 0, 'the hooked request was never sent').to.equal(hitsBefore);
    } finally {
      await normal.stop();
    }
  });

  it('ends a run whose workflow was terminated: the sweep fails it with the reason', async () => {
    const runId = await startRun('terminated', [{ name: 'waits', flow: [{ type: 'wait', id: 'w', ms: 600_000 }] }]);
    await eventually(async () => (await app.request('GET', `/v1/runs/${runId}`)).body.status === 'running');
    const row = await app.dataSource.getRepository(Run).findOneByOrFail({ id: runId });
    await (await temporalClient()).workflow.getHandle(row.workflowId).terminate('test: as Temporal does past a limit');

    // A sweep that only looks at rows older than a minute leaves this one alone.
    expect((await app.api.recovery.sweep()).reconciled).to.not.include(runId);
    expect((await app.request('GET', `/v1/runs/${runId}`)).body.status).to.equal('running');

    const outcome = await app.api.recovery.sweep(10_000, 0);
    expect(outcome.reconciled).to.include(runId);
    const run = (await app.request('GET', `/v1/runs/${runId}`)).body;
    expect(run.status).to.equal('failed');
    expect(run.error).to.match(/^The run's workflow was terminated/);
    // Idempotent: the next sweep has nothing to do.
    expect((await app.api.recovery.sweep(10_000, 0)).reconciled).to.not.include(runId);
  });

  it('cancelling a run whose workflow was terminated ends it', async () => {
    const runId = await startRun('cancel-terminated', [
      { name: 'waits', flow: [{ type: 'wait', id: 'w', ms: 600_000 }] },
    ]);
    await eventually(async () => (await app.request('GET', `/v1/runs/${runId}`)).body.status === 'running');
    const row = await app.dataSource.getRepository(Run).findOneByOrFail({ id: runId });
    await (await temporalClient()).workflow.getHandle(row.workflowId).terminate('test');

    const cancel = await app.request('POST', `/v1/runs/${runId}/cancel`);
    expect(cancel.status, JSON.stringify(cancel.body)).to.equal(202);
    expect(cancel.body.status).to.equal('failed');
    const run = (await app.request('GET', `/v1/runs/${runId}`)).body;
    expect(run.status).to.equal('failed');
    expect(run.error).to.match(/^The run's workflow was terminated/);
  });
});
