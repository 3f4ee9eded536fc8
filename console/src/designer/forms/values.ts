/**
 * The value rules of the node forms, as pure functions (no DOM; unit tested in node by
 * test/unit/designer-forms.test.ts): reading a field at a path, JSON text that accepts plain words,
 * durations, comma lists, the URL's query kept in step with a params table, the request body's
 * modes, `{{variable}}` placeholders (highlighting and completion) and expression completion.
 */
import type { Path } from './plan';

/** The value at `path` of `root` (undefined when any step is missing). */
export function getAt(root: unknown, path: Path): unknown {
  let v: unknown = root;
  for (const p of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string | number, unknown>)[p];
  }
  return v;
}

/** Deep equality of JSON values (key order ignored). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/**
 * JSON text that accepts plain words (an assertion's `expected`, a one-line JSON field): `200` →
 * 200, `"abc"` → "abc", `[1,2]` → [1, 2], `abc` → "abc" (not JSON: taken as a string); empty (or
 * only spaces) → undefined (the field is removed).
 */
export function parseLoose(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The text {@link parseLoose} reads back as `value`: a string that would read as JSON is quoted (`"200"`). */
export function formatLoose(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'string') {
    if (value.trim() === '') return JSON.stringify(value);
    try {
      JSON.parse(value);
      return JSON.stringify(value);
    } catch {
      return value;
    }
  }
  return JSON.stringify(value);
}

/** A duration-like field (`"90s"` or `90`): digits become a number, other text stays text, empty → undefined. */
export function parseScalar(text: string): string | number | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  return /^-?\d+(\.\d+)?$/.test(t) ? Number(t) : t;
}

/** `429, 5xx` → `[429, "5xx"]` (`numbers`: integers become numbers); empty → undefined. */
export function parseList(text: string, numbers: boolean): (string | number)[] | undefined {
  const items = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => (numbers && /^-?\d+$/.test(s) ? Number(s) : s));
  return items.length ? items : undefined;
}

/** A list as {@link parseList} reads it: items joined by `, `. */
export function formatList(value: unknown): string {
  return Array.isArray(value) ? value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ') : '';
}

/** One name/value row of a table (query params, headers, map entries, form fields). */
export interface KeyValue {
  name: string;
  value: string;
}

/** An object's entries as rows (non-string values written as JSON). */
export function mapToRows(map: unknown): KeyValue[] {
  if (!map || typeof map !== 'object' || Array.isArray(map)) return [];
  return Object.entries(map).map(([name, v]) => ({ name, value: typeof v === 'string' ? v : JSON.stringify(v) }));
}

/** Rows as an object: rows without a name are left out, a later row of a name wins; none → undefined. */
export function rowsToMap(rows: readonly KeyValue[]): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  let any = false;
  for (const r of rows) {
    if (r.name === '') continue;
    out[r.name] = r.value;
    any = true;
  }
  return any ? out : undefined;
}

/** A query parameter as written in the URL: `bare` when it has no `=` (`?flag`). */
export interface QueryParam extends KeyValue {
  bare?: boolean;
}

/** Index of the first `ch` of `text` outside `{{…}}` placeholders, or -1. */
function indexOutside(text: string, ch: string, from = 0): number {
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    if (text.startsWith('{{', i)) {
      depth++;
      i++;
    } else if (depth > 0 && text.startsWith('}}', i)) {
      depth--;
      i++;
    } else if (depth === 0 && text[i] === ch) return i;
  }
  return -1;
}

/**
 * A URL split for the Params table: what comes before `?`, the query's parameters as written (no
 * decoding: `{{id}}` and `%20` stay as they are) and the `#fragment`. `?`, `&`, `=` and `#` inside
 * `{{…}}` do not count. {@link joinUrl} puts it back together unchanged.
 */
export function splitUrl(url: string): { base: string; params: QueryParam[]; hash: string } {
  const h = indexOutside(url, '#');
  const hash = h < 0 ? '' : url.slice(h);
  const rest = h < 0 ? url : url.slice(0, h);
  const q = indexOutside(rest, '?');
  if (q < 0) return { base: rest, params: [], hash };
  const query = rest.slice(q + 1);
  const params: QueryParam[] = [];
  if (query !== '') {
    let start = 0;
    for (;;) {
      const amp = indexOutside(query, '&', start);
      const part = query.slice(start, amp < 0 ? undefined : amp);
      const eq = indexOutside(part, '=');
      params.push(
        eq < 0 ? { name: part, value: '', bare: true } : { name: part.slice(0, eq), value: part.slice(eq + 1) },
      );
      if (amp < 0) break;
      start = amp + 1;
    }
  }
  return { base: rest.slice(0, q), params, hash };
}

