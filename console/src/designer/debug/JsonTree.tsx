/**
 * A JSON value as a collapsible tree (docs/console.md "The designer": a
 * small JSON tree of our own, with a button on every value). Objects and arrays open and close
 * with a button (`aria-expanded`; Tab reaches each, Enter or Space toggles it); their children
 * are rendered only once opened, and at most {@link PAGE} at a time, "Show more" for the rest. When `actions`
 * is given every value has a menu button (`Actions for <path>`): a WAI-ARIA menu button
 * (https://www.w3.org/WAI/ARIA/apg/patterns/menu-button/): ↓/↑ move, Enter runs, Escape closes and
 * gives focus back. An action may first ask for a text (an extraction's variable name), in a small
 * form under the value.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { PathSegment } from './paths';

/** Children shown per object or array before "Show more". */
export const PAGE = 100;

/** One entry of a value's menu. */
export interface JsonTreeAction {
  label: string;
  /** Ask for a text first (prefilled with `initial`), then run with it. */
  ask?: { label: string; initial: string };
  run: (text?: string) => void;
}

/** Props of {@link JsonTree}. */
export interface JsonTreeProps {
  value: unknown;
  /** The tree's accessible name (`Response body`). */
  label: string;
  /** The menu of the value at `segments` (none: no menu buttons). */
  actions?: (segments: PathSegment[], value: unknown) => JsonTreeAction[];
  /** Levels open at first (default 1: the top object's children are listed). */
  openDepth?: number;
  /** Whether the whole value has a menu too (default true; false for a list of headers). */
  rootMenu?: boolean;
}

/** The path of a value in words, for names: `items[0].id`, `content-type`, `a["x-y"]`, `(root)`. */
export function pathLabel(segments: readonly PathSegment[]): string {
  if (segments.length === 0) return '(root)';
  return segments
    .map((s, i) =>
      typeof s === 'number'
        ? `[${s}]`
        : i === 0 && s !== ''
          ? s
          : /^[A-Za-z_$][\w$]*$/.test(s)
            ? `.${s}`
            : `[${JSON.stringify(s)}]`,
    )
    .join('');
}

/** A collapsible tree of `value`; see the module's notes. */
export function JsonTree({ value, label, actions, openDepth = 1, rootMenu = true }: JsonTreeProps) {
  return (
    <div class="dzd-json" role="group" aria-label={label}>
      <Entry name={undefined} value={value} segments={[]} actions={actions} openDepth={openDepth} rootMenu={rootMenu} />
    </div>
  );
}

function scalarText(v: unknown): string {
  return typeof v === 'string' ? JSON.stringify(v) : v === undefined ? 'undefined' : String(v);
}

function Entry({
  name,
  value,
  segments,
  actions,
  openDepth,
  rootMenu = true,
}: {
  name: ComponentChildren;
  value: unknown;
  segments: PathSegment[];
  actions?: JsonTreeProps['actions'];
  openDepth: number;
  rootMenu?: boolean;
}) {
  const [open, setOpen] = useState(segments.length < openDepth);
  const [shown, setShown] = useState(PAGE);
  const menu =
    actions && (rootMenu || segments.length > 0) ? (
      <ValueMenu segments={segments} value={value} actions={actions} />
    ) : null;
  const key = name !== undefined ? <span class="dzd-json-key">{name}: </span> : null;
  if (value === null || typeof value !== 'object') {
    return (
      <div class="dzd-json-row">
        {key}
        <span class={`dzd-json-${value === null ? 'null' : typeof value}`}>{scalarText(value)}</span>
        {menu}
      </div>
    );
  }
  const isArray = Array.isArray(value);
  const entries: [PathSegment, unknown][] = isArray
    ? (value as unknown[]).map((v, i) => [i, v])
    : Object.entries(value as Record<string, unknown>);
  const summary = isArray ? `[${entries.length}]` : `{${entries.length}}`;
  return (
    <div class="dzd-json-node">
      <div class="dzd-json-row">
        <button
          type="button"
          class="dzd-json-toggle"
          aria-expanded={open}
          aria-label={`${open ? 'Close' : 'Open'} ${pathLabel(segments)}`}
          onClick={() => setOpen(!open)}
        >
          <span aria-hidden="true">{open ? '▾' : '▸'}</span>
        </button>
        {key}
        <span class="dzd-json-count">{summary}</span>
        {menu}
      </div>
      {open && (
        <div class="dzd-json-children">
          {entries.slice(0, shown).map(([k, v]) => (
            <Entry
              key={String(k)}
              name={k}
              value={v}
              segments={[...segments, k]}
              actions={actions}
              openDepth={openDepth}
            />
          ))}
          {entries.length > shown && (
            <button type="button" class="secondary small" onClick={() => setShown((n) => n + PAGE)}>
              Show more ({entries.length - shown} left)
            </button>
          )}
        </div>
      )}
    </div>
  );
}

