/**
 * Environments (spec "Environment"): named sets of variables, addressed by name.
 *
 *   GET    /v1/environments                 list (ordered by name; `limit`, `cursor`)
 *   POST   /v1/environments                 create {name, description?, variables?}      → 201
 *   GET    /v1/environments/{name}          one environment
 *   PUT    /v1/environments/{name}          replace {name?, description?, variables}      → 200
 *   PATCH  /v1/environments/{name}          {variables?, description?, name?}: JSON merge patch (RFC 7396)
 *                                            on `variables`: a key set to null is removed  → 200
 *   DELETE /v1/environments/{name}                                                         → 204
 *
 * A `read`-scope key gets every variable value masked as `"***"` (names kept); `run` and `write`
 * keys get the values (docs/security.md "Secrets at rest and in answers").
 */
import Router from '@koa/router';
import type { EntityManager } from 'typeorm';
import { newId } from '../../src/ids';
import { Environment } from '../../src/store/entities';
import type { Variables } from '../../src/domain/types';
import type { ApiDeps, AppContext, AppState, Caller } from '../context';
import { MASKED } from '../secrets';
import { bodyValidator, jsonBody } from '../validation';
import { byName, keysetPage, readPaging } from '../paging';
import { findOr404, workspaceRows } from '../lookups';
import { iso, nameSchema, uniqueName, variablesSchema } from './shared';

interface EnvironmentInput {
  name?: string;
  description?: string;
  variables?: Variables;
}

interface EnvironmentPatch {
  name?: string;
  description?: string;
  variables?: Record<string, string | number | boolean | null>;
}

const createSchema = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: { name: nameSchema, description: { type: 'string', maxLength: 1000 }, variables: variablesSchema },
};
const replaceSchema = { ...createSchema, required: [] };
const patchSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: nameSchema,
    description: { type: 'string', maxLength: 1000 },
    variables: { ...variablesSchema, additionalProperties: { type: ['string', 'number', 'boolean', 'null'] } },
  },
};

const validateCreate = bodyValidator<EnvironmentInput & { name: string }>(createSchema);
const validateReplace = bodyValidator<EnvironmentInput>(replaceSchema);
const validatePatch = bodyValidator<EnvironmentPatch>(patchSchema);

/**
 * The JSON form of an environment as `caller` may see it: for a `read`-scope key every variable
 * value is `"***"` (the names stay), for `run` and `write` keys the values as stored.
 */
export function environmentJson(e: Environment, caller: Pick<Caller, 'scope'>) {
  const variables = caller.scope === 'read' ? Object.fromEntries(Object.keys(e.variables).map((k) => [k, MASKED])) : e.variables;
  return { id: e.id, name: e.name, description: e.description, variables, createdAt: iso(e.createdAt), updatedAt: iso(e.updatedAt) };
}

function load(manager: EntityManager, ctx: AppContext): Promise<Environment> {
  const name = ctx.params.environmentName!;
  return findOr404(manager, Environment, { workspaceId: ctx.state.caller.workspaceId, name }, `Environment "${name}"`);
}

const ORDER = byName<Environment>('e');

export function environmentsRouter({ dataSource }: ApiDeps): Router<AppState> {
  const router = new Router<AppState>();
  const repo = dataSource.getRepository(Environment);

  router.get('/environments', async (ctx) => {
    const paging = readPaging(ctx, ORDER);
    const qb = workspaceRows(repo, 'e', ctx);
    ctx.body = await keysetPage(qb, paging, ORDER, (e) => environmentJson(e, ctx.state.caller));
  });

  router.post('/environments', async (ctx) => {
    const input = validateCreate(jsonBody(ctx));
    const now = new Date();
    const env = repo.create({
      id: newId('environment'),
      workspaceId: ctx.state.caller.workspaceId,
      name: input.name,
      description: input.description ?? '',
      variables: input.variables ?? {},
      createdAt: now,
      updatedAt: now,
    });
    await uniqueName('Environment', input.name, () => repo.insert(env));
    ctx.status = 201;
    ctx.set('Location', `/v1/environments/${encodeURIComponent(env.name)}`);
    ctx.body = environmentJson(env, ctx.state.caller);
  });

  router.get('/environments/:environmentName', async (ctx) => {
    ctx.body = environmentJson(await load(dataSource.manager, ctx), ctx.state.caller);
  });

  router.put('/environments/:environmentName', async (ctx) => {
    const input = validateReplace(jsonBody(ctx));
    const env = await load(dataSource.manager, ctx);
    env.name = input.name ?? env.name;
    env.description = input.description ?? '';
    env.variables = input.variables ?? {};
    env.updatedAt = new Date();
    await uniqueName('Environment', env.name, () => repo.save(env));
    ctx.body = environmentJson(env, ctx.state.caller);
  });

  router.patch('/environments/:environmentName', async (ctx) => {
    const patch = validatePatch(jsonBody(ctx));
    const updated = await dataSource.transaction(async (manager) => {
      const env = await load(manager, ctx);
      if (patch.name !== undefined) env.name = patch.name;
      if (patch.description !== undefined) env.description = patch.description;
      if (patch.variables !== undefined) {
        const merged: Variables = { ...env.variables };
        for (const [k, v] of Object.entries(patch.variables)) {
          if (v === null) delete merged[k];
          else merged[k] = v;
        }
        env.variables = merged;
      }
      env.updatedAt = new Date();
      await uniqueName('Environment', env.name, () => manager.getRepository(Environment).save(env));
      return env;
    });
    ctx.body = environmentJson(updated, ctx.state.caller);
  });

  router.delete('/environments/:environmentName', async (ctx) => {
    const env = await load(dataSource.manager, ctx);
    await repo.delete({ id: env.id });
    ctx.status = 204;
  });

  return router;
}
