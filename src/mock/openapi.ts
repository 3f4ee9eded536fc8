/**
 * Import of API designs from an OpenAPI 3.x document (JSON or YAML): one design per path and
 * method, one mock response per documented status (2xx…5xx; `default` is skipped; a range such as
 * `2XX` answers with its first status, 200, when the operation lists no status of that class:
 * OpenAPI 3.1 §4.8.16.2), several when the response lists several `examples` (codes 1, 2, … in
 * their order).
 *
 * - Media type: the JSON one ({@link pickMedia}: `application/json`, else any `…+json`, else the
 *   first listed), served with that `Content-Type` (`application/scim+json`, `text/plain`, …), as
 *   the contract tests made from the same description expect (cli/importers/openapi.ts).
 * - Data: the response's `example`/`examples` as written; else a sample of its schema
 *   (openapi-sampler, `$ref`s resolved against the document) made to satisfy the schema
 *   (./conforming.ts: patterns, formats, enums, bounds, the `oneOf` branch that validates).
 * - Contract: `parameters` (path, query and header; the path item's and the operation's, the
 *   operation's winning on the same name and location; cookies are not checked) with their schemas
 *   converted to JSON Schema (./openapi-schema.ts), `requestBodyRequired` from `requestBody.required`,
 *   and `validateRequests: true`: the mock answers 422 to a request that breaks the description
 *   (src/mock/contract.ts).
 * - Warnings: an example that does not match its own schema (the description's fault: the mock
 *   serves it with the failing values replaced, so that it agrees with the contract test), and a
 *   schema no sample could satisfy (contradictory keywords, a pattern of another regex dialect).
 * - Normalised: the stored schemas (request, responses, parameters) with what a strict validator
 *   refuses although its meaning is plain rewritten (./schema-normalise.ts), each change in
 *   `normalised`. A design the save's checks still refuse (api/routes/designs.ts: a schema that is
 *   no JSON Schema, one over the subschema bound of src/validation/json-limits.ts) is skipped there,
 *   operation by operation (docs/import-openapi.md "What is normalised, what is skipped and why").
 */
import { parse as parseYaml } from 'yaml';
import type { MockResponse } from '../domain/types';
import type { MockParameter } from '../domain/mocks';
import { parsePath } from './paths';
import { deref } from './refs';
import { SampleError, sampleFromSchema } from './samples';
import { conformSample, schemaErrors } from './conforming';
import {
  breakInPlaceLoops,
  defName,
  fitSchemaDepth,
  MAX_INLINED_NODES,
  toJsonSchema,
  unsatisfiable,
} from './openapi-schema';
import { isJsonMedia, pickMedia } from './media';
import { MAX_JSON_DEPTH, SCHEMA_DATA_KEYWORDS, SCHEMA_MAP_KEYWORDS, tooDeep } from '../validation/json-limits';
import { normaliseSchema } from './schema-normalise';

export interface ImportedDesign {
  method: string;
  path: string;
  name: string;
  description: string;
  requestSchema: object | null;
  responseSchemas: Record<string, object> | null;
  responses: MockResponse[];
  /** The operation's path, query and header parameters (path-item ones too), their schemas as JSON Schema. */
  parameters?: MockParameter[];
  /** Imported designs validate requests (docs/mocks.md "Contract validation"). */
  validateRequests: true;
  /** `requestBody.required` (set when the operation has a request body). */
  requestBodyRequired?: boolean;
}

