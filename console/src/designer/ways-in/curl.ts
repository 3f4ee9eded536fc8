/**
 * "Paste cURL" (docs/console.md "The designer"): a curl command line to an API node. Reads the command with
 * the local requests' importer (console/src/local/curl.ts `parseCurl`: its flags, quoting and
 * warnings) and turns it into a node's request as "Save as test case" does
 * (console/src/local/test-case.ts `toApiNodeRequest`). Pure: compiled by the root tsconfig too.
 */
import { CurlError, parseCurl } from '../../local/curl';
import type { LocalRequest } from '../../local/request';
import { toApiNodeRequest } from '../../local/test-case';
import { STATUS_2XX, nodeIdFor, nodeNameFor, type ApiNode, type WayInOptions } from './node';

/** Options of {@link curlToNode}. */
export interface CurlToNodeOptions extends WayInOptions {
  /** What a relative URL (`/users`) is joined to: `{{base}}` by default (the environment's base URL, docs/flows.md). */
  origin?: string;
}

/** A node from a curl command line, with what the importer could not take over (shown to the user). */
export interface CurlNode {
  node: ApiNode;
  warnings: string[];
}

/**
 * The API node a curl command line sends: method, URL (relative ones joined to `{{base}}`),
 * headers (`-u` as `Authorization: Basic …`), body (JSON as its value, a form URL-encoded, text as
 * is), one assertion: any 2xx status. `{error}` when the text is not a curl command, names no URL,
 * or sends a multipart form (API nodes send JSON or text bodies only); the message is the user's
 * to read.
 */
export function curlToNode(text: string, options: CurlToNodeOptions = {}): CurlNode | { error: string } {
  if (!text.trim()) return { error: 'Paste a curl command: it should start with "curl".' };
  let imported;
  try {
    imported = parseCurl(text);
  } catch (err) {
    if (err instanceof CurlError) return { error: err.message };
    throw err;
  }
  const local: LocalRequest = {
    ...imported.request,
    id: '',
    name: '',
    group: null,
    relay: false,
    createdAt: '',
    updatedAt: '',
  };
  const made = toApiNodeRequest(local, options.origin ?? '{{base}}');
  if ('reason' in made) return { error: made.reason };
  const { method, url } = made.request;
  const node: ApiNode = {
    id: nodeIdFor(method, url, options.taken),
    name: nodeNameFor(method, url),
    type: 'api',
    request: made.request,
    assertions: [{ ...STATUS_2XX }],
  };
  return { node, warnings: imported.warnings };
}
