/**
 * The `html` reporter (docs/reports.md "html"): one self-contained file that opens offline and
 * makes no request at all (a `default-src 'none'` Content-Security-Policy enforces it):
 *
 * - a summary: outcome badge, counts, duration, runner, environment, run id, links;
 * - each test case, collapsible (failed ones open): its failures with expected and actual side by
 *   side (grouped by data row for a data-driven test case), then its nodes as a tree — requests
 *   (method, URL, status, time, size), assertions tables, errors (with their `errorCode`), script logs, IF/Parallel
 *   children and the rows of loops and iterations;
 * - flaky and quarantined test cases (docs/history.md) marked by a tag next to their name, a
 *   sentence saying how often the test case flipped, and summary cards counting them;
 * - for a performance run, its figures, thresholds, per-request table and per-second charts
 *   (requests and errors per second, p95 latency, VUs) drawn by uPlot, inlined
 *   (cli/reports/assets.ts), from data embedded as JSON in a `<script type="application/json">`.
 *
 * Templated with Handlebars (cli/reports/html-template.ts), which escapes every value; light and
 * dark through `prefers-color-scheme`; printing opens every section.
 */
import Handlebars from 'handlebars';
import type { NodeResult, TestCaseResult } from '../../src/domain/types';
import type { PerformanceResults } from '../../src/perf/metrics';
import { reportAssets } from './assets';
import { NODE_PARTIAL, PAGE_TEMPLATE } from './html-template';
import {
  caseUnits,
  flakySentence,
  formatMs,
  formatRate,
  logsOfNodes,
  outcomeOf,
  runDurationMs,
  runError,
  runTotals,
  valueText,
  visibleControls,
  formatTime,
  type Problem,
  type ReportInput,
} from './model';

/** Characters of an expected or actual value shown in the page (values in results are cut already). */
const VALUE_CHARS = 20_000;

let compiled: HandlebarsTemplateDelegate | undefined;

function template(): HandlebarsTemplateDelegate {
  if (!compiled) {
    const hb = Handlebars.create();
    hb.registerPartial('node', NODE_PARTIAL);
    compiled = hb.compile(PAGE_TEMPLATE, { strict: false, noEscape: false });
  }
  return compiled;
}

/** The HTML report of a run: a whole document, UTF-8. */
export function renderHtml(input: ReportInput): string {
  const { run, results, links } = input;
  const outcome = outcomeOf(input);
  const totals = runTotals(results);
  const perf = results.performance;
  const chart = perf && perf.series?.length ? chartData(perf) : undefined;
  const where = { runner: run.runner ?? results.runner, environment: run.environment ?? results.environment };
  const assets = chart ? reportAssets() : undefined;
  const view = {
    title: `${outcomeLabels[outcome]} · ${run.runner ?? results.runner} on ${run.environment ?? results.environment} · assay`,
    runner: run.runner ?? results.runner,
    environment: run.environment ?? results.environment,
    runId: run.runId ?? results.runId,
    trigger: run.trigger,
    startedAt: formatTime(run.startedAt ?? results.startedAt),
    completedAt: formatTime(run.completedAt ?? results.completedAt),
    outcome,
    outcomeLabel: outcomeLabels[outcome],
    totals,
    failedAssertions: totals.assertions - totals.passedAssertions,
    duration: formatMs(runDurationMs(input)),
    error: outcome === 'error' ? (runError(input) ?? 'no reason given') : undefined,
    links: [
      { label: 'Open in the console', href: safeHref(links.console) },
      { label: 'Temporal workflow', href: safeHref(links.temporal) },
      { label: 'Results (API)', href: safeHref(links.results) },
    ].filter((l) => l.href),
    performance: perf ? performanceView(perf, Boolean(chart)) : undefined,
    testCases: (results.details?.testCases ?? []).map((tc) => testCaseView(tc, where)),
    flaky: (results.details?.testCases ?? []).filter((tc) => tc.flaky).length,
    quarantined: (results.details?.testCases ?? []).filter((tc) => tc.quarantined && tc.status === 'failed').length,
    generatedAt: formatTime((input.generatedAt ?? new Date()).toISOString()),
    chartJson: chart ? scriptJson(chart) : undefined,
    uplotJs: assets ? assets.uplotJs.replace(/<\/(script)/gi, '<\\/$1') : undefined,
    uplotCss: assets ? assets.uplotCss.replace(/<\/(style)/gi, '<\\/$1') : undefined,
  };
  return template()(view);
}

const outcomeLabels = {
  passed: 'PASSED',
  failed: 'FAILED',
  error: 'RUN FAILED',
  queued: 'QUEUED',
  running: 'RUNNING',
} as const;
const marks = { passed: '✔', failed: '✘', skipped: '–' } as const;

/** Only http(s) links become links (they come from the CLI's configuration, but a link is a link). */
function safeHref(url: string | undefined): string | undefined {
  return url && /^https?:\/\//i.test(url) ? url : undefined;
}

