/**
 * Undo and redo as a stack of whole documents: documents share
 * structure, so a snapshot costs little and no command needs an inverse. At most
 * {@link HISTORY_LIMIT} steps are kept (the oldest go). Edits with the same coalescing key (the
 * same field of the same node) less than {@link COALESCE_MS} after the one before merge into one
 * step, so typing a URL is undone at once, not letter by letter.
 */
import type { TestCaseDoc } from './doc';

/** Undo steps kept at most. */
export const HISTORY_LIMIT = 200;
/** Milliseconds within which edits of the same field merge into one undo step. */
export const COALESCE_MS = 1000;

/** The past (oldest first) and future (next redo last) documents, and the last edit's key and time. */
export interface History {
  past: TestCaseDoc[];
  future: TestCaseDoc[];
  lastKey?: string;
  lastAt?: number;
}

/** An empty history. */
export function emptyHistory(): History {
  return { past: [], future: [] };
}

/**
 * The history after an edit that replaced `before`: `before` is pushed (unless the edit merges
 * with the previous one: same `key`, within {@link COALESCE_MS} of it, `now` in ms), the future is
 * dropped.
 */
export function record(history: History, before: TestCaseDoc, key: string | undefined, now: number): History {
  const merge =
    key !== undefined &&
    key === history.lastKey &&
    history.lastAt !== undefined &&
    now - history.lastAt < COALESCE_MS &&
    history.past.length > 0;
  const past = merge ? history.past : [...history.past, before].slice(-HISTORY_LIMIT);
  return { past, future: [], lastKey: key, lastAt: now };
}

/** Undo from `current`: the document to show and the history after; undefined when there is nothing to undo. */
export function undo(history: History, current: TestCaseDoc): { doc: TestCaseDoc; history: History } | undefined {
  const doc = history.past[history.past.length - 1];
  if (!doc) return undefined;
  return { doc, history: { past: history.past.slice(0, -1), future: [...history.future, current] } };
}

/** Redo from `current`; undefined when there is nothing to redo. */
export function redo(history: History, current: TestCaseDoc): { doc: TestCaseDoc; history: History } | undefined {
  const doc = history.future[history.future.length - 1];
  if (!doc) return undefined;
  return {
    doc,
    history: { past: [...history.past, current].slice(-HISTORY_LIMIT), future: history.future.slice(0, -1) },
  };
}
