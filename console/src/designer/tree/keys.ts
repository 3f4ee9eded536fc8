/**
 * The designer tree's keyboard: one table, {@link KEYMAP}, maps
 * keys to actions; the tree's key handler and the help dialog both read it (Node-RED's keymap).
 * Pure: `keyAction(state, key)` answers what to do, never does it, and is unit-tested in node
 * (test/unit/designer-keys.test.ts). Navigation follows the WAI-ARIA APG Tree View pattern
 * (https://www.w3.org/WAI/ARIA/apg/patterns/treeview/): ↑/↓ move through the visible rows, → opens
 * a container or enters it, ← closes it or goes to the parent, Home/End. Ctrl means Ctrl or ⌘.
 */
import { childFieldsOf, childList, findById, locate, type FlowNode, type NodeId } from '../model/doc';
import * as cmd from '../model/commands';
import type { Command, DesignerState } from '../model/store';
import type { Place } from '../model/commands';

/** A key press as the handler sees it (a KeyboardEvent fits). `meta` (⌘) counts as Ctrl. */
export interface KeyInput {
  key: string;
  ctrl?: boolean;
  ctrlKey?: boolean;
  shift?: boolean;
  shiftKey?: boolean;
  alt?: boolean;
  altKey?: boolean;
  meta?: boolean;
  metaKey?: boolean;
}

/** What a key asks for; the tree carries it out. */
export type KeyAction =
  | { kind: 'command'; command: Command }
  | { kind: 'undo' }
  | { kind: 'redo' }
  | { kind: 'open'; id: NodeId }
  | { kind: 'palette'; place: Place }
  | { kind: 'copy'; ids: NodeId[] }
  | { kind: 'cut'; ids: NodeId[] }
  | { kind: 'paste'; place: Place }
  | { kind: 'menu'; id: NodeId }
  | { kind: 'help' };

/** One row of the keymap: the keys (as {@link comboOf} writes them), what they do, whether they edit. */
export interface KeyBinding {
  keys: string[];
  label: string;
  /** True when the action changes the test case (not offered when read-only). */
  edits: boolean;
  action(state: DesignerState, focus: NodeId | undefined): KeyAction | undefined;
}

/**
 * The key combination of an input, as the keymap writes it: modifiers in the order Ctrl, Alt,
 * Shift, then the key (`Ctrl+Shift+Z`, `Alt+ArrowUp`, `Space`, `?`). Letters are upper case;
 * Shift is left out for other printable characters (`?` is Shift+/ on many layouts).
 */
export function comboOf(input: KeyInput): string {
  const ctrl = input.ctrl ?? input.ctrlKey ?? false;
  const meta = input.meta ?? input.metaKey ?? false;
  const alt = input.alt ?? input.altKey ?? false;
  const shift = input.shift ?? input.shiftKey ?? false;
  let key = input.key === ' ' ? 'Space' : input.key;
  const printable = key.length === 1;
  if (printable && /[a-z]/i.test(key)) key = key.toUpperCase();
  const parts: string[] = [];
  if (ctrl || meta) parts.push('Ctrl');
  if (alt) parts.push('Alt');
  if (shift && !(printable && !/[A-Z]/.test(key))) parts.push('Shift');
  parts.push(key);
  return parts.join('+');
}

/** The ids of the rows shown, top to bottom: containers' children only when expanded. */
export function visibleIds(flow: FlowNode[], expanded: ReadonlySet<NodeId>): NodeId[] {
  const out: NodeId[] = [];
  const walk = (list: FlowNode[]) => {
    for (const node of list) {
      out.push(node.id);
      if (expanded.has(node.id)) for (const f of childFieldsOf(node.type)) walk(childList(node, f));
    }
  };
  walk(flow);
  return out;
}

/** The nodes an edit key acts on: the selection when it holds the focused node, else the focused node. */
export function targets(state: DesignerState, focus: NodeId | undefined): NodeId[] {
  if (!focus) return [];
  return state.selection.includes(focus) ? state.selection : [focus];
}

