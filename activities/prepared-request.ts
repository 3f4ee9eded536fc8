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
import { ACCEPT_ENCODING, readDecoded } from '../src/net/content-encoding';
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

/** The request headers of a request that sets none and has no body: the same every time, never changed by undici. */
const PLAIN_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'user-agent': 'Assay/0.1',
  'accept-encoding': ACCEPT_ENCODING,
});

/**
 * One exchange on the prepared path: undici's dispatch handler (its methods on the prototype, so
 * a request costs one object, not a dozen closures) and what it read so far.
 */
class PreparedExchange implements Dispatcher.DispatchHandler {
  private readonly startedAt = performance.now();
  private readonly limit: Limit;
  private readonly lent: LentConnection | undefined;
  private status = 0;
  private received: Record<string, string | string[] | undefined> = {};
  private redirect = false;
  private size = 0;
  private truncated = false;
  private chunks: Buffer[] | undefined;
  /** An encoded body: decoded as the general path decodes it (src/net/content-encoding.ts `readDecoded`). */
  private decoding: { stream: Readable; read: ReturnType<typeof readDecoded> } | undefined;
  private settled = false;

  constructor(
    private readonly agent: Agent,
    private readonly req: ResolvedRequest,
    private readonly target: Target,
    private readonly options: PreparedOptions,
    private readonly resolve: (ex: HttpExchange) => void,
  ) {
    this.lent = req.strictSSL === false ? undefined : options.connection?.(target.origin);
    this.limit = addLimit(req.timeoutMs);
  }

  send(): void {
    const req = this.req;
    const plain = req.body === undefined && isEmpty(req.headers);
    const { headers, body } = plain ? { headers: PLAIN_HEADERS, body: undefined } : headersAndBody(req);
    const dispatcher = this.lent?.dispatcher ?? (req.strictSSL === false ? tlsUncheckedTwin(this.agent) : this.agent);
    try {
      dispatcher.dispatch(
        {
          origin: this.target.origin,
          path: this.target.path,
          method: req.method as Dispatcher.HttpMethod,
          headers: headers as Record<string, string>,
          body,
          headersTimeout: req.timeoutMs,
          bodyTimeout: req.timeoutMs,
        },
        this,
      );
    } catch (err) {
      this.failed(err);
    }
  }

  private elapsed(): number {
    return Math.round((performance.now() - this.startedAt) * 10) / 10;
  }

  private done(ex: Omit<HttpExchange, 'finishedAtMs'>): void {
    if (this.settled) return;
    this.settled = true;
    pending.delete(this.limit);
    this.lent?.release();
    this.resolve({ ...ex, finishedAtMs: Date.now() } as HttpExchange);
  }

  private failed(err: unknown): void {
    this.done({ headers: {}, size: 0, truncated: false, timeMs: this.elapsed(), ...describeError(err, this.req) });
  }

  private answered(
    text: string | undefined,
    read?: { size: number; truncated: boolean; coding?: string; encodedSize?: number },
  ): void {
    const responseHeaders = headerRecord(this.received);
    const cut = read?.truncated ?? this.truncated;
    const bytes = read?.size ?? this.size;
    this.done({
      status: this.status,
      headers: responseHeaders,
      body: text === undefined ? undefined : decodeBody(text, responseHeaders['content-type'], cut),
      size: cut || read?.coding ? bytes : Math.max(bytes, Number(responseHeaders['content-length'] ?? 0) || 0),
      truncated: cut,
      ...(read?.coding ? { contentEncoding: read.coding, encodedSize: read.encodedSize } : {}),
      timeMs: this.elapsed(),
    });
  }

  private finishDecoded(): void {
    this.decoding!.read.then(
      (read) =>
        this.answered(this.options.discardBody ? undefined : read.bytes.toString('utf8'), {
          size: read.size,
          truncated: read.truncated,
          ...(read.contentEncoding ? { coding: read.contentEncoding, encodedSize: read.encodedSize } : {}),
        }),
      (err: unknown) => this.failed(err),
    );
  }

  private kept(): string | undefined {
    return this.chunks ? Buffer.concat(this.chunks).toString('utf8') : undefined;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.limit.controller = controller;
    if (this.limit.expired) controller.abort(timeoutError());
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, parsed: unknown): void {
    this.status = statusCode;
    this.received = parsed as Record<string, string | string[] | undefined>;
    if (followsRedirect(this.req, statusCode, this.received.location, this.target.url)) {
      this.redirect = true;
      return;
    }
    const coding = this.received['content-encoding'];
    if (coding !== undefined && coding !== '' && String(coding).toLowerCase() !== 'identity') {
      const stream = new Readable({ read() {} });
      const decoding = {
        stream,
        read: readDecoded(
          stream as never,
          Array.isArray(coding) ? coding.join(', ') : coding,
          this.req.maxResponseBytes,
        ),
      };
      this.decoding = decoding;
      // Decoding stopped early (cut at the cap, or undecodable): nothing more is read.
      void decoding.read.then(
        () => !stream.readableEnded && controller.abort(new BodyCut()),
        () => controller.abort(new BodyCut()),
      );
    } else if (!this.options.discardBody) this.chunks = [];
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.redirect) return;
    if (this.decoding) {
      if (!this.decoding.stream.destroyed) this.decoding.stream.push(chunk);
      return;
    }
    this.size += chunk.length;
    const max = this.req.maxResponseBytes;
    if (this.size > max) {
      // As readCapped (src/net/http.ts): the first maxResponseBytes kept, the rest never read.
      this.truncated = true;
      this.chunks?.push(chunk.subarray(0, chunk.length - (this.size - max)));
      controller.abort(new BodyCut());
      return;
    }
    this.chunks?.push(chunk);
  }

  onResponseEnd(): void {
    if (this.redirect) {
      pending.delete(this.limit);
      this.settled = true;
      this.lent?.release();
      void continueRedirects(this.req, this.agent, {
        statusCode: this.status,
        headers: this.received,
        startedAt: this.startedAt,
      }).then(this.resolve);
      return;
    }
    if (this.decoding) {
      this.decoding.stream.push(null);
      this.finishDecoded();
      return;
    }
    this.answered(this.kept());
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    if (err instanceof BodyCut) {
      if (this.decoding) this.finishDecoded();
      else this.answered(this.kept());
      return;
    }
    if (this.decoding && !this.decoding.stream.destroyed) this.decoding.stream.destroy(err);
    this.failed(err);
  }
}

function isEmpty(record: Record<string, string>): boolean {
  for (const _ in record) return false;
  return true;
}

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
    new Promise<HttpExchange>((resolve) => new PreparedExchange(agent, req, target, options, resolve).send());

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
