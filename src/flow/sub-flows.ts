/**
 * Sub-flows (Ref nodes, docs/reuse.md "Sub-flows"): the nesting bound and the one walk over the Ref
 * nodes of a flow that save-time checks (src/store/sub-flows.ts), the plan's freezing and the
 * deletion guard share.
 *
 * A Ref node's `flow` is not a child list of the tree walk (src/flow/tree.ts): a sub-flow has its
 * own node ids (`nodes.<id>` of the caller and of the sub-flow never meet), so it is walked here as
 * a flow of its own. Pure and deterministic.
 */
import { assignNodeIds, forEachNode, mapChildLists } from './tree';
import type { FlowNode, RefNode } from '../domain/types';

/**
 * Levels of sub-flows one test case may nest: its own flow is level 0, a Ref node's flow level 1,
 * a Ref node inside that level 2, … at most 5 (deeper is refused when saved and when a run starts).
 * Five covers "checkout › login › get token" style chains with room to spare, while keeping a
 * frozen plan (every level copied in) and a failure's chain readable.
 */
export const MAX_SUB_FLOW_DEPTH = 5;

/** One Ref node met by {@link forEachRefNode}. */
export interface RefNodeVisit {
  node: RefNode;
  /** Its path from the walk's prefix, e.g. `['flow', 2, 'then', 0]` or `['flow', 1, 'flow', 0]`. */
  path: Array<string | number>;
  /** Its level: 1 for a Ref node of the flow itself, 2 for one inside a clone's copied flow, … */
  depth: number;
}

/**
 * Calls `visit` for every Ref node of `flow` (in IF branches, loop bodies and Parallel children
 * too), depth first; with `intoClones`, also for those inside a `clone`'s copied flow (one level
 * deeper). A `ref` node's own `flow` (present only in a frozen plan) is not entered.
 */
export function forEachRefNode(
  flow: FlowNode[],
  visit: (at: RefNodeVisit) => void,
  options: { prefix?: Array<string | number>; intoClones?: boolean; depth?: number } = {},
): void {
  const depth = options.depth ?? 1;
  forEachNode(
    flow,
    (node, path) => {
      if (node.type !== 'ref') return;
      visit({ node, path, depth });
      if (options.intoClones && node.mode === 'clone' && Array.isArray(node.flow))
        forEachRefNode(node.flow, visit, { ...options, prefix: [...path, 'flow'], depth: depth + 1 });
    },
    options.prefix ?? [],
  );
}

/**
 * Gives the nodes of every `clone`'s copied flow without an id one, as src/flow/tree.ts
 * `assignNodeIds` does for the test case's own flow (each sub-flow numbers its own: `n1`, `n2`, …).
 * Pure: answers a copy.
 */
export function assignSubFlowIds(flow: FlowNode[]): FlowNode[] {
  const visit = (nodes: FlowNode[]): FlowNode[] =>
    nodes.map((node) => {
      const copy = mapChildLists(node, (children) => visit(children));
      return copy.type === 'ref' && Array.isArray(copy.flow)
        ? { ...copy, flow: visit(assignNodeIds(copy.flow)) }
        : copy;
    });
  return visit(flow);
}
