/**
 * How much work a flow is expected to take, counted by one walk of its tree with two policies:
 *
 * - **progress** ({@link expectedNodeExecutions}): node executions a test case is expected to take,
 *   for the run's progress and its estimate of completion ({@link estimateCompletion}). A loop whose
 *   length is known only at run time counts its body once; an IF counts its larger branch.
 * - **quota** ({@link expectedLoopIterations}): loop iterations a flow may run at most, for the
 *   per-run quota `ASSAY_QUOTA_LOOP_ITERATIONS` (docs/security.md "Quotas"). A loop whose length is
 *   known only at run time counts as many iterations as it may run; both branches of an IF count.
 *
 * Pure and workflow-safe: the run workflow counts progress with it, the API checks quotas with it.
 * Data set rows come from the caller (`rowsOf`): a frozen plan has them as arrays, a saved test case
 * as definitions the validation module parses.
 */
import type { FlowNode, IterationNode, LoopNode, TestCaseDefinition } from '../domain/types';
import { childLists } from './tree';

/** How {@link walkExpectation} counts what it cannot know before the run. */
export interface ExpectationPolicy {
  /** Iterations of a loop whose count is known only at run time (`while`, `items`, a missing data set): once, or as many as it may run. */
  unknownLoop: 'once' | 'most';
  /** An IF's branches: the larger one (one of them runs), or both (either may). */
  branches: 'larger' | 'all';
  /** The fewest iterations a loop counts (1: progress never counts a body as nothing). */
  fewest: 0 | 1;
  /** `ASSAY_MAX_LOOP_ITERATIONS`: the cap of any loop. */
  maxLoopIterations: number;
  /** Rows of the data set named `name`; undefined when it is unknown. */
  rowsOf(name: string): number | undefined;
}

/** A loop's share of {@link expectedLoopIterations}. */
export interface LoopExpectation {
  /** Path of the Loop or Iteration node, from the flow's own prefix. */
  path: Array<string | number>;
  id?: string;
  /** Iterations of this node in one pass (its count, capped). */
  count: number;
  /** Its iterations in one run of the flow: `count` times those of every loop around it. */
  iterations: number;
  /** The counts from the outermost loop to this one, e.g. [1000, 1000, 1000]. */
  chain: number[];
}

/** Iterations one pass of a Loop or Iteration node counts under `policy` (its count, capped by its `maxIterations` and the global cap). */
function loopCount(node: LoopNode | IterationNode, policy: ExpectationPolicy): number {
  const cap = Math.min(node.maxIterations ?? Number.POSITIVE_INFINITY, policy.maxLoopIterations);
  const known =
    node.type === 'loop'
      ? node.while === undefined
        ? node.count
        : undefined
      : node.dataSet !== undefined
        ? policy.rowsOf(node.dataSet)
        : undefined;
  const times = known ?? (policy.unknownLoop === 'once' ? 1 : cap);
  return Math.max(policy.fewest, Math.min(times, cap));
}

/**
 * The one walk: node executions of one run of `flow` under `policy`, and every loop it meets (also
 * inside branches the policy does not count) with its iterations per run. A disabled node (NodeBase
 * `disabled`) and everything under it count nothing: they do not run.
 */
export function walkExpectation(
  flow: FlowNode[],
  policy: ExpectationPolicy,
  prefix: Array<string | number> = ['flow'],
): { executions: number; loops: LoopExpectation[] } {
  const loops: LoopExpectation[] = [];
  const visit = (nodes: FlowNode[], path: Array<string | number>, chain: number[], multiplier: number): number =>
    nodes.reduce((sum, node, i) => {
      // Switched off (NodeBase `disabled`): neither it nor anything under it runs.
      if (node.disabled === true) return sum;
      const at = [...path, i];
      if (node.type === 'loop' || node.type === 'iteration') {
        const count = loopCount(node, policy);
        const own = [...chain, count];
        loops.push({
          path: at,
          ...(node.id ? { id: node.id } : {}),
          count,
          iterations: multiplier * count,
          chain: own,
        });
        return sum + 1 + count * visit(node.body, [...at, 'body'], own, multiplier * count);
      }
      const lists = childLists(node).map(({ field, nodes: children }) =>
        visit(children, [...at, field], chain, multiplier),
      );
      const inside =
        node.type === 'if' && policy.branches === 'larger' ? Math.max(0, ...lists) : lists.reduce((a, b) => a + b, 0);
      // A Ref node's sub-flow (a clone's copy, or a live link's flow once frozen into a plan) runs once.
      const sub =
        node.type === 'ref' && Array.isArray(node.flow) ? visit(node.flow, [...at, 'flow'], chain, multiplier) : 0;
      return sum + 1 + inside + sub;
    }, 0);
  const executions = visit(flow, prefix, [], 1);
  return { executions, loops };
}