export interface ImportResult {
  title: string;
  designs: ImportedDesign[];
  skipped: Array<{ operation: string; reason: string }>;
  /** Imported, with something the user should know: `{operation: "GET /a 200", reason}`. */
  warnings: Array<{ operation: string; reason: string }>;
  /**
   * Imported after a schema was rewritten to what it means (./schema-normalise.ts: OpenAPI 3.0
   * boolean exclusive bounds, duplicate enum/required items, `$id` inside examples, patterns read
   * without ECMA-262's `u` flag): `{operation: "POST /a", change: "requestSchema: …"}`.
   */
  normalised: Array<{ operation: string; change: string }>;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'];

type Json = Record<string, unknown>;

export { deref } from './refs';

/** Thrown by {@link inline} when the copy grows past its budget of subschemas. */
class InlineBudgetExceeded extends Error {}

/**
 * A copy of `schema` with local `$ref`s replaced by what they point to (cycles and depth > 8 become
 * {}). An OpenAPI 3.0 `nullable: true|false` beside no `type` is dropped: without a type null is
 * allowed anyway, and ajv refuses the pair ("nullable" cannot be used without "type"), which made
 * such descriptions fail to import.
 * @throws InlineBudgetExceeded past `budget.left` objects (an inlined copy grows exponentially
 *   with chains of `allOf` refs: Elasticsearch's description made 80 MB schemas)
 */
function inline(doc: Json, schema: unknown, seen: string[] = [], budget = { left: MAX_INLINED_NODES }): unknown {
  if (Array.isArray(schema)) return schema.map((s) => inline(doc, s, seen, budget));
  if (!schema || typeof schema !== 'object') return schema;
  if (--budget.left < 0) throw new InlineBudgetExceeded();
  const ref = (schema as { $ref?: unknown }).$ref;
  if (typeof ref === 'string') {
    if (seen.includes(ref) || seen.length > 8) return {};
    const target = deref(doc, schema);
    return target ? inline(doc, target, [...seen, ref], budget) : {};
  }
  const out = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, inline(doc, v, seen, budget)]));
  if (typeof out.nullable === 'boolean' && !('type' in out)) delete out.nullable;
  return out;
}

/**
 * A copy of `schema` whose local `$ref`s point into its own `$defs`, holding each schema they
 * reach once (`#/components/schemas/Pet` → `#/$defs/Pet`): what a schema too large to inline
 * ({@link MAX_INLINED_NODES}) is stored as. Linear in the schemas reached, whatever the nesting.
 */
function withDefs(doc: Json, schema: unknown): Json {
  const names = new Map<string, string>();
  const queue: string[] = [];
  const rewrite = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (!node || typeof node !== 'object') return node;
    const ref = (node as Json).$ref;
    if (typeof ref === 'string' && ref.startsWith('#')) {
      if (!names.has(ref)) queue.push(ref);
      return { $ref: `#/$defs/${defName(ref, names)}` };
    }
    const out = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, rewrite(v)]));
    if (typeof out.nullable === 'boolean' && !('type' in out)) delete out.nullable;
    return out;
  };
  const top = rewrite(schema) as Json;
  const defs: Json = {};
  while (queue.length > 0) {
    const ref = queue.shift()!;
    defs[names.get(ref)!] = rewrite(deref(doc, { $ref: ref }) ?? {});
  }
  if (Object.keys(defs).length === 0) return top;
  // `$ref` beside other keywords is ignored by draft-07: a root that is a reference is wrapped.
  const root = typeof top.$ref === 'string' ? { allOf: [top] } : top;
  return { ...root, $defs: { ...((root.$defs as Json | undefined) ?? {}), ...defs } };
}

/**
 * Deepest JSON nesting of a schema a design stores: a design nests at most 31 levels
 * (src/validation/json-limits.ts) and its schemas sit up to 3 levels down
 * (`parameters[i].schema`).
 */
const DESIGN_SCHEMA_DEPTH = MAX_JSON_DEPTH - 3;

/**
 * `schema` with its references inlined ({@link inline}), or kept under `$defs` when that is too
 * large or too deep ({@link withDefs}); what still nests deeper than {@link DESIGN_SCHEMA_DEPTH}
 * accepts anything, and `cut` hears why.
 */
function resolveSchema(doc: Json, schema: unknown, cut: (note: string) => void = () => undefined): Json {
  let out: Json;
  try {
    out = inline(doc, schema) as Json;
    if (tooDeep(out, DESIGN_SCHEMA_DEPTH)) out = withDefs(doc, schema);
  } catch (err) {
    if (!(err instanceof InlineBudgetExceeded)) throw err;
    out = withDefs(doc, schema);
  }
  if (tooDeep(out, DESIGN_SCHEMA_DEPTH)) {
    const fitted = fitSchemaDepth(out, DESIGN_SCHEMA_DEPTH);
    for (const note of fitted.notes) cut(note);
    out = fitted.schema as Json;
  }
  for (const note of breakInPlaceLoops(out)) cut(note);
  return out;
}

