import { Entity, PrimaryColumn, Column } from 'typeorm';
import { JsonColumn, TimestampColumn } from './columns';
import type { LoadControlState } from '../../domain/load-control';

/**
 * A performance run's control state (src/domain/load-control.ts), written by the run workflow's
 * `publishLoadControl` activity after each command it accepted, read by the run's load shards every
 * half second and by the API. No row: no command yet. Deleted with the run.
 */
@Entity('run_load_controls')
export class RunLoadControl {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  runId!: string;

  /** The state's `seq`: a write with a lower one is stale and dropped. */
  @Column({ type: 'int' })
  seq!: number;

  @JsonColumn()
  state!: LoadControlState;

  /**
   * Windowed thresholds' worst windows so far, written by the threshold watcher
   * (`watchLoadThresholds`, src/perf/watch.ts); null until it wrote any.
   */
  @JsonColumn({ nullable: true })
  windows!: unknown;

  @TimestampColumn()
  updatedAt!: Date;
}
