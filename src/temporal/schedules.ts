/**
 * Deployments' cron schedules as Temporal Schedules.
 *
 * The store is the source of truth; each deployment with a `schedule` owns one Temporal Schedule
 * whose id is derived from this installation's task queue and the deployment id
 * (`<taskQueue>.deployment.<deploymentId>`), so installations sharing a namespace never touch each
 * other's schedules. `enabled: false` pauses it; removing the schedule or the deployment deletes it.
 *
 * Policies (docs/deployments.md):
 * - overlap SKIP: a run still going when the next is due means that next one is skipped, so a slow
 *   or stuck suite never piles up a backlog of runs testing the same thing;
 * - catch-up window 1 minute (the server's default is a year): after an outage, at most the last
 *   missed run is made up, not every one;
 * - time zone: the deployment's `timezone` (IANA), UTC unless set.
 *
 * A call to Temporal can fail halfway (the row is saved, the schedule is not). Every change records
 * `scheduleSyncedAt = null` first; {@link ScheduleSync.reconcile} brings Temporal in line with the
 * store at start-up and every `reconcileIntervalMs` after, and deletes schedules of this
 * installation that no deployment owns any more.
 */
import {
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  type Client,
  type ScheduleDescription,
  type ScheduleOptionsStartWorkflowAction,
} from '@temporalio/client';
import { OnDemandClient } from './client';
import { storePayloadScopes } from './payload-scopes';
import { IsNull, type DataSource } from 'typeorm';
import type { Logger } from 'pino';
import type { AssayConfig } from '../config';
import { Deployment } from '../store/entities';
import { RUN_WORKFLOW_TYPE, type RunWorkflowInput } from '../domain/run-workflow';
import { registerSearchAttributes, SA_ENVIRONMENT, SA_RUNNER, SA_TRIGGER, SA_WORKSPACE } from './search-attributes';

/** What a schedule looks like from the API. */
export interface ScheduleState {
  /** `none`: no schedule; `pending`: saved, not in Temporal yet; `active`; `paused`. */
  status: 'none' | 'pending' | 'active' | 'paused';
  scheduleId?: string;
  /** The next times a run is due (ISO 8601 UTC), from Temporal. */
  nextRunTimes?: string[];
  /** Why the last sync failed. */
  error?: string;
}

export interface ReconcileReport {
  synced: string[];
  deleted: string[];
  failed: Array<{ deploymentId: string; error: string }>;
}

/** Times a live schedule state asks Temporal for next run times that are not listed yet. */
export const NEXT_TIMES_ATTEMPTS = 10;
/** Milliseconds between those asks. */
export const NEXT_TIMES_RETRY_MS = 100;

/** How long a call to Temporal may take before the sync counts as failed. */
const CALL_DEADLINE_MS = 5000;

