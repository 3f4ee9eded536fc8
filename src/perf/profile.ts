/**
 * Load profiles of performance runs, in k6's vocabulary (docs/performance.md; k6 executors:
 * https://grafana.com/docs/k6/latest/using-k6/scenarios/executors/). A run carries a profile when
 * it is a performance run; a runner or a deployment may store one so that its scheduled and webhook
 * runs are performance runs too.
 *
 * As written by users ({@link LoadProfileInput}), durations are k6 strings (`"30s"`, `"5m"`) or
 * numbers of milliseconds (src/domain/duration.ts); {@link validateProfile} checks every field and
 * returns the normalised {@link LoadProfile} (milliseconds throughout) that runs carry in their plan.
 *
 * Executors:
 * - `constant-vus`: `vus` virtual users loop over iterations for `duration`.
 * - `ramping-vus`: from `startVUs` (default 1), linearly to each stage's `target` over its
 *   `duration`; VUs over the target finish their iteration (at most `gracefulRampDown`, default
 *   30s) and stop.
 * - `constant-arrival-rate`: `rate` iterations per `timeUnit` (default 1s) start for `duration`,
 *   whatever the target's latency, on VUs from a pool of `preAllocatedVUs` growing to `maxVUs`
 *   (default `preAllocatedVUs`); an iteration due with no VU free is dropped and counted.
 * - `ramping-arrival-rate`: from `startRate` (default 0), linearly to each stage's `target` rate.
 *
 * Common fields: `gracefulStop` (default 30s: iterations under way at the end may finish this long,
 * then they are interrupted), `thinkTime` (a pause after each iteration: a duration, or
 * `{min, max}` for a uniform random pause), `thresholds` (src/perf/thresholds.ts), `shards` (the
 * number of load activities the run is split into, which any worker on the load task queue may take;
 * default 1).
 */
import { DurationError, formatDuration, parseDuration } from '../domain/duration';
import { LOAD_PROFILE_LIMITS } from '../domain/load-limits';
import { parseThresholds, type Threshold } from './thresholds';

export const EXECUTORS = ['constant-vus', 'ramping-vus', 'constant-arrival-rate', 'ramping-arrival-rate'] as const;
export type Executor = (typeof EXECUTORS)[number];

/** A duration as users write it: `"30s"`, `"1m30s"`, or milliseconds. */
export type DurationInput = string | number;

/** A load profile as given on a run, a runner or a deployment (validated by {@link validateProfile}). */
export interface LoadProfileInput {
  executor: Executor;
  vus?: number;
  duration?: DurationInput;
  startVUs?: number;
  stages?: Array<{ duration: DurationInput; target: number }>;
  gracefulRampDown?: DurationInput;
  rate?: number;
  startRate?: number;
  timeUnit?: DurationInput;
  preAllocatedVUs?: number;
  maxVUs?: number;
  gracefulStop?: DurationInput;
  thinkTime?: DurationInput | { min: DurationInput; max: DurationInput };
  thresholds?: Record<
    string,
    Array<string | { threshold: string; abortOnFail?: boolean; delayAbortEval?: DurationInput }>
  >;
  shards?: number;
}

/** One stage of a ramping executor: reach `target` (VUs, or iterations per time unit) over `durationMs`. */
export interface Stage {
  durationMs: number;
  target: number;
}

/** A validated profile, milliseconds throughout. */
export type LoadProfile = CommonProfile &
  (
    | { executor: 'constant-vus'; vus: number; durationMs: number }
    | { executor: 'ramping-vus'; startVUs: number; stages: Stage[]; gracefulRampDownMs: number }
    | {
        executor: 'constant-arrival-rate';
        rate: number;
        timeUnitMs: number;
        durationMs: number;
        preAllocatedVUs: number;
        maxVUs: number;
      }
    | {
        executor: 'ramping-arrival-rate';
        startRate: number;
        timeUnitMs: number;
        stages: Stage[];
        preAllocatedVUs: number;
        maxVUs: number;
      }
  );

