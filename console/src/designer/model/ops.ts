/**
 * Pure operations on the designer's document: each takes a
 * {@link TestCaseDoc} and answers a new one that shares every untouched node with the old (so
 * unchanged tree rows keep their identity and are not drawn again), or the same document when
 * nothing changes. They never mutate their arguments.
 *
 * Child lists are walked only through src/flow/tree.ts `childLists`/`mapChildLists`, and the child
 * fields a type may have come from the flow schemas (doc.ts `childFieldsOf`), so a new container
 * type is taught in one place. An operation that cannot be done (a move into the node's own
 * subtree, an unknown id, a clashing id) throws an {@link OpError} whose message says why, in
 * words the designer shows as they are.
 */
import { childLists, mapChildLists, type ChildField } from '../../../../src/flow/tree';
import {
  childFieldsOf,
  findById,
  isDisabled,
  isInside,
  listPathOf,
  listRefOf,
  locate,
  newNodeId,
  nodeIds,
  type FlowNode,
  type NodeId,
  type Path,
  type TestCaseDoc,
} from './doc';
import { renameReferences } from './rename';
import { template } from './templates';

/** An operation refused; `message` is a sentence for the user ("A node cannot be moved into itself."). */
export class OpError extends Error {
  override name = 'OpError';
}

/** The node id pattern of the flow schema (src/validation/flow-schemas.ts `NODE_ID`). */
export const NODE_ID_PATTERN = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;

// ---------------------------------------------------------------------------------------------
// Structural helpers

/** `node` with its child list `field` replaced by `fn(list)`; an absent list a type allows (IF `else`) is made first. */
function withList(node: FlowNode, field: ChildField, fn: (nodes: FlowNode[]) => FlowNode[]): FlowNode {
  let base = node;
  if (!childLists(node).some((l) => l.field === field)) {
    if (!childFieldsOf(node.type).includes(field)) throw new OpError(`A ${node.type} node has no "${field}" list.`);
    base = { ...node, [field]: [] } as FlowNode;
  }
  let changed = base !== node;
  const next = mapChildLists(base, (nodes, f) => {
    if (f !== field) return nodes;
    const out = fn(nodes);
    if (out !== nodes) changed = true;
    return out;
  });
  return changed ? next : node;
}

/** `list` with the node at `rest` (`[2, 'then', 0]`, relative to `list`) replaced by `fn(node)`. */
function updateNodeIn(list: FlowNode[], rest: Path, fn: (node: FlowNode) => FlowNode): FlowNode[] {
  const [index, field, ...more] = rest;
  const node = typeof index === 'number' ? list[index] : undefined;
  if (!node) throw new OpError('That place is not in the flow.');
  const next =
    field === undefined ? fn(node) : withList(node, field as ChildField, (nodes) => updateNodeIn(nodes, more, fn));
  if (next === node) return list;
  const copy = list.slice();
  copy[index as number] = next;
  return copy;
}

/** `flow` with the list at `listPath` (`['flow']`, `['flow', 2, 'then']`) replaced by `fn(list)`. */
function updateList(flow: FlowNode[], listPath: Path, fn: (nodes: FlowNode[]) => FlowNode[]): FlowNode[] {
  if (listPath[0] !== 'flow' || listPath.length % 2 !== 1) throw new OpError('That place is not a list of nodes.');
  if (listPath.length === 1) return fn(flow);
  const field = listPath[listPath.length - 1] as ChildField;
  return updateNodeIn(flow, listPath.slice(1, -1), (node) => withList(node, field, fn));
}

/** The document with a new flow; the same document when the flow is the same list. */
function withFlow(doc: TestCaseDoc, flow: FlowNode[]): TestCaseDoc {
  return flow === doc.flow ? doc : { ...doc, flow };
}

/**
 * `list` with `fn` applied to every node, depth first, children before their node (post-order);
 * a node whose children and self are unchanged keeps its identity, and so does the list.
 */
