/**
 * `make bench` part 5: what a crash costs, and how fast polling answers.
 *
 * Worker kills: one runner of CASES test cases (one GET of SLOW_MS each) against a loopback server;
 * workers are separate processes (`node dist/bin/main.js worker`). A run without kills gives the
 * baseline; then the same run with KILLS kills: each time a fresh worker is started and ready
 * first, then the old one gets SIGKILL, so what is measured is how long the run waits for Temporal
 * to hand its work to the new worker, not Node's boot. Cost per kill = (killed − baseline) / KILLS;
 * repeated requests = requests the server saw − CASES. Side by side in one process run:
 * Temporal's defaults (workflow task timeout 10 s, sticky schedule-to-start 10 s) and Assay's
 * (ASSAY_WORKFLOW_TASK_TIMEOUT_MS, ASSAY_STICKY_TIMEOUT_MS).
 *
 * Polling: RUNS runs whose requests each take 1 s are in flight while `GET /v1/runs/{id}` is
 * called back to back for POLL_SECONDS; latency percentiles beside those of the workflow query
 * the API used to make on every GET (`runState`, answered only between workflow tasks).
 *
 * Prints Markdown tables for docs/benchmarks.md. Uses TEMPORAL_ADDRESS or a dev server; the store
 * in DATABASE_URL or an embedded SQLite file. Everything binds to loopback; every loop is bounded.
 */
import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawnWorkerProcess, startLocalStack, type LocalStack } from '../bin/local-stack';
import type { Run } from '../src/store/entities';

const CASES = Number(process.env.BENCH_KILL_CASES ?? 40);
const SLOW_MS = 100;
const KILLS = Number(process.env.BENCH_KILLS ?? 3);
const RUNS = 4;
const POLL_SECONDS = Number(process.env.BENCH_POLL_SECONDS ?? 10);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
}

async function startSlowServer(): Promise<{ url: string; hits: () => number; reset(): void; close(): void }> {
  let hits = 0;
  const server = http.createServer((req, res) => {
    hits += 1;
    const ms = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('ms') ?? SLOW_MS);
    setTimeout(
      () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ waited: ms })),
      Math.min(ms, 5000),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits: () => hits,
    reset: () => (hits = 0),
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** A worker process on the stack's task queue with the given sticky timeout; resolves once it polls. */
function spawnWorker(stack: LocalStack, stickyMs: number): Promise<ChildProcess> {
  return spawnWorkerProcess(stack, { env: { ASSAY_STICKY_TIMEOUT_MS: String(stickyMs) } });
}

function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGKILL');
  return exited;
}

/** Names unique to this bench process and scenario (the store may be shared with earlier runs). */
let scenario = 0;
const tag = () => `${process.pid}-${scenario}`;

async function setUp(stack: LocalStack, base: string): Promise<void> {
  scenario += 1;
  await stack.call('POST', '/v1/environments', { name: `local-${tag()}`, variables: { base } });
  for (let i = 1; i <= CASES; i++) {
    await stack.call('POST', '/v1/test-cases', {
      name: `case ${tag()} ${String(i).padStart(3, '0')}`,
      folder: `bench-${tag()}`,
      flow: [
        {
          type: 'api',
          request: { method: 'GET', url: `{{base}}/slow?ms=${SLOW_MS}` },
          assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
        },
      ],
    });
  }
  await stack.call('POST', '/v1/runners', { name: `bench-${tag()}`, folder: `bench-${tag()}` });
}

async function timedRun(
  stack: LocalStack,
  during?: (runId: string) => Promise<void>,
): Promise<{ ms: number; result: string }> {
  const started = performance.now();
  const { runId } = await stack.call<{ runId: string }>('POST', '/v1/runs', {
    runner: `bench-${tag()}`,
    environment: `local-${tag()}`,
  });
  const side = during?.(runId);
  for (let i = 0; i < 60_000; i++) {
    const run = await stack.call<{ status: string; result?: string; error?: string }>('GET', `/v1/runs/${runId}`);
    if (run.status === 'completed' || run.status === 'failed') {
      await side;
      return { ms: performance.now() - started, result: run.result ?? run.error ?? run.status };
    }
    await sleep(20);
  }
  throw new Error('run did not end');
}

