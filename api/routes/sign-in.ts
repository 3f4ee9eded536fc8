/**
 * Console sign-in through OpenID Connect (docs/teams.md "People and sign-in"), outside /v1:
 *
 *   GET  /auth/config     → {oidc: {enabled, displayName?}}
 *   GET  /auth/login      ?return=<same-origin path>&login_hint=<optional> → 302 to the provider
 *   GET  /auth/callback   ?code&state → 302 to the return path with the session cookie set;
 *                         on failure 302 to `/?signInError=<problem code>`
 *   GET  /auth/session    → {user: {id, name, email}, csrfToken, expiresAt, workspaces: [{id, name, role}]}; 401 without a live session
 *   POST /auth/logout     → 204, ends the session (needs `X-CSRF-Token`) and clears the cookie
 *
 * The sign-in under way (state, nonce, PKCE verifier, return path, 10 minutes to finish: src/teams/oidc.ts)
 * is kept in the browser in the `assay_login` cookie, sealed with the key ring (docs/secrets.md), HttpOnly,
 * SameSite=Lax (the provider's redirect back is a top-level GET, which Lax cookies go with: RFC 6265bis
 * §5.6.7.1), Path=/auth. The session cookie (src/teams/sessions.ts) is HttpOnly, SameSite=Lax, Path=/,
 * and Secure when ASSAY_PUBLIC_URL is https.
 *
 * Return paths are same-origin relative paths only (a single leading `/`, no `//`, no backslash, no
 * scheme, no control character): anything else is 400 `invalid-query` (OWASP "Unvalidated Redirects
 * and Forwards"), so Assay never sends a signed-in browser elsewhere.
 */
import Router from '@koa/router';
import type { ApiDeps, AppContext, AppState } from '../context';
import { Problem } from '../problem';
import { queryProblem, queryString } from '../validation';
import { AuthFailureLimiter, requestCookie } from '../auth';
import { keyRingFor } from '../../src/secrets/keyring';
import { OidcClient, type PendingLogin } from '../../src/teams/oidc';
import { applyGroupRoles, upsertSignedInUser, userWorkspaces } from '../../src/teams/people';
import { createSession, csrfTokenMatches, endSession, findLiveSession, SESSION_COOKIE } from '../../src/teams/sessions';
import type { ProblemCode } from '../../src/problems';

/** The cookie of a sign-in under way. */
export const LOGIN_COOKIE = 'assay_login';
/** Additional authenticated data of the sealed {@link LOGIN_COOKIE} (a value sealed for anything else does not open). */
const LOGIN_AAD = 'oidc-login';

/**
 * Whether `value` is a same-origin relative path a sign-in may return to: starts with one `/` (not
 * `//`, which is another host), holds no backslash (browsers read it as `/`) and no control
 * character, at most 2000 characters, and resolves to the same origin.
 */
export function isSafeReturnPath(value: string): boolean {
  if (value.length === 0 || value.length > 2000) return false;
  if (!value.startsWith('/') || value.startsWith('//')) return false;
  // eslint-disable-next-line no-control-regex
  if (/[\\\u0000-\u001f\u007f]/.test(value)) return false;
  try {
    return new URL(value, 'http://assay.invalid').origin === 'http://assay.invalid';
  } catch {
    return false;
  }
}

