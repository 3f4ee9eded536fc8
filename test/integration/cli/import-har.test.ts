/**
 * `assay import har` end to end (docs/cli.md "Importing"): the test records a HAR of the requests
 * it makes to a loopback server (with the headers a browser adds, a bearer token, a session cookie,
 * a JSON and a form body, a redirect recorded as two entries, a multipart upload and an image);
 * the built CLI imports it into a real Assay (API + worker on Temporal): `--strict` refuses the
 * upload it cannot carry and stores nothing; with `--files-dir` the file is uploaded, the test case
 * holds no credential literal, and `assay run` passes against the server, sending the token, the
 * cookie, the bodies and the file; importing again changes nothing. The public fixtures
 * (test/fixtures/har/SOURCES.md) import with `--dry-run`, and a HAR over 50 MiB is refused.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { startTestApp, type TestApp } from '../../helpers/app';
import { runCli } from '../../helpers/cli';

const TOKEN = 'Bearer tok-SECRET-4711';
const COOKIE = 'sid=cookie-SECRET-0815';
const AVATAR = Buffer.from('\x89PNG\r\n\x1a\n pretend avatar bytes', 'binary');
const FIXTURES = path.resolve(__dirname, '../../../../test/fixtures/har');

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** The loopback API the HAR is recorded against. */
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
      const authed = req.headers.authorization === TOKEN && req.headers.cookie === COOKIE;
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (req.method === 'POST' && url.pathname === '/login')
        return body.toString() === 'user=ada&pass=x' ? json(200, { ok: true }) : json(400, { error: 'bad form' });
      if (req.method === 'GET' && url.pathname === '/logo.png') {
        res.writeHead(200, { 'content-type': 'image/png' });
        return res.end(AVATAR);
      }
      if (!authed) return json(401, { error: 'who are you' });
      if (req.method === 'GET' && url.pathname === '/items') return json(200, [{ id: 1 }]);
      if (req.method === 'POST' && url.pathname === '/items') {
        const item = JSON.parse(body.toString() || '{}') as { name?: string };
        return item.name === 'Lamp' ? json(201, { id: 2, name: 'Lamp' }) : json(400, { error: 'bad item' });
      }
      if (req.method === 'GET' && url.pathname === '/old') {
        res.writeHead(302, { location: '/items?from=old' });
        return res.end();
      }
      if (req.method === 'POST' && url.pathname === '/upload') {
        const ok = body.includes(AVATAR) && body.includes('name="title"') && body.includes('Me');
        return json(ok ? 201 : 400, { ok });
      }
      json(404, { error: 'no route' });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, close: () => new Promise<void>((r) => server.close(() => r())) };
}

type Pair = { name: string; value: string };

