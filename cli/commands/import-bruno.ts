/**
 * `assay import bruno DIR [--environment NAME]… [--strict] [--dry-run] [--json] [options]`
 * (docs/import-bruno.md): reads a Bruno collection folder with Bruno's own parser and converts it
 * (cli/importers/bruno.ts), then creates or updates, through the REST API, the workspace files its
 * multipart and file bodies send (`PUT /v1/files/{name}`, unchanged when the stored sha256 is the
 * same), the environments, the auth profiles (matched by name), the test cases (matched by folder
 * and name: importing again updates, never duplicates) and a runner listing them in Bruno's order.
 * Prints a report (per request: what was carried and what not). With `--strict`, anything not
 * carried refuses the import (exit 2) before anything is written.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { Command } from 'commander';
import {
  BrunoInputError,
  importBruno,
  parseBrunoCollection,
  readBrunoCollection,
  type BrunoImport,
  type BrunoRequestReport,
  type ImportNote,
} from '../importers/bruno';
import type { ImportedTestCase } from '../importers/postman';
import type { AssayClient } from '../client';
import { ApiProblem } from '../client';
import type { CliContext } from '../context';
import { CliError, EXIT, UsageError, type ExitCode } from '../errors';
import { guessContentType, sha256Hex, uploadFile, filePath } from '../workspace-files';
import { upsertAuthProfile, upsertRunner, upsertTestCase, type StoredTestCase } from './import-postman';

type Action = 'created' | 'updated' | 'unchanged' | 'planned';

/** What the import did, printed (or given as JSON with `--json`). */
export interface BrunoImportReport {
  collection: string;
  /** Every request: where it is, its test case and node, what was carried, how many things were not. */
  requests: BrunoRequestReport[];
  environments: Array<{ name: string; from: string; variables: number; secretsWithoutValue: string[]; action: Action }>;
  authProfiles: Array<{ name: string; type: string; from: string; action: Action }>;
  files: Array<{ name: string; size: number; action: Action }>;
  testCases: Array<{ name: string; folder: string; id?: string; nodes: number; action: Action }>;
  runner: { name: string; testCases: number; action: Action };
  untranslated: ImportNote[];
  warnings: ImportNote[];
  ignored: ImportNote[];
  next: string;
}

/**
 * Creates the environment, or sets the variables that differ. A secret variable is sent only when
 * the environment has none of that name stored (a stored secret answers `***` and cannot be
 * compared, docs/secrets.md): importing again leaves it, and a value set with `assay env`, alone.
 */
async function upsertEnvironment(
  client: AssayClient,
  env: BrunoImport['environments'][number],
  collection: string,
): Promise<'created' | 'updated' | 'unchanged'> {
  const at = `/v1/environments/${encodeURIComponent(env.name)}`;
  try {
    const current = await client.get<{ variables?: Record<string, unknown> }>(at);
    const changed = Object.entries(env.variables).filter(([k, v]) => {
      const stored = current.variables?.[k];
      const secret = (x: unknown) => Boolean(x && typeof x === 'object' && (x as { secret?: unknown }).secret === true);
      if (secret(v)) return !secret(stored);
      return !isDeepStrictEqual(stored, v);
    });
    if (!changed.length) return 'unchanged';
    await client.request('PATCH', at, { body: { variables: Object.fromEntries(changed) } });
    return 'updated';
  } catch (err) {
    if (!(err instanceof ApiProblem) || err.status !== 404) throw err;
    await client.request('POST', '/v1/environments', {
      body: {
        name: env.name,
        description: `Imported from the Bruno collection "${collection}" (${env.from})`,
        variables: env.variables,
      },
    });
    return 'created';
  }
}

