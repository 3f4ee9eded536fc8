/**
 * API keys: `assay_` followed by 32 random bytes in base64url (43 characters). Only the lower-case
 * hex SHA-256 of the whole key is stored; the first 12 characters are kept as a `prefix` so a user
 * can tell keys apart in listings. A key is shown once, when it is issued.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { ApiKey, Workspace, type KeyScope } from './store/entities';
import { newId } from './ids';

/** SHA-256 of a key, lower-case hex. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Issues a key in `workspaceId` and stores its hash. @returns the record and the key (shown once). */
export async function issueKey(
  manager: EntityManager,
  workspaceId: string,
  options: { name?: string; scope?: KeyScope } = {},
): Promise<{ record: ApiKey; key: string }> {
  const key = `assay_${randomBytes(32).toString('base64url')}`;
  const record = manager.getRepository(ApiKey).create({
    id: newId('apiKey'),
    workspaceId,
    name: options.name ?? 'default',
    prefix: key.slice(0, 12),
    hash: hashKey(key),
    scope: options.scope ?? 'write',
    createdAt: new Date(),
    revokedAt: null,
  });
  await manager.getRepository(ApiKey).insert(record);
  return { record, key };
}

/** Finds a workspace by name, creating it when absent. */
export async function ensureWorkspace(manager: EntityManager, name: string): Promise<Workspace> {
  const repo = manager.getRepository(Workspace);
  const existing = await repo.findOneBy({ name });
  if (existing) return existing;
  const workspace = repo.create({ id: newId('workspace'), name, createdAt: new Date() });
  try {
    await repo.insert(workspace);
    return workspace;
  } catch (err) {
    // Another process created it at the same moment.
    const again = await repo.findOneBy({ name });
    if (again) return again;
    throw err;
  }
}

/** The active (not revoked) key whose hash matches `key`, or null. */
export async function findKey(manager: EntityManager, key: string): Promise<ApiKey | null> {
  const record = await manager.getRepository(ApiKey).findOneBy({ hash: hashKey(key) });
  return record && !record.revokedAt ? record : null;
}
