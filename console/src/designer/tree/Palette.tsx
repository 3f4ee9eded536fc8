/**
 * The palette: every node type (src/domain/types.ts `NODE_TYPES`) with a line saying what it does,
 * filtered as you type, as an ARIA listbox driven from a search box (the APG combobox pattern with
 * a list that is always open: ↑/↓ choose, Enter adds, Escape closes). The chosen type's template
 * (model/templates.ts) is inserted at `place` as one command; the new node is then selected and
 * focused in the tree.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import * as cmd from '../model/commands';
import type { Place } from '../model/commands';
import type { FlowNodeType } from '../model/doc';
import type { DesignerStore } from '../model/store';
import { describePlace } from '../model/summary';
import { PALETTE_TYPES, TYPE_DESCRIPTIONS } from '../model/templates';
import { typeLabel } from '../model/summary';

/** Types whose label, name or description contains `query` (case-insensitive), in palette order. */
export function filterTypes(query: string): FlowNodeType[] {
  const q = query.trim().toLowerCase();
  if (!q) return [...PALETTE_TYPES];
  return PALETTE_TYPES.filter((t) =>
    [t, typeLabel(t), TYPE_DESCRIPTIONS[t]].some((text) => text.toLowerCase().includes(q)),
  );
}

/** The palette's props: where to insert, and `onClose(announcement?)` after adding (with what to announce) or cancelling. */
export interface PaletteProps {
  store: DesignerStore;
  place: Place;
  onClose(added?: string): void;
  /** A reusable test case's id for a new Ref node. */
  testCaseId?: string;
}

/** The searchable list of node types. */
export function Palette({ store, place, onClose, testCaseId }: PaletteProps) {
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const [error, setError] = useState('');
  const input = useRef<HTMLInputElement>(null);
  const types = useMemo(() => filterTypes(query), [query]);
  const current = types[Math.min(active, types.length - 1)];
  useEffect(() => input.current?.focus(), []);

  const add = (type: FlowNodeType) => {
    const result = store.dispatch(cmd.addNode(type, place, testCaseId));
    if (!result.ok) return setError(result.error);
    const focus = store.getState().focus;
    onClose(result.announcement ?? (focus ? describePlace(store.getState().doc.flow, focus) : undefined));
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const n = types.length;
      if (n) setActive((i) => (Math.min(i, n - 1) + (e.key === 'ArrowDown' ? 1 : n - 1)) % n);
    } else if (e.key === 'Home' && e.ctrlKey) {
      setActive(0);
    } else if (e.key === 'Enter') {
      e.preventDefault();
      if (current) add(current);
    } else if (e.key === 'Escape') {
      e.preventDefault();
      onClose();
    }
  };

  return (
    <div class="dz-palette dz-dialog" role="dialog" aria-label="Add a node" onKeyDown={onKeyDown}>
      <label class="field">
        <span class="field-label">Add a node</span>
        <input
          ref={input}
          type="search"
          role="combobox"
          aria-expanded="true"
          aria-controls="dz-palette-list"
          aria-autocomplete="list"
          aria-activedescendant={current ? `dz-palette-${current}` : undefined}
          placeholder="Search node types"
          value={query}
          onInput={(e) => {
            setQuery((e.target as HTMLInputElement).value);
            setActive(0);
          }}
        />
      </label>
      <ul id="dz-palette-list" role="listbox" aria-label="Node types" class="dz-palette-list">
        {types.map((type) => (
          <li
            key={type}
            id={`dz-palette-${type}`}
            role="option"
            aria-selected={type === current}
            class={type === current ? 'dz-active' : undefined}
            onMouseDown={(e) => e.preventDefault()}
            onClick={() => add(type)}
          >
            <strong>{typeLabel(type)}</strong> <span class="muted">{TYPE_DESCRIPTIONS[type]}</span>
          </li>
        ))}
        {types.length === 0 && <li class="muted">No node type matches “{query}”.</li>}
      </ul>
      {error && (
        <p class="field-error" role="alert">
          {error}
        </p>
      )}
      <button type="button" class="secondary small" onClick={() => onClose()}>
        Cancel
      </button>
    </div>
  );
}
