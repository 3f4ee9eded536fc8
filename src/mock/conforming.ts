/**
 * Samples that satisfy their own schema (docs/mocks.md "Sample data"). openapi-sampler
 * (src/mock/samples.ts) gives example-like values but follows only part of a schema: it ignores
 * `pattern`, bounds in nested objects and which `oneOf` branch validates, and it copies a
 * schema's `example` even where that example breaks the schema. A mock answering such a sample
 * fails the contract test made from the same description (cli/importers/openapi.ts).
 *
 * {@link conformSample} checks a sample as a run's `matchesSchema` does (src/domain/assertions.ts:
 * ajv with ajv-formats and RE2 patterns, draft-07 or 2020-12 by `$schema`; here `verbose`, so
 * each error carries the schema it comes from) and replaces only the values ajv names,
 * generating each from its schema with {@link generateFromSchema}:
 *
 * - strings: `const`/`enum`, then a canonical value per `format` (RFC 3339 dates, RFC 3986 URIs,
 *   RFC 5322 addresses, RFC 4122 UUIDs, …), then a string matching `pattern` (randexp, seeded by
 *   the pattern so the same schema gives the same sample), padded or cut to `minLength`/`maxLength`;
 * - numbers: within `minimum`/`maximum` (exclusive too) and on `multipleOf`;
 * - objects: every required property (and the others, while shallow); `additionalProperties:
 *   false` respected; arrays: `minItems` items (at least one while shallow), distinct when
 *   `uniqueItems`;
 * - `oneOf`/`anyOf`: the first branch whose value validates against the whole schema; `allOf`:
 *   the branches merged.
 *
 * Deterministic: the same schema and sample give the same result. What still fails after
 * {@link MAX_ROUNDS} rounds is returned with ajv's messages, for the import to report.
 */
import type { ValidateFunction } from 'ajv';
import RandExp from 'randexp';
import { forgetCompiledSchemas, schemaCompiler } from '../domain/assertions';

type Json = Record<string, unknown>;

/** Repair rounds before giving up (each fixes every value ajv named in the round before). */
const MAX_ROUNDS = 12;
/** Nesting below which optional properties and one array item are still generated. */
const RICH_DEPTH = 4;
/** Nesting at which generation stops (a recursive schema whose recursion is required). */
const MAX_DEPTH = 16;

/** Canonical values per `format` (the names ajv-formats knows, plus OpenAPI's own). */
const FORMAT_SAMPLES: Record<string, string> = {
  date: '2024-01-15',
  time: '12:30:00Z',
  'date-time': '2024-01-15T12:30:00Z',
  'iso-time': '12:30:00Z',
  'iso-date-time': '2024-01-15T12:30:00Z',
  duration: 'P1DT2H',
  uri: 'https://example.com/resource',
  'uri-reference': 'https://example.com/resource',
  'uri-template': 'https://example.com/{id}',
  url: 'https://example.com/resource',
  iri: 'https://example.com/resource',
  'iri-reference': 'https://example.com/resource',
  email: 'user@example.com',
  'idn-email': 'user@example.com',
  hostname: 'example.com',
  'idn-hostname': 'example.com',
  ipv4: '192.0.2.10',
  ipv6: '2001:db8::10',
  regex: '^[a-z]+$',
  uuid: '3fa85f64-5717-4562-b3fc-2c963f66afa6',
  'json-pointer': '/data/0',
  'json-pointer-uri-fragment': '#/data/0',
  'relative-json-pointer': '0/data',
  byte: 'QXNzYXk=',
  binary: 'binary',
  password: 'secret-password',
};

/** What {@link conformSample} made of a sample. */
export interface ConformedSample {
  value: unknown;
  /** True when `value` validates against the schema. */
  valid: boolean;
  /** ajv's messages for what still fails (`/path message`); empty when valid. */
  errors: string[];
  /** Instance paths (`/items/0/sid`, `` for the root) whose sampled value was replaced. */
  replaced: string[];
}

