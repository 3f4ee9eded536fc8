/**
 * The shapes of the API documents the console reads (docs/api.md). Results (test cases, nodes,
 * assertions, performance figures) are the server's own types, imported as types only from the
 * library (`src/`), so they have one definition; the rest are the documents as the console uses them.
 */
import type { AssertionResult, NodeResult, StreamMessage, TestCaseResult } from '../../src/domain/types';
import type { RunWaiting } from '../../src/domain/run-workflow';
import type { PerformanceResults } from '../../src/perf/metrics';
import type { RunOrigin } from '../../src/history/types';

export type { AssertionResult, NodeResult, PerformanceResults, RunWaiting, StreamMessage, TestCaseResult };

/** `GET /v1/runs/{id}/live`: what a running run's workflow says now (`live: false` when it did not answer). */
export interface RunLive {
  runId: string;
  status: string;
  live: boolean;
  progress?: { completed: number; total: number; percentage: number };
  waiting?: RunWaiting;
}

/** `GET /v1/runs/{id}` and the items of `GET /v1/runs`. */
export interface Run {
  runId: string;
  status: 'queued' | 'running' | 'completed' | 'failed';
  runner: string;
  environment: string;
  trigger: 'api' | 'schedule' | 'webhook';
  deploymentId?: string;
  timeout?: number;
  variables?: Record<string, unknown>;
  createdAt: string;
  startedAt?: string;
  completedAt?: string;
  estimatedCompletion?: string;
  /**
   * Test cases done of all; a running performance run's in seconds of its profile (`unit: 'seconds'`,
   * docs/performance.md "Results").
   */
  progress?: {
    completed: number;
    total: number;
    percentage: number;
    unit?: 'seconds';
    /** Test cases under way now (docs/parallel.md); absent from servers before parallel suites. */
    running?: number;
  };
  result?: string;
  summary?: { total: number; passed: number; failed: number; skipped: number };
  duration?: number;
  error?: string;
  kind?: string;
  performance?: LivePerformance & Partial<PerformanceResults>;
  links?: { self: string; results: string; temporal?: string };
  /** Content hash of the frozen plan (docs/history.md "Reproducible runs"): equal hashes ran the same thing. */
  planHash?: string;
  /** The run it was started from (rerun, replay, resume). */
  origin?: RunOrigin;
  /** Its durability mode (docs/durability.md "Durability modes"): frozen when it starts; while queued, the one it will get. */
  durability?: Durability;
  /**
   * Its scheduling (docs/parallel.md): once started, the settings frozen in its plan (defaults
   * filled: concurrency 1, bail 0, originLimits null); while queued, its own (null: inherited).
   */
  concurrency?: number | null;
  bail?: number | null;
  originLimits?: OriginLimits | null;
  /** Its own narrowing of the runner's selection (`POST /v1/runs` `folder`, `tags`); absent when none. */
  selection?: { folder?: string; tags?: string[] };
}

/**
 * Per-origin limits on a run's HTTP requests (docs/parallel.md "Protecting the target"):
 * `maxInFlight` requests at once per origin (1–1000), `requestsPerSecond` started per second (0–10000].
 */
export interface OriginLimits {
  maxInFlight?: number;
  requestsPerSecond?: number;
}

/** The scheduling fields of runners, deployments and runs (docs/parallel.md; null: inherited). */
export interface ParallelFields {
  /** Test cases under way at once, 1–{@link MAX_CONCURRENCY}. */
  concurrency?: number | null;
  /** Stop starting test cases after this many failed; 0: never. */
  bail?: number | null;
  originLimits?: OriginLimits | null;
}

/** The most test cases a run may have under way at once (src/domain/types.ts `MAX_CONCURRENCY`). */
export const MAX_CONCURRENCY = 64;

/** A run still to end: `queued` or `running` (docs/api.md "Runs"). */
export function isActive(run: { status: string }): boolean {
  return run.status === 'queued' || run.status === 'running';
}

/** Live figures of a running performance run (docs/performance.md "Results"). */
export interface LivePerformance {
  elapsedMs?: number;
  durationMs?: number;
  percent?: number;
  activeVUs?: number;
  requestsPerSecond?: number;
  p95ResponseTime?: number;
  errorRate?: number;
  requests?: number;
  /** Where the load is (live control, docs/performance.md): absent from runs before it. */
  state?: 'running' | 'paused' | 'stopping';
}

/** `GET /v1/runs/{id}/results`. */
export interface RunResults {
  runId: string;
  status: string;
  result?: string;
  summary?: Run['summary'];
  duration?: number;
  error?: string;
  details: { testCases: TestCaseResult[] };
  performance?: PerformanceResults;
}

export interface Runner {
  name: string;
  description?: string;
  testCaseIds?: string[];
  folder?: string;
  tags?: string[];
  order?: string;
  loadProfile?: unknown;
  /** `testCase` (default) or `run`: test cases start from the variables the one before ended with. */
  variableScope?: 'testCase' | 'run';
  /** What its runs compare with (docs/history.md "Baselines"): `lastPassing`, a run id, or none. */
  baseline?: string | null;
  /** Failures of test cases flagged flaky on this runner do not fail its runs (docs/history.md "Quarantine"). */
  quarantineFlaky?: boolean;
  /** How its runs are made durable (docs/durability.md "Durability modes"); `node` by default. */
  durability?: Durability;
  /** Test cases under way at once, 1–64 (docs/parallel.md); 1 by default. */
  concurrency?: number;
  /** Stop starting test cases after this many failed; 0 (default): never. */
  bail?: number;
  /** Per-origin request limits; null: none. */
  originLimits?: OriginLimits | null;
}

/** A run's durability mode (docs/durability.md "Durability modes"): every node a durable step, or each test case one. */
export type Durability = 'node' | 'testCase';

/** The words the console shows for a durability mode. */
export const DURABILITY_WORDS: Record<Durability, string> = {
  node: 'per node (every node a durable step)',
  testCase: 'per test case (each test case one activity, checkpointed as it goes)',
};

export interface Environment {
  name: string;
  description?: string;
  variables: Record<string, unknown>;
  /** The environment it extends (docs/reuse.md); absent when none. */
  extends?: string;
  /** Its own servers, name → base URL; absent when none. */
  servers?: Record<string, string>;
  /** What its ancestors give it that it does not set itself (when it extends another). */
  inherited?: {
    chain: string[];
    variables: Record<string, { value: unknown; secret?: true; from: string }>;
    servers: Record<string, { value: string; from: string }>;
  };
}
