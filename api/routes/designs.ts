/**
 * API designs, the mock service's definitions (spec "Mock definition"; docs/mocks.md).
 *
 *   GET    /v1/designs                 list (by path, then method; `path` filters by prefix; an
 *                                      empty `path=` is 400 `invalid-query`)
 *   POST   /v1/designs                 create                                            → 201
 *   GET    /v1/designs/{id}
 *   PUT    /v1/designs/{id}            replace                                           → 200
 *   PATCH  /v1/designs/{id}            any field                                         → 200
 *   DELETE /v1/designs/{id}                                                              → 204
 *   POST   /v1/designs/import          an OpenAPI 3.x document (the JSON body, {document: "<JSON or YAML text>"},
 *                                      or a YAML body; up to ASSAY_IMPORT_MAX_BYTES; api/import-document.ts)
 *                                      → 201 {created, skipped}; `?replace=true` replaces designs of the same routes
 *   POST   /v1/mock-samples            {schema, mode: "fast"|"ai", hint?} → {data}
 *
 * Body of a design: {method, path, name?, description?, requestSchema?, responseSchemas?: {"<status>": schema},
 * responses: [{status, code, name?, data?, headers?, delayMs?, dynamic?, schema?}]}. A response
 * without `data` but with a schema (its own, or `responseSchemas[status]`) gets sample data when the
 * design is saved. Refused with 400 naming the field: a bad method, status, path or schema, a code
 * used twice within a status; with 409: a route another design of the same method claims. Every
 * answer carries `mockUrl` (`{base_url}/mock/{workspaceId}{path}`) once the design has responses;
 * `{base_url}` is the mocks' own port when one is configured (`ASSAY_MOCK_PORT`,
 * `ASSAY_MOCK_PUBLIC_URL`: the address runs may call), else the API's public URL.
 */
import Router from '@koa/router';
import Ajv from 'ajv';
import type { EntityManager } from 'typeorm';
import { newId } from '../../src/ids';
import { ApiDesign } from '../../src/store/entities';
import type { MockResponse } from '../../src/domain/types';
import { isUniqueViolation } from '../../src/store/errors';
import { parsePath } from '../../src/mock/paths';
import { tooDeepProblem } from '../body';
import { documentBodies, importDocument } from '../import-document';
import { sharedImportPool } from '../../src/mock/import-pool';
import {
  MAX_JSON_DEPTH,
  resolveLocal,
  SCHEMA_DATA_KEYWORDS,
  SCHEMA_MAP_KEYWORDS,
  schemaLoop,
  tooDeep,
} from '../../src/validation/json-limits';
import { SampleError, sampleFromSchema, sampleWithAi } from '../../src/mock/samples';
import { compileSchema, responseDataViolations } from '../../src/mock/contract';
import { HTTP_METHODS } from '../../src/domain/types';
import { checkExpression } from '../../src/domain/expressions';
import { MOCK_FAULTS, type MockDesignOptions } from '../../src/domain/mocks';
import type { ApiDeps, AppContext, AppState } from '../context';
import { sampleProblem } from '../errors';
import { fieldError, type FieldError } from '../../src/problems';
import { invalid, Problem } from '../problem';
import { bodyValidator, jsonBody, queryFilter, queryString } from '../validation';
import { keysetPage, readPaging, type Keyset } from '../paging';
import { findOr404, workspaceRows } from '../lookups';
import { iso } from './shared';
import { patternRegExp } from '../../src/mock/schema-normalise';

interface DesignInput extends MockDesignOptions {
  method: string;
  path: string;
  name?: string;
  description?: string;
  requestSchema?: object | null;
  responseSchemas?: Record<string, object> | null;
  responses: MockResponse[];
}

/** The design document's fields kept in the `options` column (src/domain/mocks.ts `MockDesignOptions`). */
const OPTION_FIELDS = [
  'validateRequests',
  'requestBodyRequired',
  'validateResponses',
  'parameters',
  'delay',
  'faults',
  'seed',
] as const;

