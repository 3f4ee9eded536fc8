/**
 * Named commands: the one way the tree's keys, its menus, drag
 * and drop, the palette and the forms change the designer's state, through `store.dispatch`. Each
 * is `{label, run(state) => state}` (store.ts `Command`); one gesture is one command, so one undo
 * step (a multi-node paste, one drop). Commands that only move the selection, focus or expansion
 * leave the document as it is and make no undo step.
 */
import type { ChildField } from '../../../../src/flow/tree';
import {
  childFieldsOf,
  childList,
  findById,
  isInside,
  listPathOf,
  locate,
  nodeIds,
  newNodeId,
  type FlowNode,
  type FlowNodeType,
  type ListRef,
  type NodeId,
  type Path,
  type TestCaseDoc,
} from './doc';
import { prepareForPaste } from './clipboard';
import * as ops from './ops';
import { describePlace, nodeTitle, typeLabel } from './summary';
import type { Command, DesignerState } from './store';
import { template } from './templates';

export type { Command };

/** A place between nodes: position `index` of the top-level flow (`parent` null) or of a container's child list. */
export interface Place extends ListRef {
  index: number;
}

/** The place right after node `id` in its list; undefined when absent. */
export function placeAfter(flow: FlowNode[], id: NodeId): Place | undefined {
  const at = locate(flow, id);
  return at && { ...at.list, index: at.index + 1 };
}

/** The place right before node `id` in its list; undefined when absent. */
export function placeBefore(flow: FlowNode[], id: NodeId): Place | undefined {
  const at = locate(flow, id);
  return at && { ...at.list, index: at.index };
}

/** The end of container `id`'s child list `field` (default: its first list); undefined when `id` is no container. */
export function placeInside(flow: FlowNode[], id: NodeId, field?: ChildField): Place | undefined {
  const node = findById(flow, id)?.node;
  if (!node) return undefined;
  const fields = childFieldsOf(node.type);
  const f = field ?? fields[0];
  if (!f || !fields.includes(f)) return undefined;
  return { parent: id, field: f, index: childList(node, f).length };
}

function listPath(doc: TestCaseDoc, place: ListRef): Path {
  const path = listPathOf(doc.flow, place);
  if (!path) throw new ops.OpError('That place is no longer in the flow.');
  return path;
}

function title(doc: TestCaseDoc, id: NodeId): string {
  const node = findById(doc.flow, id)?.node;
  return node ? nodeTitle(node) : id;
}

function expand(state: DesignerState, ids: Array<NodeId | null>): ReadonlySet<NodeId> {
  const add = ids.filter((id): id is NodeId => id !== null && !state.expanded.has(id));
  return add.length === 0 ? state.expanded : new Set([...state.expanded, ...add]);
}

// ---------------------------------------------------------------------------------------------
// Selection, focus, expansion (no document change, no undo step)

/** Selects `ids` (focus on the last, or `focus`). */
export function select(ids: NodeId[], focus?: NodeId): Command {
  return {
    label: 'Select',
    run: (s) => ({ ...s, selection: ids, focus: focus ?? ids[ids.length - 1] ?? s.focus }),
  };
}

/** Moves the focus to `id`; with `select`, the selection becomes just `id`. */
export function focusNode(id: NodeId, selectIt = true): Command {
  return {
    label: 'Focus',
    run: (s) =>
      s.focus === id && (!selectIt || (s.selection.length === 1 && s.selection[0] === id))
        ? s
        : { ...s, focus: id, selection: selectIt ? [id] : s.selection },
  };
}

/** Adds `id` to the selection, or takes it out. */
export function toggleSelected(id: NodeId): Command {
  return {
    label: 'Toggle selection',
    run: (s) => ({
      ...s,
      focus: id,
      selection: s.selection.includes(id) ? s.selection.filter((x) => x !== id) : [...s.selection, id],
    }),
  };
}

