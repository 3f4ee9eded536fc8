/**
 * Files, variable scopes and jsonSchema messages side by side with Newman 6.2.2
 * (docs/import-postman.md "Files", "Variable scopes", "Side by side with Newman"): the collections
 * of test/fixtures/postman/parity/ are run by Newman (its CLI, its own process) and by Assay
 * (`assay import postman`, `assay run --wait`) against the same go-httpbin and request verifier
 * (test/helpers/request-verifier.ts, which answers what bytes arrived) on loopback. Every test
 * (request :: test name) must pass or fail the same in both; the jsonSchema and tv4 tests must
 * also fail with the same message.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startTestApp, type TestApp } from '../../helpers/app';
import { runCli } from '../../helpers/cli';
import {
  assayOutcomes,
  expectSameOutcomes,
  newmanOutcomes,
  POSTMAN_FIXTURES,
  runNewman,
  startHttpbin,
  type NewmanSummary,
} from '../../helpers/newman';
import { startVerifier, type Verifier } from '../../helpers/request-verifier';

const PARITY = path.join(POSTMAN_FIXTURES, 'parity');
const FILES = path.join(PARITY, 'files.postman_collection.json');
const SANDBOX = path.join(PARITY, 'sandbox.postman_collection.json');

interface ResultNode {
  name?: string;
  id: string;
  assertions?: Array<{ name?: string; target: string; passed: boolean; message?: string }>;
}

/** Newman's failed assertions: `request :: test` → the error message of its JSON report. */
function newmanMessages(summary: NewmanSummary): Map<string, string> {
  const out = new Map<string, string>();
  for (const ex of summary.run.executions)
    for (const a of ex.assertions ?? []) if (a.error) out.set(`${ex.item.name} :: ${a.assertion}`, a.error.message);
  return out;
}

/** Assay's failed `$test` checks: `request :: test` → the message the run's results hold. */
function assayMessages(results: { details: { testCases: Array<{ nodes: ResultNode[] }> } }): Map<string, string> {
  const out = new Map<string, string>();
  for (const tc of results.details.testCases)
    for (const n of tc.nodes)
      for (const a of n.assertions ?? [])
        if (a.target === '$test' && !a.passed) out.set(`${n.name ?? n.id} :: ${a.name}`, a.message ?? '');
  return out;
}

