/**
 * Environments (spec "Environment"): named sets of variables, addressed by name.
 *
 *   GET    /v1/environments                 list (ordered by name; `limit`, `cursor`)
 *   POST   /v1/environments                 create {name, description?, variables?, extends?, servers?} → 201
 *   GET    /v1/environments/{name}          one environment
 *   PUT    /v1/environments/{name}          replace {name?, description?, variables, extends?, servers?} → 200
 *   PATCH  /v1/environments/{name}          {variables?, servers?, description?, name?, extends?}: JSON merge
 *                                            patch (RFC 7396) on `variables` and `servers`: a key set to null
 *                                            is removed; `extends: null` removes the parent          → 200
 *   DELETE /v1/environments/{name}          → 204; 409 `in-use` while others extend it
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
 *
 * Inheritance and servers (docs/reuse.md; src/store/environments.ts, src/flow/servers.ts):
 * `extends` names the parent environment (same workspace; 422 `unknown-reference` naming `extends`
 * when there is none, 400 `validation-failed` naming `extends` for a cycle or a chain of more than
 * MAX_EXTENDS_DEPTH environments). `servers` maps names (`[A-Za-z_][A-Za-z0-9_-]*`) to absolute
 * http(s) base URLs (400 naming `servers.<name>`). Answers carry `extends` and `servers` only when
 * set (an environment without them answers exactly as before), and, for an environment that extends
 * another, `inherited`: `{variables: {<name>: {value, secret?, from}}, servers: {<name>: {value,
 * from}}, chain: [root, …, parent]}`, the values its ancestors give that it does not override
 * (secrets `"***"`, plain values masked for a `read` key as its own are). Renaming a parent renames
 * it in the `extends` of the environments that extend it.
 */
import Router from '@koa/router';
import type { EntityManager } from 'typeorm';
import { newId } from '../../src/ids';
import { Environment } from '../../src/store/entities';
import type { Variables } from '../../src/domain/types';
import { keyRingFor } from '../../src/secrets/keyring';
import type { VariableInput } from '../../src/secrets/variables';
import type { ApiDeps, AppContext, AppState, Caller } from '../context';
import { invalid, Problem } from '../problem';
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
import { fieldError, type FieldError } from '../../src/problems';
import { isServerName, MAX_SERVERS, serverUrlProblem } from '../../src/flow/servers';
import {
  childrenOf,
  environmentChain,
  EnvironmentChainError,
  extendsLinks,
  extendsProblem,
  mergeEnvironmentChain,
} from '../../src/store/environments';

interface EnvironmentInput {
  name?: string;
  description?: string;
  variables?: VariablesInput;
  extends?: string | null;
  servers?: Record<string, string>;
}

interface EnvironmentPatch {
  name?: string;
  description?: string;
  variables?: Record<string, VariableInput | null>;
  extends?: string | null;
  servers?: Record<string, string | null>;
}

/** `extends`: the parent environment's name, or null for none. */
const extendsSchema = {
  type: ['string', 'null'],
  pattern: nameSchema.pattern,
  description:
    'The name of the environment (same workspace) this one extends: its variables, secrets and servers apply unless this one sets them (docs/reuse.md "Environments that inherit"). No cycles; at most 10 environments in a chain.',
} as const;

/** `servers`: names to base URLs (names and URLs are judged by {@link serverErrors}). */
const serversSchema = {
  type: 'object',
  maxProperties: MAX_SERVERS,
  description:
    'Servers: names (`[A-Za-z_][A-Za-z0-9_-]*`) to absolute http(s) base URLs, which may hold `{{variable}}` placeholders; API nodes use them as `{{server.<name>}}` or with `server` (docs/reuse.md "Servers").',
  additionalProperties: { type: 'string', maxLength: 2000 },
} as const;
const serversPatchSchema = {
  ...serversSchema,
  additionalProperties: { type: ['string', 'null'], maxLength: 2000 },
} as const;

const createSchema = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: {
    name: nameSchema,
    description: { type: 'string', maxLength: 1000 },
    variables: variablesSchema,
    extends: extendsSchema,
    servers: serversSchema,
  },
};
const replaceSchema = { ...createSchema, required: [] };
const patchSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: nameSchema,
    description: { type: 'string', maxLength: 1000 },
    variables: variablesPatchSchema,
    extends: extendsSchema,
    servers: serversPatchSchema,
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

/** `validate` with the secret variables' shapes and the servers checked too (api/secrets.ts `variableShapeErrors`). */
function validated<T>(validate: (body: unknown) => T, body: unknown): T {
  return validatedWith(validate, body, (b) => [...variableShapeErrors(b), ...serverErrors(b)]);
}

