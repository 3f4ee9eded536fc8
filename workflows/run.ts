/**
 * The run workflow (`run-<runId>`): one execution of a runner against an environment.
 *
 * 1. `startRun` marks the run `running` and returns its frozen plan.
 * 2. Each test case runs through the interpreter; each API node is an activity, assertions are
 *    evaluated here; each test case's result is stored as soon as it ends.
 * 3. The run ends `completed` (result `passed` when no test case failed but those the plan
 *    quarantines as flaky) or `failed` with an error.
 *
 * Speed: nodes and result writes are local activities by default, with a checkpoint (here: storing
 * the progress) at most every second; see workflows/workflow-port.ts and docs/benchmarks.md.
 *
 * Timeout: timed here, not with Temporal's workflow timeouts (those kill a workflow without running
 * its code, and the row would stay `running`). A cancellable scope with the run's timeout covers
 * normal activities and timers; between local activities the interpreter checks the deadline
 * against the clock readings the activities return, and each request's timeout is cut to the time
 * left. The final status is written from a non-cancellable scope.
 *
 * History stays bounded: after `settings.testCasesPerExecution` test cases, or when Temporal
 * suggests it, the workflow continues as new carrying its counts.
 */
import {
  ApplicationFailure,
  CancellationScope,
  continueAsNew,
  isCancellation,
  ParentClosePolicy,
  patched,
  upsertSearchAttributes,
  proxyActivities,
  proxyLocalActivities,
  executeChild,
  setCurrentDetails,
  setHandler,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities, FinishRunInput, RecordTestCaseInput } from '../activities';
import type { RunPlan, RunResultValue, RunSummary, TestCaseDefinition, TestCaseResult } from '../src/domain/types';
import type { ResumeOptions } from '../src/flow/resume';
import { loadControlUpdate } from '../src/domain/load-control';
import {
  callbackSignal,
  RUN_ID_SEARCH_ATTRIBUTE,
  runStateQuery,
  type RunWorkflowInput,
} from '../src/domain/run-workflow';
import { createWorkflowPort } from './workflow-port';
import { testCaseAuth } from '../src/domain/auth-profiles';
import { childTimedOut, endedByTimeout, rootMessage, timedOutFailure } from './endings';
import { testCaseWorkflow } from './test-case';
import { deliverWebhooksWorkflow } from './webhooks';
import { startLoopSegment } from './segment';
import { DeadlineReached } from '../src/flow';
import { RunLedger } from './run-ledger';
import { LoadControl, runLoad, type LoadEnding } from './performance';
import { ulidFrom } from '../src/domain/ulid';
import { FAILURE_TYPES, RUN_ERROR_PREFIX } from '../src/domain/failures';
import { frozenParallel } from '../src/domain/parallel';
import { expectedNodeExecutions } from '../src/flow/estimate';
import { PlanTestCases, type PlanOutline } from './plan-source';
import { SuiteLedger } from './suite-ledger';
import { runPlannedTestCase, SUITE_PATCH, SuiteRun, type SuiteOutcome } from './suite';
import type { TestCaseHooks } from './workflow-port';

/**
 * Bookkeeping writes retry without an attempt limit: a database outage delays a run, never fails it.
 * What bounds them is the run's own deadline (the cancellable scope below), or nothing for the final
 * write, which must land.
 */
const STORE_RETRY = { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '10 seconds' };

/** Bookkeeping writes: short, retried until they land or the run's deadline passes. */
const store = proxyActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: STORE_RETRY });
const localStore = proxyLocalActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: STORE_RETRY });

/** The final write: retried until it lands (a database outage delays it, never loses it). */
const finalStore = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** patched() id of the `testCase` durability mode (src/flow/segments.ts). */
export const TEST_CASE_DURABILITY_PATCH = 'test-case-durability';

/** What the workflow returns when the run completed. */
export interface RunOutcome {
  runId: string;
  status: 'completed';
  result: RunResultValue;
  summary: RunSummary;
}

