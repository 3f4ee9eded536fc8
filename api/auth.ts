/**
 * Authentication (spec "Authentication" 1): every /v1 call carries `Authorization: Bearer
 * <API_KEY>`. The key decides the workspace: a call works in the workspace its key belongs to
 * (docs/api.md, "Workspaces"). Scopes: `read` allows GET; `run` adds starting and cancelling runs;
 * `write` allows everything.
 */
import type { Middleware } from 'koa';
import type { DataSource } from 'typeorm';
import { findKey } from '../src/keys';
import { KEY_SCOPES, type KeyScope } from '../src/store/entities';
import { Problem } from './problem';
import type { AppState } from './context';

/** Resolves the caller from the bearer key; 401 when absent, malformed, unknown or revoked. */
export function authenticate(dataSource: DataSource): Middleware<AppState> {
  return async (ctx, next) => {
    const header = ctx.get('Authorization');
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!header) throw new Problem('unauthorized', 'Missing Authorization header; send `Authorization: Bearer <API_KEY>`.');
    if (!match) throw new Problem('unauthorized', 'The Authorization header must be `Bearer <API_KEY>`.');
    const key = await findKey(dataSource.manager, match[1]!);
    if (!key) throw new Problem('unauthorized', 'The API key is unknown or has been revoked.');
    ctx.state.caller = { workspaceId: key.workspaceId, keyId: key.id, scope: key.scope };
    await next();
  };
}

/** 403 unless the caller's scope includes `needed`. */
export function requireScope(needed: KeyScope): Middleware<AppState> {
  return async (ctx, next) => {
    const have = ctx.state.caller.scope;
    if (KEY_SCOPES.indexOf(have) < KEY_SCOPES.indexOf(needed)) {
      throw new Problem('forbidden', `This operation needs an API key with scope "${needed}"; this key has "${have}".`);
    }
    await next();
  };
}

/** The default scope rule: GET and HEAD need `read`, other methods `write`. Routers may ask for less. */
export function defaultScope(): Middleware<AppState> {
  const read = requireScope('read');
  return async (ctx, next) => {
    if (ctx.method === 'GET' || ctx.method === 'HEAD') return read(ctx, next);
    // Writes are checked per route (runs need only `run`), so that a read key is refused with 403
    // before its body is even parsed.
    if (ctx.state.caller.scope === 'read') {
      throw new Problem('forbidden', 'This API key has scope "read" and can only make GET requests.');
    }
    await next();
  };
}
