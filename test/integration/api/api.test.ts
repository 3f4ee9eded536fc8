/**
 * The REST contract (spec "Endpoints", "Authentication", "Errors"; docs/api.md): every endpoint,
 * its success answer and each of its error answers, against a real API on loopback with a real
 * MariaDB/MySQL store and a real Temporal.
 */
import { expect } from 'chai';
import { startTestApp, type Reply, type TestApp } from '../../helpers/app';
import { freePort } from '../../../src/net/free-port';

function expectProblem(res: Reply, status: number, code: string): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
  expect(res.body).to.include({ status, code, type: `/problems/${code}` });
  expect(res.body.title).to.be.a('string');
  expect(res.body.detail).to.be.a('string');
}

const flow = (url = 'http://127.0.0.1:9/x') => [
  {
    type: 'api',
    request: { method: 'GET', url },
    assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
  },
];

describe('REST API contract', function () {
  this.timeout(60_000);
  let app: TestApp;

  before(async () => {
    app = await startTestApp({ worker: true });
  });
  after(async () => {
    await app?.stop();
  });

  describe('authentication and scopes', () => {
    it('401 without a key, with a malformed header, with an unknown key', async () => {
      const none = await app.request('GET', '/v1/environments', undefined, { key: null });
      expectProblem(none, 401, 'unauthorized');
      expect(none.headers.get('www-authenticate')).to.contain('Bearer');
      expectProblem(
        await app.request('GET', '/v1/environments', undefined, { key: null, headers: { authorization: 'Basic abc' } }),
        401,
        'unauthorized',
      );
      expectProblem(
        await app.request('GET', '/v1/environments', undefined, { key: 'assay_nope' }),
        401,
        'unauthorized',
      );
    });

    it('401 for a revoked key', async () => {
      const key = await app.issueKey('write');
      expect((await app.request('GET', '/v1/workspaces', undefined, { key })).status).to.equal(200);
      await app.dataSource.query(`UPDATE api_keys SET revokedAt = ? WHERE name = 'test-write'`, [new Date()]);
      expectProblem(await app.request('GET', '/v1/workspaces', undefined, { key }), 401, 'unauthorized');
    });

    it('403 when the key scope is too small: read keys only read, run keys also start runs', async () => {
      const read = await app.issueKey('read');
      expect((await app.request('GET', '/v1/environments', undefined, { key: read })).status).to.equal(200);
      expectProblem(await app.request('POST', '/v1/environments', { name: 'x' }, { key: read }), 403, 'forbidden');
      expectProblem(
        await app.request('POST', '/v1/runs', { runner: 'x', environment: 'y' }, { key: read }),
        403,
        'forbidden',
      );
      const run = await app.issueKey('run');
      expectProblem(await app.request('POST', '/v1/environments', { name: 'x' }, { key: run }), 403, 'forbidden');
      // A run key passes the scope check and reaches validation (422: nothing named x exists).
      expectProblem(
        await app.request('POST', '/v1/runs', { runner: 'x', environment: 'y' }, { key: run }),
        422,
        'unknown-reference',
      );
    });
  });

  describe('GET /v1/workspaces', () => {
    it("lists the key's own workspace, and another workspace's key sees only its own", async () => {
      const res = await app.request('GET', '/v1/workspaces');
      expect(res.status).to.equal(200);
      expect(res.body.items).to.have.length(1);
      expect(res.body.items[0]).to.include({ id: app.workspaceId, name: 'default', current: true });
      expect(res.body.items[0].key.scope).to.equal('write');
      const reader = await app.issueKey('read');
      const asReader = await app.request('GET', '/v1/workspaces', undefined, { key: reader });
      expect(asReader.body.items[0].key).to.include({
        scope: 'read',
        prefix: reader.slice(0, asReader.body.items[0].key.prefix.length),
      });
      const other = await app.issueKey('write', 'team-b');
      const theirs = await app.request('GET', '/v1/workspaces', undefined, { key: other });
      expect(theirs.body.items.map((w: { name: string }) => w.name)).to.deep.equal(['team-b']);
    });
  });

  describe('environments', () => {
    it('create, get, list, replace, patch (merge), delete', async () => {
      const created = await app.request('POST', '/v1/environments', {
        name: 'staging',
        description: 'pre-prod',
        variables: { base: 'http://a', retries: 2, debug: false },
      });
      expect(created.status).to.equal(201);
      expect(created.headers.get('location')).to.equal('/v1/environments/staging');
      expect(created.body).to.include({ name: 'staging', description: 'pre-prod' });
      expect(created.body.id).to.match(/^env_[0-9A-Z]{26}$/);
      expect(created.body.createdAt).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

      const got = await app.request('GET', '/v1/environments/staging');
      expect(got.status).to.equal(200);
      expect(got.body.variables).to.deep.equal({ base: 'http://a', retries: 2, debug: false });

      await app.request('POST', '/v1/environments', { name: 'alpha' });
      const list = await app.request('GET', '/v1/environments');
      expect(list.body.items.map((e: { name: string }) => e.name)).to.deep.equal(['alpha', 'staging']);
      expect(list.body.nextCursor).to.equal(null);

      const patched = await app.request('PATCH', '/v1/environments/staging', {
        variables: { base: 'http://b', retries: null, token: 't' },
      });
      expect(patched.status).to.equal(200);
      expect(patched.body.variables).to.deep.equal({ base: 'http://b', debug: false, token: 't' });
      expect(patched.body.description).to.equal('pre-prod');
      const mergePatch = await app.request(
        'PATCH',
        '/v1/environments/staging',
        { variables: { x: 1 } },
        { headers: { 'content-type': 'application/merge-patch+json' } },
      );
      expect(mergePatch.status).to.equal(200);

      const replaced = await app.request('PUT', '/v1/environments/staging', { variables: { only: 'this' } });
      expect(replaced.status).to.equal(200);
      expect(replaced.body.variables).to.deep.equal({ only: 'this' });
      expect(replaced.body.description).to.equal('');

      expect((await app.request('DELETE', '/v1/environments/alpha')).status).to.equal(204);
      expectProblem(await app.request('GET', '/v1/environments/alpha'), 404, 'not-found');
      expectProblem(await app.request('DELETE', '/v1/environments/alpha'), 404, 'not-found');
    });

    it('409 on a duplicate name, including a rename onto a taken name, and nothing changes', async () => {
      await app.request('POST', '/v1/environments', { name: 'dup', variables: { a: 1 } });
      const dup = await app.request('POST', '/v1/environments', { name: 'dup' });
      expectProblem(dup, 409, 'name-taken');
      expect(dup.body.errors[0]).to.include({ field: 'name', pointer: '#/name' });
      await app.request('POST', '/v1/environments', { name: 'dup2' });
      expectProblem(await app.request('PATCH', '/v1/environments/dup2', { name: 'dup' }), 409, 'name-taken');
      expect((await app.request('GET', '/v1/environments/dup2')).status).to.equal(200);
      expect((await app.request('GET', '/v1/environments/dup')).body.variables).to.deep.equal({ a: 1 });
    });

    it('400 naming each invalid field; 400 for malformed JSON or no body; 415 for non-JSON bodies', async () => {
      const bad = await app.request('POST', '/v1/environments', {
        name: 'has space',
        variables: { ok: 1, nested: { no: true } },
        extra: 1,
      });
      expectProblem(bad, 400, 'validation-failed');
      const fields = bad.body.errors.map((e: { field: string }) => e.field);
      expect(fields).to.include.members(['name', 'variables.nested', 'extra']);
      expect(bad.body.errors.find((e: { field: string }) => e.field === 'variables.nested').pointer).to.equal(
        '#/variables/nested',
      );

      const malformed = await app.request('POST', '/v1/environments', undefined, {
        raw: '{"name": "x",',
        headers: { 'content-type': 'application/json' },
      });
      expectProblem(malformed, 400, 'malformed-json');
      expectProblem(
        await app.request('POST', '/v1/environments', undefined, { headers: { 'content-type': 'application/json' } }),
        400,
        'validation-failed',
      );
      expectProblem(
        await app.request('POST', '/v1/environments', undefined, {
          raw: 'name=x',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        }),
        415,
        'unsupported-media-type',
      );
      expectProblem(
        await app.request('POST', '/v1/environments', undefined, {
          raw: '{"name":"x"}',
          headers: { 'content-type': 'text/plain' },
        }),
        415,
        'unsupported-media-type',
      );
    });

    it("404 for another workspace's environment (no existence leak)", async () => {
      const other = await app.issueKey('write', 'team-c');
      expectProblem(await app.request('GET', '/v1/environments/staging', undefined, { key: other }), 404, 'not-found');
    });
  });

  describe('test cases', () => {
    let id: string;

    it('creates a test case, gives node ids, and 400s a broken flow naming the node field', async () => {
      const created = await app.request('POST', '/v1/test-cases', {
        name: 'get user',
        folder: '/users/',
        tags: ['smoke', 'fast'],
        flow: flow(),
      });
      expect(created.status).to.equal(201);
      id = created.body.id;
      expect(id).to.match(/^tc_/);
      expect(created.headers.get('location')).to.equal(`/v1/test-cases/${id}`);
      expect(created.body).to.include({ name: 'get user', folder: 'users' });
      expect(created.body.tags).to.deep.equal(['fast', 'smoke']);
      expect(created.body.flow[0].id).to.equal('n1');

      const broken = await app.request('POST', '/v1/test-cases', {
        name: 'broken',
        flow: [
          flow()[0],
          {
            type: 'api',
            request: { method: 'GET', url: '' },
            assertions: [{ target: 'response.(', operator: 'exists' }],
          },
        ],
      });
      expectProblem(broken, 400, 'validation-failed');
      const pointers = broken.body.errors.map((e: { pointer: string }) => e.pointer);
      expect(pointers).to.include('#/flow/1/request/url');
      const unknownType = await app.request('POST', '/v1/test-cases', { name: 'x', flow: [{ type: 'teleport' }] });
      expectProblem(unknownType, 400, 'validation-failed');
      expect(unknownType.body.errors[0].field).to.equal('flow[0].type');
      const list = await app.request('GET', '/v1/test-cases');
      expect(list.body.items.map((t: { name: string }) => t.name)).to.deep.equal(['get user']);
    });

    it('gets one, patches its tags, replaces it', async () => {
      const got = await app.request('GET', `/v1/test-cases/${id}`);
      expect(got.status).to.equal(200);
      expect(got.body.flow).to.have.length(1);
      const patched = await app.request('PATCH', `/v1/test-cases/${id}`, { tags: ['regression'] });
      expect(patched.status).to.equal(200);
      expect(patched.body.tags).to.deep.equal(['regression']);
      expect(patched.body.name).to.equal('get user');
      const replaced = await app.request('PUT', `/v1/test-cases/${id}`, {
        name: 'get user v2',
        folder: 'users',
        flow: flow('http://127.0.0.1:9/y'),
      });
      expect(replaced.status).to.equal(200);
      expect(replaced.body.tags).to.deep.equal([]);
      expect(replaced.body.flow[0].request.url).to.equal('http://127.0.0.1:9/y');
      expectProblem(await app.request('PATCH', `/v1/test-cases/${id}`, {}), 400, 'validation-failed');
      expectProblem(await app.request('PATCH', `/v1/test-cases/${id}`, { tags: 'smoke' }), 400, 'validation-failed');
      expectProblem(await app.request('GET', '/v1/test-cases/tc_nope'), 404, 'not-found');
    });

    it('filters by folder (subfolders included) and by all tags, and pages with a cursor', async () => {
      const make = (name: string, folder: string, tags: string[]) =>
        app.request('POST', '/v1/test-cases', { name, folder, tags, flow: flow() });
      await make('list users', 'users', ['smoke']);
      await make('admin users', 'users/admin', ['smoke', 'slow']);
      await make('orders', 'orders', ['smoke', 'slow']);
      const names = async (q: string) =>
        (await app.request('GET', `/v1/test-cases${q}`)).body.items.map((t: { name: string }) => t.name);
      expect(await names('?folder=users')).to.deep.equal(['get user v2', 'list users', 'admin users']);
      expect(await names('?tags=smoke,slow')).to.deep.equal(['orders', 'admin users']);
      expect(await names('?folder=users&tags=slow')).to.deep.equal(['admin users']);
      const first = await app.request('GET', '/v1/test-cases?limit=2');
      expect(first.body.items).to.have.length(2);
      expect(first.body.nextCursor).to.be.a('string');
      const second = await app.request('GET', `/v1/test-cases?limit=2&cursor=${first.body.nextCursor}`);
      expect(second.body.items).to.have.length(2);
      expect(second.body.nextCursor).to.equal(null);
      const all = [...first.body.items, ...second.body.items].map((t: { id: string }) => t.id);
      expect(new Set(all).size).to.equal(4);
      expectProblem(await app.request('GET', '/v1/test-cases?limit=0'), 400, 'invalid-query');
      expectProblem(await app.request('GET', '/v1/test-cases?cursor=%%%'), 400, 'bad-cursor');
    });

    it('409 on a duplicate name in the same folder; the same name in another folder is fine', async () => {
      expectProblem(
        await app.request('POST', '/v1/test-cases', { name: 'list users', folder: 'users', flow: flow() }),
        409,
        'name-taken',
      );
      expect(
        (await app.request('POST', '/v1/test-cases', { name: 'list users', folder: 'archive', flow: flow() })).status,
      ).to.equal(201);
    });
  });

  describe('runners', () => {
    it('create (422 for unknown test case ids, 400 for an empty selection), preview, patch, replace, delete', async () => {
      const tcs = (await app.request('GET', '/v1/test-cases?folder=users')).body.items as Array<{
        id: string;
        name: string;
      }>;
      const unknown = await app.request('POST', '/v1/runners', { name: 'r1', testCaseIds: [tcs[0]!.id, 'tc_missing'] });
      expectProblem(unknown, 422, 'unknown-reference');
      expect(unknown.body.errors[0]).to.include({ field: 'testCaseIds[1]', pointer: '#/testCaseIds/1' });
      expectProblem(await app.request('POST', '/v1/runners', { name: 'r1' }), 400, 'validation-failed');
      expectProblem(
        await app.request('POST', '/v1/runners', { name: 'r1', folder: 'x', order: 'random' }),
        400,
        'validation-failed',
      );

      const created = await app.request('POST', '/v1/runners', {
        name: 'r1',
        testCaseIds: [tcs[2]!.id],
        folder: 'users',
        tags: ['smoke'],
      });
      expect(created.status).to.equal(201);
      expect(created.body).to.include({ name: 'r1', folder: 'users', order: 'name' });
      expectProblem(await app.request('POST', '/v1/runners', { name: 'r1', folder: '' }), 409, 'name-taken');

      const preview = await app.request('GET', '/v1/runners/r1/test-cases');
      expect(preview.body.items.map((t: { id: string }) => t.id)[0]).to.equal(tcs[2]!.id);
      expect(preview.body.items.map((t: { name: string }) => t.name)).to.deep.equal(['admin users', 'list users']);

      const patched = await app.request('PATCH', '/v1/runners/r1', { tags: [], order: 'createdAt' });
      expect(patched.body).to.include({ order: 'createdAt', folder: 'users' });
      expect((await app.request('GET', '/v1/runners/r1/test-cases')).body.items).to.have.length(3);

      const replaced = await app.request('PUT', '/v1/runners/r1', { testCaseIds: [tcs[0]!.id] });
      expect(replaced.body).to.include({ folder: null, order: 'name' });
      expect(replaced.body.testCaseIds).to.deep.equal([tcs[0]!.id]);

      // Deleting a listed test case takes it out of the runner's list.
      expect((await app.request('DELETE', `/v1/test-cases/${tcs[0]!.id}`)).status).to.equal(204);
      expect((await app.request('GET', '/v1/runners/r1')).body.testCaseIds).to.deep.equal([]);

      expect((await app.request('GET', '/v1/runners')).body.items.map((r: { name: string }) => r.name)).to.deep.equal([
        'r1',
      ]);
      expect((await app.request('DELETE', '/v1/runners/r1')).status).to.equal(204);
      expectProblem(await app.request('GET', '/v1/runners/r1'), 404, 'not-found');
    });
  });

  describe('runs', () => {
    before(async () => {
      await app.request('POST', '/v1/environments', { name: 'ci', variables: {} });
      await app.request('POST', '/v1/runners', { name: 'all', folder: 'orders' });
    });

    it('422 naming the unknown runner and/or environment; nothing is stored', async () => {
      const both = await app.request('POST', '/v1/runs', { runner: 'nope', environment: 'nada' });
      expectProblem(both, 422, 'unknown-reference');
      expect(both.body.errors.map((e: { field: string }) => e.field)).to.deep.equal(['runner', 'environment']);
      const onlyEnv = await app.request('POST', '/v1/runs', { runner: 'all', environment: 'nada' });
      expect(onlyEnv.body.errors.map((e: { field: string }) => e.field)).to.deep.equal(['environment']);
      expect((await app.request('GET', '/v1/runs')).body.items).to.deep.equal([]);
    });

    it('400 for a bad timeout or variables', async () => {
      for (const body of [
        { runner: 'all', environment: 'ci', timeout: 0 },
        { runner: 'all', environment: 'ci', timeout: 1.5 },
        { runner: 'all', environment: 'ci', timeout: 10_000_000 },
        { runner: 'all', environment: 'ci', variables: { a: { b: 1 } } },
        { runner: 'all' },
      ]) {
        expectProblem(await app.request('POST', '/v1/runs', body), 400, 'validation-failed');
      }
    });

    it('201 with runId, status, runner, environment, createdAt; then listed, readable, and finished', async () => {
      const res = await app.request('POST', '/v1/runs', {
        runner: 'all',
        environment: 'ci',
        timeout: 120,
        variables: { v: 'x', n: 1, b: true },
      });
      expect(res.status).to.equal(201);
      expect(res.body).to.include({ status: 'queued', runner: 'all', environment: 'ci' });
      expect(res.body.runId).to.match(/^run_[0-9A-Z]{26}$/);
      expect(res.headers.get('location')).to.equal(`/v1/runs/${res.body.runId}`);
      expect(Date.parse(res.body.createdAt)).to.be.closeTo(Date.now(), 10_000);
      const got = await app.request('GET', `/v1/runs/${res.body.runId}`);
      expect(got.status).to.equal(200);
      expect(got.body).to.include({ runId: res.body.runId, runner: 'all', environment: 'ci', timeout: 120 });
      expect(got.body.variables).to.deep.equal({ v: 'x', n: 1, b: true });
      expect(got.body.links.temporal).to.contain(`run-${res.body.runId}`);
    });

    it('lists runs filtered by runner and environment, newest first by default, ascending on request, paged', async () => {
      await app.request('POST', '/v1/environments', { name: 'ci2' });
      const ids: string[] = [];
      for (const environment of ['ci', 'ci2', 'ci']) {
        ids.push((await app.request('POST', '/v1/runs', { runner: 'all', environment })).body.runId);
      }
      const desc = await app.request('GET', '/v1/runs?runner=all&environment=ci&orderBy=createdAt&order=desc');
      const descIds = desc.body.items.map((r: { runId: string }) => r.runId);
      expect(descIds[0]).to.equal(ids[2]);
      expect(descIds).not.to.include(ids[1]);
      const asc = await app.request('GET', '/v1/runs?environment=ci&order=asc');
      expect(asc.body.items.map((r: { runId: string }) => r.runId).slice(-1)[0]).to.equal(ids[2]);
      const latest = await app.request('GET', '/v1/runs?runner=all&environment=ci&limit=1');
      expect(latest.body.items).to.have.length(1);
      expect(latest.body.items[0].runId).to.equal(ids[2]);
      const next = await app.request(
        'GET',
        `/v1/runs?runner=all&environment=ci&limit=1&cursor=${latest.body.nextCursor}`,
      );
      expect(next.body.items[0].runId).to.equal(ids[0]);
      expectProblem(await app.request('GET', '/v1/runs?order=sideways'), 400, 'invalid-query');
      expectProblem(await app.request('GET', '/v1/runs?orderBy=name'), 400, 'invalid-query');
      expectProblem(await app.request('GET', '/v1/runs?status=paused'), 400, 'invalid-query');
      expectProblem(await app.request('GET', '/v1/runs?limit=1000'), 400, 'invalid-query');
    });

    it('404 for unknown runs; 409 when cancelling a finished run', async () => {
      expectProblem(await app.request('GET', '/v1/runs/run_nope'), 404, 'not-found');
      expectProblem(await app.request('GET', '/v1/runs/run_nope/results'), 404, 'not-found');
      expectProblem(await app.request('POST', '/v1/runs/run_nope/cancel'), 404, 'not-found');
      const { runId } = (await app.request('POST', '/v1/runs', { runner: 'all', environment: 'ci' })).body;
      let status = '';
      for (let i = 0; i < 200 && status !== 'completed'; i++) {
        status = (await app.request('GET', `/v1/runs/${runId}`)).body.status;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(status).to.equal('completed');
      const cancel = await app.request('POST', `/v1/runs/${runId}/cancel`);
      expectProblem(cancel, 409, 'run-finished');
    });
  });

  describe('other errors', () => {
    it('404 problem for an unknown route; 405 for a known path with a wrong method', async () => {
      expectProblem(await app.request('GET', '/v1/nothing-here'), 404, 'not-found');
      const wrongMethod = await app.request('DELETE', '/v1/workspaces');
      expectProblem(wrongMethod, 405, 'method-not-allowed');
      expect(wrongMethod.headers.get('allow')).to.equal('HEAD, GET');
    });

    it('413 for a body over the size limit', async () => {
      const huge = { name: 'big', variables: { blob: 'x'.repeat(app.config.api.maxBodyBytes + 10) } };
      expectProblem(await app.request('POST', '/v1/environments', huge), 413, 'payload-too-large');
    });

    it('describes each problem type at its type URI', async () => {
      const res = await app.request('GET', '/problems/unknown-reference', undefined, { key: null });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ code: 'unknown-reference', status: 422 });
    });

    it('500 without internals when the store breaks, and the data is left as it was', async () => {
      const before = (await app.request('GET', '/v1/environments')).body.items.length;
      await app.dataSource.query('RENAME TABLE runners TO runners_away');
      try {
        const res = await app.request('GET', '/v1/runners');
        expectProblem(res, 500, 'internal');
        const text = JSON.stringify(res.body);
        expect(text).not.to.match(/runners|SELECT|ER_|stack|at /i);
        expect(res.body.instance).to.match(/^urn:assay:request:/);
      } finally {
        await app.dataSource.query('RENAME TABLE runners_away TO runners');
      }
      expect((await app.request('GET', '/v1/environments')).body.items.length).to.equal(before);
    });
  });
});

