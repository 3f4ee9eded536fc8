import { Entity, PrimaryColumn, Column, Index } from 'typeorm';
import { IdColumn, JsonColumn, TimestampColumn } from './columns';
import type { AuditActor } from './audit-event';

/** Resources whose every save is kept as a version (docs/teams.md "Versions"). */
export const VERSIONED_TYPES = ['test-case', 'environment', 'runner', 'design', 'auth-profile'] as const;
export type VersionedType = (typeof VERSIONED_TYPES)[number];

/**
 * One saved version of a test case, environment, runner, design or auth profile (docs/teams.md
 * "Versions"): the resource as the API answered the save (what GET shows an admin: secret values
 * masked, so a version never holds a secret, plain or sealed), numbered from 1 per resource. A test
 * case's number is its `version` (its ETag).
 */
@Entity('resource_versions')
@Index('ix_resource_versions_saved', ['workspaceId', 'resourceType', 'savedAt'])
export class ResourceVersion {
  @PrimaryColumn({ type: 'varchar', length: 30 })
  resourceType!: VersionedType;

  @PrimaryColumn({ type: 'varchar', length: 40 })
  resourceId!: string;

  @PrimaryColumn({ type: 'int' })
  version!: number;

  @IdColumn()
  workspaceId!: string;

  /** The resource's name at this version. */
  @Column({ type: 'varchar', length: 200 })
  name!: string;

  @JsonColumn()
  body!: Record<string, unknown>;

  @TimestampColumn()
  savedAt!: Date;

  @JsonColumn()
  savedBy!: AuditActor;

  /** Set when this version was made by restoring an earlier one. */
  @Column({ type: 'int', nullable: true })
  restoredFrom!: number | null;
}
