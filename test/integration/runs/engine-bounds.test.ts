/**
 * Regular expressions and in-workflow work (docs/security.md "Regular expressions", "In-workflow
 * work") on a real Temporal server with a real worker:
 * - ReDoS patterns (`matches` `^(a|a)*$`, a schema `pattern` `^(a+)+$`, a JSONata
 *   regex literal with nested alternation) run inside the workflow on RE2 and the run completes
 *   (no timing threshold: a backtracking engine would hold the workflow task for minutes);
 * - a backreference is refused when the test case is saved, with a 400 naming the field;
 * - a Loop of 1,000 around a Loop of 1,000 around a Context node yields between workflow tasks: its
 *   20 s timeout is checked (the run fails "timed out") with no workflow task failed or timed out
 *   (and its history, yields included, replays), and a run of another workspace started meanwhile completes while the first is
 *   still running.
 */
import { expect } from 'chai';
import { Worker } from '@temporalio/worker';
import { workflowSource } from '../../../src/temporal/bundle';
import { eventually, startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { startTarget, type Target } from '../../helpers/target';
import { temporalClient, testDataConverter } from '../../helpers/temporal';

describe('engine bounds: linear-time regular expressions, in-workflow work budget', function () {
  this.timeout(180_000);
  let app: TestApp;
  let target: Target;
  let otherKey: string;

  before(async () => {
    [app, target] = await Promise.all([
      startTestApp({ worker: true, env: { ASSAY_QUOTA_LOOP_ITERATIONS: '10000000' } }),
      startTarget(),
    ]);
    otherKey = await app.issueKey('write', 'engine-bounds-other');
    for (const key of [app.key, otherKey]) {
      const res = await app.request(
        'POST',
        '/v1/environments',
        { name: 'local', variables: { base: target.url } },
        { key },
      );
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
    }
  });
  after(async () => {
    await target?.close();
    await app?.stop();
  });

  async function startRun(key: string, name: string, flow: unknown[], timeout?: number): Promise<string> {
    const created = await app.request('POST', '/v1/test-cases', { name, folder: name, flow }, { key });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const runner = await app.request('POST', '/v1/runners', { name, folder: name }, { key });
    expect(runner.status, JSON.stringify(runner.body)).to.equal(201);
    const run = await app.request(
      'POST',
      '/v1/runs',
      { runner: name, environment: 'local', ...(timeout ? { timeout } : {}) },
      { key },
    );
    expect(run.status, JSON.stringify(run.body)).to.equal(201);
    return run.body.runId as string;
  }

  it('refuses a backreference or a lookahead at save time, naming the field', async () => {
    const res = await app.request('POST', '/v1/test-cases', {
      name: 'backreference',
      flow: [
        {
          type: 'api',
          request: { method: 'GET', url: '{{base}}/echo' },
          assertions: [
            { target: 'response.body.path', operator: 'matches', expected: '^(/)\\1$' },
            {
              target: 'response.body',
              operator: 'matchesSchema',
              expected: { type: 'object', properties: { path: { type: 'string', pattern: '^/(?=e)' } } },
            },
            { target: '$match(response.body.path, /(e)\\1/)', operator: 'exists' },
          ],
        },
      ],
    });
    expect(res.status).to.equal(400);
    expect(res.body.code).to.equal('validation-failed');
    const byField = Object.fromEntries(
      (res.body.errors as Array<{ field: string; detail: string }>).map((e) => [e.field, e.detail]),
    );
    const fields = Object.keys(byField);
    const find = (suffix: string) => byField[fields.find((f) => f.endsWith(suffix))!];
    expect(fields, JSON.stringify(res.body)).to.have.length(3);
    expect(find('assertions[0].expected')).to.contain('backreferences are not supported');
    expect(find('assertions[1].expected')).to.contain('lookahead and lookbehind are not supported');
    expect(find('assertions[2].target')).to.contain('backreferences are not supported');
  });

  it('runs ReDoS patterns inside the workflow on RE2: the run completes with the right verdicts', async () => {
    const evil = `${'a'.repeat(33)}!`;
    const runId = await startRun(app.key, 'redos', [
      {
        type: 'api',
        id: 'req',
        request: { method: 'GET', url: `{{base}}/echo?s=${evil}&ok=aaaa` },
        assertions: [
          { name: 'evil matches', target: 'response.body.query.s', operator: 'matches', expected: '^(a|a)*$' },
          {
            name: 'evil schema',
            target: 'response.body.query.s',
            operator: 'matchesSchema',
            expected: { type: 'string', pattern: '^(a+)+$' },
          },
          { name: 'ok matches', target: 'response.body.query.ok', operator: 'matches', expected: '^(a|a)*$' },
          {
            name: 'ok schema',
            target: 'response.body.query.ok',
            operator: 'matchesSchema',
            expected: { type: 'string', pattern: '^(a+)+$' },
          },
        ],
      },
      {
        type: 'context',
        id: 'ctx',
        set: {
          m: '$contains(nodes.req.response.body.query.s, /^((a|aa)+)+$/)',
          r: 'nodes.req.response.body.query.ok ~> $replace(/(a|a)+/, "x")',
        },
      },
    ]);
    const run = await waitForRun(app, runId, 120_000);
    expect(run.status).to.equal('completed');
    const results = (await app.request('GET', `/v1/runs/${runId}/results`)).body;
    const [req, ctx] = results.details.testCases[0].nodes;
    expect(req.assertions.map((a: { name: string; passed: boolean }) => `${a.name}:${a.passed}`)).to.deep.equal([
      'evil matches:false',
      'evil schema:false',
      'ok matches:true',
      'ok schema:true',
    ]);
    expect(ctx.variablesSet).to.deep.equal({ m: false, r: 'x' });
  });

  it('a Loop of 1,000 around a Loop of 1,000 around a Context node fails "timed out" at 20 s, and another workspace\'s run completes meanwhile', async () => {
    const heavy = await startRun(
      app.key,
      'nested-loops',
      [
        {
          type: 'loop',
          id: 'outer',
          count: 1000,
          body: [
            {
              type: 'loop',
              id: 'inner',
              count: 1000,
              body: [{ type: 'context', id: 'c', set: { x: 'loop.index + 1' } }],
            },
          ],
        },
      ],
      20,
    );
    await eventually(
      async () => (await app.request('GET', `/v1/runs/${heavy}`)).body.status === 'running',
      60_000,
      100,
    );
    const light = await startRun(otherKey, 'one-node', [{ type: 'context', id: 'c', set: { done: 'true' } }]);
    const lightRun = await eventually(
      async () => {
        const res = await app.request('GET', `/v1/runs/${light}`, undefined, { key: otherKey });
        return res.body.status === 'completed' || res.body.status === 'failed' ? res.body : undefined;
      },
      120_000,
      100,
    );
    // Read right after the light run finished: the heavy one (20 s timeout) has not ended yet.
    const heavyMeanwhile = (await app.request('GET', `/v1/runs/${heavy}`)).body;
    expect(lightRun).to.include({ status: 'completed', result: 'passed' });
    expect(heavyMeanwhile.status).to.equal('running');
    const heavyRun = await waitForRun(app, heavy, 150_000);
    expect(heavyRun.status).to.equal('failed');
    expect(heavyRun.error).to.equal('Run timed out after 20 s');
    // It got there by yielding (endWorkflowTask activities between workflow tasks), not by workflow tasks
    // that ran into their timeout and failed.
    const history = await (await temporalClient()).workflow.getHandle(`run-${heavy}`).fetchHistory();
    const events = history.events ?? [];
    expect(
      events.filter((e) => e.workflowTaskFailedEventAttributes || e.workflowTaskTimedOutEventAttributes),
    ).to.deep.equal([]);
    expect(
      events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'endWorkflowTask').length,
    ).to.be.greaterThan(0);
    // The budget is counted, not timed: the history with its yields replays deterministically.
    await Worker.runReplayHistory(
      { ...workflowSource(), dataConverter: testDataConverter(), replayName: 'nested-loops' },
      history,
    );
  });
});
