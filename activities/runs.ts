/**
 * Persistence of a run's lifecycle: the workflow calls these at each transition (workflows/run.ts).
 * Each is idempotent, because Temporal may run an activity again after a worker dies:
 * - `startRun` freezes the plan once and returns the same plan on every later call;
 * - `recordTestCaseResult` upserts by (run, position);
 * - `finishRun` changes only a run that has not ended yet.
 */
import { mergeParallel } from '../src/domain/parallel';
import { ApplicationFailure } from '@temporalio/activity';
import { In, type DataSource, type EntityManager } from 'typeorm';
import { runSettingsOf, type AssayConfig } from '../src/config';
import {
  Deployment,
  Environment,
  Run,
  RunLoadShard,
  Runner,
  RunTestCaseResult,
  TestCase,
  TestCaseTag,
  queuedRun,
  type DebugTestCase,
} from '../src/store/entities';
import { LoadMetrics, performanceResults } from '../src/perf/metrics';
import { loadTestCaseResults, type LoadFailure } from '../src/perf/test-case-results';
import { jsonValue } from '../src/store/entities/columns';
import { emptySelectionMessage, resolveRunnerSelection, toDefinition } from '../src/store/test-cases';
import { withFolderSettings, workspaceFolders } from '../src/store/folder-settings';
import type { Durability, RunPlan, RunResultValue, RunSummary, TestCaseResult } from '../src/domain/types';
import { capDepth, jsonBytes, overCapMessage, PAYLOAD_LIMITS } from '../src/domain/limits';
import { Context } from '@temporalio/activity';
import { performancePlan, timeoutProblem, validateProfile, type PerformancePlan } from '../src/perf/profile';
import { isDatabaseRefusal } from '../src/store/errors';
import { FAILURE_TYPES } from '../src/domain/failures';
import { LRUCache } from 'lru-cache';
import { keyRingFor, KeyRingError } from '../src/secrets/keyring';
import { NO_SECRETS, type SecretMasker } from '../src/secrets/mask';
import { openPlan } from '../src/secrets/run-plan';
import { rememberRunScope, runSecretValues } from '../src/temporal/payload-scopes';
import { findRunWithPlan } from '../src/store/runs';
import { readThresholdWindows } from '../src/store/threshold-windows';
import { watchedOutcomes } from '../src/perf/threshold-windows';
import { quarantinedTestCases, recordRunHistory } from '../src/store/history';
import { planHash } from '../src/history/plan-hash';
import { freezeBaseline } from '../src/store/baselines';
import { freezeAuthProfiles } from './auth-profiles';
import { freezeSubFlows, SubFlowReferenceError } from '../src/store/sub-flows';
import { planCallbacks } from '../src/callbacks/keys';
import { discardScope } from '../src/mock/state';
import { recordRunFinished, runResultOf, runsStarted } from '../src/observability/metrics';
import { frozenEnvironment } from './run-environment';
import type { ResumePoint } from '../src/flow/resume';
import {
  OriginUnavailable,
  openResumeFrom,
  originSelection,
  sealResumePoint,
  seededPlan,
} from '../src/store/run-origins';
import { deleteRecordsBefore, deleteRunRecords } from '../src/store/node-executions';

/**
 * Attempts after which a store activity gives up when the database refuses the write (a constraint
 * or a value it cannot store will not heal): it then fails non-retryably, as it did before store
 * activities retried without limit. Anything else — an unreachable database above all — is
 * retried until the run's deadline.
 */
export const STORE_ATTEMPTS_FOR_NON_OUTAGE_ERRORS = 8;

/** Every method of `activities` run through {@link storeStep}, with its type unchanged. */
function guardStoreSteps<T extends Record<string, (input: never) => Promise<unknown>>>(activities: T): T {
  return Object.fromEntries(
    Object.entries(activities).map(([name, fn]) => [name, (input: never) => storeStep(() => fn(input))]),
  ) as T;
}

