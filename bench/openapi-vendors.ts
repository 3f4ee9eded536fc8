/**
 * `make bench-openapi` (and `make bench`): every public description in test/fixtures/openapi/public
 * (SOURCES.md) imported end to end as a new user does it, on a whole local Assay (Temporal dev
 * server, worker, API, mocks on their own port; bin/local-stack.ts):
 *
 *   assay import openapi SPEC --with-mocks --folder F --runner F --environment F --base-url <mocks> --json
 *   (the environment gets any value for each credential variable the report names)
 *   assay run --runner R --env F --wait            (for each runner the report names)
 *
 * For each description it records: whether the import succeeded with mocks (exit 0, no
 * `mocks.error`), the designs made and skipped, test cases planned, saved and refused, the runs'
 * passed/total, how many answers were 5xx (an Assay failure, never a contract's), and the wall
 * time of the import. The goal (issue "OpenAPI imports that take any real description",
 * docs/benchmarks.md "OpenAPI descriptions end to end"): ≥ 97 % of descriptions import with
 * mocks, ≥ 98 % of their contract tests pass against those mocks, no 5xx, no process dying.
 *
 * Env: BENCH_OPENAPI_FILES (comma-separated fixture names, default all), BENCH_OPENAPI_OUT (a JSON
 * file for the per-description outcome), BENCH_OPENAPI_VERBOSE=1 (each failing test case).
 * Uses the Temporal server at TEMPORAL_ADDRESS or starts a dev server; the store in DATABASE_URL
 * or an embedded SQLite file. Everything binds to loopback; each CLI call is bounded (10 min).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { startLocalStack, type LocalStack } from '../bin/local-stack';
import { ensureWorkspace, issueKey } from '../src/api-keys';

const FIXTURES = path.resolve(__dirname, '../../test/fixtures/openapi/public');
const CLI = path.resolve(__dirname, '../bin/assay.js');

/** The parts of the CLI's import report and of a run's results this bench reads. */
interface ImportReport {
  mocks?: { error?: string; created?: number; skipped?: unknown[] };
  testCases: Array<{ operation: string; action: string; error?: string }>;
  runner?: { name: string };
  runners?: Array<{ name: string }>;
  variables?: Array<{ name: string }>;
}
interface RunResults {
  summary?: { total: number; passed: number };
  error?: { message?: string } | string;
  status?: string;
  details?: {
    error?: string;
    testCases?: Array<{ name: string; status: string; failures?: unknown; error?: unknown }>;
  };
}

/** The outcome for one description. */
export interface VendorOutcome {
  file: string;
  kb: number;
  /** Exit code of the import, and the mocks' error when the designs import was refused. */
  importCode: number | null;
  mocksError?: string;
  importMs: number;
  designs: number;
  designsSkipped: number;
  planned: number;
  saved: number;
  refused: Array<{ operation: string; error: string }>;
  runners: string[];
  /** Test cases run, and passed. */
  total: number;
  passed: number;
  /** Runs that did not start or ended without results (their test cases count as failed). */
  runErrors: string[];
  /** Answers 500–599 seen in the runs' results. */
  fiveXx: number;
  failures: Array<{ name: string; why: string }>;
}

function cli(
  stack: LocalStack,
  key: string,
  args: string[],
  cwd: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ASSAY_URL: stack.apiUrl, ASSAY_API_KEY: key },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 600_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Statuses of the responses recorded in a run's results, walked (nodes nest in branches and loops). */
function statusesOf(value: unknown, out: number[] = []): number[] {
  if (Array.isArray(value)) for (const v of value) statusesOf(v, out);
  else if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    const res = o.response as Record<string, unknown> | undefined;
    if (res && typeof res.status === 'number') out.push(res.status);
    for (const [k, v] of Object.entries(o)) if (k !== 'response') statusesOf(v, out);
  }
  return out;
}

