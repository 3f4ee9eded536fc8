/**
 * Debug runs (`POST /v1/test-cases/debug`, docs/api.md "Debug runs"), on MariaDB and on SQLite,
 * executed by a real worker on a real Temporal server against a real HTTP server on loopback:
 *
 * - a test case never saved runs through the engine: 201 with the run document (`runner: null`,
 *   `trigger: "debug"`, `Location`), it completes, its results list each node by id, its plan says
 *   `debug: true` with durability `node`;
 * - a draft of a saved test case (`testCase.id`) answers `testCaseId`; debug runs are listed by
 *   `GET /v1/runs?trigger=debug` and not by `trigger=api`;
 * - a debug run leaves no test case history rows (what trends, the flakiness rule and comparisons
 *   read), while a runner's run of the same test case does (so the check can fail); it is never a
 *   baseline, neither the last passing run nor pinned; it cannot be rerun, replayed or resumed
 *   (409 `debug-run`); its node results carry the debug capture (request, response, variables);
 * - a flow that does not validate is 400 with pointers under `/testCase/flow`, an unknown
 *   environment is the problem `POST /v1/runs` gives for one, a read key is 403; none stores a run.
 */
import { expect } from 'chai';
import { startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { startTarget, type Target } from '../../helpers/target';
import { TestCaseHistory } from '../../../src/store/entities';
import { findRunWithPlan } from '../../../src/store/runs';

const getUser = (id: string, name: string) => ({
  type: 'api',
  id,
  request: { method: 'GET', url: `{{base}}/users/${id === 'second' ? 2 : 1}` },
  assertions: [
    { target: 'response.status', operator: 'equals', expected: 200 },
    { target: 'response.body.name', operator: 'equals', expected: name },
  ],
});

for (const dialect of ['mysql', 'sqlite'] as const) {
  describe(`debug runs (${dialect})`, function () {
    this.timeout(180_000);
    let app: TestApp;
    let target: Target;

    before(async () => {
      [app, target] = await Promise.all([startTestApp({ dialect, worker: true }), startTarget()]);
      const env = await app.request('POST', '/v1/environments', { name: 'local', variables: { base: target.url } });
      expect(env.status, JSON.stringify(env.body)).to.equal(201);
    });
    after(async () => {
      await target?.close();
      await app?.stop();
    });

    const runCount = async () => (await app.request('GET', '/v1/runs?limit=200')).body.items.length as number;

    it('runs a test case never saved through the engine, as a debug run whose results list its nodes', async () => {
      const hitsBefore = target.hits.get('/users/1') ?? 0;
      const res = await app.request('POST', '/v1/test-cases/debug', {
        testCase: { name: 'draft', flow: [getUser('first', 'Ada'), getUser('second', 'Grace')] },
        environment: 'local',
        timeout: 60,
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      expect(res.headers.get('location')).to.equal(`/v1/runs/${res.body.runId}`);
      expect(res.body).to.include({ runner: null, trigger: 'debug', environment: 'local', timeout: 60 });
      expect(res.body).to.not.have.property('testCaseId');

      const done = await waitForRun(app, res.body.runId);
      expect(done, JSON.stringify(done)).to.include({
        status: 'completed',
        result: 'passed',
        runner: null,
        trigger: 'debug',
      });
      expect(target.hits.get('/users/1')).to.equal(hitsBefore + 1);

      const results = await app.request('GET', `/v1/runs/${res.body.runId}/results`);
      expect(results.status).to.equal(200);
      expect(results.body.runner).to.equal(null);
      const [tc] = results.body.details.testCases;
      expect(results.body.details.testCases).to.have.length(1);
      expect(tc).to.include({ name: 'draft', status: 'passed' });
      expect(tc.nodes.map((n: { id: string; status: string }) => [n.id, n.status])).to.deep.equal([
        ['first', 'passed'],
        ['second', 'passed'],
      ]);
      // Each node carries what the designer shows in place: the request as sent, the response, the variables.
      const first = tc.nodes[0];
      expect(first.debug.request).to.include({ method: 'GET', url: `${target.url}/users/1` });
      expect(first.debug.response).to.include({ status: 200 });
      expect(first.debug.response.body).to.include({ name: 'Ada' });
      expect(first.debug.variables).to.include({ base: target.url });

      const row = await findRunWithPlan(app.dataSource.manager, res.body.runId);
      expect(row!.plan).to.include({ debug: true, durability: 'node', runner: '' });
      expect(row!.plan!.testCases.map((t) => t.name)).to.deep.equal(['draft']);
    });

    it('runs a draft of a saved test case (testCaseId), listed by trigger=debug, and leaves no test case history', async () => {
      const saved = await app.request('POST', '/v1/test-cases', {
        name: 'get user',
        folder: 'debug',
        flow: [getUser('first', 'Ada')],
      });
      expect(saved.status, JSON.stringify(saved.body)).to.equal(201);
      const testCaseId = saved.body.id as string;
      await app.request('POST', '/v1/runners', { name: 'debugged', testCaseIds: [testCaseId] });
      const normal = await app.request('POST', '/v1/runs', { runner: 'debugged', environment: 'local' });
      expect(normal.status, JSON.stringify(normal.body)).to.equal(201);
      expect((await waitForRun(app, normal.body.runId)).result).to.equal('passed');

      // The draft fails where the saved one passes: had it counted, the history would show a failure and a flip.
      const debug = await app.request('POST', '/v1/test-cases/debug', {
        testCase: { id: testCaseId, name: 'get user', folder: 'debug', flow: [getUser('first', 'Grace')] },
        environment: 'local',
      });
      expect(debug.status, JSON.stringify(debug.body)).to.equal(201);
      expect(debug.body).to.include({ testCaseId, trigger: 'debug', runner: null, timeout: 300 });
      const done = await waitForRun(app, debug.body.runId);
      expect(done).to.include({ status: 'completed', result: 'failed', testCaseId });
      const results = await app.request('GET', `/v1/runs/${debug.body.runId}/results`);
      expect(results.body.details.testCases[0]).to.include({ testCaseId, status: 'failed' });
      // A debug run is made again from the designer, never by rerun, replay or resume (no runner).
      for (const kind of ['rerun', 'replay', 'resume']) {
        const again = await app.request('POST', `/v1/runs/${debug.body.runId}/${kind}`, {});
        expect(again.status, `${kind}: ${JSON.stringify(again.body)}`).to.equal(409);
        expect(again.body.code).to.equal('debug-run');
      }

      const debugRuns = (await app.request('GET', '/v1/runs?trigger=debug')).body.items.map(
        (r: { runId: string }) => r.runId,
      );
      expect(debugRuns).to.include(debug.body.runId).and.not.include(normal.body.runId);
      const apiRuns = (await app.request('GET', '/v1/runs?trigger=api')).body.items.map(
        (r: { runId: string }) => r.runId,
      );
      expect(apiRuns).to.include(normal.body.runId).and.not.include(debug.body.runId);

      const history = await app.request('GET', `/v1/test-cases/${testCaseId}/history`);
      expect(history.status, JSON.stringify(history.body)).to.equal(200);
      const runIds = JSON.stringify(history.body);
      expect(runIds).to.include(normal.body.runId);
      expect(runIds).to.not.include(debug.body.runId);
      // Never a baseline: not as the last passing run (the first test's debug run passed on this
      // environment), nor pinned.
      const baseline = await app.request('GET', `/v1/runs/${debug.body.runId}/compare/baseline`);
      expect(baseline.status, JSON.stringify(baseline.body)).to.equal(422);
      expect(baseline.body.code).to.equal('no-baseline');
      const pinned = await app.request('PATCH', '/v1/runners/debugged', { baseline: debug.body.runId });
      expect(pinned.status, JSON.stringify(pinned.body)).to.be.oneOf([400, 422]);
      expect(pinned.body.errors[0].field).to.equal('baseline');
      expect(pinned.body.errors[0].detail).to.match(/debug run/);
      const rows = await app.dataSource.getRepository(TestCaseHistory).findBy({ runId: debug.body.runId });
      expect(rows).to.deep.equal([]);
      expect(
        (await app.dataSource.getRepository(TestCaseHistory).findBy({ runId: normal.body.runId })).length,
      ).to.equal(1);
    });

    it('answers a flow that does not validate with 400 pointing under /testCase/flow, storing no run', async () => {
      const before = await runCount();
      const res = await app.request('POST', '/v1/test-cases/debug', {
        testCase: { name: 'broken', flow: [{ type: 'api', request: { method: 'FETCH', url: '' } }] },
        environment: 'local',
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(400);
      expect(res.body.code).to.equal('validation-failed');
      expect(res.body.errors.length).to.be.greaterThan(0);
      for (const e of res.body.errors) expect(e.pointer).to.match(/^#\/testCase\/flow\/0\//);
      // The same body saved names the same fields, without the prefix.
      const saved = await app.request('POST', '/v1/test-cases', {
        name: 'broken',
        flow: [{ type: 'api', request: { method: 'FETCH', url: '' } }],
      });
      expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).to.deep.equal(
        saved.body.errors.map((e: { pointer: string }) => e.pointer.replace('#/', '#/testCase/')),
      );
      // A Ref to nothing: the save's 422, under testCase too; a missing field of the test case: 400.
      const ref = await app.request('POST', '/v1/test-cases/debug', {
        testCase: { name: 'ref', flow: [{ type: 'ref', mode: 'ref', testCaseId: 'tc_00000000000000000000000000' }] },
        environment: 'local',
      });
      expect(ref.status).to.equal(422);
      expect(ref.body.code).to.equal('unknown-reference');
      expect(ref.body.errors[0].pointer).to.match(/^#\/testCase\/flow\/0/);
      const unnamed = await app.request('POST', '/v1/test-cases/debug', {
        testCase: { flow: [] },
        environment: 'local',
      });
      expect(unnamed.status).to.equal(400);
      expect(unnamed.body.errors.map((e: { pointer: string }) => e.pointer)).to.deep.equal(['#/testCase/name']);
      expect(await runCount()).to.equal(before);
    });

    it('answers an unknown environment, or an unknown draft id, as POST /v1/runs answers an unknown reference; a read key is 403', async () => {
      const before = await runCount();
      const debug = await app.request('POST', '/v1/test-cases/debug', {
        testCase: { name: 'x', flow: [getUser('first', 'Ada')] },
        environment: 'nowhere',
      });
      const run = await app.request('POST', '/v1/runs', { runner: 'debugged', environment: 'nowhere' });
      expect(debug.status).to.equal(422);
      const { instance: _a, ...problem } = debug.body;
      const { instance: _b, ...expected } = run.body;
      expect(problem).to.deep.equal(expected);
      expect(problem.errors).to.deep.equal([
        { field: 'environment', pointer: '#/environment', detail: 'environment "nowhere" does not exist' },
      ]);
      const draft = await app.request('POST', '/v1/test-cases/debug', {
        testCase: { id: 'tc_00000000000000000000000000', name: 'x', flow: [getUser('first', 'Ada')] },
        environment: 'local',
      });
      expect(draft.status).to.equal(422);
      expect(draft.body.code).to.equal('unknown-reference');
      expect(draft.body.errors[0].pointer).to.equal('#/testCase/id');
      const read = await app.issueKey('read');
      const refused = await app.request(
        'POST',
        '/v1/test-cases/debug',
        { testCase: { name: 'x', flow: [] }, environment: 'local' },
        { key: read },
      );
      expect(refused.status).to.equal(403);
      expect(await runCount()).to.equal(before);
    });
  });
}
