/**
 * Thresholds of a performance run, written as k6 writes them
 * (https://grafana.com/docs/k6/latest/using-k6/thresholds/):
 *
 *   { "http_req_duration": ["p(95)<300", "avg<100"],
 *     "http_req_failed": ["rate<0.01"],
 *     "checks": ["rate>0.99"],
 *     "http_req_duration{name:login}": ["p(99)<800"] }
 *
 * A key is a metric, optionally with tags in braces (`name` — an API node's name, or its id when it
 * has none — and `testCase` — a test case's name); each expression is `<aggregation> <operator>
 * <number>`. Aggregations by metric kind, as in k6: trends (`http_req_duration`,
 * `iteration_duration`, in milliseconds) take `avg`, `min`, `max`, `med`, `p(N)`; rates
 * (`http_req_failed`, `checks`) take `rate` (a fraction); counters (`http_reqs`, `iterations`,
 * `data_sent`, `data_received`) take `count` and `rate` (per second). Operators: `<`, `<=`, `>`,
 * `>=`, `==`, `===`, `!=`.
 *
 * An entry may also be k6's object form `{ "threshold": "p(95)<300", "abortOnFail": true,
 * "delayAbortEval": "10s" }` (k6 docs "Thresholds", "Abort a test when a threshold is crossed"):
 * with `abortOnFail` the run's threshold watcher (src/perf/watch.ts) stops the load as soon as the
 * threshold fails, evaluated every second on the figures so far (cumulative, as k6 does), but not
 * before `delayAbortEval` (a k6 duration, default 0) of profile time. `delayAbortEval` without
 * `abortOnFail` is refused (it would do nothing).
 *
 * Windows (Assay's, not k6's): an expression may end in `over <duration>`, e.g.
 * `"p(95)<300 over 30s"` (1 s to 10 min): it is evaluated every second of profile time on the
 * figures of the last 30 s only (merged across shards), and fails when any full window failed (its
 * `actual` is the worst window's); with `abortOnFail` the first failing window stops the load.
 *
 * Relative thresholds (docs/history.md "Baselines"; not k6's): the number may be `baseline` or
 * `baseline*<factor>`, e.g. `"p(95)<baseline*1.10"` — the same aggregation of the same metric (and
 * tags) in the run's baseline (a runner's or deployment's `baseline`: a pinned run or the last
 * passing run), frozen into the plan when the run starts (`RunPlan.baseline.values`, keyed by
 * {@link baselineKey}). Such a threshold has `relative: true` and `value` is the factor.
 */

import { formatDuration, parseDuration } from '../domain/duration';

/** Metrics a threshold may name, with their kind (k6's built-in metric names). */
export const THRESHOLD_METRICS = {
  http_req_duration: 'trend',
  iteration_duration: 'trend',
  http_req_failed: 'rate',
  checks: 'rate',
  http_reqs: 'counter',
  iterations: 'counter',
  data_sent: 'counter',
  data_received: 'counter',
} as const;

export type ThresholdMetric = keyof typeof THRESHOLD_METRICS;
export type ThresholdOperator = '<' | '<=' | '>' | '>=' | '==' | '===' | '!=';
/** `avg`, `min`, `max`, `med`, `rate`, `count`, or a percentile `p(95)` as `{ p: 95 }`. */
export type Aggregation = 'avg' | 'min' | 'max' | 'med' | 'rate' | 'count' | { p: number };

/** Tags a threshold may filter by. */
export const THRESHOLD_TAGS = ['name', 'testCase'] as const;

/** One parsed threshold. */
export interface Threshold {
  /** The key as written, e.g. `http_req_duration{name:login}`. */
  key: string;
  metric: ThresholdMetric;
  tags: { name?: string; testCase?: string };
  /** The expression as written, e.g. `p(95)<300`. */
  expression: string;
  aggregation: Aggregation;
  operator: ThresholdOperator;
  /** The number compared with; for a relative threshold, the factor the baseline's value is multiplied by. */
  value: number;
  /** `baseline` or `baseline*<factor>` was written: the limit is the baseline's value × `value`. */
  relative?: boolean;
  /** `over <duration>` was written: evaluated on the last `windowMs` of profile time (1 s – 10 min). */
  windowMs?: number;
  /** k6's `abortOnFail`: the load stops as soon as this fails (src/perf/watch.ts). */
  abortOnFail?: boolean;
  /** k6's `delayAbortEval`, ms of profile time before an abort is considered (only with `abortOnFail`). */
  delayAbortEvalMs?: number;
}

/** Shortest and longest window of a windowed threshold (`over 30s`), ms. */
export const THRESHOLD_WINDOW_LIMITS = { minMs: 1000, maxMs: 600_000 } as const;
/** Longest `delayAbortEval`, ms (a day: longer than any profile is useless). */
export const MAX_DELAY_ABORT_EVAL_MS = 86_400_000;

/** A threshold that could not be read: `path` is inside `thresholds`, `message` says why. */
export interface ThresholdIssue {
  path: Array<string | number>;
  message: string;
}

