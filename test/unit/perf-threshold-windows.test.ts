/**
 * Thresholds that abort and thresholds with a window (docs/performance.md "Stopping on a failing
 * threshold"): k6's object form (`abortOnFail`, `delayAbortEval`), `over <window>`, the plan's
 * `watch`, and the watcher's arithmetic (src/perf/threshold-windows.ts) on snapshots made by the
 * real LoadMetrics: windows by HDR subtraction, the cumulative evaluation k6 makes, the delay,
 * several shards, counters' rates over a window, a resumed watcher, the final outcomes.
 */
import { expect } from 'chai';
import { LoadMetrics, type LoadMetricsState, type ThresholdOutcome } from '../../src/perf/metrics';
import { performancePlan, validateProfile } from '../../src/perf/profile';
import { ThresholdWatcher, watchedOutcomes, type ThresholdWindows } from '../../src/perf/threshold-windows';
import { parseThresholds, thresholdText, type Threshold } from '../../src/perf/thresholds';

const parse = (input: unknown): Threshold[] => {
  const { thresholds, issues } = parseThresholds(input);
  expect(issues).to.deep.equal([]);
  return thresholds;
};

describe('thresholds: abortOnFail, delayAbortEval, windows', () => {
  it("reads k6's object form and the window, in either form", () => {
    const [a, b, c, d] = parse({
      http_req_duration: [
        { threshold: 'p(95)<300', abortOnFail: true, delayAbortEval: '10s' },
        'p(99) < 500 over 30s',
        { threshold: 'avg<100 OVER 1m30s', abortOnFail: false },
      ],
      http_req_failed: [{ threshold: 'rate<0.01 over 1s', abortOnFail: true }],
    });
    expect(a).to.include({ abortOnFail: true, delayAbortEvalMs: 10_000, expression: 'p(95)<300' });
    expect(a).to.not.have.property('windowMs');
    expect(b).to.include({ windowMs: 30_000, operator: '<', value: 500, expression: 'p(99) < 500 over 30s' });
    expect(b).to.not.have.property('abortOnFail');
    expect(c).to.include({ windowMs: 90_000 });
    expect(c).to.not.have.property('abortOnFail');
    expect(d).to.include({ windowMs: 1000, abortOnFail: true });
    expect([a, b, c, d].map((t) => thresholdText(t!))).to.deep.equal([
      'p(95)<300',
      'p(99)<500 over 30s',
      'avg<100 over 1m30s',
      'rate<0.01 over 1s',
    ]);
  });

  it('names each bad field', () => {
    const { issues } = parseThresholds({
      http_req_duration: [
        { threshold: 'p(95)<300', delayAbortEval: '5s' },
        { threshold: 'p(95)<300', abortOnFail: 'true' },
        { threshold: 'p(95)<300', abortOnFail: true, delayAbortEval: '-1s' },
        { threshold: 'p(95)<300', abortOnFail: true, delayAbortEval: '2d' },
        'p(95)<300 over 500ms',
        'p(95)<300 over 11m',
        'p(95)<300 over soon',
        { threshold: 'p(95)<<300 over 5s' },
        { abortOnFail: true },
      ],
    });
    const byPath = Object.fromEntries(issues.map((i) => [i.path.join('.'), i.message]));
    expect(byPath).to.have.keys(
      'http_req_duration.0.delayAbortEval',
      'http_req_duration.1.abortOnFail',
      'http_req_duration.2.delayAbortEval',
      'http_req_duration.3.delayAbortEval',
      'http_req_duration.4',
      'http_req_duration.5',
      'http_req_duration.6',
      'http_req_duration.7.threshold',
      'http_req_duration.8.threshold',
    );
    expect(byPath['http_req_duration.0.delayAbortEval']).to.match(/only with "abortOnFail": true/);
    expect(byPath['http_req_duration.1.abortOnFail']).to.match(/true or false/);
    expect(byPath['http_req_duration.3.delayAbortEval']).to.match(/at most 1d|at most 24h/);
    expect(byPath['http_req_duration.4']).to.match(/must be 1s to 10m/);
    expect(byPath['http_req_duration.6']).to.match(/window must be a duration/);
    expect(byPath['http_req_duration.7.threshold']).to.match(/is not a threshold/);
  });

  it('makes the plan watch only when a threshold aborts or has a window', () => {
    const plan = (thresholds: unknown) =>
      performancePlan(validateProfile({ executor: 'constant-vus', vus: 1, duration: '10s', thresholds }).profile!);
    expect(plan({ http_req_duration: ['p(95)<300'] })).to.not.have.property('watch');
    expect(plan(undefined)).to.not.have.property('watch');
    expect(plan({ http_req_duration: ['p(95)<300 over 5s'] }).watch).to.equal(true);
    expect(plan({ checks: [{ threshold: 'rate>0.9', abortOnFail: true }] }).watch).to.equal(true);
  });
});

