/**
 * The workflows of runs on Temporal, as the API and the recovery sweep see them: start the
 * workflow of a stored run, describe it, cancel it, query its live state, link to it in the
 * Temporal Web UI. Starting a *run* (row, idempotency, quotas) is api/run-starter.ts; it starts
 * the workflow through this client.
 *
 * The client connects on first use, so the API serves everything else while Temporal is down;
 * a call then fails with {@link TemporalUnavailableError} and the API answers 503.
 */
import {
  ApplicationFailure,
  WorkflowExecutionAlreadyStartedError,
  WorkflowIdReusePolicy,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
  type WorkflowExecutionInfo,
} from '@temporalio/client';
import { OnDemandClient } from './client';
import type { PayloadScopes } from './codec';
import type { AssayConfig } from '../config';
import type { Run } from '../store/entities';
import {
  callbackSignal,
  RUN_WORKFLOW_TYPE,
  runStateQuery,
  type RunLiveState,
  type RunWorkflowInput,
} from '../domain/run-workflow';
import type { CallbackDelivery } from '../domain/callback-inbox';
import {
  LOAD_CONTROL_REFUSED,
  loadControlUpdate,
  type LoadControlRequest,
  type LoadControlState,
} from '../domain/load-control';
import { runsStarted } from '../observability/metrics';
import {
  registerSearchAttributes,
  SA_ENVIRONMENT,
  SA_RUN_ID,
  SA_RUNNER,
  SA_TRIGGER,
  SA_WORKSPACE,
} from './search-attributes';
import { runWorkflowId } from '../ids';

/**
 * What a run's workflow tells of it while the store cannot ({@link RunWorkflowClient.liveRun}): its
 * workflow id, the workspace, runner, environment and trigger its search attributes carry (absent
 * when it carries none), and the live state its `runState` query answers (src/domain/run-workflow.ts).
 * Whoever shows it must first check `workspaceId` against the caller's.
 */
export interface LiveRun {
  workflowId: string;
  workspaceId?: string;
  runner?: string;
  environment?: string;
  trigger?: string;
  state: RunLiveState;
}

/** What a {@link RunWorkflowClient} call was doing when Temporal failed it. */
export type WorkflowOperation = 'start' | 'describe' | 'cancel' | 'signal' | 'control';

/**
 * What a live control command ({@link RunWorkflowClient.control}) came to: `applied` with the run's
 * control state after it (published to the shards before the answer), `refused` with the
 * workflow's reason (no load under way, stopping already, a value out of bounds), or `not-found`
 * when the run has no running workflow.
 */
export type LoadControlOutcome =
  { state: 'applied'; control: LoadControlState } | { state: 'refused'; reason: string } | { state: 'not-found' };

/**
 * Temporal could not be reached or refused the call. `operation` and `runId` say what failed
 * (the API's answer names them: api/errors.ts); `message` adds the cause, for logs.
 */
export class TemporalUnavailableError extends Error {
  readonly operation: WorkflowOperation;
  readonly runId: string;

