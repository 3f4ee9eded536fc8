/**
 * The console's relay (docs/api.md "Relay", docs/security.md "The console's
 * relay"): sends ONE request the web console could not send from the browser itself (CORS, mixed
 * content; the interface spec's "Local request" is browser-only unless the user picks the relay) and
 * answers what came back.
 *
 *   POST /v1/relay  {method, url, headers?: [[name, value], …], body?, bodyEncoding?: "utf8"|"base64", timeoutMs?}
 *     → 200 {status, statusText, headers: [[name, value], …], body, bodyEncoding, timeMs, size, truncated}
 *
 * - Nothing of the exchange is kept: no row is written, and no log line carries its URL, headers or
 *   body (errors neither: every failure of the exchange becomes a problem here, never an error for
 *   api/errors.ts to log).
 * - The request goes out as an API node's would: through the address policy's agent of kind `node`
 *   (src/net/address-policy.ts; `ASSAY_EGRESS_PRIVATE_FOR_NODES`, allow and deny rules, the
 *   service's infrastructure and cloud metadata always refused, every redirect hop judged), with
 *   `ASSAY_REQUEST_TIMEOUT_MS` as the default and largest time limit and the body read up to
 *   `ASSAY_MAX_RESPONSE_BYTES` decoded bytes (src/net/http.ts `guardedRequest`;
 *   src/net/content-encoding.ts `readDecoded`: a gzip, deflate or br body is decoded, as the
 *   browser's `fetch` decodes it).
 * - Redirects are followed (up to `MAX_REDIRECTIONS`), as the browser's `fetch` the relay stands in
 *   for does.
 * - Headers are sent in the order, letter case and repeats given, except those the HTTP client sets
 *   itself ({@link CLIENT_SET_HEADERS}, and names listed in a `Connection` header). Nothing is
 *   added: no `User-Agent`, no `Content-Type`.
 * - `ASSAY_RELAY_PER_MINUTE` relays per API key and minute (default 60); past it 429 `rate-limited`
 *   with `Retry-After` and the `RateLimit-*` headers of this limit.
 *
 * Failures are problems (src/problems.ts): 400 `validation-failed` naming the field, 403
 * `address-not-allowed` (the policy refused; `errorCode` `ADDRESS_NOT_ALLOWED`, `address`, `port`, `rule`), 502 `relay-failed` (no
 * complete response; `errorCode` as an API node reports it: `ECONNREFUSED`, `TIMEOUT`, …).
 */
import { isUtf8 } from 'node:buffer';
import Router from '@koa/router';
import {
  ADDRESS_NOT_ALLOWED,
  addressRefusalIn,
  policyFromConfig,
  type AddressPolicy,
} from '../../src/net/address-policy';
import { readDecoded } from '../../src/net/content-encoding';
import { guardedRequest, isTimeout } from '../../src/net/http';
import { fieldError, type FieldError } from '../../src/problems';
import type { ApiDeps, AppContext, AppState } from '../context';
import { invalid, Problem } from '../problem';
import { PerMinuteLimit, rateLimitHeaders } from '../rate-limit';
import { bodyValidator, jsonBody } from '../validation';

/** Methods a relayed request may use (the interface spec's "Local request" methods). */
export const RELAY_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'] as const;

/** What `POST /v1/relay` takes (module comment; docs/api.md "Relay"). */
export interface RelayRequest {
  method: (typeof RELAY_METHODS)[number];
  /** Absolute `http:` or `https:` URL, without `user:password@`. */
  url: string;
  /** `[name, value]` pairs, sent in this order with repeats kept. */
  headers?: Array<[string, string]>;
  /** The body: text, or base64 of the bytes when `bodyEncoding` is `base64`. */
  body?: string;
  /** How `body` is written (default `utf8`; `base64` for multipart and binary bodies). */
  bodyEncoding?: 'utf8' | 'base64';
  /** Time limit of the whole exchange, ms: 1 to `ASSAY_REQUEST_TIMEOUT_MS` (also the default). */
  timeoutMs?: number;
}