/** Runs a store step; see {@link STORE_ATTEMPTS_FOR_NON_OUTAGE_ERRORS}. */
async function storeStep<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ApplicationFailure || !isDatabaseRefusal(err)) throw err;
    let attempt = 1;
    try {
      attempt = Context.current().info.attempt;
    } catch {
      /* called outside an activity (tests): one attempt */
    }
    if (attempt >= STORE_ATTEMPTS_FOR_NON_OUTAGE_ERRORS) {
      throw ApplicationFailure.nonRetryable(
        `The store refused the write: ${(err as Error).message}`,
        FAILURE_TYPES.storeRefused,
      );
    }
    throw err;
  }
}

/** The stored row of a test case's result (its detail capped: src/domain/limits.ts). */
function testCaseRow(runId: string, position: number, result: TestCaseResult, createdAt: Date) {
  return {
    runId,
    position,
    testCaseId: result.testCaseId,
    name: result.name,
    status: result.status,
    duration: Math.round(result.duration),
    assertions: result.assertions,
    detail: jsonValue(capDepth(result)),
    createdAt,
  };
}

export interface ProgressInput {
  runId: string;
  /** Test cases done and in all; `running`: under way (the suite path's; absent: not stored). */
  progress: { completed: number; total: number; running?: number };
  /** Fraction of the run's work done, 0 to 1 (workflows/run-ledger.ts `RunLedger.work`). */
  work?: number;
  /**
   * Epoch ms of the workflow's estimate. Ignored: the API computes the estimate when it is read
   * (from `work`); still accepted from runs whose workflow code sends it.
   */
  estimatedCompletionMs?: number;
  /**
   * `saveProgress` only (a normal activity, so the workflow task before it has ended): the position
   * of the test case under way; the node execution records of the test cases before it are deleted
   * (src/store/node-executions.ts `deleteRecordsBefore`). Absent: none are.
   */
  recordsBefore?: number;
}

export interface RecordTestCaseInput extends ProgressInput {
  position: number;
  result: TestCaseResult;
  /**
   * A failed test case's resume point (src/flow/resume.ts): the state before its first failed
   * top-level node, stored sealed for `POST /v1/runs/{id}/resume`. Absent when it passed.
   */
  resumeState?: ResumePoint;
}

export interface FinishRunInput {
  runId: string;
  status: 'completed' | 'failed';
  result?: RunResultValue;
  summary: RunSummary;
  error?: string;
  /** Results not recorded yet: the test case under way when the run stopped, and those that never ran. */
  unfinished: Array<{ position: number; result: TestCaseResult }>;
}

/** Writes a running run's progress columns. */
export async function updateProgress(manager: EntityManager, input: ProgressInput): Promise<void> {
  await manager.getRepository(Run).update(
    { id: input.runId, status: 'running' },
    {
      progressCompleted: input.progress.completed,
      progressTotal: input.progress.total,
      ...(input.progress.running !== undefined ? { progressRunning: input.progress.running } : {}),
      ...(input.work !== undefined ? { progressWork: input.work } : {}),
    },
  );
}

