/**
 * `make bench`: a suite's test cases run in parallel within one run (`concurrency` of
 * POST /v1/runners and POST /v1/runs, 1 to 64, default 1: one after another), in both durability
 * modes (docs/durability.md "Durability modes"), against Newman and bare undici loops. One runner of
 * CASES (300) test cases × 5 API nodes (a GET with one status assertion), against one loopback
 * `node:http` target in this process.
 *
 * a. Latency-bound: the target answers every request after 50 ms (a timer, no CPU). Wall time of
 *    the 1,500 requests as one Newman CLI process (sequential, as Newman runs a collection; process
 *    start included), of Assay runs with concurrency 16 in durability `node` and `testCase`, and of
 *    one Assay run with concurrency 1 (`node`; BENCH_PARALLEL_SEQUENTIAL=0 leaves it out). Goal:
 *    Assay at concurrency 16 within 0.1 × Newman's time.
 * b. CPU-bound: the same suite, the target answering at once. Nodes/s of Assay at concurrency 1, 4
 *    and 16 in both modes, beside one Newman process, the suite split over 20 Newman processes
 *    at once (process starts included), and a bare undici loop (sequential, and 16 loops at once).
 *
 * Every Assay run must pass with every test case; its results (GET /v1/runs/{id}/results,
 * `details.testCases` with `result` and `summary`, timings, ids and timestamps dropped) are compared
 * deep-equal with the sequential run's (part a's concurrency 1 run, else part b's concurrency 1
 * `node` run): results stay in the runner's order whatever the concurrency. The target counts the
 * requests of each measurement (a warning when not CASES × 5) and, in part a, the most it had in
 * flight at once: the parallelism the target saw (in part b it answers each request synchronously,
 * so it never sees more than one). CPU per node: the CPU time of this bench's processes (this one with
 * the API and the target, the workers, the Temporal dev server, Newman processes) per node;
 * "others": the rest of the machine's CPU during the measurement (/proc), to tell a busy machine.
 *
 * An API that refuses `concurrency` (400 naming it) gets runs without it: only concurrency 1 is
 * measured then, and the output says so.
 *
 * Env: BENCH_REPEAT (1; medians of that many rounds, the tools alternating within each),
 * BENCH_PARALLEL_CASES (300), BENCH_PARALLEL_WORKERS (1 worker process, `main.js worker`; 0 = the
 * worker inside this process), BENCH_PARALLEL_SEQUENTIAL (1; 0 skips part a's concurrency 1 run,
 * about 75 s). Uses the Temporal server at TEMPORAL_ADDRESS or starts a dev server; the store in
 * DATABASE_URL or an embedded SQLite file. Everything binds to 127.0.0.1 on port 0; loops are
 * bounded; child processes are stopped at the end, also on failure or SIGINT/SIGTERM.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { spawnWorkerProcess, startLocalStack, type LocalStack } from '../bin/local-stack';
import { median, newmanCollection, newmanRun, undiciFloor } from './run-overhead';

const NODES_PER_CASE = 5;
const CASES = Number(process.env.BENCH_PARALLEL_CASES ?? 300);
const NODES = CASES * NODES_PER_CASE;
const REPEAT = Number(process.env.BENCH_REPEAT ?? 1);
const WORKERS = Number(process.env.BENCH_PARALLEL_WORKERS ?? 1);
const SEQUENTIAL = process.env.BENCH_PARALLEL_SEQUENTIAL !== '0';
/** Part a's target delay (ms) and part b's. */
const SLOW_MS = 50;
const FAST_MS = 0;
/** Part b's concurrencies, and part a's parallel one. */
const CONCURRENCIES = [1, 4, 16];
const PARALLEL = 16;
/** Newman processes the suite is split over in part b. */
const NEWMAN_PROCESSES = 20;
/** The longest a run may take before the bench gives up on it (the run's own timeout is 1800 s). */
const RUN_DEADLINE_MS = 30 * 60_000;
/** Names of this bench's resources: unique, so a store kept from an earlier bench is no obstacle. */
const NAME = `parallel-${process.pid}-${Date.now()}`;

type Mode = 'node' | 'testCase';
const MODES: Mode[] = ['node', 'testCase'];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (m: string) => process.stderr.write(`${m}\n`);
const refuses = (err: unknown, field: string) => /: 400 /.test(String(err)) && new RegExp(field, 'i').test(String(err));

