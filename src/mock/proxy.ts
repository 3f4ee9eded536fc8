/**
 * The validation and recording proxy (docs/mocks.md "Proxy: validate and record"): when the
 * workspace's mock settings (`PUT /v1/mock-settings`, src/mock/settings.ts) name a `proxy`, every
 * request to the workspace's mock address is forwarded to `proxy.url` + the path (within the
 * workspace, without the `/~scope` segment) + the query, and the upstream's answer is returned to
 * the caller. The engine (src/mock/engine.ts) calls {@link MockProxy.forward} before routing and
 * journals the exchange with `source: "proxy"` and the violations found.
 *
 * - **Forwarded**: the method, the body (up to 1 MiB, as every mock request: 413
 *   `mock-body-too-large`), the headers except hop-by-hop ones (RFC 9110 §7.6.1: `Connection` and
 *   those it names, `Keep-Alive`, `Proxy-*`, `TE`, `Trailer`, `Transfer-Encoding`, `Upgrade`),
 *   `Host`, `Content-Length` (recomputed), `Accept-Encoding` (answers come back unencoded, so they
 *   can be checked and recorded; one encoded anyway with gzip, deflate or br is decoded for that,
 *   and passed on as it came) and `X-Assay-Mock-Scope`. `X-Assay-Mock-Proxied: <workspaceId>` is
 *   added: a request that already carries this workspace's id (the proxy pointed at its own mock
 *   address) is answered 502 instead of going round again.
 * - **Through the address policy** of the API process, the rules of API nodes (src/net/address-policy.ts,
 *   kind `node`; docs/security.md "Address policy"): a refusal answers 502 `mock-proxy-failed` with
 *   `rule`, `address` and `port`; an upstream that cannot be reached, or does not answer within
 *   {@link MockProxyOptions.timeoutMs}, 502 `mock-proxy-failed`; an answer larger than
 *   {@link MockProxyOptions.maxResponseBytes}, 502 too.
 * - **validate** (and record): the request and the answer are checked against the design the
 *   route matches (as the engine routes; src/mock/contract.ts): request violations `in` body,
 *   query, header or path, answer violations `in: "response"` (a status the design does not
 *   define, a JSON body breaking the status's schema). The request is forwarded even when invalid:
 *   the proxy reports, it does not refuse. The violations are set on the exchange for the journal.
 * - **record**: the pair is recorded into the workspace's designs: the design the route matches
 *   gets a new response (status as answered, the next free code of that status) unless an equal
 *   one (status, data, headers) exists; with no design, a new one with the literal path. Secrets
 *   are never recorded: request headers are not stored at all; response headers only from an
 *   allow-list ({@link recordedHeaders}: `content-type`, `cache-control`, `etag`, `location`, and
 *   `x-…` names not matching {@link SECRET_HEADER_NAME}; never `set-cookie`); JSON
 *   body fields whose names match {@link SECRET_FIELD} are replaced by `"***"` at every depth. A
 *   text body is recorded as text, with its `Content-Type`. The answer says what happened in
 *   `X-Assay-Mock-Recorded` (the design id, `equal:<designId>`, or `skipped: <why>`).
 * Switching the proxy off (`proxy: null`) serves the recorded designs, offline.
 */
import { isDeepStrictEqual } from 'node:util';
import zlib from 'node:zlib';
import type { IncomingHttpHeaders } from 'node:http';
import type { DataSource, EntityManager } from 'typeorm';
import { ApiDesign } from '../store/entities';
import { newId } from '../ids';
import { HTTP_METHODS, type MockResponse } from '../domain/types';
import { MOCK_SCOPE_HEADER, SECRET_HEADER_NAME, type MockSettingsView, type MockViolation } from '../domain/mocks';
import { addressRefusalIn, type AddressPolicy } from '../net/address-policy';
import { guardedRequest, isTimeout, readCapped } from '../net/http';
import { isUniqueViolation } from '../store/errors';
import { PROBLEMS, problemDocument, type ProblemCode } from '../problems';
import { mockRequests } from '../observability/metrics';
import { MAX_JSON_DEPTH, tooDeep } from '../validation/json-limits';
import { MockBodyTooLarge, readBody, type MockExchange } from './exchange';
import { isJsonMedia } from './media';
import { parsePath } from './paths';
import type { MockRouteMatch } from './engine';

/** The header marking a request the proxy sent, with the workspace ids it went through (loop guard). */
export const PROXIED_HEADER = 'x-assay-mock-proxied';
/** The answer's header saying what the recording did. */
export const RECORDED_HEADER = 'x-assay-mock-recorded';

