/**
 * The `junit` reporter: JUnit XML for CI systems (GitHub Actions test-report actions, GitLab
 * `artifacts:reports:junit`, Jenkins `junit`/xUnit), built with xmlbuilder2 (docs/reports.md
 * "junit" has the mapping table). The document satisfies the JUnit schema the Jenkins xUnit plugin
 * validates with (junit-10.xsd; test/fixtures/junit/junit-10.xsd):
 *
 * - `<testsuites name tests failures errors time>` (that schema allows no `skipped` here; each
 *   `<testsuite>` carries it);
 * - one `<testsuite>` named after the runner, with `timestamp` (the run's start, UTC, Ant's
 *   `YYYY-MM-DDTHH:MM:SS` form), no hostname, and `<properties>`: runId, runner, environment,
 *   status, result, and the console, Temporal and results links;
 * - one `<testcase classname="<runner>.<folder or runner>" name time>` per unit of cli/reports/model.ts:
 *   per test case, or per data row of a test case with a top-level Iteration node;
 * - `<failure message type>` per failed assertion (text: node, assertion, expected, actual, why),
 *   `<error>` per node error (network, script, expression, cap, interruption; one with an
 *   `errorCode` reads `TOO_MANY_REDIRECTS: More than 2 redirects …` in `message` and text,
 *   cli/reports/model.ts `problemText`), `<skipped/>`,
 *   `<system-out>` (script logs, notes), `<system-err>` (errors);
 * - flaky and quarantined test cases (docs/history.md) as Maven Surefire writes a flaky test: a
 *   flagged test case that passed gets a `<flakyFailure type="flaky">` whose `<stackTrace>` says
 *   how often it flipped; a quarantined test case that failed has its failures as `<flakyFailure>`
 *   (node errors `<flakyError>`) instead of `<failure>`/`<error>` and is not counted as failed,
 *   as it did not fail the run; a flagged test case that failed keeps its `<failure>`s and
 *   `<system-out>` says it is flaky; flaky nodes (`flakyNodes`) are named in `<system-out>`. Elements follow the Surefire schema's order
 *   (test/fixtures/junit/surefire-test-report.xsd), and a testcase has at most one `<error>`;
 * - a run that failed (timeout, cancellation) adds a testcase `run` with an `<error>` naming why,
 *   so a CI step never reads a run that did not finish as green.
 *
 * `time` attributes are seconds (results hold milliseconds). Characters XML 1.0 cannot carry
 * (control characters in logs) are written as `\uXXXX`.
 */
import { create } from 'xmlbuilder2';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces';
import {
  caseUnits,
  countUnits,
  flakySentence,
  formatRate,
  problemText,
  quarantinedUnit,
  runDurationMs,
  runError,
  valueText,
  type CaseUnit,
  type Problem,
  type ReportInput,
} from './model';

/** Characters of a failure's `message` attribute (the full text is in the element). */
const MESSAGE_CHARS = 500;

/** Seconds with millisecond precision, as JUnit's `time` wants them (`0.041`). */
export function junitSeconds(ms: number | undefined): string {
  return (Math.max(0, ms ?? 0) / 1000).toFixed(3);
}

/** Ant's timestamp form, UTC without a zone: `2026-11-22T20:18:46`. */
export function junitTimestamp(iso: string | undefined, fallback: Date): string {
  const d = iso ? new Date(iso) : fallback;
  return (Number.isNaN(d.getTime()) ? fallback : d).toISOString().slice(0, 19);
}

