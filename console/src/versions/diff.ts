/**
 * Differences between two saved versions of a resource (docs/console.md "Versions"), computed in
 * the browser from the two bodies `GET …/versions/{n}` answers (docs/teams.md "Versions"):
 *
 * - {@link diffValues}: every changed leaf as `{path, before?, after?}` (`path` a JSON Pointer,
 *   RFC 6901, like the API's own diffs and error pointers); arrays compared index by index.
 * - {@link diffFlow}: a test case's flow as one merged tree, nodes matched by `id` (stable across
 *   moves, docs/flows.md), each marked `added`, `removed`, `changed` (with its changed fields,
 *   child lists left out: they are the tree), `moved` (into another parent list) or `same`.
 *   Child lists are walked through src/flow/tree.ts `childLists`, as the designer does
 *   (designer/model/doc.ts), so a new container type is taught in one place.
 *
 * Pure TypeScript: no DOM, no Preact.
 */
import { childLists, type ChildField } from '../../../src/flow/tree';
import type { FlowNode } from '../designer/model/doc';

/** One changed value: `before` absent = added, `after` absent = removed. */
export interface Change {
  path: string;
  before?: unknown;
  after?: unknown;
}

/** Fields the server manages, never part of a difference between versions. */
export const SERVER_FIELDS = ['id', 'workspaceId', 'version', 'createdAt', 'updatedAt'];

const escape = (s: string | number) => String(s).replace(/~/g, '~0').replace(/\//g, '~1');

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** True when `a` and `b` are the same JSON value (object key order ignored). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    return ka.length === kb.length && ka.every((k) => sameJson(a[k], b[k]));
  }
  return false;
}

/**
 * Every difference between `before` and `after` below pointer `prefix` ('' for the root): objects
 * key by key, arrays index by index, anything else compared as JSON. `skip` names top-level keys
 * to leave out (at the root only). A value that changes kind (object to string) is one change.
 */
export function diffValues(before: unknown, after: unknown, prefix = '', skip: string[] = []): Change[] {
  const out: Change[] = [];
  const walk = (a: unknown, b: unknown, path: string, top: boolean) => {
    if (sameJson(a, b)) return;
    if (isObject(a) && isObject(b)) {
      const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
      for (const k of keys) {
        if (top && skip.includes(k)) continue;
        walk(a[k], b[k], `${path}/${escape(k)}`, false);
      }
      return;
    }
    if (Array.isArray(a) && Array.isArray(b)) {
      for (let i = 0; i < Math.max(a.length, b.length); i++) walk(a[i], b[i], `${path}/${i}`, false);
      return;
    }
    const c: Change = { path: path || '/' };
    if (a !== undefined) c.before = a;
    if (b !== undefined) c.after = b;
    out.push(c);
  };
  walk(before, after, prefix, true);
  return out;
}

/** How a node differs between the two versions. */
export type NodeStatus = 'added' | 'removed' | 'changed' | 'moved' | 'same';

/** A node of the merged tree. */
export interface DiffNode {
  /** The node's id (or, for a node without one, its place). */
  key: string;
  status: NodeStatus;
  /** The node as in the newer version (the older one's for a removed node). */
  node: FlowNode;
  /** The older version's node, when there was one. */
  before?: FlowNode;
  /** Its own changed fields (child lists excluded), pointers relative to the node (`/request/url`). */
  changes: Change[];
  /** Also set when `status` is `changed` but the node moved too. */
  moved: boolean;
  /** Its child lists, merged the same way. */
  lists: { field: ChildField; nodes: DiffNode[] }[];
}

interface Place {
  node: FlowNode;
  parent: string;
  index: number;
}

/** Every node of `flow` by id, with its parent list (`flow`, or `<parentId>/<field>`) and index. */
function index(flow: FlowNode[]): Map<string, Place> {
  const map = new Map<string, Place>();
  const walk = (list: FlowNode[], parent: string) =>
    list.forEach((node, i) => {
      if (typeof node.id === 'string' && node.id && !map.has(node.id)) map.set(node.id, { node, parent, index: i });
      for (const l of childLists(node)) walk(l.nodes, `${node.id}/${l.field}`);
    });
  walk(flow, 'flow');
  return map;
}

