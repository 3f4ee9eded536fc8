/**
 * The audit trail (docs/teams.md "Audit trail"): one {@link AuditEvent} per change a workspace's
 * callers made through the API (api/changes.ts records them) or a deployment's incoming webhook
 * (api/routes/incoming-webhooks.ts), kept `ASSAY_AUDIT_RETENTION_DAYS` (config
 * `teams.auditRetentionDays`; 0 keeps them for ever) and deleted by the retention sweep
 * (src/store/retention.ts).
 *
 * Reading: {@link auditQuery} (filters, for a keyset page newest first: index ix_audit_workspace_at)
 * and {@link exportAudit} (every matching event, oldest first, one page of rows at a time so the
 * memory an export needs stays bounded whatever its size).
 */
import { Counter } from 'prom-client';
import { In, LessThan, type DataSource, type EntityManager, type SelectQueryBuilder } from 'typeorm';
import { newId } from '../ids';
import { AuditEvent, type AuditActor, type AuditChange } from '../store/entities';
import { jsonValue } from '../store/entities/columns';
import { registry } from '../observability/metrics';

/** `assay_audit_write_failures_total`: audit events that could not be stored (the change itself was answered). */
export const auditWriteFailures = new Counter({
  name: 'assay_audit_write_failures_total',
  help: 'Audit trail events that could not be stored (the change they describe was made and answered; the failure is logged).',
  registers: [registry],
});

/** An event to record: {@link AuditEvent} without its id; `at` defaults to now. */
export interface AuditEventInput {
  workspaceId: string;
  actor: AuditActor;
  /** `<resourceType>.<verb>`, e.g. `test-case.update`. */
  action: string;
  resourceType: string;
  resourceId?: string | null;
  resourceName?: string | null;
  address?: string | null;
  /** `METHOD path` of the request that made the change. */
  request?: string | null;
  requestId?: string | null;
  /** The change (src/teams/diff.ts `jsonDiff`), secret values masked; empty when the action has no body. */
  changes?: AuditChange[];
  at?: Date;
}

/** Cuts `value` to the column's length (`max` characters), or null. */
function cut(value: string | null | undefined, max: number): string | null {
  if (value === null || value === undefined) return null;
  return value.length > max ? value.slice(0, max) : value;
}

/**
 * Stores one audit event in `manager`'s transaction (or on its own) and returns it. Strings longer
 * than their columns are cut (resource name 200, request 300, address 64 characters). The caller
 * decides what a failure means (api/changes.ts logs and counts it; the change stands).
 */
export async function recordAudit(manager: EntityManager, event: AuditEventInput): Promise<AuditEvent> {
  const row = Object.assign(new AuditEvent(), {
    id: newId('audit'),
    workspaceId: event.workspaceId,
    at: event.at ?? new Date(),
    actor: event.actor,
    address: cut(event.address, 64),
    action: cut(event.action, 60)!,
    resourceType: cut(event.resourceType, 30)!,
    resourceId: cut(event.resourceId, 200),
    resourceName: cut(event.resourceName, 200),
    request: cut(event.request, 300),
    requestId: cut(event.requestId, 128),
    changes: event.changes ?? [],
  });
  await manager
    .getRepository(AuditEvent)
    .insert({ ...row, actor: jsonValue(row.actor), changes: jsonValue(row.changes) });
  return row;
}

/** Filters of a listing or an export; each absent one selects everything. `until` is exclusive, `since` inclusive. */
export interface AuditFilters {
  action?: string;
  resourceType?: string;
  resourceId?: string;
  /** The actor's id (`usr_…`, `key_…`, a deployment id for its webhook). */
  actorId?: string;
  since?: Date;
  until?: Date;
}

/** The SQL of the actor's `id` inside the JSON column `actor`, per dialect. */
function actorIdSql(manager: EntityManager, alias: string): string {
  const type = manager.connection.options.type;
  return type === 'mysql' || type === 'mariadb'
    ? `JSON_UNQUOTE(JSON_EXTRACT(${alias}.actor, '$.id'))`
    : `json_extract(${alias}.actor, '$.id')`;
}

