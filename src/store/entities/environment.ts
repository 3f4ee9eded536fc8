import { Entity, PrimaryColumn, Column, Index } from 'typeorm';
import { IdColumn, JsonColumn, TimestampColumn } from './columns';
import type { Variables } from '../../domain/types';

/** A named set of variables (spec "Environment"), addressed by name within its workspace. */
@Entity('environments')
@Index('uq_environments_name', ['workspaceId', 'name'], { unique: true })
export class Environment {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id!: string;

  @IdColumn()
  workspaceId!: string;

  @Column({ type: 'varchar', length: 100 })
  name!: string;

  @Column({ type: 'varchar', length: 1000, default: '' })
  description!: string;

  @JsonColumn()
  variables!: Variables;

  /**
   * The name of the environment of the same workspace this one extends (docs/reuse.md
   * "Environments that inherit"; src/store/environments.ts), or null.
   */
  @Column({ type: 'varchar', length: 100, nullable: true })
  extends!: string | null;

  /** Servers, name → base URL (docs/reuse.md "Servers"; src/flow/servers.ts); null when none. */
  @JsonColumn({ nullable: true })
  servers!: Record<string, string> | null;

  @TimestampColumn()
  createdAt!: Date;

  @TimestampColumn()
  updatedAt!: Date;
}
