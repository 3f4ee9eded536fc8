/**
 * Workspace files (docs/api.md "Files"): what API nodes send as multipart parts and binary bodies,
 * uploaded through `PUT /v1/files/{name}` (api/routes/files.ts).
 *
 * A file is a name (unique per workspace), an id `file_<ulid>`, a content type, a size and the hex
 * SHA-256 of its content. The content is stored once per workspace and hash ({@link FileBlob}, its
 * bytes in {@link FileBlobChunk} rows of at most {@link FILE_CHUNK_BYTES}): files with the same
 * content share it, and it is deleted with the last file that has it. The workspace's quota counts
 * distinct content ({@link fileBytesInUse}).
 */
import { createHash } from 'node:crypto';
import { In, type EntityManager } from 'typeorm';
import { newId } from '../ids';
import { FILE_CHUNK_BYTES, FileBlob, FileBlobChunk, WorkspaceFile } from './entities';
import { isUniqueViolation } from './errors';

/** A stored file's metadata. */
export interface StoredFileInfo {
  /** `file_<ulid>`. */
  id: string;
  /** Unique per workspace: 1–200 characters of letters, digits, `_ . - /`. */
  name: string;
  /** The media type it was uploaded with. */
  contentType: string;
  /** Bytes. */
  size: number;
  /** Hex SHA-256 of the content (64 lowercase characters). */
  sha256: string;
  createdAt: Date;
  updatedAt: Date;
}

/** A file's metadata and bytes. */
export interface StoredFile extends StoredFileInfo {
  bytes: Buffer;
}

/** The prefix of file ids (`file_…`): a ref starting with it may be an id. */
export const FILE_ID_PREFIX = 'file_';

