/**
 * Baselines (docs/history.md "Baselines"): the run another run is compared with
 * (`GET /v1/runs/{id}/compare/baseline`, `assay compare RUN --baseline`) and that relative
 * performance thresholds (`p(95)<baseline*1.10`, src/perf/thresholds.ts) are measured against.
 *
 * A runner and a deployment may set `baseline`: a pinned run id of the workspace, or
 * {@link LAST_PASSING}. A run of a deployment takes the deployment's when set, else its runner's;
 * with neither, `lastPassing`. "The last passing run" of a run is the newest run of the same
 * workspace, runner, environment and kind (functional or performance) created before it that
 * completed with result `passed`, debug runs left out (trigger `debug`: a designer's try of a
 * draft, never a baseline; a pinned one is refused likewise).
 */
import type { EntityManager } from 'typeorm';
import { Deployment, Run, RunLoadShard, Runner } from './entities';
import { LoadMetrics, thresholdActual, type ThresholdBaseline } from '../perf/metrics';
import { baselineKey, type Threshold } from '../perf/thresholds';
import { fieldError } from '../problems';

/** The `baseline` value meaning "the last passing run before this one". */
export const LAST_PASSING = 'lastPassing';

/** Where a run's baseline setting came from. */
export type BaselineSource = 'deployment' | 'runner' | 'default';

/** A run's baseline setting: `lastPassing` or a run id, and who set it. */
export interface BaselineSetting {
  setting: string;
  source: BaselineSource;
}

/** The head run's facts a baseline is looked up for. */
export type BaselineHead = Pick<
  Run,
  'id' | 'workspaceId' | 'runnerName' | 'environmentName' | 'deploymentId' | 'createdAt' | 'loadProfile'
>;

/**
 * The baseline setting of a run: its deployment's, else its runner's (both looked up by the run's
 * names and ids; either may have been deleted since), else `lastPassing`.
 */
export async function baselineSettingOf(manager: EntityManager, head: BaselineHead): Promise<BaselineSetting> {
  if (head.deploymentId) {
    const d = await manager
      .getRepository(Deployment)
      .findOne({ select: { id: true, baseline: true }, where: { id: head.deploymentId } });
    if (d?.baseline) return { setting: d.baseline, source: 'deployment' };
  }
  const r = await manager
    .getRepository(Runner)
    .findOne({ select: { id: true, baseline: true }, where: { workspaceId: head.workspaceId, name: head.runnerName } });
  if (r?.baseline) return { setting: r.baseline, source: 'runner' };
  return { setting: LAST_PASSING, source: 'default' };
}

/**
 * The baseline run of `head` for `setting`: the pinned run (it must be of the workspace and
 * completed), or the last passing run before it (module comment). Null with the reason when there
 * is none.
 */
export async function findBaselineRun(
  manager: EntityManager,
  head: BaselineHead,
  setting: string,
): Promise<{ run: Run; reason?: undefined } | { run: null; reason: string }> {
  const runs = manager.getRepository(Run);
  if (setting !== LAST_PASSING) {
    const pinned = await runs.findOneBy({ id: setting, workspaceId: head.workspaceId });
    if (!pinned) return { run: null, reason: `the baseline run ${setting} no longer exists` };
    if (pinned.trigger === 'debug')
      return { run: null, reason: `the baseline run ${setting} is a debug run, which is never a baseline` };
    if (pinned.status !== 'completed')
      return { run: null, reason: `the baseline run ${setting} did not complete (${pinned.status})` };
    return { run: pinned };
  }
  const qb = runs
    .createQueryBuilder('run')
    .where('run.workspaceId = :workspaceId', { workspaceId: head.workspaceId })
    .andWhere('run.runnerName = :runner', { runner: head.runnerName })
    .andWhere('run.environmentName = :environment', { environment: head.environmentName })
    .andWhere('run.createdAt <= :createdAt', { createdAt: head.createdAt })
    .andWhere('run.id <> :id', { id: head.id })
    .andWhere('run.trigger <> :debug', { debug: 'debug' })
    .andWhere('run.status = :status', { status: 'completed' })
    .andWhere('run.result = :result', { result: 'passed' })
    .andWhere(head.loadProfile ? 'run.loadProfile IS NOT NULL' : 'run.loadProfile IS NULL')
    .orderBy('run.createdAt', 'DESC')
    .addOrderBy('run.id', 'DESC')
    .limit(1);
  const found = await qb.getOne();
  if (found) return { run: found };
  return {
    run: null,
    reason: `no earlier ${head.loadProfile ? 'performance' : 'functional'} run of runner "${head.runnerName}" on environment "${head.environmentName}" passed`,
  };
}

/**
 * What a performance run's plan freezes as `RunPlan.baseline` (activities/runs.ts `startRun`):
 * the baseline run and, for each relative threshold, the same aggregation of the same metric in
 * that run, computed from its stored measurements (its shards' HDR histograms merged, exactly as
 * its own thresholds were). `runId` null with `reason` when there is no baseline, or when it has
 * no stored measurements (not a performance run).
 */
export async function freezeBaseline(
  manager: EntityManager,
  head: BaselineHead,
  thresholds: Threshold[],
): Promise<ThresholdBaseline> {
  const { setting, source } = await baselineSettingOf(manager, head);
  const found = await findBaselineRun(manager, head, setting);
  if (!found.run) return { runId: null, values: {}, reason: found.reason };
  const relative = thresholds.filter((t) => t.relative);
  if (relative.length === 0) return { runId: found.run.id, values: {} };
  const shards = await manager.getRepository(RunLoadShard).findBy({ runId: found.run.id });
  if (shards.length === 0)
    return {
      runId: null,
      values: {},
      reason: `the baseline run ${found.run.id} (${source === 'default' ? LAST_PASSING : `the ${source}'s baseline`}) has no performance measurements`,
    };
  const metrics = new LoadMetrics();
  let loadMs = 0;
  for (const shard of shards) {
    metrics.add(new LoadMetrics(shard.metrics));
    loadMs = Math.max(loadMs, shard.position.elapsedMs);
  }
  const values: Record<string, number> = {};
  for (const t of relative) values[baselineKey(t)] = Math.round(thresholdActual(t, metrics, loadMs) * 10_000) / 10_000;
  return { runId: found.run.id, values };
}

/**
 * Checks a runner's or deployment's `baseline` field: null, `lastPassing`, or the id of a run of
 * the workspace. @returns the field error naming `baseline`, or null when it is fine.
 */
export async function baselineFieldError(
  manager: EntityManager,
  workspaceId: string,
  value: string | null | undefined,
): Promise<ReturnType<typeof fieldError> | null> {
  if (value === null || value === undefined || value === LAST_PASSING) return null;
  const run = await manager
    .getRepository(Run)
    .findOne({ select: { id: true, trigger: true }, where: { id: value, workspaceId } });
  if (run?.trigger === 'debug')
    return fieldError(['baseline'], `run "${value}" is a debug run, which is never a baseline; pin a run of a runner`);
  if (run) return null;
  return fieldError(
    ['baseline'],
    `must be "${LAST_PASSING}" or the id of a run of the workspace; run "${value}" does not exist`,
  );
}
