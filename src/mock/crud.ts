/**
 * The state stage of the mock engine (src/mock/engine.ts `MockStages.state`, docs/mocks.md
 * "State"): CRUD routes generated over the data collections that have a `basePath`, and the
 * responses with a `state` action. Records live in the store (src/mock/state.ts).
 *
 * Generated routes, for a collection with basePath `/users` (a design with the same method and
 * route wins: the engine asks this stage only when no design matches):
 *
 *   GET    /users              list: `?field=value` filters (top-level fields, compared as text;
 *                              repeated: any of them), `_sort=field,-other`, `_page` (from 1) and
 *                              `_limit` (1–1000, default 100); `X-Total-Count` is the count matching
 *   GET    /users/{id}         one record; 404 `mock-record-not-found`
 *   POST   /users              create: the id from the body, else the next integer when every id
 *                              is an integer, else a ULID; 201 with `Location`; 409 `mock-record-exists`
 *   PUT    /users/{id}         replace (200), or create when missing (201)
 *   PATCH  /users/{id}         RFC 7396 merge patch; 404 when missing
 *   DELETE /users/{id}         204; 404 when missing
 *
 * Bodies must be JSON objects (else 422 `mock-request-invalid`), at most 1 MiB (413).
 */
import { mockRequests } from '../observability/metrics';
import { PROBLEMS, problemDocument } from '../problems';
import type { MockStateAction } from '../domain/mocks';
import { parseBody, requestView, type MockExchange } from './exchange';
import {
  MAX_RECORD_ID,
  SHARED_SCOPE,
  StateRefusal,
  readStateBody,
  stateRequest,
  type CollectionInfo,
  type ListQuery,
  type MockRecordData,
  type MockState,
} from './state';

/** What the CRUD-route stage did: prepared its answer (`ex.send`) with `status`, or found no generated route for the method (`allowed`: the methods one would take on this path, empty when none covers it). */
export type CrudOutcome = { status: number } | { allowed: string[] };

/** What the state-response stage gives the engine: the body to answer (JSON text), or that it prepared a problem answer itself (`ex.send`). */
export type StateOutcome = { body?: string } | { answered: number };

const COLLECTION_METHODS = ['GET', 'POST'];
const ITEM_METHODS = ['GET', 'PUT', 'PATCH', 'DELETE'];

/**
 * Prepares the answer as `ex.send`, for the engine to send once the journal has the exchange
 * (src/mock/engine.ts `finish`: a scoped request is journalled before its answer).
 */
function write(ex: MockExchange, status: number, headers: Record<string, string | number>, body?: string): void {
  mockRequests.inc({ status: String(status) });
  ex.send = () => {
    ex.res.writeHead(status, {
      'access-control-allow-origin': '*',
      ...(body !== undefined
        ? { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) }
        : {}),
      ...headers,
    });
    ex.res.end(body);
  };
}

/** Prepares a refusal as problem+json (RFC 9457, the catalogue's code) in `ex.send`; the status. */
function refuse(ex: MockExchange, err: StateRefusal): number {
  const { status } = PROBLEMS[err.code];
  const body = JSON.stringify(problemDocument(err.code, err.message, err.extras));
  mockRequests.inc({ status: String(status) });
  ex.send = () => {
    ex.res.writeHead(status, {
      'content-type': 'application/problem+json',
      'content-length': Buffer.byteLength(body),
      'access-control-allow-origin': '*',
    });
    ex.res.end(body);
  };
  return status;
}

function listQuery(rawQuery: string): ListQuery | StateRefusal {
  const filters = new Map<string, string[]>();
  const sort: ListQuery['sort'] = [];
  let page = 1;
  let limit = 100;
  for (const [k, v] of new URLSearchParams(rawQuery)) {
    if (k === '_page' || k === '_limit') {
      const n = Number(v);
      const max = k === '_page' ? 1_000_000 : 1000;
      if (!Number.isInteger(n) || n < 1 || n > max)
        return new StateRefusal('mock-request-invalid', `${k} must be an integer from 1 to ${max}.`, {
          violations: [{ in: 'query', field: k, message: `must be an integer from 1 to ${max}` }],
        });
      if (k === '_page') page = n;
      else limit = n;
    } else if (k === '_sort') {
      for (const part of v.split(',').filter(Boolean))
        sort.push(part.startsWith('-') ? { field: part.slice(1), desc: true } : { field: part, desc: false });
    } else if (!k.startsWith('_')) {
      filters.set(k, [...(filters.get(k) ?? []), v]);
    }
  }
  return { filters, sort, page, limit };
}

async function jsonObject(ex: MockExchange): Promise<MockRecordData> {
  await readStateBody(ex);
  const value = parseBody(ex.body);
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new StateRefusal('mock-request-invalid', 'The body must be a JSON object.', {
      violations: [{ in: 'body', field: '', message: 'must be a JSON object' }],
    });
  return value as MockRecordData;
}

/** The `/mock/{ws}` prefix of the request's own URL, with its `/~scope` segment when it had one. */
function mockPrefix(ex: MockExchange): string {
  const url = ex.req.url ?? '';
  const scoped = `/mock/${ex.workspaceId}/~`;
  if (url.startsWith(scoped)) {
    const end = url.indexOf('/', scoped.length);
    return end < 0 ? url : url.slice(0, end);
  }
  return `/mock/${ex.workspaceId}`;
}

