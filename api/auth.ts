/**
 * Authentication (spec "Authentication" 1): every /v1 call carries `Authorization: Bearer
 * <API_KEY>`. The key decides the workspace: a call works in the workspace its key belongs to
 * (docs/api.md, "Workspaces"). What each scope may call is one table, api/scopes.ts.
 */
import type { Middleware } from 'koa';
import type { DataSource } from 'typeorm';
import { findKey } from '../src/keys';
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
