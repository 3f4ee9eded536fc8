/**
 * GET /v1/workspaces: the workspaces the API key can use. A key belongs to one workspace, so the
 * list holds that one, with `key: {id, name, prefix, scope}` describing the calling key (the console
 * shows who is signed in and what they may do; docs/api.md "Authentication and workspaces").
 */
import Router from '@koa/router';
import { ApiKey, Workspace } from '../../src/store/entities';
import type { ApiDeps, AppState } from '../context';
import { iso } from './shared';
import { page } from '../paging';

export function workspacesRouter({ dataSource }: ApiDeps): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/workspaces', async (ctx) => {
    const { workspaceId, keyId } = ctx.state.caller;
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
