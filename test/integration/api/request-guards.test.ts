/**
 * Guards in front of every request (docs/security.md "Failed authentication and unreadable requests", docs/api.md):
 * client-chosen request ids are bounded, unreadable requests and cut connections log one line and
 * get a problem answer, and failed authentication is limited per client address.
 */
import http from 'node:http';
import net from 'node:net';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import pino from 'pino';
import { startTestApp, type TestApp } from '../../helpers/app';
import { startApi, type ApiHandle } from '../../../bin/processes';

/** Sends raw bytes on a fresh connection, then reads until the server closes it (or `endAfter` ends the client side). */
function rawExchange(port: number, bytes: string, options: { halfClose?: boolean } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (answer += d));
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
    socket.setTimeout(10_000, () => socket.destroy(new Error('no close within 10 s')));
    socket.write(bytes, () => {
      if (options.halfClose) socket.end();
    });
  });
}

/** GET `url` from the local address `localAddress` (any of 127.0.0.0/8 works on loopback). */
function getFrom(
  localAddress: string,
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: any }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { localAddress, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : undefined }),
      );
    });
    req.on('error', reject);
  });
}

describe('request guards', function () {
  this.timeout(60_000);
  let app: TestApp;

  before(async () => {
    app = await startTestApp();
  });
  after(async () => {
    await app?.stop();
  });

  describe('X-Request-Id', () => {
    it('keeps a client id of 1–128 characters of [A-Za-z0-9._:-]', async () => {
      for (const id of ['a', 'req-1.2_3:4', 'x'.repeat(128)]) {
        const res = await app.request('GET', '/healthz', undefined, { headers: { 'x-request-id': id } });
        expect(res.headers.get('x-request-id')).to.equal(id);
      }
    });

    it('replaces a longer id or one with other characters by a generated one', async () => {
      for (const id of ['x'.repeat(129), 'a b', 'a/b', '<script>', 'é', 'a"b', 'x'.repeat(10_000)]) {
        const res = await app.request('GET', '/v1/environments', undefined, {
          key: null,
          headers: { 'x-request-id': id },
        });
        const echoed = res.headers.get('x-request-id')!;
        expect(echoed, id.slice(0, 20)).to.not.equal(id);
        expect(echoed).to.match(/^[0-9a-f-]{36}$/);
        expect(res.body.instance).to.equal(`urn:assay:request:${echoed}`);
      }
    });
  });

  describe('unreadable requests and cut connections', () => {
    let api: ApiHandle;
    const lines: string[] = [];

    before(async () => {
      const sink = new Writable({
        write(chunk: Buffer, _enc, done) {
          lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
          done();
        },
      });
      api = await startApi(app.config, app.dataSource, pino({ level: 'debug' }, sink));
    });
    after(async () => {
      await api?.close();
    });

    function port(): number {
      return Number(new URL(api.url).port);
    }

    function logged(): Array<Record<string, unknown>> {
      return lines
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => l.msg === 'client connection error');
    }

    it('a request that is not HTTP gets 400 malformed-request as problem+json and one log line, no stack', async () => {
      lines.length = 0;
      const answer = await rawExchange(port(), 'NOT HTTP AT ALL\r\n\r\n');
      expect(answer).to.match(/^HTTP\/1\.1 400 /);
      expect(answer).to.match(/content-type: application\/problem\+json/i);
      expect(answer).to.match(/connection: close/i);
      const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
      expect(body).to.include({ status: 400, code: 'malformed-request', type: '/problems/malformed-request' });
      const entries = logged();
      expect(entries).to.have.length(1);
      expect(entries[0]!.code).to.match(/^HPE_/);
      expect(entries[0]!.level).to.equal(30); // info
      expect(lines.join('\n')).to.not.match(/\n\s+at /);
      expect(JSON.stringify(entries[0])).to.not.contain('    at ');
    });

    async function cutConnections(): Promise<void> {
      await rawExchange(port(), 'GET /v1/environments HTTP/1.1\r\nHost: x\r\nX-Half', { halfClose: true });
      await rawExchange(
        port(),
        'POST /v1/environments HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"na',
        { halfClose: true },
      );
      await rawExchange(
        port(),
        `POST /mock/${app.workspaceId}/x HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"na`,
        { halfClose: true },
      );
      await rawExchange(
        port(),
        'POST /v1/environments HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZZ\r\n',
        { halfClose: true },
      );
    }

    it('a connection cut in the middle of the headers or the body logs at most one line and no stack', async () => {
      lines.length = 0;
      // Koa's default error listener would print a stack to stderr: watch it too.
      const stderr: string[] = [];
      const write = process.stderr.write.bind(process.stderr);
      process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
        stderr.push(String(chunk));
        return write(chunk, ...rest);
      }) as typeof process.stderr.write;
      try {
        await cutConnections();
      } finally {
        process.stderr.write = write;
      }
      expect(stderr.join('')).to.not.match(/Parse Error|\n\s+at /);
      // Every log line is one JSON line without a stack.
      for (const line of lines) {
        expect(line, line).to.not.match(/\\n\s+at /);
        expect(line).to.not.contain('Parse Error:\n');
      }
      for (const entry of logged()) expect([20, 30]).to.include(entry.level); // debug or info
      // The server still answers.
      expect((await fetch(`${api.url}/healthz`)).status).to.equal(200);
    });
  });

  describe('failed authentication per client address', () => {
    let limited: TestApp;
    before(async () => {
      limited = await startTestApp({ env: { ASSAY_AUTH_FAILURES_PER_MINUTE: '5' } });
    });
    after(async () => {
      await limited?.stop();
    });

    it('after N failed authentications an address gets 429 with Retry-After before any key lookup; another address is unaffected', async () => {
      const url = `${limited.url}/v1/environments`;
      const bad = (n: number) => ({ authorization: `Bearer assay_guess_${n}` });
      for (let i = 0; i < 5; i++) {
        const res = await getFrom('127.0.0.1', url, i === 2 ? {} : bad(i)); // a missing header counts too
        expect(res.status, JSON.stringify(res.body)).to.equal(401);
      }
      const refused = await getFrom('127.0.0.1', url, bad(99));
      expect(refused.status).to.equal(429);
      expect(refused.headers['content-type']).to.match(/^application\/problem\+json/);
      expect(refused.body).to.include({ code: 'auth-rate-limited', status: 429 });
      const retryAfter = Number(refused.headers['retry-after']);
      expect(retryAfter).to.be.within(1, 60);
      // X-Forwarded-For is chosen by the client: it does not move the count to another address.
      expect((await getFrom('127.0.0.1', url, { ...bad(100), 'x-forwarded-for': '203.0.113.9' })).status).to.equal(429);
      // Refused before the lookup: even a good key from this address waits for the window.
      expect((await getFrom('127.0.0.1', url, { authorization: `Bearer ${limited.key}` })).status).to.equal(429);
      // Another client address (127.0.0.2 on loopback) is not affected, with a good key or a bad one.
      const other = await getFrom('127.0.0.2', url, { authorization: `Bearer ${limited.key}` });
      expect(other.status, JSON.stringify(other.body)).to.equal(200);
      expect((await getFrom('127.0.0.2', url, bad(101))).status).to.equal(401);
    });

    it('successful authentications do not count', async () => {
      for (let i = 0; i < 12; i++) {
        expect(
          (await getFrom('127.0.0.3', `${limited.url}/v1/environments`, { authorization: `Bearer ${limited.key}` }))
            .status,
        ).to.equal(200);
      }
    });
  });
});
