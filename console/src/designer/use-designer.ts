/**
 * Binds the designer store (model/store.ts) to Preact components: `useDesigner(store, selector)`
 * answers `selector(state)` and re-renders the component only when that value changes (by
 * `equal`, `Object.is` by default). Select small values (a node, a boolean) so that an edit
 * re-renders only the rows it touched.
 */
import { useLayoutEffect, useReducer, useRef } from 'preact/hooks';
import type { DesignerState, DesignerStore } from './model/store';

/** `selector(store.getState())`, kept current: the component re-renders when the selected value changes. */
export function useDesigner<T>(
  store: DesignerStore,
  selector: (state: DesignerState) => T,
  equal: (a: T, b: T) => boolean = Object.is,
): T {
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const value = selector(store.getState());
  const latest = useRef({ selector, value, equal });
  latest.current = { selector, value, equal };
  useLayoutEffect(() => {
    const check = () => {
      const { selector: select, value: shown, equal: same } = latest.current;
      if (!same(select(store.getState()), shown)) rerender(0);
    };
    check(); // the state may have changed between render and subscription
    return store.subscribe(check);
  }, [store]);
  return value;
}
