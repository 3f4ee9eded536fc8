import { Entity, PrimaryColumn, Column, Index } from 'typeorm';
import { IdColumn, JsonColumn, TimestampColumn } from './columns';
import type { Role } from '../../teams/roles';

/**
 * A person who signs into the console through OpenID Connect (docs/teams.md "People and sign-in").
 * Matched on sign-in by the identity provider's `iss` + `sub` (OpenID Connect Core 1.0 §5.7: the
 * only stable identifier); a user an administrator added by e-mail before their first sign-in has
 * no `subject` yet and is bound to the first sign-in whose verified e-mail matches.
 */
@Entity('users')
@Index('uq_users_subject', ['issuer', 'subject'], { unique: true })
export class User {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id!: string;

  /** The identity provider's issuer URL, or null until the first sign-in. */
  @Column({ type: 'varchar', length: 255, nullable: true })
  issuer!: string | null;

  /** The ID token's `sub`, or null until the first sign-in. */
  @Column({ type: 'varchar', length: 255, nullable: true })
  subject!: string | null;

  /** Lower-case e-mail address (the `email` claim), unique when set. */
  @Index('uq_users_email', { unique: true })
  @Column({ type: 'varchar', length: 255, nullable: true })
  email!: string | null;

  /** Display name (the `name` claim, else the e-mail). */
  @Column({ type: 'varchar', length: 200 })
  name!: string;

  /** The groups claim at the last sign-in (for group-mapped roles, docs/teams.md "Roles"). */
  @JsonColumn({ nullable: true })
  groups!: string[] | null;

  @TimestampColumn()
  createdAt!: Date;

  @TimestampColumn({ nullable: true })
  lastSignInAt!: Date | null;

  /** Set when an operator disabled the user: every session and key of theirs is refused. */
  @TimestampColumn({ nullable: true })
  disabledAt!: Date | null;
}

/**
 * A signed-in browser session (docs/teams.md "Sessions"): the cookie holds a random token; only its
 * SHA-256 is stored. Ends at `expiresAt` (absolute), after `ASSAY_SESSION_IDLE_MINUTES` without a
 * request (`lastSeenAt`), or at sign-out (`endedAt`).
 */
@Entity('sessions')
export class Session {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id!: string;

  /** Lower-case hex SHA-256 of the cookie's token. */
  @Index('uq_sessions_hash', { unique: true })
  @Column({ type: 'varchar', length: 64 })
  hash!: string;

  @Index('ix_sessions_user')
  @IdColumn()
  userId!: string;

  /** The CSRF token cookie-authenticated writes must echo in `X-CSRF-Token` (random, base64url). */
  @Column({ type: 'varchar', length: 64 })
  csrfToken!: string;

  /** Client address at sign-in. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  address!: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  userAgent!: string | null;

  @TimestampColumn()
  createdAt!: Date;

  @TimestampColumn()
  lastSeenAt!: Date;

  @Index('ix_sessions_expires')
  @TimestampColumn()
  expiresAt!: Date;

  @TimestampColumn({ nullable: true })
  endedAt!: Date | null;
}

/**
 * A user's role in a workspace (docs/teams.md "Roles"): `role` is the one an administrator gave
 * (null: none), `groupRole` the one the identity provider's groups claim maps to at the user's last
 * sign-in (`ASSAY_OIDC_GROUP_ROLES`; null: none). The user acts with the higher of the two; a row
 * with neither grants nothing and is removed.
 */
@Entity('workspace_members')
@Index('ix_workspace_members_user', ['userId'])
export class WorkspaceMember {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  workspaceId!: string;

  @PrimaryColumn({ type: 'varchar', length: 40 })
  userId!: string;

  @Column({ type: 'varchar', length: 10, nullable: true })
  role!: Role | null;

  @Column({ type: 'varchar', length: 10, nullable: true })
  groupRole!: Role | null;

  @TimestampColumn()
  createdAt!: Date;

  @TimestampColumn()
  updatedAt!: Date;
}
