/**
 * Workspace files as the command line sees them (docs/cli.md "Workspace files"; the REST resource
 * `/v1/files`, docs/api.md "Files"): their JSON shape, the name rule, the content type guessed from
 * a file name, the sha256 the API reports, and one function per call (`assay files …` and
 * `assay export/apply` both use them).
 *
 * | call | REST |
 * |---|---|
 * | {@link listFiles} | `GET /v1/files` (every page) |
 * | {@link uploadFile} | `PUT /v1/files/{name}`, the raw bytes with their Content-Type → 201 created, 200 replaced |
 * | {@link downloadFile} | `GET /v1/files/{name}/content` → the bytes |
 * | {@link deleteFile} | `DELETE /v1/files/{name}` → 204 |
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { AssayClient, RequestOptions } from './client';

/** A workspace file as the API answers it (`PUT`/`GET /v1/files/{name}`, items of `GET /v1/files`). */
export interface WorkspaceFile {
  id: string;
  /** 1–200 characters of letters, digits, `_ . - /` ({@link FILE_NAME_PATTERN}). */
  name: string;
  /** The Content-Type it was uploaded with. */
  contentType: string;
  /** Bytes. */
  size: number;
  /** Lowercase hex SHA-256 of the content. */
  sha256: string;
  /** ISO 8601 instants. */
  createdAt: string;
  updatedAt: string;
}

/** The characters of file names the API accepts (api/routes/files.ts FILE_NAME_PATTERN): 1–200 letters, digits, `_ . - /`. */
export const FILE_NAME_PATTERN = /^[A-Za-z0-9_./-]{1,200}$/;

/** The rule of {@link isFileName}, for messages. */
export const FILE_NAME_RULE =
  'a file name is 1 to 200 letters, digits, "_", ".", "-" or "/", with no empty, "." or ".." segment between "/"';

/**
 * True when the API accepts `name` (api/routes/files.ts fileNameProblem): {@link FILE_NAME_PATTERN},
 * and no segment between `/` empty (no leading, trailing or double `/`), `.` or `..`.
 */
export function isFileName(name: string): boolean {
  return FILE_NAME_PATTERN.test(name) && name.split('/').every((s) => s !== '' && s !== '.' && s !== '..');
}

/**
 * One segment of a workspace file name made of `text` (a file name on disk, a recorded one): the
 * characters {@link FILE_NAME_PATTERN} does not take (spaces, `/`, `\\`, non-ASCII, …) become `_`,
 * cut at 200; null when nothing usable is left (empty, `.` or `..`). Used by the importers that
 * upload files they find (cli/importers/har.ts, cli/importers/postman-files.ts).
 */
export function fileNameSegment(text: string): string | null {
  const name = text.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 200);
  return name && name !== '.' && name !== '..' ? name : null;
}

/**
 * Content types by extension (lowercase, with the dot): the common types of files API tests send
 * (IANA media types registry; `text/javascript` per RFC 9239). Anything else is
 * {@link DEFAULT_CONTENT_TYPE}.
 */
export const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.txt': 'text/plain',
  '.csv': 'text/csv',
  '.tsv': 'text/tab-separated-values',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.css': 'text/css',
  '.md': 'text/markdown',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.json': 'application/json',
  '.xml': 'application/xml',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
  '.pdf': 'application/pdf',
  '.zip': 'application/zip',
  '.gz': 'application/gzip',
  '.tar': 'application/x-tar',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.svg': 'image/svg+xml',
  '.ico': 'image/vnd.microsoft.icon',
  '.mp3': 'audio/mpeg',
  '.wav': 'audio/wav',
  '.mp4': 'video/mp4',
  '.webm': 'video/webm',
};

/** The type of content nothing is known about (RFC 2046 §4.5.1). */
export const DEFAULT_CONTENT_TYPE = 'application/octet-stream';

/** The content type of a file called `name`, by its extension ({@link CONTENT_TYPES}), case-insensitive. */
export function guessContentType(name: string): string {
  return CONTENT_TYPES[path.extname(name).toLowerCase()] ?? DEFAULT_CONTENT_TYPE;
}

/** `type/subtype` with optional parameters (RFC 9110 §8.3), loosely: what `--type` accepts. */
export const CONTENT_TYPE_PATTERN = /^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+(\s*;.*)?$/;

/** Lowercase hex SHA-256 of `bytes`, as the API reports `sha256`. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** `/v1/files/{name}` with the name as one path segment (`/` sent as `%2F`). */
export function filePath(name: string): string {
  return `/v1/files/${encodeURIComponent(name)}`;
}

/** Every file of the key's workspace, by name as the API lists them. */
export function listFiles(client: AssayClient): Promise<WorkspaceFile[]> {
  return client.listAll<WorkspaceFile>('/v1/files');
}

/** How long an upload or download may take: 5 minutes (a large file on a slow link). */
export const TRANSFER_TIMEOUT_MS = 300_000;

/**
 * Stores `bytes` as `name` with `contentType` (`PUT /v1/files/{name}`); answers the file and
 * whether it was new (201) or replaced (200). A 429 `quota-exceeded` is reported at once (waiting
 * does not free storage); other 429/503 answers and lost connections are retried (a PUT may be
 * repeated). @throws ApiProblem (413 `file-too-large`, 429 `quota-exceeded`, 400 naming `name`),
 * UnreachableError.
 */
export async function uploadFile(
  client: AssayClient,
  name: string,
  bytes: Uint8Array,
  contentType: string,
): Promise<{ file: WorkspaceFile; created: boolean }> {
  const options: RequestOptions = {
    bytes: { data: bytes, contentType },
    retryNetwork: true,
    noRetryCodes: ['quota-exceeded'],
    timeoutMs: TRANSFER_TIMEOUT_MS,
  };
  const answer = await client.requestWithStatus<WorkspaceFile>('PUT', filePath(name), options);
  return { file: answer.body, created: answer.status === 201 };
}

/** The bytes of `name` (`GET /v1/files/{name}/content`). @throws ApiProblem (404), UnreachableError. */
export async function downloadFile(client: AssayClient, name: string): Promise<Buffer> {
  return (await client.download(`${filePath(name)}/content`, { timeoutMs: TRANSFER_TIMEOUT_MS })).bytes;
}

/** Deletes `name` (`DELETE /v1/files/{name}`). @throws ApiProblem (404), UnreachableError. */
export async function deleteFile(client: AssayClient, name: string): Promise<void> {
  await client.request('DELETE', filePath(name));
}

/** `1234 bytes`, `1.2 KiB`, `3.4 MiB`: sizes in messages and lists (IEC binary prefixes). */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
  const units = ['KiB', 'MiB', 'GiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
