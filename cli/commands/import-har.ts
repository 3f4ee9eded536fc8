/**
 * `assay import har FILE --name NAME [options]` (docs/cli.md "Importing"): one test case from the
 * requests a HAR 1.2 file (a browser's DevTools export) recorded. The conversion is
 * cli/importers/har.ts; this file reads the file and saves the outcome through the REST API
 * (docs/api.md):
 *
 * 1. the test case, matched by `--folder` and `--name` (created, updated with PUT keeping its
 *    hooks, or unchanged: importing again never duplicates);
 * 2. `--environment ENV`, created or merge-patched with `base` (the first kept origin) and the
 *    credential headers' values as secret variables (`{"value": …, "secret": true}`); without it
 *    the report lists the variables to set;
 * 3. with `--files-dir DIR`, multipart file parts' files `DIR/<fileName>` uploaded with
 *    `PUT /v1/files/{name}` (cli/workspace-files.ts).
 *
 * Output: the report on stderr (one line per entry, then what was saved); `--json` prints it as
 * JSON ({@link HarImportReport}) on stdout; `--dry-run` saves nothing and prints the test case
 * document on stdout (without `--json`). Exit 0; 2 for a file that cannot be read, is over
 * {@link MAX_HAR_BYTES}, is not a HAR or imports no request, a bad flag, a refused request, and
 * with `--strict` when any entry was not carried in full (then nothing is saved). Secret values
 * never appear in the output.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { ApiProblem, type AssayClient } from '../client';
import type { CliContext } from '../context';
import { EXIT, UsageError, type ExitCode } from '../errors';
import {
  BASE_VARIABLE,
  CLIENT_HEADERS,
  HarFormatError,
  MAX_HAR_BYTES,
  parseHar,
  testCaseFromHar,
  workspaceFileName,
  type HarCounts,
  type HarEntryReport,
  type HarImportPlan,
  type HarTestCaseBody,
} from '../importers/har';
import { formatSize, guessContentType, uploadFile } from '../workspace-files';

/** Flags of `assay import har`. */
interface HarFlags {
  name: string;
  folder?: string;
  environment?: string;
  includeHost: string[];
  excludeStatic?: boolean;
  keepHeader: string[];
  filesDir?: string;
  strict?: boolean;
  dryRun?: boolean;
  json?: boolean;
}

/** What happened (or, with --dry-run, would happen) to a record; `not stored` under --strict. */
export type HarImportAction = 'created' | 'updated' | 'unchanged' | 'not stored';

/** The import report (`--json`; docs/cli.md "Importing"). Secret values are never in it. */
export interface HarImportReport {
  file: string;
  /** `log.creator` as `name version`. */
  creator: string;
  dryRun: boolean;
  /** True when the import saved anything (false on --dry-run and on --strict refusals). */
  stored: boolean;
  /** The origin written as `{{base}}`. */
  base: string | null;
  testCase: { name: string; folder: string; nodes: number; action: HarImportAction; id?: string };
  environment?: { name: string; action: HarImportAction };
  /** The variables the test case uses: `base` (its value) and the secrets (never their values). */
  variables: Array<{ name: string; secret: boolean; value?: string; from: string; entries: number[] }>;
  /** `--files-dir`: the files multipart parts send. */
  files: Array<{ fileName: string; file: string; entries: number[]; action: HarImportAction; size?: number }>;
  entries: HarEntryReport[];
  counts: HarCounts;
}

