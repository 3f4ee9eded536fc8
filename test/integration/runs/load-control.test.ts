/**
 * Steering a running performance run (docs/performance.md "Steering a running test"): pause,
 * resume, scale and stop through `POST /v1/runs/{id}/control`, across two shards on two worker
 * processes, one of them killed (-9) right after a command. Each command is in effect on every
 * shard within 2 s (the shards' snapshots say which command they applied and when; the target's
 * request count says the same), the killed shard's next attempt continues in the commanded state,
 * and the run records who did what when. Bad commands are refused naming the field (400) or the
 * reason (409).
 */
import { expect } from 'chai';
import { eventually, startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { processEnv, spawnAssay, type AssayProcess } from '../../helpers/processes';
import { startTarget, type Target } from '../../helpers/target';
import { RunLoadShard } from '../../../src/store/entities';
import type { ShardControl } from '../../../activities/load';
import { runCli } from '../../helpers/cli';

/** A command reaches every shard within this (the bound), ms. */
const EFFECTIVE_MS = 2000;

describe('steering a performance run (pause, resume, scale, stop)', function () {
  this.timeout(180_000);
  let app: TestApp;
  let target: Target;
  const workers: AssayProcess[] = [];

  before(async () => {
    // No in-process worker: the load runs in child processes, one shard each, that the test kills.
    [app, target] = await Promise.all([startTestApp(), startTarget()]);
    await app.request('POST', '/v1/environments', { name: 'local', variables: { base: target.url } });
    for (const name of ['slow', 'functional']) {
      const tc = await app.request('POST', '/v1/test-cases', {
        name,
        folder: name,
        flow: [
          {
            type: 'api',
            id: 'get',
            request: { method: 'GET', url: '{{base}}/slow?ms=20' },
            assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
          },
        ],
      });
      expect(tc.status, JSON.stringify(tc.body)).to.equal(201);
      expect((await app.request('POST', '/v1/runners', { name, folder: name })).status).to.equal(201);
    }
  });
  after(async () => {
    await Promise.all(workers.map((w) => w.kill()));
    await target?.close();
    await app?.stop();
  });

  const worker = () => {
    const w = spawnAssay('worker', processEnv(app, { ASSAY_LOAD_SHARDS_PER_WORKER: '1', ASSAY_LOG_LEVEL: 'warn' }));
    workers.push(w);
    return w;
  };
  const shards = async (runId: string) =>
    (await app.dataSource.getRepository(RunLoadShard).findBy({ runId })).sort((a, b) => a.shard - b.shard);
  const controlOf = (row: RunLoadShard) => (row.position as { control?: ShardControl }).control;
  const hits = () => target.hits.get('/slow') ?? 0;
  const command = async (runId: string, body: Record<string, unknown>) => {
    const sentAt = Date.now();
    const res = await app.request('POST', `/v1/runs/${runId}/control`, body);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return { sentAt, control: res.body.control };
  };
  /** Waits until every shard's stored snapshot shows command `seq` applied; answers the latest apply time. */
  const appliedEverywhere = async (runId: string, seq: number, sentAt: number, within = EFFECTIVE_MS) => {
    const rows = await eventually(
      async () => {
        const r = await shards(runId);
        return r.length === 2 && r.every((s) => (controlOf(s)?.seq ?? 0) >= seq) ? r : undefined;
      },
      within + 3000, // a snapshot is written every second after the shard applied the command
      100,
    );
    const latency = Math.max(...rows.map((s) => controlOf(s)!.appliedAt - sentAt));
    expect(latency, `command ${seq} applied ${latency} ms after it was sent`).to.be.at.most(within);
    return rows;
  };

  it('pauses across two shards, a worker killed (-9) right after: the resumed shard stays paused; resume, scale and stop take effect within 2 s', async () => {
    const [a] = [worker(), worker()];
    const res = await app.request('POST', '/v1/runs', {
      runner: 'slow',
      environment: 'local',
      timeout: 600,
      performance: { executor: 'constant-vus', vus: 2, duration: '60s', shards: 2, thinkTime: '30ms' },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    const runId = res.body.runId;
    const rows = await eventually(
      async () => {
        const r = await shards(runId);
        return r.length === 2 && r.every((s) => s.metrics.all.requests > 10) ? r : undefined;
      },
      60_000,
      200,
    );
    expect(new Set(rows.map((r) => r.worker)).size, 'the shards run on two processes').to.equal(2);
    const victim = rows.find((r) => r.worker.startsWith(`${a!.child.pid}@`))!;

    // Pause, then kill the worker of one shard at once.
    const pause = await command(runId, { action: 'pause', reason: 'deploying the database' });
    expect(pause.control).to.include({ seq: 1, paused: true, stopped: false });
    await a!.kill();
    worker(); // takes the lost shard over once its heartbeat times out (2 s, workflows/performance.ts)

    // The surviving shard applied it within 2 s; the target sees no request from then on.
    const survivor = (await shards(runId)).find((s) => s.shard !== victim.shard)!;
    await eventually(async () => {
      const row = (await shards(runId)).find((s) => s.shard === survivor.shard)!;
      return (controlOf(row)?.seq ?? 0) >= 1 ? row : undefined;
    }, 5000);
    const applied = controlOf((await shards(runId)).find((s) => s.shard === survivor.shard)!)!;
    expect(applied.appliedAt - pause.sentAt).to.be.at.most(EFFECTIVE_MS);
    expect(applied.paused).to.equal(true);
    const wait = pause.sentAt + EFFECTIVE_MS - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const pausedHits = hits();
    const live = (await app.request('GET', `/v1/runs/${runId}`)).body;
    expect(live.performance.state).to.equal('paused');
    expect(live.performance.control.commands.map((c: { action: string }) => c.action)).to.deep.equal(['pause']);

    // The killed shard's next attempt resumes paused: no request, its profile clock still.
    const resumed = await eventually(
      async () => {
        const row = (await shards(runId)).find((s) => s.shard === victim.shard)!;
        return row.attempt > 1 && (controlOf(row)?.seq ?? 0) >= 1 ? row : undefined;
      },
      60_000,
      200,
    );
    expect(controlOf(resumed)!.paused).to.equal(true);
    const clock = resumed.position.elapsedMs;
    await new Promise((r) => setTimeout(r, 1500));
    const later = (await shards(runId)).find((s) => s.shard === victim.shard)!;
    expect(later.position.elapsedMs - clock, 'the paused profile clock stands still').to.be.at.most(100);
    expect(hits(), 'no request while paused, through the kill and the resumed attempt').to.equal(pausedHits);
    const series = later.metrics.series;
    expect(
      series.some((p) => p.vus === 0 && p.requests === 0),
      'the pause shows in the series',
    ).to.equal(true);

    // Resume: both shards send again within 2 s.
    const resume = await command(runId, { action: 'resume' });
    expect(resume.control).to.include({ seq: 2, paused: false });
    await appliedEverywhere(runId, 2, resume.sentAt);
    const afterResume = await shards(runId);
    await eventually(async () => {
      const now = await shards(runId);
      return now.every((s, i) => s.metrics.all.requests > afterResume[i]!.metrics.all.requests + 3);
    }, 5000);

    // Scale to 6 VUs (3 per shard) from now to the end.
    const scale = await command(runId, { action: 'scale', vus: 6 });
    expect(scale.control).to.include({ seq: 3, vus: 6 });
    await appliedEverywhere(runId, 3, scale.sentAt);
    await eventually(async () => {
      const now = await shards(runId);
      return now.map((s) => s.activeVUs).join(',') === '3,3';
    }, 4000);

    // Stop: the run ends early, completed, its figures kept, the commands recorded.
    const stop = await command(runId, { action: 'stop', reason: 'enough' });
    expect(stop.control).to.include({ seq: 4, stopped: true });
    const run = await waitForRun(app, runId, 30_000);
    expect(run.status, JSON.stringify(run)).to.equal('completed');
    expect(Date.now() - stop.sentAt).to.be.below(15_000);
    const results = (await app.request('GET', `/v1/runs/${runId}/results`)).body;
    expect(results.performance.requests).to.be.greaterThan(50);
    const commands = results.performance.control.commands;
    expect(commands.map((c: { seq: number; action: string }) => `${c.seq} ${c.action}`)).to.deep.equal([
      '1 pause',
      '2 resume',
      '3 scale',
      '4 stop',
    ]);
    for (const c of commands) {
      expect(c.by).to.match(/^key:/);
      expect(Number.isNaN(Date.parse(c.at)), c.at).to.equal(false);
    }
    expect(commands[0].reason).to.equal('deploying the database');
    expect(commands[2].vus).to.equal(6);

    // After the end: 409, the run not controllable any more.
    const late = await app.request('POST', `/v1/runs/${runId}/control`, { action: 'pause' });
    expect(late.status).to.equal(409);
    expect(late.body.code).to.equal('run-not-controllable');
  });

  it('refuses bad commands naming the field (400), and commands to runs that take none (409, 404)', async () => {
    const w = worker();
    const res = await app.request('POST', '/v1/runs', {
      runner: 'slow',
      environment: 'local',
      timeout: 600,
      performance: { executor: 'constant-vus', vus: 1, duration: '30s', thinkTime: '50ms' },
    });
    const runId = res.body.runId;
    await eventually(async () => (await shards(runId)).length === 1, 60_000, 200);
    const ask = (body: unknown) => app.request('POST', `/v1/runs/${runId}/control`, body);
    const field = async (body: unknown, name: string) => {
      const r = await ask(body);
      expect(r.status, JSON.stringify(r.body)).to.equal(400);
      expect(r.body.code).to.equal('validation-failed');
      expect(r.body.errors.map((e: { field: string }) => e.field)).to.include(name);
    };
    await field({ action: 'jump' }, 'action');
    await field({ action: 'scale', vus: -1 }, 'vus');
    await field({ action: 'scale', vus: 1.5 }, 'vus');
    await field({ action: 'scale', rate: 10 }, 'rate'); // a VU executor is scaled by vus
    await field({ action: 'scale' }, 'vus');
    await field({ action: 'pause', vus: 3 }, 'vus');
    await field({ action: 'pause', reason: 'x'.repeat(201) }, 'reason');
    expect(
      (await app.request('POST', '/v1/runs/run_00000000000000000000000000/control', { action: 'pause' })).status,
    ).to.equal(404);

    // The CLI: `assay run scale|pause|stop RUN_ID`, usage errors before any request.
    const cli = (...args: string[]) => runCli(['run', ...args], { app, timeoutMs: 30_000 });
    const scaled = await cli('scale', runId, '--vus', '3', '--reason', 'more');
    expect(scaled.code, scaled.stderr).to.equal(0);
    expect(scaled.stdout.trim()).to.equal('running (vus 3)');
    const both = await cli('scale', runId, '--vus', '3', '--rate', '2');
    expect(both.code).to.equal(2);
    expect(both.stderr).to.match(/one of --vus or --rate/);
    const wrong = await cli('scale', runId, '--rate', '2'); // the API's 400 naming `rate`
    expect(wrong.code).to.equal(2);
    expect(wrong.stderr).to.match(/rate/);
    const paused = await cli('pause', runId);
    expect([paused.code, paused.stdout.trim()]).to.deep.equal([0, 'paused (vus 3)']);

    // Stopping: a second stop, or any command after it, is 409.
    const stopped = await cli('stop', runId);
    expect([stopped.code, stopped.stdout.trim()]).to.deep.equal([0, 'stopping (vus 3)']);
    const again = await ask({ action: 'resume' });
    expect(again.status).to.equal(409);
    expect(again.body.code).to.equal('run-not-controllable');
    expect(again.body.detail).to.match(/stopping/);
    await waitForRun(app, runId, 30_000);

    // A functional run has no load to steer.
    const functional = await app.request('POST', '/v1/runs', { runner: 'functional', environment: 'local' });
    const f = await app.request('POST', `/v1/runs/${functional.body.runId}/control`, { action: 'pause' });
    expect(f.status).to.equal(409);
    expect(f.body.code).to.equal('run-not-controllable');
    await waitForRun(app, functional.body.runId, 30_000);
    await w.kill();
  });
});
