/**
 * One test case from a recorded HTTP Archive (HAR 1.2, http://www.softwareishard.com/blog/har-12-spec/,
 * what browser DevTools, proxies and HTTP clients export) for `assay import har` (docs/cli.md
 * "Importing"). Pure: the parsed HAR in, the test case, the environment variables it needs, the
 * files it would upload and a report per entry out; the command (cli/commands/import-har.ts) reads
 * files and talks to the API.
 *
 * Rules (each one tested in test/unit/import-har.test.ts):
 * - `log.entries` in order, one API node each (id `e<entry number>`, name `METHOD /path`), with a
 *   `response.status equals <recorded status>` assertion (none when no response was recorded:
 *   status 0 or absent, reported as not carried).
 * - Filters: `includeHosts` keeps only entries whose host (or `host:port` when the filter has a
 *   port) is listed; `excludeStatic` drops images, fonts, CSS, JavaScript and media, by response
 *   MIME type ({@link isStaticMime}) or by the URL path's extension ({@link STATIC_EXTENSIONS}).
 *   Entries beyond {@link MAX_HAR_REQUESTS} kept ones are cut (reported, not carried).
 * - The origin of the first kept entry is `{{base}}` ({@link BASE_VARIABLE}); other origins stay
 *   absolute. Query parameters stay as recorded (`queryString` is added when the URL has none).
 * - Headers: pseudo-headers (`:authority`, …) and those the client sets itself when sending
 *   ({@link CLIENT_HEADERS}) are dropped; browser-only ones ({@link isBrowserOnlyHeader}: `sec-*`,
 *   `user-agent`, …) too unless `keepHeaders` names them. Credentials ({@link SECRET_HEADERS}:
 *   `Authorization`, `Proxy-Authorization`, `Cookie`, `X-Api-Key`, `X-Auth-Token`) are never kept
 *   as literals: each distinct value becomes a secret variable (`authorization`, `authorization_2`,
 *   …) and the header `{{authorization}}`. A `Cookie` header is made from `request.cookies` when
 *   the entry has none.
 * - Bodies: `postData.text` with a JSON media type is parsed into `body` when it parses to an
 *   object, array, number or boolean; other text is sent as written with its media type as
 *   `Content-Type`; `application/x-www-form-urlencoded` `params` without text are encoded
 *   (WHATWG URLSearchParams). `multipart/form-data` (from `params`, else the recorded text's
 *   parts) becomes `request.multipart`: text parts as they are, file parts only when
 *   `fileAvailable(fileName)` says the bytes are at hand (they are uploaded as workspace file
 *   {@link workspaceFileName}), else reported as not carried: a HAR has no file bytes.
 * - Redirects: a 301/302/303/307/308 entry whose `redirectURL` (or `Location`) was requested by a
 *   later entry is one node with `followRedirects: true`, asserting the status at the chain's end;
 *   the later entries are reported as `redirect` of it. A redirect whose target was not recorded
 *   gets `followRedirects: false` and asserts its own 3xx.
 */
import type { ApiNode, Assertion, MultipartPart, RequestSpec } from '../../src/domain/types';
import { BODYLESS_METHODS, METHOD_TOKEN_PATTERN } from '../../src/domain/types';
import { MAX_FLOW_NODES } from '../../src/validation/flow-schemas';
import { multipartBoundary, parseMultipartText, type RecordedPart } from './har-multipart';
import { fileNameSegment } from '../workspace-files';

/** The requests one import keeps at most: a test case's flow holds at most 500 nodes (src/validation/flow.ts MAX_FLOW_NODES). */
export const MAX_HAR_REQUESTS = MAX_FLOW_NODES;

/** The largest HAR file `assay import har` reads: 50 MiB. */
export const MAX_HAR_BYTES = 50 * 1024 * 1024;

/** The environment variable the first kept origin becomes. */
export const BASE_VARIABLE = 'base';

/** The tag the imported test case carries. */
export const HAR_TAG = 'har';

/** Longest URL and header value an API node takes (src/validation/flow-schemas.ts). */
const MAX_URL = 8192;
const MAX_HEADER_VALUE = 8192;
const MAX_HEADERS = 100;
const MAX_NODE_NAME = 200;

