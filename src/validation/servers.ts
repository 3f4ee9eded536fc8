/**
 * What a test case's flow must say about servers when it is saved (docs/reuse.md "Servers";
 * src/flow/servers.ts): an API node with a `server` has a path for `request.url`, not an absolute
 * URL (whose own host would make the server meaningless). Whether the environment defines the
 * server is checked when a run starts, since a test case runs against many environments.
 */

/** An absolute URL: a scheme, then `//` (`https://…`, `http://…`, `ws://…`). */
const ABSOLUTE = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;

/** The problems of `node`'s `server` at path `at` (none when it has no `server`). */
export function serverNodeIssues(
  node: { server?: string; request: { url: string } },
  at: Array<string | number>,
): Array<{ path: Array<string | number>; message: string }> {
  if (node.server === undefined) return [];
  const url = node.request.url;
  if (ABSOLUTE.test(url) || /^\s*\{\{\s*server\./.test(url))
    return [
      {
        path: [...at, 'request', 'url'],
        message: `is joined to the base URL of server "${node.server}" (the node's "server"), so it must be a path such as "/users/1", not an absolute URL`,
      },
    ];
  return [];
}
