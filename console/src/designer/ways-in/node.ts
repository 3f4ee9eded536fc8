/**
 * What every way in (cURL, a local request, an API design) makes: an API node (docs/flows.md, the
 * server's `ApiNode`) with an id, a name and its request, and the assertions it starts with. Pure:
 * compiled by the root tsconfig too.
 */
import type { ApiNode, Assertion } from '../../../../src/domain/types';
export { nodeIdFor } from '../../../../src/importers/node-id';

export type { ApiNode, Assertion };

/** A node id's syntax (src/validation/flow-schemas.ts `NODE_ID`). */
export const NODE_ID_PATTERN = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;

/** The assertion a node from cURL or a local request starts with: any 2xx status (`inRange [200, 299]`). */
export const STATUS_2XX: Assertion = {
  name: 'status is 2xx',
  target: 'response.status',
  operator: 'inRange',
  expected: [200, 299],
};

/** Options every way in takes. */
export interface WayInOptions {
  /** Ids already in the test case: the new node's id is made different from each (`get-users-2`). */
  taken?: Iterable<string>;
}

/** A node's name for `method url`: `GET /users/{{id}}` (the URL's path and query, without scheme, host or `{{base}}`), at most 200 characters. */
export function nodeNameFor(method: string, url: string): string {
  const rest = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '').replace(/^\{\{\s*[\w.$-]+\s*\}\}(?=\/|$)/, '');
  return `${method} ${rest || '/'}`.slice(0, 200);
}
