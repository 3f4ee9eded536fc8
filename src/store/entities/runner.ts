import { Entity, PrimaryColumn, Column, Index } from 'typeorm';
import type { LoadProfileInput } from '../../perf/profile';
import type { Durability, ParallelSettings, VariableScope } from '../../domain/types';
import { IdColumn, JsonColumn, TimestampColumn } from './columns';

/** Order of test cases selected by folder or tags (explicit ids always come first, in their order). */
export const RUNNER_ORDERS = ['name', 'createdAt'] as const;
export type RunnerOrder = (typeof RUNNER_ORDERS)[number];

/** A runner: a named selection of test cases (by ids, folder or tags) with an order. */
@Entity('runners')
@Index('uq_runners_name', ['workspaceId', 'name'], { unique: true })
export class Runner {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id!: string;

  @IdColumn()
  workspaceId!: string;

  @Column({ type: 'varchar', length: 100 })
  name!: string;

  @Column({ type: 'varchar', length: 1000, default: '' })
  description!: string;

  /** Test case ids run first, in this order. */
  @JsonColumn()
  testCaseIds!: string[];

  /** Folder whose test cases (subfolders included) are selected; null selects none by folder. */
  @Column({ type: 'varchar', length: 255, nullable: true })
  folder!: string | null;

  /** Tags a test case must all carry to be selected; empty selects none by tags. */
  @JsonColumn()
  tags!: string[];

  @Column({ type: 'varchar', length: 20, default: 'name' })
  order!: RunnerOrder;

  /**
   * A load profile (src/perf/profile.ts) that makes this runner's runs performance runs, unless a run
   * gives its own; null for functional runs.
   */
  @JsonColumn({ nullable: true })
  loadProfile!: LoadProfileInput | null;

  /**
   * Whether its test cases share their variables in a run (src/domain/types.ts `VariableScope`):
   * `testCase` (each starts from the run's variables) or `run` (each from what the one before it
   * ended with, as a Newman collection run).
   */
  @Column({ type: 'varchar', length: 16, default: 'testCase' })
  variableScope!: VariableScope;

  /**
   * Its runs' durability mode (src/domain/types.ts `Durability`; docs/durability.md "Durability
   * modes") unless a deployment or the run gives its own: `node` (each node a durable step) or
   * `testCase` (each test case one activity).
   */
  @Column({ type: 'varchar', length: 16, default: 'node' })
  durability!: Durability;

  /**
   * How its runs schedule their test cases (src/domain/types.ts `ParallelSettings`; docs/parallel.md):
   * concurrency, bail, per-origin limits, unless a deployment or the run sets them; null: the defaults.
   */
  @JsonColumn({ nullable: true })
  parallel!: ParallelSettings | null;

  /** The auth profile of its test cases when neither they nor their folder name one (docs/auth.md), or `none`. */
  @Column({ type: 'varchar', length: 100, nullable: true })
  authProfile!: string | null;

  /**
   * The baseline its performance runs compare with and relative thresholds use (docs/history.md
   * "Baselines"; src/store/baselines.ts): a run id, or `lastPassing` (its last run of the same kind
   * that passed on the same environment); null: `lastPassing`.
   */
  @Column({ type: 'varchar', length: 40, nullable: true })
  baseline!: string | null;

  /** Whether test cases flagged flaky (src/history/flaky.ts) run and are reported but do not fail its runs. */
  @Column({ type: 'boolean', default: false })
  quarantineFlaky!: boolean;

  @TimestampColumn()
  createdAt!: Date;

  @TimestampColumn()
  updatedAt!: Date;
}
