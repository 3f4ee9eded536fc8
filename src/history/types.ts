/**
 * Shapes of a test case's history (docs/history.md), shared by the store, the API, the CLI and the
 * console. Pure types: no I/O.
 */
import type { TestCaseStatus } from '../domain/types';

/** One node's outcome in one run, as a history row keeps it (nested nodes flattened, ids joined by `›` inside sub-flows). */
export interface HistoryNodeOutcome {
  /** Node id (`ref › inner` inside a Ref node's sub-flow). */
  id: string;
  name?: string;
  type: string;
  status: 'passed' | 'failed' | 'skipped';
  /** Milliseconds. */
  durationMs: number;
  /** Assertions of the node: their label (`name`, else `target operator`) and whether each passed. */
  assertions?: Array<{ label: string; passed: boolean }>;
}

/** How a run came from another (`POST /v1/runs/{id}/rerun`, `/replay`, `/resume`). */
export interface RunOrigin {
  kind: 'rerun' | 'replay' | 'resume';
  /** The run it came from. */
  runId: string;
  /** `rerun`: the test case ids it runs (in the origin's order). */
  testCaseIds?: string[];
  /** `resume`: the origin's position of the test case it resumes and the top-level node it resumes at. */
  position?: number;
  nodeId?: string;
}

/** One run of a test case in its history, newest first. */
export interface HistoryEntry {
  runId: string;
  position: number;
  ranAt: string;
  status: TestCaseStatus;
  durationMs: number;
  runner: string;
  environment: string;
  deploymentId: string | null;
  trigger: string;
  kind: 'functional' | 'performance';
  commit: string | null;
  failure: string | null;
  failedNode: string | null;
  flaky: boolean;
  quarantined: boolean;
  definitionHash: string;
}

/** Where the flakiness rule flags a test case now (src/history/flaky.ts). `flaggedAt` ISO 8601. */
export interface FlakyFlag {
  runner: string;
  environment: string;
  flips: number;
  window: number;
  flipRate: number;
  flaggedAt: string;
}

/** The answer of `GET /v1/test-cases/{id}/history` (docs/history.md "Test history"). */
export interface TestCaseHistoryAnswer {
  testCaseId: string;
  name: string;
  stats: HistoryStats;
  lastFailure: {
    runId: string;
    ranAt: string;
    message: string | null;
    node: string | null;
    commit: string | null;
  } | null;
  failingSince: { runId: string; ranAt: string; commit: string | null } | null;
  flaky: FlakyFlag[];
  entries: HistoryEntry[];
  nodes: NodeStats[];
}

/** One flagged test case in `GET /v1/flaky`. */
export interface FlakyItem extends FlakyFlag {
  testCaseId: string;
  name: string;
  lastRunId: string;
}

/** A test case's figures over the runs answered. */
export interface HistoryStats {
  /** Rows counted (every status). */
  runs: number;
  passed: number;
  failed: number;
  skipped: number;
  /** passed / (passed + failed), 0 to 1 (4 decimals); null when none passed or failed. */
  passRate: number | null;
  /** Median duration of the runs that passed or failed, ms; null when none. */
  medianMs: number | null;
  /** 95th percentile (nearest rank) of the same, ms; null when none. */
  p95Ms: number | null;
}

/** One node's figures over the runs answered (nested nodes by their own id, sub-flow nodes as `ref › id`). */
export interface NodeStats {
  id: string;
  name?: string;
  type: string;
  /** Runs in which the node passed or failed (skipped ones are not counted). */
  runs: number;
  passed: number;
  failed: number;
  passRate: number | null;
  medianMs: number | null;
  p95Ms: number | null;
  /** Its assertions by label: in how many runs each was evaluated and passed. */
  assertions: Array<{ label: string; runs: number; passed: number }>;
}

/** The performance figures a comparison sets side by side (src/history/compare.ts). Durations in ms, `rps` requests per second, rates fractions. */
export const PERF_FIGURES = ['p95', 'p99', 'med', 'avg', 'rps', 'errorRate', 'checksRate'] as const;
export type PerfFigure = (typeof PERF_FIGURES)[number];
