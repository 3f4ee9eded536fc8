/**
 * `node dist/src/temporal/build-bundle.js`: writes the workflow bundle (run by `npm run build`).
 */
import fs from 'node:fs';
import { bundleWorkflowCode } from '@temporalio/worker';
import { BUNDLE_PATH, WORKFLOWS_PATH } from './bundle';

async function main(): Promise<void> {
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: { trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error, log() {} } as never });
  fs.writeFileSync(BUNDLE_PATH, code);
  console.log(`workflow bundle: ${BUNDLE_PATH} (${(code.length / 1024).toFixed(0)} KiB)`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
