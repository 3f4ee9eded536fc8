/**
 * Every activity the worker registers, built from the worker's dependencies. Workflows import only
 * the type ({@link Activities}), never this code.
 */
import type { DataSource } from 'typeorm';
import type { AssayConfig } from '../src/config';
import { Sandbox } from '../src/sandbox/sandbox';
import { storedBlobReader } from '../src/bundler/blobs';
import { createNodeActivities } from './nodes';
import { createRunActivities } from './runs';
import { createWebhookActivities } from './webhooks';

export function createActivities(deps: { dataSource: DataSource; config: AssayConfig; sandbox?: Sandbox }) {
  const { config } = deps;
  const sandbox =
    deps.sandbox ??
    new Sandbox({
      memoryLimitMb: config.scripts.memoryLimitMb,
      timeoutMs: config.scripts.timeoutMs,
      fetchTimeoutMs: config.scripts.fetchTimeoutMs,
      maxFetchBytes: config.scripts.maxFetchBytes,
      maxContexts: config.scripts.maxContexts,
      localLibrary: storedBlobReader(deps.dataSource, config.bundler.publicUrl),
    });
  return {
    ...createNodeActivities(sandbox),
    ...createRunActivities(deps.dataSource, config, { onRunFinished: (runId) => sandbox.releaseRun(runId) }),
    ...createWebhookActivities(deps.dataSource, config),
  };
}

export type Activities = ReturnType<typeof createActivities>;
export type { RecordTestCaseInput, FinishRunInput } from './runs';
export type { ApiNodeInput, ApiNodeOutput, ScriptNodeInput, ScriptNodeOutput } from './nodes';
