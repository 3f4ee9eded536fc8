/**
 * The arithmetic of the threshold watcher (src/perf/watch.ts; docs/performance.md "Stopping on a
 * failing threshold"), kept free of the store so that it is tested on its own.
 *
 * Every second of profile time the watcher hands {@link ThresholdWatcher.observe} the latest
 * snapshot of every shard (`run_load_shards.metrics`, cumulative). The watcher merges what its
 * thresholds read (counts add; HDR histograms add exactly) and:
 *
 * - a threshold with `abortOnFail` and no window is evaluated on the cumulative figures, as k6
 *   evaluates it (k6 docs "Thresholds": "abortOnFail … delayAbortEval"), once `delayAbortEval` of
 *   profile time has passed;
 * - a windowed threshold (`p(95)<300 over 30s`) is evaluated on the last window only: the figures
 *   now minus the figures at the latest snapshot at least a window old (counts subtract, histograms
 *   subtract — HDR `subtract`, exact). A window is full once that older snapshot exists and is at
 *   most {@link windowSlackMs} older than the window; its worst value and how many windows failed are
 *   tracked ({@link WindowTrack}) and stored for the final result; with `abortOnFail` the first
 *   failing window (after `delayAbortEval`) aborts.
 *
 * A trend or rate with no sample (no request, no check, no iteration in the window) is not
 * evaluated: an empty window neither passes nor fails. Counters are always evaluated (0 requests in
 * a window is a value). Relative thresholds (`baseline*1.1`) compare with the plan's frozen baseline
 * figure; without one they are never evaluated here (they pass with a note, as at the end).
 * Profile time that does not advance (a paused load, shards not all started) evaluates nothing.
 */
import type { Histogram } from 'hdr-histogram-js';
import { formatDuration } from '../domain/duration';
import type { LoadAbort } from '../domain/load-control';
import {
  counterValue,
  decodeHistogram,
  encodeHistogram,
  trendValue,
  type LoadMetricsState,
  type RequestStatsState,
  type ThresholdBaseline,
  type ThresholdOutcome,
} from './metrics';
import { aggregationName, baselineKey, compare, THRESHOLD_METRICS, thresholdText, type Threshold } from './thresholds';

/** Counts a threshold reads (merged across shards), cumulative or over a window. */
interface Counts {
  requests: number;
  failed: number;
  checks: number;
  passedChecks: number;
  iterations: number;
  bytesSent: number;
  bytesReceived: number;
}

/** {@link Counts} plus the trend's histogram (µs) when the threshold is on a trend. */
export interface WatchFigures extends Counts {
  histogram?: Histogram;
}

/**
 * One windowed threshold's windows so far (stored in `run_load_controls.windows` and heartbeated).
 * Values are in the threshold's unit (ms, a fraction, a count or per second).
 */
export interface WindowTrack {
  /** Index of the threshold in the profile's `thresholds` (parse order). */
  index: number;
  /** `http_req_duration{name:login}` */
  metric: string;
  /** `p(95)<300 over 30s` */
  threshold: string;
  windowMs: number;
  /** Full windows evaluated. */
  evaluated: number;
  /** Full windows in which it failed. */
  failed: number;
  /** The worst window's value: the highest for `<`/`<=`, the lowest for `>`/`>=`, a failing one first for the others. */
  worst: number | null;
  /** Profile time (ms) at the end of the worst window. */
  worstAtMs: number | null;
  /** The last window's value. */
  last: number | null;
}

/** What the watcher stores and heartbeats: every windowed threshold's {@link WindowTrack}. */
export interface ThresholdWindows {
  /** Profile time (ms) of the last evaluation. */
  atMs: number;
  tracks: WindowTrack[];
}

/** How much older than its window a window's base snapshot may be and still count as full, ms. */
export function windowSlackMs(windowMs: number): number {
  return Math.max(2000, windowMs / 10);
}

const ZERO: Counts = {
  requests: 0,
  failed: 0,
  checks: 0,
  passedChecks: 0,
  iterations: 0,
  bytesSent: 0,
  bytesReceived: 0,
};