function infoOf(row: WorkspaceFile): StoredFileInfo {
  return {
    id: row.id,
    name: row.name,
    contentType: row.contentType,
    size: row.size,
    sha256: row.sha256,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** Hex SHA-256 of `bytes`. */
export function sha256Of(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * The content of workspace `workspaceId` with hash `sha256`, or null when it has none (its last
 * file was deleted meanwhile).
 */
export async function readContent(manager: EntityManager, workspaceId: string, sha256: string): Promise<Buffer | null> {
  const contents = await readContents(manager, workspaceId, [sha256]);
  return contents.get(sha256) ?? null;
}

/** The contents of `hashes` in a workspace, by hash; a hash without content is absent. */
async function readContents(
  manager: EntityManager,
  workspaceId: string,
  hashes: string[],
): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  if (hashes.length === 0) return out;
  const blobs = await manager.getRepository(FileBlob).findBy({ workspaceId, sha256: In(hashes) });
  for (const blob of blobs) {
    const chunks = await manager.getRepository(FileBlobChunk).find({
      where: { workspaceId, sha256: blob.sha256 },
      order: { seq: 'ASC' },
    });
    const bytes = Buffer.concat(chunks.map((c) => Buffer.from(c.bytes)));
    // A blob whose chunks are not all there (never committed so) is not content.
    if (bytes.length === blob.size) out.set(blob.sha256, bytes);
  }
  return out;
}

/**
 * The files `refs` name in workspace `workspaceId` (a ref is a file's name or its id `file_…`),
 * with their bytes; refs that name no file are absent from the map. The map's keys are the refs as
 * given. A ref that is both a file's id and another file's name is the file with that id.
 */
export async function readFiles(
  manager: EntityManager,
  workspaceId: string,
  refs: string[],
): Promise<Map<string, StoredFile>> {
  const out = new Map<string, StoredFile>();
  const wanted = [...new Set(refs.filter((r) => typeof r === 'string' && r !== ''))];
  if (wanted.length === 0) return out;
  const ids = wanted.filter((r) => r.startsWith(FILE_ID_PREFIX));
  const rows = await manager
    .getRepository(WorkspaceFile)
    .find({ where: [{ workspaceId, name: In(wanted) }, ...(ids.length ? [{ workspaceId, id: In(ids) }] : [])] });
  const byId = new Map(rows.map((r) => [r.id, r]));
  const byName = new Map(rows.map((r) => [r.name, r]));
  const contents = await readContents(manager, workspaceId, [...new Set(rows.map((r) => r.sha256))]);
  for (const ref of wanted) {
    const row = byId.get(ref) ?? byName.get(ref);
    const bytes = row && contents.get(row.sha256);
    if (row && bytes) out.set(ref, { ...infoOf(row), bytes });
  }
  return out;
}

/** The metadata of file `name` of a workspace, or null. */
export async function findFile(
  manager: EntityManager,
  workspaceId: string,
  name: string,
): Promise<StoredFileInfo | null> {
  const row = await manager.getRepository(WorkspaceFile).findOneBy({ workspaceId, name });
  return row ? infoOf(row) : null;
}

/** Bytes of distinct content a workspace's files hold (the sum of its blobs' sizes). */
export async function fileBytesInUse(manager: EntityManager, workspaceId: string): Promise<number> {
  const raw = await manager
    .getRepository(FileBlob)
    .createQueryBuilder('b')
    .select('COALESCE(SUM(b.size), 0)', 'total')
    .where('b.workspaceId = :workspaceId', { workspaceId })
    .getRawOne<{ total: string | number }>();
  return Number(raw?.total ?? 0);
}

/** Thrown by {@link putFile} when the new content would take the workspace past its quota. */
export class FileQuotaExceeded extends Error {
  constructor(
    /** ASSAY_QUOTA_FILE_BYTES. */
    readonly limit: number,
    /** Bytes of distinct content the workspace holds now. */
    readonly current: number,
    /** Bytes the upload would add. */
    readonly adding: number,
  ) {
    super(`file quota exceeded: ${current} + ${adding} > ${limit} bytes`);
  }
}

/** What {@link putFile} stores. */
export interface NewFileContent {
  name: string;
  contentType: string;
  bytes: Buffer;
}

const isMysql = (manager: EntityManager) => manager.connection.options.type !== 'better-sqlite3';

/** MySQL's deadlock (1213): InnoDB rolled the transaction back; it may be retried. */
function isDeadlock(err: unknown): boolean {
  const e = err as { code?: string; errno?: number; driverError?: { code?: string; errno?: number } };
  return (e.driverError?.code ?? e.code) === 'ER_LOCK_DEADLOCK' || (e.driverError?.errno ?? e.errno) === 1213;
}

/** Runs `work` in a transaction, again (up to 3 times in all) when a concurrent one made it collide. */
async function retried<T>(manager: EntityManager, work: (tx: EntityManager) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await manager.transaction(work);
    } catch (err) {
      if (attempt >= 3 || !(isUniqueViolation(err) || isDeadlock(err))) throw err;
    }
  }
}

/** Locks (MySQL: FOR UPDATE) and reads the blobs `hashes` of a workspace, in hash order. */
async function lockBlobs(tx: EntityManager, workspaceId: string, hashes: string[]): Promise<Map<string, FileBlob>> {
  const sorted = [...new Set(hashes)].sort();
  const qb = tx
    .getRepository(FileBlob)
    .createQueryBuilder('b')
    .where('b.workspaceId = :workspaceId AND b.sha256 IN (:...sorted)', { workspaceId, sorted })
    .orderBy('b.sha256', 'ASC');
  if (isMysql(tx)) qb.setLock('pessimistic_write');
  const rows = await qb.getMany();
  return new Map(rows.map((b) => [b.sha256, b]));
}

/** Deletes the blob `sha256` of a workspace when no file has it any more; its lock is held. */
async function dropBlobIfUnused(tx: EntityManager, workspaceId: string, sha256: string): Promise<void> {
  const users = await tx.getRepository(WorkspaceFile).countBy({ workspaceId, sha256 });
  if (users > 0) return;
  await tx.getRepository(FileBlobChunk).delete({ workspaceId, sha256 });
  await tx.getRepository(FileBlob).delete({ workspaceId, sha256 });
}

