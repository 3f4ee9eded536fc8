/**
 * Debug capture (RunPlan `debug`, src/flow/debug.ts; docs/console.md "The designer"): in a debug
 * run every node result carries `debug` — for API and Poll nodes the request as sent and the
 * response of the last attempt, for every node the variables after it — bounded (bodies, variables,
 * the test case's captures together) and masked by the run's masker as results are; a run that is
 * not a debug run carries none. Flows run in-process through the direct port (as
 * test/unit/interpreter.test.ts) against a real HTTP server on 127.0.0.1; the `testCase`
 * durability mode's activity through Temporal's mock activity environment.
 */
import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { DataSource } from 'typeorm';
import { createTestCaseActivities } from '../../activities/test-case';
import {
  DEBUG_BODY_LIMIT,
  DEBUG_TEST_CASE_LIMIT,
  DEBUG_VARIABLES_LIMIT,
  type FlowNode,
  type NodeResult,
  type RunPlan,
  type TestCaseResult,
} from '../../src/domain/types';
import { jsonBytes, PAYLOAD_LIMITS } from '../../src/domain/limits';
import { emptyState } from '../../src/flow';
import { debugBody, debugVariables, fitDebugCaptures } from '../../src/flow/debug';
import type { TestCaseSegmentOutput } from '../../src/flow/segments';
import { KeyRing, newSecretKeyEntry, parseSecretKeys } from '../../src/secrets/keyring';
import { sealVariables } from '../../src/secrets/variables';
import { openPlan } from '../../src/secrets/run-plan';
import { useInterpreter } from '../helpers/interpreter';

/** Every node result of a tree, depth first. */
function allNodes(nodes: NodeResult[], out: NodeResult[] = []): NodeResult[] {
  for (const n of nodes) {
    out.push(n);
    allNodes(n.children ?? [], out);
    for (const it of n.iterationResults ?? []) allNodes(it.nodes, out);
  }
  return out;
}

