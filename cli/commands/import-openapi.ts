/**
 * `assay import openapi SPEC [options]` (docs/import-openapi.md): contract test
 * cases from an OpenAPI 3.0/3.1 description, a JSON or YAML file or an http(s) URL.
 *
 * The conversion is cli/importers/openapi.ts; this file reads the document and saves its outcome
 * through the REST API (docs/api.md): test cases are matched by folder and name, so a re-import
 * updates (PUT) what changed, leaves the rest unchanged and never duplicates; `--environment` is
 * created or merge-patched with `baseUrl`; `--runner` is created or replaced to select the folder's
 * `contract` test cases; `--with-mocks` posts the document to `POST /v1/designs/import`.
 *
 * Output: a short report on stderr (stdout gets the JSON report with `--json`, and with
 * `--dry-run` the test case documents that would be saved). Exit 0; 2 for a document that cannot be
 * read, does not parse or is not OpenAPI 3.x (one line naming the file and where), for a bad flag,
 * and when the API refused a test case (listed as `failed`).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { designsFromOpenApi, DocumentTooDeepError, parseOpenApi } from '../../src/mock/openapi';
import {
  CONTRACT_TAG,
  contractTestsFromOpenApi,
  type ContractImportPlan,
  type SecurityVariable,
  type TestCaseBody,
} from '../importers/openapi';
import { ApiProblem, type AssayClient } from '../client';
import type { CliContext } from '../context';
import { EXIT, UsageError, type ExitCode } from '../errors';

/** Flags of `assay import openapi`. */
interface OpenApiFlags {
  baseUrl?: string;
  environment?: string;
  runner?: string;
  folder?: string;
  tags?: string;
  withMocks?: boolean;
  dryRun?: boolean;
  json?: boolean;
}

/** What happened (or, with --dry-run, would happen) to one record. */
export type ImportAction = 'created' | 'updated' | 'unchanged' | 'failed';

/** The import report (`--json` prints it; docs/import-openapi.md "Report"). */
export interface OpenApiImportReport {
  spec: string;
  title: string;
  version: string;
  openapi: string;
  folder: string;
  dryRun: boolean;
  /** The base URL the environment gets (or would get); null when there is none. */
  baseUrl: string | null;
  testCases: Array<{
    operation: string;
    name: string;
    folder: string;
    action: ImportAction;
    id?: string;
    notes?: string[];
    error?: string;
    testCase?: TestCaseBody;
  }>;
  skipped: Array<{ operation: string; reason: string }>;
  /** Operations left out by --tags. */
  filteredOut: number;
  /** Credentials the requests use as {{variables}}: set them in the environment. */
  variables: SecurityVariable[];
  environment?: { name: string; action: ImportAction; baseUrl: string };
  runner?: { name: string; action: ImportAction; folder: string; tags: string[] };
  /**
   * `--runner`: every runner the import made or updated. One (the `runner` above) when the test
   * cases fit in one run's plan; else `NAME-1` … `NAME-n`, each selecting its test cases by id and
   * at most {@link RUNNER_PLAN_BUDGET} bytes of them (docs/import-openapi.md "Big descriptions").
   */
  runners?: Array<{ name: string; action: ImportAction; testCases: number; bytes: number }>;
  /** `--with-mocks`: designs made, operations the designs import skipped, the mock base address, or why the import was refused. */
  mocks?: {
    created: number;
    skipped: Array<{ operation: string; reason: string }>;
    /** The designs import's warnings (src/mock/openapi.ts `ImportResult`). */
    warnings: Array<{ operation: string; reason: string }>;
    /** Schemas the designs import rewrote to what they mean (docs/import-openapi.md "What is normalised…"). */
    normalised?: Array<{ operation: string; change: string }>;
    mockBaseUrl: string | null;
    error?: string;
  };
  counts: { created: number; updated: number; unchanged: number; skipped: number; failed: number };
}

