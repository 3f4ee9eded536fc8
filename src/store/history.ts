/**
 * Writing a run's test case history (docs/history.md): when a run ends, one summary row per
 * position of the run (`test_case_history`, src/store/entities/test-case-history.ts), read by
 * `GET /v1/test-cases/{id}/history`, the flakiness rule and comparisons through its indexes.
 */
import {
  And,
  In,
  LessThanOrEqual,
  MoreThan,
  MoreThanOrEqual,
  type EntityManager,
  type FindManyOptions,
  type FindOptionsWhere,
} from 'typeorm';
import { FlakyTestCase, RunTestCaseResult, TestCase, TestCaseHistory, type Run } from './entities';
import type { NodeResult, RunPlan, TestCaseResult } from '../domain/types';
import type { FlakyItem, HistoryEntry, HistoryNodeOutcome, TestCaseHistoryAnswer } from '../history/types';

export type { FlakyItem, HistoryEntry, TestCaseHistoryAnswer };
import { definitionHash } from '../history/plan-hash';
import {
  DEFAULT_FLAKY_RULE,
  evaluateFlaky,
  evaluateFlakyNodes,
  type FlakyRule,
  type FlakyVerdict,
} from '../history/flaky';
import { historyStats, nodeStats } from '../history/summary';

/** Nodes a history row keeps at most (the first, in flow order). */
export const HISTORY_NODES_CAP = 200;
/** History rows written per statement. */
const HISTORY_UPSERT_CHUNK = 500;
/** Characters of a failure message a history row keeps. */
export const HISTORY_FAILURE_CHARS = 1_000;

/**
 * The commit a run's trigger carried: its context's `commit`, `sha` or `revision` (an incoming
 * webhook's fields, docs/api.md "Incoming webhooks"), or the same in its `metadata`; null when none.
 */
export function commitOf(context: Record<string, unknown> | null | undefined): string | null {
  if (!context) return null;
  const metadata = (context.metadata ?? {}) as Record<string, unknown>;
  for (const source of [context, metadata]) {
    for (const key of ['commit', 'sha', 'revision']) {
      const v = source?.[key];
      if (typeof v === 'string' && v.trim() !== '') return v.trim().slice(0, 100);
    }
  }
  return null;
}

/**
 * A result's nodes flattened: nested nodes (IF, Parallel) by their own id, a Ref node's sub-flow
 * as `<ref id> › <id>`, a loop's iterations merged per node id (failed when any iteration failed,
 * durations summed). At most {@link HISTORY_NODES_CAP}.
 */
export function flattenNodes(nodes: NodeResult[]): HistoryNodeOutcome[] {
  const byId = new Map<string, HistoryNodeOutcome>();
  const visit = (list: NodeResult[], prefix: string) => {
    for (const node of list) {
      const id = `${prefix}${node.id}`;
      const assertions = node.assertions?.map((a) => ({
        label: a.name ?? `${a.target} ${a.operator}`,
        passed: a.passed,
      }));
      const seen = byId.get(id);
      if (seen) {
        seen.durationMs = Math.round(seen.durationMs + node.duration);
        if (node.status === 'failed' || (node.status === 'passed' && seen.status === 'skipped')) {
          seen.status = node.status;
          if (assertions && node.status === 'failed') seen.assertions = assertions;
        }
      } else if (byId.size < HISTORY_NODES_CAP) {
        byId.set(id, {
          id,
          ...(node.name ? { name: node.name } : {}),
          type: node.type,
          status: node.status,
          durationMs: Math.round(node.duration),
          ...(assertions?.length ? { assertions } : {}),
        });
      }
      const childPrefix = node.type === 'ref' ? `${id} › ` : prefix;
      if (node.children) visit(node.children, childPrefix);
      for (const iteration of node.iterationResults ?? []) visit(iteration.nodes, prefix);
    }
  };
  visit(nodes, '');
  return [...byId.values()];
}

