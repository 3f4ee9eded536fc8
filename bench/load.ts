/**
 * `make bench`: Assay's load generator (performance runs, docs/performance.md) against autocannon
 * and k6, side by side in one run, on one loopback target — a bare `node:http` server in a child
 * process answering a small JSON body — with the same connections/VUs, the same duration and one
 * status check per request:
 *
 * 1. throughput: the most requests per second each makes (target answers at once), one scenario per
 *    VU count;
 * 2. latency: what each reports for a target with a fixed added delay (p50 and p99 should agree
 *    within 10 %).
 *
 * Per tool: requests/s, its ratio to k6's and to autocannon's, p50/p95/p99 in ms as the tool itself
 * reports them, CPU µs per request, the target's CPU µs per request during that tool's run, and the
 * failed requests (non-2xx, errors and failed checks). p95: k6's `p(95)` (summaryTrendStats);
 * Assay's `p95ResponseTime` (GET /v1/runs/{id}/results, src/perf/metrics.ts); autocannon 9 reports no
 * p95 (its percentiles are hdr-histogram-percentiles-obj's: …, 90, 97.5, 99, …), so its column
 * shows its p97.5, marked as such; it records latency in whole ms, rounded down (hdr-histogram-js,
 * integer buckets: under 1 ms reads 0). CPU: k6 and autocannon run as child processes of a shell
 * that reads its own `cutime`/`cstime` (/proc/[pid]/stat fields 16 and 17, proc(5): the CPU of its
 * waited children, all their threads) after the tool exits — the tool's process from start to exit, in
 * clock ticks (`getconf CLK_TCK`, 10 ms here); Assay's is the whole local-stack process (API,
 * worker, load threads; `process.cpuUsage()` over the run, its start and the polling included; the
 * Temporal dev server, a process of its own, not counted); the target's is its `utime`+`stime`
 * (fields 14 and 15) before and after each tool's run.
 *
 * Placement: with `taskset` and at least 4 cores in this process's affinity list, the target is
 * pinned to the last of them and this process (hence the local stack, Assay's load threads, the
 * Temporal dev server, k6 and autocannon, all started after) to the others; otherwise nothing is
 * pinned and everything shares the cores (the printed header says which). Assay's load threads:
 * `ASSAY_LOAD_THREADS` as the environment sets it, else the default of src/config.ts; the number used
 * is printed.
 *
 * k6 is looked up on PATH and in ~/.cache/assay/bin (scripts/k6.sh builds it from the Go module
 * proxy); without it, its rows say so. Assay runs a real performance run: POST /v1/runs with a
 * constant-vus profile, the load shard in the worker of a local stack (Temporal dev server or
 * TEMPORAL_ADDRESS), figures from GET /v1/runs/{id}/results. Prints Markdown tables (one per VU
 * count, then the latency one) for docs/benchmarks.md; progress goes to stderr.
 *
 * Env: BENCH_LOAD_SECONDS (default 10) seconds per tool and round; BENCH_LOAD_VUS (default
 * "50,200,1000": one throughput scenario per count); BENCH_REPEAT (default 3) rounds of each
 * scenario, the tools alternating within a round, each tool's round with the median requests/s
 * printed (its latency and CPU from that round) and every round's requests/s below the table;
 * BENCH_LOAD_TOOLS (default "autocannon,k6,assay") picks the tools (`assay` alone: to profile it,
 * e.g. with `--cpu-prof`); BENCH_LOAD_LATENCY=0 leaves the latency scenario (one round) out.
 * Everything binds to loopback. Linux: the CPU figures read /proc (elsewhere they print "n/a").
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startLocalStack, type LocalStack } from '../bin/local-stack';

const SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 10);
const VUS = (process.env.BENCH_LOAD_VUS ?? '50,200,1000').split(',').map(Number);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 3);
const TOOLS = (process.env.BENCH_LOAD_TOOLS ?? 'autocannon,k6,assay').split(',');
const LATENCY = process.env.BENCH_LOAD_LATENCY !== '0';
const DELAY_MS = 20;
const DELAY_VUS = 20;

/** Clock ticks per second of /proc/[pid]/stat's times (`getconf CLK_TCK`; 100 when it cannot say). */
const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim()) || 100;

