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

/** Worker options that load the workflows: the prebuilt bundle when present. */
export function workflowSource(): Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath'> {
  return fs.existsSync(BUNDLE_PATH) ? { workflowBundle: { codePath: BUNDLE_PATH } } : { workflowsPath: WORKFLOWS_PATH };
}
