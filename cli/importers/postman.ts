/**
 * Postman collection import (docs/import-postman.md): a Collection v1 (converted as Newman converts
 * it), v2.0 or v2.1 (read with Postman's own `postman-collection` SDK), optionally a Postman
 * environment, globals and iteration data (`newman run -e -g -d`) become Assay test cases, an
 * environment and a runner, in the order and with the variable passing a Newman run has. File
 * formats and encodings: cli/importers/postman-formats.ts.
 *
 * Mapping (why: a Newman run is one sequence of requests sharing variables; an Assay test case
 * shares variables between its nodes, test cases start again from the run's variables):
 *
 * - each top-level folder → one test case (its requests, subfolders flattened in order, as API
 *   nodes named `Sub folder / Request`); consecutive top-level requests → one test case named
 *   after the collection; `--single-test-case` puts the whole collection in one test case.
 *   When a variable a script sets in one test case is read by a later one, the runner shares
 *   variables across its test cases (`variableScope: 'run'`, as a Newman collection run does).
 * - request → API node: method, URL (path variables `:id` filled, disabled query parameters
 *   dropped), headers (disabled dropped), body (raw: JSON object when it parses, else the text with
 *   its Content-Type; urlencoded; form-data text fields as multipart; form-data with files and
 *   binary bodies as workspace files, cli/importers/postman-files.ts; GraphQL); auth: bearer,
 *   basic, API key and OAuth 2.0 client credentials / password of the collection, a folder or a
 *   request become auth profiles the test cases and nodes reference (cli/importers/postman-auth.ts;
 *   `noauth` → `none`); Digest, OAuth 1.0, Hawk and AWS SigV4 auth, `protocolProfileBehavior` and Newman's
 *   `--timeout-request` through cli/importers/postman-request.ts.
 * - scripts (collection → folders → request, as Postman orders them) → the node's `beforeRequest`
 *   / `afterResponse` hooks running the code as written through the `postman` sandbox library
 *   (src/sandbox/postman/pm.js), so `pm.test` results become the node's assertions.
 * - globals < collection variables < environment values (Postman's precedence) → one Assay
 *   environment; folder variables are not imported (Newman 6 ignores them too; the report says so).
 * - iteration data (rows of a CSV or JSON file) → a data set of each test case, whose flow runs in
 *   an Iteration node over it: a Context node first sets each column as a variable (so `{{column}}`
 *   and `pm.variables` see the row; `pm.iterationData` reads the row itself), then the requests, so
 *   every request runs once per row, as `newman run -d` runs them.
 *
 * - scripts: the hooks (postman-scripts.ts); a collection whose scripts call setNextRequest becomes
 *   one test case whose flow dispatches on the next request's name (postman-next-request.ts).
 *
 * Everything that cannot be translated is listed in the report (`untranslated`), never dropped
 * silently: files that cannot be read, other auth types, `pm.vault`, setNextRequest names no request has,
 * scripts that do not parse, the schema's other fields (cli/importers/postman-constructs.ts), …
 */
import { Collection, ItemGroup, type Item, type Request, type RequestAuth } from 'postman-collection';
import { callsSetNextRequest, dispatchFlow, literalNextRequests, type DispatchNode } from './postman-next-request';
import { hookCode, usesCookies } from './postman-scripts';
import {
  ProfileRegistry,
  resolveAuth,
  resolveGroupAuth,
  type ImportedAuthProfile,
  type ResolvedAuth,
} from './postman-auth';
import type { RequestAuth as NodeAuth } from '../../src/domain/types';
import {
  methodRefusal,
  pruneContentType,
  requestSettings,
  translateAuth,
  type RequestSettings,
} from './postman-request';
import { findConstructs } from './postman-constructs';
import {
  fileBodyOf,
  multipartOf,
  PostmanFiles,
  type FormParamLike,
  type PostmanFileReader,
  type PostmanUpload,
} from './postman-files';
import type { MultipartPart } from '../../src/domain/types';
import {
  collectionAsV2,
  readVariableFile,
  variableValue,
  type IterationData,
  type IterationRow,
  type VariableFile,
  type VariableValue,
} from './postman-formats';

/** A test case to create or update (fields of `POST /v1/test-cases`). */
export interface ImportedTestCase {
  name: string;
  folder: string;
  description?: string;
  tags: string[];
  flow: ImportedNode[];
  /** The auth profile its requests use (its top-level folder's auth, else the collection's), or `none`. */
  authProfile?: string;
  /** The iteration data (docs/flows.md "Data sets"), when imported with some. */
  dataSets?: Array<{ name: string; type: 'json'; data: IterationRow[] }>;
}

/** An API node as the importer writes it (docs/flows.md). */
export type ImportedApiNode = {
  type: 'api';
  id: string;
  name: string;
  request: {
    method: string;
    url: string;
    headers?: Record<string, string>;
    body?: unknown;
    /** Form-data with file fields (cli/importers/postman-files.ts). */
    multipart?: MultipartPart[];
    /** A binary body: a workspace file's name (cli/importers/postman-files.ts). */
    file?: string;
    auth?: NodeAuth;
  } & RequestSettings;
  script?: { code: string; libs: string[] };
  /** The auth profile of this request when it differs from its test case's (`none`: no auth). */
  authProfile?: string;
};

