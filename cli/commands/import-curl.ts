/**
 * `assay import curl [FILE|-] --name NAME [--folder F] [--environment ENV] [--base-url URL]
 * [--runner R] [--strict] [--dry-run] [--json]` (docs/cli.md "Importing"): reads curl commands
 * (FILE, or standard input for `-` or no FILE; cli/importers/curl.ts `splitCurlCommands`),
 * translates them (cli/importers/curl.ts `importCurl`: one API node per command) and, through the
 * REST API, in this order:
 *
 * 1. uploads the files the commands name (`-F name=@path`, `--data-binary @path`) to the workspace
 *    files, `PUT /v1/files/curl/<name>/<file>` (cli/workspace-files.ts `uploadFile`); paths are
 *    read relative to FILE's folder (the working directory for standard input), as the commands
 *    would be run next to it;
 * 2. creates or updates the environment ENV (default: NAME's slug): `base` and the secret variables
 *    (`{"value": …, "secret": true}`, docs/secrets.md) the credentials went into;
 * 3. creates or updates the `basic` auth profiles of `-u` (`POST`/`PUT /v1/auth-profiles`);
 * 4. creates the test case NAME in folder F (default `curl`), or replaces the one of that name there
 *    (its data sets and hooks kept), tagged `curl`;
 * 5. with `--runner R`, creates or replaces the runner R listing it.
 *
 * Prints a report (stderr; with `--json` also the report as JSON on stdout): per command, what was
 * carried, what was not, and notes. `--strict`: anything not carried prints the report, writes
 * nothing and exits 2. Exit 2 too when no command could be read.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { Command } from 'commander';
import { normaliseFolder } from '../../src/domain/folders';
import type { ApiNode } from '../../src/domain/types';
import type { AssayClient } from '../client';
import { ApiProblem } from '../client';
import type { CliContext } from '../context';
import { CliError, EXIT, UsageError, type ExitCode } from '../errors';
import {
  importCurl,
  slugOf,
  splitCurlCommands,
  type CurlAuthProfile,
  type CurlCommandReport,
  type EnvironmentValue,
} from '../importers/curl';
import { formatSize, isFileName, uploadFile } from '../workspace-files';

type Action = 'created' | 'updated' | 'unchanged' | 'planned';

/** What `assay import curl` did, printed (and given as JSON with `--json`). */
export interface CurlImportReport {
  /** The input: the file as given, or `-` for standard input. */
  input: string;
  testCase: { name: string; folder: string; id?: string; action: Action; nodes: number };
  /** The environment and its variables' names (`secrets`: those stored as secret variables). */
  environment: { name: string; action: Action; variables: string[]; secrets: string[] };
  authProfiles: Array<{ name: string; action: Action }>;
  /** Workspace files uploaded: name, the path read, size in bytes, content type. */
  files: Array<{ name: string; path: string; size: number; contentType: string; action: Action }>;
  runner?: { name: string; action: Action };
  commands: CurlCommandReport[];
  /** How many things, over all commands, were not carried (`--strict` refuses when > 0). */
  notCarried: number;
}

interface StoredTestCase {
  id: string;
  name: string;
  folder: string;
  description?: string | null;
  tags: string[];
  flow: unknown[];
  dataSets?: unknown[];
  hooks?: unknown;
  authProfile?: string | null;
}

