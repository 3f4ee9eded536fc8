/**
 * GET /v1/workspaces: the workspaces the caller can use (docs/api.md "Authentication and
 * workspaces", docs/teams.md "People and sign-in").
 *
 * - An API key belongs to one workspace, so the list holds that one, with `key: {id, name, prefix,
 *   scope}` describing the calling key (`scope`: the key's own; a user's key acts with at most its
 *   user's role, docs/teams.md "API keys").
 * - A console session: every workspace the user has a role in, by name, each with `role`, `current`
 *   (true on the one this request works in: `X-Assay-Workspace`, else the first) and `user: {id,
 *   name, email}`.
 */
import Router from '@koa/router';
import { ApiKey, User, Workspace } from '../../src/store/entities';
import { userWorkspaces } from '../../src/teams/people';
import type { ApiDeps, AppState } from '../context';
import { iso } from './shared';
import { page } from '../paging';

export function workspacesRouter({ dataSource }: ApiDeps): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/workspaces', async (ctx) => {
    const { workspaceId, keyId, userId } = ctx.state.caller;
    if (keyId === null && userId) {
      const user = await dataSource.getRepository(User).findOneByOrFail({ id: userId });
      const workspaces = await userWorkspaces(dataSource.manager, user);
      ctx.body = page(
        workspaces.map((w) => ({
          id: w.id,
          name: w.name,
          createdAt: iso(w.createdAt),
          current: w.id === workspaceId,
          role: w.role,
          user: { id: user.id, name: user.name, email: user.email },
        })),
        null,
      );
      return;
    }
    const workspace = await dataSource.getRepository(Workspace).findOneByOrFail({ id: workspaceId });
    const key = await dataSource.getRepository(ApiKey).findOneByOrFail({ id: keyId ?? '' });
    ctx.body = page(
      [
        {
          id: workspace.id,
          name: workspace.name,
          createdAt: iso(workspace.createdAt),
          current: true,
          key: { id: key.id, name: key.name, prefix: key.prefix, scope: key.scope },
        },
      ],
      null,
    );
  });
  return router;
}