/** A small deterministic PRNG (mulberry32) seeded from text. */
function prng(seedText: string): () => number {
  let h = 1779033703 ^ seedText.length;
  for (let i = 0; i < seedText.length; i++) {
    h = Math.imul(h ^ seedText.charCodeAt(i), 3432918353);
    h = (h << 13) | (h >>> 19);
  }
  let a = h >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Validators by schema object, and by schema text (descriptions repeat schemas across operations). */
const validators = new WeakMap<object, ValidateFunction>();
const validatorsByText = new Map<string, ValidateFunction>();

/** The validator of `schema`, as runs check it (src/domain/assertions.ts `schemaCompiler`), but `verbose`. */
function validatorFor(schema: Json): ValidateFunction {
  let validate = validators.get(schema);
  if (validate) return validate;
  const text = JSON.stringify(schema);
  validate = validatorsByText.get(text);
  if (!validate) {
    validate = schemaCompiler(schema, { verbose: true }).compile(schema);
    // Bounded: an import of a large description compiles a few thousand at most.
    if (validatorsByText.size > 5000) {
      validatorsByText.clear();
      // ajv keeps every compiled schema too; start afresh with the cache.
      forgetCompiledSchemas({ verbose: true });
    }
    validatorsByText.set(text, validate);
  }
  validators.set(schema, validate);
  return validate;
}

interface Context {
  root: Json;
  /** Validates `value` against `schema` (a subschema of root: root's $defs are in reach). */
  validates(schema: unknown, value: unknown): boolean;
}

/**
 * The `$defs` / `definitions` of `root` that `schema` reaches through local `$ref`s, transitively:
 * what a subschema needs beside it to compile. Only those, not all of root's: a large description's
 * schema keeps hundreds of component schemas there (src/mock/openapi.ts `withDefs`), and compiling
 * them all with each subschema took a minute for Elasticsearch's description.
 */
function reachableDefs(root: Json, schema: unknown): Json {
  const out: Json = {};
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      for (const v of node) stack.push(v);
      continue;
    }
    const ref = (node as Json).$ref;
    if (typeof ref === 'string') {
      const m = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
      if (m) {
        const key = m[1]!;
        const name = decodeURIComponent(m[2]!).replace(/~1/g, '/').replace(/~0/g, '~');
        const holder = (out[key] ??= {}) as Json;
        const def = (root[key] as Json | undefined)?.[name];
        if (def !== undefined && !(name in holder)) {
          holder[name] = def;
          stack.push(def);
        }
      }
    }
    for (const v of Object.values(node)) if (v !== null && typeof v === 'object') stack.push(v);
  }
  return out;
}

function contextFor(root: Json): Context {
  const extras: Json = {};
  if (typeof root.$schema === 'string') extras.$schema = root.$schema;
  const hasDefs = Boolean(root.$defs || root.definitions);
  const wrappers = new WeakMap<object, Json>();
  return {
    root,
    validates(schema, value) {
      if (schema === true || schema === undefined) return true;
      if (schema === false) return false;
      try {
        if (schema === root) return validatorFor(root)(value) === true;
        let wrapped = wrappers.get(schema as object);
        if (!wrapped)
          wrappers.set(
            schema as object,
            (wrapped = { ...(schema as Json), ...extras, ...(hasDefs ? reachableDefs(root, schema) : {}) }),
          );
        return validatorFor(wrapped)(value) === true;
      } catch {
        return false;
      }
    },
  };
}

/** The node a local JSON pointer (`#/$defs/Pet`, `#/properties/a`) names within `root`. */
function at(root: unknown, pointer: string): unknown {
  if (pointer === '#' || pointer === '') return root;
  if (!pointer.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of pointer.slice(2).split('/')) {
    const part = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Json)[part];
  }
  return node;
}

function resolve(ctx: Context, schema: unknown, hops = 0): unknown {
  if (schema && typeof schema === 'object' && typeof (schema as Json).$ref === 'string' && hops < 32) {
    const { $ref, ...rest } = schema as Json;
    const target = resolve(ctx, at(ctx.root, $ref as string), hops + 1);
    if (Object.keys(rest).length === 0 || !target || typeof target !== 'object') return target;
    return { allOf: [target, rest] };
  }
  return schema;
}