function step(state: DesignerState, focus: NodeId | undefined, delta: number): NodeId | undefined {
  const rows = visibleIds(state.doc.flow, state.expanded);
  if (rows.length === 0) return undefined;
  const i = focus ? rows.indexOf(focus) : -1;
  if (i < 0) return rows[0];
  return rows[Math.max(0, Math.min(rows.length - 1, i + delta))];
}

const go = (id: NodeId | undefined, selectIt = true): KeyAction | undefined =>
  id ? { kind: 'command', command: cmd.focusNode(id, selectIt) } : undefined;

const extend = (state: DesignerState, id: NodeId | undefined): KeyAction | undefined =>
  id
    ? {
        kind: 'command',
        command: cmd.select(state.selection.includes(id) ? state.selection : [...state.selection, id], id),
      }
    : undefined;

function isContainer(state: DesignerState, id: NodeId | undefined): FlowNode | undefined {
  const node = id ? findById(state.doc.flow, id)?.node : undefined;
  return node && childFieldsOf(node.type).length > 0 ? node : undefined;
}

/** Where Insert adds: after the focused node, or at the top of an empty flow. */
function placeHere(state: DesignerState, focus: NodeId | undefined): Place {
  return (
    (focus && cmd.placeAfter(state.doc.flow, focus)) || { parent: null, field: 'flow', index: state.doc.flow.length }
  );
}

/**
 * Every key of the tree. Space selects (APG multi-select), not "disable": disabling is Ctrl+/ —
 * "comment out", as code editors do — so a stray Space never changes the test case.
 */
