/**
 * `assay import bruno` end to end (docs/import-bruno.md): the built CLI imports a hand-written
 * collection in Bruno's format (test/fixtures/bruno/loopback-shop) aimed at a loopback server into
 * a real Assay (API + worker on Temporal), then `assay run --wait` runs it: Bruno's asserts pass
 * (and a deliberately wrong one fails), a `tests` block's test is reported, the token a
 * `vars:post-response` extracts is sent by the next request (through the folder's bearer auth and
 * a pre-request script), and a multipart `@file(...)` part arrives byte for byte. Importing again
 * changes nothing; `--strict` with an item it cannot carry exits 2 and stores nothing; a starter
 * collection by another author runs and passes against a loopback stand-in for its API; the real
 * Bruno test collection (test/fixtures/bruno/SOURCES.md) imports (`--dry-run`, then stored).
 */
import { expect } from 'chai';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { startTestApp, type TestApp } from '../../helpers/app';
import { runCli } from '../../helpers/cli';

const FIXTURES = path.resolve(__dirname, '../../../../test/fixtures/bruno');
const AVATAR = fs.readFileSync(path.join(FIXTURES, 'loopback-shop/fixtures/avatar.bin'));

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** The part named `name` of a multipart body, its bytes as sent (RFC 7578). */
function partOf(body: Buffer, contentType: string, name: string): Buffer | undefined {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(contentType);
  if (!boundary) return undefined;
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  let at = body.indexOf(delimiter);
  while (at >= 0) {
    const next = body.indexOf(delimiter, at + delimiter.length);
    if (next < 0) return undefined;
    const piece = body.subarray(at + delimiter.length + 2, next - 2);
    const split = piece.indexOf('\r\n\r\n');
    if (piece.subarray(0, split).toString().includes(`name="${name}"`)) return piece.subarray(split + 4);
    at = next;
  }
  return undefined;
}

