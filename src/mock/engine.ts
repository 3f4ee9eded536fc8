/**
 * The mock service (spec "Mock service behavior"; docs/mocks.md): answers requests to
 * `{base_url}/mock/{workspaceId}/<path>` from the workspace's API designs.
 *
 * Hot path, so it is plain `node:http` (the Koa app never sees these requests), routes are matched
 * by find-my-way (a radix router that ranks a literal segment above a parameter at every segment,
 * whatever the order designs were made in: spec rules 5 and 6), and every response body is
 * compiled when the designs are loaded, not per request.
 *
 * Choosing the response:
 * - status: `_status_` from the query string, else a `_status_` header, else Postman's
 *   `x-mock-response-code` header, else Prism's `Prefer: code=…`; without one, the design's default
 *   status: the lowest 2xx it defines, else its lowest status (rules 2 and 4);
 * - within the status: `_code_` (query, then header) picks the response with that code (rule 3);
 *   Postman's `x-mock-response-name` or Prism's `Prefer: example=…` pick it by name; else one is
 *   chosen at random (rule 2). `_code_` alone looks in the default status first, then in the other
 *   statuses in ascending order.
 * The selector parameters are removed from the query before placeholders read it.
 *
 * Refusals are problem+json that say what is defined: no design for the path (404
 * `mock-not-found`, with the designs of the workspace), the path with another method (405
 * `mock-method-not-allowed`, with `Allow`), a selector matching no response (404
 * `mock-response-not-found`, with every status and its codes), a selector that is not a number
 * (400 `mock-bad-selector`), a request breaking the design's contract (422 `mock-request-invalid`
 * with `violations`; checked after routing, before the response is chosen: src/mock/contract.ts).
 * While the workspace's mock settings name a proxy, every request is forwarded instead
 * (src/mock/proxy.ts; 502 `mock-proxy-failed` when it cannot be).
 *
 * Designs are cached per workspace; a change through this process is seen at once, a change
 * through another process within `revalidateMs`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Faker, base, en } from '@faker-js/faker';
import FindMyWay from 'find-my-way';
import type { DataSource } from 'typeorm';
import { ApiDesign } from '../store/entities';
import type { MockResponse } from '../domain/types';
import { parsePath } from './paths';
import { isJsonMedia } from './media';
import { compileBody, compileHeaders, type CompiledBody, type CompiledHeaders, type TemplateScope } from './templates';
import { mockRequests } from '../observability/metrics';
import type { DatabaseTimeouts } from '../config';
import { withStoreBounds } from '../store/bounds';
import { isDatabaseUnavailable } from '../store/errors';
import { PROBLEMS, problemDocument, type ProblemCode } from '../problems';
import { MOCK_SCOPE_HEADER, MOCK_SCOPE_PATTERN } from '../domain/mocks';
import { hasBody, MockBodyTooLarge, readBody, type MockExchange } from './exchange';
import { MockChaos, type ChaosDecision, type ChaosDesign, type ChaosSelectorError } from './chaos';
import type { MockDelay, MockSettingsView, MockStateAction, MockViolation } from '../domain/mocks';
import type { CompiledContract } from './contract';
import type { CrudOutcome, StateOutcome } from './crud';

interface CompiledResponse {
  status: number;
  code: number;
  name?: string;
  body: CompiledBody;
  headers: CompiledHeaders;
  delayMs: number;
  /** The response's own latency distribution (replaces `delayMs` and the design's `delay`). */
  delay?: MockDelay;
  /** Reads and writes a data collection (the state stage, src/mock/crud.ts); never `ready`. */
  state?: MockStateAction;
  /** For a response with nothing to fill: the whole answer, ready to write. */
  ready?: { headers: Record<string, string | number>; body: string };
}

interface CompiledDesign {
  id: string;
  method: string;
  path: string;
  /** Responses by status, statuses ascending. */
  byStatus: Map<number, CompiledResponse[]>;
  statuses: number[];
  defaultStatus: number;
  /** Status → codes, for the answer when a selector matches nothing. */
  defined: Record<string, number[]>;
  /** The design's latency and faults (src/mock/chaos.ts); absent when it has neither. */
  chaos?: ChaosDesign;
  /** The design's contract (src/mock/contract.ts), compiled with it; undefined: nothing to check. */
  contract?: CompiledContract;
  /** Router parameter names that stand for other names (src/mock/paths.ts `routerNames`). */
  routerNames?: Record<string, string>;
}

