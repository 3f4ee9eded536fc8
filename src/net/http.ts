/**
 * Outgoing HTTP requests that a tenant controls, in one place: API nodes
 * (activities/api-request.ts), scripts' bridged `fetch` and libraries loaded by URL
 * (src/sandbox/host-bridge.ts, src/sandbox/library-loader.ts), the bundler's module fetches (src/bundler/fetcher.ts) and outgoing
 * webhooks (activities/webhooks.ts), and the console's relay (api/routes/relay.ts, as API nodes).
 *
 * {@link guardedRequest} sends one request through the address policy's agent of its kind
 * (`AddressPolicy.agent`, src/net/address-policy.ts: every connection, redirect hops included,
 * is judged after DNS), with a time limit on the whole exchange and on undici's headers and body waits, optionally
 * following redirects. {@link readCapped} reads a response body up to a byte cap. A refused
 * connection surfaces as an error whose `cause` chain holds the refusal (`addressRefusalIn`);
 * {@link isTimeout} tells a time limit apart from other failures. What each caller makes of a
 * refusal, a timeout or a cut body (its messages and codes) stays with the caller.
 */
import { interceptors, request, type Agent, type Dispatcher } from 'undici';

/** Redirect hops followed at most when a request follows redirects. */
export const MAX_REDIRECTIONS = 10;

/** One request through {@link guardedRequest}. */
export interface GuardedRequestOptions {
  /** HTTP method (default `GET`). */
  method?: string;
  /**
   * Request headers: a record, or a flat `[name, value, name, value, …]` list that keeps the order,
   * the letter case and repeats as given (the relay, api/routes/relay.ts).
   */
  headers?: Record<string, string> | string[];
  body?: string | Buffer;
  /**
   * Time limit in ms: of the whole exchange (an abort signal, the body read included) and of
   * undici's waits for the response headers and between body chunks.
   */
  timeoutMs: number;
  /** Another reason to abort (the activity's cancellation, a bundle's deadline). */
  signal?: AbortSignal;
  /** Follow up to {@link MAX_REDIRECTIONS} redirects (each hop a new judged connection). Default false. */
  followRedirects?: boolean;
  /**
   * The request target (path and query) exactly as given, instead of the URL's as the WHATWG parser
   * normalises it (an API node's `disableUrlEncoding`). undici still refuses spaces and controls.
   */
  path?: string;
  /**
   * `raw`: the response's `headers` are undici's flat `[name, value, …]` list, in the order
   * received with the server's letter case and every repeat (typed as a record by undici; read it
   * as `string[]`). Default: a record with lower-case names.
   */
  responseHeaders?: 'raw';
}

/** The redirect-following dispatcher over each agent (one per agent). */
const redirecting = new WeakMap<Agent, Dispatcher>();

function redirectingOver(agent: Agent): Dispatcher {
  let d = redirecting.get(agent);
  if (!d) {
    d = agent.compose(interceptors.redirect({ maxRedirections: MAX_REDIRECTIONS }));
    redirecting.set(agent, d);
  }
  return d;
}

/** How often pending time limits are checked, ms: a limit fires within this much after it is due. */
export const DEADLINE_TICK_MS = 10;

/** Requests' time limits waiting to fire: one shared timer checks them all. */
const pending = new Set<{ dueMs: number; controller: AbortController }>();
let sweeper: NodeJS.Timeout | undefined;

function sweep(): void {
  const now = Date.now();
  for (const entry of pending) {
    if (entry.dueMs > now) continue;
    pending.delete(entry);
    entry.controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
  }
  if (pending.size === 0 && sweeper) {
    clearInterval(sweeper);
    sweeper = undefined;
  }
}

/**
 * An abort signal that fires `ms` from now with a `TimeoutError` (as `AbortSignal.timeout` does),
 * and its release (call it when the exchange ended, so nothing is held). One shared timer serves
 * every pending limit, checked every {@link DEADLINE_TICK_MS}: a timer per request (what
 * `AbortSignal.timeout` costs) took about a quarter of a load generator's time per request.
 */
