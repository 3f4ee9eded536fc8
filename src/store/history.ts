/**
 * Writing a run's test case history (docs/history.md): when a run ends, one summary row per
 * position of the run (`test_case_history`, src/store/entities/test-case-history.ts), read by
 * `GET /v1/test-cases/{id}/history`, the flakiness rule and comparisons through its indexes.
 */
import type { EntityManager } from 'typeorm';
import { RunTestCaseResult, TestCaseHistory, type Run } from './entities';
import type { NodeResult, RunPlan, TestCaseResult } from '../domain/types';
import type { HistoryNodeOutcome } from '../history/types';
import { definitionHash } from '../history/plan-hash';

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
    quarantined: false,
    nodes: plan?.performance ? null : flattenNodes(result.nodes ?? []),
    ranAt: run.startedAt ?? run.createdAt,
  });
}

/**
 * Writes the history rows of run `run` (ended now) from its stored results, inside the caller's
 * transaction. Idempotent: rows are upserted by (run, position). Returns the rows written.
 */
export async function recordRunHistory(
  manager: EntityManager,
  run: Run,
  plan: RunPlan | null,
): Promise<TestCaseHistory[]> {
  const results = await manager.getRepository(RunTestCaseResult).find({
    select: { position: true, detail: true },
    where: { runId: run.id },
    order: { position: 'ASC' },
  });
  const rows = results.map((r) => historyRow(run, plan, r.position, r.detail));
  // In chunks: one statement's placeholders stay under MySQL's 65,535 and SQLite's 32,766.
  for (let start = 0; start < rows.length; start += HISTORY_UPSERT_CHUNK)
    await manager
      .getRepository(TestCaseHistory)
      .upsert(rows.slice(start, start + HISTORY_UPSERT_CHUNK) as never[], ['runId', 'position']);
  return rows;
}
