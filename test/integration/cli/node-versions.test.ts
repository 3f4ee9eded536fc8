/**
 * The one-file CLI (`GET /cli/assay.cjs`) on the Node.js releases it supports and on an older one
 * (docs/cli.md "Install"): under Node 22.0.0 (the oldest it admits; undici 8 used to crash it on any 22 before
 * 22.19) and Node 24 it runs a runner and waits for it (client, progress, JUnit report), imports an
 * OpenAPI description as a dry run (the importer and its sample data) and exports the workspace as
 * YAML files, against a real API and worker. Under Node 20 the bundle, and `dist/bin/assay.js`,
 * print one line naming the Node they need and exit 2 (docs/cli.md "Install"). The Node binaries
 * come from scripts/ensure-node.sh (~/.cache/assay/node<version>; `make test` installs them first).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startTestApp, type TestApp } from '../../helpers/app';
import { ASSAY_BIN, nodeBinary, runCli } from '../../helpers/cli';
import { startTarget, type Target } from '../../helpers/target';

const SPEC = `openapi: 3.0.3
info: { title: Users, version: "1.0" }
servers: [ { url: "http://127.0.0.1:9/api" } ]
paths:
  /users:
    post:
      operationId: createUser
      requestBody:
        required: true
        content:
          application/json:
            schema: { type: object, required: [name], properties: { name: { type: string, example: Ada } } }
      responses:
        "201": { description: created }
  /users/{id}:
    get:
      operationId: getUser
      parameters: [ { name: id, in: path, required: true, schema: { type: integer, example: 1 } } ]
      responses:
        "200":
          description: a user
          content:
            application/json:
              schema:
                type: object
                required: [id, name]
                properties: { id: { type: integer }, name: { type: string }, email: { type: string, format: email } }
`;

describe('the one-file CLI on Node 22.0.0, Node 24 and an older Node', function () {
  this.timeout(120_000);
  let app: TestApp;
  let target: Target;
  let dir: string;
  let bundle: string;
  const nodes = new Map<string, string>();

  before(async () => {
    for (const version of ['20', '22.0.0', '24']) nodes.set(version, nodeBinary(version));
    [app, target] = await Promise.all([startTestApp({ worker: true }), startTarget()]);
    // Outside this package (no node_modules above it), as a CI job would have it.
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-cli-node-'));
    const res = await fetch(`${app.url}/cli/assay.cjs`);
    expect(res.status).to.equal(200);
    bundle = path.join(dir, 'assay.cjs');
    fs.writeFileSync(bundle, Buffer.from(await res.arrayBuffer()));
    fs.writeFileSync(path.join(dir, 'users.yaml'), SPEC);
    await app.request('POST', '/v1/environments', { name: 'local', variables: { base: target.url } });
    const tc = await app.request('POST', '/v1/test-cases', {
      name: 'get user',
      folder: 'green',
      flow: [
        {
          type: 'api',
          request: { method: 'GET', url: '{{base}}/users/1' },
          assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
        },
      ],
    });
    expect(tc.status, JSON.stringify(tc.body)).to.equal(201);
    await app.request('POST', '/v1/runners', { name: 'green', folder: 'green' });
  });
  after(async () => {
    await target?.close();
    await app?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  for (const version of ['22.0.0', '24']) {
    const major = version.split('.')[0];
    it(`Node ${version}: run --wait with a JUnit report, import openapi --dry-run and export work against the API`, async () => {
      const node = nodes.get(version)!;
      const cwd = fs.mkdtempSync(path.join(dir, `node${major}-`));
      const actual = execFileSync(node, ['-p', 'process.version'], { encoding: 'utf8' }).trim();
      expect(actual).to.match(version.includes('.') ? new RegExp(`^v${version}$`) : new RegExp(`^v${version}\\.`));

      const cliVersion = await runCli(['--version'], { node, bin: bundle, cwd });
      expect(cliVersion.code, cliVersion.stderr).to.equal(0);
      expect(cliVersion.stdout).to.match(/^\d+\.\d+\.\d+\n$/);

      const ran = await runCli(
        [
          'run',
          '--runner',
          'green',
          '--env',
          'local',
          '--wait',
          '--poll-interval',
          '0.2',
          '--reporter',
          'cli,junit',
          '--out',
          'reports',
        ],
        { app, node, bin: bundle, cwd },
      );
      expect(ran.code, ran.stderr).to.equal(0);
      const runId = /^Run (run_\w+) \(green on local\)$/m.exec(ran.stderr)?.[1];
      expect(runId, ran.stderr).to.be.a('string');
      expect(ran.stderr).to.match(new RegExp(`\\] ${runId} completed$`, 'm'));
      expect((await app.request('GET', `/v1/runs/${runId}`)).body).to.include({
        status: 'completed',
        result: 'passed',
      });
      expect(fs.readFileSync(path.join(cwd, 'reports', 'junit.xml'), 'utf8')).to.match(
        /<testcase [^>]*name="get user"/,
      );

      const imported = await runCli(
        ['import', 'openapi', path.join(dir, 'users.yaml'), '--folder', `node${major}`, '--dry-run'],
        { app, node, bin: bundle, cwd },
      );
      expect(imported.code, imported.stderr).to.equal(0);
      const docs = JSON.parse(imported.stdout) as Array<{
        folder: string;
        flow: Array<{ request: { method: string; url: string; body?: unknown } }>;
      }>;
      expect(docs.map((d) => d.folder)).to.deep.equal([`node${major}`, `node${major}`]);
      // The request body is sample data made from the schema (src/mock/samples.ts).
      expect(docs.map((d) => d.flow[0]!.request)).to.deep.include.members([
        {
          method: 'POST',
          url: '{{baseUrl}}/users',
          headers: { 'Content-Type': 'application/json' },
          body: { name: 'Ada' },
        },
      ]);
      expect(imported.stderr).to.match(/Would be: 2 created, 0 updated, 0 unchanged, 0 skipped/);

      const exported = await runCli(['export', '--dir', 'files'], { app, node, bin: bundle, cwd });
      expect(exported.code, exported.stderr).to.equal(0);
      const files = fs.readdirSync(path.join(cwd, 'files'), { recursive: true, encoding: 'utf8' });
      expect(files.filter((f) => f.endsWith('.yaml'))).to.have.length.of.at.least(3); // the environment, the test case, the runner
    });
  }

  it('Node 20: the bundle and dist/bin/assay.js print one line naming the Node they need and exit 2', async () => {
    const node = nodes.get('20')!;
    for (const bin of [bundle, ASSAY_BIN]) {
      for (const args of [['--help'], ['run', '--runner', 'green', '--env', 'local', '--wait']]) {
        const r = await runCli(args, { app, node, bin, cwd: dir });
        expect(r.code, `${bin} ${args.join(' ')}: ${r.stderr}`).to.equal(2);
        expect(r.stderr).to.match(/^assay: needs Node\.js 22 or newer \(this is v20\.\d+\.\d+\)\n$/);
        expect(r.stdout).to.equal('');
      }
    }
  });
});
