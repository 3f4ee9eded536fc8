/**
 * Helpers shared by the resource pages: reading every page of a listing, JSON text in editors
 * (parse errors with their offset, API field errors mapped onto an editor that holds one part of
 * the document), typed variable values, and small display pieces. The list pages' frame: list.tsx.
 */
import type { ComponentChildren } from 'preact';
import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { api, type FieldError, type Page, type Problem } from '../api';
import { pointerRange, type EditorMark } from '../ui/editor';

/**
 * Every item of a listing (docs/api.md "Lists and paging"): asks `path` with `limit=200`, then
 * follows `nextCursor` until it is null. `maxPages` bounds the loop (50 pages = 10,000 items).
 */
export async function listAll<T>(path: string, signal?: AbortSignal, maxPages = 50): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  for (let n = 0; n < maxPages; n++) {
    const sep = path.includes('?') ? '&' : '?';
    const url = `${path}${sep}limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const page: Page<T> = await api<Page<T>>('GET', url, undefined, { signal });
    items.push(...page.items);
    cursor = page.nextCursor;
    if (!cursor) break;
  }
  return items;
}

/** `encodeURIComponent` for one path segment (names may hold `.` and `-` only, ids are safe). */
export const seg = (s: string) => encodeURIComponent(s);

/** A JSON value as indented text (two spaces), as the editors show it. */
export const pretty = (value: unknown) => JSON.stringify(value, null, 2);

/** The outcome of reading an editor's JSON: the value, or the first syntax error and its range. */
export type JsonRead = { ok: true; value: unknown } | { ok: false; message: string; mark: EditorMark };

/**
 * Parses `text` as strict JSON (no comments, no trailing commas). On a syntax error gives the
 * message and its range, for the editor's lint mark; nothing is sent to the API then.
 */
export function readJson(text: string, what: string): JsonRead {
  if (!text.trim())
    return { ok: false, message: `${what} is empty: write a JSON value`, mark: { from: 0, to: 0, message: 'empty' } };
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, {
    allowTrailingComma: false,
    disallowComments: true,
    allowEmptyContent: false,
  });
  if (errors.length > 0) {
    const e = errors[0]!;
    const line = text.slice(0, e.offset).split('\n').length;
    const message = `${what} is not valid JSON: ${printParseErrorCode(e.error)} at line ${line}`;
    return { ok: false, message, mark: { from: e.offset, to: e.offset + Math.max(e.length, 1), message } };
  }
  return { ok: true, value };
}

/**
 * The field errors of `problem` whose JSON pointer lies under `prefix` (`/flow`, `/dataSets`),
 * turned into marks on an editor whose text is the value at `prefix` (so `#/flow/0/request/url`
 * is looked up as `/0/request/url` in the flow's text). A pointer equal to `prefix` marks the
 * whole value. `#/flowX` is not under `/flow`.
 */
export function marksUnder(
  problem: Problem | undefined,
  prefix: string,
  text: string,
): { marks: EditorMark[]; errors: FieldError[] } {
  const errors = (problem?.errors ?? []).filter((e) => e.pointer !== undefined && underPointer(e.pointer, prefix));
  const marks = errors.map((e) => {
    const inner = e.pointer!.replace(/^#/, '').slice(prefix.length);
    const r = pointerRange(text, inner);
    return { ...r, message: `${e.field ?? e.pointer}: ${e.detail}` };
  });
  return { marks, errors };
}

/** True when JSON pointer `pointer` (`#/flow/0`, `/flow`) is `prefix` or lies below it. */
export function underPointer(pointer: string, prefix: string): boolean {
  const p = pointer.replace(/^#/, '');
  return p === prefix || p.startsWith(`${prefix}/`);
}

/** A variable value as typed (`true`/`false` → boolean, plain numbers → number): the start-run form's rule. */
export { typedValue } from '../pages/start-run';

/** The text an input shows for a variable value (strings as they are, others as JSON). */
export function valueText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** A list of field errors under an editor: `field` in code, then the detail. */
export function FieldErrors({
  errors,
  label,
}: {
  errors: { field?: string; pointer?: string; detail: string }[];
  label: string;
}) {
  if (errors.length === 0) return null;
  return (
    <div role="alert">
      <ul class="res-field-errors" aria-label={label}>
        {errors.map((e, i) => (
          <li key={i}>
            {(e.field ?? e.pointer) && <code>{e.field ?? e.pointer}</code>} {e.detail}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** A labelled, focusable block of code (keyboard users can scroll it). */
export function CodeBlock({ children, label }: { children: ComponentChildren; label: string }) {
  return (
    <pre class="res-code" aria-label={label} tabIndex={0}>
      {children}
    </pre>
  );
}

/** A "Loading…" line that keeps its height, so the content arriving does not move the page. */
export function Loading({ what }: { what: string }) {
  return (
    <p class="res-loading muted" aria-live="polite">
      Loading {what}…
    </p>
  );
}

/** A test case's tags as badges. */
export function TagChips({ tags }: { tags: string[] }) {
  return (
    <>
      {tags.map((tag) => (
        <span key={tag} class="badge res-tag">
          {tag}
        </span>
      ))}
    </>
  );
}
