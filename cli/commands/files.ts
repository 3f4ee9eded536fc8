/**
 * Tests as files in git (docs/tests-as-files.md):
 *
 * - `assay export --dir DIR [--clean]` writes the workspace's environments, test cases, runners and
 *   deployments as YAML, one file per resource, and its workspace files byte for byte under
 *   `DIR/files/<name>` (cli/gitops/file-sync.ts); `--clean` removes files of resources (and
 *   workspace files) that no longer exist;
 * - `assay apply --dir DIR [--prune] [--dry-run] [--yes]` makes the workspace match DIR: it checks
 *   every file (nothing changes when one is wrong: exit 2), prints a plan (`+ create`, `~ update`,
 *   `- delete` with `--prune`), asks for confirmation on a terminal unless `--yes`, and applies it
 *   in dependency order: uploads of workspace files that are new or differ by SHA-256 first,
 *   deletes of workspace files (`--prune`) last. A refusal from the API stops it (exit 2, or 3 when the service failed),
 *   naming the resource and what had already been applied.
 *
 * The pure parts (file format, plan) live in cli/gitops; this file is the command line around them.
 */
import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import { describeProblem, type FileProblem } from '../gitops/format';
import { readDirectory, writeExport } from '../gitops/files';
import {
  FILES_FOLDER,
  applyFileAction,
  computeFilePlan,
  describeFileAction,
  exportFiles,
  readLocalFiles,
  type FileExportReport,
} from '../gitops/file-sync';
import { computePlan, describeAction, renderPlan, type PlanAction } from '../gitops/plan';
import { listFiles } from '../workspace-files';
import { applyAction, fetchWorkspace } from '../gitops/workspace';
import type { AssayClient } from '../client';
import type { CliContext } from '../context';
import { CliError, EXIT, UsageError, type ExitCode } from '../errors';
import type { Registrar } from '../context';

interface WorkspacesAnswer {
  items: Array<{ name: string; current?: boolean; key?: { scope?: string } }>;
}

/**
 * The calling key's workspace name and scope (`GET /v1/workspaces`); @throws UsageError when the
 * scope is below `needed` (a `read` key sees environment values as `"***"`, so it cannot export).
 */
async function requireScope(client: AssayClient, needed: 'run' | 'write', what: string): Promise<string> {
  const answer = await client.get<WorkspacesAnswer>('/v1/workspaces');
  const ws = answer.items.find((w) => w.current) ?? answer.items[0];
  const scope = ws?.key?.scope;
  const rank = { read: 0, run: 1, write: 2, admin: 3, owner: 4 } as Record<string, number>;
  if (scope && (rank[scope] ?? 0) < rank[needed]!) {
    throw new UsageError(
      `${what} needs a ${needed === 'write' ? '"write" (or "admin")' : '"run", "write" or "admin"'} API key; this key's scope is "${scope}"${scope === 'read' ? ' (it sees environment values as "***")' : ''}`,
    );
  }
  return ws?.name ?? 'this workspace';
}

function printProblems(ctx: CliContext, problems: FileProblem[], dir: string): ExitCode {
  for (const p of problems) ctx.note(`assay: ${describeProblem(p)}`);
  ctx.note(
    `assay: ${problems.length === 1 ? '1 problem' : `${problems.length} problems`} in ${dir}; nothing was changed`,
  );
  return EXIT.usage;
}

