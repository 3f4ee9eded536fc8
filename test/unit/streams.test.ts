/**
 * WebSocket and SSE nodes through the direct port (activities/direct-port.ts, the port of
 * performance runs), in-process against the loopback stream server: messages in order, `until`,
 * `maxMessages`, the address policy's refusal, and a direct port without a policy.
 */
import { expect } from 'chai';
import { directPorts } from '../../activities/direct-port';
import { ExpressionPool } from '../../src/expression-pool/pool';
import { AddressPolicy } from '../../src/net/address-policy';
import { Sandbox } from '../../src/sandbox/sandbox';
import type { FlowNode, RunSettings, TestCaseResult } from '../../src/domain/types';
import { FlowInterpreter } from '../../src/flow';
import { websocketUrl } from '../../activities/streams';
import { startStreamServer, type StreamServer } from '../helpers/stream-server';

const SETTINGS: RunSettings = {
  apiNodeActivity: 'local',
  requestTimeoutMs: 5000,
  maxResponseBytes: 1024 * 1024,
  testCasesPerExecution: 100,
  maxLoopIterations: 1000,
  segmentHistoryEvents: 10,
};

describe('WebSocket and SSE nodes (direct port)', function () {
  this.timeout(20_000);
  let server: StreamServer;
  let policy: AddressPolicy;
  let sandbox: Sandbox;
  let pool: ExpressionPool;
  let runs = 0;

  before(async () => {
    server = await startStreamServer();
    policy = new AddressPolicy({
      allow: [],
      deny: [],
      privateAccess: { node: 'loopback', script: 'none', library: 'none', webhook: 'none', bundler: 'none' },
      infrastructure: [],
    });
    sandbox = new Sandbox({ timeoutMs: 2000, memoryLimitMb: 32, policy });
    pool = new ExpressionPool({ size: 1 });
  });
  after(async () => {
    await sandbox?.dispose();
    await pool?.close();
    await policy?.close();
    await server?.close();
  });

  function run(flow: unknown[], withPolicy = true): Promise<TestCaseResult> {
    const ports = directPorts({
      sandbox,
      agent: policy.agent('node'),
      expressionPool: pool,
      ...(withPolicy ? { policy } : {}),
    });
    return FlowInterpreter.runTestCase(
      ports({ runId: `run_${++runs}`, settings: SETTINGS, deadlineMs: Date.now() + 10_000 }),
      { id: 'tc', name: 'tc', flow: flow as FlowNode[], dataSets: {} } as never,
      { ws: server.wsUrl, base: server.url },
    );
  }

  it('receives WebSocket messages in order until the server closes; later nodes see them', async () => {
    const result = await run([
      {
        type: 'websocket',
        id: 'ws',
        url: '{{ws}}/ticks?n=4&ms=5&close=1',
        assertions: [
          { target: 'count', operator: 'equals', expected: 4 },
          { target: 'closed.code', operator: 'equals', expected: 1000 },
        ],
      },
      {
        type: 'assert',
        id: 'after',
        assertions: [{ target: 'nodes.ws.messages.i', operator: 'equals', expected: [0, 1, 2, 3] }],
      },
    ]);
    expect(result.status, JSON.stringify(result)).to.equal('passed');
    const node = result.nodes[0]!;
    expect(node.stream).to.include({ count: 4, stoppedBy: 'closed', status: 101 });
    expect(node.stream!.first.map((m) => m.data)).to.deep.equal([{ i: 0 }, { i: 1 }, { i: 2 }, { i: 3 }]);
    expect(node.stream!.closed).to.deep.equal({ code: 1000, reason: 'done' });
  });

  it('stops at `until` (SSE) and at maxMessages (WebSocket)', async () => {
    const result = await run([
      { type: 'sse', id: 'sse', url: '{{base}}/events?n=50&ms=5', until: 'last.i = 2' },
      { type: 'websocket', id: 'ws', url: '{{ws}}/ticks?n=50&ms=5', maxMessages: 3 },
    ]);
    expect(result.status, JSON.stringify(result)).to.equal('passed');
    expect(result.nodes[0]!.stream).to.include({ count: 3, stoppedBy: 'until' });
    expect(result.nodes[0]!.stream!.first[2]).to.include({ event: 'tick', id: '2' });
    expect(result.nodes[1]!.stream).to.include({ count: 3, stoppedBy: 'maxMessages' });
  });

  it('refuses what the address policy refuses, and fails without a policy', async () => {
    const refused = await run([{ type: 'websocket', id: 'ws', url: 'ws://169.254.169.254/x' }]);
    expect(refused.status).to.equal('failed');
    expect(refused.nodes[0]!.error).to.contain('ADDRESS_NOT_ALLOWED').and.contain('cloud metadata');
    const none = await run([{ type: 'sse', id: 'sse', url: '{{base}}/events?n=1&end=1' }], false);
    expect(none.nodes[0]!.error).to.contain('SSE nodes cannot run here');
  });

  it('runs the flows of docs/async.md "WebSocket and SSE"', async () => {
    const result = await run([
      {
        type: 'websocket',
        id: 'ticks',
        url: '{{ws}}/ticks?n=50&ms=10',
        until: 'last.i = 4',
        timeout: '5s',
        assertions: [{ target: 'messages.i', operator: 'equals', expected: [0, 1, 2, 3, 4] }],
      },
      {
        type: 'websocket',
        id: 'echo',
        url: '{{ws}}/echo',
        subprotocols: ['chat.v2'],
        headers: { 'X-Token': 't-123' },
        send: [{ data: { say: 'hello' } }, { data: 'bye', delayMs: 100 }],
        until: 'count = 3',
        assertions: [
          { target: 'response.headers."sec-websocket-protocol"', operator: 'equals', expected: 'chat.v2' },
          { target: 'messages[1].say', operator: 'equals', expected: 'hello' },
          { target: 'last', operator: 'equals', expected: 'bye' },
        ],
      },
      {
        type: 'sse',
        id: 'chat',
        method: 'POST',
        url: '{{base}}/chat',
        body: { prompt: 'tell me more' },
        until: 'message.event = "done"',
        assertions: [
          { target: '$join(events[event = "token"].data, " ")', operator: 'equals', expected: 'tell me more' },
        ],
      },
    ]);
    expect(result.status, JSON.stringify(result.failures)).to.equal('passed');
    expect(result.passedAssertions).to.equal(5);
  });

  it('takes http(s) URLs as ws(s) for WebSocket nodes (servers are HTTP base URLs)', () => {
    expect(websocketUrl('http://h/a')).to.equal('ws://h/a');
    expect(websocketUrl('https://h/a')).to.equal('wss://h/a');
    expect(websocketUrl('wss://h/a')).to.equal('wss://h/a');
  });
});
