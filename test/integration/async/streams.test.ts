/**
 * WebSocket and SSE nodes in runs (docs/async.md "WebSocket and SSE"): the `runStreamNode`
 * activity through the workflow port, on a real Temporal server and worker, against the loopback
 * stream server (test/helpers/stream-server.ts). One run holds every case (one test case each):
 * messages in order, `until` met, a timeout, a server closing early, subprotocol and headers seen
 * by the server with messages sent, a refused handshake, SSE `event`/`id` fields, POST SSE, a
 * response that is not an event stream, and the address policy's refusal for both protocols (the
 * API's own port, refused as infrastructure, as in test/integration/security/address-policy.test.ts).
 */
import { expect } from 'chai';
import { startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { startStreamServer, type StreamServer } from '../../helpers/stream-server';

type Json = Record<string, any>;

describe('WebSocket and SSE nodes in runs', function () {
  this.timeout(120_000);
  let app: TestApp;
  let server: StreamServer;

  before(async () => {
    [app, server] = await Promise.all([startTestApp({ worker: true }), startStreamServer()]);
  });
  after(async () => {
    await server?.close();
    await app?.stop();
  });

  it('runs every case as documented, in one run', async () => {
    const apiPort = Number(new URL(app.url).port);
    const cases: Array<{ name: string; flow: unknown[] }> = [
      {
        name: 'ws in order',
        flow: [
          {
            type: 'websocket',
            id: 'ws',
            url: '{{ws}}/ticks?n=5&ms=5&close=1',
            assertions: [
              { target: 'messages.i', operator: 'equals', expected: [0, 1, 2, 3, 4] },
              { target: 'first.i', operator: 'equals', expected: 0 },
              { target: 'last.i', operator: 'equals', expected: 4 },
              { target: 'response.status', operator: 'equals', expected: 101 },
            ],
          },
          {
            type: 'assert',
            id: 'later',
            assertions: [{ target: '$count(nodes.ws.messages)', operator: 'equals', expected: 5 }],
          },
        ],
      },
      {
        name: 'ws until',
        flow: [{ type: 'websocket', id: 'ws', url: '{{ws}}/ticks?n=100&ms=5', until: 'last.i = 3' }],
      },
      {
        name: 'ws timeout',
        flow: [{ type: 'websocket', id: 'ws', url: '{{ws}}/ticks?n=0', until: 'count > 0', timeout: '300ms' }],
      },
      {
        name: 'ws closed early',
        flow: [{ type: 'websocket', id: 'ws', url: '{{ws}}/ticks?n=2&ms=5&close=1', until: 'last.i = 10' }],
      },
      {
        name: 'ws subprotocol headers send',
        flow: [
          {
            type: 'websocket',
            id: 'ws',
            url: '{{ws}}/echo',
            subprotocols: ['chat.v2', 'other'],
            headers: { 'X-Token': '{{token}}' },
            send: [{ data: { say: '{{name}}' } }, { data: 'plain text', delayMs: 20 }],
            until: 'count = 3',
            assertions: [
              { target: 'response.headers."sec-websocket-protocol"', operator: 'equals', expected: 'chat.v2' },
              { target: 'first', operator: 'equals', expected: { hello: true, protocol: 'chat.v2', token: 't-123' } },
              { target: 'messages[1].say', operator: 'equals', expected: 'Ada' },
              { target: 'last', operator: 'equals', expected: 'plain text' },
            ],
          },
        ],
      },
      {
        name: 'ws handshake refused',
        flow: [{ type: 'websocket', id: 'ws', url: '{{ws}}/forbidden' }],
      },
      {
        name: 'sse events',
        flow: [
          {
            type: 'sse',
            id: 'sse',
            url: '{{base}}/events?n=3&ms=5&end=1',
            assertions: [
              { target: 'count', operator: 'equals', expected: 3 },
              { target: 'events.event', operator: 'equals', expected: ['tick', 'tick', 'tick'] },
              { target: 'events.id', operator: 'equals', expected: ['0', '1', '2'] },
              { target: 'stoppedBy', operator: 'equals', expected: 'closed' },
            ],
          },
        ],
      },
      {
        name: 'sse post',
        flow: [
          {
            type: 'sse',
            id: 'chat',
            method: 'POST',
            url: '{{base}}/chat',
            body: { prompt: 'hello {{name}} again' },
            until: "message.event = 'done'",
            assertions: [
              { target: "$join(events[event = 'token'].data, ' ')", operator: 'equals', expected: 'hello Ada again' },
            ],
          },
        ],
      },
      { name: 'sse not a stream', flow: [{ type: 'sse', id: 'sse', url: '{{base}}/json' }] },
      { name: 'ws refused', flow: [{ type: 'websocket', id: 'ws', url: `ws://127.0.0.1:${apiPort}/v1/egress-probe` }] },
      { name: 'sse refused', flow: [{ type: 'sse', id: 'sse', url: `http://localhost:${apiPort}/v1/egress-probe` }] },
    ];
    for (const c of cases) {
      const res = await app.request('POST', '/v1/test-cases', { ...c, folder: 'streams' });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
    }
    await app.request('POST', '/v1/environments', { name: 'streams', variables: {} });
    await app.request('POST', '/v1/runners', { name: 'streams', folder: 'streams', order: 'createdAt' });
    const started = await app.request('POST', '/v1/runs', {
      runner: 'streams',
      environment: 'streams',
      variables: { ws: server.wsUrl, base: server.url, token: 't-123', name: 'Ada' },
    });
    expect(started.status, JSON.stringify(started.body)).to.be.oneOf([201, 202]);
    const run = await waitForRun(app, started.body.runId, 90_000);
    expect(run.status).to.equal('completed');
    const results = (await app.request('GET', `/v1/runs/${started.body.runId}/results`)).body;
    const byName = new Map<string, Json>(results.details.testCases.map((c: Json) => [c.name, c]));
    const node = (name: string) => byName.get(name)!.nodes[0] as Json;
    const passed = (name: string) =>
      expect(byName.get(name)!.status, `${name}: ${JSON.stringify(byName.get(name))}`).to.equal('passed');
    const failed = (name: string, ...parts: string[]) => {
      const c = byName.get(name)!;
      expect(c.status, name).to.equal('failed');
      for (const p of parts) expect(c.nodes[0].error, name).to.contain(p);
    };

    passed('ws in order');
    expect(node('ws in order').stream).to.deep.include({
      count: 5,
      stoppedBy: 'closed',
      closed: { code: 1000, reason: 'done' },
    });
    passed('ws until');
    expect(node('ws until').stream).to.include({ count: 4, stoppedBy: 'until' });
    failed('ws timeout', 'no message satisfied `count > 0` within 300ms (0 messages received)');
    failed('ws closed early', 'closed before a message satisfied `last.i = 10` (2 messages received, close code 1000)');
    passed('ws subprotocol headers send');
    const echo = server.handshakes.find((h) => h.path === '/echo')!;
    expect(echo.headers['x-token']).to.equal('t-123');
    expect(echo.headers['sec-websocket-protocol']).to.equal('chat.v2,other');
    failed('ws handshake refused', 'answered 403');
    expect(node('ws handshake refused').stream).to.include({ status: 403, stoppedBy: 'error' });
    passed('sse events');
    passed('sse post');
    const chat = server.handshakes.find((h) => h.path === '/chat')!;
    expect(chat).to.include({ method: 'POST', body: '{"prompt":"hello Ada again"}' });
    expect(chat.headers).to.include({ accept: 'text/event-stream', 'content-type': 'application/json' });
    failed('sse not a stream', 'not text/event-stream');
    failed('ws refused', 'ADDRESS_NOT_ALLOWED', "the API's own port");
    failed('sse refused', 'ADDRESS_NOT_ALLOWED', "the API's own port");
    expect(server.handshakes.filter((h) => h.path.includes('egress-probe'))).to.deep.equal([]);
  });
});