/** What one threshold reads: its stats (all, a name, a test case) and, for a trend, which histogram. */
function sourceOf(t: Threshold): {
  key: string;
  pick(s: LoadMetricsState): RequestStatsState | undefined;
  trend?: 'duration' | 'iterationDuration';
} {
  const trend =
    t.metric === 'http_req_duration' ? 'duration' : t.metric === 'iteration_duration' ? 'iterationDuration' : undefined;
  const stats =
    t.tags.name !== undefined
      ? { key: `name:${t.tags.name}`, pick: (s: LoadMetricsState) => s.byName[t.tags.name!] }
      : t.tags.testCase !== undefined
        ? { key: `testCase:${t.tags.testCase}`, pick: (s: LoadMetricsState) => s.byTestCase[t.tags.testCase!] }
        : { key: 'all', pick: (s: LoadMetricsState) => s.all };
  return { ...stats, key: `${stats.key}|${trend ?? ''}`, ...(trend ? { trend } : {}) };
}

/** A source's figures merged over shards: counts, and the trend's histogram encoded (µs). */
function merge(shards: LoadMetricsState[], source: ReturnType<typeof sourceOf>): { counts: Counts; histogram: string } {
  const counts = { ...ZERO };
  const texts: string[] = [];
  for (const shard of shards) {
    const s = source.pick(shard);
    counts.bytesSent += shard.bytesSent;
    counts.bytesReceived += shard.bytesReceived;
    if (!s) continue;
    counts.requests += s.requests;
    counts.failed += s.failed;
    counts.checks += s.checks;
    counts.passedChecks += s.passedChecks;
    counts.iterations += s.iterations;
    if (source.trend && s[source.trend]) texts.push(s[source.trend]);
  }
  if (texts.length <= 1) return { counts, histogram: texts[0] ?? '' };
  const h = decodeHistogram(texts[0]!);
  for (const text of texts.slice(1)) h.add(decodeHistogram(text));
  return { counts, histogram: encodeHistogram(h) };
}

/**
 * The value threshold `t` compares on `f` (ms for trends, a fraction for rates, a count or a
 * per-second rate over `seconds` for counters); undefined when a trend or rate has no sample.
 * The same aggregations as the final result's (src/perf/metrics.ts `thresholdActual`).
 */
export function figureValue(t: Threshold, f: WatchFigures, seconds: number): number | undefined {
  const a = t.aggregation;
  switch (THRESHOLD_METRICS[t.metric]) {
    case 'trend': {
      const h = f.histogram;
      return h && h.totalCount ? trendValue(h, a) : undefined;
    }
    case 'rate':
      if (t.metric === 'http_req_failed') return f.requests ? f.failed / f.requests : undefined;
      return f.checks ? f.passedChecks / f.checks : undefined;
    case 'counter': {
      const count = counterValue(t.metric, f);
      if (a !== 'rate') return count;
      return seconds > 0 ? count / seconds : undefined;
    }
  }
}

/** Whether value `a` (failing or not) is worse than the worst so far `b` for operator `op`. */
function worse(a: number, aFails: boolean, b: number | null, bFails: boolean, op: Threshold['operator']): boolean {
  if (b === null) return true;
  if (aFails !== bFails) return aFails;
  if (op === '<' || op === '<=') return a > b;
  if (op === '>' || op === '>=') return a < b;
  return false;
}

/** `512 ms`, `0.12`, `340 /s`, `2048 B`: a value in its threshold's unit. */
function valueText(t: Threshold, value: number): string {
  const v = Math.round(value * 10_000) / 10_000;
  const kind = THRESHOLD_METRICS[t.metric];
  if (kind === 'trend') return `${v} ms`;
  if (kind === 'rate') return String(v);
  const bytes = t.metric === 'data_sent' || t.metric === 'data_received';
  if (t.aggregation === 'rate') return `${v} ${bytes ? 'B/s' : '/s'}`;
  return bytes ? `${v} B` : String(v);
}

/** A merged snapshot of profile time `atMs`: each source's counts and encoded histogram. */
interface Snapshot {
  atMs: number;
  sources: Map<string, { counts: Counts; histogram: string }>;
}

/**
 * Evaluates a run's aborting and windowed thresholds from successive shard snapshots (see the
 * module's comment). Holds the snapshots of the longest window (encoded histograms, a few KB each).
 */
export class ThresholdWatcher {
  /** Indices (in the profile's thresholds) of the thresholds watched: `abortOnFail` or a window. */
  readonly watched: number[];
  private readonly limits: Array<number | undefined>;
  private readonly tracks = new Map<number, WindowTrack>();
  private history: Snapshot[] = [];
  private lastAtMs = -1;
  private readonly longestWindowMs: number;

