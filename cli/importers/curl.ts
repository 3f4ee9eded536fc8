/**
 * curl command lines to ONE test case (`assay import curl`, docs/cli.md "Importing"): one API node
 * per command, read with the reader the console uses (src/importers/curl.ts `tokenizeCurl`,
 * `readCurlOptions`: the same quoting and flag table), translated here into what an API node sends
 * (docs/flows.md). Pure but for the files a command names, which are read through the
 * {@link CurlImportOptions.readFile} it is given.
 *
 * | curl | the node |
 * |---|---|
 * | `-X`, `--request`; `-I`; `-G`; else POST with a body, GET without | `request.method` |
 * | URL (positional or `--url`; `http://` added when it has no scheme, as curl does) | `request.url`, `{{base}}` + path when it starts with the base URL (`--base-url`, else the first command's origin) |
 * | `-H "Name: value"`, `-H "Name;"` (empty), `-A`, `-e` | `request.headers` (repeated names joined with `, `) |
 * | `-d`, `--data-ascii`, `--data-raw`, `--data-binary`, `--data-urlencode`, `--json` | `request.body`: JSON when the Content-Type says json and it parses, else the text; no Content-Type: `application/x-www-form-urlencoded`, as curl sends; with `-G` appended to the query |
 * | `-d @file`, `--data-urlencode name@file`, … | the file's text in the body (`-d` drops its line breaks, as curl does) |
 * | `--data-binary @file`, `--json @file` (alone) | `request.file`: the file uploaded to the workspace files |
 * | `-F name=value`, `--form-string`, `-F "name=<file"` | a text part of `request.multipart` |
 * | `-F name=@path[;type=…][;filename=…]` | a file part: the file uploaded to the workspace files |
 * | `-u user:password` (or `user:password@` in the URL) | a `basic` auth profile `{{username}}`/`{{password}}` (`authProfile` of the node), the credentials secret variables |
 * | `-u` with `--digest` | `request.auth` `{type: "digest", username: "{{username}}", password: "{{password}}"}` |
 * | `Authorization`, `Proxy-Authorization`, headers named like keys/tokens/secrets, `-b`/`--cookie`, `--oauth2-bearer` | the value (after the scheme) in a secret variable, `{{token}}` in the header |
 * | `-k` / `--insecure` | `strictSSL: false` |
 * | `-L` (`--max-redirs N`) | `followRedirects: true` (`maxRedirects`, at most 50); without `-L` `followRedirects: false`, as curl does not follow |
 * | `-m` / `--max-time S` | `timeoutMs` |
 * | `--compressed` | nothing: Assay asks for and decodes compressed answers itself |
 * | `-s`, `-S`, `-v`, `-i`, `-o`, `-w`, `-f`, … | nothing: they change only what curl prints |
 *
 * Every node asserts a 2xx status. Anything else (an unknown flag, a file that could not be read,
 * a second URL, a shell operator) is listed in the command's `notCarried`.
 */
import path from 'node:path';
import type { ApiNode, Assertion, MultipartPart, RequestSpec } from '../../src/domain/types';
import { curlFlagTakesValue, headerCredential, readCurlOptions, tokenizeCurl } from '../../src/importers/curl';
import { nodeIdFor } from '../../src/importers/node-id';
import { guessContentType } from '../workspace-files';

/** One command of the input: the line it starts on (1-based) and its text (continuations kept). */
export interface CurlSource {
  line: number;
  text: string;
}

/**
 * The commands of a text: one per line, a line ending in `\` continuing on the next, a newline
 * inside quotes continuing the command (a multi-line `-d '{…}'`), blank lines and lines starting
 * with `#` between commands skipped.
 */
