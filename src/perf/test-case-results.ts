/**
 * What a performance run says per test case (docs/performance.md "Results"): the load figures
 * become one test case result each, with checks as assertions and a few sample failures, so that
 * reports, JUnit and the console read a load run as they read a functional one. Pure.
 */
import type { RunSummary, TestCaseDefinition, TestCaseFailure, TestCaseResult } from '../domain/types';
import type { LoadMetrics, PerformanceResults } from './metrics';

/** Sample failures a load shard keeps, and a performance run's test case shows (the first ones). */
export const KEPT_LOAD_FAILURES = 20;

/** A failure a load shard kept as a sample, with where it happened: the test case, the VU and its VU iteration. */
export interface LoadFailure extends TestCaseFailure {
  testCase: string;
  vu: number;
  iteration: number;
}

/**
 * One result per test case of the plan, in its order, and the run's summary: a test case that sent
 * no request and made no check is `skipped`; one with a failed request, a failed check or a kept
 * failure is `failed`; else `passed`. `duration` is the mean time of one execution of the test case
 * (ms), `assertions`/`passedAssertions` its checks. `mask` hides secrets in the failures (src/secrets/mask.ts).
 */
export function loadTestCaseResults(
  testCases: Array<Pick<TestCaseDefinition, 'id' | 'name' | 'folder'>>,
  performance: PerformanceResults,
  metrics: LoadMetrics,
  failures: LoadFailure[],
  mask: <T>(value: T) => T,
): { results: TestCaseResult[]; summary: RunSummary } {
  const summary: RunSummary = { total: testCases.length, passed: 0, failed: 0, skipped: 0 };
  const results = testCases.map((tc) => {
    const figures = performance.byTestCase.find((f) => f.name === tc.name);
    const own = mask(
      failures.filter((f) => f.testCase === tc.name).slice(0, KEPT_LOAD_FAILURES),
    ) as unknown as TestCaseFailure[];
    const ran = figures !== undefined && figures.requests + figures.checks > 0;
    const failed =
      own.length > 0 ||
      (figures?.failedRequests ?? 0) > 0 ||
      (figures !== undefined && figures.passedChecks < figures.checks);
    const status: TestCaseResult['status'] = !ran ? 'skipped' : failed ? 'failed' : 'passed';
    summary[status] += 1;
    const stats = metrics.byTestCase.get(tc.name);
    return {
      testCaseId: tc.id,
      name: tc.name,
      ...(tc.folder !== undefined ? { folder: tc.folder } : {}),
      status,
      duration: stats?.iterationDuration.totalCount ? Math.round(stats.iterationDuration.mean / 1000) : 0,
      assertions: figures?.checks ?? 0,
      passedAssertions: figures?.passedChecks ?? 0,
      failures: own,
      nodes: [],
    };
  });
  return { results, summary };
}
