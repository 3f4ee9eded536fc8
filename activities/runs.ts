/**
 * Persistence of a run's lifecycle: the workflow calls these at each transition (workflows/run.ts).
 * Each is idempotent, because Temporal may run an activity again after a worker dies:
 * - `startRun` freezes the plan once and returns the same plan on every later call;
 * - `loadPlanTestCases` reads the stored plan, which never changes once frozen;
 * - `recordTestCaseResult` and `recordTestCaseResults` upsert by (run, position);
 * - `finishRun` changes only a run that has not ended yet.
 *
 * A functional run's plan stays out of its workflow's history but for a page at a time: `startRun`
 * with `outline` returns the plan with only its first page of test cases and the outline of the
 * rest ({@link PlanOutline}); the workflow loads the others by position (`loadPlanTestCases`).
 */
import { discardRunGate } from '../src/net/origin-gate';
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
import {
  emptySelectionMessage,
  narrowedSelectionMessage,
  narrowSelection,
  resolveRunnerSelection,
  toDefinition,
} from '../src/store/test-cases';
import { withFolderSettings, workspaceFolders } from '../src/store/folder-settings';
import type {
  Durability,
  RunPlan,
  RunResultValue,
  RunSummary,
  TestCaseDefinition,
  TestCaseResult,
} from '../src/domain/types';
import {
  capDepth,
  formatBytes,
  jsonBytes,
  OUTLINE_PAGE_BYTES,
  overCapMessage,
  PAYLOAD_LIMITS,
  storedJsonBytes,
} from '../src/domain/limits';
import { expectedNodeExecutions } from '../src/flow/estimate';
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
  /**
   * Test cases under way when a run of the suite path stopped (workflows/suite.ts), failed as
   * interrupted: stored only at positions with no result yet (a node-mode child workflow stores
   * each of its test cases' results itself, and may have stored some before the run stopped).
   */
  interrupted?: Array<{ position: number; result: TestCaseResult }>;
  /**
   * The run stopped early (it failed, was cancelled, timed out, or `bail` stopped it): every
   * position of the stored plan that has no stored result and is not in `unfinished` gets a
   * `skipped` result whose `error` is `Not run: <error>` (as workflows/run.ts `failedRun` builds
   * them), in the same transaction as the run's end. `summary` is stored as given: it should count them.
   */
  skipRest?: { error: string };
}

/**
 * The rest of a functional plan that `startRun` with `outline` leaves out of what it returns:
 * `count`, the plan's test cases (positions 0 to count - 1); `expectedNodes`, the node executions
 * they are expected to take together (src/flow/estimate.ts `expectedNodeExecutions` of each, with
 * the plan's `settings.maxLoopIterations`), for the run's progress.
 */
export interface PlanOutline {
  count: number;
  expectedNodes: number;
}

/**
 * What `startRun` returns: the frozen plan, opened; with `outline` asked for and a functional plan,
 * `testCases` holds its first page only (positions 0 to k - 1) and `outline` says what the whole has.
 */
export type StartedPlan = RunPlan & { outline?: PlanOutline };

/** Input of `loadPlanTestCases`. */
export interface PlanTestCasesInput {
  runId: string;
  /** The first position wanted, an integer ≥ 0. */
  from: number;
  /** JSON bytes of the page at most (the `testCases` array), unless its one test case alone is larger; default {@link OUTLINE_PAGE_BYTES}. */
  maxBytes?: number;
}

/** A page of a plan's test cases: those at positions `from`, `from + 1`, …, in order (none past the end). */
export interface PlanTestCasesPage {
  from: number;
  testCases: TestCaseDefinition[];
}

/** Input of `recordTestCaseResults`: results of several test cases, stored together, then the progress. */
export interface RecordTestCaseResultsInput extends Omit<ProgressInput, 'progress'> {
  /** The run's progress to store with them; absent (a test case's child workflow, which does not know it): left as it is. */
  progress?: ProgressInput['progress'];
  /** Each as in {@link RecordTestCaseInput}; a position given twice keeps its last result. */
  results: Array<{ position: number; result: TestCaseResult; resumeState?: ResumePoint }>;
}

/** JSON bytes of the plans one worker keeps parsed for `loadPlanTestCases` (least recently used go first). */
export const PLAN_CACHE_BYTES = 64 * 1024 * 1024;

