/**
 * Files in requests (docs/flows.md "Files"), the parts without a network or a store: the request
 * fields' validation (src/validation/flow.ts, the schema of src/validation/flow-schemas.ts), the
 * templates filled in the workflow (src/flow/api-node.ts `resolveRequest`), the body built by the
 * activity (activities/files.ts `prepareUpload`, parsed back with the platform's parser), the
 * per-scope cache (`FileCache`: one store read per ref and scope), and auth signatures over bytes
 * (Digest `auth-int`, Hawk's payload hash).
 */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import hawk from 'hawk';
import { validateFlow } from '../../src/validation/flow';
import { resolveRequest } from '../../src/flow/api-node';
import {
  FileCache,
  fileBytes,
  lastSegment,
  literalFileRefs,
  prepareUpload,
  type FileBytes,
  type FileSource,
  type PreparedUpload,
} from '../../activities/files';
import { digestAuthorization, signRequest } from '../../src/net/request-auth';
import type { ApiNode, RunSettings } from '../../src/domain/types';

const api = (request: Record<string, unknown>) => [
  { type: 'api', id: 'n', request: { method: 'POST', url: 'http://x/', ...request } },
];

const files: Record<string, FileBytes> = {
  'fixtures/avatar.png': fileBytes({
    id: 'file_1',
    name: 'fixtures/avatar.png',
    contentType: 'image/png',
    bytes: Buffer.from([0, 1, 2, 13, 10, 45, 45, 255]),
  }),
  'notes.txt': fileBytes({ id: 'file_2', name: 'notes.txt', contentType: '', bytes: Buffer.from('a\r\n--b') }),
};

/** A file source over {@link files}, counting its reads. */
function fakeSource(): FileSource & { reads: string[][] } {
  const reads: string[][] = [];
  return {
    reads,
    async read(_scope, _ws, refs) {
      reads.push(refs);
      return new Map(refs.filter((r) => files[r]).map((r) => [r, files[r]!]));
    },
  };
}

async function parse(upload: PreparedUpload): Promise<Array<[string, string | File]>> {
  const form = await new Request('http://x/', {
    method: 'POST',
    headers: { 'content-type': upload.contentType },
    body: upload.bytes as Uint8Array<ArrayBuffer>,
  }).formData();
  return [...(form as unknown as Iterable<[string, string | File]>)];
}