/** The 200 answer of `POST /v1/relay`. */
export interface RelayResponse {
  /** HTTP status of the final response (after redirects). */
  status: number;
  /** Reason phrase as the server sent it (`''` when none, e.g. HTTP/2-style servers). */
  statusText: string;
  /** Response headers as `[name, value]` pairs, in the order received, with the server's letter case and every repeat. */
  headers: Array<[string, string]>;
  /** The body: UTF-8 text, or base64 of the bytes ({@link RelayResponse.bodyEncoding}). */
  body: string;
  /** `utf8` when the bytes kept are valid UTF-8, else `base64`. */
  bodyEncoding: 'utf8' | 'base64';
  /** Milliseconds from sending to the end of the body read (0.1 ms resolution). */
  timeMs: number;
  /** Body bytes received: all of them, or when cut those received until the cut. */
  size: number;
  /** The body was longer than `ASSAY_MAX_RESPONSE_BYTES`: `body` holds its first that many bytes. */
  truncated: boolean;
  /**
   * The content codings `body` was decoded from (`gzip`, `deflate`, `br`; src/net/content-encoding.ts),
   * as the response's `Content-Encoding` (kept in `headers`) listed them; absent when nothing was
   * decoded. When set, `body`, `size` and `truncated` are of the decoded body, as an API node's.
   */
  contentEncoding?: string;
}

/**
 * Request headers the HTTP client sets itself, never copied from the relayed request (compared
 * lower-case): `host` and `content-length` (from the URL and the body), and the hop-by-hop headers
 * of RFC 9110 §7.6.1 (`connection`, `keep-alive`, `proxy-connection`, `te`, `trailer`,
 * `transfer-encoding`, `upgrade`), plus `expect` and `http2-settings`, which belong to the
 * connection too. Names listed in a `Connection` header are dropped as well (§7.6.1).
 */
export const CLIENT_SET_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'content-length',
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
  'http2-settings',
]);

/** Most header pairs a relayed request may carry. */
export const MAX_RELAY_HEADERS = 256;
/** Longest URL a relayed request may have, in characters. */
export const MAX_RELAY_URL_LENGTH = 65_536;

/** RFC 9110 §5.6.2 `token`: what a field name is made of. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Characters a field value may not hold (RFC 9110 §5.5: field-vchar, SP, HTAB; obs-text as Latin-1). */
const BAD_VALUE_CHAR = /[^\t\x20-\x7e\x80-\xff]/;
/** Strict base64 (RFC 4648 §4, padded). */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The body schema of `POST /v1/relay` (`timeoutMs` at most `maxTimeoutMs`, ASSAY_REQUEST_TIMEOUT_MS):
 * what ajv validates with and what the OpenAPI document shows (api/openapi/operations.ts).
 */
export function relayRequestSchema(maxTimeoutMs: number) {
  return {
    type: 'object',
    required: ['method', 'url'],
    additionalProperties: false,
    properties: {
      method: { type: 'string', enum: [...RELAY_METHODS] },
      url: { type: 'string', minLength: 1, maxLength: MAX_RELAY_URL_LENGTH },
      headers: {
        type: 'array',
        maxItems: MAX_RELAY_HEADERS,
        items: { type: 'array', minItems: 2, maxItems: 2, items: { type: 'string' } },
      },
      body: { type: 'string' },
      bodyEncoding: { type: 'string', enum: ['utf8', 'base64'] },
      timeoutMs: { type: 'integer', minimum: 1, maximum: maxTimeoutMs },
    },
  };
}

/**
 * What the schema cannot say, as field errors: an absolute http(s) URL without credentials, header
 * names that are tokens and values without control characters, a base64 body that is base64.
 */