function mapTree(list: FlowNode[], fn: (node: FlowNode) => FlowNode | null): FlowNode[] {
  let changed = false;
  const out: FlowNode[] = [];
  for (const node of list) {
    let kids = false;
    const rebuilt = mapChildLists(node, (nodes) => {
      const next = mapTree(nodes, fn);
      if (next !== nodes) kids = true;
      return next;
    });
    const mapped = fn(kids ? rebuilt : node);
    if (mapped !== node) changed = true;
    if (mapped !== null) out.push(mapped);
  }
  return changed ? out : list;
}

function must(doc: TestCaseDoc, id: NodeId) {
  const found = findById(doc.flow, id);
  if (!found) throw new OpError(`No node has the id "${id}".`);
  return found;
}

// ---------------------------------------------------------------------------------------------
// Operations

/**
 * Inserts `nodes` into the list at `listPath` before position `index` (clamped to 0…length; an
 * absent IF `else` is created). Their ids must be set and unused in the document (prepare pasted or
 * new nodes with clipboard.ts `withFreshIds`): a clash throws.
 */
export function insert(doc: TestCaseDoc, listPath: Path, index: number, nodes: FlowNode[]): TestCaseDoc {
  if (nodes.length === 0) return doc;
  const used = nodeIds(doc.flow);
  const incoming = nodeIds(nodes);
  let count = 0;
  const countAll = (list: FlowNode[]) => {
    for (const n of list) {
      count += 1;
      if (typeof n.id !== 'string' || !NODE_ID_PATTERN.test(n.id))
        throw new OpError(`A node to insert has no valid id (${JSON.stringify(n.id)}).`);
      for (const l of childLists(n)) countAll(l.nodes);
    }
  };
  countAll(nodes);
  if (incoming.size !== count) throw new OpError('The nodes to insert repeat an id.');
  for (const id of incoming) if (used.has(id)) throw new OpError(`The id "${id}" is already used in this test case.`);
  return withFlow(
    doc,
    updateList(doc.flow, listPath, (list) => {
      const at = Math.max(0, Math.min(list.length, Math.trunc(index)));
      return [...list.slice(0, at), ...nodes, ...list.slice(at)];
    }),
  );
}

/** Removes the nodes with these ids, with everything inside them; unknown ids are ignored. */
export function remove(doc: TestCaseDoc, ids: Iterable<NodeId>): TestCaseDoc {
  const gone = new Set(ids);
  if (gone.size === 0) return doc;
  return withFlow(
    doc,
    mapTree(doc.flow, (node) => (gone.has(node.id) ? null : node)),
  );
}

/**
 * Moves node `id` into the list at `toListPath`, to stand before what is now at `index` there
 * (`index` counts the list as it is before the move; within the node's own list, a later index is
 * shifted down by one, so "before the node after me" is a no-op). Refused (OpError) into the node's
 * own subtree. Keeps the node's identity, so it is one undo step and its row only moves.
 */
