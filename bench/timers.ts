/**
 * `make bench`: how soon a durable timer fires, seen through Poll nodes (docs/async.md "Timer
 * resolution", docs/benchmarks.md "Timer resolution"), on a Temporal dev server with Temporal's
 * default `history.timerProcessorMaxTimeShift` (1 s) and with the one Assay's dev server starts
 * with (src/temporal/dev-server.ts `DEV_SERVER_DYNAMIC_CONFIG`).
 *
 * For each: a dev server of its own (in memory) and the whole stack on it (bin/local-stack.ts).
 * One run at a time polls a loopback service with `interval` 50 ms, 300 ms and 2 s (ATTEMPTS
 * attempts, 4 for 2 s): per interval, the gaps the service saw between requests and the `delayMs`
 * the results report (min, median, max). Then the server's CPU: idle (IDLE_SECONDS with nothing
 * running) and for a burst of BURST runs at once, each 20 attempts 100 ms apart (CPU seconds of the
 * server process, and how long the burst took). Prints a Markdown table. Loopback only; every loop
 * is bounded.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { runAndWait, startLocalStack } from '../bin/local-stack';
import { DEV_SERVER_DYNAMIC_CONFIG, startDevServer } from '../src/temporal/dev-server';
import type { NodeResult } from '../src/domain/types';

const ATTEMPTS = Number(process.env.BENCH_TIMER_ATTEMPTS ?? 11);
const IDLE_SECONDS = Number(process.env.BENCH_TIMER_IDLE_SECONDS ?? 30);
const BURST = Number(process.env.BENCH_TIMER_BURST ?? 20);
const SHIFT = 'history.timerProcessorMaxTimeShift';

/** CPU seconds (user + system) process `pid` has used (Linux /proc). */
function cpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const spread = (values: number[]) => `${Math.min(...values)} / ${median(values)} / ${Math.max(...values)}`;

interface Row {
  server: string;
  interval: string;
  gaps: number[];
  reported: number[];
}

async function measure(label: string, shift: string, rows: Row[], cpu: string[]): Promise<void> {
  const arrivals = new Map<string, number[]>();
  const service = http.createServer((req, res) => {
    const at = Date.now();
    const [, key, ready] = /^\/jobs\/([^/?]+)\?ready=(\d+)/.exec(req.url ?? '') ?? [];
    const times = [...(arrivals.get(key ?? '') ?? []), at];
    arrivals.set(key ?? '', times);
    const done = times.length >= Number(ready ?? 1);
    res.writeHead(done ? 200 : 202, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ status: done ? 'done' : 'pending' }));
  });
  await new Promise<void>((r) => service.listen(0, '127.0.0.1', r));
  const svc = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
  const server = await startDevServer({ dynamicConfig: { [SHIFT]: shift } });
  process.env.TEMPORAL_ADDRESS = server.address;
  const stack = await startLocalStack({
    ASSAY_QUOTA_CONCURRENT_RUNS: String(BURST + 10),
    ASSAY_QUOTA_RUNS_PER_MINUTE: String(BURST * 20),
    ASSAY_RATE_LIMIT_PER_MINUTE: '100000',
  });
  try {
    await stack.call('POST', '/v1/environments', { name: 'timers', variables: { svc } });
    const pollCase = async (name: string, interval: string, attempts: number) => {
      await stack.call('POST', '/v1/test-cases', {
        name,
        folder: name,
        flow: [
          {
            type: 'poll',
            id: 'job',
            request: { method: 'GET', url: `{{svc}}/jobs/{{key}}?ready=${attempts}` },
            until: "response.body.status = 'done'",
            interval,
            maxAttempts: attempts,
          },
        ],
      });
      await stack.call('POST', '/v1/runners', { name, folder: name });
    };
    for (const [interval, attempts] of [
      ['50ms', ATTEMPTS],
      ['300ms', ATTEMPTS],
      ['2s', 4],
    ] as const) {
      const name = `poll-${interval}`;
      await pollCase(name, interval, attempts);
      const run = await runAndWait(stack, { runner: name, environment: 'timers', variables: { key: name } }, 50);
      const results = await stack.call<{ details: { testCases: Array<{ nodes: NodeResult[] }> } }>(
        'GET',
        `/v1/runs/${run.runId}/results`,
      );
      const node = results.details.testCases[0]!.nodes[0]!;
      if (node.status !== 'passed') throw new Error(`${name}: ${JSON.stringify(node.error)}`);
      const times = arrivals.get(name) ?? [];
      rows.push({
        server: label,
        interval,
        gaps: times.slice(1).map((t, i) => t - times[i]!),
        reported: (node.attempts ?? []).flatMap((a) => (a.delayMs === undefined ? [] : [a.delayMs])),
      });
    }

    const pid = server.process.pid!;
    await sleep(2000);
    const idle0 = cpuSeconds(pid);
    await sleep(IDLE_SECONDS * 1000);
    const idle = (cpuSeconds(pid) - idle0) / IDLE_SECONDS;

    await pollCase('burst', '100ms', 20);
    const burst0 = cpuSeconds(pid);
    const started = performance.now();
    await Promise.all(
      Array.from({ length: BURST }, (_, i) =>
        runAndWait(stack, { runner: 'burst', environment: 'timers', variables: { key: `burst-${i}` } }, 200),
      ),
    );
    const burstMs = performance.now() - started;
    cpu.push(
      `| ${label} | ${(idle * 100).toFixed(1)} % | ${(cpuSeconds(pid) - burst0).toFixed(1)} s | ${(burstMs / 1000).toFixed(1)} s |`,
    );
  } finally {
    await stack.stop();
    await server.stop();
    delete process.env.TEMPORAL_ADDRESS;
    service.closeAllConnections();
    service.close();
  }
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  const cpu: string[] = [];
  const assay = String(DEV_SERVER_DYNAMIC_CONFIG[SHIFT]);
  await measure('Temporal default (1s)', '1s', rows, cpu);
  await measure(`Assay's dev server (${assay})`, assay, rows, cpu);
  console.log(`\n### Timer resolution: Poll delays (ms, min / median / max)\n`);
  console.log('| server | `interval` | gap at the service | `delayMs` reported |');
  console.log('|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.server} | ${r.interval} | ${spread(r.gaps)} | ${spread(r.reported)} |`);
  console.log(`\n| server | server CPU idle | server CPU, ${BURST} runs × 20 attempts 100 ms apart | burst took |`);
  console.log('|---|---|---|---|');
  for (const line of cpu) console.log(line);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
