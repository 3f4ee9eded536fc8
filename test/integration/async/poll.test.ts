/**
 * Poll nodes in runs (docs/async.md "Polling"), on a real Temporal server with a real worker,
 * against a loopback job service (helpers/job-server.ts): the condition met after some attempts
 * (every attempt listed), never met (maxAttempts), the node's timeout, exponential delays, the
 * live `waiting` state between attempts, the delays that really passed (against the gaps the
 * service saw) on Assay's dev server and on one with Temporal's default timer settings (where
 * 300 ms asked take about a second), and a Temporal server killed and restarted between two
 * attempts: the durable timer fires after the restart and the service gets exactly the requests
 * expected, none twice.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { Client, Connection } from '@temporalio/client';
import { eventually, startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { startJobServer, type JobServer } from '../../helpers/job-server';
import { temporalClient, testDataConverter } from '../../helpers/temporal';
import { findTemporalCli, startDevServer, type DevServer } from '../../../src/temporal/dev-server';
import { freePort } from '../../../src/net/free-port';
import { runStateQuery } from '../../../src/domain/run-workflow';
import { runWorkflowId } from '../../../src/ids';

type Json = Record<string, any>;

/** Saves `flow` as a test case of its own folder, runs it, and returns the run, its first test case and the run id. */
async function runFlow(app: TestApp, name: string, flow: unknown[], wait = true) {
  const res = await app.request('POST', '/v1/test-cases', { name, folder: name, flow });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  await app.request('POST', '/v1/runners', { name, folder: name });
  const started = await app.request('POST', '/v1/runs', { runner: name, environment: 'local' });
  expect(started.status, JSON.stringify(started.body)).to.equal(201);
  const { runId } = started.body;
  if (!wait) return { runId, run: undefined as any, testCase: undefined as any as Json };
  const run = await waitForRun(app, runId, 60_000);
  const results = (await app.request('GET', `/v1/runs/${runId}/results`)).body;
  return { runId, run, testCase: results.details.testCases[0] as Json };
}

/**
 * Checks each waited attempt of `node` against the gaps between the requests `jobs` got for `key`:
 * `plannedDelayMs` is `asked`, `delayMs` at least that, and `delayMs` is the gap short of the two
 * requests' own time (the end of one attempt to the start of the next lies within the gap; 1 ms for
 * rounding the server's event times). The slack below the gap is generous for a busy 2-core machine;
 * there is no upper bound on wall time. Returns the delays.
 */
function expectRealDelays(node: Json, jobs: JobServer, key: string, asked: number): number[] {
  const arrived = jobs.times(key);
  expect(arrived).to.have.length(node.attempts.length);
  const waited = node.attempts.slice(0, -1) as Json[];
  return waited.map((a, i) => {
    const gap = arrived[i + 1]! - arrived[i]!;
    const why = `attempt ${a.attempt}: delayMs ${a.delayMs}, gap at the service ${gap} ms`;
    expect(a.plannedDelayMs, why).to.equal(asked);
    expect(a.delayMs, why).to.be.at.least(asked);
    expect(a.delayMs, why).to.be.at.most(gap + 1);
    expect(gap - a.delayMs, why).to.be.below(500);
    return a.delayMs as number;
  });
}

const poll = (jobs: JobServer, key: string, ready: number, extra: Json = {}) => ({
  type: 'poll',
  id: 'job',
  request: { method: 'GET', url: `${jobs.url}/jobs/${key}?ready=${ready}` },
  until: "response.body.status = 'done'",
  interval: '50ms',
  ...extra,
});