interface Figures {
  tool: string;
  requests: number;
  rps: number;
  /** Latency percentiles in ms, as the tool reports them. */
  p50: number;
  /** The tool's p95 in ms; where it reports none, the percentile named by {@link p95Label}. */
  p95: number;
  /** Set when {@link p95} is another percentile (autocannon: `p97.5`). */
  p95Label?: string;
  p99: number;
  failed: number;
  /**
   * CPU µs per request of the load generator: k6 and autocannon their process from start to exit;
   * Assay the whole local-stack process (API, worker, load threads), the run's start included.
   */
  cpuUsPerRequest?: number;
  /** CPU µs per request of the target process over this tool's run. */
  targetCpuUsPerRequest?: number;
  /** Assay only: this process's RSS before and after the run, MB. */
  rssStartMb?: number;
  rssEndMb?: number;
  note?: string;
}

/** The fields of /proc/[pid]/stat from field 3 (state) on: index i is field i + 3 (proc(5)). */
function statFields(stat: string): string[] {
  // Field 2, the command name in parentheses, may hold spaces: count from its closing parenthesis.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** A process's own CPU (utime + stime, fields 14 and 15) in µs; undefined without /proc. */
function processCpuUs(pid: number): number | undefined {
  try {
    const f = statFields(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
    return ((Number(f[11]) + Number(f[12])) * 1e6) / CLK_TCK;
  } catch {
    return undefined;
  }
}

/** "0-3,6" (taskset's list format) as [0, 1, 2, 3, 6]. */
function parseCpuList(list: string): number[] {
  return list.split(',').flatMap((part) => {
    const [a, b] = part.split('-').map(Number);
    if (a === undefined || Number.isNaN(a)) return [];
    return Array.from({ length: (b ?? a) - a + 1 }, (_, i) => a + i);
  });
}

interface Placement {
  /** The command prefix that pins the target (`taskset -c N`), empty when not pinned. */
  targetPrefix: string[];
  /** One sentence for the printed header. */
  description: string;
}

/**
 * Pins the target apart when it can: `taskset` present and ≥ 4 cores in this process's affinity
 * list → the target on the last core, this process (and every thread and child it starts from now
 * on) on the others. Call before starting the stack.
 */
function placeProcesses(): Placement {
  const current = spawnSync('taskset', ['-cp', String(process.pid)], { encoding: 'utf8' });
  if (current.error || current.status !== 0)
    return {
      targetPrefix: [],
      description: `Nothing pinned (no taskset): target, load generators and the stack share ${os.availableParallelism()} cores.`,
    };
  const cpus = parseCpuList(current.stdout.split(':').pop()!.trim());
  if (cpus.length < 4)
    return {
      targetPrefix: [],
      description: `Nothing pinned (${cpus.length} cores): target, load generators and the stack share them.`,
    };
  const target = cpus.at(-1)!;
  const rest = cpus.slice(0, -1).join(',');
  const pin = spawnSync('taskset', ['-a', '-cp', rest, String(process.pid)], { encoding: 'utf8' });
  if (pin.status !== 0)
    return {
      targetPrefix: [],
      description: `Nothing pinned (taskset refused: ${pin.stderr.trim()}): everything shares ${cpus.length} cores.`,
    };
  return {
    targetPrefix: ['taskset', '-c', String(target)],
    description: `Target pinned to core ${target} (taskset); this process (the stack, Assay's load threads, the Temporal dev server), k6 and autocannon to cores ${rest}.`,
  };
}

interface Target {
  url: string;
  /** The target's CPU so far, µs (undefined without /proc). */
  cpuUs(): number | undefined;
  stop(): void;
}

/** The target in its own process (pinned per `placement`): answers a small JSON body after `delayMs`. */
async function startTarget(delayMs: number, placement: Placement): Promise<Target> {
  const code = `
    const http = require('node:http');
    const body = JSON.stringify({ id: 1, name: 'Ada', ok: true });
    const server = http.createServer((req, res) => {
      const answer = () => { res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }); res.end(body); };
      ${delayMs} > 0 ? setTimeout(answer, ${delayMs}) : answer();
    });
    server.keepAliveTimeout = 120000;
    server.listen(0, '127.0.0.1', () => console.log(server.address().port));`;
  const [cmd, ...prefix] = [...placement.targetPrefix, process.execPath];
  // taskset execs the command: the child's pid is the target's.
  const child = spawn(cmd!, [...prefix, '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout!.once('data', (d: Buffer) => resolve(d.toString().trim()));
    child.once('exit', (c) => reject(new Error(`the target exited ${c}`)));
  });
  return { url: `http://127.0.0.1:${port}/item`, cpuUs: () => processCpuUs(child.pid!), stop: () => child.kill() };
}

/**
 * The shell around a measured tool: runs it (fd 3 closed for it), then, the tool waited for, writes
 * the shell's own /proc/[pid]/stat to fd 3 — its cutime/cstime are then the tool's CPU — and exits
 * with the tool's status.
 */
const MEASURING_SHELL = '"$@" 3>&-; rc=$?; cat /proc/$$/stat >&3 2>/dev/null; exit $rc';

/**
 * Runs `cmd args` to its end through {@link MEASURING_SHELL}. Resolves with its stdout and its CPU
 * (user + system of the process and all its threads, start to exit) in µs — undefined without
 * /proc; rejects when it exits non-zero (the end of its stderr in the message).
 */
function runMeasured(cmd: string, args: string[]): Promise<{ stdout: string; cpuUs?: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', MEASURING_SHELL, 'sh', cmd, ...args], {
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let stat = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.stdio[3]!.on('data', (d: Buffer) => (stat += d.toString()));
    child.on('error', reject);
    // 'close', not 'exit': every stream read to its end.
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`${cmd} exited ${code}: ${err.slice(-500)}`));
      const f = stat ? statFields(stat) : [];
      const ticks = Number(f[13]) + Number(f[14]);
      resolve({ stdout: out, cpuUs: Number.isFinite(ticks) ? (ticks * 1e6) / CLK_TCK : undefined });
    });
  });
}

