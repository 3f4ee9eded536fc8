/**
 * Mock state (docs/mocks.md "State"): data collections and their generated CRUD routes across two
 * API processes on one store, state responses (JSONata update and body), scopes (a run's own,
 * isolated from a parallel run's and from the shared state, discarded when the run ends; a TTL for
 * the others), and an API process killed (-9) while writing losing nothing it acknowledged.
 */
import { expect } from 'chai';
import type { DataSource } from 'typeorm';
import { eventually, startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { processEnv, spawnAssay, waitForHttp } from '../../helpers/processes';
import { startApi, type ApiHandle } from '../../../bin/processes';
import { openDataSource } from '../../../src/store/data-source';
import { createLogger } from '../../../src/logger';
import { freePort } from '../../../src/net/free-port';

const SEED = [
  { id: 1, name: 'Ada', role: 'admin' },
  { id: 2, name: 'Grace', role: 'user' },
];

async function call(url: string, method = 'GET', body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as any) : undefined };
}

/**
 * Writes to a scope through an API child process killed (-9) while they run: every write it
 * answered 201 is in the store afterwards (read through `mock`, another process).
 */
async function writesSurviveKill(app: TestApp, mock: string): Promise<void> {
  const port = await freePort();
  const child = spawnAssay('api', processEnv(app, { ASSAY_PORT: String(port), ASSAY_HOST: '127.0.0.1' }));
  const scope = { 'x-assay-mock-scope': 'kill' };
  try {
    await waitForHttp(`http://127.0.0.1:${port}/healthz`);
    const target = `http://127.0.0.1:${port}/mock/${app.workspaceId}/users`;
    const acknowledged: string[] = [];
    let n = 0;
    let killed = false;
    const writer = async () => {
      while (!killed) {
        const id = `k${n++}`;
        try {
          const res = await fetch(target, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...scope },
            body: JSON.stringify({ id, at: Date.now() }),
          });
          if (res.status === 201) acknowledged.push(id);
          await res.arrayBuffer();
        } catch {
          /* the process died under this request: not acknowledged */
        }
      }
    };
    const writers = Array.from({ length: 6 }, writer);
    await eventually(async () => acknowledged.length >= 30, 20_000, 20);
    await child.kill();
    killed = true;
    await Promise.all(writers);
    const stored = await call(`${mock}/users?_limit=1000`, 'GET', undefined, scope);
    const ids = new Set(stored.body.map((r: { id: string }) => r.id));
    const lost = acknowledged.filter((id) => !ids.has(id));
    expect(lost, `${acknowledged.length} acknowledged`).to.deep.equal([]);
  } finally {
    await child.kill();
  }
  const discarded = await app.request('DELETE', '/v1/mock-scopes/kill');
  expect(discarded.status).to.equal(204);
  expect((await call(`${mock}/users?_limit=1000`, 'GET', undefined, scope)).body).to.deep.equal(SEED);
}