/** JSON body fields recorded as `"***"` (at every depth). */
export const SECRET_FIELD = /password|secret|token|api[_-]?key|authorization/i;
/** `x-…` response headers with these words in their names are not recorded. */
/** Response headers recorded whatever their names (besides safe `x-…` ones). */
const RECORDED_HEADERS = new Set(['content-type', 'cache-control', 'etag', 'location']);
/** Headers that describe one connection (RFC 9110 §7.6.1), never forwarded either way. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);
/** Not forwarded to the upstream, besides hop-by-hop ones. */
const NOT_FORWARDED = new Set(['host', 'content-length', 'accept-encoding', 'expect', MOCK_SCOPE_HEADER]);
/** Not answered to the caller, besides hop-by-hop ones (`content-length` is recomputed). */
const NOT_ANSWERED = new Set(['content-length', 'date']);
const NO_BODY = new Set([204, 205, 304]);

export interface MockProxyOptions {
  dataSource: DataSource;
  /** The API process's address policy; requests go through its agent of kind `node`. */
  policy: AddressPolicy;
  /** Time limit of one upstream exchange, ms (default 30,000). */
  timeoutMs?: number;
  /** The largest upstream answer passed on, bytes (default 8 MiB); larger: 502. */
  maxResponseBytes?: number;
  /** The largest answer recorded into a design, bytes (default 1 MiB); larger ones are passed on, not recorded. */
  maxRecordedBytes?: number;
}

/** The names of `headers` connection-specific for this message: hop-by-hop ones and those `Connection` names. */
function connectionHeaders(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>): Set<string> {
  const out = new Set(HOP_BY_HOP);
  const connection = headers.connection;
  for (const name of (Array.isArray(connection) ? connection.join(',') : (connection ?? '')).split(','))
    if (name.trim()) out.add(name.trim().toLowerCase());
  return out;
}

/** The request headers sent upstream (module comment). */
export function forwardedHeaders(ex: MockExchange): Record<string, string> {
  const skip = connectionHeaders(ex.req.headers);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(ex.req.headers)) {
    if (value === undefined || skip.has(name) || NOT_FORWARDED.has(name) || name === PROXIED_HEADER) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  const via = ex.req.headers[PROXIED_HEADER];
  out[PROXIED_HEADER] = via ? `${Array.isArray(via) ? via.join(', ') : via}, ${ex.workspaceId}` : ex.workspaceId;
  return out;
}

/** The response headers a recording keeps (module comment); values joined with `, `, at most 4096 characters. */
export function recordedHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [raw, value] of Object.entries(headers)) {
    const name = raw.toLowerCase();
    if (value === undefined || name === 'set-cookie') continue;
    const safe =
      RECORDED_HEADERS.has(name) ||
      (name.startsWith('x-') &&
        !SECRET_HEADER_NAME.test(name) &&
        !name.startsWith('x-mock-') &&
        !name.startsWith('x-assay-'));
    if (!safe) continue;
    const text = Array.isArray(value) ? value.join(', ') : value;
    if (text.length <= 4096 && Object.keys(out).length < 50) out[name] = text;
  }
  return out;
}

/** A copy of a JSON value with every field named like a secret ({@link SECRET_FIELD}) replaced by `"***"`. */
export function redactSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, SECRET_FIELD.test(k) ? '***' : redactSecrets(v)]),
    );
  }
  return value;
}

/** The answer {@link MockProxy.forward} resolves to: the status, and what writes it. */
export interface ProxyAnswer {
  status: number;
  send(): void;
}

/** A problem document answer, as the engine's. */
function answerProblem(
  ex: MockExchange,
  code: ProblemCode,
  detail: string,
  extras: Record<string, unknown> = {},
): ProxyAnswer {
  const { status } = PROBLEMS[code];
  const body = JSON.stringify(problemDocument(code, detail, extras));
  return {
    status,
    send() {
      mockRequests.inc({ status: String(status) });
      ex.res.writeHead(status, {
        'content-type': 'application/problem+json',
        'content-length': Buffer.byteLength(body),
        'access-control-allow-origin': '*',
      });
      ex.res.end(body);
    },
  };
}

/** The engine's proxy stage (src/mock/engine.ts `MockStages.proxy`). */
export class MockProxy {
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;
  private readonly maxRecordedBytes: number;

  constructor(private readonly options: MockProxyOptions) {
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxResponseBytes = options.maxResponseBytes ?? 8 * 1024 * 1024;
    this.maxRecordedBytes = options.maxRecordedBytes ?? 1024 * 1024;
  }

