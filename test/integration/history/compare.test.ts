/**
 * Comparing runs end to end (docs/history.md "Comparing runs", "Baselines"): real runs on a real
 * worker against a loopback target whose answers the test sets (a status, a delay).
 *
 * - two functional runs: newly failing, appeared, disappeared, slower, the verdict, and the plan
 *   difference naming what changed (a secret's value never shown, nor counted);
 * - `compare/baseline`: the last passing run by default, a runner's pinned run, refused values;
 * - two performance runs: figures side by side, both series, per request name;
 * - a relative threshold (`p(95)<baseline*1.5`) failing on a slowed target, measured against the
 *   last passing performance run (not a functional run of the same runner in between);
 * - problems: another workspace's run (404), a run not ended (422);
 * - `assay compare` (exit 1 on a regression, 0 otherwise, 2 for a usage error).
 */
import { expect } from 'chai';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { runCli } from '../../helpers/cli';
import { queuedRun, Run } from '../../../src/store/entities';
import { findBaselineRun, LAST_PASSING } from '../../../src/store/baselines';

/** What the target answers; the tests change it between runs. */
const behaviour = { flipStatus: 200, slowMs: 0, perfMs: 2 };

const statusCheck = { target: 'response.status', operator: 'equals', expected: 200 };

describe('comparing runs', function () {
  this.timeout(180_000);
  let app: TestApp;
  let server: http.Server;
  let base: string;
  /** Ids of the test cases by name. */
  const ids: Record<string, string> = {};

  before(async () => {
    server = http.createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      const answer = (status: number) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
      };
      if (path === '/flip') return answer(behaviour.flipStatus);
      if (path === '/slow') return void setTimeout(() => answer(200), behaviour.slowMs);
      if (path === '/perf') return void setTimeout(() => answer(200), behaviour.perfMs);
      if (path === '/hang') return void setTimeout(() => answer(200), 20_000).unref();
      answer(200);
    });
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    app = await startTestApp({ worker: true });
    expect((await app.request('POST', '/v1/environments', { name: 'local', variables: { base } })).status).to.equal(
      201,
    );
    for (const [name, path] of [
      ['ok', '/ok'],
      ['flip', '/flip'],
      ['slow', '/slow'],
      ['old', '/ok'],
      ['new', '/ok'],
      ['perf', '/perf'],
      ['hang', '/hang'],
    ] as const) {
      const tc = await app.request('POST', '/v1/test-cases', {
        name,
        flow: [
          {
            type: 'api',
            id: 'get',
            name: `get ${path}`,
            request: { method: 'GET', url: `{{base}}${path}` },
            assertions: [statusCheck],
          },
        ],
      });
      expect(tc.status, JSON.stringify(tc.body)).to.equal(201);
      ids[name] = tc.body.id;
    }
    for (const [name, list] of [
      ['suite', ['ok', 'flip', 'slow', 'old']],
      ['perf', ['perf']],
      ['hang', ['hang']],
    ] as const) {
      const r = await app.request('POST', '/v1/runners', { name, testCaseIds: list.map((n) => ids[n]) });
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
    }
  });
  after(async () => {
    await app?.stop();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  async function run(runner: string, extra: Record<string, unknown> = {}): Promise<any> {
    const res = await app.request('POST', '/v1/runs', { runner, environment: 'local', timeout: 120, ...extra });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return waitForRun(app, res.body.runId, 90_000);
  }

  /** Checks an answer against the served OpenAPI document's `RunComparison` (answers: Ajv, JSON Schema 2020-12). */
  let documented: ((value: unknown) => boolean) & { errors?: unknown };
  async function compare(path: string, status = 200): Promise<any> {
    const res = await app.request('GET', path);
    expect(res.status, JSON.stringify(res.body)).to.equal(status);
    if (status === 200) {
      if (!documented) {
        const doc = (await app.request('GET', '/v1/openapi.json', undefined, { key: null })).body;
        const ajv = new Ajv2020({ strict: false, allErrors: true });
        addFormats(ajv);
        documented = ajv.compile({
          $ref: '#/components/schemas/RunComparison',
          components: { schemas: doc.components.schemas },
        });
      }
      expect(documented(res.body), `as documented: ${JSON.stringify(documented.errors)}`).to.equal(true);
    }
    return res.body;
  }

  // Shared by the tests below, in order.
  let first: any;
  let second: any;
  let third: any;

  it('compares two functional runs: newly failing, appeared, disappeared, slower, and what changed in the plan', async () => {
    first = await run('suite', { variables: { token: { value: 'first-secret-value', secret: true } } });
    expect(first.result).to.equal('passed');
    // The service changes (flip fails, slow is slow) and so does the test: the runner's selection and a variable.
    behaviour.flipStatus = 500;
    behaviour.slowMs = 150;
    const put = await app.request('PATCH', '/v1/runners/suite', {
      testCaseIds: ['ok', 'flip', 'slow', 'new'].map((n) => ids[n]),
    });
    expect(put.status, JSON.stringify(put.body)).to.equal(200);
    second = await run('suite', {
      variables: { token: { value: 'second-secret-value', secret: true }, extra: 'x' },
    });
    expect(second.result).to.equal('failed');

    const c = await compare(`/v1/runs/${first.runId}/compare/${second.runId}`);
    expect(c.base).to.deep.equal({
      runId: first.runId,
      createdAt: first.createdAt,
      status: 'completed',
      result: 'passed',
      planHash: first.planHash,
      kind: 'functional',
    });
    expect(c.head).to.include({ runId: second.runId, result: 'failed', kind: 'functional' });
    expect(c.verdict).to.equal('regression');
    const names = (list: any[]) => list.map((i) => i.name);
    expect(names(c.testCases.newlyFailing)).to.deep.equal(['flip']);
    expect(c.testCases.newlyFailing[0]).to.deep.include({ testCaseId: ids.flip });
    expect(c.testCases.newlyFailing[0].base.status).to.equal('passed');
    expect(c.testCases.newlyFailing[0].head.status).to.equal('failed');
    expect(names(c.testCases.appeared)).to.deep.equal(['new']);
    expect(c.testCases.appeared[0].base).to.equal(null);
    expect(names(c.testCases.disappeared)).to.deep.equal(['old']);
    expect(names(c.testCases.slower)).to.deep.equal(['slow']);
    expect(c.testCases.slower[0].head.durationMs).to.be.at.least(150);
    expect(c.testCases.slower[0].change).to.be.greaterThan(0.5);
    expect(c.testCases.newlyPassing).to.deep.equal([]);
    expect(c.testCases.unchanged).to.equal(1); // ok
    expect(c).to.not.have.property('performance');
    // The plan changed: which test cases and variables, by name; the secret's new value is no change.
    expect(c.samePlan).to.equal(false);
    expect(c.planDiff.testCases).to.deep.equal({
      changed: [],
      added: [{ id: ids.new, name: 'new' }],
      removed: [{ id: ids.old, name: 'old' }],
    });
    expect(c.planDiff.variables).to.deep.equal({ changed: [], added: ['extra'], removed: [] });
    expect(JSON.stringify(c)).to.not.include('secret-value');

    // The same plan again (another secret value): samePlan, no planDiff; flip still fails, nothing new fails.
    third = await run('suite', {
      variables: { token: { value: 'third-secret-value', secret: true }, extra: 'x' },
    });
    const again = await compare(`/v1/runs/${second.runId}/compare/${third.runId}`);
    expect(again.samePlan).to.equal(true);
    expect(again.base.planHash).to.equal(again.head.planHash);
    expect(again).to.not.have.property('planDiff');
    expect(again.testCases.newlyFailing).to.deep.equal([]);
    expect(again.verdict).to.equal('unchanged');
  });

  it('compares a run with its baseline: the last passing run by default, else the runner’s pinned run', async () => {
    const byDefault = await compare(`/v1/runs/${third.runId}/compare/baseline`);
    expect(byDefault.baseline).to.deep.equal({ runId: first.runId, setting: 'lastPassing', source: 'default' });
    expect(byDefault.base.runId).to.equal(first.runId);
    expect(byDefault.verdict).to.equal('regression');
    // The first run has no earlier passing run.
    const none = await compare(`/v1/runs/${first.runId}/compare/baseline`, 422);
    expect(none).to.include({ code: 'no-baseline', status: 422, runId: first.runId });
    expect(none.detail).to.match(/no earlier functional run of runner "suite" on environment "local" passed/);

    // Pinned on the runner: a run id of the workspace; anything else is refused naming the field.
    const bad = await app.request('PATCH', '/v1/runners/suite', { baseline: 'run_nope' });
    expect(bad.status).to.equal(422);
    expect(bad.body.code).to.equal('unknown-reference');
    expect(bad.body.errors[0]).to.include({ field: 'baseline', pointer: '#/baseline' });
    const pinned = await app.request('PATCH', '/v1/runners/suite', { baseline: second.runId });
    expect(pinned.status, JSON.stringify(pinned.body)).to.equal(200);
    expect(pinned.body.baseline).to.equal(second.runId);
    expect((await app.request('GET', '/v1/runners/suite')).body.baseline).to.equal(second.runId);
    const withPinned = await compare(`/v1/runs/${third.runId}/compare/baseline`);
    expect(withPinned.baseline).to.deep.equal({ runId: second.runId, setting: second.runId, source: 'runner' });
    expect(withPinned.verdict).to.equal('unchanged');
    expect((await app.request('PATCH', '/v1/runners/suite', { baseline: 'lastPassing' })).body.baseline).to.equal(
      'lastPassing',
    );

    // A deployment's baseline: the same rule.
    const dep = await app.request('POST', '/v1/deployments', {
      name: 'nightly',
      runner: 'suite',
      environment: 'local',
      baseline: 'nope',
    });
    expect(dep.status).to.equal(422);
    expect(dep.body.errors[0].field).to.equal('baseline');
    const okDep = await app.request('POST', '/v1/deployments', {
      name: 'nightly',
      runner: 'suite',
      environment: 'local',
      baseline: first.runId,
    });
    expect(okDep.status, JSON.stringify(okDep.body)).to.equal(201);
    expect(okDep.body.baseline).to.equal(first.runId);
    const cleared = await app.request('PATCH', `/v1/deployments/${okDep.body.id}`, { baseline: null });
    expect(cleared.body.baseline).to.equal(null);
  });

  it('answers 404 for another workspace’s run and 422 for a run not ended', async () => {
    const other = await app.issueKey('read', 'elsewhere');
    const res = await app.request('GET', `/v1/runs/${first.runId}/compare/${second.runId}`, undefined, { key: other });
    expect(res.status).to.equal(404);
    expect(res.body.code).to.equal('not-found');
    const started = await app.request('POST', '/v1/runs', { runner: 'hang', environment: 'local', timeout: 60 });
    expect(started.status).to.equal(201);
    const running = await compare(`/v1/runs/${first.runId}/compare/${started.body.runId}`, 422);
    expect(running).to.include({ code: 'run-not-ended', runId: started.body.runId });
    const runningBaseline = await compare(`/v1/runs/${started.body.runId}/compare/baseline`, 422);
    expect(runningBaseline.code).to.equal('run-not-ended');
    expect((await app.request('POST', `/v1/runs/${started.body.runId}/cancel`)).status).to.equal(202);
    await waitForRun(app, started.body.runId);
  });

  it('compares two performance runs; a relative threshold fails on the slowed target against the last passing performance run', async () => {
    const performance = {
      executor: 'constant-vus',
      vus: 2,
      duration: '2s',
      thresholds: { http_req_duration: ['p(95)<baseline*1.5', 'p(95)<5000'] },
    };
    behaviour.perfMs = 2;
    const fast = await run('perf', { performance });
    const fastResults = (await app.request('GET', `/v1/runs/${fast.runId}/results`)).body;
    // The first performance run has no baseline: its relative threshold passes, saying why.
    expect(fast.result, JSON.stringify(fastResults.performance.thresholds)).to.equal('passed');
    expect(fastResults.performance.thresholds[0]).to.deep.include({
      threshold: 'p(95)<baseline*1.5',
      passed: true,
      note: 'not compared: no earlier performance run of runner "perf" on environment "local" passed',
    });
    // A functional run of the same runner in between: not a performance baseline.
    const functional = await run('perf');
    expect(functional.result).to.equal('passed');

    behaviour.perfMs = 60;
    const slow = await run('perf', { performance });
    const slowResults = (await app.request('GET', `/v1/runs/${slow.runId}/results`)).body;
    const relative = slowResults.performance.thresholds[0];
    expect(slow.result, JSON.stringify(slowResults.performance.thresholds)).to.equal('failed');
    expect(relative).to.include({ metric: 'http_req_duration', threshold: 'p(95)<baseline*1.5', passed: false });
    // Measured against the fast run's p95, from its stored measurements.
    expect(relative.baseline).to.be.closeTo(fastResults.performance.p95ResponseTime, 0.01);
    expect(relative.limit).to.be.closeTo(relative.baseline * 1.5, 0.01);
    expect(relative.actual).to.be.at.least(60);
    expect(slowResults.performance.thresholds[1]).to.include({ passed: true });

    const c = await compare(`/v1/runs/${slow.runId}/compare/baseline`);
    expect(c.baseline).to.deep.equal({ runId: fast.runId, setting: fast.runId, source: 'plan' });
    expect(c.base).to.include({ runId: fast.runId, kind: 'performance', result: 'passed' });
    expect(c.head).to.include({ runId: slow.runId, kind: 'performance', result: 'failed' });
    expect(c.samePlan).to.equal(true);
    expect(c.verdict).to.equal('regression');
    const p95 = c.performance.overall.p95;
    expect(p95.base).to.be.closeTo(fastResults.performance.p95ResponseTime, 0.01);
    expect(p95.head).to.be.closeTo(slowResults.performance.p95ResponseTime, 0.01);
    expect(p95.change).to.be.greaterThan(1);
    expect(p95.regression).to.equal(true);
    expect(c.performance.overall.rps.base).to.equal(fastResults.performance.requestsPerSecond);
    expect(c.performance.overall.rps.regression).to.equal(true); // 2 VUs wait 60 ms instead of 2 ms
    expect(c.performance.overall.errorRate).to.deep.include({ base: 0, head: 0, change: 0 });
    expect(c.performance.requests.map((r: any) => r.name)).to.deep.equal(['get /perf']);
    expect(c.performance.requests[0].figures.p95.head).to.be.at.least(60);
    // Both series, each from offset 0, every request in them.
    for (const [series, results] of [
      [c.performance.series.base, fastResults],
      [c.performance.series.head, slowResults],
    ] as const) {
      expect(series[0].offset).to.equal(0);
      expect(series.reduce((n: number, pt: any) => n + pt.requests, 0)).to.equal(results.performance.requests);
    }
    // A functional and a performance run compare too: their test cases, and the figures one side has.
    const mixed = await compare(`/v1/runs/${functional.runId}/compare/${slow.runId}`);
    expect(mixed.performance.overall.p95.base).to.equal(null);
    expect(mixed.samePlan).to.equal(false);
    expect(mixed.planDiff.other).to.deep.equal(['performance']);
  });

  it('assay compare prints the table and exits 1 on a regression, 0 otherwise, 2 for a usage error', async () => {
    const regression = await runCli(['compare', first.runId, second.runId], { app });
    expect(regression.code, regression.stderr).to.equal(1);
    expect(regression.stdout).to.include('verdict: REGRESSION');
    expect(regression.stdout).to.match(/newly failing\s+flip\s+passed \d+ ms\s+failed \d+ ms/);
    expect(regression.stdout).to.match(/test cases changed|test cases added\s+new/);
    const unchanged = await runCli(['compare', second.runId, third.runId], { app });
    expect(unchanged.code, unchanged.stderr).to.equal(0);
    expect(unchanged.stdout).to.include('verdict: UNCHANGED');
    expect(unchanged.stdout).to.include('plan: the same');
    const json = await runCli(['compare', third.runId, '--baseline', '--json'], { app });
    expect(json.code, json.stderr).to.equal(1);
    expect(JSON.parse(json.stdout).baseline.runId).to.equal(first.runId);
    const usage = await runCli(['compare', first.runId], { app });
    expect(usage.code).to.equal(2);
    expect(usage.stderr).to.include('give two runs');
    const noBaseline = await runCli(['compare', first.runId, '--baseline'], { app });
    expect(noBaseline.code).to.equal(2);
    expect(noBaseline.stderr).to.include('No baseline (422)');
  });
});

