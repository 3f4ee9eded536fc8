/**
 * `assay import openapi --with-mocks` of a description whose schemas a strict validator refuses
 * (test/fixtures/openapi/strict-schemas.yaml; docs/import-openapi.md "What is normalised, what is
 * skipped and why"), with the built CLI against a real API: every test case saves, the mock
 * designs of every operation but the two that cannot be taken are made, and the report says what
 * was normalised and what was skipped, and why.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestApp, type TestApp } from '../../helpers/app';
import { runCli } from '../../helpers/cli';

const FIXTURE = path.resolve(__dirname, '../../../../test/fixtures/openapi/strict-schemas.yaml');

describe('assay import openapi: normalised schemas, skipped operations (CLI, real API)', function () {
  this.timeout(120_000);
  let app: TestApp;
  let dir: string;

  before(async () => {
    app = await startTestApp({ dialect: 'sqlite' });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-openapi-normalise-'));
  });
  after(async () => {
    await app?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('saves every test case, imports the mocks but the operations that cannot be taken, and reports why', async () => {
    const r = await runCli(['import', 'openapi', FIXTURE, '--with-mocks', '--json'], { app, cwd: dir });
    expect(r.code, r.stderr).to.equal(0);
    const report = JSON.parse(r.stdout);
    expect(report.counts.failed, r.stderr).to.equal(0);
    expect(report.testCases.map((t: { operation: string }) => t.operation)).to.include.members([
      'GET /health',
      'POST /orders',
      'POST /quantities',
      'POST /colours',
      'POST /schemas',
      'POST /logins',
    ]);
    expect(report.skipped.map((s: { operation: string }) => s.operation)).to.include('POST /broken');
    expect(report.mocks.error).to.equal(undefined);
    // POST /bulk's 27,000 inlined subschemas are stored as 3 $defs (docs/import-openapi.md "Big descriptions").
    expect(report.mocks.created).to.equal(7);
    expect(report.mocks.skipped.map((s: { operation: string }) => s.operation)).to.have.members(['POST /broken']);
    expect(report.mocks.normalised.map((n: { operation: string }) => n.operation)).to.include.members([
      'POST /quantities',
      'POST /colours',
      'POST /schemas',
      'POST /logins',
    ]);
    expect(r.stderr).to.match(/mock skipped: POST \/broken: .*not a valid JSON Schema/);
    expect(r.stderr).to.match(
      /mock normalised: POST \/quantities: requestSchema: exclusiveMinimum: true with minimum 5 \(OpenAPI 3\.0\) became exclusiveMinimum: 5/,
    );
  });
});
