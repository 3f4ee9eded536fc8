/**
 * Contract validation of mock requests and answers (docs/mocks.md "Contract validation"), after
 * Prism's validation: a request that breaks the design's `requestSchema` or `parameters` is
 * answered 422 `mock-request-invalid` with `violations` (src/domain/mocks.ts `MockViolation`), and
 * the validation proxy (src/mock/proxy.ts) checks the upstream answer against the design's
 * response schemas.
 *
 * - **When.** A design is checked when it has a `requestSchema` or `parameters` and its
 *   `validateRequests` is not false. A design with nothing to check compiles to no contract at all
 *   ({@link compileContract} returns undefined), so its answers cost nothing more than before.
 * - **Parameters** (`in: path | query | header`, OpenAPI's): a required one missing is a violation;
 *   values (strings on the wire) are coerced to the schema's type as OpenAPI servers do (`"7"` for
 *   an integer, `"true"` for a boolean; ajv's `coerceTypes: "array"`). A query parameter whose schema
 *   is an array takes every occurrence (`?tag=a&tag=b`, OpenAPI's default `form` + `explode`), or a
 *   single comma-separated value (`?tag=a,b`); a header array is comma-separated. Header names are
 *   case-insensitive; `Accept`, `Content-Type` and `Authorization` header parameters are ignored
 *   (OpenAPI 3.1 §4.8.12.1). Unknown parameters are accepted (as Prism does).
 * - **Body.** A JSON body (a JSON media type, or no `Content-Type`) is parsed and validated against
 *   `requestSchema` without coercion; a body that is not JSON is a violation. Bodies of other media
 *   types (forms, multipart, XML) are not checked. A missing body is a violation when
 *   `requestBodyRequired` says so; when unset, for POST, PUT and PATCH.
 * - **Schemas** are JSON Schema draft-07, or 2020-12 when their `$schema` says so, with ajv-formats'
 *   formats and patterns on RE2, as assertions check them (src/domain/assertions.ts); OpenAPI 3.0's
 *   `nullable` is understood; unknown keywords and formats are ignored.
 * - **Compiled once per design version**: the engine compiles a contract when it loads a design
 *   (src/mock/engine.ts) and keeps it with the compiled design; each validator is compiled on its
 *   first use and kept. ajv's own schema cache is emptied after each compile (validators live as
 *   long as the design version, not as long as the process).
 */
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { ajvRegExp } from '../domain/regex';
import type { MockDesignOptions, MockParameter, MockViolation } from '../domain/mocks';
import type { MockResponse } from '../domain/types';
import { isJsonMedia } from './media';
import { hasBody, readBody, type MockExchange } from './exchange';

/** At most this many violations are listed in one answer (the rest are counted in the last one's message). */
export const MAX_VIOLATIONS = 50;

/** What a design holds that contract validation reads (an `ApiDesign` row, or a design document). */
export interface ContractSource {
  method: string;
  requestSchema?: object | null;
  responseSchemas?: Record<string, object> | null;
  responses: Pick<MockResponse, 'status' | 'schema'>[];
  options?: MockDesignOptions | null;
}

/** Header parameters OpenAPI ignores (their meaning is HTTP's). */
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);
/** Methods whose body is required by default when the design has a `requestSchema`. */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

type Compiler = Ajv | Ajv2020;
const compilers = new Map<string, Compiler>();

/** The ajv instance for a schema's draft; `coerce`: strings coerced to the schema's types (parameters). */
function compilerFor(schema: unknown, coerce: boolean): Compiler {
  const declared = (schema as { $schema?: unknown } | null)?.$schema;
  const draft = typeof declared === 'string' && declared.includes('2020-12') ? '2020-12' : 'draft-07';
  const key = `${draft}:${coerce}`;
  let ajv = compilers.get(key);
  if (!ajv) {
    const settings = {
      allErrors: true,
      strict: false,
      logger: false as const,
      code: { regExp: ajvRegExp },
      ...(coerce ? { coerceTypes: 'array' as const } : {}),
    };
    ajv = addFormats(draft === '2020-12' ? new Ajv2020(settings) : new Ajv(settings));
    compilers.set(key, ajv);
  }
  return ajv;
}

