/**
 * Flow trees, in one place (issue 11, item 1): which fields of a node hold child nodes, a walk over
 * a tree, a copy with child lists replaced, and the node count. Every tree walk of Assay (flow
 * validation, node ids, progress estimates, loop quotas) uses these, so a new container node type
 * is taught here once. Pure and deterministic: used inside workflow code too.
 */
import type { FlowNode } from '../domain/types';

/** Fields of a node that hold child nodes (spec "Flow nodes"): IF `then`/`else`, Loop and Iteration `body`, Parallel `children`. */
export type ChildField = 'then' | 'else' | 'body' | 'children';

/** One list of child nodes and the field that holds it. */
export interface ChildList {
  field: ChildField;
  nodes: FlowNode[];
}

/** The child lists of `node`, in the order they run (IF: `then` before `else`); none for a leaf. */
export function childLists(node: FlowNode): ChildList[] {
  switch (node.type) {
    case 'if':
      return node.else ? [{ field: 'then', nodes: node.then }, { field: 'else', nodes: node.else }] : [{ field: 'then', nodes: node.then }];
    case 'loop':
    case 'iteration':
      return [{ field: 'body', nodes: node.body }];
    case 'parallel':
      return [{ field: 'children', nodes: node.children }];
    default:
      return [];
  }
}

/**
 * Calls `visit` for every node of the tree, depth first, a node before its children, with its path
 * from `prefix` (e.g. `['flow', 2, 'then', 0]`).
 */
export function forEachNode(flow: FlowNode[], visit: (node: FlowNode, path: Array<string | number>) => void, prefix: Array<string | number> = []): void {
  flow.forEach((node, i) => {
    const at = [...prefix, i];
    visit(node, at);
    for (const { field, nodes } of childLists(node)) forEachNode(nodes, visit, [...at, field]);
  });
}

/** A shallow copy of `node` whose child lists are replaced by `map(list, field)`; a leaf as it is. */
export function mapChildLists(node: FlowNode, map: (nodes: FlowNode[], field: ChildField) => FlowNode[]): FlowNode {
  const lists = childLists(node);
  if (lists.length === 0) return node;
  const copy: Record<string, unknown> = { ...node };
  for (const { field, nodes } of lists) copy[field] = map(nodes, field);
  return copy as unknown as FlowNode;
}

/** Nodes in the tree, each counted once (a loop's body once, both IF branches). */
export function countNodes(flow: FlowNode[]): number {
  let n = 0;
  forEachNode(flow, () => (n += 1));
  return n;
}
