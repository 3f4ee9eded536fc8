/**
 * Load profiles in k6's vocabulary (docs/performance.md "Profiles"): durations, thresholds, every field validated
 * with its path, and the executors' schedules (VUs over time, arrival times, shard shares).
 */
import { expect } from 'chai';
import { formatDuration, parseDuration } from '../../src/domain/duration';
import {
  arrivalTime,
  longestMs,
  plannedIterations,
  plannedMs,
  shareOf,
  validateProfile,
  vusAt,
  type LoadProfile,
} from '../../src/perf/profile';
import { parseThresholds } from '../../src/perf/thresholds';

const valid = (input: unknown): LoadProfile => {
  const { profile, issues } = validateProfile(input);
  expect(issues).to.deep.equal([]);
  return profile!;
};
const pathsOf = (input: unknown) => validateProfile(input).issues.map((i) => i.path.join('.'));

describe('load profile durations', () => {
  it('reads k6 durations and milliseconds', () => {
    expect(parseDuration('30s')).to.equal(30_000);
    expect(parseDuration('1h30m')).to.equal(5_400_000);
    expect(parseDuration('1.5m')).to.equal(90_000);
    expect(parseDuration('250ms')).to.equal(250);
    expect(parseDuration('2m3s500ms')).to.equal(123_500);
    expect(parseDuration(1500)).to.equal(1500);
    expect(parseDuration('0')).to.equal(0);
  });

  it('refuses what is not a duration, saying what is expected', () => {
    for (const bad of ['30', '30 s', 's', '-5s', '5x', '', 'abc', null, -1, Infinity]) {
      expect(() => parseDuration(bad), String(bad)).to.throw(/duration|milliseconds|empty/);
    }
  });

  it('formats durations for messages', () => {
    expect(formatDuration(90_000)).to.equal('1m30s');
    expect(formatDuration(1500)).to.equal('1.5s');
    expect(formatDuration(250)).to.equal('250ms');
    expect(formatDuration(3_600_000)).to.equal('1h');
  });
});

describe('thresholds', () => {
  it('parses k6 thresholds with tags and both entry forms', () => {
    const { thresholds, issues } = parseThresholds({
      http_req_duration: ['p(95)<300', 'avg<100'],
      http_req_failed: ['rate<0.01'],
      checks: [{ threshold: 'rate>0.99' }],
      'http_req_duration{name:login}': ['p(99.9)<=800'],
      http_reqs: ['count>=10', 'rate>5'],
    });
    expect(issues).to.deep.equal([]);
    expect(thresholds.map((t) => `${t.key} ${t.expression}`)).to.deep.equal([
      'http_req_duration p(95)<300',
      'http_req_duration avg<100',
      'http_req_failed rate<0.01',
      'checks rate>0.99',
      'http_req_duration{name:login} p(99.9)<=800',
      'http_reqs count>=10',
      'http_reqs rate>5',
    ]);
    expect(thresholds[0]).to.include({ metric: 'http_req_duration', operator: '<', value: 300 });
    expect(thresholds[0]!.aggregation).to.deep.equal({ p: 95 });
    expect(thresholds[4]!.tags).to.deep.equal({ name: 'login' });
  });

  it('names each bad threshold', () => {
    const { issues } = parseThresholds({
      http_req_durations: ['p(95)<300'],
      http_req_duration: ['rate<0.1', 'p(95)<<3', 'p(0)<1'],
      http_req_failed: 'rate<0.01',
      'checks{status:200}': ['rate>0.9'],
      checks: [{ threshold: 'rate>0.9', abortOnFail: 1 }],
    });
    const byPath = Object.fromEntries(issues.map((i) => [i.path.join('.'), i.message]));
    expect(byPath['http_req_durations']).to.match(/unknown metric/);
    expect(byPath['http_req_duration.0']).to.match(
      /is a trend: its aggregations are avg, min, max, med, p\(N\), not rate/,
    );
    expect(byPath['http_req_duration.1']).to.match(/is not a threshold/);
    expect(byPath['http_req_duration.2']).to.match(/percentile/);
    expect(byPath['http_req_failed']).to.match(/non-empty array/);
    expect(byPath['checks{status:200}']).to.match(/tag "status:200" is not supported/);
    expect(byPath['checks.0.abortOnFail']).to.match(/must be true or false/);
  });
});

