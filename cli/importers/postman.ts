/**
 * Postman collection import (docs/import-postman.md): a Collection v2.0/v2.1 (read with Postman's
 * own `postman-collection` SDK) and optionally a Postman environment become Assay test cases, an
 * environment and a runner, in the order and with the variable passing a Newman run has.
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
 *   its Content-Type; urlencoded; form-data text fields as multipart; GraphQL), auth (bearer, basic,
 *   API key, OAuth 2 access token; inherited from folders and collection; `noauth` stops it);
 *   Digest, OAuth 1.0, Hawk and AWS SigV4 auth, `protocolProfileBehavior` and Newman's
 *   `--timeout-request` through cli/importers/postman-request.ts.
 * - scripts (collection → folders → request, as Postman orders them) → the node's `beforeRequest`
 *   / `afterResponse` hooks running the code as written through the `postman` sandbox library
 *   (src/sandbox/postman/pm.js), so `pm.test` results become the node's assertions.
 * - collection variables + environment values (environment wins) → one Assay environment; folder
 *   variables are not imported (Newman 6 ignores them too; the report says so).
 *
 * - scripts: the hooks (postman-scripts.ts); a collection whose scripts call setNextRequest becomes
 *   one test case whose flow dispatches on the next request's name (postman-next-request.ts).
 *
 * Everything that cannot be translated is listed in the report (`untranslated`), never dropped
 * silently: file uploads, other auth types, `pm.vault`, setNextRequest names no request has,
 * scripts that do not parse, …
 */
import { Collection, ItemGroup, type Item, type Request, type RequestAuth } from 'postman-collection';
import { callsSetNextRequest, dispatchFlow, literalNextRequests, type DispatchNode } from './postman-next-request';
import { hookCode, usesCookies } from './postman-scripts';
import type { RequestAuth as NodeAuth } from '../../src/domain/types';
import {
  methodRefusal,
  pruneContentType,
  requestSettings,
  translateAuth,
  type RequestSettings,
} from './postman-request';

/** A test case to create or update (fields of `POST /v1/test-cases`). */
export interface ImportedTestCase {
  name: string;
  folder: string;
  description?: string;
  tags: string[];
  flow: ImportedNode[];
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
    auth?: NodeAuth;
  } & RequestSettings;
  script?: { code: string; libs: string[] };
};

/** An Assay flow node as the importer writes it: API nodes, and the setNextRequest dispatch (postman-next-request.ts). */
export type ImportedNode = ImportedApiNode | DispatchNode<ImportedApiNode>;

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
  environment: { name: string; variables: Record<string, string | number | boolean | Record<string, unknown>> };
  testCases: ImportedTestCase[];
  /** Requests imported, in Newman's run order. */
  requests: number;
  untranslated: ImportNote[];
  warnings: ImportNote[];
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
}

/**
 * A Postman variable's value with its type, as Newman keeps it (a number stays a number, an object
 * an object); an array (which Assay environments do not hold) or an object that reads as an Assay
 * secret (`{"secret": …}`) becomes its JSON text, nothing becomes "".
 */
function variableValue(value: unknown): string | number | boolean | Record<string, unknown> {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (value === null || value === undefined) return '';
  if (typeof value === 'object' && !Array.isArray(value) && !('secret' in value))
    return value as Record<string, unknown>;
  return JSON.stringify(value);
}

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
  basic?: { username: string; password: string };
  auth?: NodeAuth;
}

const MULTIPART_BOUNDARY = '----AssayPostmanImportBoundary7MA4YWxkTrZu0gW';

/** The request of an item as Assay sends it; notes what cannot be carried over. */
function translateRequest(request: Request, item: Item, at: string, notes: ImportNote[]): Translated {
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
        const pairs: string[] = [];
        body.urlencoded?.each((p) => {
          if (p.disabled || !p.key) return;
          pairs.push(`${encodeKeepingVariables(p.key)}=${encodeKeepingVariables(String(p.value ?? ''))}`);
        });
        if (!hasHeader('content-type')) headers['Content-Type'] = 'application/x-www-form-urlencoded';
        out.body = pairs.join('&');
        break;
      }
      case 'formdata': {
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
          if (param.type === 'file') {
            notes.push({
              at,
              message: `form-data file field "${param.key}" is not imported (Assay's API nodes send no files); add the file content as text or use a local request in the console`,
            });
            return;
          }
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
      case 'file':
        notes.push({ at, message: 'binary file body is not imported (Assay API nodes send JSON or text bodies)' });
        break;
      default:
        notes.push({ at, message: `body mode "${body.mode}" is not imported` });
    }
  }

  const auth = authOf(item);
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
        if (p.accessToken && (p.addTokenTo ?? 'header') === 'header') {
          headers.Authorization = `${String(p.headerPrefix ?? 'Bearer')} ${String(p.accessToken)}`.trim();
          notes.push({
            at,
            message:
              'OAuth 2.0: the stored access token is sent as a header; Assay does not fetch or refresh tokens (get one in a Script node or pre-request script)',
          });
        } else notes.push({ at, message: 'OAuth 2.0 auth without a stored access token in a header is not imported' });
        break;
      default: {
        const signed = translateAuth(auth, p, at, notes);
        if (signed) out.auth = signed;
      }
    }
  }
  return out;
}

