/**
 * Authentication (spec "Authentication" 1): every /v1 call carries `Authorization: Bearer
 * <API_KEY>`. The key decides the workspace: a call works in the workspace its key belongs to
 * (docs/api.md, "Workspaces"). What each scope may call is one table, api/scopes.ts.
 */
import type { Middleware } from 'koa';
import type { DataSource } from 'typeorm';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { findKey, hashKey } from '../src/api-keys';
import type { ApiKey } from '../src/store/entities';
import { isDatabaseUnavailable } from '../src/store/errors';
import { Problem, retryAfterSeconds } from './problem';
import type { AppContext, AppState, Caller } from './context';

/**
 * Limits failed authentication per client address (docs/security.md
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
      throw new Problem(
        'auth-rate-limited',
        `Too many failed authentications from this address (limit ${this.perMinute} per minute); retry in ${retryAfter} s.`,
        { retryAfter },
      );
    }
  }

  /** Counts one failure against `address`. */
  async fail(address: string): Promise<void> {
    await this.limiter.penalty(address, 1);
  }
}

/**
 * The keys this process found valid in the store lately, for reads while the store does not answer
 * (docs/operations.md "When the database is away"): `GET /v1/runs/{id}` can then answer
 * from the run's workflow, but only a caller is allowed to, and who the caller is lives in the
 * store. A key is remembered by its SHA-256 (as stored) with its workspace and scope, for
 * {@link VerifiedKeys.MAX_AGE_MS} after the store last confirmed it; a key the store says is unknown
 * or revoked is forgotten at once. Used only when looking the key up failed because the database is
 * unavailable, and only for `GET`/`HEAD` requests: such a request carries on as this caller, and
 * its own store reads fail fast (src/store/bounds.ts), so every read but the run's live state is
 * 503 as before. The cost: a key revoked through another API process less than
 * {@link VerifiedKeys.MAX_AGE_MS} before the outage still reads live run states here during it.
 */
export class VerifiedKeys {
  /** How long after the store last confirmed a key it may stand in for the store, ms (10 min). */
  static readonly MAX_AGE_MS = 10 * 60_000;
  /** Most keys remembered; the oldest confirmation goes first. */
  static readonly MAX_KEYS = 10_000;
  private readonly keys = new Map<string, { caller: Caller; at: number }>();

  /** Remembers that the store confirmed the key hashed `hash` as `caller` now. */
  confirmed(hash: string, caller: Caller, nowMs = Date.now()): void {
    this.keys.delete(hash);
    this.keys.set(hash, { caller, at: nowMs });
    if (this.keys.size > VerifiedKeys.MAX_KEYS) this.keys.delete(this.keys.keys().next().value!);
  }

  /** Forgets the key hashed `hash` (the store does not know it, or it was revoked). */
  refused(hash: string): void {
    this.keys.delete(hash);
  }

  /** The caller of the key hashed `hash` if the store confirmed it within {@link VerifiedKeys.MAX_AGE_MS}, else undefined. */
  recent(hash: string, nowMs = Date.now()): Caller | undefined {
    const entry = this.keys.get(hash);
    return entry && nowMs - entry.at <= VerifiedKeys.MAX_AGE_MS ? entry.caller : undefined;
  }
}

/**
 * The caller an API key makes (api/context.ts {@link Caller}): its workspace and scope, the key as
 * actor (a service account's key as `service-account`).
 */
export function keyCaller(key: ApiKey): Caller {
  return {
    workspaceId: key.workspaceId,
    keyId: key.id,
    userId: key.userId ?? null,
    scope: key.scope,
    actor: {
      type: key.serviceAccount ? 'service-account' : 'key',
      id: key.id,
      name: key.serviceAccount ? `${key.serviceAccount} (${key.prefix}…)` : `${key.name} (${key.prefix}…)`,
      ...(key.userId ? { userId: key.userId } : {}),
    },
    principal: key.id,
  };
}

/**
 * Resolves the caller from the bearer key; 401 when absent, malformed, unknown or revoked. With a
 * `failures` limiter, an address over its limit gets 429 before any lookup and each 401 counts.
 * With `verified`, a `GET`/`HEAD` whose key lookup fails because the database is unavailable goes
 * on as the caller the store confirmed lately ({@link VerifiedKeys}); otherwise that failure is
 * thrown (503 `database-unavailable`, api/errors.ts).
 */
export function authenticate(
  dataSource: DataSource,
  failures?: AuthFailureLimiter,
  verified?: VerifiedKeys,
): Middleware<AppState> {
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
    const hash = hashKey(match[1]!);
    let key: Awaited<ReturnType<typeof findKey>>;
    try {
      key = await findKey(dataSource.manager, match[1]!);
    } catch (err) {
      const stand =
        verified && (ctx.method === 'GET' || ctx.method === 'HEAD') && isDatabaseUnavailable(err)
          ? verified.recent(hash)
          : undefined;
      if (!stand) throw err;
      ctx.state.caller = { ...stand };
      return next();
    }
    if (!key) {
      verified?.refused(hash);
      return refuse('The API key is unknown or has been revoked.');
    }
    ctx.state.caller = keyCaller(key);
    verified?.confirmed(hash, { ...ctx.state.caller });
    await next();
  };
}
