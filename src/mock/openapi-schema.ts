/**
 * OpenAPI Schema Objects → JSON Schema for a `matchesSchema` assertion (docs/import-openapi.md
 * "Schemas"). Assay checks `matchesSchema` with ajv: draft-07 by default, 2020-12 when `$schema`
 * says so (docs/api.md "Flows and assertions").
 *
 * - OpenAPI 3.1 schemas are JSON Schema 2020-12 already: the result declares that `$schema`.
 *   OpenAPI 3.0 schemas become draft-07: `nullable: true` adds `"null"` to `type` (and `null` to an
 *   `enum`; a schema without `type` becomes `anyOf [schema, {type: null}]`), boolean
 *   `exclusiveMinimum`/`exclusiveMaximum` (draft-04 style) become the numeric form.
 * - Keywords that are not validation are removed: `example`, `discriminator` (its `oneOf`/`anyOf`
 *   still decide), `xml`, `externalDocs`, `deprecated`, `x-…` extensions; `format`s ajv-formats
 *   does not know are dropped (ajv would otherwise warn and ignore them).
 * - In a response, `writeOnly` properties are removed (a response never carries them).
 * - Local `$ref`s are inlined. A `$ref` met again inside its own expansion (a recursive schema: a
 *   tree, a linked list) is kept as `{"$ref": "#/$defs/<Name>"}` with the definition under the
 *   root's `$defs`, so recursion is validated to any depth. `$ref`s that leave the document
 *   (`other.yaml#/…`) cannot be followed and accept anything (a note says so).
 * - Stored JSON nests at most 31 levels (src/validation/json-limits.ts); an assertion's schema sits
 *   5 levels deep in a test case, so subschemas deeper than {@link SCHEMA_DEPTH_BUDGET} are cut to
 *   `{}` (accept anything) with a note. A schema that would inline to more than
 *   {@link MAX_INLINED_NODES} subschemas keeps every component `$ref` under `$defs` instead.
 * - Then normalised (./schema-normalise.ts): duplicate `enum`/`required` items removed, boolean
 *   exclusive bounds made numeric, examples holding an `$id` left out, each with a note.
 */
import { formatNames } from 'ajv-formats/dist/formats';
import { deref } from './refs';
import { normaliseSchema } from './schema-normalise';
import { IN_PLACE_LIST, IN_PLACE_SINGLE, resolveLocal, SCHEMA_MAP_KEYWORDS } from '../validation/json-limits';

type Json = Record<string, unknown>;

/** Deepest JSON nesting a converted schema may reach (its root object is level 1). */
export const SCHEMA_DEPTH_BUDGET = 25;
/** Above this many subschemas, component `$ref`s are kept as `$defs` references instead of inlined. */
export const MAX_INLINED_NODES = 4000;

/** The outcome of {@link toJsonSchema}: the schema and what the reader should know about it. */
export interface ConvertedSchema {
  schema: Json;
  /** Human sentences: recursive refs kept as $defs, cut depth, unresolvable refs. */
  notes: string[];
}

const DROP = new Set(['example', 'discriminator', 'xml', 'externalDocs', 'deprecated', 'nullable']);
const SINGLE = new Set([
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
  'additionalItems',
  'contentSchema',
]);
const LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const KNOWN_FORMATS = new Set<string>(formatNames);

/** `#/components/schemas/Pet` → `Pet` (unique among the refs of one conversion: `taken` maps ref → name). */
export function defName(ref: string, taken: Map<string, string>): string {
  const existing = taken.get(ref);
  if (existing) return existing;
  const base =
    (ref.split('/').pop() ?? 'def')
      .replace(/~1/g, '_')
      .replace(/~0/g, '_')
      .replace(/[^A-Za-z0-9_.-]/g, '_') || 'def';
  let name = base;
  for (let i = 2; [...taken.values()].includes(name); i++) name = `${base}_${i}`;
  taken.set(ref, name);
  return name;
}

/** Thrown when inlining passes {@link MAX_INLINED_NODES} subschemas (then refs are kept as $defs). */
class InlineBudgetExceeded extends Error {}

