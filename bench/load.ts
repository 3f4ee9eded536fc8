/**
 * `make bench`: Assay's load generator (performance runs, docs/performance.md) against autocannon
 * and k6, side by side in one run, on one loopback target — a bare `node:http` server in a child
 * process answering a small JSON body — with the same connections/VUs, the same duration and one
 * status check per request:
 *
 * 1. throughput: the most requests per second each makes (target answers at once);
 * 2. latency: what each reports for a target with a fixed added delay (p50 and p99 should agree
 *    within 10 %).
 *
 * k6 is looked up on PATH and in ~/.cache/assay/bin (scripts/k6.sh builds it from the Go module
 * proxy); without it, its rows say so. Assay runs a real performance run: POST /v1/runs with a
 * constant-vus profile, the load shard in the worker of a local stack (Temporal dev server or
 * TEMPORAL_ADDRESS), figures from GET /v1/runs/{id}/results. Prints a Markdown table for
 * docs/benchmarks.md. BENCH_LOAD_SECONDS (default 30) and BENCH_LOAD_VUS (default "50,200,1000":
 * one throughput scenario per count) change the throughput scenarios; BENCH_REPEAT (default 1)
 * rounds of each scenario, the tools alternating within a round, the median of each tool's
 * requests/s printed (with its p50/p99 from that median round); BENCH_LOAD_TOOLS (default
 * "autocannon,k6,assay") picks the tools (`assay` alone: to profile it, e.g. with `--cpu-prof`);
 * BENCH_LOAD_LATENCY=0 leaves the latency scenario out. Everything binds to loopback.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startLocalStack, type LocalStack } from '../bin/local-stack';

const SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 30);
const VUS = (process.env.BENCH_LOAD_VUS ?? '50,200,1000').split(',').map(Number);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 1);
const TOOLS = (process.env.BENCH_LOAD_TOOLS ?? 'autocannon,k6,assay').split(',');
const LATENCY = process.env.BENCH_LOAD_LATENCY !== '0';
const DELAY_MS = 20;
const DELAY_VUS = 20;

interface Figures {
  tool: string;
  /** Assay only: CPU µs of the whole process (API, worker, load threads) per request, startup and warm-up included. */
  cpuUsPerRequest?: number;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  failed: number;
  note?: string;
}

/** The target in its own process (its own core): answers `{"ok":true}` after `delayMs`. */
async function startTarget(delayMs: number): Promise<{ url: string; stop(): void }> {
  const code = `
    const http = require('node:http');
    const body = JSON.stringify({ id: 1, name: 'Ada', ok: true });
    const server = http.createServer((req, res) => {
      const answer = () => { res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }); res.end(body); };
      ${delayMs} > 0 ? setTimeout(answer, ${delayMs}) : answer();
    });
    server.keepAliveTimeout = 120000;
    server.listen(0, '127.0.0.1', () => console.log(server.address().port));`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve) =>
    child.stdout!.once('data', (d: Buffer) => resolve(d.toString().trim())),
  );
  return { url: `http://127.0.0.1:${port}/item`, stop: () => child.kill() };
}

function run(cmd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${cmd} exited ${code}: ${err.slice(-500)}`)),
    );
  });
}

async function autocannon(url: string, connections: number, seconds: number): Promise<Figures> {
  const bin = path.resolve(__dirname, '../../node_modules/autocannon/autocannon.js');
  const out = JSON.parse(
    await run(process.execPath, [bin, '-c', String(connections), '-d', String(seconds), '-j', url]),
  ) as {
    requests: { total: number; average: number };
    latency: { p50: number; p99: number };
    non2xx: number;
    errors: number;
  };
  // autocannon counts a non-2xx answer: its status check.
  return {
    tool: 'autocannon 9',
    requests: out.requests.total,
    rps: out.requests.total / seconds,
    p50: out.latency.p50,
    p99: out.latency.p99,
    failed: out.non2xx + out.errors,
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
export const options = { vus: ${vus}, duration: '${seconds}s', summaryTrendStats: ['avg', 'med', 'p(99)'] };
export default function () {
  const res = http.get('${url}');
  check(res, { 'status is 200': (r) => r.status === 200 });
}
`,
  );
  await run(bin, ['run', '--quiet', '--no-usage-report', `--summary-export=${summary}`, script]);
  const m = (JSON.parse(fs.readFileSync(summary, 'utf8')) as { metrics: Record<string, Record<string, number>> })
    .metrics;
  fs.rmSync(dir, { recursive: true, force: true });
  const requests = m.http_reqs!.count!;
  return {
    tool: `k6 ${version}`.trim(),
    requests,
    rps: requests / seconds,
    p50: m.http_req_duration!.med!,
    p99: m.http_req_duration!['p(99)']!,
    failed: m.checks!.fails ?? 0,
  };
}

