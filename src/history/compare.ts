/**
 * Comparing two runs (docs/history.md "Comparing runs"; `GET /v1/runs/{a}/compare/{b}`, `assay
 * compare`): the base (a, the older or the baseline) against the head (b). Pure: the route reads
 * the runs, their stored results, performance figures and frozen plans, and hands them here.
 *
 * Rules (documented in docs/history.md, asserted by test/unit/compare.test.ts):
 *
 * - Test cases are matched by id (a test case listed twice in a run is matched occurrence by
 *   occurrence). Each lands in exactly one list, the first that fits:
 *   `appeared` (only in the head), `disappeared` (only in the base), `newlyFailing` (failed in the
 *   head, not in the base), `newlyPassing` (passed in the head, failed in the base), `slower`
 *   (both ran — neither skipped —, head > base × {@link SLOWER_FACTOR} and head − base ≥
 *   {@link SLOWER_MIN_MS} ms), `faster` (the same rule the other way), else `unchanged` (counted).
 * - Performance figures, overall and per request name, side by side with their `change`: relative
 *   (`(head − base) / base`, null when the base is 0) for durations and requests per second,
 *   absolute (`head − base`, a fraction: 0.01 is one point) for the error rate and the checks rate.
 *   An overall figure is a `regression` when p95 or p99 rose more than {@link PERF_RULES}.latency
 *   (10 %), requests per second fell more than {@link PERF_RULES}.throughput (10 %), or the error
 *   rate rose more than {@link PERF_RULES}.errorRate (1 point); the mirror images are improvements.
 * - `verdict`: `regression` when the head has a failure the base did not (a test case newly
 *   failing, or one that appeared failing), a performance regression, or the head's result is
 *   `failed` (or the run failed) where the base's was `passed`; else `improvement` when a test case
 *   newly passes, an overall performance figure improved, or the head passed where the base did
 *   not; else `unchanged`. Slower and faster test cases are reported, not judged: a functional
 *   test's duration is the target's as much as the test's.
 * - `planDiff` (only when both plans are known and their `planHash` differ): what changed between
 *   the two frozen plans ("the test changed" rather than "the service changed"): test cases by
 *   definition hash, variables by name (a secret's value is never compared nor shown: it counts as
 *   changed only when it turns secret or plain), worker settings and servers by key, and the other
 *   hashed parts (src/history/plan-hash.ts `hashedPlanPart`) by name.
 */
import type { PerformanceResults, NamedFigures, SeriesPoint } from '../perf/metrics';
import type { RunPlan, Variables } from '../domain/types';
import { canonicalJson, definitionHash, hashedPlanPart } from './plan-hash';
import { PERF_FIGURES, type PerfFigure } from './types';

/** A test case got slower when head > base × this … */
export const SLOWER_FACTOR = 1.5;
/** … and head − base ≥ this many milliseconds. */
export const SLOWER_MIN_MS = 50;
/** Performance regression thresholds: fractions (latency, throughput) and a fraction of requests (error rate). */
export const PERF_RULES = { latency: 0.1, throughput: 0.1, errorRate: 0.01 } as const;

/** One run as compared: what the route read about it. */
export interface CompareSide {
  run: CompareRun;
  /** Its stored test case results, in position order. */
  testCases: Array<{ testCaseId: string; name: string; status: string; durationMs: number }>;
  /** A performance run's results' `performance` object (absent for a functional run or one that never measured). */
  performance?: PerformanceResults | null;
  /** Its frozen plan (secrets sealed), when it froze one. */
  plan?: RunPlan | null;
}

/** The facts of a compared run. `createdAt` ISO 8601; `result` null unless completed. */
export interface CompareRun {
  runId: string;
  createdAt: string;
  status: string;
  result: string | null;
  planHash: string | null;
  kind: 'functional' | 'performance';
}

/** A test case in one of the compare lists; `base`/`head` null where it did not run. */
export interface CompareItem {
  testCaseId: string;
  name: string;
  base: { status: string; durationMs: number } | null;
  head: { status: string; durationMs: number } | null;
  /** `slower`/`faster`: (head − base) / base duration, a fraction (0.5 is 50 % slower); null when the base took 0 ms. */
  change?: number | null;
}

