/**
 * An Insomnia export (v4 JSON/YAML or v5 collection YAML, read by cli/importers/insomnia-format.ts)
 * as Assay test cases, an environment, auth profiles and a runner, for `assay import insomnia`
 * (docs/import-insomnia.md). Pure: the parsed document in, the records to save and a report per
 * request out; cli/commands/import-insomnia.ts reads files and talks to the API.
 *
 * Rules (each tested in test/unit/import-insomnia.test.ts):
 * - Each top-level folder is a test case (subfolders flattened, nodes named `Sub / Request`), the
 *   requests outside folders one more named after the workspace, in Insomnia's order; with
 *   `singleTestCase` the whole workspace is one. A runner lists them.
 * - A request is an API node (id from src/importers/node-id.ts): method, URL (`http://` added when
 *   it has no scheme, as Insomnia does), enabled headers (its folders' first, its own winning),
 *   enabled query `parameters`, `:name` path parameters, body, `followRedirects`,
 *   `disableUrlEncoding`. Templates are converted by cli/importers/insomnia-templates.ts.
 * - Bodies: JSON text that parses is a JSON body, other text is sent as written with its
 *   `mimeType`; GraphQL is sent as its JSON; form-urlencoded `params` are encoded (templates kept);
 *   multipart `params` become `request.multipart`, file parts only when `fileAvailable` says the
 *   file is at hand (uploaded as workspace file {@link workspaceFileName}); a file body likewise
 *   becomes `request.file`.
 * - Environments: the base environment overlaid, key by key, by the chosen sub-environment (default
 *   the first); string values referring to other variables of it are resolved. A folder's
 *   environment is a Context node at the start of its requests.
 * - `{% response %}` tags: the referenced request's node gets an `extract` of the value into a
 *   variable and the tag becomes `{{variable}}`; the referenced request must run earlier (else
 *   reported); across test cases the runner shares variables (`variableScope: "run"`).
 * - Auth (the request's, else the nearest folder's): basic, bearer, API key (header, query), OAuth
 *   2.0 client credentials and password → auth profiles; digest, OAuth 1.0, Hawk, AWS IAM → the
 *   node's `request.auth`; literal secrets go to secret variables of the environment, never into
 *   test cases or profiles; the rest is reported.
 * - Unit tests of the form `const r = await insomnia.send(); expect(r.status).to.equal(200)` become
 *   `response.status equals` assertions of their request's node; other unit tests, scripts, gRPC,
 *   WebSocket, Socket.IO and MCP requests are reported.
 */
import type { MultipartPart, RequestAuth } from '../../src/domain/types';
import { BODYLESS_METHODS, METHOD_TOKEN_PATTERN } from '../../src/domain/types';
import { nodeIdFor } from '../../src/importers/node-id';
import { MAX_FLOW_NODES, MAX_MULTIPART_PARTS } from '../../src/validation/flow-schemas';
import { SECRET_HEADERS, workspaceFileName } from './har';
import type { AuthProfileFields, ImportedAuthProfile } from './postman-auth';
import { profileSlug } from './postman-auth';
import type {
  InsomniaAuth,
  InsomniaDocument,
  InsomniaFolder,
  InsomniaItem,
  InsomniaPair,
  InsomniaRequest,
} from './insomnia-format';
import { convertTemplate, jsonPathToJsonata, type ResponseTag } from './insomnia-templates';

/** The tag every imported test case carries. */
export const INSOMNIA_TAG = 'insomnia';

/** A secret or plain variable of the environment (docs/secrets.md "The shapes"). */
export type EnvironmentValue = unknown;

/** Options of {@link importInsomnia}. */
export interface InsomniaImportOptions {
  /** The test cases' folder (default: the workspace's name). */
  folder?: string;
  /** The sub-environment merged over the base one (default: the first; `''`: the base only). */
  environment?: string;
  /** The Assay environment's name (default: the workspace's name, slugged). */
  environmentName?: string;
  /** The whole workspace as one test case. */
  singleTestCase?: boolean;
  /** True when the file an Insomnia file part or file body names (its path as written) is at hand. */
  fileAvailable?: (fileName: string) => boolean;
}

/** The report of one request (`assay import insomnia --json`, `requests[]`). */
export interface InsomniaRequestReport {
  /** Insomnia's id (`req_…`). */
  id: string;
  /** `Folder / Sub / Request`. */
  at: string;
  /** `imported` (a node) or `skipped` (not a request Assay sends: see notCarried). */
  outcome: 'imported' | 'skipped';
  method?: string;
  testCase?: string;
  node?: string;
  /** What the node carries, in words. */
  carried: string[];
  /** What it lacks, in words; non-empty fails `--strict`. */
  notCarried: string[];
}

