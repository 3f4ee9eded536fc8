import { Entity, PrimaryColumn, Column, Index } from 'typeorm';
import { IdColumn, JsonColumn } from './columns';

/**
 * A node execution of a run in the `node` durability mode, claimed by the worker process sending
 * it, then its outcome (docs/durability.md "What a crash repeats"; src/store/node-executions.ts).
 * A local activity's result reaches Temporal's history only when its workflow task ends; until then
 * this row is what a repeated execution (after a crash, or a workflow task that timed out) answers
 * from instead of sending the request again. Short-lived: the rows of a test case are deleted at
 * the run's next progress write after it, all of a run's when it ends, stray ones after a day.
 */
@Entity('node_executions')
@Index('ix_node_executions_run', ['runId', 'position'])
@Index('ix_node_executions_lease', ['leaseUntilMs'])
export class NodeExecution {
  /** Hex SHA-256 of {@link execution}. */
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id!: string;

  @IdColumn()
  runId!: string;

  /** The test case's place in the run's plan, from 0. */
  @Column({ type: 'int' })
  position!: number;

  /** The node execution id (`X-Assay-Execution`, src/flow/execution-id.ts), at most 600 characters. */
  @Column({ type: 'varchar', length: 600 })
  execution!: string;

  /** The worker process holding the claim (src/store/node-executions.ts `processOwner`). */
  @Column({ type: 'varchar', length: 200 })
  owner!: string;

  /**
   * Epoch ms (the owner's clock) until which the claim holds without news of its owner: renewed
   * while the request runs; a worker on another machine takes a claim over only after it.
   */
  @Column({ type: 'bigint' })
  leaseUntilMs!: number;

  /** The activity's output once it ended; null while the request is under way. */
  @JsonColumn({ nullable: true })
  outcome!: unknown;
}