/** One figure side by side. */
export interface FigureChange {
  base: number | null;
  head: number | null;
  /** Relative for durations and rps, absolute (points as a fraction) for rates; null when not computable. */
  change: number | null;
  /** Set on figures the regression rules judge (overall p95, p99, rps, error rate). */
  regression?: boolean;
  improvement?: boolean;
}

export { PERF_FIGURES, type PerfFigure };

/** A series point with its offset in seconds from its run's first point (so the two runs overlay). */
export interface OffsetPoint extends SeriesPoint {
  offset: number;
}

export interface PerformanceComparison {
  overall: Record<PerfFigure, FigureChange>;
  /** Per request name (the union of both runs'), by the head's request count, then the base's. */
  requests: Array<{ name: string; figures: Record<PerfFigure, FigureChange> }>;
  series: { base: OffsetPoint[]; head: OffsetPoint[] };
}

/** What differs between two frozen plans (names and keys only; no values). */
export interface PlanDiff {
  testCases: {
    changed: Array<{ id: string; name: string }>;
    added: Array<{ id: string; name: string }>;
    removed: Array<{ id: string; name: string }>;
  };
  variables: { changed: string[]; added: string[]; removed: string[] };
  settings: string[];
  servers: string[];
  other: string[];
}

/** The answer of `GET /v1/runs/{a}/compare/{b}`. */
export interface RunComparison {
  base: CompareRun;
  head: CompareRun;
  /** Both plans' hashes are known and equal: the two runs executed the same thing. */
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
  performance?: PerformanceComparison;
  planDiff?: PlanDiff;
}

const round = (n: number, digits = 4) => {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
};

/** (head − base) / base, rounded; null when the base is 0. */
function relative(base: number, head: number): number | null {
  return base === 0 ? (head === 0 ? 0 : null) : round((head - base) / base);
}

/** Compares two runs; see the module comment for the rules. */
export function compareRuns(base: CompareSide, head: CompareSide): RunComparison {
  const testCases = compareTestCases(base.testCases, head.testCases);
  const performance =
    base.performance || head.performance
      ? comparePerformance(base.performance ?? null, head.performance ?? null)
      : undefined;
  const samePlan = base.run.planHash !== null && base.run.planHash === head.run.planHash;
  const planDiff = !samePlan && base.plan && head.plan ? diffPlans(base.plan, head.plan) : undefined;

  const failedRun = (r: CompareRun) => r.status === 'failed' || (r.status === 'completed' && r.result === 'failed');
  const passedRun = (r: CompareRun) => r.status === 'completed' && r.result === 'passed';
  const perfFigures = performance ? Object.values(performance.overall) : [];
  const regression =
    testCases.newlyFailing.length > 0 ||
    testCases.appeared.some((i) => i.head?.status === 'failed') ||
    perfFigures.some((f) => f.regression) ||
    (passedRun(base.run) && failedRun(head.run));
  const improvement =
    testCases.newlyPassing.length > 0 ||
    perfFigures.some((f) => f.improvement) ||
    (!passedRun(base.run) && passedRun(head.run));
  return {
    base: base.run,
    head: head.run,
    samePlan,
    verdict: regression ? 'regression' : improvement ? 'improvement' : 'unchanged',
    testCases,
    ...(performance ? { performance } : {}),
    ...(planDiff ? { planDiff } : {}),
  };
}

type Row = CompareSide['testCases'][number];

/** Rows keyed by test case id and occurrence (`id#0`, `id#1` …), in order. */
function keyed(rows: Row[]): Map<string, Row> {
  const seen = new Map<string, number>();
  const out = new Map<string, Row>();
  for (const row of rows) {
    const n = seen.get(row.testCaseId) ?? 0;
    seen.set(row.testCaseId, n + 1);
    out.set(`${row.testCaseId}#${n}`, row);
  }
  return out;
}

const side = (r: Row | undefined) => (r ? { status: r.status, durationMs: Math.round(r.durationMs) } : null);

