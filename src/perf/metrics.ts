/**
 * What a performance run measures, as k6 names it (https://grafana.com/docs/k6/latest/using-k6/metrics/reference/):
 * `http_reqs`, `http_req_duration`, `http_req_failed`, `checks`, `iterations`,
 * `iteration_duration`, `data_sent`, `data_received`, plus dropped and interrupted iterations.
 *
 * Latencies go into HDR histograms (hdr-histogram-js, 3 significant digits, microseconds up to an
 * hour; 32-bit counts, about 95 KB each: a tenth of the packed form's encode and decode time, which
 * heartbeats pay every second), which merge exactly across shards (`add`) and serialise compactly (compressed base64) for
 * heartbeats. Memory stays flat for a run of any length: no per-request arrays; the per-second time
 * series keeps at most {@link MAX_SERIES_POINTS} points, halving its resolution when full.
 *
 * A request "failed" as in k6's `http_req_failed`: no response (network error, timeout, refused
 * address) or a status its API node does not expect: one its `response.status` assertions do not
 * allow, or outside 200–399 without such an assertion (k6's `expectedStatuses`,
 * src/perf/expected-statuses.ts); a gRPC node's call (docs/async.md "gRPC") counts as a
 * request too, failed when its status is not OK, unless the node's assertions expect that status.
 */
import { build, decodeFromCompressedBase64, encodeIntoCompressedBase64, type Histogram } from 'hdr-histogram-js';
import { aggregationName, baselineKey, compare, limitText, type Threshold } from './thresholds';

/** Points of a time series at most; past it, adjacent points merge (resolution doubles). */
export const MAX_SERIES_POINTS = 3600;
/** Request names (and test case names) broken down at most; the rest count under {@link OTHER}. */
export const MAX_NAMES = 100;
/** The bucket of names past {@link MAX_NAMES}. */
export const OTHER = '(other)';

const HIGHEST_US = 3_600_000_000;

function histogram(): Histogram {
  return build({
    bitBucketSize: 32,
    lowestDiscernibleValue: 1,
    highestTrackableValue: HIGHEST_US,
    numberOfSignificantValueDigits: 3,
    autoResize: true,
  });
}

function decode(text: string): Histogram {
  const h = histogram();
  if (text) h.add(decodeFromCompressedBase64(text, 32));
  return h;
}

const toUs = (ms: number) => Math.min(HIGHEST_US, Math.max(1, Math.round(ms * 1000)));
const toMs = (us: number) => Math.round(us) / 1000;

/** Counts and a latency histogram of requests (all, one request name, or one test case). */
class RequestStats {
  requests = 0;
  failed = 0;
  checks = 0;
  passedChecks = 0;
  iterations = 0;
  failedIterations = 0;
  readonly duration: Histogram;
  readonly iterationDuration: Histogram;

  constructor(state?: RequestStatsState) {
    this.duration = decode(state?.duration ?? '');
    this.iterationDuration = decode(state?.iterationDuration ?? '');
    if (state) {
      this.requests = state.requests;
      this.failed = state.failed;
      this.checks = state.checks;
      this.passedChecks = state.passedChecks;
      this.iterations = state.iterations;
      this.failedIterations = state.failedIterations;
    }
  }

  add(other: RequestStats): void {
    this.requests += other.requests;
    this.failed += other.failed;
    this.checks += other.checks;
    this.passedChecks += other.passedChecks;
    this.iterations += other.iterations;
    this.failedIterations += other.failedIterations;
    this.duration.add(other.duration);
    this.iterationDuration.add(other.iterationDuration);
  }

  state(): RequestStatsState {
    return {
      requests: this.requests,
      failed: this.failed,
      checks: this.checks,
      passedChecks: this.passedChecks,
      iterations: this.iterations,
      failedIterations: this.failedIterations,
      duration: this.duration.totalCount ? encodeIntoCompressedBase64(this.duration) : '',
      iterationDuration: this.iterationDuration.totalCount ? encodeIntoCompressedBase64(this.iterationDuration) : '',
    };
  }
}

/** {@link RequestStats} as JSON (histograms as compressed base64). */
export interface RequestStatsState {
  requests: number;
  failed: number;
  checks: number;
  passedChecks: number;
  iterations: number;
  failedIterations: number;
  duration: string;
  iterationDuration: string;
}

