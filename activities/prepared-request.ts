/**
 * The prepared request path of load tests (docs/performance.md "The request path"): an API node's
 * request sent with undici's lowest-level `dispatch` and a handler of its own, instead of the
 * general path (activities/nodes.ts `createNodeIO` → activities/api-request.ts `sendHttpRequest` →
 * undici's `request`, a body stream read through an async iterator, an abort signal per request).
 *
 * Made once per load part ({@link createPreparedSender}) and used by the direct port
 * (activities/direct-port.ts, `prepared`) for every API node whose input needs nothing of the
 * general path ({@link sendsPrepared}: no hooks, no retries, no auth, no files, no per-origin
 * limits, no trace, no node execution id). What it returns is what the general path returns for
 * the same exchange (`ApiNodeOutput`: the request, one attempt, the exchange): the same status,
 * lower-cased headers, body (decoded as `sendHttpRequest` decodes it), size, `truncated`, content
 * coding and time, and the same error codes and messages (`describeError`). A redirect to follow
 * is handed over to the general path's chain after its first hop (`continueRedirects`). A URL the
 * general path refuses (not absolute, not http(s)) is sent by the general path, for its message.
 *
 * What it saves, per request: the URL parsed once per distinct URL (a bounded cache), the
 * dispatcher chosen once, no abort signal or controller (a shared sweep aborts requests past their
 * time limit, {@link TIME_LIMIT_TICK_MS}), no body stream, and, when nothing of the test case reads
 * response bodies (`discardBody`), no body kept at all: its bytes are counted and dropped as they
 * arrive. Measured in docs/benchmarks.md "Load generation".
 */
import { Readable } from 'node:stream';
import type { Agent, Dispatcher } from 'undici';
import type { ApiNodeInput, ApiNodeOutput } from '../src/domain/node-io';
import type { HttpExchange, ResolvedRequest } from '../src/domain/types';
import { tlsUncheckedTwin } from '../src/net/address-policy';
import { readDecoded } from '../src/net/content-encoding';
import {
  continueRedirects,
  decodeBody,
  describeError,
  followsRedirect,
  headerRecord,
  headersAndBody,
  rawTarget,
  requestTarget,
  sendHttpRequest,
} from './api-request';

/** How often requests' time limits are checked, ms (a limit fires within this much after it is due). */
export const TIME_LIMIT_TICK_MS = 10;

/** Distinct URLs whose parsed form a sender keeps (a flow filling ids into its URLs makes many). */
export const PREPARED_URL_CACHE = 1024;

/**
 * Whether an API node's input can take the prepared path: it needs none of the general path's
 * steps (hooks, retries, auth, files, per-origin limits, node execution ids).
 */
export function sendsPrepared(input: ApiNodeInput): boolean {
  const r = input.request;
  return (
    input.script === undefined &&
    input.outerHooks === undefined &&
    input.authProfile === undefined &&
    input.originLimits === undefined &&
    input.execution === undefined &&
    (input.retry === undefined || (input.retry.attempts ?? 1) <= 1) &&
    r.auth === undefined &&
    r.multipart === undefined &&
    r.file === undefined
  );
}

/** A parsed URL as the sender keeps it. */
interface Target {
  url: URL;
  origin: string;
  path: string;
}

/** A request's time limit: aborts it once due (before it started: as soon as it starts). */
interface Limit {
  dueMs: number;
  controller?: Dispatcher.DispatchController;
  expired: boolean;
}

const pending = new Set<Limit>();
let sweeper: NodeJS.Timeout | undefined;

/** The error a request past its time limit is aborted with: a `TimeoutError`, as `AbortSignal.timeout` gives. */
function timeoutError(): Error {
  return new DOMException('The operation was aborted due to timeout', 'TimeoutError');
}

function sweep(): void {
  const now = Date.now();
  for (const limit of pending) {
    if (limit.dueMs > now) continue;
    pending.delete(limit);
    limit.expired = true;
    limit.controller?.abort(timeoutError());
  }
  if (pending.size === 0 && sweeper) {
    clearInterval(sweeper);
    sweeper = undefined;
  }
}

function addLimit(ms: number): Limit {
  const limit: Limit = { dueMs: Date.now() + ms, expired: false };
  pending.add(limit);
  if (!sweeper) {
    sweeper = setInterval(sweep, TIME_LIMIT_TICK_MS);
    sweeper.unref();
  }
  return limit;
}