/** An Assay flow node as the importer writes it: API nodes, and the setNextRequest dispatch (postman-next-request.ts). */
export type ImportedNode =
  | ImportedApiNode
  | DispatchNode<ImportedApiNode>
  | { type: 'context'; id: string; name: string; set: Record<string, string> }
  | { type: 'iteration'; id: string; name: string; dataSet: string; as: string; body: ImportedNode[] };

/** One thing the import could not carry over, or something the user should know. */
export interface ImportNote {
  /** Where: `Folder / Request` (or the collection). */
  at: string;
  message: string;
}

export interface PostmanImport {
  collectionName: string;
  /**
   * The runner's `variableScope` (docs/flows.md "Variables across test cases"): `run` when a script
   * of one test case sets a variable a later one reads (Newman passes it on), else `testCase`.
   */
  variableScope: 'testCase' | 'run';
  /** The collection's format as read (a v1 collection is converted to v2.1 first, as Newman does). */
  format: 'v1' | 'v2.0' | 'v2.1';
  environment: { name: string; variables: Record<string, VariableValue> };
  testCases: ImportedTestCase[];
  /** Auth profiles the test cases and nodes reference (cli/importers/postman-auth.ts), to create first. */
  authProfiles: ImportedAuthProfile[];
  /** Workspace files the nodes name (form-data files, binary bodies), to upload first (cli/importers/postman-files.ts). */
  files: PostmanUpload[];
  /** Requests imported, in Newman's run order. */
  requests: number;
  /** Rows of the iteration data: each request runs once per row (0: no data, one pass). */
  iterations: number;
  /** Constructs not carried over (they change what a run does; `--strict` refuses the import). */
  untranslated: ImportNote[];
  /** Carried over with a difference the user should know. */
  warnings: ImportNote[];
  /** Documentation not carried over (descriptions, saved examples): no effect on a run. */
  ignored: ImportNote[];
}

export interface PostmanImportOptions {
  /** Folder the test cases go in (default: the collection's name, made a folder name). */
  folder?: string;
  /** Name of the Assay environment (default: the Postman environment's name, else the collection's). */
  environmentName?: string;
  /** One test case for the whole collection (Newman's variable passing across folders). */
  singleTestCase?: boolean;
  /** Extra tags for every test case (`postman` is always added). */
  tags?: string[];
  /** Newman's `--timeout-request`: every node's `timeoutMs` (cli/importers/postman-request.ts). */
  timeoutRequestMs?: number;
  /** A globals export (parsed JSON): variables below the collection's and the environment's. */
  globals?: unknown;
  /** Iteration data (cli/importers/postman-formats.ts `parseIterationData`): each request runs once per row. */
  iterationData?: IterationData;
  /** Where the iteration data came from (its file name), for the Iteration node's name. */
  iterationDataName?: string;
  /**
   * Reads the files form-data fields and binary bodies name (Newman's `--working-dir`,
   * cli/importers/postman-files.ts); absent: they are listed as not read and left out.
   */
  readFile?: PostmanFileReader;
}

