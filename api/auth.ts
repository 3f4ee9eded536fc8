/**
 * Authentication (spec "Authentication" 1): every /v1 call carries `Authorization: Bearer
 * <API_KEY>`. The key decides the workspace: a call works in the workspace its key belongs to
 * (docs/api.md, "Workspaces"). What each scope may call is one table, api/scopes.ts.
 */
import type { Middleware } from 'koa';
import type { DataSource } from 'typeorm';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { findKey } from '../src/keys';
import { Problem, retryAfterSeconds } from './problem';
import type { AppContext, AppState } from './context';

/**
 * Limits failed authentication per client address (issue 10 item 13; docs/security.md
 * "Failed authentication"): each request answered 401 (no, malformed, unknown or revoked key)
 * counts one against its address, in a fixed window of one minute; once an address has used up
 * `perMinute`, every /v1 request from it is answered 429 `auth-rate-limited` with `Retry-After`
 * BEFORE its key is looked up, good keys included, until the window ends. The address is the TCP
 * peer (`socket.remoteAddress`), never `X-Forwarded-For`, which a client can choose; behind a
 * reverse proxy all clients share the proxy's address. Counted in this process.
 */
export class AuthFailureLimiter {
  private readonly limiter: RateLimiterMemory;

  /** @param perMinute failed authentications allowed per client address and minute */
  constructor(readonly perMinute: number) {
    this.limiter = new RateLimiterMemory({ points: perMinute, duration: 60 });
  }

  /** The address a request counts against. */
  static addressOf(ctx: AppContext): string {
    return ctx.req.socket.remoteAddress ?? 'unknown';
  }

  /** Throws 429 `auth-rate-limited` when `address` has no failures left in this window. */
  async check(address: string): Promise<void> {
    const used = await this.limiter.get(address);
    if (used && used.consumedPoints >= this.perMinute) {
      const retryAfter = retryAfterSeconds(used.msBeforeNext);
      throw new Problem('auth-rate-limited', `Too many failed authentications from this address (limit ${this.perMinute} per minute); retry in ${retryAfter} s.`, { retryAfter });
    }
  }

  /** Counts one failure against `address`. */
  async fail(address: string): Promise<void> {
    await this.limiter.penalty(address, 1);
  }
}

/**
 * Resolves the caller from the bearer key; 401 when absent, malformed, unknown or revoked. With a
 * `failures` limiter, an address over its limit gets 429 before any lookup and each 401 counts.
 */
export function authenticate(dataSource: DataSource, failures?: AuthFailureLimiter): Middleware<AppState> {
  return async (ctx, next) => {
    const address = AuthFailureLimiter.addressOf(ctx);
    await failures?.check(address);
    const refuse = async (detail: string): Promise<never> => {
      await failures?.fail(address);
      throw new Problem('unauthorized', detail);
    };
    const header = ctx.get('Authorization');
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!header) return refuse('Missing Authorization header; send `Authorization: Bearer <API_KEY>`.');
    if (!match) return refuse('The Authorization header must be `Bearer <API_KEY>`.');
    const key = await findKey(dataSource.manager, match[1]!);
    if (!key) return refuse('The API key is unknown or has been revoked.');
    ctx.state.caller = { workspaceId: key.workspaceId, keyId: key.id, scope: key.scope };
    await next();
  };
}
