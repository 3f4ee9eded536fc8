/**
 * Every activity the worker registers, built from the worker's dependencies. Workflows import only
 * the type ({@link Activities}), never this code.
 */
import type { DataSource } from 'typeorm';
import type { AssayConfig } from '../src/config';
import { Sandbox } from '../src/sandbox/sandbox';
import { storedBlobReader } from '../src/bundler/blobs';
import { policyFromConfig, type AddressPolicy } from '../src/net/address-policy';
import { createNodeActivities } from './nodes';
import { createRunActivities } from './runs';
import { createWebhookActivities } from './webhooks';

/**
 * `policy`: the address policy of every outgoing request the activities make (default: the one
 * `config` describes, src/net/address-policy.ts); the sandbox given in `sandbox` brings its own.
 */
export function createActivities(deps: { dataSource: DataSource; config: AssayConfig; sandbox?: Sandbox; policy?: AddressPolicy }) {
  const { config } = deps;
  const policy = deps.policy ?? policyFromConfig(config);
  const sandbox =
    deps.sandbox ??
    new Sandbox({
      memoryLimitMb: config.scripts.memoryLimitMb,
      timeoutMs: config.scripts.timeoutMs,
      fetchTimeoutMs: config.scripts.fetchTimeoutMs,
      maxFetchBytes: config.scripts.maxFetchBytes,
      maxContexts: config.scripts.maxContexts,
      localLibrary: storedBlobReader(deps.dataSource, config.bundler.publicUrl),
      policy,
    });
  return {
    ...createNodeActivities(sandbox, policy.agent('node')),
    ...createRunActivities(deps.dataSource, config, { onRunFinished: (runId) => sandbox.releaseRun(runId) }),
    ...createWebhookActivities(deps.dataSource, config, policy),
  };
}

export type Activities = ReturnType<typeof createActivities>;
export type { RecordTestCaseInput, FinishRunInput } from './runs';
export type { ApiNodeInput, ApiNodeOutput, ScriptNodeInput, ScriptNodeOutput } from '../src/domain/node-io';