/** The document openapi-sampler resolves `schema`'s references in: its own `$defs` when it has them. */
const samplingDocument = (doc: Json, schema: Json): Json => (schema.$defs ? { ...doc, $defs: schema.$defs } : doc);

function mediaOf(doc: Json, response: Json): { type: string; media: Json } | undefined {
  // `content` given by a $ref (Lob's descriptions do so) is followed too.
  const picked = pickMedia(deref(doc, response.content));
  if (!picked) return undefined;
  const media = deref(doc, picked.media);
  return media ? { type: picked.type, media } : undefined;
}

/** The `Content-Type` a mock response declares for `type` (nothing for plain application/json). */
function contentTypeHeaders(type: string | undefined): Record<string, string> | undefined {
  if (!type || /^application\/json\s*$/i.test(type) || type.includes('*')) return undefined;
  return { 'content-type': type };
}

/**
 * The `yaml` parser's bound on alias expansion (its `maxAliasCount`: aliases resolved, weighted by
 * the aliases inside what each one names). Its default, 100, refuses real descriptions that share
 * parameters and schemas through anchors (Langfuse's: 155 aliases); 10,000 takes them and still
 * refuses an entity-expansion document ("billion laughs": 9 levels of 9 aliases) at once.
 */
export const YAML_MAX_ALIAS_COUNT = 10_000;

/**
 * An example of a JSON media type written as the JSON text of the value (`value: "{\"sort\": …}"`,
 * as Elasticsearch's description writes all of them), read as that value: when `value` is a string
 * holding a JSON object or array and the schema does not say the body is a string. Anything else
 * is returned as it is.
 */
export function jsonTextExample(doc: Json, value: unknown, schema: unknown, mediaType: string | undefined): unknown {
  if (typeof value !== 'string' || (mediaType !== undefined && !isJsonMedia(mediaType.split(';')[0]!.trim())))
    return value;
  const text = value.trim();
  if (!text.startsWith('{') && !text.startsWith('[')) return value;
  const type = (deref(doc, schema) as Json | undefined)?.type;
  if (type === 'string' || (Array.isArray(type) && type.includes('string'))) return value;
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' ? parsed : value;
  } catch {
    return value;
  }
}

/**
 * A parameter's schema with each `oneOf` read as `anyOf`: parameters arrive as text and are
 * coerced (src/mock/contract.ts), so `index=logs` satisfies both branches of Elasticsearch's
 * `oneOf [string, array of string]` and `oneOf` would refuse every value.
 */
function oneOfAsAnyOf(schema: Json): Json {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== 'object') return node;
    const out: Json = {};
    for (const [k, v] of Object.entries(node as Json)) {
      if (SCHEMA_DATA_KEYWORDS.has(k)) out[k] = v;
      else if (SCHEMA_MAP_KEYWORDS.has(k) && v && typeof v === 'object' && !Array.isArray(v))
        out[k] = Object.fromEntries(Object.entries(v as Json).map(([name, sub]) => [name, walk(sub)]));
      else out[k === 'oneOf' ? 'anyOf' : k] = walk(v);
    }
    return out;
  };
  return walk(schema) as Json;
}

/** A document nesting deeper than MAX_JSON_DEPTH; `path` points at where (empty when the YAML parser gave up). */
export class DocumentTooDeepError extends Error {
  constructor(readonly path: Array<string | number>) {
    super(`The document nests deeper than ${MAX_JSON_DEPTH} levels`);
  }
}

/**
 * Parses the text of an OpenAPI document.
 * @throws DocumentTooDeepError when it nests deeper than MAX_JSON_DEPTH (also when the YAML parser
 *   runs out of stack on it); Error with a readable message when it is not an OpenAPI 3.x document.
 */
export function parseOpenApi(text: string): Json {
  let doc: unknown;
  try {
    doc = text.trimStart().startsWith('{')
      ? JSON.parse(text)
      : parseYaml(text, { maxAliasCount: YAML_MAX_ALIAS_COUNT });
  } catch (err) {
    // The yaml parser recurses per nesting level: a deep document overflows its stack.
    if (err instanceof RangeError || /Maximum call stack/i.test((err as Error).message))
      throw new DocumentTooDeepError([]);
    throw new Error(`The document is neither JSON nor YAML: ${(err as Error).message}`, { cause: err });
  }
  const deep = tooDeep(doc);
  if (deep) throw new DocumentTooDeepError(deep);
  if (!doc || typeof doc !== 'object') throw new Error('The document is not an object');
  const version = (doc as Json).openapi;
  if (typeof version !== 'string' || !/^3\./.test(version))
    throw new Error(
      `Only OpenAPI 3.x documents can be imported (this one says openapi: ${JSON.stringify(version ?? (doc as Json).swagger ?? null)})`,
    );
  if (!(doc as Json).paths || typeof (doc as Json).paths !== 'object') throw new Error('The document has no paths');
  return doc as Json;
}