  /**
   * Forwards the exchange to `proxy.url`, checks and records as the mode says.
   * @returns the answer for the caller (the engine sends it and journals the exchange)
   */
  async forward(
    ex: MockExchange,
    proxy: NonNullable<MockSettingsView['proxy']>,
    match: MockRouteMatch | undefined,
    designsChanged: () => void,
  ): Promise<ProxyAnswer> {
    ex.source = 'proxy';
    ex.designId = match?.designId ?? null;
    const via = ex.req.headers[PROXIED_HEADER];
    if (via && (Array.isArray(via) ? via.join(',') : via).split(',').some((w) => w.trim() === ex.workspaceId)) {
      return answerProblem(
        ex,
        'mock-proxy-failed',
        `The mock proxy's target ${proxy.url} is this workspace's own mock address: the request came back to it. Point the proxy at the real service.`,
        { url: proxy.url },
      );
    }
    let body: Buffer;
    const violations: MockViolation[] = [];
    try {
      body = await readBody(ex);
      if (match?.contract) violations.push(...(await match.contract.checkRequest(ex, match.params)));
    } catch (err) {
      if (!(err instanceof MockBodyTooLarge)) throw err;
      return answerProblem(ex, 'mock-body-too-large', 'The request body is larger than 1 MiB.');
    }
    const target = `${proxy.url}${ex.path}${ex.rawQuery ? `?${ex.rawQuery}` : ''}`;
    let status: number;
    let headers: Record<string, string | string[] | undefined>;
    let bytes: Buffer;
    try {
      const res = await guardedRequest(this.options.policy.agent('node'), target, {
        method: ex.method,
        headers: forwardedHeaders(ex),
        body: body.length > 0 ? body : undefined,
        timeoutMs: this.timeoutMs,
      });
      const read = await readCapped(res.body, this.maxResponseBytes);
      if (read.truncated)
        return answerProblem(
          ex,
          'mock-proxy-failed',
          `${ex.method} ${target} answered more than ${this.maxResponseBytes} bytes, the most the mock proxy passes on.`,
          { url: proxy.url },
        );
      status = res.statusCode;
      headers = res.headers as Record<string, string | string[] | undefined>;
      bytes = read.bytes;
    } catch (err) {
      const refusal = addressRefusalIn(err);
      if (refusal)
        return answerProblem(
          ex,
          'mock-proxy-failed',
          `The mock proxy did not send ${ex.method} ${target}: ${refusal.message} (the API process's address policy, docs/security.md).`,
          { url: proxy.url, errorCode: refusal.code, rule: refusal.rule, address: refusal.address, port: refusal.port },
        );
      const why = isTimeout(err)
        ? `no answer within ${this.timeoutMs} ms`
        : ((err as { cause?: Error }).cause?.message ?? (err as Error).message);
      return answerProblem(ex, 'mock-proxy-failed', `The mock proxy could not get ${ex.method} ${target}: ${why}.`, {
        url: proxy.url,
      });
    }
    const contentType = first(headers['content-type']);
    // What is checked and recorded is the decoded body (a service may encode though not asked to).
    const decoded = decode(first(headers['content-encoding']), bytes, this.maxResponseBytes);
    if (match?.contract && decoded) violations.push(...match.contract.checkResponse(status, contentType, decoded));
    if (violations.length > 0) ex.violations = violations;
    let recorded: string | undefined;
    if (proxy.mode === 'record') {
      recorded = decoded
        ? await this.record(ex, match, status, headers, decoded)
        : `skipped: the body's Content-Encoding "${first(headers['content-encoding'])}" could not be decoded`;
      if (ex.designId === null && recorded.startsWith('dsg_')) ex.designId = recorded;
      designsChanged();
    }
    const skip = connectionHeaders(headers);
    const out: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(headers))
      if (value !== undefined && !skip.has(name) && !NOT_ANSWERED.has(name)) out[name] = value;
    if (recorded !== undefined) out[RECORDED_HEADER] = recorded;
    const head = ex.method.toUpperCase() === 'HEAD' || NO_BODY.has(status);
    if (!NO_BODY.has(status))
      out['content-length'] = String(head ? (first(headers['content-length']) ?? 0) : bytes.length);
    return {
      status,
      send() {
        mockRequests.inc({ status: String(status) });
        ex.res.writeHead(status, out);
        ex.res.end(head ? undefined : bytes);
      },
    };
  }

  /**
   * Records the upstream's answer into the workspace's designs (module comment).
   * @returns what the `X-Assay-Mock-Recorded` header says
   */
  private async record(
    ex: MockExchange,
    match: MockRouteMatch | undefined,
    status: number,
    headers: Record<string, string | string[] | undefined>,
    bytes: Buffer,
  ): Promise<string> {
    const method = ex.method.toUpperCase();
    if (!(HTTP_METHODS as readonly string[]).includes(method)) return `skipped: ${method} cannot be designed`;
    if (bytes.length > this.maxRecordedBytes)
      return `skipped: the answer is larger than ${this.maxRecordedBytes} bytes`;
    if (status < 100 || status > 599) return `skipped: status ${status}`;
    const kept = recordedHeaders(headers);
    const type = kept['content-type'];
    let data: unknown;
    if (NO_BODY.has(status) || method === 'HEAD') data = undefined;
    else if (bytes.length === 0) {
      data = '';
      if (!type || isJsonMedia(type)) kept['content-type'] = 'text/plain';
    } else if (!type || isJsonMedia(type)) {
      try {
        data = redactSecrets(JSON.parse(bytes.toString('utf8')));
      } catch {
        data = bytes.toString('utf8');
        if (!type || isJsonMedia(type)) kept['content-type'] = 'text/plain';
      }
    } else data = bytes.toString('utf8');
    if (tooDeep(data, MAX_JSON_DEPTH)) return `skipped: the body nests deeper than ${MAX_JSON_DEPTH} levels`;
    const response: MockResponse = {
      status,
      code: 1,
      ...(data !== undefined ? { data } : {}),
      ...(Object.keys(kept).length ? { headers: kept } : {}),
    };
    const { dataSource } = this.options;
    // Row locks where there are (MySQL/MariaDB); SQLite serialises writers.
    const locking = dataSource.options.type === 'mysql' || dataSource.options.type === 'mariadb';
    const append = (manager: EntityManager, where: { id: string } | { method: string; routeKey: string }) =>
      manager.getRepository(ApiDesign).findOne({
        where: { ...where, workspaceId: ex.workspaceId },
        ...(locking ? { lock: { mode: 'pessimistic_write' as const } } : {}),
      });
    const addTo = async (manager: EntityManager, design: ApiDesign): Promise<string> => {
      const same = design.responses.find(
        (r) =>
          r.status === status &&
          isDeepStrictEqual(r.data, response.data) &&
          isDeepStrictEqual(r.headers ?? {}, response.headers ?? {}),
      );
      if (same) return `equal:${design.id}`;
      if (design.responses.length >= 100) return `skipped: ${design.id} has 100 responses, the most a design holds`;
      const code = Math.max(0, ...design.responses.filter((r) => r.status === status).map((r) => r.code)) + 1;
      design.responses = [...design.responses, { ...response, code }];
      design.updatedAt = new Date();
      await manager.getRepository(ApiDesign).save(design);
      return design.id;
    };
    if (match) {
      return dataSource.transaction(async (manager) => {
        const design = await append(manager, { id: match.designId });
        return design ? addTo(manager, design) : 'skipped: the design was deleted meanwhile';
      });
    }
    const parsed = parsePath(ex.path);
    if ('error' in parsed) return `skipped: the path ${parsed.error}`;
    const now = new Date();
    try {
      await dataSource.getRepository(ApiDesign).insert({
        id: newId('design'),
        workspaceId: ex.workspaceId,
        name: `Recorded ${method} ${parsed.path}`.slice(0, 200),
        description: `Recorded by the mock proxy on ${now.toISOString()}.`,
        method,
        path: parsed.path,
        routeKey: parsed.routeKey,
        requestSchema: null,
        responseSchemas: null,
        responses: [response] as never,
        options: null,
        createdAt: now,
        updatedAt: now,
      });
      const made = await dataSource
        .getRepository(ApiDesign)
        .findOneBy({ workspaceId: ex.workspaceId, method, routeKey: parsed.routeKey });
      return made?.id ?? 'skipped: the design vanished';
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      // Recorded by a request at the same time (or a design whose route this literal path shares).
      return dataSource.transaction(async (manager) => {
        const design = await append(manager, { method, routeKey: parsed.routeKey });
        return design ? addTo(manager, design) : 'skipped: the route was taken and freed meanwhile';
      });
    }
  }
}

/**
 * The body without its `Content-Encoding` (gzip, deflate, br; none or identity: as it is), at most
 * `maxBytes` decoded; undefined when it cannot be decoded (another coding, a corrupt body, too large).
 */
function decode(encoding: string | undefined, bytes: Buffer, maxBytes: number): Buffer | undefined {
  const coding = (encoding ?? 'identity').trim().toLowerCase();
  try {
    if (coding === 'identity' || coding === '' || bytes.length === 0) return bytes;
    if (coding === 'gzip' || coding === 'x-gzip') return zlib.gunzipSync(bytes, { maxOutputLength: maxBytes });
    if (coding === 'deflate') return zlib.inflateSync(bytes, { maxOutputLength: maxBytes });
    if (coding === 'br') return zlib.brotliDecompressSync(bytes, { maxOutputLength: maxBytes });
  } catch {
    return undefined;
  }
  return undefined;
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
