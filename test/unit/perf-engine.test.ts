/**
 * Load measurements and the load engine (docs/performance.md "Results", "Thresholds"): percentiles from HDR histograms,
 * exact merges across shards, state that survives a round trip (heartbeats), thresholds deciding
 * pass/fail, a bounded time series; the engine keeping VUs and arrival rates, dropping iterations
 * with no VU free, and resuming from a position.
 *
 * The engine's tests assert what happens, not how fast, so they hold on a busy machine: which
 * iterations run (arrivals each started or dropped, none before its time on the profile clock;
 * a VU's iterations in order), counts, positions, lower bounds on wall time; an iteration the
 * engine must abandon waits on the test, not on a timer racing the engine's.
 */
import { expect } from 'chai';
import { LoadEngine, type VuIterationContext } from '../../src/perf/engine';
import { evaluateThresholds, LoadMetrics, MAX_SERIES_POINTS, performanceResults } from '../../src/perf/metrics';
import { validateProfile, vusAt, type LoadProfile } from '../../src/perf/profile';
import { parseThresholds } from '../../src/perf/thresholds';

const profile = (input: unknown): LoadProfile => {
  const { profile: p, issues } = validateProfile(input);
  expect(issues).to.deep.equal([]);
  return p!;
};
const request = (durationMs: number, status = 200, name = 'get', endedAtMs = 1_700_000_000_000) => ({
  name,
  testCase: 'tc',
  durationMs,
  status,
  bytesSent: 10,
  bytesReceived: 100,
  endedAtMs,
});

describe('load metrics', () => {
  it('gives percentiles of a known distribution (90 % 10 ms, 10 % 100 ms)', () => {
    const m = new LoadMetrics();
    for (let i = 0; i < 1000; i++) m.recordRequest(request(i % 10 === 0 ? 100 : 10));
    const r = performanceResults(m, [], 10_000);
    expect(r.avgResponseTime).to.be.closeTo(19, 0.1);
    expect(r.p95ResponseTime).to.be.closeTo(100, 0.1);
    expect(r.medResponseTime).to.be.closeTo(10, 0.01);
    expect(r.requests).to.equal(1000);
    expect(r.requestsPerSecond).to.equal(100);
    expect(r.dataReceived).to.equal(100_000);
  });

  it('counts failures as k6 does: no response or a status outside 200–399', () => {
    const m = new LoadMetrics();
    for (const status of [200, 302, 399, 400, 500]) m.recordRequest(request(5, status));
    m.recordRequest({ ...request(5), status: undefined });
    expect(performanceResults(m, [], 1000).errorRate).to.equal(3 / 6);
  });

  it('merges shards exactly and survives a round trip through its state', () => {
    const a = new LoadMetrics();
    const b = new LoadMetrics();
    const whole = new LoadMetrics();
    for (let i = 1; i <= 500; i++) {
      a.recordRequest(request(i));
      whole.recordRequest(request(i));
    }
    for (let i = 501; i <= 1000; i++) {
      b.recordRequest(request(i, 200, 'post'));
      whole.recordRequest(request(i, 200, 'post'));
    }
    const merged = new LoadMetrics(JSON.parse(JSON.stringify(a.state())));
    merged.add(new LoadMetrics(JSON.parse(JSON.stringify(b.state()))));
    const [m, w] = [performanceResults(merged, [], 1000), performanceResults(whole, [], 1000)];
    expect(m.p95ResponseTime).to.equal(w.p95ResponseTime);
    expect(m.p99ResponseTime).to.equal(w.p99ResponseTime);
    expect(m.avgResponseTime).to.equal(w.avgResponseTime);
    expect(m.p95ResponseTime).to.be.closeTo(950, 1);
    expect(m.byName.map((n) => [n.name, n.requests])).to.have.deep.members([
      ['get', 500],
      ['post', 500],
    ]);
  });

  it('decides thresholds, per request name too', () => {
    const m = new LoadMetrics();
    for (let i = 0; i < 100; i++) m.recordRequest(request(i < 98 ? 20 : 500, 200, i % 2 ? 'a' : 'b'));
    m.recordChecks('a', 'tc', 99, 100);
    const { thresholds } = parseThresholds({
      http_req_duration: ['p(95)<100', 'p(99)<100', 'max<=500'],
      'http_req_duration{name:a}': ['avg<10'],
      checks: ['rate>0.98'],
      http_req_failed: ['rate<0.01'],
      http_reqs: ['count==100'],
    });
    const outcomes = evaluateThresholds(thresholds, m, 10_000);
    expect(outcomes.map((o) => `${o.metric} ${o.threshold} ${o.passed}`)).to.deep.equal([
      'http_req_duration p(95)<100 true',
      'http_req_duration p(99)<100 false',
      'http_req_duration max<=500 true',
      'http_req_duration{name:a} avg<10 false',
      'checks rate>0.98 true',
      'http_req_failed rate<0.01 true',
      'http_reqs count==100 true',
    ]);
  });

  it('keeps a bounded per-second series whose gaps show when no request ended', () => {
    const m = new LoadMetrics();
    const t0 = 1_700_000_000_000;
    m.recordRequest(request(5, 200, 'get', t0));
    m.recordRequest(request(7, 200, 'get', t0 + 400));
    m.recordRequest(request(9, 500, 'get', t0 + 5000)); // 4 s with nothing: a gap
    const s = m.state().series;
    expect(s.map((p) => p.t)).to.deep.equal([t0 / 1000, t0 / 1000 + 5]);
    expect(s[0]).to.include({ requests: 2, failed: 0 });
    expect(s[0]!.p95).to.be.closeTo(7, 0.01);
    expect(s[1]).to.include({ requests: 1, failed: 1 });
    expect(s[1]!.p95).to.be.closeTo(9, 0.01);
    const long = new LoadMetrics();
    for (let sec = 0; sec < MAX_SERIES_POINTS * 2 + 10; sec++)
      long.recordRequest(request(1, 200, 'get', t0 + sec * 1000));
    const state = long.state();
    expect(state.series.length).to.be.at.most(MAX_SERIES_POINTS);
    expect(state.resolution).to.equal(4);
    expect(state.series.reduce((n, p) => n + p.requests, 0)).to.equal(MAX_SERIES_POINTS * 2 + 10);
  });
});