/** One point of the time series: the requests that ended in `[t, t + resolution)` seconds. */
export interface SeriesPoint {
  /** Epoch seconds of the point's start. */
  t: number;
  requests: number;
  failed: number;
  /** 95th percentile of the point's request durations, ms (0 without requests). */
  p95: number;
  /** VUs active at the point's end (largest seen in the point). */
  vus: number;
}

/** A shard's cumulative measurements, serialisable: what it heartbeats and what the run merges. */
export interface LoadMetricsState {
  all: RequestStatsState;
  byName: Record<string, RequestStatsState>;
  byTestCase: Record<string, RequestStatsState>;
  droppedIterations: number;
  interruptedIterations: number;
  bytesSent: number;
  bytesReceived: number;
  /** Most VUs active at once. */
  peakVUs: number;
  /** Seconds per series point (1, doubling when the series is full). */
  resolution: number;
  series: SeriesPoint[];
}

/** One request, as the load generator records it. */
export interface RequestSample {
  /** The API node's name, or its id. */
  name: string;
  testCase: string;
  durationMs: number;
  /** HTTP status; undefined when no response came (error). */
  status?: number;
  /**
   * Whether the request failed; without it, judged by `status` with k6's default (none, or outside
   * 200–399). The load part sets it: an HTTP status the node's assertions expect is not a failure
   * (src/perf/expected-statuses.ts), nor a gRPC status they expect (else anything but OK is).
   */
  failed?: boolean;
  bytesSent: number;
  bytesReceived: number;
  /** When it ended, epoch ms. */
  endedAtMs: number;
}

/** One request in `stats`: counted, failed or not, its duration (µs) in the histogram. */
function countRequest(stats: RequestStats, failed: boolean, us: number): void {
  stats.requests += 1;
  if (failed) stats.failed += 1;
  stats.duration.recordValue(us);
}

/** Cumulative measurements of a shard (or of a whole run, once shards are merged). */
export class LoadMetrics {
  readonly all: RequestStats;
  readonly byName = new Map<string, RequestStats>();
  readonly byTestCase = new Map<string, RequestStats>();
  droppedIterations = 0;
  interruptedIterations = 0;
  bytesSent = 0;
  bytesReceived = 0;
  peakVUs = 0;
  resolution = 1;
  series: SeriesPoint[] = [];
  /** The open point's histogram (its p95 is computed when the point closes). */
  private pointHistogram = histogram();
  private vus = 0;

  constructor(state?: LoadMetricsState) {
    this.all = new RequestStats(state?.all);
    if (!state) return;
    for (const [name, s] of Object.entries(state.byName)) this.byName.set(name, new RequestStats(s));
    for (const [name, s] of Object.entries(state.byTestCase)) this.byTestCase.set(name, new RequestStats(s));
    this.droppedIterations = state.droppedIterations;
    this.interruptedIterations = state.interruptedIterations;
    this.bytesSent = state.bytesSent;
    this.bytesReceived = state.bytesReceived;
    this.peakVUs = state.peakVUs;
    this.resolution = state.resolution;
    this.series = state.series.map((p) => ({ ...p }));
  }

  /** Records one request (k6: `http_reqs`, `http_req_duration`, `http_req_failed`, data). */
  recordRequest(sample: RequestSample): void {
    const failed = sample.failed ?? (sample.status === undefined || sample.status < 200 || sample.status >= 400);
    const us = toUs(sample.durationMs);
    // Three calls, not a loop over a new array: this runs for every request of a load test.
    countRequest(this.all, failed, us);
    countRequest(named(this.byName, sample.name), failed, us);
    countRequest(named(this.byTestCase, sample.testCase), failed, us);
    this.bytesSent += sample.bytesSent;
    this.bytesReceived += sample.bytesReceived;
    const point = this.pointAt(sample.endedAtMs);
    point.requests += 1;
    if (failed) point.failed += 1;
    this.pointHistogram.recordValue(us);
  }

  /** Records assertions of one request name as checks (k6: `checks`). */
  recordChecks(name: string, testCase: string, passed: number, total: number): void {
    if (total === 0) return;
    for (const stats of [this.all, named(this.byName, name), named(this.byTestCase, testCase)]) {
      stats.checks += total;
      stats.passedChecks += passed;
    }
  }

  /**
   * Records one finished VU iteration (k6: `iterations`, `iteration_duration`): one pass over the
   * runner's test cases.
   */
  recordVuIteration(durationMs: number, failed: boolean): void {
    this.all.iterations += 1;
    if (failed) this.all.failedIterations += 1;
    this.all.iterationDuration.recordValue(toUs(durationMs));
  }