describe('mock state: data collections, CRUD routes, scopes', function () {
  this.timeout(90_000);
  let app: TestApp;
  let other: { api: ApiHandle; dataSource: DataSource };
  let mockA: string;
  let mockB: string;
  let collectionId: string;

  before(async () => {
    app = await startTestApp({ worker: true, env: { ASSAY_MOCK_PORT: '0' } });
    // A second API process on the same store (its own connections, caches and mock engine).
    const dataSource = await openDataSource(app.config.database);
    other = { dataSource, api: await startApi(app.config, dataSource, createLogger('silent', 'assay-test')) };
    mockA = `${app.url}/mock/${app.workspaceId}`;
    mockB = `${other.api.url}/mock/${app.workspaceId}`;
    const made = await app.request('POST', '/v1/mock-collections', { name: 'users', basePath: '/users', seed: SEED });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    expect(made.body).to.include({ name: 'users', basePath: '/users', idField: 'id', seedCount: 2, records: 2 });
    expect(made.body.id).to.match(/^mcol_/);
    collectionId = made.body.id;
  });
  after(async () => {
    await other?.api.close();
    await other?.dataSource.destroy();
    await app?.stop();
  });

  it('serves CRUD routes over one store from two API processes', async () => {
    const created = await call(`${mockA}/users`, 'POST', { name: 'Linus' });
    expect(created.status).to.equal(201);
    expect(created.body).to.deep.equal({ name: 'Linus', id: 3 });
    expect(created.headers.get('location')).to.equal(`/mock/${app.workspaceId}/users/3`);
    expect(created.headers.get('x-mock-collection')).to.equal(collectionId);

    expect((await call(`${mockB}/users/3`)).body).to.deep.equal({ name: 'Linus', id: 3 });
    const patched = await call(`${mockB}/users/3`, 'PATCH', { role: 'user', name: null, id: 99 });
    expect(patched.status).to.equal(200);
    expect(patched.body).to.deep.equal({ id: 3, role: 'user' });
    expect((await call(`${mockA}/users/3`)).body).to.deep.equal({ id: 3, role: 'user' });

    const put = await call(`${mockA}/users/abc`, 'PUT', { name: 'Barbara' });
    expect(put.status).to.equal(201);
    expect(put.body).to.deep.equal({ name: 'Barbara', id: 'abc' });
    expect((await call(`${mockB}/users/abc`, 'PUT', { name: 'Barbara L.' })).status).to.equal(200);
    // Not every id is an integer any more: the next generated one is a ULID.
    const ulid = await call(`${mockB}/users`, 'POST', { name: 'Ken' });
    expect(ulid.body.id).to.match(/^[0-9A-HJKMNP-TV-Z]{26}$/);

    const exists = await call(`${mockB}/users`, 'POST', { id: 2, name: 'again' });
    expect(exists.status).to.equal(409);
    expect(exists.body).to.include({ code: 'mock-record-exists', id: '2' });

    expect((await call(`${mockB}/users/1`, 'DELETE')).status).to.equal(204);
    const gone = await call(`${mockA}/users/1`);
    expect(gone.status).to.equal(404);
    expect(gone.body).to.include({ code: 'mock-record-not-found', collection: 'users', id: '1' });
    expect((await call(`${mockA}/users/1`, 'DELETE')).status).to.equal(404);
    expect((await call(`${mockA}/users/1`, 'PATCH', {})).status).to.equal(404);

    const list = await call(`${mockA}/users?_sort=-name&_limit=2&_page=1`);
    expect(list.headers.get('x-total-count')).to.equal('4');
    expect(list.body.map((u: { name?: string }) => u.name)).to.deep.equal(['Ken', 'Grace']);
    const page2 = await call(`${mockB}/users?_limit=3&_page=2`);
    expect(page2.body).to.have.length(1);
    const filtered = await call(`${mockB}/users?role=user`);
    expect(filtered.body.map((u: { id: unknown }) => u.id)).to.deep.equal([2, 3]);
    expect(filtered.headers.get('x-total-count')).to.equal('2');

    expect((await call(`${mockA}/users`, 'POST', [1, 2])).body).to.include({ code: 'mock-request-invalid' });
    expect((await call(`${mockA}/users/3`, 'POST', {})).status).to.equal(405);
    expect((await call(`${mockA}/users/3`, 'OPTIONS')).headers.get('allow')).to.match(/PATCH/);

    const records = await app.request('GET', `/v1/mock-collections/${collectionId}/records?limit=2`);
    expect(records.body.items).to.have.length(2);
    const rest = await app.request(
      'GET',
      `/v1/mock-collections/${collectionId}/records?cursor=${records.body.nextCursor}`,
    );
    expect(rest.body.items).to.have.length(2);
    expect(rest.body.nextCursor).to.equal(null);

    // A design with the same method and route wins over the generated one; the other methods stay generated.
    const design = await app.request('POST', '/v1/designs', {
      method: 'GET',
      path: '/users/{id}',
      responses: [{ status: 200, code: 1, data: { designed: true } }],
    });
    expect(design.status).to.equal(201);
    expect((await call(`${mockA}/users/2`)).body).to.deep.equal({ designed: true });
    expect((await call(`${mockA}/users/2`, 'PATCH', { role: 'admin' })).body).to.deep.equal({
      id: 2,
      name: 'Grace',
      role: 'admin',
    });
    await app.request('DELETE', `/v1/designs/${design.body.id}`);

    const reset = await app.request('POST', `/v1/mock-collections/${collectionId}/reset`);
    expect(reset.body.records).to.equal(2);
    expect((await call(`${mockB}/users`)).body).to.deep.equal(SEED);

    // A new scope written by both processes at once: its seed is copied once, no write is lost.
    const race = { 'x-assay-mock-scope': 'race' };
    const writes = await Promise.all(
      Array.from({ length: 16 }, (_, i) => call(`${i % 2 ? mockA : mockB}/users`, 'POST', { name: `w${i}` }, race)),
    );
    expect(writes.map((w) => w.status)).to.deep.equal(Array(16).fill(201));
    expect(new Set(writes.map((w) => w.body.id)).size).to.equal(16);
    const raced = await call(`${mockA}/users?_limit=100`, 'GET', undefined, race);
    expect(raced.headers.get('x-total-count')).to.equal('18');
    expect(raced.body.slice(0, 2)).to.deep.equal(SEED);

    const taken = await app.request('POST', '/v1/mock-collections', { name: 'people', basePath: '/users' });
    expect(taken.status).to.equal(409);
    expect(taken.body).to.include({ code: 'mock-collection-taken', collectionId });
  });

  it('answers state responses: a JSONata update written with the answer, a body over the records', async () => {
    const stock = await app.request('POST', '/v1/mock-collections', {
      name: 'stock',
      seed: [
        { id: 'p1', count: 2 },
        { id: 'p2', count: 0 },
      ],
    });
    expect(stock.status).to.equal(201);
    const design = await app.request('POST', '/v1/designs', {
      method: 'POST',
      path: '/products/{productId}/take',
      responses: [
        {
          status: 200,
          code: 1,
          state: {
            collection: 'stock',
            id: '{{productId}}',
            update: '$merge([record, {"count": record.count - request.body.qty}])',
            body: '{"left": record.count, "was": before.count}',
          },
        },
      ],
    });
    expect(design.status, JSON.stringify(design.body)).to.equal(201);
    const list = await app.request('POST', '/v1/designs', {
      method: 'GET',
      path: '/products',
      responses: [{ status: 200, code: 1, state: { collection: 'stock', body: '{"ids": records.id}' } }],
    });
    expect(list.status).to.equal(201);
    const taken = await call(`${mockA}/products/p1/take`, 'POST', { qty: 1 });
    expect(taken.status).to.equal(200);
    expect(taken.body).to.deep.equal({ left: 1, was: 2 });
    expect((await call(`${mockA}/products/p1/take`, 'POST', { qty: 1 })).body).to.deep.equal({ left: 0, was: 1 });
    // The other process reads the record written through this one.
    const seen = await call(`${other.api.url}/v1/mock-collections/${stock.body.id}/records`, 'GET', undefined, {
      authorization: `Bearer ${app.key}`,
    });
    expect(seen.body.items[0]).to.deep.equal({
      id: 'p1',
      count: 0,
    });
    expect((await call(`${mockA}/products/nope/take`, 'POST', { qty: 1 })).body).to.include({
      code: 'mock-record-not-found',
    });
    expect((await call(`${mockA}/products`)).body).to.deep.equal({ ids: ['p1', 'p2'] });

    // A seed sampled from a design's response schema (the array's items), ids 1…count.
    const schema = await app.request('POST', '/v1/designs', {
      method: 'GET',
      path: '/pets',
      responseSchemas: {
        '200': {
          type: 'array',
          items: {
            type: 'object',
            required: ['id', 'name'],
            properties: { id: { type: 'integer' }, name: { type: 'string' } },
          },
        },
      },
      responses: [{ status: 200, code: 1 }],
    });
    expect(schema.status, JSON.stringify(schema.body)).to.equal(201);
    const pets = await app.request('POST', '/v1/mock-collections', {
      name: 'pets',
      seedFrom: { designId: schema.body.id, count: 3 },
    });
    expect(pets.status, JSON.stringify(pets.body)).to.equal(201);
    expect(pets.body).to.include({ seedCount: 3, records: 3 });
    const sampled = await app.request('GET', `/v1/mock-collections/${pets.body.id}/records`);
    expect(sampled.body.items.map((p: { id: number }) => p.id)).to.deep.equal([1, 2, 3]);
    expect(sampled.body.items[0].name).to.be.a('string');
    const replaced = await app.request('PATCH', `/v1/mock-collections/${pets.body.id}`, { seed: [{ name: 'Rex' }] });
    expect(replaced.body).to.include({ seedCount: 1, records: 1, seedFrom: null });

    const bad = await app.request('POST', '/v1/designs', {
      method: 'GET',
      path: '/broken',
      responses: [{ status: 200, code: 1, state: { collection: 'stock', update: '$merge([record' } }],
    });
    expect(bad.status).to.equal(400);
    expect(JSON.stringify(bad.body.errors)).to.contain('responses[0].state.update');
  });

  it('isolates two parallel runs writing the same ids, and discards their scopes when they end', async () => {
    const mock = `${app.api.mockUrl}/mock/${app.workspaceId}`;
    await app.request('POST', '/v1/environments', { name: 'state', variables: { mock } });
    const flow = [
      {
        type: 'api',
        id: 'create',
        request: { method: 'POST', url: '{{mock}}/users', body: { id: 50, name: '{{who}}' } },
        assertions: [{ target: 'response.status', operator: 'equals', expected: 201 }],
      },
      { type: 'wait', id: 'pause', ms: 300 },
      {
        type: 'api',
        id: 'read',
        request: { method: 'GET', url: '{{mock}}/~{{$runId}}/users/50' },
        assertions: [{ target: 'response.body.name = variables.who', operator: 'equals', expected: true }],
      },
      {
        type: 'api',
        id: 'again',
        request: { method: 'POST', url: '{{mock}}/users', body: { id: 50 } },
        assertions: [{ target: 'response.status', operator: 'equals', expected: 409 }],
      },
    ];
    const tc = await app.request('POST', '/v1/test-cases', { name: 'scoped', folder: 'state', flow });
    expect(tc.status, JSON.stringify(tc.body)).to.equal(201);
    await app.request('POST', '/v1/runners', { name: 'state', folder: 'state' });
    const starts = await Promise.all(
      ['A', 'B'].map((who) =>
        app.request('POST', '/v1/runs', { runner: 'state', environment: 'state', variables: { who } }),
      ),
    );
    for (const s of starts) expect(s.status, JSON.stringify(s.body)).to.equal(201);
    const runs = await Promise.all(starts.map((s) => waitForRun(app, s.body.runId)));
    for (const [i, run] of runs.entries()) {
      const results = (await app.request('GET', `/v1/runs/${starts[i]!.body.runId}/results`)).body;
      expect(run.result, JSON.stringify(results.details.testCases[0].nodes)).to.equal('passed');
    }
    // The shared state never saw them; the runs' scopes are gone.
    expect((await call(`${mockA}/users/50`)).status).to.equal(404);
    const scopes = (await app.dataSource.query(
      'SELECT scope FROM mock_scopes WHERE scope IN (?, ?)',
      starts.map((s) => s.body.runId),
    )) as unknown[];
    expect(scopes).to.deep.equal([]);
  });

  it('loses nothing acknowledged when an API process is killed (-9) during writes', () =>
    writesSurviveKill(app, mockA));
});