export const KEYMAP: KeyBinding[] = [
  { keys: ['ArrowDown'], label: 'Next row', edits: false, action: (s, f) => go(step(s, f, 1)) },
  { keys: ['ArrowUp'], label: 'Previous row', edits: false, action: (s, f) => go(step(s, f, -1)) },
  {
    keys: ['Ctrl+ArrowDown', 'Ctrl+ArrowUp'],
    label: 'Move the focus without selecting',
    edits: false,
    action: () => undefined, // resolved in keyAction (the direction is the key's)
  },
  {
    keys: ['Shift+ArrowDown'],
    label: 'Extend the selection down',
    edits: false,
    action: (s, f) => extend(s, step(s, f, 1)),
  },
  {
    keys: ['Shift+ArrowUp'],
    label: 'Extend the selection up',
    edits: false,
    action: (s, f) => extend(s, step(s, f, -1)),
  },
  {
    keys: ['ArrowRight'],
    label: 'Open a container, or go to its first child',
    edits: false,
    action: (s, f) => {
      const node = isContainer(s, f);
      if (!node) return undefined;
      if (!s.expanded.has(node.id)) return { kind: 'command', command: cmd.setExpanded(node.id, true) };
      const first = childFieldsOf(node.type)
        .map((field) => childList(node, field)[0]?.id)
        .find(Boolean);
      return go(first);
    },
  },
  {
    keys: ['ArrowLeft'],
    label: 'Close a container, or go to the parent',
    edits: false,
    action: (s, f) => {
      const node = isContainer(s, f);
      if (node && s.expanded.has(node.id)) return { kind: 'command', command: cmd.setExpanded(node.id, false) };
      const parent = f ? locate(s.doc.flow, f)?.list.parent : null;
      return go(parent ?? undefined);
    },
  },
  { keys: ['Home'], label: 'First row', edits: false, action: (s) => go(visibleIds(s.doc.flow, s.expanded)[0]) },
  { keys: ['End'], label: 'Last row', edits: false, action: (s) => go(visibleIds(s.doc.flow, s.expanded).at(-1)) },
  {
    keys: ['Enter'],
    label: "Open the node's form",
    edits: false,
    action: (_s, f) => (f ? { kind: 'open', id: f } : undefined),
  },
  {
    keys: ['Space'],
    label: 'Select or deselect the row (Ctrl+click with the mouse)',
    edits: false,
    action: (_s, f) => (f ? { kind: 'command', command: cmd.toggleSelected(f) } : undefined),
  },
  {
    keys: ['Escape'],
    label: 'Select only the focused row',
    edits: false,
    action: (_s, f) => (f ? { kind: 'command', command: cmd.select([f], f) } : undefined),
  },
  {
    keys: ['Insert', 'A'],
    label: 'Add a node after this one (opens the palette)',
    edits: true,
    action: (s, f) => ({ kind: 'palette', place: placeHere(s, f) }),
  },
  {
    keys: ['Shift+Insert', 'Shift+A'],
    label: 'Add a node inside this container (then, body or lanes)',
    edits: true,
    action: (s, f) => {
      const place = f ? cmd.placeInside(s.doc.flow, f) : undefined;
      return place ? { kind: 'palette', place } : undefined;
    },
  },
  {
    keys: ['Alt+ArrowUp'],
    label: 'Move up (into and out of branches and bodies)',
    edits: true,
    action: (_s, f) => (f ? { kind: 'command', command: cmd.moveStep(f, true) } : undefined),
  },
  {
    keys: ['Alt+ArrowDown'],
    label: 'Move down (into and out of branches and bodies)',
    edits: true,
    action: (_s, f) => (f ? { kind: 'command', command: cmd.moveStep(f, false) } : undefined),
  },
  {
    keys: ['Ctrl+C'],
    label: 'Copy (also to the clipboard as JSON)',
    edits: false,
    action: (s, f) => nonEmpty('copy', targets(s, f)),
  },
  { keys: ['Ctrl+X'], label: 'Cut', edits: true, action: (s, f) => nonEmpty('cut', targets(s, f)) },
  {
    keys: ['Ctrl+V'],
    label: 'Paste after this node (JSON nodes or a test case from the clipboard)',
    edits: true,
    action: (s, f) => ({ kind: 'paste', place: placeHere(s, f) }),
  },
  {
    keys: ['Ctrl+D'],
    label: 'Duplicate',
    edits: true,
    action: (s, f) => command(targets(s, f), (ids) => cmd.duplicateNodes(ids)),
  },
  {
    keys: ['Delete', 'Backspace'],
    label: 'Delete',
    edits: true,
    action: (s, f) => command(targets(s, f), (ids) => cmd.deleteNodes(ids)),
  },
  {
    keys: ['Ctrl+/'],
    label: 'Disable or enable (the run skips a disabled node)',
    edits: true,
    action: (s, f) => command(targets(s, f), (ids) => cmd.toggleDisabled(ids)),
  },
  { keys: ['Ctrl+Z'], label: 'Undo', edits: true, action: () => ({ kind: 'undo' }) },
  { keys: ['Ctrl+Shift+Z', 'Ctrl+Y'], label: 'Redo', edits: true, action: () => ({ kind: 'redo' }) },
  {
    keys: ['Shift+F10', 'ContextMenu'],
    label: "Open the row's menu (wrap, unwrap, move into a branch…)",
    edits: false,
    action: (_s, f) => (f ? { kind: 'menu', id: f } : undefined),
  },
  { keys: ['?'], label: 'Show these keys', edits: false, action: () => ({ kind: 'help' }) },
];

function nonEmpty(kind: 'copy' | 'cut', ids: NodeId[]): KeyAction | undefined {
  return ids.length > 0 ? { kind, ids } : undefined;
}

function command(ids: NodeId[], make: (ids: NodeId[]) => Command): KeyAction | undefined {
  return ids.length > 0 ? { kind: 'command', command: make(ids) } : undefined;
}

const BY_COMBO = new Map<string, KeyBinding>(KEYMAP.flatMap((b) => b.keys.map((k) => [k, b] as const)));

/**
 * What the key does in `state` (focus: `state.focus`); undefined when nothing (the event is then
 * left to the browser). Edit keys do nothing while the store is read-only.
 */
export function keyAction(state: DesignerState, input: KeyInput): KeyAction | undefined {
  const combo = comboOf(input);
  const focus = state.focus;
  if (combo === 'Ctrl+ArrowDown') return go(step(state, focus, 1), false);
  if (combo === 'Ctrl+ArrowUp') return go(step(state, focus, -1), false);
  const binding = BY_COMBO.get(combo);
  if (!binding || (binding.edits && state.readOnly)) return undefined;
  return binding.action(state, focus);
}