/** The menu button of one value, and the text form of an action that asks for one. */
function ValueMenu({
  segments,
  value,
  actions,
}: {
  segments: PathSegment[];
  value: unknown;
  actions: NonNullable<JsonTreeProps['actions']>;
}) {
  const [open, setOpen] = useState(false);
  const [asking, setAsking] = useState<JsonTreeAction>();
  const [text, setText] = useState('');
  const button = useRef<HTMLButtonElement>(null);
  const list = useRef<HTMLUListElement>(null);
  const input = useRef<HTMLInputElement>(null);
  const items = open ? actions(segments, value) : [];
  const where = pathLabel(segments);

  // Layout effects: focus moves as the menu or the form appears, before the next key is read.
  useLayoutEffect(() => {
    if (open) list.current?.querySelector<HTMLElement>('[role=menuitem]')?.focus();
  }, [open]);
  useLayoutEffect(() => {
    input.current?.select();
    input.current?.focus();
  }, [asking]);
  useEffect(() => {
    if (!open) return;
    const away = (e: MouseEvent) => {
      if (!list.current?.contains(e.target as Node) && e.target !== button.current) setOpen(false);
    };
    document.addEventListener('mousedown', away);
    return () => document.removeEventListener('mousedown', away);
  }, [open]);

  const choose = (a: JsonTreeAction) => {
    setOpen(false);
    if (a.ask) {
      setAsking(a);
      setText(a.ask.initial);
    } else {
      a.run();
      button.current?.focus();
    }
  };
  const onMenuKey = (e: KeyboardEvent) => {
    const all = [...(list.current?.querySelectorAll<HTMLElement>('[role=menuitem]') ?? [])];
    const i = all.indexOf(document.activeElement as HTMLElement);
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      all[(i + (e.key === 'ArrowDown' ? 1 : all.length - 1)) % all.length]?.focus();
    } else if (e.key === 'Home' || e.key === 'End') {
      e.preventDefault();
      all[e.key === 'Home' ? 0 : all.length - 1]?.focus();
    } else if (e.key === 'Escape' || e.key === 'Tab') {
      if (e.key === 'Escape') e.preventDefault();
      setOpen(false);
      button.current?.focus();
    }
  };

  return (
    <span class="dzd-json-menu">
      <button
        ref={button}
        type="button"
        class="dzd-json-menu-button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-label={`Actions for ${where}`}
        title={`Assert or extract ${where}`}
        onClick={() => setOpen(!open)}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown') {
            e.preventDefault();
            setOpen(true);
          }
        }}
      >
        ⋯
      </button>
      {open && (
        <ul ref={list} class="dzd-menu" role="menu" aria-label={`Actions for ${where}`} onKeyDown={onMenuKey}>
          {items.map((a) => (
            <li
              key={a.label}
              role="menuitem"
              tabIndex={-1}
              onClick={() => choose(a)}
              onKeyDown={(e) => {
                if (e.key === 'Enter' || e.key === ' ') {
                  e.preventDefault();
                  choose(a);
                }
              }}
            >
              {a.label}
            </li>
          ))}
        </ul>
      )}
      {asking?.ask && (
        <form
          class="dzd-ask"
          aria-label={asking.label}
          onSubmit={(e) => {
            e.preventDefault();
            if (!text.trim()) return;
            asking.run(text.trim());
            setAsking(undefined);
            button.current?.focus();
          }}
          onKeyDown={(e) => {
            if (e.key === 'Escape') {
              e.preventDefault();
              setAsking(undefined);
              button.current?.focus();
            }
          }}
        >
          <label>
            {asking.ask.label}{' '}
            <input ref={input} class="mono" value={text} onInput={(e) => setText(e.currentTarget.value)} />
          </label>
          <button type="submit" class="small" disabled={!text.trim()}>
            Add
          </button>
          <button
            type="button"
            class="secondary small"
            onClick={() => {
              setAsking(undefined);
              button.current?.focus();
            }}
          >
            Cancel
          </button>
        </form>
      )}
    </span>
  );
}