/**
 * Whether the API took `concurrency` on runners and on runs (false once it answered 400 naming it:
 * then it is left out there).
 */
const accepted = { runner: true, run: true };
/** Whether runs can be parallel: either place took the field. */
const parallelAvailable = () => accepted.runner || accepted.run;

// ---------------------------------------------------------------------------------------------
// The target: GET anything → 200 with the body bench/run-overhead.ts's undici loop checks, after
// `delayMs` (a timer). It counts requests and the most in flight at once.

interface Target {
  url: string;
  delayMs: number;
  hits: number;
  inFlight: number;
  maxInFlight: number;
  reset(): void;
  close(): Promise<void>;
}

async function startTarget(): Promise<Target> {
  const body = JSON.stringify({ id: 1, name: 'Ada', email: 'ada@example.com' });
  const server = http.createServer((_req, res) => {
    target.hits += 1;
    target.inFlight += 1;
    target.maxInFlight = Math.max(target.maxInFlight, target.inFlight);
    const answer = () => {
      target.inFlight -= 1;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    };
    if (target.delayMs > 0) setTimeout(answer, target.delayMs);
    else answer();
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const target: Target = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    delayMs: 0,
    hits: 0,
    inFlight: 0,
    maxInFlight: 0,
    reset() {
      this.hits = 0;
      this.maxInFlight = this.inFlight;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
  return target;
}

// ---------------------------------------------------------------------------------------------
// CPU accounting (/proc, Linux; zeros elsewhere).

/** `/proc/<pid>/stat`'s parent pid and CPU seconds including reaped children (fields 14–17 of proc(5)); undefined when gone. */
function procStat(pid: number | 'self'): { ppid: number; seconds: number } | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(f[1]), seconds: (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / 100 };
  } catch {
    return undefined;
  }
}

/** Direct children of this process (workers, the Temporal dev server, Newman processes), by /proc. */
function children(): number[] {
  if (!fs.existsSync('/proc/self/stat')) return [];
  return fs
    .readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .map(Number)
    .filter((pid) => procStat(pid)?.ppid === process.pid);
}

/**
 * CPU seconds of this bench's processes so far: this one with its reaped children (Newman runs), plus
 * its live children with theirs; and the machine's busy CPU seconds (/proc/stat, all cores).
 */
function cpuNow(): { ours: number; machine: number } {
  let ours = procStat('self')?.seconds ?? 0;
  for (const pid of children()) ours += procStat(pid)?.seconds ?? 0;
  let machine = 0;
  try {
    const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal: busy = all but idle and iowait.
    machine = (f.slice(0, 8).reduce((s, x) => s + x, 0) - f[3]! - f[4]!) / 100;
  } catch {
    // Not Linux.
  }
  return { ours, machine };
}

// ---------------------------------------------------------------------------------------------
// Measurements.

interface Measure {
  ms: number;
  /** CPU seconds of this bench's processes. */
  cpu: number;
  /** The rest of the machine's CPU during it, in % of one core. */
  others: number;
  hits: number;
  maxInFlight: number;
  /** Assay: the run, its normalised results (JSON, read after the measurement) and what GET /v1/runs/{id} said of it. */
  runId?: string;
  results?: string;
  reported?: string;
}

async function measure(target: Target, fn: () => Promise<Partial<Measure> | void>): Promise<Measure> {
  target.reset();
  const before = cpuNow();
  const started = performance.now();
  const extra = (await fn()) ?? {};
  const ms = performance.now() - started;
  const after = cpuNow();
  const cpu = after.ours - before.ours;
  return {
    ms,
    cpu,
    others: Math.max(0, ((after.machine - before.machine - cpu) * 1000 * 100) / ms),
    hits: target.hits,
    maxInFlight: target.maxInFlight,
    ...extra,
  };
}

interface RunDoc {
  runId: string;
  status: string;
  result?: string;
  summary?: { total?: number; passed: number };
  durability?: string;
  concurrency?: number;
  parallel?: { concurrency?: number };
  error?: string;
}

/** A runner per mode and concurrency: the settings on the runner and again on each run. */
const runnerName = (mode: Mode, concurrency: number) => `${NAME}-${mode}-c${concurrency}`;

function runBody(mode: Mode, concurrency: number): Record<string, unknown> {
  return {
    runner: runnerName(mode, concurrency),
    environment: NAME,
    durability: mode,
    ...(concurrency > 1 && accepted.run ? { concurrency } : {}),
  };
}

/** Keys dropped before results are compared: timings, durations, ids and timestamps. */
const VOLATILE =
  /^(duration|timeMs|durationMs|elapsedMs|runId|id|executionId|attempts?|startedAt|completedAt|createdAt|updatedAt|.*Time|.*At)$/;

function normalise(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalise);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([k]) => !VOLATILE.test(k))
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => [k, normalise(v)]),
    );
  return value;
}

