import { Entity, PrimaryColumn, Column } from 'typeorm';
import { IdColumn, JsonColumn, TimestampColumn } from './columns';
import type { TestCaseResult, TestCaseStatus } from '../../domain/types';

/** One test case's outcome within a run, written as soon as the test case ends. */
@Entity('run_test_case_results')
export class RunTestCaseResult {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  runId!: string;

  /** Position of the test case in the run, from 0. */
  @PrimaryColumn({ type: 'int' })
  position!: number;

  @IdColumn()
  testCaseId!: string;

  @Column({ type: 'varchar', length: 200 })
  name!: string;

  @Column({ type: 'varchar', length: 12 })
  status!: TestCaseStatus;

  /** Milliseconds. */
  @Column({ type: 'int' })
  duration!: number;

  @Column({ type: 'int' })
  assertions!: number;

  /** The full result: failures, nodes, error. */
  @JsonColumn()
  detail!: TestCaseResult;

  /**
   * A failed test case's state before its first failed top-level node (variables and node outputs),
   * sealed with the key ring (src/secrets/keyring.ts), from which `POST /v1/runs/{id}/resume` starts;
   * null when it passed or the state was over the cap (docs/history.md "Resume").
   */
  @Column({ type: 'text', nullable: true, select: false })
  resumeState!: string | null;

  @TimestampColumn()
  createdAt!: Date;
}