interface CommonProfile {
  gracefulStopMs: number;
  thinkTime: { minMs: number; maxMs: number };
  thresholds: Threshold[];
  shards: number;
}

/** A field of the profile at fault: `path` starts inside the profile. */
export interface ProfileIssue {
  path: Array<string | number>;
  message: string;
}

/** Bounds of a profile (per run): src/domain/load-limits.ts. */
export const PROFILE_LIMITS = LOAD_PROFILE_LIMITS;

const FIELDS: Record<Executor, string[]> = {
  'constant-vus': ['vus', 'duration'],
  'ramping-vus': ['startVUs', 'stages', 'gracefulRampDown'],
  'constant-arrival-rate': ['rate', 'timeUnit', 'duration', 'preAllocatedVUs', 'maxVUs'],
  'ramping-arrival-rate': ['startRate', 'timeUnit', 'stages', 'preAllocatedVUs', 'maxVUs'],
};
const COMMON = ['executor', 'gracefulStop', 'thinkTime', 'thresholds', 'shards'];

/**
 * Checks a profile as users write it and normalises it. Every issue is reported with its path inside
 * the profile (e.g. `['stages', 1, 'duration']`); the profile is returned only when there are none.
 */
export function validateProfile(input: unknown): { profile?: LoadProfile; issues: ProfileIssue[] } {
  const issues: ProfileIssue[] = [];
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return {
      issues: [
        {
          path: [],
          message:
            'must be an object with an executor, e.g. {"executor": "constant-vus", "vus": 10, "duration": "30s"}',
        },
      ],
    };
  }
  const p = input as Record<string, unknown>;
  const executor = p.executor as Executor;
  if (!EXECUTORS.includes(executor)) {
    return { issues: [{ path: ['executor'], message: `must be one of ${EXECUTORS.join(', ')}` }] };
  }
  for (const field of Object.keys(p)) {
    if (!COMMON.includes(field) && !FIELDS[executor].includes(field)) {
      const owner = EXECUTORS.find((e) => FIELDS[e].includes(field));
      issues.push({
        path: [field],
        message: owner ? `is not a field of ${executor} (it belongs to ${owner})` : 'is not a field of a load profile',
      });
    }
  }
  const duration = (field: string, fallback?: number, min = 0): number => {
    if (p[field] === undefined) {
      if (fallback === undefined) issues.push({ path: [field], message: `is required for ${executor}` });
      return fallback ?? 0;
    }
    return durationAt([field], p[field], issues, min);
  };
  const integer = (field: string, min: number, max: number, fallback?: number): number => {
    const value = p[field];
    if (value === undefined) {
      if (fallback === undefined) issues.push({ path: [field], message: `is required for ${executor}` });
      return fallback ?? min;
    }
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      issues.push({ path: [field], message: `must be a whole number from ${min} to ${max}` });
      return min;
    }
    return value;
  };
  const common: CommonProfile = {
    gracefulStopMs: duration('gracefulStop', 30_000),
    thinkTime: thinkTimeOf(p.thinkTime, issues),
    thresholds: [],
    shards: integer('shards', 1, PROFILE_LIMITS.maxShards, 1),
  };
  const parsed = parseThresholds(p.thresholds);
  common.thresholds = parsed.thresholds;
  for (const issue of parsed.issues) issues.push({ path: ['thresholds', ...issue.path], message: issue.message });

  let profile: LoadProfile;
  switch (executor) {
    case 'constant-vus':
      profile = {
        ...common,
        executor,
        vus: integer('vus', 1, PROFILE_LIMITS.maxVUs),
        durationMs: duration('duration', undefined, 1),
      };
      break;
    case 'ramping-vus': {
      const stages = stagesOf(p.stages, issues, PROFILE_LIMITS.maxVUs, 'VUs');
      profile = {
        ...common,
        executor,
        startVUs: integer('startVUs', 0, PROFILE_LIMITS.maxVUs, 1),
        stages,
        gracefulRampDownMs: duration('gracefulRampDown', 30_000),
      };
      break;
    }
    case 'constant-arrival-rate':
    case 'ramping-arrival-rate': {
      const timeUnitMs = duration('timeUnit', 1000, 1);
      const preAllocatedVUs = integer('preAllocatedVUs', 1, PROFILE_LIMITS.maxVUs);
      const maxVUs = integer('maxVUs', 1, PROFILE_LIMITS.maxVUs, preAllocatedVUs);
      if (maxVUs < preAllocatedVUs)
        issues.push({ path: ['maxVUs'], message: `must be at least preAllocatedVUs (${preAllocatedVUs})` });
      const maxRate = Math.floor((PROFILE_LIMITS.maxRatePerSecond * timeUnitMs) / 1000);
      if (executor === 'constant-arrival-rate') {
        const rate = integer('rate', 1, Math.max(1, maxRate));
        profile = {
          ...common,
          executor,
          rate,
          timeUnitMs,
          durationMs: duration('duration', undefined, 1),
          preAllocatedVUs,
          maxVUs,
        };
      } else {
        const stages = stagesOf(p.stages, issues, Math.max(1, maxRate), 'iterations per timeUnit');
        profile = {
          ...common,
          executor,
          startRate: integer('startRate', 0, Math.max(1, maxRate), 0),
          timeUnitMs,
          stages,
          preAllocatedVUs,
          maxVUs,
        };
      }
      break;
    }
  }
  const vus = peakVUs(profile);
  if (profile.shards > vus)
    issues.push({
      path: ['shards'],
      message: `must not exceed the profile's ${vus} VUs at most (each shard runs at least one VU)`,
    });
  return issues.length ? { issues } : { profile, issues };
}