  /**
   * `resume`: the windows of an earlier attempt (heartbeat or store): their tracks carry on; the
   * snapshots are not carried, so windows are full again one window after the resumption.
   */
  constructor(
    private readonly thresholds: Threshold[],
    baseline?: ThresholdBaseline,
    resume?: ThresholdWindows | null,
  ) {
    this.watched = thresholds.flatMap((t, i) => (t.abortOnFail || t.windowMs !== undefined ? [i] : []));
    this.limits = thresholds.map((t) => {
      if (!t.relative) return t.value;
      const base = baseline?.runId == null ? undefined : baseline.values[baselineKey(t)];
      return base === undefined ? undefined : base * t.value;
    });
    this.longestWindowMs = Math.max(0, ...thresholds.map((t) => t.windowMs ?? 0));
    for (const i of this.watched) {
      const t = thresholds[i]!;
      if (t.windowMs === undefined) continue;
      const text = thresholdText(t);
      const earlier = resume?.tracks.find((w) => w.index === i && w.threshold === text && w.metric === t.key);
      this.tracks.set(
        i,
        earlier
          ? { ...earlier }
          : {
              index: i,
              metric: t.key,
              threshold: text,
              windowMs: t.windowMs,
              evaluated: 0,
              failed: 0,
              worst: null,
              worstAtMs: null,
              last: null,
            },
      );
    }
    if (resume) this.lastAtMs = resume.atMs;
    // Cumulative figures are zero at profile time 0, whenever the watcher starts.
    this.history.push({ atMs: 0, sources: new Map() });
  }

  /** The windows so far (what the store and the heartbeat keep). */
  get windows(): ThresholdWindows {
    return { atMs: Math.max(0, this.lastAtMs), tracks: [...this.tracks.values()].map((w) => ({ ...w })) };
  }

  /**
   * Takes the shards' latest snapshots at profile time `atMs` (the least advanced shard's). Returns
   * the first abort (in the profile's order) and whether the windows changed. Profile time that did
   * not advance since the last call evaluates nothing.
   */
  observe(atMs: number, shards: LoadMetricsState[]): { abort?: LoadAbort; changed: boolean } {
    if (atMs <= this.lastAtMs || this.watched.length === 0) return { changed: false };
    this.lastAtMs = atMs;
    const sources = new Map<string, { counts: Counts; histogram: string }>();
    const figuresOf = (t: Threshold) => {
      const source = sourceOf(t);
      let f = sources.get(source.key);
      if (!f) sources.set(source.key, (f = merge(shards, source)));
      return f;
    };
    let abort: LoadAbort | undefined;
    let changed = false;
    for (const i of this.watched) {
      const t = this.thresholds[i]!;
      const limit = this.limits[i];
      const now = figuresOf(t);
      if (limit === undefined) continue;
      const mayAbort = t.abortOnFail === true && atMs >= (t.delayAbortEvalMs ?? 0);
      if (t.windowMs === undefined) {
        if (!mayAbort || abort) continue;
        const value = figureValue(
          t,
          { ...now.counts, ...(now.histogram ? { histogram: decodeHistogram(now.histogram) } : {}) },
          atMs / 1000,
        );
        if (value !== undefined && !compare(value, t.operator, limit)) abort = this.abortOf(t, value, atMs, limit);
        continue;
      }
      const window = this.windowFigures(t, now, atMs);
      if (!window) continue;
      const value = figureValue(t, window.figures, window.spanMs / 1000);
      if (value === undefined) continue;
      const fails = !compare(value, t.operator, limit);
      const track = this.tracks.get(i)!;
      track.evaluated += 1;
      track.last = Math.round(value * 10_000) / 10_000;
      if (fails) track.failed += 1;
      const worstFails = track.worst !== null && !compare(track.worst, t.operator, limit);
      if (worse(value, fails, track.worst, worstFails, t.operator)) {
        track.worst = track.last;
        track.worstAtMs = Math.round(atMs);
      }
      changed = true;
      if (fails && mayAbort && !abort) abort = this.abortOf(t, value, atMs, limit);
    }
    if (this.longestWindowMs > 0) {
      this.history.push({ atMs, sources });
      // Keep the latest snapshot at least the longest window old (a base) and everything after it.
      let keepFrom = 0;
      for (let k = 0; k < this.history.length; k++)
        if (this.history[k]!.atMs <= atMs - this.longestWindowMs) keepFrom = k;
      if (keepFrom > 0) this.history = this.history.slice(keepFrom);
    }
    return { ...(abort ? { abort } : {}), changed };
  }

