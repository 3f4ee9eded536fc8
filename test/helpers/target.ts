/**
 * A real HTTP server on loopback that test runs call. Routes:
 *
 *   GET  /users/{id}            200 {id, name, email} for ids 1..10, else 404 {error}
 *   GET  /status/{code}         answers with that status and {status}
 *   GET  /slow?ms=N             waits N ms, then 200 {waited: N}
 *   ANY  /echo                  200 {method, path, query, headers, body}
 *   GET  /big?kb=N              200 text/plain of N KiB
 *   GET  /deep?levels=N         200 JSON nested N levels deep ({"d":{"d":…1…}})
 *   GET  /flaky?key=K&fail=N    503 the first N times for key K, then 200 {attempt}
 *   GET  /libs/greeter.umd.js   a UMD library defining the global `Greeter`
 *   GET  /libs/greeter.esm.js   the same as an ES module (export)
 *
 * It counts requests per path (`hits`), the most requests in flight at once (`maxInFlight`), and
 * can be closed.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Target {
  url: string;
  hits: Map<string, number>;
  /** `X-Assay-Execution` header of every request, by path, in arrival order. */
  executions: Map<string, string[]>;
  /** Most requests being answered at the same moment since start (or since `resetInFlight`). */
  maxInFlight: number;
  resetInFlight(): void;
  close(): Promise<void>;
}

const UMD = `(function (root, factory) {
  if (typeof define === 'function' && define.amd) define([], factory);
  else if (typeof module === 'object' && module.exports) module.exports = factory();
  else root.Greeter = factory();
}(typeof self !== 'undefined' ? self : this, function () {
  return { greet: function (name) { return 'hello, ' + name + '!'; }, version: '1.0.0' };
}));`;
const ESM = `export function greet(name) { return 'hello, ' + name + '!'; }\nexport default { greet };\n`;

const NAMES = ['Ada', 'Grace', 'Edsger', 'Barbara', 'Donald', 'Frances', 'Ken', 'Radia', 'Tony', 'Margaret'];

export async function startTarget(): Promise<Target> {
  const hits = new Map<string, number>();
  const executions = new Map<string, string[]>();
  const timers = new Set<NodeJS.Timeout>();
  const flaky = new Map<string, number>();
  let inFlight = 0;
  const target = { maxInFlight: 0 };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
    const execution = req.headers['x-assay-execution'];
    if (typeof execution === 'string')
      executions.set(url.pathname, [...(executions.get(url.pathname) ?? []), execution]);
    inFlight += 1;
    target.maxInFlight = Math.max(target.maxInFlight, inFlight);
    res.on('close', () => (inFlight -= 1));
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
        if (id >= 1 && id <= NAMES.length)
          return json(200, { id, name: NAMES[id - 1], email: `${NAMES[id - 1]!.toLowerCase()}@example.com` });
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
        return json(200, {
          method: req.method,
          path: url.pathname,
          query: Object.fromEntries(url.searchParams),
          headers: req.headers,
          body,
        });
      }
      if (url.pathname === '/flaky') {
        const key = url.searchParams.get('key') ?? '';
        const seen = (flaky.get(key) ?? 0) + 1;
        flaky.set(key, seen);
        return seen <= Number(url.searchParams.get('fail') ?? 0)
          ? json(503, { attempt: seen })
          : json(200, { attempt: seen });
      }
      if (url.pathname === '/libs/greeter.umd.js' || url.pathname === '/libs/greeter.esm.js') {
        res.writeHead(200, { 'content-type': 'application/javascript' });
        return res.end(url.pathname.includes('umd') ? UMD : ESM);
      }
      if (url.pathname === '/deep') {
        // JSON nested `levels` deep: {"d":{"d":…{"d":1}…}}
        const levels = Math.min(Number(url.searchParams.get('levels') ?? 40), 1000);
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(`${'{"d":'.repeat(levels)}1${'}'.repeat(levels)}`);
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
    executions,
    get maxInFlight() {
      return target.maxInFlight;
    },
    resetInFlight() {
      target.maxInFlight = 0;
    },
    async close() {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
