/**
 * `make bench`: functional runs in the two durability modes (docs/durability.md "Durability
 * modes"), side by side with Newman and a bare undici loop, in one process run, against one
 * loopback `node:http` server (bench/run-overhead.ts's, whose helpers this bench reuses).
 *
 * 1. One run of 200 API nodes alone (`POST /v1/runs` → `completed`, wall time seen by the client):
 *    Assay with `durability: "node"` (20 test cases × 10 GETs, one assertion each, as
 *    bench/run-overhead.ts) and `durability: "testCase"` (the same 20 × 10, and 1 test case × 200);
 *    the same 200 requests as one Newman CLI process (process start included); the bare loop
 *    (200 sequential undici requests) as the floor.
 * 2. RUNS (20) such runs at once: aggregate nodes/s from the first POST to the last run's
 *    `completedAt`; RUNS Newman processes in parallel; RUNS bare loops at once.
 *
 * The mode is asked for twice: on each runner (`durability` of POST /v1/runners) and on each run
 * (`durability` of POST /v1/runs). An API that does not know the field yet answers 400: the bench
 * then leaves it out and says so (both modes then run the default). The effective mode is read
 * back from GET /v1/runs/{id} (`durability`) and from one run's Temporal history (local-activity
 * markers against activity tasks), printed under the table.
 *
 * Env: BENCH_REPEAT (3 rounds, the tools alternating within each; medians printed),
 * BENCH_DURABILITY_RUNS (20), BENCH_DURABILITY_WORKERS (1 worker process, `main.js worker`;
 * 0 = the worker inside this process, as bench/run-overhead.ts), ASSAY_CPU_PROFILE_DIR (worker
 * processes write V8 CPU profiles there: `--cpu-prof`). Uses the Temporal server at
 * TEMPORAL_ADDRESS or starts a dev server; the store in DATABASE_URL or an embedded SQLite file.
 * Everything binds to loopback; loops are bounded.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { Client, Connection } from '@temporalio/client';
import { runAndWait, spawnWorkerProcess, startLocalStack, type LocalStack } from '../bin/local-stack';
import { median, newmanCollection, newmanRun, startTargetServer, undiciFloor } from './run-overhead';
import { cpuBetween, cpuSnapshot } from './scaling';

const NODES = 200;
const RUNS = Number(process.env.BENCH_DURABILITY_RUNS ?? 20);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 3);
const WORKERS = Number(process.env.BENCH_DURABILITY_WORKERS ?? 1);
/** Names of this bench's resources: unique, so a store kept from an earlier bench is no obstacle. */
const NAME = `durability-${process.pid}-${Date.now()}`;

type Mode = 'node' | 'testCase';
interface Shape {
  key: string;
  cases: number;
  nodesPerCase: number;
}
const SHAPES: Record<'cases' | 'one', Shape> = {
  cases: { key: 'cases', cases: 20, nodesPerCase: 10 },
  one: { key: 'one', cases: 1, nodesPerCase: 200 },
};
interface Variant {
  mode: Mode;
  shape: Shape;
  runner: string;
}
const VARIANTS: Variant[] = [
  { mode: 'node', shape: SHAPES.cases, runner: `${NAME}-cases-node` },
  { mode: 'testCase', shape: SHAPES.cases, runner: `${NAME}-cases-testCase` },
  { mode: 'testCase', shape: SHAPES.one, runner: `${NAME}-one-testCase` },
];
const variantName = (v: Variant) => `Assay, \`durability: "${v.mode}"\` (${v.shape.cases} × ${v.shape.nodesPerCase})`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (m: string) => process.stderr.write(`${m}\n`);
const isDurabilityRefusal = (err: unknown) => /: 400 /.test(String(err)) && /durability/i.test(String(err));

/** Whether the API took `durability` on runners and on runs (false: refused with a 400 and left out). */
const accepted = { runner: true, run: true };

interface RunDoc {
  runId: string;
  status: string;
  result?: string;
  summary?: { passed: number; total?: number };
  completedAt?: string;
  durability?: string;
  error?: string;
}

function runBody(v: Variant): { runner: string; environment: string; durability?: Mode } {
  return accepted.run
    ? { runner: v.runner, environment: NAME, durability: v.mode }
    : { runner: v.runner, environment: NAME };
}

/** Notes that the API refused `durability` on runs: it is left out from now on. */
function refusedOnRuns(err: unknown): void {
  accepted.run = false;
  log(`POST /v1/runs refused "durability" (${String(err).slice(0, 200)}): left out from now on`);
}

