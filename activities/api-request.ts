/**
 * The HTTP request of an API node.
 *
 * Network failures (refused, reset, DNS, timeout, invalid URL) are returned as data
 * (`HttpExchange.error`), never thrown: a request that cannot connect fails its test case, not
 * the run. Only a bug would make this activity throw.
 *
 * Requests go through the worker's address policy (src/net/address-policy.ts; sent and read with
 * src/net/http.ts): its keep-alive agent for API nodes (or that agent's TLS-unchecked twin, for
 * `strictSSL: false`) judges every connection, redirect hops included, and a refused one comes
 * back as `errorCode: ADDRESS_NOT_ALLOWED` with the address and the rule in `error`.
 *
 * Redirects are followed here, hop by hop, with the node's settings (docs/flows.md "Request
 * settings", as Newman's `protocolProfileBehavior`): `maxRedirects`, `followOriginalHttpMethod`,
 * `followAuthorizationHeader`, `refererOnRedirect`. The node's `auth` signs each hop it applies to
 * (src/net/request-auth.ts); Digest answers a 401 challenge by sending the hop again. Cookies a
 * redirect's `Set-Cookie` sets are kept for the rest of that chain (RFC 6265, tough-cookie) and sent
 * on its later hops whose URL they match, as Newman's cookie jar sends them; the result lists them
 * (`redirectCookies`, with each hop's URL) for a test case that keeps a jar of its own.
 *
 * The body is decoded from its `Content-Encoding` (gzip, deflate, br; src/net/content-encoding.ts;
 * `Accept-Encoding: gzip, deflate, br` is sent unless the request sets its own) and kept up to
 * `maxResponseBytes` decoded bytes: reading stops at the cap (the body stream is destroyed, so a
 * 100 MB answer or a decompression bomb costs the worker no more than the cap), `truncated` is set
 * and `size` is the bytes received (decoded) until then. What returns to the workflow thus stays
 * well under Temporal's payload limits.
 */
import { CookieJar } from 'tough-cookie';
import type { Agent, Dispatcher } from 'undici';
import { BODYLESS_METHODS, type HttpExchange, type ResolvedRequest } from '../src/domain/types';
import { ADDRESS_NOT_ALLOWED, addressRefusalIn, tlsUncheckedTwin } from '../src/net/address-policy';
import { ACCEPT_ENCODING, ContentDecodingError, readDecoded } from '../src/net/content-encoding';
import { guardedRequest, isTimeout, MAX_REDIRECTIONS } from '../src/net/http';
import { digestAuthorization, digestChallenge, signRequest } from '../src/net/request-auth';
import { startClientSpan, type ClientSpan } from '../src/observability/tracing';
import { ORIGIN_LIMIT_TIMEOUT, OriginLimitTimeout, type Release, type RequestGate } from '../src/net/origin-gate';

/** Network error codes reported as they are (API, WebSocket and SSE nodes); anything else becomes NETWORK_ERROR. */
export const KNOWN_NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ETIMEDOUT',
]);

/**
 * The stable code and message of a request that got no response (docs/flows.md "Error codes"):
 * a refused address, a time limit, a cancellation, too many redirects, an undecodable body, a
 * network code from {@link KNOWN_NETWORK_CODES}, else `NETWORK_ERROR`.
 */