/** find-my-way's match with the parameters under the design's own names (`:__p0` → `subscription-id`). */
function routed<T extends { store: unknown; params: Record<string, string | undefined> }>(found: T | null): T | null {
  const names = (found?.store as CompiledDesign | undefined)?.routerNames;
  if (!found || !names) return found;
  const params: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(found.params)) params[names[k] ?? k] = v;
  return { ...found, params };
}

/** The design a request's route matches (the validation proxy's view of the router). */
export interface MockRouteMatch {
  designId: string;
  /** The design's path template (`/users/{id}`). */
  path: string;
  params: Record<string, string>;
  contract?: CompiledContract;
}

interface WorkspaceMocks {
  version: string;
  checkedAt: number;
  router: FindMyWay.Instance<FindMyWay.HTTPVersion.V1>;
  designs: CompiledDesign[];
}

export interface MockEngineOptions {
  dataSource: DataSource;
  /** How long a process trusts its cached designs before checking the store for changes, ms. */
  revalidateMs?: number;
  /** Seed of the random choices and fake data (reproducible answers); random when absent. */
  seed?: number;
  /**
   * Bounds of the store reads a mock request waits for (`config.databaseTimeouts`,
   * src/store/bounds.ts): past them it is answered 503 `database-unavailable`. Unbounded when absent.
   */
  storeTimeouts?: DatabaseTimeouts;
  /** The stages after routing (src/mock/exchange.ts); each absent stage is skipped. */
  stages?: MockStages;
}

/**
 * The stages beyond the spec's static answers, each in its own module (src/mock/exchange.ts):
 * state (data collections, scopes), contract validation and the proxy, latency and faults, the
 * journal. The engine calls them in this order: proxy → route → CRUD route (state) → contract →
 * chaos → state response → answer → journal.
 */
export interface MockStages {
  /**
   * src/mock/journal.ts: hears every answer (status, and what the stages set on the exchange;
   * status 0 for a connection fault). For a scoped exchange (`ex.scope` set) it is called BEFORE
   * the answer is written and the engine waits for its promise (the entry is in the store when
   * the client has its answer); for the others after the answer, without waiting. When it is
   * present, a request body is read (bounded) before answering, so the journal has it.
   */
  journal?: { record(ex: MockExchange, status: number): void | Promise<void> };
  /**
   * src/mock/chaos.ts: latency and faults (design `delay`/`faults`/`seed`, response `delay`,
   * `_delay_`/`_fault_` selectors). Absent: only a response's `delayMs` applies, selectors are
   * ignored.
   */
  chaos?: MockChaos;
  /**
   * src/mock/crud.ts `MockStateStage`: `crud` answers a request no design matches when a data
   * collection's basePath covers it (else gives the methods a generated route takes there);
   * `respond` runs a chosen response's `state` action and gives the body to answer.
   */
  state?: {
    crud(ex: MockExchange): Promise<CrudOutcome>;
    respond(ex: MockExchange, action: MockStateAction, params: Record<string, string>): Promise<StateOutcome>;
  };
  /**
   * src/mock/contract.ts `MockContract`: compiles a design's contract when the designs are loaded
   * (once per design version); undefined when the design has nothing to check.
   */
  contract?: { compile(design: ApiDesign): CompiledContract | undefined };
  /**
   * src/mock/settings.ts `MockSettingsCache`: the workspace's mock settings (`GET/PUT
   * /v1/mock-settings`), synchronous while cached and fresh. Forgotten with {@link MockEngine.invalidate}.
   */
  settings?: {
    get(workspaceId: string): MockSettingsView | Promise<MockSettingsView>;
    invalidate(workspaceId: string): void;
  };
  /**
   * src/mock/proxy.ts `MockProxy`: when the workspace's proxy is on, forwards the request (checking
   * or recording the exchange) and resolves to the answer for the caller: its status and `send`,
   * which writes it (the engine sends it as every answer, journalled; {@link MockEngine.finish}).
   * `designsChanged` is called after recording into designs.
   */
  proxy?: {
    forward(
      ex: MockExchange,
      proxy: NonNullable<MockSettingsView['proxy']>,
      match: MockRouteMatch | undefined,
      designsChanged: () => void,
    ): Promise<{ status: number; send(): void }>;
  };
}

