/**
 * A performance run's control row (`run_load_controls`, src/domain/load-control.ts): written by the
 * run workflow's `publishLoadControl` activity, read by load shards and the API.
 */
import type { DataSource, EntityManager } from 'typeorm';
import { RunLoadControl } from './entities';
import { jsonValue } from './entities/columns';
import type { LoadControlState } from '../domain/load-control';

/** The run's control state, or null when no command reached it. */
export async function readLoadControl(db: DataSource | EntityManager, runId: string): Promise<LoadControlState | null> {
  const row = await db.getRepository(RunLoadControl).findOne({ select: { state: true }, where: { runId } });
  return row?.state ?? null;
}

/**
 * Stores `state` unless the row already holds a later one (a retried publish of an older state
 * must not undo a newer command). Returns the state the row holds afterwards.
 */
export async function publishLoadControl(
  dataSource: DataSource,
  runId: string,
  state: LoadControlState,
): Promise<LoadControlState> {
  return dataSource.transaction(async (manager) => {
    const repo = manager.getRepository(RunLoadControl);
    // Row locks where there are (MySQL/MariaDB); SQLite serialises writers. Two first writes racing
    // (a retried publish): the second insert fails, and its retry takes the update path.
    const locking = dataSource.options.type === 'mysql' || dataSource.options.type === 'mariadb';
    const existing = await repo.findOne({
      where: { runId },
      ...(locking ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
    if (existing && existing.seq >= state.seq) return existing.state;
    if (existing) await repo.update({ runId }, { seq: state.seq, state: jsonValue(state), updatedAt: new Date() });
    else
      await repo.insert({
        runId,
        seq: state.seq,
        state: jsonValue(state),
        windows: jsonValue(null),
        updatedAt: new Date(),
      });
    return state;
  });
}
