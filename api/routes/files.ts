/**
 * Workspace files (docs/api.md "Files"): content API nodes send as multipart parts and binary
 * bodies, stored per workspace (src/store/files.ts), addressed by name. A name may contain `/`,
 * written as is or URL-encoded (`fixtures/avatar.png` or `fixtures%2Favatar.png`).
 *
 *   GET    /v1/files                        list (ordered by name; `limit`, `cursor`)
 *   GET    /v1/files/{name}                 metadata
 *   GET    /v1/files/{name}/content         the bytes (Content-Type, Content-Length, ETag "<sha256>")
 *   PUT    /v1/files/{name}                 the raw body is the content: 201 created, 200 replaced
 *   DELETE /v1/files/{name}                                                         → 204
 *
 * A path ending in `/content` is the content of the name before it; the metadata of a file whose
 * name ends in `/content` is read with the last `/` encoded (`a%2Fcontent`).
 *
 * PUT reads its own body (the /v1 JSON parser passes it on: {@link ownsFileBody}) as a stream, up to
 * ASSAY_FILE_MAX_BYTES: a declared `Content-Length` past it is refused before any byte is read, a
 * body that turns out longer stops being kept at the limit (the rest is read and dropped); either
 * way 413 `file-too-large` naming `limit`, nothing stored. New content past the workspace's
 * ASSAY_QUOTA_FILE_BYTES is 429 `quota-exceeded` with `quota: "file-bytes"`, `limit`, `current`.
 */
import type { IncomingMessage } from 'node:http';
import Router from '@koa/router';
import { WorkspaceFile } from '../../src/store/entities';
import {
  deleteFile,
  findFile,
  FileQuotaExceeded,
  putFile,
  readContent,
  type StoredFileInfo,
} from '../../src/store/files';
import type { ApiDeps, AppContext, AppState } from '../context';
import { invalid, Problem } from '../problem';
import { keysetPage, readPaging, type Keyset } from '../paging';
import { workspaceRows } from '../lookups';

/** Longest file name, characters. */
export const FILE_NAME_MAX = 200;
/** The characters of a file name: letters, digits, `_ . - /`. */
export const FILE_NAME_PATTERN = '^[A-Za-z0-9_./-]{1,200}$';
/** Content type of an upload without `Content-Type`. */
export const DEFAULT_CONTENT_TYPE = 'application/octet-stream';
/** Longest `Content-Type` kept, characters (the column's width). */
const CONTENT_TYPE_MAX = 255;
/** A media type with optional parameters (RFC 9110 §8.3.1), printable ASCII. */
const MEDIA_TYPE = /^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+(\s*;[\x20-\x7e]*)?$/;

/** The JSON form of a file: `{id, name, contentType, size, sha256, createdAt, updatedAt}` (times ISO 8601 UTC). */
export function fileJson(f: StoredFileInfo) {
  return {
    id: f.id,
    name: f.name,
    contentType: f.contentType,
    size: f.size,
    sha256: f.sha256,
    createdAt: f.createdAt.toISOString(),
    updatedAt: f.updatedAt.toISOString(),
  };
}

/**
 * Why `name` is not a file name, or null when it is one: 1–200 characters of letters, digits,
 * `_ . - /`; segments between `/` not empty (so no leading, trailing or double `/`) and not `.` or
 * `..` (names reach file systems in `assay export` and multipart file names).
 */
export function fileNameProblem(name: string): string | null {
  if (name.length === 0) return 'must not be empty';
  if (name.length > FILE_NAME_MAX) return `has ${name.length} characters; at most ${FILE_NAME_MAX} are allowed`;
  if (!new RegExp(FILE_NAME_PATTERN).test(name)) return 'may contain only letters, digits, `_`, `.`, `-` and `/`';
  const segments = name.split('/');
  if (segments.some((s) => s === '')) return 'must not start or end with `/` or contain `//`';
  if (segments.some((s) => s === '.' || s === '..')) return 'must not contain a `.` or `..` segment';
  return null;
}

/** The file name of the request; 400 `validation-failed` naming `name` when it is not one. */
function nameOf(ctx: AppContext): string {
  const name = ctx.params.name ?? '';
  const problem = fileNameProblem(name);
  if (problem) throw invalid([{ field: 'name', pointer: '/v1/files/{name}', detail: problem }]);
  return name;
}

/** True for `PUT /v1/files/…`: its route reads the body itself, as bytes of any media type. */
export function ownsFileBody(ctx: AppContext): boolean {
  return ctx.method === 'PUT' && /^\/v1\/files\/./i.test(ctx.path);
}

/** The 413 `file-too-large` problem for `limit` bytes. */
function tooLarge(limit: number): Problem {
  return new Problem(
    'file-too-large',
    `The file is larger than ${limit} bytes, the largest this server stores (ASSAY_FILE_MAX_BYTES). Nothing was stored.`,
    { limit },
  );
}

