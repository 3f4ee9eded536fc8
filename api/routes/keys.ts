/**
 * API keys of the caller's workspace (docs/teams.md "API keys"). The table (api/scopes.ts) lets any
 * caller in; what they may see and do is checked here:
 *
 *   GET    /v1/keys            list, newest first (`limit`, `cursor`): an admin sees every key of
 *                              the workspace, anyone else only their own
 *   POST   /v1/keys            {name, scope, expiresAt?, serviceAccount?} → 201 Key + `key` (the secret, shown once)
 *   GET    /v1/keys/{keyId}    → Key
 *   DELETE /v1/keys/{keyId}    → 204 (revokes; again is 204)
 *
 * Key = {id, name, prefix, scope, owner, createdAt, createdBy, expiresAt, lastUsedAt, revokedAt};
 * owner = {type: 'user', userId, name} | {type: 'service-account', name} | {type: 'workspace'}.
 *
 * Rules: a personal key (no `serviceAccount`) belongs to the calling person, so it needs a caller
 * that is one (a console session or a user's key; otherwise 400 naming `serviceAccount`); a key's
 * scope is at most the caller's own scope and at most `admin` (403 `scope-exceeds-role`); a
 * service account's key needs `admin`; `expiresAt` must be in the future. A key the caller may not
 * see is 404, as if it did not exist. A user's key acts with at most its user's current role
 * (api/auth.ts `resolveKeyCaller`).
 */
import Router from '@koa/router';
import type { EntityManager } from 'typeorm';
import { ApiKey, KEY_SCOPES } from '../../src/store/entities';
import { issueKey } from '../../src/api-keys';
import { usersById } from '../../src/teams/people';
import { scopeAllows, SCOPES, type Scope } from '../../src/teams/roles';
import { fieldError } from '../../src/problems';
import type { ApiDeps, AppContext, AppState, Caller } from '../context';
import { invalid, Problem } from '../problem';
import { bodyValidator, jsonBody } from '../validation';
import { keysetPage, page, readPaging, type Keyset } from '../paging';

/** ISO 8601 date-time with a zone (RFC 3339 §5.6 `date-time`). */
const DATE_TIME_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:\\d{2})$';

/** The request body schema of POST /v1/keys (ajv validates with it; the OpenAPI document shows it). */
export const KEY_SCHEMAS = {
  create: {
    type: 'object',
    required: ['name', 'scope'],
    additionalProperties: false,
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 100, description: 'A label to tell keys apart.' },
      scope: {
        enum: [...SCOPES],
        description:
          'What the key may do: `read` < `run` < `write` < `admin`; at most your own scope (`owner` never: 403 `scope-exceeds-role`).',
      },
      expiresAt: {
        type: 'string',
        pattern: DATE_TIME_PATTERN,
        description: 'When the key stops working (RFC 3339 date-time, in the future); absent: never.',
      },
      serviceAccount: {
        type: 'string',
        minLength: 1,
        maxLength: 100,
        pattern: '^[A-Za-z0-9][A-Za-z0-9_.@ -]*$',
        description: "A service account's name (e.g. `ci`): the key belongs to it rather than to you. Needs `admin`.",
      },
    },
  },
} as const;

/** The JSON schema of a Key answer (without the secret). */
export const KEY_SCHEMA = {
  type: 'object',
  required: [
    'id',
    'name',
    'prefix',
    'scope',
    'owner',
    'createdAt',
    'createdBy',
    'expiresAt',
    'lastUsedAt',
    'revokedAt',
  ],
  properties: {
    id: { type: 'string', pattern: '^key_' },
    name: { type: 'string' },
    prefix: { type: 'string', description: 'The first 12 characters of the key.' },
    scope: { enum: [...KEY_SCOPES] },
    owner: {
      oneOf: [
        {
          type: 'object',
          required: ['type', 'userId', 'name'],
          properties: { type: { const: 'user' }, userId: { type: 'string' }, name: { type: 'string' } },
        },
        {
          type: 'object',
          required: ['type', 'name'],
          properties: { type: { const: 'service-account' }, name: { type: 'string' } },
        },
        { type: 'object', required: ['type'], properties: { type: { const: 'workspace' } } },
      ],
    },
    createdAt: { type: 'string', format: 'date-time' },
    createdBy: { type: ['string', 'null'], description: 'A user id, a key id, or `cli`.' },
    expiresAt: { type: ['string', 'null'], format: 'date-time' },
    lastUsedAt: {
      type: ['string', 'null'],
      format: 'date-time',
      description: 'When it last authenticated a request (to the minute).',
    },
    revokedAt: { type: ['string', 'null'], format: 'date-time' },
  },
} as const;

interface KeyInput {
  name: string;
  scope: Scope;
  expiresAt?: string;
  serviceAccount?: string;
}
const validateCreate = bodyValidator<KeyInput>(KEY_SCHEMAS.create);

const ORDER: Keyset<ApiKey, 'time-id'> = {
  shape: 'time-id',
  keys: [
    { column: 'k.createdAt', of: (k) => k.createdAt.toISOString(), parse: (value) => new Date(value) },
    { column: 'k.id', of: (k) => k.id },
  ],
};

