/**
 * Bruno collection import (docs/import-bruno.md): a Bruno collection folder (`bruno.json`,
 * `collection.bru`, folders with `folder.bru`, request `.bru` files, `environments/*.bru`), read
 * with Bruno's own parser (`@usebruno/lang`), becomes Assay test cases, a runner, environments,
 * auth profiles and workspace files to upload. Three steps: {@link readBrunoCollection} reads the
 * files (bounded by {@link BRUNO_LIMITS}), {@link parseBrunoCollection} parses them (an error names
 * the file and line), {@link importBruno} converts, pure.
 *
 * Mapping (the Bruno format: https://docs.usebruno.com/bru-lang/overview):
 * - each top-level folder → one test case (its requests by `seq`, then its subfolders', flattened,
 *   nodes named `Sub folder / Request`); the collection's loose requests → one test case named
 *   after the collection; a runner lists them (loose requests first, then folders by `seq`).
 * - request → API node: method, URL (`params:path` filled, enabled `params:query` kept), headers of
 *   the collection, folders and request (later wins), body (json, text, xml, sparql,
 *   form-urlencoded, multipart-form with `@file(...)` parts → workspace files, a file body,
 *   GraphQL as `{query, variables}`), settings (`encodeUrl`, `timeout`, `followRedirects`,
 *   `maxRedirects`); disabled (`~`) entries dropped.
 * - auth (request, else the nearest folder's, else the collection's): basic, bearer, API key and
 *   OAuth 2.0 client credentials / password → auth profiles (as the Postman import makes them,
 *   cli/importers/postman-auth.ts); digest and AWS SigV4 → the node's `request.auth`; the rest
 *   listed.
 * - `vars:pre-request` → Context nodes before the request; `vars:post-response` → the node's
 *   `extract` (a plain `res.…` path) or, else, a `bru.setVar` in its post-response script.
 * - `assert` → assertions ({@link assertionOf}); scripts and tests → hooks through the Bruno
 *   adapter (cli/importers/bruno-scripts.ts).
 * - environments → Assay environments; `vars:secret` names, whose values Bruno keeps out of the
 *   files, are listed and never written as plain values.
 *
 * Everything not carried is listed in the report (`untranslated`), never dropped silently.
 */
import fs from 'node:fs';
import path from 'node:path';
import { bruToEnvJsonV2, bruToJsonV2, collectionBruToJson } from '@usebruno/lang';
import type { Assertion, AssertionOperator, RequestAuth } from '../../src/domain/types';
import { nodeIdFor } from '../../src/importers/node-id';
import { profileSlug, type AuthProfileFields, type ImportedAuthProfile } from './postman-auth';
import { encodeKeepingVariables } from './postman';
import { brunoHookCode, resPath } from './bruno-scripts';

/** Bounds of what is read: `.bru` files, bytes of one, bytes of all, folder depth. */
export const BRUNO_LIMITS = { files: 2000, fileBytes: 1024 * 1024, totalBytes: 32 * 1024 * 1024, depth: 16 };

/** The JSON size of one imported test case at most (below the API's default 1 MiB request body, src/config.ts `maxBodyBytes`). */
export const MAX_TEST_CASE_BYTES = 900 * 1024;

/** Bad input: the command prints the message and exits 2. */
export class BrunoInputError extends Error {}

/** The collection's files as read: `bruno.json` parsed and every `.bru` file's text. */
export interface BrunoSource {
  dir: string;
  config: { name?: unknown; scripts?: { flow?: unknown } } & Record<string, unknown>;
  /** Paths relative to `dir` with `/`, in a stable order. */
  files: Array<{ rel: string; text: string }>;
}

/**
 * Reads the collection in `dir`: `bruno.json` (required) and its `.bru` files, skipping
 * `node_modules` and names starting with `.`. @throws BrunoInputError naming what is wrong (no such
 * folder, no `bruno.json`, a `bruno.json` that is not JSON, more files or bytes than `limits`).
 */
export function readBrunoCollection(dir: string, limits = BRUNO_LIMITS): BrunoSource {
  if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory())
    throw new BrunoInputError(`${dir} is not a folder (a Bruno collection is a folder with a bruno.json)`);
  const configPath = path.join(dir, 'bruno.json');
  if (!fs.existsSync(configPath)) throw new BrunoInputError(`${dir} has no bruno.json: not a Bruno collection folder`);
  let config: BrunoSource['config'];
  try {
    config = JSON.parse(fs.readFileSync(configPath, 'utf8')) as BrunoSource['config'];
  } catch (err) {
    throw new BrunoInputError(`${configPath} is not valid JSON: ${(err as Error).message}`);
  }
  if (!config || typeof config !== 'object') throw new BrunoInputError(`${configPath} is not a JSON object`);
  const files: BrunoSource['files'] = [];
  let total = 0;
  const walk = (abs: string, rel: string, depth: number) => {
    if (depth > limits.depth) throw new BrunoInputError(`${rel}: folders nested deeper than ${limits.depth} levels`);
    const entries = fs.readdirSync(abs, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
    for (const e of entries) {
      if (e.name.startsWith('.') || e.name === 'node_modules') continue;
      const childRel = rel ? `${rel}/${e.name}` : e.name;
      const childAbs = path.join(abs, e.name);
      if (e.isDirectory()) walk(childAbs, childRel, depth + 1);
      else if (e.isFile() && e.name.endsWith('.bru')) {
        if (files.length >= limits.files)
          throw new BrunoInputError(`more than ${limits.files} .bru files: too many for one import`);
        const size = fs.statSync(childAbs).size;
        if (size > limits.fileBytes)
          throw new BrunoInputError(
            `${childRel}: ${size} bytes, more than the ${limits.fileBytes} a .bru file may have`,
          );
        total += size;
        if (total > limits.totalBytes)
          throw new BrunoInputError(
            `the .bru files hold more than ${limits.totalBytes} bytes: too much for one import`,
          );
        files.push({ rel: childRel, text: fs.readFileSync(childAbs, 'utf8') });
      }
    }
  };
  walk(dir, '', 0);
  return { dir, config, files };
}

