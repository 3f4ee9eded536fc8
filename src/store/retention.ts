/**
 * Deleting runs: one run on request (`DELETE /v1/runs/{runId}`), and ended runs past the retention
 * period (`ASSAY_RUN_RETENTION_DAYS`) by a periodic sweep in the API process (docs/api.md "Runs",
 * "Deleting runs and retention").
 *
 * Both go the same way: only a run that has ended (`completed` or `failed`) is deleted, and its row,
 * its test case results (`run_test_case_results`) and its outgoing webhook deliveries
 * (`webhook_deliveries`) go in one transaction, so nothing of a run is left half-deleted. A queued
 * or running run is never deleted: its workflow would keep writing to it (cancel it first).
 *
 * The sweep runs shortly after the API starts, then every hour, in batches of
 * {@link RETENTION_BATCH_SIZE} runs (one transaction each) and at most
 * {@link RETENTION_MAX_BATCHES} batches per sweep, so one sweep stays bounded however many runs
 * have expired; what is left is deleted by the next (hourly, 20,000 runs a sweep). Several API processes may sweep at once: a
 * run deleted by one is simply not found by the other.
 */
import { In, LessThan, type DataSource, type EntityManager } from 'typeorm';
import type { Logger } from 'pino';
import type { AssayConfig } from '../config';
import type { RunStatus } from '../domain/types';
import { Run, RunLoadControl, RunLoadShard, RunTestCaseResult, TestCaseHistory, WebhookDelivery } from './entities';
import { sweepStrayRecords } from './node-executions';
import { sweepExpiredAudit } from '../teams/audit';

/** Statuses of a run that has ended; only such runs are deleted. */
export const ENDED_RUN_STATUSES = ['completed', 'failed'] as const satisfies readonly RunStatus[];

/** Runs deleted per transaction by the sweep. */
export const RETENTION_BATCH_SIZE = 200;
/** Batches one sweep deletes at most (so at most 20,000 runs a sweep). */
export const RETENTION_MAX_BATCHES = 100;
/** Time between sweeps, milliseconds (one hour). */
export const RETENTION_INTERVAL_MS = 3_600_000;
/** Delay of the first sweep after start-up, milliseconds, so that it does not compete with start-up. */
const FIRST_SWEEP_DELAY_MS = 60_000;

/**
 * Deletes, inside the caller's transaction (`manager`), those of the runs `ids` that have ended,
 * with their test case results, webhook deliveries, load-shard snapshots and load control rows. Returns how many runs were deleted. Runs
 * that are queued or running, or do not exist, are left alone.
 */
export async function deleteEndedRuns(manager: EntityManager, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const ended = (
    await manager
      .getRepository(Run)
      .find({ select: { id: true }, where: { id: In(ids), status: In([...ENDED_RUN_STATUSES]) } })
  ).map((r) => r.id);
  if (ended.length === 0) return 0;
  // An ended run never becomes active again, so the rows found above stay deletable.
  await manager.getRepository(RunTestCaseResult).delete({ runId: In(ended) });
  await manager.getRepository(WebhookDelivery).delete({ runId: In(ended) });
  await manager.getRepository(RunLoadShard).delete({ runId: In(ended) });
  await manager.getRepository(RunLoadControl).delete({ runId: In(ended) });
  await manager.getRepository(Run).delete({ id: In(ended), status: In([...ENDED_RUN_STATUSES]) });
  return ended.length;
}

/** What {@link deleteRun} did: deleted it, found no such run in the workspace, or found it still active. */
export type DeleteRunOutcome =
  { outcome: 'deleted' } | { outcome: 'not-found' } | { outcome: 'active'; status: RunStatus };

/**
 * Deletes run `runId` of workspace `workspaceId` with its test case results and webhook deliveries,
 * in one transaction, when it has ended. A run of another workspace is `not-found`.
 */
export async function deleteRun(dataSource: DataSource, workspaceId: string, runId: string): Promise<DeleteRunOutcome> {
  return dataSource.transaction(async (manager) => {
    const run = await manager
      .getRepository(Run)
      .findOne({ select: { id: true, status: true }, where: { id: runId, workspaceId } });
    if (!run) return { outcome: 'not-found' };
    if (!(ENDED_RUN_STATUSES as readonly string[]).includes(run.status))
      return { outcome: 'active', status: run.status };
    const deleted = await deleteEndedRuns(manager, [run.id]);
    // Not deleted although ended: another request deleted it meanwhile.
    return deleted === 1 ? { outcome: 'deleted' } : { outcome: 'not-found' };
  });
}

/**
 * One sweep: deletes every ended run (of any workspace) whose `completedAt` is before `cutoff`,
 * oldest first, at most `batchSize` × `maxBatches` runs, in batches of `batchSize` (one transaction
 * each); `shouldStop` is asked between batches. Returns how many runs were deleted. Runs without
 * `completedAt`, and queued or running runs, are never deleted.
 */
export async function sweepExpiredRuns(
  dataSource: DataSource,
  cutoff: Date,
  options: { batchSize?: number; maxBatches?: number; shouldStop?: () => boolean } = {},
): Promise<number> {
  const batchSize = options.batchSize ?? RETENTION_BATCH_SIZE;
  const maxBatches = options.maxBatches ?? RETENTION_MAX_BATCHES;
  // One query finds the whole sweep's share (index ix_runs_status_completed).
  const ids = (
    await dataSource.getRepository(Run).find({
      select: { id: true },
      where: { status: In([...ENDED_RUN_STATUSES]), completedAt: LessThan(cutoff) },
      order: { completedAt: 'ASC', id: 'ASC' },
      take: batchSize * maxBatches,
    })
  ).map((r) => r.id);
  let deleted = 0;
  for (let start = 0; start < ids.length && !options.shouldStop?.(); start += batchSize) {
    const batch = ids.slice(start, start + batchSize);
    deleted += await dataSource.transaction((manager) => deleteEndedRuns(manager, batch));
  }
  return deleted;
}

