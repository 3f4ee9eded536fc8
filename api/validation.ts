/**
 * Request validation: bodies against JSON Schemas (ajv, every error reported), query parameters
 * by small parsers. Failures are 400 problems naming each field at fault.
 */
import Ajv, { type JSONSchemaType, type ValidateFunction } from 'ajv';
import { ajvIssues, type FlowIssue } from '../src/validation/flow';
import { fieldError } from '../src/problems';
import { invalid, Problem } from './problem';
import { hasBody, parsedBody } from './body';
import type { AppContext } from './context';

const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });

/** Turns flow/domain issues into a 400 problem. */
export function issuesProblem(issues: FlowIssue[]): Problem {
  return invalid(issues.map((i) => fieldError(i.path, i.message)));
}

/** Compiles `schema` once; the returned function returns the body typed or throws a 400 problem. */
export function bodyValidator<T>(schema: JSONSchemaType<T> | Record<string, unknown>): (body: unknown) => T {
  const validate = ajv.compile(schema) as ValidateFunction<T>;
  return (body) => {
    if (validate(body)) return body;
    throw issuesProblem(ajvIssues(validate.errors));
  };
}

/** The parsed JSON body; 400 when the request carries no body at all (api/body.ts {@link hasBody}). */
export function jsonBody(ctx: AppContext): unknown {
  if (!hasBody(ctx)) throw invalid([fieldError([], 'a JSON body is required')], 'A JSON request body is required.');
  return parsedBody(ctx);
}

/** A query parameter as a string (the first when repeated), or undefined. */
export function queryString(ctx: AppContext, name: string): string | undefined {
  const raw = ctx.query[name];
  const value = Array.isArray(raw) ? raw[0] : raw;
  return value === undefined ? undefined : value;
}

/**
 * A filter parameter of a listing (`?runner=smoke`): its value, or undefined when the parameter is
 * absent. Present but empty or blank (`?runner=`, `?runner=%20`), or given more than once, is a
 * 400 `invalid-query` naming it: a script whose variable is unset must not get an unfiltered list
 * back and read the wrong record as its answer (docs/spec-choices.md "API surface").
 * Paging parameters (`limit`, `cursor`, `order`) are read by their own parsers, not this one.
 */
export function queryFilter(ctx: AppContext, name: string): string | undefined {
  const raw = ctx.query[name];
  if (raw === undefined) return undefined;
  if (Array.isArray(raw) && raw.length > 1) throw queryProblem(name, 'must be given once');
  const value = Array.isArray(raw) ? raw[0]! : raw;
  if (value.trim() === '')
    throw queryProblem(name, 'must not be empty; leave the parameter out to list without this filter');
  return value;
}

/** A filter parameter restricted to `allowed` ({@link queryFilter} rules), or undefined when absent. */
export function queryFilterEnum<T extends string>(ctx: AppContext, name: string, allowed: readonly T[]): T | undefined {
  const value = queryFilter(ctx, name);
  if (value !== undefined && !(allowed as readonly string[]).includes(value))
    throw queryProblem(name, `must be one of ${allowed.join(', ')}`);
  return value as T | undefined;
}

/** The 400 `invalid-query` problem about parameter `name`. */
export function queryProblem(name: string, detail: string): Problem {
  return new Problem('invalid-query', `Query parameter "${name}" ${detail}.`, {
    errors: [{ field: name, pointer: `?${name}`, detail }],
  });
}

/** An integer query parameter within [min, max], or the fallback when absent. */
export function queryInt(ctx: AppContext, name: string, fallback: number, min: number, max: number): number {
  const raw = queryString(ctx, name);
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw queryProblem(name, `must be an integer from ${min} to ${max}`);
  return n;
}

/** A query parameter restricted to `allowed`, or the fallback when absent. */
export function queryEnum<T extends string>(ctx: AppContext, name: string, allowed: readonly T[], fallback: T): T {
  const raw = queryString(ctx, name);
  if (raw === undefined || raw === '') return fallback;
  if (!(allowed as readonly string[]).includes(raw)) throw queryProblem(name, `must be one of ${allowed.join(', ')}`);
  return raw as T;
}