/** The test case lists of a comparison (module comment, first rule). */
export function compareTestCases(baseRows: Row[], headRows: Row[]): RunComparison['testCases'] {
  const out: RunComparison['testCases'] = {
    newlyFailing: [],
    newlyPassing: [],
    appeared: [],
    disappeared: [],
    slower: [],
    faster: [],
    unchanged: 0,
  };
  const base = keyed(baseRows);
  const head = keyed(headRows);
  const item = (b: Row | undefined, h: Row | undefined): CompareItem => ({
    testCaseId: (h ?? b)!.testCaseId,
    name: (h ?? b)!.name,
    base: side(b),
    head: side(h),
  });
  for (const [key, h] of head) {
    const b = base.get(key);
    if (!b) {
      out.appeared.push(item(b, h));
      continue;
    }
    if (h.status === 'failed' && b.status !== 'failed') out.newlyFailing.push(item(b, h));
    else if (h.status === 'passed' && b.status === 'failed') out.newlyPassing.push(item(b, h));
    else if (h.status !== 'skipped' && b.status !== 'skipped' && isSlower(b.durationMs, h.durationMs))
      out.slower.push({ ...item(b, h), change: relative(b.durationMs, h.durationMs) });
    else if (h.status !== 'skipped' && b.status !== 'skipped' && isSlower(h.durationMs, b.durationMs))
      out.faster.push({ ...item(b, h), change: relative(b.durationMs, h.durationMs) });
    else out.unchanged += 1;
  }
  for (const [key, b] of base) if (!head.has(key)) out.disappeared.push(item(b, undefined));
  return out;
}

/** The slower rule: `after` > `before` × {@link SLOWER_FACTOR} and `after` − `before` ≥ {@link SLOWER_MIN_MS}. */
export function isSlower(beforeMs: number, afterMs: number): boolean {
  return afterMs > beforeMs * SLOWER_FACTOR && afterMs - beforeMs >= SLOWER_MIN_MS;
}

/** Figures of a whole run (or of one request name: `rps` from its request count over the load's duration). */
function figuresOf(p: PerformanceResults): Record<PerfFigure, number | null> {
  return {
    p95: p.p95ResponseTime,
    p99: p.p99ResponseTime,
    med: p.medResponseTime,
    avg: p.avgResponseTime,
    rps: p.requestsPerSecond,
    errorRate: p.errorRate,
    // No assertions, no checks: no rate to compare.
    checksRate: p.checks.total ? p.checks.rate : null,
  };
}

function namedFiguresOf(n: NamedFigures, loadDurationMs: number): Record<PerfFigure, number | null> {
  return {
    p95: n.p95,
    p99: n.p99,
    med: n.med,
    avg: n.avg,
    rps: loadDurationMs > 0 ? round(n.requests / (loadDurationMs / 1000), 2) : 0,
    errorRate: n.errorRate,
    checksRate: n.checks ? n.passedChecks / n.checks : null,
  };
}

const RATES: ReadonlySet<PerfFigure> = new Set(['errorRate', 'checksRate']);

function changes(
  base: Record<PerfFigure, number | null> | null,
  head: Record<PerfFigure, number | null> | null,
  judge: boolean,
): Record<PerfFigure, FigureChange> {
  const out = {} as Record<PerfFigure, FigureChange>;
  for (const f of PERF_FIGURES) {
    const b = base ? base[f] : null;
    const h = head ? head[f] : null;
    const change = b === null || h === null ? null : RATES.has(f) ? round(h - b) : relative(b, h);
    const figure: FigureChange = { base: b === null ? null : round(b), head: h === null ? null : round(h), change };
    if (judge && b !== null && h !== null) {
      const verdict = judgeFigure(f, b, h);
      if (verdict) {
        figure.regression = verdict === 'regression';
        figure.improvement = verdict === 'improvement';
      }
    }
    out[f] = figure;
  }
  return out;
}

/**
 * The regression rule of one overall figure (module comment): `regression`, `improvement`, or
 * undefined for a figure the rules do not judge or within them.
 */