function durationAt(path: Array<string | number>, value: unknown, issues: ProfileIssue[], min = 0): number {
  try {
    const ms = parseDuration(value);
    if (ms < min) issues.push({ path, message: `must be at least ${formatDuration(min)}` });
    return ms;
  } catch (err) {
    if (!(err instanceof DurationError)) throw err;
    issues.push({ path, message: err.message });
    return 0;
  }
}

function thinkTimeOf(value: unknown, issues: ProfileIssue[]): CommonProfile['thinkTime'] {
  if (value === undefined) return { minMs: 0, maxMs: 0 };
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const { min, max, ...rest } = value as Record<string, unknown>;
    for (const field of Object.keys(rest))
      issues.push({ path: ['thinkTime', field], message: 'is not a field of thinkTime (min, max)' });
    const minMs =
      min === undefined
        ? (issues.push({ path: ['thinkTime', 'min'], message: 'is required' }), 0)
        : durationAt(['thinkTime', 'min'], min, issues);
    const maxMs =
      max === undefined
        ? (issues.push({ path: ['thinkTime', 'max'], message: 'is required' }), 0)
        : durationAt(['thinkTime', 'max'], max, issues);
    if (maxMs < minMs)
      issues.push({ path: ['thinkTime', 'max'], message: `must be at least min (${formatDuration(minMs)})` });
    return { minMs, maxMs };
  }
  const ms = durationAt(['thinkTime'], value, issues);
  return { minMs: ms, maxMs: ms };
}

function stagesOf(value: unknown, issues: ProfileIssue[], maxTarget: number, unit: string): Stage[] {
  if (!Array.isArray(value) || value.length === 0) {
    issues.push({
      path: ['stages'],
      message: `is required: a non-empty array of {duration, target} (target in ${unit})`,
    });
    return [];
  }
  if (value.length > PROFILE_LIMITS.maxStages)
    issues.push({ path: ['stages'], message: `at most ${PROFILE_LIMITS.maxStages} stages` });
  return value.map((raw: unknown, i) => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      issues.push({ path: ['stages', i], message: 'must be an object {duration, target}' });
      return { durationMs: 0, target: 0 };
    }
    const { duration, target, ...rest } = raw as Record<string, unknown>;
    for (const field of Object.keys(rest))
      issues.push({ path: ['stages', i, field], message: 'is not a field of a stage (duration, target)' });
    const durationMs =
      duration === undefined
        ? (issues.push({ path: ['stages', i, 'duration'], message: 'is required' }), 0)
        : durationAt(['stages', i, 'duration'], duration, issues);
    if (typeof target !== 'number' || !Number.isInteger(target) || target < 0 || target > maxTarget) {
      issues.push({
        path: ['stages', i, 'target'],
        message: `must be a whole number from 0 to ${maxTarget} (${unit})`,
      });
      return { durationMs, target: 0 };
    }
    return { durationMs, target };
  });
}

