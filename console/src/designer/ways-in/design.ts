/**
 * "From API design" (docs/console.md "The designer"): an API node from one operation of the workspace's API
 * designs (`GET /v1/designs`, docs/mocks.md "Designs": one design per method and path, imported
 * from OpenAPI by `POST /v1/designs/import`). The node is the contract test
 * docs/import-openapi.md describes, made from what a design stores: the request to
 * `{{base}}` + path, an example body, the success status and the response schema. Pure: compiled by
 * the root tsconfig too.
 */
import type { Design } from '../../resources/design-types';
import type { Assertion } from '../../../../src/domain/types';
import { nodeIdFor, type ApiNode, type WayInOptions } from './node';

/** The fields of a design an operation's node is made from. */
export type DesignOperation = Pick<Design, 'method' | 'path'> &
  Partial<Pick<Design, 'id' | 'name' | 'requestSchema' | 'responseSchemas' | 'parameters'>> & {
    responses?: ReadonlyArray<{ status: number; schema?: object }>;
  };

/** Options of {@link nodeFromOperation}. */
export interface FromDesignOptions extends WayInOptions {
  /** The variable the URL starts with (default `base`: `{{base}}/users/{{userId}}`, as docs/flows.md writes them). */
  base?: string;
}

/** A design path's parameters in order: `/users/{userId}/posts/{post-id}` → `userId`, `post-id`. */
export function pathParameters(path: string): string[] {
  return [...path.matchAll(/\{([^{}]+)\}/g)].map((m) => m[1]!);
}

/**
 * `{{base}}` + the design's path, each `{name}` as `{{name}}` (the run's variables fill it) and a
 * `#fragment` left out (it names the operation, it is never sent; docs/mocks.md "Paths").
 */
export function operationUrl(path: string, base = 'base'): string {
  return `{{${base}}}${path.replace(/#.*$/, '').replace(/\{([^{}]+)\}/g, '{{$1}}')}`;
}

type Schema = Record<string, unknown>;
const isSchema = (s: unknown): s is Schema => s !== null && typeof s === 'object' && !Array.isArray(s);

const FORMAT_SAMPLES: Record<string, string> = {
  email: 'user@example.com',
  uuid: '3fa85f64-5717-4562-b3fc-2c963f66afa6',
  'date-time': '2026-01-01T00:00:00Z',
  date: '2026-01-01',
  time: '00:00:00Z',
  uri: 'https://example.com',
  url: 'https://example.com',
  hostname: 'example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
};

/**
 * An example value of the JSON Schema `schema` (resolving `$ref`s against `root`): its `example`,
 * first `examples` item, `default`, `const` or first `enum` value when it has one; else made from
 * its type: an object with every property that is not `readOnly` (a request does not send those),
 * an array of one item, a string by `format` (`user@example.com`…) or `"string"`, the `minimum` or
 * 0 for numbers, `true`, `null`. `allOf` parts are merged; `oneOf`/`anyOf` take their first
 * branch. Nests at most 8 levels (deeper: `undefined`, left out).
 */
export function exampleOf(schema: unknown, root: unknown = schema, depth = 0): unknown {
  if (!isSchema(schema) || depth > 8) return undefined;
  if (typeof schema.$ref === 'string') {
    if (!schema.$ref.startsWith('#/') || !isSchema(root)) return undefined;
    let at: unknown = root;
    for (const k of schema.$ref.slice(2).split('/'))
      at = isSchema(at) ? at[k.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
    return exampleOf(at, root, depth + 1);
  }
  if (schema.example !== undefined) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum.find((v) => v !== null) ?? null;
  if (Array.isArray(schema.allOf)) {
    const parts = schema.allOf.map((p) => exampleOf(p, root, depth + 1));
    if (parts.every((p) => isSchema(p) || p === undefined)) return Object.assign({}, ...parts.filter(isSchema));
    return parts.find((p) => p !== undefined);
  }
  for (const k of ['oneOf', 'anyOf'] as const) {
    const list = schema[k];
    if (Array.isArray(list) && list.length > 0) return exampleOf(list[0], root, depth + 1);
  }
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const type =
    types.find((t) => t !== 'null' && typeof t === 'string') ??
    (isSchema(schema.properties) ? 'object' : schema.items ? 'array' : undefined);
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      if (isSchema(schema.properties))
        for (const [k, p] of Object.entries(schema.properties)) {
          if (isSchema(p) && p.readOnly === true) continue;
          const v = exampleOf(p, root, depth + 1);
          if (v !== undefined) out[k] = v;
        }
      return out;
    }
    case 'array': {
      const item = exampleOf(schema.items, root, depth + 1);
      return item === undefined ? [] : [item];
    }
    case 'string':
      return (typeof schema.format === 'string' && FORMAT_SAMPLES[schema.format]) || 'string';
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 0;
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return types.includes('null') ? null : undefined;
  }
}