type Json = Record<string, unknown>;
type Pair = { name: string; value: unknown; enabled?: boolean; type?: string; dataType?: string };

/** A collection parsed: the collection's and folders' settings, the requests, the environments. */
export interface ParsedBruno {
  name: string;
  /** bruno.json `scripts.flow`: `sandwich` (Bruno's default) or `sequential`. */
  flow: 'sandwich' | 'sequential';
  collection: Json;
  /** `folder.bru` of each folder (relative path), `{}` for a folder without one. */
  folders: Map<string, Json>;
  requests: Array<{ rel: string; folder: string; json: Json }>;
  environments: Array<{ name: string; rel: string; variables: Pair[] }>;
}

/** `Line 9, col 8: Expected ":"` from the parser's message (its first and last lines). */
function parseMessage(err: unknown): string {
  const lines = String((err as Error)?.message ?? err)
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  if (lines.length <= 1) return lines[0] ?? 'does not parse';
  return `${lines[0]!.replace(/:$/, '')}: ${lines[lines.length - 1]}`;
}

/**
 * Parses every file of `source` with Bruno's parser. @throws BrunoInputError `file.bru: Line N,
 * col M: Expected …` for the first file that does not parse.
 */
export function parseBrunoCollection(source: BrunoSource): ParsedBruno {
  const parse = <T>(rel: string, fn: (text: string) => T, text: string): T => {
    try {
      return fn(text);
    } catch (err) {
      throw new BrunoInputError(`${rel} does not parse: ${parseMessage(err)}`);
    }
  };
  const out: ParsedBruno = {
    name:
      typeof source.config.name === 'string' && source.config.name.trim()
        ? source.config.name.trim()
        : path.basename(source.dir),
    flow: source.config.scripts?.flow === 'sequential' ? 'sequential' : 'sandwich',
    collection: {},
    folders: new Map(),
    requests: [],
    environments: [],
  };
  for (const f of source.files) {
    const dir = f.rel.includes('/') ? f.rel.slice(0, f.rel.lastIndexOf('/')) : '';
    const base = f.rel.slice(dir ? dir.length + 1 : 0);
    if (f.rel === 'collection.bru') out.collection = parse(f.rel, collectionBruToJson, f.text);
    else if (base === 'folder.bru') out.folders.set(dir, parse(f.rel, collectionBruToJson, f.text));
    else if (dir === 'environments')
      out.environments.push({
        name: base.replace(/\.bru$/, ''),
        rel: f.rel,
        variables: (parse(f.rel, bruToEnvJsonV2, f.text).variables ?? []) as Pair[],
      });
    else out.requests.push({ rel: f.rel, folder: dir, json: parse(f.rel, bruToJsonV2, f.text) });
  }
  for (const r of out.requests) {
    let d = r.folder;
    while (d) {
      if (!out.folders.has(d)) out.folders.set(d, {});
      d = d.includes('/') ? d.slice(0, d.lastIndexOf('/')) : '';
    }
  }
  return out;
}

/** One thing the import could not carry over, or something the user should know (as the Postman import's). */
export interface ImportNote {
  /** Where: `Folder / Request`, the collection's name, or `environments/Name.bru`. */
  at: string;
  message: string;
}

/** An API node as the importer writes it (docs/flows.md). */
export interface BrunoApiNode {
  type: 'api';
  id: string;
  name: string;
  request: {
    method: string;
    url: string;
    headers?: Record<string, string>;
    body?: unknown;
    multipart?: Array<{ name: string; value?: string; file?: string; contentType?: string }>;
    file?: { file: string; contentType?: string };
    auth?: RequestAuth;
    timeoutMs?: number;
    followRedirects?: boolean;
    maxRedirects?: number;
    disableUrlEncoding?: boolean;
  };
  assertions?: Assertion[];
  extract?: Record<string, string>;
  script?: { code: string; libs: string[] };
  authProfile?: string;
}

export type BrunoNode = BrunoApiNode | { type: 'context'; id: string; name: string; set: Record<string, string> };

/** A test case to create or update (fields of `POST /v1/test-cases`). */
export interface BrunoTestCase {
  name: string;
  folder: string;
  description?: string;
  tags: string[];
  flow: BrunoNode[];
  authProfile?: string;
}

/** A workspace file a multipart part or a file body sends: uploaded from the collection folder. */
export interface BrunoUpload {
  /** The workspace file's name: `bruno/<collection>/<path in the collection>`. */
  name: string;
  /** The file on disk (absolute). */
  source: string;
  contentType?: string;
}

/** What a request became: for the per-request report. */
export interface BrunoRequestReport {
  at: string;
  testCase: string;
  node?: string;
  assertions: number;
  extract: number;
  scripts: boolean;
  notCarried: number;
}

export interface BrunoImport {
  collectionName: string;
  environments: Array<{
    name: string;
    from: string;
    variables: Record<string, unknown>;
    secretsWithoutValue: string[];
  }>;
  testCases: BrunoTestCase[];
  authProfiles: ImportedAuthProfile[];
  uploads: BrunoUpload[];
  requests: BrunoRequestReport[];
  untranslated: ImportNote[];
  warnings: ImportNote[];
  ignored: ImportNote[];
}

export interface BrunoImportOptions {
  /** Folder the test cases go in (default: the collection's name). */
  folder?: string;
  /** Environments to import by Bruno name (file name without `.bru`); default all. */
  environments?: string[];
  /** Extra tags (`bruno` is always added). */
  tags?: string[];
  /** The collection folder on disk, to find `@file(...)` parts (default: files are not checked). */
  dir?: string;
}

const text = (v: unknown): string => (v === undefined || v === null ? '' : String(v));
const enabled = <T extends { enabled?: boolean }>(list: unknown): T[] =>
  (Array.isArray(list) ? (list as T[]) : []).filter((p) => p && p.enabled !== false);
const PROCESS_ENV = /\{\{\s*process\.env\.([A-Za-z0-9_]+)\s*\}\}/g;

/** `seq` of a request or folder (`meta.seq`), Infinity when absent. */
function seqOf(json: Json | undefined): number {
  const n = Number((json?.meta as Json | undefined)?.seq);
  return Number.isFinite(n) ? n : Infinity;
}