/** Percent-encodes text but keeps `{{variables}}` as written (they are filled at run time). */
function encodeKeepingVariables(text: string): string {
  return text
    .split(/(\{\{[^{}]+\}\})/)
    .map((part, i) => (i % 2 ? part : encodeURIComponent(part)))
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
 * Converts a collection (parsed JSON of a v2.0/v2.1 export) and optionally an environment export.
 * @throws Error with a one-line reason when `collection` is not a Postman collection.
 */
export function importPostman(
  collectionJson: unknown,
  environmentJson?: unknown,
  options: PostmanImportOptions = {},
): PostmanImport {
  const doc = collectionJson as { info?: { schema?: string; name?: string }; item?: unknown };
  if (!doc || typeof doc !== 'object' || !doc.info || !Array.isArray(doc.item)) {
    throw new Error('not a Postman collection (v2.0 or v2.1): expected an object with "info" and "item"');
  }
  const schema = String(doc.info.schema ?? '');
  if (schema && !/collection\/v2\.[01]\.0/.test(schema))
    throw new Error(
      `unsupported Postman collection schema "${schema}" (v2.0 and v2.1 are supported; export the collection as v2.1)`,
    );
  const collection = new Collection(collectionJson as never);
  const collectionName = collection.name || 'Postman collection';
  const untranslated: ImportNote[] = [];
  const warnings: ImportNote[] = [];

  // Variables: collection's, overlaid by the environment's (Postman: environment wins).
  const variables: Record<string, string | number | boolean | Record<string, unknown>> = {};
  collection.variables.each((v) => {
    if (v.key && !v.disabled) variables[v.key] = variableValue(v.value);
  });
  let envName = options.environmentName;
  if (environmentJson !== undefined) {
    const env = environmentJson as {
      name?: string;
      values?: Array<{ key?: string; value?: unknown; enabled?: boolean }>;
    };
    if (!env || typeof env !== 'object' || !Array.isArray(env.values))
      throw new Error('not a Postman environment export: expected an object with "values"');
    for (const v of env.values) if (v.key && v.enabled !== false) variables[v.key] = variableValue(v.value);
    envName ??= env.name;
  }
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
        warnings.push({
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
  const startTestCase = (name: string, description?: string, scripts: string[] = []) => {
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
    const names = [...relative, item.name];
    const at = pathOf([...scope.names, item.name]);
    const translated = translateRequest(item.request, item, at, untranslated);
    const pre = [...scope.pre, ...scriptOf(item.events as never, 'prerequest')];
    const test = [...scope.test, ...scriptOf(item.events as never, 'test')];
    const settings = requestSettings(item, at, untranslated, options.timeoutRequestMs);
    const written: string[] = [];
    item.request.headers.each((h) => void (!h.disabled && h.key && written.push(h.key)));
    pruneContentType(translated.method, settings, translated.headers, written);
    const script = hookCode(at, item.name, translated, pre, test, envName!, untranslated, {
      cookies: current.cookies,
      nextRequest,
      requestId: rawIds.has(item.id) ? item.id : undefined,
      description: item.request.description?.toString() || undefined,
    });
    const node: ImportedApiNode = {
      type: 'api',
      id: nodeId(item.name, current.ids),
      name: pathOf(names).slice(0, 200),
      request: {
        method: translated.method,
        url: translated.url,
        ...(Object.keys(translated.headers).length ? { headers: translated.headers } : {}),
        ...(translated.body !== undefined ? { body: translated.body } : {}),
        ...settings,
        ...(translated.auth ? { auth: translated.auth } : {}),
      },
      ...(script ? { script } : {}),
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
  const passed: string[] = [];
  for (let i = 0; i < flowsSetsReads.length; i++) {
    for (const name of flowsSetsReads[i]!.sets) {
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
  return {
    collectionName,
    variableScope,
    environment: { name: envName, variables },
    testCases,
    requests,
    untranslated,
    warnings,
  };
}