async function readStdin(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

async function upsertEnvironment(
  client: AssayClient,
  name: string,
  variables: Record<string, EnvironmentValue>,
): Promise<Action> {
  const at = `/v1/environments/${encodeURIComponent(name)}`;
  try {
    const current = await client.get<{ variables?: Record<string, unknown> }>(at);
    // A secret is answered `***` (docs/secrets.md): it cannot be compared, so it is sent again.
    const changed = Object.entries(variables).filter(([k, v]) => !isDeepStrictEqual(current.variables?.[k], v));
    if (!changed.length) return 'unchanged';
    await client.request('PATCH', at, { body: { variables: Object.fromEntries(changed) } });
    return 'updated';
  } catch (err) {
    if (!(err instanceof ApiProblem) || err.status !== 404) throw err;
    await client.request('POST', '/v1/environments', {
      body: { name, description: 'Imported from curl commands', variables },
    });
    return 'created';
  }
}

async function upsertAuthProfile(client: AssayClient, profile: CurlAuthProfile): Promise<Action> {
  const body = { name: profile.name, type: 'basic', description: 'Imported from curl -u', config: profile.config };
  const at = `/v1/auth-profiles/${encodeURIComponent(profile.name)}`;
  try {
    const current = await client.get<{ type?: string; config?: Record<string, unknown> }>(at);
    if (current.type === 'basic' && isDeepStrictEqual(current.config, profile.config)) return 'unchanged';
    await client.request('PUT', at, { body });
    return 'updated';
  } catch (err) {
    if (!(err instanceof ApiProblem) || err.status !== 404) throw err;
    await client.request('POST', '/v1/auth-profiles', { body });
    return 'created';
  }
}

async function upsertTestCase(
  client: AssayClient,
  name: string,
  folder: string,
  flow: ApiNode[],
  description: string,
): Promise<{ id: string; action: Action }> {
  const existing = await client.listAll<StoredTestCase>('/v1/test-cases', { folder });
  const found = existing.find((e) => e.folder === folder && e.name === name);
  const body = {
    name,
    folder,
    description,
    tags: found ? [...new Set([...found.tags, 'curl'])] : ['curl'],
    flow,
    ...(found?.dataSets ? { dataSets: found.dataSets } : {}),
    ...(found?.hooks ? { hooks: found.hooks } : {}),
  };
  if (found) {
    if (isDeepStrictEqual(found.flow, flow) && (found.description ?? '') === description && found.tags.includes('curl'))
      return { id: found.id, action: 'unchanged' };
    await client.request('PUT', `/v1/test-cases/${found.id}`, { body });
    return { id: found.id, action: 'updated' };
  }
  const created = await client.request<{ id: string }>('POST', '/v1/test-cases', { body });
  return { id: created.id, action: 'created' };
}

async function upsertRunner(client: AssayClient, name: string, testCaseId: string): Promise<Action> {
  const body = { name, description: 'Imported from curl commands', testCaseIds: [testCaseId] };
  const at = `/v1/runners/${encodeURIComponent(name)}`;
  try {
    const current = await client.get<{ testCaseIds?: string[]; folder?: string | null; tags?: string[] }>(at);
    if (isDeepStrictEqual(current.testCaseIds ?? [], [testCaseId]) && !current.folder && !(current.tags ?? []).length)
      return 'unchanged';
    await client.request('PUT', at, { body });
    return 'updated';
  } catch (err) {
    if (!(err instanceof ApiProblem) || err.status !== 404) throw err;
    await client.request('POST', '/v1/runners', { body });
    return 'created';
  }
}

function printReport(ctx: CliContext, report: CurlImportReport, dryRun: boolean): void {
  const tc = report.testCase;
  ctx.note(
    `${dryRun ? 'Would import' : 'Imported'} ${report.commands.length} curl command(s) from ${report.input} as the test case ${tc.folder}/${tc.name} (${tc.nodes} nodes): ${tc.action}`,
  );
  const env = report.environment;
  ctx.note(
    `  environment ${env.name} (${env.variables.join(', ') || 'no variables'}${env.secrets.length ? `; secret: ${env.secrets.join(', ')}` : ''}): ${env.action}`,
  );
  for (const p of report.authProfiles) ctx.note(`  auth profile ${p.name} (basic): ${p.action}`);
  for (const f of report.files)
    ctx.note(`  file ${f.name} (from ${f.path}, ${formatSize(f.size)}, ${f.contentType}): ${f.action}`);
  if (report.runner) ctx.note(`  runner ${report.runner.name}: ${report.runner.action}`);
  for (const c of report.commands) {
    ctx.note(`Line ${c.line}: ${c.node ? `${c.node}, ${c.method} ${c.url}` : 'not imported'}`);
    if (c.carried.length) ctx.note(`  carried: ${c.carried.join('; ')}`);
    for (const n of c.notCarried) ctx.note(`  NOT carried: ${n}`);
    for (const n of c.notes) ctx.note(`  note: ${n}`);
  }
  if (report.notCarried) ctx.note(`Not carried: ${report.notCarried} (listed above).`);
}

/** Registers `assay import curl`. */
export function registerCurlImport(
  group: Command,
  ctx: CliContext,
  done: (action: () => Promise<ExitCode>) => () => Promise<void>,
): void {
  const cmd = group
    .command('curl')
    .description('import curl commands (one per line) as ONE test case, one API node per command')
    .argument(
      '[file]',
      'file of curl commands (`\\` continues a line; blank lines and # comments between them); - or none: standard input',
    )
    .requiredOption('--name <name>', 'name of the test case')
    .option('--folder <folder>', 'folder of the test case', 'curl')
    .option('--environment <env>', 'environment for `base` and the secret variables (default: the name, as a slug)')
    .option('--base-url <url>', "the base URL that becomes {{base}} (default: the first command's origin)")
    .option('--runner <name>', 'also create or replace a runner of that name listing the test case')
    .option('--strict', 'refuse the import (exit 2, nothing written) when anything could not be carried over')
    .option('--dry-run', 'show what would be imported; change nothing')
    .option('--json', 'print the report as JSON on stdout');
  cmd.action(
    done(async () => {
      const flags = cmd.opts<{
        name: string;
        folder: string;
        environment?: string;
        baseUrl?: string;
        runner?: string;
        strict?: boolean;
        dryRun?: boolean;
        json?: boolean;
      }>();
      const name = flags.name.trim();
      if (!name) throw new UsageError('--name must not be empty');
      if (flags.baseUrl !== undefined && !/^https?:\/\/[^/]/i.test(flags.baseUrl))
        throw new UsageError(`--base-url takes an absolute http(s) URL, not "${flags.baseUrl}"`);
      const input = cmd.args[0] ?? '-';
      let text: string;
      let dir: string;
      if (input === '-') {
        text = await readStdin(ctx.io.stdin);
        dir = ctx.io.cwd;
      } else {
        const file = path.resolve(ctx.io.cwd, input);
        try {
          text = fs.readFileSync(file, 'utf8');
        } catch (err) {
          throw new UsageError(
            `cannot read ${input}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
          );
        }
        dir = path.dirname(file);
      }
      const sources = splitCurlCommands(text);
      if (!sources.length) throw new UsageError(`${input}: no curl command found`);
      const imported = importCurl(sources, {
        name,
        baseUrl: flags.baseUrl,
        readFile: (p) => {
          try {
            return fs.readFileSync(path.resolve(dir, p));
          } catch (err) {
            return { error: (err as NodeJS.ErrnoException).code ?? (err as Error).message };
          }
        },
      });
      for (const f of imported.files)
        if (!isFileName(f.name)) throw new UsageError(`cannot name the workspace file for ${f.path}: "${f.name}"`);
      const folder = normaliseFolder(flags.folder);
      const environment = flags.environment ?? slugOf(name);
      const variables = Object.keys(imported.variables);
      const report: CurlImportReport = {
        input,
        testCase: { name, folder, action: 'planned', nodes: imported.nodes.length },
        environment: {
          name: environment,
          action: 'planned',
          variables,
          secrets: variables.filter((v) => typeof imported.variables[v] === 'object'),
        },
        authProfiles: imported.authProfiles.map((p) => ({ name: p.name, action: 'planned' })),
        files: imported.files.map((f) => ({
          name: f.name,
          path: f.path,
          size: f.bytes.byteLength,
          contentType: f.contentType,
          action: 'planned',
        })),
        ...(flags.runner ? { runner: { name: flags.runner, action: 'planned' as Action } } : {}),
        commands: imported.commands,
        notCarried: imported.commands.reduce((n, c) => n + c.notCarried.length, 0),
      };
      if (!imported.nodes.length) {
        if (flags.json) ctx.print(JSON.stringify(report, null, 2));
        printReport(ctx, report, true);
        throw new UsageError(`${input}: no command could be imported (listed above); nothing was imported`);
      }
      if (flags.strict && report.notCarried) {
        if (flags.json) ctx.print(JSON.stringify(report, null, 2));
        printReport(ctx, report, true);
        throw new CliError(
          `--strict: ${report.notCarried} thing(s) could not be carried over (listed above); nothing was imported`,
          EXIT.usage,
        );
      }
      if (!flags.dryRun) {
        const client = ctx.client();
        // Files and auth profiles before the test case that names them.
        for (const [i, f] of imported.files.entries())
          report.files[i]!.action = (await uploadFile(client, f.name, f.bytes, f.contentType)).created
            ? 'created'
            : 'updated';
        report.environment.action = await upsertEnvironment(client, environment, imported.variables);
        for (const [i, p] of imported.authProfiles.entries())
          report.authProfiles[i]!.action = await upsertAuthProfile(client, p);
        const description = `Imported from ${sources.length} curl command(s) by assay import curl`;
        const tc = await upsertTestCase(client, name, folder, imported.nodes, description);
        report.testCase.id = tc.id;
        report.testCase.action = tc.action;
        if (flags.runner)
          report.runner = { name: flags.runner, action: await upsertRunner(client, flags.runner, tc.id) };
      }
      if (flags.json) ctx.print(JSON.stringify(report, null, 2));
      printReport(ctx, report, Boolean(flags.dryRun));
      return EXIT.ok;
    }),
  );
}