export function createRunActivities(
  dataSource: DataSource,
  config: AssayConfig,
  hooks: { onRunFinished?: (runId: string) => Promise<void> } = {},
) {
  const ring = keyRingFor(config.secretKeys, config.dataDir);
  // The masker of each run's secret variables (docs/security.md "Secrets"): what is stored about a
  // run (results, logs, errors, failures, performance figures) has every secret replaced by `***`.
  // With it, each test case's folder (from the plan), which results carry for reports (JUnit classnames).
  const maskers = new LRUCache<string, { masker: SecretMasker; folders: Map<string, string> }>({ max: 500 });
  const remember = (runId: string, plan: RunPlan, masker: SecretMasker) => {
    const entry = { masker, folders: new Map(plan.testCases.map((tc) => [tc.id, tc.folder ?? ''])) };
    maskers.set(runId, entry);
    return entry;
  };
  const runFacts = async (
    manager: EntityManager,
    runId: string,
  ): Promise<{ masker: SecretMasker; folders: Map<string, string> }> => {
    const cached = maskers.get(runId);
    if (cached) return cached;
    const run = await findRunWithPlan(manager, runId);
    if (!run?.plan) return { masker: NO_SECRETS, folders: new Map() };
    const { plan, masker } = openPlan(run.plan, ring);
    return remember(runId, plan, masker);
  };
  const maskerFor = async (manager: EntityManager, runId: string): Promise<SecretMasker> =>
    (await runFacts(manager, runId)).masker;
  /** A test case result as stored: the run's secrets masked, its folder added. */
  const storable = async (manager: EntityManager, runId: string, result: TestCaseResult): Promise<TestCaseResult> => {
    const { masker, folders } = await runFacts(manager, runId);
    const folder = folders.get(result.testCaseId);
    return masker.maskDeep(folder === undefined ? result : { ...result, folder });
  };
  /** Opens a stored plan (its secret variables) for the workflow; a secret that cannot be opened fails the run's setup. */
  const opened = (runId: string, stored: RunPlan): RunPlan => {
    try {
      const { plan, masker } = openPlan(stored, ring);
      remember(runId, plan, masker);
      // This process's codec seals the run's secrets in every payload from the plan's own on (docs/codec.md).
      rememberRunScope(runId, stored.workspaceId, runSecretValues(ring, stored.variables, stored.authProfiles));
      // A resumed run's state (src/store/run-origins.ts), opened like its secrets.
      return openResumeFrom(plan, ring);
    } catch (err) {
      if (err instanceof KeyRingError)
        throw ApplicationFailure.nonRetryable(
          `A secret variable of the run cannot be opened: ${err.message}`,
          FAILURE_TYPES.runSetupFailed,
        );
      throw err;
    }
  };
  /**
   * Marks a queued run `running` with its frozen plan (as stored: secrets sealed), the plan's
   * hash and its durability mode, and returns the plan opened for the workflow. The plan is the
   * activity's result, written to history: over PAYLOAD_LIMITS.planBytes the run cannot start
   * (`overCap` says why).
   * @throws ApplicationFailure (non-retryable, RunSetupFailed) over the cap.
   */
  const storeFrozenPlan = async (
    manager: EntityManager,
    runId: string,
    plan: RunPlan,
    fields: {
      startedAt: Date;
      loadProfile: Run['loadProfile'];
      progressCompleted: number;
      overCap: (bytes: number) => string;
    },
  ): Promise<RunPlan> => {
    const openedPlan = opened(runId, plan);
    const planBytes = jsonBytes(openedPlan);
    if (planBytes > PAYLOAD_LIMITS.planBytes)
      throw ApplicationFailure.nonRetryable(fields.overCap(planBytes), FAILURE_TYPES.runSetupFailed);
    await manager.getRepository(Run).update(
      { id: runId, status: 'queued' },
      {
        status: 'running',
        startedAt: fields.startedAt,
        plan: jsonValue(plan),
        progressCompleted: fields.progressCompleted,
        progressTotal: plan.testCases.length,
        loadProfile: jsonValue(fields.loadProfile),
        // The mode it runs with, as the load profile: what GET /v1/runs/{id} answers from the row.
        durability: plan.durability ?? 'node',
        // Likewise the scheduling settings it runs with (docs/parallel.md); null: the defaults.
        parallel: jsonValue(plan.parallel ?? null),
        planHash: planHash(plan),
      },
    );
    return openedPlan;
  };
  /**
   * `startRun` of a replay or a resume: the origin's frozen plan with this run's id and start time
   * (a resume: its resume point, and the origin's results before it copied), stored as any plan
   * (`planHash` then equals the origin's; its durability mode too, `node` when the origin's plan
   * has none). @throws ApplicationFailure (non-retryable, RunSetupFailed) when the origin, its plan
   * or its resume state is gone, or the plan is over its cap.
   */
  /**
   * The fields every plan `startRun` freezes from scratch begins with (a runner's run and a debug
   * run): the run's id, workspace, runner and environment names and timeout (seconds), `startedAt`
   * in epoch ms, the environment's merged `variables` as they are kept (secrets sealed; the
   * workflow gets them opened), the `testCases` and the run settings of the process's configuration.
   */
  const planHead = (
    run: Run,
    startedAt: Date,
    variables: RunPlan['variables'],
    testCases: RunPlan['testCases'],
  ): Pick<
    RunPlan,
    | 'runId'
    | 'workspaceId'
    | 'runner'
    | 'environment'
    | 'timeoutSeconds'
    | 'startedAtMs'
    | 'variables'
    | 'testCases'
    | 'settings'
  > => ({
    runId: run.id,
    workspaceId: run.workspaceId,
    runner: run.runnerName,
    environment: run.environmentName,
    timeoutSeconds: run.timeoutSeconds,
    startedAtMs: startedAt.getTime(),
    variables,
    testCases,
    settings: runSettingsOf(config),
  });
  const startSeededRun = async (manager: EntityManager, run: Run): Promise<RunPlan> => {
    const startedAt = new Date();
    let seeded: Awaited<ReturnType<typeof seededPlan>>;
    try {
      seeded = await seededPlan(manager, run, ring, startedAt);
    } catch (err) {
      if (err instanceof OriginUnavailable)
        throw ApplicationFailure.nonRetryable(err.message, FAILURE_TYPES.runSetupFailed);
      throw err;
    }
    // The origin's durability mode (`node` for a plan frozen before modes existed): always set.
    const plan: RunPlan = { ...seeded.plan, durability: seeded.plan.durability ?? 'node' };
    const { loadProfile } = seeded;
    return storeFrozenPlan(manager, run.id, plan, {
      startedAt,
      loadProfile,
      progressCompleted: plan.resumeFrom?.position ?? 0,
      overCap: (bytes) =>
        overCapMessage("the run's plan (its origin's, with the resume state)", bytes, PAYLOAD_LIMITS.planBytes),
    });
  };
  /**
   * `startRun` of a debug run (trigger `debug`, `POST /v1/test-cases/debug`): the plan is frozen
   * from the test case kept in its row, as a runner's test case is (its folders' settings, its
   * sub-flows frozen, the environment merged and its servers checked, its auth profiles frozen),
   * with no runner (`runner: ''`, variable scope `testCase`, no runner auth profile, no quarantine,
   * no load profile), durability `node` and `debug: true` (nodes' results carry `debug`).
   * @throws ApplicationFailure (non-retryable, RunSetupFailed) as `startRun` does.
   */
  const startDebugRun = async (manager: EntityManager, run: Run): Promise<RunPlan> => {
    const stored = await manager
      .getRepository(Run)
      .createQueryBuilder('run')
      .select(['run.id'])
      .addSelect('run.debugTestCase')
      .where('run.id = :id', { id: run.id })
      .getOne();
    const debug: DebugTestCase | null | undefined = stored?.debugTestCase;
    if (!debug)
      throw ApplicationFailure.nonRetryable(
        `Debug run ${run.id} has no test case to run`,
        FAILURE_TYPES.runSetupFailed,
      );
    const environment = await environmentOf(manager, run);
    const folders = await workspaceFolders(manager, run.workspaceId);
    const row = Object.assign(new TestCase(), {
      ...debug,
      workspaceId: run.workspaceId,
      tagRows: debug.tags.map((tag) => Object.assign(new TestCaseTag(), { testCaseId: debug.id, tag })),
    });
    const testCases = await frozenSubFlows(manager, run.workspaceId, [withFolderSettings(toDefinition(row), folders)]);
    const frozen = await frozenEnvironment(manager, environment, testCases, run.variables);
    const auth = await freezeAuthProfiles(manager, run.workspaceId, { authProfile: null }, testCases);
    const startedAt = new Date();
    const plan: RunPlan = {
      ...planHead(run, startedAt, frozen.variables, testCases),
      variableScope: 'testCase',
      durability: 'node',
      debug: true,
      servers: frozen.servers,
      ...auth,
    };
    return storeFrozenPlan(manager, run.id, plan, {
      startedAt,
      loadProfile: null,
      progressCompleted: 0,
      overCap: (bytes) =>
        `${overCapMessage("the debug run's plan (its test case and the variables)", bytes, PAYLOAD_LIMITS.planBytes)}. Shrink the test case.`,
    });
  };
  const activities = {
    /**
     * Creates the row of a run a deployment's schedule started (no API call precedes it). Idempotent:
     * a second call for the same workflow finds the row and does nothing.
     *
     * @throws ApplicationFailure (non-retryable) when the deployment was deleted or disabled meanwhile.
     */
    async createScheduledRun(input: { runId: string; deploymentId: string; workflowId: string }): Promise<void> {
      const runs = dataSource.getRepository(Run);
      if (await runs.findOneBy({ workflowId: input.workflowId })) return;
      const deployment = await dataSource.getRepository(Deployment).findOneBy({ id: input.deploymentId });
      if (!deployment)
        throw ApplicationFailure.nonRetryable(
          `Deployment ${input.deploymentId} no longer exists`,
          FAILURE_TYPES.runSetupFailed,
        );
      if (!deployment.enabled)
        throw ApplicationFailure.nonRetryable(
          `Deployment "${deployment.name}" is disabled`,
          FAILURE_TYPES.runSetupFailed,
        );
      try {
        await runs.insert(
          runs.create(
            queuedRun({
              id: input.runId,
              workspaceId: deployment.workspaceId,
              runnerId: null,
              runnerName: deployment.runnerName,
              environmentId: null,
              environmentName: deployment.environmentName,
              deploymentId: deployment.id,
              trigger: 'schedule',
              workflowId: input.workflowId,
              timeoutSeconds: config.runs.defaultTimeoutSeconds,
              variables: {},
              context: { trigger: 'schedule', deployment: deployment.name },
              // The workflow is this one: the recovery sweep has nothing to start.
              workflowStartedAt: new Date(),
            }),
          ) as never,
        );
        runsStarted.inc({ trigger: 'schedule' });
      } catch (err) {
        // A retry after an insert that did land: the row is there.
        if (!(await runs.findOneBy({ workflowId: input.workflowId }))) throw err;
      }
    },

    /**
     * Marks the run `running` and freezes its plan: the runner's test cases (a debug run's: the test
     * case kept in its row, {@link startDebugRun}) and the environment's
     * variables (merged through its `extends` chain) overlaid with the run's own, and its servers
     * (activities/run-environment.ts). A second call returns the frozen plan unchanged.
     *
     * @throws ApplicationFailure (non-retryable, type RunSetupFailed) when the run, its runner or its
     *   environment no longer exists, the runner selects no test case, the environment's chain
     *   cannot be followed, a node names a server it lacks, a Ref node's test case no longer exists
     *   (src/store/sub-flows.ts), or the run already ended.
     */
    async startRun(input: { runId: string }): Promise<RunPlan> {
      const plan = await dataSource.transaction(async (manager): Promise<RunPlan> => {
        const run = await findRunWithPlan(manager, input.runId);
        if (!run)
          throw ApplicationFailure.nonRetryable(`Run ${input.runId} does not exist`, FAILURE_TYPES.runSetupFailed);
        if (run.plan) return opened(run.id, run.plan);
        if (run.status !== 'queued') {
          throw ApplicationFailure.nonRetryable(
            `Run ${input.runId} has already ended (${run.status})`,
            FAILURE_TYPES.runSetupFailed,
          );
        }
        // A replay or a resume runs its origin's frozen plan (src/store/run-origins.ts).
        if (run.origin && run.origin.kind !== 'rerun') return startSeededRun(manager, run);
        // A debug run runs the test case kept in its row.
        if (run.trigger === 'debug') return startDebugRun(manager, run);
        const runner = await manager
          .getRepository(Runner)
          .findOneBy({ workspaceId: run.workspaceId, name: run.runnerName });
        if (!runner)
          throw ApplicationFailure.nonRetryable(
            `Runner "${run.runnerName}" no longer exists`,
            FAILURE_TYPES.runSetupFailed,
          );
        const environment = await environmentOf(manager, run);
        const folders = await workspaceFolders(manager, run.workspaceId);
        const testCases = await frozenSubFlows(
          manager,
          run.workspaceId,
          // A rerun's selection is its origin's test cases (current definitions), else the runner's.
          ((await originSelection(manager, run)) ?? (await resolveRunnerSelection(manager, runner))).map((tc) =>
            withFolderSettings(toDefinition(tc), folders),
          ),
        );
        // A scheduled run (no API call refused it), or test cases deleted since the run was accepted.
        if (testCases.length === 0)
          throw ApplicationFailure.nonRetryable(emptySelectionMessage(runner), FAILURE_TYPES.runSetupFailed);
        // A performance run's profile: the run's own, else its deployment's, else its runner's (docs/performance.md).
        // Its durability mode likewise, else `node` (docs/durability.md "Durability modes").
        const deployment =
          (run.loadProfile && run.durability && run.parallel) || !run.deploymentId
            ? null
            : await manager.getRepository(Deployment).findOneBy({ id: run.deploymentId });
        const loadProfile = run.loadProfile ?? deployment?.loadProfile ?? runner.loadProfile ?? null;
        const durability: Durability = run.durability ?? deployment?.durability ?? runner.durability ?? 'node';
        let performance: PerformancePlan | undefined;
        if (loadProfile) {
          const { profile, issues } = validateProfile(loadProfile);
          if (!profile)
            throw ApplicationFailure.nonRetryable(
              `The load profile is invalid: ${issues.map((i) => `${['performance', ...i.path].join('.')}: ${i.message}`).join('; ')}`,
              FAILURE_TYPES.runSetupFailed,
            );
          const tooLong = timeoutProblem(profile, run.timeoutSeconds);
          if (tooLong)
            throw ApplicationFailure.nonRetryable(`The run cannot start: ${tooLong}`, FAILURE_TYPES.runSetupFailed);
          performance = performancePlan(profile);
        }
        // The environment's chain merged, its servers checked against the test cases' nodes.
        const frozen = await frozenEnvironment(manager, environment, testCases, run.variables);
        const auth = await freezeAuthProfiles(manager, run.workspaceId, runner, testCases);
        // A performance run's baseline and the figures its relative thresholds need (src/store/baselines.ts).
        const baseline = performance
          ? await freezeBaseline(manager, { ...run, loadProfile }, performance.profile.thresholds)
          : undefined;
        // The runner quarantines flaky test cases: those flagged now on this runner and environment (docs/history.md).
        const quarantine = await quarantinedTestCases(manager, run.workspaceId, runner, run.environmentName);
        const startedAt = new Date();
        const plan: RunPlan = {
          ...planHead(run, startedAt, frozen.variables, testCases),
          variableScope: runner.variableScope ?? 'testCase',
          durability,
          // Concurrency, bail, per-origin limits: the run's, over its deployment's, over its runner's (docs/parallel.md).
          ...withParallel(mergeParallel(run.parallel, deployment?.parallel, runner.parallel)),
          ...dependencyPositions(testCases),
          ...(performance ? { performance } : {}),
          servers: frozen.servers,
          ...auth,
          ...(baseline ? { baseline } : {}),
          ...(quarantine ? { quarantine } : {}),
        };
        return storeFrozenPlan(manager, run.id, plan, {
          startedAt,
          loadProfile,
          progressCompleted: 0,
          overCap: (bytes) =>
            `${overCapMessage("the run's plan (the runner's test cases and the variables)", bytes, PAYLOAD_LIMITS.planBytes)}. Split the runner or shrink the largest test cases.`,
        });
      });
      // Callback nodes' addresses (docs/async.md "Callbacks"): on every call, never stored with the
      // plan nor in its hash (the public URL and the key ring may change between calls).
      // The run's mock scope (docs/mocks.md "State"): likewise on every call, never stored.
      return {
        ...plan,
        callbacks: planCallbacks(ring, config.api.publicUrl, input.runId),
        mockScope: input.runId,
      };
    },

    /**
     * Ends the load part of a performance run: merges its shards' stored measurements (HDR add,
     * exact), evaluates the profile's thresholds (windowed ones by the threshold watcher's stored
     * windows; the one that aborted the load failed: src/perf/threshold-windows.ts), stores the results' `performance` object and one
     * test case result per test case (src/perf/test-case-results.ts), and returns
     * the run's result (`passed` when every threshold holds) and summary. Idempotent. A shard with
     * no stored measurements counts as empty (it never started).
     */
    async completePerformanceRun(input: { runId: string }): Promise<{ result: RunResultValue; summary: RunSummary }> {
      return storeStep(() =>
        dataSource.transaction(async (manager) => {
          const run = await findRunWithPlan(manager, input.runId);
          const plan = run?.plan;
          if (!run || !plan?.performance)
            throw ApplicationFailure.nonRetryable(
              `Run ${input.runId} is not a performance run`,
              FAILURE_TYPES.runFailed,
            );
          const shards = await manager.getRepository(RunLoadShard).findBy({ runId: input.runId });
          const metrics = new LoadMetrics();
          let loadMs = 0;
          const failures: LoadFailure[] = [];
          for (const shard of shards) {
            metrics.add(new LoadMetrics(shard.metrics));
            loadMs = Math.max(loadMs, shard.position.elapsedMs);
            failures.push(...shard.failures);
          }
          const masker = await maskerFor(manager, input.runId);
          const thresholds = plan.performance.profile.thresholds;
          const measured = performanceResults(metrics, thresholds, loadMs, plan.baseline);
          // Windowed thresholds by their windows, the aborting one marked (src/perf/threshold-windows.ts).
          if (plan.performance.watch) {
            const { windows, abort } = await readThresholdWindows(manager, input.runId);
            measured.thresholds = watchedOutcomes(thresholds, measured.thresholds, windows, abort);
          }
          const performance = masker.maskDeep(measured);
          const result: RunResultValue = performance.thresholds.every((t) => t.passed) ? 'passed' : 'failed';
          const { results, summary } = loadTestCaseResults(
            plan.testCases,
            performance,
            metrics,
            failures,
            (v) => masker.maskDeep(v),
            plan.performance.profile.thresholds,
          );
          const rows = results.map((detail, position) => testCaseRow(input.runId, position, detail, new Date()));
          if (rows.length) await manager.getRepository(RunTestCaseResult).upsert(rows, ['runId', 'position']);
          await manager
            .getRepository(Run)
            .update(
              { id: input.runId },
              { performance: jsonValue(performance), progressCompleted: plan.testCases.length, progressWork: 1 },
            );
          return { result, summary };
        }),
      );
    },

    /** Stores one test case's result and the run's progress. */
    async recordTestCaseResult(input: RecordTestCaseInput): Promise<void> {
      await dataSource.transaction(async (manager) => {
        const result = await storable(manager, input.runId, input.result);
        const row = testCaseRow(input.runId, input.position, result, new Date());
        const resumeState = input.resumeState
          ? { resumeState: sealResumePoint(ring, input.runId, input.position, input.resumeState) }
          : {};
        await manager.getRepository(RunTestCaseResult).upsert({ ...row, ...resumeState }, ['runId', 'position']);
        await updateProgress(manager, input);
      });
    },

    /**
     * Stores progress mid-test-case (the workflow's checkpoint; no-op once the run has ended), and
     * deletes the node execution records before `recordsBefore`.
     */
    async saveProgress(input: ProgressInput): Promise<void> {
      await updateProgress(dataSource.manager, input);
      if (input.recordsBefore !== undefined && input.recordsBefore > 0)
        await deleteRecordsBefore(dataSource.manager, input.runId, input.recordsBefore);
    },

    /** Ends the run: `completed` with its result, or `failed` with its error. No-op on a run that already ended. */
    async finishRun(input: FinishRunInput): Promise<void> {
      // This worker's script context of the run is no longer needed (others expire on their own).
      await hooks.onRunFinished?.(input.runId).catch(() => undefined);
      // The run's end as this call stored it (metrics count it once: a repeated call finds it ended).
      let ended: { durationMs?: number; workspaceId: string } | undefined;
      await dataSource.transaction(async (manager) => {
        const runs = manager.getRepository(Run);
        const run = await findRunWithPlan(manager, input.runId);
        if (!run || run.status === 'completed' || run.status === 'failed') return;
        const completedAt = new Date();
        const masker = await maskerFor(manager, input.runId);
        if (input.unfinished.length > 0) {
          const rows = await Promise.all(
            input.unfinished.map(async ({ position, result }) =>
              testCaseRow(input.runId, position, await storable(manager, input.runId, result), completedAt),
            ),
          );
          await manager.getRepository(RunTestCaseResult).upsert(rows, ['runId', 'position']);
        }
        const updated = await runs.update(
          { id: input.runId, status: In(['queued', 'running']) },
          {
            status: input.status,
            result: input.status === 'completed' ? (input.result ?? null) : null,
            summary: input.summary,
            error: input.status === 'failed' ? masker.maskText(input.error ?? 'The run failed') : null,
            completedAt,
            duration: run.startedAt ? completedAt.getTime() - run.startedAt.getTime() : 0,
          },
        );
        if (updated.affected !== 0) {
          ended = {
            durationMs: run.startedAt ? completedAt.getTime() - run.startedAt.getTime() : undefined,
            workspaceId: run.workspaceId,
          };
          // The test cases' history (docs/history.md), in the same transaction as the run's end.
          await recordRunHistory(manager, run, run.plan, {
            window: config.runs.flakyWindow,
            minFlips: config.runs.flakyMinFlips,
          });
        }
      });
      if (ended) recordRunFinished(runResultOf(input.status, input.result, input.error), ended.durationMs);
      // The run's mock scope is discarded (docs/mocks.md "State"); on failure the TTL sweep deletes it later.
      if (ended) await discardScope(dataSource, ended.workspaceId, input.runId).catch(() => undefined);
      // Nothing of the run runs again: its node execution records go (on failure, the retention sweep's).
      await deleteRunRecords(dataSource.manager, input.runId).catch(() => undefined);
    },
  };
  return guardStoreSteps(activities);
}

