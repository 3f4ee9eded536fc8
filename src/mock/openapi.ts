/**
 * Import of API designs from an OpenAPI 3.x document (JSON or YAML): one design per path and
 * method, one mock response per documented status (2xx…5xx; `default` and `4XX`-style ranges are
 * skipped), several when the response lists several `examples` (codes 1, 2, … in their order).
 * Data comes from the response's `example`/`examples`, else a sample of its schema
 * (openapi-sampler, `$ref`s resolved against the document).
 */
import { parse as parseYaml } from 'yaml';
import type { MockResponse } from '../domain/types';
import { parsePath } from './paths';
import { SampleError, sampleFromSchema } from './samples';
import { MAX_JSON_DEPTH, tooDeep } from '../validation/json-limits';

export interface ImportedDesign {
  method: string;
  path: string;
  name: string;
  description: string;
  requestSchema: object | null;
  responseSchemas: Record<string, object> | null;
  responses: MockResponse[];
}

export interface ImportResult {
  title: string;
  designs: ImportedDesign[];
  skipped: Array<{ operation: string; reason: string }>;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'];

type Json = Record<string, unknown>;

/** Follows a local `$ref` (`#/components/...`), through chains of them; undefined when it points outside the document or nowhere (also used by cli/importers/openapi.ts). */
export function deref(doc: Json, value: unknown, depth = 0): Json | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const ref = (value as { $ref?: unknown }).$ref;
  if (typeof ref !== 'string') return value as Json;
  if (!ref.startsWith('#/') || depth > 20) return undefined;
  let node: unknown = doc;
  for (const part of ref.slice(2).split('/'))
    node = (node as Json | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  return deref(doc, node, depth + 1);
}

/**
 * A copy of `schema` with local `$ref`s replaced by what they point to (cycles and depth > 8 become
 * {}). An OpenAPI 3.0 `nullable: true|false` beside no `type` is dropped: without a type null is
 * allowed anyway, and ajv refuses the pair ("nullable" cannot be used without "type"), which made
 * such descriptions fail to import.
 */
function inline(doc: Json, schema: unknown, seen: string[] = []): unknown {
  if (Array.isArray(schema)) return schema.map((s) => inline(doc, s, seen));
  if (!schema || typeof schema !== 'object') return schema;
  const ref = (schema as { $ref?: unknown }).$ref;
  if (typeof ref === 'string') {
    if (seen.includes(ref) || seen.length > 8) return {};
    const target = deref(doc, schema);
    return target ? inline(doc, target, [...seen, ref]) : {};
  }
  const out = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, inline(doc, v, seen)]));
  if (typeof out.nullable === 'boolean' && !('type' in out)) delete out.nullable;
  return out;
}

function jsonContent(doc: Json, response: Json): Json | undefined {
  const content = response.content as Record<string, Json> | undefined;
  if (!content) return undefined;
  const type = Object.keys(content).find((t) => /json/i.test(t)) ?? Object.keys(content)[0];
  return type ? deref(doc, content[type]) : undefined;
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
    doc = text.trimStart().startsWith('{') ? JSON.parse(text) : parseYaml(text, { maxAliasCount: 100 });
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

/** Turns a parsed OpenAPI 3.x document into designs. */
export function designsFromOpenApi(doc: Json): ImportResult {
  const result: ImportResult = {
    title: String((doc.info as Json | undefined)?.title ?? 'untitled'),
    designs: [],
    skipped: [],
  };
  for (const [rawPath, item] of Object.entries(doc.paths as Record<string, Json>)) {
    const parsed = parsePath(rawPath);
    for (const method of METHODS) {
      const op = (item as Json)[method] as Json | undefined;
      if (!op) continue;
      const label = `${method.toUpperCase()} ${rawPath}`;
      if ('error' in parsed) {
        result.skipped.push({ operation: label, reason: `path ${parsed.error}` });
        continue;
      }
      const responses: MockResponse[] = [];
      const responseSchemas: Record<string, object> = {};
      for (const [statusKey, rawResponse] of Object.entries((op.responses as Json | undefined) ?? {})) {
        if (!/^[1-5]\d\d$/.test(statusKey)) continue;
        const status = Number(statusKey);
        const response = deref(doc, rawResponse);
        const media = response ? jsonContent(doc, response) : undefined;
        const schema = media?.schema ? (inline(doc, media.schema) as Json) : undefined;
        if (schema) responseSchemas[statusKey] = schema;
        const examples = media?.examples as Record<string, unknown> | undefined;
        if (examples && Object.keys(examples).length > 0) {
          Object.entries(examples).forEach(([name, ex], i) => {
            const e = deref(doc, ex);
            responses.push({ status, code: i + 1, name, data: e?.value ?? null });
          });
        } else if (media && 'example' in media) {
          responses.push({ status, code: 1, data: media.example });
        } else if (schema) {
          let data: unknown;
          try {
            data = sampleFromSchema(schema, doc);
          } catch (err) {
            if (!(err instanceof SampleError)) throw err;
            throw new SampleError(
              `${label} ${statusKey}: ${err.message}`,
              err.status,
              err.code,
              ['paths', rawPath, method, 'responses', statusKey],
              err.detail,
            );
          }
          responses.push({ status, code: 1, data });
        } else {
          responses.push({
            status,
            code: 1,
            name: String(response?.description ?? '').slice(0, 200) || undefined,
            data: null,
          });
        }
      }
      if (responses.length === 0) {
        result.skipped.push({ operation: label, reason: 'no response with a status code (only default or ranges)' });
        continue;
      }
      const body = deref(doc, op.requestBody);
      const requestMedia = body ? jsonContent(doc, body) : undefined;
      result.designs.push({
        method: method.toUpperCase(),
        path: parsed.path,
        name: String(op.operationId ?? op.summary ?? label).slice(0, 200),
        description: String(op.description ?? op.summary ?? '').slice(0, 2000),
        requestSchema: requestMedia?.schema ? (inline(doc, requestMedia.schema) as Json) : null,
        responseSchemas: Object.keys(responseSchemas).length ? responseSchemas : null,
        responses,
      });
    }
  }
  return result;
}