function semanticErrors(input: RelayRequest): FieldError[] {
  const errors: FieldError[] = [];
  let url: URL | undefined;
  try {
    url = new URL(input.url);
  } catch {
    errors.push(fieldError(['url'], 'must be an absolute http:// or https:// URL'));
  }
  if (url && url.protocol !== 'http:' && url.protocol !== 'https:')
    errors.push(fieldError(['url'], `must be an http:// or https:// URL, not ${url.protocol}`));
  else if (url && (url.username || url.password))
    errors.push(
      fieldError(['url'], 'must not carry credentials (user:password@); send an Authorization header instead'),
    );
  (input.headers ?? []).forEach(([name, value], i) => {
    if (!TOKEN.test(name))
      errors.push(
        fieldError(['headers', i, 0], "is not a header name (RFC 9110 token: letters, digits and !#$%&'*+-.^_`|~)"),
      );
    if (BAD_VALUE_CHAR.test(value))
      errors.push(
        fieldError(
          ['headers', i, 1],
          'may hold visible ASCII, spaces, tabs and Latin-1 characters only (no CR, LF or other control characters)',
        ),
      );
  });
  if (input.body !== undefined && input.bodyEncoding === 'base64' && !BASE64.test(input.body)) {
    errors.push(
      fieldError(['body'], 'is not valid base64 (RFC 4648, padded, no spaces), as bodyEncoding "base64" says'),
    );
  }
  return errors;
}

/** The headers to send, as undici's flat list: the pairs given minus {@link CLIENT_SET_HEADERS} and what `Connection` names. */
export function headersToSend(pairs: ReadonlyArray<readonly [string, string]>): string[] {
  const connectionOptions = new Set(
    pairs
      .filter(([name]) => name.toLowerCase() === 'connection')
      .flatMap(([, value]) => value.split(','))
      .map((token) => token.trim().toLowerCase())
      .filter(Boolean),
  );
  const out: string[] = [];
  for (const [name, value] of pairs) {
    const lower = name.toLowerCase();
    if (CLIENT_SET_HEADERS.has(lower) || connectionOptions.has(lower)) continue;
    out.push(name, value);
  }
  return out;
}

/** Plain words for the network error codes a user meets most. */
const CODE_WORDS: Record<string, string> = {
  ECONNREFUSED: 'the connection was refused (nothing listens at that address and port)',
  ECONNRESET: 'the connection was reset by the other side',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved right now',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  ETIMEDOUT: 'the connection timed out',
  UND_ERR_SOCKET: 'the other side closed the connection',
};

/**
 * The problem answering an exchange that failed: 403 `address-not-allowed` for a policy refusal
 * (detail: the policy's message, as in an API node's error),
 * else 502 `relay-failed` with `errorCode` (the vocabulary of API nodes' `errorCode`: `TIMEOUT`,
 * `CANCELLED`, `TOO_MANY_REDIRECTS`, a network or TLS code, else `NETWORK_ERROR`).
 */
export function relayFailure(err: unknown, timeoutMs: number): Problem {
  const refused = addressRefusalIn(err);
  if (refused) {
    return new Problem('address-not-allowed', refused.message, {
      errorCode: ADDRESS_NOT_ALLOWED,
      address: refused.address,
      port: refused.port,
      rule: refused.rule,
    });
  }
  if (isTimeout(err))
    return new Problem('relay-failed', `TIMEOUT: no complete response within ${timeoutMs} ms.`, {
      errorCode: 'TIMEOUT',
    });
  const e = err as
    { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } } | undefined;
  const rawCode = e?.code ?? e?.cause?.code;
  let errorCode: string;
  if (e?.name === 'AbortError' || rawCode === 'UND_ERR_ABORTED') errorCode = 'CANCELLED';
  else if (rawCode === 'UND_ERR_MAX_REDIRECTIONS') errorCode = 'TOO_MANY_REDIRECTS';
  else errorCode = rawCode && /^[A-Z][A-Z0-9_]{1,63}$/.test(rawCode) ? rawCode : 'NETWORK_ERROR';
  const message = (e?.cause?.message ?? e?.message ?? String(err)).split('\n')[0]!.slice(0, 300);
  return new Problem('relay-failed', `${errorCode}: ${CODE_WORDS[errorCode] ?? message}.`, { errorCode });
}

/** The response's raw `[name, value, …]` list (guardedRequest `responseHeaders: 'raw'`) as pairs. */
function headerPairs(raw: unknown): Array<[string, string]> {
  const list = Array.isArray(raw)
    ? (raw as unknown[]).map(String)
    : Object.entries((raw ?? {}) as Record<string, string | string[]>).flatMap(([k, v]) =>
        Array.isArray(v) ? v.flatMap((x) => [k, x]) : [k, v],
      );
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i + 1 < list.length; i += 2) pairs.push([list[i]!, list[i + 1]!]);
  return pairs;
}