/** A script that clears a variable scope (`pm.environment.clear()`, `postman.clearGlobalVariables()`, …). */
const CLEARS_SCOPE =
  /\b(?:environment|globals|collectionVariables|variables)\s*\.\s*clear\s*\(|\bclear(?:Environment|Global)Variables\s*\(/;

/** The data set and Iteration node names of imported iteration data, and the name the row has in templates. */
export const ITERATION_DATA_SET = 'iterationData';
const ITERATION_ITEM = '_postmanData';
/** Names Assay's templates give a loop's own values inside an Iteration node (docs/flows.md "Templates"). */
const LOOP_TEMPLATE_NAMES = ['index', 'iteration', ITERATION_ITEM];

/** A folder name Assay accepts: path segments without slashes at the ends. */
function folderName(name: string): string {
  return (
    name
      .replace(/[\\]/g, '/')
      .split('/')
      .map((s) => s.trim())
      .filter(Boolean)
      .join(' - ')
      .slice(0, 200) || 'postman'
  );
}

/** A node id from a name, unique within `taken` (docs/flows.md: `^[A-Za-z_][A-Za-z0-9_-]{0,63}$`). */
function nodeId(name: string, taken: Set<string>): string {
  let base = name
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9_-]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 56);
  if (!/^[A-Za-z_]/.test(base)) base = `r_${base}`.slice(0, 56);
  if (!base || base === 'r_') base = 'request';
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}_${n}`;
  taken.add(id);
  return id;
}

function scriptOf(
  events: { listeners(name: string): Array<{ disabled?: boolean; script?: { exec?: string[] | string } }> } | undefined,
  listen: 'prerequest' | 'test',
): string[] {
  if (!events) return [];
  const out: string[] = [];
  for (const e of events.listeners(listen)) {
    if (e.disabled) continue;
    const exec = e.script?.exec;
    const code = Array.isArray(exec) ? exec.join('\n') : typeof exec === 'string' ? exec : '';
    if (code.trim()) out.push(code);
  }
  return out;
}

/** `Folder / Sub / Request` of an item, from the collection down. */
function pathOf(names: string[]): string {
  return names.join(' / ');
}

interface Scope {
  names: string[];
  pre: string[];
  test: string[];
}

/** Auth of a request: its own, else the nearest folder's or the collection's (`noauth` stops). */
function authOf(item: Item): RequestAuth | undefined {
  const auth = item.getAuth() as RequestAuth | undefined;
  if (!auth || auth.type === 'noauth') return undefined;
  return auth;
}

function authParams(auth: RequestAuth): Record<string, unknown> {
  const params = auth.parameters();
  return params ? (params.toObject() as Record<string, unknown>) : {};
}

interface Translated {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: unknown;
  multipart?: MultipartPart[];
  file?: string;
  basic?: { username: string; password: string };
  auth?: NodeAuth;
}

const MULTIPART_BOUNDARY = '----AssayPostmanImportBoundary7MA4YWxkTrZu0gW';

/**
 * The request of an item as Assay sends it; notes what cannot be carried over. `profiled`: its auth
 * is an auth profile's (postman-auth.ts), not written into the request.
 */
function translateRequest(
  request: Request,
  item: Item,
  at: string,
  notes: ImportNote[],
  profiled: boolean,
  files: PostmanFiles,
): Translated {
  const url = request.url;
  // Path variables (`/users/:id` with url.variable) are filled as Postman does.
  const pathVars = url.variables?.toObject?.() as Record<string, unknown> | undefined;
  let raw = url.toString();
  if (pathVars) {
    for (const [name, value] of Object.entries(pathVars)) {
      raw = raw.replace(
        new RegExp(`(/):${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?=/|\\?|#|$)`, 'g'),
        `$1${String(value ?? '')}`,
      );
    }
  }
  if (!/^[a-z]+:\/\//i.test(raw) && !/^\{\{/.test(raw)) raw = `http://${raw}`;
  // Tab, line feed and carriage return written in the URL: Newman (postman-url-encoder) sends them
  // percent-encoded, where a WHATWG URL parser (Assay's) would drop them.
  raw = raw.replace(/[\t\n\r]/g, (c) => encodeURIComponent(c));
  const headers: Record<string, string> = {};
  request.headers.each((h) => {
    if (h.disabled || !h.key) return;
    headers[h.key] = String(h.value ?? '');
  });
  const hasHeader = (name: string) => Object.keys(headers).some((k) => k.toLowerCase() === name.toLowerCase());
  const out: Translated = { method: (request.method || 'GET').toUpperCase(), url: raw, headers };

  const body = request.body as (Request['body'] & { disabled?: boolean; options?: unknown }) | undefined;
  if (body && !body.disabled && body.mode) {
    switch (body.mode) {
      case 'raw': {
        const text = body.raw ?? '';
        if (!text) break;
        const language = (body.options as { raw?: { language?: string } } | undefined)?.raw?.language ?? 'text';
        const types: Record<string, string> = {
          json: 'application/json',
          xml: 'application/xml',
          html: 'text/html',
          javascript: 'application/javascript',
          text: 'text/plain',
        };
        if (!hasHeader('content-type')) headers['Content-Type'] = types[language] ?? 'text/plain';
        let parsed: unknown;
        if (language === 'json' || /json/i.test(headers['Content-Type'] ?? '')) {
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = undefined;
          }
        }
        // A JSON object or array is kept as JSON (readable; Assay fills {{variables}} in its strings);
        // anything else (JSON with unquoted {{variables}}, text, XML) is sent as the text written.
        out.body = parsed !== null && typeof parsed === 'object' ? parsed : text;
        break;
      }
      case 'urlencoded': {
        // As Newman encodes it (postman-runtime's urlEncodedBodyReducer, then Node's querystring
        // with RFC 3986 escapes): the values of a key repeated are grouped under its first place,
        // in order, keys in JavaScript's object order (integer-like keys first).
        const form: Record<string, string[]> = {};
        body.urlencoded?.each((p) => {
          if (p.disabled || !p.key) return;
          (Object.hasOwn(form, p.key) ? form[p.key]! : (form[p.key] = [])).push(String(p.value ?? ''));
        });
        const pairs = Object.entries(form).flatMap(([key, values]) =>
          values.map((value) => `${encodeKeepingVariables(key, true)}=${encodeKeepingVariables(value, true)}`),
        );
        if (!hasHeader('content-type')) headers['Content-Type'] = 'application/x-www-form-urlencoded';
        out.body = pairs.join('&');
        break;
      }
      case 'formdata': {
        const params: FormParamLike[] = [];
        body.formdata?.each((p) => void params.push(p as unknown as FormParamLike));
        const multipart = multipartOf(params, at, files, notes);
        if (multipart) {
          // File fields: the parts Assay encodes (its Content-Type names the boundary; one written is not sent).
          if (multipart.length) out.multipart = multipart;
          break;
        }
        const parts: string[] = [];
        body.formdata?.each((p) => {
          const param = p as unknown as {
            key: string;
            value?: string;
            type?: string;
            src?: unknown;
            disabled?: boolean;
            contentType?: string;
          };
          if (param.disabled || !param.key) return;
          parts.push(
            `--${MULTIPART_BOUNDARY}\r\nContent-Disposition: form-data; name="${param.key.replace(/"/g, '%22')}"\r\n${param.contentType ? `Content-Type: ${param.contentType}\r\n` : ''}\r\n${String(param.value ?? '')}\r\n`,
          );
        });
        if (parts.length) {
          headers['Content-Type'] = `multipart/form-data; boundary=${MULTIPART_BOUNDARY}`;
          out.body = `${parts.join('')}--${MULTIPART_BOUNDARY}--\r\n`;
        }
        break;
      }
      case 'graphql': {
        const g = (body as unknown as { graphql?: { query?: string; variables?: string } }).graphql ?? {};
        let variables: unknown;
        try {
          variables = g.variables ? JSON.parse(g.variables) : undefined;
        } catch {
          notes.push({ at, message: 'GraphQL variables are not valid JSON; sent without them' });
        }
        if (!hasHeader('content-type')) headers['Content-Type'] = 'application/json';
        out.body = variables === undefined ? { query: g.query ?? '' } : { query: g.query ?? '', variables };
        break;
      }
      case 'file': {
        const file = fileBodyOf(body.file as { src?: unknown } | undefined, at, files, notes);
        if (file) out.file = file;
        break;
      }
      default:
        notes.push({ at, message: `body mode "${body.mode}" is not imported` });
    }
  }

  const auth = profiled ? undefined : authOf(item);
  if (auth) {
    const p = authParams(auth);
    switch (auth.type) {
      case 'bearer':
        if (!hasHeader('authorization')) headers.Authorization = `Bearer ${String(p.token ?? '')}`;
        break;
      case 'basic': {
        const username = String(p.username ?? '');
        const password = String(p.password ?? '');
        if (hasHeader('authorization')) break;
        if (/\{\{/.test(username + password)) out.basic = { username, password };
        else headers.Authorization = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
        break;
      }
      case 'apikey': {
        const key = String(p.key ?? '');
        const value = String(p.value ?? '');
        if (!key) break;
        if (p.in === 'query')
          out.url += `${out.url.includes('?') ? '&' : '?'}${encodeKeepingVariables(key)}=${encodeKeepingVariables(value)}`;
        else if (!hasHeader(key)) headers[key] = value;
        break;
      }
      case 'oauth2':
        // A grant no auth profile fetches with (postman-auth.ts said so): the stored token, if any, as it is.
        if (p.accessToken && (p.addTokenTo ?? 'header') === 'header' && !hasHeader('authorization'))
          headers.Authorization = `${String(p.headerPrefix ?? 'Bearer')} ${String(p.accessToken)}`.trim();
        break;
      default: {
        const signed = translateAuth(auth, p, at, notes);
        if (signed) out.auth = signed;
      }
    }
  }
  return out;
}

/**
 * The `authProfile` of a request's API node: set only where it differs from its test case's
 * (`testCase`, absent: none) and for a request whose own auth is `noauth`. `profile` is the profile
 * its resolved auth became (undefined: `noauth`, nothing written, or an auth the node carries
 * itself — all `none`); a request that writes the header the profile would set keeps its own, as
 * the import always did.
 */
function nodeAuthProfile(
  resolved: ResolvedAuth | undefined,
  profile: string | undefined,
  headers: Record<string, string>,
  testCase: string | undefined,
): string | undefined {
  const has = (name: string) => Object.keys(headers).some((k) => k.toLowerCase() === name.toLowerCase());
  let own = profile ?? 'none';
  if (profile && resolved) {
    const p = resolved.auth.parameters()?.toObject() as Record<string, unknown> | undefined;
    const header =
      resolved.auth.type === 'apikey' ? (p?.in === 'query' ? undefined : String(p?.key ?? '')) : 'authorization';
    if (header && has(header)) own = 'none';
  }
  const explicitNoauth = resolved?.level === 'request' && resolved.auth.type === 'noauth';
  return own !== (testCase ?? 'none') || explicitNoauth ? own : undefined;
}

/**
 * Percent-encodes text but keeps `{{variables}}` as written (they are filled at run time).
 * `rfc3986`: `!'()*` escaped too, as in Newman's urlencoded body (Node's querystring, then
 * postman-request's `rfc3986`).
 */
export function encodeKeepingVariables(text: string, rfc3986 = false): string {
  const encode = (part: string) => {
    const out = encodeURIComponent(part);
    return rfc3986 ? out.replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`) : out;
  };
  return text
    .split(/(\{\{[^{}]+\}\})/)
    .map((part, i) => (i % 2 ? part : encode(part)))
    .join('');
}

/** Names set by scripts (`pm.environment.set('x'`, `postman.setEnvironmentVariable("x"`…) and names read. */
function variableFlow(codes: string[], templates: string[]): { sets: Set<string>; reads: Set<string> } {
  const sets = new Set<string>();
  const reads = new Set<string>();
  const text = codes.join('\n');
  for (const m of text.matchAll(/\.(?:set|setEnvironmentVariable|setGlobalVariable)\(\s*(['"`])([^'"`]+)\1/g))
    sets.add(m[2]!);
  for (const m of text.matchAll(/\.(?:get|getEnvironmentVariable|getGlobalVariable|has)\(\s*(['"`])([^'"`]+)\1/g))
    reads.add(m[2]!);
  for (const t of templates) for (const m of t.matchAll(/\{\{([^{}$]+)\}\}/g)) reads.add(m[1]!.trim());
  return { sets, reads };
}

/**
 * Converts a collection (parsed JSON of a v1, v2.0 or v2.1 export) and optionally an environment
 * export, globals (`options.globals`) and iteration data (`options.iterationData`).
 * @throws Error with a one-line reason when `collection` is not a Postman collection, or an
 * environment or globals file is not an export.
 */
export function importPostman(
  collectionJson: unknown,
  environmentJson?: unknown,
  options: PostmanImportOptions = {},
): PostmanImport {
  const { collection: v2Json, convertedFrom } = collectionAsV2(collectionJson);
  const doc = v2Json as { info?: { schema?: string; name?: string }; item?: unknown };
  // Newman (the SDK) runs a collection without "info" too; only "item" is needed.
  if (!doc || typeof doc !== 'object' || !Array.isArray(doc.item)) {
    throw new Error(
      'not a Postman collection (v1, v2.0 or v2.1): expected an object with "item" (v2) or "name", "order" and "requests" (v1)',
    );
  }
  const schema = String(doc.info?.schema ?? '');
  if (schema && !/collection\/v2\.[01]\.0/.test(schema))
    throw new Error(
      `unsupported Postman collection schema "${schema}" (v1, v2.0 and v2.1 are supported; export the collection as v2.1)`,
    );
  const format: PostmanImport['format'] = convertedFrom ?? (/v2\.0\.0/.test(schema) ? 'v2.0' : 'v2.1');
  const collection = new Collection(v2Json as never);
  const collectionName = collection.name || 'Postman collection';
  const untranslated: ImportNote[] = [];
  const warnings: ImportNote[] = [];
  const constructs = findConstructs(v2Json, collectionName);
  const disabledNote = (at: string, file: VariableFile) => {
    if (!file.disabled.length) return;
    const newman = file.newmanUses.length
      ? `; Newman 6.2.2 uses those marked "enabled": false (${file.newmanUses.join(', ')}) all the same, so tests reading them can differ`
      : '';
    warnings.push({
      at,
      message: `disabled values (${file.disabled.join(', ')}) are not imported, as in the Postman app${newman}`,
    });
  };

  // Variables, lowest first as Postman resolves them: globals, collection variables, environment.
  const variables: Record<string, VariableValue> = {};
  // The scopes of the names globals and collection variables hold (pm.js `syncScopes`): the
  // library keeps Newman's scopes apart over the one set of variables. Not the environment's: a
  // variable whose value differs from these is the environment's (so importing again without
  // --environment changes no test case).
  const scopes: Record<string, { c?: VariableValue; g?: VariableValue }> = {};
  if (options.globals !== undefined) {
    const globals = readVariableFile(options.globals, 'globals');
    Object.assign(variables, globals.variables);
    for (const [k, v] of Object.entries(globals.variables)) scopes[k] = { g: v };
    disabledNote('globals', globals);
  }
  collection.variables.each((v) => {
    // The SDK has already typed the value (`"type": "number"` → 12), as Newman gives it to scripts.
    if (!v.key || v.disabled) return;
    variables[v.key] = variableValue(v.value);
    scopes[v.key] = { c: variables[v.key], ...scopes[v.key] };
  });
  let envName = options.environmentName;
  if (environmentJson !== undefined) {
    const env = readVariableFile(environmentJson, 'environment');
    Object.assign(variables, env.variables);
    disabledNote('environment', env);
    envName ??= env.name;
  }
  const data = options.iterationData;
  const rows = data?.rows ?? [];
  if (rows.length > MAX_ITERATION_ROWS)
    throw new Error(
      `the iteration data has ${rows.length} rows; an Assay data set holds at most ${MAX_ITERATION_ROWS}`,
    );
  envName =
    (envName ?? collectionName)
      .replace(/[^A-Za-z0-9_.-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 100) || 'postman';

  // Folder variables: the SDK (and so Newman 6) drops them; so does the import, saying so.
  const scanFolders = (items: unknown[], names: string[]) => {
    for (const raw of items as Array<{
      name?: string;
      item?: unknown[];
      variable?: Array<{ key?: string; disabled?: boolean }>;
    }>) {
      if (!raw || !Array.isArray(raw.item)) continue;
      const here = [...names, String(raw.name ?? '')];
      const keys = (raw.variable ?? []).filter((v) => v && v.key && !v.disabled).map((v) => v.key!);
      if (keys.length)
        untranslated.push({
          at: pathOf(here),
          message: `folder variables (${keys.join(', ')}) are not imported: Newman ignores them too; move them to the collection or environment`,
        });
      scanFolders(raw.item, here);
    }
  };
  scanFolders(doc.item as unknown[], []);

  const baseFolder = folderName(options.folder ?? collectionName);
  const tags = [...new Set(['postman', ...(options.tags ?? [])])];
  const testCases: ImportedTestCase[] = [];
  let requests = 0;
  const flowsSetsReads: Array<{ name: string; sets: Set<string>; reads: Set<string> }> = [];

  const rootScope: Scope = {
    names: [],
    pre: scriptOf(collection.events as never, 'prerequest'),
    test: scriptOf(collection.events as never, 'test'),
  };
  // Scripts module (postman-scripts.ts, postman-next-request.ts): a collection that calls
  // setNextRequest is one test case dispatching on `__next`; a test case whose scripts read cookies
  // keeps a cookie jar across its requests; Postman ids the export has name requests for both.
  const rawIds = new Set<string>();
  const collectIds = (items: unknown) => {
    for (const raw of (Array.isArray(items) ? items : []) as Array<{ id?: unknown; item?: unknown }>) {
      if (raw && typeof raw.id === 'string') rawIds.add(raw.id);
      if (raw && Array.isArray(raw.item)) collectIds(raw.item);
    }
  };
  collectIds(doc.item);
  const scriptsIn = (entry: Item | ItemGroup<Item>): string[] => {
    const own = [...scriptOf(entry.events as never, 'prerequest'), ...scriptOf(entry.events as never, 'test')];
    if (!ItemGroup.isItemGroup(entry)) return own;
    const children: string[] = [];
    (entry as ItemGroup<Item>).items.each((c) => void children.push(...scriptsIn(c as Item | ItemGroup<Item>)));
    return [...own, ...children];
  };
  const everyScript = [...rootScope.pre, ...rootScope.test];
  collection.items.each((entry) => void everyScript.push(...scriptsIn(entry as Item | ItemGroup<Item>)));
  const nextRequest = everyScript.some(callsSetNextRequest);
  if (nextRequest && !options.singleTestCase)
    warnings.push({
      at: collectionName,
      message:
        'scripts call setNextRequest: the whole collection is imported as one test case whose flow runs the requests in the order the scripts choose (docs/import-postman.md "setNextRequest")',
    });
  if (everyScript.some((c) => CLEARS_SCOPE.test(c)))
    warnings.push({
      at: collectionName,
      message:
        'scripts clear variable scopes: the values are gone for the rest of the test case, the other scopes\' values of those names then used, as in Newman; a later test case starts from the environment again unless the runner shares variables (variableScope "run", or --single-test-case), and an iteration data column a clear() removed is back with the next row only (docs/import-postman.md "Variable scopes")',
    });
  const singleTestCase = Boolean(options.singleTestCase) || nextRequest;
  let current:
    | {
        testCase: ImportedTestCase;
        ids: Set<string>;
        codes: string[];
        templates: string[];
        cookies: boolean;
        items: Array<{ node: ImportedApiNode; name: string; postmanId?: string }>;
      }
    | undefined;
  // Auth profiles (postman-auth.ts): a reference for where the auth is written, `none` for `noauth`.
  const profiles = new ProfileRegistry(collectionName);
  const files = new PostmanFiles(options.readFile);
  const profileRef = (resolved: ResolvedAuth | undefined): string | undefined => {
    if (!resolved) return undefined;
    if (resolved.auth.type === 'noauth') return 'none';
    return profiles.nameFor(resolved, untranslated);
  };
  /** `group`: the top-level folder the test case is made of (else the collection's requests). */
  const startTestCase = (name: string, description?: string, scripts: string[] = [], group?: ItemGroup<Item>) => {
    const taken = new Set(testCases.map((t) => t.name));
    let unique = name.slice(0, 200) || 'requests';
    for (let n = 2; taken.has(unique); n++) unique = `${name.slice(0, 190)} (${n})`;
    const testCase: ImportedTestCase = {
      name: unique,
      folder: baseFolder,
      tags,
      flow: [],
      ...(description ? { description: description.slice(0, 2000) } : {}),
    };
    const authProfile = profileRef(resolveGroupAuth(collection, group));
    if (authProfile) testCase.authProfile = authProfile;
    testCases.push(testCase);
    current = {
      testCase,
      ids: new Set(),
      codes: [],
      templates: [],
      cookies: usesCookies([...rootScope.pre, ...rootScope.test, ...scripts]),
      items: [],
    };
    return current;
  };
  const finish = () => {
    if (current)
      flowsSetsReads.push({ name: current.testCase.name, ...variableFlow(current.codes, current.templates) });
    current = undefined;
  };

  /** `asTestCase`: a top-level folder that is its own test case (its name is not repeated in node names). */
  const visit = (entry: Item | ItemGroup<Item>, scope: Scope, relative: string[], asTestCase = false) => {
    if (ItemGroup.isItemGroup(entry)) {
      const group = entry as ItemGroup<Item>;
      const inner: Scope = {
        names: [...scope.names, group.name],
        pre: [...scope.pre, ...scriptOf(group.events as never, 'prerequest')],
        test: [...scope.test, ...scriptOf(group.events as never, 'test')],
      };
      const childRelative = asTestCase ? relative : [...relative, group.name];
      group.items.each((child) => visit(child as Item | ItemGroup<Item>, inner, childRelative));
      return;
    }
    const item = entry as Item;
    if (!current) return;
    requests += 1;
    // An item may have no name (Newman runs it; its reports say "undefined"): the node is named by its URL.
    const itemName = item.name ?? (item.request?.url?.toString() || 'request');
    const names = [...relative, itemName];
    const at = pathOf([...scope.names, itemName]);
    const resolved = resolveAuth(item, itemName);
    const profile = resolved?.auth.type === 'noauth' ? undefined : resolved && profiles.nameFor(resolved, untranslated);
    const translated = translateRequest(item.request, item, at, untranslated, Boolean(profile), files);
    const authProfile = nodeAuthProfile(resolved, profile, translated.headers, current.testCase.authProfile);
    const pre = [...scope.pre, ...scriptOf(item.events as never, 'prerequest')];
    const test = [...scope.test, ...scriptOf(item.events as never, 'test')];
    const settings = requestSettings(item, at, untranslated, options.timeoutRequestMs);
    const written: string[] = [];
    item.request.headers.each((h) => void (!h.disabled && h.key && written.push(h.key)));
    pruneContentType(translated.method, settings, translated.headers, written);
    const script = hookCode(at, item.name ?? '', translated, pre, test, envName!, untranslated, {
      cookies: current.cookies,
      nextRequest,
      requestId: rawIds.has(item.id) ? item.id : undefined,
      description: item.request.description?.toString() || undefined,
      iterationCount: rows.length || undefined,
      scopes,
    });
    const node: ImportedApiNode = {
      type: 'api',
      id: nodeId(itemName, current.ids),
      name: pathOf(names).slice(0, 200),
      request: {
        method: translated.method,
        url: translated.url,
        ...(Object.keys(translated.headers).length ? { headers: translated.headers } : {}),
        ...(translated.body !== undefined ? { body: translated.body } : {}),
        ...(translated.multipart ? { multipart: translated.multipart } : {}),
        ...(translated.file ? { file: translated.file } : {}),
        ...settings,
        ...(translated.auth ? { auth: translated.auth } : {}),
      },
      ...(script ? { script } : {}),
      ...(authProfile ? { authProfile } : {}),
    };
    const refused = methodRefusal(translated.method);
    if (refused) {
      untranslated.push({ at, message: refused });
      return;
    }
    current.testCase.flow.push(node);
    current.items.push({ node, name: item.name, ...(rawIds.has(item.id) ? { postmanId: item.id } : {}) });
    current.codes.push(...pre, ...test);
    current.templates.push(
      translated.url,
      ...Object.values(translated.headers),
      typeof translated.body === 'string' ? translated.body : JSON.stringify(translated.body ?? ''),
    );
  };

  if (singleTestCase) {
    const tc = startTestCase(collectionName, collection.description?.toString(), everyScript);
    collection.items.each((entry) => visit(entry as Item | ItemGroup<Item>, rootScope, []));
    if (nextRequest && tc.items.length) {
      const { flow, unresolved } = dispatchFlow(tc.items, everyScript.flatMap(literalNextRequests));
      tc.testCase.flow = flow;
      for (const name of unresolved)
        untranslated.push({
          at: collectionName,
          message: `setNextRequest(${JSON.stringify(name)}) names no request of the collection: Newman ends the iteration there, and so does the imported flow, whose last node then fails naming it`,
        });
    }
    finish();
  } else {
    collection.items.each((entry) => {
      if (ItemGroup.isItemGroup(entry)) {
        finish();
        const group = entry as ItemGroup<Item>;
        startTestCase(
          group.name,
          (group as unknown as { description?: { toString(): string } }).description?.toString(),
          scriptsIn(group),
          group,
        );
        visit(group, rootScope, [], true);
        finish();
      } else {
        if (!current) {
          const loose: string[] = [];
          collection.items.each((e) => {
            if (!ItemGroup.isItemGroup(e)) loose.push(...scriptsIn(e as Item));
          });
          startTestCase(collectionName, collection.description?.toString(), loose);
        }
        visit(entry as Item, rootScope, []);
      }
    });
    finish();
  }
  // Drop flow-less test cases (empty folders), saying so.
  for (const tc of [...testCases]) {
    if (tc.flow.length) continue;
    testCases.splice(testCases.indexOf(tc), 1);
    warnings.push({ at: tc.name, message: 'folder has no requests; no test case made' });
  }

  // A variable one test case's scripts set and a later one reads: Newman passes it on, so the
  // runner's test cases share their variables (variableScope `run`), in Newman's order.
  const columns = new Set(data?.columns ?? []);
  const passed: string[] = [];
  for (let i = 0; i < flowsSetsReads.length; i++) {
    for (const name of flowsSetsReads[i]!.sets) {
      if (columns.has(name)) continue;
      const later = flowsSetsReads.slice(i + 1).find((f) => f.reads.has(name));
      if (later) passed.push(`"${name}" (${flowsSetsReads[i]!.name} → ${later.name})`);
    }
  }
  const variableScope = passed.length > 0 && testCases.length > 1 ? 'run' : 'testCase';
  if (variableScope === 'run')
    warnings.push({
      at: collectionName,
      message: `scripts pass variables from one folder to a later one (${[...new Set(passed)].slice(0, 5).join(', ')}${passed.length > 5 ? ', …' : ''}): the runner shares variables across its test cases (variableScope "run"), as Newman does; a test case then starts from what the one before it left`,
    });
  if (data) {
    for (const note of data.notes) warnings.push({ at: options.iterationDataName ?? 'iteration data', message: note });
    if (rows.length)
      for (const tc of testCases) withIterationData(tc, data, variables, options.iterationDataName, warnings);
  }
  const templates = flowsSetsReads.flatMap((f) => [...f.reads]);
  const shadowed = LOOP_TEMPLATE_NAMES.filter((n) => columns.has(n) || (rows.length > 0 && templates.includes(n)));
  if (rows.length && shadowed.length)
    warnings.push({
      at: options.iterationDataName ?? 'iteration data',
      message: `inside the iteration over the data, Assay's templates read {{${shadowed.join('}}, {{')}}} as the loop's own values (docs/flows.md "Templates"), not the variable or column of that name; scripts (pm.variables, pm.iterationData) see the right values`,
    });
  if (rows.length > KEPT_ITERATION_RESULTS)
    warnings.push({
      at: options.iterationDataName ?? 'iteration data',
      message: `${rows.length} rows: all run, but a run's results keep the details of the first ${KEPT_ITERATION_RESULTS} iterations of each test case (the rest are counted); above ASSAY_MAX_LOOP_ITERATIONS (default 1000) the iteration stops with a failure`,
    });
  untranslated.push(...constructs.untranslated);
  warnings.push(...constructs.warnings);
  return {
    collectionName,
    variableScope,
    format,
    environment: { name: envName, variables },
    testCases,
    authProfiles: profiles.profiles,
    files: files.uploads,
    requests,
    iterations: rows.length,
    untranslated,
    warnings,
    ignored: constructs.ignored,
  };
}

/** Rows an Assay data set holds at most (src/validation/data-sets.ts). */
const MAX_ITERATION_ROWS = 10_000;
/** Iterations whose results a run keeps in full (src/flow/loop.ts `KEPT_ITERATIONS`). */
const KEPT_ITERATION_RESULTS = 50;
/** Variables one Context node sets at most (docs/flows.md). */
const CONTEXT_VARIABLES = 100;

/**
 * Makes `tc` run once per row of `data`, as `newman run -d` runs each request once per row: the
 * rows become the test case's data set, and its flow the body of an Iteration node over it, after
 * Context nodes that set each column as a variable for the row (Postman's data scope sits above
 * the environment's). A row without a column gives the variable its imported value again (or
 * none), as Newman's lookup falls through to the environment.
 */
function withIterationData(
  tc: ImportedTestCase,
  data: IterationData,
  variables: Record<string, VariableValue>,
  source: string | undefined,
  warnings: ImportNote[],
): void {
  const taken = new Set<string>();
  const collect = (nodes: ImportedNode[]) => {
    for (const n of nodes) {
      taken.add(n.id);
      if (n.type === 'iteration') collect(n.body);
    }
  };
  collect(tc.flow);
  const set: Array<[string, string]> = [];
  for (const column of data.columns) {
    if (column.length > 200 || column.trim() === '') {
      warnings.push({
        at: source ?? 'iteration data',
        message: `column ${JSON.stringify(column.slice(0, 40))} is not set as a variable (an Assay variable name has 1 to 200 characters); pm.iterationData still reads it`,
      });
      continue;
    }
    const read = `$lookup(loop.item, ${JSON.stringify(column)})`;
    const fallback = Object.prototype.hasOwnProperty.call(variables, column)
      ? JSON.stringify(variables[column])
      : undefined;
    const expression =
      fallback !== undefined && fallback.length < 3000 ? `$exists(${read}) ? ${read} : ${fallback}` : read;
    set.push([column, expression]);
  }
  const contexts: ImportedNode[] = [];
  for (let i = 0; i < set.length; i += CONTEXT_VARIABLES) {
    const part = set.slice(i, i + CONTEXT_VARIABLES);
    contexts.push({
      type: 'context',
      id: nodeId(i === 0 ? 'iteration_data_row' : `iteration_data_row_${i / CONTEXT_VARIABLES + 1}`, taken),
      name: 'Iteration data: the row as variables',
      set: Object.fromEntries(part),
    });
  }
  tc.dataSets = [{ name: ITERATION_DATA_SET, type: 'json', data: data.rows }];
  tc.flow = [
    {
      type: 'iteration',
      id: nodeId('iteration_data', taken),
      name: `Iteration data${source ? ` (${source})` : ''}`.slice(0, 200),
      dataSet: ITERATION_DATA_SET,
      as: ITERATION_ITEM,
      body: [...contexts, ...tc.flow],
    },
  ];
}