/**
 * Deletes test case history rows (src/store/history.ts) of runs that started before `cutoff`, in
 * batches of `batchSize` rows (index ix_history_ran), at most `maxBatches`; returns how many went.
 * History outlives the runs it summarises (`ASSAY_HISTORY_DAYS` against `ASSAY_RUN_RETENTION_DAYS`).
 */
export async function sweepExpiredHistory(
  dataSource: DataSource,
  cutoff: Date,
  options: { batchSize?: number; maxBatches?: number; shouldStop?: () => boolean } = {},
): Promise<number> {
  const batchSize = options.batchSize ?? 1000;
  const maxBatches = options.maxBatches ?? RETENTION_MAX_BATCHES;
  const repo = dataSource.getRepository(TestCaseHistory);
  let deleted = 0;
  for (let batch = 0; batch < maxBatches && !options.shouldStop?.(); batch++) {
    const keys = await repo.find({
      select: { runId: true, position: true },
      where: { ranAt: LessThan(cutoff) },
      order: { ranAt: 'ASC' },
      take: batchSize,
    });
    if (keys.length === 0) break;
    const runIds = [...new Set(keys.map((k) => k.runId))];
    const result = await repo.delete({ runId: In(runIds), ranAt: LessThan(cutoff) });
    deleted += result.affected ?? keys.length;
    if (keys.length < batchSize) break;
  }
  return deleted;
}

/** The running sweep; `stop` ends it (waiting for a batch under way). */
export interface RetentionSweep {
  stop(): Promise<void>;
}

/**
 * Starts the periodic sweep when `config.runs.retentionDays`, `config.runs.historyDays` or
 * `config.teams.auditRetentionDays` is above 0 (else does nothing): the
 * first sweep a minute after start, then every {@link RETENTION_INTERVAL_MS}; each deletes ended
 * runs completed more than `retentionDays` days before it began, history rows older than
 * `historyDays`, audit trail events older than `auditRetentionDays` (src/teams/audit.ts; 0 keeps
 * them for ever), and node execution records over a day old (src/store/node-executions.ts). A failed sweep is logged and
 * retried at the next tick. The timers do not keep the process alive.
 */
export function startRetentionSweep(config: AssayConfig, dataSource: DataSource, logger: Logger): RetentionSweep {
  const days = config.runs.retentionDays;
  const historyDays = config.runs.historyDays;
  const auditDays = config.teams.auditRetentionDays;
  if (days <= 0 && historyDays <= 0 && auditDays <= 0) return { stop: async () => undefined };
  let stopped = false;
  let running: Promise<void> | null = null;
  const sweepRuns = async () => {
    if (days <= 0) return;
    const cutoff = new Date(Date.now() - days * 86_400_000);
    const deleted = await sweepExpiredRuns(dataSource, cutoff, { shouldStop: () => stopped });
    if (deleted > 0)
      logger.info({ deleted, cutoff: cutoff.toISOString(), retentionDays: days }, 'retention: deleted ended runs');
  };
  const sweepHistory = async () => {
    if (historyDays <= 0) return;
    const cutoff = new Date(Date.now() - historyDays * 86_400_000);
    const deleted = await sweepExpiredHistory(dataSource, cutoff, { shouldStop: () => stopped });
    if (deleted > 0)
      logger.info({ deleted, cutoff: cutoff.toISOString(), historyDays }, 'retention: deleted test case history rows');
  };
  const sweepAudit = async () => {
    if (auditDays <= 0) return;
    const cutoff = new Date(Date.now() - auditDays * 86_400_000);
    const deleted = await sweepExpiredAudit(dataSource, cutoff, { shouldStop: () => stopped });
    if (deleted > 0)
      logger.info(
        { deleted, cutoff: cutoff.toISOString(), auditRetentionDays: auditDays },
        'retention: deleted audit events',
      );
  };
  // Node execution records left by runs that never ended (src/store/node-executions.ts).
  const sweepRecords = async () => {
    const deleted = await sweepStrayRecords(dataSource.manager);
    if (deleted > 0) logger.info({ deleted }, 'retention: deleted node execution records over a day old');
  };
  const sweep = () => {
    if (stopped || running) return;
    running = sweepRuns()
      .then(sweepHistory)
      .then(sweepAudit)
      .then(sweepRecords)
      .catch((err: unknown) => logger.warn({ err }, 'retention sweep failed; retrying at the next one'))
      .finally(() => {
        running = null;
      });
  };
  const first = setTimeout(sweep, FIRST_SWEEP_DELAY_MS);
  const every = setInterval(sweep, RETENTION_INTERVAL_MS);
  first.unref();
  every.unref();
  logger.info(
    { retentionDays: days, historyDays, auditRetentionDays: auditDays },
    'retention: ended runs, history rows and audit events older than their periods are deleted hourly',
  );
  return {
    async stop() {
      stopped = true;
      clearTimeout(first);
      clearInterval(every);
      await running;
    },
  };
}