/**
 * Request headers the sending client sets itself (RFC 9110 §7.6.1 hop-by-hop fields, `Host`,
 * `Content-Length`, and `Accept-Encoding`, which Assay sets to what it can decode): always dropped.
 */
export const CLIENT_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'content-length',
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'accept-encoding',
]);

/** Headers only a browser sends (Fetch metadata `sec-*`, client hints, …): dropped unless kept by name. */
const BROWSER_ONLY = new Set([
  'user-agent',
  'upgrade-insecure-requests',
  'dnt',
  'priority',
  'purpose',
  'alt-used',
  'x-client-data',
]);

/** True for a browser-only request header (lowercase name): `sec-*`, `user-agent`, `dnt`, `priority`, … */
export function isBrowserOnlyHeader(lower: string): boolean {
  return lower.startsWith('sec-') || BROWSER_ONLY.has(lower);
}

/** Credential headers (lowercase) → the variable each distinct value becomes. */
export const SECRET_HEADERS: Readonly<Record<string, string>> = {
  authorization: 'authorization',
  'proxy-authorization': 'proxy_authorization',
  cookie: 'cookie',
  'x-api-key': 'x_api_key',
  'x-auth-token': 'x_auth_token',
};

/** Path extensions of static resources (images, fonts, CSS, JavaScript and source maps, media). */
export const STATIC_EXTENSIONS =
  /\.(png|jpe?g|gif|webp|avif|svg|ico|bmp|tiff?|woff2?|ttf|otf|eot|css|m?js|map|mp3|mp4|m4a|webm|ogg|oga|ogv|wav|flac|aac|mov|avi)$/i;

/** True for the media type of a static resource: `image/*`, `font/*`, `audio/*`, `video/*`, CSS, JavaScript, legacy font types. */
export function isStaticMime(mime: string): boolean {
  return /^\s*((image|font|audio|video)\/|text\/css\b|(text|application)\/(x-)?(javascript|ecmascript)\b|application\/(font-|x-font-|vnd\.ms-fontobject))/i.test(
    mime,
  );
}

/** A HAR that is not one (not JSON, no `log.entries` array): the message says what and where. */
export class HarFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HarFormatError';
  }
}

/** The fields of a HAR 1.2 document the import reads (others are ignored). */
export interface Har {
  log: { creator?: { name?: string; version?: string }; entries: HarEntry[] };
}
interface NameValue {
  name?: unknown;
  value?: unknown;
}
/** One `log.entries` item as far as the import reads it. */
export interface HarEntry {
  request?: {
    method?: unknown;
    url?: unknown;
    headers?: NameValue[];
    queryString?: NameValue[];
    cookies?: NameValue[];
    postData?: {
      mimeType?: unknown;
      text?: unknown;
      params?: Array<NameValue & { fileName?: unknown; contentType?: unknown }>;
    };
  };
  response?: {
    status?: unknown;
    headers?: NameValue[];
    redirectURL?: unknown;
    content?: { mimeType?: unknown };
  };
}

/**
 * Parses HAR text (JSON; a UTF-8 byte order mark is ignored). @throws HarFormatError naming what
 * is wrong: not JSON (with the parser's message), or no `log.entries` array.
 */
export function parseHar(text: string): Har {
  let doc: unknown;
  try {
    doc = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    throw new HarFormatError(`not JSON: ${(err as Error).message}`);
  }
  const log = (doc as { log?: unknown } | null)?.log;
  if (!log || typeof log !== 'object') throw new HarFormatError('not a HAR: no "log" object');
  if (!Array.isArray((log as { entries?: unknown }).entries))
    throw new HarFormatError('not a HAR: "log.entries" is not an array');
  return doc as Har;
}

