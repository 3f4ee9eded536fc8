/**
 * Tabs following the WAI-ARIA APG "Tabs" pattern (automatic activation): a `tablist` named by
 * `label`, one `tab` per entry (`aria-selected`, `aria-controls`, roving `tabindex`: only the
 * selected tab is in the Tab order), ←/→ move and select (wrapping), Home/End go to the first/last;
 * the selected panel is a `tabpanel` named by its tab and focusable. Only the selected panel is
 * rendered. Selection is the caller's (`selected`, `onSelect`) or kept here when not given.
 */
import type { ComponentChildren } from 'preact';
import { useId, useRef, useState } from 'preact/hooks';

/** One tab: `id` (stable, unique in the list), the tab's text, an optional count badge and its panel. */
export interface TabSpec {
  id: string;
  label: string;
  /** Shown after the label (`Headers 2`); an error count when `alert`. */
  badge?: number | string;
  alert?: boolean;
  panel: () => ComponentChildren;
}

/** Properties of {@link Tabs}. */
export interface TabsProps {
  /** Accessible name of the tab list ("Request"). */
  label: string;
  tabs: TabSpec[];
  selected?: string;
  onSelect?: (id: string) => void;
  class?: string;
}

/** Tabs and the selected tab's panel (see the module's notes for the keys). */
export function Tabs({ label, tabs, selected, onSelect, class: cls }: TabsProps) {
  const [own, setOwn] = useState(tabs[0]?.id ?? '');
  const uid = useId();
  const list = useRef<HTMLDivElement>(null);
  const current = tabs.find((t) => t.id === (selected ?? own)) ?? tabs[0];
  const select = (id: string, focus: boolean) => {
    if (selected === undefined) setOwn(id);
    onSelect?.(id);
    if (focus) list.current?.querySelector<HTMLElement>(`[data-tab="${CSS.escape(id)}"]`)?.focus();
  };
  const onKeyDown = (e: KeyboardEvent) => {
    const i = tabs.findIndex((t) => t.id === current?.id);
    let next = -1;
    if (e.key === 'ArrowRight') next = (i + 1) % tabs.length;
    else if (e.key === 'ArrowLeft') next = (i - 1 + tabs.length) % tabs.length;
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = tabs.length - 1;
    if (next < 0) return;
    e.preventDefault();
    select(tabs[next]!.id, true);
  };
  return (
    <div class={`tabs${cls ? ` ${cls}` : ''}`}>
      <div role="tablist" aria-label={label} class="tabs-list" ref={list} onKeyDown={onKeyDown}>
        {tabs.map((t) => {
          const on = t.id === current?.id;
          return (
            <button
              key={t.id}
              type="button"
              role="tab"
              id={`${uid}-tab-${t.id}`}
              data-tab={t.id}
              aria-selected={on}
              aria-controls={`${uid}-panel-${t.id}`}
              tabIndex={on ? 0 : -1}
              class={`tabs-tab${on ? ' tabs-tab-on' : ''}`}
              onClick={() => select(t.id, false)}
            >
              {t.label}
              {t.badge !== undefined && t.badge !== 0 && t.badge !== '' && (
                <span class={`tabs-badge${t.alert ? ' tabs-badge-alert' : ''}`}>{t.badge}</span>
              )}
            </button>
          );
        })}
      </div>
      {current && (
        <div
          role="tabpanel"
          id={`${uid}-panel-${current.id}`}
          aria-labelledby={`${uid}-tab-${current.id}`}
          tabIndex={0}
          class="tabs-panel"
        >
          {current.panel()}
        </div>
      )}
    </div>
  );
}
