/**
 * The recovery sweep: no accepted run stays `queued` without a workflow.
 *
 * An API process stores a run's row, then starts its workflow (api/run-starter.ts). A process
 * killed between the two leaves a `queued` row with no `workflowStartedAt`. Every
 * `ASSAY_RECOVERY_INTERVAL_MS` (default 5 s) each API process looks for such rows older than
 * {@link GRACE_MS} (longer than a start call may take, so a start in flight is not raced) and
 * starts their workflows. Starting is idempotent (`run-<runId>`, REJECT_DUPLICATE: a workflow
 * already there counts as started), so several API processes may sweep at once.
 *
 * - A workflow that already exists and is running: the row is marked started.
 * - A workflow that exists but closed while the row is still `queued` (terminated before its first
 *   step): the row is ended `failed` with the workflow's status.
 * - A run whose timeout has passed before it could be started: ended `failed`.
 * - Temporal unreachable: nothing changes; the next sweep tries again.
 *
 * The same sweep reconciles runs whose workflow closed without ending the row:
 * a workflow terminated by an operator or by Temporal (history or payload limits), timed out, or
 * failed before its last step wrote the row. Rows `queued`/`running` whose workflow was started
 * more than {@link STALE_MS} ago are described, at most {@link DESCRIBES_PER_SWEEP} per sweep,
 * oldest first, each row at most once per {@link STALE_MS} per process (so long, healthy runs do
 * not crowd the others out); a closed (or vanished) workflow ends the row `failed` with the reason,
 * e.g. "The run's workflow was terminated". See {@link closedWorkflowReason}.
 */
