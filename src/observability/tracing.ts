/**
 * OpenTelemetry traces (docs/operations.md "Traces").
 *
 * Off unless `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set, and
 * `OTEL_SDK_DISABLED` is not `true`. Off, nothing is installed: no tracer provider, no Temporal
 * interceptors on the client or the worker's activities, no span and no `traceparent` header on
 * requests to the system under test; the only cost left on the per-node path is one boolean read.
 *
 * On ({@link initTracing}, called once by each service's start in bin/processes.ts), spans are
 * exported over OTLP/HTTP: `http/protobuf` (default) or `http/json`, chosen by
 * `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` / `OTEL_EXPORTER_OTLP_PROTOCOL` (`grpc` is refused at
 * start: no gRPC exporter is shipped). The exporters read the rest of the standard variables
 * themselves (`OTEL_EXPORTER_OTLP_HEADERS`, `…_TIMEOUT`, …); the batch processor reads
 * `OTEL_BSP_*`; the sampler `OTEL_TRACES_SAMPLER(_ARG)` (default: parent-based, always on); the
 * resource `OTEL_SERVICE_NAME` (default per service: `assay-api`, `assay-worker`,
 * `assay-bundler`; in a one-process `all`/`dev` the first service started names it) and
 * `OTEL_RESOURCE_ATTRIBUTES`. Context crosses processes as W3C Trace Context (`traceparent`).
 *
 * The trace of a run: the API's request span (`POST /v1/runs`, api/base.ts through
 * src/observability/server-requests.ts) → `StartWorkflow:runWorkflow` (the Temporal client interceptor,
 * src/temporal/client.ts) → `RunWorkflow:runWorkflow` (the workflow interceptor in the workflow
 * bundle, src/observability/workflow-interceptors.ts) → `StartActivity:…` → `RunActivity:…` (the
 * activity interceptors, {@link workerTracing}) → the HTTP client span of each request an API node
 * sends ({@link startClientSpan}), whose context goes to the system under test in `traceparent`.
 */
import * as otel from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { Resource, envDetectorSync } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';

/** The services that name themselves in traces by default (`OTEL_SERVICE_NAME` overrides). */
export type TracedService = 'assay-api' | 'assay-worker' | 'assay-bundler';

interface TracingState {
  provider: BasicTracerProvider;
  processor: SpanProcessor;
  resource: Resource;
  tracer: otel.Tracer;
}

let state: TracingState | undefined;
let decided = false;

/** Whether traces are on in this process (after {@link initTracing}). Cheap: one read. */
export function tracingEnabled(): boolean {
  return state !== undefined;
}

/** Whether `env` asks for traces: an OTLP endpoint is set and the SDK is not disabled. */
export function tracingRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  if ((env.OTEL_TRACES_EXPORTER ?? '').trim().toLowerCase() === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/** The OTLP exporter `env` asks for. @throws Error for a protocol other than http/protobuf or http/json. */
function exporterFrom(env: NodeJS.ProcessEnv): SpanExporter {
  const protocol = (
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ||
    env.OTEL_EXPORTER_OTLP_PROTOCOL ||
    'http/protobuf'
  ).trim();
  if (protocol === 'http/protobuf') return new ProtobufExporter();
  if (protocol === 'http/json') return new JsonExporter();
  throw new Error(
    `OTEL_EXPORTER_OTLP_PROTOCOL "${protocol}" is not supported: use http/protobuf (default) or http/json (the OTLP/HTTP port, usually 4318).`,
  );
}

/**
 * Turns traces on for this process when `env` asks for them ({@link tracingRequested}); the first
 * call decides, later calls return what it decided. Registers the global tracer provider, the
 * async-hooks context manager and the W3C propagators (`OTEL_PROPAGATORS`, default
 * `tracecontext,baggage`).
 * @returns whether traces are on
 * @throws Error when the OTLP protocol asked for is not supported
 */
export function initTracing(service: TracedService, env: NodeJS.ProcessEnv = process.env): boolean {
  if (decided) return tracingEnabled();
  decided = true;
  if (!tracingRequested(env)) return false;
  const exporter = exporterFrom(env);
  const resource = Resource.default()
    .merge(new Resource({ 'service.name': service, 'service.namespace': 'assay' }))
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over the defaults.
    .merge(envDetectorSync.detect());
  const provider = new BasicTracerProvider({ resource });
  const processor = new BatchSpanProcessor(exporter);
  provider.addSpanProcessor(processor);
  provider.register({ contextManager: new AsyncLocalStorageContextManager().enable() });
  state = { provider, processor, resource, tracer: provider.getTracer('assay') };
  return true;
}

/** Sends the spans not exported yet and stops traces (process shutdown). Safe to call when off. */
export async function shutdownTracing(): Promise<void> {
  const s = state;
  if (!s) return;
  await s.provider.forceFlush().catch(() => undefined);
  await s.provider.shutdown().catch(() => undefined);
}

/** Sends the spans ended so far (tests; shutdown does it too). */
export async function flushTracing(): Promise<void> {
  await state?.provider.forceFlush();
}

/** Assay's tracer, or undefined when traces are off. */
export function assayTracer(): otel.Tracer | undefined {
  return state?.tracer;
}

/** The span processor and resource of this process (the workflow span sink needs them), when on. */
export function tracingPipeline(): { processor: SpanProcessor; resource: Resource } | undefined {
  return state && { processor: state.processor, resource: state.resource };
}

/** The open client span of one outgoing request: {@link startClientSpan}. */
export interface ClientSpan {
  /** Ends the span with the response status, or with the error code when no response arrived. */
  end(status: number | undefined, errorCode?: string): void;
}

/**
 * Opens the client span of a request an API node sends, as a child of the active span (the
 * activity's), and adds its W3C context (`traceparent`, and `tracestate`/`baggage` when there are
 * any) to `headers` unless the test case set a header of that name itself (the test case wins).
 * Returns undefined, and changes nothing, when traces are off or no span is active (a run started
 * without a trace: by a schedule, or before tracing was turned on).
 *
 * Attributes: `http.request.method`, `url.scheme`, `server.address`, `server.port`,
 * `http.response.status_code` (or `error.type`). The URL's path and query are left out: a test
 * case may put secrets there, and the span leaves Assay.
 */
export function startClientSpan(method: string, url: URL, headers: Record<string, string>): ClientSpan | undefined {
  const tracer = state?.tracer;
  if (!tracer) return undefined;
  const parent = otel.context.active();
  if (!otel.trace.getSpan(parent)) return undefined;
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  const span = tracer.startSpan(
    method,
    {
      kind: otel.SpanKind.CLIENT,
      attributes: {
        'http.request.method': method,
        'url.scheme': url.protocol.slice(0, -1),
        'server.address': url.hostname,
        'server.port': port,
      },
    },
    parent,
  );
  const carrier: Record<string, string> = {};
  otel.propagation.inject(otel.trace.setSpan(parent, span), carrier);
  const taken = new Set(Object.keys(headers).map((h) => h.toLowerCase()));
  for (const [name, value] of Object.entries(carrier)) if (!taken.has(name)) headers[name] = value;
  return {
    end(status, errorCode) {
      if (status !== undefined) {
        span.setAttribute('http.response.status_code', status);
        if (status >= 400) span.setStatus({ code: otel.SpanStatusCode.ERROR });
      } else {
        span.setAttribute('error.type', errorCode ?? 'NETWORK_ERROR');
        span.setStatus({ code: otel.SpanStatusCode.ERROR, message: errorCode });
      }
      span.end();
    },
  };
}
