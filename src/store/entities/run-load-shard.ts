import type { LoadFailure } from '../../perf/test-case-results';
import { Entity, PrimaryColumn, Column } from 'typeorm';
import { JsonColumn, TimestampColumn } from './columns';
import type { LoadMetricsState } from '../../perf/metrics';
import type { EnginePosition } from '../../perf/engine';

/**
 * The latest snapshot of one load shard of a performance run (activities/load.ts writes it with
 * every heartbeat): its cumulative measurements and position in the profile. The API merges a
 * run's snapshots for live figures while it runs (GET /v1/runs/{id}); the final figures come from
 * the shards' results through the workflow, not from here. Deleted with the run.
 */
@Entity('run_load_shards')
export class RunLoadShard {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  runId!: string;

  /** 0-based shard index. */
  @PrimaryColumn({ type: 'int' })
  shard!: number;

  /** Activity attempt that wrote it (1 = first; more after a worker crash). */
  @Column({ type: 'int' })
  attempt!: number;

  /** Identity of the worker that wrote it (`<pid>@<host>`, Temporal's worker identity). */
  @Column({ type: 'varchar', length: 200 })
  worker!: string;

  /** VUs running an iteration when it was written. */
  @Column({ type: 'int' })
  activeVUs!: number;

  @JsonColumn()
  position!: EnginePosition;

  @JsonColumn()
  metrics!: LoadMetricsState;

  /** The first failures of the shard's VU iterations, as samples (src/perf/test-case-results.ts). */
  @JsonColumn()
  failures!: LoadFailure[];

  @TimestampColumn()
  updatedAt!: Date;
}