async function workerKills(
  label: string,
  wftMs: number,
  stickyMs: number,
  target: Awaited<ReturnType<typeof startSlowServer>>,
): Promise<string> {
  const stack = await startLocalStack(
    {
      ASSAY_WORKFLOW_TASK_TIMEOUT_MS: String(wftMs),
      ASSAY_RATE_LIMIT_PER_MINUTE: '10000000',
      ASSAY_QUOTA_CONCURRENT_RUNS: '1000000',
      ASSAY_QUOTA_RUNS_PER_MINUTE: '10000000',
    },
    { worker: false },
  );
  const workers: ChildProcess[] = [];
  try {
    await setUp(stack, target.url);
    workers.push(await spawnWorker(stack, stickyMs));
    await timedRun(stack); // warm-up: bundle loaded, connections open
    target.reset();
    const base = await timedRun(stack);
    const baseHits = target.hits();
    target.reset();
    const killed = await timedRun(stack, async (runId) => {
      for (let k = 0; k < KILLS; k++) {
        // Let the run make progress on the current worker, then replace it.
        const from =
          (await stack.call<{ progress?: { completed: number } }>('GET', `/v1/runs/${runId}`)).progress?.completed ?? 0;
        for (let i = 0; i < 500; i++) {
          const doc = await stack.call<{ status: string; progress?: { completed: number } }>(
            'GET',
            `/v1/runs/${runId}`,
          );
          if (doc.status !== 'running' && doc.status !== 'queued') return;
          if ((doc.progress?.completed ?? 0) >= from + 4) break;
          await sleep(20);
        }
        const next = await spawnWorker(stack, stickyMs);
        await kill(workers.at(-1)!);
        workers.push(next);
      }
    });
    const extra = target.hits() - CASES;
    const cost = (killed.ms - base.ms) / KILLS;
    return `| ${label} | ${wftMs / 1000} s / ${stickyMs / 1000} s | ${(base.ms / 1000).toFixed(2)} s (${baseHits} requests) | ${(killed.ms / 1000).toFixed(2)} s, ${killed.result} | **${(cost / 1000).toFixed(2)} s** | ${extra} |`;
  } finally {
    for (const w of workers) await kill(w);
    await stack.stop();
  }
}

async function polling(target: Awaited<ReturnType<typeof startSlowServer>>): Promise<string[]> {
  const stack = await startLocalStack({
    ASSAY_RATE_LIMIT_PER_MINUTE: '10000000',
    ASSAY_QUOTA_CONCURRENT_RUNS: '1000000',
    ASSAY_QUOTA_RUNS_PER_MINUTE: '10000000',
  });
  try {
    scenario += 1;
    const t = tag();
    await stack.call('POST', '/v1/environments', { name: `poll-${t}`, variables: { base: target.url } });
    for (let i = 1; i <= 20; i++) {
      await stack.call('POST', '/v1/test-cases', {
        name: `slow ${t} ${i}`,
        folder: `poll-${t}`,
        flow: [{ type: 'api', request: { method: 'GET', url: '{{base}}/slow?ms=1000' } }],
      });
    }
    await stack.call('POST', '/v1/runners', { name: `poll-${t}`, folder: `poll-${t}` });
    const ids: string[] = [];
    for (let i = 0; i < RUNS; i++)
      ids.push(
        (await stack.call<{ runId: string }>('POST', '/v1/runs', { runner: `poll-${t}`, environment: `poll-${t}` }))
          .runId,
      );
    await sleep(1500);
    const rest: number[] = [];
    const query: number[] = [];
    let until = performance.now() + POLL_SECONDS * 1000;
    for (let i = 0; performance.now() < until; i++) {
      const t = performance.now();
      await stack.call('GET', `/v1/runs/${ids[i % ids.length]!}`);
      rest.push(performance.now() - t);
    }
    // What GET did before: ask the workflow (answered only between workflow tasks).
    until = performance.now() + POLL_SECONDS * 1000;
    for (let i = 0; performance.now() < until; i++) {
      const t = performance.now();
      await stack.api.workflows.liveState({ workflowId: `run-${ids[i % ids.length]!}` } as Run, 2000);
      query.push(performance.now() - t);
    }
    const row = (name: string, v: number[]) =>
      `| ${name} | ${v.length} | ${percentile(v, 50).toFixed(1)} ms | ${percentile(v, 95).toFixed(1)} ms | **${percentile(v, 99).toFixed(1)} ms** | ${Math.max(...v).toFixed(1)} ms |`;
    return [
      row('GET /v1/runs/{id} (stored row, now)', rest),
      row('workflow query `runState` (what GET waited for before)', query),
    ];
  } finally {
    await stack.stop();
  }
}

async function main(): Promise<void> {
  const target = await startSlowServer();
  try {
    const rows = [
      await workerKills('Temporal defaults (before)', 10_000, 10_000, target),
      await workerKills('Assay defaults (now)', 2000, 1000, target),
    ];
    const poll = await polling(target);
    process.stdout.write(
      [
        '',
        `### Worker kills: ${CASES} test cases × GET ${SLOW_MS} ms, ${KILLS} SIGKILLs of the worker during one run (a ready worker takes over)`,
        '',
        '| settings | workflow task / sticky timeout | run without kills | run with kills | cost per kill | repeated requests |',
        '|---|---|---|---|---|---|',
        ...rows,
        '',
        `### Polling while ${RUNS} runs have 1 s requests in flight (${POLL_SECONDS} s of back-to-back calls each)`,
        '',
        '| what answers | calls | p50 | p95 | p99 | max |',
        '|---|---|---|---|---|---|',
        ...poll,
        '',
      ].join('\n'),
    );
  } finally {
    target.close();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
