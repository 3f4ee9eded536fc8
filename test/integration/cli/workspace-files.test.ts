/**
 * Workspace files from the command line (docs/cli.md "Workspace files") and in tests as files
 * (docs/tests-as-files.md "Workspace files"), with the built `assay` binary against a real API:
 * upload, list, download and delete round trip byte for byte (every byte value 0–255), errors of
 * a missing file, a bad name, a file over the size limit and a full quota; `export` writes
 * `files/`, `apply` uploads new and changed files, prunes removed ones, and a dry run changes nothing.
 */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import YAML from 'yaml';
import { main } from '../../../cli/main';
import { startTestApp, type TestApp } from '../../helpers/app';
import { runCli, type CliRun } from '../../helpers/cli';

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** 1,024 bytes: every byte value 0–255, four times over (NUL, CR, LF, 0x80–0xFF: not UTF-8). */
const ALL_BYTES = Buffer.concat([0, 1, 2, 3].map(() => Buffer.from(Array.from({ length: 256 }, (_, i) => i))));
const CSV = Buffer.from('id,name\n1,Ada\n2,Grace\n');
/** A workspace file that reads as YAML: apply must not take it for a resource file. */
const YAML_FILE = Buffer.from('kind: Widget\nname: not a resource\n');
/** The server's largest file in this test (ASSAY_FILE_MAX_BYTES). */
const MAX_BYTES = 64 * 1024;

interface FileJson {
  name: string;
  contentType: string;
  size: number;
  sha256: string;
}