/** A workspace of its own for each description (as a team importing one API has), and its key. */
async function workspaceFor(stack: LocalStack, name: string): Promise<{ id: string; key: string }> {
  const workspace = await ensureWorkspace(stack.dataSource.manager, `bench-${name}`.slice(0, 100));
  const { key } = await issueKey(stack.dataSource.manager, workspace.id, { name: 'bench', scope: 'write' });
  return { id: workspace.id, key };
}

async function one(stack: LocalStack, file: string, dir: string, mockUrl: string): Promise<VendorOutcome> {
  const bytes = zlib.gunzipSync(fs.readFileSync(path.join(FIXTURES, file)));
  const name = file.replace(/\.(json|yaml)\.gz$/, '');
  const ws = await workspaceFor(stack, name);
  const mockBase = `${mockUrl.replace(/\/+$/, '')}/mock/${ws.id}`;
  const spec = path.join(dir, file.replace(/\.gz$/, ''));
  fs.writeFileSync(spec, bytes);
  const out: VendorOutcome = {
    file: file.replace(/\.gz$/, ''),
    kb: Math.round(bytes.length / 1024),
    importCode: null,
    importMs: 0,
    designs: 0,
    designsSkipped: 0,
    planned: 0,
    saved: 0,
    refused: [],
    runners: [],
    total: 0,
    passed: 0,
    runErrors: [],
    fiveXx: 0,
    failures: [],
  };
  const started = performance.now();
  const r = await cli(
    stack,
    ws.key,
    [
      'import',
      'openapi',
      spec,
      '--with-mocks',
      '--folder',
      name,
      '--runner',
      name,
      '--environment',
      name,
      '--base-url',
      mockBase,
      '--json',
    ],
    dir,
  );
  out.importMs = Math.round(performance.now() - started);
  out.importCode = r.code;
  let report: ImportReport;
  try {
    report = JSON.parse(r.stdout);
  } catch {
    out.mocksError = `no report: ${r.stderr.trim().split('\n').slice(-3).join(' | ').slice(0, 300)}`;
    return out;
  }
  out.mocksError = report.mocks?.error;
  out.designs = report.mocks?.created ?? 0;
  out.designsSkipped = report.mocks?.skipped?.length ?? 0;
  out.planned = report.testCases.length;
  for (const tc of report.testCases) {
    if (tc.action === 'failed') out.refused.push({ operation: tc.operation, error: String(tc.error).slice(0, 300) });
    else out.saved++;
  }
  out.runners = (report.runners ?? (report.runner ? [report.runner] : [])).map((x: { name: string }) => x.name);
  const variables = Object.fromEntries((report.variables ?? []).map((v: { name: string }) => [v.name, 'any']));
  if (Object.keys(variables).length)
    await stack.callAs(ws.key, 'PATCH', `/v1/environments/${encodeURIComponent(name)}`, { variables });
  for (const runner of out.runners) {
    const run = await cli(
      stack,
      ws.key,
      ['run', '--runner', runner, '--env', name, '--wait', '--poll-interval', '0.5'],
      dir,
    );
    const runId = /Run (run_[A-Za-z0-9]+)/.exec(run.stderr)?.[1];
    if (!runId) {
      out.runErrors.push(`${runner}: ${run.stderr.trim().split('\n').slice(-2).join(' | ').slice(0, 300)}`);
      continue;
    }
    const results = await stack
      .callAs<RunResults>(ws.key, 'GET', `/v1/runs/${runId}/results`)
      .catch((e: Error): RunResults => ({ error: e.message }));
    if (!results.summary || results.summary.total === 0) {
      const doc = await stack.callAs<RunResults>(ws.key, 'GET', `/v1/runs/${runId}`).catch((): RunResults => ({}));
      const error = typeof doc.error === 'string' ? doc.error : doc.error?.message;
      out.runErrors.push(`${runner}: ${String(error ?? doc.status).slice(0, 300)}`);
      continue;
    }
    out.total += results.summary.total;
    out.passed += results.summary.passed;
    out.fiveXx += statusesOf(results.details).filter((s) => s >= 500 && s < 600).length;
    if (process.env.BENCH_OPENAPI_DUMP)
      fs.writeFileSync(`${process.env.BENCH_OPENAPI_DUMP}-${runner}.json`, JSON.stringify(results, null, 1));
    for (const tc of results.details?.testCases ?? [])
      if (tc.status !== 'passed')
        out.failures.push({
          name: tc.name,
          why: JSON.stringify(tc.failures ?? tc.error ?? tc.status).slice(0, 400),
        });
  }
  return out;
}

