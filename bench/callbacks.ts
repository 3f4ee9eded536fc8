/**
 * `make bench`: Callback nodes waiting in numbers (docs/async.md "Callbacks", docs/benchmarks.md).
 *
 * RUNS runs (default 1,000; BENCH_CALLBACK_RUNS to lower) each register their `{{callback.url}}`
 * with a loopback server (one API node), then wait at a Callback node (timeout 10 min), then tell
 * the server they are done (one more API node). While all of them wait, measured: the worker
 * process's RSS and CPU over WAIT_SECONDS, the Temporal dev server's RSS, and the activities
 * pending in a sample of the runs' workflows (0: nothing is held while a Callback node waits).
 * Then the addresses are called back: the first PACED (default 100) one at a time, each after the
 * run before it reported done (the latency of a callback alone), the rest in a burst, CONCURRENCY
 * at a time; the time from each callback's answer to its run's "done" request is taken (p50, p99,
 * max), and the time until all runs completed.
 *
 * The worker is a separate process (`node dist/bin/main.js worker`) so that its figures are its
 * own; the API and the store are this process's. Uses TEMPORAL_ADDRESS or a dev server of its own;
 * the store in DATABASE_URL or an embedded SQLite file. Prints a Markdown table. Loopback only;
 * every loop is bounded.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { spawnWorkerProcess, startLocalStack } from '../bin/local-stack';

const RUNS = Number(process.env.BENCH_CALLBACK_RUNS ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_CALLBACK_CONCURRENCY ?? 50);
const WAIT_SECONDS = Number(process.env.BENCH_CALLBACK_WAIT_SECONDS ?? 10);
const SAMPLE = 20;
/** Callbacks sent one at a time (each after the run before it reported done) before the burst. */
const PACED = Number(process.env.BENCH_CALLBACK_PACED ?? 100);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
}

/** Resident set size of process `pid` in MiB (Linux /proc). */
function rssMiB(pid: number): number {
  const line = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return line ? Number(line[1]) / 1024 : NaN;
}

/** CPU seconds (user + system) process `pid` has used (Linux /proc). */
function cpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The pid of the Temporal dev server listening on `port`, found by its command line; undefined when not found. */
function devServerPid(port: string): number | undefined {
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (args.includes('start-dev') && args[args.indexOf('--port') + 1] === port) return Number(entry);
    } catch {
      /* gone meanwhile */
    }
  }
  return undefined;
}

/** Runs `fn` over `items`, `limit` at a time. */
async function pool<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