/**
 * The run workflow. Runs recorded before the suite path (docs/parallel.md) replay the sequential
 * loop ({@link sequentialRunWorkflow}); every other run takes {@link suiteRunWorkflow}.
 */
export async function runWorkflow(input: RunWorkflowInput): Promise<RunOutcome> {
  return patched(SUITE_PATCH) ? suiteRunWorkflow(input) : sequentialRunWorkflow(input);
}

/** The run workflow as it was before the suite path: one test case after another, the plan in history. */
async function sequentialRunWorkflow(input: RunWorkflowInput): Promise<RunOutcome> {
  // A scheduled run has no row yet: make its id here (deterministic: workflow clock and random) and its row in an activity.
  const runId = input.runId ?? `run_${ulidFrom(Date.now(), Math.random)}`;
  if (!input.runId && input.deploymentId) {
    await createScheduledRunRow(runId, input.deploymentId);
    // Every run workflow carries AssayRunId (API runs get it at start); runs recorded before it replay without.
    if (patched('scheduled-run-id-search-attribute'))
      upsertSearchAttributes([{ key: RUN_ID_SEARCH_ATTRIBUTE, value: runId }]);
  }
  const onEnd = () => fireWebhooks(runId, input.deploymentId);
  const ledger = new RunLedger(input.resume);
  let clock = () => Date.now();
  setHandler(runStateQuery, () => ledger.live(clock()));
  // Callbacks for Callback nodes (docs/async.md "Callbacks"): kept until a wait consumes them.
  setHandler(callbackSignal, (delivery) => ledger.inbox.add(delivery));
  // Live control of a performance run's load (docs/performance.md "Steering a running test").
  const loadControl = new LoadControl(runId);
  setHandler(loadControlUpdate, (request) => loadControl.command(request), {
    validator: (request) => loadControl.validate(request),
  });

  if (!input.resume) {
    try {
      ledger.begin(await store.startRun({ runId }));
    } catch (err) {
      return failedStart(runId, ledger.summary, onEnd, err);
    }
  }
  const plan = ledger.plan!;
  const local = plan.settings.apiNodeActivity === 'local';
  const deadline = ledger.deadlineMs;
  setCurrentDetails(ledger.details());

  const progressInput = () => ({
    runId,
    progress: ledger.progress,
    work: ledger.work,
  });
  // The `testCase` durability mode (docs/durability.md): one activity per test case segment.
  // Plans frozen before it existed have no `durability`; performance runs ignore it.
  const segmented = plan.durability === 'testCase' && !plan.performance && patched(TEST_CASE_DURABILITY_PATCH);
  const port = createWorkflowPort({
    ...(segmented ? { durability: 'testCase' as const, segmentProgress: () => ledger.segmentProgress() } : {}),
    runId,
    settings: plan.settings,
    deadlineMs: deadline,
    ...(plan.servers ? { servers: plan.servers } : {}),
    ...(plan.mockScope ? { mockScope: { workspaceId: plan.workspaceId, scope: plan.mockScope } } : {}),
    // A debug run (trigger `debug`): each node's result gets its capture (src/flow/debug.ts).
    ...(plan.debug ? { debug: true } : {}),
    onNodeDone: () => ledger.nodeDone(),
    // A normal activity (the workflow task before it has ended): the records of earlier test cases go.
    endTask: () => store.saveProgress({ ...progressInput(), recordsBefore: ledger.nextIndex }),
    onStep: (line) => {
      ledger.step(line);
      setCurrentDetails(ledger.details());
    },
    startLoopSegment,
    ...(plan.callbacks ? { callbacks: { ...plan.callbacks, inbox: ledger.inbox } } : {}),
    onWaiting: (waiting) => {
      ledger.waiting = waiting;
      setCurrentDetails(ledger.details());
    },
  });
  clock = port.now;

  const record = (recordInput: RecordTestCaseInput) =>
    local ? localStore.recordTestCaseResult(recordInput) : store.recordTestCaseResult(recordInput);

  const scope = new CancellationScope({ cancellable: true, timeout: Math.max(1, deadline - Date.now()) });
  let ranHere = 0;
  // A result between being computed and being stored: kept so that a timeout in between loses nothing.
  let pending: { position: number; result: TestCaseResult } | undefined;
  let outcome: 'done' | 'continue';
  // A performance run's result comes from its thresholds (workflows/performance.ts), not from test cases passing.
  let loadOutcome: { result: RunResultValue; summary: RunSummary } | undefined;
  let loadEnding: LoadEnding = {};
  try {
    outcome = await scope.run(async () => {
      if (plan.performance) {
        loadEnding = await runLoad(runId, plan.performance, loadControl, deadline);
        // Merges the shards' measurements and decides the result from the thresholds.
        loadOutcome = await store.completePerformanceRun({ runId });
        return 'done';
      }
      while (ledger.nextIndex < plan.testCases.length) {
        const position = ledger.nextIndex;
        const testCase = plan.testCases[position]!;
        const { result, resumeState } = await runPlannedTestCase(
          port,
          plan,
          testCase,
          position,
          plan.variableScope === 'run' ? ledger : undefined,
        );
        pending = { position, result };
        ledger.testCaseDone(result);
        await record({ ...progressInput(), position, result, ...(resumeState ? { resumeState } : {}) });
        pending = undefined;
        setCurrentDetails(ledger.details());
        ranHere += 1;
        const more = ledger.nextIndex < plan.testCases.length;
        if (more && (ranHere >= plan.settings.testCasesPerExecution || workflowInfo().continueAsNewSuggested))
          return 'continue';
      }
      return 'done';
    });
  } catch (err) {
    const userCancelled = CancellationScope.current().consideredCancelled;
    const timedOut = endedByTimeout(err);
    const error = timedOut
      ? `${RUN_ERROR_PREFIX.timedOut} after ${plan.timeoutSeconds} s`
      : userCancelled
        ? RUN_ERROR_PREFIX.cancelled
        : `Run failed: ${rootMessage(err)}`;
    ledger.status = 'failed';
    await CancellationScope.nonCancellable(async () => {
      // A performance run keeps the figures measured until it stopped (best effort: else as any run).
      const salvaged = plan.performance
        ? await finalStore.completePerformanceRun({ runId }).catch(() => undefined)
        : undefined;
      if (salvaged)
        await finalStore.finishRun({ runId, status: 'failed', error, summary: salvaged.summary, unfinished: [] });
      else await finalStore.finishRun(failedRun(runId, ledger, error, pending));
      await onEnd();
    });
    setCurrentDetails(`${ledger.details()}\n\n${error}`);
    if (userCancelled) throw err;
    throw timedOut ? timedOutFailure(error) : ApplicationFailure.nonRetryable(error, FAILURE_TYPES.runFailed);
  }

  if (outcome === 'continue') {
    return continueAsNew<typeof runWorkflow>({
      runId,
      deploymentId: input.deploymentId,
      trigger: input.trigger,
      resume: ledger.resumeState(),
    });
  }
  // A threshold with abortOnFail stopped the load: the run fails naming it, its figures kept.
  if (loadOutcome && loadEnding.abort) {
    ledger.status = 'failed';
    return abortedByThreshold(runId, loadOutcome.summary, loadEnding.abort.message, onEnd, ledger.details());
  }
  // Failed test cases the plan quarantines do not fail the run.
  const result: RunResultValue =
    loadOutcome?.result ?? (ledger.summary.failed - ledger.quarantined > 0 ? 'failed' : 'passed');
  if (loadOutcome) ledger.summary = loadOutcome.summary;
  ledger.status = 'completed';
  await finalStore.finishRun({ runId, status: 'completed', result, summary: ledger.summary, unfinished: [] });
  await onEnd();
  setCurrentDetails(ledger.details());
  return { runId, status: 'completed', result, summary: ledger.summary };
}

