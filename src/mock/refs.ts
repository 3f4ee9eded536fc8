/** Local `$ref`s of OpenAPI documents, for the mock import and the schema conversion. */

type Json = Record<string, unknown>;

/** Follows a local `$ref` (`#/components/...`), through chains of them; undefined when it points outside the document or nowhere (also used by cli/importers/openapi.ts). */
export function deref(doc: Json, value: unknown, depth = 0): Json | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const ref = (value as { $ref?: unknown }).$ref;
  if (typeof ref !== 'string') return value as Json;
  if (!ref.startsWith('#/') || depth > 20) return undefined;
  let node: unknown = doc;
  for (const part of ref.slice(2).split('/'))
    node = (node as Json | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  return deref(doc, node, depth + 1);
}