  /** `t`'s figures over the window ending now, and the window's real span; undefined when it is not full. */
  private windowFigures(
    t: Threshold,
    now: { counts: Counts; histogram: string },
    atMs: number,
  ): { figures: WatchFigures; spanMs: number } | undefined {
    const windowMs = t.windowMs!;
    let base: Snapshot | undefined;
    for (const s of this.history) if (s.atMs <= atMs - windowMs) base = s;
    if (!base || atMs - base.atMs > windowMs + windowSlackMs(windowMs)) return undefined;
    const then = base.sources.get(sourceOf(t).key) ?? { counts: ZERO, histogram: '' };
    const counts = { ...now.counts };
    for (const k of Object.keys(counts) as Array<keyof Counts>) counts[k] = Math.max(0, counts[k] - then.counts[k]);
    const figures: WatchFigures = counts;
    if (sourceOf(t).trend) {
      const h = decodeHistogram(now.histogram);
      if (then.histogram) {
        try {
          h.subtract(decodeHistogram(then.histogram));
        } catch {
          return undefined; // a snapshot not contained in the later one (cannot happen with cumulative figures)
        }
      }
      figures.histogram = h;
    }
    return { figures, spanMs: atMs - base.atMs };
  }

  private abortOf(t: Threshold, value: number, atMs: number, limit: number): LoadAbort {
    const threshold = thresholdText(t);
    const actual = Math.round(value * 10_000) / 10_000;
    const over = t.windowMs === undefined ? '' : ` over the last ${formatDuration(t.windowMs)}`;
    const limitNote = t.relative ? `, limit ${Math.round(limit * 10_000) / 10_000}` : '';
    return {
      metric: t.key,
      threshold,
      actual,
      atMs: Math.round(atMs),
      message: `Threshold ${t.key} ${threshold} failed at ${Math.round(atMs / 1000)} s (${aggregationName(t.aggregation)}${over} = ${valueText(t, value)}${limitNote}): aborted (abortOnFail)`,
    };
  }
}

/**
 * The final outcomes of a run's thresholds (completePerformanceRun, activities/runs.ts) from the
 * cumulative ones ({@link ThresholdOutcome}, src/perf/metrics.ts `evaluateThresholds`, same order as
 * `thresholds`), the watcher's stored `windows` and the run's `abort`:
 *
 * - `abortOnFail: true` on the thresholds that had it;
 * - a windowed threshold with at least one full window: `passed` when no window failed, `actual` the
 *   worst window's value, `window` its figures, `threshold` with its `over …`; with no full window
 *   (a run shorter than its window) it keeps the whole run's outcome, with `window.evaluated` 0 and
 *   a `note`;
 * - the threshold that aborted: `passed: false`, `aborted: true`, `actual` its value when it
 *   failed, `abortedAtMs`.
 */
export function watchedOutcomes(
  thresholds: Threshold[],
  outcomes: ThresholdOutcome[],
  windows: ThresholdWindows | null | undefined,
  abort: LoadAbort | undefined,
): ThresholdOutcome[] {
  let abortTaken = false;
  return outcomes.map((outcome, i) => {
    const t = thresholds[i];
    if (!t) return outcome;
    let o: ThresholdOutcome = { ...outcome, ...(t.abortOnFail ? { abortOnFail: true as const } : {}) };
    const text = thresholdText(t);
    if (t.windowMs !== undefined) {
      o.threshold = text;
      const track = windows?.tracks.find((w) => w.index === i && w.threshold === text && w.metric === t.key);
      const compared = o.note === undefined; // a relative threshold without a baseline was not compared
      if (track && track.evaluated > 0 && track.worst !== null && compared)
        o = {
          ...o,
          passed: track.failed === 0,
          actual: track.worst,
          window: {
            durationMs: t.windowMs,
            evaluated: track.evaluated,
            failed: track.failed,
            worstAtMs: track.worstAtMs,
          },
        };
      else
        o = {
          ...o,
          window: { durationMs: t.windowMs, evaluated: 0, failed: 0, worstAtMs: null },
          ...(compared ? { note: `no full window of ${formatDuration(t.windowMs)}: evaluated on the whole run` } : {}),
        };
    }
    if (abort && !abortTaken && abort.metric === t.key && abort.threshold === text) {
      abortTaken = true;
      o = {
        ...o,
        passed: false,
        aborted: true,
        ...(abort.actual !== null ? { actual: abort.actual } : {}),
        abortedAtMs: abort.atMs,
      };
    }
    return o;
  });
}