/** The first path where two normalised documents differ, or undefined when they are equal. */
function firstDifference(a: unknown, b: unknown, at = '$'): string | undefined {
  if (Object.is(a, b)) return undefined;
  if (
    typeof a !== 'object' ||
    typeof b !== 'object' ||
    a === null ||
    b === null ||
    Array.isArray(a) !== Array.isArray(b)
  )
    return `${at}: ${JSON.stringify(a)?.slice(0, 80)} ≠ ${JSON.stringify(b)?.slice(0, 80)}`;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  if (Array.isArray(a) && a.length !== (b as unknown[]).length)
    return `${at}: length ${a.length} ≠ ${(b as unknown[]).length}`;
  for (const k of keys) {
    const d = firstDifference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${at}.${k}`);
    if (d) return d;
  }
  return undefined;
}

/** One Assay run: POST /v1/runs → the client sees it final (polling every 20 ms); checks it passed whole. */
async function assayRun(stack: LocalStack, mode: Mode, concurrency: number): Promise<Partial<Measure>> {
  let runId: string;
  try {
    runId = (await stack.call<{ runId: string }>('POST', '/v1/runs', runBody(mode, concurrency))).runId;
  } catch (err) {
    if (!(concurrency > 1 && accepted.run && refuses(err, 'concurrency'))) throw err;
    accepted.run = false;
    log(`POST /v1/runs refused "concurrency" (${String(err).slice(0, 200)}): left out from now on`);
    runId = (await stack.call<{ runId: string }>('POST', '/v1/runs', runBody(mode, concurrency))).runId;
  }
  const deadline = Date.now() + RUN_DEADLINE_MS;
  let run: RunDoc | undefined;
  while (Date.now() < deadline) {
    const doc = await stack.call<RunDoc>('GET', `/v1/runs/${runId}`);
    if (doc.status === 'completed' || doc.status === 'failed') {
      run = doc;
      break;
    }
    await sleep(20);
  }
  if (!run) throw new Error(`run ${runId} did not end within ${RUN_DEADLINE_MS / 60_000} minutes`);
  if (run.status !== 'completed' || run.result !== 'passed' || run.summary?.passed !== CASES)
    throw new Error(
      `${runnerName(mode, concurrency)}: run ${runId} did not pass: ${JSON.stringify(run).slice(0, 500)}`,
    );
  return {
    reported: `durability ${run.durability ?? '?'}, concurrency ${run.concurrency ?? run.parallel?.concurrency ?? '(not shown)'}`,
    runId,
  };
}

/** The run's results, normalised for comparison (outside any measurement). */
async function resultsOf(stack: LocalStack, runId: string): Promise<string> {
  const doc = await stack.call<{ result?: string; summary?: unknown; details?: { testCases?: unknown[] } }>(
    'GET',
    `/v1/runs/${runId}/results`,
  );
  return JSON.stringify(normalise({ result: doc.result, summary: doc.summary, testCases: doc.details?.testCases }));
}

/** `total` split into `parts` near-equal sizes (the larger first). */
const split = (total: number, parts: number) =>
  Array.from({ length: parts }, (_, i) => Math.floor(total / parts) + (i < total % parts ? 1 : 0)).filter((n) => n > 0);

/** Settles every promise, then throws the first failure: no child is left running behind an early rejection. */
async function all<T>(promises: Array<Promise<T>>): Promise<T[]> {
  const settled = await Promise.allSettled(promises);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
}

// ---------------------------------------------------------------------------------------------

/** `items` rotated by `by`: round r starts with the r-th tool, so no tool always goes first. */
const rotate = <T>(items: T[], by: number): T[] => items.map((_, i) => items[(i + by) % items.length]!);

interface Tool {
  name: string;
  run: () => Promise<Partial<Measure> | void>;
  assay?: { mode: Mode; concurrency: number };
}

async function setUp(stack: LocalStack, url: string): Promise<void> {
  await stack.call('POST', '/v1/environments', { name: NAME, variables: { base: url } });
  const width = String(CASES - 1).length;
  for (let c = 0; c < CASES; c++) {
    const flow = Array.from({ length: NODES_PER_CASE }, (_, n) => ({
      type: 'api',
      request: { method: 'GET', url: `{{base}}/users/${c * NODES_PER_CASE + n}` },
      assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
    }));
    await stack.call('POST', '/v1/test-cases', { name: `case ${String(c).padStart(width, '0')}`, folder: NAME, flow });
  }
  // Concurrency 16 first: the first runner tells whether the API takes the field.
  for (const concurrency of [...CONCURRENCIES].reverse())
    for (const mode of MODES) {
      const body = { name: runnerName(mode, concurrency), folder: NAME, durability: mode };
      if (concurrency === 1 || !accepted.runner) {
        await stack.call('POST', '/v1/runners', body);
        continue;
      }
      try {
        await stack.call('POST', '/v1/runners', { ...body, concurrency });
      } catch (err) {
        if (!refuses(err, 'concurrency')) throw err;
        accepted.runner = false;
        log(`POST /v1/runners refused "concurrency" (${String(err).slice(0, 200)}): left out`);
        await stack.call('POST', '/v1/runners', body);
      }
    }
}

function nprocOutput(): string {
  try {
    return execFileSync('nproc', { encoding: 'utf8' }).trim();
  } catch {
    return '?';
  }
}

const workers: ChildProcess[] = [];
let cleaning: Promise<void> | undefined;
let stackRef: LocalStack | undefined;
let targetRef: Target | undefined;
const tempDirs: string[] = [];

/** Removes the Newman collections, stops the workers, the stack, the target, then any child process still running (by pid); once. */
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
    for (const w of workers) {
      if (w.exitCode !== null || w.signalCode !== null) continue;
      const exited = new Promise<void>((r) => w.once('exit', () => r()));
      w.kill('SIGTERM');
      const timer = setTimeout(() => w.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    }
    await stackRef?.stop().catch((err: unknown) => log(`stack stop: ${String(err)}`));
    await targetRef?.close();
    for (const pid of children()) {
      try {
        process.kill(pid, 'SIGKILL');
        log(`killed leftover child process ${pid}`);
      } catch {
        // Gone meanwhile.
      }
    }
  })();
  return cleaning;
}

/** Set by SIGINT/SIGTERM: main's errors from then on are the stop's, not reported. */
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    stopping = true;
    log(`${signal}: stopping child processes`);
    void cleanup().finally(() => process.exit(130));
  });

async function main(): Promise<void> {
  const loadBefore = os.loadavg()[0]!;
  const startedAt = new Date();
  const target = await startTarget();
  targetRef = target;
  const stack = await startLocalStack(
    {
      ASSAY_RATE_LIMIT_PER_MINUTE: '10000000',
      ASSAY_QUOTA_CONCURRENT_RUNS: '1000000',
      ASSAY_QUOTA_RUNS_PER_MINUTE: '10000000',
    },
    { worker: WORKERS === 0 },
  );
  stackRef = stack;
  for (let i = 1; i <= WORKERS; i++)
    workers.push(await spawnWorkerProcess(stack, { env: { ASSAY_WORKER_INDEX: String(i) } }));
  log(`set-up: ${CASES} test cases × ${NODES_PER_CASE} API nodes, ${CONCURRENCIES.length * MODES.length} runners`);
  await setUp(stack, target.url);

  const whole = newmanCollection(target.url, NODES);
  const parts = split(NODES, NEWMAN_PROCESSES);
  const partFiles = new Map<number, string>();
  for (const n of new Set(parts)) partFiles.set(n, newmanCollection(target.url, n));
  for (const f of [whole, ...partFiles.values()]) tempDirs.push(path.dirname(f));

  const assayTool = (mode: Mode, concurrency: number): Tool => ({
    name: `Assay, concurrency ${concurrency}, \`durability: "${mode}"\``,
    run: () => assayRun(stack, mode, concurrency),
    assay: { mode, concurrency },
  });
  const newmanOne: Tool = {
    name: 'Newman 6 CLI, one process (start included)',
    run: () => newmanRun(whole).then(() => undefined),
  };
  const newmanMany: Tool = {
    name: `Newman 6 CLI, the suite split over ${parts.length} processes at once (starts included)`,
    run: () => all(parts.map((n) => newmanRun(partFiles.get(n)!))).then(() => undefined),
  };
  const loopSequential: Tool = {
    name: 'bare undici loop, sequential',
    run: () => undiciFloor(target.url, NODES).then(() => undefined),
  };
  const loopParallel: Tool = {
    name: `bare undici loops, ${PARALLEL} at once`,
    run: () => all(split(NODES, PARALLEL).map((n) => undiciFloor(target.url, n))).then(() => undefined),
  };

  // Warm-up on the fast target: connections, JIT, workflow cache, one run per runner kind used.
  target.delayMs = FAST_MS;
  log(`warm-up (${WORKERS === 0 ? 'worker in this process' : `${WORKERS} worker process(es)`})`);
  await undiciFloor(target.url, 200);
  await newmanRun(partFiles.get(parts[0]!)!);
  for (const mode of MODES) await assayRun(stack, mode, PARALLEL);
  const parallelOk = parallelAvailable();

  const results = new Map<Tool, Measure[]>();
  const record = async (t: Tool) => {
    const m = await measure(target, t.run);
    if (m.runId) m.results = await resultsOf(stack, m.runId);
    if (m.hits !== NODES) log(`warning: ${t.name} sent ${m.hits} requests to the target, not ${NODES}`);
    if (!results.has(t)) results.set(t, []);
    results.get(t)!.push(m);
    log(`  ${t.name}: ${m.ms.toFixed(0)} ms, ${m.hits} requests, at most ${m.maxInFlight} in flight`);
  };

  // Part a: latency-bound.
  const toolsA: Tool[] = [
    newmanOne,
    ...(parallelOk ? MODES.map((mode) => assayTool(mode, PARALLEL)) : []),
    ...(SEQUENTIAL ? [assayTool('node', 1)] : []),
  ];
  target.delayMs = SLOW_MS;
  for (let r = 0; r < REPEAT; r++) {
    log(`part a (target answers after ${SLOW_MS} ms), round ${r + 1} of ${REPEAT}`);
    for (const t of rotate(toolsA, r)) await record(t);
  }

  // Part b: CPU-bound.
  const toolsB: Tool[] = [
    loopSequential,
    loopParallel,
    newmanOne,
    newmanMany,
    ...CONCURRENCIES.filter((c) => c === 1 || parallelOk).flatMap((c) => MODES.map((mode) => assayTool(mode, c))),
  ];
  // newmanOne appears in both parts: its part-b figures are kept apart.
  const partA = new Map([...results].map(([t, ms]) => [t, [...ms]]));
  results.clear();
  target.delayMs = FAST_MS;
  for (let r = 0; r < REPEAT; r++) {
    log(`part b (target answers at once), round ${r + 1} of ${REPEAT}`);
    for (const t of rotate(toolsB, r)) await record(t);
  }
  const partB = results;

  // Results of every Assay run against the sequential run's.
  const assayRuns = [...partA, ...partB].flatMap(([t, ms]) => (t.assay ? ms.map((m) => ({ t, m })) : []));
  const reference =
    [...partA].find(([t]) => t.assay?.concurrency === 1)?.[1][0]?.results ??
    [...partB].find(([t]) => t.assay?.concurrency === 1 && t.assay.mode === 'node')?.[1][0]?.results;
  const sameAsSequential = (ms: Measure[]): string => {
    if (!reference) return '?';
    const diffs = ms
      .map((m) =>
        m.results === reference ? undefined : firstDifference(JSON.parse(m.results!), JSON.parse(reference)),
      )
      .filter(Boolean);
    return diffs.length === 0 ? 'yes' : `**no** (${diffs[0]})`;
  };
  const allEqual = assayRuns.every(({ m }) => m.results === reference);

  const med = (ms: Measure[], f: (m: Measure) => number) => median(ms.map(f));
  const perNodeCpu = (ms: Measure[]) => `${((med(ms, (m) => m.cpu) * 1e6) / NODES).toFixed(0)} µs`;
  const rate = (ms: number) => Math.round(NODES / (ms / 1000)).toLocaleString('en-US');
  const newmanA = partA.get(newmanOne) ? med(partA.get(newmanOne)!, (m) => m.ms) : NaN;
  const floorB = med(partB.get(loopSequential)!, (m) => m.ms);

  const rowA = (t: Tool, ms: Measure[]) => {
    const wall = med(ms, (m) => m.ms);
    return `| ${t.name} | ${(wall / 1000).toFixed(1)} | ${rate(wall)} | ${(wall / newmanA).toFixed(3)} | ${med(ms, (m) => m.maxInFlight)} | ${t.assay ? sameAsSequential(ms) : ''} |`;
  };
  const rowB = (t: Tool, ms: Measure[]) => {
    const wall = med(ms, (m) => m.ms);
    return `| ${t.name} | ${wall.toFixed(0)} | ${rate(wall)} | ${(wall / floorB).toFixed(1)} | ${perNodeCpu(ms)} | ${med(ms, (m) => m.others).toFixed(0)} % | ${t.assay ? sameAsSequential(ms) : ''} |`;
  };
  const goal = MODES.map((mode) => {
    const t = toolsA.find((x) => x.assay?.mode === mode && x.assay.concurrency === PARALLEL);
    return t ? med(partA.get(t)!, (m) => m.ms) / newmanA : NaN;
  });
  const reported = [
    ...new Map(
      [...partA, ...partB]
        .filter(([t]) => t.assay)
        .map(([t, ms]) => [t.name.replace('Assay, ', ''), ms.at(-1)?.reported ?? '?'] as const),
    ),
  ].map(([name, said]) => `${name} → ${said}`);
  const cpu = os.cpus();
  const out = [
    `Parallel suites: one runner of ${CASES} test cases × ${NODES_PER_CASE} API nodes (${NODES.toLocaleString('en-US')} GETs, one status assertion each), ${REPEAT === 1 ? 'one round' : `median of ${REPEAT} rounds (tools alternating)`}; ${WORKERS === 0 ? 'the worker in the bench process' : `${WORKERS} worker process(es)`}, store ${stack.config.database.type}`,
    `Machine: ${cpu.length} × ${cpu[0]?.model ?? 'cpu'} (nproc ${nprocOutput()}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.type()} ${os.release()}, Node ${process.version}; ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC; load average (1 min) at the start ${loadBefore.toFixed(2)}, at the end ${os.loadavg()[0]!.toFixed(2)}`,
    `\`concurrency\` accepted by the API on runners: ${accepted.runner ? 'yes' : 'no (400)'}, on runs: ${accepted.run ? 'yes' : 'no (400)'}${parallelOk ? '' : ': only concurrency 1 was measured'}`,
    '',
    `**a. Latency-bound** (the target answers each request after ${SLOW_MS} ms):`,
    '',
    '| tool | wall s | nodes/s | × Newman | most in flight at the target | results = sequential run |',
    '|---|---:|---:|---:|---:|---|',
    ...toolsA.map((t) => rowA(t, partA.get(t)!)),
    '',
    `Goal, Assay at concurrency ${PARALLEL} ≤ 0.1 × Newman: ${MODES.map((m, i) => `${m} ${Number.isNaN(goal[i]!) ? 'not measured' : `${goal[i]!.toFixed(3)} ×`}`).join(', ')}: ${goal.some((g) => Number.isNaN(g)) ? 'not measured' : goal.every((g) => g <= 0.1) ? 'met' : 'not met'}`,
    `Latency floors: ${NODES.toLocaleString('en-US')} × ${SLOW_MS} ms = ${((NODES * SLOW_MS) / 1000).toFixed(1)} s one request at a time, ${((NODES * SLOW_MS) / PARALLEL / 1000).toFixed(1)} s with ${PARALLEL} in flight.`,
    '',
    `**b. CPU-bound** (the target answers at once):`,
    '',
    '| tool | wall ms | nodes/s | × sequential loop | CPU per node (bench processes) | others (% of a core) | results = sequential run |',
    '|---|---:|---:|---:|---:|---:|---|',
    ...toolsB.map((t) => rowB(t, partB.get(t)!)),
    '',
    `Results of every Assay run equal the sequential run's (GET /v1/runs/{id}/results: result, summary, test cases in order; timings, ids, timestamps dropped): ${reference ? (allEqual ? 'yes' : 'no') : 'no sequential run to compare with'}`,
    `As GET /v1/runs/{id} reported them: ${reported.join('; ')}`,
  ].join('\n');
  process.stdout.write(`${out}\n`);
}

void main()
  .then(
    () => 0,
    (err: unknown) => {
      if (!stopping) console.error(err);
      return 1;
    },
  )
  .then(async (code) => {
    await cleanup();
    process.exit(code);
  });
