/**
 * The console's client of the Assay REST API (docs/api.md): same origin, JSON in and out, signed in
 * as session.ts says: `Authorization: Bearer` with a key, or the console session's cookie with
 * `X-CSRF-Token` (every method but GET and HEAD) and `X-Assay-Workspace` (docs/teams.md "Sign-in").
 * Errors arrive as RFC 9457 problem documents and are thrown as {@link ApiError}, whose `problem`
 * carries `title`, `detail`, `code` and the per-field `errors` the console shows next to the field
 * at fault. A 401 signs the user out (a console session with "Your session ended; sign in again");
 * a 403 `not-a-member` asks `GET /auth/session` again (the user left the chosen workspace).
 */
import { forget, refreshSession, session } from './session';

/** One field error of a `validation-failed` problem: `field` like `flow[1].request.url`, `pointer` a JSON pointer. */
export interface FieldError {
  field?: string;
  pointer?: string;
  detail: string;
}

/** An RFC 9457 problem document as Assay sends it. */
export interface Problem {
  type?: string;
  title: string;
  status: number;
  detail?: string;
  code?: string;
  errors?: FieldError[];
  [extra: string]: unknown;
}

/** A failed API call: the problem the API answered, or a network failure turned into one. */
export class ApiError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail ? `${problem.title}: ${problem.detail}` : problem.title);
  }
}

/**
 * The problem to show for a failed call: an {@link ApiError}'s problem, or one titled `title` whose
 * detail is the error's message (a bug in the console, a failed dynamic import).
 */
export function problemOf(err: unknown, title = 'Unexpected error'): Problem {
  return err instanceof ApiError ? err.problem : { title, status: 0, detail: String((err as Error)?.message ?? err) };
}

/** Options of {@link api}. */
export interface CallOptions {
  /** Another key than the session's (sign-in checks a key before storing it). */
  key?: string;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

/**
 * The headers that sign a request in (see the module comment): for `options.key` or a key session
 * `Authorization`; for a console session `X-Assay-Workspace`, and `X-CSRF-Token` unless `method`
 * is GET or HEAD. Also used for the few calls that do not go through {@link api} (downloads).
 */
export function authHeaders(method: string, options: Pick<CallOptions, 'key'> = {}): Record<string, string> {
  if (options.key) return { Authorization: `Bearer ${options.key}` };
  const s = session();
  if (!s) return {};
  if (s.kind === 'key') return { Authorization: `Bearer ${s.key}` };
  const headers: Record<string, string> = { 'X-Assay-Workspace': s.workspace.id };
  if (!['GET', 'HEAD'].includes(method.toUpperCase())) headers['X-CSRF-Token'] = s.csrfToken;
  return headers;
}

/**
 * Calls `method path` (path starts with `/v1`) and returns the parsed JSON answer (undefined for
 * 204). Throws {@link ApiError} for any answer ≥ 400 and for network failures (code `network`).
 */
export async function api<T = unknown>(
  method: string,
  path: string,
  body?: unknown,
  options: CallOptions = {},
): Promise<T> {
  const headers: Record<string, string> = {
    Accept: 'application/json, application/problem+json',
    ...authHeaders(method, options),
    ...options.headers,
  };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: options.signal,
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError({ title: 'Assay is unreachable', status: 0, code: 'network', detail: (err as Error).message });
  }
  return answer<T>(res, options);
}

/** Reads `res` as {@link api} does: parsed JSON (undefined when empty), or {@link ApiError} for ≥ 400 (a 401 signs out). */
export async function answer<T>(res: Response, options: CallOptions): Promise<T> {
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (res.status >= 400) throw failure(res, parsed, text, options);
  return parsed as T;
}

/** The {@link ApiError} of a failed answer (its problem document, else one made from the status); a 401 signs out. */
function failure(res: Response, parsed: unknown, text: string, options: CallOptions): ApiError {
  const problem: Problem =
    parsed && typeof parsed === 'object' && 'title' in parsed
      ? (parsed as Problem)
      : { title: res.statusText || 'Request failed', status: res.status, detail: text.slice(0, 300) };
  if (!options.key) {
    const s = session();
    if (res.status === 401 && s?.kind === 'user') forget('Your session ended; sign in again.');
    else if (res.status === 401 && s) forget();
    else if (res.status === 403 && problem.code === 'not-a-member' && s?.kind === 'user') void refreshSession();
  }
  return new ApiError(problem);
}

/** A workspace file as `PUT /v1/files/{name}` and `GET /v1/files` answer it (docs/api.md "Files"). */
export interface WorkspaceFile {
  id: string;
  /** 1–200 characters: letters, digits, `_ . - /`. */
  name: string;
  /** The Content-Type it was uploaded with (sent again when a request uses the file). */
  contentType: string;
  /** Bytes. */
  size: number;
  /** Hex SHA-256 of the content. */
  sha256: string;
  createdAt: string;
  updatedAt: string;
}

/** `/v1/files/{name}` with the name as one path segment (`/` in a name is sent as `%2F`). */
export function filePath(name: string, suffix = ''): string {
  return `/v1/files/${encodeURIComponent(name)}${suffix}`;
}

/**
 * Uploads `data` as the workspace file `name`: `PUT /v1/files/{name}` with the raw bytes as the
 * body and `contentType` (default the blob's own type, else `application/octet-stream`) as its
 * Content-Type; {@link api} sends JSON only. Answers the stored file (201 new, 200 replaced).
 * Throws {@link ApiError} as {@link api} does: 400 `validation-failed` (a bad name), 413
 * `file-too-large` (the size limit), 429 `quota-exceeded` (`quota: "file-bytes"`), `network`.
 */
export async function uploadFile(
  name: string,
  data: Blob,
  contentType?: string,
  options: CallOptions = {},
): Promise<WorkspaceFile> {
  const headers: Record<string, string> = {
    Accept: 'application/json, application/problem+json',
    'Content-Type': contentType || data.type || 'application/octet-stream',
    ...authHeaders('PUT', options),
    ...options.headers,
  };
  let res: Response;
  try {
    res = await fetch(filePath(name), {
      method: 'PUT',
      headers,
      body: data,
      signal: options.signal,
      credentials: 'same-origin',
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError({ title: 'Assay is unreachable', status: 0, code: 'network', detail: (err as Error).message });
  }
  return answer<WorkspaceFile>(res, options);
}

/**
 * The content of the workspace file `name` (`GET /v1/files/{name}/content`, with the session's
 * key) as a Blob of its stored type. Throws {@link ApiError} as {@link api} does (404 unknown name).
 */
export async function downloadFile(name: string, options: CallOptions = {}): Promise<Blob> {
  const headers: Record<string, string> = { ...authHeaders('GET', options), ...options.headers };
  let res: Response;
  try {
    res = await fetch(filePath(name, '/content'), { headers, signal: options.signal, credentials: 'same-origin' });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError({ title: 'Assay is unreachable', status: 0, code: 'network', detail: (err as Error).message });
  }
  if (res.status >= 400) await answer(res, options); // throws the problem
  return res.blob();
}

/** A list page as every Assay listing answers it (docs/api.md "Lists and paging"). */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** Builds `path?query` from the defined, non-empty entries of `query`. */
export function withQuery(path: string, query: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}
