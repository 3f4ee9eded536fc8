/**
 * Authentication (spec "Authentication" 1): a /v1 call carries `Authorization: Bearer <API_KEY>`,
 * or, from the console, the `assay_session` cookie of a signed-in person (docs/teams.md "People and
 * sign-in"). A key decides the workspace: a call works in the workspace its key belongs to
 * (docs/api.md, "Workspaces"); a session works in the workspace `X-Assay-Workspace` names (id or
 * name), else the user's first by name. What each scope may call is one table, api/scopes.ts.
 */
import type { Middleware } from 'koa';
import type { DataSource, EntityManager } from 'typeorm';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { hashKey, lookupKey, noteKeyUse } from '../src/api-keys';
import type { ApiKey, User } from '../src/store/entities';
import { effectiveRole, userWorkspaces, type UserWorkspace } from '../src/teams/people';
import { csrfTokenMatches, findLiveSession, SESSION_COOKIE } from '../src/teams/sessions';
import { lowerScope, ROLE_SCOPES } from '../src/teams/roles';
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
  private readonly keys = new Map<string, { caller: Caller; at: number; until: number }>();

  /**
   * Remembers that the store confirmed the key hashed `hash` as `caller` now; `untilMs`: when the key
   * expires (epoch ms), after which it never stands in.
   */
  confirmed(hash: string, caller: Caller, nowMs = Date.now(), untilMs = Infinity): void {
    this.keys.delete(hash);
    this.keys.set(hash, { caller, at: nowMs, until: untilMs });
    if (this.keys.size > VerifiedKeys.MAX_KEYS) this.keys.delete(this.keys.keys().next().value!);
  }

  /** Forgets the key hashed `hash` (the store does not know it, or it was revoked). */
  refused(hash: string): void {
    this.keys.delete(hash);
  }

  /** The caller of the key hashed `hash` if the store confirmed it within {@link VerifiedKeys.MAX_AGE_MS}, else undefined. */
  recent(hash: string, nowMs = Date.now()): Caller | undefined {
    const entry = this.keys.get(hash);
    return entry && nowMs - entry.at <= VerifiedKeys.MAX_AGE_MS && nowMs < entry.until ? entry.caller : undefined;
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
 * The caller a usable key makes (docs/teams.md "API keys"): a key that belongs to a user acts with
 * the lower of its scope and the scope of the user's current role in the key's workspace
 * (src/teams/roles.ts `lowerScope`); such a key is refused (a string saying why) when the user has
 * no role there any more or is disabled. Other keys act with their own scope.
 */
export async function resolveKeyCaller(manager: EntityManager, key: ApiKey): Promise<Caller | string> {
  const caller = keyCaller(key);
  if (!key.userId) return caller;
  const role = await effectiveRole(manager, key.userId, key.workspaceId);
  if (!role) return "The API key's owner has no role in its workspace any more (or is disabled).";
  return { ...caller, scope: lowerScope(key.scope, ROLE_SCOPES[role]) };
}

/** The value of cookie `name` in the request's `Cookie` header, or undefined. */
export function requestCookie(ctx: AppContext, name: string): string | undefined {
  for (const part of ctx.get('Cookie').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

/** The caller a console session makes in one of its user's workspaces: the user as actor, the role's scope. */
export function sessionCaller(user: Pick<User, 'id' | 'name'>, workspace: Pick<UserWorkspace, 'id' | 'role'>): Caller {
  return {
    workspaceId: workspace.id,
    keyId: null,
    userId: user.id,
    scope: ROLE_SCOPES[workspace.role],
    actor: { type: 'user', id: user.id, name: user.name },
    principal: `user:${user.id}`,
  };
}

/** The workspace header of session callers (docs/teams.md "People and sign-in"). */
export const WORKSPACE_HEADER = 'X-Assay-Workspace';

/** Methods that change nothing, so need no CSRF token (RFC 9110 §9.2.1 safe methods Assay serves). */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Settings of the session path of {@link authenticate}. */
export interface SessionAuthOptions {
  /** ASSAY_SESSION_IDLE_MINUTES. */
  idleMinutes: number;
}

/**
 * Resolves the caller; 401 `unauthorized` when there is no credential, or it is malformed,
 * unknown, revoked or expired (the detail names the expiry), or a user's key whose user has no
 * role in its workspace. With `sessions`, a request without `Authorization` that carries the
 * `assay_session` cookie is a console session's ({@link sessionCaller}): 401 when the session is
 * not live, 403 `csrf-token-invalid` for a change whose `X-CSRF-Token` is not the session's, 403
 * `not-a-member` when the user has no role in the workspace asked for (or in none). With a
 * `failures` limiter, an address over its limit gets 429 before any lookup and each 401 counts.
 * With `verified`, a `GET`/`HEAD` whose key lookup fails because the database is unavailable goes
 * on as the caller the store confirmed lately ({@link VerifiedKeys}; keys only); otherwise that
 * failure is thrown (503 `database-unavailable`, api/errors.ts). A key's `lastUsedAt` is written at
 * most once a minute, in the background (src/api-keys.ts `noteKeyUse`).
 */
export function authenticate(
  dataSource: DataSource,
  failures?: AuthFailureLimiter,
  verified?: VerifiedKeys,
  sessions?: SessionAuthOptions,
): Middleware<AppState> {
  return async (ctx, next) => {
    const address = AuthFailureLimiter.addressOf(ctx);
    await failures?.check(address);
    const refuse = async (detail: string): Promise<never> => {
      await failures?.fail(address);
      throw new Problem('unauthorized', detail);
    };
    const header = ctx.get('Authorization');
    if (!header && sessions) {
      const token = requestCookie(ctx, SESSION_COOKIE);
      if (token) {
        const live = await findLiveSession(dataSource.manager, token, sessions.idleMinutes);
        if (!live) return refuse('The console session has ended (signed out, expired or idle); sign in again.');
        if (!SAFE_METHODS.has(ctx.method) && !csrfTokenMatches(ctx.get('X-CSRF-Token'), live.session.csrfToken))
          throw new Problem(
            'csrf-token-invalid',
            "A change made with the session cookie needs the session's CSRF token in `X-CSRF-Token` (GET /auth/session gives it).",
          );
        const workspaces = await userWorkspaces(dataSource.manager, live.user);
        const wanted = ctx.get(WORKSPACE_HEADER).trim();
        const chosen = wanted ? workspaces.find((w) => w.id === wanted || w.name === wanted) : workspaces[0];
        if (!chosen)
          throw new Problem(
            'not-a-member',
            wanted
              ? `You have no role in workspace "${wanted}".`
              : 'You have no role in any workspace yet; ask an administrator to add you.',
          );
        ctx.state.caller = sessionCaller(live.user, chosen);
        return next();
      }
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!header) return refuse('Missing Authorization header; send `Authorization: Bearer <API_KEY>`.');
    if (!match) return refuse('The Authorization header must be `Bearer <API_KEY>`.');
    const hash = hashKey(match[1]!);
    let found: Awaited<ReturnType<typeof lookupKey>>;
    let caller: Caller | string;
    try {
      found = await lookupKey(dataSource.manager, match[1]!);
      caller = found.refusal === null ? await resolveKeyCaller(dataSource.manager, found.record!) : '';
    } catch (err) {
      const stand =
        verified && (ctx.method === 'GET' || ctx.method === 'HEAD') && isDatabaseUnavailable(err)
          ? verified.recent(hash)
          : undefined;
      if (!stand) throw err;
      ctx.state.caller = { ...stand };
      return next();
    }
    const { record, refusal } = found;
    if (refusal !== null || typeof caller === 'string') {
      verified?.refused(hash);
      if (refusal === 'expired') return refuse(`The API key expired at ${record!.expiresAt!.toISOString()}.`);
      if (typeof caller === 'string' && refusal === null) return refuse(caller);
      return refuse('The API key is unknown or has been revoked.');
    }
    ctx.state.caller = caller;
    verified?.confirmed(hash, { ...caller }, Date.now(), record!.expiresAt?.getTime() ?? Infinity);
    noteKeyUse(dataSource.manager, record!);
    await next();
  };
}
