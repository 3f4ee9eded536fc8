/**
 * What the worker does for throughput (docs/benchmarks.md "Scaling"; src/temporal/workflow-worker.ts,
 * src/temporal/bundle.ts WORKFLOW_STACK_TRACE_LIMIT) keeps what a run must keep: workflow code runs
 * without the SDK's per-call V8 watchdog unless ASSAY_WORKFLOW_ISOLATE_TIMEOUT_MS asks for it, the
 * prebuilt bundle caps workflow stack traces, and every API node is still its own durable step (one
 * local activity marker per node in the run's history), with the same results either way.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import { startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { startTarget, type Target } from '../../helpers/target';
import { temporalClient } from '../../helpers/temporal';
import { watchdogStats } from '../../../src/temporal/workflow-worker';
import { BUNDLE_PATH } from '../../../src/temporal/bundle';

const NODES = 30;

describe('worker throughput settings', function () {
  this.timeout(180_000);
  let target: Target;
  const apps: TestApp[] = [];

  before(async () => {
    target = await startTarget();
  });
  after(async () => {
    for (const app of apps) await app.stop();
    await target?.close();
  });

  async function runOnce(app: TestApp): Promise<{ run: any; markers: number; activityTypes: string[] }> {
    await app.request('POST', '/v1/environments', { name: 'local', variables: { base: target.url } });
    const flow = Array.from({ length: NODES }, (_, i) => ({
      type: 'api',
      request: { method: 'GET', url: `{{base}}/users/${(i % 10) + 1}` },
      assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
    }));
    const tc = await app.request('POST', '/v1/test-cases', { name: 'many nodes', folder: 'throughput', flow });
    expect(tc.status, JSON.stringify(tc.body)).to.equal(201);
    await app.request('POST', '/v1/runners', { name: 'throughput', folder: 'throughput' });
    const started = await app.request('POST', '/v1/runs', { runner: 'throughput', environment: 'local' });
    expect(started.status, JSON.stringify(started.body)).to.equal(201);
    await waitForRun(app, started.body.runId);
    const run = (await app.request('GET', `/v1/runs/${started.body.runId}/results`)).body;
    const history = await (await temporalClient()).workflow.getHandle(`run-${started.body.runId}`).fetchHistory();
    const events = history.events ?? [];
    const markers = events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity').length;
    const activityTypes = events
      .map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name)
      .filter((n): n is string => !!n);
    return { run, markers, activityTypes };
  }

  it('runs workflow code without the per-call watchdog by default, every node still a durable step', async () => {
    const before = watchdogStats.creatorsWithoutWatchdog;
    const app = await startTestApp({ worker: true });
    apps.push(app);
    expect(watchdogStats.creatorsWithoutWatchdog, 'the worker was made by AssayWorker.createWorkflowCreator').to.equal(
      before + 1,
    );
    const { run, markers } = await runOnce(app);
    expect(run.status).to.equal('completed');
    expect(run.result).to.equal('passed');
    expect(run.details.testCases[0].nodes).to.have.length(NODES);
    // One local activity marker per API node, plus the test case's result write.
    expect(markers).to.be.at.least(NODES);
  });

  it('keeps the SDK watchdog when ASSAY_WORKFLOW_ISOLATE_TIMEOUT_MS is set, with the same results', async () => {
    const before = watchdogStats.creatorsWithoutWatchdog;
    const app = await startTestApp({ worker: true, env: { ASSAY_WORKFLOW_ISOLATE_TIMEOUT_MS: '5000' } });
    apps.push(app);
    expect(app.config.temporal.isolateTimeoutMs).to.equal(5000);
    expect(watchdogStats.creatorsWithoutWatchdog).to.equal(before);
    const { run, markers } = await runOnce(app);
    expect(run.result).to.equal('passed');
    expect(run.details.testCases[0].nodes).to.have.length(NODES);
    expect(markers).to.be.at.least(NODES);
  });

  it('caps stack traces inside the prebuilt workflow bundle, on its first line', () => {
    const head = fs.readFileSync(BUNDLE_PATH, 'utf8').slice(0, 200);
    expect(head).to.match(/^Error\.stackTraceLimit = \d+; /);
    expect(head.split('\n')[0]).to.include('__TEMPORAL__');
  });
});
