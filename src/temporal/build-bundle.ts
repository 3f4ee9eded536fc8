/**
 * `node dist/src/temporal/build-bundle.js`: writes the workflow bundle (run by `npm run build`):
 * the workflows and their interceptor modules (src/temporal/bundle.ts `WORKFLOW_INTERCEPTOR_MODULES`).
 */
import fs from 'node:fs';
import { bundleWorkflowCode } from '@temporalio/worker';
import { BUNDLE_PATH, WORKFLOW_INTERCEPTOR_MODULES, WORKFLOWS_PATH, WORKFLOW_STACK_TRACE_LIMIT } from './bundle';

async function main(): Promise<void> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
    logger: { trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error, log() {} } as never,
  });
  // Evaluated once with the bundle, before the SDK freezes the sandbox's globals; on the bundle's
  // first line, so the source map's lines stay right (src/temporal/bundle.ts WORKFLOW_STACK_TRACE_LIMIT).
  fs.writeFileSync(BUNDLE_PATH, `Error.stackTraceLimit = ${WORKFLOW_STACK_TRACE_LIMIT}; ${code}`);
  console.log(`workflow bundle: ${BUNDLE_PATH} (${(code.length / 1024).toFixed(0)} KiB)`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
