/**
 * The REST client the `assay` command line uses (docs/cli.md): one method per call shape, JSON in
 * and out (bytes for workspace files: {@link RequestOptions.bytes}, {@link AssayClient.download}),
 * `Authorization: Bearer <key>` on every `/v1` call (spec "Authentication"). It never
 * hides a failure: an answer that is not 2xx becomes an {@link ApiProblem} carrying the RFC 9457
 * problem the API sent (`title`, `detail`, `code`, `errors`); a service that cannot be reached
 * becomes an {@link UnreachableError}. 429 answers are retried after `Retry-After` (at most 5 times,
 * spec "Errors": clients retry with backoff), as are network errors on idempotent reads, and 503
 * answers (`database-unavailable`, `temporal-unavailable`: nothing was changed, docs/api.md
 * "Errors") of calls that may be repeated ({@link RequestOptions.retryUnavailable}).
 */
import { EXIT, CliError, type ExitCode } from './errors';

/** One field error of a `validation-failed` problem (docs/api.md "Errors"). */
export interface ProblemFieldError {
  field?: string;
  pointer?: string;
  detail?: string;
}

/** An RFC 9457 problem document as Assay answers it. */
export interface ProblemDocument {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  code?: string;
  errors?: ProblemFieldError[];
  [extra: string]: unknown;
}

/**
 * The API answered with an error status. `exitCode` follows docs/cli.md: a problem the caller can
 * fix (400, 401, 403, 404, 409, 413, 422, and a 429 the call does not retry,
 * {@link RequestOptions.noRetryCodes}) is a usage/configuration error (2); a service-side failure
 * (429 after retries, 5xx) means the work could not complete (3).
 */
export class ApiProblem extends CliError {
  constructor(
    readonly status: number,
    readonly problem: ProblemDocument,
    readonly method: string,
    readonly path: string,
    exitCode?: ExitCode,
  ) {
    super(
      ApiProblem.describe(status, problem, method, path),
      exitCode ?? (status >= 500 || status === 429 ? EXIT.incomplete : EXIT.usage),
    );
  }

  /** `POST /v1/runs: Unknown reference (422): runner "nope" does not exist` — one line. */
  static describe(status: number, problem: ProblemDocument, method: string, path: string): string {
    const title = problem.title ?? `HTTP ${status}`;
    const detail = problem.detail ? `: ${problem.detail}` : '';
    const fields = (problem.errors ?? [])
      .filter((e) => e.field && !(problem.detail ?? '').includes(e.field))
      .map((e) => `${e.field}: ${e.detail ?? 'invalid'}`);
    return `${method} ${readablePath(path.split('?')[0]!)}: ${title} (${status})${detail}${fields.length ? ` [${fields.join('; ')}]` : ''}`;
  }
}

/** `path` with percent-escapes decoded (`/v1/files/data%2Fusers.csv` → `/v1/files/data/users.csv`), for messages. */
function readablePath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** The service could not be reached (connection refused, DNS, TLS, timeout): exit code 3. */
export class UnreachableError extends CliError {
  constructor(url: string, cause: unknown) {
    const reason = describeNetworkError(cause);
    super(`Assay at ${url} could not be reached: ${reason}`, EXIT.incomplete);
  }
}

function describeNetworkError(cause: unknown): string {
  const err = cause as { cause?: { code?: string; message?: string }; message?: string; name?: string };
  if (err?.name === 'TimeoutError') return 'no answer in time';
  const inner = err?.cause;
  if (inner?.code)
    return `${inner.code}${inner.message && !inner.message.includes(inner.code) ? ` (${inner.message})` : ''}`;
  return inner?.message ?? err?.message ?? String(cause);
}

export interface ClientOptions {
  /** Base address of the API, e.g. `http://127.0.0.1:8080` (no `/v1`). */
  url: string;
  /** An API key (docs/api.md "Authentication"). */
  apiKey: string;
  /** Per-request timeout in ms (default 30,000). */
  timeoutMs?: number;
  /** Waits between 429 and 503 retries (tests shorten it); default honours `Retry-After`. */
  sleep?: (ms: number) => Promise<void>;
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  /** A JSON body (sent as `application/json`). */
  body?: unknown;
  /**
   * A raw body, sent byte for byte with `Content-Type: contentType` (`PUT /v1/files/{name}`);
   * instead of {@link body}.
   */
  bytes?: { data: Uint8Array; contentType: string };
  headers?: Record<string, string>;
  /** Retry network errors too (safe for GET and for calls with an Idempotency-Key). */
  retryNetwork?: boolean;
  /**
   * Retry 503 answers after `Retry-After` (at most {@link MAX_RETRIES} times). Default: every method
   * but POST, and POST with an `Idempotency-Key` header; a caller that copes with a create that may
   * have been applied (a 409 on the retry) passes `true`.
   */
  retryUnavailable?: boolean;
  /** This call's timeout in ms, instead of the client's (a call the server may work on for minutes). */
  timeoutMs?: number;
  /**
   * Problem `code`s of 429 answers reported at once instead of retried: a quota that waiting does
   * not free (`quota-exceeded` of `PUT /v1/files/{name}`: the workspace's storage is full).
   */
  noRetryCodes?: string[];
}