/** A latency distribution (WireMock's shapes; src/domain/mocks.ts `MockDelay`), milliseconds. */
export const DELAY_SCHEMA = {
  oneOf: [
    {
      type: 'object',
      required: ['type', 'milliseconds'],
      additionalProperties: false,
      properties: { type: { const: 'fixed' }, milliseconds: { type: 'integer', minimum: 0, maximum: 60_000 } },
    },
    {
      type: 'object',
      required: ['type', 'lower', 'upper'],
      additionalProperties: false,
      properties: {
        type: { const: 'uniform' },
        lower: { type: 'integer', minimum: 0, maximum: 60_000 },
        upper: { type: 'integer', minimum: 0, maximum: 60_000 },
      },
    },
    {
      type: 'object',
      required: ['type', 'median', 'sigma'],
      additionalProperties: false,
      properties: {
        type: { const: 'lognormal' },
        median: { type: 'number', exclusiveMinimum: 0, maximum: 60_000 },
        sigma: { type: 'number', minimum: 0, maximum: 10 },
        maxValue: { type: 'integer', minimum: 1, maximum: 60_000 },
      },
    },
  ],
};

const responseSchema = {
  type: 'object',
  required: ['status', 'code'],
  additionalProperties: false,
  properties: {
    status: { type: 'integer', minimum: 100, maximum: 599 },
    code: { type: 'integer', minimum: 1, maximum: 1_000_000 },
    name: { type: 'string', maxLength: 200 },
    data: {},
    headers: { type: 'object', maxProperties: 50, additionalProperties: { type: 'string', maxLength: 4096 } },
    delayMs: { type: 'integer', minimum: 0, maximum: 60_000 },
    dynamic: { type: 'boolean' },
    schema: { type: 'object' },
    delay: DELAY_SCHEMA,
    state: {
      type: 'object',
      required: ['collection'],
      additionalProperties: false,
      properties: {
        collection: { type: 'string', minLength: 1, maxLength: 63 },
        id: { type: 'string', minLength: 1, maxLength: 500 },
        update: { type: 'string', minLength: 1, maxLength: 10_000 },
        body: { type: 'string', minLength: 1, maxLength: 10_000 },
      },
    },
  },
};
const fields = {
  method: { enum: [...HTTP_METHODS, ...HTTP_METHODS.map((m) => m.toLowerCase())] },
  path: { type: 'string', minLength: 1, maxLength: 500 },
  name: { type: 'string', maxLength: 200 },
  description: { type: 'string', maxLength: 2000 },
  requestSchema: { type: ['object', 'null'] },
  responseSchemas: {
    type: ['object', 'null'],
    propertyNames: { pattern: '^[1-5][0-9][0-9]$' },
    additionalProperties: { type: 'object' },
  },
  responses: { type: 'array', maxItems: 100, items: responseSchema },
  validateRequests: { type: 'boolean' },
  requestBodyRequired: { type: 'boolean' },
  validateResponses: { type: 'boolean' },
  parameters: {
    type: 'array',
    maxItems: 100,
    items: {
      type: 'object',
      required: ['in', 'name'],
      additionalProperties: false,
      properties: {
        in: { enum: ['path', 'query', 'header'] },
        name: { type: 'string', minLength: 1, maxLength: 200 },
        required: { type: 'boolean' },
        schema: { type: 'object' },
      },
    },
  },
  delay: DELAY_SCHEMA,
  faults: {
    type: 'array',
    maxItems: 10,
    items: {
      type: 'object',
      required: ['fault', 'probability'],
      additionalProperties: false,
      properties: {
        fault: { enum: [...MOCK_FAULTS] },
        probability: { type: 'number', minimum: 0, maximum: 1 },
        status: { type: 'integer', minimum: 500, maximum: 599 },
      },
    },
  },
  seed: { type: 'integer', minimum: 0, maximum: 2 ** 31 - 1 },
};
/**
 * The request body schemas of the design endpoints (`full`: create and replace; `sample`: `POST
 * /v1/mock-samples`): what ajv validates with (below) and what the OpenAPI document shows
 * (api/openapi/operations.ts). Paths, schemas and codes are checked after them ({@link prepare}).
 */
export const DESIGN_SCHEMAS = {
  full: { type: 'object', required: ['method', 'path', 'responses'], additionalProperties: false, properties: fields },
  patch: { type: 'object', additionalProperties: false, minProperties: 1, properties: fields },
  sample: {
    type: 'object',
    required: ['schema'],
    additionalProperties: false,
    properties: {
      schema: { type: 'object' },
      mode: { enum: ['fast', 'ai'] },
      hint: { type: 'string', maxLength: 1000 },
    },
  },
} as const;
const validateFull = bodyValidator<DesignInput>(DESIGN_SCHEMAS.full);
const validatePatch = bodyValidator<Partial<DesignInput>>(DESIGN_SCHEMAS.patch);
const validateSample = bodyValidator<{ schema: object; mode?: 'fast' | 'ai'; hint?: string }>(DESIGN_SCHEMAS.sample);

