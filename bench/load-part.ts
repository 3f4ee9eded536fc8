/**
 * One load part in this process, no Temporal and no store (`node --no-node-snapshot
 * dist/bench/load-part.js`; by hand, not part of `make bench`): the load engine, the interpreter
 * and the request path of a performance run's part (activities/load-part.ts `startLoadPart`) driving
 * `constant-vus` against a bare `node:http` target in a child process, one GET with a status check
 * per iteration. Prints requests/s, CPU µs per request of this process and garbage-collection pause
 * µs per request (`PerformanceObserver` 'gc' entries: the main thread's pauses, not the helper
 * threads' concurrent marking), for each request path and VU count — what docs/benchmarks.md "Load
 * generation" quotes for one thread, without the rest of the stack. `--cpu-prof` on it profiles the
 * part alone.
 *
 * BENCH_PART_VUS (default "50,200,1000"), BENCH_PART_SECONDS (default 5), BENCH_PART_PATHS (default
 * "general,prepared": `ASSAY_LOAD_REQUEST_PATH`'s values). Every part first runs 2 s unmeasured (the
 * code warmed up, the connections open). Binds to loopback.
 */
import { spawn } from 'node:child_process';
import { PerformanceObserver } from 'node:perf_hooks';
import { startLoadPart } from '../activities/load-part';
import { directPorts } from '../activities/direct-port';
import { loadConfig } from '../src/config';
import { policyFromConfig } from '../src/net/address-policy';
import { validateProfile } from '../src/perf/profile';
import type { RunPlan } from '../src/domain/types';
import type { Sandbox } from '../src/sandbox/sandbox';

const VUS = (process.env.BENCH_PART_VUS ?? '50,200,1000').split(',').map(Number);
const SECONDS = Number(process.env.BENCH_PART_SECONDS ?? 5);
const PATHS = (process.env.BENCH_PART_PATHS ?? 'general,prepared').split(',') as Array<'general' | 'prepared'>;

async function startTarget(): Promise<{ url: string; stop(): void }> {
  const code = `
    const http = require('node:http');
    const body = JSON.stringify({ id: 1, name: 'Ada', ok: true });
    const server = http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
    server.keepAliveTimeout = 120000;
    server.listen(0, '127.0.0.1', () => console.log(server.address().port));`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve) =>
    child.stdout!.once('data', (d: Buffer) => resolve(d.toString().trim())),
  );
  return { url: `http://127.0.0.1:${port}/item`, stop: () => child.kill() };
}

async function main(): Promise<void> {
  const target = await startTarget();
  const config = loadConfig({
    ASSAY_EGRESS_PRIVATE_FOR_NODES: 'loopback',
    ASSAY_DATA_DIR: '/tmp/assay-bench-load-part',
  });
  const policy = policyFromConfig(config, { connections: null });
  // No script runs: the sandbox is never asked for.
  const ports = directPorts({ sandbox: {} as Sandbox, agent: policy.agent('node') });
  const plan = (vus: number, seconds: number) =>
    ({
      runId: 'bench',
      workspaceId: 'bench',
      environment: 'bench',
      variables: { url: target.url },
      settings: { requestTimeoutMs: 30_000, maxResponseBytes: 1 << 20 },
      testCases: [
        {
          id: 'get',
          name: 'get item',
          folder: '',
          tags: [],
          dataSets: {},
          flow: [
            {
              type: 'api',
              id: 'get',
              request: { method: 'GET', url: '{{url}}' },
              assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
            },
          ],
        },
      ],
      performance: { profile: validateProfile({ executor: 'constant-vus', vus, duration: `${seconds}s` }).profile },
    }) as unknown as RunPlan;
  const run = async (vus: number, seconds: number, requestPath: 'general' | 'prepared') => {
    const part = startLoadPart(
      { runId: 'bench', plan: plan(vus, seconds), part: 0, parts: 1, requestPath },
      ports,
      undefined,
      (origin) => policy.connection('node', origin),
    );
    await part.done;
    return part.state().metrics.all;
  };
  console.log(`| VUs | request path | requests/s | CPU µs/request | GC pause µs/request | failed |`);
  console.log(`|---:|---|---:|---:|---:|---:|`);
  try {
    for (const vus of VUS)
      for (const requestPath of PATHS) {
        await run(vus, 2, requestPath);
        let gcMs = 0;
        const gc = new PerformanceObserver((list) => {
          for (const e of list.getEntries()) gcMs += e.duration;
        });
        gc.observe({ entryTypes: ['gc'] });
        const cpu = process.cpuUsage();
        const started = performance.now();
        const all = await run(vus, SECONDS, requestPath);
        const used = process.cpuUsage(cpu);
        const ms = performance.now() - started;
        gc.disconnect();
        console.log(
          `| ${vus} | ${requestPath} | ${Math.round((all.requests / ms) * 1000).toLocaleString('en')} | ${((used.user + used.system) / all.requests).toFixed(1)} | ${((gcMs * 1000) / all.requests).toFixed(1)} | ${all.failed} |`,
        );
      }
  } finally {
    target.stop();
    await policy.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
