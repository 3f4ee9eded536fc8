/**
 * A loopback "job" service for Poll node tests (docs/async.md "Polling"): `GET /jobs/<key>?ready=N`
 * answers 202 `{"status": "pending", "n": k}` to the first N−1 requests for `<key>` and 200
 * `{"status": "done", "n": k}` from the N-th on (k counts the requests for that key). `hits(key)`
 * is how many requests the key got, so a test sees that nothing was sent twice; `times(key)` when
 * each arrived (epoch ms, this process's clock), so a test sees the delays that really passed.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface JobServer {
  url: string;
  hits(key: string): number;
  /** Arrival times of the requests for `key`, epoch ms, in order. */
  times(key: string): number[];
  close(): Promise<void>;
}

export async function startJobServer(): Promise<JobServer> {
  const counts = new Map<string, number>();
  const arrivals = new Map<string, number[]>();
  const server = http.createServer((req, res) => {
    const at = Date.now();
    const url = new URL(req.url ?? '/', 'http://localhost');
    const match = /^\/jobs\/([^/]+)$/.exec(url.pathname);
    if (!match) {
      res.writeHead(404).end();
      return;
    }
    const key = match[1]!;
    const n = (counts.get(key) ?? 0) + 1;
    counts.set(key, n);
    arrivals.set(key, [...(arrivals.get(key) ?? []), at]);
    const ready = Number(url.searchParams.get('ready') ?? '1');
    const done = n >= ready;
    res.writeHead(done ? 200 : 202, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ status: done ? 'done' : 'pending', n }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits: (key) => counts.get(key) ?? 0,
    times: (key) => [...(arrivals.get(key) ?? [])],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
