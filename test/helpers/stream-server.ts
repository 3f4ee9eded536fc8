/**
 * A loopback server for WebSocket and SSE nodes (docs/async.md "WebSocket and SSE"): one HTTP
 * server on 127.0.0.1 with
 *
 * - WebSocket `/ticks?n=5&ms=20&close=1`: sends `{"i":0}` … `{"i":n-1}` every `ms` ms, then closes
 *   (1000, "done") when `close=1`, else stays open;
 * - WebSocket `/echo`: first sends `{"hello": true, "protocol": <chosen>, "token": <x-token header>}`,
 *   then echoes every text message back; the first offered subprotocol is chosen;
 * - WebSocket `/forbidden`: the handshake answered 403;
 * - SSE `GET /events?n=3&ms=20&end=1`: events `id: k`, `event: tick`, `data: {"i":k}`, then the
 *   response ends when `end=1`;
 * - SSE `POST /chat`: the JSON body's `prompt` back word by word (`event: token`), then `event: done`;
 * - `/json`: a JSON answer (not an event stream).
 *
 * `handshakes` lists what each WebSocket handshake and SSE request carried.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';

export interface StreamServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** `ws://127.0.0.1:<port>` */
  wsUrl: string;
  handshakes: Array<{ path: string; method: string; headers: http.IncomingHttpHeaders; body?: string }>;
  close(): Promise<void>;
}

/** Starts the server on 127.0.0.1:`port` (default: a free port). */
export async function startStreamServer(port = 0): Promise<StreamServer> {
  const handshakes: StreamServer['handshakes'] = [];
  const timers = new Set<NodeJS.Timeout>();
  const every = (ms: number, n: number, tick: (i: number) => void, end: () => void) => {
    let i = 0;
    const next = () => {
      if (i >= n) return end();
      tick(i++);
      const t = setTimeout(next, ms);
      timers.add(t);
    };
    next();
  };
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      handshakes.push({ path: u.pathname, method: req.method ?? '', headers: req.headers, body });
      if (u.pathname === '/events') {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        res.write(': hello\n\n');
        every(
          Number(u.searchParams.get('ms') ?? 20),
          Number(u.searchParams.get('n') ?? 3),
          (i) => res.write(`id: ${i}\nevent: tick\ndata: {"i":${i}}\n\n`),
          () => (u.searchParams.get('end') === '1' ? res.end() : undefined),
        );
      } else if (u.pathname === '/chat' && req.method === 'POST') {
        const words = String((JSON.parse(body || '{}') as { prompt?: string }).prompt ?? '').split(' ');
        res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
        every(
          5,
          words.length,
          (i) => res.write(`event: token\ndata: ${words[i]}\n\n`),
          () => {
            res.write(`event: done\ndata: {"words":${words.length}}\n\n`);
          },
        );
      } else {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      }
    });
  });
  const wss = new WebSocketServer({ noServer: true, handleProtocols: (protocols) => [...protocols][0] ?? false });
  server.on('upgrade', (req, socket, head) => {
    const u = new URL(req.url ?? '/', 'http://x');
    handshakes.push({ path: u.pathname, method: req.method ?? '', headers: req.headers });
    if (u.pathname === '/forbidden') {
      socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      if (u.pathname === '/echo') {
        ws.send(JSON.stringify({ hello: true, protocol: ws.protocol, token: req.headers['x-token'] ?? null }));
        ws.on('message', (data, isBinary) => ws.send(data, { binary: isBinary }));
        return;
      }
      every(
        Number(u.searchParams.get('ms') ?? 20),
        Number(u.searchParams.get('n') ?? 5),
        (i) => ws.send(JSON.stringify({ i })),
        () => (u.searchParams.get('close') === '1' ? ws.close(1000, 'done') : undefined),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}`,
    wsUrl: `ws://127.0.0.1:${bound}`,
    handshakes,
    async close() {
      for (const t of timers) clearTimeout(t);
      for (const client of wss.clients) client.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
