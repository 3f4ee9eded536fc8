/**
 * Live control of the load engine (src/perf/engine.ts `applyControl`, docs/performance.md
 * "Steering a running test"): pause stops the profile clock and the iterations (none dropped),
 * resume continues where it stopped, scale holds a VU target or an arrival rate to the end, stop
 * drains and ends, and a resumed engine continues in the commanded state.
 */
import { expect } from 'chai';
import { LoadEngine } from '../../src/perf/engine';
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

describe('load engine control', () => {
  it('pauses an arrival rate (clock stopped, no arrival dropped) and resumes where it stopped', async () => {
    const p = profile({ executor: 'constant-arrival-rate', rate: 100, duration: '1s', preAllocatedVUs: 5 });
    const starts: number[] = [];
    let dropped = 0;
    const engine = new LoadEngine(
      p,
      0,
      async () => void starts.push(Date.now()),
      { elapsedMs: 0, nextArrival: 0 },
      {
        dropped: () => (dropped += 1),
      },
    );
    const began = Date.now();
    const running = engine.run();
    await sleep(300);
    engine.applyControl(state(1, { paused: true }));
    const pausedAt = engine.position().elapsedMs;
    const countAtPause = starts.length;
    await sleep(500);
    // The clock stopped and nothing started while paused.
    expect(engine.position().elapsedMs).to.be.within(pausedAt, pausedAt + 5);
    expect(starts.length).to.be.at.most(countAtPause + 1);
    expect(engine.paused()).to.equal(true);
    expect(engine.activeVUs()).to.equal(0);
    expect(engine.appliedControl()).to.include({ seq: 1, paused: true });
    engine.applyControl(state(2, { paused: false }));
    await running;
    // Every planned arrival ran, none dropped; the run took the profile plus the pause.
    expect(starts.length).to.equal(100);
    expect(dropped).to.equal(0);
    expect(Date.now() - began).to.be.within(1450, 2500);
    expect(starts.filter((t) => t > began + 330 && t < began + 780)).to.have.length(0);
  });

  it('pauses VUs after their iteration, then resumes them', async () => {
    const p = profile({ executor: 'constant-vus', vus: 4, duration: '1s', gracefulStop: '1s' });
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
    await sleep(250);
    engine.applyControl(state(1, { paused: true }));
    await sleep(150); // iterations under way end (60 ms), none starts
    const atPause = started;
    expect(running).to.equal(0);
    expect(engine.activeVUs()).to.equal(0);
    await sleep(300);
    expect(started).to.equal(atPause);
    engine.applyControl(state(2, { paused: false }));
    await sleep(150);
    expect(started).to.be.greaterThan(atPause);
    expect(engine.activeVUs()).to.equal(4);
    await done;
  });

  it('scales VUs above the peak and back down, split over shards, with fresh unique VU numbers', async () => {
    const p = profile({ executor: 'constant-vus', vus: 2, duration: '900ms', shards: 2 });
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
    const done = Promise.all(engines.map((e) => e.run()));
    await sleep(200);
    expect(engines.map((e) => e.activeVUs())).to.deep.equal([1, 1]);
    for (const e of engines) e.applyControl(state(1, { vus: 7 }));
    await sleep(250);
    expect(engines.map((e) => e.activeVUs())).to.deep.equal([4, 3]);
    expect([...vus].sort((a, b) => a - b)).to.deep.equal([1, 2, 3, 4, 5, 6, 7]);
    for (const e of engines) e.applyControl(state(2, { vus: 1 }));
    await sleep(250);
    expect(engines.map((e) => e.activeVUs())).to.deep.equal([1, 0]);
    await done;
  });

  it('scales an arrival rate from now to the end, and a resumed engine keeps the scaled schedule', async () => {
    const p = profile({ executor: 'constant-arrival-rate', rate: 50, duration: '1s', preAllocatedVUs: 5 });
    let count = 0;
    const engine = new LoadEngine(p, 0, async () => void (count += 1), { elapsedMs: 0, nextArrival: 0 });
    const done = engine.run();
    await sleep(500);
    const before = count;
    engine.applyControl(state(1, { rate: 200 }));
    await done;
    // ~25 in the first half, then ~100 in the second at 200/s.
    expect(before).to.be.within(20, 30);
    expect(count - before).to.be.within(85, 110);

    // Resumed from a scaled position with the same state: continues the scaled schedule, no restart.
    const position = { elapsedMs: 500, nextArrival: 0, rateFrom: { anchorMs: 500, rate: 200, next: 50 } };
    let rest = 0;
    const resumed = new LoadEngine(p, 0, async () => void (rest += 1), position);
    resumed.applyControl(state(1, { rate: 200 }));
    await resumed.run();
    expect(rest).to.be.within(48, 51); // 750 ms → 1000 ms at 200/s
  });

  it('resumes paused from the control state (a resumed attempt after a crash)', async () => {
    const p = profile({ executor: 'constant-arrival-rate', rate: 100, duration: '1s', preAllocatedVUs: 5 });
    let count = 0;
    const engine = new LoadEngine(p, 0, async () => void (count += 1), { elapsedMs: 400, nextArrival: 40 });
    engine.applyControl(state(3, { paused: true }));
    const done = engine.run();
    await sleep(300);
    expect(count).to.equal(0);
    expect(engine.position().elapsedMs).to.equal(400);
    // An older state read late changes nothing.
    engine.applyControl(state(2, { paused: false }));
    expect(engine.paused()).to.equal(true);
    engine.applyControl(state(4, { paused: false }));
    await done;
    expect(count).to.equal(60);
  });

  it('stops: no iteration starts, those under way finish within gracefulStop, the engine ends early', async () => {
    const p = profile({ executor: 'constant-vus', vus: 3, duration: '10s', gracefulStop: '1s' });
    let finished = 0;
    let interrupted = 0;
    const engine = new LoadEngine(
      p,
      0,
      async (ctx) => {
        await sleep(100);
        if (ctx.live()) finished += 1;
      },
      { elapsedMs: 0, nextArrival: 0 },
      { interrupted: () => (interrupted += 1) },
    );
    const began = Date.now();
    const done = engine.run();
    await sleep(330);
    engine.applyControl(state(1, { stopped: true }));
    const atStop = finished;
    await done;
    expect(Date.now() - began).to.be.below(1000);
    expect(finished - atStop).to.be.within(0, 3);
    expect(interrupted).to.equal(0);
  });
});