/** The design listing's order: by path, then method. */
const ORDER: Keyset<ApiDesign, 'pair'> = {
  shape: 'pair',
  keys: [
    { column: 'd.path', of: (d) => d.path },
    { column: 'd.method', of: (d) => d.method },
  ],
};

// Compile-only checks: OpenAPI formats (int32, int64, binary…) are not JSON Schema formats; do not validate or warn about them.
// Patterns are ECMA-262 (OpenAPI 3.0.3 §4.7.24), compiled without the `u` flag when only that makes
// them valid (src/mock/schema-normalise.ts `patternRegExp`); the mock itself runs them on RE2.
const schemaChecker = new Ajv({
  strict: false,
  validateFormats: false,
  logger: false,
  code: { regExp: patternRegExp },
});

/**
 * Why `schema` would not compile where the mock checks it, or null, without compiling it: ajv's
 * draft-07 meta-schema check (`validateSchema`, what `compile` runs first, with its message), then
 * what compiling refuses beyond it: a `pattern` or `patternProperties` key that is no ECMA-262
 * regular expression with or without `u` ({@link patternRegExp}), a local `$ref` that resolves to
 * nothing. Linear in the schema: compiling generates code for every subschema, and the designs of
 * a large description (Elasticsearch's: 426, their component graphs under `$defs`) took over two
 * minutes of the API's thread. A schema with a `$ref` that is not local is compiled, as before.
 */
function schemaShapeProblem(schema: object): string | null {
  if (!schemaChecker.validateSchema(schema))
    return `schema is invalid: ${schemaChecker.errorsText(schemaChecker.errors)}`;
  const stack: unknown[] = [schema];
  let remote = false;
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      for (const v of node) stack.push(v);
      continue;
    }
    const s = node as Record<string, unknown>;
    const patterns = [
      ...(typeof s.pattern === 'string' ? [s.pattern] : []),
      ...(s.patternProperties && typeof s.patternProperties === 'object' ? Object.keys(s.patternProperties) : []),
    ];
    for (const pattern of patterns)
      try {
        patternRegExp(pattern, 'u');
      } catch (err) {
        return (err as Error).message;
      }
    if (typeof s.$ref === 'string') {
      if (s.$ref !== '#' && !s.$ref.startsWith('#/')) remote = true;
      else if (resolveLocal(schema, s.$ref) === undefined) return `can't resolve reference ${s.$ref}`;
    }
    for (const [key, v] of Object.entries(s)) {
      if (v === null || typeof v !== 'object' || SCHEMA_DATA_KEYWORDS.has(key)) continue;
      // A map of subschemas: its keys are names (a property may be called `enum`), its values schemas.
      if (SCHEMA_MAP_KEYWORDS.has(key) && !Array.isArray(v)) stack.push(...Object.values(v));
      else stack.push(v);
    }
  }
  if (remote)
    try {
      schemaChecker.compile(schema);
    } catch (err) {
      return (err as Error).message;
    } finally {
      schemaChecker.removeSchema(schema);
    }
  return null;
}