/** Seconds a mock client is asked to wait while the database does not answer (as the API's 503). */
const DATABASE_RETRY_AFTER_SECONDS = 5;

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
const SELECTORS = ['_status_', '_code_', '_delay_', '_fault_'];
const WORKSPACE_ID = /^ws_[0-9A-HJKMNP-TV-Z]{26}$/;
const NO_BODY = new Set([204, 205, 304]);

/** Compiles one design's responses. */
function compileDesign(d: ApiDesign): CompiledDesign {
  const byStatus = new Map<number, CompiledResponse[]>();
  for (const r of d.responses) {
    const list = byStatus.get(r.status) ?? [];
    list.push({
      status: r.status,
      code: r.code,
      name: r.name,
      body: NO_BODY.has(r.status)
        ? { static: '' }
        : (textBody(r) ?? compileBody(r.data === undefined ? null : r.data, r.dynamic === true)),
      headers: compileHeaders(r.headers, r.dynamic === true),
      delayMs: Math.min(r.delayMs ?? 0, 60_000),
      ...(r.delay ? { delay: r.delay } : {}),
      ...(r.state ? { state: r.state } : {}),
    });
    byStatus.set(r.status, list);
  }
  const statuses = [...byStatus.keys()].sort((a, b) => a - b);
  const defaultStatus = statuses.find((s) => s >= 200 && s < 300) ?? statuses[0]!;
  for (const list of byStatus.values()) {
    for (const r of list) {
      if (!('static' in r.body) || !('static' in r.headers) || r.state) continue;
      const headers = baseHeaders(d.id, r);
      Object.assign(headers, r.headers.static);
      if (!NO_BODY.has(r.status)) headers['content-length'] = Buffer.byteLength(r.body.static);
      r.ready = { headers, body: r.body.static };
    }
  }
  const defined = Object.fromEntries(statuses.map((s) => [String(s), byStatus.get(s)!.map((r) => r.code)]));
  const o = d.options;
  const chaos: ChaosDesign | undefined =
    o && (o.delay || (o.faults && o.faults.length > 0))
      ? {
          id: d.id,
          ...(o.delay ? { delay: o.delay } : {}),
          faults: o.faults ?? [],
          ...(o.seed !== undefined ? { seed: o.seed } : {}),
        }
      : undefined;
  return {
    id: d.id,
    method: d.method,
    path: d.path,
    byStatus,
    statuses,
    defaultStatus,
    defined,
    ...(chaos ? { chaos } : {}),
  };
}

/**
 * The body of a response whose `data` is a string and whose `Content-Type` header names a media
 * type that is not JSON (`text/plain`, `application/xml`): the text itself, not its JSON string
 * (docs/mocks.md "Designs"); undefined otherwise.
 */
function textBody(r: MockResponse): CompiledBody | undefined {
  if (typeof r.data !== 'string' || r.dynamic === true) return undefined;
  const type = Object.entries(r.headers ?? {}).find(([k]) => k.toLowerCase() === 'content-type')?.[1];
  return type && !isJsonMedia(type) ? { static: r.data } : undefined;
}

function baseHeaders(designId: string, r: Pick<CompiledResponse, 'code'>): Record<string, string | number> {
  return {
    'content-type': 'application/json; charset=utf-8',
    'access-control-allow-origin': '*',
    'x-mock-design': designId,
    'x-mock-response-code': r.code,
  };
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** `Prefer: code=404, example=busy` (RFC 7240 preferences, Prism's names). */
function prefer(header: string | undefined): { code?: string; example?: string } {
  const out: { code?: string; example?: string } = {};
  for (const part of (header ?? '').split(',')) {
    const m = /^\s*(code|example)\s*=\s*"?([^";]*)"?/i.exec(part);
    if (m) out[m[1]!.toLowerCase() as 'code' | 'example'] = m[2]!.trim();
  }
  return out;
}