  constructor(message: string, options: { operation: WorkflowOperation; runId: string; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.name = 'TemporalUnavailableError';
    this.operation = options.operation;
    this.runId = options.runId;
  }
}

/** What Temporal knows of a run's workflow: running, closed (with its status), or not found. */
export type WorkflowPresence = { state: 'running' } | { state: 'closed'; status: string } | { state: 'not-found' };

/** The workflows of runs (module comment); {@link createRunWorkflowClient} makes one. */
export interface RunWorkflowClient {
  /**
   * Starts workflow `run-<runId>` for a stored `queued` run. Idempotent: a workflow that already
   * exists under that id (started by an earlier call, a crashed API, another API process's
   * recovery sweep) counts as started.
   * @returns `started` when this call started it, `existed` when a workflow with its id was already
   *   there (running or closed).
   * @throws TemporalUnavailableError
   */
  startWorkflow(run: Run): Promise<'started' | 'existed'>;
  /** Whether the run's workflow exists and is running. @throws TemporalUnavailableError */
  describe(run: Run): Promise<WorkflowPresence>;
  /**
   * Requests cancellation of the run's workflow, then tells what Temporal knows of it: `not-found`
   * when there is no such workflow (nothing was requested), else what describing it says
   * (`running` while the cancellation is being handled, `closed` when it had already closed).
   * @throws TemporalUnavailableError (operation `cancel`, also when describing fails)
   */
  cancel(run: Run): Promise<WorkflowPresence>;
  /**
   * Sends a live control command (pause, resume, scale, stop; src/domain/load-control.ts) to the
   * run's workflow as its `loadControl` update and waits for it to be applied and published (the
   * shards read it within `CONTROL_POLL_MS`), up to {@link CONTROL_DEADLINE_MS}.
   * @throws TemporalUnavailableError (operation `control`) when Temporal or the run's worker does not answer
   */
  control(run: Run, request: LoadControlRequest): Promise<LoadControlOutcome>;
  /** The workflow's live state, or null when no worker answered within `deadlineMs`. */
  liveState(run: Run, deadlineMs: number): Promise<RunLiveState | null>;
  /**
   * Run `runId` as its running workflow knows it, without the store (`GET /v1/runs/{id}`
   * while the database does not answer). The workflow is `run-<runId>` (API and webhook runs) or
   * else the running one whose `AssayRunId` is `runId` (a scheduled run's workflow id is chosen by
   * its schedule; found through visibility); a workflow whose `AssayRunId` names another run does
   * not count. The caller checks the workspace ({@link LiveRun.workspaceId}). The query waits for
   * the workflow's worker: while the workflow waits on a local activity (a store write the database
   * does not answer), up to one workflow task heartbeat (80 % of `ASSAY_WORKFLOW_TASK_TIMEOUT_MS`).
   * Everything (connecting included) is given up after `deadlineMs`.
   * @returns null when no workflow of that run is running, when `runId` is not a run id, or when
   *   Temporal or a worker did not answer within `deadlineMs`. Never throws.
   */
  liveRun(runId: string, deadlineMs: number): Promise<LiveRun | null>;
  /**
   * Signals a callback (docs/async.md "Callbacks") to the running workflow `workflowId`; never
   * starts one. @returns `closed` when that workflow is not running (ended, or never existed).
   * @throws TemporalUnavailableError
   */
  signalCallback(run: Pick<Run, 'id'>, workflowId: string, delivery: CallbackDelivery): Promise<'signalled' | 'closed'>;
  /** Link to the run's workflow in the Temporal Web UI. */
  uiLink(run: Pick<Run, 'workflowId'>): string;
  /** Resolves when Temporal answers within `ms` (readiness, docs/operations.md). @throws when it does not */
  ping(ms: number): Promise<void>;
  close(): Promise<void>;
}

/** How long starting a workflow may take before the API gives up and answers 503. */
const START_DEADLINE_MS = 5000;

/**
 * How long a control command may take (update accepted, published to the store, answered) before
 * the API answers 503, ms. A worker killed while holding the workflow delays it by the workflow
 * task timeout; the command is then still applied once the workflow moves on.
 */
export const CONTROL_DEADLINE_MS = 15_000;

/** A run id (`run_` and a ULID): the only text {@link RunWorkflowClient.liveRun} puts into a visibility query. */
const RUN_ID = /^run_[0-9A-Za-z]{26}$/;

/** `promise`, or a rejection after `ms` (the promise itself is left to settle unobserved). */
function beforeDeadline<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    timer.unref();
  });
  promise.catch(() => undefined);
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * The running workflow of run `runId`: `run-<runId>`, else (no such workflow: a scheduled run) a
 * running one whose AssayRunId is `runId`; undefined when `run-<runId>` has closed or none is found.
 */
async function runningWorkflowOf(
  client: Client,
  runId: string,
): Promise<Pick<WorkflowExecutionInfo, 'workflowId' | 'typedSearchAttributes'> | undefined> {
  try {
    const described = await client.workflow.getHandle(runWorkflowId(runId)).describe();
    return described.status.name === 'RUNNING' ? described : undefined;
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
  }
  for await (const info of client.workflow.list({
    query: `${SA_RUN_ID.name} = "${runId}" AND ExecutionStatus = "Running"`,
    pageSize: 1,
  })) {
    return info;
  }
  return undefined;
}

