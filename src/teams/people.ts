/**
 * People and their roles (docs/teams.md "People and sign-in", "Roles"): the user a sign-in is,
 * the roles the identity provider's groups give them, and what a user may do in a workspace.
 *
 * A user is matched on sign-in by `iss` + `sub` (OpenID Connect Core 1.0 §5.7: the only stable
 * identifier). A user an administrator added by e-mail (POST /v1/members) has no subject yet and is
 * bound to the first sign-in whose e-mail is the same AND verified (`email_verified`, OpenID Connect
 * Core 1.0 §5.1); an unverified e-mail is never stored nor matched, so nobody can claim another
 * person's invitation by typing their address at a provider that does not check it.
 */
import { randomBytes } from 'node:crypto';
import { In, IsNull, type EntityManager } from 'typeorm';
import { User, Workspace, WorkspaceMember } from '../store/entities';
import { ensureWorkspace } from '../api-keys';
import { newId } from '../ids';
import type { GroupRole } from '../config';
import { higherRole, ROLES, type Role } from './roles';
import type { OidcIdentity } from './oidc';

/** A new user id: `usr_` and a ULID (src/ids.ts style). */
export function newUserId(): string {
  return newId('user');
}

/** A new session id: `ses_` and a ULID. */
export function newSessionId(): string {
  return newId('session');
}

/** A random token: `bytes` random bytes in base64url. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** A role from a workspace member row: the higher of its direct and group role, null when neither. */
export function memberRole(member: Pick<WorkspaceMember, 'role' | 'groupRole'> | null | undefined): Role | null {
  return member ? higherRole(member.role, member.groupRole) : null;
}

/**
 * The user a sign-in is, made or updated (rule in the file's docstring), inside `manager`'s
 * transaction: the same `iss`+`sub`; else the pre-provisioned user (no subject) whose e-mail is the
 * verified `email`; else a new user. Name, groups and `lastSignInAt` are refreshed; the e-mail is
 * taken only when verified and no other user has it. A disabled user is returned as is (the caller
 * refuses the sign-in).
 */
export async function upsertSignedInUser(
  manager: EntityManager,
  identity: OidcIdentity,
  now = new Date(),
): Promise<User> {
  const repo = manager.getRepository(User);
  const verifiedEmail = identity.emailVerified ? identity.email : null;
  let user = await repo.findOneBy({ issuer: identity.issuer, subject: identity.subject });
  if (!user && verifiedEmail) {
    const invited = await repo.findOneBy({ email: verifiedEmail, subject: IsNull() });
    if (invited) {
      invited.issuer = identity.issuer;
      invited.subject = identity.subject;
      user = invited;
    }
  }
  const emailFree = async (id: string | null) => {
    if (!verifiedEmail) return false;
    const holder = await repo.findOneBy({ email: verifiedEmail });
    return !holder || holder.id === id;
  };
  if (!user) {
    user = repo.create({
      id: newUserId(),
      issuer: identity.issuer,
      subject: identity.subject,
      email: (await emailFree(null)) ? verifiedEmail : null,
      name: identity.name ?? verifiedEmail ?? identity.subject,
      groups: identity.groups,
      createdAt: now,
      lastSignInAt: now,
      disabledAt: null,
    });
    await repo.insert(user);
    return user;
  }
  if (user.disabledAt) return user;
  if (verifiedEmail && verifiedEmail !== user.email && (await emailFree(user.id))) user.email = verifiedEmail;
  user.name = identity.name ?? user.name;
  user.groups = identity.groups;
  user.lastSignInAt = now;
  await repo.save(user);
  return user;
}

/**
 * Applies `ASSAY_OIDC_GROUP_ROLES` to a user's groups (docs/teams.md "Roles"): for each workspace a
 * mapping of one of `groups` names, the member row's `groupRole` becomes the highest role mapped
 * there (the workspace is created when it does not exist yet); every other row of the user loses
 * its `groupRole`; a row left with neither role is deleted. Direct roles are never touched.
 */
