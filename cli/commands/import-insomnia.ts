/**
 * `assay import insomnia FILE [--environment NAME] [--working-dir DIR] [--strict] [--dry-run]
 * [--json]` (docs/import-insomnia.md): reads an Insomnia export (v4 JSON or YAML, v5 collection
 * YAML; cli/importers/insomnia-format.ts), converts it (cli/importers/insomnia.ts), then creates or
 * updates through the REST API, in this order: the environment, the auth profiles, the workspace
 * files multipart parts send (from `--working-dir`), the test cases (matched by folder and name, so
 * importing again updates or reports them unchanged, never duplicates) and a runner listing them.
 * `--strict` refuses (exit 2, nothing saved) when anything was not carried.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { AssayClient } from '../client';
import type { CliContext } from '../context';
import { EXIT, UsageError, type ExitCode } from '../errors';
import { InsomniaFormatError, parseInsomnia } from '../importers/insomnia-format';
import {
  importInsomnia,
  type InsomniaImport,
  type InsomniaNote,
  type InsomniaRequestReport,
} from '../importers/insomnia';
import type { ImportedTestCase } from '../importers/postman';
import { formatSize, guessContentType, uploadFile } from '../workspace-files';
import { upsertAuthProfile, upsertEnvironment, upsertRunner, upsertTestCase } from './import-postman';

/** The largest export `assay import insomnia` reads: 50 MiB. */
export const MAX_INSOMNIA_BYTES = 50 * 1024 * 1024;

type Action = 'created' | 'updated' | 'unchanged' | 'planned' | 'not stored';

/** The import report (`--json`). Secret values are never in it. */
export interface InsomniaImportReport {
  file: string;
  format: InsomniaImport['format'];
  workspace: string;
  dryRun: boolean;
  /** True when anything was saved. */
  stored: boolean;
  environment: { name: string; sub: string; variables: number; secrets: string[]; action: Action };
  authProfiles: Array<{ name: string; type: string; from: string; action: Action }>;
  files: Array<{ fileName: string; file: string; size: number; action: Action }>;
  testCases: Array<{ name: string; folder: string; nodes: number; id?: string; action: Action }>;
  runner: { name: string; testCases: number; variableScope: 'testCase' | 'run'; action: Action };
  requests: InsomniaRequestReport[];
  notes: InsomniaNote[];
  warnings: InsomniaNote[];
  /** Requests with anything not carried, plus workspace-level notes: non-zero fails `--strict`. */
  notCarried: number;
  next: string;
}

/** A test case as `GET /v1/test-cases` lists it (what {@link upsertTestCase} matches against). */
type StoredTestCase = Parameters<typeof upsertTestCase>[1][number];

/** Reads FILE (at most {@link MAX_INSOMNIA_BYTES}); @throws UsageError naming it. */
function readExport(file: string, cwd: string): string {
  const full = path.resolve(cwd, file);
  const stat = fs.statSync(full, { throwIfNoEntry: false });
  if (!stat) throw new UsageError(`${file}: no such file`);
  if (stat.isDirectory()) throw new UsageError(`${file}: is a directory`);
  if (stat.size > MAX_INSOMNIA_BYTES)
    throw new UsageError(
      `${file} is ${formatSize(stat.size)}; an export over ${formatSize(MAX_INSOMNIA_BYTES)} is not imported`,
    );
  return fs.readFileSync(full, 'utf8');
}