export function describeError(err: unknown, req: ResolvedRequest): { error: string; errorCode: string } {
  const refused = addressRefusalIn(err);
  if (refused)
    return {
      errorCode: ADDRESS_NOT_ALLOWED,
      error: `${req.method} ${req.url} was not sent (ADDRESS_NOT_ALLOWED): ${refused.message}`,
    };
  if (err instanceof OriginLimitTimeout) {
    return {
      errorCode: ORIGIN_LIMIT_TIMEOUT,
      error: `${req.method} ${req.url} was not sent (ORIGIN_LIMIT_TIMEOUT): ${err.message}`,
    };
  }
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.code ?? e.cause?.code;
  if (isTimeout(err)) {
    return {
      errorCode: 'TIMEOUT',
      error: `No complete response from ${req.method} ${req.url} within ${req.timeoutMs} ms`,
    };
  }
  if (e.name === 'AbortError' || code === 'UND_ERR_ABORTED') {
    return { errorCode: 'CANCELLED', error: `The request ${req.method} ${req.url} was cancelled` };
  }
  if (err instanceof TooManyRedirects) return { errorCode: 'TOO_MANY_REDIRECTS', error: err.message };
  if (err instanceof ContentDecodingError) {
    return {
      errorCode: 'DECODING_FAILED',
      error: `The response to ${req.method} ${req.url} could not be read: ${err.message}`,
    };
  }
  if (code === 'UND_ERR_MAX_REDIRECTIONS' || /redirect/i.test(e.message ?? '')) {
    return { errorCode: 'TOO_MANY_REDIRECTS', error: `Too many redirects from ${req.url}` };
  }
  if (code && KNOWN_NETWORK_CODES.has(code)) {
    return {
      errorCode: code,
      error: `Could not reach ${req.url}: ${code}${e.message && !e.message.includes(code) ? ` (${e.message})` : ''}`,
    };
  }
  return { errorCode: 'NETWORK_ERROR', error: `Request ${req.method} ${req.url} failed: ${e.message ?? String(err)}` };
}

