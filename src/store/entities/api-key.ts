import { Entity, PrimaryColumn, Column, Index } from 'typeorm';
import { IdColumn, TimestampColumn } from './columns';

/** Scopes of an API key, each including the ones before it: read < run < write. */
export const KEY_SCOPES = ['read', 'run', 'write'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

/** An API key. Only the SHA-256 hash of the secret is stored; `prefix` helps a user tell keys apart. */
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
}
