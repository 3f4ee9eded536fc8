/**
 * Bounds on the shape of JSON the service accepts (docs/security.md
 * "Input limits"):
 *
 * - {@link MAX_JSON_DEPTH}: how deeply arrays and objects may nest in any JSON the API, the
 *   bundler or an incoming webhook accepts, and in documents it parses itself (OpenAPI imports,
 *   JSON or YAML). Everything downstream (ajv, flow validation, templating, the workflow) walks
 *   values recursively; refusing depth at parse time keeps them all off the stack limit.
 * - {@link schemaLoop}: a JSON Schema whose `$ref`s (or `allOf`/`anyOf`/`oneOf`/`not`/`if`…)
 *   come back to a schema being applied to the same value never finish validating (ajv recurses
 *   until the stack overflows); such schemas are refused where they are saved.
 *
 * Both walks are iterative and bounded, so they are safe on any input.
 */

/**
 * Deepest nesting of arrays/objects accepted: the top-level value is depth 1. 31 because MariaDB's
 * JSON columns refuse values nested 32 deep (their `JSON_VALID` check constraint; MySQL's limit is
 * 100, SQLite's 1000) and an incoming-webhook body is stored whole as its run's context: any
 * deeper value would be accepted by one store and fail with a 500 on another.
 */
export const MAX_JSON_DEPTH = 31;

/**
 * The path to the first array/object nested deeper than `limit` (the top-level value is depth 1),
 * or null when `value` stays within it. Iterative: safe on values of any depth. Cyclic values
 * (YAML aliases can build them) count as too deep.
 */
export function tooDeep(value: unknown, limit = MAX_JSON_DEPTH): Array<string | number> | null {
  if (value === null || typeof value !== 'object') return null;
  const stack: Array<{ node: object; path: Array<string | number> }> = [{ node: value, path: [] }];
  while (stack.length > 0) {
    const { node, path } = stack.pop()!;
    if (path.length + 1 > limit) return path;
    const entries: Array<[string | number, unknown]> = Array.isArray(node)
      ? node.map((v, i) => [i, v])
      : Object.entries(node);
    for (const [key, child] of entries) {
      if (child !== null && typeof child === 'object') stack.push({ node: child, path: [...path, key] });
    }
  }
  return null;
}

/** Keywords whose subschemas apply to the same instance (JSON Schema 2020-12 §10.2 "in place"). */
export const IN_PLACE_SINGLE = ['not', 'if', 'then', 'else'] as const;
export const IN_PLACE_LIST = ['allOf', 'anyOf', 'oneOf'] as const;
/** Keywords whose values are data, not subschemas: never walked into as schemas. */
export const SCHEMA_DATA_KEYWORDS: ReadonlySet<string> = new Set([
  'enum',
  'const',
  'default',
  'example',
  'examples',
  'required',
]);
/** Keywords whose values map names to subschemas (a property may be called `enum` or `oneOf`). */
export const SCHEMA_MAP_KEYWORDS: ReadonlySet<string> = new Set([
  'properties',
  'patternProperties',
  'dependentSchemas',
  '$defs',
  'definitions',
]);
/** How many schema nodes {@link schemaLoop} visits at most before it gives up (a schema that big is refused). */
const MAX_SCHEMA_NODES = 20_000;

/** Longest chain of `$ref`/in-place subschemas applied to one value that {@link schemaLoop} follows. */
const MAX_IN_PLACE_CHAIN = 256;

/** Resolves a local JSON Pointer reference (`#`, `#/$defs/a`) against `root`; undefined when it does not. */
export function resolveLocal(root: unknown, ref: string): unknown {
  if (ref === '#' || ref === '') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const part = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !Object.prototype.hasOwnProperty.call(node, part))
      return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/**
 * Whether applying `schema` can come back to a schema already being applied to the same value
 * without descending into it (e.g. `{"$ref": "#"}`, `{"allOf": [{"$ref": "#"}]}`, two `$defs`
 * referring to each other): returns a message naming the loop, or null. Recursion through
 * `properties`/`items` (a tree schema) is fine: it consumes the value. Only local references
 * (`#…`) are followed; `document` (an OpenAPI document) resolves them when given, else the schema.
 */