/** The events of `workspaceId` that match `filters` (query builder alias `a`), unordered. */
export function auditQuery(
  manager: EntityManager,
  workspaceId: string,
  filters: AuditFilters,
): SelectQueryBuilder<AuditEvent> {
  const qb = manager.getRepository(AuditEvent).createQueryBuilder('a').where('a.workspaceId = :workspaceId', {
    workspaceId,
  });
  if (filters.action !== undefined) qb.andWhere('a.action = :action', { action: filters.action });
  if (filters.resourceType !== undefined)
    qb.andWhere('a.resourceType = :resourceType', { resourceType: filters.resourceType });
  if (filters.resourceId !== undefined) qb.andWhere('a.resourceId = :resourceId', { resourceId: filters.resourceId });
  if (filters.actorId !== undefined)
    qb.andWhere(`${actorIdSql(manager, 'a')} = :actorId`, { actorId: filters.actorId });
  if (filters.since !== undefined) qb.andWhere('a.at >= :since', { since: filters.since });
  if (filters.until !== undefined) qb.andWhere('a.at < :until', { until: filters.until });
  return qb;
}

/** The JSON form of an event (docs/teams.md "Audit trail"). */
export function auditEventJson(e: AuditEvent) {
  return {
    id: e.id,
    at: e.at.toISOString(),
    actor: e.actor,
    address: e.address,
    action: e.action,
    resourceType: e.resourceType,
    resourceId: e.resourceId,
    resourceName: e.resourceName,
    request: e.request,
    requestId: e.requestId,
    changes: e.changes ?? [],
  };
}

/** Rows an export reads at a time. */
export const EXPORT_PAGE_SIZE = 500;

/**
 * Every event of `workspaceId` matching `filters`, oldest first (by `at`, then id), as pages of at
 * most `pageSize` rows read one after another with a keyset (never OFFSET): the caller writes a page
 * out before the next is read, so memory stays bounded by one page.
 */
export async function* exportAudit(
  manager: EntityManager,
  workspaceId: string,
  filters: AuditFilters,
  pageSize = EXPORT_PAGE_SIZE,
): AsyncGenerator<AuditEvent[]> {
  let after: { at: Date; id: string } | undefined;
  for (;;) {
    const qb = auditQuery(manager, workspaceId, filters);
    if (after)
      qb.andWhere('(a.at > :afterAt OR (a.at = :afterAt AND a.id > :afterId))', {
        afterAt: after.at,
        afterId: after.id,
      });
    const rows = await qb.orderBy('a.at', 'ASC').addOrderBy('a.id', 'ASC').take(pageSize).getMany();
    if (rows.length === 0) return;
    yield rows;
    if (rows.length < pageSize) return;
    const last = rows[rows.length - 1]!;
    after = { at: last.at, id: last.id };
  }
}

/** Events deleted per statement by {@link sweepExpiredAudit}. */
export const AUDIT_SWEEP_BATCH = 1000;

/**
 * Deletes audit events (of every workspace) older than `cutoff`, oldest first, in batches of
 * `batchSize` (index ix_audit_at), at most `maxBatches`; `shouldStop` is asked between batches.
 * Returns how many went.
 */
export async function sweepExpiredAudit(
  dataSource: DataSource,
  cutoff: Date,
  options: { batchSize?: number; maxBatches?: number; shouldStop?: () => boolean } = {},
): Promise<number> {
  const batchSize = options.batchSize ?? AUDIT_SWEEP_BATCH;
  const maxBatches = options.maxBatches ?? 100;
  const repo = dataSource.getRepository(AuditEvent);
  let deleted = 0;
  for (let batch = 0; batch < maxBatches && !options.shouldStop?.(); batch++) {
    const ids = (
      await repo.find({ select: { id: true }, where: { at: LessThan(cutoff) }, order: { at: 'ASC' }, take: batchSize })
    ).map((e) => e.id);
    if (ids.length === 0) break;
    const result = await repo.delete({ id: In(ids) });
    deleted += result.affected ?? ids.length;
    if (ids.length < batchSize) break;
  }
  return deleted;
}