/** The history row of one stored result. */
export function historyRow(
  run: Pick<
    Run,
    | 'id'
    | 'workspaceId'
    | 'runnerName'
    | 'environmentName'
    | 'deploymentId'
    | 'trigger'
    | 'context'
    | 'startedAt'
    | 'createdAt'
  >,
  plan: RunPlan | null,
  position: number,
  result: TestCaseResult,
): TestCaseHistory {
  const definition = plan?.testCases[position];
  const failure = result.status === 'failed' ? result.failures[0] : undefined;
  const failedNode = failure ? (failure.path?.length ? failure.path.join(' › ') : failure.node) : null;
  const message = failure?.message ?? (result.status === 'failed' ? (result.error ?? 'failed') : null);
  return Object.assign(new TestCaseHistory(), {
    runId: run.id,
    position,
    workspaceId: run.workspaceId,
    testCaseId: result.testCaseId,
    testCaseName: result.name.slice(0, 200),
    runnerName: run.runnerName,
    environmentName: run.environmentName,
    deploymentId: run.deploymentId,
    trigger: run.trigger,
    kind: plan?.performance ? 'performance' : 'functional',
    status: result.status,
    durationMs: Math.max(0, Math.round(result.duration)),
    assertions: result.assertions,
    passedAssertions: result.passedAssertions,
    failedNode: failedNode ? failedNode.slice(0, 200) : null,
    failure: message ? message.slice(0, HISTORY_FAILURE_CHARS) : null,
    commitRef: commitOf(run.context),
    definitionHash: definition && definition.id === result.testCaseId ? definitionHash(definition) : '',
    flaky: false,
    quarantined: result.quarantined === true,
    nodes: plan?.performance ? null : flattenNodes(result.nodes ?? []),
    ranAt: run.startedAt ?? run.createdAt,
  });
}

/**
 * Whether a run leaves test case history: every run but a debug run (trigger `debug`, or a plan
 * frozen with `debug: true`, as a replay of one has; `POST /v1/test-cases/debug`), which is a
 * designer's try of a draft and must not count toward trends, flaky flags or baselines.
 */
export function leavesHistory(run: Pick<Run, 'trigger'>, plan: Pick<RunPlan, 'debug'> | null): boolean {
  return run.trigger !== 'debug' && plan?.debug !== true;
}

/**
 * Writes the history rows of run `run` (ended now) from its stored results, inside the caller's
 * transaction, then applies the flakiness rule ({@link evaluateRunFlakiness}). Idempotent: rows are
 * upserted by (run, position). Returns the rows written: none for a debug run ({@link leavesHistory}).
 */
export async function recordRunHistory(
  manager: EntityManager,
  run: Run,
  plan: RunPlan | null,
  rule: FlakyRule = DEFAULT_FLAKY_RULE,
): Promise<TestCaseHistory[]> {
  if (!leavesHistory(run, plan)) return [];
  const results = await manager.getRepository(RunTestCaseResult).find({
    select: { position: true, detail: true },
    where: { runId: run.id },
    order: { position: 'ASC' },
  });
  // A resumed run's results copied from its origin (src/store/run-origins.ts) ran there, not here.
  const ran = results.filter((r) => !r.detail.copiedFrom);
  const rows = ran.map((r) => historyRow(run, plan, r.position, r.detail));
  // In chunks: one statement's placeholders stay under MySQL's 65,535 and SQLite's 32,766.
  for (let start = 0; start < rows.length; start += HISTORY_UPSERT_CHUNK)
    await manager
      .getRepository(TestCaseHistory)
      .upsert(rows.slice(start, start + HISTORY_UPSERT_CHUNK) as never[], ['runId', 'position']);
  const details = new Map(ran.map((r) => [r.position, r.detail]));
  await evaluateRunFlakiness(manager, run, rows, details, rule);
  return rows;
}

/**
 * The last outcomes the flakiness rule reads for one test case on one runner and environment,
 * newest first: functional runs, `passed` or `failed`, at most `limit` (index ix_history_runner_env).
 */
export function flakyWindowRows(
  manager: EntityManager,
  key: { workspaceId: string; testCaseId: string; runnerName: string; environmentName: string },
  limit: number,
): Promise<Array<Pick<TestCaseHistory, 'runId' | 'position' | 'status' | 'definitionHash' | 'nodes'>>> {
  return findHistory(manager, {
    options: {
      select: { runId: true, position: true, status: true, definitionHash: true, nodes: true },
      where: { ...key, kind: 'functional', status: In(['passed', 'failed']) },
      order: { ranAt: 'DESC', runId: 'DESC', position: 'DESC' },
      take: limit,
    },
    index: 'ix_history_runner_env',
  });
}

