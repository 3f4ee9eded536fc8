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
 * A variable is a plain value (string, number, boolean) or a secret (docs/secrets.md):
 * sent as `{"value": …, "secret": true}`, stored sealed with the key ring (never in plain text),
 * answered as `{"secret": true, "value": "***"}` to every key. Sending that answer back (PUT, PATCH)
 * keeps the stored secret; 400 `validation-failed` naming `variables.<name>` when there is none, for
 * a malformed object, and for a secret shorter than 4 characters (it could not be masked in
 * results). A plain value replaces a secret and a secret a plain value. Every write seals the
 * secrets it keeps under the key ring's primary key (rotation, ASSAY_SECRET_KEYS).
 *
 * A `read`-scope key gets plain values masked as `"***"` too (names kept); `run` and `write` keys
 * get them (docs/security.md "Secrets at rest and in answers").
 */
import Router from '@koa/router';
import type { EntityManager } from 'typeorm';
import { newId } from '../../src/ids';
import { Environment } from '../../src/store/entities';
import type { Variables } from '../../src/domain/types';
import { keyRingFor } from '../../src/secrets/keyring';
import type { VariableInput } from '../../src/secrets/variables';
import type { ApiDeps, AppContext, AppState, Caller } from '../context';
import { invalid } from '../problem';
import {
  keptSecretErrors,
  resealStale,
  sealVariableInputs,
  variablesAnswer,
  variableShapeErrors,
  type VariablesInput,
} from '../secrets';
import { bodyValidator, jsonBody } from '../validation';
import { byName, keysetPage, readPaging } from '../paging';
import { findOr404, workspaceRows } from '../lookups';
import { iso, nameSchema, uniqueName, validatedWith, variablesPatchSchema, variablesSchema } from './shared';

interface EnvironmentInput {
  name?: string;
  description?: string;
  variables?: VariablesInput;
}

interface EnvironmentPatch {
  name?: string;
  description?: string;
  variables?: Record<string, VariableInput | null>;
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
    variables: variablesPatchSchema,
  },
};

/**
 * The request body schemas of the environment endpoints: what ajv validates with (below) and what
 * the OpenAPI document shows (api/openapi/operations.ts). Secret shapes are checked after them.
 */
export const ENVIRONMENT_SCHEMAS = { create: createSchema, replace: replaceSchema, patch: patchSchema } as const;

const validateCreate = bodyValidator<EnvironmentInput & { name: string }>(ENVIRONMENT_SCHEMAS.create);
const validateReplace = bodyValidator<EnvironmentInput>(ENVIRONMENT_SCHEMAS.replace);
const validatePatch = bodyValidator<EnvironmentPatch>(ENVIRONMENT_SCHEMAS.patch);

/** `validate` with the secret variables' shapes checked too (api/secrets.ts `variableShapeErrors`). */
function validated<T>(validate: (body: unknown) => T, body: unknown): T {
  return validatedWith(validate, body, (b) => variableShapeErrors(b));
}

/** 400 naming each `{"secret": true, "value": "***"}` of `variables` that `stored` has no secret for. */
function requireKeptSecrets(variables: Record<string, unknown> | undefined, stored: Variables): void {
  const errors = keptSecretErrors(variables, stored);
  if (errors.length) throw invalid(errors);
}

/**
 * The JSON form of an environment as `caller` may see it: secrets `{"secret": true, "value":
 * "***"}` for every key; plain values as stored, or `"***"` for a `read`-scope key (the names stay).
 */
export function environmentJson(e: Environment, caller: Pick<Caller, 'scope'>) {
  return {
    id: e.id,
    name: e.name,
    description: e.description,
    variables: variablesAnswer(e.variables, caller.scope),
    createdAt: iso(e.createdAt),
    updatedAt: iso(e.updatedAt),
  };
}

function load(manager: EntityManager, ctx: AppContext): Promise<Environment> {
  const name = ctx.params.environmentName!;
  return findOr404(manager, Environment, { workspaceId: ctx.state.caller.workspaceId, name }, `Environment "${name}"`);
}

const ORDER = byName<Environment>('e');

export function environmentsRouter({ dataSource, config }: ApiDeps): Router<AppState> {
  const router = new Router<AppState>();
  const repo = dataSource.getRepository(Environment);
  const ring = keyRingFor(config.secretKeys, config.dataDir);

  router.get('/environments', async (ctx) => {
    const paging = readPaging(ctx, ORDER);
    const qb = workspaceRows(repo, 'e', ctx);
    ctx.body = await keysetPage(qb, paging, ORDER, (e) => environmentJson(e, ctx.state.caller));
  });

  router.post('/environments', async (ctx) => {
    const input = validated(validateCreate, jsonBody(ctx));
    requireKeptSecrets(input.variables, {});
    const now = new Date();
    const env = repo.create({
      id: newId('environment'),
      workspaceId: ctx.state.caller.workspaceId,
      name: input.name,
      description: input.description ?? '',
      variables: sealVariableInputs(input.variables ?? {}, ring),
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
    const input = validated(validateReplace, jsonBody(ctx));
    const env = await load(dataSource.manager, ctx);
    requireKeptSecrets(input.variables, env.variables);
    env.name = input.name ?? env.name;
    env.description = input.description ?? '';
    env.variables = sealVariableInputs(input.variables ?? {}, ring, env.variables);
    env.updatedAt = new Date();
    await uniqueName('Environment', env.name, () => repo.save(env));
    ctx.body = environmentJson(env, ctx.state.caller);
  });

  router.patch('/environments/:environmentName', async (ctx) => {
    const patch = validated(validatePatch, jsonBody(ctx));
    const updated = await dataSource.transaction(async (manager) => {
      const env = await load(manager, ctx);
      requireKeptSecrets(patch.variables ?? undefined, env.variables);
      if (patch.name !== undefined) env.name = patch.name;
      if (patch.description !== undefined) env.description = patch.description;
      // Every write seals the secrets it keeps under the primary key (a rotation reaches them).
      const merged: Variables = { ...env.variables };
      if (patch.variables) {
        const set: VariablesInput = {};
        for (const [k, v] of Object.entries(patch.variables)) {
          if (v === null) delete merged[k];
          else set[k] = v;
        }
        Object.assign(merged, sealVariableInputs(set, ring, env.variables));
      }
      env.variables = resealStale(merged, ring);
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