/** Headers as results keep them: lower-case names, several values joined with `, `. */
export function headerRecord(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (v === undefined) continue;
    out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

/** Deletes every header named `name` (any letter case) from `headers`. */
function dropHeader(headers: Record<string, string>, name: string): void {
  for (const key of Object.keys(headers)) if (key.toLowerCase() === name) delete headers[key];
}

/** Sets `name` in `headers`, replacing any spelling of it already there. */
function putHeader(headers: Record<string, string>, name: string, value: string): void {
  dropHeader(headers, name.toLowerCase());
  headers[name] = value;
}

function hasHeader(headers: Record<string, string>, name: string): boolean {
  return Object.keys(headers).some((h) => h.toLowerCase() === name);
}

/**
 * The body as sent, with its Content-Type when the request sets none; undefined when there is none
 * or the method drops it (`BODYLESS_METHODS` without `alwaysSendBody`, as Newman prunes them):
 * then no Content-Type is added either.
 */
function encodeBody(
  req: ResolvedRequest,
  headers: Record<string, string>,
  payload: Buffer | undefined,
): string | Buffer | undefined {
  if (req.body === undefined && payload === undefined) return undefined;
  if (BODYLESS_METHODS.includes(req.method) && req.alwaysSendBody !== true) return undefined;
  const hasType = hasHeader(headers, 'content-type');
  // Files (activities/files.ts): the bytes built up front, their Content-Type set by the caller.
  if (payload !== undefined) {
    if (!hasType) headers['content-type'] = 'application/octet-stream';
    return payload;
  }
  if (typeof req.body === 'string') {
    if (!hasType) headers['content-type'] = 'text/plain; charset=utf-8';
    return req.body;
  }
  if (!hasType) headers['content-type'] = 'application/json';
  return JSON.stringify(req.body);
}

/**
 * The headers and body a request is sent with: `User-Agent: Assay/0.1`, the request's headers,
 * `Accept-Encoding` ({@link ACCEPT_ENCODING}) unless it sets one, and the body encoded with its
 * Content-Type when it sets none (`payload`: a body with files, built up front).
 */
export function headersAndBody(
  req: ResolvedRequest,
  payload?: Buffer,
): { headers: Record<string, string>; body: string | Buffer | undefined } {
  const headers: Record<string, string> = { 'user-agent': 'Assay/0.1', ...req.headers };
  if (!hasHeader(headers, 'accept-encoding')) headers['accept-encoding'] = ACCEPT_ENCODING;
  return { headers, body: encodeBody(req, headers, payload) };
}

/**
 * The request target (path and query) of `raw` as written, for `disableUrlEncoding`: everything
 * after the authority up to a fragment, with only what HTTP cannot carry percent-encoded (spaces,
 * controls and non-ASCII bytes, as UTF-8).
 */
export function rawTarget(raw: string): string {
  const authority = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(raw);
  let rest = authority ? raw.slice(authority[0].length) : raw;
  const hash = rest.indexOf('#');
  if (hash >= 0) rest = rest.slice(0, hash);
  if (!rest.startsWith('/')) rest = `/${rest}`;
  return rest.replace(/[^\x21-\x7e]+/gu, (run) => encodeURIComponent(run));
}

/**
 * The request target of `url`: its path and query, with a `?` written before an empty query kept
 * (WHATWG URL's `search` is `""` for both `/get` and `/get?`; RFC 3986 §3.4: an empty query is
 * still a query, and Node's http client, so Newman, sends `/get?`).
 */
export function requestTarget(url: URL): string {
  if (url.search) return `${url.pathname}${url.search}`;
  return `${url.pathname}${url.href.replace(/#.*$/s, '').endsWith('?') ? '?' : ''}`;
}

/** The raw `Set-Cookie` values of a response (undici gives one string or a list), each as sent. */
function setCookiesOf(raw: Record<string, string | string[] | undefined>): string[] {
  const v = raw['set-cookie'];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

/**
 * The `Cookie` header of a redirect hop: the request's own `Cookie` (`own`, already dropped on a
 * cross-origin hop), less the names the chain's cookies (`chain`, `name=value; …` from
 * tough-cookie) set anew, then those. Undefined when there is neither.
 */
export function hopCookieHeader(own: string | undefined, chain: string): string | undefined {
  if (!chain) return own;
  const names = new Set(chain.split('; ').map((pair) => pair.split('=')[0]));
  const kept = (own ?? '')
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => pair !== '' && !names.has(pair.split('=')[0]!.trim()));
  return [...kept, chain].join('; ');
}

/**
 * The `Referer` a redirect hop sends with `refererOnRedirect` (postman-request's
 * lib/redirect.js sets the previous URL): the URL redirected from, without its fragment and user
 * info (RFC 9110 §10.1.3 forbids both).
 */
export function refererOf(url: URL): string {
  const u = new URL(url.href);
  u.hash = '';
  u.username = '';
  u.password = '';
  return u.href;
}

/** Header `name`'s value in `headers` (any letter case), or undefined. */
function headerValue(headers: Record<string, string>, name: string): string | undefined {
  const key = Object.keys(headers).find((h) => h.toLowerCase() === name);
  return key === undefined ? undefined : headers[key];
}

/** The store failed while a send waited for its origin's slot: thrown out of the exchange (the activity is retried). */
class GateStoreFailure extends Error {
  constructor(readonly failure: unknown) {
    super('the origin gate could not reach the store');
  }
}

/** A redirect past `maxRedirects`: reported as TOO_MANY_REDIRECTS. */
class TooManyRedirects extends Error {
  readonly code = 'TOO_MANY_REDIRECTS';
  constructor(
    readonly url: string,
    readonly max: number,
  ) {
    super(`More than ${max} redirect${max === 1 ? '' : 's'} from ${url} (maxRedirects ${max})`);
  }
}

/** The URL a `Location` points to from `base`, when it is an http(s) URL; else none (the 3xx is the answer). */
function redirectTarget(location: string, base: URL): URL | undefined {
  try {
    const next = new URL(location, base);
    return next.protocol === 'http:' || next.protocol === 'https:' ? next : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A response body as flows see it: `undefined` when empty, the text when cut at the cap or not
 * JSON (by `Content-Type`, else by its first character), else the parsed JSON (the text when it
 * does not parse).
 */
export function decodeBody(text: string, contentType: string | undefined, truncated: boolean): unknown {
  if (text === '') return undefined;
  if (truncated) return text;
  const looksJson = contentType ? /[/+]json\b/i.test(contentType) : /^\s*[[{]/.test(text);
  if (!looksJson) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Sends `req` through `agent` (the address policy's agent for API nodes) and reads the response;
 * `signal` (an activity's cancellation, or none) aborts it as `CANCELLED`. `payload`: the body's
 * bytes built up front (a request with files, activities/files.ts; its Content-Type already in
 * `req.headers`), sent instead of `req.body` with its `Content-Length`, the same on every redirect
 * hop that keeps the body (307, 308) and seen by the auth signatures (Hawk's payload hash, Digest
 * `auth-int`). `trace`: with traces on
 * and a span active, the request is a client span and carries its W3C `traceparent`
 * (src/observability/tracing.ts `startClientSpan`; a header of that name the test case set wins).
 * `gate`: the run's per-origin limits (src/net/origin-gate.ts `requestGate`): each send, the
 * first and each redirect hop or Digest answer, waits for a slot of its own origin and gives it
 * back once its response was read or dumped (or the send failed). The wait counts neither in
 * `timeMs` nor against the time limit; a wait that reaches the run's deadline fails the request as
 * `ORIGIN_LIMIT_TIMEOUT`, unsent.
 *
 * @returns status, lower-cased headers, the body (parsed JSON when the response is JSON), its size
 *   in bytes and the elapsed time in ms; or `error`/`errorCode` when no response arrived.
 */
export async function sendHttpRequest(
  req: ResolvedRequest,
  agent: Agent,
  signal?: AbortSignal,
  trace?: boolean,
  payload?: Buffer,
  gate?: RequestGate,
): Promise<HttpExchange> {
  return { ...(await exchange(req, agent, signal, trace === true, payload, gate)), finishedAtMs: Date.now() };
}

/**
 * A response already received for a request's first send, its body read to the end (the prepared
 * path, activities/prepared-request.ts, hands a redirect to follow over to {@link continueRedirects}).
 * `startedAt`: `performance.now()` when that send started (the exchange's time counts from it).
 */
export interface FirstResponse {
  statusCode: number;
  /** undici's parsed headers: lower-case names, a list for a repeated one. */
  headers: Record<string, string | string[] | undefined>;
  startedAt: number;
}

/**
 * Whether a response is a redirect that {@link sendHttpRequest} follows: `req.followRedirects`, a
 * 3xx status and a `Location` naming an http(s) URL from `url`.
 */
export function followsRedirect(req: ResolvedRequest, statusCode: number, location: unknown, url: URL): boolean {
  return (
    req.followRedirects &&
    statusCode >= 300 &&
    statusCode < 400 &&
    typeof location === 'string' &&
    location !== '' &&
    redirectTarget(location, url) !== undefined
  );
}

/**
 * {@link sendHttpRequest} for a request whose first send already got `first` (a redirect to
 * follow, {@link followsRedirect}): the chain continues from it exactly as if this function had
 * sent it (hop rules, cookies the chain sets, `maxRedirects`, time counted from `first.startedAt`).
 */
export async function continueRedirects(
  req: ResolvedRequest,
  agent: Agent,
  first: FirstResponse,
): Promise<HttpExchange> {
  return { ...(await exchange(req, agent, undefined, false, undefined, undefined, first)), finishedAtMs: Date.now() };
}

async function exchange(
  req: ResolvedRequest,
  agent: Agent,
  cancellation: AbortSignal | undefined,
  trace: boolean,
  payload: Buffer | undefined,
  gate: RequestGate | undefined,
  first?: FirstResponse,
): Promise<Omit<HttpExchange, 'finishedAtMs'>> {
  /** When the exchange started, moved on by the time spent waiting for the origin gate (not the request's time). */
  let started = first?.startedAt ?? performance.now();
  /** The first send's response when it was received before (the prepared path): used instead of sending. */
  let received = first;
  const elapsed = () => Math.round((performance.now() - started) * 10) / 10;
  let url: URL;
  try {
    url = new URL(req.url);
  } catch {
    return {
      headers: {},
      size: 0,
      truncated: false,
      timeMs: 0,
      errorCode: 'INVALID_URL',
      error: `"${req.url}" is not a valid absolute URL`,
    };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return {
      headers: {},
      size: 0,
      truncated: false,
      timeMs: 0,
      errorCode: 'INVALID_URL',
      error: `Only http and https URLs can be requested, not ${url.protocol}`,
    };
  }

  const { headers, body: encoded } = headersAndBody(req, payload);
  let method = req.method;
  let body = encoded;
  let target = req.disableUrlEncoding ? rawTarget(req.url) : requestTarget(url);
  const dispatcher = req.strictSSL === false ? tlsUncheckedTwin(agent) : agent;
  const maxRedirects = req.maxRedirects ?? MAX_REDIRECTIONS;
  const span: ClientSpan | undefined = trace ? startClientSpan(req.method, url, headers) : undefined;
  let redirects = 0;
  /** Cookies the chain's redirect responses set (created at the first), and their Set-Cookie by hop. */
  let chainJar: CookieJar | undefined;
  const redirectCookies: NonNullable<HttpExchange['redirectCookies']> = [];
  /** The headers of the last send to the request's own URL (before any redirect), for its scripts. */
  let sentHeaders: Record<string, string> = {};
  /** The `auth` is applied on this hop: always on the first, on a redirect's only to the same host name (or with followAuthorizationHeader). */
  let signing = req.auth !== undefined;
  /** The Authorization answering this URL's Digest challenge, once challenged. */
  let digestAnswer: string | undefined;
  /** The origin gate's slot of the send under way (none without limits). */
  let slot: Release | undefined;
  const giveBack = async () => {
    const release = slot;
    slot = undefined;
    await release?.();
  };
  try {
    for (;;) {
      // The origin's slot first: signatures made below (Hawk's and AWS's timestamps) stay fresh after a wait.
      if (gate) {
        const waitFrom = performance.now();
        try {
          slot = await gate(url.origin, Math.max(1, Math.round(req.timeoutMs - (waitFrom - started))));
        } catch (err) {
          if (err instanceof OriginLimitTimeout || (err as { name?: string }).name === 'AbortError') throw err;
          throw new GateStoreFailure(err);
        }
        started += performance.now() - waitFrom;
      }
      const hop = { ...headers };
      let hopTarget = target;
      if (req.auth && signing) {
        const signed = signRequest(req.auth, { method, url, target, headers: hop, body });
        for (const [name, value] of Object.entries(signed.headers)) putHeader(hop, name, value);
        if (signed.target) hopTarget = signed.target;
        if (digestAnswer) putHeader(hop, 'Authorization', digestAnswer);
      }
      if (chainJar) {
        const cookie = hopCookieHeader(headerValue(hop, 'cookie'), chainJar.getCookieStringSync(url.href));
        if (cookie !== undefined) putHeader(hop, 'Cookie', cookie);
      }
      if (redirects === 0) {
        // What undici adds itself (Host, Content-Length), as the server receives them.
        sentHeaders = { ...hop, host: url.host };
        if (body !== undefined) sentHeaders['content-length'] = String(Buffer.byteLength(body));
      }
      const res = received
        ? {
            statusCode: received.statusCode,
            headers: received.headers,
            // Read already; only dumped (a redirect to follow is all that is handed over).
            body: { dump: async () => undefined } as unknown as Dispatcher.ResponseData['body'],
          }
        : await guardedRequest(dispatcher, url, {
            method,
            headers: hop,
            body,
            timeoutMs: Math.max(1, Math.round(req.timeoutMs - (performance.now() - started))),
            signal: cancellation,
            path: hopTarget,
          });
      received = undefined;
      const responseHeaders = headerRecord(res.headers as Record<string, string | string[] | undefined>);

      // Digest (RFC 7616 §3.3): the first 401 with a challenge is answered by sending the request again.
      if (res.statusCode === 401 && req.auth?.type === 'digest' && signing && !digestAnswer) {
        const challenge = digestChallenge(responseHeaders['www-authenticate']);
        if (challenge) {
          await res.body.dump();
          await giveBack();
          digestAnswer = digestAuthorization(req.auth, challenge, { method, target: hopTarget, body });
          continue;
        }
      }

      const location = responseHeaders.location;
      const next =
        req.followRedirects && res.statusCode >= 300 && res.statusCode < 400 && location
          ? redirectTarget(location, url)
          : undefined;
      if (next) {
        await res.body.dump();
        await giveBack();
        if (redirects >= maxRedirects) throw new TooManyRedirects(req.url, maxRedirects);
        redirects += 1;
        const setCookie = setCookiesOf(res.headers as Record<string, string | string[] | undefined>);
        if (setCookie.length) {
          redirectCookies.push({ url: url.href, setCookie });
          // tough-cookie's loose mode, as Postman's jar (a value without `=` has an empty name).
          chainJar ??= new CookieJar(undefined, { looseMode: true, rejectPublicSuffixes: false });
          for (const c of setCookie) chainJar.setCookieSync(c, url.href, { ignoreError: true });
        }
        if (req.refererOnRedirect) putHeader(headers, 'Referer', refererOf(url));
        if (next.hostname !== url.hostname && !req.followAuthorizationHeader) {
          dropHeader(headers, 'authorization');
          signing = false;
        }
        if (next.origin !== url.origin) {
          dropHeader(headers, 'cookie');
          dropHeader(headers, 'proxy-authorization');
        }
        // As Newman: anything but 307 and 308 continues with GET (HEAD stays HEAD) and no body,
        // unless followOriginalHttpMethod keeps both.
        if (!req.followOriginalHttpMethod && res.statusCode !== 307 && res.statusCode !== 308) {
          if (method !== 'HEAD') method = 'GET';
          body = undefined;
          dropHeader(headers, 'content-type');
          dropHeader(headers, 'content-length');
        }
        url = next;
        target = requestTarget(next);
        digestAnswer = undefined;
        continue;
      }

      // Stop reading at the cap (of the decoded body): destroying the body closes the connection.
      const read = await readDecoded(res.body, responseHeaders['content-encoding'], req.maxResponseBytes);
      const readMs = elapsed();
      await giveBack();
      const text = read.bytes.toString('utf8');
      span?.end(res.statusCode);
      return {
        status: res.statusCode,
        headers: responseHeaders,
        body: decodeBody(text, responseHeaders['content-type'], read.truncated),
        // Cut or decoded: the body's bytes until the cut; else what arrived (or Content-Length, for HEAD).
        size:
          read.truncated || read.contentEncoding
            ? read.size
            : Math.max(read.size, Number(responseHeaders['content-length'] ?? 0) || 0),
        truncated: read.truncated,
        ...(read.contentEncoding ? { contentEncoding: read.contentEncoding, encodedSize: read.encodedSize } : {}),
        ...(redirects ? { redirects, url: url.href } : {}),
        ...(redirectCookies.length ? { redirectCookies } : {}),
        sentHeaders,
        timeMs: readMs,
      };
    }
  } catch (err) {
    await giveBack();
    if (err instanceof GateStoreFailure) {
      span?.end(undefined, 'STORE_UNAVAILABLE');
      throw err.failure;
    }
    const failure = describeError(err, req);
    span?.end(undefined, failure.errorCode);
    return { headers: {}, size: 0, truncated: false, timeMs: elapsed(), ...failure };
  }
}