import { In, IsNull, LessThan, Not, type DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { Run } from '../store/entities';
import type { RunWorkflowClient } from './run-workflows';
import { RUN_ERROR_PREFIX } from '../domain/failures';

/** Rows younger than this are left to the call that is starting them (its start deadline is 5 s). */
export const GRACE_MS = 10_000;
/** Rows handled per sweep; the next sweep takes the rest. */
const BATCH = 100;
/** Runs whose workflow started longer ago than this are checked for a closed workflow. */
export const STALE_MS = 60_000;
/** Workflows described per sweep by the reconciler (each is one call to Temporal). */
export const DESCRIBES_PER_SWEEP = 20;
/** Candidate rows read per sweep by the reconciler, before skipping those checked recently. */
const CANDIDATES = 500;

export interface SweepOutcome {
  started: string[];
  failed: string[];
  /** Runs ended `failed` because their workflow had closed (or vanished) without ending them. */
  reconciled: string[];
}

/**
 * The error a run gets when its workflow closed while the row was still open, from the workflow's
 * status (Temporal's WorkflowExecutionStatus names): TERMINATED → "The run's workflow was
 * terminated", TIMED_OUT → "… timed out", FAILED → "… failed", CANCELED → "Run cancelled",
 * COMPLETED and others → "… ended (<status>) without recording the run's end"; `not-found` (deleted,
 * or past the namespace's retention) → "… no longer exists".
 */
export function closedWorkflowReason(status: string | 'not-found'): string {
  switch (status) {
    case 'TERMINATED':
      return "The run's workflow was terminated (by an operator, or by Temporal for exceeding a limit) before it recorded the run's end.";
    case 'TIMED_OUT':
      return "The run's workflow timed out before it recorded the run's end.";
    case 'FAILED':
      return "The run's workflow failed before it recorded the run's end.";
    case 'CANCELED':
    case 'CANCELLED':
      return RUN_ERROR_PREFIX.cancelled;
    case 'not-found':
      return "The run's workflow no longer exists (deleted, or past Temporal's retention); the run cannot finish.";
    default:
      return `The run's workflow ended (${status.toLowerCase()}) without recording the run's end.`;
  }
}

/**
 * Ends an open (`queued`/`running`) row `failed` with `error`; a no-op when it already ended.
 * `duration` counts from the run's start (0 when it never started).
 * @returns whether this call ended it.
 */
export async function failOpenRun(
  dataSource: DataSource,
  run: Pick<Run, 'id' | 'startedAt'>,
  error: string,
): Promise<boolean> {
  const completedAt = new Date();
  const done = await dataSource.getRepository(Run).update(
    { id: run.id, status: In(['queued', 'running']) },
    {
      status: 'failed',
      result: null,
      error,
      completedAt,
      duration: run.startedAt ? completedAt.getTime() - run.startedAt.getTime() : 0,
    },
  );
  return Boolean(done.affected);
}

/**
 * Starts the workflow of a stored `queued` run (idempotent: {@link RunWorkflowClient.startWorkflow})
 * and records `workflowStartedAt`, so the sweep leaves it alone. Used by every API path that starts
 * a run (api/run-starter.ts) and by the sweep.
 * @returns what {@link RunWorkflowClient.startWorkflow} says: `started`, or `existed` when the
 *   workflow was there.
 * @throws TemporalUnavailableError
 */
export async function startWorkflowOf(
  dataSource: DataSource,
  workflows: RunWorkflowClient,
  run: Run,
): Promise<'started' | 'existed'> {
  const outcome = await workflows.startWorkflow(run);
  run.workflowStartedAt = new Date();
  await dataSource
    .getRepository(Run)
    .update({ id: run.id, workflowStartedAt: IsNull() }, { workflowStartedAt: run.workflowStartedAt });
  return outcome;
}

export class RunRecovery {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  /** Run id → epoch ms the reconciler last described its workflow (this process only). */
  private readonly checked = new Map<string, number>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly workflows: RunWorkflowClient,
    private readonly logger: Logger,
  ) {}

  /** Sweeps now and then every `intervalMs`. */
  start(intervalMs: number): void {
    const tick = () => {
      this.running ??= this.sweep()
        .catch((err) => this.logger.warn({ err }, 'run recovery sweep failed; retrying at the next interval'))
        .finally(() => (this.running = undefined));
    };
    tick();
    this.timer = setInterval(tick, intervalMs);
    this.timer.unref();
  }

  /** Stops sweeping and waits for a sweep in progress. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /**
   * One pass over `queued` rows without a started workflow, older than `graceMs`.
   * @returns the ids started and failed by this pass.
   */
  async sweep(graceMs = GRACE_MS, staleMs = STALE_MS): Promise<SweepOutcome> {
    const outcome = await this.startStranded(graceMs);
    outcome.reconciled = await this.reconcileClosed(staleMs);
    return outcome;
  }

  /**
   * Ends `failed` the open rows whose workflow has closed (see the module comment).
   * @param staleMs only runs whose workflow started longer ago than this, each once per this long.
   * @returns the ids ended.
   */
  async reconcileClosed(staleMs = STALE_MS): Promise<string[]> {
    const repo = this.dataSource.getRepository(Run);
    const now = Date.now();
    const before = new Date(now - staleMs);
    for (const [id, at] of this.checked) if (at <= now - staleMs) this.checked.delete(id);
    const candidates = await repo.find({
      where: { status: In(['queued', 'running']), workflowStartedAt: Not(IsNull()), createdAt: LessThan(before) },
      order: { createdAt: 'ASC' },
      take: CANDIDATES,
    });
    const ended: string[] = [];
    const due = candidates
      .filter((run) => (run.workflowStartedAt ?? run.createdAt) <= before && !this.checked.has(run.id))
      .slice(0, DESCRIBES_PER_SWEEP);
    for (const run of due) {
      this.checked.set(run.id, now);
      const presence = await this.workflows.describe(run);
      if (presence.state === 'running') continue;
      const reason = closedWorkflowReason(presence.state === 'closed' ? presence.status : 'not-found');
      if (await failOpenRun(this.dataSource, run, reason)) {
        ended.push(run.id);
        this.logger.warn(
          { runId: run.id, workflowStatus: presence.state === 'closed' ? presence.status : 'not-found' },
          'ended a run whose workflow had closed without ending it',
        );
      }
    }
    return ended;
  }

  /** Starts the workflows of `queued` rows that have none (the first part of the module comment). */
  private async startStranded(graceMs: number): Promise<SweepOutcome> {
    const repo = this.dataSource.getRepository(Run);
    const rows = await repo.find({
      where: { status: 'queued', workflowStartedAt: IsNull(), createdAt: LessThan(new Date(Date.now() - graceMs)) },
      order: { createdAt: 'ASC' },
      take: BATCH,
    });
    const outcome: SweepOutcome = { started: [], failed: [], reconciled: [] };
    for (const run of rows) {
      const fail = async (error: string) => {
        if (await failOpenRun(this.dataSource, run, error)) outcome.failed.push(run.id);
      };
      if (run.createdAt.getTime() + run.timeoutSeconds * 1000 < Date.now()) {
        const presence = await this.workflows.describe(run);
        if (presence.state === 'not-found') {
          await fail(
            `The run could not be started within its timeout of ${run.timeoutSeconds} s: the workflow service was unavailable.`,
          );
          continue;
        }
      }
      // Only a workflow that was already there can have closed before its first step marked the row.
      if ((await startWorkflowOf(this.dataSource, this.workflows, run)) === 'existed') {
        const presence = await this.workflows.describe(run);
        if (presence.state === 'closed') {
          await fail(`The run's workflow ended (${presence.status.toLowerCase()}) before the run started.`);
          continue;
        }
      }
      outcome.started.push(run.id);
      this.logger.info({ runId: run.id }, 'recovered a run whose workflow had not been started');
    }
    return outcome;
  }
}