/** Thrown into a request to stop reading a body past its cap (not an error of the exchange). */
class BodyCut extends Error {}

/** A connection of the sender's caller (a VU's own, activities/load-part.ts), lent for one request. */
export interface LentConnection {
  dispatcher: Dispatcher;
  /** Gives it back once the request ended (called exactly once). */
  release(): void;
}

/** How one request is sent on the prepared path. */
export interface PreparedOptions {
  /** Nothing reads the response's body: it is counted and dropped, the exchange has none. */
  discardBody: boolean;
  /**
   * The connection to send on, by origin (`scheme://host[:port]`): a VU's own; undefined (or
   * none given) sends through the sender's agent. Not used for `strictSSL: false` (the agent's
   * TLS-unchecked twin) nor for redirect hops after the first (the general path's chain).
   */
  connection?: (origin: string) => LentConnection | undefined;
}

/** Sends one API node's input on the prepared path: the node's output, as the general path gives it. */
export type PreparedSender = (input: ApiNodeInput, options: PreparedOptions) => Promise<ApiNodeOutput>;

/**
 * A sender over `agent` (the address policy's agent for API nodes: every connection judged, as on
 * the general path). Call it only for inputs {@link sendsPrepared} accepts. `discardBody`: nothing
 * reads the response's body (the exchange then has none; its size is still counted).
 */
