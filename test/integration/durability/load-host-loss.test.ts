/**
 * Durability of a performance run's load against a lost load host (docs/performance.md "Durability:
 * what a crash looks like"): two load hosts (`main.js worker` with `ASSAY_LOAD_ONLY`, one shard
 * each, two load threads) poll the load task queue, a third process runs the workflows; the host
 * that runs the shard of a `constant-vus` run is killed (-9) mid-run while the other stays up. The
 * shard's attempt is lost after its heartbeat timeout (workflows/performance.ts
 * LOAD_HEARTBEAT_TIMEOUT, 2 s), its next attempt starts on the other host about 100 ms later and
 * resumes from the last heartbeat without warming its threads up again (activities/load-thread.ts).
 *
 * Asserted from the arrival time of every request at a loopback target: the longest stretch
 * without a request is well under the 10 s the heartbeat timeout used to be (a bound loose enough
 * for a busy 2-core machine; the measured figure is logged), the run completes, and nothing is
 * counted twice — the run's `requests` is at most what the target received, and what it misses is
 * at most what the killed host sent after its last heartbeat's checkpoint (bounded by the requests
 * of the last 3.5 s before the kill: that heartbeat is under the 2 s timeout old, or the attempt
 * would already have been lost, and the threads' state in it up to a second older).
 */
