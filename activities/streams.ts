/**
 * The connection of a WebSocket or SSE node (docs/async.md "WebSocket and SSE"): the activity
 * `runStreamNode` of run workflows, and the same code in-process for performance runs
 * (activities/direct-port.ts). Input and output: src/domain/stream-io.ts.
 *
 * - WebSocket (RFC 6455) with the `ws` client: the host is resolved and judged by the address
 *   policy (`AddressPolicy.resolve('node', …)`, src/net/address-policy.ts) before connecting, and
 *   the socket connects to the judged addresses only (a `lookup` that answers them), so a name
 *   that resolves elsewhere on a second lookup gains nothing. Redirects are not followed. The
 *   handshake's status is reported when it is not 101 (`HANDSHAKE_FAILED`).
 * - Server-Sent Events (WHATWG HTML §9.2, https://html.spec.whatwg.org/multipage/server-sent-events.html)
 *   with undici's `request` through the policy's agent for API nodes (every connection judged in
 *   its connector), `Accept: text/event-stream`, parsed by `eventsource-parser`. A response that
 *   is not 2xx or not `text/event-stream` ends the node (as an EventSource fails the connection);
 *   no reconnection.
 * - After each message `until` is evaluated with the guarded evaluator (the workflow's step budget,
 *   the heavy-expression pool past it, as activities/nodes.ts `evaluateExpression`).
 * - Failures come back as data (`error`, `errorCode`), never thrown; a refusal of the policy is
 *   `ADDRESS_NOT_ALLOWED` with the policy's message, as for API nodes.
 * - What is returned is bounded: the first and last {@link KEPT_STREAM_MESSAGES} messages, each
 *   message's data cut by `preview` to {@link STREAM_DATA_PREVIEW_CHARS} characters.
 */
import { CancelledFailure, Context } from '@temporalio/activity';
import type { LookupAddress } from 'node:dns';
import { request as undiciRequest, type Agent } from 'undici';
import WebSocket from 'ws';
import { createParser } from 'eventsource-parser';
import { preview } from '../src/domain/assertions';
import { BUDGET_CODE, evaluateExpression, ExpressionError, truthy, WORKFLOW_LIMITS } from '../src/domain/expressions';
import type { StreamMessage, StreamOutcome } from '../src/domain/types';
import {
  KEPT_STREAM_MESSAGES,
  MAX_STREAM_MESSAGE_BYTES,
  STREAM_DATA_PREVIEW_CHARS,
  UNTIL_WINDOW_MESSAGES,
  type StreamNodeInput,
  type StreamNodeOutput,
  type UntilInput,
} from '../src/domain/stream-io';
import { ADDRESS_NOT_ALLOWED, addressRefusalIn, type AddressPolicy } from '../src/net/address-policy';
import { sharedExpressionPool } from '../src/expression-pool/pool';
import { AuthProfileError, withQuery, type AuthProfiles } from '../src/auth/apply';
import { AUTH_PROFILE_FAILED } from './auth-request';
import { evaluateHeavyExpression } from './nodes';
import { headerRecord, KNOWN_NETWORK_CODES } from './api-request';
import type { NodeExecutionRecords } from '../src/store/node-executions';
import { recordedExecution } from './recorded';

/** Evaluates a user expression (throws ExpressionError). */
export type Evaluate = (expression: string, input: unknown) => Promise<unknown>;

/** What one stream gets from its caller besides its input. */
export interface StreamCall {
  /** Aborts the stream (it ends with `CANCELLED`). */
  signal?: AbortSignal;
}

/** A stream that could not go on: `code` is the output's `errorCode`. */
class StreamError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** `text` as JSON when it is JSON, else the text itself. */
function parseData(text: string): unknown {
  const t = text.trimStart();
  if (t.startsWith('{') || t.startsWith('[') || t.startsWith('"') || /^(-?\d|true|false|null)/.test(t)) {
    try {
      return JSON.parse(text);
    } catch {
      /* not JSON */
    }
  }
  return text;
}

/** The error of `err` (a connection's) as `{code, message}`, naming `what` (`WebSocket ws://…`). */
function describe(err: unknown, what: string): StreamError {
  if (err instanceof StreamError) return err;
  const refused = addressRefusalIn(err);
  if (refused)
    return new StreamError(ADDRESS_NOT_ALLOWED, `${what} was not opened (ADDRESS_NOT_ALLOWED): ${refused.message}`);
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.code ?? e.cause?.code;
  if (code && KNOWN_NETWORK_CODES.has(code))
    return new StreamError(
      code,
      `Could not reach ${what}: ${code}${e.message && !e.message.includes(code) ? ` (${e.message})` : ''}`,
    );
  return new StreamError('NETWORK_ERROR', `${what} failed: ${e.message ?? String(err)}`);
}

