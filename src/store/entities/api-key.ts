import { Entity, PrimaryColumn, Column, Index } from 'typeorm';
import { IdColumn, TimestampColumn } from './columns';

/**
 * Scopes an API key may have, each including the ones before it: read < run < write < admin
 * (src/teams/roles.ts; `owner` is a person's role only).
 */
export const KEY_SCOPES = ['read', 'run', 'write', 'admin'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

/**
 * An API key. Only the SHA-256 hash of the secret is stored; `prefix` helps a user tell keys apart.
 * A key belongs to a user (`userId`: it acts with at most that user's role, and is revoked when the
 * user leaves the workspace) or is a service account's (`serviceAccount`: a name, for CI), or, for
 * keys made before people existed and by `npm run keys`, to neither (docs/teams.md "API keys").
 */
@Entity('api_keys')
export class ApiKey {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id!: string;

  @Index('ix_api_keys_workspace')
  @IdColumn()
  workspaceId!: string;

  @Column({ type: 'varchar', length: 100 })
  name!: string;

  /** First characters of the key, safe to show. */
  @Column({ type: 'varchar', length: 16 })
  prefix!: string;

  /** Lower-case hex SHA-256 of the whole key. */
  @Index('uq_api_keys_hash', { unique: true })
  @Column({ type: 'varchar', length: 64 })
  hash!: string;

  @Column({ type: 'varchar', length: 10 })
  scope!: KeyScope;

  @TimestampColumn()
  createdAt!: Date;

  @TimestampColumn({ nullable: true })
  revokedAt!: Date | null;

  /** The user the key belongs to, or null. */
  @Index('ix_api_keys_user')
  @IdColumn({ nullable: true })
  userId!: string | null;

  /** The service account the key belongs to (a name), or null. */
  @Column({ type: 'varchar', length: 100, nullable: true })
  serviceAccount!: string | null;

  /** Who made the key: a user id, a key id, or `cli` (`npm run keys`). */
  @Column({ type: 'varchar', length: 40, nullable: true })
  createdBy!: string | null;

  /** After this instant the key is refused (401), or null: never. */
  @TimestampColumn({ nullable: true })
  expiresAt!: Date | null;

  /** Last time the key authenticated a request (written at most once a minute per key). */
  @TimestampColumn({ nullable: true })
  lastUsedAt!: Date | null;
}
