/**
 * The `cli` reporter: the summary `assay run --wait` prints when a run ends (docs/reports.md
 * "cli"). One line per test case, then each failed test case's failures (node, assertion,
 * operator, expected and actual side by side, node errors with their `errorCode` in front, a few
 * log lines of the failed nodes),
 * the totals, the performance figures of a performance run, the run's error, and the links.
 *
 * Colour (ANSI, through Node's own `util.styleText`) only when asked: the caller decides from the
 * terminal and NO_COLOR.
 */
import { styleText } from 'node:util';
import {
  caseUnits,
  formatMs,
  formatRate,
  outcomeOf,
  problemText,
  runDurationMs,
  runError,
  runTotals,
  valueText,
  visibleControls,
  type CaseUnit,
  type LogEntry,
  type Problem,
  type ReportInput,
} from './model';
import type { PerformanceResults } from '../../src/perf/metrics';

/** Log lines shown per failed test case (the rest are counted). */
export const CLI_LOG_LINES = 5;
/** Failures shown per failed test case (the rest are counted). */
export const CLI_FAILURES = 10;
/** Characters of an expected or actual value shown. */
export const CLI_VALUE_CHARS = 300;
/** Expected and actual share one line when both fit in this many characters. */
const SIDE_BY_SIDE = 40;

/** Control characters of user text shown as `\u001b`, so no escape sequence reaches the terminal (see {@link visibleControls}). */
export const terminalSafe = visibleControls;

type Style = Parameters<typeof styleText>[0];

/**
 * The terminal summary of a run. Plain text ending with a newline; with `options.color`, ANSI
 * colours (green passes, red failures, dim details).
 */
export function renderCli(input: ReportInput, options: { color: boolean }): string {
  const paint = (style: Style, text: string) =>
    options.color ? styleText(style, text, { validateStream: false }) : text;
  const out: string[] = [];
  const { run, results, links } = input;
  const cases = results.details?.testCases ?? [];
  const outcome = outcomeOf(input);
  const outcomeText = {
    passed: paint(['bold', 'green'], 'PASSED'),
    failed: paint(['bold', 'red'], 'FAILED'),
    error: paint(['bold', 'red'], 'RUN FAILED'),
    queued: 'QUEUED',
    running: 'RUNNING',
  }[outcome];

  out.push(
    '',
    `${paint('bold', `Run ${run.runId ?? results.runId}`)} · ${run.runner ?? results.runner} on ${run.environment ?? results.environment} · ${outcomeText}`,
    '',
  );

  const width = Math.min(60, Math.max(10, ...cases.map((c) => c.name.length)));
  for (const tc of cases) {
    const mark =
      tc.status === 'passed' ? paint('green', '✔') : tc.status === 'failed' ? paint('red', '✘') : paint('yellow', '-');
    const safe = terminalSafe(tc.name);
    const name = safe.length > width ? `${safe.slice(0, width - 1)}…` : safe.padEnd(width);
    const right = tc.status === 'skipped' ? paint('yellow', 'skipped') : paint('dim', formatMs(tc.duration));
    // Flaky and quarantined test cases (docs/history.md) say so after their time.
    const tags = [
      ...(tc.flaky ? [paint('yellow', 'flaky')] : []),
      ...(tc.quarantined && tc.status === 'failed' ? [paint('yellow', 'quarantined')] : []),
    ];
    out.push(
      `  ${mark} ${tc.status === 'failed' ? paint('red', name) : name}  ${right}${tags.map((t) => `  ${t}`).join('')}`,
    );
  }
  if (cases.length === 0) out.push(paint('dim', '  (no test cases ran)'));

  const failed = cases.filter((c) => c.status === 'failed');
  if (failed.length) {
    out.push('', paint(['bold', 'red'], `Failures (${failed.length} test case${failed.length === 1 ? '' : 's'})`));
    failed.forEach((tc, i) => {
      out.push('', paint('bold', `  ${i + 1}) ${terminalSafe(tc.name)}`));
      const units = caseUnits(tc).filter((u) => u.status === 'failed');
      const rows = units.some((u) => u.kind !== 'case');
      let shown = 0;
      let hidden = 0;
      for (const unit of units) {
        const indent = rows ? '       ' : '     ';
        if (rows && unit.kind !== 'case')
          out.push(paint('bold', `     ${terminalSafe(unit.name.slice(tc.name.length + 1))}`));
        for (const p of unit.problems) {
          if (shown >= CLI_FAILURES) {
            hidden += 1;
            continue;
          }
          shown += 1;
          out.push(...problemLines(p, indent, paint));
        }
        out.push(...logLines(unit, indent, paint));
      }
      if (hidden)
        out.push(
          paint('dim', `     … and ${hidden} more failure${hidden === 1 ? '' : 's'} (see the JSON or HTML report)`),
        );
    });
  }

  const t = runTotals(results);
  const failedAssertions = t.assertions - t.passedAssertions;
  out.push('');
  out.push(
    `${paint('bold', 'Test cases:')}  ${paint('green', `${t.passed} passed`)}, ${t.failed ? paint('red', `${t.failed} failed`) : '0 failed'}, ${t.skipped ? paint('yellow', `${t.skipped} skipped`) : '0 skipped'} (${t.testCases})`,
  );
  out.push(
    `${paint('bold', 'Assertions:')}  ${paint('green', `${t.passedAssertions} passed`)}, ${failedAssertions ? paint('red', `${failedAssertions} failed`) : '0 failed'} (${t.assertions})`,
  );
  out.push(`${paint('bold', 'Duration:')}    ${formatMs(runDurationMs(input))}`);

  if (results.performance) out.push('', ...performanceLines(results.performance, paint));

  const error = runError(input);
  if (outcome === 'error')
    out.push('', paint(['bold', 'red'], `Run failed: ${terminalSafe(error ?? 'no reason given')}`));

  const linkLines: string[] = [];
  if (links.console) linkLines.push(`${paint('bold', 'Console:')}  ${links.console}`);
  if (links.temporal) linkLines.push(`${paint('bold', 'Temporal:')} ${links.temporal}`);
  if (linkLines.length) out.push('', ...linkLines);
  return `${out.join('\n')}\n`;
}