/** JSON for a `<script type="application/json">`: `<`, `>`, `&` and the JS line separators escaped. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

function pretty(value: unknown): string {
  if (value === undefined) return '(nothing)';
  let text: string;
  try {
    text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value, null, 2) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > VALUE_CHARS ? `${text.slice(0, VALUE_CHARS)}…` : text;
}

function problemView(p: Problem, unit?: string) {
  return {
    unit,
    nodeLabel: p.nodeLabel,
    isFailure: p.kind === 'failure',
    assertion: p.assertion,
    operator: p.operator,
    expected: p.hasExpected ? pretty(p.expected) : '(no expected value)',
    actual: pretty(p.hasActual ? p.actual : undefined),
    message: visibleControls(p.message),
    errorCode: p.errorCode,
  };
}

function testCaseView(tc: TestCaseResult, where: { runner: string; environment: string }) {
  const flakyNodes = new Map((tc.flakyNodes ?? []).map((f) => [f.id, f]));
  const units = caseUnits(tc);
  const rows = units.some((u) => u.kind !== 'case');
  const problems = units.flatMap((u) =>
    u.problems.map((p) => problemView(p, rows && u.kind !== 'case' ? u.name.slice(tc.name.length + 2, -1) : undefined)),
  );
  const facts = [tc.status === 'skipped' ? 'skipped' : formatMs(tc.duration)];
  if (tc.assertions) facts.push(`${tc.passedAssertions}/${tc.assertions} assertions`);
  if (rows) {
    const rowUnits = units.filter((u) => u.kind === 'row');
    facts.push(`${rowUnits.filter((u) => u.status === 'failed').length}/${rowUnits.length} rows failed`);
  }
  return {
    name: tc.name,
    status: tc.status,
    mark: marks[tc.status],
    open: tc.status === 'failed',
    facts: facts.join(' · '),
    error: tc.error ? visibleControls(tc.error) : undefined,
    flaky: flakySentence(tc, where.runner, where.environment),
    quarantined: tc.quarantined === true && tc.status === 'failed',
    problems,
    nodes: (tc.nodes ?? []).map((n) => nodeView(n, flakyNodes)),
  };
}

interface NodeView {
  status: string;
  mark: string;
  type: string;
  title: string;
  request?: { method: string; url: string };
  response?: { status: string };
  duration: string;
  facts: string[];
  error?: string;
  /** The error's stable code (NodeResult `errorCode`), shown beside it. */
  errorCode?: string;
  assertions: Array<{
    passed: boolean;
    label: string;
    operator: string;
    expected: string;
    actual: string;
    message: string;
  }>;
  logs: Array<{ level: string; message: string }>;
  children: NodeView[];
  /** Set when the flakiness rule flags this node (`flakyNodes`): the sentence for its tag's title. */
  flaky?: string;
  rows: Array<{ label: string; status: string; mark: string; open: boolean; nodes: NodeView[] }>;
  omitted?: string;
}

/** Flaky nodes of a test case by id (`TestCaseResult.flakyNodes`). */
type FlakyNodes = Map<string, { flips: number; window: number; flipRate: number }>;

