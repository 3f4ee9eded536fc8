/**
 * The console's relay, POST /v1/relay (api/routes/relay.ts, docs/api.md "Relay", docs/security.md "The console's relay"):
 * against real loopback servers it sends the request as given (headers in order with repeats,
 * exact body bytes), answers status, headers, body (base64 when binary), time and size, cuts at
 * ASSAY_MAX_RESPONSE_BYTES; the address policy refuses what it refuses for API nodes; failures are
 * problems (400 naming the field, 403, 502, 413, 429); and nothing of a relayed exchange is stored
 * or logged.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import zlib from 'node:zlib';
import { expect } from 'chai';
import pino from 'pino';
import type { DataSource } from 'typeorm';
import { startTestApp, type Reply, type TestApp } from '../../helpers/app';
import { startApi, type ApiHandle } from '../../../bin/processes';
import { policyFromConfig } from '../../../src/net/address-policy';

/** What the relay target saw of one request. */
interface Seen {
  method: string;
  url: string;
  rawHeaders: string[];
  body: Buffer;
}

/** Bytes 0..255 four times: not UTF-8. */
const BINARY = Buffer.from(Array.from({ length: 1024 }, (_, i) => i % 256));

/**
 * A loopback server for the relay to reach. Routes: `/raw` records the request and answers 201
 * "Made It" with repeated headers; `/binary` answers {@link BINARY}; `/big?bytes=N` N bytes of
 * text; `/slow?ms=N` waits; `/reset` cuts the connection without answering; `/redirect` 302 to
 * `/raw`; `/text` UTF-8 text with a BOM; `/gzip` JSON gzipped, `/gzip-big?bytes=N` N bytes of
 * text gzipped.
 */