import { expect } from 'chai';
import { eventually, startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { processEnv, spawnAssay, type AssayProcess } from '../../helpers/processes';
import { startRecorder, type Recorder } from '../../helpers/recorder';
import { recordHistory, temporalClient } from '../../helpers/temporal';
import { RunLoadShard } from '../../../src/store/entities';
import { pollerPids } from '../../../src/temporal/pollers';
import { LOAD_TASK_QUEUE_SUFFIX } from '../../../src/domain/run-workflow';

/** Epoch ms of the arrivals in `[from, to]`. */
const within = (arrivals: number[], from: number, to: number) => arrivals.filter((t) => t >= from && t <= to);

describe('a load host killed (-9) mid-run', function () {
  this.timeout(120_000);
  let app: TestApp;
  let target: Recorder;
  const children: AssayProcess[] = [];

  before(async () => {
    // No worker in this process: the workflows and the load run in child processes.
    [app, target] = await Promise.all([startTestApp(), startRecorder()]);
    await app.request('POST', '/v1/environments', { name: 'local', variables: { base: target.url } });
    const tc = await app.request('POST', '/v1/test-cases', {
      name: 'paced',
      folder: 'paced',
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
    expect((await app.request('POST', '/v1/runners', { name: 'paced', folder: 'paced' })).status).to.equal(201);
  });
  after(async () => {
    await Promise.all(children.map((c) => c.kill()));
    await target?.close();
    await app?.stop();
  });

  const spawn = (env: Record<string, string>): AssayProcess => {
    const child = spawnAssay('worker', processEnv(app, env));
    children.push(child);
    return child;
  };

  it('loses seconds, not a heartbeat timeout: another host resumes the shard, nothing is counted twice', async () => {
    spawn({ ASSAY_LOAD_SHARDS_PER_WORKER: '0', ASSAY_LOG_LEVEL: 'warn' });
    // Two load threads: the resumed attempt starts threads, which skip their warm-up (activities/load-thread.ts).
    const loadHost = { ASSAY_LOAD_ONLY: 'true', ASSAY_LOAD_SHARDS_PER_WORKER: '1', ASSAY_LOAD_THREADS: '2' };
    const hosts = [spawn(loadHost), spawn(loadHost)];
    // Both load hosts poll the load task queue before the run starts: the survivor is there to take over.
    const { workflowService } = await temporalClient();
    const { namespace, taskQueue } = app.config.temporal;
    await eventually(
      async () => {
        const pids = await pollerPids(workflowService, {
          namespace,
          taskQueue: `${taskQueue}${LOAD_TASK_QUEUE_SUFFIX}`,
        });
        return hosts.every((h) => pids.has(h.child.pid!));
      },
      60_000,
      200,
    );

    const res = await app.request('POST', '/v1/runs', {
      runner: 'paced',
      environment: 'local',
      timeout: 300,
      performance: { executor: 'constant-vus', vus: 4, duration: '12s' },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    const runId: string = res.body.runId;
    const shardRow = () => app.dataSource.getRepository(RunLoadShard).findOneBy({ runId, shard: 0 });
    // Two seconds or so into the 12 s profile, right after a snapshot (taken with each heartbeat, a
    // second apart): kill the host running it. Right after a heartbeat is the worst moment for the gap.
    const running = await eventually(
      async () => {
        const row = await shardRow();
        return row && row.metrics.all.requests > 200 ? row : undefined;
      },
      60_000,
      100,
    );
    const victim = hosts.find((h) => running.worker.startsWith(`${h.child.pid}@`));
    expect(victim, running.worker).to.not.equal(undefined);
    const survivor = hosts.find((h) => h !== victim)!;
    await victim!.kill();
    // The process is gone: what it sent has arrived, or is at most read a moment later (see lostBound).
    const killedAt = Date.now();

    const run = await waitForRun(app, runId, 90_000);
    expect(run.status, JSON.stringify(run)).to.equal('completed');
    await recordHistory('load-host-loss', `run-${runId}`);
    const resumed = (await shardRow())!;
    expect(resumed.attempt).to.be.greaterThan(1);
    expect(resumed.worker.startsWith(`${survivor.child.pid}@`), resumed.worker).to.equal(true);

    const arrivals = target.hits.filter((h) => h.path === '/slow').map((h) => h.at);
    arrivals.sort((a, b) => a - b);
    const gaps = arrivals.slice(1).map((t, i) => ({ from: arrivals[i]!, to: t }));
    const longest = gaps.reduce((a, b) => (b.to - b.from > a.to - a.from ? b : a));
    const lastBefore = within(arrivals, 0, killedAt).at(-1)!;
    const firstAfter = arrivals.find((t) => t > killedAt)!;
    expect(firstAfter, 'a request after the kill').to.not.equal(undefined);
    const resumedLog = survivor
      .output()
      .split('\n')
      .find((l) => l.includes('resuming load shard from its last heartbeat'));
    const p = (await app.request('GET', `/v1/runs/${runId}/results`)).body.performance;
    // The killed host's last 3.5 s: its last heartbeat Temporal took is under the 2 s timeout old, the
    // threads' state in it up to a second older (they post it every second: activities/load.ts), and
    // 0.5 s of slack; plus 100 ms after the kill for requests read late (the next attempt cannot send
    // before the timeout).
    const lostBound = within(arrivals, killedAt - 3500, killedAt + 100).length;
    // The survivor's log line is written a little after the attempt started (to within ~0.1 s).
    const resumedAt = resumedLog ? (JSON.parse(resumedLog) as { time: number }).time : undefined;
    console.log(
      `load host lost: longest gap between requests ${longest.to - longest.from} ms; ` +
        `last request before the kill ${killedAt - lastBefore} ms before it, first after it ${firstAfter - killedAt} ms after` +
        (resumedAt ? ` (the survivor logged the resumed attempt ${resumedAt - killedAt} ms after the kill)` : '') +
        `; the target received ${arrivals.length} requests, the run counted ${p.requests} (lost at most ${lostBound})`,
    );
    // The 10 s heartbeat timeout of before left a gap of 10 s or more (14.7 s measured with the 1 s
    // first retry and the warm-up); now 2.0–3.4 s with two threads on a 2-core machine, busy or not
    // (docs/performance.md "Durability: what a crash looks like").
    expect(longest.to - longest.from, 'longest gap (ms)').to.be.below(6000);
    expect(firstAfter - lastBefore, 'gap at the kill (ms)').to.be.below(6000);

    // Nothing counted twice; what is missing is what the killed host sent after its last heartbeat.
    expect(p.requests).to.be.at.most(arrivals.length);
    expect(arrivals.length - p.requests, `lost (at most ${lostBound})`).to.be.at.most(lostBound);
  });
});