/** JSON text with object keys sorted, to compare a stored record with a planned one. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}

/** Reads SPEC (a file, or an http(s) URL); @throws UsageError naming it. */
async function readSpec(spec: string, cwd: string): Promise<string> {
  if (/^https?:\/\//i.test(spec)) {
    let res: Response;
    try {
      res = await fetch(spec, {
        headers: { accept: 'application/json, application/yaml, text/yaml, */*' },
        signal: AbortSignal.timeout(30_000),
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new UsageError(`${spec} could not be fetched: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
    }
    if (!res.ok) throw new UsageError(`${spec} could not be fetched: HTTP ${res.status}`);
    return res.text();
  }
  const file = path.resolve(cwd, spec);
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(
      `${spec}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : (err as Error).message}`,
    );
  }
}

/** Parses the document; @throws UsageError `<spec>: <what is wrong, where>` (one line). */
export function parseSpec(spec: string, text: string): Record<string, unknown> {
  try {
    return parseOpenApi(text);
  } catch (err) {
    if (err instanceof DocumentTooDeepError)
      throw new UsageError(`${spec}: ${err.message}${err.path.length ? ` (at /${err.path.join('/')})` : ''}`);
    const first = ((err as Error).message.split('\n')[0] ?? '').replace(/:\s*$/, '');
    throw new UsageError(`${spec}: ${first}`);
  }
}

/** The base URL for the environment: --base-url, else servers[0].url (resolved against a SPEC URL). */
function baseUrlFor(flags: OpenApiFlags, plan: ContractImportPlan, spec: string): string | null {
  const raw = flags.baseUrl ?? plan.serverUrl;
  if (!raw) return null;
  try {
    const url = /^https?:\/\//i.test(spec) ? new URL(raw, spec) : new URL(raw);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return url.href.replace(/\/+$/, '');
  } catch {
    return null;
  }
}

async function getOrNull<T>(client: AssayClient, apiPath: string): Promise<T | null> {
  try {
    return await client.get<T>(apiPath);
  } catch (err) {
    if (err instanceof ApiProblem && err.status === 404) return null;
    throw err;
  }
}

interface StoredTestCase {
  id: string;
  name: string;
  folder: string;
  description: string;
  tags: string[];
  flow: unknown;
  /** Test case hooks set on the server (docs/flows.md "Hooks at three levels"): kept when the import replaces it. */
  hooks?: unknown;
}

/** True for a 409 `name-taken`: what a create found already stored under its name. */
function isNameTaken(err: unknown): err is ApiProblem {
  return err instanceof ApiProblem && err.status === 409 && err.problem.code === 'name-taken';
}

/** True when the stored test case already says what the planned one does. */
function sameTestCase(old: StoredTestCase, body: TestCaseBody): boolean {
  return (
    old.description === body.description &&
    canonical([...old.tags].sort()) === canonical([...body.tags].sort()) &&
    canonical(old.flow) === canonical(body.flow)
  );
}

/**
 * Saves one planned test case: PUT over `old` when there is one (keeping its hooks), else POST.
 * A POST answered 409 `name-taken` (another import saved it meanwhile, or an earlier try of this
 * call was applied although its answer was lost) resumes over the stored one: unchanged when it
 * is the same, else replaced. Answers the action and the stored id.
 * @throws ApiProblem as the API answered (503 and 429 after the client's retries).
 */
async function saveTestCase(
  client: AssayClient,
  body: TestCaseBody,
  old: StoredTestCase | undefined,
): Promise<{ action: ImportAction; id: string }> {
  const put = async (stored: StoredTestCase) =>
    (
      await client.request<StoredTestCase>('PUT', `/v1/test-cases/${encodeURIComponent(stored.id)}`, {
        body: stored.hooks ? { ...body, hooks: stored.hooks } : body,
      })
    ).id;
  if (old) return { action: 'updated', id: await put(old) };
  try {
    // Retried on 503: a create that was applied after all comes back as 409 name-taken, handled below.
    const saved = await client.request<StoredTestCase>('POST', '/v1/test-cases', { body, retryUnavailable: true });
    return { action: 'created', id: saved.id };
  } catch (err) {
    if (!isNameTaken(err)) throw err;
    const stored = (await client.listAll<StoredTestCase>('/v1/test-cases', { folder: body.folder })).find(
      (tc) => tc.folder === body.folder && tc.name === body.name,
    );
    if (!stored) throw err;
    return sameTestCase(stored, body)
      ? { action: 'unchanged', id: stored.id }
      : { action: 'updated', id: await put(stored) };
  }
}

/** Saves the planned test cases (or, dry, says what it would do); fills report.testCases. */
async function syncTestCases(
  client: AssayClient | null,
  plan: ContractImportPlan,
  report: OpenApiImportReport,
  dry: boolean,
): Promise<void> {
  const existing = new Map<string, StoredTestCase>();
  if (client)
    for (const tc of await client.listAll<StoredTestCase>('/v1/test-cases', { folder: plan.folder }))
      existing.set(`${tc.folder}\u0000${tc.name}`, tc);
  for (const planned of plan.testCases) {
    const body = planned.body;
    const entry: OpenApiImportReport['testCases'][number] = {
      operation: planned.operation,
      name: body.name,
      folder: body.folder,
      action: 'created',
    };
    if (planned.notes.length) entry.notes = planned.notes;
    if (dry) entry.testCase = body;
    const old = existing.get(`${body.folder}\u0000${body.name}`);
    if (old) {
      entry.id = old.id;
      entry.action = sameTestCase(old, body) ? 'unchanged' : 'updated';
    }
    if (!dry && client && entry.action !== 'unchanged') {
      try {
        const saved = await saveTestCase(client, body, old);
        entry.action = saved.action;
        entry.id = saved.id;
      } catch (err) {
        if (!(err instanceof ApiProblem) || err.status >= 500 || err.status === 401 || err.status === 403) throw err;
        entry.action = 'failed';
        entry.error = err.message;
      }
    }
    report.testCases.push(entry);
  }
}

/** Creates `name` with `baseUrl`, or merge-patches its `baseUrl` (other variables stay). */
async function syncEnvironment(
  client: AssayClient | null,
  name: string,
  baseUrl: string,
  dry: boolean,
): Promise<ImportAction> {
  const env = client
    ? await getOrNull<{ variables?: Record<string, unknown> }>(client, `/v1/environments/${encodeURIComponent(name)}`)
    : null;
  if (env && env.variables?.baseUrl === baseUrl) return 'unchanged';
  if (!dry && client) {
    const patch = () =>
      client.request('PATCH', `/v1/environments/${encodeURIComponent(name)}`, { body: { variables: { baseUrl } } });
    if (env) await patch();
    else
      try {
        await client.request('POST', '/v1/environments', {
          body: { name, description: 'made by assay import openapi', variables: { baseUrl } },
          retryUnavailable: true,
        });
      } catch (err) {
        // Made meanwhile (another import, or this create applied although its answer was lost).
        if (!isNameTaken(err)) throw err;
        await patch();
      }
  }
  return env ? 'updated' : 'created';
}

/** Creates the runner, or replaces it (PUT) when it does not select exactly the folder's contract tests. */
async function syncRunner(
  client: AssayClient | null,
  name: string,
  plan: ContractImportPlan,
  dry: boolean,
): Promise<ImportAction> {
  const runner = client
    ? await getOrNull<{ folder?: string | null; tags?: string[]; testCaseIds?: string[] }>(
        client,
        `/v1/runners/${encodeURIComponent(name)}`,
      )
    : null;
  const wanted = {
    name,
    description: `Contract tests of ${plan.title} (assay import openapi)`.slice(0, 2000),
    folder: plan.folder,
    tags: [CONTRACT_TAG],
  };
  if (
    runner &&
    runner.folder === plan.folder &&
    canonical(runner.tags ?? []) === canonical(wanted.tags) &&
    !(runner.testCaseIds ?? []).length
  )
    return 'unchanged';
  if (!dry && client) await saveRunner(client, wanted, Boolean(runner));
  return runner ? 'updated' : 'created';
}

/** Replaces runner `wanted.name` (PUT) when it `exists`, else creates it (POST; a 409 name-taken made meanwhile is replaced). */
async function saveRunner(client: AssayClient, wanted: { name: string }, exists: boolean): Promise<void> {
  const put = () => client.request('PUT', `/v1/runners/${encodeURIComponent(wanted.name)}`, { body: wanted });
  if (exists) await put();
  else
    try {
      await client.request('POST', '/v1/runners', { body: wanted, retryUnavailable: true });
    } catch (err) {
      // Made meanwhile (another import, or this create applied although its answer was lost).
      if (!isNameTaken(err)) throw err;
      await put();
    }
}

/**
 * Bytes of test case documents (JSON) one runner of an import selects at most: a run's plan is
 * stored outside the workflow's history, capped at 12 MiB as the store's write counts it
 * (src/domain/limits.ts `storedPlanBytes`, each `"`, `\\` and `'` twice; docs/parallel.md "Plans of
 * any size"); 8 MiB leaves room for the escapes, the variables and each test case's own fields.
 * `ASSAY_IMPORT_RUNNER_BYTES` sets another (smaller runners run, and report, sooner in CI).
 */
export const RUNNER_PLAN_BUDGET = 8 * 1024 * 1024;

/** {@link RUNNER_PLAN_BUDGET}, or `ASSAY_IMPORT_RUNNER_BYTES` when it is a positive whole number. */
export function runnerPlanBudget(env: NodeJS.ProcessEnv = process.env): number {
  const given = Number(env.ASSAY_IMPORT_RUNNER_BYTES);
  return Number.isInteger(given) && given > 0 ? Math.min(given, RUNNER_PLAN_BUDGET) : RUNNER_PLAN_BUDGET;
}

/** The test cases (in the import's order) cut into consecutive parts of at most `budget` bytes each. */
export function splitByBytes<T>(items: Array<{ item: T; bytes: number }>, budget: number): T[][] {
  const parts: T[][] = [];
  let current: T[] = [];
  let used = 0;
  for (const { item, bytes } of items) {
    if (current.length && used + bytes > budget) {
      parts.push(current);
      current = [];
      used = 0;
    }
    current.push(item);
    used += bytes;
  }
  if (current.length) parts.push(current);
  return parts;
}

/**
 * `--runner NAME` for test cases over {@link RUNNER_PLAN_BUDGET} together: runners `NAME-1` …
 * `NAME-n`, each selecting its part by `testCaseIds` (created, or replaced when they select
 * something else). Refused test cases (no id) are in none. `sizes[i]`: the bytes of
 * `report.testCases[i]`'s document (the report lists the plan's test cases in its order).
 */
async function syncSplitRunners(
  client: AssayClient | null,
  name: string,
  plan: ContractImportPlan,
  report: OpenApiImportReport,
  sizes: number[],
  dry: boolean,
): Promise<NonNullable<OpenApiImportReport['runners']>> {
  const sized = report.testCases.flatMap((tc, i) =>
    tc.action === 'failed' ? [] : [{ item: { id: tc.id, bytes: sizes[i]! }, bytes: sizes[i]! }],
  );
  const parts = splitByBytes(sized, runnerPlanBudget());
  const out: NonNullable<OpenApiImportReport['runners']> = [];
  for (const [i, part] of parts.entries()) {
    const partName = `${name}-${i + 1}`;
    const wanted = {
      name: partName,
      description:
        `Contract tests of ${plan.title}, part ${i + 1} of ${parts.length} (assay import openapi: together they are over what one run carries)`.slice(
          0,
          2000,
        ),
      testCaseIds: part.map((p) => p.id!).filter(Boolean),
    };
    const bytes = part.reduce((n, p) => n + p.bytes, 0);
    const existing = client
      ? await getOrNull<{ testCaseIds?: string[]; folder?: string | null; tags?: string[] }>(
          client,
          `/v1/runners/${encodeURIComponent(partName)}`,
        )
      : null;
    let action: ImportAction = existing ? 'updated' : 'created';
    if (
      existing &&
      canonical(existing.testCaseIds ?? []) === canonical(wanted.testCaseIds) &&
      !existing.folder &&
      !(existing.tags ?? []).length
    )
      action = 'unchanged';
    else if (!dry && client) await saveRunner(client, wanted, Boolean(existing));
    out.push({ name: partName, action, testCases: part.length, bytes });
  }
  return out;
}

/** How long the CLI waits for `POST /v1/designs/import`: the server's default import bound (300 s) and a minute more. */
export const MOCK_IMPORT_TIMEOUT_MS = 360_000;

/**
 * Posts the document to the mock designs import; answers what it made and the mock base address:
 * the one the designs' `mockUrl` names (the mock port when the server has one, which runs may
 * call: docs/mocks.md "A port of their own"), else `<the Assay URL the CLI uses>/mock/<workspace id>`.
 */
async function importMocks(
  client: AssayClient,
  text: string,
  note: (line: string) => void = () => undefined,
): Promise<NonNullable<OpenApiImportReport['mocks']>> {
  // The server parses and samples a big description for up to ASSAY_IMPORT_TIMEOUT_MS (5 minutes
  // by default, docs/mocks.md "OpenAPI import"): the call waits that long, not the client's 30 s.
  const mib = Buffer.byteLength(text) / (1024 * 1024);
  if (mib >= 1)
    note(`importing the mock designs of a ${mib.toFixed(1)} MiB description (the server may take minutes)…`);
  const answer = await client.request<{
    created: Array<{ mockUrl?: string | null }>;
    skipped: Array<{ operation: string; reason: string }>;
    warnings?: Array<{ operation: string; reason: string }>;
    normalised?: Array<{ operation: string; change: string }>;
  }>('POST', '/v1/designs/import', { body: { document: text }, timeoutMs: MOCK_IMPORT_TIMEOUT_MS });
  const workspaces = await client.get<{ items: Array<{ id: string; current?: boolean }> }>('/v1/workspaces');
  const ws = workspaces.items.find((w) => w.current) ?? workspaces.items[0];
  const prefix = ws ? `/mock/${ws.id}` : undefined;
  // Nothing created (a re-import): any design of the workspace names the same base.
  const named =
    answer.created.map((d) => d.mockUrl).find((u): u is string => typeof u === 'string') ??
    (await client.get<{ items: Array<{ mockUrl?: string | null }> }>('/v1/designs?limit=1')).items[0]?.mockUrl ??
    undefined;
  const at = prefix && named ? named.indexOf(`${prefix}/`) : -1;
  return {
    created: answer.created.length,
    skipped: answer.skipped,
    warnings: answer.warnings ?? [],
    normalised: answer.normalised ?? [],
    mockBaseUrl: at >= 0 ? named!.slice(0, at + prefix!.length) : prefix ? `${client.baseUrl}${prefix}` : null,
  };
}

/** What the designs import would make of the document (a dry run; routes already designed are not known). */
function dryMocks(doc: Record<string, unknown>): NonNullable<OpenApiImportReport['mocks']> {
  try {
    const result = designsFromOpenApi(doc);
    return {
      created: result.designs.length,
      skipped: result.skipped,
      warnings: result.warnings,
      normalised: result.normalised,
      mockBaseUrl: null,
    };
  } catch (err) {
    return {
      created: 0,
      skipped: [{ operation: '(all)', reason: (err as Error).message }],
      warnings: [],
      mockBaseUrl: null,
    };
  }
}

const pad = (s: string, n: number) => (s.length >= n ? `${s} ` : s + ' '.repeat(n - s.length));

/** The short report on stderr. */
function printReport(ctx: CliContext, r: OpenApiImportReport): void {
  const would = r.dryRun ? 'would be ' : '';
  ctx.note(
    `${r.dryRun ? 'Dry run: nothing saved. ' : ''}"${r.title}" ${r.version} (OpenAPI ${r.openapi}) → folder ${r.folder}`,
  );
  for (const tc of r.testCases)
    ctx.note(`  ${pad(tc.action, 10)}${pad(tc.operation, 40)}${tc.folder}${tc.error ? `  ${tc.error}` : ''}`);
  for (const s of r.skipped) ctx.note(`  ${pad('skipped', 10)}${pad(s.operation, 40)}${s.reason}`);
  for (const tc of r.testCases) for (const n of tc.notes ?? []) ctx.note(`  note: ${tc.operation}: ${n}`);
  if (r.filteredOut) ctx.note(`  ${r.filteredOut} operation${r.filteredOut === 1 ? '' : 's'} left out by --tags`);
  if (r.environment)
    ctx.note(`Environment ${r.environment.name}: baseUrl = ${r.environment.baseUrl} (${would}${r.environment.action})`);
  if (r.runner)
    ctx.note(
      `Runner ${r.runner.name}: folder ${r.runner.folder}, tag ${r.runner.tags.join(',')} (${would}${r.runner.action})`,
    );
  else if (r.runners?.length) {
    const mib = (n: number) => (n / (1024 * 1024)).toFixed(1);
    const all = r.runners.reduce((n, x) => n + x.bytes, 0);
    ctx.note(
      `Runners: the test cases are ${mib(all)} MiB together, over what one runner holds (${mib(runnerPlanBudget())} MiB): ${r.runners.length} runners, run each:`,
    );
    for (const x of r.runners)
      ctx.note(`  ${pad(x.name, 24)}${x.testCases} test cases, ${mib(x.bytes)} MiB (${would}${x.action})`);
  }
  if (r.variables.length) {
    const byName = new Map<string, SecurityVariable[]>();
    for (const v of r.variables) byName.set(v.name, [...(byName.get(v.name) ?? []), v]);
    ctx.note(`Set these variables in the environment${r.environment ? ` ${r.environment.name}` : ''}:`);
    for (const [name, vs] of byName)
      ctx.note(
        `  ${pad(name, 14)}${vs[0]!.hint}; ${[...new Set(vs.map((v) => v.where))].join(', ')} (scheme${vs.length > 1 ? 's' : ''} ${vs.map((v) => v.scheme).join(', ')})`,
      );
  }
  if (r.mocks?.error) ctx.note(`Mock designs: not imported: ${r.mocks.error}`);
  else if (r.mocks) {
    ctx.note(
      `Mock designs: ${r.mocks.created} created, ${r.mocks.skipped.length} skipped, ${r.mocks.warnings.length} warning${r.mocks.warnings.length === 1 ? '' : 's'}${r.mocks.mockBaseUrl ? `; mock base URL ${r.mocks.mockBaseUrl}` : ''}`,
    );
    for (const s of r.mocks.skipped) ctx.note(`  mock skipped: ${s.operation}: ${s.reason}`);
    for (const w of r.mocks.warnings) ctx.note(`  mock warning: ${w.operation}: ${w.reason}`);
    for (const n of r.mocks.normalised ?? []) ctx.note(`  mock normalised: ${n.operation}: ${n.change}`);
  }
  const c = r.counts;
  ctx.note(
    `${r.dryRun ? 'Would be: ' : ''}${c.created} created, ${c.updated} updated, ${c.unchanged} unchanged, ${c.skipped} skipped${c.failed ? `, ${c.failed} failed` : ''}`,
  );
}

/** Adds `openapi` to the `import` group (cli/commands/import.ts). */
export function registerOpenApiImport(
  group: Command,
  ctx: CliContext,
  done: (action: () => Promise<ExitCode>) => () => Promise<void>,
): void {
  const cmd = group
    .command('openapi')
    .description('make contract test cases from an OpenAPI 3.0/3.1 description (docs/import-openapi.md)')
    .argument('<spec>', 'the OpenAPI document: a JSON or YAML file, or an http(s) URL')
    .option('--base-url <url>', 'the API under test (default: servers[0].url); stored as baseUrl in --environment')
    .option('--environment <name>', 'create or merge-patch this environment with baseUrl')
    .option('--runner <name>', "create or update this runner to run the folder's contract test cases")
    .option('--folder <folder>', 'top folder of the test cases (default: a slug of info.title)')
    .option('--tags <list>', 'only operations carrying one of these tags (comma-separated)')
    .option('--with-mocks', 'also import the mock API designs (POST /v1/designs/import)')
    .option('--dry-run', 'save nothing: report what would be saved, test case documents on stdout')
    .option('--json', 'print the import report as JSON on stdout');
  cmd.action(
    done(async () => {
      const flags = cmd.opts<OpenApiFlags>();
      const spec = cmd.args[0]!;
      if (flags.baseUrl !== undefined) {
        if (!URL.canParse(flags.baseUrl) || !['http:', 'https:'].includes(new URL(flags.baseUrl).protocol))
          throw new UsageError(`--base-url "${flags.baseUrl}" is not an http(s) address`);
        if (!flags.environment) throw new UsageError('--base-url is stored in an environment: add --environment NAME');
      }
      const tags = flags.tags
        ?.split(',')
        .map((t) => t.trim())
        .filter(Boolean);
      if (flags.tags !== undefined && !tags?.length)
        throw new UsageError('--tags needs at least one tag (comma-separated)');
      if (flags.folder !== undefined && !flags.folder.split('/').some((s) => s.trim()))
        throw new UsageError('--folder must name a folder');
      const text = await readSpec(spec, ctx.io.cwd);
      const doc = parseSpec(spec, text);
      const plan = contractTestsFromOpenApi(doc, { folder: flags.folder, tags });
      const baseUrl = baseUrlFor(flags, plan, spec);
      if (flags.environment && !baseUrl) {
        throw new UsageError(
          `${spec}: no base URL for environment ${flags.environment}: ${plan.serverUrl ? `servers[0].url "${plan.serverUrl}" is not an absolute http(s) address` : 'the description has no servers'}; pass --base-url`,
        );
      }
      const dry = Boolean(flags.dryRun);
      // A dry run compares with what is stored when a key is configured, and plans from scratch without one.
      const client = dry && !ctx.settings().apiKey ? null : ctx.client();
      const report: OpenApiImportReport = {
        spec,
        title: plan.title,
        version: plan.version,
        openapi: plan.openapi,
        folder: plan.folder,
        dryRun: dry,
        baseUrl,
        testCases: [],
        skipped: plan.skipped,
        filteredOut: plan.filteredOut,
        variables: plan.variables,
        counts: { created: 0, updated: 0, unchanged: 0, skipped: plan.skipped.length, failed: 0 },
      };
      await syncTestCases(client, plan, report, dry);
      if (flags.environment && baseUrl)
        report.environment = {
          name: flags.environment,
          action: await syncEnvironment(client, flags.environment, baseUrl, dry),
          baseUrl,
        };
      if (flags.runner) {
        const sizes = plan.testCases.map((tc) => Buffer.byteLength(JSON.stringify(tc.body)));
        const total = sizes.reduce((n, bytes) => n + bytes, 0);
        if (total <= runnerPlanBudget()) {
          report.runner = {
            name: flags.runner,
            action: await syncRunner(client, flags.runner, plan, dry),
            folder: plan.folder,
            tags: [CONTRACT_TAG],
          };
          report.runners = [
            { name: flags.runner, action: report.runner.action, testCases: plan.testCases.length, bytes: total },
          ];
        } else report.runners = await syncSplitRunners(client, flags.runner, plan, report, sizes, dry);
      }
      if (flags.withMocks) {
        try {
          report.mocks = dry || !client ? dryMocks(doc) : await importMocks(client, text, (line) => ctx.note(line));
        } catch (err) {
          // The test cases are saved already: report them, and why the mocks are not.
          if (!(err instanceof ApiProblem) || err.status === 401 || err.status === 403) throw err;
          report.mocks = { created: 0, skipped: [], warnings: [], mockBaseUrl: null, error: err.message };
        }
      }
      for (const tc of report.testCases) report.counts[tc.action]++;
      printReport(ctx, report);
      if (flags.json) ctx.print(JSON.stringify(report, null, 2));
      else if (dry)
        ctx.print(
          JSON.stringify(
            report.testCases.map((t) => t.testCase),
            null,
            2,
          ),
        );
      return report.counts.failed || report.mocks?.error ? EXIT.usage : EXIT.ok;
    }),
  );
}
