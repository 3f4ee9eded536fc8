/**
 * Reading an Insomnia export for `assay import insomnia` (docs/import-insomnia.md "Formats"): the
 * two shapes Insomnia writes, turned into one tree the converter (cli/importers/insomnia.ts) walks.
 *
 * - **v4 export** (Insomnia 2020.x to 10.x, "Export data → Insomnia v4", JSON or YAML):
 *   `_type: export`, `__export_format: 4`, a flat `resources[]` list whose `_type` is `workspace`,
 *   `request_group`, `request`, `environment`, `cookie_jar`, `api_spec`, `grpc_request`,
 *   `websocket_request`, `unit_test_suite`, `unit_test`, … linked by `parentId`
 *   (Kong/insomnia packages/insomnia/src/utils/importers/importers/insomnia-4.ts).
 * - **v5 collection** (Insomnia 11+, YAML): `type: collection.insomnia.rest/5.0`, `name`, `meta`,
 *   a `collection:` tree of requests and folders (`children`), `environments:` (the base one and its
 *   `subEnvironments`), `cookieJar` (Kong/insomnia packages/insomnia/src/common/insomnia-v5.ts).
 *
 * Siblings are ordered by Insomnia's `metaSortKey` (v5 `meta.sortKey`), ascending, as its sidebar
 * and collection runner order them; equal keys keep the file's order.
 */
import YAML from 'yaml';

/** A file that is not an Insomnia export Assay reads: the message says what and where. */
export class InsomniaFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InsomniaFormatError';
  }
}

/** A name/value pair of Insomnia's (headers, query parameters, form fields); disabled ones are dropped later. */
export interface InsomniaPair {
  name: string;
  value: string;
  disabled?: boolean;
  /** Form fields: `file` for a file part (then `fileName`), else text. */
  type?: string;
  fileName?: string;
}

/** Insomnia's request body: `mimeType` and `text`, or form `params`, or a file's path (`fileName`). */
export interface InsomniaBody {
  mimeType?: string;
  text?: string;
  params?: InsomniaPair[];
  fileName?: string;
}

/** Insomnia's `authentication` object as written (`type` and that type's fields). */
export type InsomniaAuth = Record<string, unknown> & { type?: string; disabled?: boolean };

/** An HTTP request (`_type: request`, or a v5 collection item with a `method`). */
export interface InsomniaRequest {
  kind: 'request';
  id: string;
  name: string;
  method: string;
  url: string;
  headers: InsomniaPair[];
  parameters: InsomniaPair[];
  pathParameters: InsomniaPair[];
  body: InsomniaBody;
  authentication: InsomniaAuth;
  /** `global` (default: follow), `on`, `off`. */
  followRedirects: string;
  /** false: send the URL as written (`settingEncodeUrl`). */
  encodeUrl: boolean;
  /** false: templates in the body are not rendered (`settingDisableRenderRequestBody`). */
  renderBody: boolean;
  preRequestScript: string;
  afterResponseScript: string;
}

/** A folder (`request_group`, or a v5 item with `children`). */
export interface InsomniaFolder {
  kind: 'folder';
  id: string;
  name: string;
  children: InsomniaItem[];
  /** The folder's environment: variables its requests see over the workspace's. */
  environment: Record<string, unknown>;
  authentication: InsomniaAuth;
  headers: InsomniaPair[];
  preRequestScript: string;
  afterResponseScript: string;
}

/** A request of a kind an API node cannot be (gRPC, WebSocket, Socket.IO, MCP): reported. */
export interface InsomniaOtherRequest {
  kind: 'grpc' | 'websocket' | 'socketio' | 'mcp';
  id: string;
  name: string;
}

export type InsomniaItem = InsomniaRequest | InsomniaFolder | InsomniaOtherRequest;

/** A unit test (`unit_test`): chai code run against the request `requestId`. */
export interface InsomniaUnitTest {
  suite: string;
  name: string;
  requestId: string | null;
  code: string;
}

