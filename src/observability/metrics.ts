/**
 * Assay's Prometheus metrics (docs/operations.md "Metrics" lists them all).
 *
 * One registry per process ({@link registry}), served as Prometheus text (exposition format 0.0.4)
 * at `GET /metrics` by every Assay HTTP service: the API, the bundler (api/base.ts) and the worker
 * process's own server (src/observability/worker-http.ts). A process that runs several services
 * (`main.js all`, `dev`) serves the same whole-process text on each. Every name starts with
 * `assay_`; the Temporal SDK's own runtime metrics (`temporal_…`) are appended to it in a worker
 * process ({@link addMetricsSource}, src/observability/temporal-metrics.ts), so one scrape per
 * process gives everything.
 *
 * The metrics are created when this module is loaded (cheap, no timer); the Node process metrics
 * (`assay_process_…`, `assay_nodejs_…`: CPU, memory, event loop lag, GC) start with
 * {@link startProcessMetrics}, which each service's start calls.
 *
 * Durations are in seconds (Prometheus convention). Labels carry bounded values only: route
 * templates (never raw paths), status codes, fixed outcome words.
 */
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { RUN_ERROR_PREFIX } from '../domain/failures';

/** The process's registry: every `assay_…` metric. */
export const registry = new Registry();

/** Buckets of HTTP request durations, seconds. */
const HTTP_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Buckets of node durations, seconds (an API node: hooks, request and retries). */
const NODE_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Buckets of run durations, seconds. */
const RUN_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 7200, 86_400];
/** Buckets of bundle builds, seconds. */
const BUILD_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** `assay_http_requests_total{service, method, route, status}`: requests answered by the API or the bundler (Koa routes; not /mock). */
export const httpRequests = new Counter({
  name: 'assay_http_requests_total',
  help: 'HTTP requests answered, by service (api, bundler), method, matched route template ((unmatched) when no route matched) and status code.',
  labelNames: ['service', 'method', 'route', 'status'] as const,
  registers: [registry],
});

/** `assay_http_request_duration_seconds{service, method, route}`. */
export const httpDuration = new Histogram({
  name: 'assay_http_request_duration_seconds',
  help: 'Time from a request reaching the service to its answer being set, seconds, by service, method and route template.',
  labelNames: ['service', 'method', 'route'] as const,
  buckets: HTTP_BUCKETS,
  registers: [registry],
});

/** `assay_runs_started_total{trigger}`: workflows of runs started (API, incoming webhook, recovery sweep) and scheduled runs created. */
export const runsStarted = new Counter({
  name: 'assay_runs_started_total',
  help: 'Runs started, by trigger (api, webhook, schedule): counted when the API (or its recovery sweep) started the run workflow, or when a schedule created the run.',
  labelNames: ['trigger'] as const,
  registers: [registry],
});

/** What a finished run came to: {@link runResultOf}. */
export type RunResultLabel = 'passed' | 'failed' | 'cancelled' | 'timed_out' | 'error';

/** `assay_runs_finished_total{result}`: counted by the worker's `finishRun` when it ends a run. */
export const runsFinished = new Counter({
  name: 'assay_runs_finished_total',
  help: 'Runs finished, by result: passed, failed (tests failed), cancelled, timed_out, error (the run could not complete). Counted by the worker that stored the end.',
  labelNames: ['result'] as const,
  registers: [registry],
});

/** `assay_run_duration_seconds{result}`: from the run's start (plan frozen) to its end. */
export const runDuration = new Histogram({
  name: 'assay_run_duration_seconds',
  help: 'Duration of finished runs from start to end, seconds, by result.',
  labelNames: ['result'] as const,
  buckets: RUN_BUCKETS,
  registers: [registry],
});

/** `assay_node_duration_seconds{outcome}`: one `executeApiNode` activity. */
export const nodeDuration = new Histogram({
  name: 'assay_node_duration_seconds',
  help: 'Duration of API node executions (hooks, request, retries), seconds, by outcome: the response status class (2xx, 3xx, 4xx, 5xx, 1xx), network_error (no response) or script_error (a hook failed).',
  labelNames: ['outcome'] as const,
  buckets: NODE_BUCKETS,
  registers: [registry],
});