/** Checks what the JSON Schema of the body cannot, fills sample data, and returns the parsed path. */
function prepare(input: DesignInput, prefix: Array<string | number> = []): { design: DesignInput; routeKey: string } {
  const errors: FieldError[] = [];
  const parsed = parsePath(input.path);
  if ('error' in parsed) errors.push(fieldError([...prefix, 'path'], parsed.error));
  const schemaError = (schema: unknown, at: Array<string | number>) => {
    const loop = schemaLoop(schema);
    if (loop) {
      errors.push(fieldError(at, loop));
      return;
    }
    const problem = schemaShapeProblem(schema as object);
    if (problem) errors.push(fieldError(at, `is not a valid JSON Schema: ${problem}`));
  };
  if (input.requestSchema) schemaError(input.requestSchema, [...prefix, 'requestSchema']);
  // Parameters (src/mock/contract.ts): schemas that compile, one per location and name, path ones in the path.
  const parameterKeys = new Map<string, number>();
  input.parameters?.forEach((p, i) => {
    const key = `${p.in}:${p.in === 'header' ? p.name.toLowerCase() : p.name}`;
    const other = parameterKeys.get(key);
    if (other !== undefined)
      errors.push(fieldError([...prefix, 'parameters', i, 'name'], `is already parameters[${other}] (in ${p.in})`));
    else parameterKeys.set(key, i);
    if (p.in === 'path' && !('error' in parsed) && !parsed.params.includes(p.name))
      errors.push(
        fieldError([...prefix, 'parameters', i, 'name'], `the path ${input.path} has no parameter {${p.name}}`),
      );
    if (p.schema) {
      // Compiled as the mock checks it (src/mock/contract.ts: draft-07, or 2020-12 when `$schema` says so).
      const at = [...prefix, 'parameters', i, 'schema'];
      const loop = schemaLoop(p.schema);
      if (loop) errors.push(fieldError(at, loop));
      else
        try {
          compileSchema(p.schema, true);
        } catch (err) {
          errors.push(fieldError(at, `is not a valid JSON Schema: ${(err as Error).message}`));
        }
    }
  });
  for (const [status, schema] of Object.entries(input.responseSchemas ?? {}))
    schemaError(schema, [...prefix, 'responseSchemas', status]);
  const seen = new Map<string, number>();
  input.responses.forEach((r, i) => {
    const key = `${r.status}/${r.code}`;
    const other = seen.get(key);
    if (other !== undefined)
      errors.push(
        fieldError(
          [...prefix, 'responses', i, 'code'],
          `code ${r.code} is already used by responses[${other}] for status ${r.status}`,
        ),
      );
    else seen.set(key, i);
    if (r.schema) schemaError(r.schema, [...prefix, 'responses', i, 'schema']);
    // State expressions must parse (docs/mocks.md "State responses"); the collection is looked up per request.
    for (const field of ['update', 'body'] as const) {
      const expression = r.state?.[field];
      const problem = expression === undefined ? null : checkExpression(expression);
      if (problem)
        errors.push(
          fieldError(
            [...prefix, 'responses', i, 'state', field],
            `is not a valid JSONata expression: ${problem.message}`,
          ),
        );
    }
  });
  if (errors.length) throw invalid(errors);
  const sampleErrors: Array<{ err: SampleError; at: Array<string | number> }> = [];
  const responses = input.responses.map((r, i) => {
    if (r.data !== undefined) return r;
    const own = r.schema !== undefined && r.schema !== null;
    const schema = r.schema ?? input.responseSchemas?.[String(r.status)];
    try {
      return { ...r, data: schema ? sampleFromSchema(schema) : null };
    } catch (err) {
      if (!(err instanceof SampleError)) throw err;
      sampleErrors.push({
        err,
        at: own ? [...prefix, 'responses', i, 'schema'] : [...prefix, 'responseSchemas', String(r.status)],
      });
      return r;
    }
  });
  if (sampleErrors.length) throw sampleProblem(sampleErrors);
  // validateResponses: every response's data must match its schema (src/mock/contract.ts).
  if (input.validateResponses === true) {
    const broken = responseDataViolations({ responseSchemas: input.responseSchemas, responses });
    if (broken.length)
      throw invalid(
        broken
          .slice(0, 50)
          .map((b) =>
            fieldError(
              [...prefix, 'responses', b.index, 'data', ...pointerSegments(b.pointer)],
              `${b.message} (validateResponses: the data must match the response's schema)`,
            ),
          ),
        "A response's data breaks its own schema, and the design has validateResponses.",
      );
  }
  // Imports inline `$ref`s and samples fill data: what is stored must still fit the depth limit.
  for (const [field, value] of [
    ['requestSchema', input.requestSchema],
    ['responseSchemas', input.responseSchemas],
    ['responses', responses],
    ['parameters', input.parameters],
  ] as const) {
    const deep = tooDeep(value, MAX_JSON_DEPTH);
    if (deep) throw tooDeepProblem([...prefix, field, ...deep], `The design's ${field}`);
  }
  const p = parsed as Exclude<typeof parsed, { error: string }>;
  return { design: { ...input, method: input.method.toUpperCase(), path: p.path, responses }, routeKey: p.routeKey };
}

/**
 * Why an imported design is skipped, from the problem its checks raised: each field at fault with
 * its detail (`requestSchema: is too large to check (over 20000 subschemas)`), or the problem's detail.
 */
function skipReason(problem: Problem): string {
  const errors = (problem.extras as { errors?: FieldError[] }).errors;
  if (!Array.isArray(errors) || errors.length === 0) return `${problem.code}: ${problem.detail}`;
  return `${problem.code}: ${errors
    .slice(0, 5)
    .map((e) => `${e.field || 'design'} ${e.detail}`)
    .join('; ')}${errors.length > 5 ? ` (and ${errors.length - 5} more)` : ''}`;
}

