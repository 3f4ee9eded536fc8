/**
 * The run workflow (`run-<runId>`): one execution of a runner against an environment.
 *
 * 1. `startRun` marks the run `running` and returns its frozen plan.
 * 2. Each test case runs through the interpreter; each API node is an activity, assertions are
 *    evaluated here; each test case's result is stored as soon as it ends.
 * 3. The run ends `completed` (result `passed` when no test case failed) or `failed` with an error.
 *
 * The run's timeout is timed here, in a cancellable scope, not with Temporal's workflow timeouts:
 * those kill a workflow without running its code, and the row would stay `running` (issue 2). The
 * final status is written from a non-cancellable scope, so a timeout or a cancel still records it.
 * History stays bounded: after `testCasesPerExecution` test cases, or when Temporal suggests it,
 * the workflow continues as new carrying its counts.
 */
import {
  ActivityCancellationType,
  ApplicationFailure,
  CancellationScope,
  continueAsNew,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  uuid4,
  workflowInfo,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { Activities, FinishRunInput } from '../activities';
import type { HttpExchange, ResolvedRequest, RunPlan, RunResultValue, RunSummary, TestCaseResult } from '../src/domain/types';
import { runStateQuery, type RunWorkflowInput } from './definitions';
import { runTestCase, type InterpreterEnv } from './interpreter';
import { RunBook } from './run-state';

/** Bookkeeping writes: short, retried through brief database hiccups. */
const store = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '20 seconds', maximumAttempts: 8 },
});

/** The final write: retried until it lands (a database outage delays it, never loses it). */
const finalStore = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

const http = proxyActivities<Activities>({ startToCloseTimeout: '1 minute' });
const localHttp = proxyLocalActivities<Activities>({ startToCloseTimeout: '1 minute' });

/** How often the workflow continues as new at most, in test cases (Temporal may suggest it sooner). */
const TEST_CASES_PER_EXECUTION = 200;

/** What the workflow returns when the run completed. */
export interface RunOutcome {
  runId: string;
  status: 'completed';
  result: RunResultValue;
  summary: RunSummary;
}

function sendHttp(plan: RunPlan, request: ResolvedRequest, summary: string): Promise<HttpExchange> {
  // The activity never throws for network errors; a retry only covers a worker that died mid-request.
  const options: ActivityOptions = {
    startToCloseTimeout: request.timeoutMs + 10_000,
    retry: { maximumAttempts: 3, initialInterval: '200 milliseconds' },
    cancellationType: ActivityCancellationType.TRY_CANCEL,
    summary,
  };
  return plan.settings.apiNodeActivity === 'local'
    ? localHttp.sendHttpRequest.executeWithOptions(options, [request])
    : http.sendHttpRequest.executeWithOptions(options, [request]);
}

function messageOf(err: unknown): string {
  let e = err as { message?: string; cause?: unknown } | undefined;
  // Activity and application failures wrap the interesting message in `cause`.
  while (e && typeof e === 'object' && e.cause && typeof e.cause === 'object') e = e.cause as typeof e;
  return e?.message ?? String(err);
}

export async function runWorkflow(input: RunWorkflowInput): Promise<RunOutcome> {
  const { runId } = input;
  const book = new RunBook(input.resume);
  setHandler(runStateQuery, () => book.live(Date.now()));

  if (!input.resume) {
    try {
      book.begin(await store.startRun({ runId }));
    } catch (err) {
      const cancelled = isCancellation(err);
      const error = cancelled ? 'Run cancelled before it started' : `Run could not start: ${messageOf(err)}`;
      await CancellationScope.nonCancellable(() =>
        finalStore.finishRun({ runId, status: 'failed', error, summary: book.summary, unfinished: [] }),
      );
      if (cancelled) throw err;
      throw ApplicationFailure.nonRetryable(error, 'RunSetupFailed');
    }
  }
  const plan = book.plan!;
  setCurrentDetails(book.details());

  const env: InterpreterEnv = {
    variables: plan.variables,
    settings: plan.settings,
    dynamic: { uuid: uuid4, now: () => Date.now(), random: () => Math.random() },
    sendHttp: (request, summary) => sendHttp(plan, request, summary),
    onNodeDone: () => book.nodeDone(),
  };

  const timeLeftMs = book.deadlineMs - Date.now();
  const scope = new CancellationScope({ cancellable: true, timeout: Math.max(1, timeLeftMs) });
  let ranHere = 0;
  // A result between being computed and being stored: kept so that a timeout in between loses nothing.
  let pending: { position: number; result: TestCaseResult } | undefined;
  let outcome: 'done' | 'continue';
  try {
    outcome = await scope.run(async () => {
      while (book.nextIndex < plan.testCases.length) {
        const position = book.nextIndex;
        const testCase = plan.testCases[position]!;
        const result = await runTestCase(testCase, env);
        pending = { position, result };
        await store.recordTestCaseResult({
          runId,
          position,
          result,
          progress: { completed: position + 1, total: plan.testCases.length },
          estimatedCompletionMs: book.estimatedCompletionMs(Date.now()),
        });
        pending = undefined;
        book.testCaseDone(result);
        setCurrentDetails(book.details());
        ranHere += 1;
        const more = book.nextIndex < plan.testCases.length;
        if (more && (ranHere >= TEST_CASES_PER_EXECUTION || workflowInfo().continueAsNewSuggested)) return 'continue';
      }
      return 'done';
    });
  } catch (err) {
    const userCancelled = CancellationScope.current().consideredCancelled;
    const timedOut = isCancellation(err) && !userCancelled;
    const error = timedOut
      ? `Run timed out after ${plan.timeoutSeconds} s`
      : userCancelled
        ? 'Run cancelled'
        : `Run failed: ${messageOf(err)}`;
    book.status = 'failed';
    await CancellationScope.nonCancellable(() => finalStore.finishRun(failedRun(runId, book, error, pending)));
    setCurrentDetails(`${book.details()}\n\n${error}`);
    if (userCancelled) throw err;
    throw ApplicationFailure.nonRetryable(error, timedOut ? 'RunTimedOut' : 'RunFailed');
  }

  if (outcome === 'continue') {
    return continueAsNew<typeof runWorkflow>({ runId, resume: book.resumeState() });
  }
  const result: RunResultValue = book.summary.failed > 0 ? 'failed' : 'passed';
  book.status = 'completed';
  await finalStore.finishRun({ runId, status: 'completed', result, summary: book.summary, unfinished: [] });
  setCurrentDetails(book.details());
  return { runId, status: 'completed', result, summary: book.summary };
}

/**
 * The final write of a run that did not complete: a result computed but not stored is kept, the test
 * case under way is failed as interrupted, the rest are skipped.
 */
function failedRun(
  runId: string,
  book: RunBook,
  error: string,
  pending: { position: number; result: TestCaseResult } | undefined,
): FinishRunInput {
  const plan = book.plan!;
  const summary = { ...book.summary };
  const unfinished: FinishRunInput['unfinished'] = [];
  plan.testCases.forEach((tc, position) => {
    if (position < book.nextIndex) return;
    let result: TestCaseResult;
    if (pending && pending.position === position) result = pending.result;
    else {
      const interrupted = position === book.nextIndex && !pending;
      result = {
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
    }
    if (result.status === 'passed') summary.passed += 1;
    else if (result.status === 'skipped') summary.skipped += 1;
    else summary.failed += 1;
    unfinished.push({ position, result });
  });
  return { runId, status: 'failed', error, summary, unfinished };
}