/**
 * Applies the flakiness rule (src/history/flaky.ts) to each test case of run `run` that passed or
 * failed in it (functional runs only: a performance run's outcome is its thresholds'), after its
 * history rows were written: flagged, its `flaky_test_cases` row is upserted (`flaggedAt` kept
 * from when it was first flagged), its history rows of this run get `flaky`, and its stored results
 * of this run get `flaky: {flips, window, flipRate}` (what reports and the run's results show),
 * and `flakyNodes` when nodes flip on their own ({@link evaluateFlakyNodes}, flagged test case or not);
 * not flagged, its `flaky_test_cases` row goes. A test case skipped in the run keeps its flag as it was.
 */
export async function evaluateRunFlakiness(
  manager: EntityManager,
  run: Pick<Run, 'id' | 'workspaceId' | 'runnerName' | 'environmentName'>,
  rows: readonly TestCaseHistory[],
  details: Map<number, TestCaseResult>,
  rule: FlakyRule = DEFAULT_FLAKY_RULE,
): Promise<Map<string, FlakyVerdict>> {
  const verdicts = new Map<string, FlakyVerdict>();
  const positions = new Map<string, { name: string; positions: number[] }>();
  for (const row of rows) {
    if (row.kind !== 'functional' || (row.status !== 'passed' && row.status !== 'failed')) continue;
    const seen = positions.get(row.testCaseId) ?? { name: row.testCaseName, positions: [] };
    seen.positions.push(row.position);
    positions.set(row.testCaseId, seen);
  }
  if (positions.size === 0) return verdicts;
  const flags = manager.getRepository(FlakyTestCase);
  const scope = { workspaceId: run.workspaceId, runnerName: run.runnerName, environmentName: run.environmentName };
  // The flags these test cases hold now (one query), so that a run of steady test cases costs one
  // window query each and nothing more.
  const held = new Map(
    (await flags.find({ where: { ...scope, testCaseId: In([...positions.keys()]) } })).map((f) => [f.testCaseId, f]),
  );
  const cleared: string[] = [];
  for (const [testCaseId, { name, positions: at }] of positions) {
    const key = { ...scope, testCaseId };
    const window = await flakyWindowRows(manager, key, rule.window);
    const verdict = evaluateFlaky(window, rule);
    verdicts.set(testCaseId, verdict);
    // The nodes that flip on their own (docs/history.md "Flaky nodes"), named in this run's results.
    const flakyNodes = evaluateFlakyNodes(window, rule);
    if (flakyNodes.length)
      for (const position of at) {
        const detail = details.get(position);
        if (detail) details.set(position, { ...detail, flakyNodes });
        if (!verdict.flaky && detail)
          await manager
            .getRepository(RunTestCaseResult)
            .update({ runId: run.id, position }, { detail: { ...detail, flakyNodes } as never });
      }
    if (!verdict.flaky) {
      if (held.has(testCaseId)) cleared.push(testCaseId);
      continue;
    }
    const now = new Date();
    await flags.upsert(
      {
        ...key,
        testCaseName: name,
        flips: verdict.flips,
        window: verdict.window,
        flipRate: verdict.flipRate,
        definitionHash: window[0]!.definitionHash,
        lastRunId: run.id,
        flaggedAt: held.get(testCaseId)?.flaggedAt ?? now,
        updatedAt: now,
      },
      ['workspaceId', 'testCaseId', 'runnerName', 'environmentName'],
    );
    const flaky = { flips: verdict.flips, window: verdict.window, flipRate: verdict.flipRate };
    await manager.getRepository(TestCaseHistory).update({ runId: run.id, position: In(at) }, { flaky: true });
    for (const position of at) {
      const detail = details.get(position);
      if (!detail) continue;
      await manager
        .getRepository(RunTestCaseResult)
        .update({ runId: run.id, position }, { detail: { ...detail, flaky } as never });
    }
  }
  if (cleared.length) await flags.delete({ ...scope, testCaseId: In(cleared) });
  return verdicts;
}