/**
 * Cumulative snapshots of `shards` shards, one per second: `snapshots[s]` is every shard's state at
 * profile time s·1000 ms (the requests of seconds 0 … s−1). Second `s` makes `load(s).count`
 * requests of `load(s).ms` each, dealt round robin over the shards.
 */
function simulate(
  seconds: number,
  load: (s: number) => { count: number; ms: number },
  shards = 1,
): LoadMetricsState[][] {
  const metrics = Array.from({ length: shards }, () => new LoadMetrics());
  const snapshots: LoadMetricsState[][] = [metrics.map((m) => m.state())];
  for (let s = 0; s < seconds; s++) {
    const { count, ms } = load(s);
    for (let i = 0; i < count; i++)
      metrics[i % shards]!.recordRequest({
        name: 'get',
        testCase: 'tc',
        durationMs: ms,
        status: 200,
        bytesSent: 10,
        bytesReceived: 20,
        endedAtMs: 1_700_000_000_000 + s * 1000 + i,
      });
    snapshots.push(metrics.map((m) => m.state()));
  }
  return snapshots;
}

/** Feeds snapshots one second apart from 1 s on; the profile time of the first abort, and the watcher. */
function run(thresholds: Threshold[], snapshots: LoadMetricsState[][], watcher = new ThresholdWatcher(thresholds)) {
  for (let s = 1; s < snapshots.length; s++) {
    const { abort } = watcher.observe(s * 1000, snapshots[s]!);
    if (abort) return { abort, watcher };
  }
  return { abort: undefined, watcher };
}

/** 100 requests a second: 10 ms each until second `slowFrom`, then 200 ms. */
const slowingFrom = (slowFrom: number) => (s: number) => ({ count: 100, ms: s >= slowFrom ? 200 : 10 });

