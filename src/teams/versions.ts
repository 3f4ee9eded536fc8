/**
 * Versions of test cases, environments, runners, designs and auth profiles (docs/teams.md
 * "Versions"): every successful create, update or restore through the API saves the resource as
 * the API answered it (api/changes.ts), numbered from 1 per resource. A test case's number is its
 * own `version` (its ETag, api/routes/test-cases.ts); the others get the highest number so far + 1.
 *
 * What a version's `body` holds: the write's answer, which is what GET answers to an admin with
 * secrets masked as GET masks them (`{"secret": true, "value": "***"}` for an environment's
 * secrets, `"***"` for an auth profile's) — never a secret, in plain text or sealed. An
 * environment's `inherited` (its parents' values) is left out: it belongs to the parents.
 */
import type { EntityManager, SelectQueryBuilder } from 'typeorm';
import { ResourceVersion, type AuditActor, type VersionedType } from '../store/entities';
import { jsonValue } from '../store/entities/columns';
import { isUniqueViolation } from '../store/errors';

/** What {@link saveVersion} stores. */
export interface VersionInput {
  workspaceId: string;
  resourceType: VersionedType;
  resourceId: string;
  name: string;
  body: Record<string, unknown>;
  savedBy: AuditActor;
  /** The version this one restores, if it is a restore. */
  restoredFrom?: number | null;
  /** The number (a test case's `version`); absent: {@link nextVersionNumber}. */
  version?: number;
  savedAt?: Date;
}

/** The highest version number of a resource + 1 (1 for none yet). */
export async function nextVersionNumber(
  manager: EntityManager,
  resourceType: VersionedType,
  resourceId: string,
): Promise<number> {
  const row = await manager
    .getRepository(ResourceVersion)
    .createQueryBuilder('v')
    .select('MAX(v.version)', 'max')
    .where('v.resourceType = :resourceType AND v.resourceId = :resourceId', { resourceType, resourceId })
    .getRawOne<{ max: number | string | null }>();
  return Number(row?.max ?? 0) + 1;
}

/**
 * Stores a version. Given a number (a test case's), an existing row of that number is replaced
 * (the same save seen twice); else the next number, tried again (up to 5 times) when a concurrent
 * save took it. Returns the stored row.
 */
export async function saveVersion(manager: EntityManager, input: VersionInput): Promise<ResourceVersion> {
  const repo = manager.getRepository(ResourceVersion);
  const row = (version: number) =>
    Object.assign(new ResourceVersion(), {
      resourceType: input.resourceType,
      resourceId: input.resourceId,
      version,
      workspaceId: input.workspaceId,
      name: input.name.slice(0, 200),
      body: input.body,
      savedAt: input.savedAt ?? new Date(),
      savedBy: input.savedBy,
      restoredFrom: input.restoredFrom ?? null,
    });
  if (input.version !== undefined) {
    const r = row(input.version);
    await repo.delete({ resourceType: r.resourceType, resourceId: r.resourceId, version: r.version });
    await repo.insert({ ...r, body: jsonValue(r.body), savedBy: jsonValue(r.savedBy) });
    return r;
  }
  for (let attempt = 0; ; attempt++) {
    const r = row(await nextVersionNumber(manager, input.resourceType, input.resourceId));
    try {
      await repo.insert({ ...r, body: jsonValue(r.body), savedBy: jsonValue(r.savedBy) });
      return r;
    } catch (err) {
      if (!isUniqueViolation(err) || attempt >= 4) throw err;
    }
  }
}

/** The versions of one resource of `workspaceId` (query builder alias `v`), unordered. */
export function versionQuery(
  manager: EntityManager,
  workspaceId: string,
  resourceType: VersionedType,
  resourceId: string,
): SelectQueryBuilder<ResourceVersion> {
  return manager
    .getRepository(ResourceVersion)
    .createQueryBuilder('v')
    .where('v.workspaceId = :workspaceId AND v.resourceType = :resourceType AND v.resourceId = :resourceId', {
      workspaceId,
      resourceType,
      resourceId,
    });
}

/** Version `version` of a resource of `workspaceId`, or null. */
export async function getVersion(
  manager: EntityManager,
  workspaceId: string,
  resourceType: VersionedType,
  resourceId: string,
  version: number,
): Promise<ResourceVersion | null> {
  return manager.getRepository(ResourceVersion).findOneBy({ workspaceId, resourceType, resourceId, version });
}

/** The highest version number saved of a resource, or null when none is. */
export async function latestVersionNumber(
  manager: EntityManager,
  resourceType: VersionedType,
  resourceId: string,
): Promise<number | null> {
  const next = await nextVersionNumber(manager, resourceType, resourceId);
  return next > 1 ? next - 1 : null;
}