describe('files in requests', () => {
  describe('validation', () => {
    it('accepts multipart parts and a binary body in both forms', () => {
      expect(
        validateFlow(
          api({
            multipart: [
              { name: 'a', value: 'text {{v}}' },
              { name: 'f', file: 'fixtures/avatar.png', filename: 'x.png', contentType: 'image/png' },
              { name: 'f', file: 'file_01' },
            ],
          }),
        ),
      ).to.deep.equal([]);
      expect(validateFlow(api({ file: 'data.bin' }))).to.deep.equal([]);
      expect(validateFlow(api({ file: { file: 'data.bin', contentType: 'application/x' } }))).to.deep.equal([]);
    });

    it('names the field at fault when a request has two bodies', () => {
      const paths = (flow: unknown) => validateFlow(flow).map((i) => `${i.path.join('.')}: ${i.message}`);
      expect(paths(api({ body: 'x', multipart: [{ name: 'a', value: 'b' }] }))).to.deep.equal([
        'flow.0.request.multipart: cannot be used with body: a request has one body',
      ]);
      expect(paths(api({ body: 'x', file: 'f' }))).to.deep.equal([
        'flow.0.request.file: cannot be used with body: a request has one body',
      ]);
      expect(paths(api({ file: 'f', multipart: [{ name: 'a', value: 'b' }] }))).to.deep.equal([
        'flow.0.request.file: cannot be used with multipart: a request has one body',
      ]);
    });

    it('refuses parts that are neither or both kinds, and file fields on text parts', () => {
      const paths = (flow: unknown) => validateFlow(flow).map((i) => i.path.join('.'));
      expect(paths(api({ multipart: [{ name: 'a' }] }))).to.deep.equal(['flow.0.request.multipart.0']);
      expect(paths(api({ multipart: [{ name: 'a', value: 'v', file: 'f' }] }))).to.deep.equal([
        'flow.0.request.multipart.0',
      ]);
      expect(paths(api({ multipart: [{ name: 'a', value: 'v', filename: 'x' }] }))).to.deep.equal([
        'flow.0.request.multipart.0.filename',
      ]);
      expect(paths(api({ multipart: [] }))).to.deep.equal(['flow.0.request.multipart']);
      const many = Array.from({ length: 101 }, () => ({ name: 'a', value: 'v' }));
      expect(paths(api({ multipart: many }))).to.deep.equal(['flow.0.request.multipart']);
      expect(paths(api({ multipart: [{ name: 'a', file: 'f', contentType: 'a/b\r\nX: y' }] }))).to.deep.equal([
        'flow.0.request.multipart.0.contentType',
      ]);
      expect(validateFlow(api({ file: { contentType: 'a/b' } }))).to.not.deep.equal([]);
    });
  });

  it('fills templates in parts and refs (the workflow passes refs, never bytes)', () => {
    const node = {
      type: 'api',
      id: 'n',
      request: {
        method: 'POST',
        url: 'http://x/',
        multipart: [
          { name: '{{field}}', value: 'hi {{who}}' },
          { name: 'f', file: 'fixtures/{{img}}', filename: '{{img}}' },
        ],
      },
    } as unknown as ApiNode;
    const settings = { requestTimeoutMs: 1000, maxResponseBytes: 1000 } as RunSettings;
    const dynamic = { uuid: () => 'u', now: () => 0, random: () => 0 };
    const resolved = resolveRequest(node, { field: 'note', who: 'Ada', img: 'avatar.png' }, dynamic, settings);
    expect(resolved.multipart).to.deep.equal([
      { name: 'note', value: 'hi Ada' },
      { name: 'f', file: 'fixtures/avatar.png', filename: 'avatar.png' },
    ]);
    const binary = resolveRequest(
      { ...node, request: { method: 'PUT', url: 'http://x/', file: '{{img}}' } } as ApiNode,
      { img: 'a.bin' },
      dynamic,
      settings,
    );
    expect(binary.file).to.deep.equal({ file: 'a.bin' });
    expect(binary).not.to.have.property('multipart');
  });

  describe('prepareUpload', () => {
    it('encodes multipart with the platform encoder: bytes intact, file names and types defaulted', async () => {
      const upload = (await prepareUpload(
        {
          workspaceId: 'ws',
          multipart: [
            { name: 'note', value: 'héllo' },
            { name: 'files', file: 'fixtures/avatar.png' },
            { name: 'files', file: 'notes.txt', filename: 'n.txt', contentType: 'Text/Plain' },
          ],
        },
        fakeSource(),
        'run',
        'text/plain',
      )) as PreparedUpload;
      expect(upload.contentType).to.match(/^multipart\/form-data; boundary=/);
      const parts = await parse(upload);
      expect(parts[0]).to.deep.equal(['note', 'héllo']);
      const [, avatar] = parts[1] as [string, File];
      expect(avatar.name).to.equal('avatar.png');
      expect(avatar.type).to.equal('image/png');
      expect(Buffer.from(await avatar.arrayBuffer()).equals(files['fixtures/avatar.png']!.bytes)).to.equal(true);
      const [, notes] = parts[2] as [string, File];
      expect(notes.name).to.equal('n.txt');
      expect(Buffer.from(await notes.arrayBuffer()).toString()).to.equal('a\r\n--b');
      expect(upload.sent.parts).to.deep.equal([
        { name: 'note', size: 6 },
        {
          name: 'files',
          filename: 'avatar.png',
          contentType: 'image/png',
          size: 8,
          sha256: createHash('sha256').update(files['fixtures/avatar.png']!.bytes).digest('hex'),
        },
        { name: 'files', filename: 'n.txt', contentType: 'text/plain', size: 6, sha256: files['notes.txt']!.sha256 },
      ]);
    });

    it("gives a binary body the given type, else the request's header, else the file's, else octet-stream", async () => {
      const type = async (file: { file: string; contentType?: string }, header?: string) =>
        ((await prepareUpload({ workspaceId: 'ws', file }, fakeSource(), 'run', header)) as PreparedUpload).contentType;
      expect(await type({ file: 'fixtures/avatar.png', contentType: 'application/x-a' }, 'text/x-h')).to.equal(
        'application/x-a',
      );
      expect(await type({ file: 'fixtures/avatar.png' }, 'text/x-h')).to.equal('text/x-h');
      expect(await type({ file: 'fixtures/avatar.png' })).to.equal('image/png');
      expect(await type({ file: 'notes.txt' })).to.equal('application/octet-stream');
      const upload = (await prepareUpload(
        { workspaceId: 'ws', file: { file: 'notes.txt' } },
        fakeSource(),
        'run',
        undefined,
      )) as PreparedUpload;
      expect(upload.bytes.equals(files['notes.txt']!.bytes)).to.equal(true);
      expect(upload.sent.file).to.include({ name: 'notes.txt', size: 6, sha256: files['notes.txt']!.sha256 });
    });

    it('names every missing ref and builds nothing', async () => {
      const out = await prepareUpload(
        {
          workspaceId: 'ws',
          multipart: [
            { name: 'a', file: 'gone.png' },
            { name: 'b', file: 'fixtures/avatar.png' },
            { name: 'c', file: 'gone.png' },
          ],
        },
        fakeSource(),
        'run',
        undefined,
      );
      expect(out).to.deep.include({ missing: ['gone.png'] });
      expect((out as { message: string }).message)
        .to.include('"gone.png"')
        .and.include('FILE_NOT_FOUND');
      expect(await prepareUpload({ body: 'x' } as never, fakeSource(), 'run', undefined)).to.equal(undefined);
    });
  });

  describe('FileCache', () => {
    it('reads each ref once per scope (concurrent asks share the read), remembers missing ones, forgets on release', async () => {
      const calls: string[][] = [];
      const cache = new FileCache(async (_ws, refs) => {
        calls.push(refs);
        await new Promise((r) => setTimeout(r, 5));
        return new Map(refs.filter((r) => files[r]).map((r) => [r, files[r]!]));
      });
      const both = ['fixtures/avatar.png', 'gone'];
      const answers = await Promise.all([1, 2, 3].map(() => cache.read('run1', 'ws', both)));
      for (const a of answers) expect([...a.keys()]).to.deep.equal(['fixtures/avatar.png']);
      await cache.read('run1', 'ws', [...both, 'notes.txt']);
      expect(calls).to.deep.equal([both, ['notes.txt']]);
      // Another workspace or another run: read again.
      await cache.read('run1', 'ws2', ['notes.txt']);
      await cache.read('run2', 'ws', ['notes.txt']);
      expect(calls).to.have.length(4);
      await cache.release('run1');
      await cache.read('run1', 'ws', ['notes.txt']);
      expect(calls).to.have.length(5);
    });

    it('reads again after a failed read, and serves seeded files without reading', async () => {
      let fail = true;
      let reads = 0;
      const cache = new FileCache(async (_ws, refs) => {
        reads += 1;
        if (fail) throw new Error('store down');
        return new Map(refs.map((r) => [r, files['notes.txt']!]));
      });
      let error: Error | undefined;
      await cache.read('r', 'ws', ['notes.txt']).catch((err: Error) => (error = err));
      expect(error?.message).to.equal('store down');
      fail = false;
      expect((await cache.read('r', 'ws', ['notes.txt'])).size).to.equal(1);
      expect(reads).to.equal(2);
      cache.seed('shard', 'ws', [
        { ref: 'a', file: files['fixtures/avatar.png']! },
        { ref: 'b', file: null },
      ]);
      expect([...(await cache.read('shard', 'ws', ['a', 'b'])).keys()]).to.deep.equal(['a']);
      expect(reads).to.equal(2);
    });
  });

  it('lists the literal refs a load shard preloads, and the last segment of names', () => {
    expect(
      literalFileRefs([
        {
          multipart: [
            { name: 'a', file: 'x.png' },
            { name: 'b', value: 'v' },
            { name: 'c', file: '{{f}}' },
          ],
        },
        { file: 'y.bin' },
        { file: { file: 'x.png' } },
      ]),
    ).to.deep.equal(['x.png', 'y.bin']);
    expect(lastSegment('fixtures/a/b.png')).to.equal('b.png');
    expect(lastSegment('b.png')).to.equal('b.png');
  });

  it('signs the bytes: Digest auth-int and Hawk payload hash over a binary body', () => {
    const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x41]);
    const challenge = { scheme: 'digest', params: { realm: 'r', nonce: 'n', qop: 'auth-int', algorithm: 'MD5' } };
    const md5 = (b: Buffer | string) => createHash('md5').update(b).digest('hex');
    const header = digestAuthorization(
      { type: 'digest', username: 'u', password: 'p' },
      challenge as never,
      { method: 'POST', target: '/x', body: bytes },
      'c',
      '00000001',
    );
    const ha2 = md5(`POST:/x:${md5(bytes)}`);
    const expected = md5(`${md5('u:r:p')}:n:00000001:c:auth-int:${ha2}`);
    expect(header).to.include(`response="${expected}"`);
    // The same bytes read as UTF-8 text would hash differently: the signature saw the bytes.
    expect(md5(bytes)).not.to.equal(md5(bytes.toString('utf8')));

    const signed = signRequest(
      { type: 'hawk', id: 'id', key: 'k', includePayloadHash: true, timestamp: '1', nonce: 'n' },
      {
        method: 'POST',
        url: new URL('http://h/x'),
        target: '/x',
        headers: { 'content-type': 'application/octet-stream' },
        body: bytes,
      },
    );
    const hash = (
      hawk as unknown as { crypto: { calculatePayloadHash(p: Buffer, a: string, t: string): string } }
    ).crypto.calculatePayloadHash(bytes, 'sha256', 'application/octet-stream');
    expect(signed.headers.Authorization).to.include(`hash="${hash}"`);
  });
});
