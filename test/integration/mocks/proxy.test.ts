/**
 * The validation and recording proxy (docs/mocks.md "Proxy: validate and record"; src/mock/proxy.ts)
 * against a running Assay and a loopback "real service":
 * - validate: requests forwarded (hop-by-hop and scope headers dropped, the caller's credentials
 *   passed on), answers returned as they came, and the service's breaches of its own contract
 *   (a wrong type, an undocumented status) and the caller's (a bad path parameter) set on the
 *   exchange with `source: "proxy"`, listed by the journal (GET /v1/designs/{id}/requests);
 * - the address policy: a target on the API's own port refused with 502 `mock-proxy-failed` naming
 *   the rule; an unreachable target 502 too;
 * - record, then replay offline: the proxy off and the service stopped, the same answers; secrets
 *   (request headers, cookies, secret-like response headers and JSON fields) never stored.
 */
import { expect } from 'chai';
import http from 'node:http';
import zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { eventually, readReply, startTestApp, type Reply, type TestApp } from '../../helpers/app';
import type { MockEngineOptions } from '../../../src/mock/engine';
import type { MockExchange } from '../../../src/mock/exchange';
import type { MockViolation } from '../../../src/domain/mocks';

interface Journalled {
  method: string;
  path: string;
  status: number;
  source?: string;
  designId?: string | null;
  violations?: MockViolation[];
}

const SECRETS = ['tok-SECRET', 'pw-SECRET', 'key-SECRET', 'k2-SECRET', 'cookie-SECRET', 'sess-SECRET', 'auth-SECRET'];