const perRequest = (us: number | undefined, requests: number) =>
  us === undefined ? undefined : Math.round(us / Math.max(1, requests));

async function autocannon(url: string, connections: number, seconds: number): Promise<Figures> {
  const bin = path.resolve(__dirname, '../../node_modules/autocannon/autocannon.js');
  const { stdout, cpuUs } = await runMeasured(process.execPath, [
    bin,
    '-c',
    String(connections),
    '-d',
    String(seconds),
    '-j',
    url,
  ]);
  const out = JSON.parse(stdout) as {
    requests: { total: number; average: number };
    latency: { p50: number; p97_5: number; p99: number };
    non2xx: number;
    errors: number;
  };
  // autocannon counts a non-2xx answer: its status check.
  return {
    tool: 'autocannon 9',
    requests: out.requests.total,
    rps: out.requests.total / seconds,
    p50: out.latency.p50,
    // No p95 in its output: p97.5 is the nearest it reports (then 90).
    p95: out.latency.p97_5,
    p95Label: 'p97.5',
    p99: out.latency.p99,
    failed: out.non2xx + out.errors,
    cpuUsPerRequest: perRequest(cpuUs, out.requests.total),
  };
}

function k6Binary(): string | undefined {
  const candidates = [
    path.join(os.homedir(), '.cache/assay/bin/k6'),
    ...(process.env.PATH ?? '').split(':').map((d) => path.join(d, 'k6')),
  ];
  return candidates.find((c) => fs.existsSync(c));
}

async function k6(url: string, vus: number, seconds: number): Promise<Figures> {
  const bin = k6Binary();
  if (!bin)
    return {
      tool: 'k6',
      requests: 0,
      rps: 0,
      p50: 0,
      p95: 0,
      p99: 0,
      failed: 0,
      note: 'not installed (scripts/k6.sh builds it)',
    };
  const version = spawnSync(bin, ['version'], { encoding: 'utf8' }).stdout.split(' ')[1] ?? '';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-k6-'));
  const script = path.join(dir, 'script.js');
  const summary = path.join(dir, 'summary.json');
  fs.writeFileSync(
    script,
    `import http from 'k6/http';
import { check } from 'k6';
export const options = { vus: ${vus}, duration: '${seconds}s', summaryTrendStats: ['avg', 'med', 'p(95)', 'p(99)'] };
export default function () {
  const res = http.get('${url}');
  check(res, { 'status is 200': (r) => r.status === 200 });
}
`,
  );
  const { cpuUs } = await runMeasured(bin, [
    'run',
    '--quiet',
    '--no-usage-report',
    `--summary-export=${summary}`,
    script,
  ]);
  const m = (JSON.parse(fs.readFileSync(summary, 'utf8')) as { metrics: Record<string, Record<string, number>> })
    .metrics;
  fs.rmSync(dir, { recursive: true, force: true });
  const requests = m.http_reqs!.count!;
  return {
    tool: `k6 ${version}`.trim(),
    requests,
    rps: requests / seconds,
    p50: m.http_req_duration!.med!,
    p95: m.http_req_duration!['p(95)']!,
    p99: m.http_req_duration!['p(99)']!,
    failed: m.checks!.fails ?? 0,
    cpuUsPerRequest: perRequest(cpuUs, requests),
  };
}

