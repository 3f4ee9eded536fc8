/**
 * Data collections of the workspace's mocks (docs/mocks.md "State"; src/mock/state.ts).
 *
 *   GET    /v1/mock-collections                   list (by name; `limit`, `cursor`)
 *   POST   /v1/mock-collections                   create                                     → 201
 *   GET    /v1/mock-collections/{id}
 *   PUT    /v1/mock-collections/{id}              replace (a new seed resets the shared state) → 200
 *   PATCH  /v1/mock-collections/{id}              any field (a seed given resets the shared state) → 200
 *   DELETE /v1/mock-collections/{id}              with its records in every scope            → 204
 *   GET    /v1/mock-collections/{id}/records      `?scope=` (default the shared state; `~seed`: the
 *                                                 seed), in insertion order (`limit` 1–1000, `cursor`)
 *   POST   /v1/mock-collections/{id}/reset        the shared state back to the seed          → 200
 *   DELETE /v1/mock-scopes/{scope}                discards a scope in every collection        → 204
 *
 * Body: `{name (^[a-z][a-z0-9_-]{0,62}$, unique per workspace), basePath? ("/users": CRUD routes
 * generated there; unique per workspace), idField? ("id"), seed?: object[] (≤ 10,000 records,
 * ≤ 8 MiB, each with a distinct string or integer id, or none: then 1, 2, …) | seedFrom?:
 * {designId, status?, count}}`. `seedFrom` samples `count` records from the design's response
 * schema for `status` (default: its lowest 2xx with a schema), the array's `items` when the schema
 * is an array, with ids 1…count. 409 `mock-collection-taken` when the name or basePath is another
 * collection's. The answer: the collection with `records` (the shared state's count) and `mockUrl`.
 */
import Router from '@koa/router';
import { newId } from '../../src/ids';
import { ApiDesign, MockCollection } from '../../src/store/entities';
import { isUniqueViolation } from '../../src/store/errors';
import { fieldError, type FieldError } from '../../src/problems';
import { MOCK_SCOPE_PATTERN } from '../../src/domain/mocks';
import {
  MAX_RECORDS,
  MAX_SEED_BYTES,
  mockStateFor,
  recordIdOf,
  SEED_SCOPE,
  SHARED_SCOPE,
  type CollectionInfo,
  type MockRecordData,
} from '../../src/mock/state';
import { SampleError, sampleFromSchema } from '../../src/mock/samples';
import type { ApiDeps, AppContext, AppState } from '../context';
import { invalid, Problem } from '../problem';
import { jsonBodies } from '../body';
import { sampleProblem } from '../errors';
import { bodyValidator, jsonBody, queryInt, queryString } from '../validation';
import { byName, cursor, keysetPage, page, readPaging } from '../paging';
import { findOr404, workspaceRows } from '../lookups';
import { iso } from './shared';

interface CollectionInput {
  name: string;
  basePath?: string | null;
  idField?: string;
  seed?: MockRecordData[];
  seedFrom?: { designId: string; status?: number; count: number } | null;
}

/** A base path: literal segments, no dot segments, no parameters. */
const BASE_PATH = "^(/[A-Za-z0-9_~!$&'()*+,;=:@%-][A-Za-z0-9._~!$&'()*+,;=:@%-]*)+$";

const fields = {
  name: { type: 'string', pattern: '^[a-z][a-z0-9_-]{0,62}$' },
  basePath: { type: ['string', 'null'], maxLength: 200, pattern: BASE_PATH },
  idField: { type: 'string', pattern: '^[A-Za-z_$][A-Za-z0-9_$-]{0,99}$' },
  seed: { type: 'array', maxItems: MAX_RECORDS, items: { type: 'object' } },
  seedFrom: {
    type: ['object', 'null'],
    required: ['designId', 'count'],
    additionalProperties: false,
    properties: {
      designId: { type: 'string', minLength: 1, maxLength: 40 },
      status: { type: 'integer', minimum: 100, maximum: 599 },
      count: { type: 'integer', minimum: 1, maximum: MAX_RECORDS },
    },
  },
};

/** The request body schemas (create/replace, patch): what ajv checks and the OpenAPI document shows. */
export const COLLECTION_SCHEMAS = {
  full: { type: 'object', required: ['name'], additionalProperties: false, properties: fields },
  patch: { type: 'object', additionalProperties: false, minProperties: 1, properties: fields },
} as const;
const validateFull = bodyValidator<CollectionInput>(COLLECTION_SCHEMAS.full);
const validatePatch = bodyValidator<Partial<CollectionInput>>(COLLECTION_SCHEMAS.patch);

const ORDER = byName<MockCollection>('c');

/** A collection route reading its own body: seeds may be up to 8 MiB (the API's other bodies 1 MiB). */
export function ownsCollectionBody(ctx: AppContext): boolean {
  return (
    (ctx.method === 'POST' || ctx.method === 'PUT' || ctx.method === 'PATCH') &&
    /^\/v1\/mock-collections(\/[^/]+)?\/?$/i.test(ctx.path)
  );
}