describe('Poll nodes in runs', function () {
  this.timeout(60_000);
  let app: TestApp;
  let jobs: JobServer;

  before(async () => {
    [app, jobs] = await Promise.all([startTestApp({ worker: true }), startJobServer()]);
    await app.request('POST', '/v1/environments', { name: 'local', variables: {} });
  });
  after(async () => {
    await jobs?.close();
    await app?.stop();
  });

  it('passes once the condition holds, with every attempt listed and assertions on the last response', async () => {
    const { run, testCase } = await runFlow(app, 'met', [
      poll(jobs, 'met', 3, { assertions: [{ target: 'response.body.n', operator: 'equals', expected: 3 }] }),
    ]);
    expect(run.status).to.equal('completed');
    expect(testCase.status, JSON.stringify(testCase.failures)).to.equal('passed');
    const node = testCase.nodes[0];
    expect(node).to.include({ type: 'poll', status: 'passed' });
    expect(node.attempts.map((a: Json) => [a.attempt, a.status, a.conditionMet, a.plannedDelayMs])).to.deep.equal([
      [1, 202, false, 50],
      [2, 202, false, 50],
      [3, 200, true, undefined],
    ]);
    expectRealDelays(node, jobs, 'met', 50);
    expect(node.attempts[2]).not.to.have.property('delayMs');
    expect(node.request.url).to.equal(`${jobs.url}/jobs/met?ready=3`);
    expect(node.response.status).to.equal(200);
    expect(jobs.hits('met')).to.equal(3);
  });

  it('fails naming the condition after maxAttempts, and the timeout when that comes first', async () => {
    const never = await runFlow(app, 'never', [poll(jobs, 'never', 100, { maxAttempts: 3 })]);
    expect(never.testCase!.status).to.equal('failed');
    expect(never.testCase!.nodes[0].error).to.equal(
      "condition `response.body.status = 'done'` did not hold after 3 attempts (last status 202)",
    );
    expect(jobs.hits('never')).to.equal(3);

    const late = await runFlow(app, 'late', [poll(jobs, 'late', 100, { interval: '300ms', timeout: 1 })]);
    const node = late.testCase!.nodes[0];
    expect(node.status).to.equal('failed');
    expect(node.error).to.match(
      /^condition `response\.body\.status = 'done'` did not hold within 1s after \d attempts \(last status 202\)$/,
    );
    expect(node.attempts.length).to.be.within(2, 4);
    expect(jobs.hits('late')).to.equal(node.attempts.length);
  });

  it('waits exponentially longer between attempts, shown in the live state while it waits', async () => {
    const { runId } = await runFlow(
      app,
      'backoff',
      [poll(jobs, 'backoff', 5, { interval: '100ms', backoff: 'exponential', factor: 2, maxInterval: '1s' })],
      false,
    );
    // Between attempts the run's live state names the wait (RunLiveState `waiting`).
    const client = await temporalClient();
    const waiting = await eventually(
      async () => {
        const state = await client.workflow
          .getHandle(runWorkflowId(runId))
          .query(runStateQuery)
          .catch(() => undefined);
        return state?.waiting;
      },
      10_000,
      20,
    );
    expect(waiting).to.include({ nodeId: 'job', kind: 'poll', match: "response.body.status = 'done'" });
    expect(waiting.attempt).to.be.a('number');
    const run = await waitForRun(app, runId);
    expect(run.status).to.equal('completed');
    const results = (await app.request('GET', `/v1/runs/${runId}/results`)).body;
    const node = results.details.testCases[0].nodes[0];
    expect(node.attempts.map((a: Json) => a.plannedDelayMs ?? null)).to.deep.equal([100, 200, 400, 800, null]);
    for (const a of node.attempts.slice(0, -1)) expect(a.delayMs).to.be.at.least(a.plannedDelayMs);
    expect(jobs.hits('backoff')).to.equal(5);
  });

  it('reports the delay that really passed after each attempt, and the one asked', async () => {
    const { testCase } = await runFlow(app, 'real-delays', [poll(jobs, 'real', 4, { interval: '300ms' })]);
    expect(testCase.status, JSON.stringify(testCase.failures)).to.equal('passed');
    expect(expectRealDelays(testCase.nodes[0], jobs, 'real', 300)).to.have.length(3);
  });

  it('fails at once when the condition cannot be evaluated', async () => {
    const { testCase } = await runFlow(app, 'bad-until', [poll(jobs, 'bad', 100, { until: '$undefinedFn(1)' })]);
    expect(testCase!.nodes[0].error).to.match(/^until: /);
    expect(jobs.hits('bad')).to.equal(1);
  });
});

/**
 * Temporal's default `history.timerProcessorMaxTimeShift` (1 s; Assay's dev server starts with
 * 50 ms, src/temporal/dev-server.ts), as a server Assay does not configure has.
 */
const TEMPORAL_DEFAULT_TIMERS = { 'history.timerProcessorMaxTimeShift': '1s' };

describe('Poll nodes on a Temporal server with its default timer settings, and across its restart', function () {
  this.timeout(120_000);
  let server: DevServer | undefined;
  let app: TestApp;
  let jobs: JobServer;
  let dir: string;
  let port: number;

  before(async function () {
    if (!findTemporalCli()) this.skip();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-poll-temporal-'));
    port = await freePort('127.0.0.1');
    server = await startDevServer({
      port,
      dbFile: path.join(dir, 'temporal.db'),
      dynamicConfig: TEMPORAL_DEFAULT_TIMERS,
    });
    [app, jobs] = await Promise.all([
      startTestApp({ worker: true, env: { TEMPORAL_ADDRESS: server.address } }),
      startJobServer(),
    ]);
    await app.request('POST', '/v1/environments', { name: 'local', variables: {} });
  });
  after(async () => {
    await jobs?.close();
    await app?.stop();
    await server?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("a delay shorter than the server's timer resolution: the results report what really passed", async () => {
    // A timer fires no earlier than about 1 s after the timer queue's last read (docs/async.md
    // "Timer resolution"): the 300 ms asked become about a second, and the results say so.
    const { testCase } = await runFlow(app, 'coarse', [poll(jobs, 'coarse', 4, { interval: '300ms' })]);
    expect(testCase.status, JSON.stringify(testCase.failures)).to.equal('passed');
    expect(expectRealDelays(testCase.nodes[0], jobs, 'coarse', 300)).to.have.length(3);
  });

  it('the run completes after the restart and the service got exactly the expected requests', async () => {
    const { runId } = await runFlow(app, 'restart', [poll(jobs, 'restart', 3, { interval: '3s' })], false);
    // The first attempt is done and its timer is in the server's history: kill the server then.
    const connection = await Connection.connect({ address: server!.address });
    try {
      const client = new Client({ connection, dataConverter: testDataConverter() });
      await eventually(
        async () => {
          const history = await client.workflow.getHandle(runWorkflowId(runId)).fetchHistory();
          return history.events?.some((e) => e.timerStartedEventAttributes);
        },
        15_000,
        50,
      );
    } finally {
      await connection.close();
    }
    expect(jobs.hits('restart')).to.equal(1);
    server!.process.kill('SIGKILL');
    await new Promise((resolve) => server!.process.once('exit', resolve));
    server = await startDevServer({
      port,
      dbFile: path.join(dir, 'temporal.db'),
      dynamicConfig: TEMPORAL_DEFAULT_TIMERS,
    });
    const run = await waitForRun(app, runId, 90_000);
    expect(run.status).to.equal('completed');
    const results = (await app.request('GET', `/v1/runs/${runId}/results`)).body;
    const node = results.details.testCases[0].nodes[0];
    expect(node.status, node.error).to.equal('passed');
    expect(node.attempts).to.have.length(3);
    expect(jobs.hits('restart')).to.equal(3);
  });
});