/**
 * Makes the row of a scheduled run (it has none until its workflow starts).
 * @throws ApplicationFailure (non-retryable, RunSetupFailed) when it cannot be made
 */
async function createScheduledRunRow(runId: string, deploymentId: string): Promise<void> {
  try {
    await store.createScheduledRun({ runId, deploymentId, workflowId: workflowInfo().workflowId });
  } catch (err) {
    throw ApplicationFailure.nonRetryable(
      `Scheduled run not created: ${rootMessage(err)}`,
      FAILURE_TYPES.runSetupFailed,
    );
  }
}

/**
 * A run whose start (`startRun`) failed or was cancelled: stored failed saying so, its webhooks
 * fired. @throws the cancellation, else ApplicationFailure (non-retryable, RunSetupFailed)
 */
async function failedStart(
  runId: string,
  summary: RunSummary,
  onEnd: () => Promise<void>,
  err: unknown,
): Promise<never> {
  const cancelled = isCancellation(err);
  const error = cancelled
    ? `${RUN_ERROR_PREFIX.cancelled} before it started`
    : `Run could not start: ${rootMessage(err)}`;
  await CancellationScope.nonCancellable(async () => {
    await finalStore.finishRun({ runId, status: 'failed', error, summary, unfinished: [] });
    await onEnd();
  });
  if (cancelled) throw err;
  throw ApplicationFailure.nonRetryable(error, FAILURE_TYPES.runSetupFailed);
}

