/**
 * JSON request bodies: anything else is refused with 415 (`unsupported-media-type`), and the
 * body is parsed by @koa/bodyparser up to a size limit (413 `payload-too-large` beyond it,
 * 400 `malformed-json` when it does not parse; errors.ts maps both). A body nesting arrays/objects
 * deeper than MAX_JSON_DEPTH (64) is refused with 400 `too-deep` naming where
 * ({@link refuseDeepBody}).
 *
 * `POST /v1/designs/import` reads its body itself (api/import-document.ts): up to its own limit
 * (ASSAY_IMPORT_MAX_BYTES), JSON or YAML, kept as text and parsed on a worker thread.
 */
import type Koa from 'koa';
import { bodyParser } from '@koa/bodyparser';
import compose from 'koa-compose';
import { fieldError } from '../src/problems';
import { invalid, Problem } from './problem';
import { illFormedString, MAX_JSON_DEPTH, tooDeep } from '../src/validation/json-limits';
import type { AppContext, AppState } from './context';

export const JSON_TYPES = ['application/json', 'application/merge-patch+json', 'application/*+json'];

/**
 * True when the request carries a body: a non-zero `Content-Length`, or `Transfer-Encoding`
 * (chunked: its length is not known before it is read).
 */
export function hasBody(ctx: AppContext): boolean {
  return (ctx.request.length ?? 0) > 0 || ctx.get('Transfer-Encoding') !== '';
}

/** The body the parser set ({@link jsonBodies}); undefined before parsing or without a body. */
export function parsedBody(ctx: AppContext): unknown {
  return (ctx.request as { body?: unknown }).body;
}

/** 415 for a request body that is not JSON; bodies of GET/DELETE are ignored. */
const jsonOnly: Koa.Middleware<AppState> = async (ctx, next) => {
  if (['POST', 'PUT', 'PATCH'].includes(ctx.method) && hasBody(ctx) && !ctx.is(JSON_TYPES)) {
    throw new Problem(
      'unsupported-media-type',
      `Request bodies must be JSON (Content-Type: application/json), not "${ctx.get('Content-Type') || 'none'}".`,
    );
  }
  await next();
};

/**
 * The 400 `too-deep` problem for a JSON value nesting deeper than {@link MAX_JSON_DEPTH} at
 * `path` (segments under `prefix`, e.g. `['document']` for an imported document).
 */
export function tooDeepProblem(path: Array<string | number>, what = 'The request body'): Problem {
  return new Problem('too-deep', `${what} nests arrays/objects deeper than ${MAX_JSON_DEPTH} levels.`, {
    limit: MAX_JSON_DEPTH,
    errors: [fieldError(path, `nests deeper than ${MAX_JSON_DEPTH} levels`)],
  });
}

/**
 * Throws the 400 `too-deep` problem when `body` (a parsed request body) nests too deeply, and a
 * 400 `validation-failed` naming the field when a string holds a lone UTF-16 surrogate (no store
 * keeps it: MariaDB's JSON columns refuse it).
 */
export function refuseDeepBody(body: unknown): void {
  const at = tooDeep(body);
  if (at) throw tooDeepProblem(at);
  const bad = illFormedString(body);
  if (bad)
    throw invalid([
      fieldError(bad, 'contains a lone UTF-16 surrogate (\\ud800-\\udfff outside a pair): not Unicode text'),
    ]);
}

/** Checks the depth of `ctx.request.body` once the parser has set it. */
const depthLimit: Koa.Middleware<AppState> = async (ctx, next) => {
  refuseDeepBody(parsedBody(ctx));
  await next();
};

/**
 * JSON-only bodies, parsed into `ctx.request.body`, at most `maxBytes` bytes; requests for which
 * `ownBody` is true are passed on unread (their route reads the body: api/import-document.ts).
 */
export function jsonBodies(maxBytes: number, ownBody?: (ctx: AppContext) => boolean): Koa.Middleware<AppState> {
  const parse = compose<AppContext>([
    jsonOnly,
    bodyParser({
      enableTypes: ['json'],
      // The list replaces the parser's defaults (it merges arrays by index), so it is given whole.
      extendTypes: { json: JSON_TYPES },
      jsonLimit: maxBytes,
      encoding: 'utf-8',
    }) as unknown as Koa.Middleware<AppState>,
    depthLimit,
  ]);
  return ((ctx: AppContext, next: Koa.Next) =>
    ownBody?.(ctx) ? next() : parse(ctx, next)) as unknown as Koa.Middleware<AppState>;
}