export class ScheduleSync {
  private readonly temporal: OnDemandClient;
  private registered: Promise<unknown> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly config: AssayConfig,
    private readonly dataSource: DataSource,
    private readonly logger: Logger,
  ) {
    this.temporal = new OnDemandClient(config, storePayloadScopes(config, dataSource));
  }

  /** Schedule id of a deployment. */
  scheduleId(deploymentId: string): string {
    return `${this.config.temporal.taskQueue}.deployment.${deploymentId}`;
  }

  private get prefix(): string {
    return `${this.config.temporal.taskQueue}.deployment.`;
  }

  private call<T>(fn: (client: Client) => Promise<T>): Promise<T> {
    return this.temporal.call(CALL_DEADLINE_MS, fn);
  }

  private action(d: Deployment): ScheduleOptionsStartWorkflowAction<never> {
    const input: RunWorkflowInput = { deploymentId: d.id, trigger: 'schedule' };
    return {
      type: 'startWorkflow',
      workflowType: RUN_WORKFLOW_TYPE,
      taskQueue: this.config.temporal.taskQueue,
      // The server appends the nominal time: run-scheduled-<deploymentId>-2026-11-21T12:00:00Z.
      workflowId: `run-scheduled-${d.id}`,
      args: [input] as never,
      workflowTaskTimeout: this.config.temporal.workflowTaskTimeoutMs,
      typedSearchAttributes: [
        { key: SA_WORKSPACE, value: d.workspaceId },
        { key: SA_RUNNER, value: d.runnerName },
        { key: SA_ENVIRONMENT, value: d.environmentName },
        { key: SA_TRIGGER, value: 'schedule' },
      ],
      staticSummary: `Deployment "${d.name}": runner "${d.runnerName}" on "${d.environmentName}"`.slice(0, 200),
    } as ScheduleOptionsStartWorkflowAction<never>;
  }

  /**
   * Makes the Temporal Schedule of `d` match the row (creates, updates, pauses or deletes it) and
   * records the outcome on the row. Never throws: a failure is recorded and retried by reconcile.
   */
  async sync(d: Deployment): Promise<boolean> {
    try {
      // Made inside the deadline: a call started outside it would retry for the client's default 20 s.
      this.registered ??= this.temporal
        .connection()
        .then((connection) => this.call(() => registerSearchAttributes(connection, this.config.temporal.namespace)))
        .catch((err) => {
          this.registered = undefined;
          throw err;
        });
      await this.registered;
      const scheduleId = this.scheduleId(d.id);
      if (!d.schedule) {
        await this.call((client) => client.schedule.getHandle(scheduleId).delete()).catch((err) => {
          if (!(err instanceof ScheduleNotFoundError)) throw err;
        });
      } else {
        const spec = { cronExpressions: [d.schedule], timezone: d.timezone };
        const policies = { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' } as const;
        const state = { paused: !d.enabled, note: d.enabled ? 'enabled' : 'deployment disabled' };
        try {
          await this.call((client) =>
            client.schedule.getHandle(scheduleId).update((previous: ScheduleDescription) => ({
              ...previous,
              spec,
              action: this.action(d),
              policies,
              state,
            })),
          );
        } catch (err) {
          if (!(err instanceof ScheduleNotFoundError)) throw err;
          await this.call((client) =>
            client.schedule.create({
              scheduleId,
              spec,
              action: this.action(d),
              policies,
              state,
              memo: { workspaceId: d.workspaceId, deploymentId: d.id },
            }),
          );
        }
      }
      await this.dataSource
        .getRepository(Deployment)
        .update({ id: d.id, updatedAt: d.updatedAt }, { scheduleSyncedAt: new Date(), scheduleError: null });
      return true;
    } catch (err) {
      const message = (err as Error).message;
      this.logger.warn({ err, deploymentId: d.id }, 'schedule sync failed; reconcile will retry');
      await this.dataSource
        .getRepository(Deployment)
        .update({ id: d.id }, { scheduleSyncedAt: null, scheduleError: message })
        .catch(() => undefined);
      return false;
    }
  }

  /** Deletes a deployment's schedule; a failure leaves an orphan that reconcile deletes. */
  async remove(deploymentId: string): Promise<void> {
    await this.call((client) => client.schedule.getHandle(this.scheduleId(deploymentId)).delete()).catch((err) => {
      if (!(err instanceof ScheduleNotFoundError))
        this.logger.warn({ err, deploymentId }, 'schedule delete failed; reconcile will retry');
    });
  }

  /** Starts a run of the schedule now (the schedule's own action). */
  async trigger(deploymentId: string): Promise<void> {
    await this.call((client) =>
      client.schedule.getHandle(this.scheduleId(deploymentId)).trigger(ScheduleOverlapPolicy.ALLOW_ALL),
    );
  }

  /**
   * The schedule as the API shows it; asks Temporal for the next run times when `live`. A schedule
   * just created lists none until Temporal's scheduler has run for it once (a moment after the
   * create returned): an active schedule that lists none is asked again, every
   * {@link NEXT_TIMES_RETRY_MS} ms up to {@link NEXT_TIMES_ATTEMPTS} times, before answering.
   */
  async state(d: Deployment, live: boolean): Promise<ScheduleState> {
    if (!d.schedule) return { status: 'none' };
    const scheduleId = this.scheduleId(d.id);
    if (!d.scheduleSyncedAt)
      return { status: 'pending', scheduleId, ...(d.scheduleError ? { error: d.scheduleError } : {}) };
    const base: ScheduleState = { status: d.enabled ? 'active' : 'paused', scheduleId };
    if (!live) return base;
    try {
      const describe = () => this.call((client) => client.schedule.getHandle(scheduleId).describe());
      let description = await describe();
      for (
        let attempt = 1;
        attempt < NEXT_TIMES_ATTEMPTS && !description.state.paused && description.info.nextActionTimes.length === 0;
        attempt++
      ) {
        await new Promise((resolve) => setTimeout(resolve, NEXT_TIMES_RETRY_MS));
        description = await describe();
      }
      return {
        ...base,
        status: description.state.paused ? 'paused' : 'active',
        nextRunTimes: description.info.nextActionTimes.slice(0, 5).map((t) => t.toISOString()),
      };
    } catch {
      return base;
    }
  }

  /**
   * Brings Temporal in line with the store: syncs deployments whose last change is not synced
   * (all of them when `full`), and deletes this installation's schedules no deployment owns.
   */
  async reconcile(full: boolean): Promise<ReconcileReport> {
    const report: ReconcileReport = { synced: [], deleted: [], failed: [] };
    const repo = this.dataSource.getRepository(Deployment);
    const pending = full ? await repo.find() : await repo.find({ where: { scheduleSyncedAt: IsNull() } });
    for (const d of pending) {
      if (await this.sync(d)) report.synced.push(d.id);
      else
        report.failed.push({
          deploymentId: d.id,
          error: (await repo.findOneBy({ id: d.id }))?.scheduleError ?? 'unknown',
        });
    }
    const wanted = new Set(
      (await repo.find({ select: { id: true, schedule: true } }))
        .filter((d) => d.schedule)
        .map((d) => this.scheduleId(d.id)),
    );
    try {
      const existing: string[] = [];
      await this.call(async (client) => {
        for await (const s of client.schedule.list())
          if (s.scheduleId.startsWith(this.prefix)) existing.push(s.scheduleId);
      });
      for (const id of existing.filter((id) => !wanted.has(id))) {
        await this.call((client) => client.schedule.getHandle(id).delete()).catch(() => undefined);
        report.deleted.push(id);
      }
    } catch (err) {
      this.logger.warn({ err }, 'listing schedules failed; reconcile will retry');
    }
    if (report.synced.length || report.deleted.length || report.failed.length)
      this.logger.info(report, 'schedules reconciled');
    return report;
  }

  /** Reconciles now (fully) and then every `intervalMs` (pending changes and orphans). */
  start(intervalMs: number): void {
    void this.reconcile(true).catch((err) => this.logger.warn({ err }, 'reconcile failed'));
    this.timer = setInterval(
      () => void this.reconcile(false).catch((err) => this.logger.warn({ err }, 'reconcile failed')),
      intervalMs,
    );
    this.timer.unref();
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.temporal.close();
  }
}
