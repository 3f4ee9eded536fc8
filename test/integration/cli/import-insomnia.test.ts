/**
 * `assay import insomnia` end to end (docs/import-insomnia.md): a hand-written Insomnia v4 export
 * aimed at a loopback API (a log-in folder with basic auth, a folder whose request chains the
 * log-in's token and id with `{% response %}` tags, a multipart upload with a file part) is
 * imported by the built CLI into a real Assay (API + worker on Temporal); `assay run --wait` passes,
 * the chained values and the file's bytes arrive at the server; importing again changes no test
 * case; `--strict` on an export with a gRPC request exits 2 and stores nothing; the real exports of
 * test/fixtures/insomnia import with `--dry-run`.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { startTestApp, type TestApp } from '../../helpers/app';
import { runCli } from '../../helpers/cli';

const FIXTURES = path.resolve(__dirname, '../../../../test/fixtures/insomnia');
const AVATAR = Buffer.from('\x89PNG\r\n\x1a\n\x00\xff insomnia avatar bytes', 'binary');
const BASIC = `Basic ${Buffer.from('ada:lovelace-pw').toString('base64')}`;

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

async function startServer(): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (req.method === 'POST' && url.pathname === '/login')
        return req.headers.authorization === BASIC && JSON.parse(body.toString() || '{}').user === 'ada'
          ? json(200, { token: 'tok-4711', user: { id: 42 } })
          : json(401, { error: 'bad login' });
      if (req.method === 'GET' && url.pathname === '/users/42/orders')
        return req.headers['x-token'] === 'tok-4711' ? json(200, [{ id: 1 }]) : json(403, { error: 'no token' });
      if (req.method === 'POST' && url.pathname === '/upload') return json(201, { ok: true });
      json(404, { error: 'no route' });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** The hand-written export: what Insomnia 9 writes for such a workspace (v4, JSON). */
function exportFor(base: string, extra: unknown[] = []): string {
  const req = (id: string, parentId: string, sort: number, fields: Record<string, unknown>) => ({
    _id: id,
    _type: 'request',
    parentId,
    metaSortKey: sort,
    headers: [],
    parameters: [],
    body: {},
    authentication: {},
    settingFollowRedirects: 'global',
    settingEncodeUrl: true,
    ...fields,
  });
  return JSON.stringify({
    _type: 'export',
    __export_format: 4,
    __export_source: 'insomnia.desktop.app:v9.3.3',
    resources: [
      { _id: 'wrk_shop', _type: 'workspace', parentId: null, name: 'Shop API', scope: 'collection' },
      {
        _id: 'env_base',
        _type: 'environment',
        parentId: 'wrk_shop',
        name: 'Base Environment',
        data: { base: 'http://nowhere.invalid' },
      },
      { _id: 'env_local', _type: 'environment', parentId: 'env_base', name: 'Local', data: { base } },
      { _id: 'env_other', _type: 'environment', parentId: 'env_base', name: 'Other', data: {}, metaSortKey: 5 },
      {
        _id: 'fld_login',
        _type: 'request_group',
        parentId: 'wrk_shop',
        name: 'Log in',
        metaSortKey: -10,
        environment: { user: 'ada' },
        authentication: { type: 'basic', username: 'ada', password: 'lovelace-pw' },
      },
      req('req_login', 'fld_login', 0, {
        name: 'Login',
        method: 'POST',
        url: '{{ _.base }}/login',
        body: { mimeType: 'application/json', text: '{"user": "{{ _.user }}"}' },
        headers: [{ name: 'Content-Type', value: 'application/json' }],
      }),
      {
        _id: 'fld_orders',
        _type: 'request_group',
        parentId: 'wrk_shop',
        name: 'Orders',
        metaSortKey: -5,
        environment: {},
      },
      req('req_orders', 'fld_orders', 0, {
        name: 'My orders',
        method: 'GET',
        url: "{{ _.base }}/users/{% response 'body', 'req_login', 'b64::JC51c2VyLmlk::46b', 'never', 60 %}/orders",
        headers: [
          {
            name: 'X-Token',
            value: "{% response 'body', 'req_login', 'b64::JC50b2tlbg==::46b', 'when-expired', 60 %}",
          },
          { name: 'X-Debug', value: 'off', disabled: true },
        ],
      }),
      req('req_upload', 'wrk_shop', 0, {
        name: 'Upload avatar',
        method: 'POST',
        url: '{{ _.base }}/upload',
        body: {
          mimeType: 'multipart/form-data',
          params: [
            { name: 'title', value: 'Me' },
            { name: 'avatar', type: 'file', fileName: '/Users/ada/Pictures/avatar.png' },
            { name: 'ignored', value: 'x', disabled: true },
          ],
        },
      }),
      { _id: 'uts_1', _type: 'unit_test_suite', parentId: 'wrk_shop', name: 'Suite' },
      {
        _id: 'ut_1',
        _type: 'unit_test',
        parentId: 'uts_1',
        name: 'Orders answer 200',
        requestId: 'req_orders',
        code: 'const response1 = await insomnia.send();\nexpect(response1.status).to.equal(200);',
      },
      ...extra,
    ],
  });
}

