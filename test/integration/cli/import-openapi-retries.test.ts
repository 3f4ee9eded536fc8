/**
 * `assay import openapi` against a busy Assay (docs/cli.md "Retries"): the built CLI imports through
 * a loopback proxy in front of an API on the embedded SQLite store, which answers some creates 503
 * `database-unavailable` with `Retry-After` (once after the create was applied, as a write the
 * database answered too late may be), or holds the listings until two imports have both asked (two
 * imports of one description at once). The import retries, resumes over what is stored, exits 0
 * with one test case per operation and its runner made; an import stopped half-way is completed by
 * a re-run that duplicates nothing.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { startTestApp, type TestApp } from '../../helpers/app';
import { runCli } from '../../helpers/cli';

const SPEC = `openapi: 3.0.3
info:
  title: Busy Shop
  version: "1.0"
servers:
  - url: https://shop.example.com/api
paths:
  /items:
    get:
      operationId: listItems
      responses:
        "200":
          description: the items
          content:
            application/json:
              schema: { type: array, items: { type: object, properties: { id: { type: integer } } } }
    post:
      operationId: createItem
      requestBody:
        required: true
        content:
          application/json:
            schema: { type: object, properties: { name: { type: string, example: Lamp } } }
      responses:
        "201": { description: created }
  /items/{itemId}:
    get:
      operationId: getItem
      parameters:
        - { name: itemId, in: path, required: true, schema: { type: integer }, example: 7 }
      responses:
        "200": { description: the item }
    delete:
      operationId: deleteItem
      parameters:
        - { name: itemId, in: path, required: true, schema: { type: integer }, example: 7 }
      responses:
        "204": { description: deleted }
  /health:
    get:
      operationId: health
      responses:
        "200": { description: up }
`;
const OPERATIONS = 5;

/** What the proxy does with one request: forward it, answer 503 without forwarding, or forward and answer 503. */
type Verdict = 'forward' | 'unavailable' | 'applied-then-unavailable';

interface Proxy {
  url: string;
  /** Requests seen, as `METHOD /path` (no query). */
  seen: string[];
  close(): Promise<void>;
}