  /** Records one execution of a test case within an iteration (`iterations{testCase:…}`, `iteration_duration{testCase:…}`). */
  recordTestCase(testCase: string, durationMs: number, failed: boolean): void {
    const stats = named(this.byTestCase, testCase);
    stats.iterations += 1;
    if (failed) stats.failedIterations += 1;
    stats.iterationDuration.recordValue(toUs(durationMs));
  }

  /** Sets the VUs active now (for the series and the peak). */
  setVUs(vus: number, nowMs: number): void {
    this.vus = vus;
    this.peakVUs = Math.max(this.peakVUs, vus);
    const point = this.pointAt(nowMs);
    point.vus = Math.max(point.vus, vus);
  }

  /** The series point covering `ms`, opening a new one (and closing the last) when time moved on. */
  private pointAt(ms: number): SeriesPoint {
    const second = Math.floor(ms / 1000);
    const t = second - (second % this.resolution);
    let last = this.series[this.series.length - 1];
    if (last && t <= last.t) return last; // late samples count in the open point
    if (last) this.closePoint(last);
    last = { t, requests: 0, failed: 0, p95: 0, vus: this.vus };
    this.series.push(last);
    if (this.series.length > MAX_SERIES_POINTS) this.coarsen();
    return this.series[this.series.length - 1]!;
  }

  private closePoint(point: SeriesPoint): void {
    if (this.pointHistogram.totalCount) point.p95 = toMs(this.pointHistogram.getValueAtPercentile(95));
    this.pointHistogram.reset();
  }

  /** Halves the series' resolution: adjacent points merge (p95 of the pair: the higher, an upper bound). */
  private coarsen(): void {
    this.resolution *= 2;
    const merged: SeriesPoint[] = [];
    for (const p of this.series) {
      const t = p.t - (p.t % this.resolution);
      const last = merged[merged.length - 1];
      if (last && last.t === t) {
        last.requests += p.requests;
        last.failed += p.failed;
        last.p95 = Math.max(last.p95, p.p95);
        last.vus = Math.max(last.vus, p.vus);
      } else merged.push({ ...p, t });
    }
    this.series = merged;
  }

  /** Adds another shard's measurements: counts and histograms exactly; series points by time. */
  add(other: LoadMetrics): void {
    this.all.add(other.all);
    for (const [name, s] of other.byName) named(this.byName, name).add(s);
    for (const [name, s] of other.byTestCase) named(this.byTestCase, name).add(s);
    this.droppedIterations += other.droppedIterations;
    this.interruptedIterations += other.interruptedIterations;
    this.bytesSent += other.bytesSent;
    this.bytesReceived += other.bytesReceived;
    this.peakVUs += other.peakVUs;
    const resolution = Math.max(this.resolution, other.resolution);
    const points = new Map<number, SeriesPoint>();
    for (const p of [...this.series, ...other.series]) {
      const t = p.t - (p.t % resolution);
      const at = points.get(t);
      if (!at) points.set(t, { ...p, t });
      else {
        at.requests += p.requests;
        at.failed += p.failed;
        at.p95 = Math.max(at.p95, p.p95);
        at.vus += p.vus;
      }
    }
    this.resolution = resolution;
    this.series = [...points.values()].sort((a, b) => a.t - b.t);
    while (this.series.length > MAX_SERIES_POINTS) this.coarsen();
  }

  /** The cumulative state (closing nothing: the open point's p95 is filled from its histogram so far). */
  state(): LoadMetricsState {
    const series = this.series.map((p) => ({ ...p }));
    const open = series[series.length - 1];
    if (open && this.pointHistogram.totalCount) open.p95 = toMs(this.pointHistogram.getValueAtPercentile(95));
    return {
      all: this.all.state(),
      byName: Object.fromEntries([...this.byName].map(([n, s]) => [n, s.state()])),
      byTestCase: Object.fromEntries([...this.byTestCase].map(([n, s]) => [n, s.state()])),
      droppedIterations: this.droppedIterations,
      interruptedIterations: this.interruptedIterations,
      bytesSent: this.bytesSent,
      bytesReceived: this.bytesReceived,
      peakVUs: this.peakVUs,
      resolution: this.resolution,
      series,
    };
  }
}