/** A client of the run workflows of `config.temporal` (its namespace, task queue and Web UI). */
export function createRunWorkflowClient(config: AssayConfig, scopes?: PayloadScopes): RunWorkflowClient {
  const temporal = new OnDemandClient(config, scopes);
  let registered: Promise<unknown> | undefined;

  /** Search attributes must exist before a start that sets them; register once per process. */
  function ensureSearchAttributes(): Promise<unknown> {
    registered ??= temporal
      .connection()
      .then((connection) =>
        temporal.call(START_DEADLINE_MS, () => registerSearchAttributes(connection, config.temporal.namespace)),
      )
      .catch((err) => {
        registered = undefined;
        throw err;
      });
    return registered;
  }

  /** What Temporal knows of the run's workflow; failures are `operation`'s. */
  async function presence(run: Run, operation: WorkflowOperation): Promise<WorkflowPresence> {
    try {
      const d = await temporal.call(START_DEADLINE_MS, (client) =>
        client.workflow.getHandle(run.workflowId).describe(),
      );
      return d.status.name === 'RUNNING' ? { state: 'running' } : { state: 'closed', status: d.status.name };
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return { state: 'not-found' };
      throw new TemporalUnavailableError(`Could not describe workflow ${run.workflowId}: ${(err as Error).message}`, {
        operation,
        runId: run.id,
        cause: err,
      });
    }
  }

  return {
    async startWorkflow(run) {
      const input: RunWorkflowInput = {
        runId: run.id,
        trigger: run.trigger,
        ...(run.deploymentId ? { deploymentId: run.deploymentId } : {}),
      };
      try {
        // The client retries an unreachable server for a long time; a caller waiting for a 503 should not.
        await ensureSearchAttributes();
        await temporal.call(START_DEADLINE_MS, (client) =>
          client.workflow.start(RUN_WORKFLOW_TYPE, {
            taskQueue: config.temporal.taskQueue,
            workflowId: run.workflowId,
            args: [input],
            workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
            workflowTaskTimeout: config.temporal.workflowTaskTimeoutMs,
            typedSearchAttributes: [
              { key: SA_RUN_ID, value: run.id },
              { key: SA_WORKSPACE, value: run.workspaceId },
              { key: SA_RUNNER, value: run.runnerName },
              { key: SA_ENVIRONMENT, value: run.environmentName },
              { key: SA_TRIGGER, value: run.trigger },
            ],
            staticSummary: `Run ${run.id}: runner "${run.runnerName}" on environment "${run.environmentName}"`.slice(
              0,
              200,
            ),
          }),
        );
        runsStarted.inc({ trigger: run.trigger });
        return 'started';
      } catch (err) {
        if (err instanceof WorkflowExecutionAlreadyStartedError) return 'existed';
        throw new TemporalUnavailableError(`Could not start workflow ${run.workflowId}: ${(err as Error).message}`, {
          operation: 'start',
          runId: run.id,
          cause: err,
        });
      }
    },

    describe(run) {
      return presence(run, 'describe');
    },

    async cancel(run) {
      try {
        await temporal.call(START_DEADLINE_MS, (client) => client.workflow.getHandle(run.workflowId).cancel());
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return { state: 'not-found' };
        throw new TemporalUnavailableError(`Could not cancel workflow ${run.workflowId}: ${(err as Error).message}`, {
          operation: 'cancel',
          runId: run.id,
          cause: err,
        });
      }
      return presence(run, 'cancel');
    },

    async control(run, request) {
      try {
        const control = await temporal.call(CONTROL_DEADLINE_MS, (client) =>
          client.workflow.getHandle(run.workflowId).executeUpdate(loadControlUpdate, { args: [request] }),
        );
        return { state: 'applied', control };
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return { state: 'not-found' };
        const cause = err instanceof WorkflowUpdateFailedError ? err.cause : undefined;
        if (cause instanceof ApplicationFailure && cause.type === LOAD_CONTROL_REFUSED)
          return { state: 'refused', reason: cause.message };
        throw new TemporalUnavailableError(`Could not control workflow ${run.workflowId}: ${(err as Error).message}`, {
          operation: 'control',
          runId: run.id,
          cause: err,
        });
      }
    },

    async liveState(run, deadlineMs) {
      try {
        return await temporal.call(deadlineMs, (client) =>
          client.workflow.getHandle(run.workflowId).query(runStateQuery),
        );
      } catch {
        // No worker answered in time, or Temporal is down: the caller falls back to the stored row.
        return null;
      }
    },

    async liveRun(runId, deadlineMs) {
      if (!RUN_ID.test(runId)) return null;
      const started = Date.now();
      try {
        return await beforeDeadline(
          deadlineMs,
          temporal.get().then((client) =>
            client.withDeadline(started + deadlineMs, async (): Promise<LiveRun | null> => {
              const info = await runningWorkflowOf(client, runId);
              if (!info) return null;
              const attributes = info.typedSearchAttributes;
              // A workflow that says it is another run's is not this run's.
              const carried = attributes.get(SA_RUN_ID);
              if (carried !== undefined && carried !== runId) return null;
              const state = await client.workflow.getHandle(info.workflowId).query(runStateQuery);
              return {
                workflowId: info.workflowId,
                workspaceId: attributes.get(SA_WORKSPACE),
                runner: attributes.get(SA_RUNNER),
                environment: attributes.get(SA_ENVIRONMENT),
                trigger: attributes.get(SA_TRIGGER),
                state,
              };
            }),
          ),
        );
      } catch {
        // Temporal or the workflow's worker did not answer in time, or refused: nothing to tell.
        return null;
      }
    },

    async signalCallback(run, workflowId, delivery) {
      try {
        await temporal.call(START_DEADLINE_MS, (client) =>
          client.workflow.getHandle(workflowId).signal(callbackSignal, delivery),
        );
        return 'signalled';
      } catch (err) {
        // Temporal answers NotFound for a workflow that has closed as for one that never existed.
        if (err instanceof WorkflowNotFoundError) return 'closed';
        throw new TemporalUnavailableError(`Could not signal workflow ${workflowId}: ${(err as Error).message}`, {
          operation: 'signal',
          runId: run.id,
          cause: err,
        });
      }
    },

    uiLink(run) {
      return `${config.temporal.uiUrl}/namespaces/${encodeURIComponent(config.temporal.namespace)}/workflows/${encodeURIComponent(run.workflowId)}`;
    },

    ping(ms) {
      return temporal.ping(ms);
    },

    async close() {
      await temporal.close();
    },
  };
}
