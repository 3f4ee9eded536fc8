/**
 * Contract test cases from an OpenAPI 3.0/3.1 description (`assay import openapi`,
 * docs/import-openapi.md). Pure: a parsed document in, the test cases to save out; the command
 * (cli/commands/import-openapi.ts) talks to the API.
 *
 * One test case per operation with a documented success response (the lowest explicit 2xx, else a
 * `2XX` range; `default` is not a success response), named `<METHOD> <path>`, filed in
 * `<folder>/<first tag>` and tagged with the operation's tags plus `contract`. Its flow is one API
 * node calling `{{baseUrl}}<path>` with path, required query, header and cookie parameters filled
 * from examples (parameter `example`/`examples`, schema `example`/`examples`/`default`/`enum`/
 * `const`) or schema samples (openapi-sampler through src/mock/samples.ts), a request body from
 * the media type's examples or a sample (JSON preferred), and the credentials the operation's
 * security requirement asks for as `{{…}}` variables. Assertions: the status, the content type,
 * and `matchesSchema` with the response schema converted to JSON Schema (src/mock/openapi-schema.ts).
 *
 * Parsing, `$ref` following and sampling are the mock import's (src/mock/openapi.ts,
 * src/mock/samples.ts).
 */
import { sample } from 'openapi-sampler';
import { deref, jsonTextExample } from '../../src/mock/openapi';
import { isJsonMedia, pickMedia } from '../../src/mock/media';
import { SampleError, sampleFromSchema, SAMPLE_LIMITS } from '../../src/mock/samples';
import type { Assertion, FlowNode, HttpMethod, RequestSpec } from '../../src/domain/types';
import { toJsonSchema, unsatisfiable } from '../../src/mock/openapi-schema';
import { conformSample } from '../../src/mock/conforming';
import { compileSchema } from '../../src/mock/contract';
import { checkSchema } from '../../src/domain/assertions';
import { schemaLoop } from '../../src/validation/json-limits';

type Json = Record<string, unknown>;

/** The tag every imported test case carries (runners select on it). */
export const CONTRACT_TAG = 'contract';
/** The environment variable the request URLs start with. */
export const BASE_URL_VARIABLE = 'baseUrl';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** Options of {@link contractTestsFromOpenApi}. */
export interface ContractImportOptions {
  /** Top folder of the test cases; default: a slug of `info.title` ({@link slug}). */
  folder?: string;
  /** Only operations carrying at least one of these tags (exact, case-sensitive). */
  tags?: string[];
}

/** A test case document as `POST /v1/test-cases` takes it (docs/api.md "Test cases"). */
export interface TestCaseBody {
  name: string;
  folder: string;
  description: string;
  tags: string[];
  flow: FlowNode[];
}

/** One operation turned into a test case. */
export interface PlannedTestCase {
  /** `GET /pets/{petId}` as written in the document. */
  operation: string;
  operationId?: string;
  body: TestCaseBody;
  /** Conversion remarks (recursive schemas, cut depth, optional bodies left out, unsupported security). */
  notes: string[];
}

/** A credential an imported request uses: set it in the environment. */
export interface SecurityVariable {
  /** The variable (`token`, `basicAuth`, `api_key`). */
  name: string;
  /** The security scheme (`components.securitySchemes` key) it stands for. */
  scheme: string;
  /** Where it goes: `Authorization header (Bearer)`, `header X-API-Key`, `query api_key`, `cookie sid`. */
  where: string;
  /** What to put in it. */
  hint: string;
}

/** The whole conversion. */
export interface ContractImportPlan {
  title: string;
  version: string;
  /** The document's `openapi` field (`3.0.3`, `3.1.0`). */
  openapi: string;
  folder: string;
  /** servers[0].url with its variables' defaults, or null when there is none. Maybe relative. */
  serverUrl: string | null;
  testCases: PlannedTestCase[];
  /** Operations with no test case, and why. */
  skipped: Array<{ operation: string; reason: string }>;
  /** Operations left out by `tags`. */
  filteredOut: number;
  variables: SecurityVariable[];
}

/** `Swagger Petstore — v2` → `swagger-petstore-v2` (lower case letters, digits and dashes; `openapi` when empty). */
export function slug(text: string): string {
  const s = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
    .replace(/-+$/, '');
  return s || 'openapi';
}