export function deadlineSignal(ms: number): { signal: AbortSignal; release(): void } {
  const entry = { dueMs: Date.now() + ms, controller: new AbortController() };
  pending.add(entry);
  if (!sweeper) {
    sweeper = setInterval(sweep, DEADLINE_TICK_MS);
    sweeper.unref();
  }
  return { signal: entry.controller.signal, release: () => void pending.delete(entry) };
}

/**
 * Sends one request through `agent`, the address policy's agent of the request's kind
 * (`policy.agent(kind)`). The response body is the caller's to read ({@link readCapped}) or dump.
 * @throws undici's errors: a refused address (found with `addressRefusalIn`), a time limit
 *   ({@link isTimeout}), an abort through `signal`, a network failure
 */
export async function guardedRequest(
  agent: Agent,
  url: string | URL,
  options: GuardedRequestOptions,
): Promise<Dispatcher.ResponseData> {
  const timeout = deadlineSignal(options.timeoutMs);
  try {
    const dispatcher = options.followRedirects ? redirectingOver(agent) : agent;
    const common = {
      method: (options.method ?? 'GET') as Dispatcher.HttpMethod,
      headers: options.headers,
      body: options.body,
      signal: options.signal ? AbortSignal.any([timeout.signal, options.signal]) : timeout.signal,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      responseHeaders: options.responseHeaders,
    };
    const res =
      options.path === undefined
        ? await request(url, { ...common, dispatcher })
        : await dispatcher.request({ ...common, origin: new URL(url).origin, path: options.path });
    // The limit covers the body read too: released once the body is done with (read, dumped or destroyed).
    res.body.once('close', timeout.release);
    return res;
  } catch (err) {
    timeout.release();
    throw err;
  }
}

/** A body read by {@link readCapped}. */
export interface CappedBody {
  /** The bytes kept: all of them, or the first `maxBytes` when cut. */
  bytes: Buffer;
  /** Bytes received, in bytes: the whole body, or when cut those received until the cut. */
  size: number;
  /** The body was longer than `maxBytes`; reading stopped there. */
  truncated: boolean;
}

/**
 * Reads `body` up to `maxBytes` bytes. Past the cap it stops and destroys the stream (the
 * connection closes, nothing more arrives: a huge answer costs no more than the cap), keeping the
 * first `maxBytes` bytes. `onChunk` is called with the size of each chunk read within the cap and
 * may throw to stop reading (a cap shared by several bodies); the stream is then destroyed and the
 * error rethrown. Time limits are the request's ({@link guardedRequest}).
 * @throws the stream's error (reset, body timeout, abort), or `onChunk`'s
 */
export async function readCapped(
  body: Dispatcher.ResponseData['body'],
  maxBytes: number,
  onChunk?: (bytes: number) => void,
): Promise<CappedBody> {
  const chunks: Buffer[] = [];
  let size = 0;
  let kept = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      chunks.push(chunk.subarray(0, maxBytes - kept));
      body.destroy();
      return { bytes: Buffer.concat(chunks), size, truncated: true };
    }
    try {
      onChunk?.(chunk.length);
    } catch (err) {
      body.destroy();
      throw err;
    }
    chunks.push(chunk);
    kept += chunk.length;
  }
  return { bytes: Buffer.concat(chunks), size, truncated: false };
}

/** undici's codes for a request past its connect, headers or body time limit. */
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * Whether a request failed on a time limit: the abort signal's `TimeoutError`, or undici's
 * connect, headers or body timeout (its code on the error or on its `cause`).
 */
export function isTimeout(err: unknown): boolean {
  const e = err as { name?: string; code?: string; cause?: { code?: string } } | undefined;
  return e?.name === 'TimeoutError' || TIMEOUT_CODES.has(e?.code ?? e?.cause?.code ?? '');
}