/** `allOf` branches (and the schema beside them) as one schema: the usual case of composition. */
function merge(ctx: Context, parts: unknown[]): Json {
  const out: Json = {};
  /** Property names every part with `additionalProperties: false` allows (undefined: any). */
  let allowed: Set<string> | undefined;
  for (const raw of parts) {
    const s = resolve(ctx, raw);
    if (!s || typeof s !== 'object') continue;
    let part = s as Json;
    if (Array.isArray(part.allOf)) {
      const { allOf, ...rest } = part;
      part = merge(ctx, [rest, ...(allOf as unknown[])]);
    }
    if (part.additionalProperties === false) {
      const own = new Set(Object.keys((part.properties ?? {}) as Json));
      allowed = allowed ? new Set([...allowed].filter((n) => own.has(n))) : own;
    }
    for (const [k, v] of Object.entries(part)) {
      if (k === 'properties' && v && typeof v === 'object') {
        // A property named by several parts must satisfy each (a trait's `type: string` and a
        // branch's `enum: [FRAME]`).
        const props = { ...((out.properties as Json | undefined) ?? {}) };
        for (const [name, sub] of Object.entries(v as Json))
          props[name] = name in props && props[name] !== sub ? { allOf: [props[name], sub] } : sub;
        out.properties = props;
      } else if (k === 'required' && Array.isArray(v))
        out.required = [...new Set([...((out.required as string[] | undefined) ?? []), ...(v as string[])])];
      else if (k === 'type' && out.type !== undefined) {
        const a = ([] as unknown[]).concat(out.type);
        const b = ([] as unknown[]).concat(v);
        const both = a.filter((t) => b.includes(t) || (t === 'integer' && b.includes('number')));
        out.type = both.length ? (both.length === 1 ? both[0] : both) : v;
      } else if (k === 'minimum' || k === 'minLength' || k === 'minItems' || k === 'exclusiveMinimum')
        out[k] = typeof out[k] === 'number' ? Math.max(out[k] as number, v as number) : v;
      else if (k === 'maximum' || k === 'maxLength' || k === 'maxItems' || k === 'exclusiveMaximum')
        out[k] = typeof out[k] === 'number' ? Math.min(out[k] as number, v as number) : v;
      else out[k] = v;
    }
  }
  if (allowed && out.properties) {
    // `additionalProperties: false` of one part forbids the other parts' extra properties.
    const keep = allowed;
    out.properties = Object.fromEntries(Object.entries(out.properties as Json).filter(([n]) => keep.has(n)));
  }
  return out;
}

function typeOf(s: Json): string | undefined {
  const t = s.type;
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) return (t.find((x) => x !== 'null') as string | undefined) ?? (t[0] as string | undefined);
  if (s.properties || s.required || s.additionalProperties !== undefined) return 'object';
  if (s.items || s.prefixItems || s.minItems !== undefined) return 'array';
  if (s.pattern || s.format || s.minLength !== undefined || s.maxLength !== undefined) return 'string';
  if (s.minimum !== undefined || s.maximum !== undefined || s.multipleOf !== undefined) return 'number';
  return undefined;
}

function fitLength(text: string, s: Json): string {
  let out = text;
  if (typeof s.maxLength === 'number' && [...out].length > s.maxLength) out = [...out].slice(0, s.maxLength).join('');
  if (typeof s.minLength === 'number') while ([...out].length < s.minLength) out += 'x';
  return out;
}

function stringFor(ctx: Context, s: Json, salt: number): string {
  const candidates: string[] = [];
  const fmt = typeof s.format === 'string' ? FORMAT_SAMPLES[s.format] : undefined;
  if (fmt !== undefined) candidates.push(fmt);
  if (typeof s.pattern === 'string') {
    try {
      const generator = new RandExp(s.pattern);
      generator.max = 6;
      const random = prng(`${s.pattern}#${salt}`);
      generator.randInt = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
      for (let i = 0; i < 8; i++) candidates.push(fitLength(generator.gen(), s));
    } catch {
      // A pattern randexp cannot read (a construct of another regex dialect): the others may do.
    }
  }
  candidates.push(fitLength(salt ? `string${salt}` : 'string', s));
  return candidates.find((c) => ctx.validates(s, c)) ?? candidates[0]!;
}