const isoOrNull = (d: Date | null | undefined) => (d ? d.toISOString() : null);

/** The JSON form of keys (file docstring), their users' names read at once. */
async function keysJson(manager: EntityManager, keys: ApiKey[]) {
  const users = await usersById(
    manager,
    keys.map((k) => k.userId).filter((id): id is string => Boolean(id)),
  );
  return keys.map((k) => ({
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    scope: k.scope,
    owner: k.userId
      ? { type: 'user' as const, userId: k.userId, name: users.get(k.userId)?.name ?? k.userId }
      : k.serviceAccount
        ? { type: 'service-account' as const, name: k.serviceAccount }
        : { type: 'workspace' as const },
    createdAt: k.createdAt.toISOString(),
    createdBy: k.createdBy,
    expiresAt: isoOrNull(k.expiresAt),
    lastUsedAt: isoOrNull(k.lastUsedAt),
    revokedAt: isoOrNull(k.revokedAt),
  }));
}

/** Whether `caller` may see and revoke `key`: an admin any key of the workspace, others their own. */
function maySee(caller: Caller, key: ApiKey): boolean {
  if (key.workspaceId !== caller.workspaceId) return false;
  if (scopeAllows(caller.scope, 'admin')) return true;
  return caller.userId ? key.userId === caller.userId : key.id === caller.keyId;
}

export function keysRouter({ dataSource }: ApiDeps): Router<AppState> {
  const router = new Router<AppState>();
  const repo = dataSource.getRepository(ApiKey);

  async function load(ctx: AppContext): Promise<ApiKey> {
    const keyId = ctx.params.keyId!;
    const key = await repo.findOneBy({ id: keyId, workspaceId: ctx.state.caller.workspaceId });
    if (!key || !maySee(ctx.state.caller, key)) throw new Problem('not-found', `API key "${keyId}" does not exist.`);
    return key;
  }

  router.get('/keys', async (ctx) => {
    const { caller } = ctx.state;
    const paging = readPaging(ctx, ORDER);
    const qb = repo.createQueryBuilder('k').where('k.workspaceId = :ws', { ws: caller.workspaceId });
    if (!scopeAllows(caller.scope, 'admin')) {
      if (caller.userId) qb.andWhere('k.userId = :userId', { userId: caller.userId });
      else qb.andWhere('k.id = :keyId', { keyId: caller.keyId });
    }
    const rows = await keysetPage(qb, paging, ORDER, (k) => k, 'DESC');
    ctx.body = page(await keysJson(dataSource.manager, rows.items), rows.nextCursor);
  });

  router.post('/keys', async (ctx) => {
    const { caller } = ctx.state;
    const input = validateCreate(jsonBody(ctx));
    let expiresAt: Date | null = null;
    if (input.expiresAt !== undefined) {
      expiresAt = new Date(input.expiresAt);
      if (Number.isNaN(expiresAt.getTime()))
        throw invalid([fieldError(['expiresAt'], 'must be an RFC 3339 date-time')]);
      if (expiresAt.getTime() <= Date.now()) throw invalid([fieldError(['expiresAt'], 'must be in the future')]);
    }
    if (input.serviceAccount !== undefined && !scopeAllows(caller.scope, 'admin'))
      throw new Problem('forbidden', "Only an admin can make a service account's key.", { scopeNeeded: 'admin' });
    if (input.serviceAccount === undefined && !caller.userId)
      throw invalid([
        fieldError(
          ['serviceAccount'],
          'is required: a key that belongs to no person can only make service account keys',
        ),
      ]);
    if (input.scope === 'owner' || !scopeAllows(caller.scope, input.scope))
      throw new Problem(
        'scope-exceeds-role',
        input.scope === 'owner'
          ? 'A key cannot have scope "owner" (keys go up to "admin").'
          : `A key cannot have scope "${input.scope}": you act with "${caller.scope}" here.`,
        { errors: [fieldError(['scope'], `must be at most ${caller.scope === 'owner' ? 'admin' : caller.scope}`)] },
      );
    const { record, key } = await issueKey(dataSource.manager, caller.workspaceId, {
      name: input.name,
      scope: input.scope,
      userId: input.serviceAccount === undefined ? caller.userId : null,
      serviceAccount: input.serviceAccount ?? null,
      createdBy: caller.userId ?? caller.keyId,
      expiresAt,
    });
    ctx.status = 201;
    ctx.set('Location', `/v1/keys/${record.id}`);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { ...(await keysJson(dataSource.manager, [record]))[0]!, key };
  });

  router.get('/keys/:keyId', async (ctx) => {
    ctx.body = (await keysJson(dataSource.manager, [await load(ctx)]))[0];
  });

  router.delete('/keys/:keyId', async (ctx) => {
    const key = await load(ctx);
    if (!key.revokedAt) await repo.update({ id: key.id }, { revokedAt: new Date() });
    ctx.status = 204;
  });

  return router;
}
