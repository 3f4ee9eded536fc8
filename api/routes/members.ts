/**
 * Members of the caller's workspace and their roles (docs/teams.md "Roles"); every route needs
 * scope `admin` (api/scopes.ts).
 *
 *   GET    /v1/members              list (by user id; `limit`, `cursor`)
 *   POST   /v1/members              {email, name?, role}           → 201 Member; 409 `member-exists`
 *   GET    /v1/members/{userId}                                     → Member
 *   PATCH  /v1/members/{userId}     {role: Role | null}             → Member
 *   DELETE /v1/members/{userId}                                     → 204
 *
 * Member = {userId, name, email, role (effective: the higher of directRole and groupRole),
 * directRole, groupRole, lastSignInAt, createdAt}. POST adds a person by e-mail: a user who never
 * signed in is made, and bound at their first sign-in with that verified e-mail (src/teams/people.ts).
 *
 * Owner rules: only an owner (scope `owner`) grants the owner role, changes an owner's role or
 * removes an owner (403 `forbidden`); a change that would leave a workspace that has an owner with
 * none is 409 `last-owner`. Removing a member (DELETE, or PATCH `role: null` when no group gives
 * them one) revokes their API keys in this workspace; their session loses the workspace at its next
 * request (roles are read at every request: api/auth.ts).
 */
import Router from '@koa/router';
import { IsNull, type EntityManager } from 'typeorm';
import { ApiKey, User, Workspace, WorkspaceMember } from '../../src/store/entities';
import { isUniqueViolation } from '../../src/store/errors';
import { countOwners, memberRole, provisionUser, usersById } from '../../src/teams/people';
import { ROLES, type Role } from '../../src/teams/roles';
import type { ApiDeps, AppContext, AppState } from '../context';
import { Problem } from '../problem';
import { bodyValidator, jsonBody } from '../validation';
import { keysetPage, page, readPaging, type Keyset } from '../paging';

/** Loose e-mail shape: something@something, no spaces (the identity provider is the one that verifies). */
const EMAIL_PATTERN = '^[^\\s@]+@[^\\s@]+$';

/** The request body schemas of the member endpoints (ajv validates with them; api/openapi/people-operations.ts shows them). */
export const MEMBER_SCHEMAS = {
  create: {
    type: 'object',
    required: ['email', 'role'],
    additionalProperties: false,
    properties: {
      email: { type: 'string', pattern: EMAIL_PATTERN, maxLength: 255, description: "The person's e-mail address." },
      name: { type: 'string', minLength: 1, maxLength: 200, description: 'Display name until their first sign-in.' },
      role: { enum: [...ROLES], description: 'Their direct role here.' },
    },
  },
  patch: {
    type: 'object',
    required: ['role'],
    additionalProperties: false,
    properties: {
      role: {
        enum: [...ROLES, null],
        description: 'Their direct role; null removes it (a role from their groups stays).',
      },
    },
  },
} as const;

/** The JSON schema of a Member answer. */
export const MEMBER_SCHEMA = {
  type: 'object',
  required: ['userId', 'name', 'email', 'role', 'directRole', 'groupRole', 'lastSignInAt', 'createdAt'],
  properties: {
    userId: { type: 'string', pattern: '^usr_' },
    name: { type: 'string' },
    email: { type: ['string', 'null'] },
    role: { enum: [...ROLES, null], description: 'The role they act with: the higher of directRole and groupRole.' },
    directRole: { enum: [...ROLES, null], description: 'The role an administrator gave.' },
    groupRole: {
      enum: [...ROLES, null],
      description: 'The role their identity provider groups give (ASSAY_OIDC_GROUP_ROLES), as of their last sign-in.',
    },
    lastSignInAt: { type: ['string', 'null'], format: 'date-time' },
    createdAt: { type: 'string', format: 'date-time', description: 'When they became a member.' },
  },
} as const;

const validateCreate = bodyValidator<{ email: string; name?: string; role: Role }>(MEMBER_SCHEMAS.create);
const validatePatch = bodyValidator<{ role: Role | null }>(MEMBER_SCHEMAS.patch);

/** The JSON form of a member (file docstring). */
export function memberJson(member: Pick<WorkspaceMember, 'role' | 'groupRole' | 'createdAt'>, user: User) {
  return {
    userId: user.id,
    name: user.name,
    email: user.email,
    role: user.disabledAt ? null : memberRole(member),
    directRole: member.role,
    groupRole: member.groupRole,
    lastSignInAt: user.lastSignInAt ? user.lastSignInAt.toISOString() : null,
    createdAt: member.createdAt.toISOString(),
  };
}

const ORDER: Keyset<WorkspaceMember, 'name'> = { shape: 'name', keys: [{ column: 'm.userId', of: (m) => m.userId }] };

/** 403 unless the caller is an owner. */
function requireOwner(ctx: AppContext, what: string): void {
  if (ctx.state.caller.scope !== 'owner')
    throw new Problem('forbidden', `Only an owner can ${what}.`, { scopeNeeded: 'owner' });
}

/** Revokes every active key of `userId` in `workspaceId`. */
export async function revokeMemberKeys(manager: EntityManager, workspaceId: string, userId: string): Promise<void> {
  await manager.getRepository(ApiKey).update({ workspaceId, userId, revokedAt: IsNull() }, { revokedAt: new Date() });
}