function numberFor(s: Json, integer: boolean, salt: number): number {
  const step = typeof s.multipleOf === 'number' && s.multipleOf > 0 ? s.multipleOf : integer ? 1 : 0;
  let lo = typeof s.minimum === 'number' ? s.minimum : -Infinity;
  let hi = typeof s.maximum === 'number' ? s.maximum : Infinity;
  if (typeof s.exclusiveMinimum === 'number') lo = Math.max(lo, s.exclusiveMinimum + (step || 1e-6));
  if (typeof s.exclusiveMaximum === 'number') hi = Math.min(hi, s.exclusiveMaximum - (step || 1e-6));
  if (s.format === 'int32') {
    lo = Math.max(lo, -2147483648);
    hi = Math.min(hi, 2147483647);
  }
  let value = Number.isFinite(lo) ? lo + salt : Number.isFinite(hi) ? Math.min(hi - salt, 1) : 1 + salt;
  if (step) value = Math.ceil(value / step) * step;
  if (integer) value = Math.ceil(value);
  if (value > hi) value = step ? Math.floor(hi / step) * step : hi;
  return value;
}

/**
 * A value of `schema` (JSON Schema as src/mock/openapi-schema.ts makes it; `root` holds its
 * `$defs`), generated from its keywords alone (no `example`), deterministic. `salt` varies the
 * value (distinct array items).
 */
export function generateFromSchema(schema: unknown, root: Json = schema as Json, salt = 0): unknown {
  return generate(contextFor(root), schema, 0, salt);
}

function generate(ctx: Context, raw: unknown, depth: number, salt = 0): unknown {
  let s = resolve(ctx, raw);
  if (s === true || s === undefined || s === null || typeof s !== 'object') return 'string';
  if (Array.isArray(s)) return 'string';
  if (depth > MAX_DEPTH) return null;
  if (Array.isArray((s as Json).allOf)) {
    const { allOf, ...rest } = s as Json;
    s = merge(ctx, [rest, ...(allOf as unknown[])]);
  }
  const schema = s as Json;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length) {
    const values = schema.enum.filter((v) => v !== null);
    return values.length ? values[salt % values.length] : null;
  }
  for (const key of ['oneOf', 'anyOf'] as const) {
    const branches = schema[key];
    if (!Array.isArray(branches) || branches.length === 0) continue;
    const { [key]: _, ...rest } = schema;
    let first: unknown;
    for (const branch of branches) {
      const candidate = generate(ctx, merge(ctx, [rest, branch]), depth, salt);
      if (first === undefined) first = candidate;
      if (ctx.validates(schema, candidate)) return candidate;
      if (key === 'oneOf') {
        const exclusive = exclusiveOf(ctx, schema, rest, branches, branch, candidate);
        if (exclusive !== undefined) return exclusive;
      }
    }
    // `oneOf [string, nullable string]` (Elasticsearch's way of writing "a string or null"): every
    // string matches both branches, null only one.
    if (key === 'oneOf' && ctx.validates(schema, null)) return null;
    return first;
  }
  if (Array.isArray(schema.examples) && schema.examples.length && ctx.validates(schema, schema.examples[0]))
    return schema.examples[0];
  if ('default' in schema && ctx.validates(schema, schema.default)) return schema.default;
  switch (typeOf(schema)) {
    case 'object': {
      const out: Json = {};
      const props = (schema.properties ?? {}) as Json;
      const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
      for (const [name, sub] of Object.entries(props)) {
        if (!required.includes(name) && depth >= RICH_DEPTH) continue;
        const v = generate(ctx, sub, depth + 1);
        if (v !== undefined) out[name] = v;
      }
      const extra = schema.additionalProperties;
      for (const name of required)
        if (!(name in out)) out[name] = generate(ctx, extra && typeof extra === 'object' ? extra : {}, depth + 1);
      const minProperties = typeof schema.minProperties === 'number' ? schema.minProperties : 0;
      for (let i = 0; Object.keys(out).length < minProperties && i < 1000; i++)
        if (!(`property${i}` in out))
          out[`property${i}`] = generate(ctx, extra && typeof extra === 'object' ? extra : {}, depth + 1, i);
      return out;
    }
    case 'array': {
      const min = typeof schema.minItems === 'number' ? schema.minItems : 0;
      const max = typeof schema.maxItems === 'number' ? schema.maxItems : Infinity;
      const n = Math.min(max, Math.max(min, depth < RICH_DEPTH ? 1 : 0), 1000);
      const prefix = Array.isArray(schema.prefixItems) ? (schema.prefixItems as unknown[]) : [];
      const items = Array.isArray(schema.items) ? undefined : schema.items;
      const out: unknown[] = [];
      for (let i = 0; i < Math.max(n, prefix.length); i++) {
        const sub = prefix[i] ?? (Array.isArray(schema.items) ? schema.items[i] : items) ?? {};
        out.push(generate(ctx, sub, depth + 1, schema.uniqueItems ? i : 0));
      }
      return out;
    }
    case 'string':
      return stringFor(ctx, schema, salt);
    case 'integer':
      return numberFor(schema, true, salt);
    case 'number':
      return numberFor(schema, false, salt);
    case 'boolean':
      return salt % 2 === 0;
    case 'null':
      return null;
    default:
      return 'string';
  }
}