/** Options of {@link testCaseFromHar}. */
export interface HarImportOptions {
  /** The test case's name. */
  name: string;
  /** Its folder (`''`: the top level). */
  folder?: string;
  /** Keep only entries of these hosts (`api.example.com`, or `127.0.0.1:8080` to match the port too). */
  includeHosts?: string[];
  /** Drop images, fonts, CSS, JavaScript and media. */
  excludeStatic?: boolean;
  /** Browser-only headers to keep (any case), e.g. `user-agent`. */
  keepHeaders?: string[];
  /**
   * With `--files-dir`: true when the directory holds `fileName` (a multipart file part's
   * recorded file name); such parts refer to workspace file {@link workspaceFileName}. Absent:
   * every file part is reported as not carried.
   */
  fileAvailable?: (fileName: string) => boolean;
  /** Where the HAR came from, for the description (a file name). */
  source?: string;
}

/** What became of one entry. */
export type HarOutcome = 'imported' | 'redirect' | 'static' | 'host' | 'cut' | 'skipped';

/** The report of one `log.entries` item (`assay import har --json`, `entries[]`). */
export interface HarEntryReport {
  /** 1-based position in `log.entries`. */
  entry: number;
  method: string;
  url: string;
  /** The recorded response status; null when none was recorded (0 or absent). */
  status: number | null;
  /**
   * `imported` (a node), `redirect` (followed by entry `redirectOf`'s node), `static` (left out by
   * excludeStatic), `host` (left out by includeHosts), `cut` (beyond {@link MAX_HAR_REQUESTS}),
   * `skipped` (cannot be a request: see notCarried).
   */
  outcome: HarOutcome;
  /** Its API node's id (imported). */
  node?: string;
  /** The entry whose node followed this redirect (outcome `redirect`). */
  redirectOf?: number;
  /** What the node carries, in words (`JSON body`, `Authorization as {{authorization}} (secret)`, …). */
  carried: string[];
  /** Header names dropped on purpose (pseudo, client-set, browser-only). */
  dropped: string[];
  /** What the test case lacks of this entry, in words; non-empty fails `--strict`. */
  notCarried: string[];
}

/** A secret variable the test case refers to: a credential header's recorded value. */
export interface HarSecret {
  /** The variable (`authorization`, `cookie_2`). */
  name: string;
  /** The header it came from, lowercase. */
  header: string;
  /** The recorded value: stored in the environment only, never in the test case or the report. */
  value: string;
  /** Entry numbers that sent it. */
  entries: number[];
}

/** A file a multipart part refers to, to upload from `--files-dir` before the test case is saved. */
export interface HarUpload {
  /** The recorded file name (the file in `--files-dir`). */
  fileName: string;
  /** The workspace file name (`PUT /v1/files/{file}`). */
  file: string;
  /** The recorded part's Content-Type, when it had one. */
  contentType?: string;
  entries: number[];
}

/** Counts of {@link HarImportPlan.entries} by outcome; `notCarried` counts entries with anything not carried. */
export interface HarCounts {
  entries: number;
  imported: number;
  redirects: number;
  static: number;
  otherHosts: number;
  cut: number;
  skipped: number;
  notCarried: number;
}

/** A test case document as `POST /v1/test-cases` takes it (docs/api.md "Test cases"). */
export interface HarTestCaseBody {
  name: string;
  folder: string;
  description: string;
  tags: string[];
  flow: ApiNode[];
}

