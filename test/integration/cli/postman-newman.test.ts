/**
 * Postman import, side by side with Newman (docs/import-postman.md "Side by side with Newman"): the coverage collection
 * (test/fixtures/postman/, every construct the importer translates: folders, collection and
 * folder scripts, query/headers with disabled entries, raw JSON/text, urlencoded, form-data,
 * basic/bearer/API-key auth inherited and overridden, pre-request variables used by their own
 * request, variables passed between requests, path variables, pm.sendRequest, chai, jsonSchema,
 * legacy `tests[]`/`postman.*`, deliberately failing tests) is run by Newman (in-process, the npm
 * package) and by Assay (imported with `assay import postman`, run with `assay run --wait`) against
 * the same go-httpbin on loopback. Every test (request :: test name) must pass or fail the same in
 * both.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startTestApp, type TestApp } from '../../helpers/app';
import { runCli } from '../../helpers/cli';
import { waitForHttp } from '../../helpers/processes';
import { freePort } from '../../../src/net/free-port';

const FIXTURES = path.resolve(__dirname, '../../../../test/fixtures/postman');
const ROOT = path.resolve(__dirname, '../../../..');

/**
 * Runs the collection with the Newman CLI in its own process (as users run it; in-process, its
 * sandbox would share this mocha process with every other test file); answers `request :: test` → passed.
 */
async function runNewman(collectionFile: string, environmentFile: string, dir: string): Promise<Map<string, boolean>> {
  const report = path.join(dir, 'newman.json');
  const newman = path.join(ROOT, 'node_modules/newman/bin/newman.js');
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [newman, 'run', collectionFile, '-e', environmentFile, '-r', 'json', '--reporter-json-export', report],
      { stdio: 'ignore', cwd: dir },
    );
    child.on('error', reject);
    child.on('exit', resolve);
  });
  expect(code, 'newman exit code (1: some tests fail on purpose)').to.equal(1);
  const summary = JSON.parse(fs.readFileSync(report, 'utf8')) as NewmanSummary;
  const out = new Map<string, boolean>();
  for (const ex of summary.run.executions)
    for (const a of ex.assertions ?? []) out.set(`${ex.item.name} :: ${a.assertion}`, !a.error);
  return out;
}

interface NewmanSummary {
  run: {
    executions: Array<{
      item: { name: string };
      assertions?: Array<{ assertion: string; error?: { message: string } }>;
    }>;
  };
}

interface ResultNode {
  name?: string;
  id: string;
  assertions?: Array<{ name?: string; target: string; passed: boolean; message?: string }>;
  children?: ResultNode[];
}

/** Assay's results as `request :: test` → passed (the `$test` checks of each API node). */
function assayOutcomes(results: { details: { testCases: Array<{ nodes: ResultNode[] }> } }): Map<string, boolean> {
  const out = new Map<string, boolean>();
  const walk = (nodes: ResultNode[]) => {
    for (const n of nodes) {
      for (const a of n.assertions ?? []) if (a.target === '$test') out.set(`${n.name ?? n.id} :: ${a.name}`, a.passed);
      if (n.children) walk(n.children);
    }
  };
  for (const tc of results.details.testCases) walk(tc.nodes);
  return out;
}

