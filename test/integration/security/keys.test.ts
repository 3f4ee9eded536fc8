/**
 * Issuing keys: the `keys` CLI (create prints a key once, list shows it without the secret, revoke
 * disables it) against a real store, and dev mode's default workspace and key.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { ensureDevKey } from '../../../bin/processes';
import { startTestApp, type TestApp } from '../../helpers/app';

const run = promisify(execFile);
const CLI = path.resolve(__dirname, '../../../bin/api-keys.js');

describe('API keys', function () {
  this.timeout(60_000);
  let app: TestApp;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    app = await startTestApp();
    const db = app.config.database;
    env = { ...process.env, DATABASE_URL: db.type === 'mysql' ? db.url : `sqlite://${db.file}` };
  });
  after(async () => {
    await app?.stop();
  });

  it('the CLI issues a key in a new workspace with a scope, lists it without its secret, and revokes it', async () => {
    const created = await run(
      process.execPath,
      [CLI, 'create', '--workspace', 'team-cli', '--scope', 'run', '--name', 'ci'],
      { env },
    );
    const key = created.stdout.trim();
    expect(key).to.match(/^assay_[A-Za-z0-9_-]{43}$/);
    expect(created.stderr).to.contain('scope run').and.to.contain('shown only now');

    const ws = await app.request('GET', '/v1/workspaces', undefined, { key });
    expect(ws.body.items.map((w: { name: string }) => w.name)).to.deep.equal(['team-cli']);
    expect((await app.request('POST', '/v1/environments', { name: 'x' }, { key })).status).to.equal(403);

    const listed = await run(process.execPath, [CLI, 'list', '--workspace', 'team-cli'], { env });
    expect(listed.stdout).to.contain(key.slice(0, 12)).and.to.contain('active');
    expect(listed.stdout).not.to.contain(key);
    const keyId = listed.stdout.split('\t')[0]!;

    await run(process.execPath, [CLI, 'revoke', '--id', keyId], { env });
    expect((await app.request('GET', '/v1/workspaces', undefined, { key })).status).to.equal(401);
  });

  it('the CLI refuses bad arguments with a usage line and a non-zero exit', async () => {
    for (const args of [['create'], ['create', '--workspace', 'w', '--scope', 'admin'], ['frobnicate']]) {
      try {
        await run(process.execPath, [CLI, ...args], { env });
        expect.fail(`accepted ${args.join(' ')}`);
      } catch (err) {
        const e = err as { code?: number; stderr?: string };
        expect(e.code).to.equal(1);
        expect(e.stderr).to.match(/--workspace is required|--scope must be one of|usage:/);
      }
    }
  });

  it('dev mode creates workspace "default" with a key once, keeps it private, and prints the same key again', async () => {
    const first = await ensureDevKey(app.config, app.dataSource);
    const again = await ensureDevKey(app.config, app.dataSource);
    expect(again).to.equal(first);
    const file = path.join(app.config.dataDir, 'dev-api-key');
    expect(fs.statSync(file).mode & 0o777).to.equal(0o600);
    const ws = await app.request('GET', '/v1/workspaces', undefined, { key: first });
    expect(ws.body.items[0].name).to.equal('default');
  });
});