export function splitCurlCommands(text: string): CurlSource[] {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const out: CurlSource[] = [];
  let current: { line: number; parts: string[] } | undefined;
  let quote: '"' | "'" | undefined;
  for (const [i, line] of lines.entries()) {
    if (!current) {
      const t = line.trim();
      if (t === '' || t.startsWith('#')) continue;
      current = { line: i + 1, parts: [] };
    }
    current.parts.push(line);
    // Track quotes across the line (a backslash escapes outside single quotes).
    let escaped = false;
    for (const ch of line) {
      if (escaped) escaped = false;
      else if (ch === '\\' && quote !== "'") escaped = true;
      else if (quote && ch === quote) quote = undefined;
      else if (!quote && (ch === '"' || ch === "'")) quote = ch;
    }
    const continued = quote !== undefined || (escaped && line.endsWith('\\'));
    if (!continued) {
      out.push({ line: current.line, text: current.parts.join('\n') });
      current = undefined;
    }
  }
  if (current) out.push({ line: current.line, text: current.parts.join('\n') });
  return out;
}

/** A secret or plain variable of the environment, as `POST /v1/environments` takes it (docs/secrets.md "The shapes"). */
export type EnvironmentValue = string | { value: string; secret: true };

/** A file a command names, to upload to the workspace files as `name` (`PUT /v1/files/{name}`). */
export interface CurlFile {
  /** The workspace file's name (`curl/<test case>/<base name>`). */
  name: string;
  /** The path as the command wrote it, and as read (resolved against the base directory). */
  path: string;
  bytes: Uint8Array;
  /** The type it is uploaded with: guessed from the extension (cli/workspace-files.ts). */
  contentType: string;
}

/** A `basic` auth profile to create (docs/auth.md), its fields templates of secret variables. */
export interface CurlAuthProfile {
  name: string;
  config: { username: string; password: string };
}

/** What one command became: its node, and what was carried, noted or not carried. */
export interface CurlCommandReport {
  /** Line of the input the command starts on (1-based). */
  line: number;
  /** The node's id; absent when the command could not be read at all. */
  node?: string;
  method?: string;
  /** The node's URL (with `{{base}}`); never a secret. */
  url?: string;
  /** What was carried over, one entry per flag or construct (`-H Accept`, `-d (JSON body)`). */
  carried: string[];
  /** What was NOT carried (unknown flags, unreadable files, extra URLs): `--strict` refuses these. */
  notCarried: string[];
  /** Remarks: what needed nothing (`--compressed`), what changes behaviour (`-k`), what only affects curl's output. */
  notes: string[];
}

/** What {@link importCurl} made of the commands. */
export interface CurlImportResult {
  /** One node per command that could be read, in order. */
  nodes: ApiNode[];
  /** The environment's variables: `base` and every secret. */
  variables: Record<string, EnvironmentValue>;
  authProfiles: CurlAuthProfile[];
  files: CurlFile[];
  commands: CurlCommandReport[];
}

/** Options of {@link importCurl}. */
export interface CurlImportOptions {
  /** The test case's name: the workspace files go under `curl/<its slug>/`, auth profiles are named after it. */
  name: string;
  /** The base URL that becomes `{{base}}`; default the first command's origin. */
  baseUrl?: string;
  /** Reads a file a command names (`@path`, `<path`): its bytes, or an error message. */
  readFile: (file: string) => Uint8Array | { error: string };
}

/** The assertion every node starts with: a 2xx status (as the console's ways in, console/src/designer/ways-in/node.ts). */
export const STATUS_2XX: Assertion = {
  name: 'status is 2xx',
  target: 'response.status',
  operator: 'inRange',
  expected: [200, 299],
};

/** Flags that change only what curl prints or where it writes: nothing to carry. */
const OUTPUT_ONLY = new Set([
  'silent',
  'show-error',
  'verbose',
  'include',
  'output',
  'remote-name',
  'remote-header-name',
  'write-out',
  'dump-header',
  'progress-bar',
  'no-progress-meter',
  'trace',
  'trace-ascii',
  'stderr',
  'no-buffer',
  'globoff',
  'fail',
  'fail-with-body',
  'create-dirs',
]);

/** `a-z0-9_.-` of `name`, for workspace file and auth profile names. */
export function slugOf(name: string): string {
  return (
    name
      .replace(/[^A-Za-z0-9_.-]+/g, '-')
      .replace(/^[-.]+|-+$/g, '')
      .slice(0, 80) || 'curl'
  );
}