/** Result rows one upsert writes at most, and their details' JSON bytes at most (under `max_allowed_packet`). */
const UPSERT_ROWS = 500;
const UPSERT_BYTES = 4 * 1024 * 1024;

/** Writes result rows by (run, position), in as few upserts as {@link UPSERT_ROWS} and {@link UPSERT_BYTES} allow. */
async function upsertResultRows(
  manager: EntityManager,
  rows: Array<ReturnType<typeof testCaseRow> & { resumeState?: string | null }>,
): Promise<void> {
  let batch: typeof rows = [];
  let bytes = 0;
  const flush = async () => {
    if (batch.length) await manager.getRepository(RunTestCaseResult).upsert(batch, ['runId', 'position']);
    batch = [];
    bytes = 0;
  };
  for (const row of rows) {
    const size = jsonBytes(row.detail) + jsonBytes(row.resumeState ?? null);
    if (batch.length >= UPSERT_ROWS || (batch.length > 0 && bytes + size > UPSERT_BYTES)) await flush();
    batch.push(row);
    bytes += size;
  }
  await flush();
}

/**
 * The end (exclusive) of the page of test cases that starts at `from`, their JSON sizes being
 * `sizes`: as many as fit in `maxBytes` as a JSON array (brackets and commas counted), at least one
 * when `from` is before the end; `from` itself past the end.
 */
export function pageEnd(sizes: readonly number[], from: number, maxBytes: number): number {
  if (from >= sizes.length) return Math.max(from, sizes.length);
  let total = 2 + sizes[from]!;
  let end = from + 1;
  while (end < sizes.length && total + 1 + sizes[end]! <= maxBytes) {
    total += 1 + sizes[end]!;
    end += 1;
  }
  return end;
}

/** A plan as this worker keeps it for paging: its test cases (opened), their JSON sizes and total. */
interface CachedPlan {
  testCases: TestCaseDefinition[];
  sizes: number[];
  bytes: number;
  maxLoopIterations: number;
  expectedNodes?: number;
}

/**
 * The message of a plan over `cap` (src/domain/limits.ts): PAYLOAD_LIMITS.planBytes keeps run
 * histories small; PAYLOAD_LIMITS.storedPlanBytes bounds what a worker reads and parses.
 */
