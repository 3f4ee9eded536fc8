import { Entity, PrimaryColumn, Column, Index } from 'typeorm';
import { IdColumn, JsonColumn, TimestampColumn } from './columns';
import type { LoadProfileInput } from '../../perf/profile';
import type { PerformanceResults } from '../../perf/metrics';
import type { RunOrigin } from '../../history/types';
import type {
  DataSet,
  Durability,
  FlowNode,
  ParallelSettings,
  RunPlan,
  RunResultValue,
  RunSelection,
  RunStatus,
  RunSummary,
  RunTrigger,
  ScriptConfig,
  Variables,
} from '../../domain/types';

/**
 * The runner name stored on a debug run's row (trigger `debug`, `POST /v1/test-cases/debug`): none.
 * No runner can be named so (names match api/routes/shared.ts `NAME_PATTERN`, at least one
 * character), and the API answers it as `runner: null`.
 */
export const DEBUG_RUNNER_NAME = '';

/**
 * The test case a debug run executes, as the designer held it when the run was asked for (checked
 * as a save checks it, node ids assigned, Ref clones filled): what `startRun` freezes the plan from
 * (activities/runs.ts). `id` is the saved test case it is a draft of, else an id made for the run.
 */
export interface DebugTestCase {
  id: string;
  name: string;
  folder: string;
  description: string;
  tags: string[];
  flow: FlowNode[];
  dataSets: DataSet[] | null;
  hooks: ScriptConfig | null;
  authProfile: string | null;
}

/**
 * A run (spec "Run"): one execution of a runner against an environment, carried out by workflow
 * `run-<id>`. The row is the source of truth for listings; live progress comes from the workflow.
 */
@Entity('runs')
@Index('ix_runs_workspace_created', ['workspaceId', 'createdAt'])
@Index('ix_runs_runner_env_created', ['workspaceId', 'runnerName', 'environmentName', 'createdAt'])
@Index('ix_runs_deployment_created', ['workspaceId', 'deploymentId', 'createdAt'])
@Index('uq_runs_workflow', ['workflowId'], { unique: true })
@Index('uq_runs_idempotency', ['workspaceId', 'idempotencyKey'], { unique: true })
@Index('ix_runs_status_created', ['status', 'createdAt'])
@Index('ix_runs_status_completed', ['status', 'completedAt'])
export class Run {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id!: string;

  @IdColumn()
  workspaceId!: string;

  @IdColumn({ nullable: true })
  runnerId!: string | null;

  @Column({ type: 'varchar', length: 100 })
  runnerName!: string;

  @IdColumn({ nullable: true })
  environmentId!: string | null;

  @Column({ type: 'varchar', length: 100 })
  environmentName!: string;

  @Column({ type: 'varchar', length: 12 })
  status!: RunStatus;

  @Column({ type: 'varchar', length: 12, nullable: true })
  result!: RunResultValue | null;

  @Column({ type: 'varchar', length: 12, default: 'api' })
  trigger!: RunTrigger;

  /** The workflow that carries the run; unique, so a scheduled workflow creates its row only once. */
  @Column({ type: 'varchar', length: 200 })
  workflowId!: string;

  /** The deployment that started the run (schedule, webhook), or null. */
  @IdColumn({ nullable: true })
  deploymentId!: string | null;

  /** Seconds. */
  @Column({ type: 'int' })
  timeoutSeconds!: number;

  @JsonColumn()
  variables!: Variables;

  /** Caller context (incoming webhook fields, metadata); null for API runs without any. */
  @JsonColumn({ nullable: true })
  context!: Record<string, unknown> | null;

  @Column({ type: 'text', nullable: true })
  error!: string | null;

  @JsonColumn({ nullable: true })
  summary!: RunSummary | null;

  @Column({ type: 'int', default: 0 })
  progressCompleted!: number;

  @Column({ type: 'int', default: 0 })
  progressTotal!: number;

  /** Test cases under way when the progress was last stored (docs/parallel.md); 0 for a run that stores none. */
  @Column({ type: 'int', default: 0 })
  progressRunning!: number;

  /**
   * Fraction of the run's work done, 0 to 1, finer than test cases (nodes within the test case
   * under way, loop iterations counted when known). The API estimates completion from it and the
   * time elapsed (activities/runs.ts writes it at every checkpoint).
   */
  @Column({ type: 'double', default: 0 })
  progressWork!: number;

  /**
   * The client's `Idempotency-Key` of the call that created the run, unique per workspace; null
   * when none was sent (or after 24 h, when a new run takes the key over). api/idempotency.ts.
   */
  @Column({ type: 'varchar', length: 255, nullable: true })
  idempotencyKey!: string | null;

  /** SHA-256 (hex) of what that call asked for, to refuse the same key reused for another request. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  idempotencyFingerprint!: string | null;

  /**
   * When Temporal accepted the run's workflow. Null on a `queued` row means the workflow may not
   * exist yet: the recovery sweep (src/temporal/run-recovery.ts) starts it.
   */
  @TimestampColumn({ nullable: true })
  workflowStartedAt!: Date | null;

