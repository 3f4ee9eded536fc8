/**
 * Workspace files (`/v1/files`, docs/api.md "Files"; src/store/files.ts), on MariaDB and on SQLite,
 * against a real API with small limits (ASSAY_FILE_MAX_BYTES 200,000, ASSAY_QUOTA_FILE_BYTES 400,000):
 *
 * - a binary file with every byte value uploads (201, metadata with its SHA-256) and downloads byte
 *   for byte with its content type, length, ETag and file name; a name with `/` works as is and
 *   URL-encoded; content types are kept as sent, `application/octet-stream` without one;
 * - a replace is 200 with the same id and `createdAt`; the list is paged by name;
 * - content is deduplicated per workspace (two names, one blob row) and deleted with its last file;
 *   a file of several chunks round-trips;
 * - past the size limit (declared or chunked) 413 `file-too-large` naming the limit, nothing stored;
 *   the quota counts distinct content: 429 `quota-exceeded` (`file-bytes`, `limit`, `current`);
 * - bad names are 400 naming `name`, a malformed Content-Type 400 `invalid-header`, an encoded body 415;
 * - another workspace's file is 404 whether it exists or not, and a read key cannot upload or delete;
 * - `readFiles` finds files by name and by id, only in the workspace asked.
 */
import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { readReply, startTestApp, type Reply, type TestApp } from '../../helpers/app';
import { FileBlob, FileBlobChunk, WorkspaceFile } from '../../../src/store/entities';
import { readFiles } from '../../../src/store/files';

const MAX = 200_000;
const QUOTA = 400_000;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
/** Every byte value 0–255, once. */
const EVERY_BYTE = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