/**
 * The state stage: the engine calls {@link crud} when no design matches a request, and
 * {@link respond} for a chosen response with a `state` action.
 */
export class MockStateStage {
  constructor(private readonly state: MockState) {}

  /** The collection whose basePath covers `path`, with the record id when it names one. */
  private async route(ex: MockExchange): Promise<{ c: CollectionInfo; id?: string } | undefined> {
    const collections = await this.state.collections(ex.workspaceId);
    let path = ex.path;
    while (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
    for (const c of collections) {
      if (!c.basePath) continue;
      if (path === c.basePath) return { c };
      if (path.startsWith(`${c.basePath}/`)) {
        const rest = path.slice(c.basePath.length + 1);
        if (rest.length === 0 || rest.includes('/')) continue;
        let id: string;
        try {
          id = decodeURIComponent(rest);
        } catch {
          id = rest;
        }
        if (id.length > MAX_RECORD_ID) continue;
        return { c, id };
      }
    }
    return undefined;
  }

  /**
   * CRUD-route stage: answers a request to a generated route (resolves to its status), or says
   * which methods a generated route takes on this path (none: no collection covers it).
   */
  async crud(ex: MockExchange): Promise<CrudOutcome> {
    const found = await this.route(ex);
    if (!found) return { allowed: [] };
    const { c, id } = found;
    const method = ex.method.toUpperCase();
    const allowed = id === undefined ? COLLECTION_METHODS : ITEM_METHODS;
    const effective = method === 'HEAD' ? 'GET' : method;
    if (!allowed.includes(effective)) return { allowed: [...allowed, 'HEAD'] };
    ex.collectionId = c.id;
    const scope = ex.scope ?? SHARED_SCOPE;
    const head = method === 'HEAD';
    const base = { 'x-mock-collection': c.id };
    const send = (status: number, value?: unknown, headers: Record<string, string | number> = {}) => {
      const body = value === undefined ? undefined : JSON.stringify(value);
      if (head) {
        write(ex, status, { ...base, ...headers, 'content-type': 'application/json; charset=utf-8' });
      } else write(ex, status, { ...base, ...headers }, body);
      return { status };
    };
    try {
      if (id === undefined && effective === 'GET') {
        const q = listQuery(ex.rawQuery);
        if (q instanceof StateRefusal) throw q;
        const { records, total } = await this.state.list(c, scope, q);
        return send(200, records, { 'x-total-count': total, 'access-control-expose-headers': 'X-Total-Count' });
      }
      if (id === undefined) {
        const record = await this.state.create(c, scope, await jsonObject(ex));
        const location = `${mockPrefix(ex)}${c.basePath}/${encodeURIComponent(String(record[c.idField]))}`;
        return send(201, record, { location });
      }
      switch (effective) {
        case 'GET': {
          const record = await this.state.get(c, scope, id);
          if (!record)
            throw new StateRefusal('mock-record-not-found', `${c.name} has no record with ${c.idField} "${id}".`, {
              collection: c.name,
              id,
            });
          return send(200, record);
        }
        case 'PUT': {
          const { record, created } = await this.state.replace(c, scope, id, await jsonObject(ex));
          return send(created ? 201 : 200, record);
        }
        case 'PATCH':
          return send(200, await this.state.patch(c, scope, id, await jsonObject(ex)));
        default:
          await this.state.remove(c, scope, id);
          write(ex, 204, base);
          return { status: 204 };
      }
    } catch (err) {
      if (err instanceof StateRefusal) return { status: refuse(ex, err) };
      throw err;
    }
  }

  /**
   * State-response stage: runs a chosen response's `state` action (docs/mocks.md "State
   * responses"): `id` filled from the path parameters, then the query (`{{name}}`), the update
   * written and the body evaluated in one transaction. Resolves to the body to answer (JSON text;
   * undefined: the response's own), or to the status of a problem it answered itself.
   */
  async respond(ex: MockExchange, action: MockStateAction, params: Record<string, string>): Promise<StateOutcome> {
    try {
      const collections = await this.state.collections(ex.workspaceId);
      const c = collections.find((x) => x.name === action.collection);
      if (!c)
        throw new StateRefusal(
          'mock-state-failed',
          `The response's state names the data collection "${action.collection}", which the workspace does not have.`,
          { field: 'state.collection' },
        );
      ex.collectionId = c.id;
      const request = await stateRequest(ex, params);
      const query = (request as ReturnType<typeof requestView>).query;
      const id =
        action.id === undefined
          ? undefined
          : action.id.replace(/\{\{\s*([^{}\s]+)\s*\}\}/g, (_, name: string) => params[name] ?? query[name] ?? '');
      if (id !== undefined && (id.length === 0 || id.length > MAX_RECORD_ID))
        throw new StateRefusal('mock-record-not-found', `${c.name} has no record with ${c.idField} "${id}".`, {
          collection: c.name,
          id,
        });
      const out = await this.state.act(c, ex.scope ?? SHARED_SCOPE, action, id, request);
      if (!out.hasBody) return {};
      return { body: out.body === undefined ? 'null' : JSON.stringify(out.body) };
    } catch (err) {
      if (err instanceof StateRefusal) return { answered: refuse(ex, err) };
      throw err;
    }
  }
}
