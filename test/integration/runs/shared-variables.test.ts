/**
 * Variables across test cases (docs/flows.md "Variables across test cases"): a runner with
 * `variableScope: 'run'` starts each test case from the variables the one before it ended with, as
 * a Newman collection run passes them on; with the default `testCase` each starts from the run's
 * variables. The carried variables are workflow state: a worker killed (-9) in the middle of the run
 * loses none of them.
 */
import { expect } from 'chai';
import { eventually, startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { processEnv, spawnAssay, type AssayProcess } from '../../helpers/processes';
import { startTarget, type Target } from '../../helpers/target';
import { temporalClient } from '../../helpers/temporal';

const echo = (query: string, expected: unknown) => ({
  type: 'api',
  request: { method: 'GET', url: `{{base}}/echo?${query}` },
  assertions: [{ target: 'response.body.query.v', operator: 'equals', expected }],
});

describe("variables across test cases (a runner's variableScope)", function () {
  this.timeout(180_000);
  let app: TestApp;
  let target: Target;
  const children: AssayProcess[] = [];

  before(async () => {
    [app, target] = await Promise.all([startTestApp({ worker: true }), startTarget()]);
    await app.request('POST', '/v1/environments', { name: 'local', variables: { base: target.url, counter: 0 } });
    // "log in" stores a token; "use it" sends it; "count" adds one to a counter it finds.
    const cases: Array<[string, unknown[]]> = [
      ['1 log in', [{ type: 'context', set: { token: '"t-42"' } }]],
      ['2 use it', [echo('v={{token}}', 't-42')]],
      ['3 count', [{ type: 'context', set: { counter: 'variables.counter + 1' } }, echo('v={{counter}}', '1')]],
    ];
    for (const [name, flow] of cases) {
      const res = await app.request('POST', '/v1/test-cases', { name, folder: 'shared', flow });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
    }
  });
  after(async () => {
    for (const c of children) await c.kill();
    await target?.close();
    await app?.stop();
  });

  it('a runner says testCase by default, takes run, and refuses anything else naming the field', async () => {
    const made = await app.request('POST', '/v1/runners', { name: 'separate', folder: 'shared' });
    expect(made.body.variableScope).to.equal('testCase');
    const shared = await app.request('POST', '/v1/runners', { name: 'shared', folder: 'shared', variableScope: 'run' });
    expect(shared.status, JSON.stringify(shared.body)).to.equal(201);
    expect((await app.request('GET', '/v1/runners/shared')).body.variableScope).to.equal('run');
    const bad = await app.request('PATCH', '/v1/runners/shared', { variableScope: 'collection' });
    expect(bad.status).to.equal(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).to.deep.equal(['variableScope']);
    expect((await app.request('GET', '/v1/runners/shared')).body.variableScope, 'nothing stored').to.equal('run');
  });

  it('with run, a later test case sees what an earlier one set; with testCase, it does not', async () => {
    const outcome = async (runner: string) => {
      const { runId } = (await app.request('POST', '/v1/runs', { runner, environment: 'local' })).body;
      expect((await waitForRun(app, runId)).status).to.equal('completed');
      const results = (await app.request('GET', `/v1/runs/${runId}/results`)).body;
      return results.details.testCases.map((c: { name: string; status: string }) => `${c.name}: ${c.status}`);
    };
    expect(await outcome('shared')).to.deep.equal(['1 log in: passed', '2 use it: passed', '3 count: passed']);
    // Separate test cases: "use it" sends the unfilled placeholder; "count" starts from the environment's 0 either way.
    expect(await outcome('separate')).to.deep.equal(['1 log in: passed', '2 use it: failed', '3 count: passed']);
  });

  it('keeps the carried variables through a worker killed (-9) between test cases, and across continue-as-new', async () => {
    // Its own app: the worker is a process to kill, and one test case per workflow execution.
    const own = await startTestApp();
    try {
      await own.request('POST', '/v1/environments', { name: 'local', variables: { base: target.url, n: 0 } });
      for (let i = 1; i <= 4; i++) {
        const flow = [
          { type: 'context', set: { n: 'variables.n + 1' } },
          {
            type: 'api',
            request: { method: 'GET', url: `{{base}}/slow?ms=600&v={{n}}` },
            assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
          },
          echo('v={{n}}', String(i)),
        ];
        expect(
          (await own.request('POST', '/v1/test-cases', { name: `step ${i}`, folder: 'kill', flow })).status,
        ).to.equal(201);
      }
      await own.request('POST', '/v1/runners', { name: 'kill', folder: 'kill', variableScope: 'run' });
      const first = spawnAssay(
        'worker',
        processEnv(own, { ASSAY_LOG_LEVEL: 'warn', ASSAY_TEST_CASES_PER_EXECUTION: '1' }),
      );
      children.push(first);
      const { runId } = (await own.request('POST', '/v1/runs', { runner: 'kill', environment: 'local' })).body;
      await eventually(
        async () => (await own.request('GET', `/v1/runs/${runId}`)).body.progress?.completed >= 2,
        60_000,
        100,
      );
      await first.kill();
      children.push(
        spawnAssay('worker', processEnv(own, { ASSAY_LOG_LEVEL: 'warn', ASSAY_TEST_CASES_PER_EXECUTION: '1' })),
      );
      const run = await waitForRun(own, runId, 90_000);
      expect(run).to.include({ status: 'completed', result: 'passed' });
      const results = (await own.request('GET', `/v1/runs/${runId}/results`)).body;
      expect(results.details.testCases.map((c: { status: string }) => c.status)).to.deep.equal([
        'passed',
        'passed',
        'passed',
        'passed',
      ]);
      // One test case per workflow execution: the variables crossed three continue-as-new.
      const history = await (await temporalClient()).workflow.getHandle(`run-${runId}`).fetchHistory();
      const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
      expect(started?.continuedExecutionRunId, 'the last execution continued an earlier one').to.be.a('string');
    } finally {
      await own.stop();
    }
  });
});
