/**
 * The flow interpreter (src/flow/) run in-process through the direct port
 * (activities/direct-port.ts), against a real HTTP server on 127.0.0.1: every node type, failures
 * as failed nodes (never thrown), and the deadline. Results are checked as a user reads them:
 * the test case's status, its assertion counts, its failures and its node results.
 */
import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PAYLOAD_LIMITS } from '../../src/domain/limits';
import type { FlowNode, NodeResult, TestCaseResult } from '../../src/domain/types';
import { DeadlineReached, FlowInterpreter, RESUME_STATE_BYTES, type ResumePoint } from '../../src/flow';
import { useInterpreter } from '../helpers/interpreter';

const USERS: Record<string, { id: number; name: string }> = {
  '1': { id: 1, name: 'Ada' },
  '2': { id: 2, name: 'Grace' },
};

/** The target: `/users/<id>`, `/echo` (the request back), `/slow?ms=` (answers late); counts hits per path and requests in flight, and keeps `X-Assay-Execution` headers. */
function startTarget() {
  const hits: Record<string, number> = {};
  /** `X-Assay-Execution` of every request that had one, in arrival order. */
  const executions: string[] = [];
  const state = { inFlight: 0, maxInFlight: 0, hits, executions };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    hits[url.pathname] = (hits[url.pathname] ?? 0) + 1;
    const execution = req.headers['x-assay-execution'];
    if (typeof execution === 'string') executions.push(execution);
    state.inFlight += 1;
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const send = (status: number, body: unknown) => {
        state.inFlight -= 1;
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      };
      const user = /^\/users\/(\w+)$/.exec(url.pathname);
      if (user) return USERS[user[1]!] ? send(200, USERS[user[1]!]) : send(404, { error: 'no such user' });
      if (url.pathname === '/echo')
        return send(200, {
          method: req.method,
          headers: req.headers,
          body: chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : null,
        });
      if (url.pathname === '/slow')
        return void setTimeout(
          () => send(200, { slept: Number(url.searchParams.get('ms')) }),
          Number(url.searchParams.get('ms') ?? 0),
        );
      send(404, {});
    });
  });
  return { server, state };
}

