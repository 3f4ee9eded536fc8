/**
 * The threshold watcher of a performance run (docs/performance.md "Stopping on a failing
 * threshold"): every second it merges the run's shard snapshots (`run_load_shards`), evaluates the
 * thresholds with `abortOnFail` (after their `delayAbortEval`) and the windowed ones
 * (`p(95)<300 over 30s`) over the last window (src/perf/threshold-windows.ts), stores the windows'
 * worst figures in `run_load_controls.windows` for the final result, and returns the first abort.
 *
 * It runs as the activity `watchLoadThresholds` (activities/load-control.ts) on the run's task
 * queue beside the shards, cancelled when they end. A retried attempt (a worker killed) carries on
 * from the windows of the last heartbeat or of the store, whichever is later; its windows are full
 * again one window after it started (the snapshots themselves are not carried). A store error is
 * logged and the next second tried again: the watcher outlives a database outage.
 */
import type { DataSource } from 'typeorm';
import type { LoadAbort } from '../domain/load-control';
import { RunLoadShard } from '../store/entities';
import { findRunWithPlan } from '../store/runs';
import { readThresholdWindows, storeThresholdWindows } from '../store/threshold-windows';
import { ThresholdWatcher, type ThresholdWindows } from './threshold-windows';

/** Milliseconds between two reads of the shards' snapshots (shards store theirs every second). */
export const WATCH_INTERVAL_MS = 1000;

/** What the watcher gets from the activity around it. */
export interface WatchContext {
  heartbeat(details: unknown): void;
  /** The last heartbeat's details of an earlier attempt (a {@link ThresholdWindows}, or nothing). */
  resumeFrom: unknown;
  cancelled: AbortSignal;
  log: {
    info(message: string, meta?: Record<string, unknown>): void;
    warn(message: string, meta?: Record<string, unknown>): void;
  };
}

/**
 * Runs until an aborting threshold fails (its abort, with the windows stored first) or
 * `ctx.cancelled` (null). A run without such thresholds (or not a performance run) waits for the
 * cancellation. Throws nothing but a failure to read the run's plan at the start.
 */
export async function watchThresholds(
  dataSource: DataSource,
  runId: string,
  ctx: WatchContext,
): Promise<LoadAbort | null> {
  const run = await findRunWithPlan(dataSource.manager, runId);
  const performance = run?.plan?.performance;
  const stored = performance ? await readThresholdWindows(dataSource, runId).catch(() => undefined) : undefined;
  const resume = later(heartbeatWindows(ctx.resumeFrom), stored?.windows ?? null);
  const watcher = performance
    ? new ThresholdWatcher(performance.profile.thresholds, run?.plan?.baseline, resume)
    : undefined;
  const shards = performance?.profile.shards ?? 0;
  if (resume) ctx.log.info('threshold watcher resumed', { runId, atMs: resume.atMs });
  let written = JSON.stringify(resume?.tracks ?? null);
  while (!ctx.cancelled.aborted) {
    if (watcher && watcher.watched.length > 0) {
      try {
        const rows = await dataSource
          .getRepository(RunLoadShard)
          .find({ select: { shard: true, position: true, metrics: true }, where: { runId } });
        // The least advanced shard's profile time; 0 while a shard has not started.
        const atMs = rows.length < shards ? 0 : Math.min(...rows.map((r) => r.position.elapsedMs));
        const { abort, changed } = watcher.observe(
          atMs,
          rows.map((r) => r.metrics),
        );
        const windows = watcher.windows;
        const text = JSON.stringify(windows.tracks);
        if (changed && text !== written) {
          await storeThresholdWindows(dataSource, runId, windows);
          written = text;
        }
        ctx.heartbeat(windows);
        if (abort) {
          ctx.log.info('threshold failed: aborting the load', { runId, ...abort });
          return abort;
        }
      } catch (err) {
        ctx.log.warn('threshold watcher: reading the shards failed; trying again', {
          runId,
          error: (err as Error).message,
        });
        ctx.heartbeat(watcher.windows);
      }
    } else ctx.heartbeat(null);
    await sleep(WATCH_INTERVAL_MS, ctx.cancelled);
  }
  return null;
}

/** The windows in a heartbeat's details, if they look like some. */
function heartbeatWindows(details: unknown): ThresholdWindows | null {
  const d = details as ThresholdWindows | null | undefined;
  return d && typeof d.atMs === 'number' && Array.isArray(d.tracks) ? d : null;
}

/** Of two saved windows, the one evaluated later. */
function later(a: ThresholdWindows | null, b: ThresholdWindows | null): ThresholdWindows | null {
  if (!a) return b;
  if (!b) return a;
  return b.atMs > a.atMs ? b : a;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