/** `METHOD /path?query` for a node's name (at most 200 characters). */
function nodeNameFor(method: string, url: string): string {
  const rest = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '').replace(/^\{\{\s*base\s*\}\}(?=\/|\?|$)/, '');
  return `${method} ${rest || '/'}`.slice(0, 200);
}

function decodeUtf8(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes);
}

/** The origin of an absolute http(s) URL, or undefined. */
function originOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : undefined;
  } catch {
    return undefined;
  }
}

/** Splits curl's `;key=value` modifiers off a `-F` content (`@"a;b.png";type=image/png;filename=x`). */
function formModifiers(content: string): { main: string; type?: string; filename?: string; other: string[] } {
  const pieces: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < content.length; i++) {
    const ch = content[i]!;
    if (ch === '\\' && quoted && i + 1 < content.length) cur += content[++i];
    else if (ch === '"') quoted = !quoted;
    else if (ch === ';' && !quoted) {
      pieces.push(cur);
      cur = '';
    } else cur += ch;
  }
  pieces.push(cur);
  const [main, ...mods] = pieces;
  const out: { main: string; type?: string; filename?: string; other: string[] } = { main: main ?? '', other: [] };
  for (const m of mods) {
    const eq = m.indexOf('=');
    const key = eq > 0 ? m.slice(0, eq).trim().toLowerCase() : m.trim();
    const value = eq > 0 ? m.slice(eq + 1) : '';
    if (key === 'type') out.type = value;
    else if (key === 'filename') out.filename = value;
    else if (m.trim() !== '') out.other.push(m.trim());
  }
  return out;
}

/**
 * Translates curl commands into API nodes, the environment's variables, auth profiles and the
 * files to upload (see the module's table). @throws nothing: a command that is not curl or names
 * no URL gets a report with `notCarried` and no node.
 */
