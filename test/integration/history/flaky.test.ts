/**
 * Flaky test cases and quarantine (docs/history.md "Flaky tests", "Quarantine") with real runs on
 * a real Temporal server and worker, against a loopback target that fails every third request:
 * the test case is flagged after the run that brings its third flip in its last ten runs (not
 * before), its results and history rows say so, `GET /v1/flaky` lists it and a steady test case
 * beside it stays unflagged; a runner with `quarantineFlaky` then completes `passed` though the
 * flaky test case failed (reported failed, `quarantined: true`), across continue-as-new (one test
 * case per workflow execution here); editing the test case starts a new window, which clears the
 * flag, and its next failure fails the run again.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { startTestApp, waitForRun, type TestApp } from '../../helpers/app';

type Json = Record<string, any>;

/** A loopback server whose `/sometimes` answers 500 to every third request (3rd, 6th, …) and 200 otherwise. */
async function everyThirdFails(): Promise<{ url: string; hits: () => number; close(): Promise<void> }> {
  let count = 0;
  const server = http.createServer((req, res) => {
    const ok = !req.url?.startsWith('/sometimes') || (count += 1) % 3 !== 0;
    res.writeHead(ok ? 200 : 500, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ok }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits: () => count,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('flaky test cases and quarantine', function () {
  this.timeout(180_000);
  let app: TestApp;
  let target: Awaited<ReturnType<typeof everyThirdFails>>;
  let flaky: Json;
  let steady: Json;

  const flow = (path: string, name = 'call') => [
    {
      id: 'call',
      name,
      type: 'api',
      request: { method: 'GET', url: `{{base}}${path}` },
      assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
    },
  ];
  const run = async () => {
    const started = await app.request('POST', '/v1/runs', { runner: 'ci', environment: 'local' });
    expect(started.status, JSON.stringify(started.body)).to.equal(201);
    const done = await waitForRun(app, started.body.runId, 60_000);
    expect(done.status, JSON.stringify(done)).to.equal('completed');
    const results = (await app.request('GET', `/v1/runs/${started.body.runId}/results`)).body;
    const cases = results.details.testCases as Json[];
    return { runId: started.body.runId as string, result: done.result as string, summary: done.summary, cases };
  };
  const flagged = async () => (await app.request('GET', '/v1/flaky')).body.items as Json[];

  before(async () => {
    // One test case per workflow execution: the quarantined count must survive continue-as-new.
    [app, target] = await Promise.all([
      startTestApp({ worker: true, env: { ASSAY_TEST_CASES_PER_EXECUTION: '1' } }),
      everyThirdFails(),
    ]);
    await app.request('POST', '/v1/environments', { name: 'local', variables: { base: target.url } });
    flaky = (await app.request('POST', '/v1/test-cases', { name: 'sometimes', flow: flow('/sometimes') })).body;
    steady = (await app.request('POST', '/v1/test-cases', { name: 'always', flow: flow('/always') })).body;
    const runner = await app.request('POST', '/v1/runners', { name: 'ci', testCaseIds: [flaky.id, steady.id] });
    expect(runner.status, JSON.stringify(runner.body)).to.equal(201);
    expect(runner.body.quarantineFlaky).to.equal(false);
  });
  after(async () => {
    await target?.close();
    await app?.stop();
  });

  it('flags the test case after its third flip in ten runs, in its results, its history and GET /v1/flaky', async () => {
    const outcomes: string[] = [];
    // Requests 1..5: pass pass FAIL pass pass → 2 flips, not flaky yet.
    for (let i = 1; i <= 5; i += 1) {
      const r = await run();
      outcomes.push(r.cases[0]!.status);
      expect(r.cases[0], `run ${i}`).to.not.have.property('flaky');
      expect(r.cases[1]!.status).to.equal('passed');
    }
    expect(outcomes).to.deep.equal(['passed', 'passed', 'failed', 'passed', 'passed']);
    expect(await flagged()).to.deep.equal([]);
    // Request 6 fails: the third flip. A runner without quarantine fails the run.
    const sixth = await run();
    expect(sixth.cases[0]!.status).to.equal('failed');
    expect(sixth.result).to.equal('failed');
    expect(sixth.cases[0]!.flaky).to.deep.equal({ flips: 3, window: 6, flipRate: 0.6 });
    expect(sixth.cases[0]).to.not.have.property('quarantined');
    // The node that flips is named too (the flow's only node here).
    expect(sixth.cases[0]!.flakyNodes).to.deep.equal([{ id: 'call', flips: 3, window: 6, flipRate: 0.6 }]);
    expect(sixth.cases[1]).to.not.have.property('flaky');
    expect(sixth.cases[1]).to.not.have.property('flakyNodes');
    const list = await flagged();
    expect(list).to.have.length(1);
    expect(list[0]).to.deep.include({
      testCaseId: flaky.id,
      name: 'sometimes',
      runner: 'ci',
      environment: 'local',
      flips: 3,
      window: 6,
      flipRate: 0.6,
      lastRunId: sixth.runId,
    });
    const history = (await app.request('GET', `/v1/test-cases/${flaky.id}/history`)).body;
    expect(history.entries.map((e: Json) => e.status)).to.deep.equal([
      'failed',
      'passed',
      'passed',
      'failed',
      'passed',
      'passed',
    ]);
    expect(history.entries.map((e: Json) => e.flaky)).to.deep.equal([true, false, false, false, false, false]);
    expect(history.flaky).to.have.length(1);
    expect(history.flaky[0]).to.deep.include({ runner: 'ci', environment: 'local', flips: 3 });
    expect(history.failingSince.runId).to.equal(sixth.runId);
    expect(history.lastFailure).to.deep.include({ runId: sixth.runId, node: 'call' });
    expect(history.lastFailure.message).to.contain('500');
    expect(history.nodes[0]).to.deep.include({ id: 'call', runs: 6, passed: 4, failed: 2 });
    const steadyHistory = (await app.request('GET', `/v1/test-cases/${steady.id}/history`)).body;
    expect(steadyHistory.flaky).to.deep.equal([]);
    expect(steadyHistory.stats).to.deep.include({ runs: 6, passed: 6, passRate: 1 });
  });

  it('a runner quarantining flaky test cases completes passed when only they fail, across continue-as-new', async () => {
    const patched = await app.request('PATCH', '/v1/runners/ci', { quarantineFlaky: true });
    expect(patched.status, JSON.stringify(patched.body)).to.equal(200);
    expect(patched.body.quarantineFlaky).to.equal(true);
    expect((await app.request('GET', '/v1/runners/ci')).body.quarantineFlaky).to.equal(true);
    // Requests 7, 8 pass, 9 fails: at most three runs to see a quarantined failure.
    let quarantined: Awaited<ReturnType<typeof run>> | undefined;
    for (let i = 0; i < 3 && !quarantined; i += 1) {
      const r = await run();
      if (r.cases[0]!.status === 'failed') quarantined = r;
      else expect(r.result).to.equal('passed');
    }
    expect(quarantined, 'a run in which the flaky test case failed').to.not.equal(undefined);
    expect(target.hits()).to.equal(9);
    expect(quarantined!.result).to.equal('passed');
    expect(quarantined!.summary).to.deep.include({ total: 2, passed: 1, failed: 1 });
    expect(quarantined!.cases[0]).to.deep.include({ status: 'failed', quarantined: true });
    expect(quarantined!.cases[0]!.flaky.flips).to.be.at.least(3);
    const history = (await app.request('GET', `/v1/test-cases/${flaky.id}/history?limit=1`)).body;
    expect(history.entries[0]).to.deep.include({ runId: quarantined!.runId, status: 'failed', quarantined: true });
  });

  it('editing the test case starts a new window: the flag goes and its failures fail the run again', async () => {
    const edited = await app.request('PUT', `/v1/test-cases/${flaky.id}`, {
      name: 'sometimes',
      flow: flow('/sometimes', 'call, edited'),
    });
    expect(edited.status, JSON.stringify(edited.body)).to.equal(200);
    // Requests 10, 11 pass, 12 fails: the failure is no longer quarantined.
    let failed: Awaited<ReturnType<typeof run>> | undefined;
    for (let i = 0; i < 3 && !failed; i += 1) {
      const r = await run();
      expect(await flagged()).to.deep.equal([]);
      expect(r.cases[0]).to.not.have.property('flaky');
      if (r.cases[0]!.status === 'failed') failed = r;
    }
    expect(failed, 'a run in which the edited test case failed').to.not.equal(undefined);
    expect(failed!.result).to.equal('failed');
    expect(failed!.cases[0]).to.not.have.property('quarantined');
    const history = (await app.request('GET', `/v1/test-cases/${flaky.id}/history`)).body;
    const hashes = new Set(history.entries.map((e: Json) => e.definitionHash));
    expect(hashes.size).to.equal(2);
  });
});