/** Field errors (`servers.<name>`) of the servers of a raw body: names, and URLs (src/flow/servers.ts). */
function serverErrors(body: unknown): FieldError[] {
  const servers = body && typeof body === 'object' ? (body as { servers?: unknown }).servers : undefined;
  if (!servers || typeof servers !== 'object' || Array.isArray(servers)) return [];
  const errors: FieldError[] = [];
  for (const [name, url] of Object.entries(servers)) {
    if (!isServerName(name))
      errors.push(
        fieldError(
          ['servers', name],
          'is not a valid server name: letters, digits, "_" and "-", starting with a letter or "_" (at most 100 characters)',
        ),
      );
    else if (typeof url === 'string') {
      const problem = serverUrlProblem(url);
      if (problem) errors.push(fieldError(['servers', name], problem));
    }
  }
  return errors;
}

/**
 * Refuses `name` extending `parent` (see the module comment): 422 `unknown-reference` for a parent
 * that does not exist, 400 `validation-failed` for a cycle or a chain too long; both name `extends`.
 * `formerName` is the environment's name before this write (a rename), if it existed.
 */
async function checkExtends(
  manager: EntityManager,
  workspaceId: string,
  name: string,
  parent: string | null,
  formerName?: string,
): Promise<void> {
  const links = await extendsLinks(manager, workspaceId);
  if (formerName !== undefined && formerName !== name) {
    links.delete(formerName);
    // Those that extend it follow the rename (see `renameParent`).
    for (const [child, p] of links) if (p === formerName) links.set(child, name);
  }
  links.set(name, parent);
  const problem = extendsProblem(links, name, parent);
  if (!problem) return;
  const errors = [fieldError(['extends'], problem)];
  if (parent !== null && parent !== name && !links.has(parent))
    throw new Problem('unknown-reference', `extends: ${problem}`, { errors });
  throw invalid(errors);
}

/** After a rename of `from` to `to`: the environments that extended `from` extend `to`. */
async function renameParent(manager: EntityManager, workspaceId: string, from: string, to: string): Promise<void> {
  if (from === to) return;
  await manager.getRepository(Environment).update({ workspaceId, extends: from }, { extends: to });
}

/** A copy of `servers` without empty maps: null stands for none. */
function storedServers(servers: Record<string, string> | null | undefined): Record<string, string> | null {
  return servers && Object.keys(servers).length ? { ...servers } : null;
}

/** 400 naming each `{"secret": true, "value": "***"}` of `variables` that `stored` has no secret for. */
function requireKeptSecrets(variables: Record<string, unknown> | undefined, stored: Variables): void {
  const errors = keptSecretErrors(variables, stored);
  if (errors.length) throw invalid(errors);
}

/**
 * The JSON form of an environment as `caller` may see it: secrets `{"secret": true, "value":
 * "***"}` for every key; plain values as stored, or `"***"` for a `read`-scope key (the names stay).
 * `extends` and `servers` only when set; `inherited` (see the module comment) when `chain` (root
 * first, `e` last) is given and `e` extends another.
 */
export function environmentJson(e: Environment, caller: Pick<Caller, 'scope'>, chain?: Environment[]) {
  const servers = storedServers(e.servers);
  return {
    id: e.id,
    name: e.name,
    description: e.description,
    variables: variablesAnswer(e.variables, caller.scope),
    ...(e.extends ? { extends: e.extends } : {}),
    ...(servers ? { servers } : {}),
    ...(e.extends && chain && chain.length > 1 ? { inherited: inheritedJson(chain, caller) } : {}),
    createdAt: iso(e.createdAt),
    updatedAt: iso(e.updatedAt),
  };
}

/** What the ancestors of `chain`'s last environment give it that it does not set itself. */
function inheritedJson(chain: Environment[], caller: Pick<Caller, 'scope'>) {
  const self = chain[chain.length - 1]!;
  const ancestors = mergeEnvironmentChain(chain.slice(0, -1));
  const answered = variablesAnswer(ancestors.variables, caller.scope);
  const variables: Record<string, { value: unknown; secret?: true; from: string }> = {};
  for (const [name, value] of Object.entries(answered)) {
    if (Object.prototype.hasOwnProperty.call(self.variables ?? {}, name)) continue;
    const from = ancestors.variableFrom[name]!;
    variables[name] =
      value !== null && typeof value === 'object' ? { value: value.value, secret: true, from } : { value, from };
  }
  const servers: Record<string, { value: string; from: string }> = {};
  for (const [name, value] of Object.entries(ancestors.servers)) {
    if (Object.prototype.hasOwnProperty.call(self.servers ?? {}, name)) continue;
    servers[name] = { value, from: ancestors.serverFrom[name]! };
  }
  return { chain: chain.slice(0, -1).map((e) => e.name), variables, servers };
}