describe('assay files, and workspace files in export/apply', function () {
  this.timeout(180_000);
  let app: TestApp;
  let tmp: string;

  const cli = (args: string[], key?: string): Promise<CliRun> =>
    runCli(args, { app, cwd: tmp, env: key ? { ASSAY_API_KEY: key } : {} });

  /** The workspace's files as the API lists them, by name. */
  async function files(key = app.key): Promise<Record<string, FileJson>> {
    const res = await app.request('GET', '/v1/files?limit=200', undefined, { key });
    expect(res.status).to.equal(200);
    const items = res.body.items as Array<FileJson & Record<string, unknown>>;
    return Object.fromEntries(
      items.map((f) => [f.name, { name: f.name, contentType: f.contentType, size: f.size, sha256: f.sha256 }]),
    );
  }

  /** A file's content as the API answers it. */
  async function content(name: string): Promise<Buffer> {
    const res = await fetch(`${app.url}/v1/files/${encodeURIComponent(name)}/content`, {
      headers: { authorization: `Bearer ${app.key}` },
    });
    expect(res.status, name).to.equal(200);
    return Buffer.from(await res.arrayBuffer());
  }

  before(async () => {
    app = await startTestApp({ env: { ASSAY_FILE_MAX_BYTES: String(MAX_BYTES), ASSAY_QUOTA_FILE_BYTES: '100000' } });
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'assay-workspace-files-'));
    await fs.writeFile(path.join(tmp, 'all-bytes.bin'), ALL_BYTES);
    await fs.writeFile(path.join(tmp, 'users.csv'), CSV);
  });

  after(async () => {
    await app?.stop();
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  });

  it('uploads, lists, downloads and deletes a file byte for byte', async () => {
    const up = await cli(['files', 'upload', 'all-bytes.bin', '--name', 'fixtures/all-bytes.bin']);
    expect(up.code, up.stderr).to.equal(0);
    expect(up.stdout.trim()).to.equal(
      `Uploaded fixtures/all-bytes.bin: created (1.0 KiB, application/octet-stream, sha256 ${sha256(ALL_BYTES)})`,
    );
    expect((await files())['fixtures/all-bytes.bin']).to.deep.equal({
      name: 'fixtures/all-bytes.bin',
      contentType: 'application/octet-stream',
      size: 1024,
      sha256: sha256(ALL_BYTES),
    });
    expect(await content('fixtures/all-bytes.bin')).to.deep.equal(ALL_BYTES);

    // The name defaults to the base name, the type is guessed from the extension; --type wins.
    const csv = await cli(['files', 'upload', path.join(tmp, 'users.csv')]);
    expect(csv.code, csv.stderr).to.equal(0);
    expect(csv.stdout).to.include('Uploaded users.csv: created (22 bytes, text/csv, sha256');
    const again = await cli(['files', 'upload', 'users.csv', '--type', 'text/plain; charset=utf-8']);
    expect(again.code, again.stderr).to.equal(0);
    expect(again.stdout).to.include('Uploaded users.csv: replaced (22 bytes, text/plain; charset=utf-8,');
    expect((await files())['users.csv']?.contentType).to.equal('text/plain; charset=utf-8');

    const list = await cli(['files', 'list']);
    expect(list.code, list.stderr).to.equal(0);
    const rows = list.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows.map((r) => r.slice(0, 3))).to.deep.equal([
      ['fixtures/all-bytes.bin', '1024', 'application/octet-stream'],
      ['users.csv', '22', 'text/plain; charset=utf-8'],
    ]);
    expect(rows[0]![3]).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    const json = await cli(['files', 'list', '--json']);
    expect(json.code, json.stderr).to.equal(0);
    const listed = JSON.parse(json.stdout) as FileJson[];
    expect(listed.map((f) => [f.name, f.sha256])).to.deep.equal([
      ['fixtures/all-bytes.bin', sha256(ALL_BYTES)],
      ['users.csv', sha256(CSV)],
    ]);

    const down = await cli(['files', 'download', 'fixtures/all-bytes.bin', '--out', 'copy.bin']);
    expect(down.code, down.stderr).to.equal(0);
    expect(down.stdout.trim()).to.equal('Downloaded fixtures/all-bytes.bin to copy.bin (1.0 KiB)');
    expect(await fs.readFile(path.join(tmp, 'copy.bin'))).to.deep.equal(ALL_BYTES);
    // No --out: the base name, here (an existing file replaced); a directory: into it.
    await fs.writeFile(path.join(tmp, 'all-bytes.bin'), 'old content');
    await fs.mkdir(path.join(tmp, 'into'));
    const here = await cli(['files', 'download', 'fixtures/all-bytes.bin']);
    expect(here.code, here.stderr).to.equal(0);
    expect(await fs.readFile(path.join(tmp, 'all-bytes.bin'))).to.deep.equal(ALL_BYTES);
    const into = await cli(['files', 'download', 'users.csv', '--out', 'into']);
    expect(into.code, into.stderr).to.equal(0);
    expect(await fs.readFile(path.join(tmp, 'into/users.csv'))).to.deep.equal(CSV);

    // `--out -`: the bytes alone on stdout (in this process, to read stdout as bytes).
    const chunks: Buffer[] = [];
    const stdout = new PassThrough();
    stdout.on('data', (c: Buffer) => chunks.push(c));
    let stderr = '';
    const code = await main(['files', 'download', 'fixtures/all-bytes.bin', '--out', '-'], {
      stdout,
      stderr: { write: (t: string) => (stderr += t) },
      stdin: new PassThrough(),
      env: { ASSAY_URL: app.url, ASSAY_API_KEY: app.key },
      cwd: tmp,
      onSignal: () => () => {},
    });
    expect(code, stderr).to.equal(0);
    expect(Buffer.concat(chunks)).to.deep.equal(ALL_BYTES);

    const del = await cli(['files', 'delete', 'fixtures/all-bytes.bin']);
    expect(del.code, del.stderr).to.equal(0);
    expect(del.stdout.trim()).to.equal('Deleted fixtures/all-bytes.bin.');
    expect(Object.keys(await files())).to.deep.equal(['users.csv']);
    const del2 = await cli(['files', 'delete', 'users.csv']);
    expect(del2.code, del2.stderr).to.equal(0);
    const empty = await cli(['files', 'list']);
    expect(empty.code).to.equal(0);
    expect(empty.stdout).to.equal('');
    expect(empty.stderr).to.include('No files yet');
  });

  it('reports a missing file, a bad name or type, an unreadable path, a file too large and a full quota: one line, nothing stored', async () => {
    const missing = await cli(['files', 'download', 'fixtures/nope.bin', '--out', 'nope.bin']);
    expect(missing.code).to.equal(2);
    expect(missing.stderr.trim()).to.equal(
      'assay: GET /v1/files/fixtures/nope.bin/content: Not found (404): File "fixtures/nope.bin" does not exist.',
    );
    await fs.access(path.join(tmp, 'nope.bin')).then(
      () => expect.fail('a failed download wrote its file'),
      () => undefined,
    );
    const delMissing = await cli(['files', 'delete', 'nope.bin']);
    expect(delMissing.code).to.equal(2);
    expect(delMissing.stderr).to.include('Not found (404): File "nope.bin" does not exist.');

    const noPath = await cli(['files', 'upload', 'absent.txt']);
    expect(noPath.code).to.equal(2);
    expect(noPath.stderr.trim()).to.equal('assay: cannot read absent.txt: no such file or directory');
    const dir = await cli(['files', 'upload', 'into', '--name', 'dir.bin']);
    expect(dir.code).to.equal(2);
    expect(dir.stderr.trim()).to.equal('assay: cannot read into: it is a directory');

    await fs.writeFile(path.join(tmp, 'my file.txt'), 'x');
    const spaced = await cli(['files', 'upload', 'my file.txt']);
    expect(spaced.code).to.equal(2);
    expect(spaced.stderr).to.include('assay: file name "my file.txt" is not allowed').and.include('(pass --name NAME)');
    const dotted = await cli(['files', 'upload', 'my file.txt', '--name', 'a/../b.txt']);
    expect(dotted.code).to.equal(2);
    expect(dotted.stderr).to.include('file name "a/../b.txt" is not allowed');
    const badType = await cli(['files', 'upload', 'users.csv', '--type', 'csv']);
    expect(badType.code).to.equal(2);
    expect(badType.stderr.trim()).to.equal('assay: --type "csv" is not a content type (type/subtype, e.g. text/csv)');
    const usage = await cli(['files', 'download']);
    expect(usage.code).to.equal(2);
    expect(usage.stderr).to.include("missing required argument 'name'");

    await fs.writeFile(path.join(tmp, 'big.bin'), Buffer.alloc(MAX_BYTES + 1, 7));
    const big = await cli(['files', 'upload', 'big.bin']);
    expect(big.code, big.stderr).to.equal(2);
    expect(big.stderr.trim()).to.equal(
      `assay: PUT /v1/files/big.bin: File too large (413): The file is larger than ${MAX_BYTES} bytes, the largest this server stores (ASSAY_FILE_MAX_BYTES). Nothing was stored.`,
    );

    // The quota (100,000 bytes of distinct content, per workspace) in a workspace of its own.
    const quotaKey = await app.issueKey('write', 'quota-workspace');
    await fs.writeFile(path.join(tmp, 'a.bin'), Buffer.alloc(60_000, 1));
    await fs.writeFile(path.join(tmp, 'b.bin'), Buffer.alloc(60_000, 2));
    const first = await cli(['files', 'upload', 'a.bin'], quotaKey);
    expect(first.code, first.stderr).to.equal(0);
    const started = Date.now();
    const full = await cli(['files', 'upload', 'b.bin'], quotaKey);
    expect(full.code).to.equal(2);
    expect(full.stderr).to.match(
      /^assay: PUT \/v1\/files\/b\.bin: Quota exceeded \(429\): The workspace's files hold 60000 bytes of distinct content; this file would add 60000, past the 100000 allowed \(ASSAY_QUOTA_FILE_BYTES\)/,
    );
    // Reported at once, not retried for seconds: waiting does not free storage.
    expect(Date.now() - started).to.be.below(5000);
    expect(Object.keys(await files(quotaKey))).to.deep.equal(['a.bin']);
    expect(await files()).to.deep.equal({});
  });

  it('exports workspace files under files/, and apply uploads changed and new ones, prunes removed ones, a dry run changing nothing', async () => {
    for (const args of [
      ['all-bytes.bin', '--name', 'fixtures/all-bytes.bin'],
      ['users.csv', '--name', 'data/users.csv', '--type', 'text/csv; charset=utf-8'],
    ]) {
      const up = await cli(['files', 'upload', ...args]);
      expect(up.code, up.stderr).to.equal(0);
    }
    await fs.writeFile(path.join(tmp, 'settings.yaml'), YAML_FILE);
    expect((await cli(['files', 'upload', 'settings.yaml', '--name', 'config/settings.yaml'])).code).to.equal(0);
    // A test case that names files: exported and applied with the names as they are.
    const made = await app.request('POST', '/v1/test-cases', {
      name: 'upload avatar',
      flow: [
        {
          type: 'api',
          id: 'upload',
          request: {
            method: 'POST',
            url: 'http://127.0.0.1:9/upload',
            multipart: [
              { name: 'note', value: 'hello' },
              { name: 'data', file: 'data/users.csv' },
            ],
          },
        },
        {
          type: 'api',
          id: 'raw',
          request: { method: 'PUT', url: 'http://127.0.0.1:9/raw', file: 'fixtures/all-bytes.bin' },
        },
      ],
    });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);

    const exported = await cli(['export', '--dir', 'e1']);
    expect(exported.code, exported.stderr).to.equal(0);
    expect(exported.stdout.split('\n').filter((l) => l.includes('files'))).to.deep.equal([
      'wrote e1/files/config/settings.yaml',
      'wrote e1/files/data/users.csv',
      'wrote e1/files/fixtures/all-bytes.bin',
      'Exported 3 workspace files to e1/files: 3 written, 0 unchanged.',
    ]);
    const e1 = path.join(tmp, 'e1');
    expect(await fs.readFile(path.join(e1, 'files/fixtures/all-bytes.bin'))).to.deep.equal(ALL_BYTES);
    expect(await fs.readFile(path.join(e1, 'files/data/users.csv'))).to.deep.equal(CSV);
    expect(await fs.readFile(path.join(e1, 'files/config/settings.yaml'))).to.deep.equal(YAML_FILE);
    const testCase = YAML.parse(await fs.readFile(path.join(e1, 'test-cases/upload-avatar.yaml'), 'utf8'));
    expect(testCase.flow[0].request.multipart[1]).to.deep.equal({ name: 'data', file: 'data/users.csv' });
    expect(testCase.flow[1].request.file).to.equal('fixtures/all-bytes.bin');

    const reexported = await cli(['export', '--dir', 'e1']);
    expect(reexported.code, reexported.stderr).to.equal(0);
    expect(reexported.stdout).to.include('Exported 3 workspace files to e1/files: 0 written, 3 unchanged.');
    expect(reexported.stdout).not.to.include('wrote');

    const same = await cli(['apply', '--dir', 'e1']);
    expect(same.code, same.stderr).to.equal(0);
    expect(same.stdout).to.include('= 4 unchanged').and.include('No changes: the workspace matches e1.');

    // Edit the copy: change one file, add one, remove one.
    await fs.cp(e1, path.join(tmp, 'e2'), { recursive: true });
    const e2 = path.join(tmp, 'e2');
    const csv2 = Buffer.from('id,name\n1,Ada\n2,Grace\n3,Edsger\n');
    await fs.writeFile(path.join(e2, 'files/data/users.csv'), csv2);
    await fs.writeFile(path.join(e2, 'files/data/notes.txt'), 'new\n');
    await fs.rm(path.join(e2, 'files/fixtures/all-bytes.bin'));
    // Hidden files are not workspace files.
    await fs.writeFile(path.join(e2, 'files/data/.DS_Store'), 'x');
    const before = await files();

    const dry = await cli(['apply', '--dir', 'e2', '--dry-run']);
    expect(dry.code, dry.stderr).to.equal(0);
    expect(dry.stdout.trim().split('\n')).to.deep.equal([
      '+ create file data/notes.txt (4 bytes)',
      '~ update file data/users.csv (content)',
      '= 2 unchanged',
      '= 1 without a file, kept (--prune deletes them): file fixtures/all-bytes.bin',
      'Plan: 1 to create, 1 to update, 0 to delete.',
    ]);
    const dryPrune = await cli(['apply', '--dir', 'e2', '--dry-run', '--prune']);
    expect(dryPrune.code, dryPrune.stderr).to.equal(0);
    expect(dryPrune.stdout).to.include('- delete file fixtures/all-bytes.bin\n');
    expect(dryPrune.stdout).to.include('Plan: 1 to create, 1 to update, 1 to delete.');
    expect(dryPrune.stderr).to.include('Dry run: nothing was changed.');
    expect(await files()).to.deep.equal(before);

    // The removed file is still named by the test case, so the apply that prunes it also drops the node.
    const tcFile = path.join(e2, 'test-cases/upload-avatar.yaml');
    const tc = YAML.parse(await fs.readFile(tcFile, 'utf8'));
    tc.flow = tc.flow.slice(0, 1);
    await fs.writeFile(tcFile, YAML.stringify(tc));
    const applied = await cli(['apply', '--dir', 'e2', '--prune']);
    expect(applied.code, applied.stderr).to.equal(0);
    expect(applied.stdout.split('\n').filter((l) => /^[+~-] /.test(l))).to.deep.equal([
      '+ create file data/notes.txt (4 bytes)',
      '~ update file data/users.csv (content)',
      '~ update test case upload avatar (flow)',
      '- delete file fixtures/all-bytes.bin',
    ]);
    expect(applied.stdout).to.include('Applied: 1 created, 2 updated, 1 deleted.');
    const after = await files();
    expect(Object.keys(after)).to.deep.equal(['config/settings.yaml', 'data/notes.txt', 'data/users.csv']);
    // An update keeps the workspace file's content type; a create takes its extension's.
    expect(after['data/users.csv']).to.deep.equal({
      name: 'data/users.csv',
      contentType: 'text/csv; charset=utf-8',
      size: csv2.length,
      sha256: sha256(csv2),
    });
    expect(after['data/notes.txt']?.contentType).to.equal('text/plain');
    expect(await content('data/users.csv')).to.deep.equal(csv2);
    expect(await content('data/notes.txt')).to.deep.equal(Buffer.from('new\n'));

    const again = await cli(['apply', '--dir', 'e2', '--prune']);
    expect(again.code, again.stderr).to.equal(0);
    expect(again.stdout).to.include('No changes');

    // Export --clean into the first copy removes the file the workspace no longer has.
    const clean = await cli(['export', '--dir', 'e1', '--clean']);
    expect(clean.code, clean.stderr).to.equal(0);
    expect(clean.stdout).to.include(
      'removed e1/files/fixtures/all-bytes.bin (file fixtures/all-bytes.bin no longer exists)',
    );
    await fs.access(path.join(e1, 'files/fixtures')).then(
      () => expect.fail('export --clean left an empty folder'),
      () => undefined,
    );
    expect(await fs.readFile(path.join(e1, 'files/data/users.csv'))).to.deep.equal(csv2);
  });

  it('refuses a file under files/ whose path is not a file name, changing nothing', async () => {
    await fs.cp(path.join(tmp, 'e2'), path.join(tmp, 'e3'), { recursive: true });
    await fs.writeFile(path.join(tmp, 'e3/files/bad name.txt'), 'x');
    await fs.writeFile(path.join(tmp, 'e3/files/data/notes.txt'), 'changed\n');
    const before = await files();
    const res = await cli(['apply', '--dir', 'e3']);
    expect(res.code).to.equal(2);
    expect(res.stderr).to.include('assay: e3/files/bad name.txt: a file name is 1 to 200 letters, digits');
    expect(res.stderr).to.include('1 problem in e3; nothing was changed');
    expect(await files()).to.deep.equal(before);
  });

  it('never exports nor prunes a workspace file whose name cannot be a path under files/', async () => {
    const key = await app.issueKey('write', 'odd-names');
    for (const name of ['config/.env', 'a', 'a/b', 'plain.txt']) {
      const up = await cli(['files', 'upload', 'users.csv', '--name', name], key);
      expect(up.code, up.stderr).to.equal(0);
    }
    const exported = await cli(['export', '--dir', 'e4'], key);
    expect(exported.code, exported.stderr).to.equal(0);
    expect(exported.stdout).to.include('Exported 2 workspace files to e4/files: 2 written, 0 unchanged.');
    expect(exported.stderr)
      .to.include('warning: file a is not exported: another file\'s name uses "a/" as a folder')
      .and.include('warning: file config/.env is not exported: a path segment starts with "."');
    const written: string[] = [];
    const walk = async (rel: string): Promise<void> => {
      for (const e of await fs.readdir(path.join(tmp, 'e4/files', rel), { withFileTypes: true })) {
        if (e.isDirectory()) await walk(path.join(rel, e.name));
        else written.push(path.join(rel, e.name));
      }
    };
    await walk('');
    expect(written.sort()).to.deep.equal(['a/b', 'plain.txt']);

    await fs.rm(path.join(tmp, 'e4/files/plain.txt'));
    const before = await files(key);
    const pruned = await cli(['apply', '--dir', 'e4', '--prune'], key);
    expect(pruned.code, pruned.stderr).to.equal(0);
    expect(pruned.stdout.split('\n').filter((l) => /^[+~-] /.test(l))).to.deep.equal(['- delete file plain.txt']);
    expect(pruned.stderr).to.include('warning: file config/.env is kept: its name cannot be a path under files/');
    const { 'plain.txt': _gone, ...kept } = before;
    expect(await files(key)).to.deep.equal(kept);
  });
});