/** A value that `schema` refuses, by its `type`, `enum` or `const`; undefined when it takes anything. */
function violating(ctx: Context, raw: unknown): unknown {
  const s = resolve(ctx, raw);
  if (!s || typeof s !== 'object') return undefined;
  const schema = s as Json;
  if ('const' in schema || Array.isArray(schema.enum))
    return typeof (schema.const ?? (schema.enum as unknown[])[0]) === 'string' ? 0 : '\u0000';
  const types = ([] as unknown[]).concat(schema.type ?? []);
  if (!types.length) return undefined;
  if (!types.includes('string')) return 'x';
  if (!types.includes('number') && !types.includes('integer')) return 0;
  if (!types.includes('boolean')) return true;
  return undefined;
}

/**
 * `candidate` (a value of `branch`) also matches other branches of a `oneOf`, whose branches
 * overlap (objects that differ by optional properties): adds a property another branch
 * constrains and `branch` leaves free, with a value that branch refuses, so that exactly one
 * branch matches. Undefined when no such property makes `schema` validate.
 */
function exclusiveOf(
  ctx: Context,
  schema: Json,
  rest: Json,
  branches: unknown[],
  branch: unknown,
  candidate: unknown,
): unknown {
  if (!candidate || typeof candidate !== 'object' || Array.isArray(candidate)) return undefined;
  const own = merge(ctx, [rest, branch]);
  if (own.additionalProperties === false || !ctx.validates(own, candidate)) return undefined;
  const ownProps = (own.properties ?? {}) as Json;
  let next = { ...(candidate as Json) };
  for (const other of branches) {
    if (other === branch) continue;
    const theirs = merge(ctx, [rest, other]);
    if (!ctx.validates(theirs, next)) continue;
    const added = Object.entries((theirs.properties ?? {}) as Json).find(
      ([name, sub]) => !(name in ownProps) && violating(ctx, sub) !== undefined,
    );
    if (!added) return undefined;
    next = { ...next, [added[0]]: violating(ctx, added[1]) };
  }
  return ctx.validates(schema, next) ? next : undefined;
}

/**
 * The schema of the value at `path` (instance segments), walking properties, items,
 * additionalProperties, `$ref`s and `allOf`s from the root; undefined when a `oneOf`/`anyOf`
 * is on the way (which branch applies is not known) or the path leaves the schema.
 */
function schemaAt(ctx: Context, path: string[]): unknown {
  let node: unknown = ctx.root;
  for (const seg of path) {
    let s = resolve(ctx, node) as Json | undefined;
    if (!s || typeof s !== 'object') return undefined;
    if (Array.isArray(s.allOf)) s = merge(ctx, [s]);
    if (s.oneOf || s.anyOf) return undefined;
    const props = s.properties as Json | undefined;
    const index = /^\d+$/.test(seg) ? Number(seg) : -1;
    if (props && Object.prototype.hasOwnProperty.call(props, seg)) node = props[seg];
    else if (Array.isArray(s.prefixItems) && index >= 0 && index < s.prefixItems.length) node = s.prefixItems[index];
    else if (index >= 0 && s.items && typeof s.items === 'object' && !Array.isArray(s.items)) node = s.items;
    else if (s.additionalProperties && typeof s.additionalProperties === 'object') node = s.additionalProperties;
    else return undefined;
  }
  return node;
}