function named(map: Map<string, RequestStats>, name: string): RequestStats {
  let stats = map.get(name);
  if (stats) return stats;
  const key = map.size >= MAX_NAMES ? OTHER : name;
  stats = map.get(key) ?? new RequestStats();
  map.set(key, stats);
  return stats;
}

/** Latency figures of a histogram, ms. */
export interface LatencyFigures {
  avg: number;
  min: number;
  med: number;
  p90: number;
  p95: number;
  p99: number;
  max: number;
}

function latency(h: Histogram): LatencyFigures {
  if (!h.totalCount) return { avg: 0, min: 0, med: 0, p90: 0, p95: 0, p99: 0, max: 0 };
  return {
    avg: toMs(h.mean),
    min: toMs(h.minNonZeroValue),
    med: toMs(h.getValueAtPercentile(50)),
    p90: toMs(h.getValueAtPercentile(90)),
    p95: toMs(h.getValueAtPercentile(95)),
    p99: toMs(h.getValueAtPercentile(99)),
    max: toMs(h.maxValue),
  };
}

/** The outcome of one threshold. */
export interface ThresholdOutcome {
  /** `http_req_duration{name:login}`. */
  metric: string;
  /** `p(95)<300`. */
  threshold: string;
  passed: boolean;
  /** The aggregated value it was compared with (ms for durations, a fraction for rates). */
  actual: number;
  /** A relative threshold (`p(95)<baseline*1.1`): the baseline run's same figure, when there was one. */
  baseline?: number;
  /** A relative threshold's limit: `baseline` × its factor. */
  limit?: number;
  /** A relative threshold without a baseline: why it passed without being compared (docs/history.md "Baselines"). */
  note?: string;
  /** k6's `abortOnFail` was set (present only then). */
  abortOnFail?: true;
  /** This threshold stopped the load (`abortOnFail`): `actual` is its value then, `abortedAtMs` when (profile ms). */
  aborted?: true;
  abortedAtMs?: number;
  /** A windowed threshold (`p(95)<300 over 30s`): its windows (src/perf/threshold-windows.ts `WindowOutcome`). */
  window?: {
    /** The window's length, ms. */
    durationMs: number;
    /** Full windows evaluated (about one per second of profile time once the first was full). */
    evaluated: number;
    /** Windows in which it failed. */
    failed: number;
    /** Profile time (ms) at the end of the worst window; null when no window was full. */
    worstAtMs: number | null;
  };
}

/**
 * The baseline relative thresholds compare with (`RunPlan.baseline`): the baseline run and its
 * figures by {@link baselineKey}; `runId` null and `reason` when the run has none.
 */
export interface ThresholdBaseline {
  runId: string | null;
  values: Record<string, number>;
  reason?: string;
}

/** Per-request-name (or per-test-case) figures in results. */
export interface NamedFigures extends LatencyFigures {
  name: string;
  requests: number;
  failedRequests: number;
  errorRate: number;
  checks: number;
  passedChecks: number;
}

/**
 * The `performance` object of a run's results. The first five fields are the interface spec's
 * (docs/interface-spec.md "Run results": ms, a fraction, requests per second); the rest is Assay's.
 */
export interface PerformanceResults {
  avgResponseTime: number;
  p95ResponseTime: number;
  p99ResponseTime: number;
  errorRate: number;
  requestsPerSecond: number;
  minResponseTime: number;
  medResponseTime: number;
  p90ResponseTime: number;
  maxResponseTime: number;
  requests: number;
  failedRequests: number;
  iterations: number;
  failedIterations: number;
  droppedIterations: number;
  interruptedIterations: number;
  checks: { total: number; passed: number; rate: number };
  /** Bytes. */
  dataSent: number;
  dataReceived: number;
  peakVUs: number;
  /** Milliseconds of load generated (the profile's time reached; outages excluded). */
  loadDurationMs: number;
  iterationDuration: LatencyFigures;
  byName: NamedFigures[];
  byTestCase: NamedFigures[];
  thresholds: ThresholdOutcome[];
  /** Seconds per point. */
  seriesResolution: number;
  /** `t` epoch seconds; a missing second means no request ended then (an outage shows as a gap). */
  series: SeriesPoint[];
}

function namedFigures(name: string, s: RequestStats): NamedFigures {
  return {
    name,
    requests: s.requests,
    failedRequests: s.failed,
    errorRate: s.requests ? s.failed / s.requests : 0,
    checks: s.checks,
    passedChecks: s.passedChecks,
    ...latency(s.duration),
  };
}

