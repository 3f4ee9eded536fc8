/**
 * Rate limiting per API key (spec "Limits": rate limiting exists and answers 429).
 *
 * A fixed window of one minute with `ASSAY_RATE_LIMIT_PER_MINUTE` points, counted in this process
 * by rate-limiter-flexible. Every answer carries `RateLimit-Limit`, `RateLimit-Remaining` and
 * `RateLimit-Reset` (seconds; IETF draft "RateLimit header fields for HTTP"); a 429 adds
 * `Retry-After` in seconds.
 */
import type { Middleware } from 'koa';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { Problem } from './problem';
import type { AppContext, AppState } from './context';

/**
 * @param perMinute points per key and minute
 * @param keyOf whom a request counts against (default: its API key)
 */
export function rateLimit(perMinute: number, keyOf: (ctx: AppContext) => string = (ctx) => ctx.state.caller.keyId): Middleware<AppState> {
  const limiter = new RateLimiterMemory({ points: perMinute, duration: 60 });
  return async (ctx, next) => {
    let res: RateLimiterRes;
    try {
      res = await limiter.consume(keyOf(ctx), 1);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      ctx.set('RateLimit-Limit', String(perMinute));
      ctx.set('RateLimit-Remaining', '0');
      ctx.set('RateLimit-Reset', String(retryAfter));
      throw new Problem('rate-limited', `Rate limit of ${perMinute} requests per minute exceeded; retry in ${retryAfter} s.`, { retryAfter });
    }
    ctx.set('RateLimit-Limit', String(perMinute));
    ctx.set('RateLimit-Remaining', String(res.remainingPoints));
    ctx.set('RateLimit-Reset', String(Math.ceil(res.msBeforeNext / 1000)));
    await next();
  };
}
