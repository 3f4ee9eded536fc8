/**
 * The sandbox surface of imported Postman scripts, side by side with Newman (docs/import-postman.md
 * "Side by side with Newman"): one collection per group under test/fixtures/postman/sandbox/
 * (legacy globals, Sugar prototypes, cookies, chai-postman assertions, setNextRequest, throwing
 * scripts, variable types), each run by Newman 6.2.2 (the CLI, its own process) and by Assay
 * (imported with `assay import postman`, run with `assay run --wait`) against the same go-httpbin
 * on loopback. Every test (request :: test name) must pass or fail the same in both; each
 * collection has tests failing on purpose, and the figure of all of them is printed at the end.
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
  type ComparedTest,
} from '../../helpers/newman';

const FIXTURES = path.join(POSTMAN_FIXTURES, 'sandbox');

describe('Postman sandbox surface: same pass/fail per test as Newman (go-httpbin on loopback)', function () {
  this.timeout(300_000);
  let httpbin: { url: string; stop(): void } | undefined;
  let app: TestApp;
  let dir: string;
  let envFile: string;
  const figures: Array<{ group: string; rows: ComparedTest[] }> = [];

  before(async function () {
    httpbin = await startHttpbin();
    app = await startTestApp({ worker: true });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-postman-sandbox-'));
    const environment = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'sandbox.postman_environment.json'), 'utf8'));
    environment.values.find((v: { key: string }) => v.key === 'baseUrl').value = httpbin.url;
    envFile = path.join(dir, 'env.json');
    fs.writeFileSync(envFile, JSON.stringify(environment));
  });
  after(async () => {
    if (figures.length) {
      const all = figures.flatMap((f) => f.rows);
      const same = all.filter((r) => r.newman === r.assay).length;
      console.log(
        `Postman sandbox surface: ${same}/${all.length} tests match Newman (${figures.map((f) => `${f.group} ${f.rows.filter((r) => r.newman === r.assay).length}/${f.rows.length}`).join(', ')})`,
      );
    }
    httpbin?.stop();
    await app?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /**
   * Runs `group`'s collection with Newman and with Assay; @returns both outcomes, the import's
   * report and the run's results. `folders`: folder names to take off Assay's node names.
   */
  async function sideBySide(group: string, folders: string[] = []) {
    const file = path.join(FIXTURES, `${group}.postman_collection.json`);
    const ran = await runNewman(file, ['-e', envFile], dir);
    const newman = newmanOutcomes(ran.summary);
    const imported = await runCli(
      [
        'import',
        'postman',
        file,
        '--environment',
        envFile,
        '--runner',
        group,
        '--folder',
        `sandbox ${group}`,
        '--env-name',
        `sandbox-${group}`,
        '--json',
      ],
      { app, cwd: dir },
    );
    expect(imported.code, imported.stderr).to.equal(0);
    const report = JSON.parse(imported.stdout);
    const run = await runCli(
      ['run', '--runner', group, '--env', report.environment.name, '--wait', '--reporter', 'json', '--out', 'reports'],
      { app, cwd: dir },
    );
    const runId = /Run (run_[0-9A-Za-z]+)/.exec(run.stderr)![1]!;
    const results = (await app.request('GET', `/v1/runs/${runId}/results`)).body;
    // In a single test case (a setNextRequest collection) node names carry their folder: `Folder / Request`.
    const assay = new Map(
      [...assayOutcomes(results)].map(([key, passed]) => [
        folders.reduce((k, f) => (k.startsWith(`${f} / `) ? k.slice(f.length + 3) : k), key),
        passed,
      ]),
    );
    const rows = expectSameOutcomes(newman, assay);
    figures.push({ group, rows });
    return { rows, report, results, newmanCode: ran.code, assayCode: run.code };
  }

  const failing = (rows: ComparedTest[]) => rows.filter((r) => !r.newman).map((r) => r.key);

  it('legacy globals: tests[], responseBody, responseCode, responseHeaders, responseCookies, request, postman.*, xml2Json, tv4, _, CryptoJS', async () => {
    const { rows } = await sideBySide('legacy');
    expect(rows).to.have.length(40);
    expect(failing(rows)).to.have.members([
      'Legacy repeated form-data fields and live scope objects :: deliberately wrong: form-data name given twice is text',
      'Legacy response globals :: deliberately wrong: responseCookies is a list, not an array',
      'Legacy response globals :: deliberately false',
      'Legacy not found :: deliberately wrong: 200',
    ]);
  });

  it('Sugar.js prototype methods, as Postman ships them', async () => {
    const { rows } = await sideBySide('sugar');
    expect(rows).to.have.length(11);
    expect(failing(rows)).to.deep.equal(['Sugar methods :: deliberately wrong: none']);
  });

  it('pm.cookies and the cookie jar across requests', async () => {
    const { rows } = await sideBySide('cookies');
    expect(rows).to.have.length(15);
    expect(failing(rows)).to.deep.equal(['Sends nothing :: deliberately wrong: session']);
  });

  it('chai-postman assertions on pm.response and pm.request, quirks included', async () => {
    const { rows, results } = await sideBySide('chai');
    expect(rows).to.have.length(36);
    expect(failing(rows)).to.have.length(9);
    expect(JSON.stringify(results)).to.include(
      "expected response to have status reason 'UNAUTHORISED' but got 'UNAUTHORIZED'",
    );
  });

  it('setNextRequest: skips ahead, goes back on a counter, stops with null', async () => {
    const { rows, report } = await sideBySide('next-request', ['Folder']);
    expect(rows.map((r) => r.key)).to.deep.equal([
      'Start :: start ran',
      'Third :: third run 1',
      'Second :: second ran after third, loops=1',
      'Third :: third run 2',
      'Second :: second ran after third, loops=2',
      'Third :: third run 3',
      'Stop here :: stop ran after 3 loops',
      'Stop here :: deliberately wrong: loops is 2',
    ]);
    expect(report.testCases).to.have.length(1);
    expect(JSON.stringify(report.warnings)).to.include('setNextRequest');
  });

  it('setNextRequest to a name no request has: ends the run as Newman does, and says so', async () => {
    const { rows, report, results } = await sideBySide('next-request-unresolved');
    expect(rows.map((r) => r.key)).to.deep.equal(['Asks for a missing request :: first ran']);
    expect(JSON.stringify(report.untranslated)).to.include('setNextRequest(\\"No such request\\") names no request');
    expect(JSON.stringify(results)).to.include('setNextRequest(\\"No such request\\"): no request of that name or id');
  });

  it('a script that throws keeps its tests and variables; the next scripts and the request still run', async () => {
    const { rows, results } = await sideBySide('throwing');
    expect(rows).to.have.length(12);
    expect(failing(rows)).to.have.members([
      'Test throws :: a check that throws fails alone',
      'Reads what the throwing scripts set :: deliberately wrong: beforeThrow is 2',
    ]);
    const flat = JSON.stringify(results);
    expect(flat).to.include(
      'a pre-request script failed (the request was sent, as Newman sends it): TypeError: pre-request boom',
    );
    expect(flat).to.include('ReferenceError: undefinedName is not defined');
  });

  it('variable types and names with /, \\ and spaces', async () => {
    const { rows } = await sideBySide('variables');
    expect(rows).to.have.length(19);
    expect(failing(rows)).to.have.members([
      'Types as imported :: deliberately wrong: number is text',
      'Types as set by scripts :: deliberately wrong: false is text',
    ]);
  });
});
