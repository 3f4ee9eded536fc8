/**
 * Test history and flaky test cases (docs/history.md "Test history", "Flaky tests").
 *
 *   GET /v1/test-cases/{testCaseId}/history   a test case's outcomes over its last runs, newest first,
 *                                             with figures, last failure, failing streak, flaky flags
 *   GET /v1/flaky                             the test cases flagged flaky in the workspace
 *
 * History query parameters, all optional and combined: `limit` (runs answered, 1 to 1000, default
 * 50), `runner`, `environment` (names), `deployment` (id), `trigger` (`api`, `schedule`,
 * `webhook`), `kind` (`functional`, `performance`), `since` and `until` (ISO 8601 timestamps,
 * inclusive, compared with when each run started). A bad value is 400 `invalid-query` naming the
 * parameter. `stats` and `nodes` are figures over the runs answered (`entries`); `lastFailure`
 * and `failingSince` look at the whole kept history matching the filters. Durations are ms.
 *
 * Answers come from `test_case_history` through its indexes (src/store/history.ts), never from
 * result documents: a run deleted by retention keeps its rows `ASSAY_HISTORY_DAYS` (default 90)
 * days. A test case of another workspace is 404 `not-found`; a deleted test case of this workspace
 * still answers while history rows of it are kept (its name from the newest row), then 404.
 */
import Router from '@koa/router';
import type { ApiDeps, AppContext, AppState } from '../context';
import { Problem } from '../problem';
import { queryFilter, queryFilterEnum, queryInt, queryProblem } from '../validation';
import { flakyTestCases, testCaseHistory, type HistoryFilter } from '../../src/store/history';
import { RUN_TRIGGERS } from './runs';

/** Runs a history answers: default and most. */
export const HISTORY_LIMIT = { default: 50, max: 1000 } as const;

/** The kinds of run a history filters by. */
export const HISTORY_KINDS = ['functional', 'performance'] as const;

/** An ISO 8601 timestamp query parameter (with a date, a time and a zone, or a date alone as UTC midnight). */
function queryTime(ctx: AppContext, name: string): Date | undefined {
  const value = queryFilter(ctx, name);
  if (value === undefined) return undefined;
  const iso = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/;
  const at = new Date(value);
  if (!iso.test(value) || Number.isNaN(at.getTime()))
    throw queryProblem(name, 'must be an ISO 8601 timestamp such as 2026-05-01T00:00:00Z');
  return at;
}

/** The history filters of the request (see the module comment). */
export function historyFilter(ctx: AppContext): HistoryFilter {
  const filter: HistoryFilter = {};
  const runner = queryFilter(ctx, 'runner');
  const environment = queryFilter(ctx, 'environment');
  const deployment = queryFilter(ctx, 'deployment');
  const trigger = queryFilterEnum(ctx, 'trigger', RUN_TRIGGERS);
  const kind = queryFilterEnum(ctx, 'kind', HISTORY_KINDS);
  const since = queryTime(ctx, 'since');
  const until = queryTime(ctx, 'until');
  if (runner !== undefined) filter.runner = runner;
  if (environment !== undefined) filter.environment = environment;
  if (deployment !== undefined) filter.deployment = deployment;
  if (trigger !== undefined) filter.trigger = trigger;
  if (kind !== undefined) filter.kind = kind;
  if (since) filter.since = since;
  if (until) filter.until = until;
  if (since && until && since > until) throw queryProblem('until', 'must not be before `since`');
  return filter;
}

export function historyRouter({ dataSource }: ApiDeps): Router<AppState> {
  const router = new Router<AppState>();

  router.get('/test-cases/:testCaseId/history', async (ctx) => {
    const limit = queryInt(ctx, 'limit', HISTORY_LIMIT.default, 1, HISTORY_LIMIT.max);
    const filter = historyFilter(ctx);
    const id = ctx.params.testCaseId!;
    const answer = await testCaseHistory(dataSource.manager, ctx.state.caller.workspaceId, id, filter, limit);
    if (!answer) throw new Problem('not-found', `Test case "${id}" does not exist and has no history.`);
    ctx.body = answer;
  });

  router.get('/flaky', async (ctx) => {
    const runner = queryFilter(ctx, 'runner');
    const environment = queryFilter(ctx, 'environment');
    ctx.body = {
      items: await flakyTestCases(dataSource.manager, ctx.state.caller.workspaceId, {
        ...(runner !== undefined ? { runner } : {}),
        ...(environment !== undefined ? { environment } : {}),
      }),
    };
  });

  return router;
}
