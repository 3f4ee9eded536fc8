/**
 * The history documents the console reads (docs/history.md), as the API answers them: the server's
 * own types (src/history/types.ts, src/history/compare.ts), under the names the console uses. A
 * test case's history (`GET /v1/test-cases/{id}/history`), the flaky list (`GET /v1/flaky`) and
 * the comparison of two runs (`GET /v1/runs/{a}/compare/{b}`). Durations are milliseconds, times
 * ISO 8601, rates fractions (0–1).
 */
import type {
  FlakyFlag,
  FlakyItem,
  HistoryEntry,
  NodeStats,
  RunOrigin,
  TestCaseHistoryAnswer,
} from '../../../src/history/types';
import type { CompareItem, CompareRun, FigureChange, OffsetPoint, RunComparison } from '../../../src/history/compare';

export type { FlakyFlag, FlakyItem, HistoryEntry, RunOrigin, CompareItem, FigureChange };

/** An outcome as history keeps it. */
export type Outcome = HistoryEntry['status'];

/** One node's figures over the runs answered. */
export type NodeHistory = NodeStats;

/** `GET /v1/test-cases/{id}/history`. */
export type TestCaseHistory = TestCaseHistoryAnswer;

/** One side of a comparison. */
export type CompareSide = CompareRun;

/** One second of a performance run's series, with its offset from the run's first point (so two runs overlay). */
export type SeriesPoint = OffsetPoint;

/** `GET /v1/runs/{a}/compare/{b}` (and `…/compare/baseline`). */
export type Comparison = RunComparison;

/** A test case named by id and name. */
export type NamedId = RunComparison extends { planDiff?: { testCases: { changed: Array<infer T> } } } ? T : never;
