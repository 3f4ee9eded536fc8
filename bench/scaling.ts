/**
 * `make bench` part 8: how functional runs scale with worker processes.
 *
 * Aggregate API nodes per second: RUNS concurrent runs (default 20) of one runner of 200 API nodes
 * (20 test cases × 10 GETs, one assertion each) against a loopback HTTP server, from the first
 * `POST /v1/runs` to the last run final; and one run alone. With 1 and with 2 worker processes
 * (`node dist/bin/main.js worker`, each on the same task queue), on the Temporal server at
 * TEMPORAL_ADDRESS when one answers (the cluster: `make cluster`), else on a dev server this bench
 * starts. The API and the target server live in this process.
 *
 * Every node is still its own durable step (a local activity marker in the run's history); the
 * bench checks that each run passed with 200 nodes.
 *
 * Env: BENCH_SCALING_RUNS (20), BENCH_SCALING_WORKERS ("1,2"), BENCH_SCALING_LABEL (the Temporal's
 * name in the table), BENCH_REPEAT (3; the median is printed), ASSAY_CPU_PROFILE_DIR (workers
 * write V8 CPU profiles there: `--cpu-prof`).
 * Prints a Markdown table for docs/benchmarks.md. Everything binds to loopback; loops are bounded.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { spawnWorkerProcess, startLocalStack, type LocalStack } from '../bin/local-stack';

const CASES = 20;
const NODES_PER_CASE = 10;
const NODES = CASES * NODES_PER_CASE;
const RUNS = Number(process.env.BENCH_SCALING_RUNS ?? 20);
const WORKERS = (process.env.BENCH_SCALING_WORKERS ?? '1,2').split(',').map(Number);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 3);
/** Names of this bench's resources: unique, so a store kept from an earlier bench is no obstacle. */
const NAME = `scaling-${process.pid}-${Date.now()}`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const TICKS_PER_SECOND = 100;

/** A `/proc/…/stat` file's command name and CPU seconds (user + system, fields 14 and 15 of proc(5)); throws when it is gone. */
export function readStat(file: string): { name: string; seconds: number } {
  const stat = fs.readFileSync(file, 'utf8');
  const close = stat.lastIndexOf(')');
  const fields = stat.slice(close + 2).split(' ');
  return {
    name: stat.slice(stat.indexOf('(') + 1, close),
    seconds: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND,
  };
}

/** CPU seconds used so far by every process on the machine (Linux /proc), by pid, with its command name. */
export function cpuSnapshot(): Map<number, { name: string; seconds: number }> {
  const out = new Map<number, { name: string; seconds: number }>();
  if (!fs.existsSync('/proc/self/stat')) return out;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      out.set(Number(entry), readStat(`/proc/${entry}/stat`));
    } catch {
      // The process ended meanwhile.
    }
  }
  return out;
}

/** CPU seconds used so far by each thread of `pid`, summed by thread name without its number (main JS thread: the process name). */
function threadSnapshot(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  try {
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      const { name, seconds } = readStat(`/proc/${pid}/task/${tid}/stat`);
      const group = name.replace(/[-_ ]?\d+$/, '');
      out.set(group, (out.get(group) ?? 0) + seconds);
    }
  } catch {
    // Not Linux, or the process ended.
  }
  return out;
}