describe('rate limiting', function () {
  this.timeout(60_000);
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ env: { ASSAY_RATE_LIMIT_PER_MINUTE: '3' } });
  });
  after(async () => {
    await app?.stop();
  });

  it('answers 429 with Retry-After and RateLimit headers once the key used its budget; other keys are unaffected', async () => {
    for (let i = 0; i < 3; i++) {
      const ok = await app.request('GET', '/v1/workspaces');
      expect(ok.status).to.equal(200);
      expect(ok.headers.get('ratelimit-limit')).to.equal('3');
      expect(ok.headers.get('ratelimit-remaining')).to.equal(String(2 - i));
    }
    const limited = await app.request('GET', '/v1/workspaces');
    expectProblem(limited, 429, 'rate-limited');
    expect(Number(limited.headers.get('retry-after'))).to.be.within(1, 60);
    const other = await app.issueKey('read');
    expect((await app.request('GET', '/v1/workspaces', undefined, { key: other })).status).to.equal(200);
  });
});

describe('starting a run while Temporal is unreachable', function () {
  this.timeout(60_000);
  let app: TestApp;
  before(async () => {
    // Nothing listens there: Temporal is unreachable.
    app = await startTestApp({ env: { TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}` } });
    await app.request('POST', '/v1/environments', { name: 'e' });
    await app.request('POST', '/v1/test-cases', { name: 'waits', flow: [{ type: 'wait', ms: 1 }] });
    await app.request('POST', '/v1/runners', { name: 'r', folder: '' });
  });
  after(async () => {
    await app?.stop();
  });

  it('answers 503 and records the run as failed with the reason, never leaving it queued', async () => {
    const res = await app.request('POST', '/v1/runs', { runner: 'r', environment: 'e' });
    expectProblem(res, 503, 'temporal-unavailable');
    expect(res.body.runId).to.match(/^run_/);
    const run = (await app.request('GET', `/v1/runs/${res.body.runId}`)).body;
    expect(run.status).to.equal('failed');
    expect(run.error).to.equal('The run could not be started: the workflow service is unavailable.');
    // The rest of the API keeps working.
    expect((await app.request('GET', '/v1/environments')).status).to.equal(200);
  });
});

describe('script libraries and data sets over the API', function () {
  this.timeout(60_000);
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => {
    await app?.stop();
  });

  it('lists the built-in and predefined libraries with stable URLs, and serves each file', async () => {
    const res = await app.request('GET', '/v1/libraries');
    expect(res.status).to.equal(200);
    const byGlobal = Object.fromEntries(res.body.items.map((l: { global: string }) => [l.global, l]));
    expect(Object.keys(byGlobal).sort()).to.deep.equal([
      'AssayPostman',
      'CryptoJS',
      '_',
      'axios',
      'dayjs',
      'faker',
      'ky',
      'luxon',
      'moment',
      'numeral',
      'turf',
      'validator',
      'z',
    ]);
    expect(byGlobal._).to.include({ version: '4.17.21', kind: 'builtin' });
    // Assay's own Postman compatibility library (docs/import-postman.md), versioned on its own.
    expect(byGlobal.AssayPostman).to.include({
      name: 'postman',
      version: '1.0.0',
      kind: 'predefined',
      url: `${app.config.api.publicUrl}/libs/postman@1.0.0.js`,
    });
    expect(byGlobal.CryptoJS).to.include({
      version: '4.2.0',
      kind: 'predefined',
      url: `${app.config.api.publicUrl}/libs/crypto-js@4.2.0.js`,
    });
    const file = await fetch(`${app.url}/libs/crypto-js@4.2.0.js`);
    expect(file.status).to.equal(200);
    expect(file.headers.get('content-type')).to.equal('text/javascript; charset=utf-8');
    expect(file.headers.get('cache-control')).to.contain('immutable');
    expect(await file.text()).to.contain('CryptoJS');
    const again = await fetch(`${app.url}/libs/crypto-js@4.2.0.js`, {
      headers: { 'if-none-match': file.headers.get('etag')! },
    });
    expect(again.status).to.equal(304);
    expect((await fetch(`${app.url}/libs/nope@1.js`)).status).to.equal(404);
  });

  it('stores data sets with a test case and refuses broken ones or dangling references, storing nothing', async () => {
    const flow = [
      {
        type: 'iteration',
        dataSet: 'users',
        body: [{ type: 'api', request: { method: 'GET', url: 'http://127.0.0.1:9/{{item.id}}' } }],
      },
    ];
    const created = await app.request('POST', '/v1/test-cases', {
      name: 'ds',
      flow,
      dataSets: [{ name: 'users', type: 'csv', csv: 'id\n1\n2', cast: true }],
    });
    expect(created.status).to.equal(201);
    expect(created.body.dataSets).to.deep.equal([{ name: 'users', type: 'csv', csv: 'id\n1\n2', cast: true }]);
    const dangling = await app.request('POST', '/v1/test-cases', { name: 'ds2', flow });
    expectProblem(dangling, 400, 'validation-failed');
    expect(dangling.body.errors[0]).to.include({ pointer: '#/flow/0/dataSet' });
    const patchedAway = await app.request('PATCH', `/v1/test-cases/${created.body.id}`, { dataSets: [] });
    expectProblem(patchedAway, 400, 'validation-failed');
    expect((await app.request('GET', `/v1/test-cases/${created.body.id}`)).body.dataSets).to.have.length(1);
    const script = await app.request('POST', '/v1/test-cases', {
      name: 'bad script',
      flow: [{ type: 'script', script: { code: 'function (' } }],
    });
    expectProblem(script, 400, 'validation-failed');
    expect(script.body.errors[0].field).to.equal('flow[0].script.code');
    expect((await app.request('GET', '/v1/test-cases')).body.items.map((t: { name: string }) => t.name)).to.deep.equal([
      'ds',
    ]);
  });
});