/** Asks on the terminal; true only for "yes" or "y". */
async function confirm(ctx: CliContext, question: string): Promise<boolean> {
  const rl = createInterface({ input: ctx.io.stdin, output: ctx.io.stderr as NodeJS.WritableStream, terminal: false });
  try {
    const answer = await rl.question(question);
    return /^(y|yes)$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

async function runExport(ctx: CliContext, flags: { dir: string; clean?: boolean }): Promise<ExitCode> {
  const client = ctx.client();
  const workspace = await requireScope(client, 'run', 'export');
  const state = await fetchWorkspace(client);
  if (state.ambiguous.length) {
    throw new CliError(
      `cannot export ${state.ambiguous.join(', ')}: it lists a test case whose folder/name is shared by another (a name containing "/"); rename one`,
    );
  }
  const workspaceFiles = await listFiles(client);
  const dir = path.resolve(ctx.io.cwd, flags.dir);
  let report;
  let fileReport: FileExportReport;
  try {
    report = await writeExport(
      dir,
      state.resources.map((r) => r.spec),
      { clean: flags.clean },
    );
    fileReport = await exportFiles(client, dir, workspaceFiles, { clean: flags.clean });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (['ENOTDIR', 'EISDIR', 'EEXIST', 'EACCES', 'EPERM'].includes(e.code ?? ''))
      throw new UsageError(`cannot write to --dir ${flags.dir}: ${e.code} (${e.path ?? dir})`);
    throw err;
  }
  for (const f of report.written) ctx.print(`wrote ${path.join(flags.dir, f)}`);
  for (const r of report.removed) ctx.print(`removed ${path.join(flags.dir, r.file)} (${r.label} no longer exists)`);
  ctx.print(
    `Exported ${state.resources.length} resources of ${workspace} to ${flags.dir}: ${report.written.length} written, ${report.unchanged.length} unchanged${flags.clean ? `, ${report.removed.length} removed` : ''}.`,
  );
  for (const f of fileReport.written) ctx.print(`wrote ${path.join(flags.dir, f)}`);
  for (const f of fileReport.removed)
    ctx.print(`removed ${path.join(flags.dir, f)} (file ${f.slice(FILES_FOLDER.length + 1)} no longer exists)`);
  if (workspaceFiles.length || fileReport.removed.length || fileReport.stale.length)
    ctx.print(
      `Exported ${workspaceFiles.length - fileReport.skipped.length} workspace files to ${path.join(flags.dir, FILES_FOLDER)}: ${fileReport.written.length} written, ${fileReport.unchanged.length} unchanged${flags.clean ? `, ${fileReport.removed.length} removed` : ''}.`,
    );
  for (const s of fileReport.skipped)
    ctx.note(
      `warning: file ${s.name} is not exported: ${s.reason}; rename it (assay files upload --name, then delete)`,
    );
  if (fileReport.stale.length)
    ctx.note(
      `${fileReport.stale.length === 1 ? '1 file is' : `${fileReport.stale.length} files are`} no longer in the workspace (export --clean removes them): ${fileReport.stale.map((f) => path.join(flags.dir, f)).join(', ')}`,
    );
  if (report.stale.length) {
    ctx.note(
      `${report.stale.length === 1 ? '1 file describes a resource' : `${report.stale.length} files describe resources`} the workspace no longer has (export --clean removes them): ${report.stale.map((s) => path.join(flags.dir, s.file)).join(', ')}`,
    );
  }
  if (report.unreadable.length)
    ctx.note(
      `warning: left alone, not resource files: ${report.unreadable.map((f) => path.join(flags.dir, f)).join(', ')}`,
    );
  if (report.duplicates.length)
    ctx.note(
      `warning: left alone, a second file for a resource: ${report.duplicates.map((f) => path.join(flags.dir, f)).join(', ')}`,
    );
  return EXIT.ok;
}

/** One change apply makes: a resource's (cli/gitops/plan.ts) or a workspace file's (cli/gitops/file-sync.ts). */
interface Step {
  op: PlanAction['op'];
  /** Its plan line. */
  text: string;
  /** The file describing it, for messages. */
  file?: string;
  run: () => Promise<void>;
}

async function runApply(
  ctx: CliContext,
  flags: { dir: string; prune?: boolean; dryRun?: boolean; yes?: boolean },
): Promise<ExitCode> {
  const dir = path.resolve(ctx.io.cwd, flags.dir);
  let contents;
  try {
    contents = await readDirectory(dir, flags.dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new UsageError(`--dir ${flags.dir} is not a directory`);
    throw err;
  }
  const local = await readLocalFiles(dir, flags.dir);
  const problems = [...contents.problems, ...local.problems];
  if (problems.length) return printProblems(ctx, problems, flags.dir);
  if (contents.files === 0 && !local.folder)
    throw new UsageError(
      `${flags.dir} holds no .yaml files and no ${FILES_FOLDER}/ folder (make some with: assay export --dir ${flags.dir})`,
    );
  const client = ctx.client();
  await requireScope(client, flags.dryRun ? 'run' : 'write', flags.dryRun ? 'apply --dry-run' : 'apply');
  const state = await fetchWorkspace(client);
  const workspaceFiles = await listFiles(client);
  const plan = computePlan(contents.resources, state.resources, { prune: flags.prune });
  if (plan.problems.length) return printProblems(ctx, plan.problems, flags.dir);
  const filePlan = computeFilePlan(local.files, workspaceFiles, { prune: flags.prune });
  for (const line of renderPlan(plan, flags.dir, filePlan)) ctx.print(line);
  for (const w of plan.warnings) ctx.note(`warning: ${w}`);
  if (flags.prune)
    for (const u of filePlan.unexportable)
      ctx.note(`warning: file ${u.name} is kept: its name cannot be a path under ${FILES_FOLDER}/ (${u.reason})`);
  // Files first (test cases may name them), their deletes last (after test cases stop naming them).
  const steps: Step[] = [
    ...filePlan.uploads.map((a) => ({
      op: a.op,
      text: describeFileAction(a),
      file: a.local?.file,
      run: () => applyFileAction(client, a),
    })),
    ...plan.actions.map((a) => ({
      op: a.op,
      text: describeAction(a),
      file: a.file,
      run: () => applyAction(client, a, state.refs),
    })),
    ...filePlan.deletes.map((a) => ({
      op: a.op,
      text: describeFileAction(a),
      run: () => applyFileAction(client, a),
    })),
  ];
  if (flags.dryRun) {
    ctx.note('Dry run: nothing was changed.');
    return EXIT.ok;
  }
  if (steps.length === 0) return EXIT.ok;
  if (!flags.yes && ctx.io.stdin.isTTY && ctx.io.stderr.isTTY && !ctx.io.env.CI) {
    if (!(await confirm(ctx, 'Apply these changes? Type "yes" to go on: '))) {
      ctx.note('Not applied: nothing was changed.');
      return EXIT.ok;
    }
  }
  const done: Step[] = [];
  for (const step of steps) {
    try {
      await step.run();
    } catch (err) {
      if (!(err instanceof CliError)) throw err;
      ctx.note(`assay: apply stopped at ${step.text}${step.file ? ` (${step.file})` : ''}: ${err.message}`);
      ctx.note(
        done.length ? `Applied before the stop: ${done.map((d) => d.text).join('; ')}` : 'Nothing had been applied.',
      );
      ctx.note(
        `Not applied: ${steps
          .slice(done.length)
          .map((d) => d.text)
          .join('; ')}`,
      );
      return err.exitCode;
    }
    done.push(step);
  }
  const n = (op: PlanAction['op']) => done.filter((a) => a.op === op).length;
  ctx.print(`Applied: ${n('create')} created, ${n('update')} updated, ${n('delete')} deleted.`);
  return EXIT.ok;
}

export const registerGitCommands: Registrar = (program, ctx, done) => {
  const exportCmd = program
    .command('export')
    .description(
      "write the workspace's environments, test cases, runners and deployments as YAML files, one per resource, and its files under DIR/files/ (docs/tests-as-files.md)",
    )
    .requiredOption('-d, --dir <dir>', 'directory to write (made when missing)')
    .option('--clean', 'remove files of resources (and workspace files) that no longer exist in the workspace');
  exportCmd.action(done(() => runExport(ctx, exportCmd.opts<{ dir: string; clean?: boolean }>())));

  const applyCmd = program
    .command('apply')
    .description(
      'make the workspace match the YAML files (and DIR/files/) in a directory: print the plan, then create, update (and with --prune delete) resources and files',
    )
    .requiredOption('-d, --dir <dir>', 'directory of resource files (as assay export writes them)')
    .option('--prune', 'delete workspace resources that no file describes, and workspace files not under DIR/files/')
    .option('--dry-run', 'print the plan and change nothing')
    .option('-y, --yes', 'do not ask for confirmation on a terminal');
  applyCmd.action(
    done(() => runApply(ctx, applyCmd.opts<{ dir: string; prune?: boolean; dryRun?: boolean; yes?: boolean }>())),
  );
};
