/**
 * What every reporter reads out of a run's results (docs/reports.md): the report input, and each
 * test case cut into *units* — the things a CI system lists as one test.
 *
 * A test case is one unit, except when its flow has a top-level Iteration node (a data-driven
 * test case): then each row the Iteration ran (`NodeResult.iterationResults`) is a unit of its
 * own, named like `get user [row 2: {"id":2}]`, so a CI system shows which data row failed
 * (Newman reports one test per request instead: postmanlabs/newman#2197). Rows that ran but
 * were not kept in the results (`omittedIterations`, past the first 50) become one more unit that
 * says so; the nodes outside the rows (a login before the Iteration, the Iteration's own error)
 * form a unit named after the test case. Nothing a test case reports is dropped.
 *
 * Pure functions over the documents of cli/reports/types.ts; no I/O.
 */
import type { NodeResult, ScriptLogLine, TestCaseResult } from '../../src/domain/types';
import type { ResultsDocument, RunDocument, RunLinks } from './types';

/** What every reporter is given: the run, its results and where a person looks at it. */
export interface ReportInput {
  run: RunDocument;
  results: ResultsDocument;
  links: RunLinks;
  /** When the report was made (default: now). */
  generatedAt?: Date;
}

/** A failed assertion (`failure`) or a node error (`error`: network, script, expression, cap). */
export interface Problem {
  kind: 'failure' | 'error';
  /** The node's id (`''` for the test case itself, e.g. "Interrupted: …"). */
  node: string;
  /** The node as a person reads it: `get (GET http://…/users/2 → 200)`. */
  nodeLabel: string;
  /** The node's type (`api`, `script`, `iteration`, …), when the node is known. */
  nodeType?: string;
  /** The assertion's name or target expression (failures only). */
  assertion?: string;
  operator?: string;
  /** Whether the assertion had an expected value (not for exists/notExists). */
  hasExpected: boolean;
  expected?: unknown;
  hasActual: boolean;
  actual?: unknown;
  /** Why, in words (the assertion's message or the node's error). */
  message: string;
  /**
   * Node errors only: the stable code of the error (NodeResult and TestCaseFailure `errorCode`,
   * docs/flows.md "Error codes"), when it has one.
   */
  errorCode?: string;
}

/**
 * A problem's message as reports print it: `TOO_MANY_REDIRECTS: More than 2 redirects from …`
 * when it has an `errorCode` (the form of the relay's `detail`, docs/api.md "Relay"), else the
 * message itself.
 */
export function problemText(p: Pick<Problem, 'message' | 'errorCode'>): string {
  return p.errorCode ? `${p.errorCode}: ${p.message}` : p.message;
}

/** One line a script logged, with the node whose script logged it. */
export interface LogEntry {
  node: string;
  level: ScriptLogLine['level'];
  message: string;
  /** Whether the node that logged it failed. */
  nodeFailed: boolean;
}

/** One test as a CI system lists it: a test case, or one data row of a data-driven test case. */
export interface CaseUnit {
  /** `get user`, `get user [row 2: {"id":2}]`, `get user [rows 51–120 not kept in the results]`. */
  name: string;
  testCase: TestCaseResult;
  kind: 'case' | 'row' | 'omitted';
  /** For a row: the Iteration node, the row's 0-based index and its item (a preview). */
  row?: { node: string; index: number; item?: unknown };
  status: 'passed' | 'failed' | 'skipped';
  /** Milliseconds. */
  durationMs: number;
  problems: Problem[];
  logs: LogEntry[];
  /** Sentences for `system-out` and the HTML report (e.g. what the omitted rows were). */
  notes: string[];
  /** Why a skipped unit did not run. */
  skippedMessage?: string;
}

/** Characters of a row's item shown in its name. */
export const ITEM_PREVIEW_CHARS = 40;

