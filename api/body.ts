/**
 * JSON request bodies: anything else is refused with 415 (`unsupported-media-type`), and the
 * body is parsed by @koa/bodyparser up to a size limit (413 `payload-too-large` beyond it,
 * 400 `malformed-json` when it does not parse; errors.ts maps both).
 */
import type Koa from 'koa';
import { bodyParser } from '@koa/bodyparser';
import compose from 'koa-compose';
import { Problem } from './problem';
import type { AppContext, AppState } from './context';

const JSON_TYPES = ['application/json', 'application/merge-patch+json', 'application/*+json'];

/** 415 for a request body that is not JSON; bodies of GET/DELETE are ignored. */
const jsonOnly: Koa.Middleware<AppState> = async (ctx, next) => {
  const hasBody = (ctx.request.length ?? 0) > 0 || ctx.get('Transfer-Encoding') !== '';
  if (['POST', 'PUT', 'PATCH'].includes(ctx.method) && hasBody && !ctx.is(JSON_TYPES)) {
    throw new Problem('unsupported-media-type', `Request bodies must be JSON (Content-Type: application/json), not "${ctx.get('Content-Type') || 'none'}".`);
  }
  await next();
};

/** JSON-only bodies, parsed into `ctx.request.body`, at most `maxBytes` bytes. */
export function jsonBodies(maxBytes: number): Koa.Middleware<AppState> {
  return compose<AppContext>([
    jsonOnly,
    bodyParser({
      enableTypes: ['json'],
      // The list replaces the parser's defaults (it merges arrays by index), so it is given whole.
      extendTypes: { json: JSON_TYPES },
      jsonLimit: maxBytes,
      encoding: 'utf-8',
    }) as unknown as Koa.Middleware<AppState>,
  ]) as unknown as Koa.Middleware<AppState>;
}
