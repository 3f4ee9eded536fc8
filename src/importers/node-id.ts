/**
 * The id an imported request's API node gets, one rule for every way in: the console's (a curl
 * command, a local request, an API design operation: console/src/designer/ways-in) and the CLI's
 * (`assay import curl`: cli/importers/curl.ts). Pure: no DOM, no Node built-ins.
 */

/**
 * A node id for a request `method url`: the method and the last path segment that is not a
 * placeholder, in lower case, other characters as `-` (`GET {{base}}/users/{{id}}` → `get-users`),
 * cut to 48 characters, then `-2`, `-3`… until it is not in `taken`. Always matches
 * {@link NODE_ID_PATTERN}.
 */
export function nodeIdFor(method: string, url: string, taken: Iterable<string> = []): string {
  const used = new Set(taken);
  const path = url
    .replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '')
    .replace(/[?#].*$/, '')
    .split('/')
    .filter((s) => s && !s.includes('{{') && !/^\d+$/.test(s));
  const words = `${method} ${path[path.length - 1] ?? ''}`
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48)
    .replace(/-+$/, '');
  const base = /^[a-z_]/.test(words) ? words : `n-${words}`.replace(/-+$/, '');
  let id = base;
  for (let i = 2; used.has(id); i++) id = `${base}-${i}`;
  return id;
}
