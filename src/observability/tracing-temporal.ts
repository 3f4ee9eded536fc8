/**
 * Traces through Temporal (docs/operations.md "Traces"): the OpenTelemetry interceptors of
 * `@temporalio/interceptors-opentelemetry` on the API's client and the worker's activities, and the
 * sink that takes the workflow's spans out of its sandbox. Nothing here is installed while traces
 * are off (src/observability/tracing.ts), except a sink that drops spans (see {@link workerTracing}).
 */
import type { Context as ActivityContext } from '@temporalio/activity';
import type { ClientInterceptors } from '@temporalio/client';
import type {
  ActivityExecuteInput,
  ActivityInboundCallsInterceptor,
  InjectedSinks,
  Next,
  WorkerInterceptors,
} from '@temporalio/worker';
import {
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
  makeWorkflowExporter,
  type OpenTelemetrySinks,
} from '@temporalio/interceptors-opentelemetry';
import { tracingEnabled, tracingPipeline } from './tracing';
import { TRACE_HEADER } from './workflow-interceptors';

/**
 * The Temporal client's interceptors: with traces on, starting a workflow is a
 * `StartWorkflow:<type>` span under the active span (the API request's) whose context travels in
 * the workflow's start header; undefined when traces are off.
 */
export function clientTracingInterceptors(): ClientInterceptors | undefined {
  return tracingEnabled() ? { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } : undefined;
}

/**
 * An activity's span (`RunActivity:<type>`) only when the activity carries a trace context: an
 * activity of a workflow started without a trace runs untouched (no root span of its own).
 */
class TracedActivityInbound implements ActivityInboundCallsInterceptor {
  private otel?: OpenTelemetryActivityInboundInterceptor;

  constructor(private readonly ctx: ActivityContext) {}

  execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    if (input.headers[TRACE_HEADER] === undefined) return next(input);
    this.otel ??= new OpenTelemetryActivityInboundInterceptor(this.ctx);
    return this.otel.execute(input, next);
  }
}

/**
 * The worker's share of tracing, for `Worker.create`:
 * - `activityInterceptors`: with traces on, activities of traced workflows run inside their span
 *   (so an API node's request span is its child, src/observability/tracing.ts
 *   `startClientSpan`) and their log lines carry the trace and span ids; none when off;
 * - `sinks`: the `exporter` sink of the workflow interceptors (src/observability/workflow-
 *   interceptors.ts) sends workflow spans to this process's span processor; when off it drops them,
 *   so a workflow started with a trace still runs on a worker without traces.
 */
export function workerTracing(): {
  activityInterceptors: NonNullable<WorkerInterceptors['activity']>;
  sinks: InjectedSinks<OpenTelemetrySinks>;
} {
  const pipeline = tracingPipeline();
  if (!pipeline) return { activityInterceptors: [], sinks: { exporter: { export: { fn: () => undefined } } } };
  return {
    activityInterceptors: [
      (ctx) => ({
        inbound: new TracedActivityInbound(ctx),
        outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
      }),
    ],
    sinks: { exporter: makeWorkflowExporter(pipeline.processor, pipeline.resource) },
  };
}