async function main(): Promise<void> {
  // Where the runs register their addresses and say they are done.
  const registered: string[] = [];
  const done = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const { url } = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { url?: string };
      if (url && req.url === '/register') registered.push(url);
      if (url && req.url === '/done') done.set(url, performance.now());
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const svc = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const stack = await startLocalStack(
    {
      ASSAY_QUOTA_CONCURRENT_RUNS: String(RUNS + 10),
      ASSAY_QUOTA_RUNS_PER_MINUTE: String(RUNS * 10),
      ASSAY_RATE_LIMIT_PER_MINUTE: String(RUNS * 100),
    },
    { worker: false },
  );
  let worker: ChildProcess | undefined;
  try {
    worker = await spawnWorkerProcess(stack, { env: { ASSAY_PUBLIC_URL: stack.apiUrl } });
    const post = (path: string) => ({
      type: 'api',
      request: {
        method: 'POST',
        url: `{{svc}}${path}`,
        headers: { 'content-type': 'application/json' },
        body: { url: '{{callback.url}}' },
      },
    });
    await stack.call('POST', '/v1/environments', { name: 'bench-cb', variables: { svc } });
    await stack.call('POST', '/v1/test-cases', {
      name: 'wait for a callback',
      folder: 'bench-cb',
      flow: [post('/register'), { type: 'callback', id: 'cb', timeout: '10m' }, post('/done')],
    });
    await stack.call('POST', '/v1/runners', { name: 'bench-cb', folder: 'bench-cb' });

    const startedAt = performance.now();
    const runIds: string[] = [];
    await pool(
      Array.from({ length: RUNS }, (_, i) => i),
      CONCURRENCY,
      async () => {
        const { runId } = await stack.call<{ runId: string }>('POST', '/v1/runs', {
          runner: 'bench-cb',
          environment: 'bench-cb',
          timeout: 1800,
        });
        runIds.push(runId);
      },
    );
    const deadline = Date.now() + 600_000;
    while (registered.length < RUNS && Date.now() < deadline) {
      await sleep(200);
      if (process.env.BENCH_DEBUG) console.error(`registered ${registered.length}/${RUNS}`);
    }
    if (registered.length < RUNS) throw new Error(`only ${registered.length} of ${RUNS} runs registered`);
    const allWaitingS = (performance.now() - startedAt) / 1000;
    // Let the last workflow tasks settle, then measure the idle wait.
    await sleep(3000);
    const workerPid = worker.pid!;
    const temporalPid = devServerPid(stack.config.temporal.address.split(':').pop()!);
    const cpuBefore = cpuSeconds(workerPid);
    await sleep(WAIT_SECONDS * 1000);
    const workerCpu = (cpuSeconds(workerPid) - cpuBefore) / WAIT_SECONDS;
    const workerRss = rssMiB(workerPid);
    const temporalRss = temporalPid ? rssMiB(temporalPid) : NaN;
    const client = new Client({ connection: await Connection.connect({ address: stack.config.temporal.address }) });
    let pendingActivities = 0;
    for (const runId of runIds.slice(0, SAMPLE)) {
      const d = await client.workflow.getHandle(`run-${runId}`).describe();
      pendingActivities += d.raw.pendingActivities?.length ?? 0;
    }

    // Call addresses back; latency = its run's "done" request − the callback's answer. First PACED
    // of them one at a time (each waits for its run's "done"): the latency of a callback alone.
    // Then the rest in a burst, CONCURRENCY at a time: how fast one worker drains a queue of them.
    const answered = new Map<string, number>();
    const callBack = async (url: string) => {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      if (res.status !== 200) throw new Error(`callback answered ${res.status}: ${await res.text()}`);
      answered.set(url, performance.now());
    };
    const paced = registered.slice(0, Math.min(PACED, RUNS - 1));
    for (const url of paced) {
      await callBack(url);
      while (!done.has(url) && Date.now() < deadline) await sleep(2);
    }
    const burst = registered.slice(paced.length);
    const calledAt = performance.now();
    await pool(burst, CONCURRENCY, callBack);
    while (done.size < RUNS && Date.now() < deadline) await sleep(100);
    const allDoneS = (performance.now() - calledAt) / 1000;
    const latency = (urls: string[]) => urls.filter((u) => done.has(u)).map((u) => done.get(u)! - answered.get(u)!);
    const pacedLatencies = latency(paced);
    const latencies = latency(burst);
    await client.connection.close();

    const ms = (v: number) => `${Math.round(v)} ms`;
    console.log(`\n### Callback nodes: ${RUNS} runs waiting at once\n`);
    console.log(
      `${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), ${new Date().toISOString().slice(0, 10)}; ` +
        `one worker process, Temporal ${process.env.TEMPORAL_ADDRESS ? `at ${stack.config.temporal.address}` : 'dev server (SQLite)'}, store ${stack.config.database.type}.\n`,
    );
    console.log('| figure | value |');
    console.log('|---|---|');
    console.log(`| runs started until all were waiting | ${allWaitingS.toFixed(1)} s |`);
    console.log(`| worker RSS while ${RUNS} wait | ${workerRss.toFixed(0)} MiB |`);
    console.log(`| worker CPU while they wait (${WAIT_SECONDS} s) | ${(workerCpu * 100).toFixed(1)} % of a core |`);
    console.log(`| Temporal dev server RSS while they wait | ${temporalRss.toFixed(0)} MiB |`);
    console.log(`| activities pending in ${SAMPLE} waiting runs | ${pendingActivities} |`);
    console.log(
      `| callback → its run's next node done, one at a time (${pacedLatencies.length}), p50 / p99 | ${ms(percentile(pacedLatencies, 50))} / ${ms(percentile(pacedLatencies, 99))} |`,
    );
    console.log(
      `| callback → its run's next node done, the other ${burst.length} in a burst (${CONCURRENCY} at a time), p50 / p99 / max | ${ms(percentile(latencies, 50))} / ${ms(percentile(latencies, 99))} / ${ms(Math.max(...latencies))} |`,
    );
    console.log(`| the burst's callbacks sent until every run was done | ${allDoneS.toFixed(1)} s |`);
    if (done.size < RUNS) console.log(`\n${RUNS - done.size} runs did not finish in time.`);
  } finally {
    if (worker && worker.exitCode === null) {
      const exited = new Promise((r) => worker!.once('exit', r));
      worker.kill('SIGTERM');
      await Promise.race([exited, sleep(10_000)]);
    }
    await stack.stop();
    server.close();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