/**
 * Compiles `schema` (ajv forgets it at once: the validator is the caller's to keep).
 * @throws Error when the schema does not compile
 */
export function compileSchema(schema: object, coerce = false): ValidateFunction {
  const ajv = compilerFor(schema, coerce);
  try {
    return ajv.compile(schema);
  } finally {
    ajv.removeSchema(schema);
  }
}

/** A validator compiled on first use; a schema that does not compile accepts everything. */
function lazy(schema: object, coerce = false): () => ValidateFunction | null {
  let compiled: ValidateFunction | null | undefined;
  return () => {
    if (compiled === undefined) {
      try {
        compiled = compileSchema(schema, coerce);
      } catch {
        compiled = null;
      }
    }
    return compiled;
  };
}

/** JSON Pointer escaping of one segment (RFC 6901). */
function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * ajv's errors as `{pointer, message}`: the pointer names the value at fault (for a missing required
 * property or a property not allowed, the property itself).
 */
export function schemaViolations(
  errors: ErrorObject[] | null | undefined,
): Array<{ pointer: string; message: string }> {
  const out: Array<{ pointer: string; message: string }> = [];
  for (const e of errors ?? []) {
    if (e.keyword === 'required') {
      const missing = String((e.params as { missingProperty?: string }).missingProperty);
      out.push({ pointer: `${e.instancePath}/${escapePointer(missing)}`, message: 'is required' });
    } else if (e.keyword === 'additionalProperties') {
      const extra = String((e.params as { additionalProperty?: string }).additionalProperty);
      out.push({ pointer: `${e.instancePath}/${escapePointer(extra)}`, message: 'is not allowed by the schema' });
    } else if (e.keyword === 'if' || e.keyword === 'anyOf' || e.keyword === 'oneOf') {
      // The branches' own errors say more; keep this one only when it is all there is.
      out.push({ pointer: e.instancePath, message: e.message ?? 'is invalid' });
    } else {
      out.push({ pointer: e.instancePath, message: e.message ?? 'is invalid' });
    }
  }
  return out;
}

/** Caps a list of violations at {@link MAX_VIOLATIONS}. */
function capped(list: MockViolation[]): MockViolation[] {
  if (list.length <= MAX_VIOLATIONS) return list;
  const kept = list.slice(0, MAX_VIOLATIONS);
  kept[MAX_VIOLATIONS - 1] = {
    ...kept[MAX_VIOLATIONS - 1]!,
    message: `${kept[MAX_VIOLATIONS - 1]!.message} (and ${list.length - MAX_VIOLATIONS} more violations)`,
  };
  return kept;
}

function isArraySchema(schema: object | undefined): boolean {
  const type = (schema as { type?: unknown } | undefined)?.type;
  return type === 'array' || (Array.isArray(type) && type.includes('array'));
}

/** The parameters of one location, compiled as one object schema (names lower-cased for headers). */
interface ParameterGroup {
  in: MockParameter['in'];
  /** Name as the request carries it → whether its schema is an array. */
  names: Map<string, boolean>;
  validate: () => ValidateFunction | null;
}

function parameterGroup(where: MockParameter['in'], parameters: MockParameter[]): ParameterGroup | undefined {
  const list = parameters.filter(
    (p) => p.in === where && !(where === 'header' && IGNORED_HEADERS.has(p.name.toLowerCase())),
  );
  if (list.length === 0) return undefined;
  const properties: Record<string, object> = {};
  const required: string[] = [];
  const names = new Map<string, boolean>();
  for (const p of list) {
    const name = where === 'header' ? p.name.toLowerCase() : p.name;
    properties[name] = p.schema ?? {};
    names.set(name, isArraySchema(p.schema));
    // Path parameters are always present when the route matched.
    if (p.required === true && where !== 'path') required.push(name);
  }
  // The draft of the group: 2020-12 when any parameter's schema declares it.
  const declared = list.map((p) => (p.schema as { $schema?: string } | undefined)?.$schema).find(Boolean);
  const schema = {
    ...(declared ? { $schema: declared } : {}),
    type: 'object',
    properties: Object.fromEntries(
      Object.entries(properties).map(([k, v]) => {
        const { $schema: _drop, ...rest } = v as { $schema?: string };
        return [k, rest];
      }),
    ),
    required,
  };
  return { in: where, names, validate: lazy(schema, true) };
}

