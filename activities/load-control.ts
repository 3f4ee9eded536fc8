/**
 * Activities of a performance run's live control, on the run's own task queue (not the load queue:
 * they must never wait behind load shards for a slot).
 *
 * - `publishLoadControl`: the run workflow's `loadControl` update stores the new control state
 *   (src/store/load-control.ts) before it answers; shards read it from there.
 * - `watchLoadThresholds`: runs beside the shards while the load lasts when the profile has
 *   thresholds with `abortOnFail` or a window (src/perf/watch.ts); returns the abort when one fails,
 *   else runs until the workflow cancels it at the end of the load.
 */
import { Context } from '@temporalio/activity';
import type { DataSource } from 'typeorm';
import type { LoadAbort, LoadControlState } from '../src/domain/load-control';
import { publishLoadControl } from '../src/store/load-control';
import { watchThresholds } from '../src/perf/watch';

export function createLoadControlActivities(dataSource: DataSource) {
  return {
    /** Stores a run's control state (a stale one is dropped); returns what the row holds. */
    publishLoadControl(input: { runId: string; state: LoadControlState }): Promise<LoadControlState> {
      return publishLoadControl(dataSource, input.runId, input.state);
    },

    /**
     * Evaluates the run's aborting and windowed thresholds every second from the shards' merged
     * snapshots until one with `abortOnFail` fails (returned) or the workflow cancels it.
     */
    watchLoadThresholds(input: { runId: string }): Promise<LoadAbort | null> {
      const ctx = Context.current();
      return watchThresholds(dataSource, input.runId, {
        heartbeat: (details) => ctx.heartbeat(details),
        resumeFrom: ctx.info.heartbeatDetails,
        cancelled: ctx.cancellationSignal,
        log: ctx.log,
      });
    },
  };
}
