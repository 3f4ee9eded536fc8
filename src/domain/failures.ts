/**
 * The workflow–activity contract's failure types: the `type` of every
 * ApplicationFailure Assay throws, in one place, so the side that throws and the side that checks
 * (a workflow's catch, a retry policy's `nonRetryableErrorTypes`) use the same constant. The
 * values are part of recorded workflow histories: never rename one.
 */
export const FAILURE_TYPES = {
  /** The run could not start: its row, runner, environment or deployment is gone, or it already ended. */
  runSetupFailed: 'RunSetupFailed',
  /** The run (or a loop segment) reached its deadline. */
  runTimedOut: 'RunTimedOut',
  /** The run failed for another reason (the message says which). */
  runFailed: 'RunFailed',
  /** A performance run stopped by a threshold with `abortOnFail` (docs/performance.md). */
  thresholdAborted: 'ThresholdAborted',
  /** The database refused a store write for good (not an outage). */
  storeRefused: 'StoreRefused',
  /** An outgoing webhook's deployment was deleted. */
  deploymentGone: 'DeploymentGone',
  /** An outgoing webhook's entry was removed from its deployment. */
  webhookGone: 'WebhookGone',
  /** An outgoing webhook's run (and its deliveries) were deleted. */
  runDeleted: 'RunDeleted',
  /** One delivery attempt did not land (retried). */
  deliveryFailed: 'DeliveryFailed',
} as const;

/**
 * How the error text of a run that ended `failed` begins when it timed out or was cancelled
 * (workflows/run.ts writes them; the recovery sweep uses the cancelled one; metrics read them back:
 * src/observability/metrics.ts `runResultOf`). Part of stored runs and API answers: never reword.
 */
export const RUN_ERROR_PREFIX = {
  timedOut: 'Run timed out',
  cancelled: 'Run cancelled',
} as const;

export type FailureType = (typeof FAILURE_TYPES)[keyof typeof FAILURE_TYPES];
