/**
 * Versions of test cases, environments, runners, designs and auth profiles (docs/teams.md
 * "Versions"; api/routes/versions.ts, api/changes.ts, src/teams/versions.ts) against a real API,
 * worker and Temporal on MariaDB: versions saved per save and listed with who saved them, a diff of
 * two, a restore making a new version with `restoredFrom` through the resource's own validation
 * (refused and storing nothing when it no longer validates), secrets kept on restore, another
 * workspace's resources 404, and a test case restored to an earlier version running as it did then,
 * its results naming the version that ran.
 */
import { expect } from 'chai';
import { startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { startTarget, type Target } from '../../helpers/target';

const flow = (url: string) => [
  {
    type: 'api',
    id: 'call',
    request: { method: 'GET', url },
    assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
  },
];

describe('resource versions', function () {
  this.timeout(180_000);
  let app: TestApp;
  let target: Target;

  before(async () => {
    [app, target] = await Promise.all([startTestApp({ worker: true }), startTarget()]);
    const env = await app.request('POST', '/v1/environments', { name: 'local', variables: { base: target.url } });
    expect(env.status, JSON.stringify(env.body)).to.equal(201);
  });
  after(async () => {
    await target?.close();
    await app?.stop();
  });

  const ok = async (method: string, path: string, body?: unknown, status = 200) => {
    const res = await app.request(method, path, body);
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).to.equal(status);
    return res.body;
  };

  it('keeps every save of a test case, lists them with savedBy, diffs two and restores one', async () => {
    const tc = await ok('POST', '/v1/test-cases', { name: 'kept', flow: flow('{{base}}/echo?v=1') }, 201);
    const base = `/v1/test-cases/${tc.id}`;
    await ok('PUT', base, { name: 'kept', description: 'two', flow: flow('{{base}}/echo?v=2') });
    await ok('PATCH', base, { description: 'three' });

    const list = await ok('GET', `${base}/versions`);
    expect(list.items.map((v: any) => [v.version, v.current, v.restoredFrom])).to.deep.equal([
      [3, true, null],
      [2, false, null],
      [1, false, null],
    ]);
    expect(list.items[0].savedBy.type).to.equal('key');
    expect(list.items[0]).to.include({ name: 'kept' });
    const paged = await ok('GET', `${base}/versions?limit=2`);
    expect(paged.items.map((v: any) => v.version)).to.deep.equal([3, 2]);
    expect(
      (await ok('GET', `${base}/versions?limit=2&cursor=${paged.nextCursor}`)).items.map((v: any) => v.version),
    ).to.deep.equal([1]);

    const v1 = await ok('GET', `${base}/versions/1`);
    expect(v1.body.flow[0].request.url).to.equal('{{base}}/echo?v=1');
    expect(v1.body.version).to.equal(1);

    const diff = await ok('GET', `${base}/versions/1/diff?to=2`);
    expect(diff).to.include({ from: 1, to: 2 });
    expect(diff.changes).to.deep.include({ path: '/description', before: '', after: 'two' });
    expect(diff.changes).to.deep.include({
      path: '/flow/0/request/url',
      before: '{{base}}/echo?v=1',
      after: '{{base}}/echo?v=2',
    });
    const toCurrent = await ok('GET', `${base}/versions/2/diff`);
    expect(toCurrent).to.include({ from: 2, to: 3 });
    expect(toCurrent.changes).to.deep.include({ path: '/description', before: 'two', after: 'three' });

    // Restore v1 without If-Match: a new version 4 restored from 1, with v1's flow.
    const restored = await ok('POST', `${base}/versions/1/restore`);
    expect(restored.version).to.equal(4);
    expect(restored.flow).to.deep.equal(v1.body.flow);
    expect(restored.description).to.equal('');
    const after = await ok('GET', `${base}/versions`);
    expect(after.items[0]).to.include({ version: 4, restoredFrom: 1, current: true });
    const trail = await app.request('GET', `/v1/audit?resourceId=${tc.id}&action=test-case.restore`, undefined, {
      key: await app.issueKey('admin'),
    });
    expect(trail.body.items).to.have.length(1);
    expect(trail.body.items[0].request).to.equal(`POST ${base}/versions/1/restore`);

    // Bad and unknown versions.
    expect((await app.request('GET', `${base}/versions/99`)).status).to.equal(404);
    expect((await app.request('GET', `${base}/versions/x`)).status).to.equal(400);
    expect((await app.request('GET', `${base}/versions/1/diff?to=0`)).status).to.equal(400);
    expect((await app.request('POST', `${base}/versions/99/restore`)).status).to.equal(404);
    expect((await app.request('GET', '/v1/test-cases/tc_nothing/versions')).status).to.equal(404);
  });

  it('refuses a restore that no longer validates and stores nothing', async () => {
    const shared = await ok(
      'POST',
      '/v1/test-cases',
      { name: 'shared step', reusable: true, flow: flow('{{base}}/users/1') },
      201,
    );
    const user = await ok(
      'POST',
      '/v1/test-cases',
      { name: 'uses shared', flow: [{ type: 'ref', id: 'r', testCaseId: shared.id, mode: 'ref' }] },
      201,
    );
    await ok('PUT', `/v1/test-cases/${user.id}`, { name: 'uses shared', flow: flow('{{base}}/users/2') });
    await ok('DELETE', `/v1/test-cases/${shared.id}`, undefined, 204);
    const res = await app.request('POST', `/v1/test-cases/${user.id}/versions/1/restore`);
    expect(res.status, JSON.stringify(res.body)).to.equal(422);
    expect(res.body.code).to.equal('unknown-reference');
    const list = await ok('GET', `/v1/test-cases/${user.id}/versions`);
    expect(list.items.map((v: any) => v.version)).to.deep.equal([2, 1]);
    expect((await ok('GET', `/v1/test-cases/${user.id}`)).version).to.equal(2);
  });

  it('keeps versions of environments, runners, designs and auth profiles, restorable; secrets kept', async () => {
    // Environment: a secret changed after v1; restoring v1 keeps the current secret.
    await ok(
      'POST',
      '/v1/environments',
      { name: 'ver-env', variables: { host: 'one', pin: { secret: true, value: 'pin-1111' } } },
      201,
    );
    await ok('PUT', '/v1/environments/ver-env', {
      variables: { host: 'two', pin: { secret: true, value: 'pin-2222' } },
    });
    const envVersions = await ok('GET', '/v1/environments/ver-env/versions');
    expect(envVersions.items.map((v: any) => v.version)).to.deep.equal([2, 1]);
    const envV1 = await ok('GET', '/v1/environments/ver-env/versions/1');
    expect(envV1.body.variables).to.deep.equal({ host: 'one', pin: { secret: true, value: '***' } });
    expect(JSON.stringify(envVersions) + JSON.stringify(envV1)).not.to.match(/pin-1111|pin-2222/);
    const envRestored = await ok('POST', '/v1/environments/ver-env/versions/1/restore');
    expect(envRestored.variables.host).to.equal('one');
    expect((await ok('GET', '/v1/environments/ver-env/versions')).items[0]).to.include({ version: 3, restoredFrom: 1 });
    // A read key sees plain values masked, as GET gives them.
    const read = await app.issueKey('read');
    const readV1 = await app.request('GET', '/v1/environments/ver-env/versions/1', undefined, { key: read });
    expect(readV1.body.body.variables.host).to.equal('***');

    // Runner.
    await ok('POST', '/v1/runners', { name: 'ver-runner', folder: 'a' }, 201);
    await ok('PATCH', '/v1/runners/ver-runner', { folder: 'b', concurrency: 2 });
    const runnerRestored = await ok('POST', '/v1/runners/ver-runner/versions/1/restore');
    expect(runnerRestored).to.include({ folder: 'a', concurrency: 1 });
    expect(
      (await ok('GET', '/v1/runners/ver-runner/versions')).items.map((v: any) => [v.version, v.restoredFrom]),
    ).to.deep.equal([
      [3, 1],
      [2, null],
      [1, null],
    ]);

    // Design.
    const design = await ok(
      'POST',
      '/v1/designs',
      { method: 'GET', path: '/ver', responses: [{ status: 200, code: 1, data: { v: 1 } }] },
      201,
    );
    await ok('PUT', `/v1/designs/${design.id}`, {
      method: 'GET',
      path: '/ver',
      responses: [{ status: 200, code: 1, data: { v: 2 } }],
    });
    const designDiff = await ok('GET', `/v1/designs/${design.id}/versions/1/diff`);
    expect(designDiff.changes).to.deep.include({ path: '/responses/0/data/v', before: 1, after: 2 });
    const designRestored = await ok('POST', `/v1/designs/${design.id}/versions/1/restore`);
    expect(designRestored.responses[0].data).to.deep.equal({ v: 1 });

    // Auth profile: its secret is kept on restore.
    await ok('POST', '/v1/auth-profiles', { name: 'ver-auth', type: 'bearer', config: { token: 'tok-aaaa' } }, 201);
    await ok('PUT', '/v1/auth-profiles/ver-auth', {
      type: 'bearer',
      description: 'changed',
      config: { token: 'tok-bbbb' },
    });
    const authV1 = await ok('GET', '/v1/auth-profiles/ver-auth/versions/1');
    expect(authV1.body.config.token).to.equal('***');
    const authRestored = await ok('POST', '/v1/auth-profiles/ver-auth/versions/1/restore');
    expect(authRestored).to.include({ description: '' });
    expect((await ok('GET', '/v1/auth-profiles/ver-auth/versions')).items).to.have.length(3);

    // Another workspace: 404 for every resource.
    const other = await app.issueKey('write', 'versions-other');
    for (const path of [
      '/v1/environments/ver-env/versions',
      '/v1/runners/ver-runner/versions/1',
      `/v1/designs/${design.id}/versions/1/diff`,
      '/v1/auth-profiles/ver-auth/versions',
    ]) {
      const res = await app.request('GET', path, undefined, { key: other });
      expect(res.status, path).to.equal(404);
    }
    const res = await app.request('POST', '/v1/environments/ver-env/versions/1/restore', undefined, { key: other });
    expect(res.status).to.equal(404);
  });

  it('runs a test case restored to an earlier version as it ran then, naming the version in results', async () => {
    const tc = await ok(
      'POST',
      '/v1/test-cases',
      { name: 'runs again', folder: 'ver-run', flow: flow('{{base}}/users/3') },
      201,
    );
    await ok('POST', '/v1/runners', { name: 'ver-run', folder: 'ver-run' }, 201);
    const run = async () => {
      const started = await ok('POST', '/v1/runs', { runner: 'ver-run', environment: 'local' }, 201);
      const done = await waitForRun(app, started.runId);
      expect(done.status).to.equal('completed');
      expect(done.result).to.equal('passed');
      const results = await ok('GET', `/v1/runs/${started.runId}/results`);
      return results.details.testCases[0].testCaseVersion;
    };
    const hits = (path: string) => target.hits.get(path) ?? 0;
    expect(await run()).to.equal(1);
    expect([hits('/users/3'), hits('/users/4')]).to.deep.equal([1, 0]);

    await ok('PUT', `/v1/test-cases/${tc.id}`, {
      name: 'runs again',
      folder: 'ver-run',
      flow: flow('{{base}}/users/4'),
    });
    expect(await run()).to.equal(2);
    expect([hits('/users/3'), hits('/users/4')]).to.deep.equal([1, 1]);

    await ok('POST', `/v1/test-cases/${tc.id}/versions/1/restore`);
    expect(await run()).to.equal(3);
    expect([hits('/users/3'), hits('/users/4')]).to.deep.equal([2, 1]);
    const v3 = await ok('GET', `/v1/test-cases/${tc.id}/versions/3`);
    expect(v3.restoredFrom).to.equal(1);
  });
});
