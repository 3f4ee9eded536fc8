/**
 * `assay import postman COLLECTION.json [--environment ENV.json] [--globals GLOBALS.json]
 * [--iteration-data DATA.csv|DATA.json] [--strict] [options]` (docs/import-postman.md): reads the
 * files in any encoding Newman reads (cli/importers/postman-formats.ts), converts the collection
 * with cli/importers/postman.ts, then creates or updates, through the REST API, the environment,
 * the auth profiles (cli/importers/postman-auth.ts; matched by name), the test cases (matched by folder and name, so importing again updates instead of duplicating)
 * and a runner listing them in Newman's order. Prints a report: what was created, updated or
 * unchanged, what could not be translated, and the command that runs it. With `--strict`, anything
 * not translated refuses the import before anything is written. The files form-data fields and
 * binary bodies name are read relative to `--working-dir` (default: the current directory, as
 * Newman's) and uploaded as workspace files (`PUT /v1/files/{name}`, cli/importers/postman-files.ts)
 * before the test cases that send them; `--dry-run` uploads nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { Command } from 'commander';
import { importPostman, type ImportNote, type ImportedTestCase, type PostmanImport } from '../importers/postman';
import type { ImportedAuthProfile } from '../importers/postman-auth';
import type { PostmanFileReader } from '../importers/postman-files';
import { formatSize, listFiles, uploadFile } from '../workspace-files';
import { parseIterationData, parseJsonBytes, type IterationData } from '../importers/postman-formats';
import type { AssayClient } from '../client';
import { ApiProblem } from '../client';
import type { CliContext } from '../context';
import { CliError, EXIT, UsageError, type ExitCode } from '../errors';

export interface StoredTestCase {
  id: string;
  name: string;
  folder: string;
  description?: string | null;
  tags: string[];
  flow: unknown[];
  dataSets?: unknown[];
  /** Test case hooks set on the server (docs/flows.md "Hooks at three levels"): kept when the import replaces it. */
  hooks?: unknown;
  authProfile?: string | null;
}

/** What the import did, printed (or given as JSON with `--json`). */
export interface PostmanImportReport {
  collection: string;
  /** The collection's format (v1 is converted to v2.1 as Newman converts it). */
  format: PostmanImport['format'];
  requests: number;
  /** Rows of the iteration data (0: none): each request runs once per row. */
  iterations: number;
  environment: { name: string; action: 'created' | 'updated' | 'unchanged' | 'planned'; variables: number };
  /** Auth profiles made of the collection's, folders' and requests' auth (docs/auth.md). */
  authProfiles: Array<{
    name: string;
    type: ImportedAuthProfile['fields']['type'];
    /** Where its auth is written: `collection`, `Folder`, `Folder / Request`. */
    from: string;
    action: 'created' | 'updated' | 'unchanged' | 'planned';
  }>;
  testCases: Array<{
    name: string;
    folder: string;
    id?: string;
    action: 'created' | 'updated' | 'unchanged' | 'planned';
    nodes: number;
  }>;
  /**
   * Workspace files uploaded for form-data file fields and binary bodies (one per content): `file`
   * the workspace name, `srcs` the paths as the collection writes them, `size` in bytes.
   */
  files: Array<{
    file: string;
    srcs: string[];
    size: number;
    contentType: string;
    action: 'created' | 'updated' | 'unchanged' | 'planned';
  }>;
  runner: {
    name: string;
    action: 'created' | 'updated' | 'unchanged' | 'planned';
    testCases: number;
    /** `run` when its test cases share variables (a script of one sets what a later one reads). */
    variableScope: 'testCase' | 'run';
  };
  untranslated: ImportNote[];
  warnings: ImportNote[];
  ignored: ImportNote[];
  next: string;
}

