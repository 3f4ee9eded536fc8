import { Entity, PrimaryColumn, Column, Index, OneToMany, ManyToOne, JoinColumn } from 'typeorm';
import { IdColumn, JsonColumn, TimestampColumn } from './columns';
import type { DataSet, FlowNode, ScriptConfig } from '../../domain/types';

/** A test case: a named flow of nodes, filed in a folder and labelled with tags (spec "Test case"). */
@Entity('test_cases')
@Index('uq_test_cases_name', ['workspaceId', 'folder', 'name'], { unique: true })
export class TestCase {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id!: string;

  @IdColumn()
  workspaceId!: string;

  @Column({ type: 'varchar', length: 200 })
  name!: string;

  /** Slash-separated folder path, '' for the top level. */
  @Column({ type: 'varchar', length: 255, default: '' })
  folder!: string;

  @Column({ type: 'varchar', length: 2000, default: '' })
  description!: string;

  @JsonColumn()
  flow!: FlowNode[];

  /** Data sets for Iteration nodes (JSON arrays or CSV text); null when there are none. */
  @JsonColumn({ nullable: true })
  dataSets!: DataSet[] | null;

  /** Hooks around each of its API nodes (`beforeRequest`/`afterResponse`, docs/flows.md "Hooks"); null when none. */
  @JsonColumn({ nullable: true })
  hooks!: ScriptConfig | null;
  /** The test case's auth profile (docs/auth.md), or `none`; null: its folder's or runner's applies. */
  @Column({ type: 'varchar', length: 100, nullable: true })
  authProfile!: string | null;
  /**
   * A shared step (a "log in" flow run by Ref nodes, docs/reuse.md "Sub-flows"): runners leave it
   * out of folder and tag selections, running it on its own only when they list its id.
   */
  @Column({ type: 'boolean', default: false })
  reusable!: boolean;

  /**
   * The test cases (ids) that must have passed, in the same run, before this one starts
   * (docs/parallel.md "Dependencies"); null when none. A run whose plan lacks one of them runs this
   * one without waiting; one that failed or was skipped gets this one skipped.
   */
  @JsonColumn({ nullable: true })
  dependsOn!: string[] | null;

  /**
   * The test case's version: 1 when created, one more at every PUT or PATCH. Its `ETag` is
   * `"<version>"`; a PUT or PATCH with `If-Match` stores only when the tag names this version,
   * checked and bumped by one conditional UPDATE (api/routes/test-cases.ts), so two writers with the
   * same tag store exactly one change.
   */
  @Column({ type: 'int', default: 1 })
  version!: number;

  @OneToMany(() => TestCaseTag, (t) => t.testCase, { cascade: true })
  tagRows!: TestCaseTag[];

  @TimestampColumn()
  createdAt!: Date;

  @TimestampColumn()
  updatedAt!: Date;
}

/** One tag of a test case; a table of its own so that tag filters use an index. */
@Entity('test_case_tags')
@Index('ix_test_case_tags_tag', ['tag'])
export class TestCaseTag {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  testCaseId!: string;

  @PrimaryColumn({ type: 'varchar', length: 100 })
  tag!: string;

  @ManyToOne(() => TestCase, (t) => t.tagRows, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'testCaseId' })
  testCase!: TestCase;
}
