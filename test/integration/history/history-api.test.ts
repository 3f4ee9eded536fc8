/**
 * `GET /v1/test-cases/{id}/history` and `GET /v1/flaky` over seeded history rows (docs/history.md
 * "Test history"), on MariaDB/MySQL and on SQLite: rows of runs that retention already deleted
 * answer like any other; the filters (runner, environment, deployment, trigger, kind, since, until,
 * limit) each narrow the entries; the figures (pass rate, median, p95, per node and assertion); the
 * last failure and the start of the current failing streak (with its commit), including a streak
 * older than the runs answered; 404 for another workspace's test case and for a deleted one once
 * its rows are gone; 400 naming a bad parameter.
 */
import { expect } from 'chai';
import { startTestApp, type TestApp } from '../../helpers/app';
import { FlakyTestCase, TestCaseHistory } from '../../../src/store/entities';
import { sweepExpiredHistory } from '../../../src/store/retention';
import type { HistoryNodeOutcome } from '../../../src/history/types';

type Json = Record<string, any>;

const T0 = Date.parse('2026-06-01T00:00:00.000Z');
const HOUR = 3_600_000;

/** A history row of the test case `testCaseId` in run number `i` (its own run id, an hour apart). */
function row(
  workspaceId: string,
  testCaseId: string,
  i: number,
  fields: Partial<TestCaseHistory> & { status: TestCaseHistory['status'] },
): TestCaseHistory {
  const failed = fields.status === 'failed';
  const nodes: HistoryNodeOutcome[] = [
    {
      id: 'login',
      type: 'api',
      status: 'passed',
      durationMs: 10 + i,
      assertions: [{ label: 'response.status equals', passed: true }],
    },
    {
      id: 'pay',
      name: 'pay',
      type: 'api',
      status: fields.status === 'skipped' ? 'skipped' : fields.status,
      durationMs: 100 + i,
      assertions: [{ label: 'paid', passed: !failed }],
    },
  ];
  return Object.assign(new TestCaseHistory(), {
    runId: `run_seed${String(i).padStart(6, '0')}`,
    position: 0,
    workspaceId,
    testCaseId,
    testCaseName: 'checkout',
    runnerName: 'smoke',
    environmentName: 'staging',
    deploymentId: null,
    trigger: 'api',
    kind: 'functional',
    durationMs: 100 + i,
    assertions: 2,
    passedAssertions: failed ? 1 : 2,
    failedNode: failed ? 'pay' : null,
    failure: failed ? `expected 200, got 500 (run ${i})` : null,
    commitRef: `c${i}`,
    definitionHash: 'a'.repeat(64),
    flaky: false,
    quarantined: false,
    nodes,
    ranAt: new Date(T0 + i * HOUR),
    ...fields,
  });
}

