/**
 * Runs made from other runs (docs/history.md "Rerun, replay, resume"; api/routes/run-origins.ts),
 * against a real worker process and a loopback target that counts requests:
 *
 * - rerun runs exactly the test cases that failed (or the ones named), linked to its origin;
 * - replay sends the request of the frozen plan although the test case was edited since, and has
 *   the origin's planHash;
 * - resume starts the failed test case at its failed node with the state it had there: the
 *   requests before it are not sent again, earlier results are copied;
 * - a worker killed with SIGKILL during a resumed run is replaced and the run completes;
 * - the problems: 409 run-active, 422 nothing-to-rerun / not-resumable / plan-unavailable, 400 for
 *   a named test case that is not the run's; and `assay run --rerun-failed`.
 */
import { expect } from 'chai';
import { eventually, startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { processEnv, spawnAssay, type AssayProcess } from '../../helpers/processes';
import { startTarget, type Target } from '../../helpers/target';
import { runCli } from '../../helpers/cli';
import { Run, queuedRun } from '../../../src/store/entities';
import { runWorkflowId } from '../../../src/ids';
import { recordHistory } from '../../helpers/temporal';

const spawnWorker = (app: TestApp): AssayProcess => spawnAssay('worker', processEnv(app, { ASSAY_LOG_LEVEL: 'warn' }));

describe('rerun, replay and resume', function () {
  this.timeout(180_000);
  let app: TestApp;
  let target: Target;
  let worker: AssayProcess;
  const children: AssayProcess[] = [];

  const hits = (path: string) => target.hits.get(path) ?? 0;

  /** Creates a test case; answers its id. */
  async function testCase(name: string, flow: unknown[]): Promise<string> {
    const res = await app.request('POST', '/v1/test-cases', { name, flow });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.id;
  }
  const get = (id: string, path: string, assertions: unknown[] = []) => ({
    type: 'api',
    id,
    request: { method: 'GET', url: `{{base}}${path}` },
    assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }, ...assertions],
  });
  async function runner(name: string, testCaseIds: string[]): Promise<void> {
    const res = await app.request('POST', '/v1/runners', { name, testCaseIds });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
  }
  async function run(runnerName: string): Promise<any> {
    const res = await app.request('POST', '/v1/runs', { runner: runnerName, environment: 'local' });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return waitForRun(app, res.body.runId, 90_000);
  }
  const results = async (runId: string) =>
    (await app.request('GET', `/v1/runs/${runId}/results`)).body.details.testCases;
  const outcome = (tc: { name: string; status: string }) => `${tc.name} ${tc.status}`;

  before(async () => {
    [app, target] = await Promise.all([startTestApp(), startTarget()]);
    await app.request('POST', '/v1/environments', { name: 'local', variables: { base: target.url } });
    worker = spawnWorker(app);
    children.push(worker);
  });
  after(async () => {
    for (const c of children) await c.kill();
    await target?.close();
    await app?.stop();
  });

  it('reruns exactly the failed test cases, as they are now, linked to the run', async () => {
    const ids = [
      await testCase('a passes', [get('a', '/users/1')]),
      await testCase('b fails', [get('b', '/status/500')]),
      await testCase('c passes slowly', [get('c', '/slow?ms=300')]),
      await testCase('d fails', [get('d', '/status/404')]),
    ];
    await runner('mixed', ids);
    const started = await app.request('POST', '/v1/runs', { runner: 'mixed', environment: 'local' });
    // Not ended yet: nothing can be made from it.
    const early = await app.request('POST', `/v1/runs/${started.body.runId}/rerun`, {});
    expect(early.status).to.equal(409);
    expect(early.body).to.include({ code: 'run-active' });
    const origin = await waitForRun(app, started.body.runId, 90_000);
    expect(origin).to.include({ status: 'completed', result: 'failed' });

    const rerun = await app.request('POST', `/v1/runs/${origin.runId}/rerun`, { only: 'failed' });
    expect(rerun.status, JSON.stringify(rerun.body)).to.equal(201);
    expect(rerun.headers.get('location')).to.equal(`/v1/runs/${rerun.body.runId}`);
    expect(rerun.body.origin).to.deep.equal({ kind: 'rerun', runId: origin.runId, testCaseIds: [ids[1], ids[3]] });
    const done = await waitForRun(app, rerun.body.runId, 90_000);
    expect(done).to.include({ status: 'completed', result: 'failed', runner: 'mixed', environment: 'local' });
    expect(done.origin).to.deep.equal(rerun.body.origin);
    expect((await results(done.runId)).map(outcome)).to.deep.equal(['b fails failed', 'd fails failed']);

    // Named test cases (one of the run's), with their current definition: b is fixed now.
    await app.request('PUT', `/v1/test-cases/${ids[1]}`, { name: 'b fails', flow: [get('b', '/users/2')] });
    const named = await app.request('POST', `/v1/runs/${origin.runId}/rerun`, { testCases: [ids[1]] });
    expect(named.status).to.equal(201);
    const fixed = await waitForRun(app, named.body.runId, 90_000);
    expect(fixed).to.include({ status: 'completed', result: 'passed' });
    expect((await results(fixed.runId)).map(outcome)).to.deep.equal(['b fails passed']);

    // A test case that is not the run's, and a run with nothing failed.
    const stranger = await app.request('POST', `/v1/runs/${origin.runId}/rerun`, { testCases: ['tc_nope'] });
    expect(stranger.status).to.equal(400);
    expect(stranger.body.errors[0]).to.include({ field: 'testCases[0]' });
    const nothing = await app.request('POST', `/v1/runs/${fixed.runId}/rerun`);
    expect(nothing.status).to.equal(422);
    expect(nothing.body).to.include({ code: 'nothing-to-rerun' });

    // The CLI: `assay run --rerun-failed RUN --wait` exits 1 (d still fails) and reports only d.
    const cli = await runCli(['run', '--rerun-failed', origin.runId, '--wait'], { app });
    expect(cli.code, cli.stderr).to.equal(1);
    expect(cli.stdout).to.contain('d fails');
    expect(cli.stdout).not.to.contain('a passes');
  });

  it('replays the frozen plan: the old request is sent although the test case was edited since', async () => {
    const id = await testCase('edited', [get('e', '/users/5')]);
    await runner('replayed', [id]);
    const origin = await run('replayed');
    expect(origin).to.include({ status: 'completed', result: 'passed' });
    expect(origin.planHash).to.match(/^[0-9a-f]{64}$/);
    await app.request('PUT', `/v1/test-cases/${id}`, { name: 'edited', flow: [get('e', '/users/6')] });
    const [five, six] = [hits('/users/5'), hits('/users/6')];

    const replay = await app.request('POST', `/v1/runs/${origin.runId}/replay`);
    expect(replay.status, JSON.stringify(replay.body)).to.equal(201);
    expect(replay.body.origin).to.deep.equal({ kind: 'replay', runId: origin.runId });
    const replayed = await waitForRun(app, replay.body.runId, 90_000);
    expect(replayed).to.include({ status: 'completed', result: 'passed', planHash: origin.planHash });
    expect([hits('/users/5') - five, hits('/users/6') - six]).to.deep.equal([1, 0]);

    // A new run executes the edited test case: another plan.
    const fresh = await run('replayed');
    expect(fresh.planHash).not.to.equal(origin.planHash);
    expect([hits('/users/5') - five, hits('/users/6') - six]).to.deep.equal([1, 1]);

    // A run that never froze a plan has nothing to replay or resume.
    const never = app.dataSource.getRepository(Run).create(
      queuedRun({
        id: 'run_01NEVERSTARTED0000000000000',
        workspaceId: app.workspaceId,
        runnerId: null,
        runnerName: 'replayed',
        environmentId: null,
        environmentName: 'local',
        deploymentId: null,
        trigger: 'api',
        workflowId: runWorkflowId('run_01NEVERSTARTED0000000000000'),
        timeoutSeconds: 60,
        variables: {},
        context: null,
        workflowStartedAt: new Date(),
      }),
    );
    Object.assign(never, {
      status: 'failed',
      error: 'Run could not start: test',
      completedAt: new Date(),
      duration: 0,
    });
    await app.dataSource.getRepository(Run).insert(never as never);
    for (const kind of ['replay', 'resume']) {
      const res = await app.request('POST', `/v1/runs/${never.id}/${kind}`, {});
      expect(res.status).to.equal(422);
      expect(res.body).to.include({ code: 'plan-unavailable' });
    }
    expect((await app.request('POST', '/v1/runs/run_nope/replay')).status).to.equal(404);
  });

  /** A flow that logs in, keeps what it read, fails at `flaky` the first time, then checks what it kept. */
  const longFlow = (key: string) => [
    get('login', '/users/3'),
    { type: 'context', id: 'keep', set: { who: 'nodes.login.response.body.name' } },
    {
      type: 'if',
      id: 'guard',
      condition: 'variables.who = "Edsger"',
      then: [get('flaky', `/flaky?key=${key}&fail=1`)],
    },
    get('check', '/echo?who={{who}}', [
      { target: 'response.body.query.who', operator: 'equals', expected: 'Edsger' },
      { target: 'nodes.login.response.body.email', operator: 'equals', expected: 'edsger@example.com' },
    ]),
  ];

  it('resumes at the failed node with the state it had: the requests before it are not sent again', async () => {
    const first = await testCase('first', [get('first', '/users/7')]);
    const long = await testCase('long flow', longFlow('resume-1'));
    const last = await testCase('last', [get('last', '/users/8')]);
    await runner('resumable', [first, long, last]);
    const origin = await run('resumable');
    expect(origin).to.include({ status: 'completed', result: 'failed' });
    const failed = (await results(origin.runId))[1];
    expect(failed.failures[0].node).to.equal('flaky');
    const before = {
      users3: hits('/users/3'),
      users7: hits('/users/7'),
      users8: hits('/users/8'),
      flaky: hits('/flaky'),
    };

    const resume = await app.request('POST', `/v1/runs/${origin.runId}/resume`);
    expect(resume.status, JSON.stringify(resume.body)).to.equal(201);
    // The failed node is inside the IF: the resume starts at the top-level node containing it.
    expect(resume.body.origin).to.deep.equal({
      kind: 'resume',
      runId: origin.runId,
      testCaseIds: [long],
      position: 1,
      nodeId: 'guard',
    });
    const resumed = await waitForRun(app, resume.body.runId, 90_000);
    expect(resumed).to.include({ status: 'completed', result: 'passed', planHash: origin.planHash });
    expect(resumed.summary).to.deep.equal({ total: 3, passed: 3, failed: 0, skipped: 0 });
    // Not sent again: the first test case (copied) and the login before the resumed node.
    expect(hits('/users/7') - before.users7).to.equal(0);
    expect(hits('/users/3') - before.users3).to.equal(0);
    // Sent: the resumed node and what follows it, and the test case after.
    expect(hits('/flaky') - before.flaky).to.equal(1);
    expect(hits('/users/8') - before.users8).to.equal(1);
    const got = await results(resumed.runId);
    expect(got.map(outcome)).to.deep.equal(['first passed', 'long flow passed', 'last passed']);
    expect(got[0].copiedFrom).to.equal(origin.runId);
    expect(got[1].nodes.map((n: { id: string; status: string }) => `${n.id} ${n.status}`)).to.deep.equal([
      'login skipped',
      'keep skipped',
      'guard passed',
      'check passed',
    ]);
    expect(got[1].nodes[0].reason).to.equal(`resumed: ran in run ${origin.runId}`);

    // Fixtures of test/integration/runs/replay.test.ts (with ASSAY_RECORD_HISTORIES=1, `make record-histories`).
    await recordHistory('failed-with-resume-state', `run-${origin.runId}`);
    await recordHistory('resumed-run', `run-${resumed.runId}`);

    // Nothing failed in the resumed run: nothing to resume there.
    const again = await app.request('POST', `/v1/runs/${resumed.runId}/resume`, {});
    expect(again.status).to.equal(422);
    expect(again.body).to.include({ code: 'not-resumable' });
  });

  it('says why a test case whose state was over the cap cannot be resumed', async () => {
    const id = await testCase('heavy', [
      { type: 'api', id: 'big', request: { method: 'GET', url: '{{base}}/big?kb=200' } },
      { type: 'context', id: 'copy', set: { kept: 'nodes.big.response.body' } },
      get('fails', '/status/500'),
    ]);
    await runner('heavy', [id]);
    const origin = await run('heavy');
    expect(origin).to.include({ status: 'completed', result: 'failed' });
    const res = await app.request('POST', `/v1/runs/${origin.runId}/resume`, {});
    expect(res.status).to.equal(422);
    expect(res.body.code).to.equal('not-resumable');
    expect(res.body.detail).to.match(
      /before node "fails" was \d+(\.\d)? KiB, over the 256 KiB a resume state may take/,
    );
    // A rerun still works.
    const rerun = await app.request('POST', `/v1/runs/${origin.runId}/rerun`, {});
    expect(rerun.status).to.equal(201);
    expect(await waitForRun(app, rerun.body.runId, 90_000)).to.include({ status: 'completed', result: 'failed' });
  });

  it('survives a worker killed with SIGKILL during a resumed run', async () => {
    const id = await testCase('long and slow', [
      ...longFlow('resume-2'),
      get('slow1', '/slow?ms=600'),
      get('slow2', '/slow?ms=600'),
      get('slow3', '/slow?ms=600'),
    ]);
    await runner('killed', [id]);
    const origin = await run('killed');
    expect(origin).to.include({ status: 'completed', result: 'failed' });
    const before = { users3: hits('/users/3'), slow: hits('/slow') };

    const resume = await app.request('POST', `/v1/runs/${origin.runId}/resume`, {});
    expect(resume.status).to.equal(201);
    await eventually(async () => hits('/slow') > before.slow, 60_000, 50);
    await worker.kill();
    worker = spawnWorker(app);
    children.push(worker);

    const resumed = await waitForRun(app, resume.body.runId, 120_000);
    expect(resumed).to.include({ status: 'completed', result: 'passed' });
    // Never re-sent: the login before the resume point, whatever the worker did.
    expect(hits('/users/3') - before.users3).to.equal(0);
    // At least once each: a request in flight when the worker died may have been sent twice.
    expect(hits('/slow') - before.slow).to.be.within(3, 5);
    const [result] = await results(resumed.runId);
    expect(result.status).to.equal('passed');
    expect(result.nodes.map((n: { status: string }) => n.status)).to.deep.equal([
      'skipped',
      'skipped',
      'passed',
      'passed',
      'passed',
      'passed',
      'passed',
    ]);
  });
});
