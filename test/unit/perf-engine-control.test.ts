/**
 * Live control of the load engine (src/perf/engine.ts `applyControl`, docs/performance.md
 * "Steering a running test"): pause stops the profile clock and the iterations (none dropped),
 * resume continues where it stopped, scale holds a VU target or an arrival rate to the end, stop
 * drains and ends, and a resumed engine continues in the commanded state.
 *
 * The assertions are about what happens, not how fast, so they hold on a busy machine (two CPU
 * burners on 2 cores and more): which arrivals run (each started or dropped, in order, none before
 * its time on the profile clock), counts, the engine's position, states reached (waited for with a
 * generous bound, never a sleep of a guessed length), lower bounds on wall time.
 */
import { expect } from 'chai';
import { LoadEngine, type EnginePosition } from '../../src/perf/engine';
import { INITIAL_LOAD_CONTROL, type LoadControlState } from '../../src/domain/load-control';
import { validateProfile, type LoadProfile } from '../../src/perf/profile';

const profile = (input: unknown): LoadProfile => {
  const { profile: p, issues } = validateProfile(input);
  expect(issues).to.deep.equal([]);
  return p!;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const state = (seq: number, patch: Partial<LoadControlState>): LoadControlState => ({
  ...INITIAL_LOAD_CONTROL,
  seq,
  ...patch,
});

/** Waits until `done()` holds, checking every 10 ms; fails naming `what` after `timeoutMs`. */
async function until(done: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const by = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > by) throw new Error(`not reached within ${timeoutMs} ms: ${what}`);
    await sleep(10);
  }
}

/** One arrival of an arrival-rate shard as it happened: started on a VU or dropped (none free), at profile time `atMs`. */
interface Arrival {
  kind: 'started' | 'dropped';
  /** The engine's profile clock (ms) when it started or was dropped. */
  atMs: number;
  /** Epoch ms. */
  wallMs: number;
}

/** An engine whose arrivals (instant iterations) are logged in the order they happen. */
function loggedEngine(p: LoadProfile, start: EnginePosition): { engine: LoadEngine; arrivals: Arrival[] } {
  const arrivals: Arrival[] = [];
  const log = (kind: Arrival['kind']) => arrivals.push({ kind, atMs: engine.elapsedMs(), wallMs: Date.now() });
  const engine: LoadEngine = new LoadEngine(p, 0, async () => void log('started'), start, {
    dropped: () => void log('dropped'),
  });
  return { engine, arrivals };
}

/**
 * `arrivals` are exactly the ones scheduled at `scheduledMs` (profile ms), in that order: as many,
 * and none started (or dropped) before its time. The engine starts an arrival when at most 1 ms is
 * left to wait. Late is allowed: a busy machine makes everything late.
 */
function expectSchedule(arrivals: Arrival[], scheduledMs: number[], what: string): void {
  expect(arrivals.length, `${what}: arrivals`).to.equal(scheduledMs.length);
  arrivals.forEach((a, i) =>
    expect(a.atMs, `${what}: arrival ${i} (${a.kind}), due at ${scheduledMs[i]} ms`).to.be.at.least(
      scheduledMs[i]! - 1,
    ),
  );
}

/** Profile times (ms) of arrivals `from`… of a schedule of `rate` per second from `anchorMs`, before `endMs` (src/perf/engine.ts `nextDue`). */
function scaledSchedule(anchorMs: number, rate: number, from: number, endMs: number): number[] {
  const times: number[] = [];
  for (let j = from; anchorMs + (j * 1000) / rate < endMs; j++) times.push(anchorMs + (j * 1000) / rate);
  return times;
}

