/**
 * curl command lines in and out of requests (docs/cli.md "Importing", docs/console.md "Local
 * requests"). Pure: no storage, no network, no DOM, no Node built-ins, so that the console (its
 * local requests and the designer's "Paste cURL", console/src/local/curl.ts) and the command line
 * (`assay import curl`, cli/importers/curl.ts) read curl the same way.
 *
 * Reading: {@link tokenizeCurl} splits a command line with `shell-quote`'s parse (POSIX quoting;
 * `\`+newline line continuations joined first; `$VAR` kept as written) and {@link readCurlOptions}
 * sorts its tokens into flags (short ones expanded to their long names, `-sSL` as three, `-XPOST`
 * as flag and value) and positional arguments, from curl's own option table (curl(1), "OPTIONS").
 *
 * Import ({@link parseCurl}) reads: -X/--request, -H/--header,
 * -d/--data/--data-ascii/--data-raw/--data-binary/--data-urlencode, --json, -F/--form/--form-string,
 * -u/--user, --oauth2-bearer, --url, -G/--get, -I/--head, -A/--user-agent, -b/--cookie,
 * -e/--referer; --compressed is ignored silently. Every other flag is listed in the warnings (never
 * dropped silently), as is anything that needs a file the browser cannot read (`-d @file`, `-F
 * name=@file`: the file must be chosen again).
 *
 * Data becomes a body by its Content-Type, as curl would send it: JSON when the type says json;
 * a URL-encoded form when there is no type (curl's default, application/x-www-form-urlencoded) or
 * that type and every `&` piece is `name=value`; plain text otherwise. Headers the body kind sends
 * by itself (application/json for JSON, application/x-www-form-urlencoded for a form,
 * text/plain;charset=UTF-8 for text, multipart/form-data for multipart) are not kept as headers.
 *
 * Export ({@link toCurl}) writes one argument per line, each quoted for POSIX shells (single quotes,
 * `'` written `'\''`), so that import(export(r)) gives back r's method, URL, enabled headers and body.
 */
import { parse } from 'shell-quote';

/** The methods a request read from curl may use (the console's local requests' methods). */
export const CURL_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'] as const;
export type CurlMethod = (typeof CURL_METHODS)[number];

/** The kinds of body: JSON, URL-encoded form, multipart form, plain text, or none. */
export type CurlBodyKind = 'none' | 'json' | 'form' | 'multipart' | 'text';

/** A name/value row (a header, a form field); disabled rows are kept but not sent. */
export interface CurlRow {
  name: string;
  value: string;
  enabled: boolean;
}

/** A row of a multipart body: text (`value`), or a file known by its name only (`fileName`). */
export interface CurlPartRow extends CurlRow {
  kind: 'text' | 'file';
  fileName?: string;
}

/** The fields of a request a curl command line carries. */
export interface CurlRequest {
  method: CurlMethod;
  /** Absolute, or relative (`/users`) when the command gave a path. */
  url: string;
  headers: CurlRow[];
  bodyKind: CurlBodyKind;
  /** The JSON or plain-text body. */
  text: string;
  form: CurlRow[];
  multipart: CurlPartRow[];
}

/** What {@link parseCurl} read, and what it could not take over (shown to the user). */
export interface CurlImport {
  request: CurlRequest;
  warnings: string[];
}

/** A command line that cannot be imported at all (not curl, no URL). */
export class CurlError extends Error {}

