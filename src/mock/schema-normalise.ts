/**
 * Normalisation of schemas taken from OpenAPI descriptions before a strict JSON Schema validator
 * (ajv) compiles them (docs/import-openapi.md "What is normalised, what is skipped and why").
 * Real descriptions carry constructs ajv refuses although their meaning is unambiguous; each is
 * rewritten to what it means, and said so in a note:
 *
 * - Boolean `exclusiveMinimum`/`exclusiveMaximum` (OpenAPI 3.0.3 §4.7.24, after JSON Schema
 *   draft-04: a flag on `minimum`/`maximum`) become the numeric form of JSON Schema draft 2020-12
 *   §6.2.5 and draft-07 (`{minimum: 5, exclusiveMinimum: true}` → `{exclusiveMinimum: 5}`); `false`,
 *   or `true` beside no bound, means nothing and is removed.
 * - Duplicate items of `enum` (draft 2020-12 §6.1.2 "SHOULD be unique") and `required` (§6.5.3
 *   "MUST be unique") are removed: a value is allowed once or several times alike.
 * - An `example` or `examples` annotation (not validation, draft 2020-12 §9.5) holding an `$id`
 *   is removed: ajv reads every `$id` of a schema as an identifier, so an example of a JSON Schema
 *   document (or of any resource with an `$id` field) made two schemas claim one URI.
 * - A `pattern` that is valid ECMA-262 without the `u` flag but not with it (`[\w-.]`, `\-`) is
 *   kept, with a note: OpenAPI patterns are ECMA-262 regular expressions (OpenAPI 3.0.3 §4.7.24),
 *   and the design check compiles them without `u` when needed ({@link patternRegExp}).
 *
 * Pure: the schema given is not changed; nodes are copied where something changes.
 */
import type { RegExpEngine } from 'ajv/dist/types';
import { SCHEMA_DATA_KEYWORDS, SCHEMA_MAP_KEYWORDS } from '../validation/json-limits';

type Json = Record<string, unknown>;

/** The outcome of {@link normaliseSchema}: the schema and one sentence per change. */
export interface NormalisedSchema {
  schema: unknown;
  /** `exclusiveMinimum: true with minimum 5 became exclusiveMinimum: 5 (at /properties/n)`, … */
  notes: string[];
}

/** Whether `value` holds an `$id` key at any depth (iterative). */
function holdsId(value: unknown): boolean {
  const stack = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    if (!Array.isArray(node) && Object.prototype.hasOwnProperty.call(node, '$id')) return true;
    for (const v of Object.values(node)) if (v !== null && typeof v === 'object') stack.push(v);
  }
  return false;
}

/** A stable text of a JSON value (object keys sorted), for telling equal enum items apart. */
function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'undefined';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  return `{${Object.keys(value)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical((value as Json)[k])}`)
    .join(',')}}`;
}

/** Whether `source` compiles as an ECMA-262 RegExp without `u` but not with it. */
function needsNonUnicode(source: string): boolean {
  try {
    new RegExp(source, 'u');
    return false;
  } catch {
    try {
      new RegExp(source);
      return true;
    } catch {
      return false;
    }
  }
}

/**
 * A copy of `schema` (a JSON Schema made from an OpenAPI Schema Object) with the constructs above
 * rewritten, and the notes saying what changed, each with the JSON Pointer of the subschema.
 * Never throws; values that are not schemas are returned as they are.
 */
export function normaliseSchema(schema: unknown): NormalisedSchema {
  const notes = new Set<string>();
  const escape = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');
  const walk = (node: unknown, pointer: string): unknown => {
    if (node === null || typeof node !== 'object') return node;
    if (Array.isArray(node)) return node.map((n, i) => walk(n, `${pointer}/${i}`));
    const s = node as Json;
    const at = pointer ? ` (at ${pointer})` : '';
    const out: Json = {};
    for (const [key, value] of Object.entries(s)) {
      if ((key === 'example' || key === 'examples') && holdsId(value)) {
        notes.add(`the ${key} holds an $id, which a validator would read as a schema identifier: it is left out${at}`);
        continue;
      }
      if (SCHEMA_MAP_KEYWORDS.has(key) && value !== null && typeof value === 'object' && !Array.isArray(value))
        out[key] = Object.fromEntries(
          Object.entries(value).map(([name, sub]) => [name, walk(sub, `${pointer}/${key}/${escape(name)}`)]),
        );
      else out[key] = SCHEMA_DATA_KEYWORDS.has(key) ? value : walk(value, `${pointer}/${escape(key)}`);
    }
    for (const [key, bound] of [
      ['exclusiveMinimum', 'minimum'],
      ['exclusiveMaximum', 'maximum'],
    ] as const) {
      if (typeof out[key] !== 'boolean') continue;
      if (out[key] === true && typeof out[bound] === 'number') {
        notes.add(`${key}: true with ${bound} ${out[bound]} (OpenAPI 3.0) became ${key}: ${out[bound]}${at}`);
        out[key] = out[bound];
        delete out[bound];
      } else {
        notes.add(`${key}: ${out[key]} without a ${bound} means nothing and was left out${at}`);
        delete out[key];
      }
    }
    // JSON Schema requires at least one enum value (draft-07 §6.1.2, 2020-12 §6.1.2); generators
    // write `enum: []` when every value was filtered out (Discord's description does): read as no enum.
    if (Array.isArray(out.enum) && out.enum.length === 0) {
      notes.add(`enum listed no values, which JSON Schema does not allow: read as no enum${at}`);
      delete out.enum;
    }
    for (const key of ['enum', 'required'] as const) {
      const list = out[key];
      if (!Array.isArray(list)) continue;
      const seen = new Set<string>();
      const unique = list.filter((v) => {
        const k = canonical(v);
        if (seen.has(k)) return false;
        seen.add(k);
        return true;
      });
      if (unique.length < list.length) {
        notes.add(`${key} listed ${list.length - unique.length} item(s) twice; the duplicates were removed${at}`);
        out[key] = unique;
      }
    }
    if (typeof out.pattern === 'string' && needsNonUnicode(out.pattern))
      notes.add(
        `pattern ${JSON.stringify(out.pattern)} is not valid with ECMA-262's u flag; it is read without it, as OpenAPI's ECMA-262 dialect${at}`,
      );
    return out;
  };
  return { schema: walk(schema, ''), notes: [...notes] };
}

/**
 * ajv's `code.regExp` for checking schemas from OpenAPI descriptions: ECMA-262 with the `u` flag
 * ajv asks for, else without it when only that makes the pattern valid (OpenAPI 3.0.3 §4.7.24:
 * patterns are ECMA-262, which has no `u` by default). A pattern invalid both ways throws ajv's error.
 */
export const patternRegExp: RegExpEngine = Object.assign(
  (pattern: string, flags: string) => {
    try {
      return new RegExp(pattern, flags);
    } catch (err) {
      try {
        return new RegExp(pattern, flags.replace('u', ''));
      } catch {
        throw err;
      }
    }
  },
  { code: 'new RegExp' },
);