const WINDOW = /^(.*?)\s+over\s+(\S+)\s*$/i;
const OBJECT_FIELDS = ['threshold', 'abortOnFail', 'delayAbortEval'];
const KEY = /^([a-z_]+)(?:\{([^{}]*)\})?$/;
const EXPRESSION =
  /^\s*(avg|min|max|med|rate|count|p\(\s*(\d+(?:\.\d+)?)\s*\))\s*(<=|>=|===|==|!=|<|>)\s*(-?\d+(?:\.\d+)?(?:e[+-]?\d+)?|baseline(?:\s*\*\s*(\d+(?:\.\d+)?(?:e[+-]?\d+)?))?)\s*$/i;
const AGGREGATIONS_BY_KIND = {
  trend: ['avg', 'min', 'max', 'med', 'p(N)'],
  rate: ['rate'],
  counter: ['count', 'rate'],
} as const;

/**
 * Reads a `thresholds` object. Returns the thresholds, or the issues found (each naming its key and
 * entry). At most 100 expressions.
 */
export function parseThresholds(input: unknown): { thresholds: Threshold[]; issues: ThresholdIssue[] } {
  const thresholds: Threshold[] = [];
  const issues: ThresholdIssue[] = [];
  if (input === undefined) return { thresholds, issues };
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return {
      thresholds,
      issues: [
        {
          path: [],
          message: 'must be an object of metric → array of expressions, e.g. {"http_req_duration": ["p(95)<300"]}',
        },
      ],
    };
  }
  for (const [key, list] of Object.entries(input)) {
    const k = KEY.exec(key);
    const metric = k?.[1] as ThresholdMetric | undefined;
    if (!k || !metric || !(metric in THRESHOLD_METRICS)) {
      issues.push({
        path: [key],
        message: `unknown metric; one of ${Object.keys(THRESHOLD_METRICS).join(', ')}, optionally with tags like {name:login}`,
      });
      continue;
    }
    const tags: Threshold['tags'] = {};
    let tagsOk = true;
    for (const part of (k[2] ?? '').split(',').filter((p) => p.trim() !== '')) {
      const colon = part.indexOf(':');
      const tag = part.slice(0, colon).trim();
      const value = part.slice(colon + 1).trim();
      if (colon < 0 || !(THRESHOLD_TAGS as readonly string[]).includes(tag) || value === '') {
        issues.push({
          path: [key],
          message: `tag "${part.trim()}" is not supported; tags are ${THRESHOLD_TAGS.map((t) => `${t}:<value>`).join(', ')}`,
        });
        tagsOk = false;
        continue;
      }
      tags[tag as 'name' | 'testCase'] = value;
    }
    if (!tagsOk) continue;
    if (!Array.isArray(list) || list.length === 0) {
      issues.push({ path: [key], message: 'must be a non-empty array of expressions like "p(95)<300"' });
      continue;
    }
    list.forEach((entry: unknown, i) => {
      let text: unknown = entry;
      const options: Pick<Threshold, 'abortOnFail' | 'delayAbortEvalMs'> = {};
      if (typeof entry === 'object' && entry !== null && !Array.isArray(entry)) {
        const object = entry as Record<string, unknown>;
        const extra = Object.keys(object).filter((f) => !OBJECT_FIELDS.includes(f));
        if (extra.length) {
          issues.push({
            path: [key, i, extra[0]!],
            message: `is not a field of a threshold (k6's object form has ${OBJECT_FIELDS.join(', ')})`,
          });
          return;
        }
        const bad = objectOptions(object, options);
        if (bad) {
          issues.push({ path: [key, i, bad.field], message: bad.message });
          return;
        }
        text = object.threshold;
        if (typeof text !== 'string') {
          issues.push({ path: [key, i, 'threshold'], message: 'must be a string like "p(95)<300"' });
          return;
        }
      }
      if (typeof text !== 'string') {
        issues.push({
          path: [key, i],
          message: 'must be a string like "p(95)<300", or {"threshold": "p(95)<300", "abortOnFail": true}',
        });
        return;
      }
      const at: Array<string | number> = typeof entry === 'string' ? [key, i] : [key, i, 'threshold'];
      let body = text;
      let windowMs: number | undefined;
      const w = WINDOW.exec(text);
      if (w) {
        body = w[1]!;
        const ms = windowOf(w[2]!);
        if (typeof ms === 'string') {
          issues.push({ path: at, message: ms });
          return;
        }
        windowMs = ms;
      }
      const parsed = parseExpression(metric, body);
      if (typeof parsed === 'string') issues.push({ path: at, message: parsed });
      else
        thresholds.push({
          key,
          metric,
          tags,
          expression: text.trim().replace(/\s+over\s+/i, ' over '),
          ...parsed,
          ...(windowMs !== undefined ? { windowMs } : {}),
          ...options,
        });
    });
  }
  if (thresholds.length > 100)
    issues.push({ path: [], message: `at most 100 threshold expressions, got ${thresholds.length}` });
  return { thresholds, issues };
}