/**
 * A trend threshold's aggregation (`avg`, `min`, `max`, `med`, `p(N)`) of `h` (µs), in ms; the
 * caller makes sure `h` has samples. Shared by the final result and the threshold watcher
 * (src/perf/threshold-windows.ts).
 */
export function trendValue(h: Histogram, a: Threshold['aggregation']): number {
  if (typeof a === 'object') return toMs(h.getValueAtPercentile(a.p));
  if (a === 'avg') return toMs(h.mean);
  if (a === 'min') return toMs(h.minNonZeroValue);
  if (a === 'max') return toMs(h.maxValue);
  return toMs(h.getValueAtPercentile(50));
}

/** A counter metric's count (k6's `http_reqs`, `iterations`, `data_sent`, `data_received`; bytes for the last two). */
export function counterValue(
  metric: string,
  c: { requests: number; iterations: number; bytesSent: number; bytesReceived: number },
): number {
  if (metric === 'http_reqs') return c.requests;
  if (metric === 'iterations') return c.iterations;
  return metric === 'data_sent' ? c.bytesSent : c.bytesReceived;
}

/** The value a threshold compares, from the stats it names. */
function aggregate(threshold: Threshold, s: RequestStats, metrics: LoadMetrics, seconds: number): number {
  const a = threshold.aggregation;
  switch (threshold.metric) {
    case 'http_req_duration':
    case 'iteration_duration': {
      const h = threshold.metric === 'http_req_duration' ? s.duration : s.iterationDuration;
      return h.totalCount ? trendValue(h, a) : 0;
    }
    case 'http_req_failed':
      return s.requests ? s.failed / s.requests : 0;
    case 'checks':
      return s.checks ? s.passedChecks / s.checks : 0;
    case 'http_reqs':
    case 'iterations':
    case 'data_sent':
    case 'data_received': {
      const count = counterValue(threshold.metric, {
        requests: s.requests,
        iterations: s.iterations,
        bytesSent: metrics.bytesSent,
        bytesReceived: metrics.bytesReceived,
      });
      return a === 'rate' ? (seconds > 0 ? count / seconds : 0) : count;
    }
  }
}

/**
 * Evaluates thresholds against merged measurements. A threshold whose tag names nothing measured
 * compares against zeros (as k6 does for a sub-metric without samples).
 */
export function evaluateThresholds(
  thresholds: Threshold[],
  metrics: LoadMetrics,
  loadDurationMs: number,
  baseline?: ThresholdBaseline,
): ThresholdOutcome[] {
  const round = (n: number) => Math.round(n * 10_000) / 10_000;
  return thresholds.map((t) => {
    const actual = thresholdActual(t, metrics, loadDurationMs);
    const outcome = {
      metric: t.key,
      threshold: `${aggregationName(t.aggregation)}${t.operator}${limitText(t)}`,
      actual: round(actual),
    };
    if (!t.relative) return { ...outcome, passed: compare(actual, t.operator, t.value) };
    // A relative threshold: against the baseline's same figure × the factor, or passed with a note without one.
    const base = baseline?.values[baselineKey(t)];
    if (base === undefined || baseline?.runId == null) {
      const why = baseline?.reason ?? 'the run has no baseline';
      return { ...outcome, passed: true, note: `not compared: ${why}` };
    }
    const limit = base * t.value;
    return { ...outcome, passed: compare(actual, t.operator, limit), baseline: round(base), limit: round(limit) };
  });
}

/**
 * The aggregated value threshold `t` compares (ms for durations, a fraction for rates, a count or
 * a per-second rate for counters), from merged measurements. What a relative threshold's baseline
 * figure is taken as, from the baseline run's stored measurements.
 */
export function thresholdActual(t: Threshold, metrics: LoadMetrics, loadDurationMs: number): number {
  const stats =
    t.tags.name !== undefined
      ? metrics.byName.get(t.tags.name)
      : t.tags.testCase !== undefined
        ? metrics.byTestCase.get(t.tags.testCase)
        : metrics.all;
  return aggregate(t, stats ?? new RequestStats(), metrics, loadDurationMs / 1000);
}

