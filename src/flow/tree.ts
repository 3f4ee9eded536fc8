/**
 * Flow trees, in one place: which fields of a node hold child nodes, a walk over a tree, a copy with
 * child lists replaced, node ids, and the node count. Every tree walk of Assay (flow validation,
 * node ids on the server and in the CLI's files, progress estimates, loop quotas) uses these, so a
 * new container node type is taught here once. Pure and deterministic: used inside workflow code too.
 * The walks tolerate a malformed tree (a child field that is not a list is no child list), so the
 * CLI may use them on files validation has not seen.
 */
import type { FlowNode } from '../domain/types';

/** Fields of a node that hold child nodes (spec "Flow nodes"): IF `then`/`else`, Loop and Iteration `body`, Parallel `children`. */
export type ChildField = 'then' | 'else' | 'body' | 'children';

/** One list of child nodes and the field that holds it. */
export interface ChildList {
  field: ChildField;
  nodes: FlowNode[];
}

/** Which fields hold child lists, per node type, in the order they run (IF: `then` before `else`). */
const CHILD_FIELDS: Partial<Record<FlowNode['type'], readonly ChildField[]>> = {
  if: ['then', 'else'],
  loop: ['body'],
  iteration: ['body'],
  parallel: ['children'],
};

/** The child lists of `node`, in the order they run; none for a leaf (or a field that is not a list). */
export function childLists(node: FlowNode): ChildList[] {
  const fields = CHILD_FIELDS[node.type] ?? [];
  const record = node as unknown as Record<ChildField, unknown>;
  return fields
    .filter((field) => Array.isArray(record[field]))
    .map((field) => ({ field, nodes: record[field] as FlowNode[] }));
}

/**
 * Calls `visit` for every node of the tree, depth first, a node before its children, with its path
 * from `prefix` (e.g. `['flow', 2, 'then', 0]`).
 */
export function forEachNode(
  flow: FlowNode[],
  visit: (node: FlowNode, path: Array<string | number>) => void,
  prefix: Array<string | number> = [],
): void {
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

function isNode(value: unknown): value is FlowNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Gives every node without an id one, as the server does when a test case is saved: `n1`, `n2`, …
 * numbered depth first through the whole tree (a node before its children), skipping ids in use;
 * the id becomes the node's first key, and ids a user gave are kept. An entry that is not an object
 * is left as it is (validation refuses it). Pure: answers a copy.
 */
export function assignNodeIds<T>(flow: T[]): T[] {
  const nodes = flow as unknown[];
  const used = new Set<string>();
  const collect = (list: unknown[]) => {
    for (const node of list) {
      if (!isNode(node)) continue;
      if (typeof node.id === 'string' && node.id) used.add(node.id);
      for (const child of childLists(node)) collect(child.nodes);
    }
  };
  collect(nodes);
  let n = 0;
  const nextId = () => {
    do n += 1;
    while (used.has(`n${n}`));
    used.add(`n${n}`);
    return `n${n}`;
  };
  const assign = (list: unknown[]): unknown[] =>
    list.map((node) => {
      if (!isNode(node)) return node;
      const { id: given, ...rest } = node;
      return mapChildLists(
        { id: given || nextId(), ...rest } as FlowNode,
        (children) => assign(children) as FlowNode[],
      );
    });
  return assign(nodes) as T[];
}

/** Nodes in the tree, each counted once (a loop's body once, both IF branches). */
export function countNodes(flow: FlowNode[]): number {
  let n = 0;
  forEachNode(flow, () => (n += 1));
  return n;
}