describe('flow interpreter through the direct port', function () {
  this.timeout(30_000);
  const { server, state } = startTarget();
  let base = '';
  let refused = '';
  const interpreter = useInterpreter();

  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // A port nothing listens on: listen, note it, close.
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    refused = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
  });

  after(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  beforeEach(() => {
    for (const key of Object.keys(state.hits)) delete state.hits[key];
    state.maxInFlight = 0;
  });

  function run(
    flow: unknown[],
    options: { variables?: Record<string, unknown>; dataSets?: Record<string, unknown[]>; deadlineMs?: number } = {},
  ): Promise<TestCaseResult> {
    return interpreter.run(flow, {
      variables: { base, ...options.variables },
      dataSets: options.dataSets,
      port: { deadlineMs: options.deadlineMs },
    });
  }

  const getUser = (id: string, extra: Record<string, unknown> = {}) => ({
    type: 'api',
    id: `get${id}`,
    request: { method: 'GET', url: `{{base}}/users/${id}` },
    ...extra,
  });
  const status200 = { target: 'response.status', operator: 'equals', expected: 200 };

  describe('API nodes', () => {
    it('passes with its assertions held, and lists the request and response', async () => {
      const result = await run([
        getUser('1', {
          assertions: [
            status200,
            { name: 'the name', target: 'response.body.name', operator: 'equals', expected: 'Ada' },
          ],
        }),
      ]);
      expect(result).to.include({
        testCaseId: 'tc_1',
        name: 'the case',
        status: 'passed',
        assertions: 2,
        passedAssertions: 2,
      });
      expect(result.failures).to.deep.equal([]);
      const node = result.nodes[0]!;
      expect(node).to.include({ id: 'get1', type: 'api', status: 'passed' });
      expect(node.request).to.deep.equal({ method: 'GET', url: `${base}/users/1` });
      expect(node.response).to.include({ status: 200, truncated: false });
      expect(node.assertions!.map((a) => a.passed)).to.deep.equal([true, true]);
      expect(state.hits['/users/1']).to.equal(1);
    });

    it('fails with a failed assertion listed with expected and actual; every assertion is still counted', async () => {
      const result = await run([
        getUser('1', {
          assertions: [
            { name: 'the name', target: 'response.body.name', operator: 'equals', expected: 'Grace' },
            status200,
          ],
        }),
      ]);
      expect(result).to.include({ status: 'failed', assertions: 2, passedAssertions: 1 });
      expect(result.failures).to.have.length(1);
      expect(result.failures[0]).to.include({
        node: 'get1',
        assertion: 'the name',
        operator: 'equals',
        expected: 'Grace',
        actual: 'Ada',
      });
      expect(result.failures[0]!.message).to.be.a('string').and.not.equal('');
      expect(result.nodes[0]!.status).to.equal('failed');
    });

    it('sends no X-Assay-Execution header unless the port makes execution ids', async () => {
      const echo = { type: 'api', id: 'echo', request: { method: 'POST', url: '{{base}}/echo', body: { a: '{{a}}' } } };
      state.executions.length = 0;
      const plain = await run([echo], { variables: { a: 'x' } });
      expect(plain.status).to.equal('passed');
      expect(state.executions, 'no header without execution ids').to.deep.equal([]);
      const port = interpreter.portFor({
        runId: 'run_exec',
        settings: interpreter.settings,
        deadlineMs: Date.now() + 10_000,
        executionIds: true,
      });
      const tc = {
        id: 'tc_1',
        name: 'the case',
        folder: '',
        tags: [],
        flow: [
          {
            ...echo,
            assertions: [
              { target: "response.body.headers.'x-assay-execution'", operator: 'equals', expected: 'run_exec/4/echo' },
              { target: 'response.body.body.a', operator: 'equals', expected: 'x' },
            ],
          },
        ] as FlowNode[],
        dataSets: {},
      };
      const given = await FlowInterpreter.runTestCase(port, tc, { base, a: 'x' }, undefined, undefined, 4);
      expect(given).to.include({ status: 'passed', assertions: 2, passedAssertions: 2 });
    });

    it('gives every node execution its own id from the tree: loop iterations, Parallel lanes, sub-flows, Poll attempts', async () => {
      // Lanes whose requests finish in turns (5 and 13 ms): the ids do not depend on that order.
      const lane = (id: string, ms: number) => ({
        type: 'loop',
        id: `loop_${id}`,
        count: 3,
        body: [{ type: 'api', id, request: { method: 'GET', url: `{{base}}/slow?ms=${ms}` } }],
      });
      const flow = [
        { type: 'parallel', id: 'lanes', children: [lane('a', 5), lane('b', 13)] },
        {
          type: 'ref',
          id: 'login',
          testCaseId: 'tc_login',
          mode: 'clone',
          flow: [{ type: 'api', id: 'token', request: { method: 'GET', url: '{{base}}/users/1' } }],
        },
        {
          type: 'poll',
          id: 'ready',
          request: { method: 'GET', url: '{{base}}/users/2' },
          until: 'attempt >= 3',
          interval: 1,
        },
      ] as FlowNode[];
      const port = interpreter.portFor({
        runId: 'run_tree',
        settings: interpreter.settings,
        deadlineMs: Date.now() + 10_000,
        executionIds: true,
      });
      state.executions.length = 0;
      const result = await FlowInterpreter.runTestCase(
        port,
        { id: 'tc_tree', name: 'tree', folder: '', tags: [], flow, dataSets: {} },
        { base },
        undefined,
        undefined,
        2,
      );
      expect(result.status, JSON.stringify(result.failures)).to.equal('passed');
      const expected = [
        ...['a', 'b'].flatMap((id) => [0, 1, 2].map((i) => `lanes/loop_${id}[${i}]/${id}`)),
        'login/token',
        'ready#1',
        'ready#2',
        'ready#3',
      ].map((path) => `run_tree/2/${path}`);
      expect([...state.executions].sort()).to.deep.equal([...expected].sort());
    });
  });

  describe('IF nodes', () => {
    const ifNode = (condition: string, withElse: boolean) => ({
      type: 'if',
      id: 'if',
      condition,
      then: [getUser('1')],
      ...(withElse ? { else: [getUser('2')] } : {}),
    });

    it('runs Then when the condition holds; the Else nodes are skipped with the reason', async () => {
      const result = await run([ifNode('variables.go = true', true)], { variables: { go: true } });
      const node = result.nodes[0]!;
      expect(node).to.include({ status: 'passed', branch: 'then', condition: true });
      expect(node.children!.map((c) => [c.id, c.status])).to.deep.equal([
        ['get1', 'passed'],
        ['get2', 'skipped'],
      ]);
      expect(node.children![1]!.reason).to.equal('condition held: Else branch not taken');
      expect(state.hits).to.deep.equal({ '/users/1': 1 });
    });

    it('runs Else when it does not', async () => {
      const result = await run([ifNode('variables.go = true', true)], { variables: { go: false } });
      const node = result.nodes[0]!;
      expect(node).to.include({ status: 'passed', branch: 'else', condition: false });
      expect(node.children!.map((c) => [c.id, c.status])).to.deep.equal([
        ['get2', 'passed'],
        ['get1', 'skipped'],
      ]);
      expect(state.hits).to.deep.equal({ '/users/2': 1 });
    });

    it('takes no branch without Else: the Then nodes are skipped', async () => {
      const result = await run([ifNode('false', false)]);
      const node = result.nodes[0]!;
      expect(node).to.include({ status: 'passed', branch: 'none' });
      expect(node.children!.map((c) => [c.id, c.status, c.reason])).to.deep.equal([
        ['get1', 'skipped', 'condition did not hold: Then branch not taken'],
      ]);
      expect(state.hits).to.deep.equal({});
    });
  });

  describe('Loop and Iteration nodes', () => {
    it('Loop by count: the body runs count times, templates see the iteration', async () => {
      const result = await run([
        {
          type: 'loop',
          id: 'l',
          count: 3,
          body: [
            {
              type: 'api',
              id: 'req',
              request: { method: 'POST', url: '{{base}}/echo', body: { i: '{{iteration}}' } },
              assertions: [status200],
            },
          ],
        },
      ]);
      const node = result.nodes[0]!;
      expect(result).to.include({ status: 'passed', assertions: 3, passedAssertions: 3 });
      expect(node).to.include({ iterations: 3, stoppedBy: 'count' });
      expect(node.iterationResults!.map((it) => it.index)).to.deep.equal([0, 1, 2]);
      expect(state.hits['/echo']).to.equal(3);
    });

    it('Loop with while: checked before each iteration', async () => {
      const result = await run(
        [
          {
            type: 'loop',
            id: 'l',
            while: 'variables.n < 3',
            body: [{ type: 'context', id: 'inc', set: { n: 'variables.n + 1' } }],
          },
        ],
        { variables: { n: 0 } },
      );
      expect(result.nodes[0]).to.include({ status: 'passed', iterations: 3, stoppedBy: 'condition' });
    });

    it('breakCondition is evaluated after each iteration: stops after iteration 3', async () => {
      const result = await run([
        { type: 'loop', id: 'l', count: 10, breakCondition: 'loop.iteration = 3', body: [getUser('1')] },
      ]);
      expect(result.nodes[0]).to.include({ status: 'passed', iterations: 3, stoppedBy: 'break' });
      expect(state.hits['/users/1']).to.equal(3);
    });

    it('Iteration over a data set: one iteration per row, the row as item', async () => {
      const dataSets = {
        users: [
          { id: 1, name: 'Ada' },
          { id: 2, name: 'Grace' },
        ],
      };
      const flow = [
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
      ];
      const result = await run(flow, { dataSets });
      expect(result).to.include({ status: 'passed', assertions: 2, passedAssertions: 2 });
      const node = result.nodes[0]!;
      expect(node).to.include({ iterations: 2, stoppedBy: 'items' });
      expect(node.iterationResults!.map((it) => it.item)).to.deep.equal(dataSets.users);
      expect(state.hits).to.deep.equal({ '/users/1': 1, '/users/2': 1 });
    });

    it('Iteration over an items expression, with the item named by `as`', async () => {
      const flow = [
        {
          type: 'iteration',
          id: 'each',
          items: '["a", "b", "c"]',
          as: 'letter',
          body: [
            {
              type: 'api',
              id: 'echo',
              request: { method: 'POST', url: '{{base}}/echo', body: { l: '{{letter}}' } },
              assertions: [{ target: 'response.body.body.l = loop.item', operator: 'equals', expected: true }],
            },
            { type: 'context', id: 'seen', set: { seen: '$append(variables.seen, loop.item)' } },
          ],
        },
        { type: 'context', id: 'last', set: { all: '$join(variables.seen, ",")' } },
      ];
      const result = await run(flow, { variables: { seen: [] } });
      expect(result).to.include({ status: 'passed', assertions: 3, passedAssertions: 3 });
      expect(result.nodes[0]).to.include({ iterations: 3, stoppedBy: 'items' });
      expect(result.nodes[1]!.variablesSet).to.deep.equal({ all: 'a,b,c' });
    });

    it('a long loop runs inline (no child workflow), keeping the first 50 iteration results', async () => {
      const result = await run([
        { type: 'loop', id: 'l', count: 60, body: [{ type: 'context', id: 'c', set: { x: 'loop.index' } }] },
      ]);
      expect(result.nodes[0]).to.include({
        status: 'passed',
        iterations: 60,
        stoppedBy: 'count',
        omittedIterations: 10,
      });
      expect(result.nodes[0]!.iterationResults).to.have.length(50);
    });
  });

  describe('Script nodes', () => {
    it('sets variables through $context and stores generateValue in `variable`', async () => {
      const flow = [
        {
          type: 'script',
          id: 's',
          variable: 'email',
          script: {
            code: "$context.set('token', 'abc');\nasync function generateValue() { return 'ada@example.com'; }",
          },
        },
        {
          type: 'api',
          id: 'echo',
          request: { method: 'POST', url: '{{base}}/echo', body: { token: '{{token}}', email: '{{email}}' } },
          assertions: [
            { target: 'response.body.body', operator: 'equals', expected: { token: 'abc', email: 'ada@example.com' } },
          ],
        },
      ];
      const result = await run(flow);
      expect(result).to.include({ status: 'passed', assertions: 1, passedAssertions: 1 });
      expect(result.nodes[0]).to.include({ type: 'script', status: 'passed' });
      expect(result.nodes[0]!.variablesSet).to.deep.equal({ token: 'abc', email: 'ada@example.com' });
    });

    it('fails with the line of the user code when the script throws', async () => {
      const result = await run([
        { type: 'script', id: 's', script: { code: "const a = 1;\nthrow new Error('boom');" } },
        getUser('1'),
      ]);
      expect(result.status).to.equal('failed');
      const node = result.nodes[0]!;
      expect(node).to.include({ status: 'failed', line: 2 });
      expect(node.error).to.match(/^script failed \(line 2(, column \d+)?\): .*boom/);
      expect(result.failures).to.deep.equal([{ node: 's', message: node.error }]);
      // The test case goes on after a failed node.
      expect(result.nodes[1]!.status).to.equal('passed');
    });
  });

  describe('Wait, Context and Parallel nodes', () => {
    it('Wait waits the time given (a real timer)', async () => {
      const started = Date.now();
      const result = await run([{ type: 'wait', id: 'w', ms: 120 }]);
      expect(Date.now() - started).to.be.at.least(110);
      expect(result.nodes[0]).to.include({ status: 'passed', waitedMs: 120, duration: 120 });
    });

    it('Context sets variables in order, a later expression seeing an earlier one', async () => {
      const result = await run([
        { type: 'context', id: 'c', set: { a: '1 + 2', b: 'variables.a * 2' } },
        { type: 'context', id: 'd', set: { a: 'undefined' } },
      ]);
      expect(result.status).to.equal('passed');
      expect(result.nodes[0]!.variablesSet).to.deep.equal({ a: 3, b: 6 });
    });

    it('an expression over the step budget is evaluated on the heavy-expression pool', async () => {
      const result = await run([
        { type: 'context', id: 'c', set: { sum: '$reduce([1..3000], function($a, $b) { $a + $b })' } },
      ]);
      expect(result.status).to.equal('passed');
      expect(result.nodes[0]!.variablesSet).to.deep.equal({ sum: 4501500 });
    });

    it('Parallel runs its children at most `concurrency` at a time', async () => {
      const slow = (id: string) => ({
        type: 'api',
        id,
        request: { method: 'GET', url: '{{base}}/slow?ms=150' },
        assertions: [status200],
      });
      const started = Date.now();
      const result = await run([
        { type: 'parallel', id: 'p', concurrency: 2, children: [slow('a'), slow('b'), slow('c'), slow('d')] },
      ]);
      const elapsed = Date.now() - started;
      expect(result).to.include({ status: 'passed', assertions: 4, passedAssertions: 4 });
      expect(result.nodes[0]!.children!.map((c) => c.id)).to.deep.equal(['a', 'b', 'c', 'd']);
      expect(state.maxInFlight).to.equal(2);
      // Two waves of 150 ms at least; that they overlap is maxInFlight's to show (an upper bound on
      // time would only measure how busy the machine is).
      expect(elapsed).to.be.at.least(290);
    });
  });

  describe('failures are failed nodes, never thrown', () => {
    const failedNode = (result: TestCaseResult, index = 0): NodeResult => {
      expect(result.status).to.equal('failed');
      const node = result.nodes[index]!;
      expect(node.status).to.equal('failed');
      expect(result.failures.map((f) => f.node)).to.include(node.id);
      return node;
    };

    it('a bad expression', async () => {
      const result = await run([
        { type: 'if', id: 'if', condition: 'variables.(', then: [getUser('1')] },
        getUser('2'),
      ]);
      expect(failedNode(result).error).to.match(/^condition: /);
      expect(result.nodes[1]!.status).to.equal('passed');
    });

    it('a refused port', async () => {
      const result = await run([
        { type: 'api', id: 'down', request: { method: 'GET', url: `${refused}/x` }, assertions: [status200] },
      ]);
      const node = failedNode(result);
      expect(node.error).to.match(/ECONNREFUSED/);
      expect(node.errorCode).to.equal('ECONNREFUSED');
      expect(result.assertions).to.equal(0);
      expect(result.failures).to.deep.equal([{ node: 'down', message: node.error, errorCode: 'ECONNREFUSED' }]);
    });

    it('an address the policy refuses', async () => {
      const result = await run([
        { type: 'api', id: 'meta', request: { method: 'GET', url: 'http://169.254.169.254/latest' } },
      ]);
      expect(failedNode(result)).to.include({ errorCode: 'ADDRESS_NOT_ALLOWED' });
      expect(result.nodes[0]!.error).to.match(/ADDRESS_NOT_ALLOWED/);
    });

    it('a failed assertion', async () => {
      const result = await run([getUser('9', { assertions: [status200] })]);
      expect(failedNode(result)).to.not.have.property('errorCode');
      expect(result.failures[0]).to.not.have.property('errorCode');
      expect(result.failures[0]).to.include({ node: 'get9', operator: 'equals', expected: 200, actual: 404 });
    });

    it('a Context value over the size cap', async () => {
      const result = await run([
        { type: 'context', id: 'big', set: { big: `$pad("", ${PAYLOAD_LIMITS.valueBytes + 10}, "x")` } },
      ]);
      const node = failedNode(result);
      expect(node.error).to.match(/^set\.big: /);
      expect(node.variablesSet).to.equal(undefined);
    });
  });

  describe('the deadline', () => {
    it('a wait longer than the time left throws DeadlineReached at the deadline', async () => {
      const started = Date.now();
      let error: unknown;
      try {
        await run([{ type: 'wait', id: 'w', ms: 5000 }], { deadlineMs: Date.now() + 200 });
      } catch (err) {
        error = err;
      }
      expect(error).to.be.instanceOf(DeadlineReached);
      expect(Date.now() - started).to.be.within(150, 1500);
    });

    it('a node after the deadline is not run', async () => {
      let error: unknown;
      const busy = {
        type: 'script',
        id: 'busy',
        script: { code: 'const end = Date.now() + 300; while (Date.now() < end) {}' },
      };
      try {
        await run([busy, getUser('1')], { deadlineMs: Date.now() + 150 });
      } catch (err) {
        error = err;
      }
      expect(error).to.be.instanceOf(DeadlineReached);
      expect(state.hits).to.deep.equal({});
    });

    it('a request still under way at the deadline is cut there and throws DeadlineReached', async () => {
      let error: unknown;
      const started = Date.now();
      try {
        await run([{ type: 'api', id: 'slow', request: { method: 'GET', url: '{{base}}/slow?ms=2000' } }], {
          deadlineMs: Date.now() + 200,
        });
      } catch (err) {
        error = err;
      }
      expect(error).to.be.instanceOf(DeadlineReached);
      expect(Date.now() - started).to.be.below(1500);
    });
  });

  describe('resume points (src/flow/resume.ts)', () => {
    const testCase = (flow: unknown[]) => ({
      id: 'tc_r',
      name: 'resumable',
      folder: '',
      tags: [],
      flow: flow as FlowNode[],
      dataSets: {},
    });
    const flow = (failing: string) => [
      getUser('1', { assertions: [status200] }),
      { type: 'context', id: 'keep', set: { who: 'nodes.get1.response.body.name' } },
      getUser(failing, {
        assertions: [status200, { target: 'nodes.get1.response.body.id', operator: 'equals', expected: 1 }],
      }),
      getUser('2', { assertions: [status200] }),
    ];

    it('keeps the state before the first failed top-level node, and none when the test case passes', async () => {
      const capture: { point?: ResumePoint } = {};
      const result = await FlowInterpreter.runTestCase(interpreter.port(), testCase(flow('9')), { base }, undefined, {
        capture,
      });
      expect(result.status).to.equal('failed');
      expect(capture.point).to.include({ nodeIndex: 2, nodeId: 'get9' });
      expect(capture.point!.state!.variables).to.deep.equal({ base, who: 'Ada' });
      expect(Object.keys(capture.point!.state!.nodes)).to.deep.equal(['get1']);

      const none: { point?: ResumePoint } = {};
      const passed = await FlowInterpreter.runTestCase(interpreter.port(), testCase(flow('2')), { base }, undefined, {
        capture: none,
      });
      expect(passed.status).to.equal('passed');
      expect(none.point).to.equal(undefined);
    });

    it('keeps only the size of a state over the cap', async () => {
      const capture: { point?: ResumePoint } = {};
      const big = 'x'.repeat(RESUME_STATE_BYTES);
      await FlowInterpreter.runTestCase(interpreter.port(), testCase(flow('9')), { base, big }, undefined, { capture });
      expect(capture.point).to.include({ nodeIndex: 2, nodeId: 'get9' });
      expect(capture.point!.state).to.equal(undefined);
      expect(capture.point!.stateBytes).to.be.above(RESUME_STATE_BYTES);
    });

    it('starts at the resumed node with that state: nothing before it is sent again', async () => {
      const capture: { point?: ResumePoint } = {};
      await FlowInterpreter.runTestCase(interpreter.port(), testCase(flow('9')), { base }, undefined, { capture });
      for (const key of Object.keys(state.hits)) delete state.hits[key];
      // The service is fixed (the node now asks for user 2): the resumed run passes.
      const from = { runId: 'run_origin', ...capture.point!, state: capture.point!.state! };
      const result = await FlowInterpreter.runTestCase(
        interpreter.port(),
        testCase(flow('2')),
        { base: 'unused' },
        undefined,
        {
          from,
          capture: {},
        },
      );
      expect(result.status).to.equal('passed');
      expect(state.hits).to.deep.equal({ '/users/2': 2 });
      expect(result.nodes.map((n) => `${n.id} ${n.status}`)).to.deep.equal([
        'get1 skipped',
        'keep skipped',
        'get2 passed',
        'get2 passed',
      ]);
      expect(result.nodes[0]!.reason).to.equal('resumed: ran in run run_origin');
      expect(result).to.include({ assertions: 3, passedAssertions: 3 });
    });
  });
});