/**
 * A performance run whose threshold with `abortOnFail` stopped the load: stored failed naming it,
 * its figures kept. @throws ApplicationFailure (non-retryable, ThresholdAborted)
 */
async function abortedByThreshold(
  runId: string,
  summary: RunSummary,
  error: string,
  onEnd: () => Promise<void>,
  details: string,
): Promise<never> {
  await finalStore.finishRun({ runId, status: 'failed', error, summary, unfinished: [] });
  await onEnd();
  setCurrentDetails(`${details}\n\n${error}`);
  throw ApplicationFailure.nonRetryable(error, FAILURE_TYPES.thresholdAborted);
}

/**
 * Hands a finished run's outgoing webhooks to a child workflow that outlives this one (abandoned
 * on close), so a receiver that is down for hours delays nothing here.
 */
async function fireWebhooks(runId: string, deploymentId: string | undefined): Promise<void> {
  if (!deploymentId) return;
  await startChild(deliverWebhooksWorkflow, {
    workflowId: `webhooks-${runId}`,
    args: [{ runId, deploymentId }],
    parentClosePolicy: ParentClosePolicy.ABANDON,
    staticSummary: `Outgoing webhooks of run ${runId}`,
  });
}

/**
 * The final write of a run that did not complete: a result computed but not stored is kept, the test
 * case under way is failed as interrupted, the rest are skipped.
 */
function failedRun(
  runId: string,
  ledger: RunLedger,
  error: string,
  pending: { position: number; result: TestCaseResult } | undefined,
): FinishRunInput {
  const plan = ledger.plan!;
  const summary = { ...ledger.summary };
  const unfinished: FinishRunInput['unfinished'] = [];
  if (pending) unfinished.push(pending);
  plan.testCases.forEach((tc, position) => {
    if (position < ledger.nextIndex) return;
    const interrupted = position === ledger.nextIndex;
    const result: TestCaseResult = {
      testCaseId: tc.id,
      name: tc.name,
      status: interrupted ? 'failed' : 'skipped',
      duration: 0,
      assertions: 0,
      passedAssertions: 0,
      failures: interrupted ? [{ node: '', message: `Interrupted: ${error}` }] : [],
      nodes: [],
      error: interrupted ? `Interrupted: ${error}` : `Not run: ${error}`,
    };
    if (interrupted) summary.failed += 1;
    else summary.skipped += 1;
    unfinished.push({ position, result });
  });
  return { runId, status: 'failed', error, summary, unfinished };
}

/** The outline `startRun` adds to a plan whose test cases stay in the store (activities/runs.ts). */
type StartedPlan = RunPlan & { outline?: PlanOutline };