/** POST /v1/runs with the mode (without it once the API refused the field). */
async function postRun(stack: LocalStack, v: Variant): Promise<string> {
  try {
    return (await stack.call<{ runId: string }>('POST', '/v1/runs', runBody(v))).runId;
  } catch (err) {
    if (!accepted.run || !isDurabilityRefusal(err)) throw err;
    refusedOnRuns(err);
    return (await stack.call<{ runId: string }>('POST', '/v1/runs', runBody(v))).runId;
  }
}

function checkPassed(v: Variant, run: RunDoc): void {
  if (run.status !== 'completed' || run.result !== 'passed' || run.summary?.passed !== v.shape.cases)
    throw new Error(`${v.runner}: run ${run.runId} did not pass: ${JSON.stringify(run).slice(0, 500)}`);
}

/** Effective durability as GET /v1/runs/{id} reports it, by variant (the last run seen). */
const reported = new Map<Variant, string>();
/** One run id per variant, for the history check. */
const sample = new Map<Variant, string>();

/** One run alone: POST → the client sees `completed` (polling every 10 ms, as bench/run-overhead.ts). */
async function assaySingle(stack: LocalStack, v: Variant): Promise<number> {
  for (;;) {
    const started = performance.now();
    let run: RunDoc;
    try {
      run = await runAndWait<RunDoc>(stack, runBody(v));
    } catch (err) {
      if (!accepted.run || !isDurabilityRefusal(err)) throw err;
      refusedOnRuns(err);
      continue;
    }
    const wall = performance.now() - started;
    checkPassed(v, run);
    reported.set(v, run.durability ?? '(not shown)');
    sample.set(v, run.runId);
    return wall;
  }
}

/** RUNS runs at once: ms from before the first POST to the latest `completedAt` (server clock, same machine). */
async function assayBurst(stack: LocalStack, v: Variant, count = RUNS): Promise<number> {
  const started = Date.now();
  const ids = await Promise.all(Array.from({ length: count }, () => postRun(stack, v)));
  const open = new Set(ids);
  let last = 0;
  for (let i = 0; i < 6_000 && open.size > 0; i++) {
    await sleep(100);
    for (const id of [...open]) {
      const run = await stack.call<RunDoc>('GET', `/v1/runs/${id}`);
      if (run.status !== 'completed' && run.status !== 'failed') continue;
      checkPassed(v, run);
      open.delete(id);
      last = Math.max(last, Date.parse(run.completedAt!));
    }
  }
  if (open.size > 0) throw new Error(`${open.size} runs of ${v.runner} did not end within 10 minutes`);
  return last - started;
}

async function newmanParallel(collection: string): Promise<number> {
  const started = performance.now();
  await Promise.all(Array.from({ length: RUNS }, () => newmanRun(collection)));
  return performance.now() - started;
}

async function loopsParallel(url: string): Promise<number> {
  const started = performance.now();
  await Promise.all(Array.from({ length: RUNS }, () => undiciFloor(url)));
  return performance.now() - started;
}

/** Local-activity markers and activity tasks in a run's workflow history: how its nodes were run. */
async function historyShape(stack: LocalStack, runId: string): Promise<string> {
  const connection = await Connection.connect({ address: stack.config.temporal.address });
  try {
    const client = new Client({ connection, namespace: stack.config.temporal.namespace });
    const history = await client.workflow.getHandle(`run-${runId}`).fetchHistory();
    const events = history.events ?? [];
    const markers = events.filter((e) => e.markerRecordedEventAttributes).length;
    const activities = new Map<string, number>();
    for (const e of events) {
      const type = e.activityTaskScheduledEventAttributes?.activityType?.name;
      if (type) activities.set(type, (activities.get(type) ?? 0) + 1);
    }
    const acts = [...activities].map(([t, n]) => `${t} × ${n}`).join(', ');
    return `${events.length} events, ${markers} local-activity markers, activities: ${acts || 'none'}`;
  } catch (err) {
    return `history not read (${String(err).slice(0, 120)})`;
  } finally {
    await connection.close();
  }
}