export function judgeFigure(figure: PerfFigure, base: number, head: number): 'regression' | 'improvement' | undefined {
  switch (figure) {
    case 'p95':
    case 'p99': {
      if (head > base * (1 + PERF_RULES.latency)) return 'regression';
      if (head < base * (1 - PERF_RULES.latency)) return 'improvement';
      return undefined;
    }
    case 'rps': {
      if (head < base * (1 - PERF_RULES.throughput)) return 'regression';
      if (head > base * (1 + PERF_RULES.throughput)) return 'improvement';
      return undefined;
    }
    case 'errorRate': {
      if (head - base > PERF_RULES.errorRate) return 'regression';
      if (base - head > PERF_RULES.errorRate) return 'improvement';
      return undefined;
    }
    default:
      return undefined;
  }
}

function offsets(series: SeriesPoint[] | undefined): OffsetPoint[] {
  if (!series?.length) return [];
  const t0 = series[0]!.t;
  return series.map((p) => ({ ...p, offset: p.t - t0 }));
}

/** The performance part of a comparison; a side without figures shows nulls. */
export function comparePerformance(
  base: PerformanceResults | null,
  head: PerformanceResults | null,
): PerformanceComparison {
  const baseNames = new Map((base?.byName ?? []).map((n) => [n.name, n]));
  const headNames = new Map((head?.byName ?? []).map((n) => [n.name, n]));
  const names = [...new Set([...headNames.keys(), ...baseNames.keys()])].sort(
    (x, y) =>
      (headNames.get(y)?.requests ?? -1) - (headNames.get(x)?.requests ?? -1) ||
      (baseNames.get(y)?.requests ?? -1) - (baseNames.get(x)?.requests ?? -1) ||
      x.localeCompare(y),
  );
  return {
    overall: changes(base ? figuresOf(base) : null, head ? figuresOf(head) : null, true),
    requests: names.map((name) => {
      const b = baseNames.get(name);
      const h = headNames.get(name);
      return {
        name,
        figures: changes(
          b && base ? namedFiguresOf(b, base.loadDurationMs) : null,
          h && head ? namedFiguresOf(h, head.loadDurationMs) : null,
          false,
        ),
      };
    }),
    series: { base: offsets(base?.series), head: offsets(head?.series) },
  };
}

/** Names of the keys whose canonical JSON differs between two records (sorted). */
function differingKeys(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  return [...new Set([...Object.keys(a), ...Object.keys(b)])]
    .filter((k) => canonicalJson(a[k] ?? null) !== canonicalJson(b[k] ?? null))
    .sort();
}

/** The difference of two frozen plans (module comment, last rule). Values never appear, only names. */
export function diffPlans(base: RunPlan, head: RunPlan): PlanDiff {
  const baseCases = new Map(base.testCases.map((tc) => [tc.id, tc]));
  const headCases = new Map(head.testCases.map((tc) => [tc.id, tc]));
  const ref = (tc: { id: string; name: string }) => ({ id: tc.id, name: tc.name });
  const testCases: PlanDiff['testCases'] = { changed: [], added: [], removed: [] };
  for (const [id, tc] of headCases) {
    const before = baseCases.get(id);
    if (!before) testCases.added.push(ref(tc));
    else if (definitionHash(before) !== definitionHash(tc)) testCases.changed.push(ref(tc));
  }
  for (const [id, tc] of baseCases) if (!headCases.has(id)) testCases.removed.push(ref(tc));

  const vb: Variables = base.variables ?? {};
  const vh: Variables = head.variables ?? {};
  const variables: PlanDiff['variables'] = { changed: [], added: [], removed: [] };
  for (const name of Object.keys(vh).sort()) {
    if (!(name in vb)) variables.added.push(name);
    // canonicalJson stands a sealed secret for its name only: its value is neither compared nor shown.
    else if (canonicalJson(vb[name]) !== canonicalJson(vh[name])) variables.changed.push(name);
  }
  for (const name of Object.keys(vb).sort()) if (!(name in vh)) variables.removed.push(name);

  const hb = hashedPlanPart(base);
  const hh = hashedPlanPart(head);
  const other = differingKeys(hb, hh).filter((k) => !['testCases', 'variables', 'settings', 'servers'].includes(k));
  return {
    testCases,
    variables,
    settings: differingKeys(
      (base.settings ?? {}) as unknown as Record<string, unknown>,
      (head.settings ?? {}) as unknown as Record<string, unknown>,
    ),
    servers: differingKeys(base.servers ?? {}, head.servers ?? {}),
    other,
  };
}
