/**
 * Auth profiles (docs/auth.md): named credentials of a workspace that API nodes, test cases,
 * folders and runners use by name (`authProfile`), addressed by name.
 *
 *   GET    /v1/auth-profiles                    list (ordered by name; `limit`, `cursor`)
 *   POST   /v1/auth-profiles                    create {name, description?, type, config}       → 201
 *   GET    /v1/auth-profiles/{name}             one profile
 *   PUT    /v1/auth-profiles/{name}             replace {name?, description?, type, config}    → 200
 *   DELETE /v1/auth-profiles/{name}             → 204; 409 `in-use` naming the test cases and runners that use it
 *   POST   /v1/auth-profiles/{name}/token       {environment} → a token fetched now (oauth2):
 *                                               {tokenType, expiresAt, scope, obtainedAt, preview}
 *
 * `config` holds the type's fields (src/domain/auth-profiles.ts): bearer `token`; basic `username`,
 * `password`; apiKey `name`, `value`, `in`; oauth2 `grant`, `tokenUrl`, `clientId`,
 * `clientSecret?`, `scopes?`, `audience?`, `clientAuthentication?`, `username?`, `password?`,
 * `refreshToken?`. Every string may hold `{{variable}}` templates filled from the run's
 * environment. Literal secrets (`token`, `password`, `value`, `clientSecret`, `refreshToken`) are
 * stored sealed with the key ring and answered `"***"` to every key; sending `"***"` back keeps the
 * stored value (src/auth/profile-fields.ts). 400 `validation-failed` names the field at fault.
 */
import Router from '@koa/router';
import type { EntityManager } from 'typeorm';
import { newId } from '../../src/ids';
import { AuthProfile, Environment, TestCase } from '../../src/store/entities';
import { keyRingFor, type KeyRing } from '../../src/secrets/keyring';
import { openVariables } from '../../src/secrets/variables';
import { policyFromConfig } from '../../src/net/address-policy';
import { AUTH_PROFILE_TYPES, AUTH_NONE, type AuthProfileType } from '../../src/domain/auth-profiles';
import { maskProfileFields, profileFieldErrors, sealProfileFields } from '../../src/auth/profile-fields';
import { AuthProfileError, AuthProfiles } from '../../src/auth/apply';
import { missingProfileErrors, profileRefsInFlow, profileUsers, type ProfileRef } from '../../src/store/auth-profiles';
import { fieldError } from '../../src/problems';
import type { ApiDeps, AppContext, AppState } from '../context';
import { invalid, Problem } from '../problem';
import { jsonBody } from '../validation';
import { byName, keysetPage, readPaging } from '../paging';
import { findOr404, workspaceRows } from '../lookups';
import { iso, nameSchema, NAME_PATTERN, uniqueName } from './shared';

/** An `authProfile` field of a test case, runner or API node: a profile's name, `none`, or null (none at that level). */
export const AUTH_PROFILE_REF_SCHEMA = {
  type: ['string', 'null'],
  pattern: NAME_PATTERN,
  description:
    'The auth profile (docs/auth.md) its requests are sent with, or `none` (no profile at this level or below); precedence: API node > test case > folder > runner.',
} as const;

const STRING = { type: 'string', maxLength: 4096 } as const;

/** The request body schema of POST and PUT (`config` is then checked by type, naming each field). */
const bodySchema = {
  type: 'object',
  required: ['name', 'type', 'config'],
  additionalProperties: false,
  properties: {
    name: nameSchema,
    description: { type: 'string', maxLength: 1000 },
    type: { enum: [...AUTH_PROFILE_TYPES] },
    config: {
      type: 'object',
      description:
        'The type\'s fields: bearer `token`; basic `username`, `password`; apiKey `name`, `value`, `in` (`header`|`query`); oauth2 `grant` (`client_credentials`|`password`|`refresh_token`), `tokenUrl`, `clientId`, `clientSecret?`, `scopes?` (list), `audience?`, `clientAuthentication?` (`basic`, the default, or `body`), `username?`, `password?`, `refreshToken?`. Strings may hold `{{variable}}` templates; secrets are answered `"***"` (send `"***"` back to keep one).',
      properties: {
        token: STRING,
        username: STRING,
        password: STRING,
        name: STRING,
        value: STRING,
        in: { enum: ['header', 'query'] },
        grant: { enum: ['client_credentials', 'password', 'refresh_token'] },
        tokenUrl: STRING,
        clientId: STRING,
        clientSecret: STRING,
        scopes: { type: 'array', maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 200 } },
        audience: STRING,
        clientAuthentication: { enum: ['basic', 'body'] },
        refreshToken: STRING,
      },
    },
  },
} as const;

