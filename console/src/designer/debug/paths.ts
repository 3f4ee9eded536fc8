/**
 * From a field of a response to the words of a test (docs/console.md "The designer"): the
 * JSONata expression that reads the field, the JSON type `isType` checks, the part of a JSON Schema
 * that describes the field, and a variable name for an extraction. Pure: no DOM, no preact; compiled
 * by the root tsconfig too and unit-tested in node (test/unit/designer-ways-in.test.ts).
 */
import type { Assertion } from '../../../../src/domain/types';

/** One step of a path into a JSON value: an object key or an array index. */
export type PathSegment = string | number;

/**
 * A key JSONata reads as a plain name after a dot: a letter or `_`, then letters, digits and `_`,
 * and not one of JSONata's words (`and`, `or`, `in` are operators; `true`, `false`, `null` values;
 * `function` starts a lambda). JSONata reads `$…` as a variable and `1a` as a number, so those and
 * every other key (`x-y`, `content-type`, a space) are written in backquotes (JSONata's "names
 * with special characters", https://docs.jsonata.org/simple).
 */
const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const WORDS = new Set(['and', 'or', 'in', 'true', 'false', 'null', 'function']);

/**
 * The JSONata expression that reads `segments` from `root` (itself an expression such as
 * `response.body`): keys as `.name`, `` .`x-y` `` when not a plain name, indexes as `[0]`. A key that
 * holds a backquote cannot be backquoted (JSONata has no escape there) and is read with
 * `$lookup(<so far>, "<key>")` instead. Examples: `response.body.items[0].id`,
 * ``response.headers.`content-type` ``.
 */
export function jsonataPath(root: string, segments: readonly PathSegment[]): string {
  let expr = root;
  for (const s of segments) {
    if (typeof s === 'number') expr += `[${s}]`;
    else if (PLAIN_NAME.test(s) && !WORDS.has(s)) expr += `.${s}`;
    else if (!s.includes('`')) expr += `.\`${s}\``;
    else expr = `$lookup(${expr}, ${JSON.stringify(s)})`;
  }
  return expr;
}

/** The JSON type of `value` as the `isType` operator names it (`integer` for whole numbers). */
export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';

/** `value`'s {@link JsonType}: `integer` for a whole number, `number` for another. */
export function jsonType(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'string' || typeof value === 'boolean') return typeof value as JsonType;
  return 'object';
}

type Schema = Record<string, unknown>;
const isSchema = (s: unknown): s is Schema => s !== null && typeof s === 'object' && !Array.isArray(s);

/** `$ref` `#/…` resolved against `root` (JSON Pointer, RFC 6901); undefined when it points nowhere. */
function resolveRef(root: Schema, ref: string): Schema | undefined {
  if (!ref.startsWith('#')) return undefined;
  let at: unknown = root;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isSchema(at) && !Array.isArray(at)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return isSchema(at) ? at : undefined;
}

/**
 * The part of the JSON Schema `schema` that describes the value at `segments` (through
 * `properties`, `patternProperties` is not followed, `additionalProperties` when a schema, `items`
 * (a schema, or draft-07's list), `prefixItems`, the first branch of `allOf`/`anyOf`/`oneOf` that
 * has it, and local `$ref`s), or undefined when the schema says nothing about it. The result
 * keeps the root's `$defs`/`definitions` and `$schema` when it uses `$ref`s, so it validates alone.
 */