/** {@link environmentJson} with `e`'s chain read (a chain broken meanwhile shows no `inherited`). */
async function environmentAnswer(manager: EntityManager, e: Environment, caller: Pick<Caller, 'scope'>) {
  if (!e.extends) return environmentJson(e, caller);
  try {
    return environmentJson(e, caller, await environmentChain(manager, e));
  } catch (err) {
    if (err instanceof EnvironmentChainError) return environmentJson(e, caller);
    throw err;
  }
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
    ctx.body = await keysetPage(qb, paging, ORDER, (e) => environmentAnswer(dataSource.manager, e, ctx.state.caller));
  });

  router.post('/environments', async (ctx) => {
    const input = validated(validateCreate, jsonBody(ctx));
    requireKeptSecrets(input.variables, {});
    const workspaceId = ctx.state.caller.workspaceId;
    if (input.extends) await checkExtends(dataSource.manager, workspaceId, input.name, input.extends);
    const now = new Date();
    const env = repo.create({
      id: newId('environment'),
      workspaceId,
      name: input.name,
      description: input.description ?? '',
      variables: sealVariableInputs(input.variables ?? {}, ring),
      extends: input.extends ?? null,
      servers: storedServers(input.servers),
      createdAt: now,
      updatedAt: now,
    });
    await uniqueName('Environment', input.name, () => repo.insert(env));
    ctx.status = 201;
    ctx.set('Location', `/v1/environments/${encodeURIComponent(env.name)}`);
    ctx.body = await environmentAnswer(dataSource.manager, env, ctx.state.caller);
  });

  router.get('/environments/:environmentName', async (ctx) => {
    ctx.body = await environmentAnswer(dataSource.manager, await load(dataSource.manager, ctx), ctx.state.caller);
  });

  router.put('/environments/:environmentName', async (ctx) => {
    const input = validated(validateReplace, jsonBody(ctx));
    const updated = await dataSource.transaction(async (manager) => {
      const env = await load(manager, ctx);
      requireKeptSecrets(input.variables, env.variables);
      const formerName = env.name;
      env.name = input.name ?? env.name;
      env.description = input.description ?? '';
      env.variables = sealVariableInputs(input.variables ?? {}, ring, env.variables);
      env.extends = input.extends ?? null;
      env.servers = storedServers(input.servers);
      await checkExtends(manager, env.workspaceId, env.name, env.extends, formerName);
      env.updatedAt = new Date();
      await uniqueName('Environment', env.name, () => manager.getRepository(Environment).save(env));
      await renameParent(manager, env.workspaceId, formerName, env.name);
      return env;
    });
    ctx.body = await environmentAnswer(dataSource.manager, updated, ctx.state.caller);
  });

  router.patch('/environments/:environmentName', async (ctx) => {
    const patch = validated(validatePatch, jsonBody(ctx));
    const updated = await dataSource.transaction(async (manager) => {
      const env = await load(manager, ctx);
      requireKeptSecrets(patch.variables ?? undefined, env.variables);
      const formerName = env.name;
      if (patch.name !== undefined) env.name = patch.name;
      if (patch.description !== undefined) env.description = patch.description;
      if (patch.extends !== undefined) env.extends = patch.extends;
      if (patch.servers) {
        const servers: Record<string, string> = { ...env.servers };
        for (const [k, v] of Object.entries(patch.servers)) {
          if (v === null) delete servers[k];
          else servers[k] = v;
        }
        env.servers = storedServers(servers);
      }
      if (patch.extends !== undefined || env.name !== formerName)
        await checkExtends(manager, env.workspaceId, env.name, env.extends ?? null, formerName);
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
      await renameParent(manager, env.workspaceId, formerName, env.name);
      return env;
    });
    ctx.body = await environmentAnswer(dataSource.manager, updated, ctx.state.caller);
  });

  router.delete('/environments/:environmentName', async (ctx) => {
    const env = await load(dataSource.manager, ctx);
    const children = await childrenOf(dataSource.manager, env.workspaceId, env.name);
    if (children.length)
      throw new Problem(
        'in-use',
        `Environment "${env.name}" is extended by ${children.map((c) => `"${c}"`).join(', ')}; change their "extends" first.`,
        { extendedBy: children },
      );
    await repo.delete({ id: env.id });
    ctx.status = 204;
  });

  return router;
}
