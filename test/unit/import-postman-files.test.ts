/**
 * The Postman importer's file mapping (docs/import-postman.md "Files"; cli/importers/postman-files.ts):
 * form-data file fields → `request.multipart` file parts, binary bodies → `request.file`, the
 * uploads deduplicated by content and named by path, and what cannot be read listed and left out.
 * What is sent is compared with Newman in test/integration/cli/postman-parity-sandbox.test.ts.
 */
import { expect } from 'chai';
import { importPostman, type ImportedApiNode } from '../../cli/importers/postman';
import type { PostmanFileReader } from '../../cli/importers/postman-files';
import { validateFlow } from '../../src/validation/flow';

const ON_DISK: Record<string, string> = {
  'files/a.txt': 'alpha',
  'files/copy-of-a.txt': 'alpha',
  'other/a.txt': 'not alpha',
  'img/p.png': '\u0089PNG',
  '/abs/outside dir/r é.csv': 'x,y',
};

/** A reader over {@link ON_DISK}: paths relative to the working directory, absolute ones outside it. */
const reader: PostmanFileReader = (src) => {
  const text = ON_DISK[src];
  if (text === undefined) return { error: 'does not exist' };
  return { bytes: Buffer.from(text, 'latin1'), relative: src.startsWith('/') ? src.split('/').pop()! : src };
};

