/**
 * Creating and starting a run, for every API path that starts one (POST /v1/runs, incoming
 * webhooks, POST /v1/deployments/{id}/runs, reruns, replays and resumes, and debug runs of one test
 * case, POST /v1/test-cases/debug: no runner, the test case kept in the row).
 *
 * 1. With an `Idempotency-Key` (api/idempotency.ts), a run created by the same key and request
 *    within 24 h is returned instead of a new one (`replayed: true`).
 * 2. The row is stored `queued` (with the key, unique per workspace: two concurrent calls with
 *    one key store one row).
 * 3. Workflow `run-<runId>` starts, and the row records `workflowStartedAt`.
 *
 * Before 2, the workspace's quotas (config `quotas`, docs/security.md "Quotas"): loop iterations
 * the runner's test cases expect together (422 `loop-iterations-exceeded`), runs `queued` or
 * `running` at once, and runs started in the last minute; over either → 429 `quota-exceeded` with
 * `Retry-After`, nothing stored. A replayed key (1) answers before the quotas are looked at, so
 * replays never count against them. Counting and inserting are not one transaction, so concurrent
 * starts may overshoot a quota by the number of calls in flight.
 *
 * No crash loses a run: a process killed between 2 and 3 leaves a `queued` row without
 * `workflowStartedAt`, which the recovery sweep (src/temporal/run-recovery.ts) starts within
 * seconds; starting is idempotent (a workflow already there counts as started). When Temporal
 * cannot be reached the row is ended `failed` with the reason (never left `queued`), its key is
 * released so a retry can succeed, and the caller gets 503 `temporal-unavailable` (api/errors.ts).
 *
 * The workflow itself is started through src/temporal/run-workflows.ts ({@link RunWorkflowClient}).
 */
