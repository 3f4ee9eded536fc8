/**
 * Files in requests (docs/flows.md "Files"): what an API or Poll node's `multipart` and `file`
 * name, read from the workspace's files (src/store/files.ts `readFiles`) and turned into the bytes
 * sent.
 *
 * - {@link FileCache}: the files read, cached per process by (scope, workspace, ref), the scope
 *   being a run (functional runs, `testCase` segments) or a load shard. A ref is read from the store
 *   once per scope: a load shard reads each file once, not once per request; several requests asking
 *   for the same ref at once share one read. A ref naming no file is remembered as missing for the
 *   scope too. A scope is released when its run ends ({@link FileCache.release}), or dropped after
 *   {@link FILE_SCOPE_IDLE_MS} without use (the run ended on another worker).
 * - {@link prepareUpload}: the request's body built up front (so `Content-Length` is known and
 *   retries, redirects and auth signatures see the same bytes): `multipart/form-data` encoded by the
 *   platform's encoder (WHATWG `FormData` through a `Request`, undici), or the file's bytes as they
 *   are; with the metadata results show ({@link SentFiles}: names, sizes, SHA-256s, never content).
 *
 * The workflow never sees the bytes: it fills templates and passes refs (src/flow/api-node.ts);
 * only the activities (activities/nodes.ts, through the direct port too) read files.
 */
import { createHash } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import type { FileBody, MultipartPart, ResolvedRequest, SentFile, SentFiles, SentPart } from '../src/domain/types';
import { readFiles as readStoredFiles } from '../src/store/files';

/** The stable error code of a request naming a file the workspace does not have. */
export const FILE_NOT_FOUND = 'FILE_NOT_FOUND';

/** Milliseconds a cache scope is kept without use before it is dropped. */
export const FILE_SCOPE_IDLE_MS = 10 * 60_000;

/** Type given to a part or a body whose file has none. */
export const OCTET_STREAM = 'application/octet-stream';

/** A workspace file as requests send it (StoredFile's fields the sender uses, `sha256` hex). */
export interface FileBytes {
  id: string;
  /** Its name in the workspace (`fixtures/avatar.png`). */
  name: string;
  /** Its stored Content-Type; empty or absent when it has none. */
  contentType?: string;
  /** Bytes. */
  size: number;
  /** Hex SHA-256 of `bytes`. */
  sha256: string;
  bytes: Buffer;
}

/** Reads files of a workspace by ref (name or id): those found, by ref; refs naming none are absent. */
export type FileReader = (workspaceId: string, refs: string[]) => Promise<Map<string, FileBytes>>;

/** Where the node activity gets files: {@link FileCache}, or anything alike (tests). */
export interface FileSource {
  /**
   * The files `refs` name in `workspaceId`, by ref (refs naming none are absent), as of the first
   * read in `scope` (a run or a load shard id).
   * @throws the store's error when it cannot be read (the activity fails and is retried)
   */
  read(scope: string, workspaceId: string, refs: string[]): Promise<Map<string, FileBytes>>;
}

/** Calls of the store's `readFiles` made by this process's {@link storeFileReader}s (a test hook). */
let storeReads = 0;

/** How many times this process read files from the store ({@link storeFileReader}); tests compare it before and after. */
export function fileStoreReads(): number {
  return storeReads;
}

/** A StoredFile as requests send it: its hash computed from the bytes (hex), whatever the store keeps. */
export function fileBytes(file: { id: string; name: string; contentType?: string | null; bytes: Buffer }): FileBytes {
  const bytes = Buffer.isBuffer(file.bytes) ? file.bytes : Buffer.from(file.bytes);
  return {
    id: file.id,
    name: file.name,
    ...(file.contentType ? { contentType: file.contentType } : {}),
    size: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    bytes,
  };
}

/**
 * A {@link FileReader} over the store (src/store/files.ts `readFiles`), one call per read, counted
 * by {@link fileStoreReads}. `dataSource`: the store, or how to open it (a load thread connects
 * only when it must).
 */
