import { Entity, PrimaryColumn, Column, Index } from 'typeorm';
import { TimestampColumn } from './columns';

/** A workspace owns every other record; an API key belongs to exactly one workspace. */
@Entity('workspaces')
export class Workspace {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id!: string;

  @Index('uq_workspaces_name', { unique: true })
  @Column({ type: 'varchar', length: 100 })
  name!: string;

  @TimestampColumn()
  createdAt!: Date;
}