describe('mock state on SQLite: scopes and their TTL', function () {
  this.timeout(60_000);
  let app: TestApp;

  before(async () => {
    app = await startTestApp({ dialect: 'sqlite', env: { ASSAY_MOCK_SCOPE_TTL_SECONDS: '1' } });
  });
  after(async () => {
    await app?.stop();
  });

  it('starts a scope from the seed, keeps it apart from the shared state, and deletes it once unused for the TTL', async () => {
    const mock = `${app.url}/mock/${app.workspaceId}`;
    const made = await app.request('POST', '/v1/mock-collections', { name: 'users', basePath: '/users', seed: SEED });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    const scoped = { 'x-assay-mock-scope': 'ttl-test' };
    expect((await call(`${mock}/users`, 'POST', { name: 'Scoped' }, scoped)).body).to.deep.equal({
      name: 'Scoped',
      id: 3,
    });
    // The same scope through the URL's `/~scope` segment.
    expect((await call(`${mock}/~ttl-test/users/3`)).body).to.deep.equal({ name: 'Scoped', id: 3 });
    expect((await call(`${mock}/users/3`)).status).to.equal(404);
    expect((await call(`${mock}/users`)).body).to.deep.equal(SEED);
    expect((await call(`${mock}/users`, 'GET', undefined, { 'x-assay-mock-scope': 'bad scope!' })).body).to.include({
      code: 'mock-bad-scope',
    });
    const records = await app.request('GET', `/v1/mock-collections/${made.body.id}/records?scope=ttl-test`);
    expect(records.body.items).to.have.length(3);
    // Unused for a second (reads of a started scope count as use, so none here): the sweep deletes
    // it, and the scope starts from the seed again.
    const left = () =>
      app.dataSource.query("SELECT * FROM mock_records WHERE scope = 'ttl-test'") as Promise<unknown[]>;
    expect(await left()).to.have.length(3);
    await eventually(async () => (await left()).length === 0, 10_000, 200);
    expect(
      (await app.dataSource.query("SELECT * FROM mock_scopes WHERE scope = 'ttl-test'")) as unknown[],
    ).to.deep.equal([]);
    expect((await call(`${mock}/users/3`, 'GET', undefined, scoped)).status).to.equal(404);
    expect((await call(`${mock}/users`, 'GET', undefined, scoped)).body).to.deep.equal(SEED);
    expect((await call(`${mock}/users`)).body).to.deep.equal(SEED);
  });

  it('loses nothing acknowledged when an API process on the same SQLite file is killed (-9) during writes', () =>
    writesSurviveKill(app, `${app.url}/mock/${app.workspaceId}`));
});