/** Reads `abortOnFail` and `delayAbortEval` of an object entry into `options`; the field at fault otherwise. */
function objectOptions(
  object: Record<string, unknown>,
  options: Pick<Threshold, 'abortOnFail' | 'delayAbortEvalMs'>,
): { field: string; message: string } | undefined {
  if (object.abortOnFail !== undefined && typeof object.abortOnFail !== 'boolean')
    return { field: 'abortOnFail', message: 'must be true or false' };
  if (object.abortOnFail === true) options.abortOnFail = true;
  if (object.delayAbortEval === undefined) return undefined;
  if (!options.abortOnFail) return { field: 'delayAbortEval', message: 'has an effect only with "abortOnFail": true' };
  let ms: number;
  try {
    ms = parseDuration(object.delayAbortEval);
  } catch (err) {
    return { field: 'delayAbortEval', message: (err as Error).message };
  }
  if (ms > MAX_DELAY_ABORT_EVAL_MS)
    return { field: 'delayAbortEval', message: `must be at most ${formatDuration(MAX_DELAY_ABORT_EVAL_MS)}` };
  options.delayAbortEvalMs = ms;
  return undefined;
}

/** The window of `over <text>`, ms, or why it is not one. */
function windowOf(text: string): number | string {
  let ms: number;
  try {
    ms = parseDuration(text);
  } catch {
    return `"over ${text}": the window must be a duration like "30s" or "5m"`;
  }
  const { minMs, maxMs } = THRESHOLD_WINDOW_LIMITS;
  if (ms < minMs || ms > maxMs)
    return `the window "over ${text}" must be ${formatDuration(minMs)} to ${formatDuration(maxMs)}`;
  return ms;
}

function parseExpression(
  metric: ThresholdMetric,
  text: string,
): Pick<Threshold, 'aggregation' | 'operator' | 'value' | 'relative'> | string {
  const kind = THRESHOLD_METRICS[metric];
  const allowed = AGGREGATIONS_BY_KIND[kind];
  const m = EXPRESSION.exec(text);
  if (!m)
    return `"${text}" is not a threshold: write <aggregation> <operator> <number> (or baseline, or baseline*<factor>), e.g. "${kind === 'trend' ? 'p(95)<300' : kind === 'rate' ? 'rate<0.01' : 'count>100'}"`;
  const name = m[1]!.toLowerCase();
  const aggregation: Aggregation =
    m[2] !== undefined ? { p: Number(m[2]) } : (name as Exclude<Aggregation, { p: number }>);
  const aggregationName = typeof aggregation === 'object' ? 'p(N)' : aggregation;
  if (!(allowed as readonly string[]).includes(aggregationName))
    return `${metric} is a ${kind}: its aggregations are ${allowed.join(', ')}, not ${m[1]}`;
  if (typeof aggregation === 'object' && !(aggregation.p > 0 && aggregation.p <= 100))
    return `the percentile must be above 0 and at most 100, got ${aggregation.p}`;
  if (/^baseline/i.test(m[4]!)) {
    const factor = m[5] === undefined ? 1 : Number(m[5]);
    if (!(factor > 0 && Number.isFinite(factor))) return `the factor of baseline must be a number above 0, got ${m[5]}`;
    return { aggregation, operator: m[3] as ThresholdOperator, value: factor, relative: true };
  }
  return { aggregation, operator: m[3] as ThresholdOperator, value: Number(m[4]) };
}

/**
 * The key of a threshold's baseline figure in `RunPlan.baseline.values`: its metric key (tags
 * included) and aggregation, e.g. `http_req_duration{name:login}:p(95)`.
 */
export function baselineKey(threshold: Pick<Threshold, 'key' | 'aggregation'>): string {
  return `${threshold.key}:${aggregationName(threshold.aggregation)}`;
}

/** The threshold's right-hand side as written back: `300`, `baseline`, `baseline*1.1`. */
export function limitText(threshold: Pick<Threshold, 'value' | 'relative'>): string {
  if (!threshold.relative) return String(threshold.value);
  return threshold.value === 1 ? 'baseline' : `baseline*${threshold.value}`;
}

/**
 * The threshold as results and aborts show it: `p(95)<300`, `p(95)<baseline*1.1`,
 * `p(95)<300 over 30s` (the window as {@link formatDuration} writes it).
 */
export function thresholdText(
  threshold: Pick<Threshold, 'aggregation' | 'operator' | 'value' | 'relative' | 'windowMs'>,
): string {
  const base = `${aggregationName(threshold.aggregation)}${threshold.operator}${limitText(threshold)}`;
  return threshold.windowMs === undefined ? base : `${base} over ${formatDuration(threshold.windowMs)}`;
}

/** Whether `actual operator value` holds (k6's comparison; `==` and `===` alike on numbers). */
export function compare(actual: number, operator: ThresholdOperator, value: number): boolean {
  switch (operator) {
    case '<':
      return actual < value;
    case '<=':
      return actual <= value;
    case '>':
      return actual > value;
    case '>=':
      return actual >= value;
    case '==':
    case '===':
      return actual === value;
    case '!=':
      return actual !== value;
  }
}

/** `p(95)` or the aggregation's name, as shown in results. */
export function aggregationName(aggregation: Aggregation): string {
  return typeof aggregation === 'object' ? `p(${aggregation.p})` : aggregation;
}