/** An export read into one shape, whichever format it came in. */
export interface InsomniaDocument {
  format: 'v4' | 'v5';
  /** `__export_source` (v4), e.g. `insomnia.desktop.app:v2021.6.0`; '' when absent. */
  source: string;
  workspace: { id: string; name: string };
  items: InsomniaItem[];
  environments: { base: Record<string, unknown>; subs: Array<{ name: string; data: Record<string, unknown> }> };
  unitTests: InsomniaUnitTest[];
  /** Cookies of the cookie jar (none are sent by Assay's requests). */
  cookies: number;
  /** Other parts of the file that are not carried (an API design document, more workspaces), in words. */
  extras: string[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const obj = (v: unknown): Obj => (isObj(v) ? v : {});

function pairs(v: unknown): InsomniaPair[] {
  if (!Array.isArray(v)) return [];
  return v.filter(isObj).map((p) => ({
    name: str(p.name),
    value: str(p.value),
    ...(p.disabled === true ? { disabled: true } : {}),
    ...(typeof p.type === 'string' ? { type: p.type } : {}),
    ...(typeof p.fileName === 'string' ? { fileName: p.fileName } : {}),
  }));
}

function body(v: unknown): InsomniaBody {
  const b = obj(v);
  return {
    ...(typeof b.mimeType === 'string' ? { mimeType: b.mimeType } : {}),
    ...(typeof b.text === 'string' ? { text: b.text } : {}),
    ...(Array.isArray(b.params) ? { params: pairs(b.params) } : {}),
    ...(typeof b.fileName === 'string' && b.fileName ? { fileName: b.fileName } : {}),
  };
}

/** The request fields v4 and v5 write alike, with the settings and scripts each writes its own way. */
function httpRequest(
  r: Obj,
  id: string,
  name: string,
  own: {
    followRedirects: unknown;
    encodeUrl: boolean;
    renderBody: boolean;
    preRequestScript: unknown;
    afterResponseScript: unknown;
  },
): InsomniaRequest {
  return {
    kind: 'request',
    id,
    name,
    method: str(r.method) || 'GET',
    url: str(r.url),
    headers: pairs(r.headers),
    parameters: pairs(r.parameters),
    pathParameters: pairs(r.pathParameters),
    body: body(r.body),
    authentication: obj(r.authentication),
    followRedirects: str(own.followRedirects) || 'global',
    encodeUrl: own.encodeUrl,
    renderBody: own.renderBody,
    preRequestScript: str(own.preRequestScript),
    afterResponseScript: str(own.afterResponseScript),
  };
}

/** Stable sort by Insomnia's sort key (ascending). */
function sorted<T>(list: Array<{ item: T; key: number }>): T[] {
  return list
    .map((e, i) => ({ ...e, i }))
    .sort((a, b) => a.key - b.key || a.i - b.i)
    .map((e) => e.item);
}

/**
 * Parses the text of an export (JSON or YAML, a UTF-8 byte order mark ignored).
 * @throws InsomniaFormatError: neither JSON nor YAML, not an Insomnia export, an export format
 * other than 4, a v5 file that is not a collection (a design document, an environment, a mock).
 */
export function parseInsomnia(text: string): InsomniaDocument {
  const clean = text.replace(/^\uFEFF/, '');
  let doc: unknown;
  try {
    doc = JSON.parse(clean);
  } catch {
    try {
      doc = YAML.parse(clean, { maxAliasCount: 100 });
    } catch (err) {
      throw new InsomniaFormatError(`neither JSON nor YAML: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  if (!isObj(doc)) throw new InsomniaFormatError('not an Insomnia export: the file holds no object');
  if (doc._type === 'export') {
    if (doc.__export_format !== 4)
      throw new InsomniaFormatError(
        `Insomnia export format ${JSON.stringify(doc.__export_format ?? null)} is not supported (Assay reads format 4 and the v5 collection YAML; export again from Insomnia 2020 or later)`,
      );
    if (!Array.isArray(doc.resources)) throw new InsomniaFormatError('not an Insomnia v4 export: no "resources" list');
    return readV4(doc);
  }
  const type = str(doc.type);
  if (type === 'collection.insomnia.rest/5.0') return readV5(doc);
  const v5 = /^(\w+)\.insomnia(\.rest)?\/(.+)$/.exec(type);
  if (v5 && v5[3] === '5.0')
    throw new InsomniaFormatError(
      `an Insomnia ${v5[1]} file holds no request collection (type "${type}"); export the collection instead`,
    );
  if (v5)
    throw new InsomniaFormatError(
      `Insomnia file version "${v5[3]}" (type "${type}") is not supported (Assay reads 5.0)`,
    );
  throw new InsomniaFormatError(
    'not an Insomnia export: expected "_type: export" with "__export_format: 4", or "type: collection.insomnia.rest/5.0"',
  );
}

const OTHER_V4: Record<string, InsomniaOtherRequest['kind']> = {
  grpc_request: 'grpc',
  websocket_request: 'websocket',
  socketio_request: 'socketio',
  mcp_request: 'mcp',
};

function readV4(doc: Obj): InsomniaDocument {
  const resources = (doc.resources as unknown[]).filter(isObj);
  const workspaces = resources.filter((r) => r._type === 'workspace');
  const extras: string[] = [];
  if (workspaces.length > 1)
    extras.push(
      `the file holds ${workspaces.length} workspaces; only the first, "${str(workspaces[0]!.name)}", is imported (${workspaces
        .slice(1)
        .map((w) => `"${str(w.name)}"`)
        .join(', ')} left out)`,
    );
  const ws = workspaces[0] ?? {};
  const wsId = workspaces[0] ? str(ws._id) : str(resources.find((r) => r._type === 'request')?.parentId);
  const byParent = new Map<string, Obj[]>();
  for (const r of resources) {
    const p = str(r.parentId);
    byParent.set(p, [...(byParent.get(p) ?? []), r]);
  }
  const walk = (parent: string, depth: number): InsomniaItem[] => {
    if (depth > 50) return [];
    const list: Array<{ item: InsomniaItem; key: number }> = [];
    for (const r of byParent.get(parent) ?? []) {
      const key = num(r.metaSortKey);
      const id = str(r._id);
      const name = str(r.name);
      if (r._type === 'request')
        list.push({
          key,
          item: httpRequest(r, id, name, {
            followRedirects: r.settingFollowRedirects,
            encodeUrl: r.settingEncodeUrl !== false,
            renderBody: r.settingDisableRenderRequestBody !== true,
            preRequestScript: r.preRequestScript,
            afterResponseScript: r.afterResponseScript,
          }),
        });
      else if (r._type === 'request_group')
        list.push({
          key,
          item: {
            kind: 'folder',
            id,
            name,
            children: walk(id, depth + 1),
            environment: obj(r.environment),
            authentication: obj(r.authentication),
            headers: pairs(r.headers),
            preRequestScript: str(r.preRequestScript),
            afterResponseScript: str(r.afterResponseScript),
          },
        });
      else if (typeof r._type === 'string' && OTHER_V4[r._type])
        list.push({ key, item: { kind: OTHER_V4[r._type]!, id, name } });
    }
    return sorted(list);
  };
  const envs = resources.filter((r) => r._type === 'environment');
  const base = envs.find((e) => str(e.parentId) === wsId);
  const subs = base
    ? sorted(
        envs
          .filter((e) => str(e.parentId) === str(base._id))
          .map((e) => ({ key: num(e.metaSortKey), item: { name: str(e.name), data: obj(e.data) } })),
      )
    : [];
  const suites = new Map(
    resources
      .filter((r) => r._type === 'unit_test_suite' && str(r.parentId) === wsId)
      .map((s) => [str(s._id), str(s.name)]),
  );
  const unitTests = sorted(
    resources
      .filter((r) => r._type === 'unit_test' && suites.has(str(r.parentId)))
      .map((t) => ({
        key: num(t.metaSortKey),
        item: {
          suite: suites.get(str(t.parentId))!,
          name: str(t.name),
          requestId: typeof t.requestId === 'string' ? t.requestId : null,
          code: str(t.code),
        },
      })),
  );
  const spec = resources.find((r) => r._type === 'api_spec' && str(r.parentId) === wsId && str(r.contents).trim());
  if (spec) extras.push('the API design document (api_spec) is not carried: import it with assay import openapi');
  const cookies = resources
    .filter((r) => r._type === 'cookie_jar' && str(r.parentId) === wsId)
    .reduce((n, j) => n + (Array.isArray(j.cookies) ? j.cookies.length : 0), 0);
  return {
    format: 'v4',
    source: str(doc.__export_source),
    workspace: { id: wsId, name: str(ws.name) || 'Insomnia' },
    items: walk(wsId, 0),
    environments: { base: obj(base?.data), subs },
    unitTests,
    cookies,
    extras,
  };
}

/** The kind of a v5 collection item (Insomnia's own test: a folder has no method, URL or gRPC reflection). */
function v5Kind(item: Obj): InsomniaItem['kind'] {
  const id = str(obj(item.meta).id);
  if (Array.isArray(item.children) || (!('method' in item) && !('url' in item) && !('reflectionApi' in item)))
    return 'folder';
  if (id.startsWith('greq_') || 'protoMethodName' in item || 'reflectionApi' in item) return 'grpc';
  if (id.startsWith('ws-req_')) return 'websocket';
  if (id.startsWith('socketio-req_') || id.startsWith('sio-req_')) return 'socketio';
  if (id.startsWith('mcp-req_')) return 'mcp';
  return 'method' in item ? 'request' : 'websocket';
}

function readV5(doc: Obj): InsomniaDocument {
  const meta = obj(doc.meta);
  const walk = (list: unknown, depth: number): InsomniaItem[] => {
    if (!Array.isArray(list) || depth > 50) return [];
    const out: Array<{ item: InsomniaItem; key: number }> = [];
    for (const it of list.filter(isObj)) {
      const m = obj(it.meta);
      const id = str(m.id);
      const name = str(it.name);
      const key = num(m.sortKey);
      const scripts = obj(it.scripts);
      const kind = v5Kind(it);
      if (kind === 'folder')
        out.push({
          key,
          item: {
            kind,
            id,
            name,
            children: walk(it.children, depth + 1),
            environment: obj(it.environment),
            authentication: obj(it.authentication),
            headers: pairs(it.headers),
            preRequestScript: str(scripts.preRequest),
            afterResponseScript: str(scripts.afterResponse),
          },
        });
      else if (kind === 'request') {
        const settings = obj(it.settings);
        out.push({
          key,
          item: httpRequest(it, id, name, {
            followRedirects: settings.followRedirects,
            encodeUrl: settings.encodeUrl !== false,
            renderBody: settings.renderRequestBody !== false,
            preRequestScript: scripts.preRequest,
            afterResponseScript: scripts.afterResponse,
          }),
        });
      } else out.push({ key, item: { kind, id, name } });
    }
    return sorted(out);
  };
  const env = obj(doc.environments);
  const subs = sorted(
    (Array.isArray(env.subEnvironments) ? env.subEnvironments : []).filter(isObj).map((e, i) => ({
      key: num(obj(e.meta).sortKey),
      item: { name: str(e.name) || `Environment ${i}`, data: obj(e.data) },
    })),
  );
  const jar = obj(doc.cookieJar);
  return {
    format: 'v5',
    source: '',
    workspace: { id: str(meta.id), name: str(doc.name) || 'Insomnia' },
    items: walk(doc.collection, 0),
    environments: { base: obj(env.data), subs },
    unitTests: [],
    cookies: Array.isArray(jar.cookies) ? jar.cookies.length : 0,
    extras: [],
  };
}