/** `<runner>.<folder>` (folder `a/b` → `a.b`), or `<runner>.<runner>` for a test case without a folder. */
export function junitClassname(runner: string, folder: string | undefined): string {
  const f = (folder ?? '').replace(/^\/+|\/+$/g, '').replace(/\//g, '.');
  return `${runner}.${f || runner}`;
}

/** The JUnit XML of a run (UTF-8, with declaration, indented). */
export function renderJunit(input: ReportInput): string {
  const { run, results, links } = input;
  const runner = run.runner ?? results.runner;
  const environment = run.environment ?? results.environment;
  const units: Array<{ unit: CaseUnit; classname: string }> = [];
  for (const tc of results.details?.testCases ?? []) {
    const classname = junitClassname(runner, (tc as { folder?: string }).folder);
    for (const unit of caseUnits(tc)) units.push({ unit, classname });
  }
  const counts = countUnits(units.map((u) => u.unit));
  const error = runError(input);
  const runFailed = (run.status ?? results.status) === 'failed';
  if (runFailed) {
    counts.tests += 1;
    counts.errors += 1;
  }
  const time = junitSeconds(runDurationMs(input));

  const doc = create({
    version: '1.0',
    encoding: 'UTF-8',
    invalidCharReplacement: (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  });
  const suites = doc.ele('testsuites', {
    name: `assay ${runner} on ${environment}`,
    tests: n(counts.tests),
    failures: n(counts.failures),
    errors: n(counts.errors),
    time,
  });
  const suite = suites.ele('testsuite', {
    name: runner,
    tests: n(counts.tests),
    failures: n(counts.failures),
    errors: n(counts.errors),
    time,
    skipped: n(counts.skipped),
    timestamp: junitTimestamp(
      run.startedAt ?? results.startedAt ?? run.createdAt ?? results.createdAt,
      input.generatedAt ?? new Date(),
    ),
  });
  const props = suite.ele('properties');
  const property = (name: string, value: string | undefined) => {
    if (value !== undefined && value !== '') props.ele('property', { name, value });
  };
  property('runId', run.runId ?? results.runId);
  property('runner', runner);
  property('environment', environment);
  property('status', run.status ?? results.status);
  property('result', run.result ?? results.result);
  property('trigger', run.trigger);
  property('console', links.console);
  property('temporal', links.temporal);
  property('results', links.results);

  // GitLab keeps only the first of several testcases with one name: same-named test cases (in
  // different folders) get a number.
  const seen = new Map<string, number>();
  for (const { unit, classname } of units) {
    const key = `${classname}\u0000${unit.name}`;
    const count = (seen.get(key) ?? 0) + 1;
    seen.set(key, count);
    writeTestcase(suite, count > 1 ? { ...unit, name: `${unit.name} (${count})` } : unit, classname, {
      runner,
      environment,
    });
  }
  if (runFailed) {
    suite
      .ele('testcase', { name: 'run', classname: `${runner}.run`, time })
      .ele('error', { message: clip(error ?? 'the run failed'), type: 'run-failed' })
      .txt(`The run ended "failed" before all its test cases finished: ${error ?? 'no reason given'}`);
    suite.ele('system-err').txt(`Run failed: ${error ?? 'no reason given'}`);
  }
  return `${doc.end({ prettyPrint: true })}\n`;
}

function writeTestcase(suite: XMLBuilder, unit: CaseUnit, classname: string, where: Where): void {
  const tc = suite.ele('testcase', { name: unit.name, classname, time: junitSeconds(unit.durationMs) });
  const failures = unit.problems.filter((p) => p.kind === 'failure');
  const errors = unit.problems.filter((p) => p.kind === 'error');
  const flaky = flakySentence(unit.testCase, where.runner, where.environment);
  const quarantined = quarantinedUnit(unit);
  // Elements in the order the Surefire schema's sequence wants them: failure*, flakyFailure*,
  // skipped?, error?, flakyError*, system-out?, system-err?.
  if (quarantined) {
    // As Surefire writes a flaky test (one that passed when re-run): its failures as
    // <flakyFailure>/<flakyError> with a <stackTrace>, no <failure>; it counts as passed.
    for (const p of failures)
      tc.ele('flakyFailure', { message: clip(failureMessage(p)), type: p.operator ?? 'assertion' })
        .ele('stackTrace')
        .txt(failureText(p));
  } else {
    for (const p of failures)
      tc.ele('failure', { message: clip(failureMessage(p)), type: p.operator ?? 'assertion' }).txt(failureText(p));
    if (flaky && unit.status === 'passed')
      tc.ele('flakyFailure', { message: clip(`flaky: ${flaky}`), type: 'flaky' })
        .ele('stackTrace')
        .txt(`Assay flags this test case flaky: ${flaky}. It passed in this run.`);
  }
  if (unit.status === 'skipped') tc.ele('skipped', { message: clip(unit.skippedMessage ?? 'not run') });
  if (quarantined) {
    for (const p of errors)
      tc.ele('flakyError', { message: clip(problemText(p)), type: errorType(p) })
        .ele('stackTrace')
        .txt(`${p.nodeLabel}: ${problemText(p)}`);
  } else if (errors.length > 0) {
    // The Surefire schema allows one <error> per testcase: several node errors share it.
    const [first] = errors as [Problem, ...Problem[]];
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
    tc.ele('error', { message: clip(`${problemText(first)}${more}`), type: errorType(first) }).txt(
      errors.map((p) => `${p.nodeLabel}: ${problemText(p)}`).join('\n'),
    );
  }
  const marks: string[] = [];
  if (flaky) marks.push(`flaky: ${flaky}`);
  if (quarantined)
    marks.push('quarantined: it failed, but the runner quarantines flaky test cases, so it does not fail the run');
  for (const f of unit.testCase.flakyNodes ?? [])
    marks.push(
      `flaky node: ${f.id} (its outcome flipped ${f.flips} time${f.flips === 1 ? '' : 's'} in the test case's last ${f.window} runs, flip rate ${formatRate(f.flipRate)})`,
    );
  const out = [...marks, ...unit.notes, ...unit.logs.map((l) => `[${l.level}] ${l.node}: ${l.message}`)];
  if (out.length) tc.ele('system-out').txt(out.join('\n'));
  if (errors.length) tc.ele('system-err').txt(errors.map((p) => `${p.nodeLabel}: ${problemText(p)}`).join('\n'));
}

/** The runner and environment a run ran on (for the flakiness sentence). */
interface Where {
  runner: string;
  environment: string;
}

/** `response.body.name equals: expected "Ada" (string), got "Grace" (string)`. */
function failureMessage(p: Problem): string {
  return `${p.assertion ?? 'assertion'} ${p.operator ?? ''}`.trim() + `: ${p.message}`;
}

/** The failure's text: where, what, expected and actual on their own lines, why. */
function failureText(p: Problem): string {
  const lines = [`node:      ${p.nodeLabel}`, `assertion: ${`${p.assertion ?? ''} ${p.operator ?? ''}`.trim()}`];
  if (p.hasExpected) lines.push(`expected:  ${valueText(p.expected)}`);
  lines.push(`actual:    ${valueText(p.hasActual ? p.actual : undefined)}`);
  lines.push(p.message);
  return lines.join('\n');
}

/** `interrupted`, `request` (no response: network, timeout, refused address), `script`, `<type>-node`, or `test-case`. */
function errorType(p: Problem): string {
  if (p.message.startsWith('Interrupted')) return 'interrupted';
  if (!p.nodeType) return 'test-case';
  if (p.nodeType === 'api') return /^(beforeRequest|afterResponse) failed/.test(p.message) ? 'script' : 'request';
  return p.nodeType === 'script' ? 'script' : `${p.nodeType}-node`;
}

const n = (x: number) => String(x);
const clip = (s: string) => (s.length > MESSAGE_CHARS ? `${s.slice(0, MESSAGE_CHARS - 1)}…` : s);