/** Uploads a collection file unless the workspace holds the same bytes under its name. */
async function syncFile(
  client: AssayClient,
  name: string,
  bytes: Buffer,
  contentType: string,
): Promise<'created' | 'updated' | 'unchanged'> {
  try {
    const current = await client.get<{ sha256?: string; contentType?: string }>(filePath(name));
    if (current.sha256 === sha256Hex(bytes) && current.contentType === contentType) return 'unchanged';
  } catch (err) {
    if (!(err instanceof ApiProblem) || err.status !== 404) throw err;
  }
  return (await uploadFile(client, name, bytes, contentType)).created ? 'created' : 'updated';
}

const runnerSlug = (name: string) =>
  name
    .replace(/[^A-Za-z0-9_.-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+|-+$/g, '')
    .slice(0, 100) || 'bruno';

function printReport(ctx: CliContext, report: BrunoImportReport, dryRun: boolean): void {
  const carried = report.requests.filter((r) => r.node).length;
  ctx.note(
    `${dryRun ? 'Would import' : 'Imported'} "${report.collection}": ${carried} of ${report.requests.length} requests into ${report.testCases.length} test cases.`,
  );
  for (const e of report.environments)
    ctx.note(
      `  environment ${e.name} (${e.variables} variables${e.secretsWithoutValue.length ? `, ${e.secretsWithoutValue.length} secrets to set` : ''}): ${e.action}`,
    );
  for (const p of report.authProfiles) ctx.note(`  auth profile ${p.name} (${p.type}, from ${p.from}): ${p.action}`);
  for (const f of report.files) ctx.note(`  file        ${f.name} (${f.size} bytes): ${f.action}`);
  for (const tc of report.testCases)
    ctx.note(`  test case   ${tc.folder}/${tc.name} (${tc.nodes} nodes): ${tc.action}`);
  ctx.note(`  runner      ${report.runner.name} (${report.runner.testCases} test cases): ${report.runner.action}`);
  ctx.note('Requests (assertions, extracted variables, scripts, not carried):');
  for (const r of report.requests)
    ctx.note(
      `  ${r.node ? '✓' : '✗'} ${r.at}: ${r.assertions} assertions, ${r.extract} extracted${r.scripts ? ', scripts' : ''}${r.notCarried ? `, ${r.notCarried} not carried` : ''}`,
    );
  const list = (title: string, notes: ImportNote[]) => {
    if (!notes.length) return;
    ctx.note(`${title} (${notes.length}):`);
    for (const n of notes) ctx.note(`  - ${n.at}: ${n.message}`);
  };
  list('Not carried', report.untranslated);
  list('Warnings', report.warnings);
  list('Ignored, documentation only', report.ignored);
  if (!dryRun) ctx.note(`Run it: ${report.next}`);
}

/** Registers `assay import bruno`. */
export function registerBrunoImport(
  group: Command,
  ctx: CliContext,
  done: (action: () => Promise<ExitCode>) => () => Promise<void>,
): void {
  const cmd = group
    .command('bruno')
    .description('import a Bruno collection folder as test cases, environments, auth profiles and a runner')
    .argument('<dir>', 'the collection folder (the one holding bruno.json)')
    .option(
      '--environment <name>',
      'import only this environment (environments/NAME.bru; repeat for several; default: all)',
      (v: string, all: string[] = []) => [...all, v],
    )
    .option('--strict', 'refuse the import (exit 2, nothing written) when anything could not be carried')
    .option('--folder <folder>', 'folder for the test cases (default: the collection name)')
    .option('--runner <name>', 'runner to create or update (default: the collection name)')
    .option('--tags <list>', 'extra tags for every test case (comma-separated; "bruno" is always added)')
    .option('--dry-run', 'show what would be imported; change nothing')
    .option('--json', 'print the report as JSON on stdout');
  cmd.action(
    done(async () => {
      const flags = cmd.opts<{
        environment?: string[];
        strict?: boolean;
        folder?: string;
        runner?: string;
        tags?: string;
        dryRun?: boolean;
        json?: boolean;
      }>();
      const dirArg = cmd.args[0]!;
      const dir = path.resolve(ctx.io.cwd, dirArg);
      let imported: BrunoImport;
      try {
        imported = importBruno(parseBrunoCollection(readBrunoCollection(dir)), {
          dir,
          folder: flags.folder,
          environments: flags.environment,
          tags: flags.tags
            ?.split(',')
            .map((t) => t.trim())
            .filter(Boolean),
        });
      } catch (err) {
        if (err instanceof BrunoInputError) throw new UsageError(`${dirArg}: ${err.message}`);
        throw err;
      }
      const runnerName = runnerSlug(flags.runner ?? imported.collectionName);
      const sizes = new Map(imported.uploads.map((u) => [u.name, fs.statSync(u.source).size]));
      const report: BrunoImportReport = {
        collection: imported.collectionName,
        requests: imported.requests,
        environments: imported.environments.map((e) => ({
          name: e.name,
          from: e.from,
          variables: Object.keys(e.variables).length,
          secretsWithoutValue: e.secretsWithoutValue,
          action: 'planned',
        })),
        authProfiles: imported.authProfiles.map((p) => ({
          name: p.name,
          type: p.fields.type,
          from: p.from,
          action: 'planned',
        })),
        files: imported.uploads.map((u) => ({ name: u.name, size: sizes.get(u.name)!, action: 'planned' })),
        testCases: imported.testCases.map((tc) => ({
          name: tc.name,
          folder: tc.folder,
          nodes: tc.flow.length,
          action: 'planned',
        })),
        runner: { name: runnerName, testCases: imported.testCases.length, action: 'planned' },
        untranslated: imported.untranslated,
        warnings: imported.warnings,
        ignored: imported.ignored,
        next: `assay run --runner ${runnerName}${imported.environments[0] ? ` --env ${imported.environments[0].name}` : ''} --wait`,
      };
      if (!imported.testCases.length) {
        printReport(ctx, report, true);
        throw new UsageError(`${dirArg}: the collection has no request Assay can send; nothing was imported`);
      }
      if (flags.strict && imported.untranslated.length) {
        if (flags.json) ctx.print(JSON.stringify(report, null, 2));
        printReport(ctx, report, true);
        throw new CliError(
          `--strict: ${imported.untranslated.length} item(s) could not be carried (listed above); nothing was imported`,
          EXIT.usage,
        );
      }
      if (!flags.dryRun) {
        const client = ctx.client();
        for (const [i, u] of imported.uploads.entries())
          report.files[i]!.action = await syncFile(
            client,
            u.name,
            fs.readFileSync(u.source),
            u.contentType ?? guessContentType(u.source),
          );
        for (const [i, env] of imported.environments.entries())
          report.environments[i]!.action = await upsertEnvironment(client, env, imported.collectionName);
        for (const [i, profile] of imported.authProfiles.entries())
          report.authProfiles[i]!.action = await upsertAuthProfile(client, profile);
        const folders = [...new Set(imported.testCases.map((t) => t.folder))];
        const existing: StoredTestCase[] = [];
        for (const folder of folders)
          existing.push(...(await client.listAll<StoredTestCase>('/v1/test-cases', { folder })));
        const ids: string[] = [];
        for (const [i, tc] of imported.testCases.entries()) {
          const r = await upsertTestCase(client, existing, tc as unknown as ImportedTestCase);
          report.testCases[i]!.id = r.id;
          report.testCases[i]!.action = r.action;
          ids.push(r.id);
        }
        // Bruno's runtime variables (bru.setVar, vars:post-response) last the whole collection run.
        report.runner.action = await upsertRunner(
          client,
          runnerName,
          ids,
          imported.collectionName,
          'run',
          `Imported from the Bruno collection "${imported.collectionName}" (Bruno's run order)`,
        );
      }
      if (flags.json) ctx.print(JSON.stringify(report, null, 2));
      printReport(ctx, report, Boolean(flags.dryRun));
      return EXIT.ok;
    }),
  );
}