/** A Bruno `{{template}}` text as JSONata (`"a" & variables.b`): what a Context node sets. */
function templateExpression(value: unknown, dataType?: string): string {
  if (dataType === 'number' || dataType === 'boolean' || typeof value === 'number' || typeof value === 'boolean')
    return JSON.stringify(value);
  if (dataType === 'object' || (value && typeof value === 'object')) return JSON.stringify(value);
  const parts = text(value).split(/\{\{\s*([^{}]+?)\s*\}\}/);
  if (parts.length === 1) return JSON.stringify(parts[0]);
  const terms = parts
    .map((p, i) => (i % 2 ? `variables.\`${p.replace(/`/g, '')}\`` : p ? JSON.stringify(p) : ''))
    .filter(Boolean);
  return terms.join(' & ');
}

/** A Bruno assertion's right side as Bruno reads it (its `evaluateJsTemplateLiteral`): true, false, null, numbers, quoted text, else the text. */
function rhsValue(raw: string): { value?: unknown; variable?: string; unsupported?: string } {
  const t = raw.trim();
  if (t === 'true') return { value: true };
  if (t === 'false') return { value: false };
  if (t === 'null') return { value: null };
  if (t === 'undefined') return { unsupported: 'undefined on the right side' };
  const whole = /^\{\{\s*([^{}]+?)\s*\}\}$/.exec(t);
  if (whole) return { variable: whole[1]! };
  if (/\{\{|\$\{/.test(t)) return { unsupported: `a template in "${t}"` };
  if ((t.startsWith('"') && t.endsWith('"') && t.length > 1) || (t.startsWith("'") && t.endsWith("'") && t.length > 1))
    return { value: t.slice(1, -1) };
  if (t !== '' && !Number.isNaN(Number(t)) && Math.abs(Number(t)) <= Number.MAX_SAFE_INTEGER)
    return { value: Number(t) };
  return { value: t };
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * Bruno's assertion operators (Bruno's assert runtime, packages/bruno-js/src/runtime/assert-runtime.js)
 * and what each becomes: an Assay operator on the target, or a JSONata target compared to a value.
 */
export const BRUNO_OPERATORS: Record<string, string> = {
  eq: 'equals',
  neq: 'notEquals',
  gt: 'greaterThan',
  gte: 'greaterThanOrEqual',
  lt: 'lessThan',
  lte: 'lessThanOrEqual',
  in: 'oneOf',
  notIn: '(target in [values]) equals false',
  contains: 'contains',
  notContains: 'notContains',
  length: '$length or $count of the target equals',
  matches: 'matches',
  notMatches: '$contains(target, /regex/) equals false',
  startsWith: 'matches ^text',
  endsWith: 'matches text$',
  between: 'inRange',
  isEmpty: 'oneOf ["", [], {}]',
  isNotEmpty: '$boolean(target) equals true',
  isNull: 'equals null',
  isUndefined: 'notExists',
  isDefined: 'exists',
  isTruthy: 'equals true',
  isFalsy: 'equals false',
  isJson: '$type(target) oneOf ["object", "array"]',
  isNumber: 'isType number',
  isString: 'isType string',
  isBoolean: 'isType boolean',
  isArray: 'isType array',
};
const UNARY = new Set([
  'isEmpty',
  'isNotEmpty',
  'isNull',
  'isUndefined',
  'isDefined',
  'isTruthy',
  'isFalsy',
  'isJson',
  'isNumber',
  'isString',
  'isBoolean',
  'isArray',
]);

/**
 * One line of an `assert` block (`res.status: eq 200`) as an Assay assertion, or the reason it is
 * not carried. The left side must be a `res` path ({@link resPath}); the right side is read as
 * Bruno reads it (a missing operator is `eq`); `{{var}}` alone compares with the variable.
 */
export function assertionOf(lhs: string, rhsText: string): Assertion | { unsupported: string } {
  const target = resPath(lhs);
  if (!target)
    return {
      unsupported: `assertion on "${lhs}": only res.status, res.body…, res.headers… and res.responseTime are carried`,
    };
  const [word = '', ...rest] = rhsText.trim().split(' ');
  const operator = word in BRUNO_OPERATORS ? word : 'eq';
  const operand = operator === word ? rest.join(' ') : rhsText;
  const name = `${lhs}: ${rhsText.trim()}`.slice(0, 200);
  const make = (t: string, op: AssertionOperator, expected?: unknown): Assertion =>
    ({
      name,
      target: t,
      operator: op,
      ...(expected !== undefined || op === 'equals' ? { expected } : {}),
    }) as Assertion;
  if (UNARY.has(operator)) {
    switch (operator) {
      case 'isEmpty':
        return make(target, 'oneOf', ['', [], {}]);
      case 'isNotEmpty':
        return make(`$boolean(${target})`, 'equals', true);
      case 'isNull':
        return make(target, 'equals', null);
      case 'isUndefined':
        return make(target, 'notExists');
      case 'isDefined':
        return make(target, 'exists');
      case 'isTruthy':
        return make(target, 'equals', true);
      case 'isFalsy':
        return make(target, 'equals', false);
      case 'isJson':
        return make(`$type(${target})`, 'oneOf', ['object', 'array']);
      default:
        return make(target, 'isType', operator.slice(2).toLowerCase());
    }
  }
  if (operator === 'in' || operator === 'notIn' || operator === 'between') {
    const list = operand
      .trim()
      .replace(/^\[(.*)\]$/s, '$1')
      .split(',')
      .map((v) => rhsValue(v));
    const bad = list.find((v) => v.unsupported || v.variable);
    if (bad) return { unsupported: `assertion "${name}": ${bad.unsupported ?? 'a variable in a list'} is not carried` };
    const values = list.map((v) => v.value);
    if (operator === 'in') return make(target, 'oneOf', values);
    if (operator === 'notIn') return make(`(${target}) in ${JSON.stringify(values)}`, 'equals', false);
    if (values.length !== 2) return { unsupported: `assertion "${name}": between takes two values` };
    return make(target, 'inRange', values);
  }
  if (operator === 'matches' || operator === 'notMatches') {
    const source = operand.trim().replace(/^\/(.*)\/$/s, '$1');
    if (/\{\{/.test(source))
      return { unsupported: `assertion "${name}": a template in a regular expression is not carried` };
    if (operator === 'matches') return make(target, 'matches', source);
    return make(`$contains($string(${target}), /${source.replace(/\//g, '\\/')}/)`, 'equals', false);
  }
  if (operand.trim() === 'undefined' && (operator === 'eq' || operator === 'neq'))
    return make(target, operator === 'eq' ? 'notExists' : 'exists');
  const rhs = rhsValue(operand);
  if (rhs.unsupported) return { unsupported: `assertion "${name}": ${rhs.unsupported} is not carried` };
  if (rhs.variable !== undefined) {
    const variable = `variables.\`${rhs.variable.replace(/`/g, '')}\``;
    const compare: Record<string, string> = { eq: '=', neq: '!=', gt: '>', gte: '>=', lt: '<', lte: '<=' };
    if (compare[operator]) return make(`(${target}) ${compare[operator]} ${variable}`, 'equals', true);
    if (operator === 'contains' || operator === 'notContains')
      return make(`$contains($string(${target}), ${variable})`, 'equals', operator === 'contains');
    return { unsupported: `assertion "${name}": a variable with ${operator} is not carried` };
  }
  const value = rhs.value;
  switch (operator) {
    case 'length':
      return make(`$type(${target}) = "string" ? $length(${target}) : $count(${target})`, 'equals', value);
    case 'startsWith':
      return make(target, 'matches', `^${escapeRegex(text(value))}`);
    case 'endsWith':
      return make(target, 'matches', `${escapeRegex(text(value))}$`);
    default:
      return make(target, BRUNO_OPERATORS[operator] as AssertionOperator, value);
  }
}

/** Where an auth is written, to name its profile. */
interface AuthSource {
  mode: string;
  data: Json;
  /** Folder names (and the request's name) from the collection down; empty for the collection. */
  path: string[];
}

/** A folder path's display names (`folder.bru` `meta.name`, else the directory name). */
function folderNames(parsed: ParsedBruno, dir: string): string[] {
  if (!dir) return [];
  const names: string[] = [];
  let acc = '';
  for (const seg of dir.split('/')) {
    acc = acc ? `${acc}/${seg}` : seg;
    names.push(text((parsed.folders.get(acc)?.meta as Json | undefined)?.name) || seg);
  }
  return names;
}

/** Directories from the top (`a`, `a/b`) down to `dir`. */
function ancestors(dir: string): string[] {
  if (!dir) return [];
  const segs = dir.split('/');
  return segs.map((_, i) => segs.slice(0, i + 1).join('/'));
}

/** The auth a request is sent with: its own unless `inherit`, else the nearest folder's, else the collection's. */
function resolveAuth(parsed: ParsedBruno, req: { folder: string; json: Json }, names: string[]): AuthSource {
  const own = text((req.json.http as Json | undefined)?.auth) || 'none';
  if (own !== 'inherit') return { mode: own, data: (req.json.auth as Json | undefined) ?? {}, path: names };
  return resolveFolderAuth(parsed, req.folder);
}

function resolveFolderAuth(parsed: ParsedBruno, dir: string): AuthSource {
  const dirs = ancestors(dir).reverse();
  for (const d of dirs) {
    const auth = parsed.folders.get(d)?.auth as Json | undefined;
    const mode = text(auth?.mode);
    if (mode && mode !== 'inherit') return { mode, data: auth!, path: folderNames(parsed, d) };
  }
  const auth = parsed.collection.auth as Json | undefined;
  return { mode: text(auth?.mode) || 'none', data: auth ?? {}, path: [] };
}

/** The profile fields of a Bruno auth, or the node auth, or a note; undefined for `none`. */
function translateAuth(
  source: AuthSource,
  at: string,
  notes: ImportNote[],
  warnings: ImportNote[],
): { profile?: AuthProfileFields; node?: RequestAuth } | undefined {
  const d = (source.data[source.mode] ?? {}) as Json;
  const empty = (what: string) => {
    warnings.push({ at, message: `${what}: sent without auth` });
    return undefined;
  };
  switch (source.mode) {
    case 'none':
      return undefined;
    // An auth profile needs its credentials: without them the request is sent without auth (a warning).
    case 'basic':
      if (!text(d.username) || !text(d.password)) return empty('basic auth without a username and a password');
      return { profile: { type: 'basic', username: text(d.username), password: text(d.password) } };
    case 'bearer':
      if (!text(d.token)) return empty('bearer auth without a token');
      return { profile: { type: 'bearer', token: text(d.token) } };
    case 'apikey':
      if (!text(d.key) || !text(d.value)) return empty('API key auth without a key and a value');
      return {
        profile: {
          type: 'apiKey',
          name: text(d.key),
          value: text(d.value),
          in: text(d.placement) === 'queryparams' ? 'query' : 'header',
        },
      };
    case 'digest':
      return { node: { type: 'digest', username: text(d.username), password: text(d.password) } };
    case 'awsv4': {
      if (text(d.profileName))
        notes.push({
          at,
          message: `AWS SigV4 profile name "${text(d.profileName)}" is not carried (the keys written are used)`,
        });
      return {
        node: {
          type: 'awsv4',
          accessKeyId: text(d.accessKeyId),
          secretAccessKey: text(d.secretAccessKey),
          ...(text(d.sessionToken) ? { sessionToken: text(d.sessionToken) } : {}),
          ...(text(d.region) ? { region: text(d.region) } : {}),
          ...(text(d.service) ? { service: text(d.service) } : {}),
        },
      };
    }
    case 'oauth2': {
      const grant = text(d.grantType);
      if (grant !== 'client_credentials' && grant !== 'password') {
        notes.push({
          at,
          message: `OAuth 2.0 grant "${grant || 'unset'}" is not carried: an auth profile fetches tokens with client_credentials and password`,
        });
        return undefined;
      }
      if (!text(d.accessTokenUrl) || !text(d.clientId)) {
        notes.push({
          at,
          message: `OAuth 2.0 ${grant} without ${text(d.accessTokenUrl) ? 'a client id' : 'an access token URL'} is not carried`,
        });
        return undefined;
      }
      if (text(d.tokenPlacement) && text(d.tokenPlacement) !== 'header')
        notes.push({
          at,
          message: 'OAuth 2.0 token placement in the URL is not carried: the profile sends it as a header',
        });
      const prefix = text(d.tokenHeaderPrefix);
      if (prefix && prefix.toLowerCase() !== 'bearer')
        notes.push({ at, message: `OAuth 2.0 header prefix "${prefix}" is not carried: the profile sends "Bearer"` });
      const scopes = text(d.scope).split(/\s+/).filter(Boolean);
      return {
        profile: {
          type: 'oauth2',
          grant: grant === 'password' ? 'password' : 'client_credentials',
          tokenUrl: text(d.accessTokenUrl),
          clientId: text(d.clientId),
          ...(text(d.clientSecret) ? { clientSecret: text(d.clientSecret) } : {}),
          ...(scopes.length ? { scopes } : {}),
          clientAuthentication: text(d.credentialsPlacement) === 'basic_auth_header' ? 'basic' : 'body',
          ...(grant === 'password' ? { username: text(d.username), password: text(d.password) } : {}),
        },
      };
    }
    default:
      notes.push({
        at,
        message: `${source.mode} auth is not carried (Assay signs basic, bearer, API key, OAuth 2.0, digest and AWS SigV4)`,
      });
      return undefined;
  }
}

/** Content types of Bruno's text body modes. */
const BODY_TYPES: Record<string, string> = {
  json: 'application/json',
  text: 'text/plain',
  xml: 'application/xml',
  sparql: 'application/sparql-query',
};

/**
 * Converts a parsed collection. Pure but for `options.dir`, where `@file(...)` parts are looked
 * up (a missing file is listed). @throws BrunoInputError when `options.environments` names an
 * environment the collection does not have.
 */
export function importBruno(parsed: ParsedBruno, options: BrunoImportOptions = {}): BrunoImport {
  const collectionName = parsed.name;
  const slugName = profileSlug(collectionName);
  const untranslated: ImportNote[] = [];
  const warnings: ImportNote[] = [];
  const ignored: ImportNote[] = [];
  const uploads: BrunoUpload[] = [];
  const reports: BrunoRequestReport[] = [];
  const baseFolder =
    (options.folder ?? collectionName)
      .replace(/\\/g, '/')
      .split('/')
      .map((s) => s.trim())
      .filter(Boolean)
      .join(' - ')
      .slice(0, 200) || 'bruno';
  const tags = [...new Set(['bruno', ...(options.tags ?? [])])];

  // Environments.
  const wanted = options.environments;
  if (wanted) {
    const missing = wanted.filter((w) => !parsed.environments.some((e) => e.name === w));
    if (missing.length)
      throw new BrunoInputError(
        `no environment ${missing.map((m) => JSON.stringify(m)).join(', ')} in the collection (it has: ${parsed.environments.map((e) => e.name).join(', ') || 'none'})`,
      );
  }
  const environments: BrunoImport['environments'] = [];
  for (const env of parsed.environments) {
    if (wanted && !wanted.includes(env.name)) continue;
    const variables: Record<string, unknown> = {};
    const secretsWithoutValue: string[] = [];
    for (const v of env.variables as Array<Pair & { secret?: boolean }>) {
      if (!v || !v.name || v.enabled === false) continue;
      const value = v.value;
      if (v.secret) {
        if (text(value).length >= 4) variables[v.name] = { value: text(value), secret: true };
        else secretsWithoutValue.push(v.name);
        continue;
      }
      if (typeof value === 'string' && PROCESS_ENV.test(value))
        untranslated.push({
          at: env.rel,
          message: `${v.name} reads ${value.match(PROCESS_ENV)!.join(', ')}: a run has no process environment; set the variable's value instead`,
        });
      PROCESS_ENV.lastIndex = 0;
      variables[v.name] =
        value && typeof value === 'object' ? JSON.stringify(value) : (value as string | number | boolean);
    }
    if (secretsWithoutValue.length)
      warnings.push({
        at: env.rel,
        message: `secret variables ${secretsWithoutValue.join(', ')}: Bruno keeps their values out of the collection; set them as secrets (PATCH /v1/environments/NAME, docs/secrets.md); the import never writes them`,
      });
    environments.push({ name: profileSlug(env.name), from: env.rel, variables, secretsWithoutValue });
  }

  // Auth profiles, one per distinct auth (cli/importers/postman-auth.ts ProfileRegistry's rule).
  const profiles: ImportedAuthProfile[] = [];
  const profileFor = (fields: AuthProfileFields, source: AuthSource): string => {
    const key = JSON.stringify(fields);
    const same = profiles.find((p) => JSON.stringify(p.fields) === key);
    if (same) return same.name;
    const base = profileSlug([collectionName, ...source.path].map(profileSlug).join('.')).slice(0, 96);
    let name = base;
    for (let n = 2; profiles.some((p) => p.name === name); n++) name = `${base}-${n}`;
    const where = source.path.length ? `"${source.path.join(' / ')}"` : `the collection "${collectionName}"`;
    profiles.push({
      name,
      description: `Imported from Bruno: the ${source.mode} auth of ${where}`.slice(0, 500),
      fields,
      from: source.path.length ? source.path.join(' / ') : 'collection',
    });
    return name;
  };
  const notedAuth = new Set<string>();
  const authOf = (source: AuthSource) => {
    const key = `${source.mode}@${source.path.join('/')}`;
    const notes: ImportNote[] = [];
    const cautions: ImportNote[] = [];
    const t = translateAuth(source, source.path.length ? source.path.join(' / ') : collectionName, notes, cautions);
    if (!notedAuth.has(key)) {
      untranslated.push(...notes);
      warnings.push(...cautions);
    }
    notedAuth.add(key);
    return { profile: t?.profile ? profileFor(t.profile, source) : undefined, node: t?.node };
  };

  // Collection-wide pieces.
  const col = parsed.collection;
  const scriptsOf = (json: Json | undefined, which: 'req' | 'res'): string[] => {
    const code = text((json?.script as Json | undefined)?.[which]);
    return code.trim() ? [code] : [];
  };
  const testsOf = (json: Json | undefined): string[] => (text(json?.tests).trim() ? [text(json?.tests)] : []);
  if (text(col.docs).trim()) ignored.push({ at: collectionName, message: 'the collection docs' });
  for (const [dir, folder] of parsed.folders)
    if (text(folder.docs).trim())
      ignored.push({ at: folderNames(parsed, dir).join(' / '), message: 'the folder docs' });

  const testCases: BrunoTestCase[] = [];
  const byCase = new Map<string, { tc: BrunoTestCase; ids: Set<string>; requests: ParsedBruno['requests'] }>();
  const topOf = (folder: string) => (folder ? folder.split('/')[0]! : '');
  const tops = [...new Set(parsed.requests.map((r) => topOf(r.folder)))].sort((a, b) => {
    if (!a || !b) return a ? 1 : -1;
    const sa = seqOf(parsed.folders.get(a));
    const sb = seqOf(parsed.folders.get(b));
    return sa !== sb ? sa - sb : a.localeCompare(b);
  });
  for (const top of tops) {
    const display = top ? folderNames(parsed, top)[0]! : collectionName;
    const taken = new Set(testCases.map((t) => t.name));
    let name = display.slice(0, 200) || 'requests';
    for (let n = 2; taken.has(name); n++) name = `${display.slice(0, 190)} (${n})`;
    const docs = text(top ? parsed.folders.get(top)?.docs : '');
    const tc: BrunoTestCase = {
      name,
      folder: baseFolder,
      tags,
      flow: [],
      ...(docs.trim() ? { description: docs.slice(0, 2000) } : {}),
    };
    testCases.push(tc);
    // Requests of a folder by seq then name, then its subfolders (by seq, then name), depth first.
    const inCase = parsed.requests.filter((r) => topOf(r.folder) === top);
    const order = (dir: string): ParsedBruno['requests'] => {
      const own = inCase
        .filter((r) => r.folder === dir)
        .sort((a, b) => seqOf(a.json) - seqOf(b.json) || a.rel.localeCompare(b.rel));
      const depth = dir.split('/').length;
      const subs = [
        ...new Set(
          inCase
            .filter((r) => r.folder.startsWith(`${dir}/`))
            .map((r) =>
              r.folder
                .split('/')
                .slice(0, depth + 1)
                .join('/'),
            ),
        ),
      ].sort((a, b) => seqOf(parsed.folders.get(a)) - seqOf(parsed.folders.get(b)) || a.localeCompare(b));
      return [...own, ...subs.flatMap(order)];
    };
    byCase.set(top, {
      tc,
      ids: new Set(),
      requests: top ? order(top) : inCase.sort((a, b) => seqOf(a.json) - seqOf(b.json) || a.rel.localeCompare(b.rel)),
    });
    if (top) {
      const auth = resolveFolderAuth(parsed, top);
      const ref = authOf(auth);
      if (ref.profile) tc.authProfile = ref.profile;
    } else {
      const ref = authOf(resolveFolderAuth(parsed, ''));
      if (ref.profile) tc.authProfile = ref.profile;
    }
  }

  const envName = environments[0]?.name ?? '';
  for (const top of tops) {
    const { tc, ids, requests } = byCase.get(top)!;
    // Collection variables sit below the environment's in Bruno: set only when the run has none of that name.
    const colVars = enabled<Pair>((col.vars as Json | undefined)?.req);
    const topVars = top ? enabled<Pair>((parsed.folders.get(top)?.vars as Json | undefined)?.req) : [];
    const startSet: Record<string, string> = {};
    for (const v of colVars) {
      const value = templateExpression(v.value, v.dataType);
      startSet[v.name] =
        `$exists(variables.\`${v.name.replace(/`/g, '')}\`) ? variables.\`${v.name.replace(/`/g, '')}\` : ${value}`;
    }
    for (const v of topVars) startSet[v.name] = templateExpression(v.value, v.dataType);
    if (Object.keys(startSet).length) {
      ids.add('collection-vars');
      tc.flow.push({
        type: 'context',
        id: 'collection-vars',
        name: 'Collection and folder variables (vars:pre-request)',
        set: startSet,
      });
    }
    for (const req of requests) {
      const json = req.json;
      const meta = (json.meta ?? {}) as Json;
      const reqName = text(meta.name) || req.rel.replace(/\.bru$/, '');
      const folderPath = folderNames(parsed, req.folder);
      const at = [...folderPath, reqName].join(' / ');
      const relative = [...folderPath.slice(top ? 1 : 0), reqName].join(' / ');
      const before = untranslated.length;
      const http = json.http as Json | undefined;
      if (!http) {
        const type = text(meta.type) || 'unknown';
        untranslated.push({
          at,
          message: `a ${type} request is not carried (Assay imports http and graphql requests)`,
        });
        reports.push({ at, testCase: tc.name, assertions: 0, extract: 0, scripts: false, notCarried: 1 });
        continue;
      }
      const method = text(http.method || 'get').toUpperCase();
      const node = translateRequest(req, at, method, untranslated, uploads, options.dir, slugName);
      // Inherited headers: the collection's, the folders' (top down), the request's own (later wins).
      const headers: Record<string, string> = {};
      const put = (list: unknown) => {
        for (const h of enabled<Pair>(list)) {
          for (const k of Object.keys(headers)) if (k.toLowerCase() === h.name.toLowerCase()) delete headers[k];
          headers[h.name] = text(h.value);
        }
      };
      put(col.headers);
      for (const d of ancestors(req.folder)) put(parsed.folders.get(d)?.headers);
      put(json.headers);
      for (const k of Object.keys(node.headers))
        if (!Object.keys(headers).some((h) => h.toLowerCase() === k.toLowerCase())) headers[k] = node.headers[k]!;
      // Auth.
      const auth = resolveAuth(parsed, req, [...folderPath, reqName]);
      const ref = authOf(auth);
      const own = ref.profile ?? 'none';
      const authProfile = own !== (tc.authProfile ?? 'none') ? own : undefined;
      // Variables before the request: subfolders' and the request's own.
      const set: Record<string, string> = {};
      for (const d of ancestors(req.folder).slice(1))
        for (const v of enabled<Pair>((parsed.folders.get(d)?.vars as Json | undefined)?.req))
          set[v.name] = templateExpression(v.value, v.dataType);
      for (const v of enabled<Pair>((json.vars as Json | undefined)?.req))
        set[v.name] = templateExpression(v.value, v.dataType);
      if (Object.keys(set).length) {
        const id = nodeIdFor('vars', reqName, ids);
        ids.add(id);
        tc.flow.push({ type: 'context', id, name: `${relative} (vars:pre-request)`.slice(0, 200), set });
      }
      // Assertions.
      const assertions: Assertion[] = [];
      for (const a of enabled<Pair>(json.assertions)) {
        const r = assertionOf(a.name, text(a.value));
        if ('unsupported' in r) untranslated.push({ at, message: r.unsupported });
        else assertions.push(r);
      }
      // Scripts: pre-request collection → folders → request; after the response, Bruno's flow
      // (sandwich: request → folders → collection; sequential: collection first).
      const folderJsons = ancestors(req.folder).map((d) => parsed.folders.get(d));
      const pre = [
        ...scriptsOf(col, 'req'),
        ...folderJsons.flatMap((f) => scriptsOf(f, 'req')),
        ...scriptsOf(json, 'req'),
      ];
      const down = [col, ...folderJsons, json];
      const postOrder = parsed.flow === 'sequential' ? down : [...down].reverse();
      const post = [...postOrder.flatMap((j) => scriptsOf(j, 'res')), ...postOrder.flatMap((j) => testsOf(j))];
      // Post-response variables: a plain res path → extract; else a bru.setVar before the scripts.
      const extract: Record<string, string> = {};
      const setLines: string[] = [];
      for (const v of enabled<Pair>((json.vars as Json | undefined)?.res)) {
        const expr = text(v.value);
        const target = resPath(expr);
        const readByScript = post.some((c) => c.includes(v.name));
        if (target && !readByScript) extract[v.name] = target;
        else setLines.push(`bru.setVar(${JSON.stringify(v.name)}, (${expr}));`);
      }
      if (setLines.length) post.unshift(setLines.join('\n'));
      const script = brunoHookCode(
        at,
        reqName,
        { method, url: node.url, headers, ...(node.body !== undefined ? { body: node.body } : {}) },
        pre,
        post,
        envName,
        untranslated,
      );
      for (const value of [node.url, ...Object.values(headers), typeof node.body === 'string' ? node.body : ''])
        for (const m of value.matchAll(PROCESS_ENV))
          untranslated.push({
            at,
            message: `{{process.env.${m[1]}}} is not filled: a run has no process environment; use a variable`,
          });
      if (text(json.docs).trim()) ignored.push({ at, message: 'the request docs' });
      const id = nodeIdFor(method, node.url, ids);
      ids.add(id);
      const apiNode: BrunoApiNode = {
        type: 'api',
        id,
        name: relative.slice(0, 200),
        request: {
          method,
          url: node.url,
          ...(Object.keys(headers).length ? { headers } : {}),
          ...(node.body !== undefined ? { body: node.body } : {}),
          ...(node.multipart ? { multipart: node.multipart } : {}),
          ...(node.file ? { file: node.file } : {}),
          ...node.settings,
          ...(ref.node ? { auth: ref.node } : {}),
        },
        ...(assertions.length ? { assertions } : {}),
        ...(Object.keys(extract).length ? { extract } : {}),
        ...(script ? { script } : {}),
        ...(authProfile ? { authProfile } : {}),
      };
      tc.flow.push(apiNode);
      reports.push({
        at,
        testCase: tc.name,
        node: id,
        assertions: assertions.length,
        extract: Object.keys(extract).length,
        scripts: Boolean(script),
        notCarried: untranslated.length - before,
      });
    }
  }
  // A test case is saved in one request body (ASSAY_MAX_BODY_BYTES, default 1 MiB): a larger one is
  // split into parts run one after the other (the runner shares variables across them).
  for (const tc of [...testCases]) {
    if (JSON.stringify(tc).length <= MAX_TEST_CASE_BYTES) continue;
    const parts: BrunoNode[][] = [[]];
    let size = 0;
    for (const node of tc.flow) {
      const n = JSON.stringify(node).length + 1;
      if (size + n > MAX_TEST_CASE_BYTES - 10_000 && parts[parts.length - 1]!.length) {
        parts.push([]);
        size = 0;
      }
      parts[parts.length - 1]!.push(node);
      size += n;
    }
    const at = testCases.indexOf(tc);
    const split = parts.map((flow, i) => ({ ...tc, name: `${tc.name.slice(0, 190)} (${i + 1})`, flow }));
    testCases.splice(at, 1, ...split);
    for (const r of reports)
      if (r.testCase === tc.name)
        r.testCase = split.find((p) => p.flow.some((n) => n.id === r.node))?.name ?? r.testCase;
    warnings.push({
      at: tc.name,
      message: `${JSON.stringify(tc).length} bytes of flow, more than one test case holds (${MAX_TEST_CASE_BYTES}): split into ${parts.length} test cases run in order`,
    });
  }
  for (const tc of [...testCases])
    if (!tc.flow.some((n) => n.type === 'api')) {
      testCases.splice(testCases.indexOf(tc), 1);
      warnings.push({ at: tc.name, message: 'no request Assay can send; no test case made' });
    }
  return {
    collectionName,
    environments,
    testCases,
    authProfiles: profiles,
    uploads,
    requests: reports,
    untranslated,
    warnings,
    ignored,
  };
}