const collection = (requests: Array<{ name: string; body: unknown; header?: unknown[] }>) => ({
  info: { name: 'Files', schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json' },
  item: requests.map((r) => ({
    name: r.name,
    request: { method: 'POST', url: 'http://h/upload', header: r.header ?? [], body: r.body },
  })),
});

const nodes = (imported: ReturnType<typeof importPostman>) =>
  imported.testCases.flatMap((tc) => tc.flow) as ImportedApiNode[];

describe('Postman import: files (cli/importers/postman-files.ts)', () => {
  it('form-data with file fields becomes multipart parts in order: several src paths, fileName, contentType', () => {
    const imported = importPostman(
      collection([
        {
          name: 'Upload',
          body: {
            mode: 'formdata',
            formdata: [
              { key: 'title', value: 'T', type: 'text' },
              { key: 'docs', type: 'file', src: ['files/a.txt', 'img/p.png'] },
              { key: 'pic', type: 'file', src: 'img/p.png', contentType: 'image/x-mine', fileName: 'shown.png' },
              { key: 'off', type: 'file', src: 'files/a.txt', disabled: true },
              { key: 'n', value: 5, type: 'text' },
            ],
          },
          header: [{ key: 'Content-Type', value: 'multipart/form-data' }],
        },
      ]),
      undefined,
      { readFile: reader },
    );
    const [node] = nodes(imported);
    expect(node!.request.multipart).to.deep.equal([
      { name: 'title', value: 'T' },
      { name: 'docs', file: 'postman/files/a.txt', filename: 'a.txt' },
      { name: 'docs', file: 'postman/img/p.png', filename: 'p.png' },
      { name: 'pic', file: 'postman/img/p.png', filename: 'shown.png', contentType: 'image/x-mine' },
      { name: 'n', value: '5' },
    ]);
    expect(node!.request.body).to.equal(undefined);
    expect(imported.files.map((f) => [f.file, f.contentType, Buffer.from(f.bytes).toString('latin1')])).to.deep.equal([
      ['postman/files/a.txt', 'text/plain', 'alpha'],
      ['postman/img/p.png', 'image/png', '\u0089PNG'],
    ]);
    expect(imported.untranslated).to.deep.equal([]);
    expect(validateFlow(imported.testCases[0]!.flow as never)).to.deep.equal([]);
  });

  it('one upload per content, named by path; another content under a taken name gets -2', () => {
    const imported = importPostman(
      collection([
        { name: 'One', body: { mode: 'formdata', formdata: [{ key: 'f', type: 'file', src: 'files/a.txt' }] } },
        { name: 'Two', body: { mode: 'formdata', formdata: [{ key: 'f', type: 'file', src: 'files/copy-of-a.txt' }] } },
        { name: 'Three', body: { mode: 'file', file: { src: 'other/a.txt' } } },
        { name: 'Four', body: { mode: 'file', file: { src: '/abs/outside dir/r é.csv' } } },
      ]),
      undefined,
      { readFile: reader },
    );
    expect(imported.files.map((f) => ({ file: f.file, srcs: f.srcs, at: f.at }))).to.deep.equal([
      { file: 'postman/files/a.txt', srcs: ['files/a.txt', 'files/copy-of-a.txt'], at: ['One', 'Two'] },
      { file: 'postman/other/a.txt', srcs: ['other/a.txt'], at: ['Three'] },
      { file: 'postman/r__.csv', srcs: ['/abs/outside dir/r é.csv'], at: ['Four'] },
    ]);
    const [one, two, three, four] = nodes(imported);
    expect(two!.request.multipart).to.deep.equal([
      { name: 'f', file: 'postman/files/a.txt', filename: 'copy-of-a.txt' },
    ]);
    expect(one!.request.multipart![0]!.file).to.equal('postman/files/a.txt');
    expect(three!.request.file).to.equal('postman/other/a.txt');
    expect(four!.request.file).to.equal('postman/r__.csv');
    expect(three!.request.body).to.equal(undefined);
  });

  it('a different content under the same relative name gets a suffix', () => {
    const imported = importPostman(
      collection([
        { name: 'A', body: { mode: 'file', file: { src: 'x/a.txt' } } },
        { name: 'B', body: { mode: 'file', file: { src: 'x\\a.txt' } } },
      ]),
      undefined,
      {
        readFile: (src) => ({ bytes: Buffer.from(src), relative: src }),
      },
    );
    expect(imported.files.map((f) => f.file)).to.deep.equal(['postman/x/a.txt', 'postman/x/a-2.txt']);
  });

  it('a file that cannot be read is listed and left out; the request is still sent', () => {
    const imported = importPostman(
      collection([
        {
          name: 'Form',
          body: {
            mode: 'formdata',
            formdata: [
              { key: 'keep', value: 'k', type: 'text', contentType: 'application/json' },
              { key: 'gone', type: 'file', src: 'nope.txt' },
              { key: 'empty', type: 'file', src: null },
            ],
          },
        },
        { name: 'Binary', body: { mode: 'file', file: { src: 'nope.bin' } } },
      ]),
      undefined,
      { readFile: reader },
    );
    const [form, binary] = nodes(imported);
    expect(form!.request.multipart).to.deep.equal([{ name: 'keep', value: 'k' }]);
    expect(binary!.request.file).to.equal(undefined);
    expect(binary!.request.body).to.equal(undefined);
    expect(imported.files).to.deep.equal([]);
    expect(imported.untranslated.map((n) => `${n.at}: ${n.message}`)).to.deep.equal([
      'Form: form-data text field "keep": its Content-Type application/json is not sent (beside file fields, Assay\'s text parts carry none)',
      'Form: form-data file field "gone": file "nope.txt" does not exist; left out, as Newman leaves out a file it cannot load',
      'Form: form-data file field "empty" names no file (Newman sends it empty, with filename=""); left out',
      'Binary: binary body: file "nope.bin" does not exist; left out, as Newman leaves out a file it cannot load',
    ]);
  });

  it("without a reader (no files read) file fields are listed; form-data of text only stays a text body with its parts' Content-Type", () => {
    const imported = importPostman(
      collection([
        { name: 'Files', body: { mode: 'formdata', formdata: [{ key: 'f', type: 'file', src: 'files/a.txt' }] } },
        {
          name: 'Text',
          body: {
            mode: 'formdata',
            formdata: [{ key: 'j', value: '{"a":1}', type: 'text', contentType: 'application/json' }],
          },
        },
      ]),
    );
    const [files, text] = nodes(imported);
    expect(files!.request.multipart).to.equal(undefined);
    expect(imported.untranslated.map((n) => n.message)).to.deep.equal([
      'form-data file field "f": file "files/a.txt" was not read; left out, as Newman leaves out a file it cannot load',
    ]);
    expect(text!.request.body).to.be.a('string').and.include('Content-Type: application/json\r\n\r\n{"a":1}');
    expect(text!.request.headers!['Content-Type']).to.match(/^multipart\/form-data; boundary=/);
  });
});
