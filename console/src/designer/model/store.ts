/**
 * The designer's one state container, in the style of
 * console/src/session.ts: `getState`, `subscribe`, and `dispatch` of named commands (commands.ts),
 * plus undo/redo over a snapshot history (history.ts). No Preact here: `useDesigner`
 * (designer/use-designer.ts) binds it to components.
 *
 * Every state is a new object; the document inside is replaced only by an edit, so `state.doc`
 * identity says whether anything changed, and `dirty` is `doc !== base.doc`. After each change the
 * store keeps the state coherent: the selection holds only ids in the tree, `focus` names a node
 * in the tree (the first one when its node went; undefined only for an empty flow), and
 * containers new to the tree are expanded.
 */
import { childFieldsOf, type FlowNode, type NodeId, type ServerFields, type TestCaseDoc } from './doc';
import { emptyHistory, record, redo as redoStep, undo as undoStep, type History } from './history';
import { OpError } from './ops';
import { childLists } from '../../../../src/flow/tree';

/** What the store holds. Never mutated: each change makes a new state. */
export interface DesignerState {
  /** The test case as edited. */
  doc: TestCaseDoc;
  /** The test case as last loaded or saved, with the server's version and `updatedAt`. */
  base: { doc: TestCaseDoc; version?: ServerFields['version']; updatedAt?: string };
  /** Selected node ids, in the order they were selected. */
  selection: NodeId[];
  /** The node holding the tree's roving focus (tabindex 0). */
  focus: NodeId | undefined;
  /** Containers shown open. */
  expanded: ReadonlySet<NodeId>;
  /** Undo snapshots, oldest first. */
  past: TestCaseDoc[];
  /** Redo snapshots, next redo last. */
  future: TestCaseDoc[];
  /** No edits allowed (a read key, or the JSON view holds text that does not parse). */
  readOnly: boolean;
  /** `doc !== base.doc`. */
  dirty: boolean;
  /** Nodes last copied or cut in the designer (the internal clipboard). */
  clipboard: FlowNode[] | undefined;
}

/**
 * A named change: `label` is what menus, the help and announcements call it ("Move node");
 * `run` answers the next state (throwing ops.ts `OpError` to refuse, with a sentence). Edits that
 * share a `coalesce` key within 1 s are one undo step. `announce`, when given, says what happened
 * for the tree's `aria-live` region, from the state after.
 */
export interface Command {
  label: string;
  run(state: DesignerState): DesignerState;
  coalesce?: string;
  announce?(after: DesignerState): string;
}

/** What `dispatch` says: done (`changed`: the document changed), or refused with a sentence for the user. */
export type DispatchResult = { ok: true; changed: boolean; announcement?: string } | { ok: false; error: string };

/** The store's interface. */
export interface DesignerStore {
  getState(): DesignerState;
  /** Calls `listener` after every change; answers the unsubscribe function. */
  subscribe(listener: (state: DesignerState) => void): () => void;
  /** Runs `command`; refused when it throws an OpError, or edits the document while read-only. */
  dispatch(command: Command): DispatchResult;
  /** One step back; false when there is none (or read-only). */
  undo(): boolean;
  /** One step forward; false when there is none (or read-only). */
  redo(): boolean;
  /** After a save: `doc` (the document that was sent) becomes the base, with the server's version and `updatedAt`. History stays. */
  markSaved(doc: TestCaseDoc, version?: ServerFields['version'], updatedAt?: string): void;
  /** After a load or "reload theirs": `doc` becomes both the document and the base; history and selection are cleared. */
  resetTo(doc: TestCaseDoc, version?: ServerFields['version'], updatedAt?: string): void;
  /** Turns editing off or on (the JSON view's parse errors, a read key). */
  setReadOnly(readOnly: boolean): void;
}

/** How a store starts. `now` (ms) is the clock used for coalescing (tests pass their own). */
export interface StoreOptions {
  doc: TestCaseDoc;
  version?: ServerFields['version'];
  updatedAt?: string;
  readOnly?: boolean;
  now?: () => number;
}

/** Ids of every container in the tree (all expanded when a test case opens). */
export function containerIds(flow: FlowNode[]): NodeId[] {
  const out: NodeId[] = [];
  const walk = (list: FlowNode[]) => {
    for (const node of list) {
      if (childFieldsOf(node.type).length > 0) out.push(node.id);
      for (const l of childLists(node)) walk(l.nodes);
    }
  };
  walk(flow);
  return out;
}

