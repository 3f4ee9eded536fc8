import { Entity, PrimaryColumn, Column, Index } from 'typeorm';
import { IdColumn, JsonColumn, TimestampColumn } from './columns';

/**
 * A data collection of a workspace's mocks (docs/mocks.md "State"; Mockoon's data buckets): named
 * records that state responses read and write and, with a `basePath`, CRUD routes generated over
 * them. The seed is kept as records of the reserved scope `~seed` (src/mock/state.ts), so that a
 * scope starts from it with one INSERT…SELECT.
 */
@Entity('mock_collections')
@Index('uq_mock_collections_name', ['workspaceId', 'name'], { unique: true })
@Index('uq_mock_collections_base', ['workspaceId', 'basePath'], { unique: true })
export class MockCollection {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id!: string;

  @IdColumn()
  workspaceId!: string;

  /** `^[a-z][a-z0-9_-]{0,62}$`, unique per workspace: what state responses name. */
  @Column({ type: 'varchar', length: 63 })
  name!: string;

  /** `/users`: the generated CRUD routes' base; null: none. Unique per workspace. */
  @Column({ type: 'varchar', length: 200, nullable: true })
  basePath!: string | null;

  /** The records' id field (top level), default `id`. */
  @Column({ type: 'varchar', length: 100, default: 'id' })
  idField!: string;

  /** Where the seed was sampled from (`{designId, status?, count}`); null when given as records. */
  @JsonColumn({ nullable: true })
  seedFrom!: { designId: string; status?: number; count: number } | null;

  /** Records in the seed. */
  @Column({ type: 'int', default: 0 })
  seedCount!: number;

  @TimestampColumn()
  createdAt!: Date;

  @TimestampColumn()
  updatedAt!: Date;
}

/**
 * One record of a collection within a scope (`''`: the shared state; `~seed`: the seed; else a
 * run's or a user's scope). `seq` keeps insertion order; `intId` is the id when it is an integer
 * (the next generated id is its maximum + 1).
 */
@Entity('mock_records')
@Index('ix_mock_records_order', ['collectionId', 'scope', 'seq'])
export class MockRecord {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  collectionId!: string;

  @PrimaryColumn({ type: 'varchar', length: 100 })
  scope!: string;

  @PrimaryColumn({ type: 'varchar', length: 200 })
  recordId!: string;

  @Column({ type: 'bigint' })
  seq!: string;

  @Column({ type: 'bigint', nullable: true })
  intId!: string | null;

  @JsonColumn()
  data!: object;
}

/**
 * A scope of a collection that has started (its seed copied in), with when it was last used: scopes
 * unused for `ASSAY_MOCK_SCOPE_TTL_SECONDS` are deleted by the sweep, a run's when the run ends.
 */
@Entity('mock_scopes')
@Index('ix_mock_scopes_workspace', ['workspaceId', 'scope'])
@Index('ix_mock_scopes_used', ['usedAt'])
export class MockScope {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  collectionId!: string;

  @PrimaryColumn({ type: 'varchar', length: 100 })
  scope!: string;

  @IdColumn()
  workspaceId!: string;

  @TimestampColumn()
  createdAt!: Date;

  @TimestampColumn()
  usedAt!: Date;
}