/** The body schemas of the endpoints, for the OpenAPI document (api/openapi/operations.ts). */
export const AUTH_PROFILE_SCHEMAS = {
  body: bodySchema,
  replace: { ...bodySchema, required: ['type', 'config'] },
  token: {
    type: 'object',
    required: ['environment'],
    additionalProperties: false,
    properties: { environment: nameSchema },
  },
} as const;

/** The profile as answered: secrets `"***"`. */
export function authProfileJson(p: AuthProfile) {
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    type: p.type,
    config: maskProfileFields(p.config),
    createdAt: iso(p.createdAt),
    updatedAt: iso(p.updatedAt),
  };
}

function load(manager: EntityManager, ctx: AppContext): Promise<AuthProfile> {
  const name = ctx.params.profileName!;
  return findOr404(manager, AuthProfile, { workspaceId: ctx.state.caller.workspaceId, name }, `Auth profile "${name}"`);
}

const ORDER = byName<AuthProfile>('p');

/** 400 naming each ref (an `authProfile` field) that names no profile of `workspaceId`. */
export async function checkAuthProfileRefs(
  manager: EntityManager,
  workspaceId: string,
  refs: ProfileRef[],
): Promise<void> {
  const errors = await missingProfileErrors(manager, workspaceId, refs);
  if (errors.length) throw invalid(errors);
}

/** 400 naming the test case's `authProfile` or an API node's that names no profile. */
export async function checkTestCaseAuthProfiles(manager: EntityManager, tc: TestCase): Promise<void> {
  const refs = profileRefsInFlow(tc.flow);
  if (tc.authProfile) refs.unshift({ at: ['authProfile'], name: tc.authProfile });
  await checkAuthProfileRefs(manager, tc.workspaceId, refs);
}

/** The body's profile name, description, type and `config`; 400 naming every field at fault. */
function readBody(body: unknown): {
  name: string;
  description: string;
  type: AuthProfileType;
  fields: Record<string, unknown>;
} {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw invalid([fieldError([], 'must be a JSON object')]);
  const { name, description, type, config, ...rest } = body as Record<string, unknown>;
  const errors = Object.keys(rest).map((k) =>
    fieldError([k], "is not a field of an auth profile (the type's fields go in `config`)"),
  );
  if (typeof name !== 'string' || !new RegExp(NAME_PATTERN).test(name))
    errors.push(fieldError(['name'], 'must be 1–100 letters, digits, _, . or -, starting with a letter or digit'));
  else if (name === AUTH_NONE)
    errors.push(fieldError(['name'], `"${AUTH_NONE}" is reserved (it turns authentication off)`));
  if (description !== undefined && (typeof description !== 'string' || description.length > 1000))
    errors.push(fieldError(['description'], 'must be a string of at most 1000 characters'));
  if (!config || typeof config !== 'object' || Array.isArray(config))
    errors.push(fieldError(['config'], "must be an object with the type's fields"));
  else
    errors.push(
      ...profileFieldErrors(type, config as Record<string, unknown>).map((e) =>
        e.field === 'type' ? e : fieldError(['config', ...e.field.split('.')], e.detail),
      ),
    );
  if (errors.length) throw invalid(errors);
  return {
    name: name as string,
    description: (description as string | undefined) ?? '',
    type: type as AuthProfileType,
    fields: config as Record<string, unknown>,
  };
}

function sealed(id: string, fields: Record<string, unknown>, ring: KeyRing, stored?: Record<string, unknown>) {
  const out = sealProfileFields(id, fields, ring, stored);
  if (out.errors.length) throw invalid(out.errors.map((e) => fieldError(['config', e.field], e.detail)));
  return out.fields;
}

