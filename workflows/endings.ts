/**
 * How a workflow's work ends besides success, in one place for the run workflow, its loop segments
 * and its webhook deliveries: a timeout told apart from a user's cancellation, the failure that
 * carries a timeout from a child workflow to its parent, and the message at the root of a failure.
 */
import { ApplicationFailure, CancellationScope, isCancellation } from '@temporalio/workflow';
import { DeadlineReached } from '../src/flow';
import { FAILURE_TYPES } from '../src/domain/failures';

/**
 * Whether `err` ended the work because the run's time was up: the interpreter's
 * {@link DeadlineReached}, or a cancellation the user did not ask for (the timeout of the
 * cancellation scope the work runs in). A user's cancel (`POST /v1/runs/{id}/cancel`) is not one.
 */
export function endedByTimeout(err: unknown): boolean {
  return err instanceof DeadlineReached || (isCancellation(err) && !CancellationScope.current().consideredCancelled);
}

/** The non-retryable failure of a run (or loop segment) that reached its deadline: type `RunTimedOut` (src/domain/failures.ts). */
export function timedOutFailure(message: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(message, FAILURE_TYPES.runTimedOut);
}

/** Whether a child workflow's failure `err` is its {@link timedOutFailure}. */
export function childTimedOut(err: unknown): boolean {
  const cause = (err as { cause?: unknown }).cause;
  return cause instanceof ApplicationFailure && cause.type === FAILURE_TYPES.runTimedOut;
}

/** The message at the root of `err`'s `cause` chain (activity and child workflow failures wrap the interesting one). */
export function rootMessage(err: unknown, fallback = String(err)): string {
  let e = err as { message?: string; cause?: unknown } | undefined;
  while (e && typeof e === 'object' && e.cause && typeof e.cause === 'object') e = e.cause as typeof e;
  return e?.message ?? fallback;
}