/**
 * A design's compiled contract (one per design version, kept by the engine). `checkRequest` is
 * the request validation of the mock's answers; the proxy (src/mock/proxy.ts) also uses
 * `checkResponse` for the upstream's answers.
 */
export interface CompiledContract {
  /** Whether the mock answers 422 to an invalid request (`validateRequests`, and something to check). */
  readonly validatesRequests: boolean;
  /**
   * The violations of the request (empty: valid). Reads the body first when there is one to check
   * (then a promise); `params` are the path parameters the route matched.
   * @throws MockBodyTooLarge (src/mock/exchange.ts) past the body limit
   */
  checkRequest(ex: MockExchange, params: Record<string, string>): MockViolation[] | Promise<MockViolation[]>;
  /**
   * The violations of an answer to this design's route (`in: "response"`): a status the design
   * does not define, a JSON body that does not parse or breaks the status's schema.
   */
  checkResponse(status: number, contentType: string | undefined, body: Buffer): MockViolation[];
}

class Contract implements CompiledContract {
  readonly validatesRequests: boolean;
  private readonly groups: ParameterGroup[];
  private readonly body?: () => ValidateFunction | null;
  private readonly bodyRequired: boolean;
  private readonly responseValidators = new Map<number, (() => ValidateFunction | null) | null>();
  private readonly statuses: Set<number>;

  constructor(private readonly design: ContractSource) {
    const options = design.options ?? {};
    const parameters = options.parameters ?? [];
    this.groups = (['path', 'query', 'header'] as const)
      .map((w) => parameterGroup(w, parameters))
      .filter((g): g is ParameterGroup => g !== undefined);
    if (design.requestSchema) this.body = lazy(design.requestSchema);
    this.bodyRequired =
      design.requestSchema !== null &&
      design.requestSchema !== undefined &&
      (options.requestBodyRequired ?? BODY_METHODS.has(design.method.toUpperCase()));
    this.validatesRequests = options.validateRequests !== false && (this.groups.length > 0 || this.body !== undefined);
    this.statuses = new Set(design.responses.map((r) => r.status));
  }

  checkRequest(ex: MockExchange, params: Record<string, string>): MockViolation[] | Promise<MockViolation[]> {
    const violations = this.checkParameters(ex, params);
    if (!this.body) return violations;
    if (!hasBody(ex.req)) {
      if (this.bodyRequired) violations.push({ in: 'body', field: '', message: 'a request body is required' });
      return capped(violations);
    }
    return readBody(ex).then((body) => capped([...violations, ...this.checkBody(ex, body)]));
  }

  private checkParameters(ex: MockExchange, params: Record<string, string>): MockViolation[] {
    const out: MockViolation[] = [];
    let query: URLSearchParams | undefined;
    for (const group of this.groups) {
      const validate = group.validate();
      if (!validate) continue;
      const values: Record<string, unknown> = {};
      for (const [name, isArray] of group.names) {
        let value: unknown;
        if (group.in === 'path') value = params[name];
        else if (group.in === 'query') {
          query ??= new URLSearchParams(ex.rawQuery);
          const all = query.getAll(name);
          if (all.length === 0) continue;
          value = isArray ? (all.length === 1 ? all[0]!.split(',') : all) : all[0];
        } else {
          const raw = ex.req.headers[name];
          if (raw === undefined) continue;
          const text = Array.isArray(raw) ? raw.join(', ') : raw;
          value = isArray ? text.split(',').map((s) => s.trim()) : text;
        }
        if (value !== undefined) values[name] = value;
      }
      if (validate(values)) continue;
      for (const v of schemaViolations(validate.errors)) {
        // `/limit/0` → `limit`: parameters are named, not pointed at.
        const name = v.pointer.split('/')[1] ?? '';
        out.push({ in: group.in, field: name.replace(/~1/g, '/').replace(/~0/g, '~'), message: v.message });
      }
    }
    return out;
  }