export function schemaLoop(schema: unknown, document?: unknown): string | null {
  const root = document ?? schema;
  // The subschemas applied to one value from the current start, counted with repeats (the work of
  // validating one value in place: a fan-out of references, d0 = allOf [d1, d1], d1 = allOf [d2, d2]…,
  // is exponential). A schema whose in-place closure was walked without finding a loop keeps its
  // count: a loop through it would have been found from it, so it is not walked again, and the
  // check stays linear in the schema however often shared components are reached.
  let visited = 0;
  const clean = new Map<unknown, number>();
  // Depth-first over in-place edges, with the chain of schemas currently applied to one instance.
  const check = (start: unknown): string | null => {
    const chain: unknown[] = [];
    const refs: string[] = [];
    visited = 0;
    const walk = (node: unknown, via: string): string | null => {
      const known = clean.get(node);
      if (known !== undefined) {
        visited += known;
        return visited > MAX_SCHEMA_NODES ? `is too large to check (over ${MAX_SCHEMA_NODES} subschemas)` : null;
      }
      const before = visited;
      if (++visited > MAX_SCHEMA_NODES) return `is too large to check (over ${MAX_SCHEMA_NODES} subschemas)`;
      if (node === null || typeof node !== 'object' || Array.isArray(node)) return null;
      if (chain.length >= MAX_IN_PLACE_CHAIN)
        return `chains more than ${MAX_IN_PLACE_CHAIN} references or in-place subschemas`;
      if (chain.includes(node))
        return `refers back to itself without descending into the value (${[...refs, via].filter(Boolean).join(' → ')}), so it never finishes validating`;
      chain.push(node);
      refs.push(via);
      const s = node as Record<string, unknown>;
      try {
        if (typeof s.$ref === 'string') {
          const target = resolveLocal(root, s.$ref);
          const found = walk(target, `$ref ${s.$ref}`);
          if (found) return found;
        }
        for (const k of IN_PLACE_SINGLE) {
          const found = walk(s[k], '');
          if (found) return found;
        }
        for (const k of IN_PLACE_LIST) {
          if (!Array.isArray(s[k])) continue;
          for (const sub of s[k] as unknown[]) {
            const found = walk(sub, '');
            if (found) return found;
          }
        }
        clean.set(node, visited - before);
        return null;
      } finally {
        chain.pop();
        refs.pop();
      }
    };
    return walk(start, '');
  };
  // Every subschema may be the start of a loop (a property's schema referring to itself); visit
  // each object of the schema once as a start, iteratively.
  const starts: unknown[] = [schema];
  const seen = new Set<unknown>();
  while (starts.length > 0) {
    const node = starts.pop();
    if (node === null || typeof node !== 'object' || seen.has(node)) continue;
    seen.add(node);
    if (seen.size > MAX_SCHEMA_NODES) return `is too large to check (over ${MAX_SCHEMA_NODES} subschemas)`;
    if (!Array.isArray(node)) {
      const found = check(node);
      if (found) return found;
    }
    for (const child of Object.values(node)) if (child !== null && typeof child === 'object') starts.push(child);
  }
  return null;
}

/** A high surrogate not followed by a low one, or a low one not preceded by a high one (code units). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * The path to the first string (value or key) of `value` that is not well-formed Unicode (a lone
 * UTF-16 surrogate, `"\ud800"`: valid JSON text per RFC 8259 §8.2, but not text, and refused by
 * MariaDB's JSON columns), or null. Iterative; call after {@link tooDeep} has bounded the depth.
 */
export function illFormedString(value: unknown): Array<string | number> | null {
  const stack: Array<{ node: unknown; path: Array<string | number> }> = [{ node: value, path: [] }];
  while (stack.length > 0) {
    const { node, path } = stack.pop()!;
    if (typeof node === 'string') {
      if (LONE_SURROGATE.test(node)) return path;
    } else if (Array.isArray(node)) node.forEach((v, i) => stack.push({ node: v, path: [...path, i] }));
    else if (node !== null && typeof node === 'object') {
      for (const [k, v] of Object.entries(node)) {
        if (LONE_SURROGATE.test(k)) return [...path, k];
        stack.push({ node: v, path: [...path, k] });
      }
    }
  }
  return null;
}
