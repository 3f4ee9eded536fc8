/**
 * The worker: polls the run task queue and executes run workflows and their activities.
 */
import { NativeConnection, Worker, Runtime, makeTelemetryFilterString } from '@temporalio/worker';
import type { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import type { AssayConfig } from '../src/config';
import { createActivities } from '../activities';
import { registerSearchAttributes } from '../src/temporal/search-attributes';
import { workflowSource } from '../src/temporal/bundle';
import { retryForever } from '../src/retry';

let runtimeInstalled = false;

/** Routes the SDK's logs through our logger, once per process. */
function installRuntime(logger: Logger): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  const log = (level: 'trace' | 'debug' | 'info' | 'warn' | 'error') => (message: string, meta?: Record<string, unknown>) =>
    logger[level]({ ...meta, source: 'temporal' }, message);
  try {
    Runtime.install({
    logger: { log: (level, message, meta) => log(level.toLowerCase() as 'info')(message, meta), trace: log('trace'), debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') },
    telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'WARN' }), forward: {} } },
    });
  } catch {
    // A runtime already exists in this process (a replay worker made one first): keep it.
  }
}

export interface RunWorkerHandle {
  worker: Worker;
  connection: NativeConnection;
  /** Resolves when the worker has stopped (after `shutdown()`); rejects if it crashed. */
  running: Promise<void>;
  shutdown(): Promise<void>;
}

/**
 * Connects (waiting for Temporal with backoff, one log line per attempt, when it is not reachable
 * yet), registers search attributes, and starts polling.
 */
export async function startRunWorker(deps: { config: AssayConfig; dataSource: DataSource; logger: Logger }): Promise<RunWorkerHandle> {
  const { config, dataSource, logger } = deps;
  installRuntime(logger);
  // Temporal not up yet (or restarting): wait for it with backoff rather than exit.
  const connection = await retryForever(
    async () => {
      const c = await NativeConnection.connect({ address: config.temporal.address });
      try {
        await registerSearchAttributes(c, config.temporal.namespace);
        return c;
      } catch (err) {
        await c.close().catch(() => undefined);
        throw err;
      }
    },
    { logger, what: `Temporal at ${config.temporal.address}` },
  );
  const worker = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    ...workflowSource(),
    activities: createActivities({ dataSource, config }),
    // Let in-flight requests finish (or be retried elsewhere) on a graceful stop.
    shutdownGraceTime: '10 seconds',
    // After a worker dies, its runs' next workflow tasks wait this long on its sticky queue before
    // any worker may take them (SDK default 10 s; docs/benchmarks.md "Worker kills").
    stickyQueueScheduleToStartTimeout: config.temporal.stickyTimeoutMs,
  });
  const running = worker.run();
  logger.info({ taskQueue: config.temporal.taskQueue, address: config.temporal.address }, 'worker started');
  return {
    worker,
    connection,
    running,
    async shutdown() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running.catch(() => undefined);
      await connection.close();
    },
  };
}