/**
 * The test case ids a run of `runner` on `environment` quarantines (docs/history.md "Quarantine"):
 * those flagged flaky there when the runner sets `quarantineFlaky`, else none (undefined).
 */
export async function quarantinedTestCases(
  manager: EntityManager,
  workspaceId: string,
  runner: { name: string; quarantineFlaky?: boolean | null },
  environmentName: string,
): Promise<string[] | undefined> {
  if (!runner.quarantineFlaky) return undefined;
  const rows = await manager.getRepository(FlakyTestCase).find({
    select: { testCaseId: true },
    where: { workspaceId, runnerName: runner.name, environmentName },
    order: { testCaseId: 'ASC' },
  });
  return rows.map((r) => r.testCaseId);
}

/** Filters of a test case's history (`GET /v1/test-cases/{id}/history`); all optional, combined with AND. */
export interface HistoryFilter {
  runner?: string;
  environment?: string;
  deployment?: string;
  trigger?: string;
  kind?: 'functional' | 'performance';
  /** Runs that started at or after it. */
  since?: Date;
  /** Runs that started at or before it. */
  until?: Date;
}

/** Whether row `a` is newer than row `b` in the order of {@link NEWEST_FIRST}. */
function newer(
  a: Pick<TestCaseHistory, 'ranAt' | 'runId' | 'position'>,
  b: Pick<TestCaseHistory, 'ranAt' | 'runId' | 'position'>,
): boolean {
  const t = a.ranAt.getTime() - b.ranAt.getTime();
  if (t !== 0) return t > 0;
  if (a.runId !== b.runId) return a.runId > b.runId;
  return a.position > b.position;
}

/** Newest first, ties (one run) by position: the order of every history query. */
const NEWEST_FIRST = { ranAt: 'DESC', runId: 'DESC', position: 'DESC' } as const;

/** The `where` of a history query: the test case in the workspace, with the filters. */
export function historyWhere(
  workspaceId: string,
  testCaseId: string,
  filter: HistoryFilter,
): FindOptionsWhere<TestCaseHistory> {
  const where: FindOptionsWhere<TestCaseHistory> = { workspaceId, testCaseId };
  if (filter.runner !== undefined) where.runnerName = filter.runner;
  if (filter.environment !== undefined) where.environmentName = filter.environment;
  if (filter.deployment !== undefined) where.deploymentId = filter.deployment;
  if (filter.trigger !== undefined) where.trigger = filter.trigger as TestCaseHistory['trigger'];
  if (filter.kind !== undefined) where.kind = filter.kind;
  if (filter.since && filter.until) where.ranAt = And(MoreThanOrEqual(filter.since), LessThanOrEqual(filter.until));
  else if (filter.since) where.ranAt = MoreThanOrEqual(filter.since);
  else if (filter.until) where.ranAt = LessThanOrEqual(filter.until);
  return where;
}

/** The columns an entry answers (and the node outcomes the node figures read). */
const ENTRY_COLUMNS = {
  runId: true,
  position: true,
  ranAt: true,
  status: true,
  durationMs: true,
  runnerName: true,
  environmentName: true,
  deploymentId: true,
  trigger: true,
  kind: true,
  commitRef: true,
  failure: true,
  failedNode: true,
  flaky: true,
  quarantined: true,
  definitionHash: true,
  testCaseName: true,
  nodes: true,
} as const;

/** A history query: its find options and the index it is served by. */
export interface HistoryQuery {
  options: FindManyOptions<TestCaseHistory>;
  index: 'ix_history_test_case' | 'ix_history_runner_env' | 'ix_history_status';
}

/**
 * Runs a history query through its index: named to MySQL/MariaDB (`USE INDEX`), whose optimizer
 * otherwise may walk `ix_history_ran` (every test case's rows, newest first) to avoid a sort,
 * which reads the whole table for a test case that has not run lately; SQLite picks it by itself.
 */
export function findHistory(manager: EntityManager, query: HistoryQuery): Promise<TestCaseHistory[]> {
  return manager
    .getRepository(TestCaseHistory)
    .createQueryBuilder('h')
    .setFindOptions(query.options)
    .useIndex(query.index)
    .getMany();
}