describe('assay import insomnia (CLI, real API and worker)', function () {
  this.timeout(180_000);
  let app: TestApp;
  let server: Awaited<ReturnType<typeof startServer>>;
  let dir: string;

  before(async () => {
    [app, server] = await Promise.all([startTestApp({ worker: true }), startServer()]);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-insomnia-'));
    fs.mkdirSync(path.join(dir, 'files'));
    fs.writeFileSync(path.join(dir, 'files', 'avatar.png'), AVATAR);
    fs.writeFileSync(path.join(dir, 'shop.json'), exportFor(server.url));
    fs.writeFileSync(
      path.join(dir, 'grpc.json'),
      exportFor(server.url, [{ _id: 'greq_1', _type: 'grpc_request', parentId: 'wrk_shop', name: 'Route guide' }]),
    );
  });
  after(async () => {
    await server?.close();
    await app?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const stored = async () => (await app.request('GET', '/v1/test-cases?folder=Shop API')).body.items as any[];

  it('--strict on an export with a gRPC request exits 2 and stores nothing', async () => {
    const r = await runCli(
      ['import', 'insomnia', 'grpc.json', '--environment', 'Local', '--working-dir', 'files', '--strict', '--json'],
      {
        app,
        cwd: dir,
      },
    );
    expect(r.code, r.stderr).to.equal(2);
    const report = JSON.parse(r.stdout);
    expect(report.stored).to.equal(false);
    expect(report.requests.find((q: any) => q.id === 'greq_1').notCarried).to.deep.equal([
      'gRPC request: not carried (an API node sends HTTP requests)',
    ]);
    expect(r.stderr).to.match(/--strict: 1 items were not carried in full \(listed above\); nothing was saved/);
    expect(await stored()).to.deep.equal([]);
    expect((await app.request('GET', '/v1/environments/Shop-API-Local')).status).to.equal(404);
    expect((await app.request('GET', '/v1/files')).body.items).to.deep.equal([]);
  });

  it('imports test cases, the environment, an auth profile, the file and a runner; the test cases hold no credential', async () => {
    const r = await runCli(
      ['import', 'insomnia', 'shop.json', '--environment', 'Local', '--working-dir', 'files', '--strict', '--json'],
      {
        app,
        cwd: dir,
      },
    );
    expect(r.code, r.stderr).to.equal(0);
    const report = JSON.parse(r.stdout);
    expect(report.testCases.map((t: any) => `${t.name} ${t.nodes} ${t.action}`)).to.deep.equal([
      'Log in 2 created',
      'Orders 1 created',
      'Shop API 1 created',
    ]);
    expect(report.runner).to.deep.include({ name: 'Shop-API', variableScope: 'run', action: 'created' });
    expect(report.environment).to.deep.include({ name: 'Shop-API-Local', sub: 'Local', action: 'created' });
    expect(report.environment.secrets).to.deep.equal(['log_in_password']);
    expect(report.authProfiles).to.deep.equal([
      { name: 'Shop-API.Log-in', type: 'basic', from: 'Log in', action: 'created' },
    ]);
    expect(report.files).to.deep.equal([
      { fileName: '/Users/ada/Pictures/avatar.png', file: 'avatar.png', size: AVATAR.length, action: 'created' },
    ]);
    expect(report.notCarried).to.equal(0);
    const all = await stored();
    expect(JSON.stringify(all)).to.not.include('lovelace-pw');
    const orders = all.find((t) => t.name === 'Orders');
    expect(orders.flow[0].request.url).to.equal('{{base}}/users/{{post_login_id}}/orders');
    expect(orders.flow[0].request.headers).to.deep.equal({ 'X-Token': '{{post_login_token}}' });
    expect(orders.flow[0].assertions).to.deep.equal([{ target: 'response.status', operator: 'equals', expected: 200 }]);
  });

  it('assay run passes: the chained token and id reach the second request, the file part arrives byte for byte', async () => {
    server.seen.length = 0;
    const r = await runCli(
      ['run', '--runner', 'Shop-API', '--env', 'Shop-API-Local', '--wait', '--poll-interval', '0.2'],
      {
        app,
        cwd: dir,
      },
    );
    const runId = /Run (run_[A-Za-z0-9]+)/.exec(r.stderr)?.[1];
    const results = runId ? await app.request('GET', `/v1/runs/${runId}/results`) : undefined;
    expect(
      r.code,
      r.stdout + r.stderr + JSON.stringify(results?.body?.details?.testCases?.map((t: any) => t.failures)),
    ).to.equal(0);
    expect(server.seen.map((s) => `${s.method} ${s.url}`)).to.deep.equal([
      'POST /login',
      'GET /users/42/orders',
      'POST /upload',
    ]);
    expect(server.seen[0]!.headers.authorization).to.equal(BASIC);
    expect(server.seen[1]!.headers['x-token']).to.equal('tok-4711');
    const upload = server.seen[2]!;
    const form = await new Response(new Uint8Array(upload.body), {
      headers: { 'content-type': String(upload.headers['content-type']) },
    }).formData();
    expect(form.get('title')).to.equal('Me');
    expect(form.has('ignored')).to.equal(false);
    const file = form.get('avatar') as File;
    expect(file.name).to.equal('avatar.png');
    expect(Buffer.from(await file.arrayBuffer()).equals(AVATAR)).to.equal(true);
  });

  it('importing again updates nothing and makes no copies', async () => {
    const r = await runCli(
      ['import', 'insomnia', 'shop.json', '--environment', 'Local', '--working-dir', 'files', '--json'],
      {
        app,
        cwd: dir,
      },
    );
    expect(r.code, r.stderr).to.equal(0);
    const report = JSON.parse(r.stdout);
    expect(report.testCases.map((t: any) => t.action)).to.deep.equal(['unchanged', 'unchanged', 'unchanged']);
    expect(report.runner.action).to.equal('unchanged');
    expect(report.authProfiles[0].action).to.equal('unchanged'); // its password is a {{template}}, answered as written
    expect(await stored()).to.have.length(3);
  });

  it('the real exports import with --dry-run; a file that is not an Insomnia export exits 2 naming the problem', async () => {
    for (const [file, testCases] of [
      ['petstore-v4.json', 2],
      ['smoke-test-v4.yaml', 2],
      ['environments-v4.yaml', 1],
      ['oauth-v4.yaml', 4],
      ['chained-responses-v5.yaml', 1],
      ['auth-types-v5.yaml', 1],
    ] as const) {
      const r = await runCli(['import', 'insomnia', path.join(FIXTURES, file), '--dry-run', '--json'], {
        app,
        cwd: dir,
      });
      expect(r.code, `${file}: ${r.stderr}`).to.equal(0);
      expect(JSON.parse(r.stdout).testCases, file).to.have.length(testCases);
    }
    fs.writeFileSync(path.join(dir, 'not.json'), '{"info": {"name": "a Postman collection"}, "item": []}');
    const bad = await runCli(['import', 'insomnia', 'not.json'], { app, cwd: dir });
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.match(/not\.json: not an Insomnia export: expected "_type: export"/);
    expect(bad.stderr).to.not.match(/\n\s+at /);
  });
});
