/**
 * The workflow interceptors of the workflow bundle (src/temporal/build-bundle.ts): OpenTelemetry
 * spans of a run's workflow, and its trace context handed to the activities it schedules, for
 * workflows that were started with a trace (docs/operations.md "Traces").
 *
 * A workflow whose start carries no tracing header (`_tracer-data`, set by the Temporal client's
 * OpenTelemetry interceptor when the API traces: src/temporal/client.ts) is not touched: every
 * call goes straight to the next interceptor, nothing is awaited, no module of OpenTelemetry is
 * even loaded. So histories recorded without traces, and runs started while traces are off, replay
 * and run exactly as without this module (test/integration/runs/replay.test.ts replays them with it).
 *
 * A workflow started with the header gets `@temporalio/interceptors-opentelemetry`'s interceptors,
 * loaded then (in the reusable V8 context each workflow has its own module cache, so the library's
 * patch of the sandbox's globals stays in traced workflows). Its spans (`RunWorkflow:…`,
 * `StartActivity:…`, `StartChildWorkflow:…`) leave the sandbox through the `exporter` sink
 * (src/observability/temporal-tracing.ts). Whether a workflow is traced is decided by its start
 * header alone, never by the worker's configuration, so every worker replays it the same way.
 */
import type {
  ActivityInput,
  ContinueAsNewInput,
  DisposeInput,
  LocalActivityInput,
  Next,
  StartChildWorkflowExecutionInput,
  WorkflowExecuteInput,
  WorkflowInboundCallsInterceptor,
  WorkflowInterceptors,
  WorkflowInternalsInterceptor,
  WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';

/** The header the OpenTelemetry interceptors carry the trace context in (`TRACE_HEADER` of @temporalio/interceptors-opentelemetry). */
export const TRACE_HEADER = '_tracer-data';

interface OtelInterceptors {
  inbound: WorkflowInboundCallsInterceptor;
  outbound: Required<
    Pick<
      WorkflowOutboundCallsInterceptor,
      'scheduleActivity' | 'scheduleLocalActivity' | 'startChildWorkflowExecution' | 'continueAsNew'
    >
  >;
  internals: WorkflowInternalsInterceptor;
}

/** The library's workflow interceptors, loaded on first use (only by a traced workflow). */
function loadOtel(): OtelInterceptors {
  type Otel = typeof import('@temporalio/interceptors-opentelemetry/lib/workflow');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const otel = require('@temporalio/interceptors-opentelemetry/lib/workflow') as Otel;
  return {
    inbound: new otel.OpenTelemetryInboundInterceptor(),
    outbound: new otel.OpenTelemetryOutboundInterceptor(),
    internals: new otel.OpenTelemetryInternalsInterceptor(),
  };
}

/** The interceptors of one workflow (the bundle calls this once per workflow execution). */
export const interceptors = (): WorkflowInterceptors => {
  let otel: OtelInterceptors | undefined;
  const inbound: WorkflowInboundCallsInterceptor = {
    execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>): Promise<unknown> {
      if (input.headers[TRACE_HEADER] === undefined) return next(input);
      otel = loadOtel();
      return otel.inbound.execute!(input, next);
    },
  };
  const outbound: WorkflowOutboundCallsInterceptor = {
    scheduleActivity(
      input: ActivityInput,
      next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>,
    ): Promise<unknown> {
      return otel ? otel.outbound.scheduleActivity(input, next) : next(input);
    },
    scheduleLocalActivity(
      input: LocalActivityInput,
      next: Next<WorkflowOutboundCallsInterceptor, 'scheduleLocalActivity'>,
    ): Promise<unknown> {
      return otel ? otel.outbound.scheduleLocalActivity(input, next) : next(input);
    },
    startChildWorkflowExecution(
      input: StartChildWorkflowExecutionInput,
      next: Next<WorkflowOutboundCallsInterceptor, 'startChildWorkflowExecution'>,
    ): Promise<[Promise<string>, Promise<unknown>]> {
      return otel ? otel.outbound.startChildWorkflowExecution(input, next) : next(input);
    },
    continueAsNew(
      input: ContinueAsNewInput,
      next: Next<WorkflowOutboundCallsInterceptor, 'continueAsNew'>,
    ): Promise<never> {
      return otel ? otel.outbound.continueAsNew(input, next) : next(input);
    },
  };
  const internals: WorkflowInternalsInterceptor = {
    dispose(input: DisposeInput, next: Next<WorkflowInternalsInterceptor, 'dispose'>): void {
      if (otel?.internals.dispose) otel.internals.dispose(input, next);
      else next(input);
    },
  };
  return { inbound: [inbound], outbound: [outbound], internals: [internals] };
};