async function assay(stack: LocalStack, url: string, vus: number, seconds: number, runner: string): Promise<Figures> {
  const rssStart = process.memoryUsage().rss;
  // CPU of this whole process (API, worker, load threads) per request: steadier than requests/s on a shared machine.
  const cpuStart = process.cpuUsage();
  const { runId } = await stack.call<{ runId: string }>('POST', '/v1/runs', {
    runner,
    environment: 'bench',
    variables: { url },
    timeout: seconds + 120,
    performance: { executor: 'constant-vus', vus, duration: `${seconds}s` },
  });
  for (;;) {
    const r = await stack.call<{ status: string; error?: string }>('GET', `/v1/runs/${runId}`);
    if (r.status === 'completed') break;
    if (r.status === 'failed') throw new Error(`the Assay run failed: ${r.error}`);
    await new Promise((res) => setTimeout(res, 500));
  }
  const rssEnd = process.memoryUsage().rss;
  const cpu = process.cpuUsage(cpuStart);
  const { performance: p } = await stack.call<{
    performance: {
      requests: number;
      requestsPerSecond: number;
      medResponseTime: number;
      p95ResponseTime: number;
      p99ResponseTime: number;
      failedRequests: number;
      checks: { passed: number; total: number };
    };
  }>('GET', `/v1/runs/${runId}/results`);
  return {
    tool: 'Assay (performance run)',
    requests: p.requests,
    rps: p.requestsPerSecond,
    p50: p.medResponseTime,
    p95: p.p95ResponseTime,
    p99: p.p99ResponseTime,
    failed: p.failedRequests + (p.checks.total - p.checks.passed),
    rssStartMb: Math.round(rssStart / 1e6),
    rssEndMb: Math.round(rssEnd / 1e6),
    cpuUsPerRequest: perRequest(cpu.user + cpu.system, p.requests),
  };
}

/** Runs one tool against `target`, adding the target's CPU per request over that run. */
async function measure(target: Target, tool: () => Promise<Figures>): Promise<Figures> {
  const before = target.cpuUs();
  const f = await tool();
  const after = target.cpuUs();
  if (before !== undefined && after !== undefined && !f.note)
    f.targetCpuUsPerRequest = perRequest(after - before, f.requests);
  return f;
}

/** The figures of the round with the median requests/s. */
function medianByRps(figures: Figures[]): Figures {
  return [...figures].sort((a, b) => a.rps - b.rps)[Math.floor((figures.length - 1) / 2)]!;
}

const HEADER = [
  '| tool | requests/s | × k6 | × autocannon | p50 ms | p95 ms | p99 ms | CPU µs/request | target CPU µs/request | failed |',
  '|---|---|---|---|---|---|---|---|---|---|',
];

/** One table row; `k` and `ac` are the k6 and autocannon figures of the same table (for the ratios). */
function row(f: Figures, k: Figures | undefined, ac: Figures | undefined): string {
  if (f.note) return `| ${f.tool} | ${f.note} | | | | | | | | |`;
  const ratio = (to: Figures | undefined) => (to && !to.note && to.rps ? (f.rps / to.rps).toFixed(2) : 'n/a');
  const us = (v: number | undefined) => (v === undefined ? 'n/a' : v.toLocaleString('en'));
  const isAssay = f.tool.startsWith('Assay');
  return [
    '',
    f.tool,
    Math.round(f.rps).toLocaleString('en'),
    ratio(k),
    ratio(ac),
    f.p50.toFixed(2),
    `${f.p95.toFixed(2)}${f.p95Label ? ` (${f.p95Label})` : ''}`,
    f.p99.toFixed(2),
    `${us(f.cpuUsPerRequest)}${isAssay && f.cpuUsPerRequest !== undefined ? ' (whole process)' : ''}`,
    us(f.targetCpuUsPerRequest),
    f.failed,
    '',
  ]
    .join(' | ')
    .trim();
}

/** The table of one scenario's figures (one per tool). */
function table(figures: Figures[]): string[] {
  const by = (name: string) => figures.find((f) => f.tool.toLowerCase().startsWith(name));
  return [...HEADER, ...figures.map((f) => row(f, by('k6'), by('autocannon')))];
}