const SHORT: Record<string, string> = {
  X: 'request',
  H: 'header',
  d: 'data',
  F: 'form',
  u: 'user',
  G: 'get',
  I: 'head',
  A: 'user-agent',
  b: 'cookie',
  e: 'referer',
  o: 'output',
  m: 'max-time',
  w: 'write-out',
  x: 'proxy',
  T: 'upload-file',
  E: 'cert',
  K: 'config',
  c: 'cookie-jar',
  r: 'range',
  U: 'proxy-user',
  z: 'time-cond',
  Y: 'speed-limit',
  y: 'speed-time',
  C: 'continue-at',
  D: 'dump-header',
  P: 'ftp-port',
  Q: 'quote',
  t: 'telnet-option',
  k: 'insecure',
  L: 'location',
  s: 'silent',
  S: 'show-error',
  v: 'verbose',
  i: 'include',
  f: 'fail',
  O: 'remote-name',
  J: 'remote-header-name',
  g: 'globoff',
  N: 'no-buffer',
  n: 'netrc',
  '#': 'progress-bar',
};
/** Long flags that take a value (the supported ones and the ignored ones, whose value must be skipped too). */
const TAKES_VALUE = new Set([
  'request',
  'header',
  'data',
  'data-ascii',
  'data-raw',
  'data-binary',
  'data-urlencode',
  'json',
  'form',
  'form-string',
  'user',
  'url',
  'user-agent',
  'cookie',
  'referer',
  'oauth2-bearer',
  'output',
  'max-time',
  'connect-timeout',
  'write-out',
  'proxy',
  'upload-file',
  'cert',
  'key',
  'cacert',
  'capath',
  'config',
  'cookie-jar',
  'retry',
  'retry-delay',
  'retry-max-time',
  'resolve',
  'connect-to',
  'limit-rate',
  'max-redirs',
  'interface',
  'range',
  'proxy-user',
  'time-cond',
  'speed-limit',
  'speed-time',
  'continue-at',
  'dump-header',
  'ftp-port',
  'quote',
  'telnet-option',
  'cert-type',
  'key-type',
  'pass',
  'ciphers',
  'dns-servers',
  'local-port',
  'max-filesize',
  'noproxy',
  'output-dir',
  'proto',
  'proto-redir',
  'request-target',
  'unix-socket',
  'aws-sigv4',
  'expect100-timeout',
  'header-file',
  'variable',
  'url-query',
  'trace',
  'trace-ascii',
  'stderr',
  'netrc-file',
  'proxy-header',
  'socks4',
  'socks5',
  'pubkey',
]);
const SILENTLY_IGNORED = new Set(['compressed']);

/** Header names whose values are credentials (RFC 9110 §11.6.2, §11.7.2; RFC 6265 §5.4; and the usual API key headers). */
export const SECRET_HEADER = /^(authorization|proxy-authorization|cookie)$|api[-_]?key|token|secret|password/i;

/** A credential in a header value: the variable it goes to, the scheme kept as written, the secret. */
export interface HeaderCredential {
  /** The variable name wanted: `token` (Bearer, Token), `authorization`, `proxyAuthorization`, `cookie`, else the header's name in camelCase (`xApiKey`). */
  variable: string;
  /** `Bearer`, `Basic`, …: kept in the header before the `{{variable}}` (Authorization and Proxy-Authorization only). */
  scheme?: string;
  /** The value that goes to the variable. */
  secret: string;
}

/**
 * The credential in header `name: value` ({@link SECRET_HEADER}), or undefined for other headers, an
 * empty value and a value that is already a `{{variable}}`. The rule of `assay import curl` and the
 * console's "Paste cURL": credentials become variables, never literals in a test case.
 */
export function headerCredential(name: string, value: string): HeaderCredential | undefined {
  if (value === '' || !SECRET_HEADER.test(name) || /^\{\{[^{}]+\}\}$/.test(value)) return undefined;
  const lower = name.toLowerCase();
  const scheme = /^(\S+)\s+(\S.*)$/.exec(value);
  if ((lower === 'authorization' || lower === 'proxy-authorization') && scheme) {
    const variable = /^(bearer|token)$/i.test(scheme[1]!)
      ? 'token'
      : lower === 'authorization'
        ? 'authorization'
        : 'proxyAuthorization';
    return { variable, scheme: scheme[1], secret: scheme[2]! };
  }
  const variable =
    lower === 'cookie'
      ? 'cookie'
      : name
          .replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())
          .replace(/^./, (c) => c.toLowerCase());
  return { variable: variable || 'secret', secret: value };
}

/** The Content-Type each body kind sends by itself (not kept as a header on import, added on export). */
export const DEFAULT_TYPES: Partial<Record<CurlBodyKind, string>> = {
  json: 'application/json',
  form: 'application/x-www-form-urlencoded',
  text: 'text/plain;charset=UTF-8',
};

function utf8Base64(s: string): string {
  let bin = '';
  for (const b of new TextEncoder().encode(s)) bin += String.fromCharCode(b);
  return btoa(bin);
}

/**
 * Tokens of a shell command line: strings only (`\`+newline continuations joined, quotes removed,
 * `$VAR` kept as written, `#` comments dropped); stops at the first operator (`|`, `;`, `&&`…) and
 * says so in `warnings`.
 */
