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
 */
import { IsNull, LessThan, type DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { Run } from '../store/entities';
import type { RunLauncher } from './run-launcher';

/** Rows younger than this are left to the call that is starting them (its start deadline is 5 s). */
export const GRACE_MS = 10_000;
/** Rows handled per sweep; the next sweep takes the rest. */
const BATCH = 100;

export interface SweepOutcome {
  started: string[];
  failed: string[];
}

export class RunRecovery {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly launcher: RunLauncher,
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
  async sweep(graceMs = GRACE_MS): Promise<SweepOutcome> {
    const repo = this.dataSource.getRepository(Run);
    const rows = await repo.find({
      where: { status: 'queued', workflowStartedAt: IsNull(), createdAt: LessThan(new Date(Date.now() - graceMs)) },
      order: { createdAt: 'ASC' },
      take: BATCH,
    });
    const outcome: SweepOutcome = { started: [], failed: [] };
    for (const run of rows) {
      const fail = async (error: string) => {
        const done = await repo.update({ id: run.id, status: 'queued' }, { status: 'failed', error, completedAt: new Date(), duration: 0 });
        if (done.affected) outcome.failed.push(run.id);
      };
      if (run.createdAt.getTime() + run.timeoutSeconds * 1000 < Date.now()) {
        const presence = await this.launcher.describe(run);
        if (presence.state === 'not-found') {
          await fail(`The run could not be started within its timeout of ${run.timeoutSeconds} s: the workflow service was unavailable.`);
          continue;
        }
      }
      await this.launcher.start(run);
      const presence = await this.launcher.describe(run);
      if (presence.state === 'closed') {
        // Terminated (or otherwise closed) before its first step could mark the row.
        const fresh = await repo.findOneBy({ id: run.id });
        if (fresh?.status === 'queued') await fail(`The run's workflow ended (${presence.status.toLowerCase()}) before the run started.`);
        continue;
      }
      await repo.update({ id: run.id, workflowStartedAt: IsNull() }, { workflowStartedAt: new Date() });
      outcome.started.push(run.id);
      this.logger.info({ runId: run.id }, 'recovered a run whose workflow had not been started');
    }
    return outcome;
  }
}