for (const dialect of ['mysql', 'sqlite'] as const) {
  describe(`workspace files (${dialect})`, function () {
    this.timeout(120_000);
    let app: TestApp;
    /** The id of another workspace's file (the cross-workspace test uploads it). */
    let theirsId = '';

    before(async () => {
      app = await startTestApp({
        dialect,
        env: { ASSAY_FILE_MAX_BYTES: String(MAX), ASSAY_QUOTA_FILE_BYTES: String(QUOTA) },
      });
    });
    after(async () => {
      await app?.stop();
    });

    /** PUT /v1/files/{path} with `body` as the raw body (a stream is sent chunked). */
    async function put(
      path: string,
      body: Buffer | ReadableStream<Uint8Array> | undefined,
      options: { key?: string; contentType?: string; headers?: Record<string, string> } = {},
    ): Promise<Reply> {
      const headers: Record<string, string> = { authorization: `Bearer ${options.key ?? app.key}`, ...options.headers };
      if (options.contentType) headers['content-type'] = options.contentType;
      const init = { method: 'PUT', headers, body: body as unknown as BodyInit, duplex: 'half' } as RequestInit;
      return readReply(await fetch(`${app.url}/v1/files/${path}`, init));
    }
    /** GET /v1/files/{path}/content: status, headers and the bytes. */
    async function download(path: string, key = app.key) {
      const res = await fetch(`${app.url}/v1/files/${path}/content`, { headers: { authorization: `Bearer ${key}` } });
      return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
    }
    const blobs = (workspaceId = app.workspaceId, sha256?: string) =>
      app.dataSource.getRepository(FileBlob).countBy({ workspaceId, ...(sha256 ? { sha256 } : {}) });
    const chunks = (sha256: string) =>
      app.dataSource.getRepository(FileBlobChunk).countBy({ workspaceId: app.workspaceId, sha256 });
    const fileRows = () => app.dataSource.getRepository(WorkspaceFile).countBy({ workspaceId: app.workspaceId });

    it('uploads a binary file with every byte value and downloads it byte for byte, with its type, length, ETag and file name', async () => {
      const res = await put('fixtures/avatar.png', EVERY_BYTE, { contentType: 'image/png' });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      expect(res.headers.get('location')).to.equal('/v1/files/fixtures/avatar.png');
      expect(res.body).to.include({
        name: 'fixtures/avatar.png',
        contentType: 'image/png',
        size: 256,
        sha256: sha(EVERY_BYTE),
      });
      expect(res.body.id).to.match(/^file_[0-9A-HJKMNP-TV-Z]{26}$/);
      expect(res.body.createdAt).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(res.body.updatedAt).to.equal(res.body.createdAt);

      const got = await download('fixtures/avatar.png');
      expect(got.status).to.equal(200);
      expect(got.bytes.equals(EVERY_BYTE), 'the bytes as uploaded').to.equal(true);
      expect(got.headers.get('content-type')).to.equal('image/png');
      expect(got.headers.get('content-length')).to.equal('256');
      expect(got.headers.get('etag')).to.equal(`"${sha(EVERY_BYTE)}"`);
      expect(got.headers.get('content-disposition')).to.equal('attachment; filename="avatar.png"');
      expect(got.headers.get('x-content-type-options')).to.equal('nosniff');

      // The metadata, by the name as is and URL-encoded.
      for (const path of ['fixtures/avatar.png', 'fixtures%2Favatar.png']) {
        const meta = await app.request('GET', `/v1/files/${path}`);
        expect(meta.status, path).to.equal(200);
        expect(meta.body, path).to.deep.equal(res.body);
      }
      expect((await download('fixtures%2Favatar.png')).bytes.equals(EVERY_BYTE)).to.equal(true);
    });

    it('keeps the content type as sent, and application/octet-stream without one', async () => {
      const text = Buffer.from('hello, files\n');
      expect((await put('notes/readme.txt', text, { contentType: 'text/plain' })).body.contentType).to.equal(
        'text/plain',
      );
      expect((await download('notes/readme.txt')).headers.get('content-type')).to.equal('text/plain');
      const csv = await put('data.csv', text, { contentType: 'text/csv; charset=utf-8' });
      expect(csv.body.contentType).to.equal('text/csv; charset=utf-8');
      const raw = await put('raw.bin', Buffer.from([0, 1, 2]));
      expect(raw.status).to.equal(201);
      expect(raw.body.contentType).to.equal('application/octet-stream');
      expect((await download('raw.bin')).headers.get('content-type')).to.equal('application/octet-stream');
      // An empty file is a file.
      const empty = await put('empty', Buffer.alloc(0), { contentType: 'text/plain' });
      expect(empty.status).to.equal(201);
      expect(empty.body).to.include({ size: 0, sha256: sha(Buffer.alloc(0)) });
      const got = await download('empty');
      expect([got.status, got.bytes.length]).to.deep.equal([200, 0]);
      for (const name of ['notes/readme.txt', 'data.csv', 'raw.bin', 'empty'])
        expect((await app.request('DELETE', `/v1/files/${name}`)).status, name).to.equal(204);
    });

    it('replaces a file: 200 with the same id and createdAt, the new content and type; the old content goes', async () => {
      const first = await put('report.json', Buffer.from('{"v":1}'), { contentType: 'application/json' });
      expect(first.status).to.equal(201);
      const oldSha = first.body.sha256 as string;
      expect(await blobs(app.workspaceId, oldSha)).to.equal(1);
      const next = Buffer.from('{"v":2,"more":true}');
      const second = await put('report.json', next, { contentType: 'application/vnd.api+json' });
      expect(second.status, JSON.stringify(second.body)).to.equal(200);
      expect(second.headers.get('location')).to.equal(null);
      expect(second.body).to.include({
        id: first.body.id,
        createdAt: first.body.createdAt,
        contentType: 'application/vnd.api+json',
        size: next.length,
        sha256: sha(next),
      });
      expect(Date.parse(second.body.updatedAt)).to.be.at.least(Date.parse(first.body.updatedAt));
      expect((await download('report.json')).bytes.toString()).to.equal('{"v":2,"more":true}');
      expect(await blobs(app.workspaceId, oldSha), 'the replaced content is deleted').to.equal(0);
      expect(await chunks(oldSha)).to.equal(0);
    });

    it('lists files by name, paged', async () => {
      const all = await app.request('GET', '/v1/files');
      expect(all.status).to.equal(200);
      expect(all.body.items.map((f: { name: string }) => f.name)).to.deep.equal(['fixtures/avatar.png', 'report.json']);
      expect(all.body.items[0]).to.have.all.keys(
        'id',
        'name',
        'contentType',
        'size',
        'sha256',
        'createdAt',
        'updatedAt',
      );
      const first = await app.request('GET', '/v1/files?limit=1');
      expect(first.body.items.map((f: { name: string }) => f.name)).to.deep.equal(['fixtures/avatar.png']);
      const second = await app.request('GET', `/v1/files?limit=1&cursor=${first.body.nextCursor}`);
      expect(second.body.items.map((f: { name: string }) => f.name)).to.deep.equal(['report.json']);
      expect(second.body.nextCursor).to.equal(null);
      expect((await app.request('GET', '/v1/files?cursor=e30')).body.code).to.equal('bad-cursor');
    });

    it('stores the same content once per workspace, and deletes it with its last file', async () => {
      const big = randomBytes(150_000); // three chunks of at most 60 KiB
      const a = await put('big/a.bin', big);
      const b = await put('big/b.bin', big, { contentType: 'application/zip' });
      expect([a.status, b.status]).to.deep.equal([201, 201]);
      expect(a.body.id).to.not.equal(b.body.id);
      expect(a.body.sha256).to.equal(sha(big));
      expect(b.body.sha256).to.equal(sha(big));
      expect(await blobs(app.workspaceId, sha(big)), 'two names, one blob').to.equal(1);
      expect(await chunks(sha(big))).to.equal(3);
      expect((await download('big/b.bin')).bytes.equals(big), 'a file of several chunks, byte for byte').to.equal(true);

      expect((await app.request('DELETE', '/v1/files/big/a.bin')).status).to.equal(204);
      expect((await app.request('GET', '/v1/files/big/a.bin')).status).to.equal(404);
      expect(await blobs(app.workspaceId, sha(big)), 'another file still has it').to.equal(1);
      expect((await download('big/b.bin')).bytes.equals(big)).to.equal(true);
      expect((await app.request('DELETE', '/v1/files/big%2Fb.bin')).status).to.equal(204);
      expect(await blobs(app.workspaceId, sha(big)), 'the last file is gone: so is the content').to.equal(0);
      expect(await chunks(sha(big))).to.equal(0);
      const again = await app.request('DELETE', '/v1/files/big/b.bin');
      expect([again.status, again.body.code]).to.deep.equal([404, 'not-found']);
    });

    it('refuses a file past ASSAY_FILE_MAX_BYTES with 413 file-too-large naming the limit, storing nothing', async () => {
      const [filesBefore, blobsBefore] = [await fileRows(), await blobs()];
      // Declared by Content-Length.
      const declared = await put('too/big.bin', randomBytes(MAX + 1));
      expect(declared.status, JSON.stringify(declared.body)).to.equal(413);
      expect(declared.body).to.include({ code: 'file-too-large', limit: MAX });
      expect(declared.body.detail).to.contain(String(MAX));
      // Sent chunked (no Content-Length): reading stops past the limit.
      let sent = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= 3 * MAX) return controller.close();
          sent += 30_000;
          controller.enqueue(randomBytes(30_000));
        },
      });
      const chunked = await put('too/big.bin', stream);
      expect(chunked.status, JSON.stringify(chunked.body)).to.equal(413);
      expect(chunked.body).to.include({ code: 'file-too-large', limit: MAX });
      expect((await app.request('GET', '/v1/files/too/big.bin')).status).to.equal(404);
      expect([await fileRows(), await blobs()], 'nothing stored').to.deep.equal([filesBefore, blobsBefore]);
      // The same connection pool still answers, and the limit itself is allowed.
      const atLimit = await put('too/exact.bin', randomBytes(MAX));
      expect(atLimit.status).to.equal(201);
      expect(atLimit.body.size).to.equal(MAX);
      expect((await app.request('DELETE', '/v1/files/too/exact.bin')).status).to.equal(204);
    });

    it('counts distinct content against ASSAY_QUOTA_FILE_BYTES: 429 quota-exceeded with the figures past it', async () => {
      const key = await app.issueKey('write', `quota-${dialect}`);
      const [a, b, c] = [randomBytes(150_000), randomBytes(150_000), randomBytes(150_000)];
      expect((await put('a.bin', a, { key })).status).to.equal(201);
      expect((await put('b.bin', b, { key })).status).to.equal(201);
      const over = await put('c.bin', c, { key });
      expect(over.status, JSON.stringify(over.body)).to.equal(429);
      expect(over.body).to.include({ code: 'quota-exceeded', quota: 'file-bytes', limit: QUOTA, current: 300_000 });
      expect(over.headers.get('retry-after')).to.equal(null);
      expect((await app.request('GET', '/v1/files/c.bin', undefined, { key })).status, 'nothing stored').to.equal(404);
      // Content the workspace has counts once; a replace frees what it replaces.
      expect((await put('copy-of-a.bin', a, { key })).status).to.equal(201);
      expect((await put('b.bin', c, { key })).status).to.equal(200);
      // Deleting makes room.
      expect((await app.request('DELETE', '/v1/files/b.bin', undefined, { key })).status).to.equal(204);
      expect((await put('d.bin', b, { key })).status).to.equal(201);
    });

    it('refuses bad names with 400 naming `name`, a malformed Content-Type and an encoded body', async () => {
      const before = await fileRows();
      const bad = [
        'a%2F..%2Fb',
        '..%2Fx',
        '%2Fleading',
        'a%2F%2Fb',
        'trailing%2F',
        'a%2F.%2Fb',
        'has%20space',
        '%C3%BC.txt',
        'semi%3Bcolon',
        'x'.repeat(201),
      ];
      for (const path of bad) {
        for (const res of [await put(path, Buffer.from('x')), await app.request('GET', `/v1/files/${path}`)]) {
          expect(res.status, `${path}: ${JSON.stringify(res.body)}`).to.equal(400);
          expect(res.body.code, path).to.equal('validation-failed');
          expect(res.body.errors[0].field, path).to.equal('name');
        }
      }
      expect((await put('x'.repeat(200), Buffer.from('x'))).status, '200 characters are allowed').to.equal(201);
      expect((await app.request('DELETE', `/v1/files/${'x'.repeat(200)}`)).status).to.equal(204);

      const badType = await put('typed.bin', Buffer.from('x'), { contentType: 'not a type' });
      expect(badType.status).to.equal(400);
      expect(badType.body.code).to.equal('invalid-header');
      expect(badType.body.errors[0].field).to.equal('Content-Type');
      const gzip = await put('gz.bin', Buffer.from('x'), { headers: { 'content-encoding': 'gzip' } });
      expect([gzip.status, gzip.body.code]).to.deep.equal([415, 'unsupported-media-type']);
      expect(await fileRows(), 'nothing stored').to.equal(before);
    });

    it('reads the content of a name before `/content`, and the metadata of a name ending in `/content` encoded', async () => {
      expect((await put('docs%2Fcontent', Buffer.from('doc'), { contentType: 'text/markdown' })).status).to.equal(201);
      const meta = await app.request('GET', '/v1/files/docs%2Fcontent');
      expect([meta.status, meta.body.name]).to.deep.equal([200, 'docs/content']);
      const got = await download('docs/content');
      expect([got.status, got.bytes.toString()]).to.deep.equal([200, 'doc']);
      // `docs/content` as is: the content of `docs`, which does not exist.
      expect((await app.request('GET', '/v1/files/docs/content')).status).to.equal(404);
      expect((await app.request('DELETE', '/v1/files/docs%2Fcontent')).status).to.equal(204);
    });

    it("answers 404 for another workspace's file, whether it exists or not, and leaves it alone", async () => {
      const other = await app.issueKey('write', `other-${dialect}`);
      const missing = 'fixtures/nothing-here.png';
      for (const name of ['fixtures/avatar.png', missing]) {
        const meta = await app.request('GET', `/v1/files/${name}`, undefined, { key: other });
        const content = await download(name, other);
        const del = await app.request('DELETE', `/v1/files/${name}`, undefined, { key: other });
        expect([meta.status, meta.body.code], name).to.deep.equal([404, 'not-found']);
        expect(meta.body.detail, name).to.equal(`File "${name}" does not exist.`);
        expect(content.status, name).to.equal(404);
        expect(content.bytes.toString(), name).to.not.contain(EVERY_BYTE.toString('latin1').slice(32, 64));
        expect(del.status, name).to.equal(404);
      }
      expect((await app.request('GET', '/v1/files', undefined, { key: other })).body.items).to.deep.equal([]);
      // The same name in the other workspace is another file; ours is untouched.
      const theirs = await put('fixtures/avatar.png', Buffer.from('theirs'), { key: other });
      expect(theirs.status).to.equal(201);
      theirsId = theirs.body.id;
      const ours = await app.request('GET', '/v1/files/fixtures/avatar.png');
      expect(theirs.body.id).to.not.equal(ours.body.id);
      expect((await download('fixtures/avatar.png')).bytes.equals(EVERY_BYTE)).to.equal(true);
      expect((await download('fixtures/avatar.png', other)).bytes.toString()).to.equal('theirs');
      // The same content in two workspaces is two blobs: deleting theirs leaves ours.
      expect((await put('same.bin', EVERY_BYTE, { key: other })).status).to.equal(201);
      expect((await app.request('DELETE', '/v1/files/same.bin', undefined, { key: other })).status).to.equal(204);
      expect(await blobs(app.workspaceId, sha(EVERY_BYTE))).to.equal(1);
    });

    it('lets a read key list and download but not upload or delete (403)', async () => {
      const read = await app.issueKey('read');
      expect((await app.request('GET', '/v1/files', undefined, { key: read })).status).to.equal(200);
      expect((await download('fixtures/avatar.png', read)).bytes.equals(EVERY_BYTE)).to.equal(true);
      const up = await put('from-read.bin', Buffer.from('x'), { key: read });
      expect(up.status).to.equal(403);
      expect(up.body).to.include({ code: 'forbidden', scopeNeeded: 'write' });
      expect((await app.request('GET', '/v1/files/from-read.bin')).status, 'nothing stored').to.equal(404);
      const del = await app.request('DELETE', '/v1/files/fixtures/avatar.png', undefined, { key: read });
      expect([del.status, del.body.scopeNeeded]).to.deep.equal([403, 'write']);
      expect((await app.request('GET', '/v1/files/fixtures/avatar.png')).status).to.equal(200);
    });

    it('readFiles finds files by name and by id with their bytes, only in the workspace asked', async () => {
      const avatar = (await app.request('GET', '/v1/files/fixtures/avatar.png')).body;
      const report = (await app.request('GET', '/v1/files/report.json')).body;
      const found = await readFiles(app.dataSource.manager, app.workspaceId, [
        'fixtures/avatar.png',
        report.id,
        'no/such.file',
        'file_01JD7Q4Z8K2M3N4P5Q6R7S8T9V',
      ]);
      expect([...found.keys()]).to.deep.equal(['fixtures/avatar.png', report.id]);
      const a = found.get('fixtures/avatar.png')!;
      expect(a.bytes.equals(EVERY_BYTE)).to.equal(true);
      expect(a).to.include({ id: avatar.id, name: 'fixtures/avatar.png', contentType: 'image/png', size: 256 });
      expect(a.createdAt.toISOString()).to.equal(avatar.createdAt);
      expect(found.get(report.id)!.bytes.toString()).to.equal('{"v":2,"more":true}');
      expect(found.get(report.id)!.name).to.equal('report.json');
      // Another workspace's file is not found by its id; another workspace finds neither of ours.
      expect((await readFiles(app.dataSource.manager, app.workspaceId, [theirsId])).size).to.equal(0);
      const elsewhere = await readFiles(app.dataSource.manager, 'ws_00000000000000000000000000', [
        'fixtures/avatar.png',
        avatar.id,
      ]);
      expect(elsewhere.size).to.equal(0);
      expect((await readFiles(app.dataSource.manager, app.workspaceId, [])).size).to.equal(0);
    });
  });
}