/** Opens (`open` true) or closes container `id`'s children. */
export function setExpanded(id: NodeId, open: boolean): Command {
  return {
    label: open ? 'Expand' : 'Collapse',
    run: (s) => {
      if (s.expanded.has(id) === open) return s;
      const expanded = new Set(s.expanded);
      if (open) expanded.add(id);
      else expanded.delete(id);
      return { ...s, expanded };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Edits

/** Inserts `nodes` (ids made fresh where they clash, references renamed) at `place`; selects them. */
export function insertNodes(place: Place, nodes: FlowNode[], label = 'Insert nodes'): Command {
  return {
    label,
    run: (s) => {
      const ready = prepareForPaste(nodes, nodeIds(s.doc.flow));
      const doc = ops.insert(s.doc, listPath(s.doc, place), place.index, ready);
      const ids = ready.map((n) => n.id);
      return { ...s, doc, selection: ids, focus: ids[0], expanded: expand(s, [place.parent]) };
    },
    announce: (after) =>
      nodes.length === 1 && after.focus
        ? `${title(after.doc, after.focus)} added ${describePlace(after.doc.flow, after.focus)}`
        : `${nodes.length} nodes added`,
  };
}

/** The id of the nearest API node before `place` (in tree order), for templates that read one. */
function previousApiId(flow: FlowNode[], place: Place): NodeId | undefined {
  const order: FlowNode[] = [];
  let stop = -1;
  const walk = (list: FlowNode[], ref: ListRef) => {
    list.forEach((node, i) => {
      if (ref.parent === place.parent && ref.field === place.field && i === place.index) stop = order.length;
      order.push(node);
      for (const f of childFieldsOf(node.type)) walk(childList(node, f), { parent: node.id, field: f });
    });
    if (ref.parent === place.parent && ref.field === place.field && list.length <= place.index && stop < 0)
      stop = order.length;
  };
  walk(flow, { parent: null, field: 'flow' });
  const before = stop < 0 ? order : order.slice(0, stop);
  return [...before].reverse().find((n) => n.type === 'api')?.id;
}

/** Adds a new node of `type` (templates.ts) at `place`, selected and focused. `testCaseId` for a Ref node. */
export function addNode(type: FlowNodeType, place: Place, testCaseId?: string): Command {
  return {
    label: `Add ${typeLabel(type)}`,
    run: (s) => {
      const id = newNodeId(s.doc.flow, type);
      const node = template(type, { id, previousApiId: previousApiId(s.doc.flow, place), testCaseId });
      return insertNodes(place, [node]).run(s);
    },
    announce: (after) =>
      after.focus ? `${title(after.doc, after.focus)} added ${describePlace(after.doc.flow, after.focus)}` : '',
  };
}

/** Deletes these nodes (with their children); the focus goes to the next node, else the previous, else the parent. */
export function deleteNodes(ids: NodeId[]): Command {
  let said = '';
  return {
    label: 'Delete',
    run: (s) => {
      if (ids.length === 0) return s;
      const first = ids[0]!;
      const at = locate(s.doc.flow, first);
      said = ids.length === 1 ? `${title(s.doc, first)} deleted` : `${ids.length} nodes deleted`;
      const doc = ops.remove(s.doc, ids);
      let focus: NodeId | undefined;
      if (at) {
        const path = listPathOf(doc.flow, at.list);
        const parent = at.list.parent === null ? undefined : findById(doc.flow, at.list.parent)?.node;
        const list = at.list.parent === null ? doc.flow : parent ? childList(parent, at.list.field as ChildField) : [];
        focus = path ? (list[at.index]?.id ?? list[at.index - 1]?.id ?? parent?.id) : undefined;
      }
      return { ...s, doc, selection: focus ? [focus] : [], focus };
    },
    announce: () => said,
  };
}

/** Moves node `id` to `place` (`index` counted before the move); refused into its own subtree. One undo step. */
export function moveNode(id: NodeId, place: Place): Command {
  return {
    label: 'Move',
    run: (s) => {
      const doc = ops.move(s.doc, id, listPath(s.doc, place), place.index);
      return { ...s, doc, focus: id, selection: [id], expanded: expand(s, [place.parent]) };
    },
    announce: (after) => `${title(after.doc, id)} moved ${describePlace(after.doc.flow, id)}`,
  };
}

/**
 * Where Alt+↑ (`up`) or Alt+↓ takes node `id`, one step through the tree: past a sibling leaf;
 * into a neighbouring container's nearest list (its end going up, its start going down); from the
 * start or end of a child list into the container's other list (IF `then` ⇄ `else`), or out before
 * or after the container. Undefined at the top or bottom of the flow.
 */
export function stepPlace(flow: FlowNode[], id: NodeId, up: boolean): Place | undefined {
  const at = locate(flow, id);
  if (!at) return undefined;
  const parent = at.list.parent === null ? undefined : findById(flow, at.list.parent)?.node;
  const list = parent ? childList(parent, at.list.field as ChildField) : flow;
  const neighbour = list[at.index + (up ? -1 : 1)];
  if (neighbour) {
    const fields = childFieldsOf(neighbour.type);
    if (fields.length > 0) {
      const field = up ? fields[fields.length - 1]! : fields[0]!;
      return { parent: neighbour.id, field, index: up ? childList(neighbour, field).length : 0 };
    }
    return { ...at.list, index: up ? at.index - 1 : at.index + 2 };
  }
  if (!parent) return undefined;
  const fields = childFieldsOf(parent.type);
  const k = fields.indexOf(at.list.field as ChildField);
  const other = fields[k + (up ? -1 : 1)];
  if (other) return { parent: parent.id, field: other, index: up ? childList(parent, other).length : 0 };
  const outer = locate(flow, parent.id)!;
  return { ...outer.list, index: up ? outer.index : outer.index + 1 };
}

/** Alt+↑ / Alt+↓: moves node `id` one step ({@link stepPlace}); nothing at the ends of the flow. */
export function moveStep(id: NodeId, up: boolean): Command {
  const inner = (place: Place) => moveNode(id, place);
  return {
    label: up ? 'Move up' : 'Move down',
    run: (s) => {
      const place = stepPlace(s.doc.flow, id, up);
      return place ? inner(place).run(s) : s;
    },
    announce: (after) => `${title(after.doc, id)} moved ${describePlace(after.doc.flow, id)}`,
  };
}

/** Duplicates these nodes, each copy after its original; the copies are selected. */
export function duplicateNodes(ids: NodeId[]): Command {
  return {
    label: 'Duplicate',
    run: (s) => {
      const doc = ops.duplicate(s.doc, ids);
      const added = ops.addedIds(s.doc.flow, doc.flow);
      const tops = added.filter((id) => !added.some((o) => o !== id && isInside(doc.flow, o, id)));
      return { ...s, doc, selection: tops, focus: tops[0] ?? s.focus };
    },
    announce: (after) => (after.focus ? `Duplicated as ${title(after.doc, after.focus)}` : ''),
  };
}

/** Disables these nodes, or enables them when all are disabled (`disabled: true`; enabling removes the key). */
export function toggleDisabled(ids: NodeId[]): Command {
  return {
    label: 'Disable / enable',
    run: (s) => ({ ...s, doc: ops.toggleDisabled(s.doc, ids) }),
    announce: (after) => {
      const node = ids[0] ? findById(after.doc.flow, ids[0])?.node : undefined;
      return node
        ? `${ids.length === 1 ? nodeTitle(node) : `${ids.length} nodes`} ${(node as { disabled?: boolean }).disabled ? 'disabled' : 'enabled'}`
        : '';
    },
  };
}

/** Wraps these sibling nodes in a new IF, Loop or Parallel, which is focused. */
export function wrapNodes(ids: NodeId[], kind: ops.WrapKind): Command {
  let wrapper = '';
  return {
    label: `Wrap in ${typeLabel(kind)}`,
    run: (s) => {
      wrapper = newNodeId(s.doc.flow, kind);
      const doc = ops.wrap(s.doc, ids, kind, wrapper);
      return { ...s, doc, selection: [wrapper], focus: wrapper, expanded: expand(s, [wrapper]) };
    },
    announce: (after) => `Wrapped in ${title(after.doc, wrapper)}`,
  };
}

/** Replaces container `id` by its children; the first child is focused. */
export function unwrapNode(id: NodeId): Command {
  return {
    label: 'Unwrap',
    run: (s) => {
      const node = findById(s.doc.flow, id)?.node;
      const firstChild = node
        ? childFieldsOf(node.type)
            .map((f) => childList(node, f)[0]?.id)
            .find(Boolean)
        : undefined;
      const doc = ops.unwrap(s.doc, id);
      return { ...s, doc, focus: firstChild, selection: firstChild ? [firstChild] : [] };
    },
    announce: () => 'Unwrapped',
  };
}

function nodesOf(doc: TestCaseDoc, ids: NodeId[]): FlowNode[] {
  const outer = ids.filter((id) => !ids.some((o) => o !== id && isInside(doc.flow, o, id)));
  return outer.map((id) => findById(doc.flow, id)?.node).filter((n): n is FlowNode => !!n);
}

/** Copies these nodes to the internal clipboard (the tree also writes their JSON to the system clipboard). */
export function copyNodes(ids: NodeId[]): Command {
  return {
    label: 'Copy',
    run: (s) => ({ ...s, clipboard: nodesOf(s.doc, ids) }),
    announce: () => (ids.length === 1 ? 'Copied' : `${ids.length} nodes copied`),
  };
}

/** Cuts these nodes: copied to the internal clipboard, then deleted (one undo step). */
export function cutNodes(ids: NodeId[]): Command {
  return {
    label: 'Cut',
    run: (s) => deleteNodes(ids).run({ ...s, clipboard: nodesOf(s.doc, ids) }),
    announce: () => (ids.length === 1 ? 'Cut' : `${ids.length} nodes cut`),
  };
}

/** Pastes `nodes` (default: the internal clipboard) at `place`, ids made fresh, as one undo step. */
export function pasteNodes(place: Place, nodes?: FlowNode[]): Command {
  return {
    label: 'Paste',
    run: (s) => {
      const what = nodes ?? s.clipboard;
      if (!what || what.length === 0) throw new ops.OpError('Nothing to paste: copy a node first.');
      return insertNodes(place, what, 'Paste').run(s);
    },
    announce: (after) =>
      after.selection.length === 1 && after.focus
        ? `${title(after.doc, after.focus)} pasted ${describePlace(after.doc.flow, after.focus)}`
        : `${after.selection.length} nodes pasted`,
  };
}

/** Sets a field of node `id` (`['request', 'url']`; `undefined` deletes it). Edits of one field within 1 s are one undo step. */
export function setNodeField(id: NodeId, fieldPath: Path, value: unknown, label = 'Edit field'): Command {
  return {
    label,
    coalesce: `node:${id}:${JSON.stringify(fieldPath)}`,
    run: (s) => {
      const doc = ops.setField(s.doc, id, fieldPath, value);
      // A rename moves the selection and focus with the node.
      if (fieldPath[0] === 'id' && typeof value === 'string' && doc !== s.doc)
        return {
          ...s,
          doc,
          selection: s.selection.map((x) => (x === id ? value : x)),
          focus: s.focus === id ? value : s.focus,
          expanded: s.expanded.has(id) ? new Set([...s.expanded, value]) : s.expanded,
        };
      return { ...s, doc };
    },
  };
}

/** Replaces node `id` as a whole (a form that edits several fields at once). */
export function replaceNode(id: NodeId, node: FlowNode, label = 'Edit node'): Command {
  return { label, coalesce: `node:${id}:*`, run: (s) => ({ ...s, doc: ops.replaceNode(s.doc, id, node) }) };
}

/** Sets a field of the test case (`name`, `tags`, `hooks`…); edits of one field within 1 s are one step. */
export function setTestCaseField<K extends keyof TestCaseDoc>(key: K, value: TestCaseDoc[K] | undefined): Command {
  return {
    label: `Edit ${key}`,
    coalesce: `doc:${key}`,
    run: (s) => ({ ...s, doc: ops.setDocField(s.doc, key, value) }),
  };
}

/** The JSON view's edit: the whole flow replaced ("Edit JSON"; typing within 1 s is one step). */
export function replaceFlow(flow: FlowNode[]): Command {
  return { label: 'Edit JSON', coalesce: 'json', run: (s) => ({ ...s, doc: ops.replaceFlow(s.doc, flow) }) };
}
