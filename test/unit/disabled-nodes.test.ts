/**
 * Disabled nodes (NodeBase `disabled`, docs/flows.md "Disabled nodes"): a node switched off is not
 * run, nor anything under it, and is reported `skipped` with `reason: 'disabled'`; `nodes.<id>` of
 * it stays absent; it fails nothing, and progress estimates and `testCase`-mode segments leave it
 * out. Run in-process through the direct port (activities/direct-port.ts), as test/unit/interpreter.test.ts
 * does, against a real HTTP server on 127.0.0.1 that counts the requests it gets; the `testCase`
 * durability mode's activity (activities/test-case.ts) through Temporal's mock activity environment.
 * Validation and the OpenAPI document accept the field (and refuse a non-boolean).
 */
import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { DataSource } from 'typeorm';
import { createTestCaseActivities } from '../../activities/test-case';
import type { FlowNode, NodeResult, RunPlan, TestCaseResult } from '../../src/domain/types';
import { startLoadPart } from '../../activities/load-part';
import { performancePlan, validateProfile } from '../../src/perf/profile';
import { emptyState, testCaseSegments, waitsDurably } from '../../src/flow';
import { expectedLoopIterations, expectedNodeExecutions } from '../../src/flow/estimate';
import type { TestCaseSegmentOutput } from '../../src/flow/segments';
import { validateFlow } from '../../src/validation/flow';
import { FLOW_SCHEMAS } from '../../api/openapi/flow';
import { useInterpreter } from '../helpers/interpreter';