describe('Postman parity: files, variable scopes and jsonSchema messages as in Newman 6.2.2', function () {
  this.timeout(300_000);
  let httpbin: { url: string; stop(): void } | undefined;
  let verifier: Verifier | undefined;
  let app: TestApp;
  let dir: string;
  let envFile: string;

  before(async () => {
    [httpbin, verifier, app] = await Promise.all([startHttpbin(), startVerifier(), startTestApp({ worker: true })]);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-postman-parity-'));
    envFile = path.join(dir, 'env.json');
    fs.writeFileSync(
      envFile,
      JSON.stringify({
        name: 'parity',
        values: [
          { key: 'baseUrl', value: httpbin.url, enabled: true },
          { key: 'verifierUrl', value: verifier.url, enabled: true },
        ],
      }),
    );
  });
  after(async () => {
    httpbin?.stop();
    await Promise.all([verifier?.close(), app?.stop()]);
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Imports `collection` (with `args`), runs its runner; @returns the report, the results and the run's exit code. */
  async function importAndRun(collection: string, runner: string, args: string[]) {
    const imported = await runCli(
      ['import', 'postman', collection, '--runner', runner, '--folder', runner, ...args, '--json'],
      { app, cwd: dir },
    );
    expect(imported.code, imported.stderr).to.equal(0);
    const report = JSON.parse(imported.stdout);
    const run = await runCli(['run', '--runner', runner, '--env', report.environment.name, '--wait'], {
      app,
      cwd: dir,
    });
    const runId = /Run (run_[0-9A-Za-z]+)/.exec(run.stderr)![1]!;
    const results = (await app.request('GET', `/v1/runs/${runId}/results`)).body;
    return { report, results, code: run.code };
  }

  const workspaceFiles = async () =>
    ((await app.request('GET', '/v1/files')).body as { items: Array<{ name: string; sha256: string; size: number }> })
      .items;

  describe('files: form-data file fields and binary bodies, --working-dir', () => {
    it('--strict refuses a collection naming a missing file, and --dry-run uploads nothing', async () => {
      const strict = await runCli(
        ['import', 'postman', FILES, '--environment', envFile, '--working-dir', PARITY, '--strict'],
        { app, cwd: dir },
      );
      expect(strict.code).to.equal(2);
      expect(strict.stderr).to.match(/form-data file field "gone": file "files\/missing\.txt" does not exist/);
      const dry = await runCli(
        ['import', 'postman', FILES, '--environment', envFile, '--working-dir', PARITY, '--dry-run', '--json'],
        { app, cwd: dir },
      );
      expect(dry.code, dry.stderr).to.equal(0);
      const report = JSON.parse(dry.stdout);
      expect(report.files.map((f: { file: string; action: string }) => `${f.file} ${f.action}`)).to.deep.equal([
        'postman/files/hello.txt planned',
        'postman/files/pixel.png planned',
      ]);
      expect(await workspaceFiles()).to.deep.equal([]);
    });

    it('without --working-dir, paths are read from the current directory, as Newman reads them', async () => {
      const elsewhere = await runCli(['import', 'postman', FILES, '--environment', envFile, '--dry-run', '--json'], {
        app,
        cwd: dir,
      });
      expect(elsewhere.code, elsewhere.stderr).to.equal(0);
      const report = JSON.parse(elsewhere.stdout);
      expect(report.files).to.deep.equal([]);
      expect(report.untranslated.map((n: { message: string }) => n.message).join('\n')).to.include(
        `file "files/hello.txt" does not exist (${path.join(dir, 'files/hello.txt')})`,
      );
      const here = await runCli(['import', 'postman', FILES, '--environment', envFile, '--dry-run', '--json'], {
        app,
        cwd: PARITY,
      });
      expect(JSON.parse(here.stdout).files).to.have.length(2);
      // An absolute path outside the working directory is read too, named by its file name.
      const outside = path.join(dir, 'outside.postman_collection.json');
      fs.writeFileSync(
        outside,
        JSON.stringify({
          info: { name: 'Outside', schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json' },
          item: [
            {
              name: 'Absolute',
              request: {
                method: 'POST',
                url: 'http://127.0.0.1:1/upload',
                body: { mode: 'file', file: { src: path.join(PARITY, 'files/pixel.png') } },
              },
            },
          ],
        }),
      );
      const abs = await runCli(['import', 'postman', outside, '--working-dir', dir, '--dry-run', '--json'], {
        app,
        cwd: dir,
      });
      expect(JSON.parse(abs.stdout).files.map((f: { file: string; size: number }) => [f.file, f.size])).to.deep.equal([
        ['postman/pixel.png', 69],
      ]);
      const bad = await runCli(['import', 'postman', FILES, '--working-dir', path.join(dir, 'nope'), '--dry-run'], {
        app,
        cwd: dir,
      });
      expect(bad.code).to.equal(2);
      expect(bad.stderr).to.include('--working-dir');
    });

    it('uploads each file once and sends it as Newman does: same pass/fail per test', async () => {
      const ran = await runNewman(FILES, ['-e', envFile, '--working-dir', PARITY], dir);
      expect(ran.code, 'newman exit code (1: two tests fail on purpose)').to.equal(1);
      const { report, results } = await importAndRun(FILES, 'parity-files', [
        '--environment',
        envFile,
        '--working-dir',
        PARITY,
      ]);
      // hello.txt and sub/hello-again.txt hold the same bytes: one workspace file.
      expect(
        report.files.map((f: { file: string; srcs: string[]; action: string }) => [f.file, f.srcs, f.action]),
      ).to.deep.equal([
        ['postman/files/hello.txt', ['files/hello.txt', 'files/sub/hello-again.txt'], 'created'],
        ['postman/files/pixel.png', ['files/pixel.png'], 'created'],
      ]);
      expect(report.untranslated.map((n: { at: string }) => n.at)).to.deep.equal([
        'Files / A missing file is left out',
      ]);
      // Byte for byte in the workspace (the SHA-256 the API computed of what it stored).
      const listed = await workspaceFiles();
      const pixel = fs.readFileSync(path.join(PARITY, 'files/pixel.png'));
      expect(listed.find((f) => f.name === 'postman/files/pixel.png')).to.include({
        size: pixel.length,
        sha256: 'bbf85e31db0a091130bb5f86972332bd6b72edbd324f16977d49d353ed642d22',
      });
      const rows = expectSameOutcomes(newmanOutcomes(ran.summary), assayOutcomes(results));
      expect(rows).to.have.length(20);
      expect(rows.filter((r) => !r.newman).map((r) => r.key)).to.deep.equal([
        'Text file and a field to go-httpbin :: deliberately wrong: file content',
        'Binary body to go-httpbin :: deliberately wrong: type',
      ]);
      // Importing again uploads nothing new.
      const again = await runCli(
        [
          'import',
          'postman',
          FILES,
          '--environment',
          envFile,
          '--working-dir',
          PARITY,
          '--runner',
          'parity-files',
          '--folder',
          'parity-files',
          '--json',
        ],
        { app, cwd: dir },
      );
      expect(JSON.parse(again.stdout).files.map((f: { action: string }) => f.action)).to.deep.equal([
        'unchanged',
        'unchanged',
      ]);
    });
  });

  describe('sandbox: variable scopes and jsonSchema messages', () => {
    let newman: { code: number | null; summary: NewmanSummary };
    let assay: Awaited<ReturnType<typeof importAndRun>>;
    before(async () => {
      // The request URLs' base is a global, so that clearing the environment keeps it, as in Newman.
      const globals = JSON.parse(fs.readFileSync(path.join(PARITY, 'sandbox.postman_globals.json'), 'utf8'));
      globals.values.find((v: { key: string }) => v.key === 'baseUrl').value = httpbin!.url;
      const globalsFile = path.join(dir, 'globals.json');
      fs.writeFileSync(globalsFile, JSON.stringify(globals));
      const environment = path.join(PARITY, 'sandbox.postman_environment.json');
      newman = await runNewman(SANDBOX, ['-e', environment, '-g', globalsFile], dir);
      assay = await importAndRun(SANDBOX, 'parity-sandbox', ['--environment', environment, '--globals', globalsFile]);
    });

    it('jsonSchema and tv4 tests fail with the messages Newman reports', () => {
      const theirs = newmanMessages(newman.summary);
      // Assay's results hold `AssertionError: <message>`; Newman's report the message alone.
      const ours = new Map([...assayMessages(assay.results)].map(([k, m]) => [k, m.replace(/^AssertionError: /, '')]));
      const schemaTests = [...theirs.keys()].filter((k) => /^(jsonSchema|tv4)/.test(k));
      expect(schemaTests).to.have.length(14);
      const differing = schemaTests.filter((k) => theirs.get(k) !== ours.get(k));
      if (differing.length)
        console.log(differing.map((k) => `${k}\n  newman: ${theirs.get(k)}\n  assay:  ${ours.get(k)}`).join('\n'));
      expect(differing).to.deep.equal([]);
      expect(theirs.get('jsonSchema with pm.expect :: property names that are not identifiers')).to.equal(
        "expected data to satisfy schema but found following errors: \ndata['a-b'] should be number, data.list[1] should be number",
      );
    });

    it('clear, unset, set and toObject per scope: every test passes or fails as in Newman', () => {
      const rows = expectSameOutcomes(newmanOutcomes(newman.summary), assayOutcomes(assay.results));
      expect(rows).to.have.length(60);
      expect(rows.filter((r) => !r.newman && !/^(jsonSchema|tv4)/.test(r.key)).map((r) => r.key)).to.deep.equal([
        'Clear then recreate :: deliberately wrong: a',
        'Local variables, unset and clear per scope :: deliberately wrong: cleared',
      ]);
      expect(assay.report.warnings.map((w: { message: string }) => w.message).join('\n')).to.match(
        /scripts clear variable scopes/,
      );
    });
  });
});
