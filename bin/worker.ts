/**
 * The worker: polls the run task queue and executes run workflows and their activities.
 */
import { NativeConnection, Worker, Runtime, makeTelemetryFilterString } from '@temporalio/worker';
import type { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import type { AssayConfig } from '../src/config';
import { createActivities, createLoadWorkerActivities } from '../activities';
import { LOAD_TASK_QUEUE_SUFFIX } from '../src/domain/run-workflow';
import { registerSearchAttributes } from '../src/temporal/search-attributes';
import { workflowModules, workflowSource } from '../src/temporal/bundle';
import { temporalMetricsExporter } from '../src/observability/temporal-metrics';
import { workerTracing } from '../src/observability/tracing-temporal';
import { retryForever } from '../src/retry';
import { dataConverter } from '../src/temporal/codec';
import { storePayloadScopes } from '../src/temporal/payload-scopes';
import { AssayWorker, setIsolateTimeout } from '../src/temporal/workflow-worker';

let runtimeInstalled: Promise<void> | undefined;

/**
 * The SDK's log metadata without payload contents: at trace level it logs workflow activations
 * with their (decoded) payloads, base64 JSON that may hold a run's secret variables where no masker
 * can see them. Each `{metadata, data}` payload becomes `{metadata, data: "<N bytes>"}`.
 */
export function withoutPayloadData(value: unknown, depth = 0): unknown {
  if (depth > 30 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => withoutPayloadData(v, depth + 1));
  const record = value as Record<string, unknown>;
  if (
    'metadata' in record &&
    'data' in record &&
    (typeof record.data === 'string' || record.data instanceof Uint8Array)
  ) {
    const size = typeof record.data === 'string' ? Math.floor((record.data.length * 3) / 4) : record.data.length;
    return { ...record, data: `<${size} bytes>` };
  }
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, withoutPayloadData(v, depth + 1)]));
}

/**
 * Routes the SDK's logs through our logger (payload contents left out) and exports its metrics
 * (appended to the process's /metrics: src/observability/temporal-metrics.ts), once per process.
 */
function installRuntime(logger: Logger): Promise<void> {
  runtimeInstalled ??= temporalMetricsExporter().then((sdkMetrics) => installRuntimeWith(logger, sdkMetrics));
  return runtimeInstalled;
}

function installRuntimeWith(logger: Logger, sdkMetrics: Awaited<ReturnType<typeof temporalMetricsExporter>>): void {
  // The SDK logs every activation at trace level: skip the payload walk for a level that is off.
  const log =
    (level: 'trace' | 'debug' | 'info' | 'warn' | 'error') => (message: string, meta?: Record<string, unknown>) => {
      if (!logger.isLevelEnabled(level)) return;
      logger[level]({ ...(withoutPayloadData(meta ?? {}) as Record<string, unknown>), source: 'temporal' }, message);
    };
  const install = (metrics: typeof sdkMetrics.metrics | undefined) =>
    Runtime.install({
      logger: {
        log: (level, message, meta) => log(level.toLowerCase() as 'info')(message, meta),
        trace: log('trace'),
        debug: log('debug'),
        info: log('info'),
        warn: log('warn'),
        error: log('error'),
      },
      telemetryOptions: {
        logging: { filter: makeTelemetryFilterString({ core: 'WARN' }), forward: {} },
        ...(metrics ? { metrics } : {}),
      },
    });
  try {
    install(sdkMetrics.metrics);
    sdkMetrics.installed();
  } catch {
    // A runtime already exists in this process (a replay worker made one first): keep it. Or the
    // SDK's metrics port was taken meanwhile: install without its metrics.
    try {
      install(undefined);
      logger.warn('the Temporal SDK metrics exporter could not start; /metrics has Assay metrics only');
    } catch {
      /* the existing runtime stays */
    }
  }
}

export interface RunWorkerHandle {
  /** The main task queue's worker, or on a load host (`ASSAY_LOAD_ONLY`) the load task queue's. */
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
export async function startRunWorker(deps: {
  config: AssayConfig;
  dataSource: DataSource;
  logger: Logger;
}): Promise<RunWorkerHandle> {
  const { config, dataSource, logger } = deps;
  await installRuntime(logger);
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
  // Every payload is encrypted with the key ring (src/temporal/codec.ts); API and worker need the same ring.
  const converter = dataConverter(config, storePayloadScopes(config, dataSource));
  // Traces (off unless OTEL_EXPORTER_OTLP_ENDPOINT is set): activity interceptors and the workflow span sink.
  const tracing = workerTracing();
  // Workflow code without a per-call V8 watchdog unless configured (src/temporal/workflow-worker.ts).
  setIsolateTimeout(config.temporal.isolateTimeoutMs);
  // A load host (ASSAY_LOAD_ONLY) polls the load task queue only.
  const mainWorker = config.load.only
    ? undefined
    : await AssayWorker.create({
        connection,
        dataConverter: converter,
        namespace: config.temporal.namespace,
        taskQueue: config.temporal.taskQueue,
        ...workflowSource(),
        interceptors: { workflowModules: workflowModules(), activity: tracing.activityInterceptors },
        sinks: tracing.sinks,
        activities: createActivities({ dataSource, config }),
        // Let in-flight requests finish (or be retried elsewhere) on a graceful stop.
        shutdownGraceTime: '10 seconds',
        // After a worker dies, its runs' next workflow tasks wait this long on its sticky queue before
        // any worker may take them (SDK default 10 s; docs/benchmarks.md "Worker kills").
        stickyQueueScheduleToStartTimeout: config.temporal.stickyTimeoutMs,
        maxConcurrentActivityTaskExecutions: config.temporal.activitySlots,
        // A test case segment's checkpoint reaches Temporal at most a second after it was taken
        // (activities/test-case.ts; docs/durability.md "What a crash repeats").
        maxHeartbeatThrottleInterval: '1 second',
        defaultHeartbeatThrottleInterval: '1 second',
      });
  // Performance runs' load shards: their own task queue, so load never starves functional runs.
  const loadTaskQueue = `${config.temporal.taskQueue}${LOAD_TASK_QUEUE_SUFFIX}`;
  const loadWorker =
    config.load.shardsPerWorker > 0
      ? await Worker.create({
          connection,
          dataConverter: converter,
          namespace: config.temporal.namespace,
          taskQueue: loadTaskQueue,
          activities: createLoadWorkerActivities({ dataSource, config }),
          maxConcurrentActivityTaskExecutions: config.load.shardsPerWorker,
          // A shard's checkpoint reaches Temporal every second (activities/load.ts HEARTBEAT_MS).
          maxHeartbeatThrottleInterval: '1 second',
          defaultHeartbeatThrottleInterval: '1 second',
          shutdownGraceTime: '5 seconds',
        })
      : undefined;
  const worker = (mainWorker ?? loadWorker)!;
  const running = Promise.all([mainWorker?.run(), loadWorker?.run()]).then(() => undefined);
  logger.info(
    {
      taskQueue: mainWorker ? config.temporal.taskQueue : null,
      loadTaskQueue: loadWorker ? loadTaskQueue : null,
      address: config.temporal.address,
    },
    'worker started',
  );
  return {
    worker,
    connection,
    running,
    async shutdown() {
      if (mainWorker?.getState() === 'RUNNING') mainWorker.shutdown();
      if (loadWorker?.getState() === 'RUNNING') loadWorker.shutdown();
      await running.catch(() => undefined);
      await connection.close();
    },
  };
}