/** The outcome of {@link testCaseFromHar}. */
export interface HarImportPlan {
  /** `log.creator` as `name version` ('' when absent). */
  creator: string;
  testCase: HarTestCaseBody;
  /** The origin written as `{{base}}`; null when nothing was imported. */
  base: string | null;
  secrets: HarSecret[];
  uploads: HarUpload[];
  entries: HarEntryReport[];
  counts: HarCounts;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const METHOD = new RegExp(METHOD_TOKEN_PATTERN);
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const pairs = (list: unknown): NameValue[] => (Array.isArray(list) ? (list as NameValue[]) : []);

/** The value of header `lower` among `headers` (first one), or undefined. */
function headerOf(headers: unknown, lower: string): string | undefined {
  for (const h of pairs(headers)) if (str(h.name)?.toLowerCase() === lower) return str(h.value);
  return undefined;
}

/** The recorded status, or null for none (0, absent, not a number). */
function statusOf(e: HarEntry): number | null {
  const s = e.response?.status;
  return typeof s === 'number' && Number.isInteger(s) && s >= 100 && s <= 999 ? s : null;
}

/** A URL without its fragment (what requests name), or null when it does not parse. */
function normaliseUrl(raw: string, base?: string): string | null {
  try {
    const u = new URL(raw, base);
    u.hash = '';
    return u.href;
  } catch {
    return null;
  }
}

/** Where a redirect entry sends the browser (absolute), or null when it is not a redirect with a target. */
function redirectTarget(e: HarEntry): string | null {
  const status = statusOf(e);
  const url = str(e.request?.url);
  if (status === null || !REDIRECT_STATUSES.has(status) || !url) return null;
  const location = str(e.response?.redirectURL) || headerOf(e.response?.headers, 'location');
  return location ? normaliseUrl(location, url) : null;
}

/**
 * A workspace file name for a recorded file name (cli/workspace-files.ts FILE_NAME_PATTERN): its
 * last path segment with characters the API does not take replaced by `_`; null when nothing is left.
 */
export function workspaceFileName(fileName: string): string | null {
  return fileNameSegment(fileName.split(/[\\/]/).pop() ?? '');
}

/** The chains of recorded redirects: follower entry index → head entry index; head → its last entry index. */
function redirectChains(entries: HarEntry[]): { followerOf: Map<number, number>; lastOf: Map<number, number> } {
  const byUrl = new Map<string, number[]>();
  entries.forEach((e, i) => {
    const url = str(e.request?.url);
    const key = url ? normaliseUrl(url) : null;
    if (key) byUrl.set(key, [...(byUrl.get(key) ?? []), i]);
  });
  const followerOf = new Map<number, number>();
  const lastOf = new Map<number, number>();
  entries.forEach((e, head) => {
    if (followerOf.has(head)) return;
    let current = head;
    for (let target = redirectTarget(e); target; target = redirectTarget(entries[current]!)) {
      const next = (byUrl.get(target) ?? []).find((j) => j > current && !followerOf.has(j) && j !== head);
      if (next === undefined) break;
      followerOf.set(next, head);
      current = next;
    }
    lastOf.set(head, current);
  });
  return { followerOf, lastOf };
}

/** Pathname's last characters for a node name: `METHOD /path`, at most 200 characters. */
function nodeName(method: string, url: URL): string {
  const name = `${method} ${url.pathname}`;
  return name.length > MAX_NODE_NAME ? `${name.slice(0, MAX_NODE_NAME - 1)}…` : name;
}

const isJsonMime = (mime: string) => /^\s*application\/([\w.+-]*\+)?json\b|^\s*text\/json\b/i.test(mime);

/**
 * The test case a HAR records (the rules are in this module's header). Never throws on an entry:
 * what cannot be carried is in its report's `notCarried`.
 */
export function testCaseFromHar(har: Har, options: HarImportOptions): HarImportPlan {
  const entries = har.log.entries;
  const creator = [har.log.creator?.name, har.log.creator?.version].filter((s) => typeof s === 'string' && s).join(' ');
  const includeHosts = (options.includeHosts ?? []).map((h) => h.toLowerCase());
  const keep = new Set((options.keepHeaders ?? []).map((h) => h.toLowerCase()));
  const { followerOf, lastOf } = redirectChains(entries);
  const reports: HarEntryReport[] = [];
  const flow: ApiNode[] = [];
  const secrets: HarSecret[] = [];
  const uploads: HarUpload[] = [];
  let base: string | null = null;

  /** The `{{variable}}` standing for a credential header's value (one variable per distinct value). */
  const secretRef = (lower: string, value: string, entry: number): string => {
    let found = secrets.find((s) => s.header === lower && s.value === value);
    if (!found) {
      const stem = SECRET_HEADERS[lower]!;
      const n = secrets.filter((s) => s.header === lower).length;
      found = { name: n ? `${stem}_${n + 1}` : stem, header: lower, value, entries: [] };
      secrets.push(found);
    }
    if (!found.entries.includes(entry)) found.entries.push(entry);
    return `{{${found.name}}}`;
  };

  entries.forEach((e, i) => {
    const entry = i + 1;
    const method = (str(e.request?.method) ?? '').toUpperCase();
    const rawUrl = str(e.request?.url) ?? '';
    const report: HarEntryReport = {
      entry,
      method,
      url: rawUrl,
      status: statusOf(e),
      outcome: 'imported',
      carried: [],
      dropped: [],
      notCarried: [],
    };
    reports.push(report);
    const head = followerOf.get(i);
    if (head !== undefined) {
      const headReport = reports[head]!;
      report.outcome = headReport.outcome === 'imported' ? 'redirect' : headReport.outcome;
      report.redirectOf = head + 1;
      if (report.outcome === 'cut') report.notCarried.push(`part of entry ${head + 1}'s redirects, which was cut`);
      return;
    }
    let url: URL | null = null;
    try {
      url = new URL(rawUrl);
    } catch {
      url = null;
    }
    if (!method || !METHOD.test(method) || method === 'CONNECT') {
      report.outcome = 'skipped';
      report.notCarried.push(
        method ? `method ${method}: not a method an API node sends` : 'the entry has no request method',
      );
      return;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      report.outcome = 'skipped';
      report.notCarried.push(
        url ? `not an http(s) request (${url.protocol.replace(/:$/, '')})` : `the URL "${rawUrl}" does not parse`,
      );
      return;
    }
    if (includeHosts.length) {
      const host = url.hostname.toLowerCase();
      if (!includeHosts.some((h) => h === host || h === url.host.toLowerCase())) {
        report.outcome = 'host';
        return;
      }
    }
    if (options.excludeStatic) {
      const mime = str(e.response?.content?.mimeType) || headerOf(e.response?.headers, 'content-type') || '';
      if (isStaticMime(mime) || STATIC_EXTENSIONS.test(url.pathname)) {
        report.outcome = 'static';
        return;
      }
    }
    if (flow.length >= MAX_HAR_REQUESTS) {
      report.outcome = 'cut';
      report.notCarried.push(`cut: a test case holds at most ${MAX_HAR_REQUESTS} requests`);
      return;
    }

    // The URL: the first kept origin becomes {{base}}; queryString joins a URL without a query.
    url.hash = '';
    if (!url.search) {
      const query = pairs(e.request?.queryString).filter((q) => typeof q.name === 'string');
      if (query.length) {
        url.search = new URLSearchParams(query.map((q) => [str(q.name)!, str(q.value) ?? ''])).toString();
        report.carried.push(`query from queryString (${query.length})`);
      }
    }
    base ??= url.origin;
    const target = url.origin === base ? `{{${BASE_VARIABLE}}}${url.href.slice(url.origin.length)}` : url.href;
    if (target.length > MAX_URL) {
      report.outcome = 'skipped';
      report.notCarried.push(`the URL is ${target.length} characters long; at most ${MAX_URL} are allowed`);
      return;
    }
    const request: RequestSpec = { method, url: target };

    // Headers.
    const postData = e.request?.postData;
    const postMime = str(postData?.mimeType) ?? '';
    const headers: Record<string, string> = {};
    const names = new Map<string, string>(); // lowercase → the name as first recorded
    const add = (name: string, value: string) => {
      const lower = name.toLowerCase();
      const at = names.get(lower);
      if (at === undefined) {
        names.set(lower, name);
        headers[name] = value;
      } else headers[at] = `${headers[at]}${lower === 'cookie' ? '; ' : ', '}${value}`;
    };
    for (const h of pairs(e.request?.headers)) {
      const name = str(h.name);
      const value = str(h.value) ?? '';
      if (!name) continue;
      const lower = name.toLowerCase();
      if (lower.startsWith(':') || CLIENT_HEADERS.has(lower) || (isBrowserOnlyHeader(lower) && !keep.has(lower))) {
        if (!report.dropped.includes(lower)) report.dropped.push(lower);
        continue;
      }
      if (!TOKEN.test(name)) {
        report.notCarried.push(`header "${name}": not a valid header name`);
        continue;
      }
      add(name, value);
    }
    if (!names.has('cookie')) {
      const cookies = pairs(e.request?.cookies).filter((c) => typeof c.name === 'string');
      if (cookies.length) add('Cookie', cookies.map((c) => `${str(c.name)}=${str(c.value) ?? ''}`).join('; '));
    }
    let multipartParts: RecordedPart[] | null = null;
    const isMultipart = /^\s*multipart\/form-data\b/i.test(
      postMime || (names.has('content-type') ? headers[names.get('content-type')!]! : ''),
    );
    if (isMultipart && postData) {
      const params = Array.isArray(postData?.params) ? postData.params : [];
      multipartParts = params.length
        ? params
            .filter((p) => typeof p.name === 'string')
            .map((p) =>
              typeof p.fileName === 'string'
                ? {
                    name: str(p.name)!,
                    fileName: p.fileName,
                    ...(str(p.contentType) ? { contentType: str(p.contentType) } : {}),
                  }
                : { name: str(p.name)!, value: str(p.value) ?? '' },
            )
        : (() => {
            const text = str(postData?.text);
            const boundary =
              multipartBoundary(postMime) ?? multipartBoundary(headers[names.get('content-type') ?? ''] ?? '');
            return text && boundary ? parseMultipartText(text, boundary) : null;
          })();
      const typeName = names.get('content-type');
      if (typeName !== undefined) {
        delete headers[typeName];
        names.delete('content-type');
        report.dropped.push('content-type');
      }
    }
    for (const [lower, name] of names) {
      if (SECRET_HEADERS[lower] !== undefined) {
        headers[name] = secretRef(lower, headers[name]!, entry);
        report.carried.push(`${name} as ${headers[name]} (secret)`);
      }
    }
    for (const [name, value] of Object.entries(headers)) {
      if (value.length > MAX_HEADER_VALUE) {
        delete headers[name];
        report.notCarried.push(
          `header ${name}: ${value.length} characters long; at most ${MAX_HEADER_VALUE} are allowed`,
        );
      }
    }
    const headerNames = Object.keys(headers);
    if (headerNames.length > MAX_HEADERS) {
      for (const name of headerNames.slice(MAX_HEADERS)) delete headers[name];
      report.notCarried.push(
        `headers ${headerNames.slice(MAX_HEADERS).join(', ')}: at most ${MAX_HEADERS} headers are allowed`,
      );
    }

    // Body.
    if (isMultipart && postData && !multipartParts) {
      if (str(postData.text) || (Array.isArray(postData.params) && postData.params.length))
        report.notCarried.push('multipart body: its parts could not be read');
    } else if (multipartParts) {
      const parts: MultipartPart[] = [];
      for (const p of multipartParts) {
        if (p.fileName === undefined) {
          parts.push({ name: p.name, value: p.value ?? '' });
          continue;
        }
        const file = workspaceFileName(p.fileName);
        if (!options.fileAvailable) {
          report.notCarried.push(
            `multipart part "${p.name}": file ${p.fileName}: a HAR holds no file bytes (pass --files-dir with the file)`,
          );
        } else if (!file) {
          report.notCarried.push(`multipart part "${p.name}": file name "${p.fileName}" cannot name a workspace file`);
        } else if (!options.fileAvailable(p.fileName)) {
          report.notCarried.push(`multipart part "${p.name}": file ${p.fileName} is not in --files-dir`);
        } else {
          parts.push({
            name: p.name,
            file,
            filename: p.fileName,
            ...(p.contentType ? { contentType: p.contentType } : {}),
          });
          const upload = uploads.find((u) => u.fileName === p.fileName);
          if (upload) {
            if (!upload.entries.includes(entry)) upload.entries.push(entry);
          } else
            uploads.push({
              fileName: p.fileName,
              file,
              ...(p.contentType ? { contentType: p.contentType } : {}),
              entries: [entry],
            });
        }
      }
      if (parts.length) {
        request.multipart = parts.slice(0, 100);
        report.carried.push(`multipart body (${Math.min(parts.length, 100)} part${parts.length === 1 ? '' : 's'})`);
        if (parts.length > 100) report.notCarried.push(`multipart parts beyond the 100th (${parts.length - 100})`);
      }
    } else if (postData && !isMultipart) {
      const text = str(postData.text);
      const params = Array.isArray(postData.params) ? postData.params : [];
      const typeName = names.get('content-type');
      const setType = (type: string) => {
        if (typeName === undefined && type) headers['Content-Type'] = type;
      };
      if (text !== undefined && text !== '') {
        let parsed: unknown;
        let isJson = false;
        if (isJsonMime(postMime || (typeName ? headers[typeName]! : ''))) {
          try {
            parsed = JSON.parse(text);
            isJson = parsed !== null && typeof parsed !== 'string';
          } catch {
            report.carried.push('body as text (its JSON does not parse)');
          }
        }
        if (isJson) {
          request.body = parsed;
          report.carried.push('JSON body');
        } else {
          request.body = text;
          if (!report.carried.some((c) => c.startsWith('body as text')))
            report.carried.push(`body (${postMime || 'text'})`);
        }
        setType(postMime);
      } else if (params.length) {
        const files = params.filter((p) => typeof p.fileName === 'string');
        for (const f of files)
          report.notCarried.push(
            `form parameter "${str(f.name)}": file ${str(f.fileName)} in a ${postMime || 'form'} body`,
          );
        const fields = params.filter((p) => typeof p.name === 'string' && typeof p.fileName !== 'string');
        request.body = new URLSearchParams(fields.map((p) => [str(p.name)!, str(p.value) ?? ''])).toString();
        report.carried.push(`form body (${fields.length} parameter${fields.length === 1 ? '' : 's'})`);
        setType(postMime || 'application/x-www-form-urlencoded');
      }
    }
    if (Object.keys(headers).length) request.headers = headers;
    if ((request.body !== undefined || request.multipart) && BODYLESS_METHODS.includes(method))
      request.alwaysSendBody = true;

    // Redirects and the status assertion.
    const last = lastOf.get(i) ?? i;
    const assertions: Assertion[] = [];
    let status = report.status;
    if (last !== i) {
      request.followRedirects = true;
      status = statusOf(entries[last]!);
      const chain = [...followerOf].filter(([, h]) => h === i).map(([j]) => j + 1);
      report.carried.push(
        `redirects the browser followed (entr${chain.length === 1 ? 'y' : 'ies'} ${chain.join(', ')}): followRedirects, asserting the last status`,
      );
    } else if (redirectTarget(e)) {
      request.followRedirects = false;
      report.carried.push(`redirect to ${redirectTarget(e)} (not recorded): not followed`);
    }
    if (status !== null) {
      assertions.push({ target: 'response.status', operator: 'equals', expected: status });
      report.carried.push(`status ${status}`);
    } else report.notCarried.push('status assertion: no response was recorded');
    const node: ApiNode = { type: 'api', id: `e${entry}`, name: nodeName(method, url), request };
    if (assertions.length) node.assertions = assertions;
    report.node = node.id;
    flow.push(node);
  });

  const counts: HarCounts = {
    entries: reports.length,
    imported: reports.filter((r) => r.outcome === 'imported').length,
    redirects: reports.filter((r) => r.outcome === 'redirect').length,
    static: reports.filter((r) => r.outcome === 'static').length,
    otherHosts: reports.filter((r) => r.outcome === 'host').length,
    cut: reports.filter((r) => r.outcome === 'cut').length,
    skipped: reports.filter((r) => r.outcome === 'skipped').length,
    notCarried: reports.filter((r) => r.notCarried.length).length,
  };
  const from = options.source ? ` ${options.source}` : '';
  return {
    creator,
    testCase: {
      name: options.name,
      folder: options.folder ?? '',
      description:
        `Recorded requests (HAR${from}${creator ? `, by ${creator}` : ''}): ${counts.imported} of ${counts.entries} entries, imported by assay import har`.slice(
          0,
          2000,
        ),
      tags: [HAR_TAG],
      flow,
    },
    base,
    secrets,
    uploads,
    entries: reports,
    counts,
  };
}
