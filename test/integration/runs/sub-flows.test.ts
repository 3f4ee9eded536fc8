/**
 * Sub-flows (Ref nodes, docs/reuse.md "Sub-flows") on a real Temporal server with a real worker,
 * against a loopback target: a reusable "login" test case run by two others passing a token out
 * through `outputs`; runners leaving reusable test cases out unless listed by id; clones copied when
 * saved and independent afterwards; a live link edited between two runs (the second runs the new
 * version, the first's results keep the old); cycles, dangling, cross-workspace and too-deep
 * references refused naming the field; deleting a referenced test case refused with 409; a
 * reference gone when a run freezes its plan failing the run before it sends anything; a failure
 * inside nested sub-flows naming the chain in results and in the Temporal Web UI's summaries.
 */
import { expect } from 'chai';
import type { Payload } from '@temporalio/common';
import { startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { startTarget, type Target } from '../../helpers/target';
import { temporalClient, testDataConverter } from '../../helpers/temporal';
import { TestCase } from '../../../src/store/entities';

type Json = Record<string, any>;

async function decodeText(payload: Payload | null | undefined): Promise<string | undefined> {
  if (!payload) return undefined;
  const [plain] = await testDataConverter().payloadCodecs![0]!.decode([payload]);
  return JSON.parse(Buffer.from(plain!.data!).toString('utf8')) as string;
}

const loginFlow = (prefix: string, ids: { get: string; keep: string }, name: string) => [
  {
    id: ids.get,
    name,
    type: 'api',
    request: { method: 'GET', url: `{{base}}/echo?token=${prefix}-{{user}}` },
    assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
  },
  { id: ids.keep, type: 'context', set: { token: `nodes.${ids.get}.response.body.query.token` } },
];

/** A test case that runs "login" for `user` and sends the token it got back. */
const callerFlow = (loginId: string, user: string) => [
  {
    id: 'login',
    type: 'ref',
    mode: 'ref',
    testCaseId: loginId,
    inputs: { user: `"${user}"` },
    outputs: { authToken: 'token' },
  },
  {
    id: 'pay',
    type: 'api',
    request: { method: 'GET', url: '{{base}}/echo?auth={{authToken}}' },
    assertions: [
      { target: 'response.body.query.auth', operator: 'matches', expected: `^(tok|v2)-${user}$` },
      // Only `outputs` come back: the sub-flow's own variables stay in it.
      { target: '$exists(variables.token)', operator: 'equals', expected: false },
    ],
  },
];

describe('sub-flows (Ref nodes)', function () {
  this.timeout(120_000);
  let app: TestApp;
  let target: Target;
  let login: Json;
  let checkout: Json;

  const create = async (body: Json) => {
    const res = await app.request('POST', '/v1/test-cases', body);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body as Json;
  };
  const run = async (runner: string) => {
    const started = await app.request('POST', '/v1/runs', { runner, environment: 'local' });
    expect(started.status, JSON.stringify(started.body)).to.equal(201);
    const done = await waitForRun(app, started.body.runId, 60_000);
    const results = (await app.request('GET', `/v1/runs/${started.body.runId}/results`)).body;
    return { runId: started.body.runId as string, run: done, cases: (results.details?.testCases ?? []) as Json[] };
  };

  before(async () => {
    [app, target] = await Promise.all([
      startTestApp({ worker: true, env: { ASSAY_QUOTA_LOOP_ITERATIONS: '1000' } }),
      startTarget(),
    ]);
    await app.request('POST', '/v1/environments', { name: 'local', variables: { base: target.url, user: 'nobody' } });
    login = await create({
      name: 'login',
      folder: 'shop',
      reusable: true,
      flow: loginFlow('tok', { get: 'getToken', keep: 'keep' }, 'get token'),
    });
    checkout = await create({ name: 'checkout', folder: 'shop', flow: callerFlow(login.id, 'alice') });
    await create({ name: 'profile', folder: 'shop', flow: callerFlow(login.id, 'bob') });
    await app.request('POST', '/v1/runners', { name: 'shop', folder: 'shop', order: 'createdAt' });
  });
  after(async () => {
    await target?.close();
    await app?.stop();
  });

  it('runs a reusable login in two test cases, each getting its token through outputs; a folder runner skips the reusable one', async () => {
    expect(login.reusable).to.equal(true);
    expect(checkout.reusable).to.equal(false);
    // A live link stores no flow: it is taken when each run starts.
    expect(checkout.flow[0]).to.not.have.property('flow');
    const preview = (await app.request('GET', '/v1/runners/shop/test-cases')).body;
    expect(preview.items.map((t: Json) => t.name)).to.deep.equal(['checkout', 'profile']);
    // Listed by id, a reusable test case runs on its own.
    await app.request('POST', '/v1/runners', { name: 'login-only', testCaseIds: [login.id] });
    expect((await app.request('GET', `/v1/runners/login-only/test-cases`)).body.items).to.have.length(1);

    const first = await run('shop');
    expect(first.run.result, JSON.stringify(first.cases)).to.equal('passed');
    expect(first.cases.map((c) => c.name)).to.deep.equal(['checkout', 'profile']);
    const [c, p] = first.cases as [Json, Json];
    const ref = c.nodes[0];
    expect(ref).to.deep.include({ id: 'login', type: 'ref', name: 'login', status: 'passed' });
    expect(ref.children.map((n: Json) => `${n.id}:${n.type}:${n.status}`)).to.deep.equal([
      'getToken:api:passed',
      'keep:context:passed',
    ]);
    expect(ref.variablesSet).to.deep.equal({ authToken: 'tok-alice' });
    expect(c.nodes[1].request.url).to.match(/auth=tok-alice$/);
    expect(p.nodes[1].request.url).to.match(/auth=tok-bob$/);
    // The sub-flow's assertions count in the caller: 1 in login, 2 in pay.
    expect(c).to.deep.include({ assertions: 3, passedAssertions: 3 });

    // The live link edited: the next run takes the new version; the first run's results keep the old one.
    const edited = await app.request('PUT', `/v1/test-cases/${login.id}`, {
      name: 'login',
      folder: 'shop',
      reusable: true,
      flow: loginFlow('v2', { get: 'fetchToken', keep: 'keep2' }, 'fetch token'),
    });
    expect(edited.status, JSON.stringify(edited.body)).to.equal(200);
    const second = await run('shop');
    expect(second.run.result, JSON.stringify(second.cases)).to.equal('passed');
    expect(second.cases[0]!.nodes[0].children.map((n: Json) => n.id)).to.deep.equal(['fetchToken', 'keep2']);
    expect(second.cases[0]!.nodes[1].request.url).to.match(/auth=v2-alice$/);
    const again = (await app.request('GET', `/v1/runs/${first.runId}/results`)).body.details.testCases as Json[];
    expect(again[0]!.nodes[0].children.map((n: Json) => `${n.id}:${n.name ?? ''}`)).to.deep.equal([
      'getToken:get token',
      'keep:',
    ]);
    expect(again[0]!.nodes[1].request.url).to.match(/auth=tok-alice$/);
    // Each result says which version of "login" it ran: its updatedAt when the run started.
    expect(ref.version).to.equal(login.updatedAt);
    expect(second.cases[0]!.nodes[0].version).to.equal(edited.body.updatedAt);

    // The nested node's durable step names the chain in the Temporal Web UI.
    const history = await (await temporalClient()).workflow.getHandle(`run-${second.runId}`).fetchHistory();
    const summaries: string[] = [];
    for (const event of history.events ?? []) {
      const text = await decodeText(event.userMetadata?.summary);
      if (text) summaries.push(text);
    }
    expect(
      summaries.some((s) =>
        /^login › fetch token \(fetchToken\): GET http:\/\/127\.0\.0\.1:\d+\/echo\?token=v2-alice$/.test(s),
      ),
      summaries.join('\n'),
    ).to.equal(true);
  });

  it('copies a clone when saved; the copy is then independent of its source', async () => {
    const source = await create({
      name: 'seed',
      folder: 'clones',
      reusable: true,
      flow: [{ id: 's1', name: 'seed data', type: 'context', set: { seeded: '"yes"' } }],
    });
    const clone = await create({
      name: 'uses seed',
      folder: 'clones',
      flow: [{ id: 'seed', type: 'ref', mode: 'clone', testCaseId: source.id, outputs: { s: 'seeded' } }],
    });
    expect(clone.flow[0].flow).to.deep.equal(source.flow);
    expect(clone.flow[0].name).to.equal('seed');
    // Edited freely: its own ids, and nodes without an id get one within the sub-flow.
    const copy = clone.flow[0];
    copy.flow.push({ type: 'context', set: { more: '"1"' } });
    const patched = await app.request('PATCH', `/v1/test-cases/${clone.id}`, { flow: [copy] });
    expect(patched.status, JSON.stringify(patched.body)).to.equal(200);
    expect(patched.body.flow[0].flow.map((n: Json) => n.id)).to.deep.equal(['s1', 'n1']);
    // The source edited: the clone keeps its copy; the source can be deleted (a copy holds no link).
    await app.request('PATCH', `/v1/test-cases/${source.id}`, {
      flow: [{ id: 'other', type: 'context', set: { seeded: '"no"' } }],
    });
    const stored = (await app.request('GET', `/v1/test-cases/${clone.id}`)).body;
    expect(stored.flow[0].flow.map((n: Json) => n.id)).to.deep.equal(['s1', 'n1']);
    expect((await app.request('DELETE', `/v1/test-cases/${source.id}`)).status).to.equal(204);
  });

  it('refuses dangling, cross-workspace, cyclic and too deep references naming the field, and deleting a referenced test case', async () => {
    const dangling = await app.request('POST', '/v1/test-cases', {
      name: 'dangling',
      flow: [
        { type: 'context', set: { a: '1' } },
        { type: 'ref', mode: 'ref', testCaseId: 'tc_nothing' },
      ],
    });
    expect(dangling.status).to.equal(422);
    expect(dangling.body.code).to.equal('unknown-reference');
    expect(dangling.body.errors[0]).to.deep.include({ field: 'flow[1].testCaseId', pointer: '#/flow/1/testCaseId' });

    // Another workspace's test case answers as a missing one does.
    const otherKey = await app.issueKey('write', 'elsewhere');
    const foreign = await app.request(
      'POST',
      '/v1/test-cases',
      { name: 'foreign', flow: [{ type: 'ref', mode: 'clone', testCaseId: login.id }] },
      { key: otherKey },
    );
    expect(foreign.status).to.equal(422);
    expect(foreign.body.code).to.equal('unknown-reference');
    expect(foreign.body.errors[0].field).to.equal('flow[0].testCaseId');
    expect(foreign.body.errors[0].detail).to.equal(`no test case "${login.id}" exists in this workspace`);

    // A → A and A → B → A (B stored with its link to A).
    const a = await create({
      name: 'A',
      folder: 'cycles',
      reusable: true,
      flow: [{ type: 'context', set: { a: '1' } }],
    });
    const self = await app.request('PATCH', `/v1/test-cases/${a.id}`, {
      flow: [{ type: 'if', condition: 'true', then: [{ type: 'ref', mode: 'ref', testCaseId: a.id }] }],
    });
    expect(self.status).to.equal(422);
    expect(self.body.code).to.equal('invalid-sub-flow');
    expect(self.body.errors[0].field).to.equal('flow[0].then[0].testCaseId');
    const b = await create({
      name: 'B',
      folder: 'cycles',
      reusable: true,
      flow: [{ type: 'ref', mode: 'ref', testCaseId: a.id }],
    });
    const cycle = await app.request('PATCH', `/v1/test-cases/${a.id}`, {
      flow: [
        { type: 'context', set: { a: '1' } },
        { type: 'ref', mode: 'ref', testCaseId: b.id },
      ],
    });
    expect(cycle.status).to.equal(422);
    expect(cycle.body.code).to.equal('invalid-sub-flow');
    expect(cycle.body.errors[0].field).to.equal('flow[1].testCaseId');
    expect(cycle.body.errors[0].detail).to.contain('A › B › A');

    // Depth: d1 ← d2 ← … each one level deeper; 5 levels of sub-flows are allowed, a 6th is not.
    let previous = await create({
      name: 'd1',
      folder: 'deep',
      reusable: true,
      flow: [{ type: 'context', set: { x: '1' } }],
    });
    for (let level = 2; level <= 6; level++)
      previous = await create({
        name: `d${level}`,
        folder: 'deep',
        reusable: true,
        flow: [{ type: 'ref', mode: 'ref', testCaseId: previous.id }],
      });
    const tooDeep = await app.request('POST', '/v1/test-cases', {
      name: 'd7',
      folder: 'deep',
      flow: [{ type: 'ref', mode: 'ref', testCaseId: previous.id }],
    });
    expect(tooDeep.status).to.equal(422);
    expect(tooDeep.body.code).to.equal('invalid-sub-flow');
    expect(tooDeep.body.errors[0].field).to.equal('flow[0].testCaseId');
    expect(tooDeep.body.errors[0].detail).to.contain('6 levels deep');

    // A live link's flow is not stored: sending one is refused.
    const withFlow = await app.request('POST', '/v1/test-cases', {
      name: 'with flow',
      flow: [{ type: 'ref', mode: 'ref', testCaseId: login.id, flow: [] }],
    });
    expect(withFlow.status).to.equal(400);
    expect(withFlow.body.errors[0].field).to.equal('flow[0].flow');

    // Loops inside live links count towards the run's loop quota (1,000 here): 2 × 600 is refused when the run starts.
    const spin = await create({
      name: 'spin',
      folder: 'quota',
      reusable: true,
      flow: [{ id: 'spin', type: 'loop', count: 600, body: [{ type: 'context', set: { x: '1' } }] }],
    });
    const twice = await create({
      name: 'twice',
      folder: 'quota',
      flow: [
        { type: 'ref', mode: 'ref', testCaseId: spin.id },
        { type: 'ref', mode: 'ref', testCaseId: spin.id },
      ],
    });
    await app.request('POST', '/v1/runners', { name: 'quota', testCaseIds: [twice.id] });
    const overQuota = await app.request('POST', '/v1/runs', { runner: 'quota', environment: 'local' });
    expect(overQuota.status).to.equal(422);
    expect(overQuota.body).to.deep.include({
      code: 'loop-iterations-exceeded',
      expectedIterations: 1200,
      node: 'spin',
    });

    // Deleting a test case others link to: 409 naming them; nothing deleted.
    const refused = await app.request('DELETE', `/v1/test-cases/${login.id}`);
    expect(refused.status).to.equal(409);
    expect(refused.body.code).to.equal('test-case-referenced');
    expect(refused.body.referencedBy.map((r: Json) => `${r.name}:${r.nodes.join(',')}`)).to.deep.equal([
      'checkout:login',
      'profile:login',
    ]);
    expect(refused.body.detail).to.contain('checkout');
    expect((await app.request('GET', `/v1/test-cases/${login.id}`)).status).to.equal(200);
  });

  it('names the chain of a failure inside nested sub-flows, and fails a run whose reference is gone when it starts', async () => {
    const bad = await create({
      name: 'bad login',
      folder: 'fail',
      reusable: true,
      flow: [
        {
          id: 'n1',
          name: 'get token',
          type: 'api',
          request: { method: 'GET', url: '{{base}}/echo?token=x' },
          assertions: [{ name: 'status is 201', target: 'response.status', operator: 'equals', expected: 201 }],
        },
      ],
    });
    const session = await create({
      name: 'session',
      folder: 'fail',
      reusable: true,
      flow: [{ id: 'n1', type: 'ref', mode: 'ref', testCaseId: bad.id }],
    });
    await create({
      name: 'order',
      folder: 'fail',
      flow: [{ id: 'n1', type: 'ref', mode: 'ref', testCaseId: session.id }],
    });
    await app.request('POST', '/v1/runners', { name: 'fail', folder: 'fail' });
    const failed = await run('fail');
    expect(failed.run.result).to.equal('failed');
    expect(failed.cases.map((c) => c.name)).to.deep.equal(['order']);
    const [order] = failed.cases as [Json];
    expect(order).to.deep.include({ status: 'failed', assertions: 1, passedAssertions: 0 });
    expect(order.failures).to.have.length(1);
    expect(order.failures[0]).to.deep.include({ node: 'n1', path: ['session', 'bad login', 'get token'] });
    expect(order.failures[0].message).to.match(/^order › session › bad login › get token: /);
    const outer = order.nodes[0];
    expect(outer).to.deep.include({ name: 'session', status: 'failed' });
    expect(outer.children[0]).to.deep.include({ name: 'bad login', type: 'ref', status: 'failed' });
    expect(outer.children[0].children[0]).to.deep.include({ id: 'n1', name: 'get token', status: 'failed' });

    // Deleting is refused while linked, so only a race gets here: the row removed behind the API's back.
    await app.dataSource.getRepository(TestCase).delete({ id: bad.id });
    const before = target.hits.get('/echo') ?? 0;
    const gone = await run('fail');
    expect(gone.run.status).to.equal('failed');
    expect(gone.run.error).to.contain(`session: Ref node "n1" refers to test case "${bad.id}", which no longer exists`);
    expect(target.hits.get('/echo') ?? 0).to.equal(before);
  });
});