/** What Chrome adds to every request it records. */
const browserHeaders = (host: string): Pair[] => [
  { name: ':authority', value: host },
  { name: ':scheme', value: 'http' },
  { name: 'accept-encoding', value: 'gzip, deflate, br, zstd' },
  { name: 'sec-fetch-mode', value: 'cors' },
  { name: 'sec-ch-ua', value: '"Chromium";v="126"' },
  { name: 'user-agent', value: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0' },
];

/**
 * Sends a request to the server as a browser would have and answers its HAR entry, with the
 * status and response type the server really answered (redirects are not followed: the browser
 * records each hop).
 */
async function record(
  base: string,
  method: string,
  pathAndQuery: string,
  options: { headers?: Pair[]; body?: string | FormData; postData?: Record<string, unknown> } = {},
): Promise<Record<string, unknown>> {
  const host = new URL(base).host;
  const headers = [...browserHeaders(host), ...(options.headers ?? [])];
  const res = await fetch(`${base}${pathAndQuery}`, {
    method,
    headers: Object.fromEntries(
      (options.headers ?? [])
        .filter((h) => h.name.toLowerCase() !== 'content-type' || typeof options.body === 'string')
        .map((h) => [h.name, h.value]),
    ),
    body: options.body,
    redirect: 'manual',
  });
  const text = Buffer.from(await res.arrayBuffer());
  const location = res.headers.get('location');
  const responseHeaders: Pair[] = [];
  res.headers.forEach((value, name) => responseHeaders.push({ name, value }));
  return {
    startedDateTime: new Date().toISOString(),
    time: 1,
    request: {
      method,
      url: `${base}${pathAndQuery}`,
      httpVersion: 'HTTP/1.1',
      headers,
      queryString: [...new URL(`${base}${pathAndQuery}`).searchParams].map(([name, value]) => ({ name, value })),
      cookies: [],
      headersSize: -1,
      bodySize: -1,
      ...(options.postData ? { postData: options.postData } : {}),
    },
    response: {
      status: res.status,
      statusText: res.statusText,
      httpVersion: 'HTTP/1.1',
      headers: responseHeaders,
      cookies: [],
      content: { size: text.length, mimeType: res.headers.get('content-type') ?? 'x-unknown' },
      redirectURL: location ? new URL(location, base).href : '',
      headersSize: -1,
      bodySize: -1,
    },
    cache: {},
    timings: { send: 0, wait: 1, receive: 0 },
  };
}

describe('assay import har (CLI, real API and worker)', function () {
  this.timeout(180_000);
  let app: TestApp;
  let server: Awaited<ReturnType<typeof startServer>>;
  let dir: string;
  let harFile: string;

  before(async () => {
    [app, server] = await Promise.all([startTestApp({ worker: true }), startServer()]);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-har-'));
    fs.mkdirSync(path.join(dir, 'files'));
    fs.writeFileSync(path.join(dir, 'files', 'avatar.png'), AVATAR);
    const auth: Pair[] = [
      { name: 'authorization', value: TOKEN },
      { name: 'cookie', value: COOKIE },
    ];
    const base = server.url;
    const form = new FormData();
    form.append('title', 'Me');
    form.append('avatar', new Blob([AVATAR], { type: 'image/png' }), 'avatar.png');
    const entries = [
      await record(base, 'POST', '/login', {
        headers: [{ name: 'content-type', value: 'application/x-www-form-urlencoded' }],
        body: 'user=ada&pass=x',
        postData: { mimeType: 'application/x-www-form-urlencoded', text: 'user=ada&pass=x' },
      }),
      await record(base, 'GET', '/items?limit=2', { headers: auth }),
      await record(base, 'POST', '/items', {
        headers: [...auth, { name: 'content-type', value: 'application/json' }],
        body: '{"name":"Lamp"}',
        postData: { mimeType: 'application/json', text: '{"name":"Lamp"}' },
      }),
      await record(base, 'GET', '/old', { headers: auth }),
      await record(base, 'GET', '/items?from=old', { headers: auth }),
      await record(base, 'POST', '/upload', {
        headers: [...auth, { name: 'content-type', value: 'multipart/form-data; boundary=----WebKitFormBoundaryX' }],
        body: form,
        postData: {
          mimeType: 'multipart/form-data; boundary=----WebKitFormBoundaryX',
          params: [
            { name: 'title', value: 'Me' },
            { name: 'avatar', fileName: 'avatar.png', contentType: 'image/png' },
          ],
        },
      }),
      await record(base, 'GET', '/logo.png'),
    ];
    expect(entries.map((e: any) => e.response.status)).to.deep.equal([200, 200, 201, 302, 200, 201, 200]);
    harFile = path.join(dir, 'shop.har');
    fs.writeFileSync(
      harFile,
      JSON.stringify({
        log: { version: '1.2', creator: { name: 'WebInspector', version: '537.36' }, pages: [], entries },
      }),
    );
  });
  after(async () => {
    await server?.close();
    await app?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const stored = async () => (await app.request('GET', '/v1/test-cases?folder=har-shop')).body.items as any[];

  it('--strict with a multipart file it cannot carry exits 2 and stores nothing', async () => {
    const r = await runCli(
      [
        'import',
        'har',
        harFile,
        '--name',
        'Shop visit',
        '--folder',
        'har-shop',
        '--environment',
        'har-env',
        '--strict',
        '--json',
      ],
      { app, cwd: dir },
    );
    expect(r.code, r.stderr).to.equal(2);
    const report = JSON.parse(r.stdout);
    expect(report.stored).to.equal(false);
    expect(report.testCase.action).to.equal('not stored');
    expect(report.entries[5].notCarried).to.deep.equal([
      'multipart part "avatar": file avatar.png: a HAR holds no file bytes (pass --files-dir with the file)',
    ]);
    expect(r.stderr).to.match(/--strict: 1 entries were not carried in full; nothing was saved/);
    expect(await stored()).to.deep.equal([]);
    expect((await app.request('GET', '/v1/environments/har-env')).status).to.equal(404);
    expect((await app.request('GET', '/v1/files')).body.items).to.deep.equal([]);
  });

  it('imports one test case, the environment with base and secret credentials, and uploads the recorded file', async () => {
    const r = await runCli(
      [
        'import',
        'har',
        harFile,
        '--name',
        'Shop visit',
        '--folder',
        'har-shop',
        '--environment',
        'har-env',
        '--exclude-static',
        '--files-dir',
        'files',
        '--strict',
        '--json',
      ],
      { app, cwd: dir },
    );
    expect(r.code, r.stderr).to.equal(0);
    const report = JSON.parse(r.stdout);
    expect(report.counts).to.deep.equal({
      entries: 7,
      imported: 5,
      redirects: 1,
      static: 1,
      otherHosts: 0,
      cut: 0,
      skipped: 0,
      notCarried: 0,
    });
    expect(report.entries.map((e: any) => e.outcome)).to.deep.equal([
      'imported',
      'imported',
      'imported',
      'imported',
      'redirect',
      'imported',
      'static',
    ]);
    expect(report.testCase).to.include({ action: 'created', nodes: 5 });
    expect(report.environment).to.deep.equal({ name: 'har-env', action: 'created' });
    expect(report.variables.map((v: any) => `${v.name} ${v.secret}`)).to.deep.equal([
      'base false',
      'authorization true',
      'cookie true',
    ]);
    expect(report.files).to.deep.equal([
      { fileName: 'avatar.png', file: 'avatar.png', entries: [6], action: 'created', size: AVATAR.length },
    ]);
    expect(r.stderr).to.match(
      /Redirects recorded as separate entries: the first request of each is kept with followRedirects/,
    );
    // Nothing of the secrets in the output either.
    expect(r.stdout + r.stderr).to.not.include('SECRET');

    const [tc] = await stored();
    const got = await app.request('GET', `/v1/test-cases/${tc.id}`);
    const text = JSON.stringify(got.body);
    expect(text).to.not.include('tok-SECRET-4711');
    expect(text).to.not.include('cookie-SECRET-0815');
    const flow = got.body.flow as any[];
    expect(flow.map((n) => `${n.name} ${n.request.url}`)).to.deep.equal([
      'POST /login {{base}}/login',
      'GET /items {{base}}/items?limit=2',
      'POST /items {{base}}/items',
      'GET /old {{base}}/old',
      'POST /upload {{base}}/upload',
    ]);
    expect(flow[1].request.headers).to.deep.equal({ authorization: '{{authorization}}', cookie: '{{cookie}}' });
    expect(flow[3].request.followRedirects).to.equal(true);
    expect(flow[3].assertions).to.deep.equal([{ target: 'response.status', operator: 'equals', expected: 200 }]);
    expect(flow[4].request.multipart).to.deep.equal([
      { name: 'title', value: 'Me' },
      { name: 'avatar', file: 'avatar.png', filename: 'avatar.png', contentType: 'image/png' },
    ]);
    const env = await app.request('GET', '/v1/environments/har-env');
    expect(env.body.variables).to.deep.equal({
      base: server.url,
      authorization: { secret: true, value: '***' },
      cookie: { secret: true, value: '***' },
    });
    const file = await app.request('GET', '/v1/files/avatar.png');
    expect(file.body).to.include({ size: AVATAR.length, contentType: 'image/png' });
  });

  it('assay run passes against the server, sending the credentials, the bodies and the file', async () => {
    expect((await app.request('POST', '/v1/runners', { name: 'har', folder: 'har-shop' })).status).to.equal(201);
    server.seen.length = 0;
    const r = await runCli(['run', '--runner', 'har', '--env', 'har-env', '--wait', '--poll-interval', '0.2'], {
      app,
      cwd: dir,
    });
    const runId = /Run (run_[A-Za-z0-9]+)/.exec(r.stderr)?.[1];
    const results = runId ? await app.request('GET', `/v1/runs/${runId}/results`) : undefined;
    expect(r.code, r.stdout + r.stderr + JSON.stringify(results?.body?.details?.testCases?.[0]?.failures)).to.equal(0);
    expect(server.seen.map((s) => `${s.method} ${s.url}`)).to.deep.equal([
      'POST /login',
      'GET /items?limit=2',
      'POST /items',
      'GET /old',
      'GET /items?from=old',
      'POST /upload',
    ]);
    for (const s of server.seen.slice(1)) {
      expect(s.headers.authorization).to.equal(TOKEN);
      expect(s.headers.cookie).to.equal(COOKIE);
      expect(s.headers['user-agent'] ?? '').to.not.include('Chrome/126');
      expect(s.headers).to.not.have.property('sec-fetch-mode');
    }
    expect(server.seen[0]!.body.toString()).to.equal('user=ada&pass=x');
    expect(server.seen[0]!.headers['content-type']).to.equal('application/x-www-form-urlencoded');
    expect(JSON.parse(server.seen[2]!.body.toString())).to.deep.equal({ name: 'Lamp' });
    expect(server.seen[5]!.body.includes(AVATAR)).to.equal(true);
  });

  it('importing again changes nothing and makes no duplicate', async () => {
    const before = await stored();
    const r = await runCli(
      [
        'import',
        'har',
        harFile,
        '--name',
        'Shop visit',
        '--folder',
        'har-shop',
        '--exclude-static',
        '--files-dir',
        'files',
        '--json',
      ],
      { app, cwd: dir },
    );
    expect(r.code, r.stderr).to.equal(0);
    expect(JSON.parse(r.stdout).testCase).to.include({ action: 'unchanged', id: before[0].id });
    expect((await stored()).map((t) => t.id)).to.deep.equal(before.map((t) => t.id));
    expect(r.stderr).to.match(/Set these variables in the environment you run it with/);
  });

  it('the public fixtures import with --dry-run, and their reports count what was carried', async () => {
    const dry = async (file: string, ...flags: string[]) => {
      const r = await runCli(
        ['import', 'har', path.join(FIXTURES, file), '--name', 'fixture', '--dry-run', '--json', ...flags],
        {
          env: { ASSAY_API_KEY: undefined },
          cwd: dir,
        },
      );
      expect(r.code, r.stderr).to.equal(0);
      return JSON.parse(r.stdout);
    };
    const chrome = await dry('mitmproxy-chrome.har');
    expect(chrome.counts).to.deep.include({ entries: 3, imported: 3, notCarried: 1 });
    expect(chrome.variables.map((v: any) => v.name)).to.deep.equal(['base', 'cookie']);
    const firefox = await dry('mitmproxy-firefox.har', '--exclude-static', '--include-host', 'mitmproxy.org');
    expect(firefox.counts).to.deep.include({ entries: 14, imported: 4, static: 9, otherHosts: 1, notCarried: 0 });
    const k6 = await dry('har-to-k6-multipart-formdata.har');
    expect(k6.counts).to.deep.include({ entries: 5, imported: 5, notCarried: 5 });
    const strict = await runCli(
      ['import', 'har', path.join(FIXTURES, 'mitmproxy-chrome.har'), '--name', 'f', '--dry-run', '--strict'],
      {
        env: { ASSAY_API_KEY: undefined },
        cwd: dir,
      },
    );
    expect(strict.code).to.equal(2);
    expect(strict.stderr).to.match(/not carried: status assertion: no response was recorded/);
  });

  it('refuses a HAR over 50 MiB, a file that is not a HAR, and one without a request', async () => {
    const big = path.join(dir, 'big.har');
    fs.writeFileSync(big, '');
    fs.truncateSync(big, 50 * 1024 * 1024 + 1);
    const r = await runCli(['import', 'har', big, '--name', 'x', '--dry-run'], { app, cwd: dir });
    expect(r.code).to.equal(2);
    expect(r.stderr).to.match(/big\.har is 50\.0 MiB; a HAR over 50\.0 MiB is not imported/);
    fs.writeFileSync(path.join(dir, 'not.har'), '{"log": {}}');
    const bad = await runCli(['import', 'har', 'not.har', '--name', 'x'], { app, cwd: dir });
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.match(/not\.har: not a HAR: "log\.entries" is not an array/);
    fs.writeFileSync(path.join(dir, 'empty.har'), '{"log": {"entries": []}}');
    const empty = await runCli(['import', 'har', 'empty.har', '--name', 'x'], { app, cwd: dir });
    expect(empty.code).to.equal(2);
    expect(empty.stderr).to.match(/empty\.har: no request to import \(0 entries\)/);
  });
});