async function setUp(stack: LocalStack, url: string): Promise<void> {
  await stack.call('POST', '/v1/environments', { name: NAME, variables: { base: url } });
  for (const shape of Object.values(SHAPES)) {
    for (let c = 0; c < shape.cases; c++) {
      const flow = Array.from({ length: shape.nodesPerCase }, (_, n) => ({
        type: 'api',
        request: { method: 'GET', url: `{{base}}/users/${c * shape.nodesPerCase + n}` },
        assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
      }));
      const name = `case ${String(c).padStart(2, '0')}`;
      await stack.call('POST', '/v1/test-cases', { name, folder: `${NAME}-${shape.key}`, flow });
    }
  }
  for (const v of VARIANTS) {
    const body = { name: v.runner, folder: `${NAME}-${v.shape.key}` };
    try {
      await stack.call('POST', '/v1/runners', accepted.runner ? { ...body, durability: v.mode } : body);
    } catch (err) {
      if (!accepted.runner || !isDurabilityRefusal(err)) throw err;
      accepted.runner = false;
      log(`POST /v1/runners refused "durability" (${String(err).slice(0, 200)}): left out`);
      await stack.call('POST', '/v1/runners', body);
    }
  }
}

/** A process's parent pid (/proc/<pid>/stat field 4), 0 when it is gone or not Linux. */
function parentOf(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return 0;
  }
}

/** `items` rotated by `by`: round r starts with the r-th tool, so no tool always goes first. */
const rotate = <T>(items: T[], by: number): T[] => items.map((_, i) => items[(i + by) % items.length]!);