import { In, IsNull, MoreThan, type DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { newId, runWorkflowId } from '../src/ids';
import {
  DEBUG_RUNNER_NAME,
  Run,
  queuedRun,
  type DebugTestCase,
  type Environment,
  type Runner,
  type TestCase,
} from '../src/store/entities';
import type { Durability, ParallelSettings, RunSelection, RunTrigger, Variables } from '../src/domain/types';
import type { RunOrigin } from '../src/history/types';
import { TemporalUnavailableError, type RunWorkflowClient } from '../src/temporal/run-workflows';
import { startWorkflowOf } from '../src/temporal/run-recovery';
import type { AssayConfig } from '../src/config';
import {
  emptySelectionMessage,
  narrowedSelectionMessage,
  narrowSelection,
  resolveRunnerSelection,
  runnerSelection,
  toDefinition,
} from '../src/store/test-cases';
import { freezeSubFlows, SubFlowReferenceError } from '../src/store/sub-flows';
import { isUniqueViolation } from '../src/store/errors';
import { dataSetRowCounter } from '../src/validation/flow';
import { expectedLoopIterations } from '../src/flow/estimate';
import { IDEMPOTENCY_WINDOW_MS, sameRequest, type IdempotencyRequest } from './idempotency';
import { Problem } from './problem';
import type { LoadProfileInput } from '../src/perf/profile';
import type { ApiDeps, AppContext } from './context';
import { iso } from './routes/shared';
import { refuseMissingServers } from './run-servers';

export interface NewRun {
  workspaceId: string;
  /** The runner whose test cases run; null for a debug run (trigger `debug`, with `debug`). */
  runner: Runner | null;
  environment: Environment;
  timeoutSeconds: number;
  /**
   * The run's own variables as stored: plain values, secrets sealed (api/secrets.ts
   * `sealVariableInputs`; docs/secrets.md). Never a secret in plain text.
   */
  variables: Variables;
  trigger: RunTrigger;
  deploymentId?: string;
  /** Caller context stored on the run and returned with its results. */
  context?: Record<string, unknown>;
  /** The caller's Idempotency-Key, when it sent one. */
  idempotency?: IdempotencyRequest;
  /** The run's own load profile (a performance run); else the deployment's or runner's applies when it starts. */
  loadProfile?: LoadProfileInput | null;
  /**
   * The run's own durability mode (docs/durability.md "Durability modes"); else the deployment's or
   * runner's applies when it starts (activities/runs.ts `startRun` freezes it into the plan).
   */
  durability?: Durability | null;
  /** The run's own scheduling settings (docs/parallel.md); null: its deployment's, else its runner's. */
  parallel?: ParallelSettings | null;
  /** The run's own narrowing of its runner's selection (`folder`, `tags`; docs/parallel.md); absent: none. */
  runSelection?: RunSelection;
  /** The run it is made from (api/routes/run-origins.ts): stored in its row; `startRun` follows it. */
  origin?: RunOrigin;
  /**
   * The test cases the run will execute when they are not the runner's selection (a rerun's):
   * what the selection checks look at; `null` for a run whose plan is its origin's (replay,
   * resume): no selection checks, only the quotas. Absent: the runner's selection.
   */
  selection?: TestCase[] | null;
  /**
   * A debug run (trigger `debug`, `POST /v1/test-cases/debug`): the checked test case it runs,
   * stored in its row (`debugTestCase`; `startRun` freezes the plan from it), and the saved test
   * case it is a draft of (`testCaseId`), if any. Its `selection` is that test case.
   */
  debug?: { testCase: DebugTestCase; testCaseId: string | null };
}

export interface StartedRun {
  run: Run;
  /** True when the run was created by an earlier call with the same Idempotency-Key. */
  replayed: boolean;
}

/**
 * The run an earlier call with the same key created, if any within the window; an older one gives
 * its key up. @throws Problem `idempotency-key-reused` when the key was used for another request.
 */
async function earlierRun(
  dataSource: DataSource,
  workspaceId: string,
  idem: IdempotencyRequest,
): Promise<Run | undefined> {
  const repo = dataSource.getRepository(Run);
  const existing = await repo.findOneBy({ workspaceId, idempotencyKey: idem.key });
  if (!existing) return undefined;
  if (existing.createdAt.getTime() < Date.now() - IDEMPOTENCY_WINDOW_MS) {
    await repo.update({ id: existing.id, idempotencyKey: idem.key }, { idempotencyKey: null });
    return undefined;
  }
  if (!sameRequest(existing.idempotencyFingerprint, idem)) {
    throw new Problem(
      'idempotency-key-reused',
      `Idempotency-Key "${idem.key}" was used within the last 24 h for another request (run ${existing.id}); send a new key for a new request.`,
      { runId: existing.id },
    );
  }
  return existing;
}

/** Seconds a client is told to wait when the workspace has too many runs queued or running. */
export const CONCURRENT_RETRY_AFTER_SECONDS = 10;

/**
 * Refuses a new run over the workspace's quotas.
 * @throws Problem `quota-exceeded` (429) with `quota` (`concurrent-runs` or `runs-per-minute`),
 *   `limit`, `current` and `retryAfter` (seconds: until the oldest run of the last minute leaves
 *   the window; {@link CONCURRENT_RETRY_AFTER_SECONDS} for concurrent runs).
 */
export async function checkRunQuotas(
  dataSource: DataSource,
  workspaceId: string,
  quotas: AssayConfig['quotas'],
): Promise<void> {
  const repo = dataSource.getRepository(Run);
  const active = await repo.count({ where: { workspaceId, status: In(['queued', 'running']) } });
  if (active >= quotas.concurrentRuns) {
    throw new Problem(
      'quota-exceeded',
      `The workspace has ${active} runs queued or running; at most ${quotas.concurrentRuns} may be at once (ASSAY_QUOTA_CONCURRENT_RUNS). Retry when one has ended.`,
      {
        quota: 'concurrent-runs',
        limit: quotas.concurrentRuns,
        current: active,
        retryAfter: CONCURRENT_RETRY_AFTER_SECONDS,
      },
    );
  }
  const now = Date.now();
  const since = new Date(now - 60_000);
  const recent = await repo.count({ where: { workspaceId, createdAt: MoreThan(since) } });
  if (recent >= quotas.runsPerMinute) {
    const oldest = await repo.findOne({
      select: { id: true, createdAt: true },
      where: { workspaceId, createdAt: MoreThan(since) },
      order: { createdAt: 'ASC' },
    });
    const retryAfter = Math.max(1, Math.ceil(((oldest?.createdAt.getTime() ?? now) + 60_000 - now) / 1000));
    throw new Problem(
      'quota-exceeded',
      `The workspace started ${recent} runs in the last minute; at most ${quotas.runsPerMinute} are allowed per minute (ASSAY_QUOTA_RUNS_PER_MINUTE). Retry in ${retryAfter} s.`,
      { quota: 'runs-per-minute', limit: quotas.runsPerMinute, current: recent, retryAfter },
    );
  }
}

/** What {@link createAndStartRun} checks a new run against. */
export interface RunLimits {
  quotas: AssayConfig['quotas'];
  /** ASSAY_MAX_LOOP_ITERATIONS: the count of a loop whose count is not known. */
  maxLoopIterations: number;
}

/** The run limits of a configuration. */
export function runLimits(config: AssayConfig): RunLimits {
  return { quotas: config.quotas, maxLoopIterations: config.runs.maxLoopIterations };
}

const figure = (n: number) => n.toLocaleString('en-US');

/**
 * Refuses a run whose test cases together expect more loop iterations than
 * `quotas.loopIterations` (src/validation/flow.ts `expectedLoopIterations`, summed over the
 * runner's test cases): test cases saved before the quota was lowered, or many test cases each
 * within it.
 * @throws Problem `loop-iterations-exceeded` (422) naming the test case and loop node that expect
 *   the most, with `expectedIterations` and `limit`.
 */
export async function checkLoopIterations(
  runner: Pick<Runner, 'name'> | null,
  selected: TestCase[],
  limits: RunLimits,
): Promise<void> {
  const limit = limits.quotas.loopIterations;
  let total = 0;
  let worst: { testCase: string; node?: string; iterations: number; chain: number[] } | undefined;
  for (const tc of selected) {
    const expected = expectedLoopIterations(tc.flow, {
      maxLoopIterations: limits.maxLoopIterations,
      rowsOf: dataSetRowCounter(tc.dataSets ?? []),
    });
    total += expected.total;
    const top = expected.loops[0];
    if (top && (!worst || top.iterations > worst.iterations))
      worst = { testCase: tc.name, node: top.id, iterations: top.iterations, chain: top.chain };
  }
  if (total <= limit || !worst) return;
  const where = `test case "${worst.testCase}", ${worst.node ? `loop node "${worst.node}"` : 'a loop node'}: ${worst.chain.map(figure).join(' × ')} = ${figure(worst.iterations)}`;
  throw new Problem(
    'loop-iterations-exceeded',
    `${runner ? `Runner "${runner.name}"` : 'The debug run'} expects ${figure(total)} loop iterations per run across its test cases; at most ${figure(limit)} are allowed (ASSAY_QUOTA_LOOP_ITERATIONS). The most: ${where}.`,
    {
      ...(runner ? { runner: runner.name } : {}),
      testCase: worst.testCase,
      ...(worst.node ? { node: worst.node } : {}),
      expectedIterations: total,
      limit,
    },
  );
}

/**
 * Refuses a run of a runner that selects no test case: it would "pass" with 0 tests
 * (src/store/test-cases.ts `resolveRunnerSelection`; the plan is checked again when it is frozen,
 * activities/runs.ts `startRun`). When `record` is given (an incoming webhook's call, whose caller
 * may never read the answer), a run is stored `failed` with the reason first, so the deployment's
 * history shows it, and the problem carries its `runId`.
 * @throws Problem `runner-selects-nothing` (422) naming the runner and its selection
 */
async function refuseEmptySelection(
  deps: RunStarterDeps,
  input: NewRun,
  selected: TestCase[],
  record: boolean,
): Promise<void> {
  if (selected.length > 0 || !input.runner) return;
  const detail = emptySelectionMessage(input.runner);
  const extras: Record<string, unknown> = { runner: input.runner.name, selection: runnerSelection(input.runner) };
  if (record) {
    const id = newId('run');
    const now = new Date();
    const run = deps.dataSource.getRepository(Run).create(
      queuedRun({
        ...runRowOf(input, id),
        idempotencyKey: null,
        idempotencyFingerprint: null,
      }),
    );
    Object.assign(run, { status: 'failed', error: detail, completedAt: now, duration: 0 });
    await deps.dataSource.getRepository(Run).insert(run as never);
    extras.runId = id;
  }
  throw new Problem('runner-selects-nothing', detail, extras);
}

/**
 * The selected test cases with their Ref nodes' sub-flows resolved as a run would freeze them
 * (src/store/sub-flows.ts `freezeSubFlows`), so that loops inside sub-flows count towards the quota.
 * A reference that does not resolve is left as it is here: the run then fails when it freezes its plan.
 */
async function withSubFlows(deps: RunStarterDeps, workspaceId: string, selected: TestCase[]): Promise<TestCase[]> {
  try {
    const frozen = await freezeSubFlows(deps.dataSource.manager, workspaceId, selected.map(toDefinition));
    return selected.map((tc, i) => ({ ...tc, flow: frozen[i]!.flow }));
  } catch (err) {
    if (err instanceof SubFlowReferenceError) return selected;
    throw err;
  }
}

/** What starting a run needs. */
export interface RunStarterDeps {
  dataSource: DataSource;
  workflows: RunWorkflowClient;
  logger: Logger;
  /** The quotas to check; none when absent. */
  limits?: RunLimits;
}

/**
 * Creates and starts a run (steps in the module comment).
 * @throws Problem `idempotency-key-reused` (422), `runner-selects-nothing` (422; an incoming
 *   webhook's call stores the run `failed` first), `server-missing` (422; not for an incoming
 *   webhook's call, whose run fails when it starts), `unknown-reference` (422, the environment's
 *   `extends` chain broken), `loop-iterations-exceeded` (422) and
 *   `quota-exceeded` (429), these two only when `deps.limits` is given;
 *   TemporalUnavailableError (operation `start`: 503 `temporal-unavailable`).
 */
export async function createAndStartRun(deps: RunStarterDeps, input: NewRun): Promise<StartedRun> {
  const repo = deps.dataSource.getRepository(Run);
  const idem = input.idempotency;
  // The run an earlier call with the same key created, answered again; undefined when there is none.
  const replayOfKey = async (): Promise<StartedRun | undefined> => {
    const earlier = idem && (await earlierRun(deps.dataSource, input.workspaceId, idem));
    return earlier ? { run: await replay(deps, earlier), replayed: true } : undefined;
  };
  const first = await replayOfKey();
  if (first) return first;
  const resolved =
    input.selection === undefined && input.runner
      ? await resolveRunnerSelection(deps.dataSource.manager, input.runner)
      : (input.selection ?? null);
  // A run's own folder/tags narrow its runner's selection (docs/parallel.md "Plans of any size").
  const selected = resolved && input.runSelection ? narrowSelection(resolved, input.runSelection) : resolved;
  if (resolved && resolved.length > 0 && selected?.length === 0 && input.runner && input.runSelection)
    throw new Problem('runner-selects-nothing', narrowedSelectionMessage(input.runner, input.runSelection), {
      runner: input.runner.name,
      selection: input.runSelection,
    });
  if (selected) {
    await refuseEmptySelection(deps, input, selected, input.trigger === 'webhook');
    // An incoming webhook's caller may never read the answer: its run fails at setup, in the history.
    if (input.trigger !== 'webhook') await refuseMissingServers(deps.dataSource, input, selected);
  }
  if (deps.limits) {
    if (selected)
      await checkLoopIterations(input.runner, await withSubFlows(deps, input.workspaceId, selected), deps.limits);
    try {
      await checkRunQuotas(deps.dataSource, input.workspaceId, deps.limits.quotas);
    } catch (err) {
      // A concurrent call with the same key may have stored its run meanwhile: that is a replay, not a new run.
      const concurrent = await replayOfKey();
      if (concurrent) return concurrent;
      throw err;
    }
  }
  const id = newId('run');
  const run = repo.create(
    queuedRun({
      ...runRowOf(input, id),
      idempotencyKey: idem?.key ?? null,
      idempotencyFingerprint: idem?.fingerprint ?? null,
    }),
  );
  try {
    await repo.insert(run as never);
  } catch (err) {
    // Another call with the same key stored its run first: that one is the answer.
    const stored = isUniqueViolation(err) ? await replayOfKey() : undefined;
    if (stored) return stored;
    throw err;
  }
  try {
    await startWorkflowOf(deps.dataSource, deps.workflows, run);
  } catch (err) {
    deps.logger.warn({ err, runId: id }, 'could not start run workflow');
    await repo.update(
      { id, status: 'queued', workflowStartedAt: IsNull() },
      {
        status: 'failed',
        error: 'The run could not be started: the workflow service is unavailable.',
        completedAt: new Date(),
        duration: 0,
        idempotencyKey: null,
      },
    );
    if (err instanceof TemporalUnavailableError) throw err;
    throw new TemporalUnavailableError(
      `Could not record the start of workflow ${run.workflowId}: ${(err as Error).message}`,
      { operation: 'start', runId: id, cause: err },
    );
  }
  return { run, replayed: false };
}

/** The columns of a new run's row that come from what the caller asked for. */
function runRowOf(input: NewRun, id: string) {
  return {
    id,
    workspaceId: input.workspaceId,
    runnerId: input.runner?.id ?? null,
    runnerName: input.runner?.name ?? DEBUG_RUNNER_NAME,
    environmentId: input.environment.id,
    environmentName: input.environment.name,
    deploymentId: input.deploymentId ?? null,
    trigger: input.trigger,
    workflowId: runWorkflowId(id),
    timeoutSeconds: input.timeoutSeconds,
    variables: input.variables,
    context: input.context ?? null,
    loadProfile: input.loadProfile ?? null,
    durability: input.durability ?? null,
    parallel: input.parallel ?? null,
    selection: input.runSelection ?? null,
    origin: input.origin ?? null,
    testCaseId: input.debug?.testCaseId ?? null,
    ...(input.debug ? { debugTestCase: input.debug.testCase } : {}),
  };
}

/**
 * A replayed call: the run as stored now. Its workflow is started here if the call that created it
 * died before starting it (the recovery sweep would too, a few seconds later).
 */
async function replay(deps: RunStarterDeps, run: Run): Promise<Run> {
  if (run.status === 'queued' && !run.workflowStartedAt) {
    await startWorkflowOf(deps.dataSource, deps.workflows, run).catch((err) =>
      deps.logger.warn({ err, runId: run.id }, 'could not start run workflow on replay; the recovery sweep retries'),
    );
  }
  return run;
}

/** Starts runs for the API's routes: {@link createAndStartRun} with the configuration's limits. */
export function runStarter({ dataSource, workflows, logger, config }: ApiDeps): (input: NewRun) => Promise<StartedRun> {
  const deps: RunStarterDeps = { dataSource, workflows, logger, limits: runLimits(config) };
  return (input) => createAndStartRun(deps, input);
}

/**
 * Answers a call that started (or replayed) a run: `status` (201 from /v1, 200 from an incoming
 * webhook), `Idempotent-Replayed: true` on a replay, `Location` of the run when asked, and the body
 * `{runId, status, runner, environment, deploymentId?, createdAt, links?}` (`runner` null for a
 * debug run).
 */
export function answerStartedRun(
  ctx: AppContext,
  { run, replayed }: StartedRun,
  answer: { status: 200 | 201; location?: boolean; links?: Record<string, string> },
): void {
  if (replayed) ctx.set('Idempotent-Replayed', 'true');
  ctx.status = answer.status;
  if (answer.location) ctx.set('Location', `/v1/runs/${run.id}`);
  ctx.body = {
    runId: run.id,
    status: run.status,
    runner: runnerOf(run),
    environment: run.environmentName,
    ...(run.deploymentId ? { deploymentId: run.deploymentId } : {}),
    createdAt: iso(run.createdAt),
    ...(answer.links ? { links: answer.links } : {}),
  };
}

/**
 * The `runner` a run document answers: the runner's name, or null for a run made by no runner (a
 * debug run, whose row stores {@link DEBUG_RUNNER_NAME}).
 */
export function runnerOf(run: Pick<Run, 'runnerName'>): string | null {
  return run.runnerName === DEBUG_RUNNER_NAME ? null : run.runnerName;
}
