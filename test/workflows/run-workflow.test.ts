/**
 * The run workflow (workflows/run.ts) as real workflow code with stubbed activities
 * (test/helpers/workflow-stubs.ts): the plan comes from a stubbed `startRun`, API nodes answer
 * canned responses, and what the workflow hands to the store (`recordTestCaseResult`,
 * `saveProgress`, `finishRun`) is read back from the stubs. What a user relies on: test cases run
 * in order, each result is stored once, the summary and result the run ends with, the progress the
 * run's query reports, a failed assertion failing its test case, the run's timeout and cancel;
 * besides, which activities are local, continuing as new, and a run that cannot start.
 */
import { expect } from 'chai';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { runStateQuery } from '../../src/domain/run-workflow';
import { FAILURE_TYPES, RUN_ERROR_PREFIX } from '../../src/domain/failures';
import {
  apiNode,
  eventCounts,
  gate,
  inputsOf,
  newRunId,
  planOf,
  startStubWorkflowEnv,
  storedResults,
  testCase,
  until,
  type StubRun,
  type StubWorkflowEnv,
} from '../helpers/workflow-stubs';

describe('run workflow with stubbed activities', function () {
  this.timeout(30_000);
  let stubs: StubWorkflowEnv;

  before(async function () {
    this.timeout(120_000);
    stubs = await startStubWorkflowEnv('wf-run');
  });

  after(async function () {
    this.timeout(60_000);
    await stubs?.stop();
  });

  const start = (run: StubRun) => stubs.start(run);

  /** The error the workflow failed with (the test fails if it did not). */
  async function failureOf(handle: WorkflowHandle): Promise<WorkflowFailedError> {
    const err = await handle.result().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err, 'the workflow failed').to.be.instanceOf(WorkflowFailedError);
    return err as WorkflowFailedError;
  }

  it('runs the test cases in order, stores each result once and ends with their summary', async () => {
    const runId = newRunId();
    const run = stubs.register({
      plan: planOf(runId, [
        testCase('a', [apiNode('a1', '/a/1'), apiNode('a2', '/a/2')]),
        testCase('b', [apiNode('b1', '/b/1')]),
        testCase('c', [apiNode('c1', '/c/1')]),
      ]),
    });
    const outcome = await (await start(run)).result();

    expect(inputsOf(run, 'executeApiNode').map((i) => i.request.url)).to.deep.equal(
      ['/a/1', '/a/2', '/b/1', '/c/1'].map((p) => `http://stub.test${p}`),
    );
    // Each result is stored as soon as its test case ends, before the next one starts; the last
    // one goes with the run's end (workflows/suite.ts: one write fewer per run).
    expect(run.calls.map((c) => c.name)).to.deep.equal([
      'startRun',
      'executeApiNode',
      'executeApiNode',
      'recordTestCaseResult',
      'executeApiNode',
      'recordTestCaseResult',
      'executeApiNode',
      'finishRun',
    ]);
    const records = storedResults(run);
    expect(records.map((r) => [r.position, r.result.testCaseId, r.result.status])).to.deep.equal([
      [0, 'a', 'passed'],
      [1, 'b', 'passed'],
      [2, 'c', 'passed'],
    ]);
    expect(inputsOf(run, 'recordTestCaseResult').map((r) => r.progress.completed)).to.deep.equal([1, 2]);
    expect(records[0]!.result.nodes.map((n) => [n.id, n.status])).to.deep.equal([
      ['a1', 'passed'],
      ['a2', 'passed'],
    ]);
    expect(records[0]!.result).to.include({ assertions: 2, passedAssertions: 2 });
    const finishes = inputsOf(run, 'finishRun');
    expect(finishes.map(({ unfinished: _last, ...rest }) => rest)).to.deep.equal([
      { runId, status: 'completed', result: 'passed', summary: { total: 3, passed: 3, failed: 0, skipped: 0 } },
    ]);
    expect(finishes[0]!.unfinished.map((u) => u.position)).to.deep.equal([2]);
    expect(outcome).to.deep.equal({
      runId,
      status: 'completed',
      result: 'passed',
      summary: { total: 3, passed: 3, failed: 0, skipped: 0 },
    });
  });

  it('fails a test case on a failed assertion, runs the rest, and ends the run completed with result failed', async () => {
    const runId = newRunId();
    const run = stubs.register({
      plan: planOf(runId, [
        testCase('a', [apiNode('a1', '/a')]),
        testCase('b', [
          apiNode('b1', '/b', [
            { target: 'response.status', operator: 'equals', expected: 200 },
            { target: 'response.body.error', operator: 'equals', expected: 'boom' },
          ]),
        ]),
        testCase('c', [apiNode('c1', '/c')]),
      ]),
      api: (input) => (input.request.url.endsWith('/b') ? { status: 500, body: { error: 'boom' } } : { status: 200 }),
    });
    const outcome = await (await start(run)).result();

    const records = storedResults(run);
    expect(records.map((r) => [r.position, r.result.status])).to.deep.equal([
      [0, 'passed'],
      [1, 'failed'],
      [2, 'passed'],
    ]);
    const b = records[1]!.result;
    expect(b).to.include({ assertions: 2, passedAssertions: 1 });
    expect(b.failures).to.have.length(1);
    expect(b.failures[0]).to.include({
      node: 'b1',
      assertion: 'response.status',
      operator: 'equals',
      expected: 200,
      actual: 500,
    });
    expect(b.nodes[0]).to.include({ id: 'b1', status: 'failed' });
    const summary = { total: 3, passed: 2, failed: 1, skipped: 0 };
    expect(inputsOf(run, 'finishRun').map(({ unfinished: _last, ...rest }) => rest)).to.deep.equal([
      { runId, status: 'completed', result: 'failed', summary },
    ]);
    expect(outcome).to.deep.equal({ runId, status: 'completed', result: 'failed', summary });
  });

  it('answers the run state query before the start, while running and after the end (normal activities)', async () => {
    const runId = newRunId();
    const starting = gate();
    const held = gate();
    const startedAtMs = Date.now();
    const run = stubs.register({
      plan: planOf(
        runId,
        [
          testCase('a', [apiNode('a1', '/a')]),
          testCase('b', [apiNode('b1', '/b')]),
          testCase('c', [apiNode('c1', '/c')]),
        ],
        { settings: { apiNodeActivity: 'normal' }, startedAtMs },
      ),
      startGate: starting.promise,
      api: async (input) => {
        if (input.request.url.endsWith('/b')) await held.promise;
        return {};
      },
    });
    const handle = await start(run);

    await until(() => run.calls.some((c) => c.name === 'startRun'), 'startRun');
    expect(await handle.query(runStateQuery)).to.deep.equal({
      status: 'queued',
      progress: { completed: 0, total: 0, percentage: 0, running: 0 },
    });

    starting.open();
    await until(() => inputsOf(run, 'executeApiNode').length === 2, 'the API node of test case b');
    const running = await handle.query(runStateQuery);
    expect(running).to.deep.include({
      status: 'running',
      progress: { completed: 1, total: 3, percentage: 33.3, running: 1 },
      startedAt: new Date(startedAtMs).toISOString(),
    });
    expect(Date.parse(running.estimatedCompletion!), 'estimate within the run deadline').to.be.within(
      startedAtMs,
      startedAtMs + 60_000,
    );

    held.open();
    await handle.result();
    expect(await handle.query(runStateQuery)).to.deep.equal({
      status: 'completed',
      progress: { completed: 3, total: 3, percentage: 100, running: 0 },
      startedAt: new Date(startedAtMs).toISOString(),
    });
    // `apiNodeActivity: 'normal'`: nodes and result writes are normal activities, not local ones.
    expect(
      run.calls.filter((c) => c.name === 'executeApiNode' || c.name === 'recordTestCaseResult').map((c) => c.local),
    ).to.deep.equal([false, false, false, false, false]);
  });

  it('runs nodes and stores results as local activities by default', async () => {
    const run = stubs.register({
      plan: planOf(newRunId(), [testCase('a', [apiNode('a1', '/a')]), testCase('b', [apiNode('b1', '/b')])]),
    });
    await (await start(run)).result();
    // A one-test-case run needs no result write of its own: the run's end stores it.
    expect(run.calls.map((c) => [c.name, c.local])).to.deep.equal([
      ['startRun', false],
      ['executeApiNode', true],
      ['recordTestCaseResult', true],
      ['executeApiNode', true],
      ['finishRun', false],
    ]);
  });

  it('ends at its timeout while waiting: the test case under way is interrupted, the rest skipped', async () => {
    const runId = newRunId();
    // A 60 s run that started 59.3 s ago: 0.7 s left, spent in a 30 s Wait node (a durable timer).
    const run = stubs.register({
      plan: planOf(
        runId,
        [testCase('a', [{ id: 'w', type: 'wait', ms: 30_000 }]), testCase('b', [apiNode('b1', '/b')])],
        { timeoutSeconds: 60, startedAtMs: Date.now() - 59_300 },
      ),
    });
    const handle = await start(run);
    const began = Date.now();
    const failure = await failureOf(handle);
    expect(Date.now() - began, 'ended at the deadline, not after the wait').to.be.below(15_000);
    // Two timers, the run's deadline and the wait, both for the time left: a wait never sleeps past the deadline.
    const timers = (await handle.fetchHistory()).events!.flatMap((e) =>
      e.timerStartedEventAttributes ? [e.timerStartedEventAttributes.startToFireTimeout!] : [],
    );
    expect(timers).to.have.length(2);
    for (const t of timers) expect(Number(t.seconds ?? 0) * 1000 + (t.nanos ?? 0) / 1e6).to.be.at.most(700);

    const error = `${RUN_ERROR_PREFIX.timedOut} after 60 s`;
    expect(failure.cause).to.be.instanceOf(ApplicationFailure);
    expect(failure.cause).to.include({ type: FAILURE_TYPES.runTimedOut, message: error });
    expect(inputsOf(run, 'executeApiNode')).to.deep.equal([]);
    expect(inputsOf(run, 'recordTestCaseResult')).to.deep.equal([]);
    const [finish] = inputsOf(run, 'finishRun');
    expect(finish).to.deep.include({
      runId,
      status: 'failed',
      error,
      summary: { total: 2, passed: 0, failed: 1, skipped: 1 },
    });
    expect(
      [...finish!.unfinished, ...(finish!.interrupted ?? [])].map((u) => [u.position, u.result.status, u.result.error]),
    ).to.deep.equal([[0, 'failed', `Interrupted: ${error}`]]);
    // The test cases that never started are stored skipped by finishRun (activities/runs.ts `skipRest`).
    expect(finish!.skipRest).to.deep.equal({ error });
  });

  it('ends at its timeout while a normal activity is under way: the deadline cancels it', async () => {
    const runId = newRunId();
    // 0.7 s left; the API node (a normal activity here) would take 30 s.
    const run = stubs.register({
      plan: planOf(runId, [testCase('a', [apiNode('a1', '/a')]), testCase('b', [apiNode('b1', '/b')])], {
        settings: { apiNodeActivity: 'normal' },
        timeoutSeconds: 60,
        startedAtMs: Date.now() - 59_300,
      }),
      api: () => ({ delayMs: 30_000 }),
    });
    const handle = await start(run);
    const began = Date.now();
    const failure = await failureOf(handle);
    expect(Date.now() - began, 'ended at the deadline, not after the request').to.be.below(15_000);

    const error = `${RUN_ERROR_PREFIX.timedOut} after 60 s`;
    expect(failure.cause).to.include({ type: FAILURE_TYPES.runTimedOut, message: error });
    const [call] = inputsOf(run, 'executeApiNode');
    expect(call!.request.timeoutMs, "the request's timeout cut to the time left").to.be.at.most(700);
    expect(eventCounts(await handle.fetchHistory())).to.deep.include({ ACTIVITY_TASK_CANCEL_REQUESTED: 1 });
    const [finish] = inputsOf(run, 'finishRun');
    expect(finish).to.deep.include({
      runId,
      status: 'failed',
      error,
      summary: { total: 2, passed: 0, failed: 1, skipped: 1 },
    });
  });

  it('ends at its timeout by the clock activities report, between nodes and without waiting for it', async () => {
    const runId = newRunId();
    const startedAtMs = Date.now();
    const deadlineMs = startedAtMs + 600_000;
    // The second node reports it ended past the deadline: the third never runs, though the wall clock is far from it.
    const run = stubs.register({
      plan: planOf(
        runId,
        [
          testCase('a', [apiNode('a1', '/a')]),
          testCase('b', [apiNode('b1', '/b/1'), apiNode('b2', '/b/2')]),
          testCase('c', [apiNode('c1', '/c')]),
        ],
        { timeoutSeconds: 600, startedAtMs },
      ),
      api: (input) => (input.request.url.endsWith('/b/1') ? { finishedAtMs: deadlineMs + 1 } : {}),
    });
    const failure = await failureOf(await start(run));

    const error = `${RUN_ERROR_PREFIX.timedOut} after 600 s`;
    expect(failure.cause).to.include({ type: FAILURE_TYPES.runTimedOut, message: error });
    const calls = inputsOf(run, 'executeApiNode');
    expect(calls.map((i) => i.request.url)).to.deep.equal(['http://stub.test/a', 'http://stub.test/b/1']);
    expect(calls[0]!.deadlineMs).to.equal(deadlineMs);
    expect(inputsOf(run, 'recordTestCaseResult').map((r) => r.position)).to.deep.equal([0]);
    const [finish] = inputsOf(run, 'finishRun');
    expect(finish).to.deep.include({
      status: 'failed',
      error,
      summary: { total: 3, passed: 1, failed: 1, skipped: 1 },
    });
    expect(
      [...finish!.unfinished, ...(finish!.interrupted ?? [])].map((u) => [u.position, u.result.status]),
    ).to.deep.equal([[1, 'failed']]);
    expect(finish!.skipRest).to.deep.equal({ error });
  });

  it('cancelled: stores the run failed as cancelled, with the test case under way interrupted, and ends cancelled', async () => {
    const runId = newRunId();
    const run = stubs.register({
      plan: planOf(runId, [
        testCase('a', [apiNode('a1', '/a')]),
        testCase('b', [{ id: 'w', type: 'wait', ms: 30_000 }]),
        testCase('c', [apiNode('c1', '/c')]),
      ]),
    });
    const handle = await start(run);
    await until(() => inputsOf(run, 'recordTestCaseResult').length === 1, 'the first result');
    await handle.cancel();
    const failure = await failureOf(handle);

    expect(failure.cause).to.be.instanceOf(CancelledFailure);
    expect((await handle.describe()).status.name).to.equal('CANCELLED');
    expect(inputsOf(run, 'executeApiNode').map((i) => i.request.url)).to.deep.equal(['http://stub.test/a']);
    const [finish] = inputsOf(run, 'finishRun');
    expect(finish).to.deep.include({
      runId,
      status: 'failed',
      error: RUN_ERROR_PREFIX.cancelled,
      summary: { total: 3, passed: 1, failed: 1, skipped: 1 },
    });
    expect(
      [...finish!.unfinished, ...(finish!.interrupted ?? [])].map((u) => [u.position, u.result.status]),
    ).to.deep.equal([[1, 'failed']]);
    expect(finish!.skipRest).to.deep.equal({ error: RUN_ERROR_PREFIX.cancelled });
  });

  it('continues as new after testCasesPerExecution test cases, storing each result once across executions', async () => {
    const runId = newRunId();
    // Two executions, 3 + 1 test cases, the failure in the second (the dev server starts a
    // continuation up to a second after its predecessor began, so each one costs about that).
    const run = stubs.register({
      plan: planOf(
        runId,
        ['a', 'b', 'c', 'd'].map((id) => testCase(id, [apiNode(`${id}1`, `/${id}`)])),
        { settings: { testCasesPerExecution: 3 } },
      ),
      api: (input) => (input.request.url.endsWith('/d') ? { status: 404 } : {}),
    });
    const outcome = await (await start(run)).result();

    expect(run.calls.filter((c) => c.name === 'startRun')).to.have.length(1);
    // The first execution stores its three before continuing; the second stores the failed fourth
    // with its resume point (a passing last one would go with the run's end).
    const records = run.calls.filter((c) => c.name === 'recordTestCaseResult');
    expect(records.map((c) => (c.input as { position: number }).position)).to.deep.equal([0, 1, 2, 3]);
    const executions = records.map((c) => c.execution);
    expect(new Set(executions).size, 'two executions').to.equal(2);
    expect(executions[2], 'the third test case in the first execution').to.equal(executions[0]);
    expect(executions[3], 'the fourth in the second').to.not.equal(executions[0]);
    expect(inputsOf(run, 'recordTestCaseResult').map((r) => r.progress)).to.deep.equal(
      [1, 2, 3, 4].map((completed) => ({ completed, total: 4, percentage: completed * 25, running: 0 })),
    );
    expect(inputsOf(run, 'executeApiNode').map((i) => i.request.url)).to.deep.equal(
      ['a', 'b', 'c', 'd'].map((id) => `http://stub.test/${id}`),
    );
    const summary = { total: 4, passed: 3, failed: 1, skipped: 0 };
    expect(inputsOf(run, 'finishRun').map(({ unfinished: _last, ...rest }) => rest)).to.deep.equal([
      { runId, status: 'completed', result: 'failed', summary },
    ]);
    expect(outcome).to.deep.equal({ runId, status: 'completed', result: 'failed', summary });
  });

  it('fails as a setup failure when startRun refuses the run, and stores it failed', async () => {
    const runId = newRunId();
    const run = stubs.register({
      plan: planOf(runId, [testCase('a', [apiNode('a1', '/a')])]),
      startError: ApplicationFailure.nonRetryable('the runner was deleted', FAILURE_TYPES.runSetupFailed),
    });
    const failure = await failureOf(await start(run));

    const error = 'Run could not start: the runner was deleted';
    expect(failure.cause).to.include({ type: FAILURE_TYPES.runSetupFailed, message: error });
    expect(
      run.calls.filter((c) => c.name === 'startRun'),
      'not retried',
    ).to.have.length(1);
    expect(inputsOf(run, 'executeApiNode')).to.deep.equal([]);
    expect(inputsOf(run, 'finishRun')).to.deep.equal([
      { runId, status: 'failed', error, summary: { total: 0, passed: 0, failed: 0, skipped: 0 }, unfinished: [] },
    ]);
  });
});
