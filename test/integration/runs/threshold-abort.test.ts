/**
 * Stopping a performance run on a failing threshold (docs/performance.md "Stopping on a failing
 * threshold"): a real worker on a real Temporal server, a loopback target that slows down after a
 * few seconds, `abortOnFail` with `delayAbortEval` on a windowed threshold (`p(95)<X over 3s`).
 * The threshold watcher (src/perf/watch.ts) sees the window fail; the run ends `failed` with the
 * threshold named in `error`, its figures kept, the threshold marked `aborted` in the results. A
 * run whose windows all hold passes, its windows counted. The worker running the watcher killed
 * (-9): the next attempt counts its windows on from the stored ones and still aborts. Bad `abortOnFail`, `delayAbortEval` and
 * windows are refused naming the field.
 */
import { expect } from 'chai';
import { Worker } from 'node:worker_threads';
import { eventually, startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { processEnv, spawnAssay, type AssayProcess } from '../../helpers/processes';
import { RunLoadControl, RunLoadShard } from '../../../src/store/entities';
import type { ThresholdWindows } from '../../../src/perf/threshold-windows';
import { LoadEngine } from '../../../src/perf/engine';

/** Milliseconds after its first request at which `/slowing` goes from 5 ms to 150 ms. */
const SLOW_AFTER_MS = 6000;

/**
 * The target, on a thread of its own (as test/integration/runs/performance.test.ts's): `/fast`
 * answers after 5 ms; `/slowing` after 5 ms, then 150 ms from {@link SLOW_AFTER_MS} after its
 * first request; `/switch` after 5 ms, then 150 ms once told `{kind: 'slow'}`.
 */
const TARGET_THREAD = `
const http = require('node:http');
const { parentPort } = require('node:worker_threads');
let first = 0;
let slow = false;
const server = http.createServer((req, res) => {
  const path = (req.url || '/').split('?')[0];
  let delay = path === '/switch' && slow ? 150 : 5;
  if (path === '/slowing') {
    if (!first) first = Date.now();
    if (Date.now() - first >= ${SLOW_AFTER_MS}) delay = 150;
  }
  setTimeout(() => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  }, delay);
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
parentPort.on('message', (m) => {
  if (m.kind === 'slow') slow = true;
  if (m.kind === 'close') {
    server.closeAllConnections();
    server.close(() => parentPort.postMessage({ closed: true }));
  }
});
`;

describe('performance runs: stopping on a failing threshold', function () {
  this.timeout(180_000);
  let app: TestApp;
  let thread: Worker;
  let base: string;

  before(async () => {
    thread = new Worker(TARGET_THREAD, { eval: true });
    const port = await new Promise<number>((resolve, reject) => {
      thread.once('message', (m: { port: number }) => resolve(m.port));
      thread.once('error', reject);
    });
    base = `http://127.0.0.1:${port}`;
    app = await startTestApp({ worker: true });
    await app.request('POST', '/v1/environments', { name: 'local', variables: { base } });
    for (const name of ['slowing', 'fast']) {
      const tc = await app.request('POST', '/v1/test-cases', {
        name,
        folder: name,
        flow: [
          {
            type: 'api',
            id: 'get',
            name: `get ${name}`,
            request: { method: 'GET', url: `{{base}}/${name}` },
            assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
          },
        ],
      });
      expect(tc.status, JSON.stringify(tc.body)).to.equal(201);
      expect((await app.request('POST', '/v1/runners', { name, folder: name })).status).to.equal(201);
    }
  });
  after(async () => {
    if (thread) {
      thread.postMessage({ kind: 'close' });
      await new Promise((resolve) => setTimeout(resolve, 100));
      await thread.terminate();
    }
    await app?.stop();
  });

  async function start(runner: string, performance: unknown): Promise<string> {
    const res = await app.request('POST', '/v1/runs', { runner, environment: 'local', timeout: 300, performance });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.runId;
  }

  it('aborts when a window fails (abortOnFail, delayAbortEval): failed naming the threshold, figures kept', async () => {
    const startedAt = Date.now();
    const runId = await start('slowing', {
      executor: 'constant-vus',
      vus: 4,
      duration: '22s',
      gracefulStop: '1s',
      thresholds: {
        http_req_duration: [
          { threshold: 'p(95)<60 over 3s', abortOnFail: true, delayAbortEval: '2s' },
          'max<100000 over 2s',
        ],
        http_req_failed: ['rate<0.5'],
      },
    });
    const run = await waitForRun(app, runId, 120_000);
    const endedAt = Date.now();
    expect(run.status, JSON.stringify(run)).to.equal('failed');
    expect(run.error).to.match(
      /^Threshold http_req_duration p\(95\)<60 over 3s failed at \d+ s \(p\(95\) over the last 3s = [\d.]+ ms\): aborted \(abortOnFail\)$/,
    );
    const doc = (await app.request('GET', `/v1/runs/${runId}/results`)).body;
    const p = doc.performance;
    // Figures kept: the requests before and after the slow-down, the slow ones among them.
    expect(p.requests).to.be.greaterThan(100);
    expect(p.maxResponseTime).to.be.at.least(150);
    const [aborting, roomy, failedRate] = p.thresholds;
    expect(aborting).to.include({
      metric: 'http_req_duration',
      threshold: 'p(95)<60 over 3s',
      passed: false,
      aborted: true,
      abortOnFail: true,
    });
    expect(aborting.actual).to.be.at.least(60);
    // It failed once the target had been slow for a good part of a window: not before the
    // slow-down (6 s into the profile, give or take the shard's start), nor long after it.
    expect(aborting.abortedAtMs).to.be.within(SLOW_AFTER_MS - 1000, SLOW_AFTER_MS + 8000);
    expect(aborting.window).to.include({ durationMs: 3000 });
    expect(aborting.window.failed).to.be.at.least(1);
    expect(roomy).to.include({ threshold: 'max<100000 over 2s', passed: true });
    expect(roomy.window.evaluated).to.be.at.least(3);
    expect(roomy.window.failed).to.equal(0);
    expect(failedRate).to.include({ threshold: 'rate<0.5', passed: true });
    expect(failedRate).to.not.have.property('window');
    // The workflow stopped the load by a `threshold` command carrying the abort.
    const control = await app.dataSource.getRepository(RunLoadControl).findOneByOrFail({ runId });
    expect(control.state.stopped).to.equal(true);
    expect(control.state.abort?.message).to.equal(run.error);
    expect(control.state.commands.at(-1)).to.include({ action: 'stop', by: 'threshold' });
    // Shards that apply a stop command (LoadEngine.applyControl, live control) end the load well
    // before the profile's 22 s; before they do, the load runs its profile out and the run still
    // ends failed as above.
    if ('applyControl' in LoadEngine.prototype) {
      expect(p.loadDurationMs).to.be.below(18_000);
      expect(endedAt - startedAt).to.be.below(22_000);
    }
  });

  it('passes when every window holds, counting its windows', async () => {
    const runId = await start('fast', {
      executor: 'constant-vus',
      vus: 2,
      duration: '5s',
      gracefulStop: '1s',
      thresholds: {
        http_req_duration: [{ threshold: 'p(95)<1000 over 2s', abortOnFail: true }],
        'http_reqs{name:get fast}': [{ threshold: 'count>1', abortOnFail: true, delayAbortEval: '1s' }],
      },
    });
    const run = await waitForRun(app, runId, 90_000);
    expect(run.status, JSON.stringify(run)).to.equal('completed');
    expect(run.result).to.equal('passed');
    const p = (await app.request('GET', `/v1/runs/${runId}/results`)).body.performance;
    expect(p.thresholds[0]).to.include({ threshold: 'p(95)<1000 over 2s', passed: true, abortOnFail: true });
    expect(p.thresholds[0].window.evaluated).to.be.at.least(1);
    expect(p.thresholds[0].window.failed).to.equal(0);
    expect(p.thresholds[0]).to.not.have.property('aborted');
    expect(p.thresholds[1]).to.include({ metric: 'http_reqs{name:get fast}', passed: true, abortOnFail: true });
  });

  it('refuses bad abortOnFail, delayAbortEval and windows naming the field', async () => {
    const res = await app.request('POST', '/v1/runs', {
      runner: 'fast',
      environment: 'local',
      performance: {
        executor: 'constant-vus',
        vus: 1,
        duration: '5s',
        thresholds: {
          http_req_duration: [
            { threshold: 'p(95)<300', delayAbortEval: '10s' },
            { threshold: 'p(95)<300', abortOnFail: 'yes' },
            { threshold: 'p(95)<300', abortOnFail: true, delayAbortEval: 'soon' },
            'p(95)<300 over 20m',
          ],
          checks: [{ threshold: 'rate>0.9', abortOnFail: true, window: '30s' }],
        },
      },
    });
    expect(res.status).to.equal(400);
    expect(res.body.errors.map((e: any) => e.field)).to.have.members([
      'performance.thresholds.http_req_duration[0].delayAbortEval',
      'performance.thresholds.http_req_duration[1].abortOnFail',
      'performance.thresholds.http_req_duration[2].delayAbortEval',
      'performance.thresholds.http_req_duration[3]',
      'performance.thresholds.checks[0].window',
    ]);
    const detail = Object.fromEntries(res.body.errors.map((e: any) => [e.field, e.detail]));
    expect(detail['performance.thresholds.http_req_duration[0].delayAbortEval']).to.match(
      /only with "abortOnFail": true/,
    );
    expect(detail['performance.thresholds.http_req_duration[3]']).to.match(/must be 1s to 10m/);
  });

  describe('with the watcher’s worker killed (-9)', () => {
    let procApp: TestApp;
    const workers: AssayProcess[] = [];
    before(async () => {
      // No in-process worker: the run, its shard and its watcher run in child processes.
      procApp = await startTestApp();
      await procApp.request('POST', '/v1/environments', { name: 'local', variables: { base } });
      const tc = await procApp.request('POST', '/v1/test-cases', {
        name: 'switch',
        folder: 'switch',
        flow: [{ type: 'api', id: 'get', request: { method: 'GET', url: '{{base}}/switch' } }],
      });
      expect(tc.status, JSON.stringify(tc.body)).to.equal(201);
      await procApp.request('POST', '/v1/runners', { name: 'switch', folder: 'switch' });
    });
    after(async () => {
      await Promise.all(workers.map((w) => w.kill()));
      await procApp?.stop();
    });
    const worker = () => {
      const w = spawnAssay('worker', processEnv(procApp));
      workers.push(w);
      return w;
    };
    const windowsOf = async (runId: string) =>
      (await procApp.dataSource.getRepository(RunLoadControl).findOneBy({ runId }))?.windows as
        ThresholdWindows | null | undefined;

    it('a restarted watcher keeps its windows and still aborts', async () => {
      const a = worker();
      const res = await procApp.request('POST', '/v1/runs', {
        runner: 'switch',
        environment: 'local',
        timeout: 300,
        performance: {
          executor: 'constant-vus',
          vus: 2,
          duration: '40s',
          gracefulStop: '1s',
          thresholds: { http_req_duration: [{ threshold: 'p(95)<60 over 2s', abortOnFail: true }] },
        },
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      const runId = res.body.runId;
      // Windows evaluated by the first watcher, then its worker (the run's, the shard's) killed.
      const before = await eventually(
        async () => {
          const w = await windowsOf(runId);
          return w && w.tracks[0]!.evaluated >= 2 ? w : undefined;
        },
        60_000,
        200,
      );
      await a.kill();
      const killed = (await windowsOf(runId))!; // the last the dead watcher wrote
      expect(killed.tracks[0]!.evaluated).to.be.at.least(before.tracks[0]!.evaluated);
      worker();
      // The next attempt carries the windows on: its first write counts on from the last one (a
      // watcher starting afresh would write 1).
      const resumed = await eventually(
        async () => {
          const w = await windowsOf(runId);
          return w && w.atMs > killed.atMs ? w : undefined;
        },
        60_000,
        200,
      );
      expect(resumed.tracks[0]!.evaluated).to.equal(killed.tracks[0]!.evaluated + 1);
      expect(resumed.tracks[0]!.failed).to.equal(0);
      const shard = await procApp.dataSource.getRepository(RunLoadShard).findOneByOrFail({ runId, shard: 0 });
      expect(shard.attempt).to.be.greaterThan(1);
      thread.postMessage({ kind: 'slow' });
      const run = await waitForRun(procApp, runId, 120_000);
      expect(run.status, JSON.stringify(run)).to.equal('failed');
      expect(run.error).to.match(/^Threshold http_req_duration p\(95\)<60 over 2s failed at \d+ s/);
      const p = (await procApp.request('GET', `/v1/runs/${runId}/results`)).body.performance;
      expect(p.thresholds[0]).to.include({ aborted: true, passed: false });
      expect(p.thresholds[0].window.evaluated).to.be.greaterThan(resumed.tracks[0]!.evaluated - 1);
      expect(p.thresholds[0].abortedAtMs).to.be.greaterThan(resumed.atMs);
    });
  });
});
