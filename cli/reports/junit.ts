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
 *   `<error>` per node error (network, script, expression, cap, interruption), `<skipped/>`,
 *   `<system-out>` (script logs, notes), `<system-err>` (errors);
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
    writeTestcase(suite, count > 1 ? { ...unit, name: `${unit.name} (${count})` } : unit, classname);
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

function writeTestcase(suite: XMLBuilder, unit: CaseUnit, classname: string): void {
  const tc = suite.ele('testcase', { name: unit.name, classname, time: junitSeconds(unit.durationMs) });
  if (unit.status === 'skipped') tc.ele('skipped', { message: clip(unit.skippedMessage ?? 'not run') });
  for (const p of unit.problems) {
    if (p.kind === 'failure')
      tc.ele('failure', { message: clip(failureMessage(p)), type: p.operator ?? 'assertion' }).txt(failureText(p));
    else tc.ele('error', { message: clip(p.message), type: errorType(p) }).txt(`${p.nodeLabel}: ${p.message}`);
  }
  const out = [...unit.notes, ...unit.logs.map((l) => `[${l.level}] ${l.node}: ${l.message}`)];
  if (out.length) tc.ele('system-out').txt(out.join('\n'));
  const errors = unit.problems.filter((p) => p.kind === 'error').map((p) => `${p.nodeLabel}: ${p.message}`);
  if (errors.length) tc.ele('system-err').txt(errors.join('\n'));
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