describe('load engine control', function () {
  this.timeout(30_000);

  it('pauses an arrival rate (clock stopped, no arrival dropped) and resumes where it stopped', async () => {
    // A VU for every arrival: none can be dropped for want of one, so a drop would be the pause's.
    const p = profile({ executor: 'constant-arrival-rate', rate: 100, duration: '1s', preAllocatedVUs: 100 });
    const began = Date.now();
    const { engine, arrivals } = loggedEngine(p, { elapsedMs: 0, nextArrival: 0 });
    const running = engine.run();
    await until(() => arrivals.length >= 20, 'arrivals before the pause');
    engine.applyControl(state(1, { paused: true }));
    const pausedBy = Date.now();
    const pausedAt = engine.position().elapsedMs;
    const atPause = arrivals.length;
    await sleep(500);
    // The clock stopped and nothing started while paused.
    expect(engine.position().elapsedMs).to.equal(pausedAt);
    expect(arrivals.length).to.equal(atPause);
    expect(engine.paused()).to.equal(true);
    expect(engine.activeVUs()).to.equal(0);
    expect(engine.appliedControl()).to.include({ seq: 1, paused: true });
    // At least this long paused: from after the pause was applied to before the resume is.
    const pausedFor = Date.now() - pausedBy;
    engine.applyControl(state(2, { paused: false }));
    await running;
    // Every planned arrival ran, in order and none before its time on the profile clock; none dropped.
    expectSchedule(
      arrivals,
      Array.from({ length: 100 }, (_, k) => k * 10),
      'arrivals 0–99 at 100/s',
    );
    expect(arrivals.every((a) => a.kind === 'started')).to.equal(true);
    // The pause is not profile time: the last arrival (990 ms) came the pause later on the wall clock.
    expect(arrivals.at(-1)!.wallMs - began).to.be.at.least(989 + pausedFor);
    expect(engine.position()).to.deep.equal({ elapsedMs: 1000, nextArrival: 100 });
  });

  it('pauses VUs after their iteration, then resumes them', async () => {
    const p = profile({ executor: 'constant-vus', vus: 4, duration: '30s', gracefulStop: '10s' });
    let running = 0;
    let started = 0;
    const engine = new LoadEngine(
      p,
      0,
      async () => {
        started += 1;
        running += 1;
        await sleep(60);
        running -= 1;
      },
      { elapsedMs: 0, nextArrival: 0 },
    );
    const done = engine.run();
    await until(() => started >= 8, 'iterations before the pause');
    engine.applyControl(state(1, { paused: true }));
    const atPause = started;
    await until(() => running === 0, 'the iterations under way end');
    expect(engine.activeVUs()).to.equal(0);
    await sleep(300);
    expect(started, 'none started while paused').to.equal(atPause);
    expect(engine.activeVUs()).to.equal(0);
    engine.applyControl(state(2, { paused: false }));
    await until(() => started > atPause && engine.activeVUs() === 4, 'the 4 VUs iterate again');
    engine.applyControl(state(3, { stopped: true }));
    await done;
  });

  it('scales VUs above the peak and back down, split over shards, with fresh unique VU numbers', async () => {
    const p = profile({ executor: 'constant-vus', vus: 2, duration: '30s', shards: 2, gracefulStop: '10s' });
    const vus = new Set<number>();
    const engines = [0, 1].map(
      (shard) =>
        new LoadEngine(
          p,
          shard,
          async (ctx) => {
            vus.add(ctx.vu);
            await sleep(20);
          },
          { elapsedMs: 0, nextArrival: 0 },
        ),
    );
    const active = () => engines.map((e) => e.activeVUs()).join(' + ');
    const done = Promise.all(engines.map((e) => e.run()));
    await until(() => active() === '1 + 1' && vus.size === 2, 'one VU per shard');
    expect([...vus].sort((a, b) => a - b)).to.deep.equal([1, 2]);
    for (const e of engines) e.applyControl(state(1, { vus: 7 }));
    await until(() => active() === '4 + 3' && vus.size === 7, '7 VUs, 4 + 3, each iterating');
    expect([...vus].sort((a, b) => a - b)).to.deep.equal([1, 2, 3, 4, 5, 6, 7]);
    for (const e of engines) e.applyControl(state(2, { vus: 1 }));
    await until(() => active() === '1 + 0', 'one VU left, on shard 0');
    expect(vus.size).to.equal(7);
    for (const e of engines) e.applyControl(state(3, { vus: 1, stopped: true }));
    await done;
  });

  it('scales an arrival rate from now to the end, and a resumed engine keeps the scaled schedule', async () => {
    // 50/s for 2 s; scaled to 200/s once 10 arrivals ran. Instant iterations on 5 VUs: an event-loop
    // stall longer than they cover drops arrivals (as k6 does), so started and dropped count alike.
    const p = profile({ executor: 'constant-arrival-rate', rate: 50, duration: '2s', preAllocatedVUs: 5 });
    const { engine, arrivals } = loggedEngine(p, { elapsedMs: 0, nextArrival: 0 });
    const done = engine.run();
    await until(() => arrivals.length >= 10, 'arrivals at 50/s');
    const from = engine.elapsedMs();
    engine.applyControl(state(1, { rate: 200 }));
    const to = engine.elapsedMs();
    const before = arrivals.length;
    const scaled = engine.position().rateFrom!;
    await done;
    // From now: anchored at the profile time the scale was applied, at 200/s.
    expect(scaled).to.deep.equal({ anchorMs: scaled.anchorMs, rate: 200, next: 0 });
    expect(scaled.anchorMs).to.be.within(from, to);
    // Before it, the profile's schedule (arrival k at 20·k ms); from it to the end, 200/s.
    expectSchedule(
      arrivals.slice(0, before),
      Array.from({ length: before }, (_, k) => k * 20),
      'at 50/s before the scale',
    );
    const after = scaledSchedule(scaled.anchorMs, 200, 0, 2000);
    expect(after.length, 'arrivals left at 200/s').to.be.greaterThan(0);
    expectSchedule(arrivals.slice(before), after, 'at 200/s after the scale');
    expect(arrivals.some((a) => a.kind === 'started')).to.equal(true);
    expect(engine.position()).to.deep.equal({
      elapsedMs: 2000,
      nextArrival: before + after.length,
      rateFrom: { anchorMs: scaled.anchorMs, rate: 200, next: after.length },
    });

    // Resumed from a scaled position (anchored at 1500 ms, 50 of its arrivals done) with the same
    // control state: the scaled schedule goes on (arrivals 50–99 of it, 1750–1995 ms), neither the
    // profile's 50/s nor a new anchor.
    const position = { elapsedMs: 1500, nextArrival: 75, rateFrom: { anchorMs: 1500, rate: 200, next: 50 } };
    const resumed = loggedEngine(p, position);
    resumed.engine.applyControl(state(1, { rate: 200 }));
    expect(resumed.engine.position().rateFrom).to.deep.equal(position.rateFrom);
    await resumed.engine.run();
    expectSchedule(resumed.arrivals, scaledSchedule(1500, 200, 50, 2000), 'resumed at 200/s');
    expect(resumed.engine.position()).to.deep.equal({
      elapsedMs: 2000,
      nextArrival: 125,
      rateFrom: { anchorMs: 1500, rate: 200, next: 100 },
    });
  });

  it('resumes paused from the control state (a resumed attempt after a crash)', async () => {
    const p = profile({ executor: 'constant-arrival-rate', rate: 100, duration: '1s', preAllocatedVUs: 5 });
    const { engine, arrivals } = loggedEngine(p, { elapsedMs: 400, nextArrival: 40 });
    engine.applyControl(state(3, { paused: true }));
    const pausedAt = engine.position().elapsedMs;
    const done = engine.run();
    await sleep(300);
    // Paused where it resumed (400 ms, or the ms that passed before the state was applied).
    expect(arrivals).to.have.length(0);
    expect(pausedAt).to.be.at.least(400);
    expect(engine.position().elapsedMs).to.equal(pausedAt);
    // An older state read late changes nothing.
    engine.applyControl(state(2, { paused: false }));
    expect(engine.paused()).to.equal(true);
    engine.applyControl(state(4, { paused: false }));
    await done;
    // Arrivals 40–99 and no others, each started or (a stall longer than 5 VUs cover) dropped.
    expectSchedule(
      arrivals,
      Array.from({ length: 60 }, (_, i) => (40 + i) * 10),
      'arrivals 40–99',
    );
    expect(engine.position()).to.deep.equal({ elapsedMs: 1000, nextArrival: 100 });
  });

  it('stops: no iteration starts, those under way finish within gracefulStop, the engine ends early', async () => {
    const p = profile({ executor: 'constant-vus', vus: 3, duration: '30s', gracefulStop: '10s' });
    let started = 0;
    let finished = 0;
    let interrupted = 0;
    const engine = new LoadEngine(
      p,
      0,
      async (ctx) => {
        started += 1;
        await sleep(100);
        if (ctx.live()) finished += 1;
      },
      { elapsedMs: 0, nextArrival: 0 },
      { interrupted: () => (interrupted += 1) },
    );
    const done = engine.run();
    await until(() => finished >= 3, 'iterations before the stop');
    engine.applyControl(state(1, { stopped: true }));
    const atStop = { started, finished };
    await done;
    // Nothing started after the stop; the (at most 3) under way finished, none abandoned.
    expect(started).to.equal(atStop.started);
    expect(finished).to.equal(started);
    expect(finished - atStop.finished).to.be.within(0, 3);
    expect(interrupted).to.equal(0);
    // It ended long before its 30 s (the profile clock shows where it stopped).
    expect(engine.position().elapsedMs).to.be.below(15_000);
  });
});