export function authProfilesRouter({ dataSource, config, policy }: ApiDeps): Router<AppState> {
  const router = new Router<AppState>();
  const repo = dataSource.getRepository(AuthProfile);
  const ring = keyRingFor(config.secretKeys, config.dataDir);
  let auth: AuthProfiles | undefined;
  // "Fetch a token now" goes out as an API node's request would (kind `node` of the address policy),
  // straight to the token endpoint (it tries the profile; runs keep their cached token).
  const profiles = () =>
    (auth ??= new AuthProfiles(ring, (policy ?? policyFromConfig(config)).agent('node'), async () => dataSource));

  router.get('/auth-profiles', async (ctx) => {
    const paging = readPaging(ctx, ORDER);
    const qb = workspaceRows(repo, 'p', ctx);
    ctx.body = await keysetPage(qb, paging, ORDER, authProfileJson);
  });

  router.post('/auth-profiles', async (ctx) => {
    const input = readBody(jsonBody(ctx));
    const now = new Date();
    const id = newId('authProfile');
    const profile = repo.create({
      id,
      workspaceId: ctx.state.caller.workspaceId,
      name: input.name,
      description: input.description,
      type: input.type,
      config: sealed(id, input.fields, ring),
      createdAt: now,
      updatedAt: now,
    });
    await uniqueName('Auth profile', input.name, () => repo.save(profile));
    ctx.status = 201;
    ctx.set('Location', `/v1/auth-profiles/${encodeURIComponent(profile.name)}`);
    ctx.body = authProfileJson(profile);
  });

  router.get('/auth-profiles/:profileName', async (ctx) => {
    ctx.body = authProfileJson(await load(dataSource.manager, ctx));
  });

  router.put('/auth-profiles/:profileName', async (ctx) => {
    const body = jsonBody(ctx) as Record<string, unknown>;
    const input = readBody({ name: ctx.params.profileName, ...body });
    ctx.body = authProfileJson(
      await dataSource.transaction(async (manager) => {
        const profile = await load(manager, ctx);
        if (input.name !== profile.name) {
          const users = await profileUsers(manager, profile.workspaceId, profile.name);
          if (users.testCases.length || users.runners.length) throw inUse(profile.name, users, 'renamed');
        }
        profile.name = input.name;
        profile.description = input.description;
        profile.config = sealed(profile.id, input.fields, ring, profile.type === input.type ? profile.config : {});
        profile.type = input.type;
        profile.updatedAt = new Date();
        await uniqueName('Auth profile', profile.name, () => manager.getRepository(AuthProfile).save(profile));
        return profile;
      }),
    );
  });

  router.delete('/auth-profiles/:profileName', async (ctx) => {
    await dataSource.transaction(async (manager) => {
      const profile = await load(manager, ctx);
      const users = await profileUsers(manager, profile.workspaceId, profile.name);
      if (users.testCases.length || users.runners.length) throw inUse(profile.name, users, 'deleted');
      await manager.getRepository(AuthProfile).delete({ id: profile.id });
    });
    ctx.status = 204;
  });

  router.post('/auth-profiles/:profileName/token', async (ctx) => {
    const body = jsonBody(ctx) as { environment?: unknown };
    if (!body || typeof body.environment !== 'string' || !new RegExp(NAME_PATTERN).test(body.environment))
      throw invalid([fieldError(['environment'], 'must name an environment')]);
    const profile = await load(dataSource.manager, ctx);
    if (profile.type !== 'oauth2')
      throw invalid([
        fieldError(['type'], `a ${profile.type} profile has no token to fetch (only oauth2 profiles do)`),
      ]);
    const environment = await findOr404(
      dataSource.manager,
      Environment,
      { workspaceId: profile.workspaceId, name: body.environment },
      `Environment "${body.environment}"`,
    );
    const variables = openVariables(environment.variables, ring).values;
    try {
      const token = await profiles().fetchToken(
        {
          workspaceId: profile.workspaceId,
          environment: environment.name,
          profile: { id: profile.id, name: profile.name, type: profile.type, config: profile.config },
        },
        variables,
        config.runs.requestTimeoutMs,
      );
      ctx.body = {
        tokenType: token.tokenType,
        expiresAt: token.expiresAtMs === undefined ? null : new Date(token.expiresAtMs).toISOString(),
        scope: token.scope ?? null,
        obtainedAt: new Date(token.obtainedAtMs).toISOString(),
        preview: `${token.accessToken.slice(0, Math.min(4, Math.floor(token.accessToken.length / 4)))}…`,
      };
    } catch (err) {
      if (err instanceof AuthProfileError)
        throw new Problem('token-request-failed', err.message, {
          ...(err.status !== undefined ? { tokenEndpointStatus: err.status } : {}),
        });
      throw err;
    }
  });

  return router;
}

function inUse(
  name: string,
  users: { testCases: Array<{ id: string; name: string }>; runners: string[] },
  what: string,
): Problem {
  const parts = [
    ...users.testCases.map((t) => `test case "${t.name}" (${t.id})`),
    ...users.runners.map((r) => `runner "${r}"`),
  ];
  return new Problem(
    'in-use',
    `Auth profile "${name}" cannot be ${what}: ${parts.join(', ')} name${parts.length === 1 ? 's' : ''} it.`,
    {
      testCases: users.testCases,
      runners: users.runners,
    },
  );
}
