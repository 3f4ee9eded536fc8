/**
 * `assay run --wait --reporter cli,json,junit,html` end to end: a real API and worker on Temporal,
 * a data-driven test case (a data set of three rows walked by an Iteration node, the third row
 * failing) and a passing one, run by the built command line as CI runs it. The terminal summary
 * shows the failing row's expected and actual; junit.xml satisfies the published JUnit schema with
 * one testcase per data row; results.json and report.html are written next to it.
 */
import { expect } from 'chai';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestApp, type TestApp } from '../../helpers/app';
import { runCli } from '../../helpers/cli';
import { startTarget, type Target } from '../../helpers/target';
import { junitSchemaErrors, parseXml, testcases } from '../../fixtures/junit/validate';

describe('assay run --wait with every reporter', function () {
  this.timeout(180_000);
  let app: TestApp;
  let target: Target;
  let dir: string;

  before(async () => {
    [app, target] = await Promise.all([startTestApp({ worker: true }), startTarget()]);
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'assay-cli-reports-'));
    const env = await app.request('POST', '/v1/environments', { name: 'ci', variables: { base: target.url } });
    expect(env.status, JSON.stringify(env.body)).to.equal(201);
    const rows = await app.request('POST', '/v1/test-cases', {
      name: 'get user',
      folder: 'users',
      dataSets: [{ name: 'users', type: 'csv', csv: 'id,name\n1,Ada\n2,Grace\n99,Nobody', cast: true }],
      flow: [
        {
          type: 'iteration',
          id: 'each',
          dataSet: 'users',
          body: [
            {
              type: 'api',
              id: 'get',
              request: { method: 'GET', url: '{{base}}/users/{{item.id}}' },
              assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
            },
          ],
        },
      ],
    });
    expect(rows.status, JSON.stringify(rows.body)).to.equal(201);
    const plain = await app.request('POST', '/v1/test-cases', {
      name: 'user 1 is Ada',
      flow: [
        {
          type: 'api',
          id: 'one',
          request: { method: 'GET', url: '{{base}}/users/1' },
          assertions: [{ target: 'response.body.name', operator: 'equals', expected: 'Ada' }],
        },
      ],
    });
    expect(plain.status, JSON.stringify(plain.body)).to.equal(201);
    const runner = await app.request('POST', '/v1/runners', {
      name: 'reports',
      testCaseIds: [rows.body.id, plain.body.id],
    });
    expect(runner.status, JSON.stringify(runner.body)).to.equal(201);
  });
  after(async () => {
    await target?.close();
    await app?.stop();
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  it('exits 1, prints the failing row with expected and actual, and writes junit.xml (one testcase per row), results.json and report.html', async () => {
    const out = path.join(dir, 'reports');
    const res = await runCli(
      [
        'run',
        '--runner',
        'reports',
        '--env',
        'ci',
        '--wait',
        '--poll-interval',
        '0.2',
        '--reporter',
        'cli,json,junit,html',
        '--out',
        out,
      ],
      { app },
    );
    expect(res.code, `${res.stdout}\n${res.stderr}`).to.equal(1);

    expect(res.stdout)
      .to.match(/✘ get user/)
      .and.match(/✔ user 1 is Ada/);
    expect(res.stdout).to.include('[row 3: {"id":99,"name":"Nobody"}]');
    expect(res.stdout).to.match(/expected 200\s+│\s+actual 404/);
    expect(res.stdout).to.include('Test cases:  1 passed, 1 failed, 0 skipped (2)');
    expect(res.stdout).to.match(/Console: {2}http:\/\/127\.0\.0\.1:\d+\/runs\/run_/);
    expect(res.stderr).to.include('junit.xml').and.include('results.json').and.include('report.html');

    const xml = await fs.readFile(path.join(out, 'junit.xml'), 'utf8');
    expect(await junitSchemaErrors(xml), xml).to.deep.equal([]);
    const doc = parseXml(xml);
    expect(doc.documentElement.getAttribute('tests')).to.equal('4');
    expect(doc.documentElement.getAttribute('failures')).to.equal('1');
    const cases = testcases(doc).map((c) => ({
      name: c.getAttribute('name'),
      classname: c.getAttribute('classname'),
      failures: c.getElementsByTagName('failure').length,
    }));
    expect(cases).to.deep.equal([
      { name: 'get user [row 1: {"id":1,"name":"Ada"}]', classname: 'reports.users', failures: 0 },
      { name: 'get user [row 2: {"id":2,"name":"Grace"}]', classname: 'reports.users', failures: 0 },
      { name: 'get user [row 3: {"id":99,"name":"Nobody"}]', classname: 'reports.users', failures: 1 },
      { name: 'user 1 is Ada', classname: 'reports.reports', failures: 0 },
    ]);
    const failure = testcases(doc)[2]!.getElementsByTagName('failure')[0]!;
    expect(failure.textContent).to.include('expected:  200').and.include('actual:    404');

    const results = JSON.parse(await fs.readFile(path.join(out, 'results.json'), 'utf8'));
    expect(results).to.include({ status: 'completed', result: 'failed', runner: 'reports', environment: 'ci' });
    expect(results.run.runId).to.equal(results.runId);
    expect(results.links.console).to.equal(`${app.url}/runs/${results.runId}`);
    expect(results.details.testCases.map((t: { name: string }) => t.name)).to.deep.equal(['get user', 'user 1 is Ada']);

    const html = await fs.readFile(path.join(out, 'report.html'), 'utf8');
    expect(html)
      .to.match(/^<!doctype html>/)
      .and.include('get user')
      .and.include('row 3: {&quot;id&quot;:99');
  });
});