/**
 * Node executions a test case is expected to take: every node once, a Loop's body `count` times (at
 * most its maxIterations and `maxLoopIterations`), an Iteration's body once per row of its data set;
 * a loop whose length is only known at run time counts its body once; an IF counts its larger
 * branch. At least 1. Used for progress, never for control.
 */
export function expectedNodeExecutions(
  testCase: Pick<TestCaseDefinition, 'flow' | 'dataSets'>,
  maxLoopIterations = Infinity,
): number {
  const policy: ExpectationPolicy = {
    unknownLoop: 'once',
    branches: 'larger',
    fewest: 1,
    maxLoopIterations,
    rowsOf: (name) => testCase.dataSets?.[name]?.length,
  };
  return Math.max(1, walkExpectation(testCase.flow, policy).executions);
}

/**
 * Loop iterations a flow may run, for the per-run quota (`ASSAY_QUOTA_LOOP_ITERATIONS`,
 * docs/security.md "Quotas"). A Loop with `count` runs min(count, maxIterations, maxLoopIterations)
 * times; a Loop with `while` or an Iteration over `items` min(maxIterations, maxLoopIterations)
 * times (the most it can); an Iteration over a data set as many times as the set has rows (capped
 * the same way). Each loop's iterations in one run are its count times those of the loops around it,
 * and the total is their sum (both branches of an IF and every Parallel child count, as either may run).
 *
 * @param options.rowsOf rows of a data set by name (undefined: unknown, counted as the most)
 * @returns the total and the loops, largest `iterations` first.
 */
export function expectedLoopIterations(
  flow: FlowNode[],
  options: { maxLoopIterations: number; rowsOf: (name: string) => number | undefined },
  prefix: Array<string | number> = ['flow'],
): { total: number; loops: LoopExpectation[] } {
  const { loops } = walkExpectation(flow, { unknownLoop: 'most', branches: 'all', fewest: 0, ...options }, prefix);
  loops.sort((a, b) => b.iterations - a.iterations);
  return { total: loops.reduce((sum, l) => sum + l.iterations, 0), loops };
}

/**
 * Fraction of a run's work done, 0 to 1 (the run's stored `work`, from which the estimate is
 * computed): the expected node executions of the test cases done (`before`), plus the node
 * executions of the test case under way (`nodes`), at most 95 % of its expected ones (`expected`:
 * a loop may run longer than expected), over the run's expected total.
 */
export function workDone(input: { before: number; expected: number; nodes: number; total: number }): number {
  if (input.total <= 0) return 0;
  return Math.min(1, (input.before + Math.min(input.nodes, 0.95 * input.expected)) / input.total);
}

/**
 * When a running run should end, from the observed rate: the time elapsed so far stretched by the
 * work left, `now + elapsed × (1 − work) / work`. Before any work is done, the deadline. Never
 * before `nowMs` (+1 s) and never after the deadline (unless that has passed too).
 *
 * @param input.work fraction of the run's work done, 0 to 1 (workflows/run-ledger.ts `RunLedger.work`).
 * @returns epoch ms.
 */
export function estimateCompletion(input: {
  startedAtMs: number;
  deadlineMs: number;
  work: number;
  nowMs: number;
}): number {
  const { startedAtMs, deadlineMs, work, nowMs } = input;
  const soonest = nowMs + 1000;
  if (!(work > 0)) return Math.max(soonest, deadlineMs);
  const elapsed = Math.max(0, nowMs - startedAtMs);
  const eta = nowMs + (elapsed * (1 - Math.min(1, work))) / work;
  return Math.round(Math.max(soonest, Math.min(eta, deadlineMs)));
}
