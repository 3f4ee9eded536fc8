/**
 * Assertion evaluation (spec "Test-flow nodes": assertions on `response.status` and
 * `response.body.<field>` decide pass or fail).
 *
 * An assertion's `target` is a JSONata expression evaluated against the {@link AssertionContext};
 * its `operator` compares the value with `expected`. Nothing here throws: an expression error or an
 * invalid schema is a failed assertion with a message, so a bad assertion fails its node, never the run.
 *
 * Pure module (runs inside the workflow sandbox): JSONata through {@link evaluateExpression}, JSON
 * Schema through ajv (draft-07 by default, draft 2020-12 when the schema's `$schema` says so).
 * Regular expressions (`matches`, schema `pattern`s) run on RE2, in time linear in the input.
 */
import Ajv, { type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { evaluateExpression } from './expressions';
import { ajvRegExp, LinearRegExp } from './regex';
import { checkFormat } from './formats';
import type { Assertion, AssertionResult, Variables } from './types';

/** What an assertion's target expression sees. */
export interface AssertionContext {
  response: {
    status?: number;
    headers: Record<string, string>;
    body?: unknown;
    /** Response time in milliseconds. */
    time: number;
    size: number;
  };
  variables: Variables;
  /** Earlier nodes of the same test case by node id: `nodes.login.response.body.token`. */
  nodes: Record<string, { request: { method: string; url: string }; response: AssertionContext['response'] }>;
}

/** The ajv instances, by draft and `verbose` ({@link schemaCompiler}). */
const compilers = new Map<string, Ajv | Ajv2020>();
const validators = new Map<string, ValidateFunction>();

/**
 * The ajv instance that compiles `schema` as runs check it (the one definition, also used by the
 * mocks' sample generator, src/mock/conforming.ts): draft 2020-12 when the schema's `$schema` names
 * it, else draft-07; all errors, not strict, ajv-formats' formats, patterns on RE2
 * (src/domain/regex.ts). `verbose` keeps the failing schema and data in each error (what the
 * generator needs to repair a value).
 */
export function schemaCompiler(schema: unknown, options: { verbose?: boolean } = {}): Ajv | Ajv2020 {
  const declared = (schema as { $schema?: unknown } | null)?.$schema;
  const draft = typeof declared === 'string' && declared.includes('2020-12') ? '2020-12' : 'draft-07';
  const verbose = options.verbose === true;
  const id = `${draft}:${verbose}`;
  let ajv = compilers.get(id);
  if (!ajv) {
    const settings = { allErrors: true, strict: false, verbose, code: { regExp: ajvRegExp } };
    ajv = addFormats(draft === '2020-12' ? new Ajv2020(settings) : new Ajv(settings));
    compilers.set(id, ajv);
  }
  return ajv;
}

/** Drops the ajv instances {@link schemaCompiler} made with these options (ajv keeps every schema it compiled). */
export function forgetCompiledSchemas(options: { verbose?: boolean } = {}): void {
  const verbose = options.verbose === true;
  for (const draft of ['2020-12', 'draft-07']) compilers.delete(`${draft}:${verbose}`);
}

function validatorFor(schema: unknown): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = validators.get(key);
  if (!validate) {
    validate = schemaCompiler(schema).compile(schema as object);
    if (validators.size > 1000) validators.clear();
    validators.set(key, validate);
  }
  return validate;
}

/**
 * Checks that a JSON Schema compiles; returns the error message or null. Used when a test case is saved.
 */
