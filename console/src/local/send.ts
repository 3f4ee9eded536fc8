/**
 * Sending a local request: straight from the browser with `fetch` (the default; relative URLs such
 * as `/` resolve against the console's own origin), or, when the request's "Send through the Assay
 * relay" setting is on, through `POST /v1/relay` (the only way a local request's content reaches
 * the Assay API besides "Save as test case"; both are explicit).
 *
 * Relay contract (docs/local-requests.md): request `{method, url (absolute), headers: [[name,
 * value]…], body?, bodyEncoding?: 'utf8'|'base64'}`; answer 200 `{status, statusText, headers:
 * [[name, value]…], body, bodyEncoding, timeMs, size, truncated}`; failures are problem documents
 * (429 rate-limited, 403 forbidden or address refused, 502 relay-failed), thrown as ApiError.
 */
import { api } from '../api';
import { getFile, type LocalRequest } from './store';
import { resolve, type Dynamic, type Variables, browserDynamic } from './variables';

/** The body of a prepared request: none, text (already resolved) or a multipart FormData. */
export type PreparedBody = { kind: 'none' } | { kind: 'text'; text: string } | { kind: 'multipart'; data: FormData };

/** A request with its variables resolved, ready for fetch or the relay. */
export interface Prepared {
  method: string;
  /** Absolute. */
  url: string;
  headers: [string, string][];
  body: PreparedBody;
  /** Things the user should know (a body dropped from a GET). */
  notes: string[];
}

/** A request that cannot be prepared (an invalid URL, a multipart file no longer kept). */
export class PrepareError extends Error {}

/** The answer, from the browser or the relay. `bytes` is the body as received. */
export interface Answer {
  via: 'browser' | 'relay';
  status: number;
  statusText: string;
  headers: [string, string][];
  bytes: Uint8Array;
  /** Milliseconds from sending to the last byte of the body (the relay's own figure through the relay). */
  timeMs: number;
  /** Body bytes. */
  size: number;
  truncated: boolean;
}

/** What a send ended with: an answer, or the browser refusing/failing (fetch threw a TypeError). */
export type SendOutcome =
  { kind: 'answer'; answer: Answer; prepared: Prepared } | { kind: 'blocked'; message: string; prepared: Prepared };

const hasHeader = (headers: [string, string][], name: string) =>
  headers.some(([n]) => n.toLowerCase() === name.toLowerCase());

/**
 * Resolves `r`'s variables (URL, header names and values, body texts and form values; see
 * variables.ts) and builds its body. GET and HEAD are prepared without a body (browsers refuse
 * one). Throws {@link PrepareError}.
 */
export async function prepare(
  r: LocalRequest,
  variables: Variables,
  workspaceId: string,
  dynamic: Dynamic = browserDynamic,
): Promise<Prepared> {
  const res = (s: string) => resolve(s, variables, dynamic);
  const notes: string[] = [];
  let url: string;
  const written = res(r.url);
  try {
    url = new URL(written, location.origin).toString();
  } catch {
    throw new PrepareError(`"${written}" is not a valid URL.`);
  }
  const headers: [string, string][] = r.headers
    .filter((h) => h.enabled && h.name.trim())
    .map((h) => [res(h.name).trim(), res(h.value)]);
  let body: PreparedBody = { kind: 'none' };
  if (r.bodyKind !== 'none' && (r.method === 'GET' || r.method === 'HEAD')) {
    notes.push(`A ${r.method} request is sent without its body.`);
  } else if (r.bodyKind === 'json' || r.bodyKind === 'text') {
    body = { kind: 'text', text: res(r.text) };
    if (!hasHeader(headers, 'content-type'))
      headers.push(['Content-Type', r.bodyKind === 'json' ? 'application/json' : 'text/plain;charset=UTF-8']);
  } else if (r.bodyKind === 'form') {
    const params = new URLSearchParams();
    for (const f of r.form) if (f.enabled && f.name) params.append(res(f.name), res(f.value));
    body = { kind: 'text', text: params.toString() };
    if (!hasHeader(headers, 'content-type')) headers.push(['Content-Type', 'application/x-www-form-urlencoded']);
  } else if (r.bodyKind === 'multipart') {
    const data = new FormData();
    for (const p of r.multipart) {
      if (!p.enabled || !p.name) continue;
      if (p.kind === 'file') {
        const blob = p.fileId ? await getFile(workspaceId, p.fileId) : undefined;
        if (!blob)
          throw new PrepareError(
            `Choose the file of form field "${p.name}" ${p.fileName ? `("${p.fileName}") ` : ''}again: it is not kept in this browser.`,
          );
        data.append(res(p.name), blob, p.fileName ?? 'file');
      } else data.append(res(p.name), res(p.value));
    }
    body = { kind: 'multipart', data };
    // The browser writes the multipart Content-Type with its boundary; a hand-written one would not match.
    const i = headers.findIndex(([n]) => n.toLowerCase() === 'content-type');
    if (i >= 0) {
      headers.splice(i, 1);
      notes.push('The Content-Type header was replaced by the multipart one with its boundary.');
    }
  }
  return { method: r.method, url, headers, body, notes };
}