export function storeFileReader(
  dataSource: DataSource | (() => Promise<DataSource>),
  read: (
    manager: EntityManager,
    workspaceId: string,
    refs: string[],
  ) => Promise<Map<string, StoredLike>> = readStoredFiles,
): FileReader {
  return async (workspaceId, refs) => {
    const ds = typeof dataSource === 'function' ? await dataSource() : dataSource;
    storeReads += 1;
    const found = await read(ds.manager, workspaceId, refs);
    return new Map([...found].map(([ref, file]) => [ref, fileBytes(file)]));
  };
}

/** What a store read gives per file (src/store/files.ts `StoredFile`, the fields used here). */
type StoredLike = { id: string; name: string; contentType?: string | null; bytes: Buffer };

/** A file as the cache keeps it: found, or known missing. */
type Entry = Promise<FileBytes | null>;

/**
 * Files read per scope (see the module comment). `maxBytes`: bytes of files kept in all scopes
 * together (default 256 MiB); a file past it is read again when asked for again.
 */
export class FileCache implements FileSource {
  private readonly scopes = new Map<string, { used: number; entries: Map<string, Entry> }>();
  private bytes = 0;

  constructor(
    private readonly reader: FileReader,
    private readonly maxBytes = 256 * 1024 * 1024,
  ) {}

  async read(scope: string, workspaceId: string, refs: string[]): Promise<Map<string, FileBytes>> {
    const now = Date.now();
    this.dropIdle(now);
    let held = this.scopes.get(scope);
    if (!held) {
      held = { used: now, entries: new Map() };
      this.scopes.set(scope, held);
    }
    held.used = now;
    const entries = held.entries;
    const key = (ref: string) => `${workspaceId}\u0000${ref}`;
    const wanted = [...new Set(refs)];
    const unread = wanted.filter((ref) => !entries.has(key(ref)));
    if (unread.length) {
      // One read for every ref not held yet; others asking meanwhile wait for it.
      const batch = this.reader(workspaceId, unread);
      for (const ref of unread) {
        const entry: Entry = batch.then((found) => found.get(ref) ?? null);
        entries.set(key(ref), entry);
        // A failed read is not kept: the next request reads again.
        entry.then(
          (file) => {
            if (!file) return;
            if (this.bytes + file.size > this.maxBytes) entries.delete(key(ref));
            else this.bytes += file.size;
          },
          () => entries.delete(key(ref)),
        );
      }
    }
    const out = new Map<string, FileBytes>();
    for (const ref of wanted) {
      const file = await entries.get(key(ref))!;
      if (file) out.set(ref, file);
    }
    return out;
  }

  /** Puts files read elsewhere into `scope` (a load shard's preload, given to its threads); `missing` refs as known missing. */
  seed(scope: string, workspaceId: string, files: ReadonlyArray<{ ref: string; file: FileBytes | null }>): void {
    let held = this.scopes.get(scope);
    if (!held) {
      held = { used: Date.now(), entries: new Map() };
      this.scopes.set(scope, held);
    }
    for (const { ref, file } of files) {
      held.entries.set(`${workspaceId}\u0000${ref}`, Promise.resolve(file));
      if (file) this.bytes += file.size;
    }
  }

  /** Forgets `scope`'s files (its run ended). */
  async release(scope: string): Promise<void> {
    const held = this.scopes.get(scope);
    if (!held) return;
    this.scopes.delete(scope);
    for (const entry of held.entries.values()) {
      const file = await entry.catch(() => null);
      if (file) this.bytes = Math.max(0, this.bytes - file.size);
    }
  }

  private dropIdle(now: number): void {
    for (const [scope, held] of this.scopes) if (now - held.used > FILE_SCOPE_IDLE_MS) void this.release(scope);
  }
}

/**
 * The refs a test case's requests name literally (no `{{`): what a load shard reads before its
 * clock starts. Templated refs are read when first sent.
 */
export function literalFileRefs(
  requests: Iterable<{ multipart?: MultipartPart[]; file?: string | FileBody }>,
): string[] {
  const refs = new Set<string>();
  const add = (ref: string | undefined) => {
    if (ref !== undefined && !ref.includes('{{')) refs.add(ref);
  };
  for (const request of requests) {
    for (const part of request.multipart ?? []) add(part.file);
    if (request.file !== undefined) add(typeof request.file === 'string' ? request.file : request.file.file);
  }
  return [...refs];
}

/** A request's body built up front: its bytes, its Content-Type, and what results show of it. */
export interface PreparedUpload {
  bytes: Buffer;
  contentType: string;
  sent: SentFiles;
}