function info(c: MockCollection): CollectionInfo {
  return { id: c.id, workspaceId: c.workspaceId, name: c.name, basePath: c.basePath, idField: c.idField };
}

/** Checks a given seed: ids (given or 1, 2, …), distinct; 8 MiB at most. The records to store. */
function checkSeed(seed: MockRecordData[], idField: string, at: string): MockRecordData[] {
  const errors: FieldError[] = [];
  if (Buffer.byteLength(JSON.stringify(seed)) > MAX_SEED_BYTES)
    throw invalid([fieldError([at], `is larger than ${MAX_SEED_BYTES} bytes of JSON`)]);
  const seen = new Map<string, number>();
  const records = seed.map((r, i) => {
    const record = r[idField] === undefined || r[idField] === null ? { ...r, [idField]: i + 1 } : r;
    const id = recordIdOf(record[idField]);
    if (id === undefined)
      errors.push(fieldError([at, i, idField], 'must be a string of 1 to 200 characters or an integer'));
    else if (seen.has(id)) errors.push(fieldError([at, i, idField], `repeats the id of ${at}[${seen.get(id)}]`));
    else seen.set(id, i);
    return record;
  });
  if (errors.length) throw invalid(errors.slice(0, 20));
  return records;
}

/** `count` records sampled from a design's response schema (array items when it is an array), ids 1…count. */
async function sampleSeed(
  ctx: AppContext,
  deps: ApiDeps,
  from: NonNullable<CollectionInput['seedFrom']>,
  idField: string,
): Promise<MockRecordData[]> {
  const design = await findOr404(
    deps.dataSource.manager,
    ApiDesign,
    { id: from.designId, workspaceId: ctx.state.caller.workspaceId },
    `Design "${from.designId}"`,
  );
  const statuses = Object.keys(design.responseSchemas ?? {})
    .map(Number)
    .sort((a, b) => a - b);
  const status = from.status ?? statuses.find((s) => s >= 200 && s < 300) ?? statuses[0];
  let schema = status === undefined ? undefined : (design.responseSchemas?.[String(status)] as Record<string, unknown>);
  if (!schema) {
    const own = design.responses.find((r) => (from.status === undefined || r.status === from.status) && r.schema);
    schema = own?.schema as Record<string, unknown> | undefined;
  }
  if (!schema)
    throw invalid([
      fieldError(
        ['seedFrom', 'designId'],
        `the design has no response schema${from.status ? ` for ${from.status}` : ''}`,
      ),
    ]);
  const item =
    schema.type === 'array' && schema.items && typeof schema.items === 'object' ? (schema.items as object) : schema;
  let sample: unknown;
  try {
    sample = sampleFromSchema(item);
  } catch (err) {
    if (err instanceof SampleError) throw sampleProblem([{ err, at: ['seedFrom'] }]);
    throw err;
  }
  const base =
    sample !== null && typeof sample === 'object' && !Array.isArray(sample)
      ? (sample as MockRecordData)
      : { value: sample };
  const stringIds = typeof base[idField] === 'string';
  return Array.from({ length: from.count }, (_, i) => ({ ...base, [idField]: stringIds ? String(i + 1) : i + 1 }));
}

