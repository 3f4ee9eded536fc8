/**
 * Side by side with Newman (docs/import-postman.md "Side by side with Newman"): go-httpbin on
 * loopback as the shared target, the Newman CLI run in its own process on a collection, Assay's
 * results read the same way, and the comparison of every test's outcome (`request :: test` →
 * passed). Used by the Postman comparison tests under test/integration/cli/.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import os from 'node:os';
import { startTestApp, type TestApp } from './app';
import { runCli } from './cli';
import { startVerifier, type Verifier } from './request-verifier';
import { waitForHttp } from './processes';
import { freePort } from '../../src/net/free-port';

const ROOT = path.resolve(__dirname, '../../..');

/** The Postman fixtures (collections, environments, data files). */
export const POSTMAN_FIXTURES = path.join(ROOT, 'test/fixtures/postman');

/** A go-httpbin on a free loopback port (scripts/ensure-httpbin.sh builds it with Go once). Stop it in `after`. */
export async function startHttpbin(): Promise<{ url: string; stop(): void }> {
  let bin: string;
  try {
    bin = execFileSync(path.join(ROOT, 'scripts/ensure-httpbin.sh'), {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }).trim();
  } catch (err) {
    throw new Error(`go-httpbin is needed (scripts/ensure-httpbin.sh builds it with Go): ${(err as Error).message}`, {
      cause: err,
    });
  }
  const port = await freePort();
  const child = spawn(bin, ['-host', '127.0.0.1', '-port', String(port)], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/status/200`);
  return { url, stop: () => void child.kill() };
}

/** Newman's JSON report, the parts read here. */
export interface NewmanSummary {
  run: {
    executions: Array<{
      cursor?: { iteration?: number };
      item: { name: string };
      assertions?: Array<{ assertion: string; skipped?: boolean; error?: { message: string } }>;
    }>;
  };
}

/**
 * Runs `collectionFile` with the Newman CLI in its own process (as users run it; in-process, its
 * sandbox would share this mocha process with every other test file), with `args` after it (`-e`,
 * `-g`, `-d`, …), in `dir`. @returns its exit code and its JSON report.
 */
export async function runNewman(
  collectionFile: string,
  args: string[],
  dir: string,
): Promise<{ code: number | null; summary: NewmanSummary }> {
  const report = path.join(dir, `newman-${Date.now()}.json`);
  const newman = path.join(ROOT, 'node_modules/newman/bin/newman.js');
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [newman, 'run', collectionFile, ...args, '-r', 'json', '--reporter-json-export', report],
      { stdio: 'ignore', cwd: dir },
    );
    child.on('error', reject);
    child.on('exit', resolve);
  });
  return { code, summary: JSON.parse(fs.readFileSync(report, 'utf8')) as NewmanSummary };
}

/**
 * Newman's outcomes as `request :: test` → passed; with several iterations each key is prefixed
 * `#<iteration> ` (from 0), as {@link assayOutcomes} names data-set rows. A `pm.test.skip` test
 * (`skipped: true` in the report, newman lib/run/summary.js) has no outcome and is left out: Newman
 * shows it as skipped, Assay records nothing for it (docs/import-postman.md).
 */
export function newmanOutcomes(summary: NewmanSummary): Map<string, boolean> {
  const iterations = new Set(summary.run.executions.map((e) => e.cursor?.iteration ?? 0));
  const out = new Map<string, boolean>();
  for (const ex of summary.run.executions) {
    const prefix = iterations.size > 1 ? `#${ex.cursor?.iteration ?? 0} ` : '';
    for (const a of ex.assertions ?? [])
      if (!a.skipped) out.set(`${prefix}${ex.item.name} :: ${a.assertion}`, !a.error);
  }
  return out;
}

interface ResultNode {
  name?: string;
  id: string;
  assertions?: Array<{ name?: string; target: string; passed: boolean; message?: string }>;
  children?: ResultNode[];
  type?: string;
  iterationResults?: Array<{ index: number; nodes: ResultNode[] }>;
}

/**
 * Assay's results as `request :: test` → passed (the `$test` checks of each API node, in every test
 * case, inside IF branches and loop iterations too). Inside an Iteration node (iteration data) each
 * key is prefixed `#<row index> `, as {@link newmanOutcomes} prefixes Newman's iterations, when there
 * are several rows; in a Loop (a setNextRequest dispatch) a request run again overwrites its earlier
 * outcome, as in {@link newmanOutcomes}.
 */
export function assayOutcomes(results: {
  details: { testCases: Array<{ nodes: ResultNode[] }> };
}): Map<string, boolean> {
  const out = new Map<string, boolean>();
  const walk = (nodes: ResultNode[], iteration: number | undefined, several: boolean) => {
    for (const n of nodes) {
      const prefix = several && iteration !== undefined ? `#${iteration} ` : '';
      for (const a of n.assertions ?? [])
        if (a.target === '$test') out.set(`${prefix}${n.name ?? n.id} :: ${a.name}`, a.passed);
      if (n.children) walk(n.children, iteration, several);
      const rows = n.iterationResults ?? [];
      if (n.type === 'iteration') for (const it of rows) walk(it.nodes, it.index, rows.length > 1);
      else for (const it of rows) walk(it.nodes, iteration, several);
    }
  };
  for (const tc of results.details.testCases) walk(tc.nodes, undefined, false);
  return out;
}

/** One test's outcome in each: undefined where it did not run (or was not reported). */
export interface ComparedTest {
  key: string;
  newman?: boolean;
  assay?: boolean;
}

/**
 * Every test either side reported, with both outcomes; prints the table when some differ (or when
 * ASSAY_PRINT_COMPARISON is set) and asserts that none does.
 */
export function expectSameOutcomes(newman: Map<string, boolean>, assay: Map<string, boolean>): ComparedTest[] {
  const rows: ComparedTest[] = [...new Set([...newman.keys(), ...assay.keys()])].map((key) => ({
    key,
    newman: newman.get(key),
    assay: assay.get(key),
  }));
  const differing = rows.filter((r) => r.newman !== r.assay);
  const mark = (v: boolean | undefined) => (v === undefined ? '-' : v ? 'pass' : 'FAIL');
  if (differing.length || process.env.ASSAY_PRINT_COMPARISON)
    console.log(rows.map((r) => `${mark(r.newman)}\t${mark(r.assay)}\t${r.key}`).join('\n'));
  expect(differing, 'tests whose outcome differs (Newman vs Assay)').to.deep.equal([]);
  return rows;
}

/**
 * Writes the Postman environment export `source` to `file` with the values of `values` (by key)
 * replaced: the loopback addresses of a test's servers. @returns `file`.
 */
export function writeEnvironment(source: string, values: Record<string, string>, file: string): string {
  const environment = JSON.parse(fs.readFileSync(source, 'utf8')) as { values: Array<{ key: string; value: string }> };
  for (const [key, value] of Object.entries(values)) environment.values.find((v) => v.key === key)!.value = value;
  fs.writeFileSync(file, JSON.stringify(environment));
  return file;
}

/**
 * Imports `collectionFile` (`assay import postman FILE --environment ENV --runner RUNNER --json`
 * plus `args`), requires the import to succeed, then runs the runner (`assay run --runner RUNNER
 * --env ENV_NAME --wait`) in `cwd`. @returns the import's JSON report, the run's exit code and
 * stderr, and the run's results (`GET /v1/runs/{id}/results`).
 */
export async function importAndRun(
  app: TestApp,
  collectionFile: string,
  options: { environment: string; runner: string; envName: string; args?: string[]; cwd: string },
): Promise<{
  report: { untranslated: unknown[] } & Record<string, unknown>;
  code: number | null;
  stderr: string;
  results: Parameters<typeof assayOutcomes>[0];
}> {
  const { environment, runner, envName, args = [], cwd } = options;
  const imported = await runCli(
    ['import', 'postman', collectionFile, '--environment', environment, '--runner', runner, ...args, '--json'],
    { app, cwd },
  );
  expect(imported.code, imported.stderr).to.equal(0);
  const run = await runCli(['run', '--runner', runner, '--env', envName, '--wait'], { app, cwd });
  const runId = /Run (run_[0-9A-Za-z]+)/.exec(run.stderr)?.[1];
  expect(runId, run.stderr).to.be.a('string');
  const results = (await app.request('GET', `/v1/runs/${runId}/results`)).body;
  return { report: JSON.parse(imported.stdout), code: run.code, stderr: run.stderr, results };
}

/** What {@link sideBySideTargets} starts for a test file; filled once its `before` hook ran. */
export interface SideBySideTargets {
  httpbin: { url: string; stop(): void };
  verifier: Verifier;
  app: TestApp;
  /** A temporary directory for the files of the test (removed in `after`). */
  dir: string;
}

/**
 * Registers mocha `before`/`after` hooks (call it inside a `describe`) that start go-httpbin, the
 * request verifier (test/helpers/request-verifier.ts) and a test app with a worker, and make a
 * temporary directory named after `prefix`; `after` stops them all and removes it.
 */
export function sideBySideTargets(prefix: string): SideBySideTargets {
  const targets = {} as SideBySideTargets;
  before(async () => {
    [targets.httpbin, targets.verifier, targets.app] = await Promise.all([
      startHttpbin(),
      startVerifier(),
      startTestApp({ worker: true }),
    ]);
    targets.dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  });
  after(async () => {
    targets.httpbin?.stop();
    await Promise.all([targets.verifier?.close(), targets.app?.stop()]);
    if (targets.dir) fs.rmSync(targets.dir, { recursive: true, force: true });
  });
  return targets;
}