/** servers[0].url with `{variables}` replaced by their defaults; null without servers. */
export function serverUrlOf(doc: Json): string | null {
  const server = (doc.servers as Json[] | undefined)?.[0];
  if (!server || typeof server.url !== 'string') return null;
  const vars = (server.variables as Record<string, Json> | undefined) ?? {};
  return server.url.replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const v = vars[name];
    return v && v.default !== undefined ? String(v.default) : whole;
  });
}

/** Why an operation cannot become a test case (it is listed as skipped with this reason). */
class SkipOperation extends Error {}

/** The first example a Media Type / Parameter Object gives, as `{value}`; undefined when none. */
function exampleOf(doc: Json, holder: Json | undefined): { value: unknown } | undefined {
  if (!holder) return undefined;
  if ('example' in holder && holder.example !== undefined) return { value: holder.example };
  const examples = holder.examples as Record<string, unknown> | undefined;
  if (examples && typeof examples === 'object' && !Array.isArray(examples)) {
    for (const ex of Object.values(examples)) {
      const e = deref(doc, ex);
      if (e && 'value' in e) return { value: e.value };
    }
  }
  return undefined;
}

/** Runs `fn` with console.warn silenced: openapi-sampler warns on stderr even when asked to be quiet. */
function quietly<T>(fn: () => T): T {
  const warn = console.warn;
  console.warn = () => undefined;
  try {
    return fn();
  } finally {
    console.warn = warn;
  }
}

/** Whether a schema admits `null`: OpenAPI 3.0 `nullable: true`, or 3.1 `type` naming `null`. */
function allowsNull(schema: Json): boolean {
  return (
    schema.nullable === true || schema.type === 'null' || (Array.isArray(schema.type) && schema.type.includes('null'))
  );
}