describe('threshold watcher', () => {
  it('aborts on the window (HDR subtraction) long before the cumulative figure would', () => {
    const snapshots = simulate(14, slowingFrom(5));
    // The last 3 s are mostly slow at 7 s (seconds 4, 5, 6: two of three slow); the whole run only
    // from 11 s (6 slow seconds of 11).
    const windowed = parse({ http_req_duration: [{ threshold: 'p(50)<100 over 3s', abortOnFail: true }] });
    const cumulative = parse({ http_req_duration: [{ threshold: 'p(50)<100', abortOnFail: true }] });
    const w = run(windowed, snapshots).abort!;
    expect(w).to.include({ metric: 'http_req_duration', threshold: 'p(50)<100 over 3s', atMs: 7000 });
    expect(w.actual).to.be.closeTo(200, 0.5);
    expect(w.message).to.match(
      /^Threshold http_req_duration p\(50\)<100 over 3s failed at 7 s \(p\(50\) over the last 3s = 200\.\d+ ms\): aborted \(abortOnFail\)$/,
    );
    const c = run(cumulative, snapshots).abort!;
    expect(c).to.include({ threshold: 'p(50)<100', atMs: 11_000 });
    expect(c.message).to.match(/failed at 11 s \(p\(50\) = 200\.\d+ ms\)/);
  });

  it('waits delayAbortEval of profile time before aborting', () => {
    const snapshots = simulate(12, slowingFrom(0));
    const now = parse({ http_req_duration: [{ threshold: 'p(95)<100', abortOnFail: true }] });
    const later = parse({ http_req_duration: [{ threshold: 'p(95)<100', abortOnFail: true, delayAbortEval: '8s' }] });
    expect(run(now, snapshots).abort!.atMs).to.equal(1000);
    expect(run(later, snapshots).abort!.atMs).to.equal(8000);
  });

  it('tracks windows without aborting: full from one window in, the worst kept, failures counted', () => {
    // Slow during seconds 5 and 6 only.
    const snapshots = simulate(12, (s) => ({ count: 100, ms: s === 5 || s === 6 ? 200 : 10 }));
    const thresholds = parse({ http_req_duration: ['p(95)<100 over 3s', 'max<1000 over 2s'] });
    const { abort, watcher } = run(thresholds, snapshots);
    expect(abort).to.equal(undefined);
    const [p95, max] = watcher.windows.tracks;
    // Windows end at 3, 4 … 12 s: 10 of them; those holding a slow second end at 6 … 9 s.
    expect(p95).to.include({ index: 0, threshold: 'p(95)<100 over 3s', evaluated: 10, failed: 4 });
    expect(p95!.worst).to.be.closeTo(200, 0.5);
    expect(p95!.last).to.be.closeTo(10, 0.1);
    expect(max).to.include({ index: 1, evaluated: 11, failed: 0 });
    expect(max!.worst).to.be.closeTo(200, 0.5);
    expect(watcher.windows.atMs).to.equal(12_000);
  });

  it('merges shards and takes a counter’s rate over the window', () => {
    // 100 requests a second over 3 shards, none from second 6 on.
    const snapshots = simulate(10, (s) => ({ count: s < 6 ? 100 : 0, ms: 10 }), 3);
    const thresholds = parse({
      http_reqs: [{ threshold: 'rate>50 over 2s', abortOnFail: true }],
      'http_req_duration{name:get}': ['p(95)<100 over 2s'],
    });
    const { abort, watcher } = run(thresholds, snapshots);
    // Window [5 s, 7 s) holds 100 requests: 50/s, not above 50.
    expect(abort).to.include({ metric: 'http_reqs', atMs: 7000, actual: 50 });
    expect(abort!.message).to.match(/\(rate over the last 2s = 50 \/s\)/);
    expect(watcher.windows.tracks[1]).to.include({ evaluated: 6, failed: 0 });
  });

  it('evaluates nothing without samples, nor while profile time stands still', () => {
    const snapshots = simulate(5, () => ({ count: 10, ms: 10 }));
    const thresholds = parse({
      checks: [{ threshold: 'rate>0.99', abortOnFail: true }], // no check recorded: never evaluated
      http_req_duration: ['avg<100 over 1s'],
    });
    const watcher = new ThresholdWatcher(thresholds);
    expect(watcher.observe(1000, snapshots[1]!).abort).to.equal(undefined);
    expect(watcher.observe(1000, snapshots[2]!)).to.deep.equal({ changed: false }); // paused
    expect(watcher.observe(2000, snapshots[2]!)).to.deep.equal({ changed: true });
    expect(watcher.windows.tracks[0]).to.include({ evaluated: 2 });
  });

  it('carries its windows over a restart; windows are full again one window after it', () => {
    const snapshots = simulate(20, slowingFrom(100));
    const thresholds = parse({ http_req_duration: ['p(95)<100 over 3s'] });
    const first = new ThresholdWatcher(thresholds);
    for (let s = 1; s <= 10; s++) first.observe(s * 1000, snapshots[s]!);
    const saved: ThresholdWindows = JSON.parse(JSON.stringify(first.windows));
    expect(saved.tracks[0]).to.include({ evaluated: 8 });
    const second = new ThresholdWatcher(thresholds, undefined, saved);
    expect(second.observe(10_000, snapshots[10]!).changed).to.equal(false); // already evaluated
    // Restarted at 12 s: no snapshot of 9 s, so no full window until 15 s.
    for (let s = 12; s <= 14; s++) expect(second.observe(s * 1000, snapshots[s]!).changed, `${s}`).to.equal(false);
    expect(second.observe(15_000, snapshots[15]!).changed).to.equal(true);
    expect(second.windows.tracks[0]).to.include({ evaluated: 9, failed: 0 });
  });

  it('compares a relative threshold with the frozen baseline, and skips it without one', () => {
    const snapshots = simulate(4, () => ({ count: 100, ms: 30 }));
    const thresholds = parse({ http_req_duration: [{ threshold: 'p(95)<baseline*1.5', abortOnFail: true }] });
    const baseline = { runId: 'run_base', values: { 'http_req_duration:p(95)': 10 } };
    const { abort } = run(thresholds, snapshots, new ThresholdWatcher(thresholds, baseline));
    expect(abort).to.include({ atMs: 1000 });
    expect(abort!.message).to.match(/, limit 15\)/);
    expect(run(thresholds, snapshots).abort).to.equal(undefined);
  });
});