/** The results' `performance` object from merged measurements. */
export function performanceResults(
  metrics: LoadMetrics,
  thresholds: Threshold[],
  loadDurationMs: number,
  baseline?: ThresholdBaseline,
): PerformanceResults {
  const all = metrics.all;
  const l = latency(all.duration);
  const seconds = loadDurationMs / 1000;
  const state = metrics.state();
  return {
    avgResponseTime: l.avg,
    p95ResponseTime: l.p95,
    p99ResponseTime: l.p99,
    errorRate: all.requests ? all.failed / all.requests : 0,
    requestsPerSecond: seconds > 0 ? Math.round((all.requests / seconds) * 100) / 100 : 0,
    minResponseTime: l.min,
    medResponseTime: l.med,
    p90ResponseTime: l.p90,
    maxResponseTime: l.max,
    requests: all.requests,
    failedRequests: all.failed,
    iterations: all.iterations,
    failedIterations: all.failedIterations,
    droppedIterations: metrics.droppedIterations,
    interruptedIterations: metrics.interruptedIterations,
    checks: { total: all.checks, passed: all.passedChecks, rate: all.checks ? all.passedChecks / all.checks : 0 },
    dataSent: metrics.bytesSent,
    dataReceived: metrics.bytesReceived,
    peakVUs: metrics.peakVUs,
    loadDurationMs: Math.round(loadDurationMs),
    iterationDuration: latency(all.iterationDuration),
    byName: [...metrics.byName].map(([n, s]) => namedFigures(n, s)).sort((a, b) => b.requests - a.requests),
    byTestCase: [...metrics.byTestCase].map(([n, s]) => namedFigures(n, s)),
    thresholds: evaluateThresholds(thresholds, metrics, loadDurationMs, baseline),
    seriesResolution: state.resolution,
    series: state.series,
  };
}

/** Live figures of a running performance run (GET /v1/runs/{id} `performance`; docs/performance.md). */
export interface LiveFigures {
  /** Milliseconds into the profile (the least advanced shard's). */
  elapsedMs: number;
  /** The profile's planned load, ms. */
  durationMs: number;
  /** elapsedMs / durationMs, 0 to 100. */
  percent: number;
  activeVUs: number;
  /** Requests per second over the last complete points of the series (up to 5 s). */
  requestsPerSecond: number;
  requests: number;
  p95ResponseTime: number;
  errorRate: number;
}

/**
 * Merges shards' latest snapshots into live figures. `shards` is every stored snapshot (a shard not
 * started yet has none and counts at 0 ms); `expectedShards` the profile's shard count.
 */
export function liveFigures(
  shards: Array<{ metrics: LoadMetricsState; elapsedMs: number; activeVUs: number }>,
  expectedShards: number,
  durationMs: number,
  nowMs: number,
): LiveFigures {
  const merged = new LoadMetrics();
  for (const s of shards) merged.add(new LoadMetrics(s.metrics));
  const elapsedMs = shards.length < expectedShards ? 0 : Math.min(...shards.map((s) => s.elapsedMs));
  const nowSecond = Math.floor(nowMs / 1000);
  // Complete points of the last 5 seconds (the current second is still filling).
  const recent = merged.series.filter((p) => p.t < nowSecond && p.t >= nowSecond - 5);
  const seconds = recent.length ? Math.max(1, nowSecond - recent[0]!.t) : 0;
  const h = merged.all.duration;
  return {
    elapsedMs,
    durationMs,
    percent: durationMs > 0 ? Math.min(100, Math.round((elapsedMs / durationMs) * 1000) / 10) : 0,
    activeVUs: shards.reduce((n, s) => n + s.activeVUs, 0),
    requestsPerSecond: seconds ? Math.round((recent.reduce((n, p) => n + p.requests, 0) / seconds) * 10) / 10 : 0,
    requests: merged.all.requests,
    p95ResponseTime: h.totalCount ? toMs(h.getValueAtPercentile(95)) : 0,
    errorRate: merged.all.requests ? merged.all.failed / merged.all.requests : 0,
  };
}

/**
 * A latency histogram as {@link LoadMetricsState} stores it (compressed base64, microseconds; `''`
 * is empty), decoded into this module's layout so that histograms decoded here add and subtract
 * exactly (the threshold watcher's windows, src/perf/threshold-windows.ts).
 */
export function decodeHistogram(text: string): Histogram {
  return decode(text);
}

/** The stored form of a histogram ({@link decodeHistogram}'s inverse; `''` when empty). */
export function encodeHistogram(h: Histogram): string {
  return h.totalCount ? encodeIntoCompressedBase64(h) : '';
}