/**
 * Stores `file` as file `file.name` of a workspace: creates it, or replaces the content and content
 * type of the file of that name (keeping its id and `createdAt`). Content the workspace already
 * has is not stored again; content no file has any more is deleted. New content is refused when
 * the workspace's distinct content would then exceed `quotaBytes` (the content a replace frees is
 * counted as freed).
 * @returns the file's metadata, and whether it was created.
 * @throws FileQuotaExceeded
 */
export async function putFile(
  manager: EntityManager,
  workspaceId: string,
  file: NewFileContent,
  quotaBytes: number,
): Promise<{ file: StoredFileInfo; created: boolean }> {
  const sha256 = sha256Of(file.bytes);
  const size = file.bytes.length;
  return retried(manager, async (tx) => {
    const files = tx.getRepository(WorkspaceFile);
    const fq = files
      .createQueryBuilder('f')
      .where('f.workspaceId = :workspaceId AND f.name = :name', { workspaceId, name: file.name });
    if (isMysql(tx)) fq.setLock('pessimistic_write');
    const found = await fq.getOne();
    const oldSha = found && found.sha256 !== sha256 ? found.sha256 : null;
    const blobs = await lockBlobs(tx, workspaceId, oldSha ? [sha256, oldSha] : [sha256]);
    if (!blobs.has(sha256)) {
      const current = await fileBytesInUse(tx, workspaceId);
      const oldBlob = oldSha ? blobs.get(oldSha) : undefined;
      const freed = oldBlob && (await files.countBy({ workspaceId, sha256: oldBlob.sha256 })) === 1 ? oldBlob.size : 0;
      if (current - freed + size > quotaBytes) throw new FileQuotaExceeded(quotaBytes, current, size);
      await tx.getRepository(FileBlob).insert({ workspaceId, sha256, size, createdAt: new Date() });
      const chunks: FileBlobChunk[] = [];
      for (let seq = 0; seq * FILE_CHUNK_BYTES < size || seq === 0; seq++) {
        const bytes = file.bytes.subarray(seq * FILE_CHUNK_BYTES, (seq + 1) * FILE_CHUNK_BYTES);
        chunks.push(tx.getRepository(FileBlobChunk).create({ workspaceId, sha256, seq, bytes }));
      }
      // About 1 MiB a statement: far under any server's packet limit.
      for (let i = 0; i < chunks.length; i += 16) await tx.getRepository(FileBlobChunk).insert(chunks.slice(i, i + 16));
    }
    const now = new Date();
    if (found) {
      found.contentType = file.contentType;
      found.size = size;
      found.sha256 = sha256;
      found.updatedAt = now;
      await files.update({ id: found.id }, { contentType: found.contentType, size, sha256, updatedAt: now });
      if (oldSha) await dropBlobIfUnused(tx, workspaceId, oldSha);
      return { file: infoOf(found), created: false };
    }
    const row = files.create({
      id: newId('file'),
      workspaceId,
      name: file.name,
      contentType: file.contentType,
      size,
      sha256,
      createdAt: now,
      updatedAt: now,
    });
    await files.insert(row);
    return { file: infoOf(row), created: true };
  });
}

/**
 * Deletes file `name` of a workspace, and its content when no other file of the workspace has it.
 * @returns false when the workspace has no file of that name.
 */
export async function deleteFile(manager: EntityManager, workspaceId: string, name: string): Promise<boolean> {
  return retried(manager, async (tx) => {
    const fq = tx
      .getRepository(WorkspaceFile)
      .createQueryBuilder('f')
      .where('f.workspaceId = :workspaceId AND f.name = :name', { workspaceId, name });
    if (isMysql(tx)) fq.setLock('pessimistic_write');
    const found = await fq.getOne();
    if (!found) return false;
    await lockBlobs(tx, workspaceId, [found.sha256]);
    await tx.getRepository(WorkspaceFile).delete({ id: found.id });
    await dropBlobIfUnused(tx, workspaceId, found.sha256);
    return true;
  });
}
