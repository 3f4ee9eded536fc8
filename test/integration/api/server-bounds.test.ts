/**
 * Slow and greedy clients (src/net/server-bounds.ts, docs/security.md "Slow and greedy clients"):
 * with ASSAY_RECEIVE_TIMEOUT_MS=2000, 30 sockets that send a request body one byte every half
 * second are answered 408 `request-timeout` and closed (the time is counted from the request's
 * first byte; checked every second), as is a socket whose headers trickle in, while the API keeps
 * answering; an answer that takes longer than the receive time (a mock's 3 s delay) is not cut. With
 * ASSAY_MAX_CONNECTIONS_PER_ADDRESS=8, requests on the 9th and later connections from one address
 * are answered 429 `too-many-connections` with `Retry-After` and closed, never reaching the API,
 * and a connection is accepted again once one closes.
 */
import net from 'node:net';
import { expect } from 'chai';
import { eventually, startTestApp, type TestApp } from '../../helpers/app';

/** What came back on a raw socket before it closed, and when it closed (ms after `start`). */
interface Closed {
  text: string;
  closedAfterMs: number;
}

/**
 * Opens a socket to `url`, writes `head`, then `trickle` one byte every `everyMs` (at most
 * `maxBytes`: a bounded loop that stops by itself), and resolves when the server closes it.
 */
function slowClient(url: string, head: string, trickle: string, everyMs: number, maxBytes: number): Promise<Closed> {
  const { hostname, port } = new URL(url);
  const start = Date.now();
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let text = '';
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ text, closedAfterMs: Date.now() - start });
    });
    socket.on('connect', () => {
      socket.write(head);
      timer = setInterval(() => {
        if (sent >= maxBytes || socket.destroyed) {
          clearInterval(timer);
          if (!socket.destroyed) reject(new Error(`still open after ${maxBytes} bytes`));
          socket.destroy();
          return;
        }
        socket.write(trickle[sent % trickle.length]!);
        sent++;
      }, everyMs);
    });
  });
}

/** A keep-alive connection that made one request (kept open by the server for 65 s). */
function keptConnection(url: string, key: string): Promise<{ socket: net.Socket; status: number }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () =>
      socket.write(`GET /v1/environments HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`),
    );
    let text = '';
    socket.setEncoding('utf8');
    socket.on('error', reject);
    socket.on('data', (chunk: string) => {
      text += chunk;
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text);
      if (status) resolve({ socket, status: Number(status[1]) });
    });
  });
}

describe('slow and greedy clients', function () {
  this.timeout(60_000);

  describe('ASSAY_RECEIVE_TIMEOUT_MS', () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp({ env: { ASSAY_RECEIVE_TIMEOUT_MS: '2000' } });
    });
    after(async () => app?.stop());

    it('answers 30 bodies sent a byte every half second 408 and closes them, while the API keeps answering', async () => {
      const head =
        'POST /v1/environments HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
        `Authorization: Bearer ${app.key}\r\nContent-Length: 200\r\n\r\n`;
      const slow = Array.from({ length: 30 }, () => slowClient(app.url, head, '{"name": "slow"', 500, 40));
      const answered = await app.request('GET', '/healthz', undefined, { key: null });
      expect(answered.status).to.equal(200);
      const closed = await Promise.all(slow);
      for (const c of closed) {
        expect(c.text).to.match(/^HTTP\/1\.1 408 /);
        expect(c.text).to.include('"code":"request-timeout"');
        expect(c.text.toLowerCase()).to.include('connection: close');
        // 2 s from the first byte, checked every second; far below 40 bytes × 0.5 s.
        expect(c.closedAfterMs).to.be.below(15_000);
      }
      expect((await app.request('GET', '/v1/environments')).body.items).to.deep.equal([]);
    });

    it('closes a socket whose headers trickle in (408 once the headers time, a third of the receive time, is over)', async () => {
      const closed = await slowClient(app.url, 'GET /v1/environments HTTP/1.1\r\n', 'X-Slow: aaaaaaaa\r\n', 300, 100);
      expect(closed.text).to.match(/^HTTP\/1\.1 408 /);
      expect(closed.closedAfterMs).to.be.below(15_000);
    });

    it('does not cut an answer that takes longer than the receive time: a mock answering after 3 s', async () => {
      const design = await app.request('POST', '/v1/designs', {
        method: 'GET',
        path: '/late',
        responses: [{ status: 200, code: 1, data: { late: true }, delayMs: 3000 }],
      });
      expect(design.status, JSON.stringify(design.body)).to.equal(201);
      const started = Date.now();
      const res = await fetch(`${app.url}/mock/${app.workspaceId}/late`);
      expect(res.status).to.equal(200);
      expect(await res.json()).to.deep.equal({ late: true });
      expect(Date.now() - started).to.be.at.least(3000);
    });
  });

  describe('ASSAY_MAX_CONNECTIONS_PER_ADDRESS', () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp({ env: { ASSAY_MAX_CONNECTIONS_PER_ADDRESS: '8' } });
    });
    after(async () => app?.stop());

    it('answers requests on connections past the bound 429 too-many-connections and closes them; a freed slot is taken again', async () => {
      const kept = await Promise.all(Array.from({ length: 8 }, () => keptConnection(app.url, app.key)));
      expect(kept.map((k) => k.status)).to.deep.equal(Array(8).fill(200));
      const environmentsBefore = await app.dataSource.query('SELECT COUNT(*) AS n FROM environments');
      const refused = await slowClient(
        app.url,
        'POST /v1/environments HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
          `Authorization: Bearer ${app.key}\r\nContent-Length: 15\r\n\r\n{"name":"over"}`,
        ' ',
        1000,
        30,
      );
      expect(refused.text).to.match(/^HTTP\/1\.1 429 /);
      expect(refused.text).to.include('"code":"too-many-connections"');
      expect(refused.text).to.match(/retry-after: 1/i);
      expect(await app.dataSource.query('SELECT COUNT(*) AS n FROM environments')).to.deep.equal(environmentsBefore);
      // One of the eight closes: the next connection is served.
      kept[0]!.socket.destroy();
      await new Promise((resolve) => kept[0]!.socket.once('close', resolve));
      // (The server sees the close a moment after the client: a refused try closes by itself.)
      const again = await eventually(async () => {
        const tried = await keptConnection(app.url, app.key);
        if (tried.status === 200) return tried;
        tried.socket.destroy();
        return undefined;
      }, 5000);
      expect(again.status).to.equal(200);
      for (const k of [...kept.slice(1), again]) k.socket.destroy();
    });
  });
});
