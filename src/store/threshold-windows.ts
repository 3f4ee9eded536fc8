/**
 * The threshold watcher's windows (src/perf/threshold-windows.ts `ThresholdWindows`) in a run's
 * control row (`run_load_controls.windows`, src/store/entities/run-load-control.ts). The watcher
 * writes them (src/perf/watch.ts); `completePerformanceRun` reads them for windowed thresholds'
 * final outcomes, and the run's abort from the row's state.
 */
import type { DataSource, EntityManager } from 'typeorm';
import { RunLoadControl } from './entities';
import { jsonValue } from './entities/columns';
import { INITIAL_LOAD_CONTROL, type LoadAbort } from '../domain/load-control';
import type { ThresholdWindows } from '../perf/threshold-windows';

/**
 * Stores `windows` in the run's control row, leaving its control state alone. The row may not
 * exist yet (no command reached the run): it is created with seq 0 and the initial state, which
 * any published command (seq ≥ 1) overwrites. A creation racing the first command's (the insert
 * fails on the primary key) falls back to an update.
 */
export async function storeThresholdWindows(
  dataSource: DataSource,
  runId: string,
  windows: ThresholdWindows,
): Promise<void> {
  const repo = dataSource.getRepository(RunLoadControl);
  const exists = await repo.exists({ where: { runId } });
  if (exists) {
    await repo.update({ runId }, { windows: jsonValue(windows) });
    return;
  }
  try {
    await repo.insert({
      runId,
      seq: 0,
      state: jsonValue(INITIAL_LOAD_CONTROL),
      windows: jsonValue(windows),
      updatedAt: new Date(),
    });
  } catch {
    await repo.update({ runId }, { windows: jsonValue(windows) });
  }
}

/** The run's stored windows and abort (null and undefined when the row or they are absent). */
export async function readThresholdWindows(
  db: DataSource | EntityManager,
  runId: string,
): Promise<{ windows: ThresholdWindows | null; abort?: LoadAbort }> {
  const row = await db
    .getRepository(RunLoadControl)
    .findOne({ select: { runId: true, state: true, windows: true }, where: { runId } });
  const windows = (row?.windows as ThresholdWindows | null | undefined) ?? null;
  return { windows, ...(row?.state?.abort ? { abort: row.state.abort } : {}) };
}
