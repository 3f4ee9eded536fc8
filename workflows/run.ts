/**
 * The run workflow (`run-<runId>`): one execution of a runner against an environment.
 *
 * 1. `startRun` marks the run `running` and returns its frozen plan.
 * 2. Each test case runs through the interpreter; each API node is an activity, assertions are
 *    evaluated here; each test case's result is stored as soon as it ends.
 * 3. The run ends `completed` (result `passed` when no test case failed) or `failed` with an error.
 *
 * Speed (docs/benchmarks.md): on the Temporal dev server a normal activity costs about 100 ms and
 * a local activity about 1 ms, so by default (`apiNodeActivity: 'local'`) API nodes and result
 * writes are local activities. A local activity keeps the workflow task open, and nothing from the
 * outside (a cancel, a timer, a query) reaches the workflow until that task ends; so at most every
 * {@link CHECKPOINT_MS} the workflow stores its progress with a normal activity, which ends the task.
 *
 * Timeout: timed here, not with Temporal's workflow timeouts (those kill a workflow without running
 * its code, and the row would stay `running`). A cancellable scope with the run's timeout covers
 * normal activities; between local activities the workflow checks the deadline itself against the
 * clock readings the activities return (recorded in history, so replay sees the same), and cuts
 * each request's timeout to the time left. The final status is written from a non-cancellable scope.
 *
 * History stays bounded: after `settings.testCasesPerExecution` test cases, or when Temporal
 * suggests it, the workflow continues as new carrying its counts.
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
import type { Activities, FinishRunInput, RecordTestCaseInput } from '../activities';
import type { HttpExchange, ResolvedRequest, RunPlan, RunResultValue, RunSummary, TestCaseResult } from '../src/domain/types';
import { runStateQuery, type RunWorkflowInput } from './definitions';
import { runTestCase, type InterpreterEnv } from './interpreter';
import { RunBook } from './run-state';

const STORE_RETRY = { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '20 seconds', maximumAttempts: 8 };

/** Bookkeeping writes: short, retried through brief database hiccups. */
const store = proxyActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: STORE_RETRY });
const localStore = proxyLocalActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: STORE_RETRY });

/** The final write: retried until it lands (a database outage delays it, never loses it). */
const finalStore = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

const http = proxyActivities<Activities>({ startToCloseTimeout: '1 minute' });
const localHttp = proxyLocalActivities<Activities>({ startToCloseTimeout: '1 minute' });

/** Longest stretch of local activities before a normal activity ends the workflow task. */
const CHECKPOINT_MS = 1000;

/** What the workflow returns when the run completed. */
export interface RunOutcome {
  runId: string;
  status: 'completed';
  result: RunResultValue;
  summary: RunSummary;
}

/** Thrown between nodes once the run's deadline has passed. */
class DeadlineReached extends Error {
  constructor() {
    super('deadline reached');
    this.name = 'DeadlineReached';
  }
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
  setHandler(runStateQuery, () => book.live(clock.now()));

  /** Workflow time, moved forward by the clock readings local activities return. */
  const clock = {
    observed: 0,
    now: () => Math.max(Date.now(), clock.observed),
  };

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
  const local = plan.settings.apiNodeActivity === 'local';
  const deadline = book.deadlineMs;
  setCurrentDetails(book.details());

  const progressInput = () => ({
    runId,
    progress: book.progress,
    estimatedCompletionMs: book.estimatedCompletionMs(clock.now()),
  });
  let lastBoundary = Date.now();

  const env: InterpreterEnv = {
    variables: plan.variables,
    settings: plan.settings,
    dynamic: { uuid: uuid4, now: () => clock.now(), random: () => Math.random() },
    sendHttp: async (request, summary) => {
      const timeLeft = deadline - clock.now();
      const bounded: ResolvedRequest = { ...request, timeoutMs: Math.max(1, Math.min(request.timeoutMs, timeLeft)) };
      const exchange = await sendHttp(plan, bounded, summary);
      clock.observed = Math.max(clock.observed, exchange.finishedAtMs);
      // Cut short by the run's deadline, not by its own timeout: the test case is interrupted.
      if (exchange.errorCode === 'TIMEOUT' && bounded.timeoutMs < request.timeoutMs) throw new DeadlineReached();
      return exchange;
    },
    beforeNode: () => {
      if (clock.now() >= deadline) throw new DeadlineReached();
    },
    afterNode: async () => {
      book.nodeDone();
      if (local && clock.now() - lastBoundary >= CHECKPOINT_MS) {
        await store.saveProgress(progressInput());
        lastBoundary = Date.now();
      }
    },
  };

  const record = (recordInput: RecordTestCaseInput) =>
    local ? localStore.recordTestCaseResult(recordInput) : store.recordTestCaseResult(recordInput);

  const scope = new CancellationScope({ cancellable: true, timeout: Math.max(1, deadline - Date.now()) });
  let ranHere = 0;
  // A result between being computed and being stored: kept so that a timeout in between loses nothing.
  let pending: { position: number; result: TestCaseResult } | undefined;
  let outcome: 'done' | 'continue';
  try {
    outcome = await scope.run(async () => {
      while (book.nextIndex < plan.testCases.length) {
        const position = book.nextIndex;
        const result = await runTestCase(plan.testCases[position]!, env);
        pending = { position, result };
        book.testCaseDone(result);
        await record({ ...progressInput(), position, result });
        pending = undefined;
        setCurrentDetails(book.details());
        ranHere += 1;
        const more = book.nextIndex < plan.testCases.length;
        if (more && (ranHere >= plan.settings.testCasesPerExecution || workflowInfo().continueAsNewSuggested)) return 'continue';
      }
      return 'done';
    });
  } catch (err) {
    const userCancelled = CancellationScope.current().consideredCancelled;
    const timedOut = err instanceof DeadlineReached || (isCancellation(err) && !userCancelled);
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
  if (pending) unfinished.push(pending);
  plan.testCases.forEach((tc, position) => {
    if (position < book.nextIndex) return;
    const interrupted = position === book.nextIndex;
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