function allIds(flow: FlowNode[]): Set<NodeId> {
  const ids = new Set<NodeId>();
  const walk = (list: FlowNode[]) => {
    for (const node of list) {
      ids.add(node.id);
      for (const l of childLists(node)) walk(l.nodes);
    }
  };
  walk(flow);
  return ids;
}

/** `next` made coherent after a change from `prev` (selection, focus, expansion, dirty). */
function settle(prev: DesignerState, next: DesignerState): DesignerState {
  const dirty = next.doc !== next.base.doc;
  if (next.doc === prev.doc && next.base === prev.base) return next.dirty === dirty ? next : { ...next, dirty };
  const ids = allIds(next.doc.flow);
  const selection = next.selection.filter((id) => ids.has(id));
  const focus = next.focus !== undefined && ids.has(next.focus) ? next.focus : (selection[0] ?? next.doc.flow[0]?.id);
  let expanded = next.expanded;
  if (next.doc.flow !== prev.doc.flow) {
    const before = allIds(prev.doc.flow);
    const fresh = containerIds(next.doc.flow).filter((id) => !before.has(id) && !expanded.has(id));
    if (fresh.length > 0) expanded = new Set([...expanded, ...fresh]);
  }
  return {
    ...next,
    dirty,
    selection: selection.length === next.selection.length ? next.selection : selection,
    focus,
    expanded,
  };
}

/** A designer store for `doc`; all containers start expanded and the first node focused. */
export function createDesignerStore(options: StoreOptions): DesignerStore {
  const now = options.now ?? (() => Date.now());
  const listeners = new Set<(state: DesignerState) => void>();
  let history: History = emptyHistory();
  const first = options.doc.flow[0]?.id;
  let state: DesignerState = {
    doc: options.doc,
    base: { doc: options.doc, version: options.version, updatedAt: options.updatedAt },
    selection: [],
    focus: first,
    expanded: new Set(containerIds(options.doc.flow)),
    past: [],
    future: [],
    readOnly: options.readOnly ?? false,
    dirty: false,
    clipboard: undefined,
  };

  const publish = (next: DesignerState) => {
    state = next;
    for (const listener of [...listeners]) listener(state);
  };
  const withHistory = (next: DesignerState): DesignerState => ({ ...next, past: history.past, future: history.future });

  return {
    getState: () => state,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    dispatch(command) {
      let next: DesignerState;
      try {
        next = command.run(state);
      } catch (err) {
        if (err instanceof OpError) return { ok: false, error: err.message };
        throw err;
      }
      const changed = next.doc !== state.doc;
      if (changed && state.readOnly) return { ok: false, error: 'The test case is read-only here.' };
      if (next === state) return { ok: true, changed: false };
      if (changed) history = record(history, state.doc, command.coalesce, now());
      const settled = settle(state, changed ? withHistory(next) : next);
      publish(settled);
      const announcement = command.announce?.(settled);
      return announcement ? { ok: true, changed, announcement } : { ok: true, changed };
    },
    undo() {
      if (state.readOnly) return false;
      const step = undoStep(history, state.doc);
      if (!step) return false;
      history = step.history;
      publish(settle(state, withHistory({ ...state, doc: step.doc })));
      return true;
    },
    redo() {
      if (state.readOnly) return false;
      const step = redoStep(history, state.doc);
      if (!step) return false;
      history = step.history;
      publish(settle(state, withHistory({ ...state, doc: step.doc })));
      return true;
    },
    markSaved(doc, version, updatedAt) {
      publish(settle(state, { ...state, base: { doc, version, updatedAt } }));
    },
    resetTo(doc, version, updatedAt) {
      history = emptyHistory();
      publish({
        ...state,
        doc,
        base: { doc, version, updatedAt },
        selection: [],
        focus: doc.flow[0]?.id,
        expanded: new Set(containerIds(doc.flow)),
        past: [],
        future: [],
        dirty: false,
      });
    },
    setReadOnly(readOnly) {
      if (readOnly !== state.readOnly) publish({ ...state, readOnly });
    },
  };
}
