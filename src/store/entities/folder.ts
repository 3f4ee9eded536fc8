import { Entity, PrimaryColumn, Column, Index } from 'typeorm';
import { IdColumn, JsonColumn, TimestampColumn } from './columns';
import type { ScriptConfig } from '../../domain/types';

/**
 * Settings of a folder of test cases (docs/flows.md "Hooks"), addressed by its path within its
 * workspace. They apply to every test case filed at or below the path: `hooks` run around each of
 * their API nodes, `authProfile` signs their requests unless the node or test case names another.
 */
@Entity('folders')
@Index('uq_folders_path', ['workspaceId', 'path'], { unique: true })
export class Folder {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id!: string;

  @IdColumn()
  workspaceId!: string;

  /** Slash-separated folder path as test cases have it (src/domain/folders.ts `normaliseFolder`), never ''. */
  @Column({ type: 'varchar', length: 255 })
  path!: string;

  /** A script defining `beforeRequest` and/or `afterResponse`; null when the folder has none. */
  @JsonColumn({ nullable: true })
  hooks!: ScriptConfig | null;

  /** The name of an auth profile (or `none`); null when the folder sets none. */
  @Column({ type: 'varchar', length: 100, nullable: true })
  authProfile!: string | null;

  @TimestampColumn()
  createdAt!: Date;

  @TimestampColumn()
  updatedAt!: Date;
}
