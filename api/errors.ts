/**
 * The one place where errors become answers: a {@link Problem} is written as problem+json; Koa's
 * HTTP errors (body parsing, size limits) are mapped to their problem codes; anything else is a
 * 500 whose body says only that something failed and gives the request id to find it in the logs,
 * except an unreachable database: 503 `database-unavailable` with `Retry-After`.
 */
import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { Problem } from './problem';
import { isDatabaseUnavailable } from '../src/store/errors';

/** Seconds a client is asked to wait while the database is unreachable. */
const DATABASE_RETRY_AFTER_SECONDS = 5;
import type { AppState } from './context';

function fromHttpError(err: { status?: number; type?: string; message?: string; expose?: boolean }): Problem | null {
  switch (err.status) {
    case 400:
      return new Problem('malformed-json', `The request body is not valid JSON: ${err.message ?? 'parse error'}`);
    case 413:
      return new Problem('payload-too-large', 'The request body exceeds the size limit.');
    case 405:
    case 501:
      return new Problem('method-not-allowed', err.message ?? 'Method not allowed');
    case 415:
      return new Problem('unsupported-media-type', err.message ?? 'Unsupported media type');
    default:
      return null;
  }
}

/** Catches everything thrown below it. */
export function errorHandler(logger: Logger): Middleware<AppState> {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      let problem: Problem;
      if (err instanceof Problem) problem = err;
      else {
        const mapped = fromHttpError(err as { status?: number });
        if (mapped) problem = mapped;
        else if (isDatabaseUnavailable(err)) {
          logger.warn({ requestId: ctx.state.requestId, method: ctx.method, path: ctx.path, error: (err as Error).message }, 'database unavailable');
          problem = new Problem('database-unavailable', `The database cannot be reached right now; nothing was changed. Retry in ${DATABASE_RETRY_AFTER_SECONDS} s.`, {
            retryAfter: DATABASE_RETRY_AFTER_SECONDS,
          });
        } else {
          logger.error({ err, requestId: ctx.state.requestId, method: ctx.method, path: ctx.path }, 'unhandled error');
          problem = new Problem('internal', 'An internal error occurred. Quote the instance id when reporting it.');
        }
      }
      ctx.status = problem.status;
      // The request body was not read to its end (a 413, or a refusal before parsing): the rest
      // would be read as the next request or stall the connection, so close it after this answer.
      if (!ctx.req.complete) ctx.set('Connection', 'close');
      ctx.type = 'application/problem+json';
      ctx.body = problem.toJSON(`urn:assay:request:${ctx.state.requestId}`);
      if (problem.status === 401) ctx.set('WWW-Authenticate', 'Bearer realm="assay"');
      const retryAfter = problem.extras.retryAfter;
      if (typeof retryAfter === 'number') ctx.set('Retry-After', String(retryAfter));
    }
  };
}