/** A workspace-level note: something not carried that belongs to no request. */
export interface InsomniaNote {
  at: string;
  message: string;
}

/** A file a multipart part or file body sends, uploaded from `--working-dir`. */
export interface InsomniaUpload {
  /** The path as Insomnia wrote it. */
  fileName: string;
  /** The workspace file name. */
  file: string;
  requests: string[];
}

/** An API node as the import writes it (src/domain/types.ts ApiNode). */
export interface InsomniaApiNode {
  type: 'api';
  id: string;
  name: string;
  request: {
    method: string;
    url: string;
    headers?: Record<string, string>;
    body?: unknown;
    multipart?: MultipartPart[];
    file?: { file: string; contentType?: string };
    auth?: RequestAuth;
    followRedirects?: boolean;
    disableUrlEncoding?: boolean;
    alwaysSendBody?: boolean;
  };
  authProfile?: string;
  extract?: Record<string, string>;
  assertions?: Array<{ target: string; operator: 'equals'; expected: number }>;
}

/** A Context node setting a folder's environment. */
export interface InsomniaContextNode {
  type: 'context';
  id: string;
  name: string;
  set: Record<string, string>;
}

/** A test case as `POST /v1/test-cases` takes it. */
export interface InsomniaTestCase {
  name: string;
  folder: string;
  description: string;
  tags: string[];
  flow: Array<InsomniaApiNode | InsomniaContextNode>;
}

/** What {@link importInsomnia} makes. */
export interface InsomniaImport {
  format: InsomniaDocument['format'];
  workspace: string;
  environment: {
    name: string;
    /** The sub-environment merged over the base one ('' for none). */
    sub: string;
    variables: Record<string, EnvironmentValue>;
  };
  authProfiles: ImportedAuthProfile[];
  testCases: InsomniaTestCase[];
  /** `run` when a test case reads a value a request of an earlier one extracts. */
  variableScope: 'testCase' | 'run';
  uploads: InsomniaUpload[];
  requests: InsomniaRequestReport[];
  /** Not carried, belonging to no request (unit tests, scripts of folders, the API spec, …); fail `--strict`. */
  notes: InsomniaNote[];
  /** Carried with a difference worth knowing; do not fail `--strict`. */
  warnings: InsomniaNote[];
}

const METHOD = new RegExp(METHOD_TOKEN_PATTERN);
const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const PURE_TEMPLATE = /^\{\{[^{}]+\}\}$/;

/** `a_b_c` of a name, for variable names (at most 40 characters). */
function snake(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '')
      .slice(0, 40)
      .replace(/_+$/, '') || 'value'
  );
}

/** Percent-encodes a form or query component, leaving `{{…}}` templates as they are. */
function encodeKeepingTemplates(text: string): string {
  return text
    .split(/(\{\{[^{}]*\}\})/)
    .map((part, i) => (i % 2 ? part : encodeURIComponent(part).replace(/%20/g, '+')))
    .join('');
}

const isJsonMime = (mime: string) => /^\s*application\/([\w.+-]*\+)?json\b|^\s*text\/json\b/i.test(mime);

/** One request placed in a test case before conversion. */
interface Placed {
  req: InsomniaRequest;
  folders: InsomniaFolder[];
  at: string;
  testCase: number;
  order: number;
  nodeId: string;
  nodeName: string;
}

/**
 * The records an Insomnia document becomes (the rules in this module's header). Never throws on a
 * request: what cannot be carried is in its report.
 * @throws Error when `options.environment` names no sub-environment (the message lists them).
 */