export function move(doc: TestCaseDoc, id: NodeId, toListPath: Path, index: number): TestCaseDoc {
  const from = locate(doc.flow, id);
  if (!from) throw new OpError(`No node has the id "${id}".`);
  const target = listRefOf(doc.flow, toListPath);
  if (!target) throw new OpError('That place is not a list of nodes.');
  const fromPath = [...from.listPath, from.index];
  if (toListPath.length > fromPath.length && fromPath.every((s, k) => toListPath[k] === s))
    throw new OpError('A node cannot be moved into itself.');
  const sameList = from.list.parent === target.parent && from.list.field === target.field;
  let at = Math.max(0, Math.trunc(index));
  if (sameList && at > from.index) at -= 1;
  if (sameList && at === from.index) return doc;
  const moving = must(doc, id).node;
  const without = remove(doc, [id]);
  const listPath = listPathOf(without.flow, target);
  if (!listPath) throw new OpError('That place is not in the flow.');
  return withFlow(
    without,
    updateList(without.flow, listPath, (list) => {
      const i = Math.min(list.length, at);
      return [...list.slice(0, i), moving, ...list.slice(i)];
    }),
  );
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `obj` with `value` at `path` (objects and arrays made as needed: a number key makes an array); `obj` itself when nothing changes. */
function setIn(obj: unknown, path: Path, value: unknown): unknown {
  const [key, ...rest] = path;
  if (key === undefined) return value;
  if (Array.isArray(obj) || isPlainObject(obj)) {
    const record = obj as Record<string | number, unknown>;
    const current = record[key];
    const next = setIn(current, rest, value);
    if (Object.is(next, current) && String(key) in record) return obj;
    if (Array.isArray(obj)) {
      const copy = obj.slice();
      copy[key as number] = next;
      return copy;
    }
    return { ...obj, [key]: next };
  }
  const next = setIn(undefined, rest, value);
  if (typeof key === 'number') {
    const list: unknown[] = [];
    list[key] = next;
    return list;
  }
  return { [key]: next };
}

/** `obj` without what is at `path` (an array element is spliced out); objects left empty are removed too. */
function deleteIn(obj: unknown, path: Path): unknown {
  const [key, ...rest] = path;
  if (key === undefined) return undefined;
  if (Array.isArray(obj)) {
    if (typeof key !== 'number' || key >= obj.length) return obj;
    if (rest.length === 0) return [...obj.slice(0, key), ...obj.slice(key + 1)];
    const child = deleteIn(obj[key], rest);
    if (child === obj[key]) return obj;
    const copy = obj.slice();
    copy[key] = child;
    return copy;
  }
  if (!isPlainObject(obj) || !(String(key) in obj)) return obj;
  const copy = { ...obj };
  if (rest.length === 0) {
    delete copy[key];
    return copy;
  }
  const child = deleteIn(obj[key], rest);
  if (child === obj[key]) return obj;
  if (isPlainObject(child) && Object.keys(child).length === 0) delete copy[key];
  else copy[key] = child;
  return copy;
}

/**
 * Sets a field of node `nodeId`: `fieldPath` is relative to the node (`['request', 'url']`,
 * `['assertions', 0, 'expected']`). `value` undefined deletes the key (an array element is spliced
 * out), and objects the delete leaves empty are removed (`headers: {}` goes). `type` and child lists
 * are not fields (OpError: use the tree); `['id']` renames the node ({@link renameNode}).
 */
export function setField(doc: TestCaseDoc, nodeId: NodeId, fieldPath: Path, value: unknown): TestCaseDoc {
  const found = must(doc, nodeId);
  const [first] = fieldPath;
  if (first === undefined) throw new OpError('Name a field of the node.');
  if (first === 'type') throw new OpError("A node's type cannot be changed; add a node of the other type.");
  if (childFieldsOf(found.node.type).includes(first as ChildField))
    throw new OpError(`"${first}" holds child nodes: edit them in the tree.`);
  if (first === 'id') {
    if (fieldPath.length !== 1 || typeof value !== 'string') throw new OpError('An id is text.');
    return renameNode(doc, nodeId, value);
  }
  return withFlow(
    doc,
    updateNodeIn(
      doc.flow,
      found.path.slice(1),
      (node) => (value === undefined ? deleteIn(node, fieldPath) : setIn(node, fieldPath, value)) as FlowNode,
    ),
  );
}

/** Replaces node `nodeId` with `node` (same id required, children included as given). */
export function replaceNode(doc: TestCaseDoc, nodeId: NodeId, node: FlowNode): TestCaseDoc {
  const found = must(doc, nodeId);
  if (node.id !== nodeId) throw new OpError('The replacement must keep the id; rename with setField(["id"]).');
  return withFlow(
    doc,
    updateNodeIn(doc.flow, found.path.slice(1), () => node),
  );
}

/**
 * Gives node `from` the id `to`, and rewrites every `nodes.<from>` reference in the test case's
 * expressions and templates to `nodes.<to>`. OpError when `to` is not an id (schema pattern
 * `^[A-Za-z_][A-Za-z0-9_-]{0,63}$`) or is taken.
 */
export function renameNode(doc: TestCaseDoc, from: NodeId, to: NodeId): TestCaseDoc {
  must(doc, from);
  if (from === to) return doc;
  if (!NODE_ID_PATTERN.test(to))
    throw new OpError('An id starts with a letter or _ and has only letters, digits, _ and - (at most 64).');
  if (nodeIds(doc.flow).has(to)) throw new OpError(`The id "${to}" is already used in this test case.`);
  const map = new Map([[from, to]]);
  const flow = renameReferences(doc.flow, map);
  return withFlow(
    doc,
    mapTree(flow, (node) => (node.id === from ? ({ ...node, id: to } as FlowNode) : node)),
  );
}

/** Sets a field of the test case itself (`name`, `tags`, `hooks`, …); `undefined` removes an optional one (`hooks`). */
export function setDocField<K extends keyof TestCaseDoc>(
  doc: TestCaseDoc,
  key: K,
  value: TestCaseDoc[K] | undefined,
): TestCaseDoc {
  if (Object.is(doc[key], value)) return doc;
  if (key === 'flow') return replaceFlow(doc, value as FlowNode[]);
  const next = { ...doc };
  if (value === undefined) delete next[key];
  else next[key] = value;
  return next;
}

/** The document with `flow` as its flow (the JSON view's edits, imports): one step, nothing checked here. */
export function replaceFlow(doc: TestCaseDoc, flow: FlowNode[]): TestCaseDoc {
  return withFlow(doc, flow);
}

/**
 * Copies of `nodes` (deep, through child lists) whose ids are fresh: a missing, invalid or taken id
 * (in `used`, or earlier in `nodes`) becomes a new one from the node's type (`api3`); ids given
 * and free are kept. References `nodes.<old>` inside the copies to a renamed node become
 * `nodes.<new>`. `used` is extended with every id given out.
 */
export function withFreshIds(nodes: FlowNode[], used: Set<NodeId>): FlowNode[] {
  const renamed = new Map<NodeId, NodeId>();
  const assign = (list: FlowNode[]): FlowNode[] =>
    list.map((node) => {
      const given = typeof node.id === 'string' ? node.id : '';
      let id = given;
      if (!given || !NODE_ID_PATTERN.test(given) || used.has(given)) {
        id = newNodeId(used, given && NODE_ID_PATTERN.test(given) ? given : node.type);
        if (given) renamed.set(given, id);
      }
      used.add(id);
      const { id: _old, ...rest } = node as FlowNode & Record<string, unknown>;
      return mapChildLists({ id, ...rest } as unknown as FlowNode, (children) => assign(children));
    });
  const copies = assign(nodes);
  return renamed.size > 0 ? renameReferences(copies, renamed) : copies;
}

/**
 * Duplicates the nodes with these ids: each copy (with fresh ids, its inner references renamed)
 * goes right after its original. A node inside another duplicated node is copied with it only.
 */
export function duplicate(doc: TestCaseDoc, ids: NodeId[]): TestCaseDoc {
  const outer = [...new Set(ids)].filter((id) => !ids.some((other) => other !== id && isInside(doc.flow, other, id)));
  const used = nodeIds(doc.flow);
  let next = doc;
  for (const id of outer) {
    const at = locate(next.flow, id);
    if (!at) throw new OpError(`No node has the id "${id}".`);
    const [copy] = withFreshIds([findById(next.flow, id)!.node], used);
    next = insert(next, at.listPath, at.index + 1, [copy!]);
  }
  return next;
}

/** Sets `disabled: true` on these nodes (the engine skips them), or removes the key when `disabled` is false. */
export function setDisabled(doc: TestCaseDoc, ids: NodeId[], disabled: boolean): TestCaseDoc {
  const set = new Set(ids);
  return withFlow(
    doc,
    mapTree(doc.flow, (node) => {
      if (!set.has(node.id) || isDisabled(node) === disabled) return node;
      if (disabled) return { ...node, disabled: true } as FlowNode;
      const { disabled: _d, ...rest } = node as FlowNode & { disabled?: boolean };
      return rest as FlowNode;
    }),
  );
}

/** Disables these nodes, or enables them all when every one is disabled already. */
export function toggleDisabled(doc: TestCaseDoc, ids: NodeId[]): TestCaseDoc {
  const nodes = ids.map((id) => findById(doc.flow, id)?.node).filter((n): n is FlowNode => !!n);
  if (nodes.length === 0) return doc;
  return setDisabled(doc, ids, !nodes.every((n) => isDisabled(n)));
}

/** The container kinds nodes can be wrapped in. */
export type WrapKind = 'if' | 'loop' | 'parallel';

/**
 * Wraps the nodes with these ids (siblings of one list; OpError otherwise) in a new IF (into
 * `then`, condition `true`), Loop (into `body`, count 1) or Parallel (each node a lane): the
 * container takes the place of the first of them. `wrapperId` names it (default: a fresh id).
 */
export function wrap(doc: TestCaseDoc, ids: NodeId[], kind: WrapKind, wrapperId?: NodeId): TestCaseDoc {
  if (ids.length === 0) return doc;
  const places = ids.map((id) => {
    const at = locate(doc.flow, id);
    if (!at) throw new OpError(`No node has the id "${id}".`);
    return at;
  });
  const listKey = JSON.stringify(places[0]!.listPath);
  if (places.some((p) => JSON.stringify(p.listPath) !== listKey))
    throw new OpError('Only nodes side by side in one list can be wrapped together.');
  const ordered = [...new Set(places.map((p) => p.index))].sort((a, b) => a - b);
  const used = nodeIds(doc.flow);
  const id = wrapperId ?? newNodeId(used, kind);
  if (used.has(id)) throw new OpError(`The id "${id}" is already used in this test case.`);
  const listPath = places[0]!.listPath;
  const flow = updateList(doc.flow, listPath, (list) => {
    const inside = ordered.map((i) => list[i]!);
    const base = template(kind, { id }) as FlowNode & Record<string, unknown>;
    const field = childFieldsOf(kind)[0]!;
    const wrapper = { ...base, [field]: inside } as FlowNode;
    const keep = list.filter((_n, i) => !ordered.includes(i));
    const at = ordered[0]!;
    return [...keep.slice(0, at), wrapper, ...keep.slice(at)];
  });
  return withFlow(doc, flow);
}

/** Replaces container `id` by its children (IF: `then` then `else`; Loop/Iteration `body`; Parallel lanes), in place. */
export function unwrap(doc: TestCaseDoc, id: NodeId): TestCaseDoc {
  const at = locate(doc.flow, id);
  if (!at) throw new OpError(`No node has the id "${id}".`);
  const node = must(doc, id).node;
  if (childFieldsOf(node.type).length === 0)
    throw new OpError('Only IF, Loop, Iteration and Parallel nodes can be unwrapped.');
  const children = childLists(node).flatMap((l) => l.nodes);
  return withFlow(
    doc,
    updateList(doc.flow, at.listPath, (list) => [...list.slice(0, at.index), ...children, ...list.slice(at.index + 1)]),
  );
}

/** Ids present in `after` but not in `before` (what an insert, paste or duplicate added), in tree order. */
export function addedIds(before: FlowNode[], after: FlowNode[]): NodeId[] {
  const old = nodeIds(before);
  return [...nodeIds(after)].filter((id) => !old.has(id));
}