interface State {
  doc: Json;
  is31: boolean;
  response: boolean;
  inlineRefs: boolean;
  defs: Map<string, string>;
  /** Refs that must be emitted under $defs, and whether they were converted yet. */
  pending: Map<string, boolean>;
  notes: Set<string>;
  nodes: number;
}

function convert(node: unknown, st: State, stack: string[], depth: number): unknown {
  if (node === null || typeof node !== 'object') return node;
  if (Array.isArray(node)) return node.map((n) => convert(n, st, stack, depth));
  // Inlining grows exponentially with chains of allOf refs: stop at the budget, refs go to $defs.
  if (++st.nodes > MAX_INLINED_NODES && st.inlineRefs) throw new InlineBudgetExceeded();
  if (depth > SCHEMA_DEPTH_BUDGET - 1) {
    st.notes.add(
      `parts nested deeper than ${SCHEMA_DEPTH_BUDGET} levels were cut (they accept anything): stored JSON nests at most 31 levels`,
    );
    return {};
  }
  const s = node as Json;
  const ref = s.$ref;
  let out: Json = {};
  if (typeof ref === 'string') {
    if (!ref.startsWith('#')) {
      st.notes.add(`$ref "${ref}" points outside the document and accepts anything`);
      out = {};
    } else {
      const target = deref(st.doc, { $ref: ref });
      if (!target) {
        st.notes.add(`$ref "${ref}" does not resolve and accepts anything`);
        out = {};
      } else if (stack.includes(ref) || !st.inlineRefs) {
        if (stack.includes(ref))
          st.notes.add(`recursive schema ${ref} is checked through $defs/${defName(ref, st.defs)}`);
        if (!st.pending.has(ref)) st.pending.set(ref, false);
        out = { $ref: `#/$defs/${defName(ref, st.defs)}` };
      } else {
        out = convert(target, st, [...stack, ref], depth) as Json;
      }
    }
    const siblings = Object.keys(s).filter(
      (k) => k !== '$ref' && !k.startsWith('x-') && !DROP.has(k) && !['description', 'title', 'summary'].includes(k),
    );
    // OpenAPI 3.0 ignores $ref siblings; 3.1 (JSON Schema) applies them with the reference.
    if (!st.is31 || siblings.length === 0)
      return s.nullable === true && !st.is31 ? { anyOf: [out, { type: 'null' }] } : out;
    const rest = convert(Object.fromEntries(Object.entries(s).filter(([k]) => k !== '$ref')), st, stack, depth + 2);
    return { allOf: [out, rest] };
  }
  for (const [key, value] of Object.entries(s)) {
    if (DROP.has(key) || key.startsWith('x-')) continue;
    if (key === 'format') {
      if (typeof value === 'string' && KNOWN_FORMATS.has(value)) out.format = value;
    } else if (SINGLE.has(key)) {
      out[key] = typeof value === 'object' && value !== null ? convert(value, st, stack, depth + 1) : value;
    } else if (LISTS.has(key) && Array.isArray(value)) {
      out[key] = value.map((v) => convert(v, st, stack, depth + 2));
    } else if (SCHEMA_MAP_KEYWORDS.has(key) && value && typeof value === 'object') {
      out[key] = Object.fromEntries(
        Object.entries(value as Json).map(([k, v]) => [k, convert(v, st, stack, depth + 2)]),
      );
    } else if (!st.is31 && (key === 'exclusiveMinimum' || key === 'exclusiveMaximum') && typeof value === 'boolean') {
      const bound = key === 'exclusiveMinimum' ? 'minimum' : 'maximum';
      if (value && typeof s[bound] === 'number') out[key] = s[bound];
    } else if (key === 'examples' && !st.is31) {
      continue;
    } else {
      out[key] = value;
    }
  }
  if (!st.is31) {
    for (const key of ['exclusiveMinimum', 'exclusiveMaximum'] as const) {
      const bound = key === 'exclusiveMinimum' ? 'minimum' : 'maximum';
      if (s[key] === true && typeof s[bound] === 'number') delete out[bound];
    }
  }
  if (st.response && out.properties && typeof out.properties === 'object') {
    const props = s.properties as Json;
    const writeOnly = Object.keys(props).filter(
      (k) => (deref(st.doc, props[k]) as Json | undefined)?.writeOnly === true,
    );
    if (writeOnly.length) {
      out.properties = Object.fromEntries(
        Object.entries(out.properties as Json).filter(([k]) => !writeOnly.includes(k)),
      );
      if (Array.isArray(out.required)) out.required = (out.required as string[]).filter((k) => !writeOnly.includes(k));
    }
  }
  if (!st.is31 && s.nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else if (out.type === undefined) return { anyOf: [out, { type: 'null' }] };
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...(out.enum as unknown[]), null];
  }
  return out;
}

