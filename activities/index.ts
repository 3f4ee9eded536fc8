/**
 * Every activity the worker registers, built from the worker's dependencies. Workflows import only
 * the type ({@link Activities}), never this code.
 */
import type { DataSource } from 'typeorm';
import type { AssayConfig } from '../src/config';
import type { Sandbox } from '../src/sandbox/sandbox';
import { sandboxFromConfig } from '../src/sandbox/configured';
import { storedBlobReader } from '../src/bundler/blobs';
import { policyFromConfig, type AddressPolicy } from '../src/net/address-policy';
import { createNodeActivities } from './nodes';
import { createRunActivities } from './runs';
import { createWebhookActivities } from './webhooks';
import { createLoadActivities } from './load';
import { directPorts } from './direct-port';
import { createStreamActivities } from './streams';
import { createGrpcActivities } from './grpc';
import { createMockVerifyActivities } from './mock-verify';
import { createLoadControlActivities } from './load-control';
import { createTestCaseActivities } from './test-case';
import { sharedAuthProfiles } from '../src/auth/apply';
import { keyRingFor } from '../src/secrets/keyring';
import { NodeExecutionRecords } from '../src/store/node-executions';
import { nodeExecutions } from '../src/observability/metrics';
import { Context } from '@temporalio/activity';
import { FileCache, storeFileReader } from './files';
import { OriginGate } from '../src/net/origin-gate';

/**
 * `policy`: the address policy of every outgoing request the activities make (default: the one
 * `config` describes, src/net/address-policy.ts); the sandbox given in `sandbox` brings its own.
 */
export function createActivities(deps: {
  dataSource: DataSource;
  config: AssayConfig;
  sandbox?: Sandbox;
  policy?: AddressPolicy;
}) {
  const { config } = deps;
  const policy = deps.policy ?? policyFromConfig(config);
  const sandbox = deps.sandbox ?? sandboxFromConfig(config, policy, storedBlobReader(deps.dataSource, config.bundler));
  const auth = sharedAuthProfiles(
    deps.dataSource,
    keyRingFor(config.secretKeys, config.dataDir),
    policy.agent('node'),
    async () => deps.dataSource,
  );
  // `node`-mode node executions at most once across crashes (src/store/node-executions.ts).
  const records = new NodeExecutionRecords(deps.dataSource, {
    onOutcome: (outcome) => nodeExecutions.inc({ outcome }),
    onStoreError: (err, execution, during) =>
      Context.current().log.warn('node execution record not written: the node runs without one', {
        execution,
        during,
        error: (err as Error).message,
      }),
  });
  // Files requests send (activities/files.ts): read once per run on this worker, forgotten when it ends.
  const files = new FileCache(storeFileReader(deps.dataSource));
  // Runs' per-origin limits across the workers sharing the store (src/net/origin-gate.ts).
  const gate = new OriginGate(deps.dataSource);
  return {
    ...createNodeActivities(sandbox, policy.agent('node'), auth, records, files, gate),
    ...createRunActivities(deps.dataSource, config, {
      onRunFinished: async (runId) => {
        await files.release(runId);
        return sandbox.releaseRun(runId);
      },
    }),
    ...createWebhookActivities(deps.dataSource, config, policy),
    ...createStreamActivities(policy, auth, records),
    ...createGrpcActivities(policy, records),
    ...createMockVerifyActivities(deps.dataSource),
    ...createLoadControlActivities(deps.dataSource),
    // The `testCase` durability mode: test case segments through the direct port, over this worker's sandbox and agent.
    ...createTestCaseActivities({
      ports: directPorts({
        sandbox,
        agent: policy.agent('node'),
        policy,
        dataSource: deps.dataSource,
        auth,
        files,
        gate,
      }),
      dataSource: deps.dataSource,
    }),
  };
}

/**
 * The load task queue's activities (activities/load.ts): a sandbox of their own for parts on the
 * activity's thread (load tests' scripts do not compete with functional runs' for contexts), and
 * `ASSAY_LOAD_THREADS` parts per shard.
 */
export function createLoadWorkerActivities(deps: {
  dataSource: DataSource;
  config: AssayConfig;
  policy?: AddressPolicy;
}) {
  // A connection per virtual user (no per-origin limit): a VU never waits for another's connection.
  const policy = deps.policy ?? policyFromConfig(deps.config, { connections: null });
  const ports = directPorts({
    sandbox: sandboxFromConfig(deps.config, policy, storedBlobReader(deps.dataSource, deps.config.bundler)),
    agent: policy.agent('node'),
    policy,
    dataSource: deps.dataSource,
    // An API node input with `originLimits` is held to them here too (src/net/origin-gate.ts).
    gate: new OriginGate(deps.dataSource),
    auth: sharedAuthProfiles(
      deps.dataSource,
      keyRingFor(deps.config.secretKeys, deps.config.dataDir),
      policy.agent('node'),
      async () => deps.dataSource,
    ),
  });
  return createLoadActivities({
    dataSource: deps.dataSource,
    ports,
    config: deps.config,
    threads: deps.config.load.threads,
    connect: (origin) => policy.connection('node', origin),
  });
}

export type Activities = ReturnType<typeof createActivities>;
export type {
  RecordTestCaseInput,
  RecordTestCaseResultsInput,
  FinishRunInput,
  PlanOutline,
  PlanTestCasesInput,
  PlanTestCasesPage,
  StartedPlan,
} from './runs';
export type { ApiNodeInput, ApiNodeOutput, ScriptNodeInput, ScriptNodeOutput } from '../src/domain/node-io';