/** One failure or node error: where, what, expected vs actual, why. */
function problemLines(p: Problem, indent: string, paint: (s: Style, t: string) => string): string[] {
  const lines: string[] = [];
  if (p.kind === 'error') {
    lines.push(
      `${indent}${paint('red', '✘')} ${terminalSafe(p.nodeLabel)}: ${paint('red', terminalSafe(problemText(p)))}`,
    );
    return lines;
  }
  lines.push(`${indent}${paint('red', '✘')} ${terminalSafe(p.nodeLabel)}`);
  lines.push(`${indent}  ${paint('bold', terminalSafe(`${p.assertion ?? '?'} ${p.operator ?? ''}`.trim()))}`);
  const expected = p.hasExpected ? valueText(p.expected, CLI_VALUE_CHARS) : undefined;
  const actual = valueText(p.hasActual ? p.actual : undefined, CLI_VALUE_CHARS);
  if (expected !== undefined && expected.length <= SIDE_BY_SIDE && actual.length <= SIDE_BY_SIDE) {
    lines.push(
      `${indent}  ${paint('green', `expected ${expected}`)}  ${paint('dim', '│')}  ${paint('red', `actual ${actual}`)}`,
    );
  } else {
    if (expected !== undefined) lines.push(`${indent}  ${paint('green', `expected ${expected}`)}`);
    lines.push(`${indent}  ${paint('red', `actual   ${actual}`)}`);
  }
  lines.push(`${indent}  ${paint('dim', terminalSafe(p.message))}`);
  return lines;
}

/** The last log lines the failed nodes of a unit logged (their scripts' output). */
function logLines(unit: CaseUnit, indent: string, paint: (s: Style, t: string) => string): string[] {
  const logs = unit.logs.filter((l) => l.nodeFailed);
  if (!logs.length) return [];
  const shown = logs.slice(-CLI_LOG_LINES);
  const lines = [
    `${indent}${paint('dim', `logs of the failed nodes${logs.length > shown.length ? ` (last ${shown.length} of ${logs.length})` : ''}:`)}`,
  ];
  for (const l of shown)
    lines.push(`${indent}  ${paint(l.level === 'error' ? 'red' : l.level === 'warn' ? 'yellow' : 'dim', logText(l))}`);
  return lines;
}

function logText(l: LogEntry): string {
  const message = l.message.length > 200 ? `${l.message.slice(0, 199)}…` : l.message;
  return terminalSafe(`[${l.level}] ${l.node}: ${message.replace(/\s*\n\s*/g, ' ⏎ ')}`);
}

/** The performance figures: latency, throughput, errors, checks, thresholds. */
function performanceLines(p: PerformanceResults, paint: (s: Style, t: string) => string): string[] {
  const lines = [paint('bold', 'Performance')];
  lines.push(
    `  latency     avg ${formatMs(p.avgResponseTime)} · p95 ${formatMs(p.p95ResponseTime)} · p99 ${formatMs(p.p99ResponseTime)} · max ${formatMs(p.maxResponseTime)}`,
  );
  lines.push(
    `  throughput  ${round(p.requestsPerSecond)} req/s · ${p.requests} requests over ${formatMs(p.loadDurationMs)} · peak ${p.peakVUs} VUs`,
  );
  const errorText = `error rate ${formatRate(p.errorRate)} (${p.failedRequests} failed)`;
  lines.push(
    `  errors      ${p.failedRequests ? paint('red', errorText) : errorText} · checks ${formatRate(p.checks.rate)} of ${p.checks.total}`,
  );
  const thresholds = p.thresholds ?? [];
  if (thresholds.length) {
    const failedT = thresholds.filter((t) => !t.passed);
    lines.push(
      `  thresholds  ${paint('green', `${thresholds.length - failedT.length} passed`)}, ${failedT.length ? paint('red', `${failedT.length} failed`) : '0 failed'}`,
    );
    for (const t of thresholds) {
      // metric and threshold come from the run's load profile, written by the user
      const mark = t.passed ? paint('green', '✔') : paint('red', '✘');
      const actual = /duration/.test(t.metric)
        ? formatMs(t.actual)
        : /failed|rate|checks/.test(t.metric)
          ? formatRate(t.actual)
          : String(round(t.actual));
      lines.push(`    ${mark} ${terminalSafe(`${t.metric} ${t.threshold}`)} ${paint('dim', `(actual ${actual})`)}`);
    }
  }
  return lines;
}

const round = (n: number) => Math.round(n * 10) / 10;