describe('Postman import: same pass/fail per test as Newman (go-httpbin on loopback)', function () {
  this.timeout(300_000);
  let httpbin: ChildProcess | undefined;
  let baseUrl = '';
  let app: TestApp;
  let dir: string;

  before(async function () {
    let bin: string;
    try {
      bin = execFileSync(path.join(ROOT, 'scripts/ensure-httpbin.sh'), {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      }).trim();
    } catch (err) {
      throw new Error(`go-httpbin is needed (scripts/ensure-httpbin.sh builds it with Go): ${(err as Error).message}`, {
        cause: err,
      });
    }
    const port = await freePort();
    httpbin = spawn(bin, ['-host', '127.0.0.1', '-port', String(port)], { stdio: 'ignore' });
    baseUrl = `http://127.0.0.1:${port}`;
    await waitForHttp(`${baseUrl}/status/200`);
    app = await startTestApp({ worker: true });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-postman-'));
  });
  after(async () => {
    httpbin?.kill();
    await app?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('imports the collection, runs it, and every test passes or fails as in Newman', async () => {
    const environment = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'httpbin.postman_environment.json'), 'utf8'));
    environment.values.find((v: { key: string }) => v.key === 'baseUrl').value = baseUrl;
    const envFile = path.join(dir, 'env.json');
    fs.writeFileSync(envFile, JSON.stringify(environment));

    const newman = await runNewman(path.join(FIXTURES, 'coverage.postman_collection.json'), envFile, dir);

    const imported = await runCli(
      [
        'import',
        'postman',
        path.join(FIXTURES, 'coverage.postman_collection.json'),
        '--environment',
        envFile,
        '--runner',
        'coverage',
      ],
      { app, cwd: dir },
    );
    expect(imported.code, imported.stderr).to.equal(0);
    expect(imported.stderr).to.include('Imported "Assay Postman coverage": 21 requests into 5 test cases.');
    expect(imported.stderr).to.match(/folder variables \(folderVar\) are not imported/);

    const run = await runCli(
      ['run', '--runner', 'coverage', '--env', 'httpbin-local', '--wait', '--reporter', 'json', '--out', 'reports'],
      { app, cwd: dir },
    );
    const runId = /Run (run_[0-9A-Za-z]+)/.exec(run.stderr)![1]!;
    const results = (await app.request('GET', `/v1/runs/${runId}/results`)).body;
    expect(run.code, run.stderr).to.equal(1); // the collection has deliberately failing tests
    const assay = assayOutcomes(results);

    const rows = [...new Set([...newman.keys(), ...assay.keys()])].map((key) => ({
      key,
      newman: newman.get(key),
      assay: assay.get(key),
    }));
    const differing = rows.filter((r) => r.newman !== r.assay);
    if (differing.length || process.env.ASSAY_PRINT_COMPARISON)
      console.log(
        rows
          .map(
            (r) =>
              `${r.newman === undefined ? '-' : r.newman ? 'pass' : 'FAIL'}\t${r.assay === undefined ? '-' : r.assay ? 'pass' : 'FAIL'}\t${r.key}`,
          )
          .join('\n'),
      );
    expect(differing, 'tests whose outcome differs (Newman vs Assay)').to.deep.equal([]);
    expect(rows.length).to.be.greaterThan(50);
    const failed = rows.filter((r) => !r.newman).map((r) => r.key);
    expect(failed).to.have.members([
      'Not found is expected :: deliberately wrong: expects 200',
      'Custom headers :: deliberately wrong: header value',
      'Second reads it :: folder variable',
      'Second reads it :: deliberately wrong: variable',
      'Chai and schema :: deliberately wrong: schema',
      'Chai and schema :: throws a TypeError',
    ]);
    // Failures carry Newman's messages.
    const flat = JSON.stringify(results);
    expect(flat).to.include('expected response to have status code 200 but got 404');
  });

  it('importing again changes nothing; --dry-run writes nothing', async () => {
    const again = await runCli(
      [
        'import',
        'postman',
        path.join(FIXTURES, 'coverage.postman_collection.json'),
        '--runner',
        'coverage',
        '--env-name',
        'httpbin-local',
        '--json',
      ],
      { app, cwd: dir },
    );
    expect(again.code, again.stderr).to.equal(0);
    const report = JSON.parse(again.stdout);
    expect(report.testCases.map((t: { action: string }) => t.action)).to.deep.equal([
      'unchanged',
      'unchanged',
      'unchanged',
      'unchanged',
      'unchanged',
    ]);
    expect(report.runner.action).to.equal('unchanged');
    const listed = (await app.request('GET', '/v1/test-cases?folder=Assay%20Postman%20coverage')).body.items;
    expect(listed).to.have.length(5);

    const dry = await runCli(
      [
        'import',
        'postman',
        path.join(FIXTURES, 'coverage.postman_collection.json'),
        '--folder',
        'dry',
        '--runner',
        'dry',
        '--dry-run',
      ],
      { app, cwd: dir },
    );
    expect(dry.code, dry.stderr).to.equal(0);
    expect(dry.stderr).to.include('Would import');
    expect((await app.request('GET', '/v1/test-cases?folder=dry')).body.items).to.have.length(0);
    expect((await app.request('GET', '/v1/runners/dry')).status).to.equal(404);
  });
});