/** Ends a response body not read to its end (the error destroying it emits is nobody's concern). */
function discard(body: NodeJS.ReadableStream & { destroy(): void; destroyed?: boolean }): void {
  body.on('error', () => undefined);
  if (!body.destroyed) body.destroy();
}

/** The WebSocket URL of `url`: `http(s)://` becomes `ws(s)://` (servers are HTTP base URLs). */
export function websocketUrl(url: string): string {
  return url.replace(/^http(s?):\/\//i, (_m, s: string) => `ws${s}://`);
}

/**
 * Collects the messages of one stream: counts them, keeps the first and the last
 * {@link KEPT_STREAM_MESSAGES} (data cut for results) and the latest {@link UNTIL_WINDOW_MESSAGES}
 * data whole for `until`.
 */
class Collector {
  count = 0;
  size = 0;
  readonly first: StreamMessage[] = [];
  readonly last: StreamMessage[] = [];
  private readonly window: unknown[] = [];
  private firstData: unknown;

  constructor(private readonly startedAt: number) {}

  /** Adds a message; returns what `until` sees now. */
  add(text: string, extra: { event?: string; id?: string } = {}, bytes = Buffer.byteLength(text)): UntilInput {
    const data = parseData(text);
    this.count += 1;
    this.size += bytes;
    const message: StreamMessage = { atMs: Date.now() - this.startedAt, data, ...extra };
    const kept: StreamMessage = { ...message, data: preview(data, STREAM_DATA_PREVIEW_CHARS) };
    if (this.first.length < KEPT_STREAM_MESSAGES) this.first.push(kept);
    else {
      this.last.push(kept);
      if (this.last.length > KEPT_STREAM_MESSAGES) this.last.shift();
    }
    if (this.count === 1) this.firstData = data;
    this.window.push(data);
    if (this.window.length > UNTIL_WINDOW_MESSAGES) this.window.shift();
    return { messages: this.window, count: this.count, first: this.firstData, last: data, message };
  }
}

/** How receiving ended. */
type Stop = { by: StreamOutcome['stoppedBy']; untilMet?: boolean; error?: StreamError };

/**
 * The stream functions over a policy: plain async functions, shared by the activity
 * ({@link createStreamActivities}) and the direct port. `evaluate` is the guarded evaluator of
 * `until`; `auth` applies auth profiles (without it a node with one fails).
 */
export function createStreamIO(deps: {
  policy: AddressPolicy;
  evaluate: Evaluate;
  auth?: AuthProfiles;
  agent?: Agent;
}) {
  const agent = deps.agent ?? deps.policy.agent('node');

  async function runStream(input: StreamNodeInput, call: StreamCall = {}): Promise<StreamNodeOutput> {
    const started = Date.now();
    const method = input.kind === 'sse' ? (input.method ?? 'GET') : 'GET';
    let url = input.kind === 'websocket' ? websocketUrl(input.url) : input.url;
    const headers = { ...input.headers };
    let shownUrl = url;
    const shownHeaders = { ...input.headers };
    const collector = new Collector(started);
    const result = (
      stop: Stop,
      extra: {
        status?: number;
        headers?: Record<string, string>;
        closed?: StreamOutcome['closed'];
        connectMs?: number;
      } = {},
    ): StreamNodeOutput => ({
      request: { method, url: shownUrl, headers: shownHeaders },
      outcome: {
        count: collector.count,
        first: collector.first,
        last: collector.last,
        stoppedBy: stop.error ? 'error' : stop.by,
        ...(extra.status !== undefined ? { status: extra.status } : {}),
        ...(extra.closed ? { closed: extra.closed } : {}),
        ...(extra.connectMs !== undefined ? { connectMs: extra.connectMs } : {}),
      },
      headers: extra.headers ?? {},
      ...(input.until !== undefined ? { untilMet: stop.untilMet === true } : {}),
      size: collector.size,
      timeMs: Date.now() - started,
      ...(stop.error ? { error: stop.error.message, errorCode: stop.error.code } : {}),
      finishedAtMs: Date.now(),
    });

    if (input.authProfile) {
      const name = input.authProfile.profile.name;
      if (!deps.auth)
        return result({
          by: 'error',
          error: new StreamError(AUTH_PROFILE_FAILED, `auth profile "${name}": this worker cannot apply auth profiles`),
        });
      try {
        const prepared = await deps.auth.prepare(
          input.authProfile,
          input.variables ?? {},
          input.timeoutMs,
          call.signal,
        );
        const own = new Set(Object.keys(headers).map((h) => h.toLowerCase()));
        for (const [h, value] of Object.entries(prepared.addition.headers)) {
          if (own.has(h.toLowerCase())) continue;
          headers[h] = value;
          shownHeaders[h] = prepared.addition.maskedHeaders[h] ?? '***';
        }
        url = withQuery(url, prepared.addition.query);
        shownUrl = withQuery(
          shownUrl,
          prepared.addition.query.map(([k]) => [k, '***']),
        );
      } catch (err) {
        if (err instanceof AuthProfileError)
          return result({ by: 'error', error: new StreamError(AUTH_PROFILE_FAILED, err.message) });
        throw err;
      }
    }

    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return result({ by: 'error', error: new StreamError('INVALID_URL', `"${shownUrl}" is not a URL`) });
    }
    const schemes = input.kind === 'websocket' ? ['ws:', 'wss:'] : ['http:', 'https:'];
    if (!schemes.includes(parsed.protocol))
      return result({
        by: 'error',
        error: new StreamError(
          'INVALID_URL',
          `"${shownUrl}" is not a ${input.kind === 'websocket' ? 'ws:// or wss://' : 'http:// or https://'} URL`,
        ),
      });

    /** Called with each message: its `until`, `maxMessages`. Returns how receiving stops, if it does. */
    const onMessage = async (
      text: string,
      extra?: { event?: string; id?: string },
      bytes?: number,
    ): Promise<Stop | undefined> => {
      const seen = collector.add(text, extra, bytes);
      if (input.until !== undefined) {
        let held: unknown;
        try {
          held = await deps.evaluate(input.until, seen);
        } catch (err) {
          const message = err instanceof ExpressionError || err instanceof Error ? err.message : String(err);
          return { by: 'error', error: new StreamError('UNTIL_FAILED', `until \`${input.until}\` failed: ${message}`) };
        }
        if (truthy(held)) return { by: 'until', untilMet: true };
      }
      if (collector.count >= input.maxMessages) return { by: 'maxMessages' };
      return undefined;
    };

    return input.kind === 'websocket'
      ? websocket(input, url, parsed, headers, call, onMessage, result)
      : sse(input, url, method, headers, call, onMessage, result);
  }

  type OnMessage = (text: string, extra?: { event?: string; id?: string }, bytes?: number) => Promise<Stop | undefined>;

  async function websocket(
    input: StreamNodeInput,
    url: string,
    parsed: URL,
    headers: Record<string, string>,
    call: StreamCall,
    onMessage: OnMessage,
    result: (stop: Stop, extra?: Record<string, unknown>) => StreamNodeOutput,
  ): Promise<StreamNodeOutput> {
    const started = Date.now();
    const what = `WebSocket ${url}`;
    const port = Number(parsed.port) || (parsed.protocol === 'wss:' ? 443 : 80);
    let addresses: LookupAddress[];
    try {
      addresses = await deps.policy.resolve('node', parsed.hostname, port);
    } catch (err) {
      return result({ by: 'error', error: describe(err, what) });
    }
    return new Promise<StreamNodeOutput>((resolve) => {
      let status: number | undefined;
      let responseHeaders: Record<string, string> = {};
      let connectMs: number | undefined;
      let closed: StreamOutcome['closed'];
      let done = false;
      const timers: NodeJS.Timeout[] = [];
      // Messages are handled one after the other (`until` may be async): a chain.
      let chain: Promise<void> = Promise.resolve();
      const ws = new WebSocket(url, input.subprotocols ?? [], {
        headers,
        maxPayload: MAX_STREAM_MESSAGE_BYTES,
        followRedirects: false,
        perMessageDeflate: false,
        // The judged addresses, never a second resolution (ws passes this to net/tls connect).
        lookup: ((_host: string, options: { all?: boolean }, cb: (...args: unknown[]) => void) => {
          if (options?.all) cb(null, addresses);
          else cb(null, addresses[0]!.address, addresses[0]!.family);
        }) as never,
      });
      const finish = (stop: Stop) => {
        if (done) return;
        done = true;
        for (const t of timers) clearTimeout(t);
        call.signal?.removeEventListener('abort', onAbort);
        if (ws.readyState === WebSocket.OPEN) {
          ws.close(1000);
          setTimeout(() => ws.terminate(), 1000).unref();
        } else ws.terminate();
        resolve(result(stop, { status, headers: responseHeaders, closed, connectMs }));
      };
      const onAbort = () => finish({ by: 'error', error: new StreamError('CANCELLED', `${what} was cancelled`) });
      call.signal?.addEventListener('abort', onAbort);
      timers.push(
        setTimeout(
          () => {
            if (ws.readyState === WebSocket.CONNECTING)
              finish({
                by: 'error',
                error: new StreamError('TIMEOUT', `${what} did not open within ${input.timeoutMs} ms`),
              });
            else finish({ by: 'timeout' });
          },
          Math.max(1, input.timeoutMs - (Date.now() - started)),
        ),
      );
      ws.on('upgrade', (res) => {
        status = res.statusCode;
        responseHeaders = headerRecord(res.headers);
      });
      ws.on('unexpected-response', (_req, res) => {
        status = res.statusCode;
        responseHeaders = headerRecord(res.headers);
        res.resume();
        finish({
          by: 'error',
          error: new StreamError(
            'HANDSHAKE_FAILED',
            `${what} was not opened: the server answered ${res.statusCode}${res.statusMessage ? ` ${res.statusMessage}` : ''} instead of 101 Switching Protocols`,
            res.statusCode,
          ),
        });
      });
      ws.on('open', () => {
        connectMs = Date.now() - started;
        let at = 0;
        for (const item of input.send ?? []) {
          at += item.delayMs ?? 0;
          const send = () => {
            if (!done && ws.readyState === WebSocket.OPEN) ws.send(item.text);
          };
          if (at === 0) send();
          else timers.push(setTimeout(send, at));
        }
      });
      ws.on('message', (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
        const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
        const text = isBinary ? buf.toString('base64') : buf.toString('utf8');
        chain = chain.then(async () => {
          if (done) return;
          const stop = await onMessage(text, undefined, buf.length);
          if (stop) finish(stop);
        });
      });
      ws.on('close', (code: number, reason: Buffer) => {
        closed = { code, ...(reason.length ? { reason: reason.toString('utf8') } : {}) };
        // Messages before the close are handled first.
        void chain.then(() => finish({ by: 'closed' }));
      });
      ws.on('error', (err: Error & { code?: string }) => {
        if (err.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH')
          return void chain.then(() =>
            finish({
              by: 'error',
              error: new StreamError(
                'MESSAGE_TOO_LARGE',
                `${what}: a message over ${MAX_STREAM_MESSAGE_BYTES} bytes ended the connection`,
              ),
            }),
          );
        void chain.then(() => finish({ by: 'error', error: describe(err, what) }));
      });
    });
  }

  async function sse(
    input: StreamNodeInput,
    url: string,
    method: 'GET' | 'POST',
    headers: Record<string, string>,
    call: StreamCall,
    onMessage: OnMessage,
    result: (stop: Stop, extra?: Record<string, unknown>) => StreamNodeOutput,
  ): Promise<StreamNodeOutput> {
    const started = Date.now();
    const what = `${method} ${url}`;
    const sent: Record<string, string> = { ...headers };
    const has = (name: string) => Object.keys(sent).some((h) => h.toLowerCase() === name);
    if (!has('accept')) sent.accept = 'text/event-stream';
    if (!has('cache-control')) sent['cache-control'] = 'no-cache';
    let body: string | undefined;
    if (method === 'POST' && input.body !== undefined) {
      body = typeof input.body === 'string' ? input.body : JSON.stringify(input.body);
      if (!has('content-type'))
        sent['content-type'] = typeof input.body === 'string' ? 'text/plain; charset=utf-8' : 'application/json';
    }
    const controller = new AbortController();
    let stopped: Stop | undefined;
    const stopWith = (stop: Stop) => {
      stopped ??= stop;
      controller.abort();
    };
    const onAbort = () => stopWith({ by: 'error', error: new StreamError('CANCELLED', `${what} was cancelled`) });
    call.signal?.addEventListener('abort', onAbort);
    let connected = false;
    const timer = setTimeout(
      () =>
        stopWith(
          connected
            ? { by: 'timeout' }
            : { by: 'error', error: new StreamError('TIMEOUT', `${what} did not answer within ${input.timeoutMs} ms`) },
        ),
      Math.max(1, input.timeoutMs),
    );
    let status: number | undefined;
    let responseHeaders: Record<string, string> = {};
    let connectMs: number | undefined;
    try {
      const res = await undiciRequest(url, {
        method,
        headers: sent,
        body,
        dispatcher: agent,
        signal: controller.signal,
        headersTimeout: input.timeoutMs,
        bodyTimeout: 0,
      });
      connected = true;
      connectMs = Date.now() - started;
      status = res.statusCode;
      responseHeaders = headerRecord(res.headers);
      const type = responseHeaders['content-type'] ?? '';
      if (status < 200 || status > 299) {
        discard(res.body);
        throw new StreamError('HANDSHAKE_FAILED', `${what} answered ${status}, not an event stream`, status);
      }
      if (!/^text\/event-stream\b/i.test(type)) {
        discard(res.body);
        throw new StreamError(
          'NOT_EVENT_STREAM',
          `${what} answered ${status} with Content-Type "${type}", not text/event-stream`,
          status,
        );
      }
      let chain: Promise<void> = Promise.resolve();
      const parser = createParser({
        onEvent: (event) => {
          const extra = { event: event.event ?? 'message', ...(event.id !== undefined ? { id: event.id } : {}) };
          chain = chain.then(async () => {
            if (stopped) return;
            const stop = await onMessage(event.data, extra);
            if (stop) stopWith(stop);
          });
        },
        onError: () =>
          stopWith({
            by: 'error',
            error: new StreamError(
              'MESSAGE_TOO_LARGE',
              `${what}: an event over ${MAX_STREAM_MESSAGE_BYTES} bytes ended the stream`,
            ),
          }),
        maxBufferSize: MAX_STREAM_MESSAGE_BYTES,
      } as Parameters<typeof createParser>[0]);
      const decoder = new TextDecoder();
      try {
        for await (const chunk of res.body) {
          parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
          await chain;
          if (stopped) break;
        }
        await chain;
      } catch (err) {
        if (!stopped) throw err;
      }
      discard(res.body);
      return result(stopped ?? { by: 'closed' }, { status, headers: responseHeaders, connectMs });
    } catch (err) {
      if (stopped) return result(stopped, { status, headers: responseHeaders, connectMs });
      return result({ by: 'error', error: describe(err, what) }, { status, headers: responseHeaders, connectMs });
    } finally {
      clearTimeout(timer);
      call.signal?.removeEventListener('abort', onAbort);
    }
  }

  return { runStream };
}

/** The stream functions' type ({@link createStreamIO}). */
export type StreamIO = ReturnType<typeof createStreamIO>;

/**
 * The guarded evaluator outside a workflow: the workflow's step budget first, the shared
 * heavy-expression pool past it (as activities/nodes.ts `evaluateExpression`). Throws ExpressionError.
 */
export async function guardedEvaluate(expression: string, input: unknown): Promise<unknown> {
  try {
    return await evaluateExpression(expression, input, {}, WORKFLOW_LIMITS);
  } catch (err) {
    if (!(err instanceof ExpressionError) || err.code !== BUDGET_CODE) throw err;
  }
  const out = await evaluateHeavyExpression(sharedExpressionPool(), expression, input);
  if (out.error) throw new ExpressionError(out.error.message, expression, out.error.code);
  return out.value;
}

/** The stream activity of run workflows: {@link createStreamIO}'s `runStream` with the activity's cancellation. */
export function createStreamActivities(policy: AddressPolicy, auth?: AuthProfiles, records?: NodeExecutionRecords) {
  const io = createStreamIO({ policy, evaluate: guardedEvaluate, auth });
  return {
    /**
     * A WebSocket or SSE node's connection (docs/async.md "WebSocket and SSE"), at most once across
     * crashes (activities/recorded.ts). Failures come back as data.
     */
    async runStreamNode(input: StreamNodeInput): Promise<StreamNodeOutput> {
      let signal: AbortSignal | undefined;
      try {
        signal = Context.current().cancellationSignal;
      } catch {
        /* called outside an activity */
      }
      const out = await recordedExecution(records, input, () => io.runStream(input, { signal }));
      if (out.errorCode === 'CANCELLED' && signal?.aborted) throw new CancelledFailure('stream cancelled');
      return out;
    },
  };
}
