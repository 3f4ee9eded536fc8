/**
 * A long performance run, by hand (`node --no-node-snapshot dist/bench/load-soak.js`; not part of
 * `make bench`): one constant-vus run of BENCH_SOAK_MINUTES (default 60) against a loopback target,
 * the local stack's process RSS and heap sampled every minute, to show that memory stays flat for a
 * run of any length (docs/performance.md; figures in docs/benchmarks.md). BENCH_SOAK_VUS (default 10)
 * VUs with a 100 ms think time make a steady, moderate load.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startLocalStack } from '../bin/local-stack';

const MINUTES = Number(process.env.BENCH_SOAK_MINUTES ?? 60);
const VUS = Number(process.env.BENCH_SOAK_VUS ?? 10);

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
    const sample = (label: string) => {
      const m = process.memoryUsage();
      console.log(`${label}\tRSS ${Math.round(m.rss / 1e6)} MB\theap ${Math.round(m.heapUsed / 1e6)} MB`);
    };
    sample('minute 0');
    for (;;) {
      await new Promise((r) => setTimeout(r, 60_000));
      const run = await stack.call<{ status: string; performance?: { requests: number } }>('GET', `/v1/runs/${runId}`);
      sample(`minute ${Math.round((Date.now() - started) / 60_000)}\trequests ${run.performance?.requests ?? '-'}`);
      if (run.status !== 'running' && run.status !== 'queued') break;
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
