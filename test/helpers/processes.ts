/**
 * Assay as real child processes (`node dist/bin/main.js api|worker`) for tests that kill them with
 * SIGKILL: configured from a TestApp's database, Temporal and task queue unless told otherwise.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { TestApp } from './app';
import { LOCAL_DEVELOPMENT_EGRESS } from '../../src/config';

const MAIN = path.resolve(__dirname, '../../bin/main.js');

export interface AssayProcess {
  child: ChildProcess;
  /** Everything it wrote to stdout and stderr so far (JSON log lines). */
  output: () => string;
  /** SIGKILL, and wait for the exit. */
  kill(): Promise<void>;
}

/**
 * The environment that points a child process at `app`'s store, Temporal and task queue, with the
 * test app's address policy (local development egress: src/config.ts LOCAL_DEVELOPMENT_EGRESS).
 */
export function processEnv(app: TestApp, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const db = app.config.database;
  return {
    ...process.env,
    ...LOCAL_DEVELOPMENT_EGRESS,
    DATABASE_URL: db.type === 'mysql' ? db.url : `sqlite://${db.file}`,
    TEMPORAL_ADDRESS: app.config.temporal.address,
    ASSAY_TASK_QUEUE: app.config.temporal.taskQueue,
    ASSAY_DATA_DIR: app.config.dataDir,
    // The app's key ring: its processes read each other's encrypted Temporal payloads.
    ASSAY_SECRET_KEYS: app.config.secretKeys ?? '',
    ASSAY_LOG_LEVEL: 'info',
    // A test worker process's HTTP server on any free port, never the 9464 of a real worker.
    ASSAY_WORKER_HTTP_PORT: '0',
    ...extra,
  };
}

/** Starts `node dist/bin/main.js <command>` with `env`. */
export function spawnAssay(command: 'api' | 'worker' | 'all', env: NodeJS.ProcessEnv): AssayProcess {
  const child = spawn(process.execPath, ['--no-node-snapshot', MAIN, command], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (chunk: Buffer) => {
    out += chunk.toString('utf8');
    if (out.length > 2_000_000) out = out.slice(-1_000_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return {
    child,
    output: () => out,
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Polls `url` until it answers 200 (or `timeoutMs` passes). */
export async function waitForHttp(url: string, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (res.status === 200) return;
    } catch {
      /* not up yet */
    }
    if (Date.now() > until) throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
