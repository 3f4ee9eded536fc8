/**
 * A text input that completes what is typed in it, following the WAI-ARIA APG "Combobox" pattern
 * (editable, list autocomplete): the input is a `combobox` with `aria-expanded`,
 * `aria-controls` (its `listbox`), `aria-autocomplete="list"` and `aria-activedescendant`. The
 * caller decides, for the text and the caret, what is being completed and with which items
 * (`complete`): `{{` opens variables in a template, a dotted name opens names in an expression.
 *
 * Keys while the list is open: ↓/↑ move (wrapping), Enter or Tab takes the active item, Escape
 * closes (a second Escape is left to the page). Alt+↓ opens it. A click on an item takes it.
 * Taking an item replaces `from`–`to` with its `insert` (default its name) and puts the caret after.
 *
 * `highlight` paints the text behind the (transparent) input: a mirror of the same font and
 * padding, scrolled with it, `aria-hidden`.
 */
import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';

/** One completion: shown as `name` and `detail`; `insert` is what is written (default `name`). */
export interface ComboboxItem {
  name: string;
  detail?: string;
  insert?: string;
}

/** What to complete at the caret: replace `from`–`to` with an item; no items closes the list. */
export interface Completion {
  from: number;
  to: number;
  items: ComboboxItem[];
}

/** Properties of {@link Combobox}; other input attributes (`id`, `aria-describedby`, …) pass through. */
export interface ComboboxProps extends Omit<
  JSX.InputHTMLAttributes<HTMLInputElement>,
  'value' | 'onInput' | 'role' | 'list'
> {
  value: string;
  onValue: (value: string) => void;
  complete: (text: string, caret: number) => Completion | null;
  /** Accessible name of the list ("Variables"). */
  listLabel?: string;
  /** Paints the text behind the input (see the module's notes). */
  highlight?: (text: string) => ComponentChildren;
}

/** A text input with a completion list (see the module's notes). */
export function Combobox({ value, onValue, complete, listLabel = 'Suggestions', highlight, ...rest }: ComboboxProps) {
  const uid = useId();
  const input = useRef<HTMLInputElement>(null);
  const mirror = useRef<HTMLDivElement>(null);
  const [open, setOpen] = useState<Completion | null>(null);
  const [active, setActive] = useState(0);
  const pendingCaret = useRef<number | null>(null);

  const refresh = (text: string, caret: number | null) => {
    if (caret === null || rest.readOnly || rest.disabled) return setOpen(null);
    const c = complete(text, caret);
    setOpen(c && c.items.length ? c : null);
    setActive(0);
  };
  const sync = () => {
    if (mirror.current && input.current) mirror.current.scrollLeft = input.current.scrollLeft;
  };
  useEffect(() => {
    const el = input.current;
    if (el && pendingCaret.current !== null) {
      el.setSelectionRange(pendingCaret.current, pendingCaret.current);
      pendingCaret.current = null;
    }
    sync();
  });

  const take = (item: ComboboxItem) => {
    if (!open) return;
    const insert = item.insert ?? item.name;
    const next = value.slice(0, open.from) + insert + value.slice(open.to);
    pendingCaret.current = open.from + insert.length;
    setOpen(null);
    onValue(next);
  };

  const onKeyDown = (e: JSX.TargetedKeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'ArrowDown' && e.altKey && !open) {
      e.preventDefault();
      refresh(e.currentTarget.value, e.currentTarget.selectionStart);
      return;
    }
    if (!open) return;
    const n = open.items.length;
    if (e.key === 'ArrowDown') setActive((a) => (a + 1) % n);
    else if (e.key === 'ArrowUp') setActive((a) => (a - 1 + n) % n);
    else if (e.key === 'Enter' || e.key === 'Tab') take(open.items[Math.min(active, n - 1)]!);
    else if (e.key === 'Escape') setOpen(null);
    else return;
    e.preventDefault();
    e.stopPropagation();
  };

  const listId = `${uid}-list`;
  const field = (
    <input
      {...rest}
      ref={input}
      value={value}
      role="combobox"
      autocomplete="off"
      spellcheck={false}
      aria-autocomplete="list"
      aria-expanded={open ? 'true' : 'false'}
      aria-controls={listId}
      aria-activedescendant={open ? `${uid}-opt-${active}` : undefined}
      onInput={(e) => {
        const el = e.currentTarget;
        onValue(el.value);
        refresh(el.value, el.selectionStart);
      }}
      onKeyDown={onKeyDown}
      onKeyUp={(e) => {
        if (e.key === 'ArrowLeft' || e.key === 'ArrowRight' || e.key === 'Home' || e.key === 'End')
          refresh(e.currentTarget.value, e.currentTarget.selectionStart);
        sync();
      }}
      onScroll={sync}
      onBlur={(e) => {
        setOpen(null);
        rest.onBlur?.(e);
      }}
    />
  );
  return (
    <div class={`combobox${highlight ? ' combobox-painted' : ''}`}>
      {highlight && (
        <div class="combobox-mirror" aria-hidden="true" ref={mirror}>
          {highlight(value)}
          {'\u200b'}
        </div>
      )}
      {field}
      <ul id={listId} role="listbox" aria-label={listLabel} class="combobox-list" hidden={!open}>
        {open?.items.map((item, i) => (
          <li
            key={`${item.name}-${i}`}
            id={`${uid}-opt-${i}`}
            role="option"
            aria-selected={i === active}
            class={i === active ? 'combobox-active' : undefined}
            onMouseDown={(e) => {
              e.preventDefault();
              take(item);
            }}
          >
            <span class="combobox-name">{item.name}</span>
            {item.detail && <span class="combobox-detail">{item.detail}</span>}
          </li>
        ))}
      </ul>
    </div>
  );
}
