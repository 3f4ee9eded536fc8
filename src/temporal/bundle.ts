/**
 * The workflow bundle. Built once by `npm run build` (webpack runs at build time, not at every
 * worker start: about a second saved per start), loaded from `dist/workflow-bundle.js`. When the
 * file is missing (a worker started from a fresh compile), the worker bundles from source instead.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { WorkerOptions } from '@temporalio/worker';

/** Compiled entry of the workflows (`dist/workflows/index.js`). */
export const WORKFLOWS_PATH = path.resolve(__dirname, '../../workflows/index.js');
/** Prebuilt bundle (`dist/workflow-bundle.js`). */
export const BUNDLE_PATH = path.resolve(__dirname, '../../workflow-bundle.js');

/**
 * `Error.stackTraceLimit` inside the workflow sandbox. The SDK records where every workflow promise
 * was created (for the `__stack_trace` query, the Web UI's "Call Stack") by capturing a stack trace
 * and mapping each frame through the bundle's source map, in a V8 promise hook: measured, that was
 * half of the workflow thread's time (docs/benchmarks.md "Scaling"). Fewer frames cost
 * proportionally less. 0 (the default): errors thrown by workflow code carry their message and no
 * frames, and the UI's "Call Stack" shows none; a developer chasing a workflow bug rebuilds the
 * bundle with `ASSAY_WORKFLOW_STACK_TRACE_LIMIT=10 node dist/src/temporal/build-bundle.js`.
 */
export const WORKFLOW_STACK_TRACE_LIMIT = Math.max(
  0,
  Math.min(100, Number(process.env.ASSAY_WORKFLOW_STACK_TRACE_LIMIT ?? 0) || 0),
);

/**
 * The workflow interceptor modules, bundled with the workflows: traces of workflows started with
 * a trace context (src/observability/workflow-interceptors.ts; nothing happens in a workflow
 * started without one).
 */
export const WORKFLOW_INTERCEPTOR_MODULES = [path.resolve(__dirname, '../observability/workflow-interceptors.js')];

/**
 * `interceptors.workflowModules` for `Worker.create`: {@link WORKFLOW_INTERCEPTOR_MODULES} when the
 * worker bundles from source; none with the prebuilt bundle, which has them inside already.
 */
export function workflowModules(): string[] {
  return fs.existsSync(BUNDLE_PATH) ? [] : WORKFLOW_INTERCEPTOR_MODULES;
}

/** Worker options that load the workflows: the prebuilt bundle when present. */
export function workflowSource(): Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath'> {
  return fs.existsSync(BUNDLE_PATH) ? { workflowBundle: { codePath: BUNDLE_PATH } } : { workflowsPath: WORKFLOWS_PATH };
}