/** Attributes every Assay cookie carries: HttpOnly, SameSite=Lax, and Secure behind https. */
function cookieAttributes(secure: boolean, path: string, maxAgeSeconds: number): string {
  return `Path=${path}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/**
 * The sign-in routes (file docstring). `failures` counts presented session cookies that are not
 * live against the client's address, as bad API keys are (api/auth.ts {@link AuthFailureLimiter}).
 */
export function signInRouter({ config, dataSource, logger }: ApiDeps, failures?: AuthFailureLimiter): Router<AppState> {
  const router = new Router<AppState>();
  const oidcConfig = config.teams.oidc;
  const oidc = oidcConfig ? new OidcClient(oidcConfig) : null;
  const ring = keyRingFor(config.secretKeys, config.dataDir);
  const secure = config.api.publicUrl.startsWith('https:');
  const sessionSeconds = config.teams.sessionHours * 3600;

  const notConfigured = () =>
    new Problem(
      'not-found',
      'Sign-in through OpenID Connect is not configured on this Assay (ASSAY_OIDC_ISSUER; docs/teams.md "Configuring sign-in").',
    );
  const clearLogin = (ctx: AppContext) =>
    ctx.append('Set-Cookie', `${LOGIN_COOKIE}=; ${cookieAttributes(secure, '/auth', 0)}`);
  const clearSession = (ctx: AppContext) =>
    ctx.append('Set-Cookie', `${SESSION_COOKIE}=; ${cookieAttributes(secure, '/', 0)}`);
  const failed = (ctx: AppContext, code: ProblemCode, reason: string, err?: unknown) => {
    logger.warn({ err, reason }, 'console sign-in failed');
    ctx.set('Cache-Control', 'no-store');
    ctx.redirect(`/?signInError=${encodeURIComponent(code)}`);
  };

  router.get('/auth/config', (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { oidc: oidcConfig ? { enabled: true, displayName: oidcConfig.displayName } : { enabled: false } };
  });

  router.get('/auth/login', async (ctx) => {
    if (!oidc) throw notConfigured();
    const returnTo = queryString(ctx, 'return') || '/';
    if (!isSafeReturnPath(returnTo))
      throw queryProblem('return', 'must be a path of this site starting with a single `/`');
    const loginHint = queryString(ctx, 'login_hint');
    if (loginHint !== undefined && loginHint.length > 255)
      throw queryProblem('login_hint', 'must be at most 255 characters');
    let started: Awaited<ReturnType<OidcClient['startLogin']>>;
    try {
      started = await oidc.startLogin(returnTo, loginHint || undefined);
    } catch (err) {
      return failed(ctx, 'sign-in-failed', 'the identity provider could not be reached (discovery)', err);
    }
    const sealed = ring.seal(JSON.stringify(started.pending), LOGIN_AAD);
    ctx.append('Set-Cookie', `${LOGIN_COOKIE}=${sealed}; ${cookieAttributes(secure, '/auth', 600)}`);
    ctx.set('Cache-Control', 'no-store');
    ctx.redirect(started.url.href);
  });

  router.get('/auth/callback', async (ctx) => {
    if (!oidc || !oidcConfig) throw notConfigured();
    const sealed = requestCookie(ctx, LOGIN_COOKIE);
    clearLogin(ctx);
    let pending: PendingLogin | undefined;
    try {
      pending = sealed ? (JSON.parse(ring.open(sealed, LOGIN_AAD)) as PendingLogin) : undefined;
    } catch {
      pending = undefined;
    }
    if (!pending || typeof pending.expiresAt !== 'number' || pending.expiresAt <= Date.now())
      return failed(ctx, 'sign-in-failed', 'no sign-in under way in this browser, or it took longer than 10 minutes');
    if (queryString(ctx, 'error'))
      return failed(ctx, 'sign-in-failed', `the identity provider answered ${queryString(ctx, 'error')}`);
    let identity: Awaited<ReturnType<OidcClient['finishLogin']>>;
    try {
      identity = await oidc.finishLogin(ctx.querystring, pending);
    } catch (err) {
      return failed(ctx, 'sign-in-failed', 'the code exchange or the ID token did not check out', err);
    }
    const user = await dataSource.transaction(async (manager) => {
      const signedIn = await upsertSignedInUser(manager, identity);
      if (!signedIn.disabledAt) await applyGroupRoles(manager, signedIn.id, identity.groups, oidcConfig.groupRoles);
      return signedIn;
    });
    if (user.disabledAt) return failed(ctx, 'sign-in-failed', `user ${user.id} is disabled`);
    const { token } = await createSession(dataSource.manager, user.id, {
      hours: config.teams.sessionHours,
      address: ctx.ip,
      userAgent: ctx.get('User-Agent') || null,
    });
    ctx.append('Set-Cookie', `${SESSION_COOKIE}=${token}; ${cookieAttributes(secure, '/', sessionSeconds)}`);
    ctx.set('Cache-Control', 'no-store');
    ctx.redirect(isSafeReturnPath(pending.returnTo) ? pending.returnTo : '/');
  });

  router.get('/auth/session', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    const address = AuthFailureLimiter.addressOf(ctx);
    await failures?.check(address);
    const token = requestCookie(ctx, SESSION_COOKIE);
    const live = token ? await findLiveSession(dataSource.manager, token, config.teams.sessionIdleMinutes) : null;
    if (!live) {
      if (token) await failures?.fail(address);
      throw new Problem('unauthorized', 'Not signed in (no session, or it has ended).');
    }
    const workspaces = await userWorkspaces(dataSource.manager, live.user);
    ctx.body = {
      user: { id: live.user.id, name: live.user.name, email: live.user.email },
      csrfToken: live.session.csrfToken,
      expiresAt: live.session.expiresAt.toISOString(),
      workspaces: workspaces.map((w) => ({ id: w.id, name: w.name, role: w.role })),
    };
  });

  router.post('/auth/logout', async (ctx) => {
    const token = requestCookie(ctx, SESSION_COOKIE);
    const live = token ? await findLiveSession(dataSource.manager, token, config.teams.sessionIdleMinutes) : null;
    if (live) {
      if (!csrfTokenMatches(ctx.get('X-CSRF-Token'), live.session.csrfToken))
        throw new Problem('csrf-token-invalid', "Signing out needs the session's CSRF token in `X-CSRF-Token`.");
      await endSession(dataSource.manager, live.session.id);
    }
    clearSession(ctx);
    ctx.status = 204;
  });

  return router;
}
