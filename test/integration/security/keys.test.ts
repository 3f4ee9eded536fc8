/**
 * Issuing keys: the `keys` CLI (create prints a key once, list shows it without the secret, revoke
 * disables it; `admin` bootstraps the first owner) against a real store, and dev mode's default
 * workspace and its `admin` key.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { ensureDevKey } from '../../../bin/processes';
import { ApiKey, User, WorkspaceMember } from '../../../src/store/entities';
import { hashKey } from '../../../src/api-keys';
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
    for (const args of [
      ['create'],
      ['create', '--workspace', 'w', '--scope', 'owner'],
      ['create', '--workspace', 'w', '--expires-in-days', '0'],
      ['admin', '--workspace', 'w'],
      ['admin', '--workspace', 'w', '--email', 'a@example.com', '--role', 'king'],
      ['frobnicate'],
    ]) {
      try {
        await run(process.execPath, [CLI, ...args], { env });
        expect.fail(`accepted ${args.join(' ')}`);
      } catch (err) {
        const e = err as { code?: number; stderr?: string };
        expect(e.code).to.equal(1);
        expect(e.stderr).to.match(
          /--workspace is required|--scope must be one of|--expires-in-days must be|--email and --workspace are required|--role must be one of|usage:/,
        );
      }
    }
  });

  it('the CLI makes admin keys with an expiry, and bootstraps the first owner of a workspace', async () => {
    const created = await run(
      process.execPath,
      [CLI, 'create', '--workspace', 'team-admin', '--scope', 'admin', '--expires-in-days', '7'],
      { env },
    );
    const key = created.stdout.trim();
    const record = await app.dataSource.getRepository(ApiKey).findOneByOrFail({ hash: hashKey(key) });
    expect(record.scope).to.equal('admin');
    expect(record.createdBy).to.equal('cli');
    expect(record.expiresAt!.getTime()).to.be.closeTo(Date.now() + 7 * 86_400_000, 60_000);
    expect((await app.request('GET', '/v1/members', undefined, { key })).status).to.equal(200);

    const admin = await run(
      process.execPath,
      [CLI, 'admin', '--email', 'First@Example.com', '--workspace', 'fresh-install', '--name', 'First'],
      { env },
    );
    const userId = admin.stdout.trim();
    expect(userId).to.match(/^usr_/);
    expect(admin.stderr).to.contain('owner').and.to.contain('fresh-install');
    const user = await app.dataSource.getRepository(User).findOneByOrFail({ id: userId });
    expect(user).to.include({ email: 'first@example.com', name: 'First', subject: null });
    const member = await app.dataSource.getRepository(WorkspaceMember).findOneByOrFail({ userId });
    expect(member).to.include({ role: 'owner', groupRole: null });
    // Again with another role: the same user, the role changed.
    await run(
      process.execPath,
      [CLI, 'admin', '--email', 'first@example.com', '--workspace', 'fresh-install', '--role', 'admin'],
      {
        env,
      },
    );
    expect((await app.dataSource.getRepository(WorkspaceMember).findOneByOrFail({ userId })).role).to.equal('admin');
  });

  it('dev mode creates workspace "default" with an admin key once, keeps it private, and prints the same key again', async () => {
    const first = await ensureDevKey(app.config, app.dataSource);
    const again = await ensureDevKey(app.config, app.dataSource);
    expect(again).to.equal(first);
    const file = path.join(app.config.dataDir, 'dev-api-key');
    expect(fs.statSync(file).mode & 0o777).to.equal(0o600);
    const ws = await app.request('GET', '/v1/workspaces', undefined, { key: first });
    expect(ws.body.items[0].name).to.equal('default');
    expect(ws.body.items[0].key).to.include({ scope: 'admin', name: 'local admin' });
    // A dev key saved before `admin` existed is raised to it.
    await app.dataSource.getRepository(ApiKey).update({ hash: hashKey(first) }, { scope: 'write' });
    expect(await ensureDevKey(app.config, app.dataSource)).to.equal(first);
    expect((await app.dataSource.getRepository(ApiKey).findOneByOrFail({ hash: hashKey(first) })).scope).to.equal(
      'admin',
    );
  });
});