/** `assay_webhook_deliveries_total{outcome}`: outgoing webhook delivery attempts and give-ups. */
export const webhookDeliveries = new Counter({
  name: 'assay_webhook_deliveries_total',
  help: 'Outgoing webhook delivery attempts by outcome: delivered (2xx), rejected (the receiver answered another status), unreachable (no answer), refused (the address policy refused the receiver); and gave_up (a delivery whose retries ran out).',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

/** `assay_mock_requests_total{status}`: requests the mock service answered. */
export const mockRequests = new Counter({
  name: 'assay_mock_requests_total',
  help: 'Requests answered by the mock service (/mock/…), by the status code answered.',
  labelNames: ['status'] as const,
  registers: [registry],
});

/**
 * `assay_mock_journal_dropped_total{reason}`: journal entries not written (src/mock/journal.ts):
 * `overflow` (the buffer of unscoped entries was full), `failed` (the store refused or did not answer).
 */
export const mockJournalDropped = new Counter({
  name: 'assay_mock_journal_dropped_total',
  help: 'Mock journal entries not written: overflow (buffer full) or failed (store error).',
  labelNames: ['reason'] as const,
  registers: [registry],
});

/**
 * `assay_node_executions_total{outcome}`: node executions of `node`-mode runs through the node
 * execution records (src/store/node-executions.ts `RecordedOutcome`): `sent` (run the first time),
 * `recorded` (answered from its recorded outcome: a repeat avoided), `joined` (answered by waiting
 * for the owner running it), `taken-over` (run again: its owner died with it under way),
 * `unrecorded` (run without a record: the store did not answer).
 */
export const nodeExecutions = new Counter({
  name: 'assay_node_executions_total',
  help: 'Node executions of node-mode runs by how they were answered: sent, recorded (a repeat avoided), joined, taken-over (sent again after a crash), unrecorded.',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

/** `assay_bundler_builds_total{outcome}`: bundles built (`built`) or refused/failed (`failed`). */
export const bundlerBuilds = new Counter({
  name: 'assay_bundler_builds_total',
  help: 'Bundles the bundler fetched and built, by outcome: built, failed (a refusal or an error).',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

/** `assay_bundler_cache_hits_total`: bundle requests answered from the cache. */
export const bundlerCacheHits = new Counter({
  name: 'assay_bundler_cache_hits_total',
  help: 'Bundle requests answered from the cache without fetching or building.',
  registers: [registry],
});

/** `assay_bundler_build_duration_seconds`: fetch and bundle time of builds that succeeded. */
export const bundlerBuildDuration = new Histogram({
  name: 'assay_bundler_build_duration_seconds',
  help: 'Time to fetch and bundle a library, seconds (successful builds).',
  buckets: BUILD_BUCKETS,
  registers: [registry],
});

/**
 * The `result` label of a run that `finishRun` ended. `completed` runs carry their result
 * (`passed`/`failed`); a `failed` run's error text says why, as workflows/run.ts words it
 * (src/domain/failures.ts RUN_ERROR_PREFIX): `Run timed out after …` → `timed_out`,
 * `Run cancelled…` → `cancelled`, anything else → `error`.
 */
export function runResultOf(
  status: 'completed' | 'failed',
  result: string | undefined,
  error: string | undefined,
): RunResultLabel {
  if (status === 'completed') return result === 'failed' ? 'failed' : 'passed';
  if (error?.startsWith(RUN_ERROR_PREFIX.timedOut)) return 'timed_out';
  if (error?.startsWith(RUN_ERROR_PREFIX.cancelled)) return 'cancelled';
  return 'error';
}

/** Counts a run that `finishRun` ended, and its duration when it had started (ms). */
export function recordRunFinished(result: RunResultLabel, durationMs: number | undefined): void {
  runsFinished.inc({ result });
  if (durationMs !== undefined) runDuration.observe({ result }, durationMs / 1000);
}

/** Outcome labels of API nodes, by status class (index = first digit). */
const STATUS_CLASSES = ['network_error', '1xx', '2xx', '3xx', '4xx', '5xx'];

/**
 * Observes one API node's duration (ms) with its outcome: `script_error` when a hook failed,
 * `network_error` when no response arrived, else the response's status class.
 */
export function observeApiNode(
  out: { exchange?: { status?: number; error?: string }; scriptError?: unknown },
  ms: number,
): void {
  let outcome: string;
  if (out.scriptError) outcome = 'script_error';
  else if (!out.exchange || out.exchange.error || out.exchange.status === undefined) outcome = 'network_error';
  else outcome = STATUS_CLASSES[Math.floor(out.exchange.status / 100)] ?? 'network_error';
  nodeDuration.observe({ outcome }, ms / 1000);
}

/** Extra text sources appended to {@link metricsText} (the Temporal SDK's exporter). */
const sources = new Set<() => Promise<string>>();

/** Adds a source of Prometheus text appended to every scrape of this process; returns its removal. */
export function addMetricsSource(source: () => Promise<string>): () => void {
  sources.add(source);
  return () => void sources.delete(source);
}

/** Content type of {@link metricsText}'s answer. */
export const METRICS_CONTENT_TYPE = registry.contentType;

/** The whole process's metrics as Prometheus text: the registry, then each added source (a failing source is left out). */
export async function metricsText(): Promise<string> {
  const parts = [await registry.metrics()];
  for (const source of sources) {
    const text = await source().catch(() => '');
    if (text) parts.push(text.endsWith('\n') ? text : `${text}\n`);
  }
  return parts.join('');
}

let processMetrics = false;

/** Starts the Node process metrics (`assay_process_…`, `assay_nodejs_…`), once per process. */
export function startProcessMetrics(): void {
  if (processMetrics) return;
  processMetrics = true;
  collectDefaultMetrics({ register: registry, prefix: 'assay_' });
}