for (const dialect of ['mysql', 'sqlite'] as const) {
  describe(`test case history API (${dialect === 'mysql' ? 'MariaDB/MySQL' : 'SQLite'})`, function () {
    this.timeout(60_000);
    let app: TestApp;
    let testCase: Json;
    let history: (query?: string) => Promise<Json>;

    before(async () => {
      app = await startTestApp({ dialect });
      const res = await app.request('POST', '/v1/test-cases', {
        name: 'checkout',
        flow: [{ id: 'pay', type: 'api', request: { method: 'GET', url: 'http://127.0.0.1:1/pay' } }],
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      testCase = res.body;
      history = async (query = '') => {
        const reply = await app.request('GET', `/v1/test-cases/${testCase.id}/history${query}`);
        expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
        return reply.body as Json;
      };
      // Runs 1..20 (none of them exists as a run any more: as after retention deleted them).
      // 1..10 pass; 11 fails; 12 passes; 13 skipped; 14..20 fail, but 17 is on the `nightly`
      // runner from a schedule of a deployment, 18 is a performance run, 19 on `prod`.
      const rows: TestCaseHistory[] = [];
      for (let i = 1; i <= 20; i += 1) {
        const status = i <= 10 || i === 12 ? 'passed' : i === 13 ? 'skipped' : 'failed';
        const extra: Partial<TestCaseHistory> = {};
        if (i === 17) Object.assign(extra, { runnerName: 'nightly', trigger: 'schedule', deploymentId: 'dep_1' });
        if (i === 18) Object.assign(extra, { kind: 'performance', nodes: null });
        if (i === 19) extra.environmentName = 'prod';
        if (i === 13) Object.assign(extra, { durationMs: 0 });
        rows.push(row(app.workspaceId, testCase.id, i, { status, ...extra }));
      }
      // Another test case's rows, and another workspace's rows for this id, never show up.
      rows.push(row(app.workspaceId, 'tc_other', 21, { status: 'failed' }));
      rows.push(Object.assign(row('ws_elsewhere', testCase.id, 22, { status: 'failed' }), { runId: 'run_elsewhere' }));
      await app.dataSource.getRepository(TestCaseHistory).insert(rows);
    });
    after(async () => {
      await app?.stop();
    });

    it('answers the newest runs first with their outcomes, though the runs themselves were deleted', async () => {
      expect((await app.request('GET', '/v1/runs')).body.items).to.deep.equal([]);
      const h = await history();
      expect(h.testCaseId).to.equal(testCase.id);
      expect(h.name).to.equal('checkout');
      expect(h.entries.map((e: Json) => e.runId)).to.deep.equal(
        Array.from({ length: 20 }, (_, k) => `run_seed${String(20 - k).padStart(6, '0')}`),
      );
      expect(h.entries[0]).to.deep.equal({
        runId: 'run_seed000020',
        position: 0,
        ranAt: new Date(T0 + 20 * HOUR).toISOString(),
        status: 'failed',
        durationMs: 120,
        runner: 'smoke',
        environment: 'staging',
        deploymentId: null,
        trigger: 'api',
        kind: 'functional',
        commit: 'c20',
        failure: 'expected 200, got 500 (run 20)',
        failedNode: 'pay',
        flaky: false,
        quarantined: false,
        definitionHash: 'a'.repeat(64),
      });
    });

    it('gives pass rate, median and p95 over the runs answered, and the same per node and assertion', async () => {
      const h = await history();
      // 11 passed, 8 failed, 1 skipped; durations of the 19 decided runs: 101..120 but 113.
      expect(h.stats).to.deep.equal({
        runs: 20,
        passed: 11,
        failed: 8,
        skipped: 1,
        passRate: 0.5789,
        medianMs: 110,
        p95Ms: 120,
      });
      const pay = h.nodes.find((n: Json) => n.id === 'pay');
      expect(pay).to.deep.include({ name: 'pay', type: 'api', runs: 18, passed: 11, failed: 7, passRate: 0.6111 });
      expect(pay.assertions).to.deep.equal([{ label: 'paid', runs: 18, passed: 11 }]);
      const login = h.nodes.find((n: Json) => n.id === 'login');
      expect(login).to.deep.include({ runs: 19, passed: 19, failed: 0, passRate: 1 });
      expect(h.nodes.map((n: Json) => n.id)).to.deep.equal(['login', 'pay']);
    });

    it('names the last failure and the first failure of the current streak with its commit', async () => {
      const h = await history();
      expect(h.lastFailure).to.deep.equal({
        runId: 'run_seed000020',
        ranAt: new Date(T0 + 20 * HOUR).toISOString(),
        message: 'expected 200, got 500 (run 20)',
        node: 'pay',
        commit: 'c20',
      });
      // 12 passed, 13 was skipped (it neither passes nor breaks the streak): failing since 14.
      expect(h.failingSince).to.deep.equal({
        runId: 'run_seed000014',
        ranAt: new Date(T0 + 14 * HOUR).toISOString(),
        commit: 'c14',
      });
      // The streak and the last failure look past the runs answered.
      const last3 = await history('?limit=3');
      expect(last3.entries).to.have.length(3);
      expect(last3.stats).to.deep.include({ runs: 3, passed: 0, failed: 3 });
      expect(last3.failingSince.runId).to.equal('run_seed000014');
      // Up to run 12 (it passed): no streak, the last failure is 11's.
      const upTo12 = await history(`?until=${new Date(T0 + 12 * HOUR).toISOString()}`);
      expect(upTo12.entries[0].runId).to.equal('run_seed000012');
      expect(upTo12.failingSince).to.equal(null);
      expect(upTo12.lastFailure.runId).to.equal('run_seed000011');
      // Before any failure: neither.
      const early = await history(`?until=${new Date(T0 + 5 * HOUR).toISOString()}`);
      expect(early.lastFailure).to.equal(null);
      expect(early.failingSince).to.equal(null);
      expect(early.stats).to.deep.include({ runs: 5, passRate: 1 });
    });

    it('filters by runner, environment, deployment, trigger, kind and time', async () => {
      const ids = async (query: string) => (await history(query)).entries.map((e: Json) => Number(e.runId.slice(-6)));
      expect(await ids('?runner=nightly')).to.deep.equal([17]);
      expect(await ids('?deployment=dep_1')).to.deep.equal([17]);
      expect(await ids('?trigger=schedule')).to.deep.equal([17]);
      expect(await ids('?environment=prod')).to.deep.equal([19]);
      expect(await ids('?kind=performance')).to.deep.equal([18]);
      expect((await ids('?runner=smoke&environment=staging&kind=functional')).slice(0, 3)).to.deep.equal([20, 16, 15]);
      const since = new Date(T0 + 15 * HOUR).toISOString();
      const until = new Date(T0 + 16 * HOUR).toISOString();
      expect(await ids(`?since=${since}&until=${until}`)).to.deep.equal([16, 15]);
      expect(await ids('?limit=2')).to.deep.equal([20, 19]);
      // A filter on the runner where the test case passed before: no streak there.
      const nightly = await history('?runner=nightly');
      expect(nightly.failingSince.runId).to.equal('run_seed000017');
      expect(nightly.stats).to.deep.include({ runs: 1, failed: 1, passRate: 0 });
    });

    it('lists flaky flags for the test case and in GET /v1/flaky, filtered by runner and environment', async () => {
      const flag = (runnerName: string, flipRate: number) =>
        Object.assign(new FlakyTestCase(), {
          workspaceId: app.workspaceId,
          testCaseId: testCase.id,
          runnerName,
          environmentName: 'staging',
          testCaseName: 'checkout',
          flips: Math.round(flipRate * 9),
          window: 10,
          flipRate,
          definitionHash: 'a'.repeat(64),
          lastRunId: 'run_seed000020',
          flaggedAt: new Date(T0 + 20 * HOUR),
          updatedAt: new Date(T0 + 20 * HOUR),
        });
      await app.dataSource.getRepository(FlakyTestCase).insert([flag('smoke', 0.3333), flag('nightly', 0.5556)]);
      const h = await history('?runner=smoke');
      expect(h.flaky).to.deep.equal([
        {
          runner: 'smoke',
          environment: 'staging',
          flips: 3,
          window: 10,
          flipRate: 0.3333,
          flaggedAt: new Date(T0 + 20 * HOUR).toISOString(),
        },
      ]);
      expect((await history()).flaky.map((f: Json) => f.runner)).to.deep.equal(['nightly', 'smoke']);
      const all = await app.request('GET', '/v1/flaky');
      expect(all.status).to.equal(200);
      expect(all.body.items.map((i: Json) => `${i.runner}:${i.flipRate}`)).to.deep.equal([
        'nightly:0.5556',
        'smoke:0.3333',
      ]);
      expect(all.body.items[0]).to.deep.equal({
        testCaseId: testCase.id,
        name: 'checkout',
        runner: 'nightly',
        environment: 'staging',
        flips: 5,
        window: 10,
        flipRate: 0.5556,
        flaggedAt: new Date(T0 + 20 * HOUR).toISOString(),
        lastRunId: 'run_seed000020',
      });
      expect((await app.request('GET', '/v1/flaky?runner=smoke')).body.items).to.have.length(1);
      expect((await app.request('GET', '/v1/flaky?environment=prod')).body.items).to.deep.equal([]);
      // Another workspace sees none of them.
      const other = await app.issueKey('read', 'history-other');
      expect((await app.request('GET', '/v1/flaky', undefined, { key: other })).body.items).to.deep.equal([]);
    });

    it("is 404 for another workspace's test case, and 400 naming a bad parameter", async () => {
      const other = await app.issueKey('read', 'history-elsewhere');
      const res = await app.request('GET', `/v1/test-cases/${testCase.id}/history`, undefined, { key: other });
      expect(res.status).to.equal(404);
      expect(res.body.code).to.equal('not-found');
      expect((await app.request('GET', '/v1/test-cases/tc_nothing/history')).status).to.equal(404);
      for (const [query, field] of [
        ['?limit=0', 'limit'],
        ['?limit=1001', 'limit'],
        ['?trigger=cron', 'trigger'],
        ['?kind=load', 'kind'],
        ['?since=yesterday', 'since'],
        ['?runner=', 'runner'],
        [`?since=${new Date(T0 + 2 * HOUR).toISOString()}&until=${new Date(T0).toISOString()}`, 'until'],
      ] as const) {
        const bad = await app.request('GET', `/v1/test-cases/${testCase.id}/history${query}`);
        expect(bad.status, query).to.equal(400);
        expect(bad.body.code, query).to.equal('invalid-query');
        expect(bad.body.errors[0].field, query).to.equal(field);
      }
    });

    it('answers for a deleted test case while its rows are kept, then 404 once the history sweep removed them; its flag is not listed', async () => {
      const created = await app.request('POST', '/v1/test-cases', {
        name: 'gone soon',
        flow: [{ id: 'a', type: 'api', request: { method: 'GET', url: 'http://127.0.0.1:1/' } }],
      });
      const id = created.body.id as string;
      await app.dataSource.getRepository(TestCaseHistory).insert([
        Object.assign(row(app.workspaceId, id, 1, { status: 'failed' }), {
          runId: 'run_gone',
          testCaseName: 'gone soon',
        }),
      ]);
      await app.dataSource.getRepository(FlakyTestCase).insert(
        Object.assign(new FlakyTestCase(), {
          workspaceId: app.workspaceId,
          testCaseId: id,
          runnerName: 'smoke',
          environmentName: 'staging',
          testCaseName: 'gone soon',
          flips: 4,
          window: 10,
          flipRate: 0.4444,
          definitionHash: 'a'.repeat(64),
          lastRunId: 'run_gone',
          flaggedAt: new Date(T0),
          updatedAt: new Date(T0),
        }),
      );
      const flaggedNames = async () => (await app.request('GET', '/v1/flaky')).body.items.map((i: Json) => i.name);
      expect(await flaggedNames()).to.include('gone soon');
      expect((await app.request('DELETE', `/v1/test-cases/${id}`)).status).to.equal(204);
      // A deleted test case can no longer run: its flag is not listed.
      expect(await flaggedNames()).to.not.include('gone soon');
      const kept = await app.request('GET', `/v1/test-cases/${id}/history`);
      expect(kept.status).to.equal(200);
      expect(kept.body).to.deep.include({ name: 'gone soon' });
      expect(kept.body.failingSince.runId).to.equal('run_gone');
      // The history sweep (ASSAY_HISTORY_DAYS) removes rows older than its cutoff.
      expect(await sweepExpiredHistory(app.dataSource, new Date(T0 + 1.5 * HOUR))).to.be.greaterThan(0);
      expect((await app.request('GET', `/v1/test-cases/${id}/history`)).status).to.equal(404);
      // The kept test case lost its oldest run only.
      expect((await history()).entries).to.have.length(19);
    });
  });
}