async function main(): Promise<void> {
  // Other work on the machine skews every figure: the load average is printed with them.
  const loadBefore = os.loadavg()[0]!;
  const target = await startTargetServer();
  const stack = await startLocalStack(
    {
      ASSAY_RATE_LIMIT_PER_MINUTE: '10000000',
      ASSAY_QUOTA_CONCURRENT_RUNS: '1000000',
      ASSAY_QUOTA_RUNS_PER_MINUTE: '10000000',
    },
    { worker: WORKERS === 0 },
  );
  const workers: ChildProcess[] = [];
  try {
    for (let i = 1; i <= WORKERS; i++)
      workers.push(
        await spawnWorkerProcess(stack, {
          env: { ASSAY_WORKER_INDEX: String(i) },
          nodeArgs: process.env.ASSAY_CPU_PROFILE_DIR
            ? ['--cpu-prof', `--cpu-prof-dir=${process.env.ASSAY_CPU_PROFILE_DIR}`]
            : [],
        }),
      );
    await setUp(stack, target.url);
    const collection = newmanCollection(target.url);

    type Tool = { name: string; single: () => Promise<number>; burst: () => Promise<number>; variant?: Variant };
    const tools: Tool[] = [
      { name: 'bare undici loop', single: () => undiciFloor(target.url), burst: () => loopsParallel(target.url) },
      {
        name: 'Newman 6 CLI (process start included)',
        single: () => newmanRun(collection),
        burst: () => newmanParallel(collection),
      },
      ...VARIANTS.map((v) => ({
        name: variantName(v),
        single: () => assaySingle(stack, v),
        burst: () => assayBurst(stack, v),
        variant: v,
      })),
    ];

    log(`warm-up (${WORKERS === 0 ? 'worker in this process' : `${WORKERS} worker process(es)`})`);
    for (const t of tools) {
      await t.single();
      if (t.variant) await assayBurst(stack, t.variant, Math.min(RUNS, 4));
    }
    const single = new Map<Tool, number[]>(tools.map((t) => [t, []]));
    const burst = new Map<Tool, number[]>(tools.map((t) => [t, []]));
    for (let r = 0; r < REPEAT; r++) {
      for (const t of rotate(tools, r)) single.get(t)!.push(await t.single());
      for (const t of rotate(tools, r)) burst.get(t)!.push(await t.burst());
      log(
        `round ${r + 1}: ${tools.map((t) => `${t.name}: ${single.get(t)!.at(-1)!.toFixed(0)} / ${burst.get(t)!.at(-1)!.toFixed(0)} ms`).join('; ')}`,
      );
    }

    // Where the CPU goes: one more burst of each Assay variant (/proc). This bench's processes (itself,
    // the workers, the Temporal dev server it started) apart from the rest of the machine's.
    const cpuRows: string[] = [];
    const names = new Map<number, string>([
      [process.pid, WORKERS === 0 ? 'bench (API + target + worker)' : 'bench (API + target)'],
      ...workers.map((w, i) => [w.pid!, `worker ${i + 1}`] as [number, string]),
    ]);
    const ours = (pid: number) => names.has(pid) || parentOf(pid) === process.pid;
    const split = (snap: ReturnType<typeof cpuSnapshot>, mine: boolean) =>
      new Map([...snap].filter(([pid]) => ours(pid) === mine));
    const perNode = (s: number) => `${((s * 1e6) / (NODES * RUNS)).toFixed(0)} µs`;
    for (const t of tools.filter((x) => x.variant)) {
      const before = cpuSnapshot();
      const ms = await t.burst();
      const after = cpuSnapshot();
      const used = cpuBetween(split(before, true), split(after, true), (pid, name) => names.get(pid) ?? name);
      const others = cpuBetween(split(before, false), split(after, false), (_pid, name) => name);
      const sum = (xs: Array<{ seconds: number }>) => xs.reduce((s, u) => s + u.seconds, 0);
      cpuRows.push(
        `| ${t.name} | ${ms.toFixed(0)} ms | ${perNode(sum(used))} | ${used
          .map((u) => `${u.what} ${perNode(u.seconds)}`)
          .join(', ')} | ${((sum(others) * 1000 * 100) / ms).toFixed(0)} % |`,
      );
    }
    const histories: string[] = [];
    for (const v of VARIANTS) {
      const id = sample.get(v);
      histories.push(
        `- ${variantName(v)}: GET /v1/runs says durability ${reported.get(v) ?? '?'}; one run's history: ${id ? await historyShape(stack, id) : 'no run'}`,
      );
    }

    const floorSingle = median(single.get(tools[0]!)!);
    const floorBurst = median(burst.get(tools[0]!)!);
    const row = (scenario: string, name: string, ms: number, nodes: number, floor: number) =>
      `| ${scenario} | ${name} | ${ms.toFixed(0)} | ${Math.round(nodes / (ms / 1000)).toLocaleString('en-US')} | ${(ms / floor).toFixed(1)} |`;
    const tc = VARIANTS.filter((v) => v.mode === 'testCase');
    const tcSingle = tc.map((v) => median(single.get(tools.find((t) => t.variant === v)!)!));
    const tcRate = tc.map((v) => (NODES * RUNS) / (median(burst.get(tools.find((t) => t.variant === v)!)!) / 1000));
    const out = [
      `Durability modes: ${NODES} API nodes per run, one assertion each, median of ${REPEAT} rounds (tools alternating); ${WORKERS === 0 ? 'the worker in the bench process' : `${WORKERS} worker process(es)`}`,
      `Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, store ${stack.config.database.type}; load average (1 min) at the start ${loadBefore.toFixed(2)}, at the end ${os.loadavg()[0]!.toFixed(2)}`,
      `durability sent on runners: ${accepted.runner ? 'yes' : 'no (refused)'}, on runs: ${accepted.run ? 'yes' : 'no (refused)'}`,
      '',
      '| scenario | tool | wall ms | nodes/s | × bare loop |',
      '|---|---|---:|---:|---:|',
      ...tools.map((t) => row(`one run, ${NODES} nodes`, t.name, median(single.get(t)!), NODES, floorSingle)),
      ...tools.map((t) =>
        row(
          `${RUNS} at once, ${(NODES * RUNS).toLocaleString('en-US')} nodes`,
          t.name,
          median(burst.get(t)!),
          NODES * RUNS,
          floorBurst,
        ),
      ),
      '',
      `Goal, ≥ 5,000 nodes/s aggregate with testCase: ${tcRate.map((r) => r.toFixed(0)).join(' / ')} nodes/s (${tc.map((v) => `${v.shape.cases} × ${v.shape.nodesPerCase}`).join(' / ')}): ${tcRate.some((r) => r >= 5000) ? 'met' : 'not met'}`,
      `Goal, one run of ${NODES} nodes within 2 × the bare loop (${floorSingle.toFixed(0)} ms): testCase ${tcSingle.map((m) => `${(m / floorSingle).toFixed(1)} ×`).join(' / ')}: ${tcSingle.some((m) => m <= 2 * floorSingle) ? 'met' : 'not met'}`,
      '',
      'Modes as run:',
      ...histories,
      '',
      `CPU per node during one more burst of ${RUNS} runs (/proc; other processes: the rest of the machine's CPU during the burst, in % of one core):`,
      '',
      '| tool | burst | this bench, per node | by process, per node | other processes |',
      '|---|---:|---:|---|---:|',
      ...cpuRows,
    ].join('\n');
    process.stdout.write(`${out}\n`);
  } finally {
    for (const w of workers) {
      if (w.exitCode !== null || w.signalCode !== null) continue;
      const exited = new Promise<void>((r) => w.once('exit', () => r()));
      w.kill('SIGTERM');
      const timer = setTimeout(() => w.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    }
    await stack.stop();
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