/**
 * The baseline lookup on both stores (src/store/baselines.ts): the newest passing run of the same
 * runner, environment and kind created before the head; a pinned run only when it completed.
 */
for (const dialect of ['sqlite', 'mysql'] as const) {
  describe(`baseline lookup (${dialect})`, function () {
    this.timeout(60_000);
    let app: TestApp;
    before(async () => {
      app = await startTestApp({ dialect });
    });
    after(async () => app?.stop());

    it('finds the last passing run of the same runner, environment and kind before the head, or says why not', async () => {
      const repo = app.dataSource.getRepository(Run);
      const t0 = Date.UTC(2026, 0, 1);
      let n = 0;
      const seed = async (over: Partial<Run>): Promise<Run> => {
        n += 1;
        const row = repo.create({
          ...queuedRun({
            id: `run_${String(n).padStart(26, '0')}`,
            workspaceId: app.workspaceId,
            runnerId: null,
            runnerName: 'r',
            environmentId: null,
            environmentName: 'e',
            deploymentId: null,
            trigger: 'api',
            workflowId: `wf-${n}`,
            timeoutSeconds: 60,
            variables: {},
            context: null,
          }),
          status: 'completed',
          result: 'passed',
          createdAt: new Date(t0 + n * 1000),
          ...over,
        } as never) as unknown as Run;
        await repo.insert(row as never);
        return row;
      };
      const profile = { executor: 'constant-vus', vus: 1, duration: '1s' } as never;
      const perfPassed = await seed({ loadProfile: profile });
      const passed = await seed({});
      await seed({ result: 'failed' });
      await seed({ environmentName: 'other' });
      await seed({ runnerName: 'other' });
      await seed({ status: 'failed', result: null });
      const head = await seed({ result: 'failed' });
      await seed({}); // after the head
      expect((await findBaselineRun(app.dataSource.manager, head, LAST_PASSING)).run?.id).to.equal(passed.id);
      expect(
        (await findBaselineRun(app.dataSource.manager, { ...head, loadProfile: profile }, LAST_PASSING)).run?.id,
      ).to.equal(perfPassed.id);
      const first = await findBaselineRun(app.dataSource.manager, perfPassed, LAST_PASSING);
      expect(first.run).to.equal(null);
      expect(first.reason).to.equal('no earlier performance run of runner "r" on environment "e" passed');
      // Pinned: any completed run of the workspace; not one that failed, nor one that does not exist.
      expect((await findBaselineRun(app.dataSource.manager, head, perfPassed.id)).run?.id).to.equal(perfPassed.id);
      const failedRun = await seed({ status: 'failed', result: null });
      expect((await findBaselineRun(app.dataSource.manager, head, failedRun.id)).reason).to.equal(
        `the baseline run ${failedRun.id} did not complete (failed)`,
      );
      expect((await findBaselineRun(app.dataSource.manager, head, 'run_gone')).reason).to.equal(
        'the baseline run run_gone no longer exists',
      );
    });
  });
}