export function tokenizeCurl(command: string, warnings: string[]): string[] {
  const joined = command.replace(/\\\r?\n/g, ' ').trim();
  const entries = parse(joined, (key: string) => `$${key}`);
  const out: string[] = [];
  for (const e of entries) {
    if (typeof e === 'string') out.push(e);
    else if ('comment' in e) continue;
    else if (e.op === 'glob') out.push((e as { pattern: string }).pattern);
    else {
      warnings.push(`Only the curl command was imported: everything from "${e.op}" on was ignored.`);
      break;
    }
  }
  return out;
}

/** One flag of a curl command line: its long name (`request`; `-z`-style for a short one curl's table here does not name), its value when it takes one (absent when the line ended first), and how it was written (`-X`, `--request`). */
export interface CurlOption {
  flag: string;
  value?: string;
  shown: string;
}

/** True when curl's flag `name` (long, without `--`) takes a value. */
export function curlFlagTakesValue(name: string): boolean {
  return TAKES_VALUE.has(name);
}

/**
 * The flags and positional arguments of a tokenised command line after its first token (`curl`):
 * `--name [value]`, `-X value` or `-XPOST`, and grouped short flags (`-sSL`); anything not starting
 * with `-` is positional (the URLs).
 */
export function readCurlOptions(tokens: readonly string[]): { options: CurlOption[]; positional: string[] } {
  const opts: CurlOption[] = [];
  const positional: string[] = [];
  for (let i = 1; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.startsWith('--') && t.length > 2) {
      const name = t.slice(2);
      if (TAKES_VALUE.has(name)) opts.push({ flag: name, value: tokens[++i], shown: t });
      else opts.push({ flag: name, shown: t });
    } else if (t.startsWith('-') && t.length > 1) {
      for (let j = 1; j < t.length; j++) {
        const ch = t[j]!;
        const name = SHORT[ch];
        if (name && TAKES_VALUE.has(name)) {
          const rest = t.slice(j + 1);
          opts.push({ flag: name, value: rest !== '' ? rest : tokens[++i], shown: `-${ch}` });
          break;
        }
        opts.push({ flag: name ?? `-${ch}`, shown: `-${ch}` });
      }
    } else positional.push(t);
  }
  return { options: opts, positional };
}

/**
 * Reads a curl command line into a request (see the module's rules). Throws {@link CurlError}
 * when the text does not start with `curl` or names no URL.
 */
