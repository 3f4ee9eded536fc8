/**
 * A local request (console/src/local/store.ts, the browser's own requests) to an API node
 * (docs/console.md "The designer"), as "Save as test case" makes its one node (console/src/local/test-case.ts
 * `toApiNodeRequest`), multipart bodies included: their files live in this browser (IndexedDB), so
 * they are uploaded as workspace files first (the dialog asks, WaysIn.tsx `LocalDialog`) and the
 * node's parts name them. Pure: compiled by the root tsconfig too.
 */
import type { MultipartPart } from '../../../../src/domain/types';
import { displayName, type LocalRequest, type PartRow } from '../../local/request';
import { toApiNodeRequest } from '../../local/test-case';
import { STATUS_2XX, nodeIdFor, type ApiNode, type WayInOptions } from './node';

/** Options of {@link localRequestToNode}. */
export interface LocalToNodeOptions extends WayInOptions {
  /** What a relative URL (`/users`) is joined to: `{{base}}` by default. */
  origin?: string;
  /** The workspace file name each file part was uploaded as, by the part's local `fileId`. */
  uploaded?: Readonly<Record<string, string>>;
}

/** The parts of `r`'s multipart body that are sent: enabled, with a name. */
function sentParts(r: LocalRequest): PartRow[] {
  return r.multipart.filter((p) => p.enabled && p.name.trim() !== '');
}

/** True when `r` is sent with its multipart body (a body kind of multipart, and not GET or HEAD). */
function sendsMultipart(r: LocalRequest): boolean {
  return r.bodyKind === 'multipart' && r.method !== 'GET' && r.method !== 'HEAD';
}

/**
 * The file parts of `r` that must be uploaded as workspace files before its node can be made: sent
 * file parts with a local file (`fileId`) not in `uploaded`. Empty for other bodies.
 */
export function partsToUpload(r: LocalRequest, uploaded: Readonly<Record<string, string>> = {}): PartRow[] {
  if (!sendsMultipart(r)) return [];
  return sentParts(r).filter((p) => p.kind === 'file' && p.fileId && uploaded[p.fileId] === undefined);
}

/**
 * The API node `r` sends: named as the request is (its name, else its URL), its enabled headers,
 * its body (JSON as its value, a form URL-encoded with `{{placeholders}}` kept, text as is, a
 * multipart body as `request.multipart`: text parts `{name, value}`, file parts `{name, file}`
 * naming the workspace file of `options.uploaded`, with `filename` when the name sent differs from
 * the workspace file's last segment; its own Content-Type header dropped, as the engine sets the
 * boundary), its `{{variables}}` as written (the run's environment resolves them), one assertion:
 * any 2xx status. `{error}` for a multipart body without parts, a file part without a file, or one
 * whose file is not uploaded yet ({@link partsToUpload}).
 */
export function localRequestToNode(
  r: LocalRequest,
  options: LocalToNodeOptions = {},
): { node: ApiNode } | { error: string } {
  const multipart = sendsMultipart(r);
  const made = toApiNodeRequest(multipart ? { ...r, bodyKind: 'none' } : r, options.origin ?? '{{base}}');
  if ('reason' in made) return { error: made.reason };
  const request: ApiNode['request'] = { ...made.request };
  if (multipart) {
    const parts: MultipartPart[] = [];
    for (const p of sentParts(r)) {
      if (p.kind !== 'file') {
        parts.push({ name: p.name, value: p.value });
        continue;
      }
      if (!p.fileId) return { error: `The multipart part ${p.name} has no file chosen.` };
      const file = options.uploaded?.[p.fileId];
      if (file === undefined)
        return {
          error: `The file of part ${p.name} (${p.fileName ?? 'a file'}) is not uploaded to the workspace files.`,
        };
      const part: MultipartPart = { name: p.name, file };
      if (p.fileName && p.fileName !== file.split('/').pop()) part.filename = p.fileName;
      parts.push(part);
    }
    if (parts.length === 0) return { error: 'A multipart body without parts (enabled, with a name) cannot be sent.' };
    request.multipart = parts;
    if (request.headers) {
      const headers = Object.fromEntries(
        Object.entries(request.headers).filter(([k]) => k.toLowerCase() !== 'content-type'),
      );
      if (Object.keys(headers).length) request.headers = headers;
      else delete request.headers;
    }
  }
  return {
    node: {
      id: nodeIdFor(request.method, request.url, options.taken),
      name: displayName(r).slice(0, 200),
      type: 'api',
      request,
      assertions: [{ ...STATUS_2XX }],
    },
  };
}
