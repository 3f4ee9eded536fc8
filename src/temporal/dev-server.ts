/**
 * Starts the Temporal CLI dev server (`temporal server start-dev`) as a child process and waits
 * until its frontend answers, however long a cold start takes (up to `readyTimeoutMs`). The SDK's
 * own launcher gives the server about 5 s, which a cold machine creating a new SQLite file can miss.
 *
 * Used by `make dev` (through `assay dev`) and by the test harness.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { makePrivateDir, PRIVATE_FILE_MODE, sqliteFiles, tightenFiles } from '../private-files';
import { freePort } from '../net/free-port';

export interface DevServerOptions {
  /** Path of the `temporal` binary; found by {@link findTemporalCli} when absent. */
  binary?: string;
  ip?: string;
  /** Frontend gRPC port; a free one when 0 or absent. */
  port?: number;
  /** Web UI port; no UI when absent. */
  uiPort?: number;
  /** SQLite file that keeps history across restarts; in memory when absent. */
  dbFile?: string;
  namespace?: string;
  readyTimeoutMs?: number;
  /** Where the server's output goes (default: discarded). */
  logFile?: string;
  /**
   * Dynamic config values on top of {@link DEV_SERVER_DYNAMIC_CONFIG} (a key of both: this one), e.g.
   * `{'history.timerProcessorMaxTimeShift': '1s'}` for Temporal's own default. Keys: go.temporal.io/server
   * common/dynamicconfig/constants.go; durations as strings (`"50ms"`).
   */
  dynamicConfig?: Readonly<Record<string, boolean | number | string>>;
}

export interface DevServer {
  address: string;
  uiUrl?: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** The Temporal CLI binary: `TEMPORAL_CLI_PATH`, then `temporal` on PATH, then `~/go/bin`, `~/.cache/assay/bin`. */
export function findTemporalCli(): string | undefined {
  const candidates = [
    process.env.TEMPORAL_CLI_PATH,
    ...(process.env.PATH ?? '').split(path.delimiter).map((dir) => path.join(dir, 'temporal')),
    path.join(os.homedir(), 'go', 'bin', 'temporal'),
    path.join(os.homedir(), '.cache', 'assay', 'bin', 'temporal'),
  ];
  return candidates.find((c): c is string => !!c && fs.existsSync(c));
}

/** Waits until a Temporal frontend at `address` answers, or throws after `timeoutMs`. */
export async function waitForTemporal(
  address: string,
  timeoutMs: number,
  namespace = 'default',
  isAlive: () => boolean = () => true,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < until) {
    if (!isAlive()) throw new Error('the Temporal dev server exited during start-up');
    try {
      const connection = await Connection.connect({ address, connectTimeout: '2 seconds' });
      try {
        await connection.workflowService.describeNamespace({ namespace });
        return;
      } finally {
        await connection.close();
      }
    } catch (err) {
      lastError = err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new Error(
    `Temporal at ${address} not ready after ${timeoutMs} ms: ${(lastError as Error)?.message ?? 'no answer'}`,
  );
}

/** Spawns the dev server and resolves once it answers. */
/**
 * Dynamic configuration the dev server starts with (the cluster's is deploy/temporal/dynamicconfig.yaml):
 *
 * - eager activity dispatch (`system.enableActivityEagerExecution`, off in the server by default), so
 *   that a normal activity the run workflow schedules on its own task queue (a `testCase`-mode test
 *   case segment, `startRun`, `finishRun`) comes back with the workflow task's completion instead of
 *   through the server's matching: about 50 ms less per activity on this server
 *   (docs/benchmarks.md "Durability modes");
 * - `history.timerProcessorMaxTimeShift` 50 ms instead of 1 s: each read of the history service's
 *   timer queue reads that far ahead, and a timer created meanwhile is moved past what was read, so
 *   with 1 s a durable timer (a Wait node, a delay between Poll attempts) of less than about a second
 *   fires about 1 s after the last read: a 300 ms delay took 1.0 s, with 50 ms it takes about
 *   0.33 s, at no measurable cost in server CPU (docs/benchmarks.md "Timer resolution";
 *   docs/async.md "Timer resolution").
 */
export const DEV_SERVER_DYNAMIC_CONFIG: Readonly<Record<string, boolean | number | string>> = {
  'system.enableActivityEagerExecution': true,
  'history.timerProcessorMaxTimeShift': '50ms',
};

export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const binary = options.binary ?? findTemporalCli();
  if (!binary) {
    throw new Error(
      'No Temporal CLI found. Install it with: go install github.com/temporalio/cli/cmd/temporal@v1.5.1 (or set TEMPORAL_CLI_PATH)',
    );
  }
  const ip = options.ip ?? '127.0.0.1';
  const port = options.port || (await freePort(ip));
  const namespace = options.namespace ?? 'default';
  const args = [
    'server',
    'start-dev',
    '--ip',
    ip,
    '--port',
    String(port),
    '--namespace',
    namespace,
    '--log-level',
    'warn',
  ];
  for (const [key, value] of Object.entries({ ...DEV_SERVER_DYNAMIC_CONFIG, ...options.dynamicConfig }))
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  if (options.uiPort) args.push('--ui-port', String(options.uiPort), '--ui-ip', ip);
  else args.push('--headless');
  if (options.dbFile) {
    makePrivateDir(path.dirname(path.resolve(options.dbFile)));
    // The Temporal CLI creates the file itself; an existing one (and its -wal/-shm) is tightened
    // here, a new one right after the server is up.
    tightenFiles(...sqliteFiles(options.dbFile));
    args.push(
      '--db-filename',
      options.dbFile,
      '--sqlite-pragma',
      'journal_mode=wal',
      '--sqlite-pragma',
      'synchronous=normal',
    );
  }
  const out = options.logFile ? fs.openSync(options.logFile, 'a', PRIVATE_FILE_MODE) : 'ignore';
  if (options.logFile) tightenFiles(options.logFile);
  const child = spawn(binary, args, { stdio: ['ignore', out, out], detached: false });
  let exited = false;
  child.once('exit', () => (exited = true));
  const address = `${ip}:${port}`;
  try {
    await waitForTemporal(address, options.readyTimeoutMs ?? 120_000, namespace, () => !exited);
    if (options.dbFile) tightenFiles(...sqliteFiles(options.dbFile));
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  return {
    address,
    uiUrl: options.uiPort ? `http://${ip === '0.0.0.0' ? 'localhost' : ip}:${options.uiPort}` : undefined,
    process: child,
    async stop() {
      if (exited) return;
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await gone;
      clearTimeout(timer);
    },
  };
}