/** CPU seconds each process used between two snapshots, the busiest first. */
export function cpuBetween(
  before: Map<number, { name: string; seconds: number }>,
  after: Map<number, { name: string; seconds: number }>,
  label: (pid: number, name: string) => string,
): Array<{ what: string; seconds: number }> {
  const used: Array<{ what: string; seconds: number }> = [];
  for (const [pid, a] of after) {
    const seconds = a.seconds - (before.get(pid)?.seconds ?? 0);
    if (seconds >= 0.05) used.push({ what: label(pid, a.name), seconds });
  }
  return used.sort((x, y) => y.seconds - x.seconds);
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

async function startTargetServer(): Promise<{ url: string; hits(): number; close(): void }> {
  const body = JSON.stringify({ id: 1, name: 'Ada', email: 'ada@example.com' });
  let hits = 0;
  const server = http.createServer((_req, res) => {
    hits += 1;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits: () => hits,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** Worker process `index` on the stack's task queue (a V8 CPU profile when ASSAY_CPU_PROFILE_DIR is set); resolves once it polls. */
function spawnWorker(stack: LocalStack, index: number): Promise<ChildProcess> {
  const profile = process.env.ASSAY_CPU_PROFILE_DIR
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.ASSAY_CPU_PROFILE_DIR}`]
    : [];
  return spawnWorkerProcess(stack, { nodeArgs: profile, env: { ASSAY_WORKER_INDEX: String(index) } });
}

/** Stops a worker gracefully (so a CPU profile gets written), SIGKILL after 20 s. */
async function stopWorker(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
}

/** Starts `count` runs at once; resolves with the wall time until every one is final (all must pass). */
/** Run ids of the latest {@link burst}. */
let lastBurst: string[] = [];

/** Workflow task timeouts in the histories of `runIds` (each makes a worker redo work since its last completed task). */
async function taskTimeouts(stack: LocalStack, runIds: string[]): Promise<number> {
  const connection = await Connection.connect({ address: stack.config.temporal.address });
  try {
    const client = new Client({ connection, namespace: stack.config.temporal.namespace });
    let timeouts = 0;
    for (const id of runIds) {
      const history = await client.workflow.getHandle(`run-${id}`).fetchHistory();
      timeouts += (history.events ?? []).filter((e) => e.workflowTaskTimedOutEventAttributes).length;
    }
    return timeouts;
  } finally {
    await connection.close();
  }
}

async function burst(stack: LocalStack, count: number): Promise<number> {
  const started = performance.now();
  const ids = await Promise.all(
    Array.from({ length: count }, () =>
      stack.call<{ runId: string }>('POST', '/v1/runs', { runner: NAME, environment: NAME }).then((r) => r.runId),
    ),
  );
  lastBurst = ids;
  const open = new Set(ids);
  const ended = new Map<string, number>();
  for (let i = 0; i < 60_000 && open.size > 0; i++) {
    for (const id of [...open]) {
      const run = await stack.call<{ status: string; result?: string; summary?: { passed: number }; error?: string }>(
        'GET',
        `/v1/runs/${id}`,
      );
      if (run.status === 'completed' || run.status === 'failed') {
        if (run.result !== 'passed' || run.summary?.passed !== CASES)
          throw new Error(`run ${id} did not pass: ${JSON.stringify(run).slice(0, 500)}`);
        open.delete(id);
        ended.set(id, performance.now());
      }
    }
    // Polls cost the API (this process) CPU the worker would use: a few per second.
    if (open.size > 0) await sleep(open.size > 1 ? 250 : 20);
  }
  if (open.size > 0) throw new Error(`${open.size} runs did not end`);
  return Math.max(...ended.values()) - started;
}

async function main(): Promise<void> {
  const log = (m: string) => process.stderr.write(`${m}\n`);
  const target = await startTargetServer();
  const stack = await startLocalStack(
    {
      ASSAY_RATE_LIMIT_PER_MINUTE: '10000000',
      ASSAY_QUOTA_CONCURRENT_RUNS: '1000000',
      ASSAY_QUOTA_RUNS_PER_MINUTE: '10000000',
    },
    { worker: false },
  );
  const label =
    process.env.BENCH_SCALING_LABEL ??
    (process.env.TEMPORAL_ADDRESS ? `Temporal at ${stack.config.temporal.address}` : 'dev server');
  const rows: string[] = [];
  const cpuRows: string[] = [];
  const threadRows: string[] = [];
  try {
    await stack.call('POST', '/v1/environments', { name: NAME, variables: { base: target.url } });
    for (let c = 0; c < CASES; c++) {
      const flow = Array.from({ length: NODES_PER_CASE }, (_, n) => ({
        type: 'api',
        request: { method: 'GET', url: `{{base}}/users/${c * NODES_PER_CASE + n}` },
        assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
      }));
      await stack.call('POST', '/v1/test-cases', { name: `case ${String(c).padStart(2, '0')}`, folder: NAME, flow });
    }
    await stack.call('POST', '/v1/runners', { name: NAME, folder: NAME });

    for (const count of WORKERS) {
      const workers: ChildProcess[] = [];
      for (let i = 1; i <= count; i++) workers.push(await spawnWorker(stack, i));
      try {
        log(`${label}, ${count} worker process(es): warm-up`);
        await burst(stack, Math.min(RUNS, 4));
        const single: number[] = [];
        const many: number[] = [];
        for (let r = 0; r < REPEAT; r++) {
          single.push(await burst(stack, 1));
          many.push(await burst(stack, RUNS));
          log(`  single ${single.at(-1)!.toFixed(0)} ms, ${RUNS} concurrent ${many.at(-1)!.toFixed(0)} ms`);
        }
        // Where the CPU goes during one more burst: this process is the API and the target server.
        const names = new Map<number, string>([
          [process.pid, 'bench (API + target)'],
          ...workers.map((w, i) => [w.pid!, `worker ${i + 1}`] as [number, string]),
        ]);
        const before = cpuSnapshot();
        const threadsBefore = threadSnapshot(workers[0]!.pid!);
        const hitsBefore = target.hits();
        const burstMs = await burst(stack, RUNS);
        const repeated = target.hits() - hitsBefore - NODES * RUNS;
        const timeouts = await taskTimeouts(stack, lastBurst);
        const used = cpuBetween(before, cpuSnapshot(), (pid, name) => names.get(pid) ?? name);
        const threads = [...threadSnapshot(workers[0]!.pid!)].map(([name, sec]) => ({
          name,
          us: ((sec - (threadsBefore.get(name) ?? 0)) * 1e6) / (NODES * RUNS),
        }));
        threadRows.push(
          `| ${label} | ${count} | ${threads
            .filter((t) => t.us >= 5)
            .sort((a, b) => b.us - a.us)
            .map((t) => `${t.name} ${t.us.toFixed(0)} µs`)
            .join(', ')} |`,
        );
        const total = used.reduce((t, u) => t + u.seconds, 0);
        cpuRows.push(
          `| ${label} | ${count} | ${burstMs.toFixed(0)} ms | ${timeouts} | ${repeated} | ${((total * 1000 * 1000) / (NODES * RUNS)).toFixed(0)} µs | ${used
            .slice(0, 6)
            .map((u) => `${u.what} ${((u.seconds * 1e6) / (NODES * RUNS)).toFixed(0)} µs`)
            .join(', ')} |`,
        );
        const singleMs = median(single);
        const manyMs = median(many);
        rows.push(
          `| ${label} | ${count} | ${(NODES / (singleMs / 1000)).toFixed(0)} nodes/s (${singleMs.toFixed(0)} ms) | ${((NODES * RUNS) / (manyMs / 1000)).toFixed(0)} nodes/s (${manyMs.toFixed(0)} ms) |`,
        );
      } finally {
        for (const w of workers) await stopWorker(w);
      }
    }
    const out = [
      `Scaling: runs of ${NODES} API nodes (${CASES} test cases × ${NODES_PER_CASE} GETs, one assertion each), median of ${REPEAT}; target requests seen: ${target.hits()}`,
      `Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, store ${stack.config.database.type}`,
      '',
      `| Temporal | worker processes | one run alone | ${RUNS} concurrent runs (aggregate) |`,
      '|---|---:|---:|---:|',
      ...rows,
      '',
      `CPU per API node during one more burst of ${RUNS} runs (every process on the machine, /proc):`,
      '',
      '| Temporal | worker processes | burst | workflow task timeouts | requests repeated | CPU per node, all processes | busiest processes, per node |',
      '|---|---:|---:|---:|---:|---:|---|',
      ...cpuRows,
      '',
      'Worker 1 by thread, CPU per node in that burst:',
      '',
      '| Temporal | worker processes | threads |',
      '|---|---:|---|',
      ...threadRows,
    ].join('\n');
    process.stdout.write(`${out}\n`);
  } finally {
    await stack.stop();
    target.close();
  }
}

// bench/durability-modes.ts imports the CPU helpers above: run only when started as a script.
if (require.main === module)
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