/** `/a/0/b~1c` → `['a', 0, 'b/c']` (RFC 6901). */
function pointerSegments(pointer: string): Array<string | number> {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^(0|[1-9]\d*)$/.test(s) ? Number(s) : s));
}

/**
 * A design as `GET /v1/designs/{id}` answers it, but for `mockUrl` (where it is served now, which
 * depends on the configuration): also what its versions and the audit trail keep (api/changes.ts).
 */
export function designFields(d: ApiDesign): Record<string, unknown> {
  return {
    id: d.id,
    method: d.method,
    path: d.path,
    name: d.name,
    description: d.description,
    requestSchema: d.requestSchema,
    responseSchemas: d.responseSchemas,
    responses: d.responses,
    ...d.options,
    createdAt: iso(d.createdAt),
    updatedAt: iso(d.updatedAt),
  };
}

/** The columns a checked design sets, the same for create, import and replace. */
function storedFields(
  design: DesignInput,
  routeKey: string,
): Pick<
  ApiDesign,
  | 'name'
  | 'description'
  | 'method'
  | 'path'
  | 'routeKey'
  | 'requestSchema'
  | 'responseSchemas'
  | 'responses'
  | 'options'
> {
  const options: MockDesignOptions = {};
  for (const field of OPTION_FIELDS)
    if (design[field] !== undefined) (options as Record<string, unknown>)[field] = design[field];
  return {
    options: Object.keys(options).length > 0 ? options : null,
    name: design.name ?? '',
    description: design.description ?? '',
    method: design.method,
    path: design.path,
    routeKey,
    requestSchema: design.requestSchema ?? null,
    responseSchemas: design.responseSchemas ?? null,
    responses: design.responses,
  };
}

