/**
 * A parallel run survives its worker (docs/parallel.md "Durability"): a worker process killed (-9)
 * while 16 test cases are under way, another started; in both durability modes the run completes
 * with exactly one result per test case, in the runner's order, each with every node's result, and
 * the target received no more repeats than each mode promises (docs/durability.md "What a crash
 * repeats"): in the `node` mode at most the node under way of each test case, in the `testCase`
 * mode at most the nodes since each test case's last checkpoint (about two seconds' worth) and the
 * one under way. The histories are recorded for the replay test (`make record-histories`).
 */
import { expect } from 'chai';
import { eventually, startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { processEnv, spawnAssay, type AssayProcess } from '../../helpers/processes';
import { startRecorder, type Recorder } from '../../helpers/recorder';
import { recordHistory } from '../../helpers/temporal';

type Json = Record<string, any>;

const CASES = 16;
const NODES = 8;

describe('parallel runs: a worker killed (-9) with 16 test cases under way', function () {
  this.timeout(180_000);
  let app: TestApp;
  let target: Recorder;
  const workers: AssayProcess[] = [];
  const spawnWorker = () => {
    const w = spawnAssay('worker', processEnv(app, { ASSAY_LOG_LEVEL: 'warn' }));
    workers.push(w);
    return w;
  };

  before(async () => {
    [app, target] = await Promise.all([startTestApp(), startRecorder()]);
    await app.request('POST', '/v1/environments', { name: 'local', variables: { base: target.url } });
    for (let c = 0; c < CASES; c++) {
      const res = await app.request('POST', '/v1/test-cases', {
        name: `case ${String(c).padStart(2, '0')}`,
        folder: 'crash-parallel',
        flow: Array.from({ length: NODES }, (_, k) => ({
          type: 'api',
          id: `n${k}`,
          request: { method: 'GET', url: `{{base}}/slow?ms=200&i=${c}-${k}`, timeoutMs: 10_000 },
          assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
        })),
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
    }
    const runner = await app.request('POST', '/v1/runners', {
      name: 'crash-parallel',
      folder: 'crash-parallel',
      order: 'createdAt',
      concurrency: CASES,
    });
    expect(runner.status, JSON.stringify(runner.body)).to.equal(201);
  });
  after(async () => {
    for (const w of workers) await w.kill();
    await target?.close();
    await app?.stop();
  });

  for (const durability of ['node', 'testCase'] as const) {
    it(`${durability} mode: every test case has one result, in order, with every node; repeats within the mode's bound`, async () => {
      const first = spawnWorker();
      const res = await app.request('POST', '/v1/runs', { runner: 'crash-parallel', environment: 'local', durability });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      const runId = res.body.runId as string;
      const mine = () => target.hits.filter((h) => h.execution?.startsWith(`${runId}/`));
      // Most test cases under way and a few nodes into each.
      await eventually(async () => mine().length >= CASES * 3, 60_000, 10);
      const underWay = new Set(mine().map((h) => h.execution!.split('/')[1])).size;
      const killedAt = Date.now();
      await first.kill();
      const beforeKill = mine().length;
      const recent = mine().filter((h) => h.at >= killedAt - 3000).length;
      spawnWorker();

      const run = await waitForRun(app, runId, 120_000);
      expect(run, JSON.stringify(run)).to.include({ status: 'completed', result: 'passed' });
      const doc = (await app.request('GET', `/v1/runs/${runId}/results`)).body;
      expect(doc.details.testCases.map((t: Json) => t.name)).to.deep.equal(
        Array.from({ length: CASES }, (_, c) => `case ${String(c).padStart(2, '0')}`),
      );
      for (const tc of doc.details.testCases as Json[]) {
        expect(tc.status, tc.name).to.equal('passed');
        expect(tc.nodes.map((n: Json) => `${n.id}:${n.status}`)).to.deep.equal(
          Array.from({ length: NODES }, (_, k) => `n${k}:passed`),
        );
      }
      const hits = mine();
      const executions = new Set(hits.map((h) => h.execution!));
      expect(executions.size).to.equal(CASES * NODES);
      const repeated = hits.length - CASES * NODES;
      const context = `${repeated} repeated; ${beforeKill} before the kill, ${recent} in its last 3 s, ${underWay} test cases under way`;
      expect(repeated, context).to.be.at.least(0);
      if (durability === 'node') expect(repeated, context).to.be.at.most(underWay);
      else expect(repeated, context).to.be.at.most(recent + underWay);
      expect(repeated, context).to.be.lessThan(beforeKill);
      for (const w of workers.splice(0)) await w.kill();
      // Test case lanes replayed after a crash (test/integration/runs/replay.test.ts).
      await recordHistory(`parallel-suite-crashed-${durability}`, `run-${runId}`);
    });
  }
});