export function importInsomnia(doc: InsomniaDocument, options: InsomniaImportOptions = {}): InsomniaImport {
  const wsName = doc.workspace.name;
  const folder = options.folder ?? wsName;
  const notes: InsomniaNote[] = doc.extras.map((message) => ({ at: wsName, message }));
  const warnings: InsomniaNote[] = [];
  const requests: InsomniaRequestReport[] = [];

  // Environment: base overlaid by the chosen sub-environment.
  const subs = doc.environments.subs;
  let sub = subs[0];
  if (options.environment !== undefined) {
    sub = options.environment === '' ? undefined : subs.find((s) => s.name === options.environment);
    if (options.environment !== '' && !sub)
      throw new Error(
        `no sub-environment "${options.environment}" (the file has ${subs.length ? subs.map((s) => `"${s.name}"`).join(', ') : 'only the base environment'})`,
      );
  }
  const variables: Record<string, EnvironmentValue> = {};
  const envNotes: string[] = [];
  const convertValue = (v: unknown): unknown => {
    if (typeof v === 'string') {
      const c = convertTemplate(v);
      envNotes.push(...c.notCarried);
      return c.text;
    }
    if (Array.isArray(v)) return v.map(convertValue);
    if (v && typeof v === 'object')
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, convertValue(x)]));
    return v;
  };
  for (const [k, v] of Object.entries({ ...doc.environments.base, ...(sub?.data ?? {}) }))
    variables[k] = convertValue(v);
  // Insomnia renders environment values that refer to each other; Assay's templates are not recursive.
  for (let pass = 0; pass < 5; pass++)
    for (const [k, v] of Object.entries(variables))
      if (typeof v === 'string' && v.includes('{{'))
        variables[k] = v.replace(/\{\{([^{}]+)\}\}/g, (whole, name: string) => {
          const ref = variables[name.trim()];
          return name.trim() !== k && (typeof ref === 'string' || typeof ref === 'number' || typeof ref === 'boolean')
            ? String(ref)
            : whole;
        });
  for (const n of new Set(envNotes)) notes.push({ at: 'environment', message: n });

  // Secret variables of the environment.
  const secretValues = new Map<string, string>();
  const secretVar = (want: string, value: string): string => {
    if (!value || PURE_TEMPLATE.test(value.trim())) return value;
    let name = want;
    for (let i = 2; ; i++) {
      const held = secretValues.get(name);
      if (held === value) return `{{${name}}}`;
      if (held === undefined && !(name in variables)) break;
      name = `${want}_${i}`;
    }
    secretValues.set(name, value);
    if (value.length >= 4) variables[name] = { value, secret: true };
    else {
      variables[name] = value;
      warnings.push({
        at: 'environment',
        message: `${name} is shorter than 4 characters: kept as a plain variable (Assay masks secrets of 4 or more)`,
      });
    }
    return `{{${name}}}`;
  };

  // Place the requests in test cases, in order.
  const testCases: InsomniaTestCase[] = [];
  const placed: Placed[] = [];
  const taken: Array<Set<string>> = [];
  const folderEnvNodes = new Map<string, { testCase: number; before: string; folder: InsomniaFolder; at: string }>();
  const newTestCase = (name: string): number => {
    let n = name.slice(0, 200) || 'Requests';
    for (let i = 2; testCases.some((t) => t.name === n); i++) n = `${name.slice(0, 190)} (${i})`;
    testCases.push({
      name: n,
      folder,
      description: `Imported from the Insomnia workspace "${wsName}"`.slice(0, 1000),
      tags: [INSOMNIA_TAG],
      flow: [],
    });
    taken.push(new Set());
    return testCases.length - 1;
  };
  let order = 0;
  const place = (
    item: InsomniaItem,
    tc: number,
    folders: InsomniaFolder[],
    prefix: string[],
    fullPath: string[],
    named = true,
  ) => {
    const at = [...fullPath, item.name].join(' / ');
    if (item.kind === 'folder') {
      if (Object.keys(item.environment).length && !folderEnvNodes.has(item.id))
        folderEnvNodes.set(item.id, { testCase: tc, before: '', folder: item, at });
      for (const s of [item.preRequestScript, item.afterResponseScript])
        if (s.trim())
          notes.push({
            at,
            message: `the folder's ${s === item.preRequestScript ? 'pre-request' : 'after-response'} script is not carried (Insomnia's insomnia.* script API has no Assay equivalent)`,
          });
      for (const child of item.children)
        place(child, tc, [...folders, item], named ? [...prefix, item.name] : prefix, [...fullPath, item.name]);
      return;
    }
    if (item.kind !== 'request') {
      requests.push({
        id: item.id,
        at,
        outcome: 'skipped',
        carried: [],
        notCarried: [
          `${{ grpc: 'gRPC', websocket: 'WebSocket', socketio: 'Socket.IO', mcp: 'MCP' }[item.kind]} request: not carried (an API node sends HTTP requests)`,
        ],
      });
      return;
    }
    const method = item.method.toUpperCase();
    if (!METHOD.test(method) || method === 'CONNECT') {
      requests.push({
        id: item.id,
        at,
        outcome: 'skipped',
        method,
        carried: [],
        notCarried: [`method "${item.method}" cannot be sent by an API node`],
      });
      return;
    }
    const total = placed.length;
    if (total >= MAX_FLOW_NODES) {
      requests.push({ id: item.id, at, outcome: 'skipped', carried: [], notCarried: ['beyond 500 requests'] });
      return;
    }
    const url = convertTemplate(item.url).text;
    const nodeId = nodeIdFor(method, url, taken[tc]!);
    taken[tc]!.add(nodeId);
    for (const f of folders) {
      const env = folderEnvNodes.get(f.id);
      if (env && !env.before && env.testCase === tc) env.before = nodeId;
    }
    placed.push({
      req: item,
      folders,
      at,
      testCase: tc,
      order: order++,
      nodeId,
      nodeName: ([...prefix, item.name].join(' / ') || nodeId).slice(0, 200),
    });
  };
  if (options.singleTestCase) {
    const tc = newTestCase(wsName);
    for (const item of doc.items) place(item, tc, [], [], []);
  } else {
    let loose: number | undefined;
    for (const item of doc.items) {
      if (item.kind === 'folder') place(item, newTestCase(item.name), [], [], [], false);
      else place(item, (loose ??= newTestCase(wsName)), [], [], []);
    }
  }

  // Response tags: the referenced request's node extracts; its variable replaces the tag.
  const byId = new Map(placed.map((p) => [p.req.id, p]));
  const extracts = new Map<string, Record<string, string>>();
  const chainVars = new Map<string, string>();
  let crossTestCase = false;
  const chainFor = (me: Placed) => (tag: ResponseTag) => {
    const target = byId.get(tag.requestId);
    if (!target)
      return {
        error: `response tag refers to request ${tag.requestId || '(none)'}, which is not among the imported requests: not carried`,
      };
    if (target.order >= me.order)
      return {
        error: `response tag refers to "${target.at}", which runs ${target === me ? 'as this request' : 'after this one'} in the imported order: not carried (move it before this request in Insomnia)`,
      };
    let expression: string | null;
    let suffix: string;
    if (tag.attribute === 'body') {
      if (tag.filter.trim().startsWith('/'))
        return { error: `response tag with the XPath filter ${tag.filter}: not carried (extract reads JSON)` };
      expression = tag.filter.trim() ? jsonPathToJsonata(tag.filter) : '$string(response.body)';
      if (!expression)
        return {
          error: `response tag with the JSONPath ${tag.filter}: not carried (wildcards, filters and recursive descent have no plain JSONata path)`,
        };
      suffix = /([A-Za-z_$][\w$]*)\W*$/.exec(tag.filter)?.[1] ?? 'body';
    } else if (tag.attribute === 'header') {
      if (!tag.filter.trim()) return { error: 'response tag on a header without a header name: not carried' };
      expression = `response.headers.\`${tag.filter.trim().toLowerCase().replace(/`/g, '')}\``;
      suffix = tag.filter;
    } else if (tag.attribute === 'raw') {
      expression = '$string(response.body)';
      suffix = 'raw';
    } else return { error: `response tag attribute "${tag.attribute}" is not carried (body, header and raw are)` };
    const key = `${tag.requestId}\u0000${expression}`;
    let variable = chainVars.get(key);
    if (!variable) {
      const base = `${snake(target.nodeId)}_${snake(suffix)}`;
      variable = base;
      for (let i = 2; [...chainVars.values()].includes(variable) || variable in variables; i++)
        variable = `${base}_${i}`;
      chainVars.set(key, variable);
      extracts.set(target.nodeId + '\u0000' + target.testCase, {
        ...(extracts.get(target.nodeId + '\u0000' + target.testCase) ?? {}),
        [variable]: expression,
      });
    }
    if (target.testCase !== me.testCase) crossTestCase = true;
    return { variable };
  };

  // Auth profiles, by distinct fields.
  const authProfiles: ImportedAuthProfile[] = [];
  const profileFor = (fields: AuthProfileFields, path: string[], type: string): string => {
    const key = JSON.stringify(fields);
    const same = authProfiles.find((p) => JSON.stringify(p.fields) === key);
    if (same) return same.name;
    const base = profileSlug([wsName, ...path].map(profileSlug).join('.')).slice(0, 96);
    let name = base;
    for (let n = 2; authProfiles.some((p) => p.name === name); n++) name = `${base}-${n}`;
    authProfiles.push({
      name,
      description: `Imported from Insomnia: the ${type} auth of "${path.join(' / ')}"`.slice(0, 500),
      fields,
      from: path.join(' / '),
    });
    return name;
  };

  const uploads: InsomniaUpload[] = [];
  const fileRef = (fileName: string, at: string): string | null => {
    const file = workspaceFileName(fileName);
    if (!file || !options.fileAvailable?.(fileName)) return null;
    const known = uploads.find((u) => u.fileName === fileName);
    if (known) {
      if (!known.requests.includes(at)) known.requests.push(at);
      return known.file;
    }
    let name = file;
    for (let i = 2; uploads.some((u) => u.file === name); i++) name = `${i}-${file}`;
    uploads.push({ fileName, file: name, requests: [at] });
    return name;
  };

  // Convert each request.
  const nodes = new Map<Placed, InsomniaApiNode>();
  for (const p of placed) {
    const r = p.req;
    const report: InsomniaRequestReport = {
      id: r.id,
      at: p.at,
      outcome: 'imported',
      method: r.method.toUpperCase(),
      testCase: testCases[p.testCase]!.name,
      node: p.nodeId,
      carried: [],
      notCarried: [],
    };
    requests.push(report);
    const chain = chainFor(p);
    const conv = (text: string, what: string): string => {
      const c = convertTemplate(text, chain);
      report.carried.push(...c.carried.map((s) => `${what}: ${s}`));
      report.notCarried.push(...c.notCarried.map((s) => `${what}: ${s}`));
      return c.text;
    };
    // URL, path parameters, query.
    let url = conv(r.url.trim(), 'URL');
    if (url && !HAS_SCHEME.test(url) && !url.startsWith('{{')) url = `http://${url}`;
    for (const pp of r.pathParameters)
      if (pp.name && pp.value)
        url = url.replace(
          new RegExp(`/:${pp.name.replace(/\W/g, '\\$&')}(?=/|\\?|$)`),
          `/${conv(pp.value, 'path parameter')}`,
        );
    const query = r.parameters
      .filter((q) => !q.disabled && q.name)
      .map((q) => `${encodeKeepingTemplates(conv(q.name, 'query'))}=${encodeKeepingTemplates(conv(q.value, 'query'))}`);
    if (query.length) url += (url.includes('?') ? '&' : '?') + query.join('&');
    const request: InsomniaApiNode['request'] = { method: r.method.toUpperCase(), url };
    // Headers: folders' first (outermost first), the request's own winning.
    const headers: Record<string, string> = {};
    const setHeader = (h: InsomniaPair) => {
      if (h.disabled || !h.name.trim()) return;
      let value = conv(h.value, `header ${h.name}`);
      const secret = SECRET_HEADERS[h.name.toLowerCase()];
      if (secret && value && !PURE_TEMPLATE.test(value)) {
        const scheme = /^(\w+)\s+(\S.*)$/.exec(value);
        value =
          scheme && h.name.toLowerCase().endsWith('authorization')
            ? `${scheme[1]} ${secretVar(secret, scheme[2]!)}`
            : secretVar(secret, value);
        report.carried.push(`${h.name} as a secret variable`);
      }
      for (const k of Object.keys(headers)) if (k.toLowerCase() === h.name.toLowerCase()) delete headers[k];
      headers[h.name] = value;
    };
    for (const f of p.folders) f.headers.forEach(setHeader);
    r.headers.forEach(setHeader);
    const hasHeader = (name: string) => Object.keys(headers).some((k) => k.toLowerCase() === name);
    // Body.
    const b = r.body;
    const mime = (b.mimeType ?? '').trim();
    if (!r.renderBody && b.text && /\{\{|\{%/.test(b.text))
      report.notCarried.push('body: "render request body" is off in Insomnia, but Assay fills {{…}} in bodies');
    if (b.fileName && !b.params) {
      const file = fileRef(b.fileName, p.at);
      if (file) {
        request.file = { file, ...(mime ? { contentType: mime } : {}) };
        report.carried.push(`file body ${file}`);
      } else report.notCarried.push(`file body ${b.fileName}: not found in --working-dir`);
    } else if (mime.startsWith('multipart/form-data') && b.params) {
      const parts: MultipartPart[] = [];
      for (const part of b.params) {
        if (part.disabled || !part.name) continue;
        if (part.type === 'file') {
          const file = part.fileName ? fileRef(part.fileName, p.at) : null;
          if (file) parts.push({ name: conv(part.name, 'multipart'), file });
          else
            report.notCarried.push(
              `multipart part "${part.name}": file ${part.fileName || '(none chosen)'} not found${options.fileAvailable ? ' in --working-dir' : ' (pass --working-dir with the file)'}`,
            );
        } else parts.push({ name: conv(part.name, 'multipart'), value: conv(part.value, 'multipart') });
      }
      if (parts.length > MAX_MULTIPART_PARTS) {
        report.notCarried.push(`multipart parts beyond ${MAX_MULTIPART_PARTS}: left out`);
        parts.length = MAX_MULTIPART_PARTS;
      }
      if (parts.length) {
        request.multipart = parts;
        report.carried.push(`multipart body (${parts.length} parts)`);
      }
      for (const k of Object.keys(headers)) if (k.toLowerCase() === 'content-type') delete headers[k];
    } else if (mime === 'application/x-www-form-urlencoded' && b.params) {
      request.body = b.params
        .filter((f) => !f.disabled && f.name)
        .map((f) => `${encodeKeepingTemplates(conv(f.name, 'form'))}=${encodeKeepingTemplates(conv(f.value, 'form'))}`)
        .join('&');
      if (!hasHeader('content-type')) headers['Content-Type'] = mime;
      report.carried.push('form-urlencoded body');
    } else if (b.text !== undefined && b.text !== '') {
      const text = conv(b.text, 'body');
      if (mime === 'application/graphql') {
        try {
          const gql = JSON.parse(text) as { query?: unknown; variables?: unknown };
          request.body = { query: gql.query, ...(gql.variables !== undefined ? { variables: gql.variables } : {}) };
          for (const k of Object.keys(headers)) if (k.toLowerCase() === 'content-type') delete headers[k];
          headers['Content-Type'] = 'application/json';
          report.carried.push('GraphQL body as JSON');
        } catch {
          request.body = text;
          report.notCarried.push('GraphQL body is not JSON: sent as text');
        }
      } else {
        let parsed: unknown;
        if (isJsonMime(mime) || (!mime && /^\s*[[{]/.test(text)))
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = undefined;
          }
        if (parsed !== undefined && typeof parsed === 'object' && parsed !== null) {
          request.body = parsed;
          report.carried.push('JSON body');
        } else {
          request.body = text;
          report.carried.push(`${mime || 'text'} body`);
        }
        if (mime && !hasHeader('content-type')) headers['Content-Type'] = mime;
      }
    }
    // Settings. Insomnia sends a body with any method; Assay drops it for GET, HEAD, … unless told.
    if (BODYLESS_METHODS.includes(request.method) && (request.body !== undefined || request.multipart || request.file))
      request.alwaysSendBody = true;
    if (r.followRedirects === 'off') request.followRedirects = false;
    if (!r.encodeUrl) request.disableUrlEncoding = true;
    for (const [s, what] of [
      [r.preRequestScript, 'pre-request'],
      [r.afterResponseScript, 'after-response'],
    ] as const)
      if (s.trim())
        report.notCarried.push(
          `${what} script not carried (Insomnia's insomnia.* script API has no Assay equivalent; use assertions, extract or a Script node)`,
        );
    // Auth: the request's own unless empty, else the nearest folder's.
    const node: InsomniaApiNode = { type: 'api', id: p.nodeId, name: p.nodeName, request };
    let auth: InsomniaAuth | undefined = r.authentication.type ? r.authentication : undefined;
    let authPath = [...p.folders.map((f) => f.name), r.name];
    for (let i = p.folders.length - 1; !auth && i >= 0; i--)
      if (p.folders[i]!.authentication.type) {
        auth = p.folders[i]!.authentication;
        authPath = p.folders.slice(0, i + 1).map((f) => f.name);
      }
    if (auth && auth.disabled !== true && auth.type !== 'none')
      applyAuth(auth, authPath, node, headers, report, { secretVar, profileFor, conv });
    if (Object.keys(headers).length) request.headers = headers;
    nodes.set(p, node);
  }

  // Extracts for response tags; unit tests as assertions.
  for (const [p, node] of nodes) {
    const ex = extracts.get(p.nodeId + '\u0000' + p.testCase);
    if (ex) {
      node.extract = ex;
      requests
        .find((r) => r.id === p.req.id)!
        .carried.push(`extracts ${Object.keys(ex).join(', ')} for a later request's response tag`);
    }
  }
  for (const t of doc.unitTests) {
    const at = `unit test ${t.suite} / ${t.name}`;
    const m =
      /^\s*(?:const|let|var)\s+(\w+)\s*=\s*await\s+insomnia\.send\(\s*\)\s*;?\s*expect\(\s*\1\.status\s*\)\.to\.(?:equal|eql|be\.equal)\(\s*(\d{3})\s*\)\s*;?\s*$/.exec(
        t.code,
      );
    const target = t.requestId ? placed.find((p) => p.req.id === t.requestId) : undefined;
    if (!m || !target) {
      notes.push({
        at,
        message: !m
          ? 'unit test not carried (only `const r = await insomnia.send(); expect(r.status).to.equal(N)` becomes an assertion)'
          : `unit test not carried: its request ${t.requestId ?? '(none)'} is not imported`,
      });
      continue;
    }
    const node = nodes.get(target)!;
    (node.assertions ??= []).push({ target: 'response.status', operator: 'equals', expected: Number(m[2]) });
    requests.find((r) => r.id === target.req.id)!.carried.push(`${at}: response.status equals ${m[2]}`);
  }

  // Flows: folder environments as Context nodes before their first request.
  for (const p of placed) {
    const tc = testCases[p.testCase]!;
    for (const env of folderEnvNodes.values())
      if (env.before === p.nodeId && env.testCase === p.testCase) {
        const set: Record<string, string> = {};
        for (const [k, v] of Object.entries(env.folder.environment)) set[k] = JSON.stringify(convertValue(v) ?? null);
        const id = nodeIdFor('env', `/${env.folder.name}`, taken[p.testCase]!);
        taken[p.testCase]!.add(id);
        tc.flow.push({ type: 'context', id, name: `Folder environment: ${env.folder.name}`.slice(0, 200), set });
        warnings.push({
          at: env.at,
          message: `the folder's environment (${Object.keys(set).join(', ')}) is set by a Context node before its first request and stays set for the rest of the test case`,
        });
      }
    tc.flow.push(nodes.get(p)!);
  }
  if (doc.cookies)
    warnings.push({
      at: 'cookie jar',
      message: `${doc.cookies} cookies of Insomnia's cookie jar are not carried: Assay's requests keep no cookie jar (write a Cookie header)`,
    });

  const envName = options.environmentName ?? profileSlug(sub ? `${wsName} ${sub.name}` : wsName);
  return {
    format: doc.format,
    workspace: wsName,
    environment: { name: envName, sub: sub?.name ?? '', variables },
    authProfiles,
    testCases: testCases.filter((t) => t.flow.some((n) => n.type === 'api')),
    variableScope: crossTestCase ? 'run' : 'testCase',
    uploads,
    requests,
    notes,
    warnings,
  };
}

interface AuthTools {
  secretVar(want: string, value: string): string;
  profileFor(fields: AuthProfileFields, path: string[], type: string): string;
  conv(text: string, what: string): string;
}

/** Writes Insomnia `auth` (written at `path`) onto `node`: a profile, `request.auth`, or headers; reports the rest. */
function applyAuth(
  auth: InsomniaAuth,
  path: string[],
  node: InsomniaApiNode,
  headers: Record<string, string>,
  report: InsomniaRequestReport,
  tools: AuthTools,
): void {
  const where = snake(path[path.length - 1] ?? 'auth');
  const f = (key: string) =>
    tools.conv(
      typeof auth[key] === 'string' ? (auth[key] as string) : auth[key] === undefined ? '' : String(auth[key]),
      'auth',
    );
  const secret = (key: string, name = key) => tools.secretVar(`${where}_${snake(name)}`, f(key));
  const from = path.join(' / ');
  const profile = (fields: AuthProfileFields) => {
    node.authProfile = tools.profileFor(fields, path, String(auth.type));
    report.carried.push(`${auth.type} auth (from ${from}) as auth profile ${node.authProfile}`);
  };
  switch (auth.type) {
    case 'basic':
      if (auth.useISO88591 === true)
        report.notCarried.push('basic auth: "use ISO 8859-1" is not carried (sent as UTF-8)');
      return profile({ type: 'basic', username: f('username'), password: secret('password') });
    case 'bearer': {
      const prefix = f('prefix').trim();
      if (prefix && prefix.toLowerCase() !== 'bearer') {
        headers.Authorization = `${prefix} ${secret('token')}`;
        report.carried.push(`bearer auth with prefix "${prefix}" as an Authorization header`);
        return;
      }
      return profile({ type: 'bearer', token: secret('token') });
    }
    case 'apikey': {
      const addTo = f('addTo') || 'header';
      const name = f('key');
      if (addTo === 'cookie') {
        headers.Cookie = `${name}=${secret('value', 'api_key')}`;
        report.carried.push('API key auth (cookie) as a Cookie header');
        return;
      }
      return profile({
        type: 'apiKey',
        name,
        value: secret('value', 'api_key'),
        in: addTo === 'queryParams' ? 'query' : 'header',
      });
    }
    case 'oauth2': {
      const grant = f('grantType') || 'authorization_code';
      if (grant !== 'client_credentials' && grant !== 'password') {
        report.notCarried.push(
          `OAuth 2.0 grant "${grant}" (from ${from}) is not carried: it needs a browser (auth profiles fetch tokens with client_credentials and password)`,
        );
        return;
      }
      let tokenUrl = f('accessTokenUrl');
      if (tokenUrl && !HAS_SCHEME.test(tokenUrl) && !tokenUrl.startsWith('{{')) tokenUrl = `http://${tokenUrl}`;
      const prefix = f('tokenPrefix').trim();
      if (prefix && prefix.toLowerCase() !== 'bearer')
        report.notCarried.push(`OAuth 2.0 token prefix "${prefix}" is not carried: the profile sends "Bearer"`);
      for (const k of ['resource', 'origin'])
        if (f(k)) report.notCarried.push(`OAuth 2.0 "${k}" is not carried (a profile sends scope and audience)`);
      const scopes = f('scope').split(/\s+/).filter(Boolean);
      const clientSecret = f('clientSecret') ? secret('clientSecret', 'client_secret') : '';
      const inBody = auth.credentialsInBody === true || auth.credentialsInBody === 'true';
      return profile({
        type: 'oauth2',
        grant,
        tokenUrl,
        clientId: f('clientId'),
        ...(clientSecret ? { clientSecret } : {}),
        ...(scopes.length ? { scopes } : {}),
        ...(f('audience') ? { audience: f('audience') } : {}),
        clientAuthentication: inBody ? 'body' : 'basic',
        ...(grant === 'password' ? { username: f('username'), password: secret('password') } : {}),
      });
    }
    case 'digest':
      node.request.auth = { type: 'digest', username: f('username'), password: secret('password') };
      break;
    case 'oauth1': {
      const method = f('signatureMethod') || 'HMAC-SHA1';
      if (!['HMAC-SHA1', 'HMAC-SHA256', 'HMAC-SHA512', 'PLAINTEXT'].includes(method)) {
        report.notCarried.push(`OAuth 1.0 with ${method} is not carried (HMAC-SHA1/256/512 and PLAINTEXT are)`);
        return;
      }
      if (auth.includeBodyHash === true) report.notCarried.push('OAuth 1.0: "include body hash" is not carried');
      const opt = (k: string, v: string) => (v ? { [k]: v } : {});
      node.request.auth = {
        type: 'oauth1',
        consumerKey: f('consumerKey'),
        ...opt('consumerSecret', f('consumerSecret') && secret('consumerSecret', 'consumer_secret')),
        ...opt('token', f('tokenKey')),
        ...opt('tokenSecret', f('tokenSecret') && secret('tokenSecret', 'token_secret')),
        signatureMethod: method as 'HMAC-SHA1',
        placement: 'header',
        ...opt('realm', f('realm')),
        ...opt('callback', f('callback')),
        ...opt('verifier', f('verifier')),
        ...opt('timestamp', f('timestamp')),
        ...opt('nonce', f('nonce')),
        ...(f('version') === '' ? { includeVersion: false } : {}),
      } as RequestAuth;
      break;
    }
    case 'hawk': {
      const algorithm = f('algorithm') || 'sha256';
      if (algorithm !== 'sha256' && algorithm !== 'sha1') {
        report.notCarried.push(`Hawk with algorithm ${algorithm} is not carried (sha256 and sha1 are)`);
        return;
      }
      node.request.auth = {
        type: 'hawk',
        id: f('id'),
        key: secret('key', 'hawk_key'),
        algorithm,
        ...(f('ext') ? { ext: f('ext') } : {}),
        ...(auth.validatePayload === true ? { includePayloadHash: true } : {}),
      } as RequestAuth;
      break;
    }
    case 'iam':
      node.request.auth = {
        type: 'awsv4',
        accessKeyId: f('accessKeyId'),
        secretAccessKey: secret('secretAccessKey', 'aws_secret_access_key'),
        ...(f('sessionToken') ? { sessionToken: secret('sessionToken', 'aws_session_token') } : {}),
        region: f('region'),
        service: f('service'),
      } as RequestAuth;
      break;
    default:
      report.notCarried.push(
        `${auth.type === 'ntlm' ? 'NTLM' : auth.type === 'asap' ? 'ASAP' : auth.type === 'netrc' ? 'netrc' : `"${String(auth.type)}"`} auth (from ${from}) is not carried (basic, bearer, API key, OAuth 2.0 client credentials and password, digest, OAuth 1.0, Hawk and AWS IAM are)`,
      );
      return;
  }
  report.carried.push(`${auth.type} auth (from ${from}) as the node's request.auth`);
}