function nodeView(n: NodeResult, flakyNodes: FlakyNodes = new Map()): NodeView {
  const flaky = flakyNodes.get(n.id);
  const facts: string[] = [];
  if (n.response)
    facts.push(`${formatMs(n.response.timeMs)}`, `${bytes(n.response.size)}${n.response.truncated ? ' (cut)' : ''}`);
  if (n.attempts?.length)
    facts.push(
      `attempts: ${n.attempts.map((a) => `${a.status ?? a.error ?? '?'} in ${formatMs(a.timeMs)}`).join(', ')}`,
    );
  if (n.reason) facts.push(n.reason);
  if (n.branch) facts.push(`branch: ${n.branch}`);
  if (n.condition !== undefined) facts.push(`condition: ${valueText(n.condition, 200)}`);
  if (n.iterations !== undefined)
    facts.push(
      `${n.iterations} iteration${n.iterations === 1 ? '' : 's'}${n.stoppedBy ? `, stopped by ${n.stoppedBy}` : ''}`,
    );
  if (n.waitedMs !== undefined) facts.push(`waited ${formatMs(n.waitedMs)}`);
  if (n.variablesSet) facts.push(`set ${valueText(n.variablesSet, 300)}`);
  if (n.line !== undefined) facts.push(`line ${n.line}`);
  const iteration = n.type === 'iteration';
  return {
    status: n.status,
    mark: marks[n.status],
    type: n.type,
    title: n.name ?? n.id,
    ...(n.request ? { request: n.request } : {}),
    ...(n.request && n.response
      ? { response: { status: n.response.status !== undefined ? String(n.response.status) : 'no response' } }
      : {}),
    duration: formatMs(n.duration),
    ...(flaky
      ? {
          flaky: `flaky: this node's outcome flipped ${flaky.flips} time${flaky.flips === 1 ? '' : 's'} in the test case's last ${flaky.window} runs (flip rate ${formatRate(flaky.flipRate)})`,
        }
      : {}),
    facts,
    ...(n.error ? { error: visibleControls(n.error) } : {}),
    ...(n.errorCode ? { errorCode: n.errorCode } : {}),
    assertions: (n.assertions ?? []).map((a) => ({
      passed: a.passed,
      label: a.name ? `${a.name} (${a.target})` : a.target,
      operator: a.operator,
      expected: 'expected' in a ? valueText(a.expected, 500) : '',
      actual: valueText(a.actual, 500),
      message: a.passed ? '' : (a.message ?? ''),
    })),
    logs: logsOfNodes([{ ...n, children: undefined, iterationResults: undefined }]).map((l) => ({
      level: l.level,
      message: visibleControls(l.message),
    })),
    children: (n.children ?? []).map((c) => nodeView(c, flakyNodes)),
    rows: (n.iterationResults ?? []).map((it) => ({
      label: `${iteration ? 'row' : 'iteration'} ${it.index + 1}${it.item !== undefined ? `: ${valueText(it.item, 120)}` : ''}`,
      status: it.status,
      mark: marks[it.status],
      open: it.status === 'failed',
      nodes: it.nodes.map((c) => nodeView(c, flakyNodes)),
    })),
    ...(n.omittedIterations
      ? {
          omitted: `${n.omittedIterations} more ${iteration ? 'rows' : 'iterations'} ran; the results keep only the first ${n.iterationResults?.length ?? 0}.`,
        }
      : {}),
  };
}

function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

function performanceView(p: PerformanceResults, hasSeries: boolean) {
  const failedThresholds = (p.thresholds ?? []).filter((t) => !t.passed).length;
  const cards = [
    { label: 'avg response', value: formatMs(p.avgResponseTime) },
    { label: 'p95 response', value: formatMs(p.p95ResponseTime) },
    { label: 'p99 response', value: formatMs(p.p99ResponseTime) },
    { label: 'requests/s', value: String(Math.round(p.requestsPerSecond * 10) / 10) },
    {
      label: `error rate (${p.failedRequests} of ${p.requests})`,
      value: formatRate(p.errorRate),
      cls: p.failedRequests ? 'ko' : 'ok',
    },
    { label: `checks (${p.checks.passed} of ${p.checks.total})`, value: formatRate(p.checks.rate) },
    { label: 'peak VUs', value: String(p.peakVUs) },
    { label: 'load duration', value: formatMs(p.loadDurationMs) },
  ];
  if (p.thresholds?.length)
    cards.push({
      label: 'thresholds failed',
      value: `${failedThresholds}/${p.thresholds.length}`,
      cls: failedThresholds ? 'ko' : 'ok',
    });
  return {
    cards,
    thresholds: (p.thresholds ?? []).map((t) => ({
      metric: t.metric,
      threshold: t.threshold,
      passed: t.passed,
      actual: /duration/.test(t.metric)
        ? formatMs(t.actual)
        : /failed|rate|checks/.test(t.metric)
          ? formatRate(t.actual)
          : String(Math.round(t.actual * 100) / 100),
    })),
    hasSeries,
    byName: (p.byName ?? []).map((b) => ({
      name: b.name,
      requests: b.requests,
      failed: b.failedRequests,
      avg: formatMs(b.avg),
      p95: formatMs(b.p95),
      p99: formatMs(b.p99),
      max: formatMs(b.max),
      checks: b.checks ? `${b.passedChecks}/${b.checks}` : '–',
    })),
  };
}

/**
 * The charts' columns from the per-second series: time (epoch seconds), requests and errors per
 * second, p95 ms, VUs. A missing point (no request ended then: an outage) becomes a gap.
 */
export function chartData(p: PerformanceResults): {
  t: number[];
  rps: Array<number | null>;
  eps: Array<number | null>;
  p95: Array<number | null>;
  vus: Array<number | null>;
} {
  const res = p.seriesResolution || 1;
  const out = {
    t: [] as number[],
    rps: [] as Array<number | null>,
    eps: [] as Array<number | null>,
    p95: [] as Array<number | null>,
    vus: [] as Array<number | null>,
  };
  let last: number | undefined;
  for (const point of p.series) {
    if (last !== undefined && point.t - last > res) {
      out.t.push(last + res);
      out.rps.push(null);
      out.eps.push(null);
      out.p95.push(null);
      out.vus.push(null);
    }
    out.t.push(point.t);
    out.rps.push(Math.round((point.requests / res) * 100) / 100);
    out.eps.push(Math.round((point.failed / res) * 100) / 100);
    out.p95.push(point.p95);
    out.vus.push(point.vus);
    last = point.t;
  }
  return out;
}
