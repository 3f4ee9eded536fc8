/**
 * The threshold watcher of a performance run (docs/performance.md "Stopping on a failing
 * threshold"): every second it merges the run's shard snapshots (`run_load_shards`), evaluates the
 * thresholds with `abortOnFail` (after their `delayAbortEval`) and the windowed ones
 * (`p(95)<300 over 30s`) over the last window, stores the windows' worst figures in
 * `run_load_controls.windows` for the final result, and returns the first abort.
 */
import type { DataSource } from 'typeorm';
import type { LoadAbort } from '../domain/load-control';

/** What the watcher gets from the activity around it. */
export interface WatchContext {
  heartbeat(details: unknown): void;
  /** The last heartbeat's details of an earlier attempt. */
  resumeFrom: unknown;
  cancelled: AbortSignal;
  log: {
    info(message: string, meta?: Record<string, unknown>): void;
    warn(message: string, meta?: Record<string, unknown>): void;
  };
}

/** Runs until an aborting threshold fails (its abort) or `ctx.cancelled` (null). */
export async function watchThresholds(
  _dataSource: DataSource,
  _runId: string,
  ctx: WatchContext,
): Promise<LoadAbort | null> {
  // Skeleton: the watcher is written in src/perf/watch.ts (issue contract); until then it only waits.
  await new Promise<void>((resolve) => {
    if (ctx.cancelled.aborted) return resolve();
    ctx.cancelled.addEventListener('abort', () => resolve(), { once: true });
    const beat = setInterval(() => ctx.heartbeat(null), 1000);
    ctx.cancelled.addEventListener('abort', () => clearInterval(beat), { once: true });
  });
  return null;
}