/** `node` without its child lists (what "its own fields" means). */
function ownFields(node: FlowNode): Record<string, unknown> {
  const own: Record<string, unknown> = { ...(node as unknown as Record<string, unknown>) };
  for (const l of childLists(node)) delete own[l.field];
  return own;
}

/** A node of the older flow absent from the newer one, with its children (all removed). */
function removedTree(node: FlowNode, key: string): DiffNode {
  return {
    key,
    status: 'removed',
    node,
    before: node,
    changes: [],
    moved: false,
    lists: childLists(node).map((l) => ({
      field: l.field,
      nodes: l.nodes.map((c, i) => removedTree(c, c.id || `${key}/${l.field}/${i}`)),
    })),
  };
}

/**
 * The flows `before` and `after` merged into one tree: the newer flow's nodes in its order, each
 * compared with the node of the same id in the older flow; nodes only in the older flow are put
 * back where they were (in the same parent list at their old index, or inside their removed
 * parent). Nodes without an id are matched by place.
 */
export function diffFlow(before: FlowNode[], after: FlowNode[]): DiffNode[] {
  const old = index(before);
  // A node id the newer flow has anywhere: it moved or stayed, it was not removed.
  const newer = index(after);
  const merge = (list: FlowNode[], parent: string, oldList: FlowNode[] | undefined): DiffNode[] => {
    const nodes: DiffNode[] = list.map((node, i) => {
      const id = typeof node.id === 'string' && node.id ? node.id : undefined;
      const key = id ?? `${parent}/${i}`;
      const was = id ? old.get(id) : oldList?.[i] ? { node: oldList[i]!, parent, index: i } : undefined;
      const changes = was ? diffValues(ownFields(was.node), ownFields(node)) : [];
      // Moved: into another list. A shift within the same list (a node added or removed before it) is not a move.
      const moved = !!was && was.parent !== parent;
      const status: NodeStatus = !was ? 'added' : changes.length ? 'changed' : moved ? 'moved' : 'same';
      return {
        key,
        status,
        node,
        before: was?.node,
        changes,
        moved,
        lists: childLists(node).map((l) => ({
          field: l.field,
          nodes: merge(
            l.nodes,
            `${key}/${l.field}`,
            was ? childLists(was.node).find((x) => x.field === l.field)?.nodes : undefined,
          ),
        })),
      };
    });
    // Nodes of the older list at this place that are gone: back at their old index.
    const gone = (oldList ?? [])
      .map((n, i) => ({ n, i }))
      .filter(({ n }) => typeof n.id === 'string' && n.id && !newer.has(n.id));
    for (const { n, i } of gone) {
      nodes.splice(Math.min(i, nodes.length), 0, removedTree(n, n.id));
    }
    return nodes;
  };
  const tree = merge(after, 'flow', before);
  // Removed nodes whose old parent list is not in the merged tree (an IF that lost its `else`, a
  // container that changed type) are added at the end of the flow, so no removal goes unseen.
  const shown = new Set<string>();
  const walk = (list: DiffNode[]) =>
    list.forEach((d) => {
      shown.add(d.key);
      d.lists.forEach((l) => walk(l.nodes));
    });
  walk(tree);
  for (const [id, place] of old) {
    if (newer.has(id) || shown.has(id)) continue;
    const lost = removedTree(place.node, id);
    tree.push(lost);
    walk([lost]);
  }
  return tree;
}

/** How many nodes of a merged tree have each status (for a one-line summary). */
export function countStatuses(tree: DiffNode[]): Record<NodeStatus, number> {
  const counts: Record<NodeStatus, number> = { added: 0, removed: 0, changed: 0, moved: 0, same: 0 };
  const walk = (list: DiffNode[]) =>
    list.forEach((d) => {
      counts[d.status] += 1;
      d.lists.forEach((l) => walk(l.nodes));
    });
  walk(tree);
  return counts;
}
