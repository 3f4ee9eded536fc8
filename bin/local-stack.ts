/**
 * A whole Assay in one process for local use (`make demo`, `make bench`): a Temporal dev server
 * unless one answers at TEMPORAL_ADDRESS, the store (DATABASE_URL or an embedded SQLite file in a
 * temporary folder), the worker, the API on a free loopback port and a dev API key, plus a small
 * JSON client for the API.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, withLocalDevelopmentEgress, type AssayConfig } from '../src/config';
import { createLogger } from '../src/logger';
import { ensureDevKey, openStore, startApi, startWorker } from './processes';
import { startDevServer, waitForTemporal } from '../src/temporal/dev-server';

export interface LocalStack {
  config: AssayConfig;
  /** The API process's handle (its run launcher, recovery sweep…). */
  api: import('./processes').ApiHandle;
  apiUrl: string;
  key: string;
  /** The store (for benches that make their own workspaces and keys: src/api-keys.ts). */
  dataSource: import('typeorm').DataSource;
  /** Calls the API; throws with the problem document on a 4xx/5xx. */
  call<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T>;
  /** {@link call} with another API key (another workspace's). */
  callAs<T = Record<string, unknown>>(key: string, method: string, path: string, body?: unknown): Promise<T>;
  stop(): Promise<void>;
}

/**
 * Starts the stack. `options.worker: false` leaves the worker out (a caller that runs workers as
 * separate processes, e.g. bench/durability.ts, starts its own on `config.temporal.taskQueue`).
 */
export async function startLocalStack(
  env: Record<string, string> = {},
  options: { worker?: boolean } = {},
): Promise<LocalStack> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-local-'));
  // Local use tests services on this machine: local development egress (docs/security.md "Address policy").
  const config = loadConfig(
    withLocalDevelopmentEgress({
      ...process.env,
      ASSAY_DATA_DIR: dataDir,
      ASSAY_PORT: '0',
      ASSAY_LOG_LEVEL: 'warn',
      ASSAY_TASK_QUEUE: `local-${process.pid}-${Date.now()}`,
      ...env,
    }),
  );
  const logger = createLogger(config.logLevel, 'assay');
  const stops: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch(() => undefined);
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const up = process.env.TEMPORAL_ADDRESS
      ? await waitForTemporal(config.temporal.address, 1500).then(
          () => true,
          () => false,
        )
      : false;
    if (!up) {
      const server = await startDevServer({ dbFile: path.join(dataDir, 'temporal.db') });
      config.temporal.address = server.address;
      stops.push(() => server.stop());
    }
    const dataSource = await openStore(config, logger);
    stops.push(() => dataSource.destroy());
    if (options.worker !== false) {
      const worker = await startWorker(config, dataSource, logger);
      stops.push(() => worker.shutdown());
    }
    const api = await startApi(config, dataSource, logger);
    stops.push(() => api.close());
    const key = await ensureDevKey(config, dataSource);
    const callAs: LocalStack['callAs'] = async (callKey, method, p, body) => {
      const res = await fetch(`${api.url}${p}`, {
        method,
        headers: {
          authorization: `Bearer ${callKey}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const json = (await res.json()) as never;
      if (res.status >= 400) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    return {
      config,
      api,
      apiUrl: api.url,
      key,
      dataSource,
      callAs,
      call: (method, p, body) => callAs(key, method, p, body),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Starts a run and polls until it ends; returns the run document. */
export async function runAndWait<T = Record<string, unknown>>(
  stack: LocalStack,
  body: {
    runner: string;
    environment: string;
    timeout?: number;
    variables?: Record<string, string | number | boolean>;
  },
  pollMs = 10,
): Promise<T & { runId: string; status: string }> {
  const { runId } = await stack.call<{ runId: string }>('POST', '/v1/runs', body);
  for (;;) {
    const run = await stack.call<T & { runId: string; status: string }>('GET', `/v1/runs/${runId}`);
    if (run.status === 'completed' || run.status === 'failed') return run;
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/**
 * A worker process (`node dist/bin/main.js worker`) on the stack's store and task queue, with the
 * local egress policy, `options.env` on top; resolves once its log says it polls ("worker
 * started"), rejects when it exits first or does not start within 120 s (then it is killed). Its
 * stdout is drained; stderr goes to this process's. For benches that run workers as separate
 * processes. `wrapper`: a command that execs the rest (`['ip', 'netns', 'exec', ns]`: the worker in
 * another network namespace; test/cluster/load-hosts.test.ts), so the child's pid is Node's.
 */
export async function spawnWorkerProcess(
  stack: LocalStack,
  options: { env?: Record<string, string>; nodeArgs?: string[]; wrapper?: string[] } = {},
): Promise<ChildProcess> {
  const db = stack.config.database;
  const [command, ...prefix] = [...(options.wrapper ?? []), process.execPath];
  const child = spawn(
    command!,
    [...prefix, '--no-node-snapshot', ...(options.nodeArgs ?? []), path.resolve(__dirname, 'main.js'), 'worker'],
    {
      env: withLocalDevelopmentEgress({
        ...process.env,
        DATABASE_URL: db.type === 'mysql' ? db.url : `sqlite://${db.file}`,
        TEMPORAL_ADDRESS: stack.config.temporal.address,
        ASSAY_TASK_QUEUE: stack.config.temporal.taskQueue,
        ASSAY_DATA_DIR: stack.config.dataDir,
        ASSAY_LOG_LEVEL: 'info',
        ASSAY_WORKER_HTTP_PORT: '0',
        ...options.env,
      }),
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Not left running (and holding the caller's stderr) when the caller gives up on it.
      child.kill('SIGKILL');
      reject(new Error('worker did not start within 120 s'));
    }, 120_000);
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('worker started')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited (${code})`));
    });
  });
  child.stdout!.resume();
  return child;
}