async function startServer(): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const json = (status: number, value: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(value));
      };
      // What the starter collection (test/fixtures/bruno/bruno-api-test-starter) asks of JSONPlaceholder.
      if (req.method === 'GET' && req.url === '/posts/1')
        return json(200, { userId: 1, id: 1, title: 'sunt aut facere repellat provident occaecati', body: '…' });
      if (req.headers['x-client'] !== 'assay-bruno-test') return json(400, { error: 'no collection header' });
      if (req.method === 'POST' && req.url === '/login') {
        const user = (JSON.parse(body.toString() || '{}') as { user?: string }).user;
        return user === 'ada' ? json(200, { token: 'tok-4711', id: 7 }) : json(400, { error: 'who?' });
      }
      if (req.method === 'GET' && req.url === '/users/me?verbose=yes') {
        const ok = req.headers.authorization === 'Bearer tok-4711' && req.headers['x-trace'] === 'trace-tok-4711';
        return ok ? json(200, { name: 'ada' }) : json(401, { error: 'no token' });
      }
      if (req.method === 'POST' && req.url === '/upload') {
        const type = req.headers['content-type'] ?? '';
        const avatar = partOf(body, type, 'avatar');
        const title = partOf(body, type, 'title')?.toString();
        return json(201, { same: Boolean(avatar && avatar.equals(AVATAR)) && title === 'Me' });
      }
      if (req.method === 'GET' && req.url === '/items') return json(200, [1, 2, 3], { 'x-count': '3' });
      json(404, { error: 'no route' });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('assay import bruno (CLI, end to end)', function () {
  this.timeout(240_000);
  let app: TestApp;
  let server: Awaited<ReturnType<typeof startServer>>;
  let dir: string;
  let shop: string;

  before(async () => {
    [app, server] = await Promise.all([startTestApp({ worker: true }), startServer()]);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-bruno-'));
    shop = path.join(dir, 'shop');
    fs.cpSync(path.join(FIXTURES, 'loopback-shop'), shop, { recursive: true });
    fs.writeFileSync(
      path.join(shop, 'environments/Local.bru'),
      `vars {\n  base: ${server.url}\n}\nvars:secret [\n  api_key\n]\n`,
    );
  });
  after(async () => {
    await server?.close();
    await app?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const stored = async () =>
    (await app.request('GET', '/v1/test-cases?folder=loopback-shop')).body.items as Array<{ id: string; name: string }>;

  it('--strict with an item it cannot carry exits 2 and stores nothing', async () => {
    const strict = path.join(dir, 'strict');
    fs.cpSync(shop, strict, { recursive: true });
    fs.writeFileSync(
      path.join(strict, 'checks/Ntlm.bru'),
      'meta {\n  name: Ntlm\n  type: http\n  seq: 2\n}\n\nget {\n  url: {{base}}/items\n  body: none\n  auth: ntlm\n}\n\nauth:ntlm {\n  username: u\n  password: p\n  domain: d\n}\n',
    );
    const r = await runCli(['import', 'bruno', 'strict', '--strict', '--json'], { app, cwd: dir });
    expect(r.code, r.stderr).to.equal(2);
    expect(r.stderr).to.match(/--strict: 1 item\(s\) could not be carried/);
    expect(JSON.parse(r.stdout).untranslated).to.deep.equal([
      {
        at: 'checks / Ntlm',
        message: 'ntlm auth is not carried (Assay signs basic, bearer, API key, OAuth 2.0, digest and AWS SigV4)',
      },
    ]);
    expect(await stored()).to.deep.equal([]);
    expect((await app.request('GET', '/v1/environments/Local')).status).to.equal(404);
    expect((await app.request('GET', '/v1/files')).body.items).to.deep.equal([]);
    expect((await app.request('GET', '/v1/auth-profiles/loopback-shop.auth')).status).to.equal(404);
  });

  it('imports the collection: test cases, environment without the secret, auth profile, file', async () => {
    const r = await runCli(['import', 'bruno', 'shop', '--strict', '--json'], { app, cwd: dir });
    expect(r.code, r.stderr).to.equal(0);
    const report = JSON.parse(r.stdout);
    expect(report.testCases.map((t: { name: string; action: string }) => `${t.name}:${t.action}`)).to.deep.equal([
      'auth:created',
      'checks:created',
      'files:created',
    ]);
    expect(report.environments).to.deep.equal([
      {
        name: 'Local',
        from: 'environments/Local.bru',
        variables: 1,
        secretsWithoutValue: ['api_key'],
        action: 'created',
      },
    ]);
    expect(report.files).to.deep.equal([
      { name: 'bruno/loopback-shop/fixtures/avatar.bin', size: AVATAR.length, action: 'created' },
    ]);
    expect(report.authProfiles).to.deep.equal([
      { name: 'loopback-shop.auth', type: 'bearer', from: 'auth', action: 'created' },
    ]);
    expect(r.stderr).to.include('Run it: assay run --runner loopback-shop --env Local --wait');
    const env = (await app.request('GET', '/v1/environments/Local')).body;
    expect(env.variables).to.deep.equal({ base: server.url });
    const file = (await app.request('GET', '/v1/files/bruno%2Floopback-shop%2Ffixtures%2Favatar.bin')).body;
    expect(file).to.include({ size: AVATAR.length });
  });

  it('assay run: asserts pass and one fails, tests are reported, the extracted token and the file are sent', async () => {
    server.seen.length = 0;
    const r = await runCli(['run', '--runner', 'loopback-shop', '--env', 'Local', '--wait', '--poll-interval', '0.2'], {
      app,
      cwd: dir,
    });
    const runId = /Run (run_[0-9A-Za-z]+)/.exec(r.stderr)?.[1];
    const results = (await app.request('GET', `/v1/runs/${runId}/results`)).body;
    expect(r.code, r.stderr).to.equal(1); // the deliberately wrong assert and test of checks/Items
    const outcomes = new Map<string, boolean>();
    for (const tc of results.details.testCases as Array<{
      nodes: Array<{ name?: string; id: string; assertions?: Array<{ name?: string; passed: boolean }> }>;
    }>)
      for (const n of tc.nodes)
        for (const a of n.assertions ?? []) outcomes.set(`${n.name ?? n.id} :: ${a.name}`, a.passed);
    expect(Object.fromEntries(outcomes)).to.deep.equal({
      'Login :: res.status: eq 200': true,
      'Login :: res.body.id: isNumber': true,
      'Login :: res.headers.content-type: contains json': true,
      'Me :: the name is ada': true,
      'Me :: res.status: eq 200': true,
      'Me :: res.body.name: eq {{user}}': true,
      'Items :: deliberately wrong: four items': false,
      'Items :: res.status: eq 200': true,
      'Items :: res.body: length 3': true,
      'Items :: res.body[0]: gte 1': true,
      'Items :: res.headers["x-count"]: eq "3"': true,
      'Items :: res.status: eq 201': false,
      'Upload :: res.status: eq 201': true,
      'Upload :: res.body.same: eq true': true,
    });
    expect(server.seen.map((s) => `${s.method} ${s.url}`)).to.deep.equal([
      'POST /login',
      'GET /users/me?verbose=yes',
      'GET /items',
      'POST /upload',
    ]);
    expect(server.seen[1]!.headers.authorization).to.equal('Bearer tok-4711');
    expect(partOf(server.seen[3]!.body, server.seen[3]!.headers['content-type']!, 'avatar')!.equals(AVATAR)).to.equal(
      true,
    );
  });

  it('importing again changes nothing', async () => {
    const before = await stored();
    const r = await runCli(['import', 'bruno', 'shop', '--json'], { app, cwd: dir });
    expect(r.code, r.stderr).to.equal(0);
    const report = JSON.parse(r.stdout);
    const actions = [
      ...report.testCases,
      ...report.environments,
      ...report.authProfiles,
      ...report.files,
      report.runner,
    ].map((x: { action: string }) => x.action);
    expect(new Set(actions)).to.deep.equal(new Set(['unchanged']));
    expect((await stored()).map((t) => t.id).sort()).to.deep.equal(before.map((t) => t.id).sort());
  });

  it("another author's starter collection imports and passes against a loopback stand-in for its API", async () => {
    const r = await runCli(['import', 'bruno', path.join(FIXTURES, 'bruno-api-test-starter'), '--strict', '--json'], {
      app,
      cwd: dir,
    });
    expect(r.code, r.stderr).to.equal(0);
    expect(JSON.parse(r.stdout).environments[0]).to.include({ name: 'demo', action: 'created' });
    const patched = await app.request('PATCH', '/v1/environments/demo', { variables: { host: server.url } });
    expect(patched.status).to.equal(200);
    const run = await runCli(
      ['run', '--runner', 'api-collections', '--env', 'demo', '--wait', '--poll-interval', '0.2'],
      {
        app,
        cwd: dir,
      },
    );
    const runId = /Run (run_[0-9A-Za-z]+)/.exec(run.stderr)?.[1];
    const results = (await app.request('GET', `/v1/runs/${runId}/results`)).body;
    expect(run.code, run.stderr).to.equal(0);
    const [node] = results.details.testCases[0].nodes as Array<{
      assertions: Array<{ name: string; passed: boolean }>;
    }>;
    expect(node!.assertions.map((a) => `${a.name}: ${a.passed}`)).to.have.members([
      'res.status should be 200: true',
      'res.body should be correct: true',
      'res.status: eq 200: true',
      'res.body.id: eq 1: true',
      'res.body.title: contains provident: true',
    ]);
  });

  it('the real Bruno test collection imports (dry run, then stored); a broken .bru and a folder without bruno.json exit 2', async () => {
    const r = await runCli(['import', 'bruno', path.join(FIXTURES, 'bruno-testbench'), '--dry-run', '--json'], {
      app,
      cwd: dir,
    });
    expect(r.code, r.stderr).to.equal(0);
    const report = JSON.parse(r.stdout);
    expect(report.collection).to.equal('bruno-testbench');
    expect(report.requests.length).to.be.greaterThan(200);
    expect(report.testCases.every((t: { action: string }) => t.action === 'planned')).to.equal(true);
    // Stored for real: the API accepts every test case (the 1 MiB one split in two), profile and file.
    const real = await runCli(
      ['import', 'bruno', path.join(FIXTURES, 'bruno-testbench'), '--environment', 'Prod', '--json'],
      { app, cwd: dir },
    );
    expect(real.code, real.stderr).to.equal(0);
    const saved = JSON.parse(real.stdout);
    expect(saved.testCases.length).to.equal(17);
    expect(saved.testCases.map((t: { name: string }) => t.name)).to.include.members(['scripting (1)', 'scripting (2)']);
    expect(saved.testCases.every((t: { action: string }) => t.action === 'created')).to.equal(true);
    expect(saved.environments.map((e: { name: string }) => e.name)).to.deep.equal(['Prod']);
    expect(saved.files.map((f: { action: string }) => f.action)).to.deep.equal(['created', 'created', 'created']);

    const broken = path.join(dir, 'broken');
    fs.cpSync(shop, broken, { recursive: true });
    fs.writeFileSync(
      path.join(broken, 'checks/Bad.bru'),
      'meta {\n  name: Bad\n}\n\nget {\n  url: http://x\n\nassert {\n}\n',
    );
    const bad = await runCli(['import', 'bruno', 'broken', '--dry-run'], { app, cwd: dir });
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.match(/checks\/Bad\.bru does not parse: Line 8, col \d+: Expected/);
    const none = await runCli(['import', 'bruno', '.', '--dry-run'], { app, cwd: dir });
    expect(none.code).to.equal(2);
    expect(none.stderr).to.include('has no bruno.json: not a Bruno collection folder');
  });
});