/** The URL of `base`, `params` (as written; a bare one without `=` while its value is empty) and `hash`. */
export function joinUrl(base: string, params: readonly QueryParam[], hash = ''): string {
  if (params.length === 0) return base + hash;
  const query = params.map((p) => (p.bare && p.value === '' ? p.name : `${p.name}=${p.value}`)).join('&');
  return `${base}?${query}${hash}`;
}

/**
 * How the request builder shows a body (docs/flows.md: a JSON value is sent as JSON, a string as
 * it is; `multipart`: `request.multipart`, parts of text and workspace files; `file`:
 * `request.file`, a workspace file as the whole body).
 */
export type BodyMode = 'none' | 'json' | 'form' | 'text' | 'multipart' | 'file';

/** One part of `request.multipart`: text (`value`) or a workspace file (`file`, its name or id). */
export interface MultipartPart {
  name: string;
  value?: string;
  file?: string;
  /** The file name sent in the part's Content-Disposition (default: the workspace file's name). */
  filename?: string;
  /** The part's Content-Type (default: the file's own; none for text). */
  contentType?: string;
}

/** `request.file` as an object: `"avatar.png"` → `{file: "avatar.png"}`; anything else → undefined. */
export function fileBody(file: unknown): { file: string; contentType?: string } | undefined {
  if (typeof file === 'string') return { file };
  if (file && typeof file === 'object' && typeof (file as { file?: unknown }).file === 'string')
    return file as { file: string; contentType?: string };
  return undefined;
}

/** The parts of `request.multipart` (an absent or malformed value: none; non-object items dropped). */
export function multipartParts(multipart: unknown): MultipartPart[] {
  if (!Array.isArray(multipart)) return [];
  return multipart.filter((p): p is MultipartPart => !!p && typeof p === 'object' && !Array.isArray(p));
}

/** What a workspace file name may be (`PUT /v1/files/{name}`, docs/api.md "Files"): 1–200 letters, digits, `_ . - /`. */
export const FILE_NAME_PATTERN = /^[A-Za-z0-9_./-]{1,200}$/;

/**
 * A workspace file name for a file called `fileName` on disk: characters a name may not hold
 * become `_`, cut to 200 (`my photo (1).png` → `my_photo__1_.png`; empty → `file`).
 */
export function fileNameFor(fileName: string): string {
  const name = fileName.replace(/[^A-Za-z0-9_./-]/g, '_').slice(0, 200);
  return name || 'file';
}

/** The mode of a whole request: `multipart` when it has `multipart`, `file` when it has `file`, else {@link bodyMode}. */
export function requestBodyMode(request: Record<string, unknown>): BodyMode {
  if (request.multipart !== undefined) return 'multipart';
  if (request.file !== undefined) return 'file';
  return bodyMode(request.body, request.headers);
}

/** The Content-Type of a form body. */
export const FORM_TYPE = 'application/x-www-form-urlencoded';

/** The value of header `name` in `headers` (case-insensitive), if any. */
export function headerValue(headers: unknown, name: string): string | undefined {
  const rows = mapToRows(headers);
  return rows.find((r) => r.name.toLowerCase() === name.toLowerCase())?.value;
}

/**
 * The body's mode: absent → `none`; a string with a `Content-Type` of {@link FORM_TYPE} → `form`;
 * another string → `text`; any other JSON value → `json`.
 */
export function bodyMode(body: unknown, headers: unknown): BodyMode {
  if (body === undefined) return 'none';
  if (typeof body === 'string')
    return (headerValue(headers, 'content-type') ?? '').toLowerCase().startsWith(FORM_TYPE) ? 'form' : 'text';
  return 'json';
}

/** Percent-encodes a form name or value, leaving `{{…}}` placeholders as written (they are filled when sent). */
function encodeFormPart(text: string): string {
  return text
    .split(/(\{\{[^{}]*\}\})/)
    .map((part, i) => (i % 2 === 1 ? part : encodeURIComponent(part).replace(/%20/g, '+')))
    .join('');
}