/** The plain sentence shown when fetch throws a TypeError for `url`. */
export function blockedMessage(url: string): string {
  let where = url;
  try {
    where = new URL(url).origin;
  } catch {
    /* keep the URL */
  }
  return `The browser blocked this request (CORS or mixed content) or could not reach ${where}.`;
}

/**
 * Sends `p` from the browser. A TypeError from fetch (CORS refused, mixed content https→http,
 * connection refused, DNS) becomes a `blocked` outcome; an invalid header or method is thrown as
 * {@link PrepareError} before anything is sent.
 */
export async function sendDirect(p: Prepared, signal?: AbortSignal): Promise<SendOutcome> {
  let request: Request;
  try {
    request = new Request(p.url, {
      method: p.method,
      headers: p.headers,
      body: p.body.kind === 'none' ? undefined : p.body.kind === 'text' ? p.body.text : p.body.data,
      redirect: 'follow',
      signal,
    });
  } catch (err) {
    throw new PrepareError(`The browser refuses this request as written: ${(err as Error).message}`);
  }
  const t0 = performance.now();
  let res: Response;
  try {
    res = await fetch(request);
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    return { kind: 'blocked', message: blockedMessage(p.url), prepared: p };
  }
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await res.arrayBuffer());
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    return {
      kind: 'blocked',
      message: `${blockedMessage(p.url)} The answer broke off while its body was read.`,
      prepared: p,
    };
  }
  const timeMs = performance.now() - t0;
  return {
    kind: 'answer',
    prepared: p,
    answer: {
      via: 'browser',
      status: res.status,
      statusText: res.statusText,
      headers: [...res.headers.entries()],
      bytes,
      timeMs,
      size: bytes.byteLength,
      truncated: false,
    },
  };
}

/** Base64 of `bytes` (chunked, so large bodies do not overflow the call stack). */
export function toBase64(bytes: Uint8Array): string {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

function fromBase64(s: string): Uint8Array {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** The JSON `POST /v1/relay` takes for `p` (a multipart body is encoded by the browser, then sent as base64). */
export async function relayPayload(p: Prepared): Promise<{
  method: string;
  url: string;
  headers: [string, string][];
  body?: string;
  bodyEncoding?: 'utf8' | 'base64';
}> {
  const headers = p.headers.map(([n, v]) => [n, v] as [string, string]);
  if (p.body.kind === 'none') return { method: p.method, url: p.url, headers };
  if (p.body.kind === 'text') return { method: p.method, url: p.url, headers, body: p.body.text, bodyEncoding: 'utf8' };
  const encoded = new Request('http://x', { method: 'POST', body: p.body.data });
  const type = encoded.headers.get('content-type');
  if (type) headers.push(['Content-Type', type]);
  return {
    method: p.method,
    url: p.url,
    headers,
    body: toBase64(new Uint8Array(await encoded.arrayBuffer())),
    bodyEncoding: 'base64',
  };
}

interface RelayAnswer {
  status: number;
  statusText?: string;
  headers: [string, string][];
  body: string;
  bodyEncoding: 'utf8' | 'base64';
  timeMs: number;
  size: number;
  truncated?: boolean;
}

/** Sends `p` through `POST /v1/relay`. API problems are thrown as ApiError (shown with ProblemBox). */
export async function sendViaRelay(p: Prepared, signal?: AbortSignal): Promise<SendOutcome> {
  const a = await api<RelayAnswer>('POST', '/v1/relay', await relayPayload(p), { signal });
  const bytes = a.bodyEncoding === 'base64' ? fromBase64(a.body ?? '') : new TextEncoder().encode(a.body ?? '');
  return {
    kind: 'answer',
    prepared: p,
    answer: {
      via: 'relay',
      status: a.status,
      statusText: a.statusText ?? '',
      headers: a.headers ?? [],
      bytes,
      timeMs: a.timeMs,
      size: a.size ?? bytes.byteLength,
      truncated: !!a.truncated,
    },
  };
}

/** How the response panel shows a body: pretty JSON, text, empty, or a note for binary. */
export type ShownBody = { kind: 'json' | 'text'; text: string } | { kind: 'empty' } | { kind: 'binary'; type: string };

/** Chooses how to show `bytes` given the answer's Content-Type. */
export function showBody(bytes: Uint8Array, contentType: string | undefined): ShownBody {
  if (bytes.byteLength === 0) return { kind: 'empty' };
  const type = (contentType ?? '').toLowerCase();
  let text: string | undefined;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    text = undefined;
  }
  if (text !== undefined && (type.includes('json') || /^\s*[[{]/.test(text))) {
    try {
      return { kind: 'json', text: JSON.stringify(JSON.parse(text), null, 2) };
    } catch {
      /* not JSON after all: text */
    }
  }
  const textual = type.startsWith('text/') || /json|xml|javascript|x-www-form-urlencoded|html|csv|yaml/.test(type);
  // eslint-disable-next-line no-control-regex
  if (text !== undefined && (textual || !/[\u0000-\u0008\u000e-\u001f]/.test(text))) return { kind: 'text', text };
  return { kind: 'binary', type: contentType || 'unknown type' };
}