/** Milliseconds of load the profile plans (without its graceful stop): `duration`, or the stages' sum. */
export function plannedMs(profile: LoadProfile): number {
  return 'stages' in profile ? profile.stages.reduce((ms, s) => ms + s.durationMs, 0) : profile.durationMs;
}

/** Longest the profile can take: the planned load plus the graceful stop (and ramp-down). */
export function longestMs(profile: LoadProfile): number {
  return (
    plannedMs(profile) + profile.gracefulStopMs + (profile.executor === 'ramping-vus' ? profile.gracefulRampDownMs : 0)
  );
}

/** The most VUs the profile can run at once (all shards). */
export function peakVUs(profile: LoadProfile): number {
  switch (profile.executor) {
    case 'constant-vus':
      return profile.vus;
    case 'ramping-vus':
      return Math.max(profile.startVUs, ...profile.stages.map((s) => s.target));
    default:
      return profile.maxVUs;
  }
}

/** A profile's one-line description for summaries: `constant-vus · 50 VUs · 5m`. */
export function describeProfile(profile: LoadProfile): string {
  const length = formatDuration(plannedMs(profile));
  switch (profile.executor) {
    case 'constant-vus':
      return `constant-vus · ${profile.vus} VUs · ${length}`;
    case 'ramping-vus':
      return `ramping-vus · up to ${peakVUs(profile)} VUs · ${profile.stages.length} stages · ${length}`;
    case 'constant-arrival-rate':
      return `constant-arrival-rate · ${profile.rate}/${formatDuration(profile.timeUnitMs)} · ${length}`;
    case 'ramping-arrival-rate':
      return `ramping-arrival-rate · up to ${Math.max(profile.startRate, ...profile.stages.map((s) => s.target))}/${formatDuration(profile.timeUnitMs)} · ${length}`;
  }
}

/** Shard `index`'s share of `total` (VUs): the shares of all shards add up to `total`. */
export function shareOf(total: number, shards: number, index: number): number {
  return Math.floor(total / shards) + (index < total % shards ? 1 : 0);
}

/**
 * Target VUs of a VU executor at `tMs` into the profile, all shards together (0 once the plan is
 * over). Ramping stages interpolate linearly, rounded to the nearest VU, as k6's ramping-vus does.
 */
export function vusAt(profile: LoadProfile, tMs: number): number {
  if (profile.executor === 'constant-vus') return tMs < profile.durationMs ? profile.vus : 0;
  if (profile.executor !== 'ramping-vus') return 0;
  let from = profile.startVUs;
  let start = 0;
  for (const stage of profile.stages) {
    if (tMs < start + stage.durationMs)
      return Math.round(from + ((stage.target - from) * (tMs - start)) / stage.durationMs);
    start += stage.durationMs;
    from = stage.target;
  }
  return 0;
}

/**
 * Rate segments of an arrival-rate executor: iterations per millisecond from `from` to `to` over
 * `[startMs, startMs + durationMs)`.
 */
function rateSegments(profile: LoadProfile): Array<{ startMs: number; durationMs: number; from: number; to: number }> {
  if (profile.executor === 'constant-arrival-rate') {
    const r = profile.rate / profile.timeUnitMs;
    return [{ startMs: 0, durationMs: profile.durationMs, from: r, to: r }];
  }
  if (profile.executor !== 'ramping-arrival-rate') return [];
  const segments = [];
  let start = 0;
  let from = profile.startRate / profile.timeUnitMs;
  for (const stage of profile.stages) {
    const to = stage.target / profile.timeUnitMs;
    segments.push({ startMs: start, durationMs: stage.durationMs, from, to });
    start += stage.durationMs;
    from = to;
  }
  return segments;
}

