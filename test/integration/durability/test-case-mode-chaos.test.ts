/**
 * The `testCase` durability mode (docs/durability.md "Durability modes") under stress, with worker
 * processes: a worker killed (-9) in the middle of a long test case (the retry resumes at the last
 * checkpoint: the run passes with every node's result, `attempts: 2`, and few requests repeated);
 * a run cancelled, and a run timed out, in the middle of a long test case (the activity stops
 * promptly; the timeout reads as in the `node` mode); a Wait node of 30 s holding no activity slot
 * (another run completes meanwhile on a worker with one slot).
 */
import { expect } from 'chai';
import { eventually, startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { processEnv, spawnAssay, type AssayProcess } from '../../helpers/processes';
import { temporalClient } from '../../helpers/temporal';
import { startRecorder, type Hit, type Recorder } from '../../helpers/recorder';

type Json = Record<string, any>;

/** `count` API nodes calling `/slow?ms=<ms>&i=<k>` (k from 1), each asserting its answer. */
const slowNodes = (count: number, ms: number) =>
  Array.from({ length: count }, (_, k) => ({
    type: 'api',
    id: `s${k + 1}`,
    request: { method: 'GET', url: `{{base}}/slow?ms=${ms}&i=${k + 1}`, timeoutMs: 10_000 },
    assertions: [{ target: 'response.body.i', operator: 'equals', expected: k + 1 }],
  }));

describe('the testCase durability mode: crashes, cancels, timeouts and long waits', function () {
  this.timeout(120_000);
  let app: TestApp;
  let target: Recorder;
  const workers: AssayProcess[] = [];
  const spawnWorker = (env: Record<string, string> = {}) => {
    const w = spawnAssay('worker', processEnv(app, { ASSAY_LOG_LEVEL: 'warn', ...env }));
    workers.push(w);
    return w;
  };
  const stopWorkers = async () => {
    for (const w of workers) await w.kill();
  };

  const createRunner = async (name: string, cases: Array<{ name: string; flow: unknown[] }>) => {
    for (const tc of cases) {
      const res = await app.request('POST', '/v1/test-cases', { ...tc, folder: name });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
    }
    const res = await app.request('POST', '/v1/runners', { name, folder: name, order: 'createdAt' });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
  };
  const startRun = async (runner: string, extra: Json = {}) => {
    const res = await app.request('POST', '/v1/runs', {
      runner,
      environment: 'local',
      durability: 'testCase',
      ...extra,
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.runId as string;
  };
  const results = async (runId: string) => (await app.request('GET', `/v1/runs/${runId}/results`)).body;
  const slowHits = (runOrAll?: (h: Hit) => boolean) =>
    target.hits.filter((h) => h.path === '/slow' && (runOrAll?.(h) ?? true));
  const ofRun = (runId: string) => (h: Hit) => h.execution?.startsWith(`${runId}/`) ?? false;

  before(async () => {
    [app, target] = await Promise.all([startTestApp(), startRecorder()]);
    await app.request('POST', '/v1/environments', { name: 'local', variables: { base: target.url } });
  });
  after(async () => {
    await stopWorkers();
    await target?.close();
    await app?.stop();
  });

  it('a worker killed (-9) mid test case: another resumes at the last checkpoint; the run passes with every node, attempts 2, few requests repeated', async () => {
    await createRunner('crash', [{ name: 'forty', flow: slowNodes(40, 100) }]);
    const first = spawnWorker();
    const runId = await startRun('crash');
    const mine = ofRun(runId);
    await eventually(async () => slowHits(mine).length >= 25, 60_000, 10);
    // Live progress moves within the test case (the segment stores it every second): the estimate
    // is the pace so far, not the run's deadline (30 min by default; the test case needs ~4 s).
    const live = (await app.request('GET', `/v1/runs/${runId}`)).body;
    expect(live.status).to.equal('running');
    expect(Date.parse(live.estimatedCompletion) - Date.parse(live.startedAt), JSON.stringify(live)).to.be.below(60_000);
    const killedAt = Date.now();
    await first.kill();
    const beforeKill = slowHits(mine).length;
    // The bound (docs/durability.md "What a crash repeats"): the activity checkpoints after a
    // top-level node at most every second and the worker sends at most one heartbeat a second, so
    // the last checkpoint Temporal holds is at most ~2 s (and a node) old; a retry repeats the
    // nodes since it and the node under way. Requests the target saw in the 3 s before the kill,
    // plus the one in flight, bound that with room for a loaded machine.
    const recent = slowHits(mine).filter((h) => h.at >= killedAt - 3000).length;
    spawnWorker();

    const run = await waitForRun(app, runId, 90_000);
    expect(run, JSON.stringify(run)).to.include({ status: 'completed', result: 'passed' });
    const [tc] = (await results(runId)).details.testCases;
    expect(tc).to.include({ status: 'passed', attempts: 2, assertions: 40, passedAssertions: 40 });
    // Each node's own result, in order: its request, and its assertion on the answer's `i`.
    expect(
      tc.nodes.map(
        (n: Json) => `${n.id}:${n.status}:${/i=(\d+)$/.exec(n.request?.url)?.[1]}:${n.assertions?.[0]?.actual}`,
      ),
    ).to.deep.equal(Array.from({ length: 40 }, (_, k) => `s${k + 1}:passed:${k + 1}:${k + 1}`));

    const hits = slowHits(mine);
    const executions = hits.map((h) => h.execution!);
    // Each node execution's id from the tree (docs/durability.md "Node execution ids"): exactly
    // the 40 nodes', a repeated node carrying the same one.
    expect([...new Set(executions)].sort()).to.deep.equal(
      Array.from({ length: 40 }, (_, k) => `${runId}/0/s${k + 1}`).sort(),
    );
    const repeated = hits.length - 40;
    expect(repeated, `${beforeKill} requests before the kill`).to.be.at.least(0);
    expect(repeated, `repeated ${repeated}, ${recent} in the 3 s before the kill`).to.be.at.most(recent + 1);
    // The retry resumed rather than restarting: not all requests before the kill were sent again.
    expect(
      repeated,
      `resumed at a checkpoint: fewer than the ${beforeKill} requests before the kill sent again`,
    ).to.be.lessThan(beforeKill);
  });

  it('a run cancelled mid test case ends promptly, and the target stops receiving its requests', async () => {
    await createRunner('cancel', [{ name: 'sixty', flow: slowNodes(60, 100) }]);
    if (workers.every((w) => w.child.exitCode !== null || w.child.signalCode !== null)) spawnWorker();
    const runId = await startRun('cancel');
    const mine = ofRun(runId);
    await eventually(async () => slowHits(mine).length >= 5, 60_000, 10);
    const cancelledAt = Date.now();
    const cancel = await app.request('POST', `/v1/runs/${runId}/cancel`);
    expect(cancel.status).to.equal(202);
    const atCancel = slowHits(mine).length;
    const run = await eventually(
      async () => {
        const r = (await app.request('GET', `/v1/runs/${runId}`)).body;
        return r.status === 'failed' || r.status === 'completed' ? r : undefined;
      },
      10_000,
      50,
    );
    expect(Date.now() - cancelledAt, 'ended within 5 s of the cancel').to.be.lessThan(5000);
    expect(run).to.include({ status: 'failed', error: 'Run cancelled' });
    // The activity learns of the cancel in the answer to a heartbeat: it heartbeats every second and
    // the worker sends one at most every second (docs/durability.md "The same surfaces"), so its
    // requests stop within ~2 s of the cancel: at 100 ms a request, at most ~20 more, none later
    // than 3 s (room for a loaded machine).
    const endedAt = Date.now();
    await eventually(async () => Date.now() - endedAt > 3000, 5000, 100);
    const after = slowHits(mine).filter((h) => h.at > cancelledAt);
    expect(
      after.length,
      `requests after the cancel (${slowHits(mine).length - atCancel} after its answer)`,
    ).to.be.at.most(25);
    expect(
      after.filter((h) => h.at > cancelledAt + 3000),
      'requests over 3 s after the cancel',
    ).to.deep.equal([]);
  });

  it('a run timed out mid test case fails as timed out with the test case interrupted, as in the node mode', async () => {
    // 80 × 100 ms: ~8 s, against a 3 s timeout.
    await createRunner('timeout', [{ name: 'eighty', flow: slowNodes(80, 100) }]);
    if (workers.every((w) => w.child.exitCode !== null || w.child.signalCode !== null)) spawnWorker();
    const outcome = async (durability: 'node' | 'testCase') => {
      const runId = await startRun('timeout', { timeout: 3, durability });
      const run = await waitForRun(app, runId, 30_000);
      return { run, results: await results(runId) };
    };
    const [tc, node] = [await outcome('testCase'), await outcome('node')];
    for (const { run, results: r } of [tc, node]) {
      expect(run).to.include({ status: 'failed', error: 'Run timed out after 3 s' });
      expect(r.summary).to.deep.equal({ total: 1, passed: 0, failed: 1, skipped: 0 });
    }
    const [a, b] = [tc.results.details.testCases[0], node.results.details.testCases[0]];
    // The wording of runs.test.ts "ends a run that outlives its timeout".
    expect(b).to.include({ status: 'failed', error: 'Interrupted: Run timed out after 3 s' });
    expect(a).to.include({ status: b.status, error: b.error });
    // The whole interrupted result alike (no node listed in either mode), its duration aside.
    const { duration: _a, ...restA } = a;
    const { duration: _b, ...restB } = b;
    expect(restA).to.deep.equal(restB);
  });

  it('a Wait node of 30 s holds no activity slot: another run completes on a one-slot worker meanwhile', async () => {
    await stopWorkers();
    spawnWorker({ ASSAY_WORKER_ACTIVITY_SLOTS: '1' });
    await createRunner('waiting', [
      {
        name: 'long wait',
        flow: [
          { type: 'api', id: 'before', request: { method: 'GET', url: '{{base}}/fast' } },
          { type: 'wait', id: 'pause', ms: 30_000 },
          { type: 'api', id: 'after', request: { method: 'GET', url: '{{base}}/fast' } },
        ],
      },
    ]);
    const five = (k: number) =>
      Array.from({ length: 5 }, (_, i) => ({
        type: 'api',
        id: `b${k}_${i + 1}`,
        request: { method: 'GET', url: '{{base}}/fast' },
        assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
      }));
    await createRunner('busy', [
      { name: 'first five', flow: five(1) },
      { name: 'second five', flow: five(2) },
    ]);
    const a = await startRun('waiting');
    // A is in its wait once its workflow has started a timer after its first segment (the run's
    // own timers, e.g. its deadline, may come earlier).
    const handle = (await temporalClient()).workflow.getHandle(`run-${a}`);
    await eventually(
      async () => {
        const events = (await handle.fetchHistory()).events ?? [];
        const segments = new Set(
          events
            .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runTestCaseSegment')
            .map((e) => String(e.eventId)),
        );
        const segmentDone = events.findIndex((e) =>
          segments.has(String(e.activityTaskCompletedEventAttributes?.scheduledEventId)),
        );
        return segmentDone >= 0 && events.slice(segmentDone).some((e) => e.timerStartedEventAttributes);
      },
      60_000,
      100,
    );
    const b = await startRun('busy');
    const runB = await waitForRun(app, b, 25_000);
    expect(runB).to.include({ status: 'completed', result: 'passed' });
    expect(runB.summary).to.deep.equal({ total: 2, passed: 2, failed: 0, skipped: 0 });
    expect((await app.request('GET', `/v1/runs/${a}`)).body.status, 'A still waits').to.equal('running');
    expect(target.hits.filter(ofRun(a)).length, "A's second request not sent yet").to.equal(1);

    expect((await app.request('POST', `/v1/runs/${a}/cancel`)).status).to.equal(202);
    const runA = await waitForRun(app, a, 15_000);
    expect(runA).to.include({ status: 'failed', error: 'Run cancelled' });
  });
});