function decodeFormPart(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** A form body (`a=1&b=x+y`) as rows (decoded). */
export function formToRows(body: string): KeyValue[] {
  if (body === '') return [];
  return body.split('&').map((part) => {
    const eq = part.indexOf('=');
    return eq < 0
      ? { name: decodeFormPart(part), value: '' }
      : { name: decodeFormPart(part.slice(0, eq)), value: decodeFormPart(part.slice(eq + 1)) };
  });
}

/** Rows as a form body (application/x-www-form-urlencoded; placeholders kept); nameless rows left out. */
export function rowsToForm(rows: readonly KeyValue[]): string {
  return rows
    .filter((r) => r.name !== '')
    .map((r) => `${encodeFormPart(r.name)}=${encodeFormPart(r.value)}`)
    .join('&');
}

/** A stretch of a template text: plain, or a `{{name}}` placeholder. */
export interface Segment {
  text: string;
  /** The placeholder's name (trimmed), for `{{ name }}`. */
  name?: string;
}

/** `a{{b}}c` → `a`, `{{b}}` (name `b`), `c`: what the input's highlighting paints. */
export function templateSegments(text: string): Segment[] {
  const out: Segment[] = [];
  const re = /\{\{([^{}]*)\}\}/g;
  let last = 0;
  for (const m of text.matchAll(re)) {
    if (m.index > last) out.push({ text: text.slice(last, m.index) });
    out.push({ text: m[0], name: m[1]!.trim() });
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push({ text: text.slice(last) });
  return out;
}

/** Placeholder names the form knows without the context: dynamic values (docs/flows.md "Templates"). */
export const DYNAMIC_VARIABLES: readonly { name: string; detail: string }[] = [
  { name: '$guid', detail: 'a new UUID v4' },
  { name: '$timestamp', detail: 'Unix time in seconds' },
  { name: '$isoTimestamp', detail: 'the time in ISO 8601' },
  { name: '$randomInt', detail: 'a random integer' },
  { name: '$runId', detail: "the run's id (its mock scope)" },
];

/** What completion replaces: the text from `from` to `to`, matched by `query`. */
export interface CompletionSpot {
  from: number;
  to: number;
  query: string;
}

/**
 * The `{{name` being typed at `caret`: after an unclosed `{{` on the caret's side. `from` is
 * just after `{{`; `to` runs over the rest of the name and a `}}` already there, so choosing an
 * item writes `name}}` once.
 */
export function templateSpot(text: string, caret: number): CompletionSpot | null {
  const open = text.lastIndexOf('{{', caret);
  if (open < 0 || caret < open + 2) return null;
  const between = text.slice(open + 2, caret);
  if (between.includes('}') || between.includes('{')) return null;
  const after = /^[^{}\s]*(\}\})?/.exec(text.slice(caret))![0];
  return { from: open + 2, to: caret + after.length, query: between.trim() };
}

/** The dotted name being typed at `caret` in an expression (`nodes.log|`); null outside one or in a string. */
export function expressionSpot(text: string, caret: number): CompletionSpot | null {
  const before = text.slice(0, caret);
  const quotes = (before.match(/["']/g) ?? []).length;
  if (quotes % 2 === 1) return null;
  const m = /[A-Za-z_$][\w$.]*$/.exec(before);
  if (!m) return null;
  const after = /^[\w$.]*/.exec(text.slice(caret))![0];
  return { from: caret - m[0].length, to: caret + after.length, query: m[0] };
}

/** The items whose name starts with `query` first, then those containing it (case-insensitive), at most `limit`. */
export function matchItems<T extends { name: string }>(items: readonly T[], query: string, limit = 50): T[] {
  const q = query.toLowerCase();
  const starts = items.filter((i) => i.name.toLowerCase().startsWith(q));
  const contains = items.filter((i) => !i.name.toLowerCase().startsWith(q) && i.name.toLowerCase().includes(q));
  return [...starts, ...contains].slice(0, limit);
}

/**
 * The names an expression may use for the form's variables (docs/flows.md "What expressions see"):
 * `nodes.…`, `loop.…`, `response.…` as they are, any other variable as `variables.<name>`; plus
 * `response.status`/`.body`/`.headers` where `response` is seen (API and Poll assertions, extractions).
 */
export function expressionItems(
  variables: readonly { name: string; detail: string }[],
  response: boolean,
): { name: string; detail: string }[] {
  const out = variables
    .filter((v) => !v.name.startsWith('$'))
    .map((v) => ({
      name: /^(nodes|loop|loops|response|variables|testCase)(\.|$)/.test(v.name) ? v.name : `variables.${v.name}`,
      detail: v.detail,
    }));
  if (response)
    out.unshift(
      { name: 'response.status', detail: 'the HTTP status' },
      { name: 'response.body', detail: 'the body (parsed when JSON)' },
      { name: 'response.headers', detail: 'the headers (lower-case names)' },
    );
  return out;
}