function planCapMessage(what: string, bytes: number, cap: number): string {
  return cap === PAYLOAD_LIMITS.storedPlanBytes
    ? overCapMessage(what, bytes, cap, 'exceeds', 'the limit bounds what a worker reads and parses of a run')
    : overCapMessage(what, bytes, cap);
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
  // Opened plans' test cases for `loadPlanTestCases`, by run id (a run of 10,000 test cases is not
  // read and parsed again for each page); sized by their JSON bytes, so the objects held take
  // somewhat more memory than PLAN_CACHE_BYTES. A run's entry goes when `finishRun` ends it.
  const plans = new LRUCache<string, CachedPlan>({
    maxSize: PLAN_CACHE_BYTES,
    sizeCalculation: (entry) => Math.max(1, entry.bytes),
  });
  // Reads under way, so that pages asked for at once read the plan once.
  const reading = new Map<string, Promise<CachedPlan>>();
  /** Keeps an opened plan's test cases for paging, and returns them. */
  const cachePlan = (runId: string, plan: RunPlan): CachedPlan => {
    const sizes = plan.testCases.map((tc) => jsonBytes(tc));
    const entry: CachedPlan = {
      testCases: plan.testCases,
      sizes,
      bytes: sizes.reduce((a, b) => a + b, 0),
      maxLoopIterations: plan.settings.maxLoopIterations,
    };
    plans.set(runId, entry);
    return entry;
  };
  /**
   * The run's stored plan, opened as `startRun` opens it, from this worker's cache or the store.
   * @throws ApplicationFailure (non-retryable, RunFailed) when the run has no frozen plan.
   */
  const cachedPlan = (runId: string): Promise<CachedPlan> => {
    const hit = plans.get(runId);
    if (hit) return Promise.resolve(hit);
    let pending = reading.get(runId);
    if (!pending) {
      pending = (async () => {
        const run = await findRunWithPlan(dataSource.manager, runId);
        if (!run?.plan)
          throw ApplicationFailure.nonRetryable(
            `Run ${runId} has no frozen plan (it does not exist, or it has not started)`,
            FAILURE_TYPES.runFailed,
          );
        return cachePlan(runId, opened(runId, run.plan));
      })().finally(() => reading.delete(runId));
      reading.set(runId, pending);
    }
    return pending;
  };
  /** The outline of a cached plan (its expected node executions counted once). */
  const outlineOf = (entry: CachedPlan): PlanOutline => {
    entry.expectedNodes ??= entry.testCases.reduce(
      (sum, tc) => sum + expectedNodeExecutions(tc, entry.maxLoopIterations),
      0,
    );
    return { count: entry.testCases.length, expectedNodes: entry.expectedNodes };
  };
  /**
   * What `startRun` returns of the opened plan `plan`: without `outline`, or for a performance
   * plan, the whole plan, within PAYLOAD_LIMITS.planBytes (checked here for a plan frozen by an
   * earlier call, which may have been outlined and larger; a `fresh` one was checked as it was
   * stored); with `outline`, its first page of test cases and the {@link PlanOutline}. Never
   * `testCaseVersions` (the workflow has no use for them and they grow with the suite: the stored
   * plan keeps them for the run's results).
   * @throws ApplicationFailure (non-retryable, RunSetupFailed) over the cap.
   */
  const handOut = (runId: string, stored: RunPlan, outline: boolean, fresh: boolean): StartedPlan => {
    const { testCaseVersions: _kept, ...plan } = stored;
    if (!outline || plan.performance) {
      const bytes = fresh ? 0 : jsonBytes(plan);
      if (bytes > PAYLOAD_LIMITS.planBytes)
        throw ApplicationFailure.nonRetryable(
          `${overCapMessage("the run's plan (its test cases and the variables)", bytes, PAYLOAD_LIMITS.planBytes)}. Split the runner or shrink the largest test cases.`,
          FAILURE_TYPES.runSetupFailed,
        );
      return plan;
    }
    const entry = cachePlan(runId, plan);
    return {
      ...plan,
      testCases: entry.testCases.slice(0, pageEnd(entry.sizes, 0, OUTLINE_PAGE_BYTES)),
      outline: outlineOf(entry),
    };
  };
  /**
   * What the workflow keeps of an outlined plan must fit in its history: the plan without its test
   * cases (variables, servers, auth profiles, …) with any one page, whose largest is its largest
   * test case alone, within PAYLOAD_LIMITS.planBytes (with room for `outline`, `callbacks`, `mockScope`).
   * @throws ApplicationFailure (non-retryable, RunSetupFailed) naming the largest test case.
   */
  const checkOutlinable = (plan: RunPlan): void => {
    const head = jsonBytes({ ...plan, testCases: [] });
    let largest = -1;
    let largestBytes = 0;
    plan.testCases.forEach((tc, i) => {
      const bytes = jsonBytes(tc);
      if (bytes > largestBytes) [largest, largestBytes] = [i, bytes];
    });
    const room = 4 * 1024;
    if (head + largestBytes + room <= PAYLOAD_LIMITS.planBytes) return;
    const what =
      largest < 0
        ? "the run's plan without its test cases (variables, servers, auth profiles)"
        : `the run's plan without its test cases (variables, servers, auth profiles, ${formatBytes(head)}) with its largest test case ("${plan.testCases[largest]!.name}", ${formatBytes(largestBytes)})`;
    throw ApplicationFailure.nonRetryable(
      `${overCapMessage(what, head + largestBytes + room, PAYLOAD_LIMITS.planBytes)}. Shrink that test case or the variables.`,
      FAILURE_TYPES.runSetupFailed,
    );
  };
  /**
   * Marks a queued run `running` with its frozen plan (as stored: secrets sealed), the plan's
   * hash and its durability mode, and returns the plan opened for the workflow. A plan returned
   * whole (`outline` false, or a performance plan) is the activity's result, written to history:
   * over PAYLOAD_LIMITS.planBytes the run cannot start. An outlined plan is kept in the row and
   * paged: over PAYLOAD_LIMITS.storedPlanBytes, or with a test case too large for a page
   * ({@link checkOutlinable}), the run cannot start. `overCap(bytes, cap)` says why.
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
      outline: boolean;
      overCap: (bytes: number, cap: number) => string;
    },
  ): Promise<RunPlan> => {
    const openedPlan = opened(runId, plan);
    const whole = !fields.outline || plan.performance !== undefined;
    // What history carries (opened), or what the row's write carries (sealed, escaped).
    const cap = whole ? PAYLOAD_LIMITS.planBytes : PAYLOAD_LIMITS.storedPlanBytes;
    const planBytes = whole ? jsonBytes(openedPlan) : storedJsonBytes(plan);
    if (planBytes > cap)
      throw ApplicationFailure.nonRetryable(fields.overCap(planBytes, cap), FAILURE_TYPES.runSetupFailed);
    if (!whole) checkOutlinable(openedPlan);
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
  const startSeededRun = async (manager: EntityManager, run: Run, outline: boolean): Promise<RunPlan> => {
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
      outline,
      overCap: (bytes, cap) => planCapMessage("the run's plan (its origin's, with the resume state)", bytes, cap),
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
  const startDebugRun = async (manager: EntityManager, run: Run, outline: boolean): Promise<RunPlan> => {
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
      outline,
      overCap: (bytes, cap) =>
        `${planCapMessage("the debug run's plan (its test case and the variables)", bytes, cap)}. Shrink the test case.`,
    });
  };
  /**
   * Freezes the plan of the queued run `run` (found in this transaction, with no plan yet) and
   * stores it: a replay's or a resume's from its origin ({@link startSeededRun}), a debug run's from
   * its row ({@link startDebugRun}), else its runner's selection (a rerun's: its origin's test
   * cases), narrowed by the run's own `selection` (src/store/test-cases.ts `narrowSelection`).
   * Returns the plan opened. `outline`: the plan will be handed out outlined (its cap:
   * {@link storeFrozenPlan}).
   * @throws ApplicationFailure (non-retryable, RunSetupFailed) as `startRun` says.
   */
  const freeze = async (manager: EntityManager, run: Run, outline: boolean): Promise<RunPlan> => {
    if (run.status !== 'queued') {
      throw ApplicationFailure.nonRetryable(
        `Run ${run.id} has already ended (${run.status})`,
        FAILURE_TYPES.runSetupFailed,
      );
    }
    // A replay or a resume runs its origin's frozen plan (src/store/run-origins.ts).
    if (run.origin && run.origin.kind !== 'rerun') return startSeededRun(manager, run, outline);
    // A debug run runs the test case kept in its row.
    if (run.trigger === 'debug') return startDebugRun(manager, run, outline);
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
    // A rerun's selection is its origin's test cases (current definitions), else the runner's;
    // either narrowed by the run's own folder and tags (`assay run --folder/--tag`), if it has any.
    const selected = (await originSelection(manager, run)) ?? (await resolveRunnerSelection(manager, runner));
    const narrowed = narrowSelection(selected, run.selection);
    if (selected.length > 0 && narrowed.length === 0 && run.selection)
      throw ApplicationFailure.nonRetryable(
        narrowedSelectionMessage(runner, run.selection),
        FAILURE_TYPES.runSetupFailed,
      );
    const testCases = await frozenSubFlows(
      manager,
      run.workspaceId,
      narrowed.map((tc) => withFolderSettings(toDefinition(tc), folders)),
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
      // Which saved version of each test case runs (docs/teams.md "Versions"); outside the plan hash.
      testCaseVersions: Object.fromEntries(narrowed.map((tc) => [tc.id, tc.version])),
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
      outline,
      overCap: (bytes, cap) =>
        cap === PAYLOAD_LIMITS.storedPlanBytes
          ? `${planCapMessage("the run's plan (the runner's test cases and the variables)", bytes, cap)}. Run part of it at a time (assay run --folder <folder> or --tag <tag>), or split its test cases over several runners.`
          : `${planCapMessage("the run's plan (the runner's test cases and the variables)", bytes, cap)}. Split the runner or shrink the largest test cases.`,
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
     * Marks the run `running` and freezes its plan: the runner's test cases (narrowed by the run's
     * own `selection`; a debug run's: the test case kept in its row, {@link startDebugRun}) and the
     * environment's variables (merged through its `extends` chain) overlaid with the run's own, and
     * its servers (activities/run-environment.ts). A second call returns the frozen plan unchanged.
     *
     * Without `outline` (as recorded histories call it) the plan is returned whole, at most
     * PAYLOAD_LIMITS.planBytes. With `outline: true` a functional plan (no `performance`) is stored
     * whole (at most PAYLOAD_LIMITS.storedPlanBytes) and returned with `testCases` cut to its first
     * page (positions 0 to k - 1, k ≥ 1, at most OUTLINE_PAGE_BYTES of JSON unless the first test
     * case alone is larger) and `outline` ({@link PlanOutline}); the workflow loads the rest with
     * `loadPlanTestCases`. A performance plan is always returned whole.
     *
     * @throws ApplicationFailure (non-retryable, type RunSetupFailed) when the run, its runner or its
     *   environment no longer exists, the runner selects no test case (or none is left in the run's
     *   own folder and tags), the environment's chain cannot be followed, a node names a server it
     *   lacks, a Ref node's test case no longer exists (src/store/sub-flows.ts), the plan is over
     *   its cap, or the run already ended.
     */
    async startRun(input: { runId: string; outline?: boolean }): Promise<StartedPlan> {
      const outline = input.outline === true;
      const plan = await dataSource.transaction(async (manager): Promise<StartedPlan> => {
        const run = await findRunWithPlan(manager, input.runId);
        if (!run)
          throw ApplicationFailure.nonRetryable(`Run ${input.runId} does not exist`, FAILURE_TYPES.runSetupFailed);
        if (run.plan) return handOut(run.id, opened(run.id, run.plan), outline, false);
        // In the transaction: a plan refused here (over a cap) leaves the run queued.
        return handOut(run.id, await freeze(manager, run, outline), outline, true);
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
     * The test cases of the run's stored plan (opened as `startRun` opens it: also a replay's,
     * resume's, rerun's or debug run's) at positions `from`, `from + 1`, … while their JSON (as an
     * array) stays within `maxBytes` (default OUTLINE_PAGE_BYTES): at least one when `from` is
     * before the end, none past it. Read through this worker's cache ({@link PLAN_CACHE_BYTES}).
     * @throws ApplicationFailure (non-retryable, RunFailed) when the run has no frozen plan, or
     *   `from` is not an integer ≥ 0 or `maxBytes` not a number > 0.
     */
    async loadPlanTestCases(input: PlanTestCasesInput): Promise<PlanTestCasesPage> {
      const { from } = input;
      const maxBytes = input.maxBytes ?? OUTLINE_PAGE_BYTES;
      if (!Number.isInteger(from) || from < 0 || !(maxBytes > 0))
        throw ApplicationFailure.nonRetryable(
          `loadPlanTestCases: from must be an integer ≥ 0 and maxBytes > 0 (got ${from}, ${maxBytes})`,
          FAILURE_TYPES.runFailed,
        );
      const entry = await cachedPlan(input.runId);
      return { from, testCases: entry.testCases.slice(from, pageEnd(entry.sizes, from, maxBytes)) };
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
     * Stores several test cases' results (each as {@link RecordTestCaseInput} has it: masked, its
     * folder added, a failed one's resume point sealed) in one transaction, then the run's
     * progress. A position given twice keeps its last result. Each row's resume state is the one
     * given with its result (none: cleared).
     */
    async recordTestCaseResults(input: RecordTestCaseResultsInput): Promise<void> {
      const byPosition = new Map(input.results.map((r) => [r.position, r]));
      await dataSource.transaction(async (manager) => {
        const createdAt = new Date();
        const rows = [];
        for (const { position, result, resumeState } of byPosition.values()) {
          const row = testCaseRow(input.runId, position, await storable(manager, input.runId, result), createdAt);
          const sealed = resumeState ? sealResumePoint(ring, input.runId, position, resumeState) : null;
          rows.push({ ...row, resumeState: sealed });
        }
        await upsertResultRows(manager, rows);
        if (input.progress) await updateProgress(manager, { ...input, progress: input.progress });
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

    /**
     * Ends the run: `completed` with its result, or `failed` with its error, storing `unfinished`
     * and, with `skipRest`, a `skipped` result for every other position without one. No-op on a
     * run that already ended.
     */
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
          await upsertResultRows(manager, rows);
        }
        if (input.interrupted?.length) {
          const have = await storedPositions(manager, input.runId);
          const rows = [];
          for (const { position, result } of input.interrupted)
            if (!have.has(position))
              rows.push(testCaseRow(input.runId, position, await storable(manager, input.runId, result), completedAt));
          if (rows.length) await upsertResultRows(manager, rows);
        }
        let summary = input.summary;
        if (input.skipRest && run.plan) {
          const rows = [];
          for (const { position, result } of await skippedRest(manager, run.id, run.plan, input))
            rows.push(testCaseRow(input.runId, position, await storable(manager, input.runId, result), completedAt));
          await upsertResultRows(manager, rows);
          // The stored rows are the truth once every position has one (children may have stored results the workflow never saw).
          summary = await storedSummary(manager, input.runId, run.plan.testCases.length);
        }
        const updated = await runs.update(
          { id: input.runId, status: In(['queued', 'running']) },
          {
            status: input.status,
            result: input.status === 'completed' ? (input.result ?? null) : null,
            summary,
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
      // Its plan is paged no more on this worker.
      plans.delete(input.runId);
      if (ended) recordRunFinished(runResultOf(input.status, input.result, input.error), ended.durationMs);
      // The run's mock scope is discarded (docs/mocks.md "State"); on failure the TTL sweep deletes it later.
      if (ended) await discardScope(dataSource, ended.workspaceId, input.runId).catch(() => undefined);
      // Nothing of the run runs again: its node execution records go (on failure, the retention sweep's).
      await deleteRunRecords(dataSource.manager, input.runId).catch(() => undefined);
      // Its per-origin slots and pace rows (docs/parallel.md "Protecting the target") go too.
      await discardRunGate(dataSource.manager, input.runId).catch(() => undefined);
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
    const on = (tc.dependsOn ?? [])
      .map((id) => positions.get(id))
      .filter((p): p is number => p !== undefined && p !== i);
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

/**
 * `finishRun`'s `skipRest`: a `skipped` result (`error` `Not run: <error>`, no failures, as
 * workflows/run.ts `failedRun` builds them) for each position of `plan` with no stored result row
 * and not in `input.unfinished`, in position order.
 */
/** Positions of a run that have a stored result. */
async function storedPositions(manager: EntityManager, runId: string): Promise<Set<number>> {
  const stored = await manager
    .getRepository(RunTestCaseResult)
    .createQueryBuilder('r')
    .select('r.position', 'position')
    .where('r.runId = :runId', { runId })
    .getRawMany<{ position: number | string }>();
  return new Set(stored.map((r) => Number(r.position)));
}

/** A run's summary counted from its stored results (`total`: the plan's test cases). */
async function storedSummary(manager: EntityManager, runId: string, total: number): Promise<RunSummary> {
  const counts = await manager
    .getRepository(RunTestCaseResult)
    .createQueryBuilder('r')
    .select('r.status', 'status')
    .addSelect('COUNT(*)', 'n')
    .where('r.runId = :runId', { runId })
    .groupBy('r.status')
    .getRawMany<{ status: string; n: number | string }>();
  const of = (status: string) => Number(counts.find((c) => c.status === status)?.n ?? 0);
  return { total, passed: of('passed'), failed: of('failed'), skipped: of('skipped') };
}

async function skippedRest(
  manager: EntityManager,
  runId: string,
  plan: RunPlan,
  input: FinishRunInput,
): Promise<Array<{ position: number; result: TestCaseResult }>> {
  const stored = await manager
    .getRepository(RunTestCaseResult)
    .createQueryBuilder('r')
    .select('r.position', 'position')
    .where('r.runId = :runId', { runId })
    .getRawMany<{ position: number | string }>();
  const written = new Set([
    ...stored.map((r) => Number(r.position)),
    ...input.unfinished.map((u) => u.position),
    ...(input.interrupted ?? []).map((u) => u.position),
  ]);
  const error = `Not run: ${input.skipRest!.error}`;
  return plan.testCases.flatMap((tc, position) =>
    written.has(position)
      ? []
      : [
          {
            position,
            result: {
              testCaseId: tc.id,
              name: tc.name,
              status: 'skipped' as const,
              duration: 0,
              assertions: 0,
              passedAssertions: 0,
              failures: [],
              nodes: [],
              error,
            },
          },
        ],
  );
}