  private checkBody(ex: MockExchange, body: Buffer): MockViolation[] {
    const type = ex.req.headers['content-type'];
    if (type !== undefined && !isJsonMedia(type)) return [];
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch (err) {
      return [{ in: 'body', field: '', message: `is not JSON: ${(err as Error).message}` }];
    }
    const validate = this.body?.();
    if (!validate || validate(parsed)) return [];
    return schemaViolations(validate.errors).map((v) => ({ in: 'body', field: v.pointer, message: v.message }));
  }

  checkResponse(status: number, contentType: string | undefined, body: Buffer): MockViolation[] {
    if (this.statuses.size > 0 && !this.statuses.has(status)) {
      const defined = [...this.statuses].sort((a, b) => a - b).join(', ');
      return [
        { in: 'response', field: 'status', message: `${status} is not a status the design defines (${defined})` },
      ];
    }
    let validator = this.responseValidators.get(status);
    if (validator === undefined) {
      const schema =
        this.design.responses.find((r) => r.status === status && r.schema)?.schema ??
        this.design.responseSchemas?.[String(status)];
      validator = schema ? lazy(schema) : null;
      this.responseValidators.set(status, validator);
    }
    const validate = validator?.();
    if (!validate) return [];
    if (contentType !== undefined && !isJsonMedia(contentType)) return [];
    let parsed: unknown;
    try {
      parsed = body.length === 0 ? undefined : JSON.parse(body.toString('utf8'));
    } catch (err) {
      return [{ in: 'response', field: '', message: `the body is not JSON: ${(err as Error).message}` }];
    }
    if (parsed === undefined)
      return [{ in: 'response', field: '', message: `the body is empty; the schema of ${status} expects one` }];
    if (validate(parsed)) return [];
    return capped(
      schemaViolations(validate.errors).map((v) => ({ in: 'response', field: v.pointer, message: v.message })),
    );
  }
}

/**
 * The contract of a design: undefined when there is nothing to check (no `requestSchema`, no
 * `parameters`, no response schema), so the engine's static answers stay as fast as without it.
 */
export function compileContract(design: ContractSource): CompiledContract | undefined {
  const hasResponseSchemas =
    Object.keys(design.responseSchemas ?? {}).length > 0 || design.responses.some((r) => r.schema);
  if (!design.requestSchema && !(design.options?.parameters?.length ?? 0) && !hasResponseSchemas) return undefined;
  return new Contract(design);
}

/**
 * The contract stage of the engine (src/mock/engine.ts `MockStages.contract`): compiles a
 * design's contract when the engine loads it.
 */
export class MockContract {
  compile(design: ContractSource): CompiledContract | undefined {
    return compileContract(design);
  }
}

/**
 * The data of a design's responses checked against their schemas (`validateResponses`, at save):
 * a response's own `schema`, else `responseSchemas[status]`. Skipped: responses without data,
 * dynamic ones (templates are filled per request), text bodies (a string served with a non-JSON
 * `Content-Type`). @returns each failure: the response's index, the JSON Pointer in its data, why
 */
export function responseDataViolations(design: {
  responseSchemas?: Record<string, object> | null;
  responses: MockResponse[];
}): Array<{ index: number; pointer: string; message: string }> {
  const out: Array<{ index: number; pointer: string; message: string }> = [];
  design.responses.forEach((r, index) => {
    if (r.data === undefined || r.dynamic === true) return;
    const type = Object.entries(r.headers ?? {}).find(([k]) => k.toLowerCase() === 'content-type')?.[1];
    if (type && !isJsonMedia(type)) return;
    const schema = r.schema ?? design.responseSchemas?.[String(r.status)];
    if (!schema) return;
    let validate: ValidateFunction;
    try {
      validate = compileSchema(schema);
    } catch {
      return; // the schema check of the save names it
    }
    if (validate(r.data)) return;
    for (const v of schemaViolations(validate.errors)) out.push({ index, ...v });
  });
  return out;
}
