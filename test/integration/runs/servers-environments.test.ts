/**
 * Servers and environments that inherit (docs/reuse.md), through the real API and a real worker
 * against two HTTP servers on loopback (two ports, so that which server a request reached is
 * visible): a chain of three environments merged in a run, inherited secrets delivered and masked,
 * GET marking inherited values, cycles and missing parents refused naming `extends`, 409 on
 * deleting a parent, servers used as `{{server.<name>}}` and as a node's `server` (also by every
 * virtual user of a performance run), a child
 * overriding a server, and a run whose environment lacks a server refused (POST /v1/runs) or
 * failed before sending anything (an incoming webhook's run).
 */
import { expect } from 'chai';
import { startTestApp, waitForRun, type Reply, type TestApp } from '../../helpers/app';
import { startTarget, type Target } from '../../helpers/target';

type Json = Record<string, any>;
const SECRET = 'tok-grandparent-s3cret';

function expectProblem(res: Reply, status: number, code: string): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
  expect(res.body.code).to.equal(code);
}

describe('servers and environments that inherit', function () {
  this.timeout(120_000);
  let app: TestApp;
  let users: Target;
  let orders: Target;

  /** Starts a run of `runner` against `environment` and waits for it; answers the run and its test case results. */
  async function runOf(runner: string, environment: string) {
    const started = await app.request('POST', '/v1/runs', { runner, environment });
    expect(started.status, JSON.stringify(started.body)).to.equal(201);
    const done = await waitForRun(app, started.body.runId, 60_000);
    const results = (await app.request('GET', `/v1/runs/${started.body.runId}/results`)).body;
    return { run: done, results, cases: results.details.testCases as Json[] };
  }

  before(async () => {
    [app, users, orders] = await Promise.all([startTestApp({ worker: true }), startTarget(), startTarget()]);
    const create = async (body: Json) => {
      const res = await app.request('POST', '/v1/environments', body);
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      return res.body;
    };
    // root → mid → leaf: three levels.
    await create({
      name: 'root',
      variables: { greeting: 'root-hello', level: 'root', token: { value: SECRET, secret: true } },
      servers: { users: users.url, orders: users.url },
    });
    await create({
      name: 'mid',
      extends: 'root',
      variables: { level: 'mid', midOnly: 'm' },
      servers: { orders: orders.url },
    });
    await create({ name: 'leaf', extends: 'mid', variables: { level: 'leaf' } });
    const testCase = await app.request('POST', '/v1/test-cases', {
      name: 'both ways',
      folder: 'servers',
      flow: [
        {
          type: 'api',
          id: 'byField',
          name: 'by field',
          server: 'users',
          request: { method: 'GET', url: '/echo?who={{level}}' },
          assertions: [
            { target: 'response.status', operator: 'equals', expected: 200 },
            { target: 'response.body.query.who', operator: 'equals', expected: 'leaf' },
          ],
        },
        {
          type: 'api',
          id: 'byTemplate',
          request: {
            method: 'GET',
            url: '{{server.orders}}/echo?g={{greeting}}&m={{midOnly}}',
            headers: { 'X-Token': '{{token}}' },
          },
          assertions: [
            { target: 'response.body.query.g', operator: 'equals', expected: 'root-hello' },
            { target: 'response.body.query.m', operator: 'equals', expected: 'm' },
            { target: 'response.body.headers."x-token" = variables.token', operator: 'equals', expected: true },
          ],
        },
      ],
    });
    expect(testCase.status, JSON.stringify(testCase.body)).to.equal(201);
    await app.request('POST', '/v1/runners', { name: 'servers', folder: 'servers' });
  });
  after(async () => {
    await Promise.all([users?.close(), orders?.close()]);
    await app?.stop();
  });

  it('GET shows own values and the inherited ones marked with where they come from; secrets stay "***"', async () => {
    const leaf = (await app.request('GET', '/v1/environments/leaf')).body;
    expect(leaf).to.include({ name: 'leaf', extends: 'mid' });
    expect(leaf.variables).to.deep.equal({ level: 'leaf' });
    expect(leaf).not.to.have.property('servers');
    expect(leaf.inherited).to.deep.equal({
      chain: ['root', 'mid'],
      variables: {
        greeting: { value: 'root-hello', from: 'root' },
        token: { value: '***', secret: true, from: 'root' },
        midOnly: { value: 'm', from: 'mid' },
      },
      servers: { users: { value: users.url, from: 'root' }, orders: { value: orders.url, from: 'mid' } },
    });
    const root = (await app.request('GET', '/v1/environments/root')).body;
    expect(root).not.to.have.any.keys('extends', 'inherited');
    expect(root.servers).to.deep.equal({ users: users.url, orders: users.url });
    // The list shows the same; a read key sees plain inherited values masked too.
    const list = (await app.request('GET', '/v1/environments')).body;
    expect(list.items.find((e: Json) => e.name === 'leaf').inherited).to.deep.equal(leaf.inherited);
    const reader = await app.issueKey('read');
    const masked = (await app.request('GET', '/v1/environments/leaf', undefined, { key: reader })).body;
    expect(masked.inherited.variables.greeting).to.deep.equal({ value: '***', from: 'root' });
    const everything = JSON.stringify([leaf, root, list]);
    expect(everything).not.to.contain(SECRET);
  });

  it('a run merges the chain (child over parent, grandparent visible) and uses servers both ways on two ports', async () => {
    const before = { users: users.hits.get('/echo') ?? 0, orders: orders.hits.get('/echo') ?? 0 };
    const { run, results, cases } = await runOf('servers', 'leaf');
    expect(run.result, JSON.stringify(cases)).to.equal('passed');
    const [byField, byTemplate] = cases[0]!.nodes;
    expect(byField.request.url).to.equal(`${users.url}/echo?who=leaf`);
    expect(byTemplate.request.url).to.equal(`${orders.url}/echo?g=root-hello&m=m`);
    expect(users.hits.get('/echo')).to.equal(before.users + 1);
    expect(orders.hits.get('/echo')).to.equal(before.orders + 1);
    // The inherited secret reached the target and is masked in everything stored about the run.
    expect(JSON.stringify([run, results])).not.to.contain(SECRET);
  });

  it('a performance run uses the servers in every virtual user', async () => {
    const before = { users: users.hits.get('/echo') ?? 0, orders: orders.hits.get('/echo') ?? 0 };
    const started = await app.request('POST', '/v1/runs', {
      runner: 'servers',
      environment: 'leaf',
      performance: { executor: 'constant-arrival-rate', rate: 10, duration: '600ms', preAllocatedVUs: 2, shards: 1 },
    });
    expect(started.status, JSON.stringify(started.body)).to.equal(201);
    const done = await waitForRun(app, started.body.runId, 60_000);
    expect(done.status, done.error).to.equal('completed');
    const results = (await app.request('GET', `/v1/runs/${started.body.runId}/results`)).body;
    const [testCase] = results.details.testCases as Json[];
    expect(testCase!.status, JSON.stringify(testCase)).to.equal('passed');
    const sent = {
      users: (users.hits.get('/echo') ?? 0) - before.users,
      orders: (orders.hits.get('/echo') ?? 0) - before.orders,
    };
    expect(sent.users).to.be.at.least(3);
    expect(sent.orders).to.equal(sent.users);
  });

  it('a child environment overrides a server of its ancestors', async () => {
    const res = await app.request('POST', '/v1/environments', {
      name: 'leaf-other-users',
      extends: 'leaf',
      servers: { users: `${orders.url}/` },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.inherited.servers).not.to.have.property('users');
    const before = orders.hits.get('/echo') ?? 0;
    const { run, cases } = await runOf('servers', 'leaf-other-users');
    expect(run.result, JSON.stringify(cases)).to.equal('passed');
    // The base's trailing slash and the path's leading one make one slash.
    expect(cases[0]!.nodes[0].request.url).to.equal(`${orders.url}/echo?who=leaf`);
    expect(orders.hits.get('/echo')).to.equal(before + 2);
    expect((await app.request('DELETE', '/v1/environments/leaf-other-users')).status).to.equal(204);
  });

  it('refuses cycles (also extending itself), a missing parent and an invalid server, naming the field', async () => {
    const cycle = await app.request('PATCH', '/v1/environments/root', { extends: 'leaf' });
    expectProblem(cycle, 400, 'validation-failed');
    expect(cycle.body.errors).to.deep.equal([
      { field: 'extends', pointer: '#/extends', detail: 'would make a cycle: root → leaf → mid → root' },
    ]);
    const self = await app.request('POST', '/v1/environments', { name: 'selfish', extends: 'selfish' });
    expectProblem(self, 400, 'validation-failed');
    expect(self.body.errors[0]).to.include({ field: 'extends' });
    const missing = await app.request('POST', '/v1/environments', { name: 'orphan', extends: 'nowhere' });
    expectProblem(missing, 422, 'unknown-reference');
    expect(missing.body.errors).to.deep.equal([
      { field: 'extends', pointer: '#/extends', detail: 'no environment named "nowhere" in this workspace' },
    ]);
    const badServer = await app.request('PATCH', '/v1/environments/mid', {
      servers: { payments: 'payments.example.com' },
    });
    expectProblem(badServer, 400, 'validation-failed');
    expect(badServer.body.errors[0]).to.include({ field: 'servers.payments' });
    // Nothing was stored.
    expect((await app.request('GET', '/v1/environments/root')).body).not.to.have.property('extends');
    expect((await app.request('GET', '/v1/environments/orphan')).status).to.equal(404);
  });

  it('answers 409 on deleting an environment others extend, naming them; renaming it keeps them extending it', async () => {
    const res = await app.request('DELETE', '/v1/environments/mid');
    expectProblem(res, 409, 'in-use');
    expect(res.body.extendedBy).to.deep.equal(['leaf']);
    expect(res.body.detail).to.contain('"leaf"');
    const renamed = await app.request('PATCH', '/v1/environments/mid', { name: 'middle' });
    expect(renamed.status, JSON.stringify(renamed.body)).to.equal(200);
    expect((await app.request('GET', '/v1/environments/leaf')).body.extends).to.equal('middle');
    await app.request('PATCH', '/v1/environments/middle', { name: 'mid' });
    expect((await app.request('GET', '/v1/environments/leaf')).body.inherited.chain).to.deep.equal(['root', 'mid']);
  });

  it('a run whose environment lacks a server a node names: 422 from POST /v1/runs, and a failed run from a webhook, saying which', async () => {
    await app.request('POST', '/v1/test-cases', {
      name: 'pay',
      folder: 'payments',
      flow: [
        {
          type: 'api',
          id: 'charge',
          name: 'charge card',
          server: 'payments',
          request: { method: 'POST', url: '/echo' },
        },
      ],
    });
    await app.request('POST', '/v1/runners', { name: 'payments', folder: 'payments' });
    const refused = await app.request('POST', '/v1/runs', { runner: 'payments', environment: 'leaf' });
    expectProblem(refused, 422, 'server-missing');
    expect(refused.body).to.deep.include({ environment: 'leaf', testCase: 'pay', node: 'charge', server: 'payments' });
    expect(refused.body.detail).to.equal(
      'Test case "pay", node "charge card" (charge) names server "payments", which environment "leaf" does not define (its servers: users, orders)',
    );
    // An incoming webhook's run is not refused up front: it fails when it freezes its plan, before sending anything.
    const d = (
      await app.request('POST', '/v1/deployments', {
        name: 'pay-hook',
        runner: 'payments',
        environment: 'leaf',
        webhookEnabled: true,
      })
    ).body;
    const hits = users.hits.get('/echo') ?? 0;
    const hook = await app.request(
      'POST',
      new URL(d.webhookUrl).pathname,
      {},
      {
        key: null,
        headers: { authorization: `Bearer ${d.webhookToken}` },
      },
    );
    expect(hook.status, JSON.stringify(hook.body)).to.equal(200);
    const failed = await waitForRun(app, hook.body.runId, 60_000);
    expect(failed.status).to.equal('failed');
    expect(failed.error).to.contain('names server "payments", which environment "leaf" does not define');
    expect(failed.error).to.contain('Test case "pay", node "charge card" (charge)');
    expect(users.hits.get('/echo') ?? 0).to.equal(hits);
  });
});