async function main(): Promise<void> {
  const placement = placeProcesses();
  // ASSAY_LOAD_THREADS only when the environment sets it (loadConfig reads process.env); else the default.
  const stack = await startLocalStack({ ASSAY_LOG_LEVEL: 'error' });
  try {
    await stack.call('POST', '/v1/environments', { name: 'bench', variables: {} });
    await stack.call('POST', '/v1/test-cases', {
      name: 'get item',
      folder: 'bench',
      flow: [
        {
          type: 'api',
          id: 'get',
          request: { method: 'GET', url: '{{url}}' },
          assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
        },
      ],
    });
    await stack.call('POST', '/v1/runners', { name: 'bench', folder: 'bench' });

    const threads = stack.config.load.threads;
    const lines: string[] = [];
    lines.push(
      `Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}; ${new Date().toISOString().slice(0, 10)}.`,
      placement.description,
      `Assay: ${threads} load thread${threads === 1 ? '' : 's'} (${process.env.ASSAY_LOAD_THREADS ? 'ASSAY_LOAD_THREADS from the environment' : "ASSAY_LOAD_THREADS unset: src/config.ts's default"}).`,
      "CPU µs/request: k6 and autocannon their own process from start to exit (user + system, all threads, /proc cutime/cstime of a wrapping shell); Assay the whole local-stack process (API, worker, load threads, the run's start; not the Temporal dev server); target: the target process over that tool's run.",
      'autocannon reports no p95 (its column shows its p97.5) and records latency in whole ms, rounded down (under 1 ms: 0).',
      '',
    );

    const tools = (url: string, vus: number) =>
      ({
        autocannon: () => autocannon(url, vus, SECONDS),
        k6: () => k6(url, vus, SECONDS),
        assay: () => assay(stack, url, vus, SECONDS, 'bench'),
      }) as Record<string, () => Promise<Figures>>;
    const fast = await startTarget(0, placement);
    try {
      for (const vus of VUS) {
        // Rounds alternate the tools, so that a noisy minute of the shared machine hits all of them.
        const rounds: Figures[][] = [];
        for (let r = 0; r < REPEAT; r++) {
          const round: Figures[] = [];
          for (const t of TOOLS) round.push(await measure(fast, tools(fast.url, vus)[t]!));
          rounds.push(round);
          console.error(
            `${vus} VUs, round ${r + 1}: ${round.map((f) => `${f.tool} ${Math.round(f.rps)}/s${f.cpuUsPerRequest !== undefined ? ` (${f.cpuUsPerRequest} µs CPU/request)` : ''}`).join(', ')}`,
          );
        }
        const median = TOOLS.map((_, i) => medianByRps(rounds.map((round) => round[i]!)));
        lines.push(
          `Throughput: ${vus} connections/VUs, ${SECONDS} s, target answers at once; one status check per request${REPEAT > 1 ? `; each tool's round with the median requests/s of ${REPEAT} alternating rounds` : ''}.`,
          '',
          ...table(median),
          '',
          `Requests/s of each round: ${TOOLS.map((_, i) => `${median[i]!.tool} ${rounds.map((round) => (round[i]!.note ? 'n/a' : Math.round(round[i]!.rps).toLocaleString('en'))).join(' / ')}`).join('; ')}.`,
        );
        const a = median.find((f) => f.tool.startsWith('Assay'));
        if (a)
          lines.push(
            `Assay's process: RSS ${a.rssStartMb} MB before the run, ${a.rssEndMb} MB after (the median round).`,
          );
        lines.push('');
      }
    } finally {
      fast.stop();
    }
    if (!LATENCY) {
      console.log(lines.join('\n'));
      return;
    }

    const slow = await startTarget(DELAY_MS, placement);
    const latency: Figures[] = [];
    try {
      for (const t of TOOLS) latency.push(await measure(slow, tools(slow.url, DELAY_VUS)[t]!));
    } finally {
      slow.stop();
    }
    lines.push(`Latency: target adds ${DELAY_MS} ms, ${DELAY_VUS} connections/VUs, ${SECONDS} s, one round.`, '');
    lines.push(...table(latency));
    const measured = latency.filter((f) => !f.note);
    const spread = (key: 'p50' | 'p99') => {
      const values = measured.map((f) => f[key]);
      return ((Math.max(...values) / Math.min(...values) - 1) * 100).toFixed(1);
    };
    if (measured.length > 1) lines.push('', `Largest disagreement: p50 ${spread('p50')} %, p99 ${spread('p99')} %.`);
    console.log(lines.join('\n'));
  } finally {
    await stack.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