interface StoredTestCase {
  id: string;
  name: string;
  folder: string;
  description: string;
  tags: string[];
  flow: unknown;
  hooks?: unknown;
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

/** Reads FILE (at most {@link MAX_HAR_BYTES}); @throws UsageError naming it. */
function readHar(file: string, cwd: string): string {
  const full = path.resolve(cwd, file);
  let size: number;
  try {
    const stat = fs.statSync(full);
    if (stat.isDirectory()) throw new UsageError(`${file}: is a directory`);
    size = stat.size;
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(`${file}: ${code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
  if (size > MAX_HAR_BYTES)
    throw new UsageError(`${file} is ${formatSize(size)}; a HAR over ${formatSize(MAX_HAR_BYTES)} is not imported`);
  return fs.readFileSync(full, 'utf8');
}

/** The test case as stored (matched by folder and name), or undefined. */
async function findTestCase(client: AssayClient, body: HarTestCaseBody): Promise<StoredTestCase | undefined> {
  return (await client.listAll<StoredTestCase>('/v1/test-cases', { folder: body.folder })).find(
    (tc) => tc.folder === body.folder && tc.name === body.name,
  );
}

const sameTestCase = (old: StoredTestCase, body: HarTestCaseBody) =>
  old.description === body.description &&
  canonical([...old.tags].sort()) === canonical([...body.tags].sort()) &&
  canonical(old.flow) === canonical(body.flow);

/** Saves the test case: PUT over the stored one (its hooks kept), or POST. */
async function saveTestCase(
  client: AssayClient,
  body: HarTestCaseBody,
  old: StoredTestCase | undefined,
): Promise<{ action: HarImportAction; id: string }> {
  if (old) {
    if (sameTestCase(old, body)) return { action: 'unchanged', id: old.id };
    const saved = await client.request<StoredTestCase>('PUT', `/v1/test-cases/${encodeURIComponent(old.id)}`, {
      body: old.hooks ? { ...body, hooks: old.hooks } : body,
    });
    return { action: 'updated', id: saved.id };
  }
  const saved = await client.request<StoredTestCase>('POST', '/v1/test-cases', { body });
  return { action: 'created', id: saved.id };
}

/** Creates ENV with the variables, or merge-patches them in (other variables stay). */
async function syncEnvironment(
  client: AssayClient | null,
  name: string,
  plan: HarImportPlan,
  dry: boolean,
): Promise<HarImportAction> {
  const variables: Record<string, unknown> = {};
  if (plan.base) variables[BASE_VARIABLE] = plan.base;
  for (const s of plan.secrets) variables[s.name] = { value: s.value, secret: true };
  let env: { variables?: Record<string, unknown> } | null = null;
  if (client)
    try {
      env = await client.get(`/v1/environments/${encodeURIComponent(name)}`);
    } catch (err) {
      if (!(err instanceof ApiProblem) || err.status !== 404) throw err;
    }
  // Secrets are answered as "***": a HAR with secrets always writes them.
  if (env && !plan.secrets.length && env.variables?.[BASE_VARIABLE] === plan.base) return 'unchanged';
  if (!dry && client) {
    if (env) await client.request('PATCH', `/v1/environments/${encodeURIComponent(name)}`, { body: { variables } });
    else
      await client.request('POST', '/v1/environments', {
        body: { name, description: 'made by assay import har', variables },
      });
  }
  return env ? 'updated' : 'created';
}

const pad = (s: string, n: number) => (s.length >= n ? `${s} ` : s + ' '.repeat(n - s.length));

/** The report on stderr. */
function printReport(ctx: CliContext, r: HarImportReport): void {
  const would = r.dryRun ? 'would be ' : '';
  ctx.note(
    `${r.dryRun ? 'Dry run: nothing saved. ' : ''}${r.file}${r.creator ? ` (${r.creator})` : ''}: ${r.counts.entries} entries → test case "${r.testCase.name}"${r.testCase.folder ? ` in ${r.testCase.folder}` : ''}, ${r.testCase.nodes} requests`,
  );
  for (const e of r.entries) {
    const what =
      e.outcome === 'redirect'
        ? `followed by entry ${e.redirectOf}'s request`
        : e.outcome === 'imported'
          ? `→ ${e.status ?? 'no response'}${e.dropped.length ? ` (${e.dropped.length} headers dropped)` : ''}`
          : '';
    ctx.note(`  #${pad(String(e.entry), 5)}${pad(e.outcome, 10)}${e.method} ${e.url.slice(0, 120)} ${what}`.trimEnd());
    for (const n of e.notCarried) ctx.note(`         not carried: ${n}`);
  }
  if (r.counts.redirects)
    ctx.note(
      `Redirects recorded as separate entries: the first request of each is kept with followRedirects (the browser followed them), asserting the last status.`,
    );
  const secrets = r.variables.filter((v) => v.secret);
  if (r.environment)
    ctx.note(
      `Environment ${r.environment.name}: ${r.variables.map((v) => (v.secret ? `${v.name} (secret)` : `${v.name} = ${v.value}`)).join(', ')} (${would}${r.environment.action})`,
    );
  else if (r.variables.length) {
    ctx.note('Set these variables in the environment you run it with (or pass --environment):');
    for (const v of r.variables)
      ctx.note(`  ${pad(v.name, 22)}${v.secret ? `secret: ${v.from}, entries ${v.entries.join(', ')}` : v.value}`);
  }
  if (secrets.length && r.environment)
    for (const v of secrets) ctx.note(`  ${pad(v.name, 22)}${v.from}, entries ${v.entries.join(', ')}`);
  for (const f of r.files)
    ctx.note(
      `  file ${f.file} from ${f.fileName}${f.size !== undefined ? ` (${formatSize(f.size)})` : ''}: ${would}${f.action}`,
    );
  const c = r.counts;
  ctx.note(
    `${c.imported} imported, ${c.redirects} redirects followed, ${c.static} static, ${c.otherHosts} other hosts, ${c.cut} cut, ${c.skipped} skipped; ${c.notCarried} not carried in full; test case ${r.testCase.action === 'not stored' ? 'not stored' : `${would}${r.testCase.action}`}`,
  );
}

/** Adds `har` to the `import` group (cli/commands/import.ts). */
export function registerHarImport(
  group: Command,
  ctx: CliContext,
  done: (action: () => Promise<ExitCode>) => () => Promise<void>,
): void {
  const collect = (value: string, previous: string[]) => [...previous, value];
  const cmd = group
    .command('har')
    .description('make one test case of the requests a HAR file (browser DevTools export) recorded')
    .argument('<file>', 'the HAR 1.2 file (JSON, at most 50 MiB)')
    .requiredOption('--name <name>', 'the test case name')
    .option('--folder <folder>', 'the folder of the test case (default: the top level)')
    .option('--environment <name>', 'create or merge-patch this environment with base and the secret credentials')
    .option('--include-host <host>', 'keep only requests to this host, or host:port (repeatable)', collect, [])
    .option('--exclude-static', 'leave out images, fonts, CSS, JavaScript and media')
    .option('--keep-header <name>', 'keep this browser-only header, e.g. user-agent (repeatable)', collect, [])
    .option('--files-dir <dir>', 'where the recorded multipart files are: uploaded as workspace files')
    .option('--strict', 'when anything could not be carried over, print the report, save nothing and exit 2')
    .option('--dry-run', 'save nothing: report, and print the test case document on stdout')
    .option('--json', 'print the import report as JSON on stdout');
  cmd.action(
    done(async () => {
      const flags = cmd.opts<HarFlags>();
      const file = cmd.args[0]!;
      if (!flags.name.trim() || flags.name.length > 200) throw new UsageError('--name must be 1 to 200 characters');
      if (flags.folder !== undefined && !flags.folder.split('/').some((s) => s.trim()))
        throw new UsageError('--folder must name a folder');
      for (const h of flags.includeHost)
        if (!/^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/.test(h))
          throw new UsageError(`--include-host "${h}" is not a host name or host:port`);
      for (const h of flags.keepHeader)
        if (CLIENT_HEADERS.has(h.toLowerCase()) || h.startsWith(':'))
          throw new UsageError(`--keep-header ${h}: the client sets it when sending; it cannot be kept`);
      let filesDir: string | undefined;
      if (flags.filesDir !== undefined) {
        filesDir = path.resolve(ctx.io.cwd, flags.filesDir);
        if (!fs.statSync(filesDir, { throwIfNoEntry: false })?.isDirectory())
          throw new UsageError(`--files-dir ${flags.filesDir}: not a directory`);
      }
      const fileIn = (fileName: string) => path.join(filesDir!, path.basename(fileName.replace(/\\/g, '/')));
      let har;
      try {
        har = parseHar(readHar(file, ctx.io.cwd));
      } catch (err) {
        if (err instanceof HarFormatError) throw new UsageError(`${file}: ${err.message}`);
        throw err;
      }
      const plan = testCaseFromHar(har, {
        name: flags.name,
        folder: flags.folder,
        includeHosts: flags.includeHost,
        excludeStatic: flags.excludeStatic,
        keepHeaders: flags.keepHeader,
        source: path.basename(file),
        fileAvailable: filesDir
          ? (fileName) =>
              workspaceFileName(fileName) !== null &&
              Boolean(fs.statSync(fileIn(fileName), { throwIfNoEntry: false })?.isFile())
          : undefined,
      });
      const dry = Boolean(flags.dryRun);
      const refused = Boolean(flags.strict) && plan.counts.notCarried > 0;
      const report: HarImportReport = {
        file,
        creator: plan.creator,
        dryRun: dry,
        stored: false,
        base: plan.base,
        testCase: {
          name: plan.testCase.name,
          folder: plan.testCase.folder,
          nodes: plan.testCase.flow.length,
          action: 'not stored',
        },
        variables: [
          ...(plan.base
            ? [{ name: BASE_VARIABLE, secret: false, value: plan.base, from: 'the first kept origin', entries: [] }]
            : []),
          ...plan.secrets.map((s) => ({
            name: s.name,
            secret: true,
            from: `the ${s.header} header`,
            entries: s.entries,
          })),
        ],
        files: plan.uploads.map((u) => ({
          fileName: u.fileName,
          file: u.file,
          entries: u.entries,
          action: 'not stored' as HarImportAction,
          size: fs.statSync(fileIn(u.fileName)).size,
        })),
        entries: plan.entries,
        counts: plan.counts,
      };
      const finish = (code: ExitCode): ExitCode => {
        printReport(ctx, report);
        if (flags.json) ctx.print(JSON.stringify(report, null, 2));
        else if (dry && !refused) ctx.print(JSON.stringify(plan.testCase, null, 2));
        return code;
      };
      if (!plan.testCase.flow.length) {
        finish(EXIT.usage);
        throw new UsageError(`${file}: no request to import (${plan.counts.entries} entries)`);
      }
      if (flags.environment) report.environment = { name: flags.environment, action: 'not stored' };
      if (refused) {
        ctx.note(`--strict: ${plan.counts.notCarried} entries were not carried in full; nothing was saved`);
        return finish(EXIT.usage);
      }
      // A dry run compares with what is stored when a key is configured, and plans from scratch without one.
      const client = dry && !ctx.settings().apiKey ? null : ctx.client();
      const old = client ? await findTestCase(client, plan.testCase) : undefined;
      if (dry) {
        report.testCase.action = old ? (sameTestCase(old, plan.testCase) ? 'unchanged' : 'updated') : 'created';
        if (old) report.testCase.id = old.id;
        if (flags.environment)
          report.environment!.action = await syncEnvironment(client, flags.environment, plan, true);
        for (const f of report.files) f.action = 'created';
        return finish(EXIT.ok);
      }
      const saved = await saveTestCase(client!, plan.testCase, old);
      report.stored = true;
      report.testCase.action = saved.action;
      report.testCase.id = saved.id;
      if (flags.environment) report.environment!.action = await syncEnvironment(client, flags.environment, plan, false);
      for (const f of report.files) {
        const upload = plan.uploads.find((u) => u.fileName === f.fileName)!;
        const bytes = fs.readFileSync(fileIn(f.fileName));
        const answer = await uploadFile(client!, f.file, bytes, upload.contentType ?? guessContentType(f.fileName));
        f.action = answer.created ? 'created' : 'updated';
      }
      return finish(EXIT.ok);
    }),
  );
}