export function mockCollectionsRouter(deps: ApiDeps): Router<AppState> {
  const { dataSource, config } = deps;
  const router = new Router<AppState>();
  const repo = dataSource.getRepository(MockCollection);
  const state = () => mockStateFor(dataSource);
  const bigBodies = jsonBodies(MAX_SEED_BYTES + 64 * 1024);
  const base = () => config.mocks.publicUrl ?? config.api.publicUrl;

  const json = async (c: MockCollection) => ({
    id: c.id,
    name: c.name,
    basePath: c.basePath,
    idField: c.idField,
    seedFrom: c.seedFrom,
    seedCount: c.seedCount,
    records: await state().count(info(c), SHARED_SCOPE),
    mockUrl: `${base()}/mock/${c.workspaceId}${c.basePath ?? ''}`,
    createdAt: iso(c.createdAt),
    updatedAt: iso(c.updatedAt),
  });

  const load = (ctx: AppContext) =>
    findOr404(
      dataSource.manager,
      MockCollection,
      { id: ctx.params.collectionId!, workspaceId: ctx.state.caller.workspaceId },
      `Data collection "${ctx.params.collectionId}"`,
    );

  /** Saves; a name or basePath another collection has is 409 naming it. */
  async function save(c: MockCollection, insert: boolean): Promise<void> {
    try {
      if (insert) await repo.insert(c as never);
      else await repo.save(c);
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      const others = await repo.findBy({ workspaceId: c.workspaceId });
      const other = others.find(
        (o) => o.id !== c.id && (o.name === c.name || (c.basePath && o.basePath === c.basePath)),
      );
      const field = other && other.name === c.name ? 'name' : 'basePath';
      throw new Problem(
        'mock-collection-taken',
        `Another data collection${other ? ` (${other.id}, "${other.name}")` : ''} has this ${field}.`,
        {
          errors: [fieldError([field], 'is taken by another data collection')],
          ...(other ? { collectionId: other.id } : {}),
        },
      );
    }
  }

  /** The seed to store when the input gives one (records or seedFrom), else undefined. */
  async function seedOf(
    ctx: AppContext,
    input: Partial<CollectionInput>,
    idField: string,
  ): Promise<MockRecordData[] | undefined> {
    if (input.seed !== undefined && input.seedFrom)
      throw invalid([fieldError(['seedFrom'], 'give seed or seedFrom, not both')]);
    if (input.seedFrom) return sampleSeed(ctx, deps, input.seedFrom, idField);
    if (input.seed !== undefined) return checkSeed(input.seed, idField, 'seed');
    return undefined;
  }

  router.get('/mock-collections', async (ctx) => {
    const paging = readPaging(ctx, ORDER);
    ctx.body = await keysetPage(workspaceRows(repo, 'c', ctx), paging, ORDER, json);
  });

  router.post('/mock-collections', bigBodies, async (ctx) => {
    const input = validateFull(jsonBody(ctx));
    const idField = input.idField ?? 'id';
    const seed = (await seedOf(ctx, input, idField)) ?? [];
    const now = new Date();
    const c = repo.create({
      id: newId('mockCollection'),
      workspaceId: ctx.state.caller.workspaceId,
      name: input.name,
      basePath: input.basePath ?? null,
      idField,
      seedFrom: input.seedFrom ?? null,
      seedCount: seed.length,
      createdAt: now,
      updatedAt: now,
    });
    await save(c, true);
    await state().setSeed(info(c), seed);
    state().invalidate(c.workspaceId);
    ctx.status = 201;
    ctx.set('Location', `/v1/mock-collections/${c.id}`);
    ctx.body = await json(c);
  });

  router.get('/mock-collections/:collectionId', async (ctx) => {
    ctx.body = await json(await load(ctx));
  });

  for (const [method, validate] of [
    ['put', validateFull],
    ['patch', validatePatch],
  ] as const) {
    router[method]('/mock-collections/:collectionId', bigBodies, async (ctx) => {
      const input = validate(jsonBody(ctx)) as Partial<CollectionInput>;
      const c = await load(ctx);
      const idField = input.idField ?? (method === 'put' ? 'id' : c.idField);
      const seed = (await seedOf(ctx, input, idField)) ?? (method === 'put' ? [] : undefined);
      if (input.idField !== undefined && input.idField !== c.idField && seed === undefined)
        throw invalid([fieldError(['idField'], 'changing the id field needs a new seed (seed or seedFrom)')]);
      if (method === 'put') {
        Object.assign(c, {
          name: input.name,
          basePath: input.basePath ?? null,
          idField,
          seedFrom: input.seedFrom ?? null,
        });
      } else {
        if (input.name !== undefined) c.name = input.name;
        if (input.basePath !== undefined) c.basePath = input.basePath;
        c.idField = idField;
        if (input.seedFrom !== undefined || input.seed !== undefined) c.seedFrom = input.seedFrom ?? null;
      }
      if (seed) c.seedCount = seed.length;
      c.updatedAt = new Date();
      await save(c, false);
      if (seed) await state().setSeed(info(c), seed);
      state().invalidate(c.workspaceId);
      ctx.body = await json(c);
    });
  }

  router.delete('/mock-collections/:collectionId', async (ctx) => {
    const c = await load(ctx);
    await repo.delete({ id: c.id });
    await state().drop(c.id);
    state().invalidate(c.workspaceId);
    ctx.status = 204;
  });

  router.get('/mock-collections/:collectionId/records', async (ctx) => {
    const c = await load(ctx);
    const scope = queryString(ctx, 'scope') ?? SHARED_SCOPE;
    if (scope !== SHARED_SCOPE && scope !== SEED_SCOPE && !MOCK_SCOPE_PATTERN.test(scope))
      throw new Problem('mock-bad-scope', `The scope "${scope.slice(0, 120)}" is not 1 to 100 of A-Z a-z 0-9 _ . : -.`);
    const limit = queryInt(ctx, 'limit', 100, 1, 1000);
    const after = cursor.decode(ctx, 'pair');
    const { items, next } = await state().page(info(c), scope, after, limit);
    ctx.body = page(
      items.map((r) => r.data),
      next ? cursor.encode(next) : null,
    );
  });

  router.post('/mock-collections/:collectionId/reset', async (ctx) => {
    const c = await load(ctx);
    await state().reset(info(c));
    ctx.body = await json(c);
  });

  router.delete('/mock-scopes/:scope', async (ctx) => {
    const scope = ctx.params.scope!;
    if (!MOCK_SCOPE_PATTERN.test(scope))
      throw new Problem('mock-bad-scope', `The scope "${scope.slice(0, 120)}" is not 1 to 100 of A-Z a-z 0-9 _ . : -.`);
    await state().discardScope(ctx.state.caller.workspaceId, scope);
    ctx.status = 204;
  });

  return router;
}
