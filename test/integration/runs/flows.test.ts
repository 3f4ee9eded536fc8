/**
 * Test flows on a real Temporal server with a real worker, against a real HTTP server on loopback:
 * every node type with its edge cases (IF without Else, breakCondition on the first iteration,
 * an empty iteration array, nested loops, the iteration cap, data sets), scripts and hooks, Wait,
 * Context and Parallel nodes, retries, expressions that throw or run away, and loops long enough
 * to continue in child workflows. A flow with every node type is recorded for the replay test.
 */
import { expect } from 'chai';
import { startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { startTarget, type Target } from '../../helpers/target';
import { recordHistory, temporalClient } from '../../helpers/temporal';

type Json = Record<string, unknown>;
const echo = (query: string, extra: Json = {}) => ({
  type: 'api',
  request: { method: 'GET', url: `{{base}}/echo?${query}` },
  ...extra,
});
const status200 = { target: 'response.status', operator: 'equals', expected: 200 };

async function runFlows(
  app: TestApp,
  name: string,
  cases: Array<{ name: string; flow: unknown[]; dataSets?: unknown[] }>,
  variables: Json = {},
) {
  for (const c of cases) {
    const res = await app.request('POST', '/v1/test-cases', { ...c, folder: name });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
  }
  await app.request('POST', '/v1/runners', { name, folder: name, order: 'createdAt' });
  const { runId } = (await app.request('POST', '/v1/runs', { runner: name, environment: 'local', variables })).body;
  const run = await waitForRun(app, runId, 90_000);
  const results = (await app.request('GET', `/v1/runs/${runId}/results`)).body;
  return { runId, run, cases: results.details.testCases as any[] };
}

describe('test flows', function () {
  this.timeout(120_000);
  let app: TestApp;
  let target: Target;

  before(async () => {
    [app, target] = await Promise.all([
      startTestApp({
        worker: true,
        env: { ASSAY_MAX_LOOP_ITERATIONS: '20', ASSAY_SCRIPT_TIMEOUT_MS: '1500', ASSAY_SCRIPT_MEMORY_MB: '32' },
      }),
      startTarget(),
    ]);
    await app.request('POST', '/v1/environments', { name: 'local', variables: { base: target.url } });
  });
  after(async () => {
    await target?.close();
    await app?.stop();
  });

  it('IF runs Then when the condition holds, Else when not, and reports the branch not taken as skipped', async () => {
    const ifNode = (condition: string, withElse: boolean) => ({
      type: 'if',
      id: 'check',
      condition,
      then: [echo('branch=then', { id: 'thenNode' })],
      ...(withElse ? { else: [echo('branch=else', { id: 'elseNode' })] } : {}),
    });
    const { cases } = await runFlows(app, 'if', [
      { name: 'then', flow: [echo('x=1', { id: 'first' }), ifNode('nodes.first.response.body.query.x = "1"', true)] },
      { name: 'else', flow: [ifNode('variables.flag = true', true)] },
      { name: 'false without else', flow: [ifNode('$count([]) > 0', false)] },
    ]);
    const [thenCase, elseCase, noElse] = cases.map((c) => c.nodes.find((n: Json) => n.id === 'check'));
    expect(thenCase).to.deep.include({ branch: 'then', condition: true, status: 'passed' });
    expect(thenCase.children.map((c: Json) => `${c.id}:${c.status}`)).to.deep.equal([
      'thenNode:passed',
      'elseNode:skipped',
    ]);
    expect(elseCase.branch).to.equal('else');
    expect(elseCase.children.map((c: Json) => `${c.id}:${c.status}`)).to.deep.equal([
      'elseNode:passed',
      'thenNode:skipped',
    ]);
    expect(noElse).to.deep.include({ branch: 'none', status: 'passed' });
    expect(noElse.children).to.deep.equal([
      {
        id: 'thenNode',
        type: 'api',
        status: 'skipped',
        duration: 0,
        reason: 'condition did not hold: Then branch not taken',
      },
    ]);
    expect(target.hits.get('/echo')).to.be.at.least(3);
  });

  it('Loop: a count, a while condition over variables, breakCondition true on the first iteration, and the cap', async () => {
    const { cases, run } = await runFlows(
      app,
      'loops',
      [
        {
          name: 'count',
          flow: [
            {
              type: 'loop',
              id: 'l',
              count: 3,
              body: [
                echo('i={{index}}&n={{iteration}}', {
                  id: 'req',
                  assertions: [
                    { target: 'response.body.query.i = $string(loop.index)', operator: 'equals', expected: true },
                  ],
                }),
              ],
            },
          ],
        },
        {
          name: 'while',
          flow: [
            {
              type: 'loop',
              id: 'l',
              while: 'variables.n < 3',
              body: [{ type: 'context', id: 'inc', set: { n: 'variables.n + 1' } }],
            },
            { type: 'context', id: 'done', set: { final: 'variables.n' } },
          ],
        },
        {
          name: 'break at once',
          flow: [
            { type: 'loop', id: 'l', count: 10, breakCondition: 'loop.index = 0', body: [echo('b=1', { id: 'req' })] },
          ],
        },
        {
          name: 'endless',
          flow: [{ type: 'loop', id: 'l', while: 'true', body: [{ type: 'context', id: 'c', set: { x: '1' } }] }],
        },
        { name: 'after the endless one', flow: [echo('after=1', { id: 'req', assertions: [status200] })] },
      ],
      { n: 0 },
    );
    const loopOf = (i: number) => cases[i].nodes[0];
    expect(loopOf(0)).to.deep.include({ iterations: 3, stoppedBy: 'count', status: 'passed' });
    expect(loopOf(0).iterationResults.map((it: Json) => it.index)).to.deep.equal([0, 1, 2]);
    expect(cases[0].assertions).to.equal(3);
    expect(loopOf(1)).to.deep.include({ iterations: 3, stoppedBy: 'condition' });
    expect(cases[1].nodes[1].variablesSet).to.deep.equal({ final: 3 });
    expect(loopOf(2)).to.deep.include({ iterations: 1, stoppedBy: 'break', status: 'passed' });
    expect(loopOf(3)).to.deep.include({
      iterations: 20,
      stoppedBy: 'cap',
      status: 'failed',
      error: 'stopped at its cap of 20 iterations (ASSAY_MAX_LOOP_ITERATIONS)',
    });
    expect(cases[3].status).to.equal('failed');
    expect(cases[4].status).to.equal('passed');
    expect(run).to.include({ status: 'completed', result: 'failed' });
  });

  it('Iteration: over an expression, an empty array, a JSON data set and a CSV data set, and nested in a Loop', async () => {
    const { cases } = await runFlows(app, 'iteration', [
      {
        name: 'nested',
        flow: [
          {
            type: 'loop',
            id: 'outer',
            count: 2,
            body: [
              {
                type: 'iteration',
                id: 'inner',
                items: '["a", "b"]',
                as: 'letter',
                body: [
                  echo('l={{letter}}&i={{index}}', {
                    id: 'req',
                    assertions: [
                      { target: 'response.body.query.l = loops.inner.item', operator: 'equals', expected: true },
                    ],
                  }),
                ],
              },
            ],
          },
        ],
      },
      {
        name: 'empty',
        flow: [{ type: 'iteration', id: 'none', items: 'variables.nothing', body: [echo('never=1', { id: 'req' })] }],
      },
      {
        name: 'json data set',
        dataSets: [
          {
            name: 'users',
            type: 'json',
            data: [
              { id: 1, name: 'Ada' },
              { id: 2, name: 'Grace' },
            ],
          },
        ],
        flow: [
          {
            type: 'iteration',
            id: 'each',
            dataSet: 'users',
            body: [
              {
                type: 'api',
                id: 'get',
                request: { method: 'GET', url: '{{base}}/users/{{item.id}}' },
                assertions: [{ target: 'response.body.name = loop.item.name', operator: 'equals', expected: true }],
              },
            ],
          },
        ],
      },
      {
        name: 'csv data set',
        dataSets: [{ name: 'rows', type: 'csv', csv: 'id,name\n3,Edsger\n4,Barbara\n99,Nobody\n', cast: true }],
        flow: [
          {
            type: 'iteration',
            id: 'each',
            dataSet: 'rows',
            as: 'row',
            breakCondition: 'nodes.get.response.status = 404',
            body: [
              {
                type: 'api',
                id: 'get',
                request: { method: 'GET', url: '{{base}}/users/{{row.id}}' },
                assertions: [{ target: 'loop.item.id', operator: 'isType', expected: 'integer' }],
              },
            ],
          },
        ],
      },
    ]);
    const nested = cases[0].nodes[0];
    expect(nested).to.deep.include({ iterations: 2, stoppedBy: 'count', status: 'passed' });
    expect(nested.iterationResults[1].nodes[0]).to.deep.include({ id: 'inner', iterations: 2, stoppedBy: 'items' });
    expect(nested.iterationResults[1].nodes[0].iterationResults.map((it: Json) => it.item)).to.deep.equal(['a', 'b']);
    expect(cases[0].assertions).to.equal(4);
    expect(cases[1].nodes[0]).to.deep.include({ iterations: 0, stoppedBy: 'items', status: 'passed' });
    expect(cases[2]).to.deep.include({ status: 'passed', assertions: 2 });
    expect(cases[3].nodes[0]).to.deep.include({ iterations: 3, stoppedBy: 'break' });
    expect(cases[3].nodes[0].iterationResults.map((it: Json) => it.item)).to.deep.equal([
      { id: 3, name: 'Edsger' },
      { id: 4, name: 'Barbara' },
      { id: 99, name: 'Nobody' },
    ]);
  });

  it('Script nodes and API node hooks: generateValue, beforeRequest, afterResponse, logs; a failing script fails only its step', async () => {
    const { cases } = await runFlows(app, 'scripts', [
      {
        name: 'hooks',
        flow: [
          {
            type: 'script',
            id: 'gen',
            variable: 'user',
            script: {
              code: "$log('generating');\nasync function generateValue() { return 'ada-' + _.padStart('7', 3, '0'); }",
            },
          },
          {
            type: 'api',
            id: 'signed',
            request: { method: 'POST', url: '{{base}}/echo', body: { user: '{{user}}' } },
            script: {
              code: "async function beforeRequest() {\n  $request.headers['X-Signature'] = CryptoJS.HmacSHA256(JSON.stringify($request.body), 'k').toString();\n  console.info('signed for', $context.get('user'));\n}\nasync function afterResponse() { $context.set('echoed', $response.body.body.user); }",
              libs: ['crypto-js@4.2.0'],
            },
            assertions: [{ target: '$length(response.body.headers."x-signature")', operator: 'equals', expected: 64 }],
          },
          echo('seen={{echoed}}', {
            id: 'uses',
            assertions: [{ target: 'response.body.query.seen', operator: 'equals', expected: 'ada-007' }],
          }),
        ],
      },
      {
        name: 'broken script',
        flow: [
          { type: 'script', id: 'bad', script: { code: '\n\nundefinedThing();' } },
          echo('still=1', { id: 'next' }),
        ],
      },
      { name: 'after the broken one', flow: [echo('ok=1', { id: 'req', assertions: [status200] })] },
    ]);
    expect(cases[0].status, JSON.stringify(cases[0].failures)).to.equal('passed');
    expect(cases[0].nodes[0]).to.deep.include({
      variablesSet: { user: 'ada-007' },
      logs: [{ level: 'info', message: 'generating' }],
    });
    expect(cases[0].nodes[1].logs).to.deep.equal([{ level: 'info', message: 'signed for ada-007' }]);
    const bad = cases[1].nodes[0];
    expect(bad).to.deep.include({
      status: 'failed',
      line: 3,
      error: 'script failed (line 3, column 1): ReferenceError: undefinedThing is not defined',
    });
    expect(cases[1].nodes[1].status).to.equal('passed');
    expect(cases[2].status).to.equal('passed');
  });

  it('scripts that loop forever, allocate without end, or reach for process fail their step; the worker stays healthy', async () => {
    const { cases, run } = await runFlows(app, 'hostile-scripts', [
      { name: 'endless loop', flow: [{ type: 'script', id: 's', script: { code: 'for (;;) {}' } }] },
      {
        name: 'endless await',
        flow: [
          {
            type: 'api',
            id: 'a',
            request: { method: 'GET', url: '{{base}}/echo' },
            script: { code: 'async function beforeRequest() { await new Promise(() => {}); }' },
          },
        ],
      },
      {
        name: 'endless allocation',
        flow: [
          {
            type: 'script',
            id: 's',
            script: { code: 'const keep = [];\nwhile (true) keep.push(new Array(100000).fill(1));' },
          },
        ],
      },
      { name: 'process', flow: [{ type: 'script', id: 's', script: { code: 'process.exit(1)' } }] },
      {
        name: 'healthy afterwards',
        flow: [
          {
            type: 'script',
            id: 's',
            variable: 'v',
            script: { code: 'async function generateValue() { return _.sum([1, 2]); }' },
          },
          echo('v={{v}}', {
            id: 'req',
            assertions: [{ target: 'response.body.query.v', operator: 'equals', expected: '3' }],
          }),
        ],
      },
    ]);
    expect(cases.map((c) => c.status)).to.deep.equal(['failed', 'failed', 'failed', 'failed', 'passed']);
    expect(cases[0].nodes[0].error).to.equal('script failed: The script did not finish within 1500 ms');
    expect(cases[1].nodes[0].error).to.equal('beforeRequest failed: The script did not finish within 1500 ms');
    expect(cases[2].nodes[0].error).to.equal('script failed: The script exceeded its memory limit of 32 MB');
    expect(cases[3].nodes[0].error).to.equal(
      'script failed (line 1, column 1): ReferenceError: process is not defined',
    );
    expect(run.status).to.equal('completed');
  });

  it('Wait, Context and Parallel nodes', async () => {
    target.resetInFlight();
    const { cases } = await runFlows(app, 'misc', [
      {
        name: 'misc',
        flow: [
          { type: 'context', id: 'ctx', set: { delay: '1000', greeting: '"hello " & "world"' } },
          { type: 'wait', id: 'w1', ms: 1000 },
          { type: 'wait', id: 'w2', expression: 'variables.delay' },
          {
            type: 'parallel',
            id: 'par',
            concurrency: 2,
            children: [1, 2, 3, 4].map((i) => ({
              type: 'api',
              id: `p${i}`,
              request: { method: 'GET', url: '{{base}}/slow?ms=300' },
              assertions: [status200],
            })),
          },
          echo('g={{greeting}}', {
            id: 'after',
            assertions: [{ target: 'response.body.query.g', operator: 'equals', expected: 'hello world' }],
          }),
        ],
      },
    ]);
    const [ctx, w1, w2, par] = cases[0].nodes;
    expect(cases[0].status, JSON.stringify(cases[0].failures)).to.equal('passed');
    expect(ctx.variablesSet).to.deep.equal({ delay: 1000, greeting: 'hello world' });
    expect(w1.waitedMs).to.equal(1000);
    expect(w2.waitedMs).to.equal(1000);
    expect(par.children.map((c: Json) => c.status)).to.deep.equal(['passed', 'passed', 'passed', 'passed']);
    expect(target.maxInFlight, 'two children at a time').to.equal(2);
  });

  it('retries an API node on the listed statuses and reports the attempts; other statuses are not retried', async () => {
    const { cases } = await runFlows(app, 'retries', [
      {
        name: 'recovers',
        flow: [
          {
            type: 'api',
            id: 'r',
            request: { method: 'GET', url: '{{base}}/flaky?key=a&fail=2' },
            retry: { attempts: 3, delayMs: 50 },
            assertions: [status200],
          },
        ],
      },
      {
        name: 'not listed',
        flow: [
          {
            type: 'api',
            id: 'r',
            request: { method: 'GET', url: '{{base}}/flaky?key=b&fail=2' },
            retry: { attempts: 3, delayMs: 50, onStatus: [500] },
            assertions: [status200],
          },
        ],
      },
    ]);
    const recovered = cases[0].nodes[0];
    expect(recovered.status).to.equal('passed');
    expect(recovered.attempts.map((a: Json) => a.status)).to.deep.equal([503, 503, 200]);
    expect(recovered.attempts.map((a: Json) => a.delayMs)).to.deep.equal([50, 100, undefined]);
    const notRetried = cases[1].nodes[0];
    expect(notRetried.status).to.equal('failed');
    expect(notRetried.response.status).to.equal(503);
    expect(notRetried).not.to.have.property('attempts');
  });

  it('an expression that throws or runs away fails its node with a clear error; the run goes on', async () => {
    const { cases, run } = await runFlows(app, 'bad-expressions', [
      {
        name: 'throws',
        flow: [{ type: 'if', id: 'x', condition: '$undefinedFunction(1)', then: [echo('no=1', { id: 'n' })] }],
      },
      {
        name: 'runs away',
        flow: [
          {
            type: 'if',
            id: 'x',
            condition: '($f := function($n){ $f($n + 1) }; $f(0))',
            then: [echo('no=1', { id: 'n' })],
          },
        ],
      },
      { name: 'fine', flow: [echo('fine=1', { id: 'req', assertions: [status200] })] },
    ]);
    expect(cases[0].nodes[0].status).to.equal('failed');
    expect(cases[0].nodes[0].error).to.match(/^condition: .*undefinedFunction/);
    expect(cases[1].nodes[0].error).to.match(
      /condition: (Expression stopped after 2000000 evaluation steps|Evaluation timeout after 2000 milliseconds)/,
    );
    expect(cases[2].status).to.equal('passed');
    expect(run.status).to.equal('completed');
  });

  it('runs a flow with every node type (recorded for the replay test)', async () => {
    const { runId, cases } = await runFlows(app, 'everything', [
      {
        name: 'every node type',
        dataSets: [{ name: 'ids', type: 'json', data: [1, 2] }],
        flow: [
          { type: 'context', id: 'ctx', set: { count: '0' } },
          {
            type: 'script',
            id: 'gen',
            variable: 'who',
            script: { code: 'async function generateValue() { return faker.person.firstName(); }' },
          },
          {
            type: 'api',
            id: 'first',
            request: { method: 'GET', url: '{{base}}/users/1' },
            retry: { attempts: 2, delayMs: 10 },
            script: { code: "async function afterResponse() { $context.set('name', $response.body.name); }" },
            assertions: [status200],
          },
          {
            type: 'if',
            id: 'branch',
            condition: 'variables.name = "Ada"',
            then: [{ type: 'wait', id: 'pause', ms: 1000 }],
            else: [echo('else=1', { id: 'unused' })],
          },
          {
            type: 'loop',
            id: 'loop',
            count: 2,
            body: [{ type: 'context', id: 'inc', set: { count: 'variables.count + 1' } }],
          },
          {
            type: 'iteration',
            id: 'each',
            dataSet: 'ids',
            body: [
              {
                type: 'api',
                id: 'user',
                request: { method: 'GET', url: '{{base}}/users/{{item}}' },
                assertions: [status200],
              },
            ],
          },
          { type: 'parallel', id: 'par', children: [echo('p=1', { id: 'pa' }), echo('p=2', { id: 'pb' })] },
        ],
      },
    ]);
    expect(cases[0].status, JSON.stringify(cases[0].failures)).to.equal('passed');
    await recordHistory('every-node-type', `run-${runId}`);
  });
});

describe('long loops', function () {
  this.timeout(120_000);
  let app: TestApp;
  let target: Target;

  before(async () => {
    [app, target] = await Promise.all([
      startTestApp({ worker: true, env: { ASSAY_SEGMENT_HISTORY_EVENTS: '40' } }),
      startTarget(),
    ]);
    await app.request('POST', '/v1/environments', { name: 'local', variables: { base: target.url } });
  });
  after(async () => {
    await target?.close();
    await app?.stop();
  });

  it('continue in child workflows once the history is long, and report every iteration', async () => {
    const { runId, cases } = await runFlows(app, 'long', [
      {
        name: 'long loop',
        flow: [
          {
            type: 'loop',
            id: 'many',
            count: 60,
            body: [
              { type: 'context', id: 'inc', set: { n: '$exists(variables.n) ? variables.n + 1 : 1' } },
              {
                type: 'api',
                id: 'req',
                request: { method: 'GET', url: '{{base}}/echo?i={{index}}' },
                assertions: [
                  { target: 'response.body.query.i = $string(loop.index)', operator: 'equals', expected: true },
                ],
              },
            ],
          },
          { type: 'context', id: 'total', set: { total: 'variables.n' } },
        ],
      },
    ]);
    const loop = cases[0].nodes[0];
    expect(cases[0].status, JSON.stringify(cases[0].failures)).to.equal('passed');
    expect(loop).to.deep.include({ iterations: 60, stoppedBy: 'count', omittedIterations: 10 });
    expect(loop.iterationResults).to.have.length(50);
    expect(cases[0].nodes[1].variablesSet).to.deep.equal({ total: 60 });
    expect(cases[0].assertions).to.equal(60);
    const client = await temporalClient();
    const history = await client.workflow.getHandle(`run-${runId}`).fetchHistory();
    const children = (history.events ?? []).filter((e) => e.childWorkflowExecutionCompletedEventAttributes).length;
    expect(children, 'the rest of the loop ran in a child workflow').to.be.at.least(1);
    await recordHistory('loop-continued-in-child', `run-${runId}`);
  });
});