export function importCurl(sources: readonly CurlSource[], options: CurlImportOptions): CurlImportResult {
  const slug = slugOf(options.name);
  const variables: Record<string, EnvironmentValue> = {};
  const secretValues = new Map<string, string>(); // variable → plain value (to reuse a variable for the same value)
  const files: CurlFile[] = [];
  const authProfiles: CurlAuthProfile[] = [];
  const nodes: ApiNode[] = [];
  const commands: CurlCommandReport[] = [];
  const usedIds = new Set<string>();
  let base = options.baseUrl?.replace(/\/+$/, '');
  if (base) variables.base = base;

  /** `{{name}}` of a secret variable holding `value` (a new `name2`… when `name` holds another). */
  const secretVar = (want: string, value: string, report: CurlCommandReport): string => {
    const whole = /^\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?$/.exec(value);
    if (whole) {
      report.notes.push(`the shell variable $${whole[1]} became {{${whole[1]}}}: set ${whole[1]} in the environment`);
      return `{{${whole[1]}}}`;
    }
    if (/^\{\{[^{}]+\}\}$/.test(value)) return value;
    for (let i = 1; ; i++) {
      const name = i === 1 ? want : `${want}${i}`;
      const held = secretValues.get(name);
      if (held === value) return `{{${name}}}`;
      if (held === undefined && !(name in variables)) {
        secretValues.set(name, value);
        // docs/secrets.md: values shorter than 4 characters cannot be masked and are refused as secrets.
        if (value.length >= 4) variables[name] = { value, secret: true };
        else {
          variables[name] = value;
          report.notes.push(
            `${name} is shorter than 4 characters: kept as a plain variable (Assay masks secrets of 4 or more)`,
          );
        }
        return `{{${name}}}`;
      }
    }
  };

  /** The workspace file name for `file` (the same path twice gives the same name). */
  const upload = (file: string, report: CurlCommandReport, what: string): CurlFile | undefined => {
    const seen = files.find((f) => f.path === file);
    if (seen) return seen;
    const read = options.readFile(file);
    if (!(read instanceof Uint8Array)) {
      report.notCarried.push(`${what}: the file ${file} could not be read (${read.error})`);
      return undefined;
    }
    const baseName =
      path
        .basename(file)
        .replace(/[^A-Za-z0-9_.-]+/g, '-')
        .replace(/^[.-]+/, '') || 'file';
    const ext = path.extname(baseName);
    let name = `curl/${slug}/${baseName}`;
    for (let i = 2; files.some((f) => f.name === name); i++)
      name = `curl/${slug}/${baseName.slice(0, baseName.length - ext.length)}-${i}${ext}`;
    const f: CurlFile = { name, path: file, bytes: read, contentType: guessContentType(baseName) };
    files.push(f);
    return f;
  };

  /** The text of a file (`-d @file`, `<file`), or undefined (noted). */
  const fileText = (file: string, report: CurlCommandReport, what: string): string | undefined => {
    const read = options.readFile(file);
    if (!(read instanceof Uint8Array)) {
      report.notCarried.push(`${what}: the file ${file} could not be read (${read.error})`);
      return undefined;
    }
    return decodeUtf8(read);
  };

  for (const source of sources) {
    const report: CurlCommandReport = { line: source.line, carried: [], notCarried: [], notes: [] };
    commands.push(report);
    const warnings: string[] = [];
    const tokens = tokenizeCurl(source.text, warnings);
    report.notCarried.push(...warnings);
    if (tokens[0] !== 'curl') {
      report.notCarried.push('not a curl command: it should start with "curl"');
      continue;
    }
    const { options: opts, positional } = readCurlOptions(tokens);

    let method: string | undefined;
    let url: string | undefined;
    let head = false;
    let get = false;
    let user: string | undefined;
    let digest = false;
    let location = false;
    let maxRedirs: number | undefined;
    const headers: Array<[string, string]> = [];
    /** Body pieces: text, or a file to send as is (`--data-binary @f`, `--json @f`). */
    const data: Array<{ text: string } | { file: string; json: boolean }> = [];
    let json = false;
    const parts: MultipartPart[] = [];
    const spec: Partial<RequestSpec> = {};

    for (const o of opts) {
      if (o.value === undefined && curlFlagTakesValue(o.flag)) {
        report.notCarried.push(`${o.shown} has no value`);
        continue;
      }
      const v = o.value ?? '';
      switch (o.flag) {
        case 'request':
          method = v.toUpperCase();
          report.carried.push(`${o.shown} ${method}`);
          break;
        case 'url':
          if (url === undefined) url = v;
          else report.notCarried.push(`${o.shown} ${v}: one URL per node (the first was used)`);
          break;
        case 'header': {
          const colon = v.indexOf(':');
          const semi = v.indexOf(';');
          if (colon > 0) {
            const value = v.slice(colon + 1).trim();
            const name = v.slice(0, colon).trim();
            if (value === '') report.notes.push(`${o.shown} "${v}" removes a header curl would add: nothing to carry`);
            else {
              headers.push([name, value]);
              report.carried.push(`${o.shown} ${name}`);
            }
          } else if (semi > 0 && semi === v.length - 1) {
            headers.push([v.slice(0, semi).trim(), '']);
            report.carried.push(`${o.shown} ${v.slice(0, semi).trim()} (empty)`);
          } else if (v.startsWith('@')) report.notCarried.push(`${o.shown} ${v}: headers from a file`);
          else report.notCarried.push(`${o.shown} "${v}": not "Name: value"`);
          break;
        }
        case 'user-agent':
          headers.push(['User-Agent', v]);
          report.carried.push(`${o.shown} (User-Agent)`);
          break;
        case 'referer':
          headers.push(['Referer', v]);
          report.carried.push(`${o.shown} (Referer)`);
          break;
        case 'oauth2-bearer':
          headers.push(['Authorization', `Bearer ${v}`]);
          report.carried.push(`${o.shown} (Authorization: Bearer)`);
          break;
        case 'cookie':
          if (v.includes('=')) {
            headers.push(['Cookie', v]);
            report.carried.push(`${o.shown} (Cookie)`);
          } else report.notCarried.push(`${o.shown} ${v}: cookies from a file`);
          break;
        case 'user':
          user = v;
          break;
        case 'digest':
          digest = true;
          break;
        case 'data':
        case 'data-ascii':
        case 'data-binary':
        case 'data-raw':
        case 'json': {
          if (o.flag === 'json') json = true;
          if (o.flag !== 'data-raw' && v.startsWith('@')) {
            const file = v.slice(1);
            if (file === '-') {
              report.notCarried.push(`${o.shown} @-: the body from standard input`);
              break;
            }
            if (o.flag === 'data-binary' || o.flag === 'json') data.push({ file, json: o.flag === 'json' });
            else {
              const text = fileText(file, report, `${o.shown} ${v}`);
              if (text !== undefined) {
                data.push({ text: text.replace(/\r?\n/g, '') });
                report.carried.push(`${o.shown} ${v} (the file's text)`);
              }
            }
          } else {
            data.push({ text: o.flag === 'data' || o.flag === 'data-ascii' ? v.replace(/\r?\n/g, '') : v });
            report.carried.push(`${o.shown} (body)`);
          }
          break;
        }
        case 'data-urlencode': {
          const eq = v.indexOf('=');
          const at = v.indexOf('@');
          if (at >= 0 && (eq < 0 || at < eq)) {
            const text = fileText(v.slice(at + 1), report, `${o.shown} ${v}`);
            if (text === undefined) break;
            data.push({ text: at > 0 ? `${v.slice(0, at)}=${encodeURIComponent(text)}` : encodeURIComponent(text) });
          } else if (eq < 0) data.push({ text: encodeURIComponent(v) });
          else if (eq === 0) data.push({ text: encodeURIComponent(v.slice(1)) });
          else data.push({ text: `${v.slice(0, eq)}=${encodeURIComponent(v.slice(eq + 1))}` });
          report.carried.push(`${o.shown} (body, URL-encoded)`);
          break;
        }
        case 'form':
        case 'form-string': {
          const eq = v.indexOf('=');
          if (eq <= 0) {
            report.notCarried.push(`${o.shown} "${v}": not name=content`);
            break;
          }
          const name = v.slice(0, eq);
          const content = v.slice(eq + 1);
          if (o.flag === 'form-string') {
            parts.push({ name, value: content });
            report.carried.push(`${o.shown} ${name} (text part)`);
            break;
          }
          const mods = formModifiers(content);
          if (mods.other.length) report.notCarried.push(`${o.shown} ${name}: ${mods.other.join('; ')}`);
          if (mods.main.startsWith('@')) {
            const file = mods.main.slice(1);
            if (file === '-' || file.includes(',')) {
              report.notCarried.push(`${o.shown} ${name}=@${file}: standard input or several files in one field`);
              break;
            }
            const f = upload(file, report, `${o.shown} ${name}`);
            if (!f) break;
            const part: MultipartPart = { name, file: f.name, filename: mods.filename ?? path.basename(file) };
            if (mods.type) part.contentType = mods.type;
            parts.push(part);
            report.carried.push(`${o.shown} ${name}=@${file} (file part, workspace file ${f.name})`);
          } else if (mods.main.startsWith('<')) {
            const text = fileText(mods.main.slice(1), report, `${o.shown} ${name}`);
            if (text === undefined) break;
            parts.push({ name, value: text });
            report.carried.push(`${o.shown} ${name}=<${mods.main.slice(1)} (text part, the file's text)`);
          } else {
            parts.push({ name, value: mods.main });
            if (mods.type) report.notCarried.push(`${o.shown} ${name}: type=${mods.type} of a text part`);
            report.carried.push(`${o.shown} ${name} (text part)`);
          }
          break;
        }
        case 'get':
          get = true;
          report.carried.push(`${o.shown} (data in the query)`);
          break;
        case 'head':
          head = true;
          report.carried.push(`${o.shown} (HEAD)`);
          break;
        case 'insecure':
          spec.strictSSL = false;
          report.carried.push(`${o.shown} (strictSSL: false)`);
          report.notes.push(`${o.shown}: the server's TLS certificate is not checked (strictSSL: false)`);
          break;
        case 'location':
          location = true;
          report.carried.push(`${o.shown} (followRedirects)`);
          break;
        case 'max-redirs': {
          const n = Number(v);
          if (!Number.isInteger(n) || n < -1) report.notCarried.push(`${o.shown} ${v}: not a whole number`);
          else {
            maxRedirs = n === -1 || n > 50 ? 50 : n;
            report.carried.push(`${o.shown} ${v} (maxRedirects ${maxRedirs})`);
            if (maxRedirs !== n) report.notes.push(`${o.shown} ${v}: Assay follows at most 50 redirects`);
          }
          break;
        }
        case 'max-time': {
          const s = Number(v);
          if (!Number.isFinite(s) || s <= 0) report.notCarried.push(`${o.shown} ${v}: not a number of seconds`);
          else {
            spec.timeoutMs = Math.round(s * 1000);
            report.carried.push(`${o.shown} ${v} (timeoutMs ${spec.timeoutMs})`);
          }
          break;
        }
        case 'compressed':
          report.notes.push(`${o.shown}: nothing to do, Assay asks for compressed answers and decodes them itself`);
          break;
        default:
          if (OUTPUT_ONLY.has(o.flag)) report.notes.push(`${o.shown}: changes only what curl prints, nothing to carry`);
          else
            report.notCarried.push(
              o.value !== undefined ? `${o.shown} ${o.value}: not supported` : `${o.shown}: not supported`,
            );
      }
    }
    if (url === undefined) url = positional.shift();
    if (positional.length) report.notCarried.push(`extra arguments: ${positional.join(' ')} (one URL per node)`);
    if (!url) {
      report.notCarried.push('the command names no URL');
      continue;
    }
    if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url) && !url.startsWith('{{')) url = `http://${url}`;
    // Credentials in the URL (`http://name:passwd@host/`): as -u, never left in the URL.
    const userinfo = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#@]*)@/i.exec(url);
    if (userinfo) {
      url = userinfo[1]! + url.slice(userinfo[0].length);
      if (user === undefined) {
        user = userinfo[2]!
          .split(':')
          .map((p) => {
            try {
              return decodeURIComponent(p);
            } catch {
              return p;
            }
          })
          .join(':');
        report.notes.push('the credentials in the URL were taken as -u');
      } else report.notes.push('the credentials in the URL were dropped: -u gives them');
    }

    // Headers: secrets into variables.
    const out: Record<string, string> = {};
    for (const [name, raw] of headers) {
      let value = raw;
      const credential = headerCredential(name, raw);
      if (credential)
        value = `${credential.scheme ? `${credential.scheme} ` : ''}${secretVar(credential.variable, credential.secret, report)}`;
      const existing = Object.keys(out).find((k) => k.toLowerCase() === name.toLowerCase());
      if (existing)
        out[existing] = name.toLowerCase() === 'cookie' ? `${out[existing]}; ${value}` : `${out[existing]}, ${value}`;
      else out[name] = value;
    }
    const typeKey = Object.keys(out).find((k) => k.toLowerCase() === 'content-type');
    const request: RequestSpec = { method: 'GET', url };

    // Body.
    let hasBody = false;
    if (parts.length) {
      if (data.length) report.notCarried.push('-d together with -F (curl refuses both): the -d data was left out');
      request.multipart = parts;
      hasBody = true;
      if (typeKey && /^multipart\/form-data/i.test(out[typeKey]!)) {
        delete out[typeKey];
        report.notes.push(
          'the Content-Type multipart/form-data header was left to the multipart body (it sets its boundary)',
        );
      }
    } else if (data.length === 1 && 'file' in data[0]! && !get) {
      const d = data[0];
      const f = upload(d.file, report, `--data-binary @${d.file}`);
      if (f) {
        const contentType = d.json ? 'application/json' : typeKey ? undefined : 'application/x-www-form-urlencoded';
        request.file = contentType ? { file: f.name, contentType } : f.name;
        hasBody = true;
        report.carried.push(`@${d.file} (the whole body, workspace file ${f.name})`);
      }
    } else if (data.length) {
      const texts: string[] = [];
      for (const d of data) {
        if ('text' in d) texts.push(d.text);
        else {
          const text = fileText(d.file, report, `@${d.file}`);
          if (text !== undefined) {
            texts.push(text);
            report.carried.push(`@${d.file} (the file's text)`);
          }
        }
      }
      const body = texts.join('&');
      if (get) request.url += (request.url.includes('?') ? '&' : '?') + body;
      else {
        hasBody = true;
        const type = typeKey ? out[typeKey]! : json ? 'application/json' : undefined;
        if (json) {
          if (!typeKey) out['Content-Type'] = 'application/json';
          if (!Object.keys(out).some((k) => k.toLowerCase() === 'accept')) out.Accept = 'application/json';
        }
        let parsed: { ok: true; value: unknown } | undefined;
        if (type && /json/i.test(type)) {
          try {
            parsed = { ok: true, value: JSON.parse(body) };
          } catch {
            report.notes.push('the body is not valid JSON although its Content-Type says so: sent as text');
          }
        }
        request.body = parsed ? parsed.value : body;
        if (!type) out['Content-Type'] = 'application/x-www-form-urlencoded';
      }
    }
    request.method = method ?? (head ? 'HEAD' : get ? 'GET' : hasBody ? 'POST' : 'GET');

    // Credentials.
    let authProfile: string | undefined;
    if (user !== undefined) {
      const colon = user.indexOf(':');
      const username = colon >= 0 ? user.slice(0, colon) : user;
      const password = colon >= 0 ? user.slice(colon + 1) : '';
      if (colon < 0) report.notes.push('-u gave no password (curl would ask for one): an empty password was used');
      const u = secretVar('username', username, report);
      const p = secretVar('password', password, report);
      if (digest) {
        request.auth = { type: 'digest', username: u, password: p };
        report.carried.push(`-u (request.auth digest, ${u} and ${p})`);
      } else {
        const config = { username: u, password: p };
        let profile = authProfiles.find((a) => a.config.username === u && a.config.password === p);
        if (!profile) {
          profile = {
            name: authProfiles.length ? `${slug}-basic-${authProfiles.length + 1}` : `${slug}-basic`,
            config,
          };
          authProfiles.push(profile);
        }
        authProfile = profile.name;
        report.carried.push(`-u (Basic, auth profile ${profile.name} with ${u} and ${p})`);
      }
    } else if (digest) report.notCarried.push('--digest without -u: no credentials');

    // Base URL.
    if (!base) {
      const origin = originOf(request.url);
      if (origin) {
        base = origin;
        variables.base = base;
      }
    }
    const rest = base && request.url.startsWith(base) ? request.url.slice(base.length) : undefined;
    if (rest !== undefined && (rest === '' || /^[/?#]/.test(rest))) request.url = `{{base}}${rest}`;
    else if (!request.url.startsWith('{{'))
      report.notes.push(`the URL is not under the base URL ${base ?? ''}: kept as written`);

    if (Object.keys(out).length) request.headers = out;
    if (!location) {
      request.followRedirects = false;
      report.notes.push('no -L: followRedirects false, as curl does not follow redirects');
    } else {
      request.followRedirects = true;
      if (maxRedirs !== undefined) request.maxRedirects = maxRedirs;
    }
    if (spec.strictSSL === false) request.strictSSL = false;
    if (spec.timeoutMs !== undefined) request.timeoutMs = spec.timeoutMs;

    const id = nodeIdFor(request.method, request.url, usedIds);
    usedIds.add(id);
    const node: ApiNode = {
      id,
      name: nodeNameFor(request.method, request.url),
      type: 'api',
      request,
      assertions: [{ ...STATUS_2XX }],
      ...(authProfile ? { authProfile } : {}),
    };
    nodes.push(node);
    report.node = id;
    report.method = request.method;
    report.url = request.url;
  }
  return { nodes, variables, authProfiles, files, commands };
}
