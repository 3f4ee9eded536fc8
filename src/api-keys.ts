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

/** What {@link issueKey} may be told about a key besides its workspace. */
export interface IssueKeyOptions {
  /** A label (default `default`). */
  name?: string;
  /** Default `write`. */
  scope?: KeyScope;
  /** The user the key belongs to (it then acts with at most the user's role: docs/teams.md "API keys"). */
  userId?: string | null;
  /** The service account the key belongs to (a name, e.g. `ci`). */
  serviceAccount?: string | null;
  /** Who made it: a user id, a key id, or `cli`. */
  createdBy?: string | null;
  /** When it stops working; null or absent: never. */
  expiresAt?: Date | null;
}

/** Issues a key in `workspaceId` and stores its hash. @returns the record and the key (shown once). */
export async function issueKey(
  manager: EntityManager,
  workspaceId: string,
  options: IssueKeyOptions = {},
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
    userId: options.userId ?? null,
    serviceAccount: options.serviceAccount ?? null,
    createdBy: options.createdBy ?? null,
    expiresAt: options.expiresAt ?? null,
    lastUsedAt: null,
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

/** Whether `key` has expired at `nowMs` (its `expiresAt` is not after it). */
export function keyExpired(key: Pick<ApiKey, 'expiresAt'>, nowMs = Date.now()): boolean {
  return key.expiresAt !== null && key.expiresAt !== undefined && key.expiresAt.getTime() <= nowMs;
}

/**
 * The key whose hash matches `key` and why it may not be used: `unknown` (no such key), `revoked`,
 * `expired` (its `expiresAt` has passed; the record is returned so the refusal can name when), or
 * null when it is usable.
 */
export async function lookupKey(
  manager: EntityManager,
  key: string,
  nowMs = Date.now(),
): Promise<{ record: ApiKey | null; refusal: 'unknown' | 'revoked' | 'expired' | null }> {
  const record = await manager.getRepository(ApiKey).findOneBy({ hash: hashKey(key) });
  if (!record) return { record: null, refusal: 'unknown' };
  if (record.revokedAt) return { record, refusal: 'revoked' };
  if (keyExpired(record, nowMs)) return { record, refusal: 'expired' };
  return { record, refusal: null };
}

/**
 * The usable key whose hash matches `key`, or null when it is unknown, revoked or expired (the
 * record carries `expiresAt`; {@link lookupKey} tells which refusal it was).
 */
export async function findKey(manager: EntityManager, key: string): Promise<ApiKey | null> {
  const { record, refusal } = await lookupKey(manager, key);
  return refusal === null ? record : null;
}

/** `lastUsedAt` is written at most this often per key, ms. */
export const KEY_USE_WRITE_MS = 60_000;
/** When this process last wrote each key's `lastUsedAt` (epoch ms); at most {@link MAX_TRACKED_KEYS}. */
const lastWrites = new Map<string, number>();
const MAX_TRACKED_KEYS = 10_000;

/**
 * Records that `key` authenticated a request now: writes `lastUsedAt` when the stored value (and
 * this process's last write) is at least {@link KEY_USE_WRITE_MS} old. Not awaited by the request:
 * the write runs in the background and a failure is dropped (the next use tries again).
 */
export function noteKeyUse(manager: EntityManager, key: Pick<ApiKey, 'id' | 'lastUsedAt'>, nowMs = Date.now()): void {
  const last = Math.max(key.lastUsedAt?.getTime() ?? 0, lastWrites.get(key.id) ?? 0);
  if (nowMs - last < KEY_USE_WRITE_MS) return;
  lastWrites.delete(key.id);
  lastWrites.set(key.id, nowMs);
  if (lastWrites.size > MAX_TRACKED_KEYS) lastWrites.delete(lastWrites.keys().next().value!);
  void manager
    .getRepository(ApiKey)
    .update({ id: key.id }, { lastUsedAt: new Date(nowMs) })
    .catch(() => lastWrites.delete(key.id));
}