/** A value for a schema: its example, examples[0], default, const, enum[0], else a sample. */
function valueForSchema(doc: Json, rawSchema: unknown, what: string, request: boolean): unknown {
  const schema = deref(doc, rawSchema);
  if (!schema) return 'example';
  // `example: null` (often an empty `example:` in YAML) is no example unless the schema allows null:
  // left out, also for the sampler (openapi-sampler would answer it).
  if (schema.example === null && !allowsNull(schema)) {
    const { example: _none, ...rest } = schema;
    return valueForSchema(doc, rest, what, request);
  }
  if (schema.example !== undefined) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if (schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum.find((v) => v !== null) ?? schema.enum[0];
  try {
    // The caps of the mock samples (src/mock/samples.ts) first; then, for a request, a sample
    // without readOnly properties and with writeOnly ones (a password goes in, an id does not).
    return quietly(() => {
      const value = sampleFromSchema(schema, doc);
      if (!request) return value;
      return sample(
        schema as never,
        { skipReadOnly: true, skipWriteOnly: false, quiet: true, maxSampleDepth: SAMPLE_LIMITS.maxDepth },
        doc as never,
      );
    });
  } catch (err) {
    if (err instanceof SampleError) throw new SkipOperation(`${what} cannot be sampled: ${err.detail}`);
    throw new SkipOperation(`${what} cannot be sampled: ${(err as Error).message}`);
  }
}

/** Text of a parameter value in a URL/header (simple style: arrays and objects comma-separated). */
function simple(value: unknown, explode = false): string {
  if (Array.isArray(value)) return value.map((v) => simple(v)).join(',');
  if (value && typeof value === 'object')
    return Object.entries(value)
      .map(([k, v]) => (explode ? `${k}=${simple(v)}` : `${k},${simple(v)}`))
      .join(',');
  return value === null || value === undefined ? '' : String(value);
}

const enc = (v: unknown) => encodeURIComponent(simple(v));

/** `name=value` pairs of a query parameter by its style (form, explode by default; spaceDelimited, pipeDelimited, deepObject). */
function queryPairs(param: Json, value: unknown): string[] {
  const name = String(param.name);
  const style = String(param.style ?? 'form');
  const explode = param.explode === undefined ? style === 'form' : param.explode === true;
  const n = encodeURIComponent(name);
  if (Array.isArray(value)) {
    if (explode) return value.map((v) => `${n}=${enc(v)}`);
    const sep = style === 'spaceDelimited' ? '%20' : style === 'pipeDelimited' ? '|' : ',';
    return [`${n}=${value.map(enc).join(sep)}`];
  }
  if (value && typeof value === 'object') {
    const entries = Object.entries(value);
    if (style === 'deepObject') return entries.map(([k, v]) => `${n}%5B${encodeURIComponent(k)}%5D=${enc(v)}`);
    if (explode) return entries.map(([k, v]) => `${encodeURIComponent(k)}=${enc(v)}`);
    return [`${n}=${entries.map(([k, v]) => `${encodeURIComponent(k)},${enc(v)}`).join(',')}`];
  }
  return [`${n}=${enc(value)}`];
}

/**
 * `value` (an example or a sample) made to satisfy `schema` (an OpenAPI Schema Object of a
 * request) the way the mocks check requests (src/mock/contract.ts: parameters coerced from text,
 * bodies not): unchanged when it does; else the parts that break it regenerated
 * (src/mock/conforming.ts, as the mocks repair their examples), with a note naming what was wrong.
 * A value that cannot be made to conform is sent as documented, and the note says the mocks will
 * refuse it (422).
 */
function conformRequestValue(
  doc: Json,
  schema: unknown,
  value: unknown,
  what: string,
  notes: string[],
  coerce: boolean,
  kind: 'example' | 'sample' = 'example',
): unknown {
  if (!schema || typeof schema !== 'object') return value;
  const json = toJsonSchema(schema, doc, { response: false }).schema;
  let validate;
  try {
    validate = compileSchema(json, coerce);
  } catch {
    return value;
  }
  if (validate(structuredClone(value))) return value;
  // As the mocks word it (src/mock/contract.ts's validator, coercing parameters).
  const wrong = (validate.errors ?? [])
    .slice(0, 3)
    .map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`)
    .join('; ');
  const conformed = conformSample(value, json);
  if (conformed.valid) {
    notes.push(`${what} ${kind} does not match its own schema (${wrong}): sent made to match`);
    return conformed.value;
  }
  const why = unsatisfiable(json);
  notes.push(
    why
      ? `${what}: ${why}: no value can match it; sent as documented`
      : `${what} ${kind} does not match its own schema (${wrong}) and no value that does could be made: sent as documented, the mocks answer 422`,
  );
  return value;
}

/** The parameter's value from its examples, its content's, or its schema. */
function parameterValue(doc: Json, param: Json, label: string, notes: string[] = []): unknown {
  const own = exampleOf(doc, param);
  if (own)
    return conformRequestValue(
      doc,
      param.schema,
      own.value,
      `${label} ${param.in} parameter "${param.name}"`,
      notes,
      true,
    );
  const what = `${label} ${param.in} parameter "${param.name}"`;
  if (param.content && typeof param.content === 'object') {
    const media = Object.values(param.content as Json)[0] as Json | undefined;
    const ex = exampleOf(doc, media);
    if (ex) return typeof ex.value === 'string' ? ex.value : JSON.stringify(ex.value);
    const v = valueForSchema(doc, media?.schema, what, true);
    return typeof v === 'string' ? v : JSON.stringify(v);
  }
  // Made to satisfy the schema (patterns, lengths: Twilio's `^ZS[0-9a-fA-F]{32}$` ids), as the mocks'
  // samples are (src/mock/conforming.ts): the mocks check parameters (src/mock/contract.ts).
  const value = valueForSchema(doc, param.schema, what, true);
  if (!param.schema) return value;
  const conformed = conformSample(value, toJsonSchema(param.schema, doc, { response: false }).schema);
  return conformed.valid ? conformed.value : value;
}

const VARIABLE_NAME = /[^A-Za-z0-9_]/g;

/** Headers, query pairs and cookies for the first security requirement Assay can satisfy. */
function securityFor(
  doc: Json,
  op: Json,
  variables: Map<string, SecurityVariable>,
  notes: string[],
): { headers: Record<string, string>; query: string[]; cookies: string[] } {
  const out = { headers: {} as Record<string, string>, query: [] as string[], cookies: [] as string[] };
  const requirements = (op.security ?? doc.security) as Array<Record<string, unknown>> | undefined;
  if (!Array.isArray(requirements) || requirements.length === 0) return out;
  const schemes = ((doc.components as Json | undefined)?.securitySchemes as Json | undefined) ?? {};
  const supported = (name: string): boolean => {
    const s = deref(doc, schemes[name]);
    if (!s) return false;
    if (s.type === 'apiKey') return ['header', 'query', 'cookie'].includes(String(s.in));
    if (s.type === 'http') return ['bearer', 'basic'].includes(String(s.scheme).toLowerCase());
    return s.type === 'oauth2' || s.type === 'openIdConnect';
  };
  // An empty requirement ({}) means "no credentials needed": the first alternative decides.
  const chosen = requirements.find((r) => Object.keys(r ?? {}).every(supported)) ?? null;
  if (!chosen) {
    notes.push(
      `security (${requirements.map((r) => Object.keys(r ?? {}).join(' + ') || 'none').join(' or ')}) needs a scheme Assay cannot fill in (mutualTLS, digest…): add the credentials to the request by hand`,
    );
    return out;
  }
  for (const name of Object.keys(chosen)) {
    const s = deref(doc, schemes[name])!;
    let variable: SecurityVariable;
    if (s.type === 'apiKey') {
      const varName = name.replace(VARIABLE_NAME, '_') || 'apiKey';
      const where = String(s.in);
      variable = {
        name: varName,
        scheme: name,
        where: where === 'header' ? `header ${s.name}` : `${where} ${s.name}`,
        hint: 'the API key',
      };
      const value = `{{${varName}}}`;
      if (where === 'header') out.headers[String(s.name)] = value;
      else if (where === 'query') out.query.push(`${encodeURIComponent(String(s.name))}=${value}`);
      else out.cookies.push(`${s.name}=${value}`);
    } else if (s.type === 'http' && String(s.scheme).toLowerCase() === 'basic') {
      variable = {
        name: 'basicAuth',
        scheme: name,
        where: 'Authorization header (Basic)',
        hint: 'base64 of "user:password"',
      };
      out.headers.Authorization = 'Basic {{basicAuth}}';
    } else {
      variable = {
        name: 'token',
        scheme: name,
        where: 'Authorization header (Bearer)',
        hint: s.type === 'http' ? 'a bearer token' : `an access token (${s.type})`,
      };
      out.headers.Authorization = 'Bearer {{token}}';
    }
    if (!variables.has(`${variable.name}\u0000${name}`)) variables.set(`${variable.name}\u0000${name}`, variable);
  }
  return out;
}

/** The request body and its Content-Type; undefined when the operation sends none. */
function requestBodyFor(
  doc: Json,
  op: Json,
  label: string,
  notes: string[],
): { body: unknown; contentType: string } | undefined {
  const rb = deref(doc, op.requestBody);
  if (!rb) return undefined;
  const picked = pickMedia(deref(doc, rb.content));
  if (!picked) return undefined;
  const { type, media } = picked;
  const base = type.split(';')[0]!.trim().toLowerCase();
  const what = `${label} request body (${base})`;
  const valueOf = () => exampleOf(doc, media)?.value ?? valueForSchema(doc, media.schema, what, true);
  if (isJsonMedia(base)) {
    const example = exampleOf(doc, media);
    const value = conformRequestValue(
      doc,
      media.schema,
      example ? jsonTextExample(doc, example.value, media.schema, base) : valueForSchema(doc, media.schema, what, true),
      `the request body (${base})`,
      notes,
      false,
      example ? 'example' : 'sample',
    );
    // A JSON string is sent as its JSON text (a plain string body would be sent as is).
    return { body: typeof value === 'string' ? JSON.stringify(value) : value, contentType: type };
  }
  if (base === 'application/x-www-form-urlencoded') {
    const value = valueOf();
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      return {
        body: Object.entries(value)
          .map(([k, v]) => `${encodeURIComponent(k)}=${enc(v)}`)
          .join('&'),
        contentType: type,
      };
    }
  }
  if (base.startsWith('text/')) {
    const ex = exampleOf(doc, media)?.value;
    const value = ex ?? (media.schema ? valueForSchema(doc, media.schema, what, true) : undefined);
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
      return { body: String(value), contentType: type };
  }
  const reason = `request body ${base} cannot be made from examples or samples`;
  if (rb.required === true) throw new SkipOperation(reason);
  notes.push(`${reason}; sent without a body (it is optional)`);
  return undefined;
}

/** The success response: lowest explicit 2xx, else `2XX`; undefined when there is none. */
function successOf(op: Json): { key: string; status: number | null } | undefined {
  const keys = Object.keys((op.responses as Json | undefined) ?? {});
  const explicit = keys.filter((k) => /^2\d\d$/.test(k)).sort();
  if (explicit.length) return { key: explicit[0]!, status: Number(explicit[0]) };
  const range = keys.find((k) => /^2xx$/i.test(k));
  return range ? { key: range, status: null } : undefined;
}

/** Folder names may not hold `/` (it nests): a tag becomes one folder level. */
const folderPart = (tag: string) => tag.replace(/\//g, '-').trim().slice(0, 100);
const tagText = (tag: string) => tag.replace(/,/g, ' ').trim().slice(0, 100);

/** Converts one operation; @throws SkipOperation with the reason it cannot be a test case. */
function testCaseFor(
  doc: Json,
  rawPath: string,
  method: string,
  pathItem: Json,
  op: Json,
  folder: string,
  variables: Map<string, SecurityVariable>,
): PlannedTestCase {
  const label = `${method.toUpperCase()} ${rawPath}`;
  const upper = method.toUpperCase() as HttpMethod;
  if (method === 'trace') throw new SkipOperation('TRACE requests cannot be sent by Assay');
  const success = successOf(op);
  if (!success) throw new SkipOperation('no documented success response (2xx; default does not count)');
  const notes: string[] = [];

  // Parameters: the path item's, overridden by the operation's (same name and location).
  const params = new Map<string, Json>();
  for (const raw of [...((pathItem.parameters as unknown[]) ?? []), ...((op.parameters as unknown[]) ?? [])]) {
    const p = deref(doc, raw);
    if (p && typeof p.name === 'string' && typeof p.in === 'string') params.set(`${p.in}:${p.name}`, p);
  }
  let path = rawPath;
  const query: string[] = [];
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (const p of params.values()) {
    const name = String(p.name);
    if (p.in === 'path') {
      const value = parameterValue(doc, p, label, notes);
      const style = String(p.style ?? 'simple');
      const text =
        style === 'label'
          ? `.${simple(value, p.explode === true)}`
          : style === 'matrix'
            ? `;${name}=${simple(value, p.explode === true)}`
            : simple(value, p.explode === true);
      path = path
        .split(`{${name}}`)
        .join(encodeURIComponent(text).replace(/%2C/gi, ',').replace(/%3B/gi, ';').replace(/%3D/gi, '='));
    } else if (p.required === true) {
      if (p.in === 'query') query.push(...queryPairs(p, parameterValue(doc, p, label, notes)));
      else if (p.in === 'header' && !['accept', 'content-type', 'authorization'].includes(name.toLowerCase()))
        headers[name] = simple(parameterValue(doc, p, label, notes), p.explode === true);
      else if (p.in === 'cookie') cookies.push(`${name}=${simple(parameterValue(doc, p, label, notes))}`);
    }
  }
  const leftover = path.match(/\{[^}]+\}/g);
  if (leftover)
    throw new SkipOperation(`path parameter${leftover.length > 1 ? 's' : ''} ${leftover.join(', ')} not described`);

  const security = securityFor(doc, op, variables, notes);
  Object.assign(headers, security.headers);
  query.push(...security.query);
  cookies.push(...security.cookies);
  if (cookies.length) headers.Cookie = cookies.join('; ');

  const requestBody = upper === 'GET' || upper === 'HEAD' ? undefined : requestBodyFor(doc, op, label, notes);
  if (requestBody) headers['Content-Type'] = requestBody.contentType;

  // The response to check.
  const response = deref(doc, (op.responses as Json)[success.key]);
  const media = pickMedia(deref(doc, response?.content));
  const assertions: Assertion[] = [];
  if (success.status !== null)
    assertions.push({
      name: `status is ${success.status}`,
      target: 'response.status',
      operator: 'equals',
      expected: success.status,
    });
  else assertions.push({ name: 'status is 2xx', target: 'response.status', operator: 'inRange', expected: [200, 299] });
  if (media && upper !== 'HEAD') {
    const base = media.type.split(';')[0]!.trim().toLowerCase();
    if (!base.includes('*')) {
      headers.Accept = base;
      assertions.push({
        name: `content type is ${base}`,
        target: 'response.headers."content-type"',
        operator: 'contains',
        expected: base,
      });
    }
    if (isJsonMedia(base) && media.media.schema) {
      const converted = toJsonSchema(media.media.schema, doc, { response: true });
      // Checked as the API checks a saved matchesSchema (src/validation/flow.ts): what still fails
      // after normalisation skips this operation alone, with the reason.
      const problem = schemaLoop(converted.schema) ?? checkSchema(converted.schema);
      if (problem) throw new SkipOperation(`the ${success.key} response schema cannot be checked (${problem})`);
      notes.push(...converted.notes.map((n) => `response schema: ${n}`));
      assertions.push({
        name: `body matches the ${success.key} response schema`,
        target: 'response.body',
        operator: 'matchesSchema',
        expected: converted.schema,
      });
    }
  }

  // A fragment (`/files/{id}#get_shared_link`: Box tells operations apart so) is never sent; the
  // query goes before where it was.
  const url = `{{${BASE_URL_VARIABLE}}}${path.split('#')[0]}${query.length ? `?${query.join('&')}` : ''}`;
  const request: RequestSpec = { method: upper, url };
  if (Object.keys(headers).length) request.headers = headers;
  if (requestBody) request.body = requestBody.body;
  const tags = Array.isArray(op.tags)
    ? (op.tags as unknown[]).filter((t): t is string => typeof t === 'string' && t.trim() !== '')
    : [];
  const summary = typeof op.summary === 'string' ? op.summary.trim() : '';
  const operationId = typeof op.operationId === 'string' ? op.operationId : undefined;
  const node: FlowNode = {
    type: 'api',
    id: 'call',
    name: (summary || operationId || label).slice(0, 200),
    request,
    assertions,
  };
  const title = String((doc.info as Json | undefined)?.title ?? '');
  const description = [
    summary && summary !== node.name ? summary : '',
    `Contract test of ${label}${operationId ? ` (${operationId})` : ''} from the OpenAPI description "${title}"${(doc.info as Json | undefined)?.version ? ` ${(doc.info as Json).version}` : ''}, made by assay import openapi.`,
    ...notes.map((n) => `Note: ${n}.`),
  ]
    .filter(Boolean)
    .join('\n')
    .slice(0, 2000);
  const sub = tags[0] ? folderPart(tags[0]) : '';
  return {
    operation: label,
    operationId,
    notes,
    body: {
      name: label.slice(0, 200),
      folder: sub ? `${folder}/${sub}` : folder,
      description,
      tags: [...new Set([...tags.map(tagText).filter(Boolean), CONTRACT_TAG])].slice(0, 50),
      flow: [node],
    },
  };
}

/**
 * The contract test cases of a parsed OpenAPI 3.x document (src/mock/openapi.ts `parseOpenApi`).
 * Never throws for an operation: one that cannot be converted is in `skipped` with the reason.
 */
export function contractTestsFromOpenApi(doc: Json, options: ContractImportOptions = {}): ContractImportPlan {
  const info = (doc.info as Json | undefined) ?? {};
  const title = String(info.title ?? 'untitled');
  const folder = (options.folder ?? slug(title))
    .split('/')
    .map((s) => s.trim())
    .filter(Boolean)
    .join('/');
  const plan: ContractImportPlan = {
    title,
    version: String(info.version ?? ''),
    openapi: String(doc.openapi),
    folder,
    serverUrl: serverUrlOf(doc),
    testCases: [],
    skipped: [],
    filteredOut: 0,
    variables: [],
  };
  const variables = new Map<string, SecurityVariable>();
  for (const [rawPath, rawItem] of Object.entries((doc.paths as Json | undefined) ?? {})) {
    const item = deref(doc, rawItem) ?? {};
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (!op || typeof op !== 'object') continue;
      const label = `${method.toUpperCase()} ${rawPath}`;
      if (options.tags?.length) {
        const opTags = Array.isArray(op.tags) ? (op.tags as unknown[]) : [];
        if (!options.tags.some((t) => opTags.includes(t))) {
          plan.filteredOut++;
          continue;
        }
      }
      try {
        plan.testCases.push(testCaseFor(doc, rawPath, method, item, op, folder, variables));
      } catch (err) {
        if (!(err instanceof SkipOperation)) throw err;
        plan.skipped.push({ operation: label, reason: err.message });
      }
    }
  }
  plan.variables = [...variables.values()];
  return plan;
}
