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
  POSTMAN_FIXTURES as FIXTURES,
  runNewman,
  startHttpbin,
} from '../../helpers/newman';

describe('Postman import: same pass/fail per test as Newman (go-httpbin on loopback)', function () {
  this.timeout(300_000);
  let httpbin: { url: string; stop(): void } | undefined;
  let baseUrl = '';
  let app: TestApp;
  let dir: string;

  before(async function () {
    httpbin = await startHttpbin();
    baseUrl = httpbin.url;
    app = await startTestApp({ worker: true });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-postman-'));
  });
  after(async () => {
    httpbin?.stop();
    await app?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('imports the collection, runs it, and every test passes or fails as in Newman', async () => {
    const environment = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'httpbin.postman_environment.json'), 'utf8'));
    environment.values.find((v: { key: string }) => v.key === 'baseUrl').value = baseUrl;
    const envFile = path.join(dir, 'env.json');
    fs.writeFileSync(envFile, JSON.stringify(environment));

    const ran = await runNewman(path.join(FIXTURES, 'coverage.postman_collection.json'), ['-e', envFile], dir);
    expect(ran.code, 'newman exit code (1: some tests fail on purpose)').to.equal(1);
    const newman = newmanOutcomes(ran.summary);

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

    const rows = expectSameOutcomes(newman, assay);
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