/**
 * The request body, at most `limit` bytes: keeps no more than `limit` bytes in memory. Past the
 * limit it rejects with {@link tooLarge} and reads the rest of the body without keeping it (so the
 * 413 reaches the client on the same connection).
 */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let settled = false;
    const settle = (err: Error | null) => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      if (err) {
        chunks.length = 0;
        req.resume();
        reject(err);
      } else resolve(Buffer.concat(chunks, total));
    };
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total > limit) settle(tooLarge(limit));
      else chunks.push(chunk);
    };
    const onEnd = () => settle(null);
    const onError = (err: Error) => settle(err);
    const onClose = () => {
      if (!req.complete) settle(new Error('the client closed the connection before sending the whole body'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/** The upload's content type: `Content-Type` as sent, or `application/octet-stream`; 400 `invalid-header` when malformed. */
function contentTypeOf(ctx: AppContext): string {
  const raw = ctx.get('Content-Type').trim();
  if (raw === '') return DEFAULT_CONTENT_TYPE;
  if (raw.length > CONTENT_TYPE_MAX || !MEDIA_TYPE.test(raw)) {
    const detail = `must be a media type such as \`image/png\` of at most ${CONTENT_TYPE_MAX} characters`;
    throw new Problem('invalid-header', `Content-Type ${detail}.`, {
      errors: [{ field: 'Content-Type', pointer: 'header:Content-Type', detail }],
    });
  }
  return raw;
}

/** The listing's order: by name (unique per workspace). */
const ORDER: Keyset<WorkspaceFile, 'name'> = { shape: 'name', keys: [{ column: 'f.name', of: (f) => f.name }] };

const notFound = (name: string) => new Problem('not-found', `File "${name}" does not exist.`);

export function filesRouter({ dataSource, config }: ApiDeps): Router<AppState> {
  const router = new Router<AppState>();
  const repo = dataSource.getRepository(WorkspaceFile);

  router.get('/files', async (ctx) => {
    const paging = readPaging(ctx, ORDER);
    ctx.body = await keysetPage(workspaceRows(repo, 'f', ctx), paging, ORDER, fileJson);
  });

  router.get('/files/*name/content', async (ctx) => {
    const name = nameOf(ctx);
    const workspaceId = ctx.state.caller.workspaceId;
    const file = await findFile(dataSource.manager, workspaceId, name);
    const bytes = file && (await readContent(dataSource.manager, workspaceId, file.sha256));
    if (!file || !bytes) throw notFound(name);
    const filename = name.slice(name.lastIndexOf('/') + 1);
    // Set before the body, so that Koa keeps it as stored (it adds a charset to text types it sets).
    ctx.set('Content-Type', file.contentType);
    ctx.set('ETag', `"${file.sha256}"`);
    ctx.set('Content-Disposition', `attachment; filename="${filename}"`);
    // Uploaded content is never run as a page of the API's origin.
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Content-Security-Policy', "default-src 'none'; sandbox");
    ctx.body = bytes;
  });

  router.get('/files/*name', async (ctx) => {
    const name = nameOf(ctx);
    const file = await findFile(dataSource.manager, ctx.state.caller.workspaceId, name);
    if (!file) throw notFound(name);
    ctx.body = fileJson(file);
  });

  router.put('/files/*name', async (ctx) => {
    const name = nameOf(ctx);
    const contentType = contentTypeOf(ctx);
    const encoding = ctx.get('Content-Encoding').trim().toLowerCase();
    if (encoding !== '' && encoding !== 'identity') {
      throw new Problem(
        'unsupported-media-type',
        `Uploads are stored as sent: send the file without Content-Encoding (not "${encoding}").`,
      );
    }
    const limit = config.api.fileMaxBytes;
    if ((ctx.request.length ?? 0) > limit) throw tooLarge(limit);
    const bytes = await readBody(ctx.req, limit);
    const workspaceId = ctx.state.caller.workspaceId;
    let stored: Awaited<ReturnType<typeof putFile>>;
    try {
      stored = await putFile(dataSource.manager, workspaceId, { name, contentType, bytes }, config.quotas.fileBytes);
    } catch (err) {
      if (!(err instanceof FileQuotaExceeded)) throw err;
      throw new Problem(
        'quota-exceeded',
        `The workspace's files hold ${err.current} bytes of distinct content; this file would add ${err.adding}, past the ${err.limit} allowed (ASSAY_QUOTA_FILE_BYTES). Delete files to make room. Nothing was stored.`,
        { quota: 'file-bytes', limit: err.limit, current: err.current },
      );
    }
    if (stored.created) {
      ctx.status = 201;
      ctx.set('Location', `/v1/files/${name}`);
    }
    ctx.body = fileJson(stored.file);
  });

  router.delete('/files/*name', async (ctx) => {
    const name = nameOf(ctx);
    if (!(await deleteFile(dataSource.manager, ctx.state.caller.workspaceId, name))) throw notFound(name);
    ctx.status = 204;
  });

  return router;
}