/**
 * Sends `input` through `policy`'s agent for API nodes and reads the answer up to `maxResponseBytes`.
 * @param signal aborts the exchange (the console's request went away)
 * @throws Problem `address-not-allowed` or `relay-failed` ({@link relayFailure}); nothing else
 */
export async function relay(
  input: RelayRequest,
  policy: AddressPolicy,
  limits: { timeoutMs: number; maxResponseBytes: number },
  signal?: AbortSignal,
): Promise<RelayResponse> {
  const body =
    input.body === undefined ? undefined : Buffer.from(input.body, input.bodyEncoding === 'base64' ? 'base64' : 'utf8');
  const started = performance.now();
  try {
    const res = await guardedRequest(policy.agent('node'), input.url, {
      method: input.method,
      headers: headersToSend(input.headers ?? []),
      body,
      timeoutMs: limits.timeoutMs,
      signal,
      followRedirects: true,
      responseHeaders: 'raw',
    });
    const headers = headerPairs(res.headers);
    const coding = headers.filter(([name]) => name.toLowerCase() === 'content-encoding').map(([, v]) => v);
    const { bytes, size, truncated, contentEncoding } = await readDecoded(
      res.body,
      coding.length ? coding.join(', ') : undefined,
      limits.maxResponseBytes,
    );
    const text = isUtf8(bytes);
    return {
      status: res.statusCode,
      statusText: res.statusText ?? '',
      headers,
      body: bytes.toString(text ? 'utf8' : 'base64'),
      bodyEncoding: text ? 'utf8' : 'base64',
      timeMs: Math.round((performance.now() - started) * 10) / 10,
      size,
      truncated,
      ...(contentEncoding ? { contentEncoding } : {}),
    };
  } catch (err) {
    throw relayFailure(err, limits.timeoutMs);
  }
}

/**
 * `POST /v1/relay` (module comment). `deps.policy` is the API's address policy (a new one from the
 * configuration when absent).
 */
export function relayRouter(deps: ApiDeps): Router<AppState> {
  const router = new Router<AppState>();
  const { config } = deps;
  const maxTimeoutMs = config.runs.requestTimeoutMs;
  const validate = bodyValidator<RelayRequest>(relayRequestSchema(maxTimeoutMs));
  const perMinute = config.api.relayPerMinute;
  const limit = new PerMinuteLimit(perMinute);
  let policy = deps.policy;

  /** Counts the call against the key's relay limit; its `RateLimit-*` headers replace the API-wide ones when this limit has fewer calls left. */
  async function count(ctx: AppContext): Promise<void> {
    const left = await limit.consume(
      ctx.state.caller.principal,
      (retryAfter) =>
        `Relay limit of ${perMinute} requests per minute exceeded (ASSAY_RELAY_PER_MINUTE); retry in ${retryAfter} s.`,
      (retryAfter) => rateLimitHeaders(perMinute, 0, retryAfter),
    );
    const overall = ctx.response.get('RateLimit-Remaining');
    if (overall === '' || Number(overall) >= left.remaining)
      ctx.set(rateLimitHeaders(perMinute, left.remaining, left.resetSeconds));
  }

  router.post('/relay', async (ctx) => {
    await count(ctx);
    const input = validate(jsonBody(ctx));
    const errors = semanticErrors(input);
    if (errors.length > 0) throw invalid(errors);
    policy ??= policyFromConfig(config);
    // The console's request went away: stop the relayed one too.
    const gone = new AbortController();
    const onClose = () => {
      if (!ctx.res.writableEnded) gone.abort();
    };
    ctx.res.once('close', onClose);
    try {
      ctx.body = await relay(
        input,
        policy,
        { timeoutMs: input.timeoutMs ?? maxTimeoutMs, maxResponseBytes: config.runs.maxResponseBytes },
        gone.signal,
      );
    } finally {
      ctx.res.off('close', onClose);
    }
    ctx.set('Cache-Control', 'no-store');
  });
  return router;
}
