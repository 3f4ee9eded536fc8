/**
 * The Temporal worker class Assay's workers are made of: the SDK's `Worker`, with workflow code run
 * without a per-call V8 watchdog unless the operator asks for one.
 *
 * Why: the SDK runs each call into the workflow sandbox (several per workflow activation) with
 * `vm.Script#runInContext(context, { timeout: isolateExecutionTimeout })`, and Node enforces such a
 * timeout by creating and joining a watchdog thread for every call (nodejs/node#47739, still open):
 * measured here 1.0 ms per call against 2 µs without a timeout, so about 5 ms per activation, which
 * capped a worker at ~180 API nodes per second whatever the number of runs (docs/benchmarks.md
 * "Scaling"). Assay's workflow code is its own interpreter; every user expression evaluated there
 * is metered by a step budget (src/domain/expressions.ts WORKFLOW_LIMITS) and a workflow task
 * yields after a work budget (workflows/workflow-port.ts TASK_WORK_BUDGET), so the watchdog only
 * guards against a bug of Assay's own — and Temporal's workflow task timeout still moves a stuck
 * task to another worker. `ASSAY_WORKFLOW_ISOLATE_TIMEOUT_MS` brings the SDK's watchdog back.
 *
 * Relies on `Worker.createWorkflowCreator`, a protected static of the SDK (1.24) called as
 * `this.createWorkflowCreator` by `Worker.create` and the replayer, so a subclass may adjust the
 * compiled options it receives. test/integration/durability/worker-throughput.test.ts checks that the
 * override is used.
 */
import { Worker, type CompiledWorkerOptions } from '@temporalio/worker';
import type { Logger } from '@temporalio/common';
import type { WorkflowCreator } from '@temporalio/worker/lib/workflow/interface';
import type { WorkflowBundleWithSourceMapAndFilename } from '@temporalio/worker/lib/workflow/workflow-worker-thread/input';

/** How workflow code is guarded: `undefined` = no per-call watchdog; a number = the SDK's isolate timeout in ms. */
let isolateTimeoutMs: number | undefined;

/** Calls into the sandbox made with the per-call watchdog off since the process started (for tests). */
export const watchdogStats = { creatorsWithoutWatchdog: 0 };

/** A `Worker` whose workflow sandbox calls carry no V8 watchdog unless {@link setIsolateTimeout} set one. */
export class AssayWorker extends Worker {
  protected static override async createWorkflowCreator(
    bundle: WorkflowBundleWithSourceMapAndFilename,
    compiledOptions: CompiledWorkerOptions,
    logger: Logger,
  ): Promise<WorkflowCreator> {
    if (isolateTimeoutMs !== undefined)
      return super.createWorkflowCreator(
        bundle,
        { ...compiledOptions, isolateExecutionTimeoutMs: isolateTimeoutMs },
        logger,
      );
    watchdogStats.creatorsWithoutWatchdog += 1;
    // `timeout: undefined` in vm's runInContext means none (Node's lib/vm.js), so no watchdog thread per call.
    return super.createWorkflowCreator(
      bundle,
      { ...compiledOptions, isolateExecutionTimeoutMs: undefined as unknown as number },
      logger,
    );
  }
}

/** Sets the isolate timeout (ms) of workers created from now on; `undefined` = none (the default). */
export function setIsolateTimeout(ms: number | undefined): void {
  isolateTimeoutMs = ms;
}