export function designsRouter({ dataSource, mocks, config }: ApiDeps): Router<AppState> {
  const router = new Router<AppState>();
  const repo = dataSource.getRepository(ApiDesign);

  const json = (d: ApiDesign) => ({
    ...designFields(d),
    mockUrl:
      d.responses.length > 0
        ? `${config.mocks.publicUrl ?? config.api.publicUrl}/mock/${d.workspaceId}${d.path}`
        : null,
  });

  /** Saves; a route another design claims is 409 naming it. */
  async function save(manager: EntityManager, d: ApiDesign, insert: boolean): Promise<void> {
    try {
      if (insert) await manager.getRepository(ApiDesign).insert(d as never);
      else await manager.getRepository(ApiDesign).save(d);
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      const other = await manager
        .getRepository(ApiDesign)
        .findOneBy({ workspaceId: d.workspaceId, method: d.method, routeKey: d.routeKey });
      throw new Problem(
        'route-taken',
        `${d.method} ${d.path} is already designed${other ? ` by ${other.id} (${other.method} ${other.path})` : ''}: both would answer the same requests.`,
        {
          errors: [fieldError(['path'], 'another design of this method claims the same route')],
          ...(other ? { designId: other.id } : {}),
        },
      );
    }
  }

  function load(ctx: AppContext): Promise<ApiDesign> {
    return findOr404(
      dataSource.manager,
      ApiDesign,
      { id: ctx.params.designId!, workspaceId: ctx.state.caller.workspaceId },
      `Design "${ctx.params.designId}"`,
    );
  }

  router.get('/designs', async (ctx) => {
    const paging = readPaging(ctx, ORDER);
    const qb = workspaceRows(repo, 'd', ctx);
    const prefixFilter = queryFilter(ctx, 'path');
    if (prefixFilter !== undefined)
      qb.andWhere("d.path LIKE :p ESCAPE '!'", { p: `${prefixFilter.replace(/[!%_]/g, (c) => `!${c}`)}%` });
    ctx.body = await keysetPage(qb, paging, ORDER, json);
  });

  router.post('/designs', async (ctx) => {
    const { design, routeKey } = prepare(validateFull(jsonBody(ctx)));
    const now = new Date();
    const d = repo.create({
      id: newId('design'),
      workspaceId: ctx.state.caller.workspaceId,
      ...storedFields(design, routeKey),
      createdAt: now,
      updatedAt: now,
    });
    await save(dataSource.manager, d, true);
    mocks.invalidate(d.workspaceId);
    ctx.status = 201;
    ctx.set('Location', `/v1/designs/${d.id}`);
    ctx.body = json(d);
  });

  // Its own body limit and media types; parsed and sampled on a worker thread (api/import-document.ts).
  const importBody = documentBodies(config.api.importMaxBytes, 'ASSAY_IMPORT_MAX_BYTES');
  router.post('/designs/import', importBody, async (ctx) => {
    const replace = queryString(ctx, 'replace') === 'true';
    const result = await importDocument(
      ctx,
      sharedImportPool({
        memoryMb: config.api.importMemoryMb,
        maxResultBytes: config.api.importMaxResultBytes,
        timeoutMs: config.api.importTimeoutMs,
      }),
    );
    const workspaceId = ctx.state.caller.workspaceId;
    const created = await dataSource.transaction(async (manager) => {
      const out: ApiDesign[] = [];
      for (const imported of result.designs) {
        // A design the checks refuse (a schema ajv cannot compile, one over the subschema bound of
        // src/validation/json-limits.ts) is skipped with the reason; the others are imported.
        let prepared: ReturnType<typeof prepare>;
        try {
          prepared = prepare(imported as DesignInput);
        } catch (err) {
          if (!(err instanceof Problem)) throw err;
          result.skipped.push({ operation: `${imported.method} ${imported.path}`, reason: skipReason(err) });
          continue;
        }
        const { design, routeKey } = prepared;
        const existing = await manager
          .getRepository(ApiDesign)
          .findOneBy({ workspaceId, method: design.method, routeKey });
        if (existing && !replace) {
          result.skipped.push({
            operation: `${design.method} ${design.path}`,
            reason: `already designed by ${existing.id}; import with ?replace=true to replace it`,
          });
          continue;
        }
        const now = new Date();
        const d = manager.getRepository(ApiDesign).create({
          id: existing?.id ?? newId('design'),
          workspaceId,
          ...storedFields(design, routeKey),
          createdAt: existing?.createdAt ?? now,
          updatedAt: now,
        });
        await save(manager, d, !existing);
        out.push(d);
      }
      return out;
    });
    mocks.invalidate(workspaceId);
    ctx.status = 201;
    ctx.body = {
      title: result.title,
      created: created.map(json),
      skipped: result.skipped,
      warnings: result.warnings,
      normalised: result.normalised ?? [],
    };
  });

  router.get('/designs/:designId', async (ctx) => {
    ctx.body = json(await load(ctx));
  });

  for (const [method, validate] of [
    ['put', validateFull],
    ['patch', validatePatch],
  ] as const) {
    router[method]('/designs/:designId', async (ctx) => {
      const input = validate(jsonBody(ctx)) as Partial<DesignInput>;
      const d = await load(ctx);
      const merged: DesignInput =
        method === 'put'
          ? (input as DesignInput)
          : {
              method: input.method ?? d.method,
              path: input.path ?? d.path,
              name: input.name ?? d.name,
              description: input.description ?? d.description,
              requestSchema: input.requestSchema !== undefined ? input.requestSchema : d.requestSchema,
              responseSchemas: input.responseSchemas !== undefined ? input.responseSchemas : d.responseSchemas,
              responses: input.responses ?? d.responses,
              ...d.options,
              ...Object.fromEntries(OPTION_FIELDS.filter((f) => input[f] !== undefined).map((f) => [f, input[f]])),
            };
      const { design, routeKey } = prepare(merged);
      Object.assign(d, storedFields(design, routeKey), { updatedAt: new Date() });
      await save(dataSource.manager, d, false);
      mocks.invalidate(d.workspaceId);
      ctx.body = json(d);
    });
  }

  router.delete('/designs/:designId', async (ctx) => {
    const d = await load(ctx);
    await repo.delete({ id: d.id });
    mocks.invalidate(d.workspaceId);
    ctx.status = 204;
  });

  router.post('/mock-samples', async (ctx) => {
    const input = validateSample(jsonBody(ctx));
    const loop = schemaLoop(input.schema);
    if (loop) throw invalid([fieldError(['schema'], loop)]);
    try {
      schemaChecker.compile(input.schema);
    } catch (err) {
      throw invalid([fieldError(['schema'], `is not a valid JSON Schema: ${(err as Error).message}`)]);
    }
    if ((input.mode ?? 'fast') === 'fast') {
      try {
        ctx.body = { mode: 'fast', data: sampleFromSchema(input.schema) };
      } catch (err) {
        if (!(err instanceof SampleError)) throw err;
        throw sampleProblem([{ err, at: ['schema'] }]);
      }
      return;
    }
    // A SampleError becomes its problem in api/errors.ts.
    ctx.body = { mode: 'ai', data: await sampleWithAi(input.schema, config.ai, input.hint) };
  });

  return router;
}