export function subschemaAt(schema: unknown, segments: readonly PathSegment[]): object | undefined {
  if (!isSchema(schema)) return undefined;
  const root = schema;
  const step = (s: Schema, seg: PathSegment, depth: number): Schema | undefined => {
    if (depth > 32) return undefined;
    if (typeof s.$ref === 'string') {
      const r = resolveRef(root, s.$ref);
      return r ? step(r, seg, depth + 1) : undefined;
    }
    if (typeof seg === 'number') {
      if (Array.isArray(s.prefixItems) && isSchema(s.prefixItems[seg])) return s.prefixItems[seg] as Schema;
      if (Array.isArray(s.items) && isSchema(s.items[seg])) return s.items[seg] as Schema;
      if (isSchema(s.items)) return s.items;
    } else {
      if (isSchema(s.properties) && isSchema(s.properties[seg])) return s.properties[seg] as Schema;
      if (isSchema(s.additionalProperties)) return s.additionalProperties;
    }
    for (const k of ['allOf', 'anyOf', 'oneOf']) {
      const list = s[k];
      if (!Array.isArray(list)) continue;
      for (const branch of list) {
        const found = isSchema(branch) ? step(branch, seg, depth + 1) : undefined;
        if (found) return found;
      }
    }
    return undefined;
  };
  let at: Schema | undefined = root;
  for (const seg of segments) {
    at = at && step(at, seg, 0);
    if (!at) return undefined;
  }
  if (at === root) return root;
  const text = JSON.stringify(at);
  if (!text.includes('"$ref"')) return at;
  const keep: Schema = {};
  for (const k of ['$schema', '$defs', 'definitions', 'components']) if (root[k] !== undefined) keep[k] = root[k];
  return { ...keep, ...at };
}

/**
 * A variable name for an extraction of the field at `segments`: its last key in lower camel case
 * (`user-name` → `userName`, `Content-Type` → `contentType`), `_` before a leading digit, `value`
 * when the path has no key (the whole body, an index of a top-level list). Always matches
 * `^[A-Za-z_][A-Za-z0-9_]*$`.
 */
export function variableName(segments: readonly PathSegment[]): string {
  const last = [...segments].reverse().find((s): s is string => typeof s === 'string');
  if (last === undefined) return 'value';
  const words = last.split(/[^A-Za-z0-9]+/).filter(Boolean);
  if (words.length === 0) return 'value';
  const name = words
    .map((w, i) => (i === 0 ? w.charAt(0).toLowerCase() + w.slice(1) : w.charAt(0).toUpperCase() + w.slice(1)))
    .join('');
  return /^[0-9]/.test(name) ? `_${name}` : name;
}

/** Which part of a node's debug capture a field is in: the response body, or a response header. */
export type FieldSource = 'body' | 'headers';

/** A field picked in a response tree: where it is and its value (as received). */
export interface PickedField {
  source: FieldSource;
  segments: PathSegment[];
  value: unknown;
}

/** The kinds of assertion a field's menu offers (docs/console.md "The designer": from a response to a test). */
export type AssertionKind = 'equals' | 'isType' | 'exists' | 'matchesSchema';

/** The assertion target of a picked field: `response.body…` or ``response.headers.`name` ``. */
export function fieldTarget(field: Pick<PickedField, 'source' | 'segments'>): string {
  return jsonataPath(field.source === 'body' ? 'response.body' : 'response.headers', field.segments);
}

/**
 * The assertion a field's menu adds (docs/api.md "Assertions"): `equals` its value, `isType` its
 * {@link jsonType}, `exists`, or `matchesSchema` with `schema` (the part of the design's response
 * schema describing the field, {@link subschemaAt}); undefined for `matchesSchema` without one.
 */
export function assertionFor(field: PickedField, kind: AssertionKind, schema?: object): Assertion | undefined {
  const target = fieldTarget(field);
  switch (kind) {
    case 'equals':
      return { target, operator: 'equals', expected: field.value };
    case 'isType':
      return { target, operator: 'isType', expected: jsonType(field.value) };
    case 'exists':
      return { target, operator: 'exists' };
    case 'matchesSchema':
      return schema ? { target, operator: 'matchesSchema', expected: schema } : undefined;
  }
}

/**
 * An extraction into a variable: an entry of the API node's `extract` (`{[variable]: expression}`,
 * docs/flows.md "Extracting variables").
 */
export interface Extraction {
  /** Proposed from the field name ({@link variableName}); the user may change it. */
  variable: string;
  /** JSONata over what the node's assertions see: `response.body.items[0].id` (the field's target). */
  expression: string;
  /** The same field read from anywhere after the node: ``nodes.`get-user`.response.body.items[0].id``. */
  later: string;
}

/** The extraction of a picked field of node `nodeId`. */
export function extractionFor(nodeId: string, field: Pick<PickedField, 'source' | 'segments'>): Extraction {
  return {
    variable: variableName(field.segments),
    expression: fieldTarget(field),
    later: jsonataPath(jsonataPath('nodes', [nodeId]), ['response', field.source, ...field.segments]),
  };
}
