/**
 * A row's menu (the "⋯" button, Shift+F10 or the context-menu key): every edit the keys and drag
 * and drop make, reachable by menu too — add after or inside,
 * duplicate, copy, cut, paste, disable/enable, wrap in IF/Loop/Parallel, unwrap, move into a
 * neighbouring container's branch or out of the current one, delete. The APG menu pattern: focus
 * on the first item, ↑/↓/Home/End, Enter or Space activates, Escape or Tab closes.
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import * as cmd from '../model/commands';
import type { Place } from '../model/commands';
import {
  childFieldsOf,
  childList,
  findById,
  isDisabled,
  locate,
  type ChildField,
  type FlowNode,
  type NodeId,
} from '../model/doc';
import type { Command, DesignerStore } from '../model/store';
import { listLabel, nodeTitle } from '../model/summary';
import { targets } from './keys';

/** One entry of the menu: a label and what it does (`undefined` entries are separators). */
export interface MenuEntry {
  label: string;
  act(): void;
}

/** The menu's props: the node, where to draw it, and how it acts (the tree passes its own runners). */
export interface NodeMenuProps {
  store: DesignerStore;
  id: NodeId;
  anchor: HTMLElement;
  run(command: Command): void;
  onPalette(place: Place): void;
  onCopy(ids: NodeId[]): void;
  onCut(ids: NodeId[]): void;
  onClose(): void;
}

/** The menu entries for node `id` in the store's current state (pure but for the callbacks). */
export function menuEntries(props: Omit<NodeMenuProps, 'anchor' | 'onClose'>): MenuEntry[] {
  const { store, id, run, onPalette, onCopy, onCut } = props;
  const state = store.getState();
  const flow = state.doc.flow;
  const node = findById(flow, id)?.node;
  if (!node) return [];
  const ids = targets(state, id);
  const readOnly = state.readOnly;
  const entries: MenuEntry[] = [];
  const push = (label: string, act: () => void) => entries.push({ label, act });
  const after = cmd.placeAfter(flow, id)!;
  if (!readOnly) {
    push('Add after…', () => onPalette(after));
    for (const field of childFieldsOf(node.type))
      push(`Add inside ${listLabel(field)}…`, () => onPalette(cmd.placeInside(flow, id, field)!));
    push('Duplicate', () => run(cmd.duplicateNodes(ids)));
  }
  push('Copy', () => onCopy(ids));
  if (!readOnly) {
    push('Cut', () => onCut(ids));
    if (state.clipboard?.length) {
      push('Paste after', () => run(cmd.pasteNodes(after)));
      for (const field of childFieldsOf(node.type))
        push(`Paste inside ${listLabel(field)}`, () => run(cmd.pasteNodes(cmd.placeInside(flow, id, field)!)));
    }
    push(isDisabled(node) ? 'Enable' : 'Disable', () => run(cmd.toggleDisabled(ids)));
    push('Wrap in IF', () => run(cmd.wrapNodes(ids, 'if')));
    push('Wrap in Loop', () => run(cmd.wrapNodes(ids, 'loop')));
    push('Wrap in Parallel', () => run(cmd.wrapNodes(ids, 'parallel')));
    if (childFieldsOf(node.type).length > 0) push('Unwrap', () => run(cmd.unwrapNode(id)));
    // Move into the branches of the containers next to it, or out of the one it is in.
    const at = locate(flow, id)!;
    const parent = at.list.parent === null ? undefined : findById(flow, at.list.parent)?.node;
    const siblings = parent ? childList(parent, at.list.field as ChildField) : flow;
    const neighbours = [siblings[at.index - 1], siblings[at.index + 1]].filter(
      (n): n is FlowNode => !!n && childFieldsOf(n.type).length > 0,
    );
    for (const container of neighbours)
      for (const field of childFieldsOf(container.type))
        push(`Move into ${nodeTitle(container)}, ${listLabel(field)}`, () =>
          run(cmd.moveNode(id, cmd.placeInside(flow, container.id, field)!)),
        );
    if (parent) {
      for (const field of childFieldsOf(parent.type))
        if (field !== at.list.field)
          push(`Move to ${listLabel(field)} of ${nodeTitle(parent)}`, () =>
            run(cmd.moveNode(id, cmd.placeInside(flow, parent.id, field)!)),
          );
      push(`Move out of ${nodeTitle(parent)}`, () => run(cmd.moveNode(id, cmd.placeAfter(flow, parent.id)!)));
    }
    push('Delete', () => run(cmd.deleteNodes(ids)));
  }
  return entries;
}

/** The row's menu, drawn below `anchor`. */
export function NodeMenu(props: NodeMenuProps) {
  const { anchor, onClose, store, id } = props;
  const [entries] = useState(() => menuEntries(props));
  const ref = useRef<HTMLUListElement>(null);
  const [pos, setPos] = useState<{ top: number; left: number }>();
  useLayoutEffect(() => {
    const box = anchor.getBoundingClientRect();
    setPos({ top: box.bottom + window.scrollY, left: Math.max(8, box.right - 260 + window.scrollX) });
  }, [anchor]);
  useEffect(() => ref.current?.querySelector<HTMLElement>('[role="menuitem"]')?.focus(), [pos]);
  const node = findById(store.getState().doc.flow, id)?.node;

  const items = () => [...(ref.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];
  const onKeyDown = (e: KeyboardEvent) => {
    const list = items();
    const i = list.indexOf(document.activeElement as HTMLElement);
    const to = (k: number) => list[(k + list.length) % list.length]?.focus();
    if (e.key === 'ArrowDown') to(i + 1);
    else if (e.key === 'ArrowUp') to(i - 1);
    else if (e.key === 'Home') to(0);
    else if (e.key === 'End') to(list.length - 1);
    else if (e.key === 'Escape' || e.key === 'Tab') onClose();
    else return;
    e.preventDefault();
  };

  return (
    <>
      <div class="dz-backdrop" onClick={onClose} />
      <ul
        ref={ref}
        role="menu"
        aria-label={node ? `Actions for ${node.name || node.id}` : 'Actions'}
        class="dz-menu"
        style={pos ? { top: `${pos.top}px`, left: `${pos.left}px` } : { visibility: 'hidden' }}
        onKeyDown={onKeyDown}
      >
        {entries.map((entry) => (
          <li
            key={entry.label}
            role="menuitem"
            tabIndex={-1}
            onClick={() => {
              onClose();
              entry.act();
            }}
            onKeyDown={(e) => {
              if (e.key === 'Enter' || e.key === ' ') {
                e.preventDefault();
                onClose();
                entry.act();
              }
            }}
          >
            {entry.label}
          </li>
        ))}
      </ul>
    </>
  );
}