function run(
  schema: unknown,
  doc: Json,
  options: { is31: boolean; response: boolean },
  inlineRefs: boolean,
): { st: State; root: Json } {
  const st: State = { doc, ...options, inlineRefs, defs: new Map(), pending: new Map(), notes: new Set(), nodes: 0 };
  const root = (convert(schema, st, [], 1) ?? {}) as Json;
  const defs: Json = {};
  for (let guard = 0; guard < 10_000; guard++) {
    const next = [...st.pending.entries()].find(([, done]) => !done);
    if (!next) break;
    const [ref] = next;
    st.pending.set(ref, true);
    defs[defName(ref, st.defs)] = convert(deref(doc, { $ref: ref }), st, [ref], 3);
  }
  if (Object.keys(defs).length) root.$defs = { ...((root.$defs as Json | undefined) ?? {}), ...defs };
  return { st, root };
}

/**
 * Converts an OpenAPI Schema Object (of `doc`, whose `$ref`s it follows) to a JSON Schema for
 * `matchesSchema`; `response: true` drops `writeOnly` properties. Never throws on odd input:
 * what cannot be converted accepts anything and is named in `notes`.
 */
export function toJsonSchema(schema: unknown, doc: Json, options: { response?: boolean } = {}): ConvertedSchema {
  const is31 = typeof doc.openapi === 'string' && doc.openapi.startsWith('3.1');
  const opts = { is31, response: options.response ?? true };
  let st: State;
  let root: Json;
  try {
    ({ st, root } = run(schema, doc, opts, true));
  } catch (err) {
    if (!(err instanceof InlineBudgetExceeded)) throw err;
    ({ st, root } = run(schema, doc, opts, false));
    st.notes.add(`the schema is large: component $refs are checked through $defs instead of inlined`);
  }
  // What ajv would refuse although its meaning is plain (duplicates, 3.0 booleans in 3.1, $id in examples).
  const normalised = normaliseSchema(root);
  const fitted = fitDepth(normalised.schema, 1, st.notes);
  const body = (fitted && typeof fitted === 'object' ? fitted : {}) as Json;
  for (const note of breakInPlaceLoops(body)) st.notes.add(note);
  const out: Json = is31 ? { $schema: 'https://json-schema.org/draft/2020-12/schema', ...body } : body;
  return { schema: out, notes: [...st.notes, ...normalised.notes] };
}

/** How deeply arrays/objects nest in `value`: 0 for a primitive, 1 for `{}` or `[]`. */
function depthOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  let deepest = 0;
  for (const v of Array.isArray(value) ? value : Object.values(value)) deepest = Math.max(deepest, depthOf(v));
  return deepest + 1;
}

const cutNote = (budget: number) =>
  `parts nested deeper than ${budget} levels were cut (they accept anything): stored JSON nests at most 31 levels`;

/**
 * `schema` (a JSON Schema) made to nest at most `budget` JSON levels (its root is level 1), as
 * {@link toJsonSchema} fits its result: subschemas that cannot fit accept anything. `notes` says
 * so when something was cut. Used for the schemas a mock design stores (src/mock/openapi.ts).
 */
export function fitSchemaDepth(schema: unknown, budget: number): { schema: unknown; notes: string[] } {
  const notes = new Set<string>();
  const fitted = fitDepth(schema, 1, notes, budget);
  return { schema: fitted, notes: [...notes] };
}

/**
 * The schema at JSON level `level` (the root is 1) made to nest no deeper than
 * {@link SCHEMA_DEPTH_BUDGET} levels, counting every JSON object and array (a `properties` map, an
 * `allOf` list, an `enum` of objects), as the store and the API count (src/validation/json-limits.ts):
 * a subschema that cannot fit becomes `{}` (accepts anything); a value keyword that cannot
 * (`enum`/`const`/`default` holding deep objects) is left out. Each cut adds the note once.
 */