/** Retries of a 429 or 503 answer before it is reported (docs/cli.md "Retries"). */
export const MAX_RETRIES = 5;

/** Waits between retries of a 429 or 503: `Retry-After` seconds (at most 60), else 0.5, 1, 2, 4, 8 s. */
function retryDelayMs(retryAfter: string | null, attempt: number): number {
  const after = Number(retryAfter);
  return Number.isFinite(after) && after > 0 ? Math.min(after, 60) * 1000 : 250 * 2 ** attempt;
}

/** The problem document of an error answer's `text`, or one made of its status when it is not JSON. */
function parseProblem(res: Response, text: string): ProblemDocument {
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as ProblemDocument;
  } catch {
    // not JSON: below
  }
  return { title: res.statusText || `HTTP ${res.status}`, detail: text.slice(0, 200) || undefined };
}

/** A list page (docs/api.md "Lists and paging"). */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

const USER_AGENT = 'assay-cli';

export class AssayClient {
  readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly timeoutMs: number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(options: ClientOptions) {
    this.baseUrl = options.url.replace(/\/+$/, '');
    this.apiKey = options.apiKey;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  /**
   * One call. `path` starts with `/` (`/v1/runs`). Answers the parsed JSON body (undefined for 204).
   * @throws ApiProblem for a non-2xx answer, UnreachableError when no answer came.
   */
  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    return (await this.requestWithStatus<T>(method, path, options)).body;
  }

  /**
   * {@link request}, answering the 2xx status too (`PUT /v1/files/{name}`: 201 created, 200
   * replaced). @throws as {@link request}.
   */
  async requestWithStatus<T>(
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<{ status: number; body: T }> {
    const res = await this.send(method, path, options);
    const text = await res.text();
    if (!text) return { status: res.status, body: undefined as T };
    try {
      return { status: res.status, body: JSON.parse(text) as T };
    } catch {
      throw new CliError(`${method} ${path}: the answer is not JSON (is ${this.baseUrl} an Assay API?)`, EXIT.usage);
    }
  }

  /**
   * A GET whose answer is bytes (`GET /v1/files/{name}/content`): the body exactly as sent, and its
   * `Content-Type` (null when absent). @throws ApiProblem (the problem document of a non-2xx answer),
   * UnreachableError.
   */
  async download(
    path: string,
    options: Pick<RequestOptions, 'timeoutMs'> = {},
  ): Promise<{
    bytes: Buffer;
    contentType: string | null;
  }> {
    const res = await this.send('GET', path, { ...options, headers: { accept: '*/*' } });
    return { bytes: Buffer.from(await res.arrayBuffer()), contentType: res.headers.get('content-type') };
  }

  /** Sends one call with retries (module docstring); answers a 2xx response, its body unread. */
  private async send(method: string, path: string, options: RequestOptions): Promise<Response> {
    const url = new URL(this.baseUrl + path);
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': USER_AGENT,
      ...options.headers,
    };
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    let body: string | Uint8Array<ArrayBuffer> | undefined;
    if (options.bytes) {
      // Bytes read from files or made by Buffer: never a SharedArrayBuffer's view, which fetch refuses.
      body = options.bytes.data as Uint8Array<ArrayBuffer>;
      headers['content-type'] = options.bytes.contentType;
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    const retryNetwork = options.retryNetwork ?? method === 'GET';
    const retryUnavailable =
      options.retryUnavailable ??
      (method !== 'POST' || Object.keys(options.headers ?? {}).some((h) => h.toLowerCase() === 'idempotency-key'));
    for (let attempt = 1; ; attempt++) {
      let res: Response;
      try {
        res = await fetch(url, {
          method,
          headers,
          body,
          signal: AbortSignal.timeout(options.timeoutMs ?? this.timeoutMs),
        });
      } catch (err) {
        if (retryNetwork && attempt < 3) {
          await this.sleep(500 * attempt);
          continue;
        }
        throw new UnreachableError(this.baseUrl, err);
      }
      if ((res.status === 429 || (res.status === 503 && retryUnavailable)) && attempt <= MAX_RETRIES) {
        if (res.status === 429 && options.noRetryCodes?.length) {
          const text = await res.text();
          const problem = parseProblem(res, text);
          if (problem.code && options.noRetryCodes.includes(problem.code))
            throw new ApiProblem(res.status, problem, method, path, EXIT.usage);
          await this.sleep(retryDelayMs(res.headers.get('retry-after'), attempt));
          continue;
        }
        await res.body?.cancel();
        await this.sleep(retryDelayMs(res.headers.get('retry-after'), attempt));
        continue;
      }
      if (!res.ok) throw new ApiProblem(res.status, parseProblem(res, await res.text()), method, path);
      return res;
    }
  }

  get<T>(path: string, query?: RequestOptions['query']): Promise<T> {
    return this.request<T>('GET', path, { query });
  }

  /** Every item of a list, following `nextCursor` (200 per page). */
  async listAll<T>(path: string, query: RequestOptions['query'] = {}): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.get<Page<T>>(path, { ...query, limit: 200, cursor });
      items.push(...page.items);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    return items;
  }
}