interface TranslatedRequest {
  url: string;
  headers: Record<string, string>;
  body?: unknown;
  multipart?: NonNullable<BrunoApiNode['request']['multipart']>;
  file?: { file: string; contentType?: string };
  settings: Pick<BrunoApiNode['request'], 'timeoutMs' | 'followRedirects' | 'maxRedirects' | 'disableUrlEncoding'>;
}

/** The workspace file name of a collection file (`bruno/<collection>/<path>`), or undefined when the path leaves the collection. */
function uploadName(slugName: string, rel: string): string | undefined {
  const clean = path.posix.normalize(rel.replace(/\\/g, '/'));
  if (path.posix.isAbsolute(clean) || clean.startsWith('..')) return undefined;
  const name = `bruno/${slugName}/${clean.replace(/[^A-Za-z0-9_./-]/g, '_')}`;
  return name.length <= 200 ? name : undefined;
}

function translateRequest(
  req: { rel: string; json: Json },
  at: string,
  method: string,
  notes: ImportNote[],
  uploads: BrunoUpload[],
  dir: string | undefined,
  slugName: string,
): TranslatedRequest {
  const json = req.json;
  const http = json.http as Json;
  let url = text(http.url).trim();
  const params = Array.isArray(json.params) ? (json.params as Pair[]) : [];
  for (const p of params.filter((x) => x.type === 'path' && x.enabled !== false))
    url = url.replace(
      new RegExp(`/:${p.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?=/|\\?|#|$)`, 'g'),
      `/${text(p.value)}`,
    );
  const inUrl = new Set(
    [...url.replace(/#.*$/, '').split('?').slice(1).join('?').split('&')].map((kv) =>
      decodeURIComponent(kv.split('=')[0] ?? ''),
    ),
  );
  const missing = params.filter((p) => p.type === 'query' && p.enabled !== false && !inUrl.has(p.name));
  for (const p of missing)
    url += `${url.includes('?') ? '&' : '?'}${encodeKeepingVariables(p.name)}=${encodeKeepingVariables(text(p.value))}`;
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url) && !/^\{\{/.test(url)) url = `http://${url}`;
  const out: TranslatedRequest = { url, headers: {}, settings: {} };
  const mode = text(http.body) || 'none';
  const body = (json.body ?? {}) as Json;
  const contentType = (t: string) => (out.headers['Content-Type'] = t);
  switch (mode) {
    case 'none':
      break;
    case 'json':
    case 'text':
    case 'xml':
    case 'sparql': {
      const raw = text(body[mode]);
      if (!raw) break;
      contentType(BODY_TYPES[mode]!);
      if (mode === 'json') {
        try {
          const v: unknown = JSON.parse(raw);
          out.body = v !== null && typeof v === 'object' ? v : raw;
        } catch {
          out.body = raw;
        }
      } else out.body = raw;
      break;
    }
    case 'formUrlEncoded': {
      const pairs = enabled<Pair>(body.formUrlEncoded).map(
        (p) => `${encodeKeepingVariables(p.name)}=${encodeKeepingVariables(text(p.value))}`,
      );
      contentType('application/x-www-form-urlencoded');
      out.body = pairs.join('&');
      break;
    }
    case 'multipartForm': {
      const parts: NonNullable<TranslatedRequest['multipart']> = [];
      for (const p of enabled<Pair & { contentType?: string }>(body.multipartForm)) {
        if (p.type === 'file') {
          for (const f of Array.isArray(p.value) ? (p.value as unknown[]) : [p.value]) {
            const file = addUpload(text(f), at, notes, uploads, dir, slugName, p.contentType);
            if (file) parts.push({ name: p.name, file, ...(p.contentType ? { contentType: p.contentType } : {}) });
          }
        } else {
          if (p.contentType)
            notes.push({
              at,
              message: `multipart text part "${p.name}": its Content-Type ${p.contentType} is not sent (Assay sends text parts without one)`,
            });
          parts.push({ name: p.name, value: text(p.value) });
        }
      }
      if (parts.length > 100)
        notes.push({ at, message: `${parts.length} multipart parts: Assay sends at most 100; the rest are dropped` });
      if (parts.length) out.multipart = parts.slice(0, 100);
      break;
    }
    case 'file': {
      const chosen = (Array.isArray(body.file) ? (body.file as Json[]) : []).find((f) => f.selected !== false);
      if (!chosen) break;
      const file = addUpload(
        text(chosen.filePath),
        at,
        notes,
        uploads,
        dir,
        slugName,
        text(chosen.contentType) || undefined,
      );
      if (file) out.file = { file, ...(text(chosen.contentType) ? { contentType: text(chosen.contentType) } : {}) };
      break;
    }
    case 'graphql': {
      const g = (body.graphql ?? {}) as Json;
      let variables: unknown;
      if (text(g.variables).trim()) {
        try {
          variables = JSON.parse(text(g.variables));
        } catch {
          notes.push({ at, message: 'GraphQL variables are not valid JSON; sent without them' });
        }
      }
      contentType('application/json');
      out.body = variables === undefined ? { query: text(g.query) } : { query: text(g.query), variables };
      break;
    }
    default:
      notes.push({ at, message: `body mode "${mode}" is not carried` });
  }
  const s = (json.settings ?? {}) as Json;
  if (s.encodeUrl === false) out.settings.disableUrlEncoding = true;
  const timeout = Number(s.timeout);
  if (Number.isInteger(timeout) && timeout > 0) out.settings.timeoutMs = timeout;
  if (s.followRedirects === false) out.settings.followRedirects = false;
  const max = Number(s.maxRedirects);
  if (s.maxRedirects !== undefined && Number.isInteger(max) && max >= 0) out.settings.maxRedirects = max;
  return out;
}

/** Registers the upload of a collection file a request sends; its workspace name, or undefined (noted) when it cannot be. */
function addUpload(
  rel: string,
  at: string,
  notes: ImportNote[],
  uploads: BrunoUpload[],
  dir: string | undefined,
  slugName: string,
  contentType?: string,
): string | undefined {
  const name = uploadName(slugName, rel);
  if (!name) {
    notes.push({ at, message: `file ${rel}: only files inside the collection folder are uploaded` });
    return undefined;
  }
  if (dir) {
    const source = path.join(dir, rel);
    if (!fs.statSync(source, { throwIfNoEntry: false })?.isFile()) {
      notes.push({ at, message: `file ${rel} is not in the collection folder` });
      return undefined;
    }
    if (!uploads.some((u) => u.name === name)) uploads.push({ name, source, ...(contentType ? { contentType } : {}) });
  }
  return name;
}