function fitDepth(node: unknown, level: number, notes: Set<string>, budget = SCHEMA_DEPTH_BUDGET): unknown {
  if (node === null || typeof node !== 'object' || level - 1 + depthOf(node) <= budget) return node;
  if (Array.isArray(node) || level >= budget - 1) {
    notes.add(cutNote(budget));
    return {};
  }
  const out: Json = {};
  for (const [key, value] of Object.entries(node as Json)) {
    if (value === null || typeof value !== 'object') out[key] = value;
    else if (SINGLE.has(key) && !Array.isArray(value)) out[key] = fitDepth(value, level + 1, notes, budget);
    else if ((LISTS.has(key) || key === 'items') && Array.isArray(value))
      out[key] = value.map((v) => fitDepth(v, level + 2, notes, budget));
    else if (SCHEMA_MAP_KEYWORDS.has(key))
      out[key] = Object.fromEntries(
        Object.entries(value as Json).map(([k, v]) => [k, fitDepth(v, level + 2, notes, budget)]),
      );
    else if (level + depthOf(value) <= SCHEMA_DEPTH_BUDGET) out[key] = value;
    else
      notes.add(
        `"${key}" values nested deeper than ${SCHEMA_DEPTH_BUDGET} levels were left out: stored JSON nests at most 31 levels`,
      );
  }
  return out;
}

/**
 * Why a request schema accepts nothing, when the reason is a common one: `allOf` parts that each
 * forbid the properties the others declare (`additionalProperties: false` in more than one part).
 */
export function unsatisfiable(schema: Json): string | undefined {
  const parts = Array.isArray(schema.allOf) ? (schema.allOf as Json[]) : [];
  const closed = parts.filter((p) => p && p.additionalProperties === false);
  if (closed.length < 2) return undefined;
  const names = closed.map((p) => Object.keys((p.properties as Json | undefined) ?? {}));
  const clash = names.some((own, i) =>
    names.some((other, j) => j !== i && other.some((n) => !own.includes(n)) && own.length > 0),
  );
  return clash ? 'its allOf parts each forbid additional properties, so an object cannot satisfy them all' : undefined;
}

/**
 * Removes the local `$ref`s of `root` (a JSON Schema, changed in place) that lead back to a schema
 * already being applied to the same value without descending into it: OpenAPI's polymorphism
 * written as a parent whose `oneOf` lists its subtypes, each of which is `allOf` the parent (Okta's
 * `JsonSigningWebKey`). With its `discriminator` a reader picks one branch; as JSON Schema it
 * never finishes validating (src/validation/json-limits.ts `schemaLoop` refuses it, and ajv
 * overflows its stack on it). The back reference accepts anything instead; the subtype's own
 * keywords still apply. Returns a note per reference removed.
 */
export function breakInPlaceLoops(root: Json): string[] {
  const notes = new Set<string>();
  const clean = new Set<object>();
  const chain: object[] = [];
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object' || Array.isArray(node) || clean.has(node)) return;
    if (chain.length > 256) return;
    chain.push(node);
    const s = node as Json;
    if (typeof s.$ref === 'string' && (s.$ref === '#' || s.$ref.startsWith('#/'))) {
      const target = resolveLocal(root, s.$ref);
      if (target !== null && typeof target === 'object' && chain.includes(target)) {
        notes.add(
          `${s.$ref} refers back to itself without descending into the value (a parent listing subtypes that extend it): that reference accepts anything`,
        );
        delete s.$ref;
      } else visit(target);
    }
    for (const k of IN_PLACE_SINGLE) visit(s[k]);
    for (const k of IN_PLACE_LIST) if (Array.isArray(s[k])) for (const sub of s[k] as unknown[]) visit(sub);
    chain.pop();
    clean.add(node);
  };
  const starts: unknown[] = [root];
  const seen = new Set<object>();
  while (starts.length > 0) {
    const node = starts.pop();
    if (node === null || typeof node !== 'object' || seen.has(node)) continue;
    seen.add(node);
    if (!Array.isArray(node)) visit(node);
    for (const child of Object.values(node)) if (child !== null && typeof child === 'object') starts.push(child);
  }
  return [...notes];
}