/**
 * The queries of a test case's history, each served by an index of `test_case_history` (their
 * plans in docs/benchmarks.md, bench/history-query.ts): the newest `limit` rows
 * (`ix_history_runner_env` when both runner and environment are given, else
 * `ix_history_test_case`); the newest failure; the newest pass; the oldest failure after a given
 * row (with the newest pass: the start of the current failing streak) (`ix_history_status`: one
 * seek however long the test case has been failing or passing). Exported for the benchmark, which
 * times and explains each.
 */
export function historyFindOptions(workspaceId: string, testCaseId: string, filter: HistoryFilter, limit: number) {
  const where = historyWhere(workspaceId, testCaseId, filter);
  const byRunnerEnv = filter.runner !== undefined && filter.environment !== undefined;
  return {
    entries: {
      options: { select: ENTRY_COLUMNS, where, order: NEWEST_FIRST, take: limit },
      index: byRunnerEnv ? 'ix_history_runner_env' : 'ix_history_test_case',
    } satisfies HistoryQuery,
    lastFailure: {
      options: {
        select: { runId: true, position: true, ranAt: true, failure: true, failedNode: true, commitRef: true },
        where: { ...where, status: 'failed' },
        order: NEWEST_FIRST,
        take: 1,
      },
      index: 'ix_history_status',
    } satisfies HistoryQuery,
    lastPass: {
      options: {
        select: { runId: true, position: true, ranAt: true },
        where: { ...where, status: 'passed' },
        order: NEWEST_FIRST,
        take: 1,
      },
      index: 'ix_history_status',
    } satisfies HistoryQuery,
    /** The oldest failure after `after` (a pass): ranAt later, or the same ranAt in a later run or position. */
    firstFailureAfter: (after: Pick<TestCaseHistory, 'runId' | 'position' | 'ranAt'> | null) =>
      ({
        options: {
          select: { runId: true, ranAt: true, commitRef: true },
          where: after
            ? [
                {
                  ...where,
                  status: 'failed',
                  ranAt: filter.until
                    ? And(MoreThan(after.ranAt), LessThanOrEqual(filter.until))
                    : MoreThan(after.ranAt),
                },
                { ...where, status: 'failed', ranAt: after.ranAt, runId: MoreThan(after.runId) },
                {
                  ...where,
                  status: 'failed',
                  ranAt: after.ranAt,
                  runId: after.runId,
                  position: MoreThan(after.position),
                },
              ]
            : { ...where, status: 'failed' },
          order: { ranAt: 'ASC', runId: 'ASC', position: 'ASC' },
          take: 1,
        },
        index: 'ix_history_status',
      }) satisfies HistoryQuery,
  };
}

/** {@link historyFindOptions} run against the store. */
export function historyQueries(
  manager: EntityManager,
  workspaceId: string,
  testCaseId: string,
  filter: HistoryFilter,
  limit: number,
) {
  const queries = historyFindOptions(workspaceId, testCaseId, filter, limit);
  const first = async (query: HistoryQuery) => (await findHistory(manager, query))[0] ?? null;
  return {
    entries: () => findHistory(manager, queries.entries),
    lastFailure: () => first(queries.lastFailure),
    lastPass: () => first(queries.lastPass),
    firstFailureAfter: (after: Pick<TestCaseHistory, 'runId' | 'position' | 'ranAt'> | null) =>
      first(queries.firstFailureAfter(after)),
  };
}

/**
 * A test case's history in workspace `workspaceId`: its newest `limit` runs matching `filter`,
 * their figures and their nodes' figures, its last failure and the start of its current failing
 * streak (both over all its kept history matching `filter`, not only the runs answered), and
 * where it is flagged flaky. Null when the test case neither exists in the workspace nor has
 * history rows there (a deleted test case's history answers while its rows are kept).
 */
