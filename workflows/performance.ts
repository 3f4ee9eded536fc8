/**
 * The load part of a performance run (docs/performance.md), inside the run workflow: one
 * `runLoadShard` activity per shard on the load task queue (`<task queue>-load`, so load never
 * starves functional runs' activities), run in parallel. The run workflow then merges their
 * measurements with its store's `completePerformanceRun` (workflows/run.ts).
 *
 * Each shard heartbeats every second; a heartbeat missed for {@link LOAD_HEARTBEAT_TIMEOUT} (a
 * worker killed, a Temporal restart) fails the attempt, and the next attempt, on any worker,
 * {@link LOAD_RETRY_INITIAL_INTERVAL} later, resumes from the last heartbeat (activities/load.ts):
 * a lost load host costs the load 2–3 s when another is up (docs/performance.md "Durability: what a
 * crash looks like"). Attempts are not limited: the run's own timeout (the cancellable scope around
 * this) bounds them. Everything about the profile was computed by `startRun` into the plan
 * (`PerformancePlan`): this code only reads it.
 *
 * Live control (src/domain/load-control.ts): {@link LoadControl} holds the run's control state,
 * takes the `loadControl` update's commands one at a time and publishes each new state to the store
 * before answering; the shards read it from there. With thresholds that abort or have a window
 * (`PerformancePlan.watch`), the threshold watcher runs beside the shards, and an abort it returns
 * is applied as a stop by `threshold`.
 */
import {
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  patched,
  proxyActivities,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { LoadActivities } from '../activities/load';
import type { PerformancePlan } from '../src/perf/profile';
import { LOAD_TASK_QUEUE_SUFFIX, RUN_KIND_SEARCH_ATTRIBUTE } from '../src/domain/run-workflow';
import {
  applyLoadCommand,
  INITIAL_LOAD_CONTROL,
  LOAD_CONTROL_REFUSED,
  loadCommandRefusal,
  type LoadAbort,
  type LoadControlRequest,
  type LoadControlState,
} from '../src/domain/load-control';

/**
 * How long a shard may go without a heartbeat before its attempt counts as lost: two heartbeat
 * periods. A shard heartbeats every second (activities/load.ts `HEARTBEAT_MS`), and the worker sends
 * one to Temporal at most every min(0.8 × this, `maxHeartbeatThrottleInterval`) = min(1.6 s, 1 s) =
 * 1 s (bin/worker.ts; Temporal TypeScript SDK `WorkerOptions.maxHeartbeatThrottleInterval`: the
 * first heartbeat is sent at once, later ones at the end of each throttle interval). So the server
 * sees one about every second, and a healthy shard whose heartbeat is late by up to a second (its
 * thread busy, a GC pause, a slow RPC) is not lost: measured on a 2-core machine with the
 * activity's thread at full load, the server saw heartbeats at most ~1.1 s apart. A longer
 * timeout only makes a lost host cost more (10 s before: a kill left a 10–15 s gap at the
 * target); a shorter one would leave less than a heartbeat period of margin. An attempt timed out
 * while alive is not a double count: its next heartbeat is refused and it stops (the target may
 * get both attempts' load for up to a second), its successor resumes from the last checkpoint
 * Temporal has, and a snapshot of the older attempt never overwrites a newer one's
 * (activities/load.ts `storeSnapshot`).
 */
export const LOAD_HEARTBEAT_TIMEOUT = '2 seconds';

/**
 * The first retry of a lost shard attempt: at once, in effect (the load is waiting for it); later
 * retries back off up to 10 s (a shard that keeps failing is not a lost host).
 */
export const LOAD_RETRY_INITIAL_INTERVAL = '100 milliseconds';

/**
 * How long the threshold watcher (`watchLoadThresholds`) may go without a heartbeat: it makes no
 * load, so losing it for a while costs evaluations only (docs/performance.md "Stopping on a failing
 * threshold").
 */
export const WATCH_HEARTBEAT_TIMEOUT = '10 seconds';

/** Publishing a control state: retried until it lands (the update waits for it). */
const control = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '5 seconds' },
});

/**
 * A performance run's control state and the commands that change it (the `loadControl` update's
 * handler and validator, workflows/run.ts). Commands are applied one at a time, in the order they
 * arrived, each published before the next.
 */