/**
 * The run workflow's suite path (workflows/suite.ts; docs/parallel.md): the plan's test cases
 * loaded by position from the store, scheduled up to the plan's concurrency, with dependencies
 * and bail; otherwise as {@link sequentialRunWorkflow} (setup, timeout, cancel, the final write).
 */
async function suiteRunWorkflow(input: RunWorkflowInput): Promise<RunOutcome> {
  const runId = input.runId ?? `run_${ulidFrom(Date.now(), Math.random)}`;
  if (!input.runId && input.deploymentId) {
    await createScheduledRunRow(runId, input.deploymentId);
    upsertSearchAttributes([{ key: RUN_ID_SEARCH_ATTRIBUTE, value: runId }]);
  }
  const onEnd = () => fireWebhooks(runId, input.deploymentId);
  const ledger = new SuiteLedger(input.resume);
  let clock = () => Date.now();
  setHandler(runStateQuery, () => ledger.live(clock()));
  setHandler(callbackSignal, (delivery) => ledger.inbox.add(delivery));
  const loadControl = new LoadControl(runId);
  setHandler(loadControlUpdate, (request) => loadControl.command(request), {
    validator: (request) => loadControl.validate(request),
  });

  let started: StartedPlan;
  let outline = input.resume?.outline;
  if (input.resume) started = input.resume.plan;
  else {
    try {
      started = await store.startRun({ runId, outline: true });
      outline = started.outline;
    } catch (err) {
      return failedStart(runId, ledger.summary, onEnd, err);
    }
  }
  const { outline: _dropped, ...plan } = started;
  const parallel = frozenParallel(plan);
  // Test cases side by side: in the `node` mode each a child workflow (workflows/test-case.ts), in
  // the `testCase` mode lanes here with normal activities only (workflow-port.ts `normalActivitiesOnly`).
  const sideBySide = parallel.concurrency > 1 && plan.variableScope !== 'run';
  const children = sideBySide && plan.durability !== 'testCase' && !plan.performance;
  const local = plan.settings.apiNodeActivity === 'local' && !sideBySide;
  const source = new PlanTestCases(plan, outline, (from) =>
    local ? localStore.loadPlanTestCases({ runId, from }) : store.loadPlanTestCases({ runId, from }),
  );
  const expectedNodes =
    outline?.expectedNodes ??
    plan.testCases.reduce((sum, tc) => sum + expectedNodeExecutions(tc, plan.settings.maxLoopIterations), 0);
  ledger.begin(plan, source.count, expectedNodes);
  const deadline = ledger.deadlineMs;
  setCurrentDetails(ledger.details());
  const progressInput = () => ({ runId, progress: ledger.progress, work: ledger.work });

  // The root port reports for the test case under way when one runs at a time (workflows/suite.ts).
  let rootHooks: TestCaseHooks | undefined;
  const segmented = plan.durability === 'testCase' && !plan.performance;
  const port = createWorkflowPort({
    ...(sideBySide ? { normalActivitiesOnly: true } : {}),
    ...(segmented
      ? {
          durability: 'testCase' as const,
          segmentProgress: () => rootHooks?.segmentProgress?.() ?? ledger.segmentProgress(-1),
        }
      : {}),
    runId,
    settings: plan.settings,
    deadlineMs: deadline,
    ...(plan.servers ? { servers: plan.servers } : {}),
    ...(plan.mockScope ? { mockScope: { workspaceId: plan.workspaceId, scope: plan.mockScope } } : {}),
    ...(plan.debug ? { debug: true } : {}),
    ...(parallel.originLimits ? { originLimits: parallel.originLimits } : {}),
    onNodeDone: () => rootHooks?.onNodeDone?.(),
    // A normal activity (the workflow task before it has ended): the records of earlier test cases go.
    endTask: () =>
      store.saveProgress({
        ...progressInput(),
        recordsBefore: Math.min(ledger.nextIndex, ...suite.running.keys()),
      }),
    onStep: (line) => rootHooks?.onStep?.(line),
    startLoopSegment,
    ...(plan.callbacks ? { callbacks: { ...plan.callbacks, inbox: ledger.inbox } } : {}),
    onWaiting: (waiting) => {
      ledger.waiting = waiting;
      setCurrentDetails(ledger.details());
    },
  });
  clock = port.now;

  const suite = new SuiteRun({
    plan,
    ledger,
    source,
    port,
    setRootHooks: (hooks) => {
      rootHooks = hooks;
    },
    record: async (batch) => {
      const results = batch.map(({ position, result, resumeState }) => ({
        position,
        result,
        ...(resumeState ? { resumeState } : {}),
      }));
      const recordInput = { ...progressInput(), results };
      await (local ? localStore.recordTestCaseResults(recordInput) : store.recordTestCaseResults(recordInput));
    },
    changed: () => setCurrentDetails(ledger.details()),
    saveProgress: () => store.saveProgress(progressInput()),
    ...(children
      ? {
          runChild: async (group: Array<{ position: number; testCase: TestCaseDefinition; resume: ResumeOptions }>) => {
            const first = group[0]!;
            try {
              return await executeChild(testCaseWorkflow, {
                workflowId: `run-${runId}-tc-${first.position}`,
                taskQueue: workflowInfo().taskQueue,
                staticSummary:
                  group.length === 1
                    ? `Test case ${first.position + 1}: ${first.testCase.name}`
                    : `Test cases ${first.position + 1}–${first.position + group.length}: ${group.map((g) => g.testCase.name).join(', ')}`.slice(
                        0,
                        400,
                      ),
                args: [
                  {
                    runId,
                    items: group.map(({ position, testCase, resume }) => {
                      const auth = testCaseAuth(plan, testCase);
                      return {
                        position,
                        testCase,
                        ...(auth ? { auth } : {}),
                        ...(resume.from ? { resumeFrom: resume.from } : {}),
                        ...(plan.quarantine?.includes(testCase.id) ? { quarantined: true as const } : {}),
                      };
                    }),
                    variables: plan.variables,
                    settings: plan.settings,
                    deadlineMs: deadline,
                    ...(plan.servers ? { servers: plan.servers } : {}),
                    ...(plan.mockScope ? { mockScope: { workspaceId: plan.workspaceId, scope: plan.mockScope } } : {}),
                    ...(plan.callbacks ? { callbacks: plan.callbacks } : {}),
                    ...(parallel.originLimits ? { originLimits: parallel.originLimits } : {}),
                    ...(plan.debug ? { debug: true as const } : {}),
                  },
                ],
              });
            } catch (err) {
              // The child reached the run's deadline: the test case is interrupted, as on a lane.
              if (childTimedOut(err)) throw new DeadlineReached();
              throw err;
            }
          },
        }
      : {}),
  });

  const scope = new CancellationScope({ cancellable: true, timeout: Math.max(1, deadline - Date.now()) });
  let outcome: SuiteOutcome | undefined;
  let loadOutcome: { result: RunResultValue; summary: RunSummary } | undefined;
  let loadEnding: LoadEnding = {};
  try {
    outcome = await scope.run(async () => {
      if (plan.performance) {
        loadEnding = await runLoad(runId, plan.performance, loadControl, deadline);
        loadOutcome = await store.completePerformanceRun({ runId });
        return { ending: 'done' as const, unstored: [] };
      }
      return suite.run();
    });
  } catch (err) {
    const userCancelled = CancellationScope.current().consideredCancelled;
    const timedOut = endedByTimeout(err);
    const error = timedOut
      ? `${RUN_ERROR_PREFIX.timedOut} after ${plan.timeoutSeconds} s`
      : userCancelled
        ? RUN_ERROR_PREFIX.cancelled
        : `Run failed: ${rootMessage(err)}`;
    ledger.status = 'failed';
    // Test cases still under way (one threw) stop with the scope.
    scope.cancel();
    await CancellationScope.nonCancellable(async () => {
      const salvaged = plan.performance
        ? await finalStore.completePerformanceRun({ runId }).catch(() => undefined)
        : undefined;
      if (salvaged)
        await finalStore.finishRun({ runId, status: 'failed', error, summary: salvaged.summary, unfinished: [] });
      else await finalStore.finishRun(failedSuiteRun(runId, ledger, suite, error));
      await onEnd();
    });
    setCurrentDetails(`${ledger.details()}\n\n${error}`);
    if (userCancelled) throw err;
    throw timedOut ? timedOutFailure(error) : ApplicationFailure.nonRetryable(error, FAILURE_TYPES.runFailed);
  }

  if (outcome.ending === 'continue') {
    return continueAsNew<typeof runWorkflow>({
      runId,
      deploymentId: input.deploymentId,
      trigger: input.trigger,
      resume: { ...ledger.resumeState(source.outlined), ...(outline ? { outline } : {}) },
    });
  }
  if (loadOutcome && loadEnding.abort) {
    ledger.status = 'failed';
    return abortedByThreshold(runId, loadOutcome.summary, loadEnding.abort.message, onEnd, ledger.details());
  }
  // A failed test case's resume point is stored by the result write, not by the run's end.
  const withResume = outcome.unstored.filter((u) => u.resumeState);
  if (withResume.length > 0) await finalStore.recordTestCaseResults({ ...progressInput(), results: withResume });
  const unfinished = outcome.unstored
    .filter((u) => !u.resumeState)
    .map(({ position, result }) => ({ position, result }));
  let skipRest: { error: string } | undefined;
  if (outcome.ending === 'bail') {
    // Bail (docs/parallel.md "Bail"): the test cases that never started are stored skipped.
    const notRun = Math.max(0, ledger.count - ledger.done);
    ledger.summary = { ...ledger.summary, skipped: ledger.summary.skipped + notRun };
    skipRest = {
      error: `the run stopped after ${ledger.failedForBail} failed test case${ledger.failedForBail === 1 ? '' : 's'} (bail: ${parallel.bail})`,
    };
  }
  const result: RunResultValue =
    loadOutcome?.result ?? (ledger.summary.failed - ledger.quarantined > 0 ? 'failed' : 'passed');
  if (loadOutcome) ledger.summary = loadOutcome.summary;
  ledger.status = 'completed';
  await finalStore.finishRun({
    runId,
    status: 'completed',
    result,
    summary: ledger.summary,
    unfinished,
    ...(skipRest ? { skipRest } : {}),
  });
  await onEnd();
  setCurrentDetails(ledger.details());
  return { runId, status: 'completed', result, summary: ledger.summary };
}