describe('debug capture', function () {
  this.timeout(30_000);
  let polls = 0;
  /** `/echo`: the request back (headers, body); `/big?kb=`: a JSON body of about that many KiB; `/poll`: `{"ready": true}` from the 2nd call. */
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const send = (body: unknown, headers: Record<string, string> = {}) =>
        res
          .writeHead(200, { 'content-type': 'application/json', 'x-served-by': 'target', ...headers })
          .end(JSON.stringify(body));
      if (url.pathname === '/echo')
        return send({
          method: req.method,
          headers: req.headers,
          body: chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : null,
        });
      if (url.pathname === '/big') {
        const kb = Number(url.searchParams.get('kb') ?? 200);
        const items = Array.from({ length: kb }, (_, i) => ({ i, pad: 'x'.repeat(1000) }));
        return send({ items });
      }
      if (url.pathname === '/poll') return send({ ready: ++polls >= 2 });
      send({});
    });
  });
  let base = '';
  /** Responses up to 4 MiB (bodies past the debug limit), scripts up to 64 MiB. */
  const interpreter = useInterpreter({ settings: { maxResponseBytes: 4 * 1024 * 1024 }, memoryLimitMb: 64 });

  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  function run(
    flow: unknown[],
    options: { debug?: boolean; variables?: Record<string, unknown> } = {},
  ): Promise<TestCaseResult> {
    return interpreter.run(flow, {
      variables: { base, ...options.variables },
      port: options.debug === false ? {} : { debug: true },
    });
  }

  const post = (id: string, extra: Record<string, unknown> = {}) => ({
    type: 'api',
    id,
    request: {
      method: 'POST',
      url: '{{base}}/echo?user={{user}}',
      headers: { 'content-type': 'application/json', 'x-trace': 'trace-{{user}}' },
      body: { user: '{{user}}', n: 1 },
    },
    assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
    ...extra,
  });

  it('holds the request as sent, the response (parsed JSON, headers, time) and the variables after each node', async () => {
    const result = await run(
      [
        post('send'),
        { type: 'context', id: 'ctx', set: { echoed: 'nodes.send.response.body.body.user' } },
        {
          type: 'if',
          id: 'branch',
          condition: 'variables.echoed = "ada"',
          then: [{ type: 'context', id: 'inner', set: { seen: 'true' } }],
        },
      ],
      { variables: { user: 'ada' } },
    );
    expect(result.status).to.equal('passed');
    const [send, ctx, branch] = result.nodes;
    const debug = send!.debug!;
    expect(debug.request).to.deep.include({ method: 'POST', url: `${base}/echo?user=ada` });
    expect(debug.request!.headers).to.include({ 'content-type': 'application/json', 'x-trace': 'trace-ada' });
    expect(debug.request!.body).to.deep.equal({ user: 'ada', n: 1 });
    expect(debug.request!.bodyTruncated).to.equal(undefined);
    expect(debug.response!.status).to.equal(200);
    expect(debug.response!.headers).to.include({ 'x-served-by': 'target', 'content-type': 'application/json' });
    // Parsed JSON, as `nodes.send.response.body` holds it: the target saw the header the capture shows.
    const body = debug.response!.body as { method: string; headers: Record<string, string>; body: unknown };
    expect(body.method).to.equal('POST');
    expect(body.headers['x-trace']).to.equal('trace-ada');
    expect(body.body).to.deep.equal({ user: 'ada', n: 1 });
    expect(debug.response!.timeMs).to.be.a('number').and.at.least(0);
    expect(debug.variables).to.deep.equal({ base, user: 'ada' });
    // Other nodes: the variables after them, no request or response.
    expect(ctx!.debug).to.deep.equal({ variables: { base, user: 'ada', echoed: 'ada' } });
    expect(branch!.children![0]!.debug).to.deep.equal({ variables: { base, user: 'ada', echoed: 'ada', seen: true } });
    expect(branch!.debug).to.deep.equal({ variables: { base, user: 'ada', echoed: 'ada', seen: true } });
  });

  it("masks a secret variable everywhere in the capture with the run's masker, as the store masks results", async () => {
    const secret = 's3cr3t-T0ken-42';
    // The run's plan as startRun stores it (the secret sealed) and the workflow gets it (opened), with its masker.
    const ring = new KeyRing(parseSecretKeys(newSecretKeyEntry('k1')));
    const stored = {
      variables: sealVariables({ token: { value: secret, secret: true }, user: 'ada' }, ring),
    } as unknown as RunPlan;
    const { plan, masker } = openPlan(stored, ring);
    expect(plan.variables.token).to.equal(secret);
    const result = await run(
      [
        post('auth', {
          request: {
            method: 'POST',
            url: '{{base}}/echo?key={{token}}',
            headers: { authorization: 'Bearer {{token}}', 'content-type': 'application/json' },
            body: { token: '{{token}}' },
          },
        }),
      ],
      { variables: plan.variables },
    );
    const raw = JSON.stringify(result.nodes[0]!.debug);
    expect(raw, 'the capture holds what was sent before masking').to.include(secret);
    const shown = masker.maskDeep(result);
    const debug = shown.nodes[0]!.debug!;
    expect(JSON.stringify(shown)).to.not.include(secret);
    expect(debug.request!.headers.authorization).to.equal('Bearer ***');
    expect(debug.request!.url).to.equal(`${base}/echo?key=***`);
    expect(debug.request!.body).to.deep.equal({ token: '***' });
    expect((debug.response!.body as { headers: Record<string, string> }).headers.authorization).to.equal('Bearer ***');
    expect(debug.variables).to.include({ token: '***', user: 'ada' });
  });

  it('cuts a 200 KB response body to DEBUG_BODY_LIMIT characters with bodyTruncated, while the flow sees it whole', async () => {
    const result = await run([
      { type: 'api', id: 'big', request: { method: 'GET', url: '{{base}}/big?kb=200' } },
      {
        type: 'assert',
        id: 'whole',
        assertions: [{ target: '$count(nodes.big.response.body.items)', operator: 'equals', expected: 200 }],
      },
    ]);
    expect(result.status).to.equal('passed');
    const response = result.nodes[0]!.debug!.response!;
    expect(response.bodyTruncated).to.equal(true);
    expect(response.body).to.be.a('string');
    expect((response.body as string).length).to.equal(DEBUG_BODY_LIMIT);
    expect(response.body as string).to.match(/^\{"items":\[\{"i":0,"pad":"xxx/);
    expect(jsonBytes(result)).to.be.below(PAYLOAD_LIMITS.testCaseResultBytes);
  });

  it('leaves the largest variables out first when they are over DEBUG_VARIABLES_LIMIT', async () => {
    const result = await run([{ type: 'context', id: 'c', set: { small: '"tiny"' } }], {
      variables: { huge: 'h'.repeat(DEBUG_VARIABLES_LIMIT), mid: 'm'.repeat(1000) },
    });
    const debug = result.nodes[0]!.debug!;
    expect(debug.variablesTruncated).to.equal(true);
    expect(Object.keys(debug.variables!)).to.deep.equal(['base', 'mid', 'small']);
    // Without the largest it fits: only `huge` went.
    expect(debugVariables({ a: 'x'.repeat(100), b: 'y'.repeat(200), c: 1 }, 150)).to.deep.equal({
      variables: { a: 'x'.repeat(100), c: 1 },
      variablesTruncated: true,
    });
    expect(debugVariables({ a: 1 })).to.deep.equal({ variables: { a: 1 } });
  });

  it('cuts a text body by its characters and a parsed one by its JSON text', () => {
    expect(debugBody('abcdef', 4)).to.deep.equal({ body: 'abcd', bodyTruncated: true });
    expect(debugBody({ a: 'bcdef' }, 8)).to.deep.equal({ body: '{"a":"bc', bodyTruncated: true });
    expect(debugBody({ a: 1 }, 8)).to.deep.equal({ body: { a: 1 } });
    expect(debugBody(undefined)).to.deep.equal({});
    // Never half a surrogate pair.
    expect(debugBody('ab😀cd', 3)).to.deep.equal({ body: 'ab', bodyTruncated: true });
  });

  it('holds the test case captures to DEBUG_TEST_CASE_LIMIT: later ones omitted, the result within its cap', async () => {
    const flow = Array.from({ length: 8 }, (_, i) => ({
      type: 'api',
      id: `big${i}`,
      request: { method: 'GET', url: '{{base}}/big?kb=60' },
    }));
    const result = await run(flow);
    expect(result.status).to.equal('passed');
    const captures = result.nodes.map((n) => n.debug!);
    expect(captures[0]!.omitted).to.equal(undefined);
    expect(captures[0]!.response!.body).to.be.an('object');
    const omitted = captures.filter((c) => c.omitted);
    expect(omitted.length).to.be.greaterThan(0);
    // An omitted capture keeps the request line, status and headers, not the bodies or variables.
    expect(omitted[0]!.response).to.include({ status: 200, bodyTruncated: true });
    expect(omitted[0]!.response!.body).to.equal(undefined);
    expect(omitted[0]!.variables).to.equal(undefined);
    expect(omitted[0]!.variablesTruncated).to.equal(true);
    expect(captures.reduce((sum, c) => sum + jsonBytes(c), 0)).to.be.at.most(DEBUG_TEST_CASE_LIMIT);
    expect(jsonBytes(result)).to.be.below(PAYLOAD_LIMITS.testCaseResultBytes);
  });

  it('fits a result over its cap by omitting captures from the last node back', () => {
    const node = (id: string, size: number): NodeResult => ({
      id,
      type: 'api',
      status: 'passed',
      duration: 0,
      debug: { variables: { v: 'x'.repeat(size) } },
    });
    const result: TestCaseResult = {
      testCaseId: 'tc',
      name: 'tc',
      status: 'passed',
      duration: 0,
      assertions: 0,
      passedAssertions: 0,
      failures: [],
      nodes: [node('a', 1000), { ...node('b', 1000), children: [node('c', 1000)] }],
    };
    const fitted = fitDebugCaptures(result, 1500);
    expect(jsonBytes(fitted)).to.be.at.most(1500);
    expect(allNodes(fitted.nodes).map((n) => n.debug!.omitted ?? false)).to.deep.equal([false, true, true]);
  });

  it("captures a Poll node's last attempt", async () => {
    polls = 0;
    const result = await run([
      {
        type: 'poll',
        id: 'wait',
        request: { method: 'GET', url: '{{base}}/poll' },
        until: 'response.body.ready',
        interval: 10,
      },
    ]);
    expect(result.status).to.equal('passed');
    const debug = result.nodes[0]!.debug!;
    expect(result.nodes[0]!.attempts).to.have.length(2);
    expect(debug.request).to.deep.include({ method: 'GET', url: `${base}/poll` });
    expect(debug.response!.body).to.deep.equal({ ready: true });
  });

  it('captures nothing for loop iterations whose results are not kept (past the first 50)', async () => {
    const result = await run([
      { type: 'loop', id: 'loop', count: 55, body: [{ type: 'context', id: 'c', set: { i: 'loop.index' } }] },
    ]);
    const loop = result.nodes[0]!;
    expect(loop.iterationResults).to.have.length(50);
    expect(loop.iterationResults![49]!.nodes[0]!.debug!.variables).to.include({ i: 49 });
    // The loop's own capture: the variables after its last iteration, which ran uncaptured.
    expect(loop.debug!.variables).to.include({ i: 54 });
  });

  it('is absent when the run is not a debug run: no `debug` anywhere in the result', async () => {
    const flow = [
      post('send'),
      { type: 'if', id: 'branch', condition: 'true', then: [{ type: 'context', id: 'inner', set: { seen: 'true' } }] },
      { type: 'poll', id: 'p', request: { method: 'GET', url: '{{base}}/poll' }, until: 'true' },
    ];
    const plain = await run(flow, { debug: false, variables: { user: 'ada' } });
    expect(plain.status).to.equal('passed');
    expect(JSON.stringify(plain)).to.not.include('"debug"');
    const debugged = await run(flow, { variables: { user: 'ada' } });
    expect(allNodes(debugged.nodes).every((n) => n.debug !== undefined)).to.equal(true);
  });

  it('captures in a testCase-mode segment of a debug run, and not in one of another run', async () => {
    const activities = createTestCaseActivities({ ports: interpreter.portFor, dataSource: {} as DataSource });
    const input = () => ({
      testCase: { id: 'tc_seg', name: 'segment', dataSets: {} },
      flow: [post('s1')] as FlowNode[],
      start: 0,
      end: 1,
      state: emptyState({ base, user: 'ada' }),
      capture: false,
      more: false,
      runId: interpreter.runId(),
      settings: interpreter.settings,
      deadlineMs: Date.now() + 20_000,
    });
    const env = () => new MockActivityEnvironment({ attempt: 1 });
    const debugged: TestCaseSegmentOutput = await env().run(activities.runTestCaseSegment, {
      ...input(),
      debug: true as const,
    });
    expect(debugged.nodes[0]!.debug!.request!.headers).to.include({ 'x-trace': 'trace-ada' });
    expect(debugged.state.debugBytes).to.equal(jsonBytes(debugged.nodes[0]!.debug));
    const plain: TestCaseSegmentOutput = await env().run(activities.runTestCaseSegment, input());
    expect(plain.nodes[0]!.debug).to.equal(undefined);
    expect(plain.state).to.not.have.property('debugBytes');
  });
});