export function membersRouter({ dataSource }: ApiDeps): Router<AppState> {
  const router = new Router<AppState>();
  const repo = dataSource.getRepository(WorkspaceMember);

  /** The member row and user of `:userId` in the caller's workspace; 404 when not a member. */
  async function load(manager: EntityManager, ctx: AppContext): Promise<{ member: WorkspaceMember; user: User }> {
    const userId = ctx.params.userId!;
    const member = await manager
      .getRepository(WorkspaceMember)
      .findOneBy({ workspaceId: ctx.state.caller.workspaceId, userId });
    const user = member ? await manager.getRepository(User).findOneBy({ id: userId }) : null;
    if (!member || !user) throw new Problem('not-found', `User "${userId}" is not a member of this workspace.`);
    return { member, user };
  }

  /** 409 `last-owner` when `userId`, now an owner, would stop being one and no other owner is left. */
  /**
   * Takes the workspace's row lock (MySQL/MariaDB `SELECT … FOR UPDATE`) as the FIRST statement of
   * a transaction that may take an owner away, so that such changes of one workspace run one after
   * the other and each counts the owners the previous one left: two owners demoting each other at the
   * same instant cannot both succeed. (A locking read takes no snapshot: InnoDB makes the
   * transaction's read view at its first consistent read, after the lock.) On SQLite every write
   * transaction already runs alone (src/store/data-source.ts: they begin IMMEDIATE).
   */
  async function lockWorkspace(manager: EntityManager, workspaceId: string): Promise<void> {
    if (manager.connection.options.type === 'better-sqlite3') return;
    await manager
      .getRepository(Workspace)
      .createQueryBuilder('w')
      .setLock('pessimistic_write')
      .where('w.id = :workspaceId', { workspaceId })
      .getOne();
  }

  async function keepAnOwner(manager: EntityManager, ctx: AppContext, user: User, wasOwner: boolean, isOwner: boolean) {
    if (!wasOwner || isOwner || user.disabledAt) return;
    if ((await countOwners(manager, ctx.state.caller.workspaceId, user.id)) === 0)
      throw new Problem('last-owner', `${user.name} is the workspace's last owner; make someone else owner first.`);
  }

  router.get('/members', async (ctx) => {
    const paging = readPaging(ctx, ORDER);
    const qb = repo.createQueryBuilder('m').where('m.workspaceId = :ws', { ws: ctx.state.caller.workspaceId });
    const rows = await keysetPage(qb, paging, ORDER, (m) => m);
    const users = await usersById(
      dataSource.manager,
      rows.items.map((m) => m.userId),
    );
    ctx.body = page(
      rows.items.filter((m) => users.has(m.userId)).map((m) => memberJson(m, users.get(m.userId)!)),
      rows.nextCursor,
    );
  });

  router.post('/members', async (ctx) => {
    const input = validateCreate(jsonBody(ctx));
    if (input.role === 'owner') requireOwner(ctx, 'grant the owner role');
    const email = input.email.trim().toLowerCase();
    const add = () =>
      dataSource.transaction(async (manager) => {
        const now = new Date();
        const found = await provisionUser(manager, email, input.name);
        const members = manager.getRepository(WorkspaceMember);
        const existing = await members.findOneBy({ workspaceId: ctx.state.caller.workspaceId, userId: found.id });
        if (existing)
          throw new Problem('member-exists', `${found.name} is already a member; change their role with PATCH.`, {
            userId: found.id,
          });
        const row = members.create({
          workspaceId: ctx.state.caller.workspaceId,
          userId: found.id,
          role: input.role,
          groupRole: null,
          createdAt: now,
          updatedAt: now,
        });
        await members.insert(row);
        return { member: row, user: found };
      });
    let added: Awaited<ReturnType<typeof add>>;
    try {
      added = await add();
    } catch (err) {
      // Another request added the same person (or made the same new user) at the same instant.
      if (!isUniqueViolation(err)) throw err;
      throw new Problem('member-exists', `${email} was added by another request at the same moment.`);
    }
    const { member, user } = added;
    ctx.status = 201;
    ctx.set('Location', `/v1/members/${user.id}`);
    ctx.body = memberJson(member, user);
  });

  router.get('/members/:userId', async (ctx) => {
    const { member, user } = await load(dataSource.manager, ctx);
    ctx.body = memberJson(member, user);
  });

  router.patch('/members/:userId', async (ctx) => {
    const { role } = validatePatch(jsonBody(ctx));
    ctx.body = await dataSource.transaction(async (manager) => {
      await lockWorkspace(manager, ctx.state.caller.workspaceId);
      const { member, user } = await load(manager, ctx);
      if (member.role !== role && (member.role === 'owner' || role === 'owner'))
        requireOwner(ctx, role === 'owner' ? 'grant the owner role' : "change an owner's role");
      const wasOwner = memberRole(member) === 'owner';
      const after = { ...member, role, updatedAt: new Date() };
      await keepAnOwner(manager, ctx, user, wasOwner, memberRole(after) === 'owner');
      const members = manager.getRepository(WorkspaceMember);
      const key = { workspaceId: member.workspaceId, userId: member.userId };
      if (memberRole(after) === null) {
        await members.delete(key);
        await revokeMemberKeys(manager, member.workspaceId, member.userId);
      } else await members.update(key, { role, updatedAt: after.updatedAt });
      return memberJson(after, user);
    });
  });

  router.delete('/members/:userId', async (ctx) => {
    await dataSource.transaction(async (manager) => {
      await lockWorkspace(manager, ctx.state.caller.workspaceId);
      const { member, user } = await load(manager, ctx);
      const wasOwner = memberRole(member) === 'owner';
      if (wasOwner) requireOwner(ctx, 'remove an owner');
      await keepAnOwner(manager, ctx, user, wasOwner, false);
      await manager.getRepository(WorkspaceMember).delete({ workspaceId: member.workspaceId, userId: member.userId });
      await revokeMemberKeys(manager, member.workspaceId, member.userId);
    });
    ctx.status = 204;
  });

  return router;
}
