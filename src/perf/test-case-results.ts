/**
 * What a performance run says per test case (docs/performance.md "Results"): the load figures
 * become one test case result each, with checks as assertions and a few sample failures, so that
 * reports, JUnit and the console read a load run as they read a functional one. Pure.
 */
import type { RunSummary, TestCaseDefinition, TestCaseFailure, TestCaseResult } from '../domain/types';
import type { LoadMetrics, PerformanceResults } from './metrics';
import type { Threshold } from './thresholds';

/** Sample failures a load shard keeps, and a performance run's test case shows (the first ones). */
export const KEPT_LOAD_FAILURES = 20;

/** A failure a load shard kept as a sample, with where it happened: the test case, the VU and its VU iteration. */
export interface LoadFailure extends TestCaseFailure {
  testCase: string;
  vu: number;
  iteration: number;
}

/**
 * One result per test case of the plan, in its order, and the run's summary
 * (docs/performance.md "Test cases"):
 *
 * - `skipped`: it sent no request and made no check;
 * - `failed`: one of its checks failed, one of its executions failed (the interpreter's verdict, as
 *   in a functional run: a failed assertion or an error such as no response), a sample failure was
 *   kept for it, or a threshold tagged with it (`{testCase:<name>}`) failed;
 * - else `passed`. A request with a status its node does not expect counts in `http_req_failed`
 *   (src/perf/expected-statuses.ts) and in the thresholds on it, not in the status by itself: a
 *   404 the node asserts on purpose leaves it `passed`.
 *
 * `duration` is the mean time of one execution of the test case within a VU iteration, ms with
 * microsecond precision (`iteration_duration{testCase:<name>}`'s mean; 0 when it never finished
 * one), `assertions`/`passedAssertions` its checks. `thresholds` are the profile's, `outcomes`
 * their outcomes in the same order (`performance.thresholds`). `mask` hides secrets in the
 * failures (src/secrets/mask.ts).
 */
export function loadTestCaseResults(
  testCases: Array<Pick<TestCaseDefinition, 'id' | 'name' | 'folder'>>,
  performance: PerformanceResults,
  metrics: LoadMetrics,
  failures: LoadFailure[],
  mask: <T>(value: T) => T,
  thresholds: Threshold[] = [],
): { results: TestCaseResult[]; summary: RunSummary } {
  const summary: RunSummary = { total: testCases.length, passed: 0, failed: 0, skipped: 0 };
  const outcomes = performance.thresholds ?? [];
  const results = testCases.map((tc) => {
    const figures = performance.byTestCase.find((f) => f.name === tc.name);
    const stats = metrics.byTestCase.get(tc.name);
    const own = mask(
      failures.filter((f) => f.testCase === tc.name).slice(0, KEPT_LOAD_FAILURES),
    ) as unknown as TestCaseFailure[];
    const ran = figures !== undefined && figures.requests + figures.checks > 0;
    const failedThreshold = thresholds.some(
      (t, i) => t.tags.testCase === tc.name && outcomes[i]?.metric === t.key && outcomes[i]?.passed === false,
    );
    const failed =
      own.length > 0 ||
      (stats?.failedIterations ?? 0) > 0 ||
      (figures !== undefined && figures.passedChecks < figures.checks) ||
      failedThreshold;
    const status: TestCaseResult['status'] = !ran
      ? failedThreshold
        ? 'failed'
        : 'skipped'
      : failed
        ? 'failed'
        : 'passed';
    summary[status] += 1;
    return {
      testCaseId: tc.id,
      name: tc.name,
      ...(tc.folder !== undefined ? { folder: tc.folder } : {}),
      status,
      duration: stats?.iterationDuration.totalCount ? Math.round(stats.iterationDuration.mean) / 1000 : 0,
      assertions: figures?.checks ?? 0,
      passedAssertions: figures?.passedChecks ?? 0,
      failures: own,
      nodes: [],
    };
  });
  return { results, summary };
}
