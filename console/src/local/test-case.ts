/**
 * "Save as test case": the explicit upload of a local request as a one-node flow
 * (`POST /v1/test-cases {name, folder?, flow: [{type: 'api', name, request}]}`, docs/api.md "Test
 * cases" and "Flows and assertions"). Variables are saved as written, so the test case resolves
 * them from the environment of its run, as API nodes do.
 */
import type { LocalRequest } from './request';
import { displayName } from './request';

/** An API node's request (docs/api.md "Flows and assertions"): body a JSON value or a string. */
export interface ApiNodeRequest {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: unknown;
}

const PLACEHOLDER = /(\{\{\s*[$A-Za-z_][\w.$-]*\s*\}\})/;

/** URL-encodes `s` for a form body but leaves `{{name}}` placeholders as they are (so the run can still replace them). */
export function encodeKeepingPlaceholders(s: string): string {
  return s
    .split(PLACEHOLDER)
    .map((piece, i) => (i % 2 === 1 ? piece : encodeURIComponent(piece)))
    .join('');
}

/**
 * The API node request for `r`, or the reason it cannot be made: a multipart body, whose files
 * must be uploaded first (console/src/designer/ways-in/local.ts `localRequestToNode` does both). Relative URLs are made absolute against `origin`; a JSON body
 * that parses is saved as its JSON value, otherwise as a string with `Content-Type:
 * application/json`; a form as its URL-encoded string.
 */
export function toApiNodeRequest(r: LocalRequest, origin: string): { request: ApiNodeRequest } | { reason: string } {
  if (r.bodyKind === 'multipart' && r.method !== 'GET' && r.method !== 'HEAD')
    return {
      reason:
        'A multipart body (form fields and files) becomes parts of workspace files: its files must be uploaded first.',
    };
  const url = r.url.startsWith('/') && !r.url.startsWith('//') ? origin.replace(/\/$/, '') + r.url : r.url;
  const headers: Record<string, string> = {};
  for (const h of r.headers) {
    if (!h.enabled || !h.name.trim()) continue;
    const name = h.name.trim();
    const existing = Object.keys(headers).find((k) => k.toLowerCase() === name.toLowerCase());
    if (existing) headers[existing] = `${headers[existing]}, ${h.value}`;
    else headers[name] = h.value;
  }
  const hasType = Object.keys(headers).some((k) => k.toLowerCase() === 'content-type');
  const request: ApiNodeRequest = { method: r.method, url };
  const bodyAllowed = r.method !== 'GET' && r.method !== 'HEAD';
  if (bodyAllowed && r.bodyKind === 'json') {
    try {
      request.body = JSON.parse(r.text);
    } catch {
      request.body = r.text;
      if (!hasType) headers['Content-Type'] = 'application/json';
    }
  } else if (bodyAllowed && r.bodyKind === 'text') {
    request.body = r.text;
  } else if (bodyAllowed && r.bodyKind === 'form') {
    request.body = r.form
      .filter((f) => f.enabled && f.name)
      .map((f) => `${encodeKeepingPlaceholders(f.name)}=${encodeKeepingPlaceholders(f.value)}`)
      .join('&');
    if (!hasType) headers['Content-Type'] = 'application/x-www-form-urlencoded';
  }
  if (Object.keys(headers).length > 0) request.headers = headers;
  return { request };
}

/** The body of `POST /v1/test-cases` for `r`: one API node sending `request` (an API node's request, docs/flows.md). */
export function testCaseBody(r: LocalRequest, request: object, name: string, folder: string) {
  const nodeName = displayName(r).slice(0, 200);
  return {
    name,
    ...(folder.trim() ? { folder: folder.trim() } : {}),
    flow: [{ type: 'api', name: nodeName, request }],
  };
}