/** The success status of `design`: the lowest 2xx of its responses and response schemas, or undefined. */
export function successStatus(design: DesignOperation): number | undefined {
  const statuses = [
    ...(design.responses ?? []).map((r) => r.status),
    ...Object.keys(design.responseSchemas ?? {}).map(Number),
  ].filter((s) => Number.isInteger(s) && s >= 200 && s <= 299);
  return statuses.length ? Math.min(...statuses) : undefined;
}

/** Request headers an OpenAPI header parameter may not set (OpenAPI 3.1 §4.8.12.1). */
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);

/** The designs' operation `method path`, or an Error naming it. */
function findOperation(
  designs: DesignOperation | readonly DesignOperation[],
  method: string,
  path: string,
): DesignOperation {
  const list = Array.isArray(designs) ? designs : [designs as DesignOperation];
  const found = list.find((d) => d.method.toUpperCase() === method.toUpperCase() && d.path === path);
  if (!found) throw new Error(`No API design for ${method.toUpperCase()} ${path}.`);
  return found;
}

/**
 * The API node that tests the operation `method path` of `designs` (one design, or the list `GET
 * /v1/designs` answers; the design's `id` and `name` are not needed):
 *
 * - request: `method`, {@link operationUrl} (`{{base}}/users/{{userId}}`), the required query
 *   parameters as `name={{name}}` and the required header parameters as `{{name}}` (not
 *   `Accept`, `Content-Type`, `Authorization`), and for a design with a `requestSchema` the body
 *   {@link exampleOf} that schema (with `Content-Type: application/json`);
 * - assertions: `response.status` `equals` the {@link successStatus} (`inRange [200, 299]` when
 *   the design has no 2xx response), and `response.body` `matchesSchema` the schema of that status
 *   (`responseSchemas[status]`, else that response's own `schema`) when there is one;
 * - id from the method and path, made different from `options.taken`; named as the design is, else `METHOD path`.
 *
 * Throws an Error when no design has that method and path.
 */
export function nodeFromOperation(
  designs: DesignOperation | readonly DesignOperation[],
  method: string,
  path: string,
  options: FromDesignOptions = {},
): ApiNode {
  const design = findOperation(designs, method, path);
  const m = design.method.toUpperCase();
  let url = operationUrl(design.path, options.base);
  const query = (design.parameters ?? []).filter((p) => p.in === 'query' && p.required);
  if (query.length) url += `?${query.map((p) => `${encodeURIComponent(p.name)}={{${p.name}}}`).join('&')}`;
  const headers: Record<string, string> = {};
  for (const p of design.parameters ?? [])
    if (p.in === 'header' && p.required && !IGNORED_HEADERS.has(p.name.toLowerCase()))
      headers[p.name] = `{{${p.name}}}`;
  const request: ApiNode['request'] = { method: m, url };
  if (design.requestSchema !== undefined && m !== 'GET' && m !== 'HEAD') {
    const body = exampleOf(design.requestSchema);
    if (body !== undefined) {
      request.body = body;
      headers['Content-Type'] = 'application/json';
    }
  }
  if (Object.keys(headers).length) request.headers = headers;

  const status = successStatus(design);
  const assertions: Assertion[] = [
    status === undefined
      ? { name: 'status is 2xx', target: 'response.status', operator: 'inRange', expected: [200, 299] }
      : { name: `status is ${status}`, target: 'response.status', operator: 'equals', expected: status },
  ];
  const schema =
    status === undefined
      ? undefined
      : (design.responseSchemas?.[String(status)] ??
        design.responses?.find((r) => r.status === status && r.schema)?.schema);
  if (isSchema(schema))
    assertions.push({
      name: `body matches the ${status} response schema`,
      target: 'response.body',
      operator: 'matchesSchema',
      expected: schema,
    });
  return {
    id: nodeIdFor(m, url, options.taken),
    name: (design.name?.trim() || `${m} ${design.path}`).slice(0, 200),
    type: 'api',
    request,
    assertions,
  };
}
