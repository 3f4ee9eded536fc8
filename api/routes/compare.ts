/**
 * Comparing runs (docs/history.md "Comparing runs"; rules in src/history/compare.ts).
 *
 *   GET /v1/runs/{a}/compare/{b}        run `a` (the base) against run `b` (the head)
 *   GET /v1/runs/{b}/compare/baseline   run `b` against its baseline: the run its plan froze as
 *                                       baseline (a performance run's), else its deployment's or
 *                                       runner's `baseline` setting (a pinned run, or `lastPassing`),
 *                                       else the last passing run of the same runner, environment and
 *                                       kind before it (src/store/baselines.ts); the answer adds
 *                                       `baseline: {runId, setting, source}`
 *
 * Answer (src/history/compare.ts `RunComparison`): `base`, `head` ({runId, createdAt, status,
 * result, planHash, kind}), `samePlan`, `verdict` (`regression`, `improvement`, `unchanged`),
 * `testCases` (newlyFailing, newlyPassing, appeared, disappeared, slower, faster: items
 * {testCaseId, name, base, head, change?}; unchanged: a count), `performance` when either run is a
 * performance run (overall and per request name figures p95, p99, med, avg in ms, rps, errorRate,
 * checksRate, each {base, head, change}; both time series with each point's `offset` in seconds),
 * and `planDiff` when the plans' hashes differ (names only: secret values are never shown).
 *
 * Problems: 404 `not-found` for a run that is not the caller's workspace's; 422 `run-not-ended`
 * (with `runId`) for a run still queued or running; 422 `no-baseline` when the head has none.
 * Scope `read`.
 */
import Router from '@koa/router';
import type { EntityManager } from 'typeorm';
import { Run, RunTestCaseResult } from '../../src/store/entities';
import { compareRuns, type CompareSide, type RunComparison } from '../../src/history/compare';
import { baselineSettingOf, findBaselineRun, type BaselineSource } from '../../src/store/baselines';
import type { ApiDeps, AppState } from '../context';
import { Problem } from '../problem';
import { iso } from './shared';

/** The baseline a `compare/baseline` answer used: the run, the setting it came from, and whose setting it was. */
export interface BaselineUsed {
  runId: string;
  /** `lastPassing` or the pinned run id. */
  setting: string;
  /** `plan`: frozen into the head's plan when it started (a performance run's); else whose setting. */
  source: BaselineSource | 'plan';
}

/** A run of the workspace with its plan and performance figures, or null. */
function findRun(manager: EntityManager, workspaceId: string, runId: string): Promise<Run | null> {
  return manager
    .getRepository(Run)
    .createQueryBuilder('run')
    .addSelect('run.plan')
    .addSelect('run.performance')
    .where('run.id = :id', { id: runId })
    .andWhere('run.workspaceId = :workspaceId', { workspaceId })
    .getOne();
}

/** {@link findRun}, or 404. */
async function loadRun(manager: EntityManager, workspaceId: string, runId: string): Promise<Run> {
  const run = await findRun(manager, workspaceId, runId);
  if (!run) throw new Problem('not-found', `Run "${runId}" does not exist.`);
  return run;
}

/** What compareRuns takes about one run; 422 `run-not-ended` while it is queued or running. */
async function sideOf(manager: EntityManager, run: Run): Promise<CompareSide> {
  if (run.status !== 'completed' && run.status !== 'failed')
    throw new Problem(
      'run-not-ended',
      `Run ${run.id} is ${run.status}; compare it once it has ended (assay wait ${run.id}).`,
      { runId: run.id, runStatus: run.status },
    );
  const rows = await manager.getRepository(RunTestCaseResult).find({
    select: { position: true, testCaseId: true, name: true, status: true, duration: true },
    where: { runId: run.id },
    order: { position: 'ASC' },
  });
  return {
    run: {
      runId: run.id,
      createdAt: iso(run.createdAt)!,
      status: run.status,
      result: run.status === 'completed' ? run.result : null,
      planHash: run.planHash ?? null,
      kind: run.plan?.performance || run.loadProfile ? 'performance' : 'functional',
    },
    testCases: rows.map((r) => ({ testCaseId: r.testCaseId, name: r.name, status: r.status, durationMs: r.duration })),
    performance: run.performance ?? null,
    plan: run.plan ?? null,
  };
}

export function compareRouter({ dataSource }: ApiDeps): Router<AppState> {
  const router = new Router<AppState>();

  // Registered before `/compare/:headRunId`, which it would otherwise match.
  router.get('/runs/:runId/compare/baseline', async (ctx) => {
    const manager = dataSource.manager;
    const workspaceId = ctx.state.caller.workspaceId;
    const head = await loadRun(manager, workspaceId, ctx.params.runId!);
    const headSide = await sideOf(manager, head);
    let used: BaselineUsed;
    const frozen = head.plan?.baseline?.runId;
    if (frozen) {
      used = { runId: frozen, setting: frozen, source: 'plan' };
    } else {
      const { setting, source } = await baselineSettingOf(manager, head);
      const found = await findBaselineRun(manager, head, setting);
      if (!found.run)
        throw new Problem('no-baseline', `Run ${head.id} has no baseline: ${found.reason}.`, { runId: head.id });
      used = { runId: found.run.id, setting, source };
    }
    const base = await findRun(manager, workspaceId, used.runId);
    if (!base)
      throw new Problem('no-baseline', `Run ${head.id} has no baseline: run ${used.runId} no longer exists.`, {
        runId: head.id,
      });
    const comparison: RunComparison & { baseline?: BaselineUsed } = compareRuns(await sideOf(manager, base), headSide);
    comparison.baseline = used;
    ctx.body = comparison;
  });

  router.get('/runs/:runId/compare/:headRunId', async (ctx) => {
    const manager = dataSource.manager;
    const workspaceId = ctx.state.caller.workspaceId;
    const [base, head] = await Promise.all([
      loadRun(manager, workspaceId, ctx.params.runId!),
      loadRun(manager, workspaceId, ctx.params.headRunId!),
    ]);
    ctx.body = compareRuns(await sideOf(manager, base), await sideOf(manager, head));
  });

  return router;
}
