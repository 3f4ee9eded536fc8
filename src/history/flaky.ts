/**
 * The flakiness rule (docs/history.md "Flaky tests"). Pure: no I/O.
 *
 * A test case is flaky on a runner and environment when its outcome flipped (passed → failed or
 * failed → passed) at least `k` times among its last `n` outcomes there, counting only runs in which
 * the test case was not changed:
 *
 * 1. Take the test case's history rows on that runner and environment, newest first, keeping only
 *    `passed` and `failed` outcomes (a `skipped` test case did not run: it neither flips nor breaks
 *    a streak), at most `n` of them.
 * 2. Keep the newest rows up to the first whose `definitionHash` differs from the newest row's: an
 *    edit to the test case starts a new window (a fix that turns red into green is no flip).
 * 3. Order them oldest → newest; `flips` = adjacent pairs whose outcomes differ; `window` = rows kept.
 * 4. Flaky when `flips ≥ k`; `flipRate = flips / (window − 1)` (0 with fewer than 2 rows).
 *
 * References: Google's flip rate, the share of a test's consecutive results at the same code that
 * change between pass and fail, where a flaky result is "both a passing and a failing result with
 * the same code" and a single transition is a breakage or a fix to investigate (J. Micco, "Flaky
 * Tests at Google and How We Mitigate Them", Google Testing Blog, 2016); Gradle's flaky test
 * detection (Develocity, docs.gradle.com "Flaky Test Detection Guide"): a test that fails and
 * passes within one build, or whose outcomes differ across builds for the same task inputs
 * ("cross-build flaky"); here the test case's definition hash plays the inputs' part. Defaults
 * n = 10, k = 3: one breakage and its fix (2 flips) is not flaky, a third flip in ten runs is.
 */

/** The rule's parameters: `window` = n (ASSAY_FLAKY_WINDOW), `minFlips` = k (ASSAY_FLAKY_MIN_FLIPS). */
export interface FlakyRule {
  /** Outcomes looked at, at most (n, ≥ 2). */
  window: number;
  /** Flips that make a test case flaky (k, ≥ 1). */
  minFlips: number;
}

/** n = 10, k = 3. */
export const DEFAULT_FLAKY_RULE: FlakyRule = { window: 10, minFlips: 3 };

/** One outcome as the rule reads it (a history row's status and definition hash). */
export interface FlakyOutcome {
  status: string;
  definitionHash: string;
}

/** What the rule says about a test case. */
export interface FlakyVerdict {
  flaky: boolean;
  /** Adjacent outcome changes in the window. */
  flips: number;
  /** Outcomes in the window (passed/failed at the newest definition, at most n). */
  window: number;
  /** flips / (window − 1), 0 to 1, rounded to 4 decimals; 0 when window < 2. */
  flipRate: number;
}

/**
 * Applies the rule to outcomes given **newest first** (as an index scan by `ranAt DESC` yields
 * them); rows with another status than `passed`/`failed` are ignored, and at most `rule.window` are
 * used (see the module comment).
 */
export function evaluateFlaky(
  newestFirst: readonly FlakyOutcome[],
  rule: FlakyRule = DEFAULT_FLAKY_RULE,
): FlakyVerdict {
  const counted = newestFirst.filter((o) => o.status === 'passed' || o.status === 'failed');
  const kept: FlakyOutcome[] = [];
  for (const outcome of counted) {
    if (kept.length >= rule.window) break;
    if (kept.length > 0 && outcome.definitionHash !== kept[0]!.definitionHash) break;
    kept.push(outcome);
  }
  let flips = 0;
  for (let i = 1; i < kept.length; i += 1) if (kept[i]!.status !== kept[i - 1]!.status) flips += 1;
  const window = kept.length;
  const flipRate = window < 2 ? 0 : Math.round((flips / (window - 1)) * 10_000) / 10_000;
  return { flaky: flips >= rule.minFlips, flips, window, flipRate };
}

/** A node flagged by the rule: its id in history rows (`ref › id` inside sub-flows) and its figures. */
export interface FlakyNode {
  id: string;
  flips: number;
  window: number;
  flipRate: number;
}

/**
 * The rule applied to each node of a test case (docs/history.md "Flaky nodes"): `newestFirst` are
 * the test case's history rows on one runner and environment (as {@link evaluateFlaky} reads them,
 * with their flattened node outcomes); each node of the newest row is judged on its own outcomes in
 * the same window (a row in which the node did not run, or was skipped, neither flips nor breaks a
 * streak). Returns the flaky nodes, in the newest row's order: the step of a flow that flips, also
 * when the test case as a whole fails steadily for another reason.
 */
export function evaluateFlakyNodes(
  newestFirst: ReadonlyArray<FlakyOutcome & { nodes?: ReadonlyArray<{ id: string; status: string }> | null }>,
  rule: FlakyRule = DEFAULT_FLAKY_RULE,
): FlakyNode[] {
  const newest = newestFirst[0];
  if (!newest?.nodes?.length) return [];
  const flaky: FlakyNode[] = [];
  for (const { id } of newest.nodes) {
    const outcomes = newestFirst.map((row) => ({
      status: row.nodes?.find((n) => n.id === id)?.status ?? 'skipped',
      definitionHash: row.definitionHash,
    }));
    const verdict = evaluateFlaky(outcomes, rule);
    if (verdict.flaky) flaky.push({ id, flips: verdict.flips, window: verdict.window, flipRate: verdict.flipRate });
  }
  return flaky;
}