async function main(): Promise<void> {
  const wanted = process.env.BENCH_OPENAPI_FILES?.split(',').map((s) => s.trim());
  const files = fs
    .readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.gz'))
    .filter((f) => !wanted || wanted.some((w) => f.startsWith(w)))
    .sort();
  const stack = await startLocalStack({ ASSAY_MOCK_PORT: '0' });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-openapi-vendors-'));
  const outcomes: VendorOutcome[] = [];
  try {
    const mockUrl = stack.api.mockUrl ?? stack.apiUrl;
    for (const file of files) {
      const o = await one(stack, file, dir, mockUrl);
      outcomes.push(o);
      process.stderr.write(
        `${o.file}: import ${o.importCode}${o.mocksError ? ` (mocks: ${o.mocksError.slice(0, 120)})` : ''} ${o.importMs} ms, ${o.passed}/${o.total} passed${o.refused.length ? `, ${o.refused.length} refused` : ''}${o.runErrors.length ? `, run errors: ${o.runErrors.join('; ').slice(0, 200)}` : ''}\n`,
      );
      if (process.env.BENCH_OPENAPI_OUT)
        fs.writeFileSync(process.env.BENCH_OPENAPI_OUT, JSON.stringify(outcomes, null, 1));
    }
  } finally {
    await stack.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  printTable(outcomes);
}

/** The Markdown table for docs/benchmarks.md. */
export function printTable(outcomes: VendorOutcome[]): void {
  const ok = outcomes.filter((o) => o.importCode === 0 && !o.mocksError);
  let total = 0;
  let passed = 0;
  let planned = 0;
  let fiveXx = 0;
  console.log(
    `\n### OpenAPI descriptions end to end (${os.cpus().length} CPUs, Node ${process.version}, ${new Date().toISOString().slice(0, 10)})\n`,
  );
  console.log('| description | KB | import with mocks | import s | designs | test cases | refused | passed | 5xx |');
  console.log('|---|---:|---|---:|---:|---:|---:|---:|---:|');
  for (const o of outcomes) {
    // A test case planned but refused, or in a runner that could not run, counts as failed.
    const denominator = Math.max(o.planned, o.total);
    total += denominator;
    planned += o.planned;
    passed += o.passed;
    fiveXx += o.fiveXx;
    console.log(
      `| ${o.file} | ${o.kb} | ${o.importCode === 0 && !o.mocksError ? 'yes' : `**no**`} | ${(o.importMs / 1000).toFixed(1)} | ${o.designs} | ${o.planned} | ${o.refused.length} | ${o.passed}/${denominator} | ${o.fiveXx} |`,
    );
  }
  console.log(
    `| **all ${outcomes.length}** | | **${ok.length} (${((100 * ok.length) / Math.max(1, outcomes.length)).toFixed(1)} %)** | | | ${planned} | | **${passed}/${total} (${((100 * passed) / Math.max(1, total)).toFixed(2)} %)** | ${fiveXx} |`,
  );
  if (process.env.BENCH_OPENAPI_VERBOSE === '1')
    for (const o of outcomes) {
      if (o.mocksError) console.log(`- ${o.file}: mocks not imported: ${o.mocksError}`);
      for (const e of o.runErrors) console.log(`- ${o.file}: run: ${e}`);
      for (const r of o.refused) console.log(`- ${o.file} refused ${r.operation}: ${r.error}`);
      for (const f of o.failures) console.log(`- ${o.file} ${f.name}: ${f.why}`);
    }
}

if (require.main === module)
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