export async function testCaseHistory(
  manager: EntityManager,
  workspaceId: string,
  testCaseId: string,
  filter: HistoryFilter,
  limit: number,
): Promise<TestCaseHistoryAnswer | null> {
  const queries = historyQueries(manager, workspaceId, testCaseId, filter, limit);
  const testCase = await manager
    .getRepository(TestCase)
    .findOne({ select: { id: true, name: true }, where: { workspaceId, id: testCaseId } });
  const rows = await queries.entries();
  let name = testCase?.name ?? rows[0]?.testCaseName;
  if (name === undefined) {
    // Deleted, and no row matches the filters: any row at all?
    const any = await manager.getRepository(TestCaseHistory).findOne({
      select: { testCaseName: true, runId: true },
      where: { workspaceId, testCaseId },
      order: NEWEST_FIRST,
    });
    if (!any) return null;
    name = any.testCaseName;
  }
  // The current failing streak: the failures after the newest pass (skipped runs neither pass nor break it).
  const lastFailure = await queries.lastFailure();
  const lastPass = lastFailure ? await queries.lastPass() : null;
  const failingSince =
    lastFailure && (!lastPass || newer(lastFailure, lastPass)) ? await queries.firstFailureAfter(lastPass) : null;
  const flagWhere: FindOptionsWhere<FlakyTestCase> = { workspaceId, testCaseId };
  if (filter.runner !== undefined) flagWhere.runnerName = filter.runner;
  if (filter.environment !== undefined) flagWhere.environmentName = filter.environment;
  const flags = await manager
    .getRepository(FlakyTestCase)
    .find({ where: flagWhere, order: { runnerName: 'ASC', environmentName: 'ASC' } });
  return {
    testCaseId,
    name,
    stats: historyStats(rows),
    lastFailure: lastFailure
      ? {
          runId: lastFailure.runId,
          ranAt: lastFailure.ranAt.toISOString(),
          message: lastFailure.failure,
          node: lastFailure.failedNode,
          commit: lastFailure.commitRef,
        }
      : null,
    failingSince: failingSince
      ? { runId: failingSince.runId, ranAt: failingSince.ranAt.toISOString(), commit: failingSince.commitRef }
      : null,
    flaky: flags.map((f) => ({
      runner: f.runnerName,
      environment: f.environmentName,
      flips: f.flips,
      window: f.window,
      flipRate: f.flipRate,
      flaggedAt: f.flaggedAt.toISOString(),
    })),
    entries: rows.map((r) => ({
      runId: r.runId,
      position: r.position,
      ranAt: r.ranAt.toISOString(),
      status: r.status,
      durationMs: r.durationMs,
      runner: r.runnerName,
      environment: r.environmentName,
      deploymentId: r.deploymentId,
      trigger: r.trigger,
      kind: r.kind,
      commit: r.commitRef,
      failure: r.failure,
      failedNode: r.failedNode,
      flaky: Boolean(r.flaky),
      quarantined: Boolean(r.quarantined),
      definitionHash: r.definitionHash,
    })),
    nodes: nodeStats(rows),
  };
}

/**
 * The test cases flagged flaky in the workspace (optionally on one runner and/or environment),
 * highest flip rate first, at most 1,000. Flags of test cases deleted since are left out (they
 * can no longer run, so nothing would clear them).
 */
export async function flakyTestCases(
  manager: EntityManager,
  workspaceId: string,
  filter: { runner?: string; environment?: string } = {},
): Promise<FlakyItem[]> {
  const where: FindOptionsWhere<FlakyTestCase> = { workspaceId };
  if (filter.runner !== undefined) where.runnerName = filter.runner;
  if (filter.environment !== undefined) where.environmentName = filter.environment;
  const rows = await manager.getRepository(FlakyTestCase).find({
    where,
    order: { flipRate: 'DESC', testCaseName: 'ASC', runnerName: 'ASC', environmentName: 'ASC' },
    take: 1000,
  });
  const ids = [...new Set(rows.map((f) => f.testCaseId))];
  const existing = ids.length
    ? new Set(
        (await manager.getRepository(TestCase).find({ select: { id: true }, where: { workspaceId, id: In(ids) } })).map(
          (t) => t.id,
        ),
      )
    : new Set<string>();
  return rows
    .filter((f) => existing.has(f.testCaseId))
    .map((f) => ({
      testCaseId: f.testCaseId,
      name: f.testCaseName,
      runner: f.runnerName,
      environment: f.environmentName,
      flips: f.flips,
      window: f.window,
      flipRate: f.flipRate,
      flaggedAt: f.flaggedAt.toISOString(),
      lastRunId: f.lastRunId,
    }));
}