  /**
   * The load profile of a performance run as it was given (src/perf/profile.ts; from the call, the
   * deployment or the runner); null for a functional run.
   */
  @JsonColumn({ nullable: true })
  loadProfile!: LoadProfileInput | null;

  /**
   * The durability mode of the run (src/domain/types.ts `Durability`): as asked for until it starts
   * (null: its deployment's, else its runner's, else `node`), then the one frozen in its plan
   * (activities/runs.ts `startRun`). Null on a run that started before modes existed: `node`.
   */
  @Column({ type: 'varchar', length: 16, nullable: true })
  durability!: Durability | null;

  /**
   * The run's own scheduling settings as asked for (docs/parallel.md), each over its deployment's
   * and runner's; `startRun` freezes the merged ones into the plan (`parallel`). Null: none of its own.
   */
  @JsonColumn({ nullable: true })
  parallel!: ParallelSettings | null;

  /** The run's own narrowing of its runner's selection (`assay run --folder/--tag`; src/domain/types.ts `RunSelection`); null: none. */
  @JsonColumn({ nullable: true })
  selection!: RunSelection | null;

  /** The results' `performance` object once a performance run ended (src/perf/metrics.ts); not loaded unless asked for. */
  @JsonColumn({ nullable: true, select: false })
  performance!: PerformanceResults | null;

  /** Milliseconds from startedAt to completedAt. */
  @Column({ type: 'int', nullable: true })
  duration!: number | null;

  /** The frozen plan (test cases, variables) written when the run starts; not loaded unless asked for. */
  @JsonColumn({ nullable: true, select: false })
  plan!: RunPlan | null;

  /**
   * SHA-256 (hex) of exactly what the run executes, set when its plan freezes (src/history/plan-hash.ts):
   * two runs with the same hash ran the same thing. Null until the run starts.
   */
  @Column({ type: 'varchar', length: 64, nullable: true })
  planHash!: string | null;

  /** The run this one was made from (a rerun of its failed test cases, a replay of its plan, a resume), or null. */
  @JsonColumn({ nullable: true })
  origin!: RunOrigin | null;

  /**
   * A debug run (trigger `debug`): the id of the saved test case its test case is a draft of, when
   * the caller named one; null otherwise and for every other run.
   */
  @IdColumn({ nullable: true })
  testCaseId!: string | null;

  /** A debug run's test case ({@link DebugTestCase}); null for every other run. Not loaded unless asked for. */
  @JsonColumn({ nullable: true, select: false })
  debugTestCase!: DebugTestCase | null;

  @TimestampColumn()
  createdAt!: Date;

  @TimestampColumn({ nullable: true })
  startedAt!: Date | null;

  @TimestampColumn({ nullable: true })
  completedAt!: Date | null;
}

/** What a new run is given by whoever creates it; the rest of its row starts out empty. */
export type NewRunFields = Pick<
  Run,
  | 'id'
  | 'workspaceId'
  | 'runnerId'
  | 'runnerName'
  | 'environmentId'
  | 'environmentName'
  | 'deploymentId'
  | 'trigger'
  | 'workflowId'
  | 'timeoutSeconds'
  | 'variables'
  | 'context'
> &
  Partial<
    Pick<
      Run,
      | 'idempotencyKey'
      | 'idempotencyFingerprint'
      | 'workflowStartedAt'
      | 'loadProfile'
      | 'durability'
      | 'parallel'
      | 'selection'
      | 'origin'
      | 'testCaseId'
      | 'debugTestCase'
    >
  >;

/**
 * The row of a run that was just created: `queued`, created now, no result, progress or times
 * yet. One definition for every creator (API calls, webhooks, scheduled runs). Plain values, to
 * pass to a repository's `create`.
 */
export function queuedRun(
  fields: NewRunFields,
): Omit<Run, 'plan' | 'performance' | 'debugTestCase'> & Pick<Partial<Run>, 'debugTestCase'> {
  return {
    ...fields,
    status: 'queued',
    result: null,
    error: null,
    summary: null,
    progressCompleted: 0,
    progressTotal: 0,
    progressRunning: 0,
    progressWork: 0,
    loadProfile: fields.loadProfile ?? null,
    durability: fields.durability ?? null,
    parallel: fields.parallel ?? null,
    selection: fields.selection ?? null,
    idempotencyKey: fields.idempotencyKey ?? null,
    idempotencyFingerprint: fields.idempotencyFingerprint ?? null,
    workflowStartedAt: fields.workflowStartedAt ?? null,
    planHash: null,
    origin: fields.origin ?? null,
    testCaseId: fields.testCaseId ?? null,
    ...(fields.debugTestCase ? { debugTestCase: fields.debugTestCase } : {}),
    duration: null,
    createdAt: new Date(),
    startedAt: null,
    completedAt: null,
  };
}
