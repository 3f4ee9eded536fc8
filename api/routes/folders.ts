/**
 * Folders (docs/flows.md "Hooks"): settings shared by every test case filed at or below a folder
 * path, addressed by the path (URL-encoded: `users/admin` is `users%2Fadmin`).
 *
 *   GET    /v1/folders                 list (ordered by path; `limit`, `cursor`)
 *   GET    /v1/folders/{path}          one folder
 *   PUT    /v1/folders/{path}          create or replace {hooks?, authProfile?}: 201 when created, 200 when replaced
 *   DELETE /v1/folders/{path}                                                              → 204
 *
 * The path is normalised as a test case's `folder` is (src/domain/folders.ts `normaliseFolder`:
 * ` /a//b/ ` is `a/b`); the top level (`''`) is no folder resource (400 naming `path`). A folder
 * resource needs no test case in it, and deleting one leaves its test cases as they are.
 *
 * `hooks` is a script defining `beforeRequest` and/or `afterResponse` (validated as an API node's
 * `script`: 400 naming `hooks.code` when it does not parse); `authProfile` names an auth profile
 * (or `none`). Both take effect in runs started afterwards: a run freezes its folders' settings
 * into its plan (src/store/folder-settings.ts).
 */
import Router from '@koa/router';
import { newId } from '../../src/ids';
import { Folder } from '../../src/store/entities';
import { normaliseFolder } from '../../src/domain/folders';
import type { ScriptConfig } from '../../src/domain/types';
import { validateHooks } from '../../src/validation/flow';
import { SCRIPT_SCHEMA } from '../../src/validation/flow-schemas';
import type { ApiDeps, AppContext, AppState } from '../context';
import { Problem } from '../problem';
import { bodyValidator, issuesProblem, jsonBody } from '../validation';
import { keysetPage, readPaging, type Keyset } from '../paging';
import { findOr404, workspaceRows } from '../lookups';
import { iso, uniqueName } from './shared';
import { checkAuthProfileRefs } from './auth-profiles';

/**
 * Hooks outside a flow (a test case's or a folder's `hooks`): an API node's `script` shape, or
 * `null` for none.
 */
export const HOOKS_SCHEMA = {
  ...SCRIPT_SCHEMA,
  type: ['object', 'null'],
  description:
    'A script defining `beforeRequest` and/or `afterResponse`, run around each API node of the test cases it applies to, in the onion order: `beforeRequest` test case → folders (outermost first) → node, `afterResponse` node → folders → test case (docs/flows.md "Hooks"). `null` or absent: none.',
} as const;

interface FolderInput {
  hooks?: ScriptConfig | null;
  authProfile?: string | null;
}

/** The request body schema of PUT /v1/folders/{path}: what ajv validates with and what the OpenAPI document shows. */
export const FOLDER_SCHEMAS = {
  replace: {
    type: 'object',
    additionalProperties: false,
    properties: {
      hooks: HOOKS_SCHEMA,
      authProfile: {
        type: ['string', 'null'],
        minLength: 1,
        maxLength: 100,
        description:
          'The auth profile the test cases under the folder sign their requests with, unless their node or test case names another (`none`: no profile); the nearest folder that sets one wins.',
      },
    },
  },
} as const;

const validateReplace = bodyValidator<FolderInput>(FOLDER_SCHEMAS.replace);

/** The JSON form of a folder. */
export function folderJson(f: Folder) {
  return {
    id: f.id,
    path: f.path,
    hooks: f.hooks ?? null,
    authProfile: f.authProfile ?? null,
    createdAt: iso(f.createdAt),
    updatedAt: iso(f.updatedAt),
  };
}

/** The listing's order: by path (unique per workspace). */
const ORDER: Keyset<Folder, 'name'> = { shape: 'name', keys: [{ column: 'f.path', of: (f) => f.path }] };

/** The normalised folder path of the request; 400 naming `path` for the top level or a path too long. */
function pathOf(ctx: AppContext): string {
  const path = normaliseFolder(ctx.params.folderPath ?? '');
  const bad = (detail: string) =>
    new Problem('validation-failed', `path: ${detail}`, {
      errors: [{ field: 'path', pointer: '/v1/folders/{path}', detail }],
    });
  if (path === '') throw bad('must name a folder (such as `users/admin`, URL-encoded); the top level is no folder');
  if (path.length > 255) throw bad(`has ${path.length} characters; at most 255 are allowed`);
  return path;
}

export function foldersRouter({ dataSource }: ApiDeps): Router<AppState> {
  const router = new Router<AppState>();
  const repo = dataSource.getRepository(Folder);

  router.get('/folders', async (ctx) => {
    const paging = readPaging(ctx, ORDER);
    ctx.body = await keysetPage(workspaceRows(repo, 'f', ctx), paging, ORDER, folderJson);
  });

  router.get('/folders/:folderPath', async (ctx) => {
    const path = pathOf(ctx);
    const where = { workspaceId: ctx.state.caller.workspaceId, path };
    ctx.body = folderJson(await findOr404(dataSource.manager, Folder, where, `Folder "${path}"`));
  });

  router.put('/folders/:folderPath', async (ctx) => {
    const path = pathOf(ctx);
    const input = validateReplace(jsonBody(ctx));
    if (input.hooks) {
      const issues = validateHooks(input.hooks, ['hooks']);
      if (issues.length) throw issuesProblem(issues);
    }
    const workspaceId = ctx.state.caller.workspaceId;
    const now = new Date();
    const { folder, created } = await dataSource.transaction(async (manager) => {
      if (input.authProfile)
        await checkAuthProfileRefs(manager, workspaceId, [{ at: ['authProfile'], name: input.authProfile }]);
      const folders = manager.getRepository(Folder);
      const found = await folders.findOneBy({ workspaceId, path });
      const row = found ?? folders.create({ id: newId('folder'), workspaceId, path, createdAt: now, updatedAt: now });
      row.hooks = input.hooks ?? null;
      row.authProfile = input.authProfile ?? null;
      row.updatedAt = now;
      await uniqueName('Folder', path, async () => {
        if (found) await folders.save(row);
        else await folders.insert(row);
      });
      return { folder: row, created: !found };
    });
    if (created) {
      ctx.status = 201;
      ctx.set('Location', `/v1/folders/${encodeURIComponent(folder.path)}`);
    }
    ctx.body = folderJson(folder);
  });

  router.delete('/folders/:folderPath', async (ctx) => {
    const path = pathOf(ctx);
    const where = { workspaceId: ctx.state.caller.workspaceId, path };
    const folder = await findOr404(dataSource.manager, Folder, where, `Folder "${path}"`);
    await repo.delete({ id: folder.id });
    ctx.status = 204;
  });

  return router;
}