/**
 * The parameters of an operation (`$ref`s followed): the path item's, replaced by the operation's of
 * the same name and location; `in: cookie` and malformed entries left out.
 */
function parametersOf(doc: Json, item: Json, op: Json): MockParameter[] {
  const byKey = new Map<string, MockParameter>();
  for (const list of [item.parameters, op.parameters]) {
    if (!Array.isArray(list)) continue;
    for (const raw of list) {
      const p = deref(doc, raw);
      if (!p || typeof p.name !== 'string' || !p.name || p.name.length > 200) continue;
      if (p.in !== 'path' && p.in !== 'query' && p.in !== 'header') continue;
      // A parameter described by `content` (one media type) takes that media's schema.
      const schema = p.schema ?? (pickMedia(deref(doc, p.content))?.media as Json | undefined)?.schema;
      // Only the default serialisations are read back (form for the query, simple for paths and
      // headers): objects spread over several query keys, deepObject, space- and pipe-delimited
      // values and matrix/label paths are left unchecked.
      const style = typeof p.style === 'string' ? p.style : undefined;
      if (style !== undefined && style !== (p.in === 'query' ? 'form' : 'simple')) continue;
      // Objects (and arrays of objects: Algolia's `objects` query parameter) have no default text form.
      const resolved = deref(doc, schema) as Json | undefined;
      const isObject = (t: unknown) => t === 'object' || (Array.isArray(t) && t.includes('object'));
      if (isObject(resolved?.type)) continue;
      if (isObject((deref(doc, resolved?.items) as Json | undefined)?.type)) continue;
      const parameter: MockParameter = { in: p.in, name: p.name };
      if (p.required === true || p.in === 'path') parameter.required = true;
      if (schema && typeof schema === 'object')
        parameter.schema = oneOfAsAnyOf(toJsonSchema(schema, doc, { response: false }).schema);
      byKey.set(`${p.in}:${p.in === 'header' ? p.name.toLowerCase() : p.name}`, parameter);
    }
  }
  return [...byKey.values()].slice(0, 100);
}