export function createPreparedSender(agent: Agent): PreparedSender {
  const targets = new Map<string, Target | null>();
  const targetOf = (req: ResolvedRequest): Target | undefined => {
    const key = req.disableUrlEncoding ? `raw ${req.url}` : req.url;
    let target = targets.get(key);
    if (target !== undefined) return target ?? undefined;
    let url: URL | undefined;
    try {
      url = new URL(req.url);
    } catch {
      url = undefined;
    }
    target =
      url && (url.protocol === 'http:' || url.protocol === 'https:')
        ? { url, origin: url.origin, path: req.disableUrlEncoding ? rawTarget(req.url) : requestTarget(url) }
        : null;
    if (targets.size >= PREPARED_URL_CACHE) targets.clear();
    targets.set(key, target);
    return target ?? undefined;
  };

  const exchange = (req: ResolvedRequest, target: Target, options: PreparedOptions): Promise<HttpExchange> =>
    new Promise<HttpExchange>((resolve) => {
      const { discardBody } = options;
      const lent = req.strictSSL === false ? undefined : options.connection?.(target.origin);
      const startedAt = performance.now();
      const elapsed = () => Math.round((performance.now() - startedAt) * 10) / 10;
      const { headers, body } = headersAndBody(req);
      const limit = addLimit(req.timeoutMs);
      let status = 0;
      let received: Record<string, string | string[] | undefined> = {};
      let redirect = false;
      let size = 0;
      let truncated = false;
      let chunks: Buffer[] | undefined;
      /** An encoded body: decoded as the general path decodes it (src/net/content-encoding.ts `readDecoded`). */
      let decoding: { stream: Readable; read: ReturnType<typeof readDecoded> } | undefined;
      let settled = false;
      const done = (ex: Omit<HttpExchange, 'finishedAtMs'>) => {
        if (settled) return;
        settled = true;
        pending.delete(limit);
        lent?.release();
        resolve({ ...ex, finishedAtMs: Date.now() });
      };
      const failed = (err: unknown) =>
        done({ headers: {}, size: 0, truncated: false, timeMs: elapsed(), ...describeError(err, req) });
      const answered = (
        text: string | undefined,
        read?: { size: number; truncated: boolean; coding?: string; encodedSize?: number },
      ) => {
        const responseHeaders = headerRecord(received);
        const cut = read?.truncated ?? truncated;
        const bytes = read?.size ?? size;
        done({
          status,
          headers: responseHeaders,
          body: text === undefined ? undefined : decodeBody(text, responseHeaders['content-type'], cut),
          size: cut || read?.coding ? bytes : Math.max(bytes, Number(responseHeaders['content-length'] ?? 0) || 0),
          truncated: cut,
          ...(read?.coding ? { contentEncoding: read.coding, encodedSize: read.encodedSize } : {}),
          timeMs: elapsed(),
        });
      };
      const handler: Dispatcher.DispatchHandler = {
        onRequestStart(controller) {
          limit.controller = controller;
          if (limit.expired) controller.abort(timeoutError());
        },
        onResponseStart(controller, statusCode, parsed) {
          status = statusCode;
          received = parsed as Record<string, string | string[] | undefined>;
          if (followsRedirect(req, statusCode, received.location, target.url)) {
            redirect = true;
            return;
          }
          const coding = received['content-encoding'];
          if (coding !== undefined && coding !== '' && String(coding).toLowerCase() !== 'identity') {
            const stream = new Readable({ read() {} });
            decoding = {
              stream,
              read: readDecoded(
                stream as never,
                Array.isArray(coding) ? coding.join(', ') : coding,
                req.maxResponseBytes,
              ),
            };
            // Decoding stopped early (cut at the cap, or undecodable): nothing more is read.
            void decoding.read.then(
              () => !stream.readableEnded && controller.abort(new BodyCut()),
              () => controller.abort(new BodyCut()),
            );
          } else if (!discardBody) chunks = [];
        },
        onResponseData(controller, chunk) {
          if (redirect) return;
          if (decoding) {
            if (!decoding.stream.destroyed) decoding.stream.push(chunk);
            return;
          }
          size += chunk.length;
          if (size > req.maxResponseBytes) {
            // As readCapped (src/net/http.ts): the first maxResponseBytes kept, the rest never read.
            truncated = true;
            chunks?.push(chunk.subarray(0, chunk.length - (size - req.maxResponseBytes)));
            controller.abort(new BodyCut());
            return;
          }
          chunks?.push(chunk);
        },
        onResponseEnd() {
          if (redirect) {
            pending.delete(limit);
            settled = true;
            lent?.release();
            void continueRedirects(req, agent, { statusCode: status, headers: received, startedAt }).then(resolve);
            return;
          }
          if (decoding) {
            decoding.stream.push(null);
            finishDecoded();
            return;
          }
          answered(chunks ? Buffer.concat(chunks).toString('utf8') : undefined);
        },
        onResponseError(_controller, err) {
          if (err instanceof BodyCut) {
            if (decoding) finishDecoded();
            else answered(chunks ? Buffer.concat(chunks).toString('utf8') : undefined);
            return;
          }
          if (decoding && !decoding.stream.destroyed) decoding.stream.destroy(err);
          failed(err);
        },
      };
      const finishDecoded = () => {
        decoding!.read.then(
          (read) =>
            answered(discardBody ? undefined : read.bytes.toString('utf8'), {
              size: read.size,
              truncated: read.truncated,
              ...(read.contentEncoding ? { coding: read.contentEncoding, encodedSize: read.encodedSize } : {}),
            }),
          failed,
        );
      };
      const dispatcher = lent?.dispatcher ?? (req.strictSSL === false ? tlsUncheckedTwin(agent) : agent);
      try {
        dispatcher.dispatch(
          {
            origin: target.origin,
            path: target.path,
            method: req.method as Dispatcher.HttpMethod,
            headers,
            body,
            headersTimeout: req.timeoutMs,
            bodyTimeout: req.timeoutMs,
          },
          handler,
        );
      } catch (err) {
        failed(err);
      }
    });

  return async (input, options) => {
    const resolved: ResolvedRequest = {
      ...input.request,
      method: input.request.method.toUpperCase() as ResolvedRequest['method'],
      timeoutMs: Math.max(1, Math.min(input.request.timeoutMs, input.deadlineMs - Date.now())),
    };
    const target = targetOf(resolved);
    // A URL the general path refuses: sent there, for its message.
    const exchange_ = target ? await exchange(resolved, target, options) : await sendHttpRequest(resolved, agent);
    const { sentHeaders: _sent, ...ex } = exchange_;
    return {
      request: {
        method: input.request.method,
        url: input.request.url,
        headers: input.request.headers,
        body: input.request.body,
      },
      exchange: ex,
      attempts: [{ attempt: 1, status: ex.status, error: ex.error, timeMs: ex.timeMs }],
      variables: input.variables,
      logs: [],
      finishedAtMs: ex.finishedAtMs,
    };
  };
}
