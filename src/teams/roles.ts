/**
 * Roles and scopes (docs/teams.md "Roles", docs/security.md "Scopes per endpoint").
 *
 * A scope is what a caller may do, ordered: `read` (GET) < `run` (+ start, cancel and steer runs) <
 * `write` (+ change test cases, environments, runners, designs…) < `admin` (+ keys, members, the
 * audit trail) < `owner` (+ grant or take the owner role). The first three are the spec's API key
 * scopes (spec "Authentication"); `admin` and `owner` are Assay's.
 *
 * A role is what a person is in a workspace, and allows exactly one scope: viewer → read, runner →
 * run, editor → write, admin → admin, owner → owner. An API key has a scope up to `admin`; a key
 * that belongs to a user acts with the lower of its scope and the user's current role's scope.
 */

/** Scopes, lowest first; each includes the ones before it. */
export const SCOPES = ['read', 'run', 'write', 'admin', 'owner'] as const;
export type Scope = (typeof SCOPES)[number];

/** Roles, lowest first. */
export const ROLES = ['viewer', 'runner', 'editor', 'admin', 'owner'] as const;
export type Role = (typeof ROLES)[number];

/** The scope each role allows. */
export const ROLE_SCOPES: Readonly<Record<Role, Scope>> = {
  viewer: 'read',
  runner: 'run',
  editor: 'write',
  admin: 'admin',
  owner: 'owner',
};

/** True when scope `have` includes `needed`. */
export function scopeAllows(have: Scope, needed: Scope): boolean {
  return SCOPES.indexOf(have) >= SCOPES.indexOf(needed);
}

/** The lower of two scopes. */
export function lowerScope(a: Scope, b: Scope): Scope {
  return SCOPES.indexOf(a) <= SCOPES.indexOf(b) ? a : b;
}

/** The higher of two roles, either possibly null (null when both are). */
export function higherRole(a: Role | null | undefined, b: Role | null | undefined): Role | null {
  if (!a) return b ?? null;
  if (!b) return a;
  return ROLES.indexOf(a) >= ROLES.indexOf(b) ? a : b;
}

/** The role whose scope is `scope` (`read` → viewer …). */
export function roleOfScope(scope: Scope): Role {
  return ROLES[SCOPES.indexOf(scope)]!;
}
