import { Entity, PrimaryColumn, Column, Index } from 'typeorm';
import { IdColumn, JsonColumn, TimestampColumn } from './columns';

/** Who did something (docs/teams.md "Audit trail"). */
export interface AuditActor {
  /** `user` (a console session), `key` (a user's API key), `service-account` (a service account's key), `webhook` (a deployment's incoming webhook), `system`. */
  type: 'user' | 'key' | 'service-account' | 'webhook' | 'system';
  /** The user, key or deployment id. */
  id: string;
  /** What people read: the user's name or e-mail, the key's name and prefix. */
  name: string;
  /** For a key: the user it belongs to, if any. */
  userId?: string;
}

/** One field that changed: its JSON Pointer (RFC 6901) path, the value before and after (absent when added or removed); secret values masked. */
export interface AuditChange {
  path: string;
  before?: unknown;
  after?: unknown;
}

/**
 * One change recorded in the audit trail (docs/teams.md "Audit trail"): who, when, from where, what
 * resource, and the change as a field diff with secret values masked. Kept
 * `ASSAY_AUDIT_RETENTION_DAYS` (src/store/retention.ts).
 */
@Entity('audit_events')
@Index('ix_audit_workspace_at', ['workspaceId', 'at', 'id'])
@Index('ix_audit_resource', ['workspaceId', 'resourceType', 'resourceId', 'at'])
@Index('ix_audit_at', ['at'])
export class AuditEvent {
  /** ULID-based id (`aud_…`): sorts by time. */
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id!: string;

  @IdColumn()
  workspaceId!: string;

  @TimestampColumn()
  at!: Date;

  @JsonColumn()
  actor!: AuditActor;

  /** The client's address (the TCP peer, or X-Forwarded-For behind a trusted proxy). */
  @Column({ type: 'varchar', length: 64, nullable: true })
  address!: string | null;

  /** `<resourceType>.<verb>`: `test-case.update`, `run.start`, `key.revoke`, `member.remove`… */
  @Column({ type: 'varchar', length: 60 })
  action!: string;

  @Column({ type: 'varchar', length: 30 })
  resourceType!: string;

  @Column({ type: 'varchar', length: 200, nullable: true })
  resourceId!: string | null;

  @Column({ type: 'varchar', length: 200, nullable: true })
  resourceName!: string | null;

  /** The HTTP request that made the change (`METHOD path`) and its request id. */
  @Column({ type: 'varchar', length: 300, nullable: true })
  request!: string | null;

  @Column({ type: 'varchar', length: 128, nullable: true })
  requestId!: string | null;

  /** The change; empty for actions without a body (a run cancelled). At most 1,000 entries. */
  @JsonColumn()
  changes!: AuditChange[];
}