describe('load engine', function () {
  this.timeout(20_000);

  it('runs constant VUs for the duration, each VU looping with its own iteration count', async () => {
    const seen = new Map<number, Array<{ iteration: number; atMs: number }>>();
    const inIteration = new Set<number>();
    let overlapping = 0;
    const started = Date.now();
    const engine: LoadEngine = new LoadEngine(
      profile({ executor: 'constant-vus', vus: 3, duration: '600ms', gracefulStop: '10s' }),
      0,
      async (ctx: VuIterationContext) => {
        seen.set(ctx.vu, [...(seen.get(ctx.vu) ?? []), { iteration: ctx.iteration, atMs: engine.elapsedMs() }]);
        if (inIteration.has(ctx.vu)) overlapping += 1;
        inIteration.add(ctx.vu);
        await new Promise((r) => setTimeout(r, 50));
        inIteration.delete(ctx.vu);
      },
      { elapsedMs: 0, nextArrival: 0 },
    );
    await engine.run();
    const took = Date.now() - started;
    expect([...seen.keys()].sort()).to.deep.equal([1, 2, 3]);
    // Each VU loops: one iteration after another (never two at once), numbered from 0, each
    // started within the 600 ms; 50 ms each leave room for about 12 (more would not be a loop).
    expect(overlapping).to.equal(0);
    for (const [vu, iterations] of seen) {
      expect(iterations.map((i) => i.iteration)).to.deep.equal(iterations.map((_, i) => i));
      for (const it of iterations) expect(it.atMs, `VU ${vu} iteration ${it.iteration}`).to.be.at.most(600);
      expect(iterations.length).to.be.within(1, 15);
    }
    // For the duration: the profile's 600 ms at least.
    expect(took).to.be.at.least(599);
    expect(engine.position().elapsedMs).to.equal(600);
  });

  it('holds an arrival rate whatever the latency, across shards, and drops iterations with no VU free', async () => {
    const p = profile({
      executor: 'constant-arrival-rate',
      rate: 200,
      duration: '1s',
      preAllocatedVUs: 40,
      shards: 2,
      gracefulStop: '2s',
    });
    // Per shard, in order: each arrival started on a VU or dropped, at the shard's profile time.
    const arrivals: Array<Array<{ vu?: number; atMs: number }>> = [[], []];
    let running = 0;
    let overlapped = 0;
    const shards: LoadEngine[] = [0, 1].map(
      (shard) =>
        new LoadEngine(
          p,
          shard,
          async (ctx) => {
            arrivals[shard]!.push({ vu: ctx.vu, atMs: shards[shard]!.elapsedMs() });
            running += 1;
            overlapped = Math.max(overlapped, running);
            await new Promise((r) => setTimeout(r, 30));
            running -= 1;
          },
          { elapsedMs: 0, nextArrival: 0 },
          { dropped: () => void arrivals[shard]!.push({ atMs: shards[shard]!.elapsedMs() }) },
        ),
    );
    await Promise.all(shards.map((s) => s.run()));
    // Global arrival k at 5·k ms; shard s runs k ≡ s (mod 2) on its own VUs (1, 3, … or 2, 4, …),
    // each started or, when an event-loop stall outlasted the free VUs, dropped: 100 each.
    for (const shard of [0, 1]) {
      const mine = arrivals[shard]!;
      expect(mine, `shard ${shard}`).to.have.length(100);
      mine.forEach((a, j) => {
        const k = shard + 2 * j;
        expect(a.atMs, `arrival ${k}`).to.be.at.least(5 * k - 1);
        if (a.vu !== undefined) expect(a.vu % 2, `VU ${a.vu} of shard ${shard}`).to.equal((shard + 1) % 2);
      });
    }
    const started = arrivals.flat().filter((a) => a.vu !== undefined);
    expect(started.length).to.be.greaterThan(0);
    expect(started.every((a) => a.vu! >= 1 && a.vu! <= 40)).to.equal(true);
    // Not waiting for an iteration to end before the next arrival: iterations (30 ms) ran at once.
    expect(overlapped).to.be.at.least(2);

    // 2 VUs busy 200 ms each: of 50 arrivals in 500 ms about 2 × 3 can start, the rest are dropped.
    let dropped = 0;
    let slowStarted = 0;
    const slow = new LoadEngine(
      profile({
        executor: 'constant-arrival-rate',
        rate: 100,
        duration: '500ms',
        preAllocatedVUs: 2,
        gracefulStop: '1s',
      }),
      0,
      () => ((slowStarted += 1), new Promise((r) => setTimeout(r, 200))),
      { elapsedMs: 0, nextArrival: 0 },
      { dropped: () => (dropped += 1) },
    );
    await slow.run();
    expect(slowStarted + dropped).to.equal(50);
    expect(slowStarted).to.be.at.least(1);
    expect(dropped).to.be.greaterThan(35);
  });

  it('resumes from a position: only the rest of the profile runs', async () => {
    const p = profile({ executor: 'constant-arrival-rate', rate: 100, duration: '1s', preAllocatedVUs: 5 });
    let count = 0;
    let dropped = 0;
    const engine = new LoadEngine(
      p,
      0,
      async () => void (count += 1),
      { elapsedMs: 700, nextArrival: 70 },
      { dropped: () => (dropped += 1) },
    );
    const started = Date.now();
    await engine.run();
    // Arrivals 70–99 and no others: each started or, when the event loop stalled for longer than
    // the 5 VUs cover (50 ms at 100/s; seen on a busy CI machine), dropped as k6 drops them.
    expect(count + dropped).to.equal(30);
    expect(count).to.be.at.least(1);
    // 300 ms of profile were left, not the whole second (count shows that only they ran).
    expect(Date.now() - started).to.be.at.least(250);
    expect(engine.position()).to.deep.equal({ elapsedMs: 1000, nextArrival: 100 });
  });

  it('ramps VUs up and down through the stages', async () => {
    const p = profile({
      executor: 'ramping-vus',
      startVUs: 0,
      stages: [
        { duration: '600ms', target: 6 },
        { duration: '600ms', target: 0 },
      ],
      gracefulRampDown: '0s',
      gracefulStop: '1s',
    });
    // Active VUs at each tick, with the profile time (ms) of the tick.
    const seen: Array<{ active: number; atMs: number }> = [];
    const engine: LoadEngine = new LoadEngine(
      p,
      0,
      () => new Promise((r) => setTimeout(r, 20)),
      { elapsedMs: 0, nextArrival: 0 },
      { vus: (active) => seen.push({ active, atMs: engine.elapsedMs() }) },
    );
    await engine.run();
    const actives = seen.map((s) => s.active);
    const peak = Math.max(...actives);
    const at = actives.indexOf(peak);
    // The peak is what the stages asked at the ticks that came (a busy machine has fewer ticks,
    // one of them nearer 600 ms or not): within one VU of the largest target at those times, never above 6.
    const asked = Math.max(...seen.filter((s) => s.atMs < 1200).map((s) => vusAt(p, s.atMs)));
    expect(peak).to.be.within(Math.max(1, asked - 1), 6);
    expect(actives[0]).to.be.at.most(1);
    expect(actives.at(-1)).to.equal(0);
    // Rising, then falling: no second peak after the descent began.
    expect(actives.slice(0, at).every((v, i, a) => i === 0 || v + 1 >= a[i - 1]!)).to.equal(true);
  });

  it('counts a VU as active while it sleeps its think time, as k6 does', async () => {
    const seen: Array<{ active: number; atMs: number }> = [];
    const engine: LoadEngine = new LoadEngine(
      profile({ executor: 'constant-vus', vus: 2, duration: '1s', thinkTime: '100ms', gracefulStop: '1s' }),
      0,
      () => new Promise((r) => setTimeout(r, 2)),
      { elapsedMs: 0, nextArrival: 0 },
      { vus: (active) => seen.push({ active, atMs: engine.elapsedMs() }) },
    );
    await engine.run();
    // Iterations take 2 ms of every ~102: counting only VUs inside an iteration would report 0
    // nearly always. Within the profile, after its first tick, both VUs are active at every tick.
    const within = seen.slice(1).filter((s) => s.atMs < 1000);
    expect(within.length).to.be.greaterThan(0);
    expect(
      within.every((s) => s.active === 2),
      `active VUs seen: ${JSON.stringify(seen)}`,
    ).to.equal(true);
    expect(seen.at(-1)!.active, 'none once the profile has ended').to.equal(0);
  });

  it('abandons iterations still running at the end of the graceful stop', async () => {
    let interrupted = 0;
    let recordedLate = false;
    let late = 0;
    // The iterations end only when the test lets them, after the engine is done.
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const engine = new LoadEngine(
      profile({ executor: 'constant-vus', vus: 2, duration: '200ms', gracefulStop: '100ms' }),
      0,
      async (ctx) => {
        await released;
        late += 1;
        if (ctx.live()) recordedLate = true;
      },
      { elapsedMs: 0, nextArrival: 0 },
      { interrupted: () => (interrupted += 1) },
    );
    const started = Date.now();
    await engine.run();
    // The engine ended without them: after the 200 ms of profile and the 100 ms graceful stop.
    expect(Date.now() - started).to.be.at.least(299);
    expect(interrupted).to.equal(2);
    expect(late).to.equal(0);
    release();
    await new Promise((r) => setTimeout(r, 10));
    expect(late).to.equal(2);
    expect(recordedLate, 'an abandoned iteration is told it is no longer live').to.equal(false);
  });
});
