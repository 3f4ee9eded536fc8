/**
 * A long performance run, by hand (`node --no-node-snapshot dist/bench/load-soak.js`; not part of
 * `make bench`): one constant-vus run of BENCH_SOAK_MINUTES (default 60) against a loopback target,
 * the local stack's process RSS and heap sampled every minute, to show that memory stays flat for a
 * run of any length (docs/performance.md; figures in docs/benchmarks.md). BENCH_SOAK_VUS (default 10)
 * VUs with a 100 ms think time make a steady, moderate load. With load threads
 * (`ASSAY_LOAD_THREADS` ≥ 2) each thread's heap is sampled too, and with BENCH_SOAK_SNAPSHOTS=<dir>
 * a heap snapshot of every thread is written there at minute 2 and in the run's last minute
 * (`thread<i>-minute<m>.heapsnapshot`; compare them with bench/heap-diff.js).
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { startLocalStack } from '../bin/local-stack';
import { liveLoadThreads } from '../activities/load';

const MINUTES = Number(process.env.BENCH_SOAK_MINUTES ?? 60);
const VUS = Number(process.env.BENCH_SOAK_VUS ?? 10);
const SNAPSHOTS = process.env.BENCH_SOAK_SNAPSHOTS;

/** Each load thread's heap now, in MB: used/committed+external (empty without load threads). */
async function threadHeaps(): Promise<string> {
  const stats = await Promise.all(liveLoadThreads().map((w) => w.getHeapStatistics().catch(() => undefined)));
  const mb = (n: number) => Math.round(n / 1e6);
  return stats
    .map((h) => (h ? `${mb(h.used_heap_size)}/${mb(h.total_heap_size)}+${mb(h.external_memory)}` : '-'))
    .join(' ');
}

/** Writes a heap snapshot of every load thread into SNAPSHOTS. */
async function snapshotThreads(minute: number): Promise<void> {
  if (!SNAPSHOTS) return;
  fs.mkdirSync(SNAPSHOTS, { recursive: true });
  const threads = liveLoadThreads();
  for (const [i, w] of threads.entries()) {
    const file = path.join(SNAPSHOTS, `thread${i}-minute${minute}.heapsnapshot`);
    await pipeline(await w.getHeapSnapshot(), fs.createWriteStream(file));
    console.log(`snapshot ${file}`);
  }
}

async function main(): Promise<void> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/item`;
  const stack = await startLocalStack({ ASSAY_LOG_LEVEL: 'error' });
  try {
    await stack.call('POST', '/v1/environments', { name: 'soak', variables: { url } });
    await stack.call('POST', '/v1/test-cases', {
      name: 'get item',
      folder: 'soak',
      flow: [
        {
          type: 'api',
          id: 'get',
          request: { method: 'GET', url: '{{url}}' },
          assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
        },
      ],
    });
    await stack.call('POST', '/v1/runners', { name: 'soak', folder: 'soak' });
    const { runId } = await stack.call<{ runId: string }>('POST', '/v1/runs', {
      runner: 'soak',
      environment: 'soak',
      timeout: MINUTES * 60 + 300,
      performance: { executor: 'constant-vus', vus: VUS, duration: `${MINUTES}m`, thinkTime: '100ms' },
    });
    const started = Date.now();
    const sample = async (label: string) => {
      const m = process.memoryUsage();
      console.log(
        `${label}\tRSS ${Math.round(m.rss / 1e6)} MB\theap ${Math.round(m.heapUsed / 1e6)}/${Math.round(m.heapTotal / 1e6)} MB\tarray buffers ${Math.round(m.arrayBuffers / 1e6)} MB\tthreads' heaps (used/committed+external) ${await threadHeaps()} MB`,
      );
    };
    await sample('minute 0');
    for (;;) {
      await new Promise((r) => setTimeout(r, 60_000));
      const minute = Math.round((Date.now() - started) / 60_000);
      const run = await stack.call<{ status: string; performance?: { requests: number } }>('GET', `/v1/runs/${runId}`);
      await sample(`minute ${minute}\trequests ${run.performance?.requests ?? '-'}`);
      if (run.status !== 'running' && run.status !== 'queued') break;
      if (minute === 2 || minute === MINUTES - 1) await snapshotThreads(minute);
    }
    const { performance: p } = await stack.call<{
      performance: { requests: number; requestsPerSecond: number; p99ResponseTime: number };
    }>('GET', `/v1/runs/${runId}/results`);
    console.log(`done: ${p.requests} requests, ${p.requestsPerSecond} requests/s, p99 ${p.p99ResponseTime} ms`);
  } finally {
    await stack.stop();
    server.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
