import { Entity, PrimaryColumn, Column, Index } from 'typeorm';
import { IdColumn, JsonColumn, TimestampColumn } from './columns';
import type { AuthProfileType } from '../../domain/auth-profiles';

/**
 * An authentication profile (docs/auth.md; src/domain/auth-profiles.ts), addressed by name within
 * its workspace. `config` holds the type's fields; literal secrets are sealed with the key ring
 * (AAD `assay-auth-profile:<id>:<field>`), never in plain text.
 */
@Entity('auth_profiles')
@Index('uq_auth_profiles_name', ['workspaceId', 'name'], { unique: true })
export class AuthProfile {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id!: string;

  @IdColumn()
  workspaceId!: string;

  @Column({ type: 'varchar', length: 100 })
  name!: string;

  @Column({ type: 'varchar', length: 1000, default: '' })
  description!: string;

  @Column({ type: 'varchar', length: 16 })
  type!: AuthProfileType;

  @JsonColumn()
  config!: Record<string, unknown>;

  @TimestampColumn()
  createdAt!: Date;

  @TimestampColumn()
  updatedAt!: Date;
}

/**
 * A cached OAuth 2.0 token (src/auth/token-cache.ts), shared by every run, virtual user and worker
 * process: keyed by a hash of (workspace, profile, environment, the filled configuration), the token
 * response sealed with the key ring (AAD: the key), its expiry in the clear. `leaseUntil`: a process
 * fetching a new token holds it until then, so others wait for its row rather than ask too.
 */
@Entity('auth_tokens')
export class AuthToken {
  /** sha256 hex of the cache key. */
  @PrimaryColumn({ type: 'varchar', length: 64 })
  key!: string;

  @IdColumn()
  workspaceId!: string;

  @IdColumn()
  profileId!: string;

  /** The sealed token response (`{accessToken, tokenType, refreshToken?, scope?, obtainedAt, expiresAt?}`). */
  @Column({ type: 'text', nullable: true })
  sealed!: string | null;

  /** When the access token expires; null when the endpoint gave no `expires_in`. */
  @TimestampColumn({ nullable: true })
  expiresAt!: Date | null;

  @TimestampColumn({ nullable: true })
  leaseUntil!: Date | null;

  @TimestampColumn()
  updatedAt!: Date;
}