const slug = (name: string) =>
  name
    .replace(/[^A-Za-z0-9_.-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 100) || 'insomnia';

function printReport(ctx: CliContext, r: InsomniaImportReport): void {
  ctx.note(
    `${r.dryRun ? 'Dry run: nothing saved. ' : ''}${r.file} (Insomnia ${r.format}, workspace "${r.workspace}"): ${r.requests.length} requests → ${r.testCases.length} test cases`,
  );
  ctx.note(
    `  environment ${r.environment.name} (${r.environment.sub ? `base + ${r.environment.sub}` : 'base'}, ${r.environment.variables} variables${r.environment.secrets.length ? `, secrets: ${r.environment.secrets.join(', ')}` : ''}): ${r.environment.action}`,
  );
  for (const p of r.authProfiles) ctx.note(`  auth profile ${p.name} (${p.type}, from ${p.from}): ${p.action}`);
  for (const f of r.files) ctx.note(`  file ${f.file} from ${f.fileName} (${formatSize(f.size)}): ${f.action}`);
  for (const t of r.testCases) ctx.note(`  test case ${t.folder}/${t.name} (${t.nodes} nodes): ${t.action}`);
  ctx.note(
    `  runner ${r.runner.name} (${r.runner.testCases} test cases${r.runner.variableScope === 'run' ? ', sharing variables' : ''}): ${r.runner.action}`,
  );
  for (const q of r.requests) {
    ctx.note(`  ${q.outcome === 'imported' ? '✓' : '✗'} ${q.at}${q.node ? ` → ${q.node}` : ''}`);
    for (const n of q.notCarried) ctx.note(`      not carried: ${n}`);
  }
  for (const n of r.notes) ctx.note(`  not carried: ${n.at}: ${n.message}`);
  for (const n of r.warnings) ctx.note(`  note: ${n.at}: ${n.message}`);
  ctx.note(`${r.notCarried} not carried in full.${r.stored ? ` Run it: ${r.next}` : ''}`);
}

/** Registers `assay import insomnia` on the `import` group (cli/commands/import.ts). */
export function registerInsomniaImport(
  group: Command,
  ctx: CliContext,
  done: (action: () => Promise<ExitCode>) => () => Promise<void>,
): void {
  const cmd = group
    .command('insomnia')
    .description(
      'import an Insomnia export (v4 JSON/YAML, v5 collection YAML) as test cases, an environment and a runner',
    )
    .argument('<file>', 'the Insomnia export (at most 50 MiB)')
    .option(
      '--environment <name>',
      'the sub-environment merged over the base one (default: the first; "" for the base only)',
    )
    .option(
      '--env-name <name>',
      "the Assay environment's name (default: the workspace's name, and the sub-environment's)",
    )
    .option('--folder <folder>', "the test cases' folder (default: the workspace's name)")
    .option('--runner <name>', "the runner to create or update (default: the workspace's name)")
    .option('--single-test-case', 'the whole workspace as one test case')
    .option(
      '--working-dir <dir>',
      'where the files of multipart file parts and file bodies are: uploaded as workspace files',
    )
    .option('--strict', 'when anything could not be carried over, print the report, save nothing and exit 2')
    .option('--dry-run', 'save nothing: report what would be done')
    .option('--json', 'print the import report as JSON on stdout');
  cmd.action(
    done(async () => {
      const flags = cmd.opts<{
        environment?: string;
        envName?: string;
        folder?: string;
        runner?: string;
        singleTestCase?: boolean;
        workingDir?: string;
        strict?: boolean;
        dryRun?: boolean;
        json?: boolean;
      }>();
      const file = cmd.args[0]!;
      if (flags.folder !== undefined && !flags.folder.split('/').some((s) => s.trim()))
        throw new UsageError('--folder must name a folder');
      let dir: string | undefined;
      if (flags.workingDir !== undefined) {
        dir = path.resolve(ctx.io.cwd, flags.workingDir);
        if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory())
          throw new UsageError(`--working-dir ${flags.workingDir}: not a directory`);
      }
      // A file part's path as Insomnia wrote it (absolute on the author's machine): looked up in
      // --working-dir as written when relative, else by its last segment.
      const fileIn = (fileName: string): string => {
        const norm = fileName.replace(/\\/g, '/');
        const rel = !path.isAbsolute(norm) && !/^[A-Za-z]:\//.test(norm) ? path.resolve(dir!, norm) : '';
        return rel && rel.startsWith(dir! + path.sep) && fs.existsSync(rel)
          ? rel
          : path.join(dir!, path.basename(norm));
      };
      let plan: InsomniaImport;
      try {
        plan = importInsomnia(parseInsomnia(readExport(file, ctx.io.cwd)), {
          folder: flags.folder,
          environment: flags.environment,
          environmentName: flags.envName,
          singleTestCase: flags.singleTestCase,
          fileAvailable: dir ? (f) => Boolean(fs.statSync(fileIn(f), { throwIfNoEntry: false })?.isFile()) : undefined,
        });
      } catch (err) {
        if (err instanceof InsomniaFormatError || !(err instanceof UsageError))
          throw new UsageError(`${file}: ${(err as Error).message}`);
        throw err;
      }
      const dry = Boolean(flags.dryRun);
      const runnerName = slug(flags.runner ?? plan.workspace);
      const notCarried = plan.requests.filter((q) => q.notCarried.length).length + plan.notes.length;
      const report: InsomniaImportReport = {
        file,
        format: plan.format,
        workspace: plan.workspace,
        dryRun: dry,
        stored: false,
        environment: {
          name: plan.environment.name,
          sub: plan.environment.sub,
          variables: Object.keys(plan.environment.variables).length,
          secrets: Object.entries(plan.environment.variables)
            .filter(([, v]) => typeof v === 'object' && v !== null && (v as { secret?: unknown }).secret === true)
            .map(([k]) => k),
          action: 'not stored',
        },
        authProfiles: plan.authProfiles.map((p) => ({
          name: p.name,
          type: p.fields.type,
          from: p.from,
          action: 'not stored',
        })),
        files: plan.uploads.map((u) => ({
          fileName: u.fileName,
          file: u.file,
          size: fs.statSync(fileIn(u.fileName)).size,
          action: 'not stored',
        })),
        testCases: plan.testCases.map((t) => ({
          name: t.name,
          folder: t.folder,
          nodes: t.flow.length,
          action: 'not stored',
        })),
        runner: {
          name: runnerName,
          testCases: plan.testCases.length,
          variableScope: plan.variableScope,
          action: 'not stored',
        },
        requests: plan.requests,
        notes: plan.notes,
        warnings: plan.warnings,
        notCarried,
        next: `assay run --runner ${runnerName} --env ${plan.environment.name} --wait`,
      };
      const finish = (code: ExitCode): ExitCode => {
        printReport(ctx, report);
        if (flags.json) ctx.print(JSON.stringify(report, null, 2));
        return code;
      };
      if (!plan.testCases.length) {
        finish(EXIT.usage);
        throw new UsageError(
          `${file}: no request Assay can send (${plan.requests.length} requests); nothing was imported`,
        );
      }
      if (flags.strict && notCarried) {
        ctx.note(`--strict: ${notCarried} items were not carried in full (listed above); nothing was saved`);
        return finish(EXIT.usage);
      }
      if (dry) {
        for (const x of [
          report.environment,
          ...report.authProfiles,
          ...report.files,
          ...report.testCases,
          report.runner,
        ])
          x.action = 'planned';
        return finish(EXIT.ok);
      }
      const client: AssayClient = ctx.client();
      report.stored = true;
      report.environment.action = await upsertEnvironment(
        client,
        { name: plan.environment.name, variables: plan.environment.variables } as Parameters<
          typeof upsertEnvironment
        >[1],
        `Imported from the Insomnia workspace "${plan.workspace}"`,
      );
      for (const [i, profile] of plan.authProfiles.entries())
        report.authProfiles[i]!.action = await upsertAuthProfile(client, profile);
      for (const f of report.files) {
        const bytes = fs.readFileSync(fileIn(f.fileName));
        const answer = await uploadFile(client, f.file, bytes, guessContentType(f.fileName));
        f.action = answer.created ? 'created' : 'updated';
      }
      const existing: StoredTestCase[] = [];
      for (const folder of new Set(plan.testCases.map((t) => t.folder)))
        existing.push(...(await client.listAll<StoredTestCase>('/v1/test-cases', { folder })));
      const ids: string[] = [];
      for (const [i, tc] of plan.testCases.entries()) {
        const saved = await upsertTestCase(client, existing, tc as unknown as ImportedTestCase);
        report.testCases[i]!.id = saved.id;
        report.testCases[i]!.action = saved.action;
        ids.push(saved.id);
      }
      report.runner.action = await upsertRunner(
        client,
        runnerName,
        ids,
        plan.workspace,
        plan.variableScope,
        `Imported from the Insomnia workspace "${plan.workspace}" (Insomnia's order)`,
      );
      return finish(EXIT.ok);
    }),
  );
}