function readBytes(file: string, what: string, cwd: string): Buffer {
  try {
    return fs.readFileSync(path.resolve(cwd, file));
  } catch (err) {
    throw new UsageError(
      `cannot read the ${what} ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
}

/** A JSON file in UTF-8 (with or without a BOM) or UTF-16 (cli/importers/postman-formats.ts `decodeText`). */
function readJsonFile(file: string, what: string, cwd: string): unknown {
  const bytes = readBytes(file, what, cwd);
  try {
    return parseJsonBytes(bytes);
  } catch (err) {
    throw new UsageError(`the ${what} ${file} is not valid JSON: ${(err as Error).message}`);
  }
}

function readIterationData(file: string, cwd: string): IterationData {
  const bytes = readBytes(file, 'iteration data', cwd);
  try {
    return parseIterationData(bytes);
  } catch (err) {
    throw new UsageError(`the iteration data ${file} is ${(err as Error).message}`);
  }
}

/** Nodes of a flow, those inside Iteration nodes included. */
function countNodes(flow: ImportedTestCase['flow']): number {
  return flow.reduce((n, node) => n + 1 + (node.type === 'iteration' ? countNodes(node.body) : 0), 0);
}

function slug(name: string): string {
  return (
    name
      .replace(/[^A-Za-z0-9_.-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 100) || 'postman'
  );
}

/**
 * Creates the environment, or merge-patches the variables that differ (others stay); `description`
 * is written on creation. Shared with `assay import insomnia` (cli/commands/import-insomnia.ts).
 */
export async function upsertEnvironment(
  client: AssayClient,
  env: PostmanImport['environment'],
  description = 'Imported from Postman',
): Promise<'created' | 'updated' | 'unchanged'> {
  try {
    const current = await client.get<{ variables: Record<string, unknown> }>(
      `/v1/environments/${encodeURIComponent(env.name)}`,
    );
    const changed = Object.entries(env.variables).filter(([k, v]) => !isDeepStrictEqual(current.variables?.[k], v));
    if (!changed.length) return 'unchanged';
    await client.request('PATCH', `/v1/environments/${encodeURIComponent(env.name)}`, {
      body: { variables: Object.fromEntries(changed) },
    });
    return 'updated';
  } catch (err) {
    if (!(err instanceof ApiProblem) || err.status !== 404) throw err;
    await client.request('POST', '/v1/environments', {
      body: { name: env.name, description, variables: env.variables },
    });
    return 'created';
  }
}

/** The REST body of an auth profile (`POST /v1/auth-profiles`, docs/auth.md). */
function profileBody(p: ImportedAuthProfile): { name: string; type: string; description: string; config: unknown } {
  const { type, ...config } = p.fields;
  return { name: p.name, type, description: p.description, config };
}

/**
 * Creates the auth profile, or updates the one of that name when it differs. A stored secret is
 * answered `"***"` (docs/auth.md): one written as a literal cannot be compared, so it is sent again.
 */
export async function upsertAuthProfile(
  client: AssayClient,
  profile: ImportedAuthProfile,
): Promise<'created' | 'updated' | 'unchanged'> {
  const body = profileBody(profile);
  const at = `/v1/auth-profiles/${encodeURIComponent(profile.name)}`;
  try {
    const current = await client.get<{ type?: string; description?: string; config?: Record<string, unknown> }>(at);
    const config = body.config as Record<string, unknown>;
    const same =
      current.type === body.type &&
      (current.description ?? '') === body.description &&
      isDeepStrictEqual(Object.keys(current.config ?? {}).sort(), Object.keys(config).sort()) &&
      Object.entries(config).every(
        ([k, v]) => current.config?.[k] !== '***' && isDeepStrictEqual(current.config?.[k], v),
      );
    if (same) return 'unchanged';
    await client.request('PUT', at, { body });
    return 'updated';
  } catch (err) {
    if (!(err instanceof ApiProblem) || err.status !== 404) throw err;
    await client.request('POST', '/v1/auth-profiles', { body });
    return 'created';
  }
}

/**
 * Creates the test case, or updates the one of its folder and name when its flow, auth profile,
 * data sets, tags or description differ (keeping hooks set on the server). Also used by
 * `assay import bruno` and `assay import insomnia`.
 */
export async function upsertTestCase(
  client: AssayClient,
  existing: StoredTestCase[],
  tc: ImportedTestCase,
): Promise<{ id: string; action: 'created' | 'updated' | 'unchanged' }> {
  const found = existing.find((e) => e.folder === tc.folder && e.name === tc.name);
  const dataSets = tc.dataSets ?? [];
  const body = {
    name: tc.name,
    folder: tc.folder,
    description: tc.description ?? '',
    tags: tc.tags,
    flow: tc.flow,
    dataSets,
    ...(found?.hooks ? { hooks: found.hooks } : {}),
    ...(tc.authProfile ? { authProfile: tc.authProfile } : {}),
  };
  if (found) {
    const same =
      isDeepStrictEqual(found.flow, tc.flow) &&
      (found.authProfile ?? undefined) === tc.authProfile &&
      isDeepStrictEqual(found.dataSets ?? [], dataSets) &&
      isDeepStrictEqual([...found.tags].sort(), [...tc.tags].sort()) &&
      (found.description ?? '') === body.description;
    if (same) return { id: found.id, action: 'unchanged' };
    await client.request('PUT', `/v1/test-cases/${found.id}`, { body });
    return { id: found.id, action: 'updated' };
  }
  const created = await client.request<{ id: string }>('POST', '/v1/test-cases', { body });
  return { id: created.id, action: 'created' };
}

/**
 * Creates the runner `name` listing `testCaseIds`, or updates it when they or its scope differ.
 * `description`: what it says it was imported from (default: the Postman collection's). Also used
 * by `assay import bruno` and `assay import insomnia`.
 */
export async function upsertRunner(
  client: AssayClient,
  name: string,
  testCaseIds: string[],
  collection: string,
  variableScope: 'testCase' | 'run',
  description = `Imported from the Postman collection "${collection}" (Newman's run order)`,
): Promise<'created' | 'updated' | 'unchanged'> {
  const body = {
    name,
    description,
    testCaseIds,
    variableScope,
  };
  try {
    const current = await client.get<{
      testCaseIds?: string[];
      folder?: string | null;
      tags?: string[];
      variableScope?: string;
    }>(`/v1/runners/${encodeURIComponent(name)}`);
    if (
      isDeepStrictEqual(current.testCaseIds ?? [], testCaseIds) &&
      !current.folder &&
      !(current.tags ?? []).length &&
      (current.variableScope ?? 'testCase') === variableScope
    )
      return 'unchanged';
    await client.request('PUT', `/v1/runners/${encodeURIComponent(name)}`, { body });
    return 'updated';
  } catch (err) {
    if (!(err instanceof ApiProblem) || err.status !== 404) throw err;
    await client.request('POST', '/v1/runners', { body });
    return 'created';
  }
}

function printReport(ctx: CliContext, report: PostmanImportReport, dryRun: boolean): void {
  const verb = dryRun ? 'Would import' : 'Imported';
  ctx.note(`${verb} "${report.collection}": ${report.requests} requests into ${report.testCases.length} test cases.`);
  if (report.format === 'v1') ctx.note('  Collection v1, converted to v2.1 as Newman converts it');
  if (report.iterations)
    ctx.note(`  iteration data: ${report.iterations} rows; every request runs once per row, as with newman run -d`);
  ctx.note(
    `  environment ${report.environment.name} (${report.environment.variables} variables): ${report.environment.action}`,
  );
  for (const p of report.authProfiles) ctx.note(`  auth profile ${p.name} (${p.type}, from ${p.from}): ${p.action}`);
  for (const f of report.files)
    ctx.note(`  file        ${f.file} (${formatSize(f.size)}, from ${f.srcs.join(', ')}): ${f.action}`);
  for (const tc of report.testCases)
    ctx.note(`  test case   ${tc.folder}/${tc.name} (${tc.nodes} nodes): ${tc.action}`);
  const shared = report.runner.variableScope === 'run' ? ', sharing variables across them' : '';
  ctx.note(
    `  runner      ${report.runner.name} (${report.runner.testCases} test cases${shared}): ${report.runner.action}`,
  );
  if (report.untranslated.length) {
    ctx.note(`Not translated (${report.untranslated.length}):`);
    for (const n of report.untranslated) ctx.note(`  - ${n.at}: ${n.message}`);
  }
  if (report.warnings.length) {
    ctx.note(`Warnings (${report.warnings.length}):`);
    for (const n of report.warnings) ctx.note(`  - ${n.at}: ${n.message}`);
  }
  if (report.ignored.length) {
    ctx.note(`Ignored, documentation only (${report.ignored.length}):`);
    for (const n of report.ignored) ctx.note(`  - ${n.at}: ${n.message}`);
  }
  if (!dryRun) ctx.note(`Run it: ${report.next}`);
}

/**
 * Reads the files a collection names as Newman does (newman lib/run/secure-fs.js: `src` resolved
 * against the working directory, absolute paths as they are, files outside it read too, as
 * Newman 6 reads them without `--no-insecure-file-read`).
 */
function fileReader(workingDir: string): PostmanFileReader {
  return (src) => {
    const full = path.resolve(workingDir, src);
    let bytes: Buffer;
    try {
      if (!fs.statSync(full).isFile()) return { error: 'is not a file' };
      bytes = fs.readFileSync(full);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      return {
        error: code === 'ENOENT' ? `does not exist (${full})` : `cannot be read (${code ?? (err as Error).message})`,
      };
    }
    const relative = path.relative(workingDir, full);
    const inside = relative && !relative.startsWith('..') && !path.isAbsolute(relative);
    return { bytes, relative: inside ? relative.split(path.sep).join('/') : path.basename(full) };
  };
}

/** Registers `assay import postman`. */
export function registerPostmanImport(
  group: Command,
  ctx: CliContext,
  done: (action: () => Promise<ExitCode>) => () => Promise<void>,
): void {
  const cmd = group
    .command('postman')
    .description('import a Postman collection (v1, v2.0, v2.1) as test cases, an environment and a runner')
    .argument('<collection>', 'collection export (JSON file: UTF-8, with or without a BOM, or UTF-16)')
    .option('--environment <file>', 'Postman environment export (JSON file); its values override collection variables')
    .option(
      '--globals <file>',
      'Postman globals export (JSON file); below the collection variables and the environment',
    )
    .option(
      '--iteration-data <file>',
      'iteration data as newman run -d reads it (CSV with a header row, or a JSON array of objects): every request runs once per row',
    )
    .option('--strict', 'refuse the import (exit 2, nothing written) when anything could not be translated')
    .option(
      '--env-name <name>',
      "name of the Assay environment (default: the Postman environment's, else the collection's)",
    )
    .option('--folder <folder>', 'folder for the test cases (default: the collection name)')
    .option('--runner <name>', 'runner to create or update (default: the collection name)')
    .option('--tags <list>', 'extra tags for every test case (comma-separated; "postman" is always added)')
    .option(
      '--single-test-case',
      'the whole collection as ONE test case (variables set by scripts pass across folders, as in Newman)',
    )
    .option(
      '--timeout-request <ms>',
      "every request's time limit in ms, as Newman's --timeout-request (default: the run's ASSAY_REQUEST_TIMEOUT_MS)",
    )
    .option(
      '--working-dir <dir>',
      "where the files form-data fields and binary bodies name are read from, as Newman's --working-dir (default: the current directory); they are uploaded as workspace files",
    )
    .option('--dry-run', 'show what would be imported; change nothing')
    .option('--json', 'print the report as JSON on stdout');
  cmd.action(
    done(async () => {
      const flags = cmd.opts<{
        environment?: string;
        envName?: string;
        folder?: string;
        runner?: string;
        tags?: string;
        singleTestCase?: boolean;
        timeoutRequest?: string;
        dryRun?: boolean;
        json?: boolean;
        globals?: string;
        iterationData?: string;
        strict?: boolean;
        workingDir?: string;
      }>();
      const workingDir = path.resolve(ctx.io.cwd, flags.workingDir ?? '.');
      if (flags.workingDir !== undefined && !fs.statSync(workingDir, { throwIfNoEntry: false })?.isDirectory())
        throw new UsageError(`--working-dir ${flags.workingDir}: not a directory`);
      const collectionJson = readJsonFile(cmd.args[0]!, 'collection', ctx.io.cwd);
      const environmentJson = flags.environment
        ? readJsonFile(flags.environment, 'environment', ctx.io.cwd)
        : undefined;
      const timeoutRequestMs = flags.timeoutRequest === undefined ? undefined : Number(flags.timeoutRequest);
      if (timeoutRequestMs !== undefined && !(Number.isInteger(timeoutRequestMs) && timeoutRequestMs >= 0))
        throw new UsageError(`--timeout-request takes milliseconds (a whole number), not "${flags.timeoutRequest}"`);
      const globalsJson = flags.globals ? readJsonFile(flags.globals, 'globals', ctx.io.cwd) : undefined;
      const iterationData = flags.iterationData ? readIterationData(flags.iterationData, ctx.io.cwd) : undefined;
      let imported: PostmanImport;
      try {
        imported = importPostman(collectionJson, environmentJson, {
          folder: flags.folder,
          environmentName: flags.envName,
          singleTestCase: flags.singleTestCase,
          timeoutRequestMs,
          tags: flags.tags
            ?.split(',')
            .map((t) => t.trim())
            .filter(Boolean),
          globals: globalsJson,
          iterationData,
          iterationDataName: flags.iterationData ? path.basename(flags.iterationData) : undefined,
          readFile: fileReader(workingDir),
        });
      } catch (err) {
        throw new UsageError(`${cmd.args[0]}: ${(err as Error).message}`);
      }
      const runnerName = slug(flags.runner ?? imported.collectionName);
      const report: PostmanImportReport = {
        collection: imported.collectionName,
        format: imported.format,
        requests: imported.requests,
        iterations: imported.iterations,
        environment: {
          name: imported.environment.name,
          action: 'planned',
          variables: Object.keys(imported.environment.variables).length,
        },
        authProfiles: imported.authProfiles.map((p) => ({
          name: p.name,
          type: p.fields.type,
          from: p.from,
          action: 'planned',
        })),
        testCases: imported.testCases.map((tc) => ({
          name: tc.name,
          folder: tc.folder,
          action: 'planned',
          nodes: countNodes(tc.flow),
        })),
        files: imported.files.map((f) => ({
          file: f.file,
          srcs: f.srcs,
          size: f.bytes.length,
          contentType: f.contentType,
          action: 'planned',
        })),
        runner: {
          name: runnerName,
          action: 'planned',
          testCases: imported.testCases.length,
          variableScope: imported.variableScope,
        },
        untranslated: imported.untranslated,
        warnings: imported.warnings,
        ignored: imported.ignored,
        next: `assay run --runner ${runnerName} --env ${imported.environment.name} --wait`,
      };
      if (!imported.testCases.length) {
        printReport(ctx, report, true);
        throw new UsageError(
          `${cmd.args[0]}: ${imported.requests ? 'no request Assay can send (listed above)' : 'the collection has no requests'}; nothing was imported`,
        );
      }
      if (flags.strict && imported.untranslated.length) {
        if (flags.json) ctx.print(JSON.stringify(report, null, 2));
        printReport(ctx, report, true);
        throw new CliError(
          `--strict: ${imported.untranslated.length} construct(s) could not be translated (listed above); nothing was imported`,
          EXIT.usage,
        );
      }
      if (!flags.dryRun) {
        const client = ctx.client();
        // Files before the test cases that send them; the same bytes under the same name stay.
        if (imported.files.length) {
          const stored = new Map((await listFiles(client)).map((f) => [f.name, f.sha256]));
          for (const [i, f] of imported.files.entries()) {
            if (stored.get(f.file) === f.sha256) report.files[i]!.action = 'unchanged';
            else
              report.files[i]!.action = (await uploadFile(client, f.file, f.bytes, f.contentType)).created
                ? 'created'
                : 'updated';
          }
        }
        report.environment.action = await upsertEnvironment(client, imported.environment);
        // Before the test cases that reference them.
        for (const [i, profile] of imported.authProfiles.entries())
          report.authProfiles[i]!.action = await upsertAuthProfile(client, profile);
        const folders = [...new Set(imported.testCases.map((t) => t.folder))];
        const existing: StoredTestCase[] = [];
        for (const folder of folders)
          existing.push(...(await client.listAll<StoredTestCase>('/v1/test-cases', { folder })));
        const ids: string[] = [];
        for (const [i, tc] of imported.testCases.entries()) {
          const r = await upsertTestCase(client, existing, tc);
          report.testCases[i]!.id = r.id;
          report.testCases[i]!.action = r.action;
          ids.push(r.id);
        }
        report.runner.action = await upsertRunner(
          client,
          runnerName,
          ids,
          imported.collectionName,
          imported.variableScope,
        );
      }
      if (flags.json) ctx.print(JSON.stringify(report, null, 2));
      printReport(ctx, report, Boolean(flags.dryRun));
      return EXIT.ok;
    }),
  );
}