async function assay(
  stack: LocalStack,
  url: string,
  vus: number,
  seconds: number,
  runner: string,
): Promise<Figures & { rssStartMb: number; rssEndMb: number }> {
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
    p99: p.p99ResponseTime,
    failed: p.failedRequests + (p.checks.total - p.checks.passed),
    rssStartMb: Math.round(rssStart / 1e6),
    rssEndMb: Math.round(rssEnd / 1e6),
    cpuUsPerRequest: Math.round((cpu.user + cpu.system) / Math.max(1, p.requests)),
  };
}

/** The figures of the round with the median requests/s. */
function medianByRps(figures: Figures[]): Figures {
  return [...figures].sort((a, b) => a.rps - b.rps)[Math.floor((figures.length - 1) / 2)]!;
}

const row = (f: Figures) =>
  `| ${f.tool} | ${f.note ?? `${Math.round(f.rps).toLocaleString('en')} | ${f.requests.toLocaleString('en')} | ${f.p50.toFixed(2)} | ${f.p99.toFixed(2)} | ${f.failed}`} |`;

async function main(): Promise<void> {
  // Two load threads (ASSAY_LOAD_THREADS, opt-in): this machine's 2 cores.
  const stack = await startLocalStack({
    ASSAY_LOG_LEVEL: 'error',
    ASSAY_LOAD_THREADS: process.env.ASSAY_LOAD_THREADS ?? '2',
  });
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

    const lines: string[] = [];
    lines.push(
      `Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}; ${new Date().toISOString().slice(0, 10)}.`,
      '',
    );

    const tools = (url: string, vus: number) =>
      ({
        autocannon: () => autocannon(url, vus, SECONDS),
        k6: () => k6(url, vus, SECONDS),
        assay: () => assay(stack, url, vus, SECONDS, 'bench'),
      }) as Record<string, () => Promise<Figures>>;
    const fast = await startTarget(0);
    try {
      for (const vus of VUS) {
        // Rounds alternate the tools, so that a noisy minute of the shared machine hits all of them.
        const rounds: Figures[][] = [];
        for (let r = 0; r < REPEAT; r++) {
          const round: Figures[] = [];
          for (const t of TOOLS) round.push(await tools(fast.url, vus)[t]!());
          rounds.push(round);
          console.error(
            `${vus} VUs, round ${r + 1}: ${round.map((f) => `${f.tool} ${Math.round(f.rps)}/s${f.cpuUsPerRequest ? ` (${f.cpuUsPerRequest} µs CPU/request)` : ''}`).join(', ')}`,
          );
        }
        const median = TOOLS.map((_, i) => medianByRps(rounds.map((round) => round[i]!)));
        lines.push(
          `Throughput: ${vus} connections/VUs, ${SECONDS} s, target answers at once; one status check per request${REPEAT > 1 ? `; median of ${REPEAT} alternating rounds (requests/s of each round: ${TOOLS.map((t, i) => `${t} ${rounds.map((round) => Math.round(round[i]!.rps)).join('/')}`).join('; ')})` : ''}.`,
          '',
        );
        lines.push('| tool | requests/s | requests | p50 ms | p99 ms | failed |', '|---|---|---|---|---|---|');
        for (const f of median) lines.push(row(f));
        const by = (name: string) => median.find((f) => f.tool.toLowerCase().startsWith(name));
        const a = by('assay') as (Figures & { rssStartMb: number; rssEndMb: number }) | undefined;
        const k = by('k6');
        const ac = by('autocannon');
        if (a)
          lines.push(
            '',
            `Assay / k6: ${k?.rps ? (a.rps / k.rps).toFixed(2) : 'n/a'}; Assay / autocannon: ${ac ? (a.rps / ac.rps).toFixed(2) : 'n/a'}. Assay's process: ${a.cpuUsPerRequest} µs CPU per request (all threads; rounds: ${rounds.map((round) => round[TOOLS.indexOf('assay')]?.cpuUsPerRequest).join('/')}), RSS ${a.rssStartMb} MB before the run, ${a.rssEndMb} MB after.`,
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

    const slow = await startTarget(DELAY_MS);
    const latency: Figures[] = [];
    try {
      latency.push(await autocannon(slow.url, DELAY_VUS, SECONDS));
      latency.push(await k6(slow.url, DELAY_VUS, SECONDS));
      latency.push(await assay(stack, slow.url, DELAY_VUS, SECONDS, 'bench'));
    } finally {
      slow.stop();
    }
    lines.push(`Latency: target adds ${DELAY_MS} ms, ${DELAY_VUS} connections/VUs, ${SECONDS} s.`, '');
    lines.push('| tool | requests/s | requests | p50 ms | p99 ms | failed |', '|---|---|---|---|---|---|');
    for (const f of latency) lines.push(row(f));
    const measured = latency.filter((f) => !f.note);
    const spread = (key: 'p50' | 'p99') => {
      const values = measured.map((f) => f[key]);
      return ((Math.max(...values) / Math.min(...values) - 1) * 100).toFixed(1);
    };
    lines.push('', `Largest disagreement: p50 ${spread('p50')} %, p99 ${spread('p99')} %.`);
    console.log(lines.join('\n'));
  } finally {
    await stack.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