export class MockEngine {
  private readonly cache = new Map<string, Promise<WorkspaceMocks>>();
  /** The same designs once built, for the synchronous hot path. */
  private readonly fresh = new Map<string, WorkspaceMocks>();
  private readonly faker: Faker;
  private readonly revalidateMs: number;

  constructor(private readonly options: MockEngineOptions) {
    this.revalidateMs = options.revalidateMs ?? 2000;
    this.faker = new Faker({ locale: [en, base] });
    if (options.seed !== undefined) this.faker.seed(options.seed);
  }

  /** Forgets a workspace's cached designs (after a change through this process). */
  invalidate(workspaceId: string): void {
    this.cache.delete(workspaceId);
    this.fresh.delete(workspaceId);
    this.options.stages?.settings?.invalidate(workspaceId);
  }

  /** True for requests this engine answers. */
  static owns(url: string | undefined): boolean {
    return url !== undefined && url.startsWith('/mock/');
  }

  /** Answers a request to /mock/{workspaceId}/…; never throws. `onError` hears of failures (for the log). */
  handle(req: IncomingMessage, res: ServerResponse, onError?: (err: unknown) => void): void {
    let answered: Promise<void> | void;
    try {
      answered = this.answer(req, res);
    } catch (err) {
      answered = Promise.reject(err);
    }
    answered?.catch((err) => {
      onError?.(err);
      if (res.headersSent) res.destroy();
      else if (isDatabaseUnavailable(err)) {
        void this.problem(
          res,
          'database-unavailable',
          `The database cannot be reached right now. Retry in ${DATABASE_RETRY_AFTER_SECONDS} s.`,
          {},
          { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) },
        );
      } else void this.problem(res, 'internal', 'The mock service failed to answer.');
    });
  }

  /** Answers synchronously when the workspace's designs are cached and fresh (the hot path). */
  private answer(req: IncomingMessage, res: ServerResponse): Promise<void> | void {
    const url = req.url!;
    const q = url.indexOf('?');
    const pathname = q < 0 ? url : url.slice(0, q);
    const slash = pathname.indexOf('/', 6);
    const workspaceId = slash < 0 ? pathname.slice(6) : pathname.slice(6, slash);
    let path = slash < 0 ? '/' : pathname.slice(slash) || '/';
    if (!WORKSPACE_ID.test(workspaceId)) {
      return this.problem(
        res,
        'mock-not-found',
        `"${workspaceId}" is not a workspace id; mock addresses look like /mock/{workspaceId}/your/path.`,
      );
    }
    // The scope: the header, else a first path segment `~{scope}` (for services under test that
    // are given a base URL: docs/mocks.md "Scopes").
    let scope = first(req.headers[MOCK_SCOPE_HEADER]) ?? null;
    if (path.startsWith('/~')) {
      const end = path.indexOf('/', 2);
      const segment = decodeURIComponentSafe(end < 0 ? path.slice(2) : path.slice(2, end));
      path = end < 0 ? '/' : path.slice(end);
      scope ??= segment;
    }
    if (scope !== null && !MOCK_SCOPE_PATTERN.test(scope)) {
      return this.problem(
        res,
        'mock-bad-scope',
        `The mock scope "${scope.slice(0, 120)}" is not 1 to 100 of A-Z a-z 0-9 _ . : -.`,
      );
    }
    const ex: MockExchange = {
      workspaceId,
      scope,
      method: req.method ?? 'GET',
      path,
      rawQuery: q < 0 ? '' : url.slice(q + 1),
      req,
      res,
      startedAt: Date.now(),
    };
    // The validation and recording proxy (src/mock/proxy.ts), when the workspace's settings turn it on.
    const settings = this.options.stages?.settings?.get(workspaceId);
    if (settings !== undefined) {
      if (settings instanceof Promise)
        return settings.then((s) => (s.proxy ? this.proxied(ex, s.proxy) : this.route(ex, url, q)));
      if (settings.proxy) return this.proxied(ex, settings.proxy);
    }
    return this.route(ex, url, q);
  }

  /** Finds the design and answers from it (the cached designs synchronously). */
  private route(ex: MockExchange, url: string, q: number): Promise<void> | void {
    const workspaceId = ex.workspaceId;
    const cached = this.fresh.get(workspaceId);
    if (cached && ex.startedAt - cached.checkedAt < this.revalidateMs) return this.respond(cached, ex, url, q);
    const timeouts = this.options.storeTimeouts;
    const loaded = timeouts ? withStoreBounds(timeouts, () => this.load(workspaceId)) : this.load(workspaceId);
    return loaded.then((mocks) => this.respond(mocks, ex, url, q));
  }

  /** Forwards to the workspace's proxy target (src/mock/proxy.ts); answered and journalled as every answer. */
  private async proxied(ex: MockExchange, proxy: NonNullable<MockSettingsView['proxy']>): Promise<void> {
    const stage = this.options.stages?.proxy;
    if (!stage) return this.route(ex, ex.req.url!, ex.req.url!.indexOf('?'));
    const timeouts = this.options.storeTimeouts;
    const mocks = await (timeouts
      ? withStoreBounds(timeouts, () => this.load(ex.workspaceId))
      : this.load(ex.workspaceId));
    const answer = await stage.forward(ex, proxy, this.match(mocks, ex.method, ex.path), () =>
      this.invalidate(ex.workspaceId),
    );
    return this.finish(ex, answer.status, answer.send);
  }

  /** The design `method path` routes to, as {@link respond} finds it. */
  private match(mocks: WorkspaceMocks, method: string, path: string): MockRouteMatch | undefined {
    const found = routed(
      mocks.router.find(method.toUpperCase() as FindMyWay.HTTPMethod, path) ??
        (method.toUpperCase() === 'HEAD' ? mocks.router.find('GET', path) : null),
    );
    if (!found) return undefined;
    const design = found.store as CompiledDesign;
    return {
      designId: design.id,
      path: design.path,
      params: found.params as Record<string, string>,
      contract: design.contract,
    };
  }

  /** Answers 422 `mock-request-invalid` listing the violations (kept on the exchange for the journal). */
  private invalidRequest(ex: MockExchange, design: CompiledDesign, violations: MockViolation[]): void | Promise<void> {
    ex.violations = violations;
    const list = violations
      .slice(0, 3)
      .map((v) => `${v.in} ${v.field || '(root)'} ${v.message}`)
      .join('; ');
    return this.problem(
      ex,
      'mock-request-invalid',
      `The request breaks the contract of ${design.method} ${design.path}: ${list}${violations.length > 3 ? `; and ${violations.length - 3} more` : ''}.`,
      { violations },
    );
  }

  private respond(mocks: WorkspaceMocks, ex: MockExchange, url: string, q: number): Promise<void> | void {
    const { req, path } = ex;
    const method = req.method ?? 'GET';
    let found = mocks.router.find(method as FindMyWay.HTTPMethod, path);
    if (!found && method !== method.toUpperCase())
      found = mocks.router.find(method.toUpperCase() as FindMyWay.HTTPMethod, path);
    if (!found && method === 'HEAD') found = mocks.router.find('GET', path);
    found = routed(found);
    if (!found) {
      // No design: a generated CRUD route of a data collection, when one covers the path (src/mock/crud.ts).
      const state = this.options.stages?.state;
      if (state)
        return this.bounded(() => state.crud(ex)).then((out) =>
          'status' in out ? this.finish(ex, out.status, ex.send!) : this.miss(mocks, ex, out.allowed),
        );
      return this.miss(mocks, ex, []);
    }
    return this.matched(mocks, ex, found, url, q, false);
  }

  /** No design and no generated route takes the request: the CORS preflight, 405 or 404. */
  private miss(mocks: WorkspaceMocks, ex: MockExchange, generated: string[]): Promise<void> | void {
    const { res, path } = ex;
    const method = ex.req.method ?? 'GET';
    {
      const allowed = METHODS.filter(
        (m) => mocks.router.find(m, path) || (m === 'HEAD' && mocks.router.find('GET', path)) || generated.includes(m),
      );
      if (allowed.length > 0) {
        if (method === 'OPTIONS') {
          mockRequests.inc({ status: '204' });
          return this.finish(ex, 204, () => {
            res.writeHead(204, {
              allow: allowed.join(', '),
              'access-control-allow-origin': '*',
              'access-control-allow-methods': allowed.join(', '),
              'access-control-allow-headers': '*',
            });
            res.end();
          });
        }
        res.setHeader('allow', allowed.join(', '));
        return this.problem(
          ex,
          'mock-method-not-allowed',
          `${path} is designed for ${allowed.join(', ')}, not ${method}.`,
          { allowed },
        );
      }
      return this.problem(ex, 'mock-not-found', `No API design matches ${method} ${path}.`, {
        designs: mocks.designs.slice(0, 100).map((d) => `${d.method} ${d.path}`),
      });
    }
  }

  /** A design matches: the response chosen by the selectors, then the stages, then the answer. */
  private matched(
    mocks: WorkspaceMocks,
    ex: MockExchange,
    found: FindMyWay.FindResult<FindMyWay.HTTPVersion.V1>,
    url: string,
    q: number,
    validated: boolean,
  ): Promise<void> | void {
    const { req, res } = ex;
    const method = req.method ?? 'GET';
    const design = found.store as CompiledDesign;
    ex.designId = design.id;
    // Contract validation (src/mock/contract.ts): 422 with the violations; the body is read only when checked.
    if (!validated && design.contract?.validatesRequests) {
      const checked = design.contract.checkRequest(ex, found.params as Record<string, string>);
      if (Array.isArray(checked)) {
        if (checked.length > 0) return this.invalidRequest(ex, design, checked);
      } else {
        return checked.then(
          (violations) =>
            violations.length > 0
              ? this.invalidRequest(ex, design, violations)
              : this.matched(mocks, ex, found, url, q, true),
          (err: unknown) => {
            if (!(err instanceof MockBodyTooLarge)) throw err;
            return this.problem(ex, 'mock-body-too-large', 'The request body is larger than 1 MiB.');
          },
        );
      }
    }
    const headers = req.headers;
    const query = q < 0 ? undefined : new URLSearchParams(url.slice(q + 1));
    const preference = headers.prefer === undefined ? {} : prefer(first(headers.prefer));
    const statusSelector =
      query?.get('_status_') ?? first(headers._status_) ?? first(headers['x-mock-response-code']) ?? preference.code;
    const codeSelector = query?.get('_code_') ?? first(headers._code_);
    const nameSelector = first(headers['x-mock-response-name']) ?? preference.example;
    const defined = design.defined;

    let status: number | undefined;
    if (statusSelector !== undefined) {
      status = Number(statusSelector);
      if (!Number.isInteger(status))
        return this.problem(ex, 'mock-bad-selector', `The status selector "${statusSelector}" is not a number.`, {
          defined,
        });
    }
    let code: number | undefined;
    if (codeSelector !== undefined) {
      code = Number(codeSelector);
      if (!Number.isInteger(code))
        return this.problem(ex, 'mock-bad-selector', `The _code_ selector "${codeSelector}" is not a number.`, {
          defined,
        });
    }

    let response: CompiledResponse | undefined;
    const among = (s: number) => design.byStatus.get(s) ?? [];
    if (code !== undefined) {
      const order =
        status !== undefined
          ? [status]
          : [design.defaultStatus, ...design.statuses.filter((s) => s !== design.defaultStatus)];
      for (const s of order) {
        response = among(s).find((r) => r.code === code);
        if (response) break;
      }
    } else if (nameSelector !== undefined) {
      const order = status !== undefined ? [status] : design.statuses;
      for (const s of order) {
        response = among(s).find((r) => r.name === nameSelector);
        if (response) break;
      }
    } else {
      const list = among(status ?? design.defaultStatus);
      response = list.length <= 1 ? list[0] : list[this.faker.number.int({ min: 0, max: list.length - 1 })];
    }
    if (!response) {
      const wanted = [
        status !== undefined ? `status ${status}` : '',
        code !== undefined ? `code ${code}` : '',
        nameSelector !== undefined ? `name "${nameSelector}"` : '',
      ]
        .filter(Boolean)
        .join(', ');
      return this.problem(
        ex,
        'mock-response-not-found',
        `${design.method} ${design.path} defines no response with ${wanted}. Defined (status: codes): ${Object.entries(
          defined,
        )
          .map(([s, c]) => `${s}: ${c.join(', ')}`)
          .join('; ')}.`,
        { defined },
      );
    }

    const chosen = response;
    // Latency and faults (src/mock/chaos.ts): skipped unless the design, the response or a selector asks.
    const chaosStage = this.options.stages?.chaos;
    let decision: ChaosDecision | undefined;
    if (chaosStage) {
      const delaySelector = query?.get('_delay_') ?? first(headers._delay_);
      const faultSelector = query?.get('_fault_') ?? first(headers._fault_);
      if (MockChaos.wanted(design.chaos, chosen.delay, delaySelector ?? undefined, faultSelector ?? undefined)) {
        const decided: ChaosDecision | ChaosSelectorError = chaosStage.decide(ex, design.chaos, design.id, chosen, {
          ...(delaySelector != null ? { delay: delaySelector } : {}),
          ...(faultSelector != null ? { fault: faultSelector } : {}),
        });
        if ('error' in decided) return this.problem(ex, 'mock-bad-selector', decided.error, { defined });
        decision = decided;
      }
    }
    const write = (stateBody?: string): void | Promise<void> => {
      if (decision?.fault) return this.fault(ex, decision);
      mockRequests.inc({ status: STATUS_LABELS[chosen.status] ?? String(chosen.status) });
      if (chosen.ready) {
        // The hot path: the prepared bytes (finish writes them at once when nothing is to be waited for).
        const ready = chosen.ready;
        return this.finish(ex, chosen.status, () => {
          res.writeHead(chosen.status, ready.headers);
          res.end(method === 'HEAD' ? undefined : ready.body);
        });
      }
      if (query) for (const s of SELECTORS) query.delete(s);
      const scope: TemplateScope = {
        params: found.params as Record<string, string>,
        query: query ? Object.fromEntries(query) : {},
        faker: this.faker,
      };
      const body =
        stateBody !== undefined ? stateBody : 'static' in chosen.body ? chosen.body.static : chosen.body.render(scope);
      const out = baseHeaders(design.id, chosen);
      Object.assign(out, 'static' in chosen.headers ? chosen.headers.static : chosen.headers.render(scope));
      if (!NO_BODY.has(chosen.status)) out['content-length'] = Buffer.byteLength(body);
      return this.finish(ex, chosen.status, () => {
        res.writeHead(chosen.status, out);
        res.end(method === 'HEAD' || NO_BODY.has(chosen.status) ? undefined : body);
      });
    };
    const delayMs = decision ? decision.delayMs : chosen.delayMs;
    // The state-response stage (src/mock/crud.ts): the record read or written, then the answer
    // (not when a fault was chosen: a faulty answer writes nothing).
    const state = chosen.state && !decision?.fault ? this.options.stages?.state : undefined;
    const proceed = state
      ? (): Promise<void> =>
          this.bounded(() => state.respond(ex, chosen.state!, found.params as Record<string, string>)).then((out) =>
            'answered' in out ? this.finish(ex, out.answered, ex.send!) : write(out.body),
          )
      : () => write();
    if (delayMs > 0) {
      ex.delayMs = delayMs;
      return new Promise<void>((resolve) => setTimeout(resolve, delayMs)).then(proceed);
    }
    return proceed();
  }

  /** Carries out a fault the chaos stage chose: `status` as a problem answer, the others on the socket (journalled with status 0). */
  private fault(ex: MockExchange, decision: ChaosDecision): void | Promise<void> {
    const fault = decision.fault!;
    ex.fault = fault;
    if (fault === 'status') {
      const status = decision.status ?? 503;
      return this.problem(
        ex,
        'mock-fault',
        `Injected fault: the design answers ${status} here (its faults, or a _fault_ selector).`,
        { fault },
        {},
        status,
      );
    }
    mockRequests.inc({ status: '0' });
    return this.finish(ex, 0, () => MockChaos.inject(ex, fault));
  }

  /**
   * Sends an answer (`send`) and hands the exchange to the journal stage, when there is one: a
   * request body is read first (bounded; a body past the bound is journalled without it); a
   * scoped exchange is journalled before it is sent, and the answer waits for the journal.
   */
  private finish(ex: MockExchange, status: number, send: () => void): void | Promise<void> {
    const journal = this.options.stages?.journal;
    if (!journal) return send();
    if (ex.body === undefined && hasBody(ex.req)) {
      return readBody(ex).then(
        () => this.finish(ex, status, send),
        () => {
          ex.body = Buffer.alloc(0);
          return this.finish(ex, status, send);
        },
      );
    }
    if (ex.scope === null) {
      send();
      return journal.record(ex, status);
    }
    const recorded = journal.record(ex, status);
    if (!recorded) return send();
    return recorded.then(send, send);
  }

  /** `fn` within the store bounds of mock requests (`storeTimeouts`), when there are some. */
  private bounded<T>(fn: () => T): T {
    const timeouts = this.options.storeTimeouts;
    return timeouts ? withStoreBounds(timeouts, fn) : fn();
  }

  /**
   * Answers a problem document of the catalogue (src/problems.ts), as the API does; journalled
   * when `target` is an exchange (a request whose workspace is known).
   */
  private problem(
    target: ServerResponse | MockExchange,
    code: ProblemCode,
    detail: string,
    extras: Record<string, unknown> = {},
    headers: Record<string, string> = {},
    statusOverride?: number,
  ): void | Promise<void> {
    const res = 'res' in target ? target.res : target;
    const status = statusOverride ?? PROBLEMS[code].status;
    mockRequests.inc({ status: STATUS_LABELS[status] ?? String(status) });
    const document = problemDocument(code, detail, extras);
    if (statusOverride !== undefined) document.status = statusOverride;
    const body = JSON.stringify(document);
    const send = () => {
      res.writeHead(status, {
        ...headers,
        'content-type': 'application/problem+json',
        'content-length': Buffer.byteLength(body),
        'access-control-allow-origin': '*',
      });
      res.end(body);
    };
    if ('res' in target) return this.finish(target, status, send);
    send();
  }

  /** The workspace's compiled designs, rebuilt when they changed. */
  private async load(workspaceId: string): Promise<WorkspaceMocks> {
    const cached = this.cache.get(workspaceId);
    if (cached) {
      const mocks = await cached;
      if (Date.now() - mocks.checkedAt < this.revalidateMs) return mocks;
      const version = await this.version(workspaceId);
      if (version === mocks.version) {
        mocks.checkedAt = Date.now();
        this.fresh.set(workspaceId, mocks);
        return mocks;
      }
      if (this.cache.get(workspaceId) === cached) this.invalidate(workspaceId);
    }
    let pending = this.cache.get(workspaceId);
    if (!pending) {
      pending = this.build(workspaceId);
      this.cache.set(workspaceId, pending);
      pending.then(
        (mocks) => {
          if (this.cache.get(workspaceId) === pending) this.fresh.set(workspaceId, mocks);
        },
        () => this.cache.delete(workspaceId),
      );
    }
    return pending;
  }

  private async version(workspaceId: string): Promise<string> {
    const [row] = (await this.options.dataSource.query(
      'SELECT COUNT(*) AS n, MAX(updatedAt) AS at FROM api_designs WHERE workspaceId = ?',
      [workspaceId],
    )) as Array<{ n: number | string; at: unknown }>;
    return `${row?.n}/${String(row?.at)}`;
  }

  private async build(workspaceId: string): Promise<WorkspaceMocks> {
    const version = await this.version(workspaceId);
    const rows = await this.options.dataSource
      .getRepository(ApiDesign)
      .find({ where: { workspaceId }, order: { path: 'ASC', method: 'ASC' } });
    const router = FindMyWay({ ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, caseSensitive: true });
    const designs: CompiledDesign[] = [];
    for (const row of rows) {
      if (row.responses.length === 0) continue;
      const parsed = parsePath(row.path);
      if ('error' in parsed) continue;
      const design = compileDesign(row);
      if (parsed.routerNames) design.routerNames = parsed.routerNames;
      design.contract = this.options.stages?.contract?.compile(row);
      router.on(row.method as FindMyWay.HTTPMethod, parsed.routerPath, () => undefined, design);
      designs.push(design);
    }
    return { version, checkedAt: Date.now(), router, designs };
  }
}

/** Status codes as label values, made once (the mock path is hot: `assay_mock_requests_total`). */
const STATUS_LABELS: string[] = Array.from({ length: 600 }, (_, i) => String(i));
