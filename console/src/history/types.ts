/**
 * The history documents the console reads (docs/history.md): a test case's history
 * (`GET /v1/test-cases/{id}/history`), the flaky list (`GET /v1/flaky`) and the comparison of two
 * runs (`GET /v1/runs/{a}/compare/{b}`), as the API answers them. Durations are milliseconds,
 * times ISO 8601, rates fractions (0–1).
 */
import type { RunOrigin } from '../../../src/history/types';

export type { RunOrigin };

/** An outcome as history keeps it. */
export type Outcome = 'passed' | 'failed' | 'skipped';

/** One run of a test case in its history (newest first in `entries`). */
export interface HistoryEntry {
  runId: string;
  position: number;
  ranAt: string;
  status: Outcome;
  durationMs: number;
  runner: string;
  environment: string;
  deploymentId?: string | null;
  trigger: string;
  kind: 'functional' | 'performance';
  /** The commit the run's trigger carried (a deployment webhook's), when any. */
  commit?: string | null;
  failure?: string | null;
  failedNode?: string | null;
  flaky?: boolean;
  quarantined?: boolean;
  definitionHash?: string;
}

/** A flaky flag of a test case on one runner and environment. */
export interface FlakyFlag {
  runner: string;
  environment: string;
  flips: number;
  window: number;
  flipRate: number;
  flaggedAt: string;
}

/** A node's (API node's) figures over the history. */
export interface NodeHistory {
  id: string;
  name?: string;
  type: string;
  runs: number;
  passed: number;
  failed: number;
  passRate: number | null;
  medianMs: number | null;
  p95Ms: number | null;
  assertions: Array<{ label: string; runs: number; passed: number }>;
}

/** `GET /v1/test-cases/{id}/history`. */
export interface TestCaseHistory {
  testCaseId: string;
  name: string;
  stats: {
    runs: number;
    passed: number;
    failed: number;
    skipped: number;
    passRate: number | null;
    medianMs: number | null;
    p95Ms: number | null;
  };
  lastFailure: {
    runId: string;
    ranAt: string;
    message?: string | null;
    node?: string | null;
    commit?: string | null;
  } | null;
  failingSince: { runId: string; ranAt: string; commit?: string | null } | null;
  flaky: FlakyFlag[];
  entries: HistoryEntry[];
  nodes: NodeHistory[];
}

/** One item of `GET /v1/flaky`. */
export interface FlakyItem extends FlakyFlag {
  testCaseId: string;
  name: string;
  lastRunId: string;
}

/** One side of a comparison. */
export interface CompareSide {
  runId: string;
  createdAt: string;
  status: string;
  result?: string | null;
  planHash?: string | null;
  kind?: string;
}

/** A test case in one of the comparison's lists. */
export interface CompareItem {
  testCaseId: string;
  name: string;
  base: { status: string; durationMs: number } | null;
  head: { status: string; durationMs: number } | null;
  /** Relative change of the duration (0.5 = 50 % slower), for slower/faster; null when the base took 0 ms. */
  change?: number | null;
}

/** A figure on both sides: base, head and the relative change (head / base − 1; a difference in points for rates). */
export interface FigureChange {
  base: number | null;
  head: number | null;
  change: number | null;
  /** Set on the figures the regression rules judge (overall p95, p99, rps, error rate). */
  regression?: boolean;
  improvement?: boolean;
}

/** One second of a performance run's series, as the results keep it. */
export interface SeriesPoint {
  t: number;
  requests: number;
  failed: number;
  p95: number;
  vus: number;
  /** Seconds from the run's first point (so two runs overlay). */
  offset?: number;
}

/** `GET /v1/runs/{a}/compare/{b}` (and `…/compare/baseline`). */
export interface Comparison {
  base: CompareSide;
  head: CompareSide;
  samePlan: boolean;
  verdict: 'regression' | 'improvement' | 'unchanged';
  testCases: {
    newlyFailing: CompareItem[];
    newlyPassing: CompareItem[];
    appeared: CompareItem[];
    disappeared: CompareItem[];
    slower: CompareItem[];
    faster: CompareItem[];
    unchanged: number;
  };
  performance?: {
    overall: Record<string, FigureChange>;
    requests: Array<{ name: string; figures: Record<string, FigureChange> }>;
    series: { base: SeriesPoint[]; head: SeriesPoint[] };
  };
  planDiff?: {
    testCases: { changed: NamedId[]; added: NamedId[]; removed: NamedId[] };
    variables: { changed: string[]; added: string[]; removed: string[] };
    settings: string[];
    servers: string[];
    other: string[];
  };
}

/** A test case named by id and name. */
export interface NamedId {
  id: string;
  name: string;
}