export function parseCurl(command: string): CurlImport {
  const warnings: string[] = [];
  const tokens = tokenizeCurl(command, warnings);
  if (tokens[0] !== 'curl') throw new CurlError('This is not a curl command: it should start with "curl".');
  const { options: opts, positional } = readCurlOptions(tokens);

  let method: string | undefined;
  let url: string | undefined;
  let head = false;
  let get = false;
  const headers: CurlRow[] = [];
  const data: string[] = [];
  const parts: CurlPartRow[] = [];
  const unknown: string[] = [];
  for (const o of opts) {
    if (o.value === undefined && TAKES_VALUE.has(o.flag)) {
      warnings.push(`${o.shown} has no value and was ignored.`);
      continue;
    }
    const v = o.value ?? '';
    switch (o.flag) {
      case 'request':
        method = v.toUpperCase();
        break;
      case 'url':
        url = v;
        break;
      case 'header': {
        const colon = v.indexOf(':');
        const semi = v.indexOf(';');
        if (colon > 0) {
          const value = v.slice(colon + 1).trim();
          if (value === '') warnings.push(`-H "${v}" removes a header in curl; nothing to import.`);
          else headers.push({ name: v.slice(0, colon).trim(), value, enabled: true });
        } else if (semi > 0 && semi === v.length - 1)
          headers.push({ name: v.slice(0, semi).trim(), value: '', enabled: true });
        else if (v.startsWith('@'))
          warnings.push(`-H ${v} reads headers from a file, which the browser cannot read: add them by hand.`);
        else warnings.push(`-H "${v}" is not "Name: value" and was ignored.`);
        break;
      }
      case 'data':
      case 'data-ascii':
      case 'data-binary':
        if (v.startsWith('@'))
          warnings.push(
            `${o.shown} ${v} reads the body from the file ${v.slice(1)}, which the browser cannot read: paste its contents into the body.`,
          );
        else data.push(o.flag === 'data-binary' ? v : v.replace(/\r?\n/g, ''));
        break;
      case 'data-raw':
        data.push(v);
        break;
      case 'json':
        if (v.startsWith('@'))
          warnings.push(
            `--json ${v} reads the body from a file, which the browser cannot read: paste its contents into the body.`,
          );
        else data.push(v);
        if (!headers.some((h) => h.name.toLowerCase() === 'content-type'))
          headers.push({ name: 'Content-Type', value: 'application/json', enabled: true });
        if (!headers.some((h) => h.name.toLowerCase() === 'accept'))
          headers.push({ name: 'Accept', value: 'application/json', enabled: true });
        break;
      case 'data-urlencode': {
        const eq = v.indexOf('=');
        const at = v.indexOf('@');
        if (at >= 0 && (eq < 0 || at < eq))
          warnings.push(`--data-urlencode ${v} reads a file, which the browser cannot read: add the field by hand.`);
        else if (eq < 0) data.push(encodeURIComponent(v));
        else if (eq === 0) data.push(encodeURIComponent(v.slice(1)));
        else data.push(`${v.slice(0, eq)}=${encodeURIComponent(v.slice(eq + 1))}`);
        break;
      }
      case 'form':
      case 'form-string': {
        const eq = v.indexOf('=');
        if (eq <= 0) {
          warnings.push(`${o.shown} "${v}" is not name=value and was ignored.`);
          break;
        }
        const name = v.slice(0, eq);
        let value = v.slice(eq + 1);
        if (o.flag === 'form' && value.startsWith('@')) {
          const fileName = value
            .slice(1)
            .split(';')[0]!
            .replace(/^"(.*)"$/, '$1');
          parts.push({ name, value: '', enabled: true, kind: 'file', fileName });
          warnings.push(
            `The file "${fileName}" of form field "${name}" must be chosen again: the browser cannot read files named on a command line.`,
          );
        } else if (o.flag === 'form' && value.startsWith('<')) {
          parts.push({ name, value: '', enabled: true, kind: 'text' });
          warnings.push(
            `Form field "${name}" takes its text from the file ${value.slice(1)}, which the browser cannot read: type it in.`,
          );
        } else {
          if (o.flag === 'form') value = value.replace(/;type=[^;]*$/, '');
          parts.push({ name, value, enabled: true, kind: 'text' });
        }
        break;
      }
      case 'user': {
        headers.push({
          name: 'Authorization',
          value: `Basic ${utf8Base64(v.includes(':') ? v : `${v}:`)}`,
          enabled: true,
        });
        if (!v.includes(':'))
          warnings.push('-u gave no password (curl would ask for one): an empty password was used.');
        break;
      }
      case 'oauth2-bearer':
        headers.push({ name: 'Authorization', value: `Bearer ${v}`, enabled: true });
        break;
      case 'user-agent':
        headers.push({ name: 'User-Agent', value: v, enabled: true });
        break;
      case 'referer':
        headers.push({ name: 'Referer', value: v, enabled: true });
        break;
      case 'cookie':
        if (v.includes('=')) headers.push({ name: 'Cookie', value: v, enabled: true });
        else
          warnings.push(
            `-b ${v} reads cookies from a file, which the browser cannot read: add a Cookie header by hand.`,
          );
        break;
      case 'get':
        get = true;
        break;
      case 'head':
        head = true;
        break;
      default:
        if (SILENTLY_IGNORED.has(o.flag)) break;
        unknown.push(o.value !== undefined ? `${o.shown} ${o.value}` : o.shown);
    }
  }
  if (unknown.length > 0) warnings.push(`Not supported, ignored: ${unknown.join(', ')}.`);
  if (positional.length > 0 && url === undefined) url = positional.shift();
  if (positional.length > 0) warnings.push(`Extra arguments ignored: ${positional.join(' ')}.`);
  if (!url) throw new CurlError('The curl command names no URL.');
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url) && !url.startsWith('/') && !url.startsWith('{{')) url = `http://${url}`;

  const request: CurlRequest = { method: 'GET', url, headers, bodyKind: 'none', text: '', form: [], multipart: [] };
  const typeIndex = headers.findIndex((h) => h.name.toLowerCase() === 'content-type');
  const type = typeIndex >= 0 ? headers[typeIndex]!.value : undefined;
  const dropType = () => {
    const i = headers.findIndex((h) => h.name.toLowerCase() === 'content-type');
    if (i >= 0) headers.splice(i, 1);
  };
  const body = data.join('&');
  if (parts.length > 0) {
    if (data.length > 0)
      warnings.push('Both -d and -F were given (curl refuses that): the -F form was imported, the -d data ignored.');
    request.bodyKind = 'multipart';
    request.multipart = parts;
    if (type && /^multipart\/form-data/i.test(type)) dropType();
  } else if (data.length > 0 && get) {
    request.url += (request.url.includes('?') ? '&' : '?') + body;
  } else if (data.length > 0) {
    const lower = type?.toLowerCase();
    const pieces = body.split('&').filter((p) => p !== '');
    if (lower && /json/.test(lower)) {
      request.bodyKind = 'json';
      request.text = body;
      if (lower === DEFAULT_TYPES.json) dropType();
    } else if (
      (lower === undefined || lower.startsWith(DEFAULT_TYPES.form!)) &&
      pieces.length > 0 &&
      pieces.every((p) => p.indexOf('=') > 0)
    ) {
      request.bodyKind = 'form';
      request.form = pieces.map((p) => {
        const eq = p.indexOf('=');
        return { name: decodeForm(p.slice(0, eq)), value: decodeForm(p.slice(eq + 1)), enabled: true };
      });
      if (lower === DEFAULT_TYPES.form) dropType();
    } else {
      request.bodyKind = 'text';
      request.text = body;
      if (lower === undefined) headers.push({ name: 'Content-Type', value: DEFAULT_TYPES.form!, enabled: true });
      else if (lower === DEFAULT_TYPES.text!.toLowerCase()) dropType();
    }
  }
  const wanted = method ?? (head ? 'HEAD' : get ? 'GET' : request.bodyKind !== 'none' ? 'POST' : 'GET');
  if ((CURL_METHODS as readonly string[]).includes(wanted)) request.method = wanted as CurlMethod;
  else
    warnings.push(
      `The method ${wanted} is not one a local request can use (${CURL_METHODS.join(', ')}): GET was used.`,
    );
  return { request, warnings };
}