/** Turns a parsed OpenAPI 3.x document into designs. */
export function designsFromOpenApi(doc: Json): ImportResult {
  const result: ImportResult = {
    title: String((doc.info as Json | undefined)?.title ?? 'untitled'),
    designs: [],
    skipped: [],
    warnings: [],
    normalised: [],
  };
  /** `schema` normalised, its changes noted under `operation` with `where` (the design field). */
  const normalise = (schema: Json, operation: string, where: string): Json => {
    const n = normaliseSchema(schema);
    for (const note of n.notes) result.normalised.push({ operation, change: `${where}: ${note}` });
    return n.schema as Json;
  };
  /** `GET /users/{}` → the operation that took it. */
  const routes = new Map<string, string>();
  for (const [rawPath, item] of Object.entries(doc.paths as Record<string, Json>)) {
    // Some descriptions (Box's) tell operations on one path apart by a fragment (`/files/{id}#get_shared_link`),
    // which no request carries: the mock answers the path before it, the first such operation.
    const hash = rawPath.indexOf('#');
    const parsed = parsePath(hash >= 0 ? rawPath.slice(0, hash) : rawPath);
    // A Path Item Object must be an object (OpenAPI 3.1 §4.8.9); `null` or a scalar holds no operation.
    if (!item || typeof item !== 'object' || Array.isArray(item)) {
      result.skipped.push({ operation: rawPath, reason: 'the path item is not an object' });
      continue;
    }
    for (const method of METHODS) {
      const op = (item as Json)[method] as Json | undefined;
      if (!op) continue;
      const label = `${method.toUpperCase()} ${rawPath}`;
      if (typeof op !== 'object' || Array.isArray(op)) {
        result.skipped.push({ operation: label, reason: 'the operation is not an object' });
        continue;
      }
      if ('error' in parsed) {
        result.skipped.push({ operation: label, reason: `path ${parsed.error}` });
        continue;
      }
      const route = `${method.toUpperCase()} ${parsed.routeKey}`;
      const earlier = routes.get(route);
      if (earlier !== undefined) {
        result.skipped.push({
          operation: label,
          reason: `the same route as ${earlier}, imported first${
            hash >= 0 ? ' (the part after # is never sent: the mock answers with that operation)' : ''
          }`,
        });
        continue;
      }
      routes.set(route, label);
      // What fails unexpectedly on one operation (a schema ajv recurses on forever…) skips that
      // operation with the reason; a sample over the caps still refuses the import (422).
      try {
        const responses: MockResponse[] = [];
        const responseSchemas: Record<string, object> = {};
        const documented = Object.entries((op.responses as Json | undefined) ?? {});
        const explicitClasses = new Set(documented.filter(([k]) => /^[1-5]\d\d$/.test(k)).map(([k]) => k[0]));
        for (const [statusKey, rawResponse] of documented) {
          // A range (`2XX`, OpenAPI 3.1 §4.8.16.2) stands for its class when no status of it is listed.
          const range = /^([1-5])XX$/i.exec(statusKey);
          if (!/^[1-5]\d\d$/.test(statusKey) && !(range && !explicitClasses.has(range[1]!))) continue;
          const status = range ? Number(range[1]) * 100 : Number(statusKey);
          const at = `${label} ${statusKey}`;
          const response = deref(doc, rawResponse);
          const picked = response ? mediaOf(doc, response) : undefined;
          const media = picked?.media;
          const headers = contentTypeHeaders(picked?.type);
          const schema = media?.schema
            ? resolveSchema(doc, media.schema, (note) =>
                result.warnings.push({ operation: at, reason: `response schema: ${note}` }),
              )
            : undefined;
          if (schema) responseSchemas[statusKey] = normalise(schema, label, `responseSchemas.${statusKey}`);
          // What a contract test checks the body against (cli/importers/openapi.ts), for JSON bodies.
          const checked =
            media?.schema && picked && isJsonMedia(picked.type)
              ? toJsonSchema(media.schema, doc, { response: true }).schema
              : undefined;
          /**
           * A sample of the schema made to satisfy it (openapi-sampler, then ./conforming.ts); the
           * required properties only when a full one would be too large (Figma's node trees).
           * @throws SampleError pointing at the response
           */
          const sampled = (): { data: unknown; notes: string[]; errors: string[] } => {
            const notes: string[] = [];
            let data: unknown;
            try {
              try {
                data = sampleFromSchema(schema!, samplingDocument(doc, schema!));
              } catch (err) {
                if (!(err instanceof SampleError) || err.code !== 'sample-too-large') throw err;
                data = sampleFromSchema(schema!, samplingDocument(doc, schema!), { requiredOnly: true });
                notes.push(
                  `a sample with every optional property would be too large (${err.detail}); the mock's has the required properties only`,
                );
              }
            } catch (err) {
              if (!(err instanceof SampleError)) throw err;
              throw new SampleError(
                `${at}: ${err.message}`,
                err.status,
                err.code,
                ['paths', rawPath, method, 'responses', statusKey],
                err.detail,
              );
            }
            if (!checked) return { data, notes, errors: [] };
            const conformed = conformSample(data, checked);
            return { data: conformed.value, notes, errors: conformed.errors };
          };
          // An example that breaks its own schema is the description's fault: the mock serves it with
          // the failing values replaced (else a sample of the schema), so that it agrees with the
          // contract test, and says so.
          const checkExample = (name: string, value: unknown): unknown => {
            if (!checked) return value;
            const errors = schemaErrors(value, checked);
            if (!errors.length) return value;
            const broken = `the description's ${name} does not match its own schema (${errors.join('; ')})`;
            const conformed = conformSample(value, checked);
            if (conformed.valid) {
              const what = conformed.replaced.map((p) => p || '(root)').join(', ');
              result.warnings.push({
                operation: at,
                reason: `${broken}; the mock serves it with ${what} made to match`,
              });
              return conformed.value;
            }
            let instead: ReturnType<typeof sampled> | undefined;
            try {
              instead = schema ? sampled() : undefined;
            } catch (err) {
              if (!(err instanceof SampleError)) throw err;
            }
            if (instead && instead.errors.length === 0) {
              result.warnings.push({
                operation: at,
                reason: `${broken}; the mock serves a sample of the schema instead`,
              });
              return instead.data;
            }
            result.warnings.push({ operation: at, reason: `${broken}; the mock serves it as written` });
            return value;
          };
          const examples = media?.examples as Record<string, unknown> | undefined;
          if (examples && Object.keys(examples).length > 0) {
            Object.entries(examples).forEach(([name, ex], i) => {
              const e = deref(doc, ex);
              const data = checkExample(
                `example "${name}"`,
                jsonTextExample(doc, e?.value ?? null, media?.schema, picked?.type),
              );
              responses.push({ status, code: i + 1, name, data, ...(headers ? { headers } : {}) });
            });
          } else if (media && 'example' in media) {
            const data = checkExample('example', jsonTextExample(doc, media.example, media?.schema, picked?.type));
            responses.push({ status, code: 1, data, ...(headers ? { headers } : {}) });
          } else if (schema) {
            const { data, notes, errors } = sampled();
            for (const reason of notes) result.warnings.push({ operation: at, reason });
            if (errors.length)
              result.warnings.push({
                operation: at,
                reason: `no sample satisfying the schema could be made (${errors.join('; ')})${
                  errors.some((e) => /oneOf/.test(e))
                    ? ': its oneOf branches overlap, so a value matching one matches another too'
                    : ''
                }`,
              });
            responses.push({ status, code: 1, data, ...(headers ? { headers } : {}) });
          } else {
            responses.push({
              status,
              code: 1,
              name: String(response?.description ?? '').slice(0, 200) || undefined,
              data: null,
              ...(headers ? { headers } : {}),
            });
          }
        }
        if (responses.length === 0) {
          result.skipped.push({ operation: label, reason: 'no response with a status code or a range (only default)' });
          continue;
        }
        const body = deref(doc, op.requestBody);
        const requestMedia = body ? mediaOf(doc, body)?.media : undefined;
        // Path parameters the design's path does not name (a description's mistake) cannot be checked.
        const parameters = parametersOf(doc, item as Json, op).filter(
          (p) => p.in !== 'path' || parsed.params.includes(p.name),
        );
        for (const p of parameters)
          if (p.schema) p.schema = normalise(p.schema as Json, label, `parameters (${p.in} ${p.name})`);
        let requestSchema = requestMedia?.schema
          ? normalise(
              resolveSchema(doc, requestMedia.schema, (note) =>
                result.warnings.push({ operation: label, reason: `request schema: ${note}` }),
              ),
              label,
              'requestSchema',
            )
          : null;
        // A request schema no body can satisfy would refuse every request: the body is not checked
        // (the contract test sends the documented body and checks the rest), and the report says so.
        const nothing = requestSchema ? unsatisfiable(requestSchema as Json) : undefined;
        if (nothing) {
          result.warnings.push({
            operation: label,
            reason: `the request body schema accepts nothing (${nothing}): request bodies are not checked`,
          });
          requestSchema = null;
        }
        result.designs.push({
          method: method.toUpperCase(),
          path: parsed.path,
          name: String(op.operationId ?? op.summary ?? label).slice(0, 200),
          description: String(op.description ?? op.summary ?? '').slice(0, 2000),
          requestSchema,
          responseSchemas: Object.keys(responseSchemas).length ? responseSchemas : null,
          responses,
          ...(parameters.length ? { parameters } : {}),
          validateRequests: true,
          // A GET or HEAD body has no meaning (RFC 9110 §9.3.1) and clients do not send one: never required.
          ...(requestMedia?.schema
            ? { requestBodyRequired: body?.required === true && method !== 'get' && method !== 'head' }
            : {}),
        });
      } catch (err) {
        if (err instanceof SampleError) throw err;
        result.skipped.push({
          operation: label,
          reason: `could not be imported: ${String((err as Error).message ?? err)
            .split('\n')[0]!
            .slice(0, 300)}`,
        });
      }
    }
  }
  return result;
}
