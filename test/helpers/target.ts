/**
 * A real HTTP server on loopback that test runs call. Routes:
 *
 *   GET  /users/{id}            200 {id, name, email} for ids 1..10, else 404 {error}
 *   GET  /status/{code}         answers with that status and {status}
 *   GET  /slow?ms=N             waits N ms, then 200 {waited: N}
 *   ANY  /echo                  200 {method, path, query, headers, body}
 *   GET  /big?kb=N              200 text/plain of N KiB
 *
 * It counts requests per path (`hits`) and can be closed.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Target {
  url: string;
  hits: Map<string, number>;
  close(): Promise<void>;
}

const NAMES = ['Ada', 'Grace', 'Edsger', 'Barbara', 'Donald', 'Frances', 'Ken', 'Radia', 'Tony', 'Margaret'];

export async function startTarget(): Promise<Target> {
  const hits = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const user = /^\/users\/(\d+)$/.exec(url.pathname);
      if (user) {
        const id = Number(user[1]);
        if (id >= 1 && id <= NAMES.length) return json(200, { id, name: NAMES[id - 1], email: `${NAMES[id - 1]!.toLowerCase()}@example.com` });
        return json(404, { error: 'not found' });
      }
      const status = /^\/status\/(\d{3})$/.exec(url.pathname);
      if (status) return json(Number(status[1]), { status: Number(status[1]) });
      if (url.pathname === '/slow') {
        const ms = Math.min(Number(url.searchParams.get('ms') ?? 100), 60_000);
        const t = setTimeout(() => {
          timers.delete(t);
          json(200, { waited: ms });
        }, ms);
        timers.add(t);
        return;
      }
      if (url.pathname === '/echo') {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          /* keep text */
        }
        return json(200, { method: req.method, path: url.pathname, query: Object.fromEntries(url.searchParams), headers: req.headers, body });
      }
      if (url.pathname === '/big') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end('x'.repeat(Number(url.searchParams.get('kb') ?? 1) * 1024));
      }
      json(404, { error: 'no route' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    async close() {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
