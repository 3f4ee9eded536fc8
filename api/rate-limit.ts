/**
 * Rate limiting (spec "Limits": rate limiting exists and answers 429 `rate-limited` with
 * `Retry-After` in seconds).
 *
 * A fixed window of one minute with a number of points, counted in this process by
 * rate-limiter-flexible ({@link PerMinuteLimit}). The /v1 limit counts per API key
 * (`ASSAY_RATE_LIMIT_PER_MINUTE`; {@link rateLimit}) and every answer carries `RateLimit-Limit`,
 * `RateLimit-Remaining` and `RateLimit-Reset` (seconds; IETF draft "RateLimit header fields for
 * HTTP"); incoming webhooks count per deployment, without those headers.
 */
import type { Middleware } from 'koa';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { Problem, retryAfterSeconds } from './problem';
import type { AppContext, AppState } from './context';

/** What a counted call has left in its window. */
export interface RateLimitState {
  /** Calls left in the window. */
  remaining: number;
  /** Seconds until the window ends. */
  resetSeconds: number;
}

/** `perMinute` calls per key and minute, counted in this process. */
export class PerMinuteLimit {
  private readonly limiter: RateLimiterMemory;

  constructor(readonly perMinute: number) {
    this.limiter = new RateLimiterMemory({ points: perMinute, duration: 60 });
  }

  /**
   * Counts one call against `key`.
   * @param refusal the detail of the 429 given the seconds to wait
   * @param headers extra headers of the 429 given the seconds to wait
   * @throws Problem 429 `rate-limited` with `retryAfter` (and `Retry-After`) when `key` has none left.
   */
  async consume(
    key: string,
    refusal: (retryAfter: number) => string,
    headers?: (retryAfter: number) => Record<string, string>,
  ): Promise<RateLimitState> {
    try {
      const res = await this.limiter.consume(key, 1);
      return { remaining: res.remainingPoints, resetSeconds: Math.ceil(res.msBeforeNext / 1000) };
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const retryAfter = retryAfterSeconds(rejection.msBeforeNext);
      throw new Problem('rate-limited', refusal(retryAfter), { retryAfter }, { headers: headers?.(retryAfter) });
    }
  }
}

/**
 * The `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` (seconds) headers of a limit
 * of `perMinute` calls (IETF draft "RateLimit header fields for HTTP").
 */
export function rateLimitHeaders(perMinute: number, remaining: number, resetSeconds: number): Record<string, string> {
  return {
    'RateLimit-Limit': String(perMinute),
    'RateLimit-Remaining': String(remaining),
    'RateLimit-Reset': String(resetSeconds),
  };
}

/**
 * @param perMinute points per key and minute
 * @param keyOf whom a request counts against (default: its API key)
 */
export function rateLimit(
  perMinute: number,
  keyOf: (ctx: AppContext) => string = (ctx) => ctx.state.caller.principal,
): Middleware<AppState> {
  const limit = new PerMinuteLimit(perMinute);
  const headers = (remaining: number, resetSeconds: number) => rateLimitHeaders(perMinute, remaining, resetSeconds);
  return async (ctx, next) => {
    const left = await limit.consume(
      keyOf(ctx),
      (retryAfter) => `Rate limit of ${perMinute} requests per minute exceeded; retry in ${retryAfter} s.`,
      (retryAfter) => headers(0, retryAfter),
    );
    ctx.set(headers(left.remaining, left.resetSeconds));
    await next();
  };
}
