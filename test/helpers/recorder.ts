/**
 * A loopback target that records every request it receives, for tests that count what a run sent
 * (the durability tests: how many times each node execution reached the target, and with which
 * `X-Assay-Execution` header; docs/durability.md "What a crash repeats").
 *
 *   GET /slow?ms=N&i=K   answers 200 {waited: N, i: K} after N ms (at most 60 s)
 *   GET /fast            answers 200 {ok: true} at once
 *   anything else        404 {error}
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the recorder received (answered or still being answered). */
export interface Hit {
  /** Epoch ms when it arrived. */
  at: number;
  path: string;
  /** Its query string, without `?`. */
  query: string;
  /** Its `X-Assay-Execution` header, when it had one. */
  execution?: string;
  /** Epoch ms when its answer was sent; absent while it is being answered (or was never answered). */
  answeredAt?: number;
}

export interface Recorder {
  url: string;
  /** Every request, in arrival order. */
  hits: Hit[];
  /** Requests being answered right now. */
  inFlight(): number;
  close(): Promise<void>;
}

export async function startRecorder(): Promise<Recorder> {
  const hits: Hit[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let inFlight = 0;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const execution = req.headers['x-assay-execution'];
    const hit: Hit = {
      at: Date.now(),
      path: url.pathname,
      query: url.search.slice(1),
      ...(typeof execution === 'string' ? { execution } : {}),
    };
    hits.push(hit);
    inFlight += 1;
    res.on('finish', () => (hit.answeredAt = Date.now()));
    res.on('close', () => (inFlight -= 1));
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/slow') {
      const ms = Math.min(Number(url.searchParams.get('ms') ?? 100), 60_000);
      const t = setTimeout(() => {
        timers.delete(t);
        json(200, { waited: ms, i: Number(url.searchParams.get('i')) });
      }, ms);
      timers.add(t);
      return;
    }
    if (url.pathname === '/fast') return json(200, { ok: true });
    json(404, { error: 'no route' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    inFlight: () => inFlight,
    async close() {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * How many times each `X-Assay-Execution` value reached the target among `hits`, and the values
 * that came more than once (in the order of their first arrival).
 */
export function repeatsOf(hits: Hit[]): { counts: Map<string, number>; repeated: string[] } {
  const counts = new Map<string, number>();
  for (const h of hits) if (h.execution) counts.set(h.execution, (counts.get(h.execution) ?? 0) + 1);
  return { counts, repeated: [...counts].filter(([, n]) => n > 1).map(([e]) => e) };
}