describe('disabled nodes', function () {
  this.timeout(30_000);
  /** Requests the target got, by path. */
  const hits: Record<string, number> = {};
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    hits[path] = (hits[path] ?? 0) + 1;
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ path })));
  });
  let base = '';
  const interpreter = useInterpreter();

  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  beforeEach(() => {
    for (const key of Object.keys(hits)) delete hits[key];
  });

  function run(flow: unknown[], onNodeDone?: () => void): Promise<TestCaseResult> {
    return interpreter.run(flow, { variables: { base }, port: onNodeDone ? { onNodeDone } : {} });
  }

  const get = (id: string, extra: Record<string, unknown> = {}) => ({
    type: 'api',
    id,
    request: { method: 'GET', url: `{{base}}/${id}` },
    assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
    ...extra,
  });
  const byId = (nodes: NodeResult[] | undefined, id: string) => nodes?.find((n) => n.id === id);

  it('does not send a disabled API node, reports it skipped (disabled), and later nodes see no nodes.<id>', async () => {
    const result = await run([
      get('off', { disabled: true, name: 'switched off' }),
      get('on'),
      { type: 'context', id: 'seen', set: { offRan: '$exists(nodes.off)', onRan: '$exists(nodes.on)' } },
      {
        type: 'assert',
        id: 'check',
        assertions: [{ target: '$exists(nodes.off)', operator: 'equals', expected: false }],
      },
    ]);
    expect(hits).to.deep.equal({ '/on': 1 });
    expect(result.status).to.equal('passed');
    expect(result.nodes[0]).to.deep.equal({
      id: 'off',
      name: 'switched off',
      type: 'api',
      status: 'skipped',
      duration: 0,
      reason: 'disabled',
    });
    expect(result.nodes.map((n) => n.status)).to.deep.equal(['skipped', 'passed', 'passed', 'passed']);
    expect(byId(result.nodes, 'seen')?.variablesSet).to.deep.equal({ offRan: false, onRan: true });
    // The disabled node's assertion was not evaluated: only `on`'s and the Assert node's count.
    expect(result.assertions).to.equal(2);
    expect(result.failures).to.deep.equal([]);
  });

  it('skips a disabled IF with both its branches, and a disabled child inside a branch taken', async () => {
    const result = await run([
      { type: 'if', id: 'offIf', disabled: true, condition: 'true', then: [get('then1')], else: [get('else1')] },
      { type: 'if', id: 'onIf', condition: 'true', then: [get('then2', { disabled: true }), get('then3')] },
    ]);
    expect(hits).to.deep.equal({ '/then3': 1 });
    const offIf = byId(result.nodes, 'offIf')!;
    expect(offIf).to.include({ status: 'skipped', reason: 'disabled' });
    expect(offIf.children, 'nothing under it is listed').to.equal(undefined);
    expect(offIf.branch, 'its condition was not evaluated').to.equal(undefined);
    const onIf = byId(result.nodes, 'onIf')!;
    expect(onIf.status).to.equal('passed');
    expect(onIf.children!.map((c) => [c.id, c.status, c.reason])).to.deep.equal([
      ['then2', 'skipped', 'disabled'],
      ['then3', 'passed', undefined],
    ]);
    expect(result.status).to.equal('passed');
  });

  it('skips disabled nodes in every iteration of a loop and in Parallel children, and a disabled loop entirely', async () => {
    const result = await run([
      { type: 'loop', id: 'loop', count: 3, body: [get('each'), get('never', { disabled: true })] },
      { type: 'parallel', id: 'par', children: [get('p1'), get('p2', { disabled: true }), get('p3')] },
      { type: 'loop', id: 'offLoop', disabled: true, count: 5, body: [get('inOffLoop')] },
    ]);
    expect(hits).to.deep.equal({ '/each': 3, '/p1': 1, '/p3': 1 });
    const loop = byId(result.nodes, 'loop')!;
    expect(loop.iterations).to.equal(3);
    for (const it of loop.iterationResults!) expect(byId(it.nodes, 'never')).to.include({ reason: 'disabled' });
    expect(byId(byId(result.nodes, 'par')!.children, 'p2')).to.include({ status: 'skipped', reason: 'disabled' });
    const offLoop = byId(result.nodes, 'offLoop')!;
    expect(offLoop).to.include({ status: 'skipped', reason: 'disabled' });
    expect(offLoop.iterations).to.equal(undefined);
    expect(result.status).to.equal('passed');
  });

  it('does not fail or stop the test case for a disabled Assert node that would fail, nor wait for a disabled Wait', async () => {
    const started = Date.now();
    const result = await run([
      { type: 'wait', id: 'long', disabled: true, ms: 10_000 },
      {
        type: 'assert',
        id: 'wouldFail',
        disabled: true,
        assertions: [{ target: '1', operator: 'equals', expected: 2 }],
      },
      get('after'),
    ]);
    expect(Date.now() - started).to.be.below(5000);
    expect(result.status).to.equal('passed');
    expect(result.nodes.map((n) => [n.id, n.status, n.reason])).to.deep.equal([
      ['long', 'skipped', 'disabled'],
      ['wouldFail', 'skipped', 'disabled'],
      ['after', 'passed', undefined],
    ]);
    expect(hits).to.deep.equal({ '/after': 1 });
  });

  it('runs a flow without the field exactly as before, and `disabled: false` runs the node', async () => {
    const result = await run([get('a', { disabled: false }), get('b')]);
    expect(hits).to.deep.equal({ '/a': 1, '/b': 1 });
    expect(result.nodes.map((n) => n.status)).to.deep.equal(['passed', 'passed']);
  });

  it('counts disabled nodes in no progress: nodes done match the estimate, which leaves them out', async () => {
    const flow = [
      get('a'),
      { type: 'loop', id: 'loop', count: 4, body: [get('b'), get('c', { disabled: true })] },
      { type: 'if', id: 'offIf', disabled: true, condition: 'true', then: [get('d'), get('e')] },
    ];
    let done = 0;
    await run(flow, () => (done += 1));
    // a, the loop, and b in 4 iterations: the disabled nodes are neither run nor expected.
    expect(done).to.equal(6);
    expect(expectedNodeExecutions(interpreter.testCase(flow), 1000)).to.equal(6);
    // Without `disabled` the same tree expects more (c in each iteration, the IF and its larger branch).
    const enabled = JSON.parse(JSON.stringify(flow).replace(/"disabled":true/g, '"disabled":false')) as FlowNode[];
    expect(expectedNodeExecutions(interpreter.testCase(enabled), 1000)).to.equal(13);
    // A disabled loop adds nothing to the loop-iteration quota.
    const quota = (f: unknown[]) =>
      expectedLoopIterations(f as FlowNode[], { maxLoopIterations: 1000, rowsOf: () => undefined }).total;
    expect(quota([{ type: 'loop', id: 'l', count: 500, disabled: true, body: [get('x')] }])).to.equal(0);
    expect(quota([{ type: 'loop', id: 'l', count: 500, body: [get('x')] }])).to.equal(500);
  });

  it('does not make a durable segment of a disabled Wait, Callback or Poll (the testCase durability mode)', () => {
    const wait = { type: 'wait', id: 'w', ms: 1000 } as FlowNode;
    expect(waitsDurably(wait)).to.equal(true);
    expect(waitsDurably({ ...wait, disabled: true } as FlowNode)).to.equal(false);
    const ifWithWait = { type: 'if', id: 'i', condition: 'true', then: [{ ...wait, disabled: true }] } as FlowNode;
    expect(waitsDurably(ifWithWait)).to.equal(false);
    const flow = [get('a'), { ...wait, disabled: true }, get('b')] as FlowNode[];
    expect(testCaseSegments(flow)).to.deep.equal([{ start: 0, end: 3, durable: false }]);
    expect(testCaseSegments([get('a'), wait, get('b')] as FlowNode[])).to.have.length(3);
  });

  it('skips disabled nodes in a testCase-mode segment (activities/test-case.ts)', async () => {
    const activities = createTestCaseActivities({ ports: interpreter.portFor, dataSource: {} as DataSource });
    const flow = [get('s1'), get('s2', { disabled: true }), get('s3')] as FlowNode[];
    const out: TestCaseSegmentOutput = await new MockActivityEnvironment({ attempt: 1 }).run(
      activities.runTestCaseSegment,
      {
        testCase: { id: 'tc_seg', name: 'segment', dataSets: {} },
        flow,
        start: 0,
        end: 3,
        state: emptyState({ base }),
        capture: false,
        more: false,
        runId: interpreter.runId(),
        settings: interpreter.settings,
        deadlineMs: Date.now() + 20_000,
      },
    );
    expect(hits).to.deep.equal({ '/s1': 1, '/s3': 1 });
    expect(out.nodes.map((n) => [n.id, n.status, n.reason])).to.deep.equal([
      ['s1', 'passed', undefined],
      ['s2', 'skipped', 'disabled'],
      ['s3', 'passed', undefined],
    ]);
    expect(out.nodesDone, 'the disabled node is no node done').to.equal(2);
  });

  it('skips disabled nodes in a performance run: no request and no sample of them (activities/load-part.ts)', async () => {
    const { profile } = validateProfile({ executor: 'constant-vus', vus: 1, duration: '300ms', gracefulStop: '5s' });
    const plan = {
      runId: 'run_load',
      workspaceId: 'ws_test',
      runner: 'load',
      environment: 'local',
      timeoutSeconds: 60,
      startedAtMs: Date.now(),
      variables: { base },
      testCases: [interpreter.testCase([get('loadOn'), get('loadOff', { disabled: true })])],
      settings: interpreter.settings,
      performance: performancePlan(profile!),
    } as RunPlan;
    const part = startLoadPart({ runId: 'run_load', plan, part: 0, parts: 1 }, interpreter.portFor);
    await part.done;
    expect(hits['/loadOn']).to.be.greaterThan(0);
    expect(hits['/loadOff']).to.equal(undefined);
    const byName = part.state().metrics.byName;
    expect(Object.keys(byName)).to.deep.equal(['loadOn']);
  });

  describe('validation and the OpenAPI document', () => {
    it('accepts `disabled: true` on any node type, nested too', () => {
      const flow = [
        { type: 'api', id: 'a', disabled: true, request: { method: 'GET', url: 'http://x.test/' } },
        { type: 'if', id: 'i', condition: 'true', then: [{ type: 'wait', id: 'w', ms: 10, disabled: true }] },
        { type: 'context', id: 'c', set: { x: '1' }, disabled: false },
      ];
      expect(validateFlow(flow)).to.deep.equal([]);
    });

    it('refuses a `disabled` that is not a boolean, with the field at fault', () => {
      const issues = validateFlow([{ type: 'api', id: 'a', disabled: 'yes', request: { method: 'GET', url: 'x' } }]);
      expect(issues).to.have.length.greaterThan(0);
      expect(issues.map((i) => i.path.join('.'))).to.include('flow.0.disabled');
    });

    it('documents `disabled` as a boolean of every node type', () => {
      for (const name of ['ApiNode', 'IfNode', 'LoopNode', 'ParallelNode', 'MockVerifyNode']) {
        const schema = FLOW_SCHEMAS[name] as { properties: Record<string, { type?: string; description?: string }> };
        expect(schema.properties.disabled, name).to.include({ type: 'boolean' });
        expect(schema.properties.disabled!.description).to.match(/not run/);
      }
    });
  });
});
