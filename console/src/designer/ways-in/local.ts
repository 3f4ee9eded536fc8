/**
 * A local request (console/src/local/store.ts, the browser's own requests) to an API node
 * (docs/console.md "The designer"), as "Save as test case" makes its one node (console/src/local/test-case.ts
 * `toApiNodeRequest`). Pure: compiled by the root tsconfig too.
 */
import { displayName, type LocalRequest } from '../../local/request';
import { toApiNodeRequest } from '../../local/test-case';
import { STATUS_2XX, nodeIdFor, type ApiNode, type WayInOptions } from './node';

/** Options of {@link localRequestToNode}. */
export interface LocalToNodeOptions extends WayInOptions {
  /** What a relative URL (`/users`) is joined to: `{{base}}` by default. */
  origin?: string;
}

/**
 * The API node `r` sends: named as the request is (its name, else its URL), its enabled headers,
 * its body (JSON as its value, a form URL-encoded with `{{placeholders}}` kept, text as is), its
 * `{{variables}}` as written (the run's environment resolves them), one assertion: any 2xx
 * status. `{error}` for a multipart body (API nodes send JSON or text only).
 */
export function localRequestToNode(
  r: LocalRequest,
  options: LocalToNodeOptions = {},
): { node: ApiNode } | { error: string } {
  const made = toApiNodeRequest(r, options.origin ?? '{{base}}');
  if ('reason' in made) return { error: made.reason };
  return {
    node: {
      id: nodeIdFor(made.request.method, made.request.url, options.taken),
      name: displayName(r).slice(0, 200),
      type: 'api',
      request: made.request,
      assertions: [{ ...STATUS_2XX }],
    },
  };
}
