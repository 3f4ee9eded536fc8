/**
 * What a local request is (interface spec "Local request"): its methods, body kinds, rows and
 * fields, a new one with the spec's defaults, and the name shown for it. Pure (no storage, no DOM):
 * store.ts keeps requests in this browser; the designer's ways in (console/src/designer/ways-in)
 * turn one into an API node, and are unit tested in node.
 */

/** The methods a local request may use (spec "Local request": Method). */
export const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'] as const;
export type Method = (typeof METHODS)[number];

/** The kinds of body (spec: JSON, URL-encoded form, multipart form with files, plain text), plus none. */
export const BODY_KINDS = ['none', 'json', 'form', 'multipart', 'text'] as const;
export type BodyKind = (typeof BODY_KINDS)[number];

/** A name/value row (a header, a form field, a variable); disabled rows are kept but not sent. */
export interface Row {
  name: string;
  value: string;
  enabled: boolean;
}

/** A row of a multipart body: text (`value`) or a file kept in IndexedDB under `fileId`. */
export interface PartRow extends Row {
  kind: 'text' | 'file';
  fileId?: string;
  fileName?: string;
  fileType?: string;
  /** Bytes. */
  fileSize?: number;
}

/** The variable group a request is linked to: a local group (by id) or a workspace environment (by name). */
export type GroupLink = { kind: 'local'; id: string } | { kind: 'environment'; name: string };

/** One local request. `text` holds the JSON or plain-text body (one text, kept when switching kinds). */
export interface LocalRequest {
  id: string;
  /** Empty by default: then the URL is shown as the name. */
  name: string;
  method: Method;
  /** `/` by default; relative URLs resolve against the console's origin. */
  url: string;
  headers: Row[];
  bodyKind: BodyKind;
  text: string;
  form: Row[];
  multipart: PartRow[];
  group: GroupLink | null;
  /** Send through `POST /v1/relay` (the explicit opt-in) instead of straight from the browser. */
  relay: boolean;
  /** ISO timestamps; `sentAt` is set (and the request saved) on every send. */
  createdAt: string;
  updatedAt: string;
  sentAt?: string;
}

/** A fresh id (UUID v4). */
export function newId(): string {
  return crypto.randomUUID();
}

/** A new request with the spec's defaults: GET, `/`, no name, no headers, no body, no group. */
export function newRequest(fields: Partial<LocalRequest> = {}): LocalRequest {
  const now = new Date().toISOString();
  return {
    id: newId(),
    name: '',
    method: 'GET',
    url: '/',
    headers: [],
    bodyKind: 'none',
    text: '',
    form: [],
    multipart: [],
    group: null,
    relay: false,
    createdAt: now,
    updatedAt: now,
    ...fields,
  };
}

/** What the list and the heading show: the name, or the URL when the name is empty. */
export function displayName(r: Pick<LocalRequest, 'name' | 'url'>): string {
  return r.name.trim() || r.url || '/';
}