/** Why a request's files could not be sent: the refs naming no file in the workspace. */
export interface MissingFiles {
  missing: string[];
  message: string;
}

/** The last `/`-separated segment of a file's name: a part's default file name. */
export function lastSegment(name: string): string {
  const cut = name.replace(/\/+$/, '');
  return cut.slice(cut.lastIndexOf('/') + 1) || name;
}

/**
 * Encodes `multipart/form-data` with the platform's encoder (WHATWG FormData serialised by a
 * `Request`, undici; RFC 7578): the bytes and the Content-Type naming their boundary.
 */
export async function encodeMultipart(
  parts: Array<
    { name: string; value: string } | { name: string; bytes: Buffer; filename: string; contentType: string }
  >,
): Promise<{ bytes: Buffer; contentType: string }> {
  const form = new FormData();
  for (const part of parts) {
    if ('value' in part) form.append(part.name, part.value);
    else
      form.append(
        part.name,
        new Blob([part.bytes as Uint8Array<ArrayBuffer>], { type: part.contentType }),
        part.filename,
      );
  }
  const request = new Request('http://multipart.invalid/', { method: 'POST', body: form });
  const bytes = Buffer.from(await request.arrayBuffer());
  return { bytes, contentType: request.headers.get('content-type')! };
}

function sha256(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Builds the body of a request with `multipart` or `file` (see the module comment), its files read
 * through `files` in `scope`. `headerType`: the request's own Content-Type header, if any (a binary
 * body's default). Undefined when the request sends no files.
 * @returns the body, or the refs naming no file (the node fails `FILE_NOT_FOUND`, nothing sent)
 * @throws the store's error when the files cannot be read
 */
export async function prepareUpload(
  request: Pick<ResolvedRequest, 'multipart' | 'file' | 'workspaceId'>,
  files: FileSource | undefined,
  scope: string,
  headerType: string | undefined,
): Promise<PreparedUpload | MissingFiles | undefined> {
  if (request.multipart === undefined && request.file === undefined) return undefined;
  const refs = request.file
    ? [request.file.file]
    : request.multipart!.flatMap((p) => (p.file !== undefined ? [p.file] : []));
  if (!files || request.workspaceId === undefined)
    return {
      missing: refs,
      message: !files
        ? 'Files cannot be read here (no store): the request was not sent'
        : "The run's workspace is unknown (a plan made before files existed): the request was not sent",
    };
  const found = refs.length ? await files.read(scope, request.workspaceId, refs) : new Map<string, FileBytes>();
  const missing = [...new Set(refs.filter((ref) => !found.has(ref)))];
  if (missing.length)
    return {
      missing,
      message: `No file ${missing.map((r) => `"${r}"`).join(', ')} in the workspace (${FILE_NOT_FOUND}): the request was not sent`,
    };
  if (request.file) {
    const file = found.get(request.file.file)!;
    const contentType = request.file.contentType || headerType || file.contentType || OCTET_STREAM;
    const sent: SentFile = { name: file.name, contentType, size: file.size, sha256: file.sha256 };
    return { bytes: file.bytes, contentType, sent: { file: sent } };
  }
  const parts: Parameters<typeof encodeMultipart>[0] = [];
  const shown: SentPart[] = [];
  for (const part of request.multipart!) {
    if (part.file === undefined) {
      const value = part.value ?? '';
      parts.push({ name: part.name, value });
      shown.push({ name: part.name, size: Buffer.byteLength(value) });
      continue;
    }
    const file = found.get(part.file)!;
    const filename = part.filename || lastSegment(file.name);
    // As the encoder writes it: a Blob's type (lower case; none when not printable ASCII, then octet-stream).
    const contentType = new Blob([], { type: part.contentType || file.contentType || '' }).type || OCTET_STREAM;
    parts.push({ name: part.name, bytes: file.bytes, filename, contentType });
    shown.push({ name: part.name, filename, contentType, size: file.size, sha256: file.sha256 });
  }
  const encoded = await encodeMultipart(parts);
  return { ...encoded, sent: { parts: shown } };
}

/** For tests: the hex SHA-256 results show of `bytes`. */
export const sha256Hex = sha256;