/**
 * The final write of a suite run that did not complete: results computed but not stored are kept,
 * the test cases under way are failed as interrupted, the rest are stored skipped by `finishRun`
 * (`skipRest`: every position without a result).
 */
function failedSuiteRun(runId: string, ledger: SuiteLedger, suite: SuiteRun, error: string): FinishRunInput {
  const summary = { ...ledger.summary };
  const unfinished: FinishRunInput['unfinished'] = [...suite.unstored.values()].map(({ position, result }) => ({
    position,
    result,
  }));
  const interrupted: NonNullable<FinishRunInput['interrupted']> = [];
  for (const [position, { id, name }] of suite.running) {
    interrupted.push({
      position,
      result: {
        testCaseId: id,
        name,
        status: 'failed',
        duration: 0,
        assertions: 0,
        passedAssertions: 0,
        failures: [{ node: '', message: `Interrupted: ${error}` }],
        nodes: [],
        error: `Interrupted: ${error}`,
      },
    });
    summary.failed += 1;
  }
  summary.skipped += Math.max(0, ledger.count - ledger.done - suite.running.size);
  // With skipRest, finishRun counts the summary from the stored results (this one is the workflow's view).
  return { runId, status: 'failed', error, summary, unfinished, interrupted, skipRest: { error } };
}