export class LoadControl {
  state: LoadControlState = INITIAL_LOAD_CONTROL;
  /** The load is under way with live control (set by {@link runLoad}). */
  private live?: PerformancePlan;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly runId: string) {}

  /** The update's validator: throws a {@link LOAD_CONTROL_REFUSED} failure naming why. */
  validate(request: LoadControlRequest): void {
    if (!this.live)
      throw ApplicationFailure.nonRetryable(
        'the run has no load under way that accepts commands (not a performance run, not started, already ended, or started before live control existed)',
        LOAD_CONTROL_REFUSED,
      );
    const refusal = loadCommandRefusal(this.live.profile, this.state, request);
    if (refusal) throw ApplicationFailure.nonRetryable(refusal, LOAD_CONTROL_REFUSED);
  }

  /** Applies and publishes `request`; answers the state after it. */
  command(request: LoadControlRequest, abort?: LoadAbort): Promise<LoadControlState> {
    const apply = async () => {
      const next = applyLoadCommand(this.state, { ...request, seq: this.state.seq + 1, at: new Date().toISOString() });
      if (abort) next.abort = abort;
      this.state = next;
      await control.publishLoadControl({ runId: this.runId, state: next });
      return next;
    };
    const done = this.queue.then(apply, apply);
    this.queue = done.catch(() => undefined);
    return done;
  }

  /** Marks the load under way (commands accepted) or over. */
  setLive(performance: PerformancePlan | undefined): void {
    this.live = performance;
  }
}

/** How the load ended: `abort` when a threshold with `abortOnFail` stopped it. */
export interface LoadEnding {
  abort?: LoadAbort;
}

/**
 * Runs every shard of a performance run's load to its end. `deadlineMs` is the run's deadline
 * (epoch ms): a paused load may outlast its profile, up to the run's timeout.
 */
export async function runLoad(
  runId: string,
  performance: PerformancePlan,
  loadControl: LoadControl,
  deadlineMs: number,
): Promise<LoadEnding> {
  upsertSearchAttributes([{ key: RUN_KIND_SEARCH_ATTRIBUTE, value: 'performance' }]);
  const steerable = patched('load-control');
  const options = {
    taskQueue: `${workflowInfo().taskQueue}${LOAD_TASK_QUEUE_SUFFIX}`,
    // One attempt at most runs the whole profile (a resumed one runs less); paused, up to the run's deadline.
    startToCloseTimeout: steerable
      ? Math.max(performance.longestMs, deadlineMs - Date.now()) + 60_000
      : performance.longestMs + 60_000,
    // A change of timeouts or retry needs no patch: replay does not compare them (the history of a
    // performance run scheduled with a 10 s heartbeat timeout and a 1 s first retry replays on 2 s, 100 ms).
    heartbeatTimeout: LOAD_HEARTBEAT_TIMEOUT,
    retry: { initialInterval: LOAD_RETRY_INITIAL_INTERVAL, backoffCoefficient: 2, maximumInterval: '10 seconds' },
  };
  const { runLoadShard } = proxyActivities<LoadActivities>(options);
  const shards = Promise.all(
    performance.shardSummaries.map((summary, shard) =>
      runLoadShard.executeWithOptions({ ...options, summary }, [{ runId, shard }]),
    ),
  );
  if (!steerable) {
    await shards;
    return {};
  }
  loadControl.setLive(performance);
  try {
    if (!performance.watch) {
      await shards;
      return {};
    }
    const watchOptions = {
      startToCloseTimeout: options.startToCloseTimeout,
      heartbeatTimeout: WATCH_HEARTBEAT_TIMEOUT,
      retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds' },
    };
    const { watchLoadThresholds } = proxyActivities<Activities>(watchOptions);
    const watchScope = new CancellationScope();
    const watching = watchScope
      .run(() =>
        watchLoadThresholds.executeWithOptions(
          { ...watchOptions, summary: 'threshold watcher (abortOnFail, windows)' },
          [{ runId }],
        ),
      )
      .then(
        async (abort) => {
          if (abort && !loadControl.state.stopped)
            await loadControl.command({ action: 'stop', by: 'threshold', reason: abort.message }, abort);
        },
        (err) => {
          if (!isCancellation(err)) throw err;
        },
      );
    try {
      await shards;
    } finally {
      watchScope.cancel();
    }
    await watching;
    return loadControl.state.abort ? { abort: loadControl.state.abort } : {};
  } finally {
    loadControl.setLive(undefined);
  }
}
