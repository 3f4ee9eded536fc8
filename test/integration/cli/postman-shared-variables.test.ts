/**
 * A collection whose log-in folder stores what later folders use (a token, a global, a counter
 * carried through two folders), imported the default way — one test case per folder — and run by
 * Newman and by Assay side by side: the importer makes the runner share variables across its test
 * cases (`variableScope: "run"`, docs/import-postman.md), so every test passes or fails as in Newman.
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
} from '../../helpers/newman';

const COLLECTION = path.join(POSTMAN_FIXTURES, 'shared/shared-variables.postman_collection.json');

describe('Postman import: variables passed between folders, as Newman passes them', function () {
  this.timeout(300_000);
  let httpbin: { url: string; stop(): void } | undefined;
  let app: TestApp;
  let dir: string;

  before(async () => {
    httpbin = await startHttpbin();
    app = await startTestApp({ worker: true });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-postman-shared-'));
  });
  after(async () => {
    httpbin?.stop();
    await app?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('imports folders as test cases sharing variables, and every test matches Newman', async () => {
    const environment = JSON.parse(
      fs.readFileSync(path.join(POSTMAN_FIXTURES, 'httpbin.postman_environment.json'), 'utf8'),
    );
    environment.values.find((v: { key: string }) => v.key === 'baseUrl').value = httpbin!.url;
    const envFile = path.join(dir, 'env.json');
    fs.writeFileSync(envFile, JSON.stringify(environment));

    const ran = await runNewman(COLLECTION, ['-e', envFile], dir);
    expect(ran.code, 'one test fails on purpose').to.equal(1);
    const newman = newmanOutcomes(ran.summary);

    const imported = await runCli(['import', 'postman', COLLECTION, '--environment', envFile, '--runner', 'shared'], {
      app,
      cwd: dir,
    });
    expect(imported.code, imported.stderr).to.equal(0);
    expect(imported.stderr).to.include('runner      shared (3 test cases, sharing variables across them): created');
    expect(imported.stderr).to.match(
      /scripts pass variables from one folder to a later one \("token" \(Log in → Users\)/,
    );
    expect((await app.request('GET', '/v1/runners/shared')).body.variableScope).to.equal('run');

    const run = await runCli(['run', '--runner', 'shared', '--env', 'httpbin-local', '--wait'], { app, cwd: dir });
    expect(run.code, run.stderr).to.equal(1);
    const runId = /Run (run_[0-9A-Za-z]+)/.exec(run.stderr)![1]!;
    const results = (await app.request('GET', `/v1/runs/${runId}/results`)).body;
    expect(results.details.testCases.map((t: { name: string }) => t.name)).to.deep.equal(['Log in', 'Users', 'Orders']);
    const rows = expectSameOutcomes(newman, assayOutcomes(results));
    expect(rows.length).to.equal(6);
    expect(rows.filter((r) => r.newman === false).map((r) => r.key)).to.deep.equal([
      'Count :: deliberately wrong: a variable nobody set',
    ]);
  });

  it('a collection whose folders pass nothing on keeps separate test cases', async () => {
    const own = JSON.parse(fs.readFileSync(COLLECTION, 'utf8'));
    own.info.name = 'Independent folders';
    // Only the "Users" folder, without the log-in folder's scripts: nothing is passed on.
    own.item = [own.item[1], { name: 'Again', item: [own.item[1].item[1]] }];
    const file = path.join(dir, 'independent.json');
    fs.writeFileSync(file, JSON.stringify(own));
    const imported = await runCli(['import', 'postman', file, '--runner', 'independent', '--dry-run', '--json'], {
      app,
      cwd: dir,
    });
    expect(imported.code, imported.stderr).to.equal(0);
    expect(JSON.parse(imported.stdout).runner.variableScope).to.equal('testCase');
  });
});
