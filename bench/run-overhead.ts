/**
 * `make bench` part 1: the overhead of running API tests through Assay.
 *
 * One runner of 200 API nodes (20 test cases × 10 GET requests, one assertion each) against a
 * local HTTP server, measured side by side in one process run:
 *
 * - floor:  the same 200 requests sent back to back by a plain undici loop;
 * - Newman: the same 200 requests as a Postman collection with one test each, run by the Newman
 *           CLI (what users would otherwise pick), process start included;
 * - Assay:  POST /v1/runs → status completed, with API nodes as local activities and as normal
 *           activities (ASSAY_API_NODE_ACTIVITY).
 *
 * Prints a Markdown table (median of BENCH_REPEAT runs, default 5) for docs/benchmarks.md;
 * BENCH_MODES=local skips the normal activities (a minute).
 * Its helpers (target server, floor loop, Newman collection and run, median) are shared with
 * bench/durability-modes.ts.
 * Uses the Temporal server in TEMPORAL_ADDRESS or starts a dev server; the store in DATABASE_URL
 * or an embedded SQLite file. Everything binds to loopback.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { runAndWait, startLocalStack, type LocalStack } from '../bin/local-stack';

const CASES = 20;
const NODES_PER_CASE = 10;
const TOTAL = CASES * NODES_PER_CASE;
const REPEAT = Number(process.env.BENCH_REPEAT ?? 5);
/** Which API node activities to measure (`local`, `normal`; default both): `BENCH_MODES=local` for a quick comparison. */
const MODES = (process.env.BENCH_MODES ?? 'local,normal')
  .split(',')
  .filter((m): m is 'local' | 'normal' => ['local', 'normal'].includes(m));

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export async function repeat(times: number, fn: () => Promise<number>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < times; i++) out.push(await fn());
  return out;
}

export async function startTargetServer(): Promise<{ url: string; close(): void }> {
  const body = JSON.stringify({ id: 1, name: 'Ada', email: 'ada@example.com' });
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

/** `total` sequential undici GETs of `${url}/users/{i}` (default this bench's 200); ms. */
export async function undiciFloor(url: string, total = TOTAL): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < total; i++) {
    const res = await request(`${url}/users/${i}`);
    const json = (await res.body.json()) as { name: string };
    if (res.statusCode !== 200 || json.name !== 'Ada') throw new Error('unexpected response');
  }
  return performance.now() - started;
}

/** A Postman collection file of `total` GETs of `${url}/users/{i}` (default this bench's 200), one status test each. */
export function newmanCollection(url: string, total = TOTAL): string {
  const item = Array.from({ length: total }, (_, i) => ({
    name: `get user ${i}`,
    request: { method: 'GET', url: `${url}/users/${i}` },
    event: [{ listen: 'test', script: { exec: ['pm.test("status is 200", () => pm.response.to.have.status(200));'] } }],
  }));
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'assay-bench-')), 'collection.json');
  fs.writeFileSync(
    file,
    JSON.stringify({
      info: { name: 'bench', schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json' },
      item,
    }),
  );
  return file;
}

/** Runs the Newman CLI; async, because the target server lives in this process's event loop. */
export async function newmanRun(collection: string): Promise<number> {
  const bin = path.resolve(__dirname, '../../node_modules/.bin/newman');
  const started = performance.now();
  const child = spawn(
    bin,
    ['run', collection, '--reporters', 'cli', '--reporter-cli-no-summary', '--reporter-cli-no-banner', '--silent'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const elapsed = performance.now() - started;
  if (code !== 0) throw new Error(`newman exited with ${code}: ${stderr}`);
  return elapsed;
}

async function assayRun(stack: LocalStack): Promise<{ wall: number; server: number }> {
  const started = performance.now();
  const run = await runAndWait<{ result?: string; duration?: number }>(stack, {
    runner: 'bench',
    environment: 'bench',
  });
  if (run.result !== 'passed') throw new Error(`bench run did not pass: ${JSON.stringify(run)}`);
  return { wall: performance.now() - started, server: run.duration ?? NaN };
}

async function main(): Promise<void> {
  const log = (m: string) => process.stderr.write(`${m}\n`);
  const target = await startTargetServer();
  const stack = await startLocalStack({
    ASSAY_RATE_LIMIT_PER_MINUTE: '1000000',
    ASSAY_QUOTA_CONCURRENT_RUNS: '1000000',
    ASSAY_QUOTA_RUNS_PER_MINUTE: '10000000',
  });
  try {
    await stack.call('POST', '/v1/environments', { name: 'bench', variables: { base: target.url } });
    for (let c = 0; c < CASES; c++) {
      const flow = Array.from({ length: NODES_PER_CASE }, (_, n) => ({
        type: 'api',
        request: { method: 'GET', url: `{{base}}/users/${c * NODES_PER_CASE + n}` },
        assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
      }));
      await stack.call('POST', '/v1/test-cases', { name: `case ${String(c).padStart(2, '0')}`, folder: 'bench', flow });
    }
    await stack.call('POST', '/v1/runners', { name: 'bench', folder: 'bench' });

    const collection = newmanCollection(target.url);
    // Warm-up: connections, JIT, workflow cache.
    await undiciFloor(target.url);
    await assayRun(stack);

    const rows: Array<{ name: string; ms: number; extra?: string }> = [];
    log(`floor: ${REPEAT} × ${TOTAL} undici requests`);
    rows.push({ name: 'undici loop (floor)', ms: median(await repeat(REPEAT, () => undiciFloor(target.url))) });
    log('newman');
    rows.push({
      name: 'Newman 6 CLI (process start included)',
      ms: median(await repeat(REPEAT, () => newmanRun(collection))),
    });
    for (const mode of MODES) {
      log(`assay, API nodes as ${mode} activities`);
      stack.config.runs.apiNodeActivity = mode;
      await assayRun(stack);
      const runs: Array<{ wall: number; server: number }> = [];
      for (let i = 0; i < REPEAT; i++) runs.push(await assayRun(stack));
      rows.push({
        name: `Assay, ${mode} activities (POST → completed)`,
        ms: median(runs.map((r) => r.wall)),
        extra: `server-side duration ${median(runs.map((r) => r.server)).toFixed(0)} ms`,
      });
    }

    const newmanMs = rows[1]!.ms;
    const floorMs = rows[0]!.ms;
    const out = [
      `Run overhead: ${TOTAL} API nodes (${CASES} test cases × ${NODES_PER_CASE}), one assertion each, median of ${REPEAT}`,
      `Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, store ${stack.config.database.type}`,
      '',
      '| what | wall time | per node | vs Newman | vs floor | note |',
      '|---|---:|---:|---:|---:|---|',
      ...rows.map(
        (r) =>
          `| ${r.name} | ${r.ms.toFixed(0)} ms | ${(r.ms / TOTAL).toFixed(2)} ms | ${(r.ms / newmanMs).toFixed(2)} | ${(r.ms / floorMs).toFixed(1)} | ${r.extra ?? ''} |`,
      ),
    ].join('\n');
    process.stdout.write(`${out}\n`);
  } finally {
    await stack.stop();
    target.close();
  }
}

// bench/durability-modes.ts imports the helpers above: run only when started as a script.
if (require.main === module)
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
