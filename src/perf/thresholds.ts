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
 * `>=`, `==`, `===`, `!=`. An entry may also be `{ "threshold": "p(95)<300" }` (k6's object form;
 * `abortOnFail` is not supported and refused, so nobody relies on it silently).
 *
 * Relative thresholds (docs/history.md "Baselines"; not k6's): the number may be `baseline` or
 * `baseline*<factor>`, e.g. `"p(95)<baseline*1.10"` — the same aggregation of the same metric (and
 * tags) in the run's baseline (a runner's or deployment's `baseline`: a pinned run or the last
 * passing run), frozen into the plan when the run starts (`RunPlan.baseline.values`, keyed by
 * {@link baselineKey}). Such a threshold has `relative: true` and `value` is the factor.
 */

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
}

/** A threshold that could not be read: `path` is inside `thresholds`, `message` says why. */
export interface ThresholdIssue {
  path: Array<string | number>;
  message: string;
}

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
      if (typeof entry === 'object' && entry !== null && !Array.isArray(entry)) {
        const object = entry as Record<string, unknown>;
        const extra = Object.keys(object).filter((f) => f !== 'threshold');
        if (extra.length) {
          issues.push({
            path: [key, i, extra[0]!],
            message: `is not supported (only "threshold"; abortOnFail and delayAbortEval are not implemented)`,
          });
          return;
        }
        text = object.threshold;
      }
      if (typeof text !== 'string') {
        issues.push({ path: [key, i], message: 'must be a string like "p(95)<300"' });
        return;
      }
      const parsed = parseExpression(metric, text);
      if (typeof parsed === 'string') issues.push({ path: [key, i], message: parsed });
      else thresholds.push({ key, metric, tags, expression: text.trim(), ...parsed });
    });
  }
  if (thresholds.length > 100)
    issues.push({ path: [], message: `at most 100 threshold expressions, got ${thresholds.length}` });
  return { thresholds, issues };
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