/** An HTTP proxy to `target` that asks `decide` (which may wait) what to do with each request. */
async function startProxy(target: string, decide: (method: string, p: string) => Promise<Verdict>): Promise<Proxy> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const p = (req.url ?? '/').split('?')[0]!;
        seen.push(`${req.method} ${p}`);
        const verdict = await decide(req.method ?? 'GET', p);
        const unavailable = () => {
          res.writeHead(503, { 'content-type': 'application/problem+json', 'retry-after': '1' });
          res.end(
            JSON.stringify({
              type: 'https://assay.dev/problems/database-unavailable',
              title: 'Database unavailable',
              status: 503,
              code: 'database-unavailable',
              detail: 'The database is busy.',
            }),
          );
        };
        if (verdict === 'unavailable') return unavailable();
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers))
          if (typeof v === 'string' && !['host', 'connection', 'content-length'].includes(k)) headers[k] = v;
        const body = chunks.length ? Buffer.concat(chunks) : undefined;
        const answer = await fetch(target + req.url, { method: req.method, headers, body });
        const text = await answer.text();
        if (verdict === 'applied-then-unavailable') return unavailable();
        const out: Record<string, string> = {};
        answer.headers.forEach((v, k) => {
          if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(k)) out[k] = v;
        });
        res.writeHead(answer.status, out);
        res.end(text);
      })().catch((err: unknown) => {
        res.writeHead(502);
        res.end(String(err));
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

describe('assay import openapi against a busy Assay (SQLite store): retries and resumes', function () {
  this.timeout(180_000);
  let app: TestApp;
  let dir: string;
  let specFile: string;
  const proxies: Proxy[] = [];

  before(async () => {
    app = await startTestApp({ dialect: 'sqlite' });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-openapi-busy-'));
    specFile = path.join(dir, 'busy.yaml');
    fs.writeFileSync(specFile, SPEC);
  });
  after(async () => {
    for (const p of proxies) await p.close();
    await app?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const proxy = async (decide: (method: string, p: string) => Promise<Verdict>) => {
    const p = await startProxy(app.url, decide);
    proxies.push(p);
    return p;
  };

  /** `--json` report of an import into `folder` through `url`, with runner `runner` and the mocks. */
  const importVia = (url: string, folder: string, runner: string) =>
    runCli(['import', 'openapi', specFile, '--folder', folder, '--runner', runner, '--with-mocks', '--json'], {
      cwd: dir,
      env: { ASSAY_URL: url, ASSAY_API_KEY: app.key },
    });

  /** Stored test cases of `folder`, as names (a name twice would be a duplicate). */
  async function storedNames(folder: string): Promise<string[]> {
    const res = await app.request('GET', `/v1/test-cases?folder=${encodeURIComponent(folder)}&limit=200`);
    expect(res.status).to.equal(200);
    return (res.body.items as Array<{ name: string }>).map((t) => t.name).sort();
  }

  async function expectRunner(name: string, folder: string): Promise<void> {
    const runner = await app.request('GET', `/v1/runners/${name}`);
    expect(runner.status, JSON.stringify(runner.body)).to.equal(200);
    expect(runner.body.folder).to.equal(folder);
  }

  it('creates answered 503 with Retry-After (one of them applied) are retried: exit 0, each operation once, runner made', async () => {
    let posts = 0;
    const p = await proxy(async (method, route) => {
      if (method !== 'POST' || route !== '/v1/test-cases') return 'forward';
      posts++;
      return posts === 1 ? 'applied-then-unavailable' : posts === 3 ? 'unavailable' : 'forward';
    });
    const r = await importVia(p.url, 'busy-retry', 'busy-retry');
    expect(r.code, r.stderr).to.equal(0);
    const report = JSON.parse(r.stdout);
    expect(report.testCases).to.have.length(OPERATIONS);
    expect(report.counts.failed).to.equal(0);
    expect(report.runner.action).to.equal('created');
    const names = await storedNames('busy-retry');
    expect(names).to.have.length(OPERATIONS);
    expect(new Set(names).size).to.equal(OPERATIONS);
    await expectRunner('busy-retry', 'busy-retry');
  });

  it('an import stopped half-way (503 beyond its retries) exits 3; a re-run resumes: nothing duplicated, runner made', async () => {
    let posts = 0;
    const p = await proxy(async (method, route) => {
      if (method !== 'POST' || route !== '/v1/test-cases') return 'forward';
      posts++;
      return posts <= 2 ? 'forward' : 'unavailable';
    });
    const first = await importVia(p.url, 'busy-resume', 'busy-resume');
    expect(first.code, first.stderr).to.equal(3);
    expect(first.stderr).to.match(/database-unavailable|Database unavailable|503/);
    expect(await storedNames('busy-resume')).to.have.length(2);
    expect((await app.request('GET', '/v1/runners/busy-resume')).status).to.equal(404);

    const again = await importVia(app.url, 'busy-resume', 'busy-resume');
    expect(again.code, again.stderr).to.equal(0);
    const report = JSON.parse(again.stdout);
    expect(report.counts).to.include({ unchanged: 2, created: OPERATIONS - 2, failed: 0 });
    const names = await storedNames('busy-resume');
    expect(names).to.have.length(OPERATIONS);
    expect(new Set(names).size).to.equal(OPERATIONS);
    await expectRunner('busy-resume', 'busy-resume');
  });

  it('two imports of one description at once both exit 0, with one test case per operation and one runner', async () => {
    // Both imports list the folder before either creates anything: each then creates every test case.
    let listed = 0;
    let release!: () => void;
    const bothListed = new Promise<void>((r) => (release = r));
    const p = await proxy(async (method, route) => {
      if (method === 'GET' && route === '/v1/test-cases') {
        if (++listed === 2) release();
        if (listed <= 2) await bothListed;
      }
      return 'forward';
    });
    const [a, b] = await Promise.all([
      importVia(p.url, 'busy-twice', 'busy-twice'),
      importVia(p.url, 'busy-twice', 'busy-twice'),
    ]);
    expect(a.code, a.stderr).to.equal(0);
    expect(b.code, b.stderr).to.equal(0);
    for (const r of [a, b]) expect(JSON.parse(r.stdout).counts.failed).to.equal(0);
    const names = await storedNames('busy-twice');
    expect(names).to.have.length(OPERATIONS);
    expect(new Set(names).size).to.equal(OPERATIONS);
    await expectRunner('busy-twice', 'busy-twice');
  });
});