/** Visits `nodes` depth first: children of IF/Parallel/Ref nodes and the nodes of every kept iteration. */
export function walkNodes(nodes: NodeResult[], visit: (node: NodeResult) => void): void {
  for (const node of nodes) {
    visit(node);
    if (node.children) walkNodes(node.children, visit);
    for (const it of node.iterationResults ?? []) walkNodes(it.nodes, visit);
  }
}

/** The nodes of a test case by id (the first result of each id: later iterations repeat ids). */
export function nodeIndex(tc: TestCaseResult): Map<string, NodeResult> {
  const index = new Map<string, NodeResult>();
  walkNodes(tc.nodes ?? [], (n) => {
    if (!index.has(n.id)) index.set(n.id, n);
  });
  return index;
}

/**
 * `get (GET http://…/users/2 → 200)`: a node's name (or id) and, for an API node, its request; a
 * node that waits for the world outside (docs/async.md) adds what it got ({@link asyncOutcome}):
 * `job (GET http://…/jobs/1 → 202; 30 attempts, condition not met)`.
 */
export function nodeLabel(node: NodeResult | undefined, id: string): string {
  if (!node) return id || 'test case';
  const name = node.name ? `${node.name}` : node.id;
  const outcome = asyncOutcome(node);
  if (!node.request) return outcome ? `${name} (${outcome})` : name;
  const status = node.response?.status;
  return `${name} (${node.request.method} ${node.request.url}${status !== undefined ? ` → ${status}` : ''}${outcome ? `; ${outcome}` : ''})`;
}

/**
 * What a Callback, Poll, WebSocket, SSE, gRPC or mockVerify node got, in a few words (undefined
 * for other nodes): `3 attempts, condition met`; `callback cb_4f…: 1 of 1 received (2 did not
 * match)`; `12 messages, stopped by until`; `gRPC NOT_FOUND (5), 0 messages in 12 ms`;
 * `mock journal: 2 requests POST /payments, expected exactly 1`.
 */
export function asyncOutcome(node: NodeResult): string | undefined {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  if (node.type === 'poll' && node.attempts?.length) {
    const made = node.attempts[node.attempts.length - 1]!.attempt;
    return `${plural(made, 'attempt')}, condition ${node.attempts.some((a) => a.conditionMet) ? 'met' : 'not met'}`;
  }
  if (node.callback) {
    const c = node.callback;
    return `callback ${c.id}: ${c.received} of ${c.expected} received${c.unmatched ? ` (${c.unmatched} did not match)` : ''}`;
  }
  if (node.stream) return `${plural(node.stream.count, 'message')}, stopped by ${node.stream.stoppedBy}`;
  if (node.grpc) {
    const g = node.grpc;
    return `gRPC ${g.status} (${g.code}), ${plural(g.messages, 'message')} in ${formatMs(g.timeMs)}`;
  }
  if (node.mockVerify) {
    const v = node.mockVerify;
    return `mock journal: ${plural(v.count, 'request')} ${v.matching}, expected ${v.expected}`;
  }
  return undefined;
}

/** One line per waiting node of `nodes` (walking into children and rows): `poll job: 3 attempts, condition met`. */
export function asyncNotes(nodes: NodeResult[]): string[] {
  const out: string[] = [];
  walkNodes(nodes, (n) => {
    const outcome = asyncOutcome(n);
    if (outcome) out.push(`${n.type} ${n.name ?? n.id}: ${outcome}`);
  });
  return out;
}

/** A value as JSON text (`"Ada"`, `{"id":2}`), `(nothing)` for undefined; cut to `max` characters. */
export function valueText(value: unknown, max = Infinity): string {
  let text: string;
  if (value === undefined) text = '(nothing)';
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  return text.length > max ? `${text.slice(0, Math.max(1, max - 1))}…` : text;
}

