import { Entity, PrimaryColumn, Column, Index } from 'typeorm';
import { IdColumn, JsonColumn, TimestampColumn } from './columns';
import type { RunTrigger, TestCaseStatus } from '../../domain/types';
import type { HistoryNodeOutcome } from '../../history/types';

/**
 * One test case's outcome in one run, kept as a summary for its history (docs/history.md): written
 * when the run ends (activities/runs.ts `finishRun`, src/store/history.ts `recordRunHistory`), one
 * row per position of the run, and kept `ASSAY_HISTORY_DAYS` (default 90) from `ranAt` whatever
 * run retention deletes (`ASSAY_RUN_RETENTION_DAYS`): history queries read these rows through their
 * indexes, never the results documents.
 */
@Entity('test_case_history')
@Index('ix_history_test_case', ['workspaceId', 'testCaseId', 'ranAt'])
@Index('ix_history_runner_env', ['workspaceId', 'testCaseId', 'runnerName', 'environmentName', 'ranAt'])
@Index('ix_history_ran', ['ranAt'])
// The newest failure or pass of a test case (last failure, failing since) as one index seek,
// however long it has been failing or passing (docs/benchmarks.md "Test history").
@Index('ix_history_status', ['workspaceId', 'testCaseId', 'status', 'ranAt'])
export class TestCaseHistory {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  runId!: string;

  /** Position of the test case in the run, from 0. */
  @PrimaryColumn({ type: 'int' })
  position!: number;

  @IdColumn()
  workspaceId!: string;

  @IdColumn()
  testCaseId!: string;

  @Column({ type: 'varchar', length: 200 })
  testCaseName!: string;

  @Column({ type: 'varchar', length: 100 })
  runnerName!: string;

  @Column({ type: 'varchar', length: 100 })
  environmentName!: string;

  @IdColumn({ nullable: true })
  deploymentId!: string | null;

  @Column({ type: 'varchar', length: 12 })
  trigger!: RunTrigger;

  /** `functional` or `performance` (a run with a load profile). */
  @Column({ type: 'varchar', length: 12 })
  kind!: 'functional' | 'performance';

  @Column({ type: 'varchar', length: 12 })
  status!: TestCaseStatus;

  /** Milliseconds spent in the test case's nodes. */
  @Column({ type: 'int' })
  durationMs!: number;

  @Column({ type: 'int', default: 0 })
  assertions!: number;

  @Column({ type: 'int', default: 0 })
  passedAssertions!: number;

  /** The first failure's node id (a sub-flow's joined by `›`), or null when it passed. */
  @Column({ type: 'varchar', length: 200, nullable: true })
  failedNode!: string | null;

  /** The first failure's message (secrets masked, at most 1,000 characters), or null when it passed. */
  @Column({ type: 'text', nullable: true })
  failure!: string | null;

  /** The commit the run's trigger carried (its context's `commit`, `sha` or `revision`), or null. */
  @Column({ type: 'varchar', length: 100, nullable: true })
  commitRef!: string | null;

  /** SHA-256 (hex) of the test case's definition as the run froze it (src/history/plan-hash.ts): equal hashes, unchanged test case. */
  @Column({ type: 'varchar', length: 64 })
  definitionHash!: string;

  /** Whether the flakiness rule flagged the test case after this run (src/history/flaky.ts). */
  @Column({ type: 'boolean', default: false })
  flaky!: boolean;

  /** Whether it failed but was quarantined as flaky (it did not fail its run). */
  @Column({ type: 'boolean', default: false })
  quarantined!: boolean;

  /** Each node's outcome, flattened (src/history/types.ts); null for performance runs. */
  @JsonColumn({ nullable: true })
  nodes!: HistoryNodeOutcome[] | null;

  /** When the run started (its `startedAt`, else `createdAt`): the order of a history. */
  @TimestampColumn()
  ranAt!: Date;
}

/**
 * A test case the flakiness rule currently flags on one runner and environment (src/history/flaky.ts,
 * docs/history.md "Flaky tests"); the row goes when a later run no longer flags it. `GET /v1/flaky`
 * lists these; a runner with `quarantineFlaky` freezes them into its runs' plans.
 */
@Entity('flaky_test_cases')
export class FlakyTestCase {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  workspaceId!: string;

  @PrimaryColumn({ type: 'varchar', length: 40 })
  testCaseId!: string;

  @PrimaryColumn({ type: 'varchar', length: 100 })
  runnerName!: string;

  @PrimaryColumn({ type: 'varchar', length: 100 })
  environmentName!: string;

  @Column({ type: 'varchar', length: 200 })
  testCaseName!: string;

  /** Outcome changes (passed ↔ failed) among the last `window` runs. */
  @Column({ type: 'int' })
  flips!: number;

  /** Runs looked at (at most the rule's n). */
  @Column({ type: 'int' })
  window!: number;

  /** flips / (window − 1), 0 to 1. */
  @Column({ type: 'double' })
  flipRate!: number;

  @Column({ type: 'varchar', length: 64 })
  definitionHash!: string;

  /** The run after which it was last evaluated. */
  @IdColumn()
  lastRunId!: string;

  /** When it was first flagged (kept while it stays flagged). */
  @TimestampColumn()
  flaggedAt!: Date;

  @TimestampColumn()
  updatedAt!: Date;
}
