/**
 * GET /v1/workspaces: the workspaces the API key can use. A key belongs to one workspace, so the
 * list holds that one (docs/api.md, "Workspaces").
 */
import Router from '@koa/router';
import { Workspace } from '../../src/store/entities';
import type { ApiDeps, AppState } from '../context';
import { iso } from './shared';
import { page } from '../paging';

export function workspacesRouter({ dataSource }: ApiDeps): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/workspaces', async (ctx) => {
    const workspace = await dataSource.getRepository(Workspace).findOneByOrFail({ id: ctx.state.caller.workspaceId });
    ctx.body = page([{ id: workspace.id, name: workspace.name, createdAt: iso(workspace.createdAt), current: true }], null);
  });
  return router;
}
