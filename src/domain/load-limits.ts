/**
 * Bounds of a load profile, shared by its validation (src/perf/profile.ts) and live control
 * (src/domain/load-control.ts, workflow code).
 */

/** Per run. */
export const LOAD_PROFILE_LIMITS = {
  /** Virtual users of a run at most (all shards together). */
  maxVUs: 10_000,
  /** Shards at most. */
  maxShards: 64,
  /** Stages at most. */
  maxStages: 100,
  /** Iterations per second at most (arrival-rate executors). */
  maxRatePerSecond: 100_000,
} as const;