export async function applyGroupRoles(
  manager: EntityManager,
  userId: string,
  groups: readonly string[],
  mappings: readonly GroupRole[],
  now = new Date(),
): Promise<void> {
  const wanted = new Map<string, Role>();
  const mine = new Set(groups);
  for (const m of mappings) {
    if (!mine.has(m.group)) continue;
    wanted.set(m.workspace, higherRole(wanted.get(m.workspace), m.role)!);
  }
  const repo = manager.getRepository(WorkspaceMember);
  const rows = await repo.findBy({ userId });
  const byWorkspace = new Map(rows.map((r) => [r.workspaceId, r]));
  const mapped = new Set<string>();
  for (const [name, role] of wanted) {
    const workspace = await ensureWorkspace(manager, name);
    mapped.add(workspace.id);
    const row = byWorkspace.get(workspace.id);
    if (!row) {
      await repo.insert({
        workspaceId: workspace.id,
        userId,
        role: null,
        groupRole: role,
        createdAt: now,
        updatedAt: now,
      });
    } else if (row.groupRole !== role) {
      await repo.update({ workspaceId: workspace.id, userId }, { groupRole: role, updatedAt: now });
    }
  }
  for (const row of rows) {
    if (mapped.has(row.workspaceId) || row.groupRole === null) continue;
    if (row.role === null) await repo.delete({ workspaceId: row.workspaceId, userId });
    else await repo.update({ workspaceId: row.workspaceId, userId }, { groupRole: null, updatedAt: now });
  }
}

/**
 * The role `userId` acts with in `workspaceId`: the higher of the direct and the group role, or
 * null when they have neither, or the user does not exist or is disabled.
 */
export async function effectiveRole(manager: EntityManager, userId: string, workspaceId: string): Promise<Role | null> {
  const [user, member] = await Promise.all([
    manager.getRepository(User).findOne({ select: { id: true, disabledAt: true }, where: { id: userId } }),
    manager.getRepository(WorkspaceMember).findOneBy({ workspaceId, userId }),
  ]);
  if (!user || user.disabledAt) return null;
  return memberRole(member);
}

/** A workspace a user has a role in. */
export interface UserWorkspace {
  id: string;
  name: string;
  createdAt: Date;
  role: Role;
}

/** Every workspace `user` has a role in, by name; none when the user is disabled. */
export async function userWorkspaces(
  manager: EntityManager,
  user: Pick<User, 'id' | 'disabledAt'>,
): Promise<UserWorkspace[]> {
  if (user.disabledAt) return [];
  const rows = await manager.getRepository(WorkspaceMember).findBy({ userId: user.id });
  const roles = new Map<string, Role>();
  for (const row of rows) {
    const role = memberRole(row);
    if (role) roles.set(row.workspaceId, role);
  }
  if (roles.size === 0) return [];
  const workspaces = await manager.getRepository(Workspace).findBy({ id: In([...roles.keys()]) });
  return workspaces
    .map((w) => ({ id: w.id, name: w.name, createdAt: w.createdAt, role: roles.get(w.id)! }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * How many enabled users are owners (directly or through a group) of `workspaceId`, optionally
 * not counting `exceptUserId`.
 */
export async function countOwners(manager: EntityManager, workspaceId: string, exceptUserId?: string): Promise<number> {
  const rows = await manager
    .getRepository(WorkspaceMember)
    .createQueryBuilder('m')
    .innerJoin(User, 'u', 'u.id = m.userId')
    .where('m.workspaceId = :workspaceId', { workspaceId })
    .andWhere('u.disabledAt IS NULL')
    .andWhere('(m.role = :owner OR m.groupRole = :owner)', { owner: 'owner' })
    .select('m.userId', 'userId')
    .getRawMany<{ userId: string }>();
  return rows.filter((r) => r.userId !== exceptUserId).length;
}

/** True when `value` is a role name. */
export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** Users by id (for listings), only those that exist. */
export async function usersById(manager: EntityManager, ids: readonly string[]): Promise<Map<string, User>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const users = await manager.getRepository(User).findBy({ id: In(unique) });
  return new Map(users.map((u) => [u.id, u]));
}

/**
 * The user with lower-case e-mail `email`, created when there is none (docs/teams.md "Bootstrapping
 * the first admin", `POST /v1/members`): not signed in yet (no issuer or subject), named `name` or
 * the e-mail; their first sign-in whose verified e-mail matches binds them ({@link upsertSignedInUser}).
 */
export async function provisionUser(manager: EntityManager, email: string, name?: string): Promise<User> {
  const users = manager.getRepository(User);
  const found = await users.findOneBy({ email });
  if (found) return found;
  const user = users.create({
    id: newUserId(),
    issuer: null,
    subject: null,
    email,
    name: name ?? email,
    groups: null,
    createdAt: new Date(),
    lastSignInAt: null,
    disabledAt: null,
  });
  await users.insert(user);
  return user;
}
