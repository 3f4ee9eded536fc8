/**
 * Data hooks of the console: load once ({@link useLoad}), poll while something is live
 * ({@link usePoll}), and remember a value in storage ({@link useStored}).
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { problemOf, type Problem } from './api';

/** The state of a load: the data once it arrived, the problem when it failed. */
export interface Loaded<T> {
  data: T | undefined;
  problem: Problem | undefined;
  loading: boolean;
  /** Loads again (after an edit, or by a "retry" button). */
  reload: () => void;
  /**
   * Shows `data` as loaded without asking the API again: for an edit whose answer is the new
   * state, so the page shows it the moment the edit lands (a load still under way replaces it).
   */
  replace: (data: T) => void;
}

/** Runs `load` when `deps` change; keeps the previous data while reloading (no layout jump). */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [problem, setProblem] = useState<Problem | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const ctl = new AbortController();
    setLoading(true);
    load(ctl.signal).then(
      (d) => {
        if (ctl.signal.aborted) return;
        setData(d);
        setProblem(undefined);
        setLoading(false);
      },
      (err) => {
        if (ctl.signal.aborted) return;
        setProblem(problemOf(err));
        setLoading(false);
      },
    );
    return () => ctl.abort();
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  const replace = useCallback((d: T) => {
    setData(d);
    setProblem(undefined);
  }, []);
  return { data, problem, loading, reload, replace };
}

/**
 * Like {@link useLoad}, then again every `intervalMs` while `live(data)` holds (a running run, a
 * list with running runs). Each answer replaces the data in place.
 */
export function usePoll<T>(
  load: (signal: AbortSignal) => Promise<T>,
  deps: unknown[],
  intervalMs: number,
  live: (data: T | undefined) => boolean,
): Loaded<T> {
  const state = useLoad(load, deps);
  const liveNow = live(state.data);
  const reloadRef = useRef(state.reload);
  reloadRef.current = state.reload;
  useEffect(() => {
    if (!liveNow || state.loading) return;
    const t = setTimeout(() => reloadRef.current(), intervalMs);
    return () => clearTimeout(t);
  }, [liveNow, state.loading, state.data, intervalMs]);
  return state;
}

/** Runs an action (a button's click), keeping its problem to show and a busy flag. */
export function useAction<A extends unknown[], R>(action: (...args: A) => Promise<R>) {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem | undefined>(undefined);
  const run = useCallback(
    async (...args: A): Promise<R | undefined> => {
      setBusy(true);
      setProblem(undefined);
      try {
        return await action(...args);
      } catch (err) {
        setProblem(problemOf(err));
        return undefined;
      } finally {
        setBusy(false);
      }
    },
    [action],
  );
  return { run, busy, problem, clear: () => setProblem(undefined) };
}
