/**
 * The documents of the workspace's people and trail as the API answers them (docs/teams.md "HTTP
 * shapes"): members, API keys, audit events. The actor and change shapes are those of
 * src/store/entities/audit-event.ts (written out here: that module carries TypeORM decorators the
 * console's compiler is not set up for).
 */
import type { Role, Scope } from '../session';

/** Who did something (src/store/entities/audit-event.ts `AuditActor`). */
export interface AuditActor {
  type: 'user' | 'key' | 'service-account' | 'webhook' | 'system';
  /** The user, key or deployment id. */
  id: string;
  /** What people read: the user's name or e-mail, the key's name and prefix. */
  name: string;
  /** For a key: the user it belongs to, if any. */
  userId?: string;
}

/** One changed field (src/store/entities/audit-event.ts `AuditChange`): `before` absent = added, `after` absent = removed. */
export interface AuditChange {
  path: string;
  before?: unknown;
  after?: unknown;
}

/** `GET /v1/members` items, `POST`/`PATCH /v1/members…` answers. */
export interface Member {
  userId: string;
  name: string;
  email: string;
  /** The effective role: the higher of `directRole` and `groupRole`. */
  role: Role;
  /** Given on this page (or by the API); null when the role comes only from a group. */
  directRole: Role | null;
  /** From the identity provider's groups (`ASSAY_OIDC_GROUP_ROLES`), updated at each sign-in. */
  groupRole: Role | null;
  /** ISO 8601, null before the first sign-in. */
  lastSignInAt: string | null;
  createdAt: string;
}

/** Whose a key is. */
export type KeyOwner =
  { type: 'user'; userId: string; name: string } | { type: 'service-account'; name: string } | { type: 'workspace' };

/** `GET /v1/keys` items. */
export interface ApiKeyInfo {
  id: string;
  name: string;
  /** The first characters of the key, to recognise it. */
  prefix: string;
  scope: Exclude<Scope, 'owner'>;
  owner: KeyOwner;
  createdAt: string;
  createdBy?: AuditActor | string | null;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** `POST /v1/keys` answer: the key and, once, its secret. */
export interface CreatedKey extends ApiKeyInfo {
  key: string;
}

/** `GET /v1/audit` items. */
export interface AuditEvent {
  id: string;
  /** ISO 8601. */
  at: string;
  actor: AuditActor;
  address: string | null;
  /** `<resourceType>.<verb>`: `test-case.update`, `key.revoke`… */
  action: string;
  resourceType: string;
  resourceId: string | null;
  resourceName: string | null;
  request?: unknown;
  requestId?: string | null;
  changes: AuditChange[];
}

/** The resource types of audit actions (docs/teams.md "Audit trail"), for the filter. */
export const AUDIT_RESOURCE_TYPES = [
  'test-case',
  'environment',
  'runner',
  'design',
  'auth-profile',
  'deployment',
  'folder',
  'file',
  'mock-collection',
  'run',
  'key',
  'member',
] as const;

/** Who did it, in words: the actor's name and, unless a person in the console, what they are. */
export function actorText(actor: AuditActor | undefined | null): string {
  if (!actor) return '—';
  const kind = actor.type === 'user' ? '' : ` (${actor.type === 'service-account' ? 'service account' : actor.type})`;
  return `${actor.name || actor.id}${kind}`;
}