async function startRelayTarget(): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        rawHeaders: req.rawHeaders,
        body: Buffer.concat(chunks),
      });
      if (url.pathname === '/raw') {
        res.writeHead(201, 'Made It', [
          ['Content-Type', 'application/json'],
          ['X-Multi', 'one'],
          ['Set-Cookie', 'a=1'],
          ['X-Multi', 'two'],
          ['Set-Cookie', 'b=2'],
        ]);
        res.end(JSON.stringify({ ok: true, received: chunks.reduce((n, c) => n + c.length, 0) }));
      } else if (url.pathname === '/binary') {
        res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(BINARY);
      } else if (url.pathname === '/big') {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(Number(url.searchParams.get('bytes'))));
      } else if (url.pathname === '/slow') {
        const t = setTimeout(
          () => {
            timers.delete(t);
            res.writeHead(200, { 'content-type': 'text/plain' }).end('late');
          },
          Number(url.searchParams.get('ms')),
        );
        timers.add(t);
      } else if (url.pathname === '/reset') {
        req.socket.destroy();
      } else if (url.pathname === '/redirect') {
        res.writeHead(302, { location: '/raw?from=redirect' }).end();
      } else if (url.pathname === '/gzip') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(zlib.gzipSync(JSON.stringify({ zipped: true })));
      } else if (url.pathname === '/gzip-big') {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
        res.end(zlib.gzipSync('y'.repeat(Number(url.searchParams.get('bytes')))));
      } else if (url.pathname === '/text') {
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('\ufeffhéllo ✓');
      } else {
        res.writeHead(404).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: async () => {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Rows in every table of the app's database, by table. */
async function rowCounts(dataSource: DataSource): Promise<Record<string, number>> {
  const tables = (await dataSource.query(
    'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = DATABASE()',
  )) as Array<{ name: string }>;
  const counts: Record<string, number> = {};
  for (const { name } of tables) {
    const [row] = (await dataSource.query(`SELECT COUNT(*) AS n FROM \`${name}\``)) as Array<{ n: number | string }>;
    counts[name] = Number(row!.n);
  }
  return counts;
}

function expectProblem(res: Reply, status: number, code: string): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
  expect(res.body).to.include({ status, code, type: `/problems/${code}` });
}

/** The field errors of a 400, by field. */
function fields(res: Reply): string[] {
  return (res.body.errors as Array<{ field: string }>).map((e) => e.field).sort();
}

describe('the console relay (POST /v1/relay)', function () {
  this.timeout(120_000);
  let app: TestApp;
  let target: Awaited<ReturnType<typeof startRelayTarget>>;
  const relay = (body: unknown, key?: string) => app.request('POST', '/v1/relay', body, key ? { key } : {});

  before(async () => {
    [app, target] = await Promise.all([startTestApp({ env: { ASSAY_RELAY_PER_MINUTE: '1000' } }), startRelayTarget()]);
  });
  after(async () => {
    await target?.close();
    await app?.stop();
  });

  it('relays a GET with its headers in order, a repeated header kept, and answers status, reason, headers, body, time and size', async () => {
    target.seen.length = 0;
    const res = await relay({
      method: 'GET',
      url: `${target.url}/raw?q=1`,
      headers: [
        ['Accept', 'application/json'],
        ['X-Twice', 'first'],
        ['Authorization', 'Bearer local-token'],
        ['x-twice', 'second'],
      ],
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.headers.get('cache-control')).to.equal('no-store');
    const seen = target.seen[0]!;
    expect(seen.method).to.equal('GET');
    expect(seen.url).to.equal('/raw?q=1');
    const sent = pairs(seen.rawHeaders).filter(([n]) => !['host', 'connection'].includes(n.toLowerCase()));
    expect(sent).to.deep.equal([
      ['Accept', 'application/json'],
      ['X-Twice', 'first'],
      ['Authorization', 'Bearer local-token'],
      ['x-twice', 'second'],
    ]);
    expect(res.body).to.include({ status: 201, statusText: 'Made It', bodyEncoding: 'utf8', truncated: false });
    expect(JSON.parse(res.body.body)).to.deep.equal({ ok: true, received: 0 });
    expect(res.body.size).to.equal(Buffer.byteLength(res.body.body));
    expect(res.body.timeMs).to.be.a('number').and.to.be.greaterThan(0);
    const headers = res.body.headers as Array<[string, string]>;
    expect(headers.filter(([n]) => n === 'X-Multi')).to.deep.equal([
      ['X-Multi', 'one'],
      ['X-Multi', 'two'],
    ]);
    expect(headers.filter(([n]) => n === 'Set-Cookie').map(([, v]) => v)).to.deep.equal(['a=1', 'b=2']);
    expect(headers.find(([n]) => n === 'Content-Type')).to.deep.equal(['Content-Type', 'application/json']);
  });

  it('sends a base64 multipart body byte for byte with its content type', async () => {
    target.seen.length = 0;
    const boundary = '----assay7e3';
    const multipart = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhéllo\r\n`),
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="b.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      ),
      BINARY,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const contentType = `multipart/form-data; boundary=${boundary}`;
    const res = await relay({
      method: 'POST',
      url: `${target.url}/raw`,
      headers: [['Content-Type', contentType]],
      body: multipart.toString('base64'),
      bodyEncoding: 'base64',
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const seen = target.seen[0]!;
    expect(seen.method).to.equal('POST');
    expect(seen.body.equals(multipart)).to.equal(true);
    const received = Object.fromEntries(pairs(seen.rawHeaders).map(([n, v]) => [n.toLowerCase(), v]));
    expect(received['content-type']).to.equal(contentType);
    expect(received['content-length']).to.equal(String(multipart.length));
    expect(JSON.parse(res.body.body)).to.deep.equal({ ok: true, received: multipart.length });
  });

  it('sends a text body as UTF-8 with the methods PUT, PATCH, DELETE and OPTIONS', async () => {
    for (const method of ['PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      target.seen.length = 0;
      const res = await relay({
        method,
        url: `${target.url}/raw`,
        headers: [['Content-Type', 'text/plain; charset=utf-8']],
        body: 'grüße ✓',
      });
      expect(res.status, `${method} ${JSON.stringify(res.body)}`).to.equal(200);
      expect(target.seen[0]!.method).to.equal(method);
      expect(target.seen[0]!.body.toString('utf8')).to.equal('grüße ✓');
    }
  });

  it('HEAD answers the status and headers with an empty body', async () => {
    const res = await relay({ method: 'HEAD', url: `${target.url}/raw` });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.include({ status: 201, body: '', size: 0, truncated: false });
  });

  it('does not copy Host, Content-Length or hop-by-hop headers (nor those Connection names); the client sets them', async () => {
    target.seen.length = 0;
    const res = await relay({
      method: 'POST',
      url: `${target.url}/raw`,
      headers: [
        ['Host', 'evil.example'],
        ['Content-Length', '999'],
        ['Connection', 'close, X-Drop-Me'],
        ['X-Drop-Me', 'gone'],
        ['Keep-Alive', 'timeout=1'],
        ['Transfer-Encoding', 'chunked'],
        ['TE', 'trailers'],
        ['Upgrade', 'h2c'],
        ['Expect', '100-continue'],
        ['X-Kept', 'yes'],
      ],
      body: 'abc',
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const received = pairs(target.seen[0]!.rawHeaders).map(([n, v]) => [n.toLowerCase(), v]);
    const byName = Object.fromEntries(received);
    expect(byName.host).to.equal(new URL(target.url).host);
    expect(byName['content-length']).to.equal('3');
    expect(byName['x-kept']).to.equal('yes');
    for (const name of ['x-drop-me', 'keep-alive', 'transfer-encoding', 'te', 'upgrade', 'expect'])
      expect(byName, name).to.not.have.property(name);
    expect(received.filter(([n]) => n === 'host')).to.have.length(1);
  });

  it('answers a binary body as base64 and a UTF-8 one as text (BOM kept)', async () => {
    const binary = await relay({ method: 'GET', url: `${target.url}/binary` });
    expect(binary.body).to.include({ status: 200, bodyEncoding: 'base64', size: BINARY.length, truncated: false });
    expect(Buffer.from(binary.body.body, 'base64').equals(BINARY)).to.equal(true);
    const text = await relay({ method: 'GET', url: `${target.url}/text` });
    expect(text.body).to.include({
      bodyEncoding: 'utf8',
      body: '\ufeffhéllo ✓',
      size: Buffer.byteLength('\ufeffhéllo ✓'),
    });
  });

  it('decodes a gzip body as the browser would, says so, and cuts it by its decoded size', async () => {
    const res = await relay({ method: 'GET', url: `${target.url}/gzip` });
    expect(res.body).to.include({
      status: 200,
      body: '{"zipped":true}',
      bodyEncoding: 'utf8',
      contentEncoding: 'gzip',
      size: 15,
    });
    expect(res.body.headers).to.deep.include(['content-encoding', 'gzip']);
    const cap = app.config.runs.maxResponseBytes;
    const big = await relay({ method: 'GET', url: `${target.url}/gzip-big?bytes=${cap * 4}` });
    expect(big.body).to.include({ truncated: true, contentEncoding: 'gzip' });
    expect(big.body.body).to.equal('y'.repeat(cap));
  });

  it('cuts a response over ASSAY_MAX_RESPONSE_BYTES and says so', async () => {
    const cap = app.config.runs.maxResponseBytes;
    const res = await relay({ method: 'GET', url: `${target.url}/big?bytes=${cap + 50_000}` });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).to.equal(200);
    expect(res.body.truncated).to.equal(true);
    expect(res.body.body).to.have.length(cap);
    expect(res.body.size).to.be.greaterThan(cap);
    const whole = await relay({ method: 'GET', url: `${target.url}/big?bytes=${cap}` });
    expect(whole.body).to.include({ truncated: false, size: cap });
  });

  it('follows a redirect as the browser would, answering the final response', async () => {
    target.seen.length = 0;
    const res = await relay({ method: 'GET', url: `${target.url}/redirect` });
    expect(res.body).to.include({ status: 201, statusText: 'Made It' });
    expect(target.seen.map((s) => s.url)).to.deep.equal(['/redirect', '/raw?from=redirect']);
    expect((res.body.headers as Array<[string, string]>).filter(([n]) => n === 'X-Multi')).to.have.length(2);
  });

  it("refuses the API's own port, the Temporal frontend and cloud metadata as it does for API nodes, in any spelling, and sends nothing", async () => {
    const probes: string[] = [];
    const onRequest = (req: http.IncomingMessage) => {
      if (req.url?.includes('relay-probe')) probes.push(req.url);
    };
    app.api.server.on('request', onRequest);
    const apiPort = Number(new URL(app.url).port);
    const temporalPort = Number(app.config.temporal.address.split(':').pop());
    const policy = policyFromConfig(app.config);
    try {
      for (const url of [
        `http://127.0.0.1:${apiPort}/v1/relay-probe`,
        `http://localhost:${apiPort}/v1/relay-probe`,
        `http://2130706433:${apiPort}/relay-probe`,
        `http://[::ffff:127.0.0.1]:${apiPort}/relay-probe`,
        `http://127.0.0.1:${temporalPort}/relay-probe`,
        'http://169.254.169.254/latest/meta-data/relay-probe',
      ]) {
        const res = await relay({
          method: 'POST',
          url,
          headers: [['Content-Type', 'application/json']],
          body: '{"run":true}',
        });
        expectProblem(res, 403, 'address-not-allowed');
        // The same policy and kind as API nodes: the refusal is the one it gives an API node's URL.
        const expected = await policy.checkUrl('node', url).then(
          () => expect.fail(`the policy allows ${url}`),
          (err: Error) => err.message,
        );
        expect(res.body.detail, url).to.equal(expected);
        expect(res.body).to.include({ errorCode: 'ADDRESS_NOT_ALLOWED' });
        expect(res.body.rule)
          .to.be.a('string')
          .and.to.match(/never reachable/);
        expect(res.body.port).to.be.a('number');
      }
    } finally {
      app.api.server.off('request', onRequest);
      await policy.close();
    }
    expect(probes).to.deep.equal([]);
  });

  it('answers 502 relay-failed with ECONNREFUSED when nothing listens, TIMEOUT past timeoutMs, and a code when the connection is cut', async () => {
    const port = await closedPort();
    const refused = await relay({ method: 'GET', url: `http://127.0.0.1:${port}/` });
    expectProblem(refused, 502, 'relay-failed');
    expect(refused.body.errorCode).to.equal('ECONNREFUSED');
    expect(refused.body.detail).to.match(/^ECONNREFUSED: /);
    const started = Date.now();
    const slow = await relay({ method: 'GET', url: `${target.url}/slow?ms=5000`, timeoutMs: 300 });
    expectProblem(slow, 502, 'relay-failed');
    expect(slow.body.errorCode).to.equal('TIMEOUT');
    expect(slow.body.detail).to.equal('TIMEOUT: no complete response within 300 ms.');
    expect(Date.now() - started).to.be.below(4000);
    const cut = await relay({ method: 'GET', url: `${target.url}/reset` });
    expectProblem(cut, 502, 'relay-failed');
    expect(cut.body.errorCode).to.be.oneOf(['UND_ERR_SOCKET', 'ECONNRESET']);
  });

  it('names each invalid field: method, unknown fields, header shape, timeoutMs over ASSAY_REQUEST_TIMEOUT_MS, missing url', async () => {
    const res = await relay({
      method: 'FETCH',
      headers: [['only-a-name']],
      timeoutMs: app.config.runs.requestTimeoutMs + 1,
      bodyEncoding: 'hex',
      extra: 1,
    });
    expectProblem(res, 400, 'validation-failed');
    expect(fields(res)).to.deep.equal(['bodyEncoding', 'extra', 'headers[0]', 'method', 'timeoutMs', 'url']);
    const lower = await relay({ method: 'get', url: `${target.url}/raw` });
    expect(fields(lower)).to.deep.equal(['method']);
  });

  it('names a URL that is not absolute http(s) or carries credentials, a bad header name or value, and bad base64', async () => {
    for (const url of ['/relative', 'ftp://example.com/x', 'not a url', 'http://user:pw@127.0.0.1/']) {
      const res = await relay({ method: 'GET', url });
      expectProblem(res, 400, 'validation-failed');
      expect(fields(res), url).to.deep.equal(['url']);
    }
    const res = await relay({
      method: 'POST',
      url: `${target.url}/raw`,
      headers: [
        ['Good', 'ok'],
        ['bad name', 'ok'],
        ['X-Split', 'a\r\nInjected: yes'],
        ['', 'x'],
      ],
      body: 'not base64!',
      bodyEncoding: 'base64',
    });
    expectProblem(res, 400, 'validation-failed');
    expect(fields(res)).to.deep.equal(['body', 'headers[1][0]', 'headers[2][1]', 'headers[3][0]']);
  });

  it('answers 413 for a body over ASSAY_MAX_BODY_BYTES', async () => {
    const res = await relay({
      method: 'POST',
      url: `${target.url}/raw`,
      body: 'x'.repeat(app.config.api.maxBodyBytes + 1),
    });
    expectProblem(res, 413, 'payload-too-large');
  });

  it('needs a run-scope key: a read key gets 403 forbidden, a run key is relayed', async () => {
    const read = await app.issueKey('read');
    const refused = await relay({ method: 'GET', url: `${target.url}/raw` }, read);
    expectProblem(refused, 403, 'forbidden');
    expect(refused.body.scopeNeeded).to.equal('run');
    const run = await app.issueKey('run');
    expect((await relay({ method: 'GET', url: `${target.url}/raw` }, run)).body.status).to.equal(201);
  });

  describe('keeps nothing', () => {
    let api: ApiHandle;
    const lines: string[] = [];
    const SECRET = 'relay-secret-5f1d0c9a';

    before(async () => {
      const sink = new Writable({
        write(chunk: Buffer, _enc, done) {
          lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
          done();
        },
      });
      // A second API on the same store whose logger (every level) writes here.
      api = await startApi(app.config, app.dataSource, pino({ level: 'trace' }, sink));
    });
    after(async () => {
      await api?.close();
    });

    it('stores no row and logs no URL, header or body of relayed exchanges, failed ones included', async () => {
      expect(
        lines.some((l) => l.includes('API listening')),
        'the capture sees the API log',
      ).to.equal(true);
      const before = await rowCounts(app.dataSource);
      expect(Object.keys(before).length).to.be.greaterThan(5);
      const post = async (body: unknown, raw?: string) => {
        const res = await fetch(`${api.url}/v1/relay`, {
          method: 'POST',
          headers: { authorization: `Bearer ${app.key}`, 'content-type': 'application/json' },
          body: raw ?? JSON.stringify(body),
        });
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      };
      const apiPort = Number(new URL(api.url).port);
      const port = await closedPort();
      const secretHeaders = [
        ['Authorization', `Bearer ${SECRET}`],
        ['X-Secret', SECRET],
      ];
      const output: string[] = [];
      const writes = { out: process.stdout.write.bind(process.stdout), err: process.stderr.write.bind(process.stderr) };
      const capture = (write: typeof process.stdout.write) =>
        ((chunk: string | Uint8Array, ...rest: never[]) => {
          output.push(String(chunk));
          return write(chunk, ...rest);
        }) as typeof process.stdout.write;
      process.stdout.write = capture(writes.out);
      process.stderr.write = capture(writes.err);
      const statuses: number[] = [];
      try {
        for (const [body, raw] of [
          [{ method: 'POST', url: `${target.url}/raw?token=${SECRET}`, headers: secretHeaders, body: SECRET }],
          [
            {
              method: 'POST',
              url: `${target.url}/binary?token=${SECRET}`,
              headers: secretHeaders,
              body: Buffer.from(SECRET).toString('base64'),
              bodyEncoding: 'base64',
            },
          ],
          [{ method: 'GET', url: `http://127.0.0.1:${apiPort}/v1/workspaces?token=${SECRET}`, headers: secretHeaders }],
          [{ method: 'GET', url: `http://127.0.0.1:${port}/?token=${SECRET}`, headers: secretHeaders }],
          [
            {
              method: 'GET',
              url: `${target.url}/slow?ms=3000&token=${SECRET}`,
              headers: secretHeaders,
              timeoutMs: 100,
            },
          ],
          [{ method: 'PUT', url: `${target.url}/reset?token=${SECRET}`, headers: secretHeaders, body: SECRET }],
          [{ method: 'GET', url: `ftp://${SECRET}/`, headers: [[`bad ${SECRET}`, `v\n${SECRET}`]] }],
          [undefined, `{"method":"GET","url":"http://x/${SECRET}",`],
        ] as Array<[unknown, string?]>) {
          statuses.push((await post(body, raw)).status);
        }
      } finally {
        process.stdout.write = writes.out;
        process.stderr.write = writes.err;
      }
      expect(statuses).to.deep.equal([200, 200, 403, 502, 502, 502, 400, 400]);
      expect(await rowCounts(app.dataSource)).to.deep.equal(before);
      const logged = [...lines, ...output].join('\n');
      expect(logged).to.not.contain(SECRET);
      expect(logged).to.not.contain(target.url.replace('http://', '') + '/raw');
    });
  });
});