export function checkSchema(schema: unknown): string | null {
  if (schema === null || (typeof schema !== 'object' && typeof schema !== 'boolean')) {
    return 'a JSON Schema must be an object or a boolean';
  }
  try {
    validatorFor(schema);
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/**
 * Parses `expected` of a `matches` assertion: `"^a.c$"` or `"/^a.c$/i"`, into a regular expression
 * that runs on RE2 in linear time (src/domain/regex.ts).
 *
 * @throws Error when `expected` is not a string; UnsupportedRegexError when the pattern does not
 *   parse or uses what RE2 cannot run (backreferences, lookaround).
 */
export function parseRegex(expected: unknown): LinearRegExp {
  if (typeof expected !== 'string') throw new Error('expected must be a regular expression string');
  const slashed = /^\/(.*)\/([dgimsuvy]*)$/s.exec(expected);
  return slashed ? new LinearRegExp(slashed[1]!, slashed[2]) : new LinearRegExp(expected);
}

/** Deep equality of JSON values. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => deepEqual(v, bb[i]));
  }
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  return (
    ka.length === kb.length &&
    ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual((a as never)[k], (b as never)[k]))
  );
}

/**
 * A readable, bounded copy of a value for results (docs/api.md "Results": `actual` 2,000
 * characters; `expected`, variables a node set, iteration items 500; IF conditions 200).
 * A string longer than `maxChars` keeps its first `maxChars` characters (UTF-16 units, never half
 * a surrogate pair) followed by the marker `…(cut, N chars)`, N being the whole length; an object
 * or array whose JSON is longer becomes that JSON text cut the same way, with the marker
 * `…(cut, N chars of JSON)`. Shorter values, numbers, booleans and null are returned unchanged.
 */
export function preview(value: unknown, maxChars = 2000): unknown {
  if (value === undefined) return undefined;
  if (typeof value === 'string')
    return value.length > maxChars ? `${head(value, maxChars)}…(cut, ${value.length} chars)` : value;
  if (typeof value !== 'object' || value === null) return value;
  const text = JSON.stringify(value);
  if (text.length <= maxChars) return value;
  return `${head(text, maxChars)}…(cut, ${text.length} chars of JSON)`;
}

/** The first `n` UTF-16 units of `text`, one fewer when the cut would split a surrogate pair. */
function head(text: string, n: number): string {
  const last = text.charCodeAt(n - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? n - 1 : n);
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  const kind = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  const text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  return `${text.length > 200 ? `${text.slice(0, 200)}…` : text} (${kind})`;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && Number.isInteger(value)) return 'integer';
  return typeof value;
}

function numeric(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** Applies `operator` to `actual`; returns null when it holds, else a message saying why not. */
function check(assertion: Assertion, actual: unknown): string | null {
  const { operator, expected } = assertion;
  switch (operator) {
    case 'equals':
      return deepEqual(actual, expected) ? null : `expected ${describe(expected)}, got ${describe(actual)}`;
    case 'notEquals':
      return !deepEqual(actual, expected) ? null : `expected anything but ${describe(expected)}`;
    case 'exists':
      return actual !== undefined ? null : 'expected a value, got nothing';
    case 'notExists':
      return actual === undefined ? null : `expected nothing, got ${describe(actual)}`;
    case 'contains':
    case 'notContains': {
      let holds: boolean;
      if (typeof actual === 'string') holds = typeof expected === 'string' && actual.includes(expected);
      else if (Array.isArray(actual)) holds = actual.some((v) => deepEqual(v, expected));
      else if (actual !== null && typeof actual === 'object')
        holds = typeof expected === 'string' && Object.prototype.hasOwnProperty.call(actual, expected);
      else return `expected a string, array or object to search, got ${describe(actual)}`;
      if (operator === 'contains')
        return holds ? null : `expected ${describe(actual)} to contain ${describe(expected)}`;
      return holds ? `expected ${describe(actual)} not to contain ${describe(expected)}` : null;
    }
    case 'greaterThan':
    case 'greaterThanOrEqual':
    case 'lessThan':
    case 'lessThanOrEqual': {
      const a = numeric(actual);
      const e = numeric(expected);
      if (a === undefined) return `expected a number, got ${describe(actual)}`;
      if (e === undefined) return `expected value must be a number, got ${describe(expected)}`;
      const holds =
        operator === 'greaterThan'
          ? a > e
          : operator === 'greaterThanOrEqual'
            ? a >= e
            : operator === 'lessThan'
              ? a < e
              : a <= e;
      const words = { greaterThan: '>', greaterThanOrEqual: '>=', lessThan: '<', lessThanOrEqual: '<=' }[operator];
      return holds ? null : `expected a value ${words} ${e}, got ${a}`;
    }
    case 'inRange': {
      const a = numeric(actual);
      if (
        !Array.isArray(expected) ||
        expected.length !== 2 ||
        numeric(expected[0]) === undefined ||
        numeric(expected[1]) === undefined
      ) {
        return 'expected value must be [min, max]';
      }
      const [min, max] = expected as [number, number];
      if (a === undefined) return `expected a number in [${min}, ${max}], got ${describe(actual)}`;
      return a >= min && a <= max ? null : `expected a value in [${min}, ${max}], got ${a}`;
    }
    case 'oneOf':
      if (!Array.isArray(expected)) return 'expected value must be an array';
      return expected.some((v) => deepEqual(actual, v))
        ? null
        : `expected one of ${describe(expected)}, got ${describe(actual)}`;
    case 'matches': {
      let re: LinearRegExp;
      try {
        re = parseRegex(expected);
      } catch (err) {
        return `invalid regular expression: ${(err as Error).message}`;
      }
      if (typeof actual !== 'string' && typeof actual !== 'number')
        return `expected a string to match ${re}, got ${describe(actual)}`;
      return re.test(String(actual)) ? null : `expected ${describe(actual)} to match ${re}`;
    }
    case 'matchesSchema': {
      let validate: ValidateFunction;
      try {
        validate = validatorFor(expected);
      } catch (err) {
        return `invalid JSON Schema: ${(err as Error).message}`;
      }
      if (validate(actual)) return null;
      const errors = (validate.errors ?? [])
        .slice(0, 5)
        .map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`)
        .join('; ');
      return `does not match the schema: ${errors}`;
    }
    case 'isType':
      if (expected === 'number' && typeof actual === 'number') return null;
      return typeOf(actual) === expected ? null : `expected type ${String(expected)}, got ${typeOf(actual)}`;
    case 'isEmail':
    case 'isUrl':
    case 'isUuid':
    case 'isIso8601':
    case 'isJson':
      return checkFormat(operator, actual);
  }
}

/**
 * Whether `assertion`'s operator holds on an already evaluated `actual` (its target not evaluated):
 * what a load run uses to tell which statuses a node's status assertions expect (src/perf/expected-statuses.ts).
 */
export function assertionHolds(assertion: Assertion, actual: unknown): boolean {
  return check(assertion, actual) === null;
}

/** Evaluates a JSONata expression against an input; throws ExpressionError. */
export type Evaluator = (expression: string, input: unknown) => Promise<unknown>;

/** Evaluates one assertion (with `evaluate`, by default the workflow-safe evaluator). Never throws. */
export async function evaluateAssertion(
  assertion: Assertion,
  context: AssertionContext,
  evaluate: Evaluator = evaluateExpression,
): Promise<AssertionResult> {
  const base = {
    name: assertion.name,
    target: assertion.target,
    operator: assertion.operator,
    expected: assertion.expected,
  };
  let actual: unknown;
  try {
    actual = await evaluate(assertion.target, context);
  } catch (err) {
    return { ...base, passed: false, message: (err as Error).message };
  }
  const failure = check(assertion, actual);
  return failure === null
    ? { ...base, actual: preview(actual), passed: true }
    : { ...base, actual: preview(actual), passed: false, message: failure };
}