function decodeForm(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

/** `s` quoted for a POSIX shell: as is when it is only safe characters, else in single quotes. */
export function shellQuote(s: string): string {
  if (s !== '' && /^[A-Za-z0-9_\-./:=@%+,]+$/.test(s)) return s;
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Options of {@link toCurl}. */
export interface ExportOptions {
  /** The origin relative URLs (`/`…) resolve against: the console's, as when sending. */
  origin: string;
  /** Applied to the URL, header names and values and body texts (variable resolution), or none: written as they are. */
  transform?: (text: string) => string;
}

/**
 * A curl command line for `r` (enabled headers and rows only), one argument per line. Multipart
 * files are written `-F 'name=@"file name"'`: the file must be next to the shell to run it.
 */
export function toCurl(r: CurlRequest, options: ExportOptions): string {
  const t = options.transform ?? ((s: string) => s);
  const args: string[] = ['curl'];
  const headers = r.headers.filter((h) => h.enabled && h.name);
  const hasBody = r.bodyKind !== 'none' && r.method !== 'HEAD';
  if (r.method === 'HEAD') args.push('--head');
  else if (r.method !== 'GET' || hasBody) args.push('-X', r.method);
  let url = t(r.url);
  if (url.startsWith('/') && !url.startsWith('//')) url = options.origin.replace(/\/$/, '') + url;
  args.push(shellQuote(url));
  const hasType = headers.some((h) => t(h.name).toLowerCase() === 'content-type');
  const defaultType = hasBody ? DEFAULT_TYPES[r.bodyKind] : undefined;
  for (const h of headers)
    args.push('-H', shellQuote(h.value === '' ? `${t(h.name)};` : `${t(h.name)}: ${t(h.value)}`));
  if (defaultType && !hasType) args.push('-H', shellQuote(`Content-Type: ${defaultType}`));
  if (hasBody) {
    if (r.bodyKind === 'json' || r.bodyKind === 'text') args.push('--data-raw', shellQuote(t(r.text)));
    else if (r.bodyKind === 'form')
      for (const f of r.form.filter((x) => x.enabled && x.name))
        args.push('--data-urlencode', shellQuote(`${t(f.name)}=${t(f.value)}`));
    else if (r.bodyKind === 'multipart')
      for (const p of r.multipart.filter((x) => x.enabled && x.name)) {
        if (p.kind === 'file')
          args.push('-F', shellQuote(`${t(p.name)}=@"${(p.fileName ?? 'file').replace(/(["\\])/g, '\\$1')}"`));
        else args.push('--form-string', shellQuote(`${t(p.name)}=${t(p.value)}`));
      }
  }
  // One argument (or flag and value) per line.
  const lines: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a.startsWith('-') && a !== '--head' && i + 1 < args.length) {
      lines.push(`${a} ${args[++i]}`);
    } else lines.push(a);
  }
  return lines.join(' \\\n  ');
}