function segments(instancePath: string): string[] {
  return instancePath === ''
    ? []
    : instancePath
        .slice(1)
        .split('/')
        .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function getAt(value: unknown, path: string[]): unknown {
  let node = value;
  for (const p of path) node = node && typeof node === 'object' ? (node as Json)[p] : undefined;
  return node;
}

/** Sets (or deletes, for undefined) the value at `path`; returns the new root. */
function setAt(value: unknown, path: string[], next: unknown): unknown {
  if (path.length === 0) return next;
  const parent = getAt(value, path.slice(0, -1));
  if (!parent || typeof parent !== 'object') return value;
  const key = path[path.length - 1]!;
  if (Array.isArray(parent)) parent[Number(key)] = next;
  else if (next === undefined) delete (parent as Json)[key];
  else (parent as Json)[key] = next;
  return value;
}

/** Keywords whose errors come from branches tried (the enclosing keyword's own error decides). */
const BRANCHING = /\/(oneOf|anyOf|not|if|then|else|contains)\//;

/**
 * Checks `value` (a sample of the schema) against `schema` (JSON Schema as
 * src/mock/openapi-schema.ts `toJsonSchema` makes it) and replaces the parts that do not validate
 * with values generated from their schema; see the module comment. Never throws.
 */
export function conformSample(value: unknown, schema: Json): ConformedSample {
  const ctx = contextFor(schema);
  let current: unknown = structuredClone(value);
  const replaced = new Set<string>();
  let messages: string[] = [];
  for (let round = 0; round <= MAX_ROUNDS; round++) {
    let validate;
    try {
      validate = validatorFor(schema);
    } catch (err) {
      return { value, valid: false, errors: [`the schema does not compile: ${(err as Error).message}`], replaced: [] };
    }
    if (validate(current)) return { value: current, valid: true, errors: [], replaced: [...replaced] };
    const errors = validate.errors ?? [];
    messages = errors.slice(0, 5).map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`);
    if (round === MAX_ROUNDS) break;
    // Shallowest first: a replaced value takes the errors below it along.
    const ordered = errors
      .filter((e) => !BRANCHING.test(e.schemaPath))
      .sort((a, b) => a.instancePath.length - b.instancePath.length);
    const done: string[] = [];
    let changed = false;
    for (const e of ordered) {
      const under = done.some((d) => e.instancePath === d || e.instancePath.startsWith(`${d}/`));
      if (under) continue;
      const path = segments(e.instancePath);
      // ajv's `verbose`: the schema holding the failed keyword (a schemaPath would be relative to
      // the $ref it came through).
      const holder = e.parentSchema;
      // The whole schema of the value when the path to it is plain (properties, items, allOf): a
      // keyword's own holder may be one part of an allOf, and regenerating from it alone would
      // break the other parts.
      const whole = schemaAt(ctx, path);
      const salt = round;
      if (e.keyword === 'required') {
        const name = String((e.params as { missingProperty?: unknown }).missingProperty);
        const propSchema = schemaAt(ctx, [...path, name]) ?? (holder?.properties as Json | undefined)?.[name] ?? {};
        const next = generate(ctx, propSchema, path.length + 1, salt);
        current = setAt(current, [...path, name], next);
        replaced.add(`${e.instancePath}/${name}`);
        changed = true;
        continue;
      }
      if (e.keyword === 'additionalProperties' || e.keyword === 'unevaluatedProperties') {
        const params = e.params as { additionalProperty?: string; unevaluatedProperty?: string };
        const name = params.additionalProperty ?? params.unevaluatedProperty;
        if (name !== undefined) {
          current = setAt(current, [...path, name], undefined);
          replaced.add(`${e.instancePath}/${name}`);
          changed = true;
        }
        continue;
      }
      if (holder === undefined && whole === undefined) continue;
      current = setAt(current, path, generate(ctx, whole ?? holder, path.length, salt));
      replaced.add(e.instancePath);
      done.push(e.instancePath);
      changed = true;
    }
    if (!changed) break;
  }
  return { value: current, valid: false, errors: messages, replaced: [...replaced] };
}

/**
 * ajv's messages (`/path message`, at most 5) for `value` against `schema` (JSON Schema as
 * src/mock/openapi-schema.ts makes it); empty when it validates, one message when the schema
 * does not compile.
 */
export function schemaErrors(value: unknown, schema: Json): string[] {
  try {
    const validate = validatorFor(schema);
    if (validate(value)) return [];
    return (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`);
  } catch (err) {
    return [`the schema does not compile: ${(err as Error).message}`];
  }
}
