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
 * Prints a Markdown table (median of BENCH_REPEAT runs, default 5) for docs/benchmarks.md.
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
import { loadConfig } from '../src/config';
import { createLogger } from '../src/logger';
import { ensureDevKey, openStore, startApi, startWorker } from '../src/server';
import { startDevServer, waitForTemporal } from '../src/temporal/dev-server';

const CASES = 20;
const NODES_PER_CASE = 10;
const TOTAL = CASES * NODES_PER_CASE;
const REPEAT = Number(process.env.BENCH_REPEAT ?? 5);

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

async function startTargetServer(): Promise<{ url: string; close(): void }> {
  const body = JSON.stringify({ id: 1, name: 'Ada', email: 'ada@example.com' });
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

async function undiciFloor(url: string): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < TOTAL; i++) {
    const res = await request(`${url}/users/${i}`);
    const json = (await res.body.json()) as { name: string };
    if (res.statusCode !== 200 || json.name !== 'Ada') throw new Error('unexpected response');
  }
  return performance.now() - started;
}

function newmanCollection(url: string): string {
  const item = Array.from({ length: TOTAL }, (_, i) => ({
    name: `get user ${i}`,
    request: { method: 'GET', url: `${url}/users/${i}` },
    event: [{ listen: 'test', script: { exec: ['pm.test("status is 200", () => pm.response.to.have.status(200));'] } }],
  }));
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'assay-bench-')), 'collection.json');
  fs.writeFileSync(file, JSON.stringify({ info: { name: 'bench', schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json' }, item }));
  return file;
}

/** Runs the Newman CLI; async, because the target server lives in this process's event loop. */
async function newmanRun(collection: string): Promise<number> {
  const bin = path.resolve(__dirname, '../../node_modules/.bin/newman');
  const started = performance.now();
  const child = spawn(bin, ['run', collection, '--reporters', 'cli', '--reporter-cli-no-summary', '--reporter-cli-no-banner', '--silent'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const elapsed = performance.now() - started;
  if (code !== 0) throw new Error(`newman exited with ${code}: ${stderr}`);
  return elapsed;
}

async function main(): Promise<void> {
  const log = (m: string) => process.stderr.write(`${m}\n`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-bench-data-'));
  const config = loadConfig({ ...process.env, ASSAY_DATA_DIR: dataDir, ASSAY_PORT: '0', ASSAY_LOG_LEVEL: 'warn', ASSAY_RATE_LIMIT_PER_MINUTE: '1000000', ASSAY_TASK_QUEUE: `bench-${process.pid}-${Date.now()}` });
  const logger = createLogger(config.logLevel, 'bench');
  let stopTemporal = async () => {};
  if (!process.env.TEMPORAL_ADDRESS || !(await waitForTemporal(config.temporal.address, 1000).then(() => true, () => false))) {
    const server = await startDevServer({ dbFile: path.join(dataDir, 'temporal.db') });
    config.temporal.address = server.address;
    stopTemporal = () => server.stop();
  }
  const target = await startTargetServer();
  const ds = await openStore(config, logger);
  const worker = await startWorker(config, ds, logger);
  const api = await startApi(config, ds, logger);
  const key = await ensureDevKey(config, ds);
  const call = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${api.url}${p}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, unknown>;
    if (res.status >= 400) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };

  await call('POST', '/v1/environments', { name: 'bench', variables: { base: target.url } });
  for (let c = 0; c < CASES; c++) {
    const flow = Array.from({ length: NODES_PER_CASE }, (_, n) => ({
      type: 'api',
      request: { method: 'GET', url: `{{base}}/users/${c * NODES_PER_CASE + n}` },
      assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
    }));
    await call('POST', '/v1/test-cases', { name: `case ${String(c).padStart(2, '0')}`, folder: 'bench', flow });
  }
  await call('POST', '/v1/runners', { name: 'bench', folder: 'bench' });

  async function assayRun(): Promise<{ wall: number; server: number }> {
    const started = performance.now();
    const { runId } = (await call('POST', '/v1/runs', { runner: 'bench', environment: 'bench' })) as { runId: string };
    for (;;) {
      const run = (await call('GET', `/v1/runs/${runId}`)) as { status: string; result?: string; duration?: number };
      if (run.status === 'completed' || run.status === 'failed') {
        if (run.result !== 'passed') throw new Error(`bench run did not pass: ${JSON.stringify(run)}`);
        return { wall: performance.now() - started, server: run.duration ?? NaN };
      }
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  const collection = newmanCollection(target.url);
  const rows: Array<{ name: string; ms: number; extra?: string }> = [];
  // Warm-up: connections, JIT, workflow cache.
  await undiciFloor(target.url);
  config.runs.apiNodeActivity = 'local';
  await assayRun();

  log(`floor: ${REPEAT} × ${TOTAL} undici requests`);
  const floor: number[] = [];
  for (let i = 0; i < REPEAT; i++) floor.push(await undiciFloor(target.url));
  rows.push({ name: 'undici loop (floor)', ms: median(floor) });
  log('newman');
  const newman: number[] = [];
  for (let i = 0; i < REPEAT; i++) newman.push(await newmanRun(collection));
  rows.push({ name: 'Newman 6 CLI (process start included)', ms: median(newman) });
  for (const mode of ['local', 'normal'] as const) {
    log(`assay, API nodes as ${mode} activities`);
    config.runs.apiNodeActivity = mode;
    await assayRun();
    const runs: Array<{ wall: number; server: number }> = [];
    for (let i = 0; i < REPEAT; i++) runs.push(await assayRun());
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
    `Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, store ${config.database.type}`,
    '',
    '| what | wall time | per node | vs Newman | vs floor | note |',
    '|---|---:|---:|---:|---:|---|',
    ...rows.map((r) => `| ${r.name} | ${r.ms.toFixed(0)} ms | ${(r.ms / TOTAL).toFixed(2)} ms | ${(r.ms / newmanMs).toFixed(2)} | ${(r.ms / floorMs).toFixed(1)} | ${r.extra ?? ''} |`),
  ].join('\n');
  process.stdout.write(`${out}\n`);

  await api.close();
  await worker.shutdown();
  await ds.destroy();
  target.close();
  await stopTemporal();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