describe('mock proxy: validate, record, replay', function () {
  this.timeout(60_000);
  let app: TestApp;
  let upstream: http.Server;
  let upstreamUrl = '';
  const received: http.IncomingHttpHeaders[] = [];
  const journal: Journalled[] = [];

  before(async () => {
    upstream = http.createServer((req, res) => {
      received.push(req.headers);
      const send = (status: number, body: unknown, headers: Record<string, string | string[]> = {}) => {
        const text = typeof body === 'string' ? body : JSON.stringify(body);
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(text);
      };
      const url = new URL(req.url!, 'http://x');
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        if (req.method === 'GET' && url.pathname === '/users/1') return send(200, { id: 1, name: 'Ada' });
        if (req.method === 'GET' && url.pathname === '/users/2') return send(200, { id: 'two', name: 5 });
        if (req.method === 'GET' && url.pathname === '/users/500') return send(500, { error: 'boom' });
        if (req.method === 'GET' && url.pathname.startsWith('/users/')) return send(404, { error: 'no such user' });
        if (req.method === 'POST' && url.pathname === '/login')
          return send(
            200,
            {
              token: 'tok-SECRET',
              user: { name: 'ada', password: 'pw-SECRET', apiKey: 'key-SECRET', keys: [{ api_key: 'k2-SECRET' }] },
              echo: JSON.parse(body || 'null'),
            },
            {
              'set-cookie': ['sid=cookie-SECRET; HttpOnly', 'theme=dark'],
              'x-session-id': 'sess-SECRET',
              'x-auth-token': 'auth-SECRET',
              'x-request-id': 'r-1',
              etag: '"v1"',
              'cache-control': 'no-store',
              server: 'upstream/1.0',
            },
          );
        if (req.method === 'GET' && url.pathname === '/text')
          return send(200, `hello ${url.searchParams.get('who') ?? 'nobody'}`, { 'content-type': 'text/plain' });
        if (req.method === 'GET' && url.pathname === '/gz') {
          // Encoded though the proxy did not ask for it: decoded to record, passed on as it came.
          res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
          return res.end(zlib.gzipSync(JSON.stringify({ zipped: true, secret: 'x' })));
        }
        if (req.method === 'POST' && url.pathname === '/orders')
          return send(201, { id: 9, ...JSON.parse(body) }, { location: '/orders/9' });
        if (req.method === 'DELETE' && url.pathname === '/orders/9') {
          res.writeHead(204);
          return res.end();
        }
        return send(404, { error: 'not here' });
      });
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    app = await startTestApp();
    // What the engine hands the journal stage, seen here as well as through the journal's API
    // (src/mock/journal.ts, GET /v1/designs/{id}/requests).
    const stages = (app.api.mocks as unknown as { options: MockEngineOptions }).options.stages!;
    const real = stages.journal;
    stages.journal = {
      record(ex: MockExchange, status: number) {
        journal.push({
          method: ex.method,
          path: ex.path,
          status,
          source: ex.source,
          designId: ex.designId,
          violations: ex.violations,
        });
        return real?.record(ex, status);
      },
    };
  });
  after(async () => {
    await app?.stop();
    if (upstream.listening) await new Promise((r) => upstream.close(r));
  });

  const mock = async (
    p: string,
    init: { method?: string; headers?: Record<string, string>; body?: string } = {},
  ): Promise<Reply> => readReply(await fetch(`${app.url}/mock/${app.workspaceId}${p}`, init));
  const settings = (proxy: { url: string; mode: 'validate' | 'record' } | null) =>
    app.request('PUT', '/v1/mock-settings', { proxy });
  const last = () => journal[journal.length - 1]!;

  let usersDesign = '';

  it('validate: forwards, answers as the service did, and reports its breaches and the caller’s with source "proxy"', async () => {
    const made = await app.request('POST', '/v1/designs', {
      method: 'GET',
      path: '/users/{id}',
      parameters: [{ in: 'path', name: 'id', required: true, schema: { type: 'integer' } }],
      responseSchemas: {
        '200': {
          type: 'object',
          required: ['id', 'name'],
          properties: { id: { type: 'integer' }, name: { type: 'string' } },
        },
      },
      responses: [
        { status: 200, code: 1, data: { id: 7, name: 'Designed' } },
        { status: 404, code: 1, data: { error: 'designed 404' } },
      ],
    });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    usersDesign = made.body.id;
    expect((await settings({ url: `${upstreamUrl}/`, mode: 'validate' })).status).to.equal(200);

    // A valid exchange: the service's answer, no violations; the request as the caller sent it, minus the scope.
    const ok = await mock('/~run_1/users/1?verbose=1', {
      headers: { authorization: 'Bearer caller-token', 'x-assay-mock-scope': 'run_1', 'x-custom': 'yes' },
    });
    expect(ok.status).to.equal(200);
    expect(ok.body).to.deep.equal({ id: 1, name: 'Ada' });
    expect(ok.headers.get('x-mock-design')).to.equal(null);
    const seen = received[received.length - 1]!;
    expect(seen.authorization).to.equal('Bearer caller-token');
    expect(seen['x-custom']).to.equal('yes');
    expect(seen['x-assay-mock-scope']).to.equal(undefined);
    expect(seen['x-assay-mock-proxied']).to.equal(app.workspaceId);
    expect(last()).to.deep.include({
      method: 'GET',
      path: '/users/1',
      status: 200,
      source: 'proxy',
      designId: usersDesign,
    });
    expect(last().violations ?? []).to.deep.equal([]);

    // The service breaks its contract: passed on as it came, violations `in: response`.
    const broken = await mock('/users/2');
    expect(broken.status).to.equal(200);
    expect(broken.body).to.deep.equal({ id: 'two', name: 5 });
    expect(last().violations).to.deep.equal([
      { in: 'response', field: '/id', message: 'must be integer' },
      { in: 'response', field: '/name', message: 'must be string' },
    ]);
    const undocumented = await mock('/users/500');
    expect(undocumented.status).to.equal(500);
    expect(last().violations).to.deep.equal([
      { in: 'response', field: 'status', message: '500 is not a status the design defines (200, 404)' },
    ]);
    // The caller breaks it: still forwarded (the proxy reports, it does not refuse).
    const badCall = await mock('/users/abc');
    expect(badCall.status).to.equal(404);
    expect(badCall.body).to.deep.equal({ error: 'no such user' });
    expect(last().violations).to.deep.equal([{ in: 'path', field: 'id', message: 'must be integer' }]);
    // The journal lists them per design, with source "proxy" (the unscoped entries are flushed in the background).
    const listed = await eventually(async () => {
      const res = await app.request('GET', `/v1/designs/${usersDesign}/requests?violations=true`);
      return res.status === 200 && res.body.items.length === 3 ? res.body.items : undefined;
    }, 10_000);
    expect(
      listed.map((e: { path: string; status: number; source: string; violations: MockViolation[] }) => [
        e.path,
        e.status,
        e.source,
        e.violations.map((v) => `${v.in} ${v.field}`).join(', '),
      ]),
    ).to.deep.equal([
      ['/users/abc', 404, 'proxy', 'path id'],
      ['/users/500', 500, 'proxy', 'response status'],
      ['/users/2', 200, 'proxy', 'response /id, response /name'],
    ]);
    const all = await app.request('GET', `/v1/designs/${usersDesign}/requests`);
    expect(all.body.items.map((e: { path: string }) => e.path)).to.include('/users/1');
    // No design for the route: forwarded, nothing to check.
    const other = await mock('/elsewhere', { method: 'DELETE' });
    expect(other.status).to.equal(404);
    expect(last()).to.deep.include({ designId: null, source: 'proxy', status: 404 });
    expect(last().violations ?? []).to.deep.equal([]);
  });

  it('goes through the address policy: the API’s own port refused naming the rule (502), an unreachable target 502', async () => {
    await settings({ url: app.url, mode: 'validate' });
    const refused = await mock('/users/1');
    expect(refused.status, JSON.stringify(refused.body)).to.equal(502);
    expect(refused.body).to.include({ code: 'mock-proxy-failed', errorCode: 'ADDRESS_NOT_ALLOWED', url: app.url });
    expect(refused.body.rule).to.match(/the API's own port \(ASSAY_PORT\) is never reachable from user requests/);
    expect(refused.body.detail).to.match(/The address policy refuses 127\.0\.0\.1:\d+/);
    expect(last()).to.deep.include({ status: 502, source: 'proxy' });

    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    await settings({ url: `http://127.0.0.1:${port}`, mode: 'validate' });
    const down = await mock('/users/1');
    expect(down.status).to.equal(502);
    expect(down.body.code).to.equal('mock-proxy-failed');
    expect(down.body.detail).to.match(/could not get GET http:\/\/127\.0\.0\.1:\d+\/users\/1/);
  });

  it('record, then replay offline with the proxy off and the service stopped: the same answers, no secret stored', async () => {
    await settings({ url: upstreamUrl, mode: 'record' });
    const login = await mock('/login', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: 'Bearer caller-token',
        cookie: 'sid=caller-cookie',
      },
      body: JSON.stringify({ user: 'ada', password: 'hunter2' }),
    });
    expect(login.status).to.equal(200);
    expect(login.body.token).to.equal('tok-SECRET'); // the caller gets the real answer
    expect(login.headers.get('x-assay-mock-recorded')).to.match(/^dsg_/);
    const text = await mock('/text?who=you');
    expect(text.body).to.equal('hello you');
    const order = await mock('/orders', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sku: 'ABC-1' }),
    });
    expect(order.status).to.equal(201);
    const gz = await mock('/gz');
    expect(gz.body).to.deep.equal({ zipped: true, secret: 'x' }); // fetch decodes it
    expect(gz.headers.get('x-assay-mock-recorded')).to.match(/^dsg_/);
    const gone = await mock('/orders/9', { method: 'DELETE' });
    expect(gone.status).to.equal(204);
    // Into the existing design of GET /users/{id}: a new response (code 2 of 200), then nothing when equal.
    const user = await mock('/users/1');
    expect(user.headers.get('x-assay-mock-recorded')).to.equal(usersDesign);
    const again = await mock('/users/1');
    expect(again.headers.get('x-assay-mock-recorded')).to.equal(`equal:${usersDesign}`);

    const designs = (await app.request('GET', '/v1/designs?limit=100')).body.items as Array<Record<string, any>>;
    const stored = JSON.stringify(designs);
    for (const secret of [...SECRETS, 'caller-token', 'caller-cookie', 'hunter2'])
      expect(stored, `${secret} stored`).not.to.include(secret);
    const find = (method: string, p: string) => designs.find((d) => d.method === method && d.path === p)!;
    const recordedLogin = find('POST', '/login');
    expect(recordedLogin.responses).to.have.length(1);
    expect(recordedLogin.responses[0].data).to.deep.equal({
      token: '***',
      user: { name: 'ada', password: '***', apiKey: '***', keys: [{ api_key: '***' }] },
      echo: { user: 'ada', password: '***' },
    });
    expect(recordedLogin.responses[0].headers).to.deep.equal({
      'content-type': 'application/json',
      etag: '"v1"',
      'cache-control': 'no-store',
      'x-request-id': 'r-1',
    });
    expect(
      find('GET', '/users/{id}').responses.map((r: { status: number; code: number }) => `${r.status}/${r.code}`),
    ).to.deep.equal(['200/1', '404/1', '200/2']);

    // Offline: the proxy off, the service gone.
    expect((await settings(null)).body.proxy).to.equal(null);
    await new Promise((r) => upstream.close(r));
    const replayLogin = await mock('/login', {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(replayLogin.status).to.equal(200);
    expect(replayLogin.body).to.deep.equal(recordedLogin.responses[0].data);
    expect(replayLogin.headers.get('etag')).to.equal('"v1"');
    expect(replayLogin.headers.get('set-cookie')).to.equal(null);
    const replayText = await mock('/text');
    expect(replayText.status).to.equal(200);
    expect(replayText.body).to.equal('hello you');
    expect(replayText.headers.get('content-type')).to.equal('text/plain');
    const replayOrder = await mock('/orders', { method: 'POST', body: '{}' });
    expect(replayOrder.status).to.equal(201);
    expect(replayOrder.body).to.deep.equal(order.body);
    expect(replayOrder.headers.get('location')).to.equal('/orders/9');
    expect((await mock('/orders/9', { method: 'DELETE' })).status).to.equal(204);
    const replayGz = await mock('/gz');
    expect(replayGz.body).to.deep.equal({ zipped: true, secret: '***' });
    expect(replayGz.headers.get('content-encoding')).to.equal(null);
    const replayUser = await mock('/users/1?_code_=2');
    expect(replayUser.status).to.equal(200);
    expect(replayUser.body).to.deep.equal(user.body);
    expect(last().source).to.equal(undefined);
  });
});