/** The plan field of merged scheduling settings: `{ parallel }`, or nothing when every setting is its default. */
function withParallel(parallel: RunPlan['parallel']): Pick<RunPlan, 'parallel'> {
  return parallel ? { parallel } : {};
}

/**
 * The plan field of test cases' dependencies (TestCaseDefinition `dependsOn`) as positions
 * (RunPlan `dependencies`; docs/parallel.md "Dependencies"): ids not in the plan are left out;
 * nothing when no test case depends on another.
 */
export function dependencyPositions(testCases: RunPlan['testCases']): Pick<RunPlan, 'dependencies'> {
  const positions = new Map(testCases.map((tc, i) => [tc.id, i]));
  const dependencies: Record<number, number[]> = {};
  testCases.forEach((tc, i) => {
    const on = (tc.dependsOn ?? []).map((id) => positions.get(id)).filter((p): p is number => p !== undefined && p !== i);
    if (on.length > 0) dependencies[i] = [...new Set(on)];
  });
  return Object.keys(dependencies).length > 0 ? { dependencies } : {};
}

/** The run's environment. @throws ApplicationFailure (non-retryable, RunSetupFailed) when it no longer exists. */
async function environmentOf(manager: EntityManager, run: Run): Promise<Environment> {
  const environment = await manager
    .getRepository(Environment)
    .findOneBy({ workspaceId: run.workspaceId, name: run.environmentName });
  if (!environment)
    throw ApplicationFailure.nonRetryable(
      `Environment "${run.environmentName}" no longer exists`,
      FAILURE_TYPES.runSetupFailed,
    );
  return environment;
}

/**
 * The runner's test cases with their Ref nodes' sub-flows frozen in (src/store/sub-flows.ts
 * `freezeSubFlows`). @throws ApplicationFailure (non-retryable, RunSetupFailed) naming the test
 * case, the node and the reference when one no longer resolves: the run fails before sending anything.
 */
async function frozenSubFlows(
  manager: EntityManager,
  workspaceId: string,
  testCases: RunPlan['testCases'],
): Promise<RunPlan['testCases']> {
  try {
    return await freezeSubFlows(manager, workspaceId, testCases);
  } catch (err) {
    if (err instanceof SubFlowReferenceError)
      throw ApplicationFailure.nonRetryable(err.message, FAILURE_TYPES.runSetupFailed);
    throw err;
  }
}