describe('load profile validation', () => {
  it('normalises each executor to milliseconds with k6 defaults', () => {
    const cv = valid({ executor: 'constant-vus', vus: 10, duration: '30s' });
    expect(cv).to.deep.include({
      executor: 'constant-vus',
      vus: 10,
      durationMs: 30_000,
      gracefulStopMs: 30_000,
      shards: 1,
    });
    expect(cv.thinkTime).to.deep.equal({ minMs: 0, maxMs: 0 });
    const rv = valid({
      executor: 'ramping-vus',
      stages: [
        { duration: '10s', target: 20 },
        { duration: 5000, target: 0 },
      ],
      thinkTime: { min: '100ms', max: '1s' },
    });
    expect(rv).to.deep.include({ startVUs: 1, gracefulRampDownMs: 30_000 });
    expect(rv.thinkTime).to.deep.equal({ minMs: 100, maxMs: 1000 });
    const car = valid({ executor: 'constant-arrival-rate', rate: 50, duration: '1m', preAllocatedVUs: 10, shards: 2 });
    expect(car).to.deep.include({ timeUnitMs: 1000, maxVUs: 10, shards: 2 });
    const rar = valid({
      executor: 'ramping-arrival-rate',
      timeUnit: '1m',
      preAllocatedVUs: 5,
      maxVUs: 50,
      stages: [{ duration: '2m', target: 600 }],
    });
    expect(rar).to.deep.include({ startRate: 0, timeUnitMs: 60_000 });
    expect(longestMs(rar)).to.equal(120_000 + 30_000);
    expect(longestMs(rv)).to.equal(15_000 + 30_000 + 30_000);
  });

  it('names every field at fault', () => {
    expect(pathsOf({ executor: 'constant-vu' })).to.deep.equal(['executor']);
    expect(pathsOf({ executor: 'constant-vus' })).to.have.members(['vus', 'duration']);
    expect(pathsOf({ executor: 'constant-vus', vus: 0, duration: '5 minutes', rate: 5 })).to.have.members([
      'vus',
      'duration',
      'rate',
    ]);
    expect(validateProfile({ executor: 'constant-vus', vus: 1, duration: '1s', rate: 5 }).issues[0]!.message).to.match(
      /belongs to constant-arrival-rate/,
    );
    expect(
      pathsOf({ executor: 'ramping-vus', stages: [{ duration: '1s', target: -1 }, { target: 3 }, 'x'] }),
    ).to.have.members(['stages.0.target', 'stages.1.duration', 'stages.2']);
    expect(
      pathsOf({ executor: 'constant-arrival-rate', rate: 10, duration: '10s', preAllocatedVUs: 5, maxVUs: 2 }),
    ).to.deep.equal(['maxVUs']);
    expect(pathsOf({ executor: 'constant-vus', vus: 2, duration: '1s', shards: 3 })).to.deep.equal(['shards']);
    expect(
      pathsOf({ executor: 'constant-vus', vus: 2, duration: '1s', thinkTime: { min: '2s', max: '1s' } }),
    ).to.deep.equal(['thinkTime.max']);
    expect(
      pathsOf({ executor: 'constant-vus', vus: 2, duration: '1s', thresholds: { http_req_duration: ['p95<1'] } }),
    ).to.deep.equal(['thresholds.http_req_duration.0']);
    expect(pathsOf('fast')).to.deep.equal(['']);
  });
});

describe('executor schedules', () => {
  it('ramps VUs linearly through the stages and splits them across shards', () => {
    const p = valid({
      executor: 'ramping-vus',
      startVUs: 0,
      stages: [
        { duration: '10s', target: 10 },
        { duration: '10s', target: 10 },
        { duration: '10s', target: 0 },
      ],
    });
    expect([0, 5000, 10_000, 15_000, 25_000, 29_999, 30_000].map((t) => vusAt(p, t))).to.deep.equal([
      0, 5, 10, 10, 5, 0, 0,
    ]);
    expect(plannedMs(p)).to.equal(30_000);
    expect([0, 1, 2].map((i) => shareOf(10, 3, i))).to.deep.equal([4, 3, 3]);
  });

  it('starts arrival-rate iterations evenly, and ramps the rate by its integral', () => {
    const c = valid({ executor: 'constant-arrival-rate', rate: 10, duration: '2s', preAllocatedVUs: 1 });
    expect([0, 1, 2, 19].map((k) => arrivalTime(c, k))).to.deep.equal([0, 100, 200, 1900]);
    expect(arrivalTime(c, 20)).to.equal(undefined);
    expect(plannedIterations(c)).to.equal(20);
    // 0 → 100/s over 10 s: 500 iterations; the k-th at sqrt(2k/slope).
    const r = valid({
      executor: 'ramping-arrival-rate',
      preAllocatedVUs: 1,
      stages: [{ duration: '10s', target: 100 }],
    });
    expect(plannedIterations(r)).to.equal(500);
    expect(arrivalTime(r, 50)).to.be.closeTo(Math.sqrt((2 * 50) / (100 / 10_000 / 1000)), 0.001);
    expect(arrivalTime(r, 499)).to.be.lessThan(10_000);
  });
});