describe('the console relay under its limits (ASSAY_RELAY_PER_MINUTE=3, ASSAY_EGRESS_PRIVATE_FOR_NODES=false)', function () {
  this.timeout(120_000);
  let limited: TestApp;
  let closed: TestApp;
  let target: Awaited<ReturnType<typeof startRelayTarget>>;

  before(async () => {
    [limited, closed, target] = await Promise.all([
      startTestApp({ env: { ASSAY_RELAY_PER_MINUTE: '3' } }),
      startTestApp({ env: { ASSAY_EGRESS_PRIVATE_FOR_NODES: 'false' } }),
      startRelayTarget(),
    ]);
  });
  after(async () => {
    await target?.close();
    await limited?.stop();
    await closed?.stop();
  });

  it('the fourth relay of a key within a minute is 429 rate-limited with Retry-After; other keys and endpoints go on', async () => {
    const key = await limited.issueKey('run');
    const call = (k: string) =>
      limited.request('POST', '/v1/relay', { method: 'GET', url: `${target.url}/raw` }, { key: k });
    for (const remaining of [2, 1, 0]) {
      const res = await call(key);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.headers.get('ratelimit-limit')).to.equal('3');
      expect(res.headers.get('ratelimit-remaining')).to.equal(String(remaining));
    }
    const fourth = await call(key);
    expectProblem(fourth, 429, 'rate-limited');
    const retryAfter = Number(fourth.headers.get('retry-after'));
    expect(retryAfter).to.be.within(1, 60);
    expect(fourth.body.retryAfter).to.equal(retryAfter);
    expect(fourth.headers.get('ratelimit-limit')).to.equal('3');
    expect(fourth.headers.get('ratelimit-remaining')).to.equal('0');
    expect(fourth.body.detail).to.contain('ASSAY_RELAY_PER_MINUTE');
    // The limit is the relay's, per key: the key still reads, another key still relays.
    expect((await limited.request('GET', '/v1/workspaces', undefined, { key })).status).to.equal(200);
    expect((await call(await limited.issueKey('run'))).status).to.equal(200);
  });

  it('follows the API nodes switch: with ASSAY_EGRESS_PRIVATE_FOR_NODES=false a loopback target is refused', async () => {
    target.seen.length = 0;
    const res = await closed.request('POST', '/v1/relay', { method: 'GET', url: `${target.url}/raw` });
    expectProblem(res, 403, 'address-not-allowed');
    expect(res.body.rule).to.contain('ASSAY_EGRESS_PRIVATE_FOR_NODES');
    expect(res.body.address).to.equal('127.0.0.1');
    expect(target.seen).to.deep.equal([]);
  });
});

/** `[name, value, name, value, …]` → pairs. */
function pairs(raw: string[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (let i = 0; i + 1 < raw.length; i += 2) out.push([raw[i]!, raw[i + 1]!]);
  return out;
}
