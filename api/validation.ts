/**
 * Request validation: bodies against JSON Schemas (ajv, every error reported), query parameters
 * by small parsers. Failures are 400 problems naming each field at fault.
 */
import Ajv, { type JSONSchemaType, type ValidateFunction } from 'ajv';
import { ajvIssues, type FlowIssue } from '../src/validation/flow';
import { fieldError, invalid, Problem } from './problem';
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

/** The parsed JSON body; 400 when the request carries no body at all. */
export function jsonBody(ctx: AppContext): unknown {
  const hasBody = (ctx.request.length ?? 0) > 0 || ctx.get('Transfer-Encoding') !== '';
  if (!hasBody) throw invalid([fieldError([], 'a JSON body is required')], 'A JSON request body is required.');
  return (ctx.request as { body?: unknown }).body;
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
 * back and read the wrong record as its answer (issue 9 item 12; docs/spec-choices.md "API surface").
 * Paging parameters (`limit`, `cursor`, `order`) are read by their own parsers, not this one.
 */
export function queryFilter(ctx: AppContext, name: string): string | undefined {
  const raw = ctx.query[name];
  if (raw === undefined) return undefined;
  if (Array.isArray(raw) && raw.length > 1) throw queryProblem(name, 'must be given once');
  const value = Array.isArray(raw) ? raw[0]! : raw;
  if (value.trim() === '') throw queryProblem(name, 'must not be empty; leave the parameter out to list without this filter');
  return value;
}

/** A filter parameter restricted to `allowed` ({@link queryFilter} rules), or undefined when absent. */
export function queryFilterEnum<T extends string>(ctx: AppContext, name: string, allowed: readonly T[]): T | undefined {
  const value = queryFilter(ctx, name);
  if (value !== undefined && !(allowed as readonly string[]).includes(value)) throw queryProblem(name, `must be one of ${allowed.join(', ')}`);
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

/**
 * The shapes a listing's cursor decodes to: `name` (one non-empty string: the last name of the
 * page), `pair` (two strings: e.g. folder and name, path and method), `time-id` (an ISO 8601
 * instant and an id: runs by `createdAt`).
 */
export type CursorShape = 'name' | 'pair' | 'time-id';
/** What {@link cursor.decode} returns for each {@link CursorShape}. */
export interface CursorValue {
  name: string;
  pair: [string, string];
  'time-id': [string, string];
}

/** Longest cursor text accepted (characters); a real one is far shorter. */
const MAX_CURSOR_CHARS = 2048;
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

function cursorMatches(value: unknown, shape: CursorShape): boolean {
  const str = (v: unknown) => typeof v === 'string' && v.length <= 1000;
  switch (shape) {
    case 'name':
      return str(value) && (value as string).length > 0;
    case 'pair':
      return Array.isArray(value) && value.length === 2 && value.every(str);
    case 'time-id':
      return Array.isArray(value) && value.length === 2 && value.every(str) && ISO_INSTANT.test(value[0] as string) && !Number.isNaN(Date.parse(value[0] as string));
  }
}

/**
 * Opaque cursors for keyset pagination: base64url of JSON. A cursor that is not base64url, not
 * JSON, or not of the listing's {@link CursorShape} (`e30` = `{}`, `W251bGwsbnVsbF0` =
 * `[null,null]`) is a 400 `bad-cursor` naming the parameter, never a query with a bad value.
 */
export const cursor = {
  encode(value: unknown): string {
    return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
  },
  /** The cursor of the request (undefined when absent or empty). @throws Problem 400 `bad-cursor` */
  decode<S extends CursorShape>(ctx: AppContext, shape: S, name = 'cursor'): CursorValue[S] | undefined {
    const raw = ctx.query[name];
    if (raw === undefined) return undefined;
    const bad = (detail: string) =>
      new Problem('bad-cursor', `Query parameter "${name}" ${detail}.`, { errors: [{ field: name, pointer: `?${name}`, detail }] });
    if (Array.isArray(raw)) throw bad('must be given once');
    if (raw === '') return undefined;
    if (raw.length > MAX_CURSOR_CHARS || !/^[A-Za-z0-9_-]+$/.test(raw)) throw bad('is not a cursor returned by this API');
    let value: unknown;
    try {
      value = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    } catch {
      throw bad('is not a cursor returned by this API');
    }
    if (!cursorMatches(value, shape)) throw bad('is not a cursor returned by this listing');
    return value as CursorValue[S];
  },
};
