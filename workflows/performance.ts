/**
 * The load part of a performance run (docs/performance.md), inside the run workflow: one
 * `runLoadShard` activity per shard on the load task queue (`<task queue>-load`, so load never
 * starves functional runs' activities), run in parallel. The run workflow then merges their
 * measurements with its store's `completePerformanceRun` (workflows/run.ts).
 *
 * Each shard heartbeats every second; a heartbeat missed for {@link LOAD_HEARTBEAT_TIMEOUT} (a
 * worker killed, a Temporal restart) fails the attempt, and the next attempt, on any worker,
 * resumes from the last heartbeat (activities/load.ts). Attempts are not limited: the run's own
 * timeout (the cancellable scope around this) bounds them. Everything about the profile was
 * computed by `startRun` into the plan (`PerformancePlan`): this code only reads it.
 */
import { proxyActivities, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { LoadActivities } from '../activities/load';
import type { PerformancePlan } from '../src/perf/profile';
import { LOAD_TASK_QUEUE_SUFFIX, RUN_KIND_SEARCH_ATTRIBUTE } from '../src/domain/run-workflow';

/** How long a shard may go without a heartbeat before its attempt counts as lost. */
export const LOAD_HEARTBEAT_TIMEOUT = '10 seconds';

/** Runs every shard of a performance run's load to its end. */
export async function runLoad(runId: string, performance: PerformancePlan): Promise<void> {
  upsertSearchAttributes([{ key: RUN_KIND_SEARCH_ATTRIBUTE, value: 'performance' }]);
  const options = {
    taskQueue: `${workflowInfo().taskQueue}${LOAD_TASK_QUEUE_SUFFIX}`,
    // One attempt at most runs the whole profile (a resumed one runs less).
    startToCloseTimeout: performance.longestMs + 60_000,
    heartbeatTimeout: LOAD_HEARTBEAT_TIMEOUT,
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds' },
  };
  const { runLoadShard } = proxyActivities<LoadActivities>(options);
  await Promise.all(
    performance.shardSummaries.map((summary, shard) =>
      runLoadShard.executeWithOptions({ ...options, summary }, [{ runId, shard }]),
    ),
  );
}