describe('final outcomes of watched thresholds', () => {
  const thresholds = parse({
    http_req_duration: [
      { threshold: 'p(95)<100 over 3s', abortOnFail: true },
      'p(95)<100 over 1m',
      { threshold: 'avg<50', abortOnFail: true },
    ],
    http_req_failed: ['rate<0.1'],
  });
  const cumulative: ThresholdOutcome[] = [
    { metric: 'http_req_duration', threshold: 'p(95)<100', passed: true, actual: 40 },
    { metric: 'http_req_duration', threshold: 'p(95)<100', passed: true, actual: 40 },
    { metric: 'http_req_duration', threshold: 'avg<50', passed: true, actual: 20 },
    { metric: 'http_req_failed', threshold: 'rate<0.1', passed: true, actual: 0 },
  ];
  const windows: ThresholdWindows = {
    atMs: 9000,
    tracks: [
      {
        index: 0,
        metric: 'http_req_duration',
        threshold: 'p(95)<100 over 3s',
        windowMs: 3000,
        evaluated: 7,
        failed: 1,
        worst: 180,
        worstAtMs: 9000,
        last: 180,
      },
    ],
  };

  it('fails a windowed threshold on its worst window, marks the abort, and leaves the others', () => {
    const abort = {
      metric: 'http_req_duration',
      threshold: 'p(95)<100 over 3s',
      actual: 180,
      atMs: 9000,
      message: 'Threshold …',
    };
    const [a, b, c, d] = watchedOutcomes(thresholds, cumulative, windows, abort);
    expect(a).to.deep.equal({
      metric: 'http_req_duration',
      threshold: 'p(95)<100 over 3s',
      passed: false,
      actual: 180,
      abortOnFail: true,
      aborted: true,
      abortedAtMs: 9000,
      window: { durationMs: 3000, evaluated: 7, failed: 1, worstAtMs: 9000 },
    });
    // No full minute: judged on the whole run, and says so.
    expect(b).to.include({ threshold: 'p(95)<100 over 1m', passed: true, actual: 40 });
    expect(b!.window).to.deep.equal({ durationMs: 60_000, evaluated: 0, failed: 0, worstAtMs: null });
    expect(b!.note).to.match(/no full window of 1m/);
    expect(c).to.deep.equal({ ...cumulative[2], abortOnFail: true });
    expect(d).to.deep.equal(cumulative[3]);
  });

  it('passes a windowed threshold whose windows all held', () => {
    const held = { ...windows, tracks: [{ ...windows.tracks[0]!, failed: 0, worst: 90 }] };
    const [a] = watchedOutcomes(thresholds, cumulative, held, undefined);
    expect(a).to.include({ passed: true, actual: 90 });
    expect(a).to.not.have.property('aborted');
  });
});