/** A duration for people: `41 ms`, `3.2 ms`, `1.24 s`, `2 min 5 s`. */
export function formatMs(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '–';
  if (ms < 10) return `${Math.round(ms * 10) / 10} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(2)} s`;
  const s = Math.round(ms / 1000);
  return s < 3600
    ? `${Math.floor(s / 60)} min ${s % 60} s`
    : `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** Control characters of user text (names, messages, logs) written as `\u001b`, so no escape sequence reaches a terminal and nothing invisible hides in a page; tab and newline stay. */
export function visibleControls(text: string): string {
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  const controls = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
  return text.replace(controls, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** An ISO 8601 time for people: `2026-11-22 20:00:00 UTC` (the text as given when it does not parse). */
export function formatTime(iso: string | undefined): string | undefined {
  if (!iso) return undefined;
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** A fraction as a percentage: `0.5%`, `12%`. */
export function formatRate(fraction: number): string {
  const pct = fraction * 100;
  return `${pct < 10 ? Math.round(pct * 100) / 100 : Math.round(pct * 10) / 10}%`;
}

/** The problems of `tc.failures` (the test case's own list, in the order they happened). */
function problemsOfFailures(tc: TestCaseResult, index: Map<string, NodeResult>): Problem[] {
  return (tc.failures ?? []).map((f) => ({
    kind: f.assertion !== undefined ? 'failure' : 'error',
    node: f.node,
    // Inside a sub-flow (Ref node) the id is the sub-flow's own and may repeat a caller's: named by its chain.
    nodeLabel: f.path ? f.path.join(' › ') : nodeLabel(index.get(f.node), f.node),
    ...(!f.path && index.get(f.node) ? { nodeType: index.get(f.node)!.type } : {}),
    ...(f.assertion !== undefined ? { assertion: f.assertion } : {}),
    ...(f.operator !== undefined ? { operator: f.operator } : {}),
    hasExpected: 'expected' in f,
    expected: f.expected,
    hasActual: 'actual' in f,
    actual: f.actual,
    message: f.message,
    ...(f.errorCode ? { errorCode: f.errorCode } : {}),
  }));
}

/** The problems found in `nodes` (failed assertions, node errors), walking into children and rows. */
function problemsOfNodes(nodes: NodeResult[]): Problem[] {
  const out: Problem[] = [];
  walkNodes(nodes, (n) => {
    for (const a of n.assertions ?? []) {
      if (a.passed) continue;
      out.push({
        kind: 'failure',
        node: n.id,
        nodeLabel: nodeLabel(n, n.id),
        nodeType: n.type,
        assertion: a.name ?? a.target,
        operator: a.operator,
        hasExpected: 'expected' in a,
        expected: a.expected,
        hasActual: 'actual' in a,
        actual: a.actual,
        message: a.message ?? 'assertion failed',
      });
    }
    // A Loop/Iteration node's own error only: its failed rows are reported through their nodes.
    if (n.error)
      out.push({
        kind: 'error',
        node: n.id,
        nodeLabel: nodeLabel(n, n.id),
        nodeType: n.type,
        hasExpected: false,
        hasActual: false,
        message: n.error,
        ...(n.errorCode ? { errorCode: n.errorCode } : {}),
      });
  });
  return out;
}

/** The script log lines of `nodes` (walking into children and rows), with their node. */
export function logsOfNodes(nodes: NodeResult[]): LogEntry[] {
  const out: LogEntry[] = [];
  walkNodes(nodes, (n) => {
    for (const l of n.logs ?? [])
      out.push({ node: n.name ?? n.id, level: l.level, message: l.message, nodeFailed: n.status === 'failed' });
  });
  return out;
}

const sumDuration = (nodes: NodeResult[]) => Math.round(nodes.reduce((ms, n) => ms + (n.duration ?? 0), 0) * 10) / 10;

/** Ids of every node inside the rows of `node` (an Iteration). */
function bodyIds(node: NodeResult): Set<string> {
  const ids = new Set<string>();
  for (const it of node.iterationResults ?? []) walkNodes(it.nodes, (n) => ids.add(n.id));
  return ids;
}

/**
 * The units of one test case (see the module comment). A test case without a top-level Iteration
 * node, or a skipped one, is one unit carrying `tc.failures`.
 */
export function caseUnits(tc: TestCaseResult): CaseUnit[] {
  const nodes = tc.nodes ?? [];
  const index = nodeIndex(tc);
  const iterations = nodes.filter((n) => n.type === 'iteration');
  const whole: CaseUnit = {
    name: tc.name,
    testCase: tc,
    kind: 'case',
    status: tc.status,
    durationMs: tc.duration ?? 0,
    problems: tc.status === 'skipped' ? [] : problemsOfFailures(tc, index),
    logs: logsOfNodes(nodes),
    notes: [],
  };
  if (tc.status === 'skipped') return [{ ...whole, skippedMessage: tc.error ?? 'not run' }];
  if (tc.error && !whole.problems.some((p) => p.message === tc.error)) whole.notes.push(tc.error);
  if (iterations.length === 0) {
    whole.notes.push(...asyncNotes(nodes));
    if (whole.status === 'failed' && whole.problems.length === 0)
      whole.problems.push(genericProblem(tc.error ?? 'the test case failed'));
    return [whole];
  }

  const units: CaseUnit[] = [];
  const allBody = new Set<string>();
  const several = iterations.length > 1;
  for (const it of iterations) {
    const ids = bodyIds(it);
    for (const id of ids) allBody.add(id);
    const label = several ? `${it.name ?? it.id} ` : '';
    let keptProblems = 0;
    let failedRows = 0;
    for (const row of it.iterationResults ?? []) {
      const problems = problemsOfNodes(row.nodes);
      keptProblems += problems.length;
      if (row.status === 'failed') failedRows += 1;
      if (row.status === 'failed' && problems.length === 0)
        problems.push(genericProblem(`row ${row.index + 1} failed`));
      const item = row.item !== undefined ? `: ${valueText(row.item, ITEM_PREVIEW_CHARS)}` : '';
      units.push({
        name: `${tc.name} [${label}row ${row.index + 1}${item}]`,
        testCase: tc,
        kind: 'row',
        row: { node: it.id, index: row.index, ...(row.item !== undefined ? { item: row.item } : {}) },
        status: row.status,
        durationMs: sumDuration(row.nodes),
        problems,
        logs: logsOfNodes(row.nodes),
        notes: [...(row.item !== undefined ? [`item: ${valueText(row.item)}`] : []), ...asyncNotes(row.nodes)],
      });
    }
    const omitted = it.omittedIterations ?? 0;
    if (omitted > 0) {
      const kept = it.iterationResults?.length ?? 0;
      // tc.failures lists failures in the order they happened: those of the body past the kept
      // rows' own belong to rows that were not kept.
      const bodyFailures = problemsOfFailures(tc, index).filter((p) => ids.has(p.node));
      const problems = bodyFailures.slice(keptProblems);
      if (problems.length === 0 && it.status === 'failed' && !it.error && failedRows === 0) {
        problems.push(genericProblem(`at least one of the ${omitted} rows not kept in the results failed`));
      }
      units.push({
        name: `${tc.name} [${label}rows ${kept + 1}–${kept + omitted} not kept in the results]`,
        testCase: tc,
        kind: 'omitted',
        status: problems.length ? 'failed' : 'passed',
        durationMs: 0,
        problems,
        logs: [],
        notes: [
          `${omitted} more rows ran (rows ${kept + 1} to ${kept + omitted}) but the results keep only the first ${kept}; ` +
            (problems.length ? 'the failures below are theirs.' : 'no failure of theirs was recorded.'),
        ],
      });
    }
  }
  // The nodes outside the rows: other top-level nodes, an Iteration's own error, the test case's error.
  const others = nodes.filter((n) => n.type !== 'iteration');
  const restProblems = problemsOfFailures(tc, index).filter((p) => !allBody.has(p.node));
  if (others.length > 0 || restProblems.length > 0 || units.length === 0 || whole.notes.length > 0) {
    units.unshift({
      ...whole,
      status: restProblems.length ? 'failed' : 'passed',
      durationMs: sumDuration(others),
      problems: restProblems,
      logs: logsOfNodes(others),
      notes: [...whole.notes, ...asyncNotes(others)],
    });
  }
  return units;
}

function genericProblem(message: string): Problem {
  return { kind: 'error', node: '', nodeLabel: 'test case', hasExpected: false, hasActual: false, message };
}

/** Counts of a run's units, as JUnit counts them. */
export interface UnitCounts {
  tests: number;
  /** Units with a failed assertion and no error. */
  failures: number;
  /** Units with a node error. */
  errors: number;
  skipped: number;
}

/** Counts `units` the JUnit way: an error wins over failures in the same unit. */
export function countUnits(units: CaseUnit[]): UnitCounts {
  const c: UnitCounts = { tests: units.length, failures: 0, errors: 0, skipped: 0 };
  for (const u of units) {
    if (u.status === 'skipped') c.skipped += 1;
    else if (quarantinedUnit(u))
      continue; // it failed, but it does not fail the run: not counted as a failure
    else if (u.problems.some((p) => p.kind === 'error')) c.errors += 1;
    else if (u.problems.length > 0) c.failures += 1;
  }
  return c;
}

/**
 * Whether a unit failed in a test case the run quarantined (`TestCaseResult.quarantined`: flagged
 * flaky and its runner sets `quarantineFlaky`, docs/history.md "Quarantine"): reported, but it
 * did not fail the run.
 */
export function quarantinedUnit(u: CaseUnit): boolean {
  return u.status === 'failed' && u.testCase.quarantined === true;
}

/**
 * The flakiness of a test case in words, for reports: `its outcome flipped 4 times in its last 10
 * runs on runner smoke, environment staging (flip rate 44%)`; undefined when it is not flagged.
 */
export function flakySentence(tc: TestCaseResult, runner: string, environment: string): string | undefined {
  const f = tc.flaky;
  if (!f) return undefined;
  return (
    `its outcome flipped ${f.flips} time${f.flips === 1 ? '' : 's'} in its last ${f.window} runs on runner ${runner}, ` +
    `environment ${environment}, with the test case unchanged (flip rate ${formatRate(f.flipRate)})`
  );
}

/** Totals of a run for the summaries: test cases and assertions. */
export interface RunTotals {
  testCases: number;
  passed: number;
  failed: number;
  skipped: number;
  assertions: number;
  passedAssertions: number;
}

/** Totals from the results (the run's `summary` when present, else counted from the test cases). */
export function runTotals(results: ResultsDocument): RunTotals {
  const cases = results.details?.testCases ?? [];
  const count = (s: string) => cases.filter((c) => c.status === s).length;
  const s = results.summary;
  return {
    testCases: s?.total ?? cases.length,
    passed: s?.passed ?? count('passed'),
    failed: s?.failed ?? count('failed'),
    skipped: s?.skipped ?? count('skipped'),
    assertions: cases.reduce((n, c) => n + (c.assertions ?? 0), 0),
    passedAssertions: cases.reduce((n, c) => n + (c.passedAssertions ?? 0), 0),
  };
}

/** The run's outcome in one word: `passed`, `failed` (tests failed), `error` (the run failed), or its status while running. */
export function outcomeOf(input: ReportInput): 'passed' | 'failed' | 'error' | 'queued' | 'running' {
  const status = input.run.status ?? input.results.status;
  if (status === 'failed') return 'error';
  if (status === 'completed') return (input.run.result ?? input.results.result) === 'passed' ? 'passed' : 'failed';
  return status;
}

/** The run's duration in ms: the run's, else the results', else the sum of its test cases. */
export function runDurationMs(input: ReportInput): number {
  return (
    input.run.duration ??
    input.results.duration ??
    (input.results.details?.testCases ?? []).reduce((ms, c) => ms + (c.duration ?? 0), 0)
  );
}

/** The run's error (a failed run: timeout, cancellation), if any. */
export function runError(input: ReportInput): string | undefined {
  return input.run.error ?? input.results.error;
}