/** Iterations an arrival-rate profile starts in total (all shards), rounded down. */
export function plannedIterations(profile: LoadProfile): number {
  return Math.floor(rateSegments(profile).reduce((n, s) => n + ((s.from + s.to) / 2) * s.durationMs, 0) + 1e-9);
}

/**
 * When (ms into the profile) global iteration `k` (0-based) of an arrival-rate profile starts: the
 * moment the integral of the rate reaches `k`, so a constant 10/s starts iterations at 0, 100, 200…
 * ms. Undefined when the profile starts fewer than `k + 1` iterations. Shard `i` of `n` runs the
 * iterations `k ≡ i (mod n)`, so the shards together keep the rate exactly.
 */
export function arrivalTime(profile: LoadProfile, k: number): number | undefined {
  let before = 0;
  for (const s of rateSegments(profile)) {
    const area = ((s.from + s.to) / 2) * s.durationMs;
    if (k < before + area - 1e-9 || (k === before && area > 0)) {
      const need = k - before;
      const slope = (s.to - s.from) / s.durationMs;
      // need = from·τ + slope·τ²/2, solved for τ in [0, durationMs].
      const tau =
        Math.abs(slope) < 1e-15
          ? need / s.from
          : (-s.from + Math.sqrt(Math.max(0, s.from * s.from + 2 * slope * need))) / slope;
      return s.startMs + Math.min(s.durationMs, Math.max(0, tau));
    }
    before += area;
  }
  return undefined;
}

/** Milliseconds a run needs besides its load: starting the shards and storing the figures. */
export const RUN_OVERHEAD_MS = 30_000;

/**
 * Why `profile` cannot finish within a run `timeoutSeconds` long, naming both; undefined when it fits.
 * It fits when its longest time ({@link longestMs}) plus {@link RUN_OVERHEAD_MS} is within the timeout.
 */
export function timeoutProblem(profile: LoadProfile, timeoutSeconds: number): string | undefined {
  const needMs = longestMs(profile) + RUN_OVERHEAD_MS;
  if (needMs <= timeoutSeconds * 1000) return undefined;
  const parts = [
    `${formatDuration(plannedMs(profile))} of load`,
    `gracefulStop ${formatDuration(profile.gracefulStopMs)}`,
  ];
  if (profile.executor === 'ramping-vus') parts.push(`gracefulRampDown ${formatDuration(profile.gracefulRampDownMs)}`);
  parts.push(`${RUN_OVERHEAD_MS / 1000} s to start and finish`);
  return `the load profile needs up to ${Math.ceil(needMs / 1000)} s (${parts.join(' + ')}) but the run's timeout is ${timeoutSeconds} s: raise timeout or shorten the profile`;
}

/** What a performance run's plan carries (the workflow reads it; it computes nothing of the profile itself). */
export interface PerformancePlan {
  profile: LoadProfile;
  /** One summary per shard for the Temporal Web UI: `constant-vus · 50 VUs · 5m · shard 1/2 (25 VUs)`. */
  shardSummaries: string[];
  /** {@link longestMs}: bounds each shard activity's attempt. */
  longestMs: number;
  /**
   * The profile has thresholds with `abortOnFail` or a window (src/perf/thresholds.ts): the run
   * workflow runs the threshold watcher (`watchLoadThresholds`) beside the shards. Absent: false
   * (plans made before it existed).
   */
  watch?: boolean;
}

/** The plan of a validated profile. */
export function performancePlan(profile: LoadProfile): PerformancePlan {
  const description = describeProfile(profile);
  const vus = peakVUs(profile);
  const shardSummaries = Array.from(
    { length: profile.shards },
    (_, i) => `${description} · shard ${i + 1}/${profile.shards} (${shareOf(vus, profile.shards, i)} VUs)`,
  );
  // The watcher runs only for thresholds that need it: one that aborts or one with a window.
  const watch = profile.thresholds.some((t) => t.abortOnFail || t.windowMs !== undefined);
  return { profile, shardSummaries, longestMs: longestMs(profile), ...(watch ? { watch: true } : {}) };
}
