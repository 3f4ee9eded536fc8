/**
 * `assay run`, `assay wait` and `assay report` (docs/cli.md):
 *
 * - `assay run --runner NAME --env NAME [--var k=v …] [--timeout S] [--durability node|testCase]
 *   [--concurrency N] [--bail [N]] [--max-in-flight N] [--rps N] [--folder PATH] [--tag T …] [--wait]
 *   [--reporter cli,json,junit,html] [--out DIR]` starts a run (`POST /v1/runs`, sent with an `Idempotency-Key` so a retried call never starts a
 *   second run) and, with `--wait`, follows it (cli/follow.ts) and reports it;
 * - `assay wait RUN_ID` follows a run started elsewhere (a webhook, a schedule, the console);
 * - `assay report RUN_ID` writes the reports of a run that has ended;
 * - `assay run --rerun-failed RUN_ID`, `assay replay RUN_ID`, `assay resume RUN_ID [--test-case ID]`
 *   start a run made from another (docs/history.md "Rerun, replay, resume") and follow it with `--wait`;
 * - `assay run pause|resume|stop|scale RUN_ID` steer a running performance run (cli/commands/control.ts).
 *
 * Exit codes (cli/errors.ts): 0 passed, 1 tests failed, 2 usage, 3 could not complete.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Option, type Command } from 'commander';
import { renderCli, writeReports } from '../reports/index';
import { REPORTERS, type ReporterName, type ResultsDocument, type RunDocument, type RunLinks } from '../reports/types';
import type { AssayClient } from '../client';
import type { CliContext } from '../context';
import { EXIT, UsageError, type ExitCode } from '../errors';
import { followRun } from '../follow';
import type { Registrar } from '../context';
import { DURABILITIES, MAX_CONCURRENCY, type Durability } from '../../src/domain/types';

/** Options every command that can wait for a run shares. */
export interface WaitFlags {
  wait?: boolean;
  reporter: string;
  out: string;
  pollInterval?: string;
  detachOnInterrupt?: boolean;
}

/** `--var k=v` collected into a map; the value is text (`--var n=5` sends "5"). */
export function collectVar(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new UsageError(`--var "${value}" must look like name=value`);
  return { ...previous, [value.slice(0, eq)]: value.slice(eq + 1) };
}

/**
 * The run `variables` body: `--var` values as text, `--secret-var` values as secret variables
 * (`{"value": …, "secret": true}`, docs/secrets.md: masked in results, logs and reports).
 * Undefined when neither was given.
 */
export function runVariables(
  plain: Record<string, string> | undefined,
  secret: Record<string, string> | undefined,
): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = { ...(plain ?? {}) };
  for (const [k, v] of Object.entries(secret ?? {})) out[k] = { value: v, secret: true };
  return Object.keys(out).length ? out : undefined;
}

/** Parses `--reporter cli,junit`; @throws UsageError naming an unknown reporter. */
export function parseReporters(text: string): ReporterName[] {
  const names = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const n of names)
    if (!(REPORTERS as readonly string[]).includes(n))
      throw new UsageError(`unknown reporter "${n}" (choose from ${REPORTERS.join(', ')})`);
  return [...new Set(names)] as ReporterName[];
}

function positiveInt(flag: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n <= 0)
      throw new UsageError(`${flag} must be a whole number of seconds above 0, not "${value}"`);
    return n;
  };
}

/** A whole number within [min, max] for `flag` (`--concurrency`, `--bail`, `--max-in-flight`). */
function wholeNumber(flag: string, min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, not "${value}"`);
    return n;
  };
}

/** `--rps`: requests per second above 0, at most 10,000. */
function rate(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || n > 10000)
    throw new UsageError(`--rps must be a number above 0 and at most 10000, not "${value}"`);
  return n;
}

/** `--tag` collected into a list. */
function collectTag(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** Parses `--durability node|testCase` (docs/durability.md "Durability modes"); @throws UsageError for another value. */
function durabilityOption(value: string): Durability {
  if (!(DURABILITIES as readonly string[]).includes(value))
    throw new UsageError(`--durability must be one of ${DURABILITIES.join(', ')}, not "${value}"`);
  return value as Durability;
}

/** Adds `--wait`, `--reporter`, `--out`, `--poll-interval`, `--detach-on-interrupt` to `cmd`. */
export function addWaitOptions(cmd: Command, waitByDefault = false): Command {
  if (!waitByDefault) cmd.option('-w, --wait', 'follow the run until it ends, report it, and exit with its outcome');
  return cmd
    .option('--reporter <list>', `reports to make when the run ends: ${REPORTERS.join(', ')} (comma-separated)`, 'cli')
    .option('-o, --out <dir>', 'folder for report files (results.json, junit.xml, report.html)', 'assay-reports')
    .addOption(
      new Option('--poll-interval <seconds>', 'seconds between status polls (default: 0.2 for the first 10 s, then 1)'),
    )
    .option(
      '--detach-on-interrupt',
      'on SIGINT/SIGTERM without a terminal, leave the run going instead of cancelling it',
    );
}

/** The console page and Temporal link of a run. */
export function runLinks(client: AssayClient, run: RunDocument): RunLinks {
  return {
    console: `${client.baseUrl}/runs/${run.runId}`,
    temporal: run.links?.temporal,
    results: `${client.baseUrl}/v1/runs/${run.runId}/results`,
  };
}

/** The exit code of a run that ended (docs/cli.md "Exit codes"). */
export function exitCodeOf(run: Pick<RunDocument, 'status' | 'result'>): ExitCode {
  if (run.status === 'completed') return run.result === 'passed' ? EXIT.ok : EXIT.testsFailed;
  return EXIT.incomplete;
}

/** Fetches the results, prints the CLI summary, writes the file reports; answers the exit code. */
export async function reportRun(
  ctx: CliContext,
  client: AssayClient,
  run: RunDocument,
  flags: Pick<WaitFlags, 'reporter' | 'out'>,
): Promise<ExitCode> {
  const reporters = parseReporters(flags.reporter);
  const results = await client.get<ResultsDocument>(`/v1/runs/${run.runId}/results`);
  const links = runLinks(client, run);
  const input = { run, results, links };
  if (reporters.includes('cli'))
    ctx.stdout.write(renderCli(input, { color: Boolean(ctx.stdout.isTTY) && !ctx.io.env.NO_COLOR }));
  else if (run.status === 'failed') ctx.note(`Run ${run.runId} failed: ${run.error ?? 'no reason given'}`);
  const files = await writeReports(input, reporters, path.resolve(ctx.io.cwd, flags.out));
  for (const f of files) ctx.note(`Report written: ${path.relative(ctx.io.cwd, f) || f}`);
  return exitCodeOf(run);
}

/** Follows `run` (when asked) and reports it; shared by `run`, `wait`, `deploy run`, `trigger`. */
export async function waitAndReport(
  ctx: CliContext,
  client: AssayClient,
  started: RunDocument,
  flags: WaitFlags,
): Promise<ExitCode> {
  const reporters = parseReporters(flags.reporter);
  const pollS = flags.pollInterval === undefined ? undefined : Number(flags.pollInterval);
  if (pollS !== undefined && !(pollS >= 0.05 && pollS <= 60))
    throw new UsageError(`--poll-interval must be between 0.05 and 60 seconds, not "${flags.pollInterval}"`);
  const links = runLinks(client, started);
  ctx.note(`Run ${started.runId} (${started.runner} on ${started.environment})`);
  ctx.note(`  console:  ${links.console}`);
  if (links.temporal) ctx.note(`  temporal: ${links.temporal}`);
  const outcome = await followRun(ctx, client, started, {
    pollMs: pollS === undefined ? undefined : pollS * 1000,
    detachOnInterrupt: flags.detachOnInterrupt,
  });
  if (outcome.kind === 'detached') {
    ctx.note(`assay: ${outcome.reason}`);
    return EXIT.incomplete;
  }
  return reportRun(ctx, client, outcome.run, { reporter: reporters.join(','), out: flags.out });
}

/** Prints what a started run is, for callers that do not wait: the run id alone on stdout. */
export function announceStarted(ctx: CliContext, client: AssayClient, run: RunDocument): void {
  const links = runLinks(client, run);
  ctx.print(run.runId);
  ctx.note(`Started run ${run.runId} (${run.runner} on ${run.environment}); follow it with: assay wait ${run.runId}`);
  ctx.note(`  console:  ${links.console}`);
  if (links.temporal) ctx.note(`  temporal: ${links.temporal}`);
}

/**
 * Starts a run made from run `runId` (`POST /v1/runs/{id}/rerun|replay|resume`, with an
 * `Idempotency-Key`), then announces it or, with `--wait`, follows and reports it.
 */
async function startFromRun(
  ctx: CliContext,
  kind: 'rerun' | 'replay' | 'resume',
  runId: string,
  body: Record<string, unknown>,
  flags: WaitFlags & { idempotencyKey?: string },
): Promise<ExitCode> {
  const client = ctx.client();
  const started = await client.request<RunDocument>('POST', `/v1/runs/${encodeURIComponent(runId)}/${kind}`, {
    body,
    headers: { 'idempotency-key': flags.idempotencyKey ?? randomUUID() },
    retryNetwork: true,
  });
  if (!flags.wait) {
    announceStarted(ctx, client, started);
    return EXIT.ok;
  }
  // The new run's document carries its timeout (the origin's), which following it needs.
  const run = await client.get<RunDocument>(`/v1/runs/${encodeURIComponent(started.runId)}`);
  return waitAndReport(ctx, client, run, flags);
}

export const registerRunCommands: Registrar = (program, ctx, done) => {
  addWaitOptions(
    program
      .command('run')
      .description('start a run of a runner against an environment (POST /v1/runs)')
      .option('-r, --runner <name>', 'runner to run (required unless --rerun-failed)')
      .option('-e, --env <name>', 'environment to run against (required unless --rerun-failed)')
      .option(
        '--rerun-failed <runId>',
        'rerun only the test cases that failed in that run, with its runner, environment and variables (POST /v1/runs/{id}/rerun)',
      )
      .option('--var <name=value>', 'run variable overriding the environment (repeatable)', collectVar)
      .option(
        '--secret-var <name=value>',
        'secret run variable: masked in results, logs and reports (repeatable; prefer reading it from an environment variable: --secret-var "token=$TOKEN")',
        collectVar,
      )
      .option('-t, --timeout <seconds>', 'run timeout in seconds (server default 1800)', positiveInt('--timeout'))
      .option(
        '--durability <mode>',
        `durability mode of this run: ${DURABILITIES.join(' or ')} (default: the deployment's, else the runner's)`,
        durabilityOption,
      )
      .option(
        '-c, --concurrency <n>',
        `test cases under way at once, 1 to ${MAX_CONCURRENCY} (default: the deployment's, else the runner's, else 1; docs/parallel.md)`,
        wholeNumber('--concurrency', 1, MAX_CONCURRENCY),
      )
      .option(
        '--bail [failures]',
        'stop starting test cases after this many failed (default 1 when given without a number); the rest are reported skipped',
        wholeNumber('--bail', 0, 100000),
      )
      .option(
        '--max-in-flight <n>',
        'at most this many requests in flight per origin, across workers',
        wholeNumber('--max-in-flight', 1, 1000),
      )
      .option('--rps <n>', 'at most this many requests started per second per origin, across workers', rate)
      .option('--folder <path>', "run only the runner's test cases in this folder or below it")
      .option('--tag <tag>', "run only the runner's test cases carrying this tag (repeatable: every tag)", collectTag)
      .option('--idempotency-key <key>', 'starts at most one run per key within 24 h (default: a new UUID per call)'),
  ).action(
    done(async () => {
      const cmd = program.commands.find((c) => c.name() === 'run')!;
      const flags = cmd.opts<
        WaitFlags & {
          runner?: string;
          env?: string;
          rerunFailed?: string;
          var?: Record<string, string>;
          secretVar?: Record<string, string>;
          timeout?: number;
          durability?: Durability;
          concurrency?: number;
          bail?: number | true;
          maxInFlight?: number;
          rps?: number;
          folder?: string;
          tag?: string[];
          idempotencyKey?: string;
        }
      >();
      parseReporters(flags.reporter);
      if (flags.rerunFailed !== undefined) {
        if (
          flags.runner ||
          flags.env ||
          flags.var ||
          flags.secretVar ||
          flags.timeout !== undefined ||
          flags.durability !== undefined ||
          flags.folder !== undefined ||
          flags.tag !== undefined
        )
          throw new UsageError(
            '--rerun-failed takes the runner, environment, variables, timeout and durability of the run it reruns: drop --runner, --env, --var, --secret-var, --timeout, --durability, --folder and --tag',
          );
        return startFromRun(ctx, 'rerun', flags.rerunFailed, { only: 'failed' }, flags);
      }
      // As commander says it of a required option (they are required unless --rerun-failed is given).
      if (!flags.runner) throw new UsageError("required option '-r, --runner <name>' not specified");
      if (!flags.env) throw new UsageError("required option '-e, --env <name>' not specified");
      const client = ctx.client();
      const body: Record<string, unknown> = { runner: flags.runner, environment: flags.env };
      if (flags.timeout !== undefined) body.timeout = flags.timeout;
      if (flags.durability !== undefined) body.durability = flags.durability;
      if (flags.concurrency !== undefined) body.concurrency = flags.concurrency;
      if (flags.bail !== undefined) body.bail = flags.bail === true ? 1 : flags.bail;
      if (flags.maxInFlight !== undefined || flags.rps !== undefined)
        body.originLimits = {
          ...(flags.maxInFlight !== undefined ? { maxInFlight: flags.maxInFlight } : {}),
          ...(flags.rps !== undefined ? { requestsPerSecond: flags.rps } : {}),
        };
      if (flags.folder !== undefined) body.folder = flags.folder;
      if (flags.tag?.length) body.tags = flags.tag;
      const variables = runVariables(flags.var, flags.secretVar);
      if (variables) body.variables = variables;
      const started = await client.request<RunDocument>('POST', '/v1/runs', {
        body,
        headers: { 'idempotency-key': flags.idempotencyKey ?? randomUUID() },
        retryNetwork: true,
      });
      if (!flags.wait) {
        announceStarted(ctx, client, started);
        return EXIT.ok;
      }
      return waitAndReport(ctx, client, { ...started, timeout: flags.timeout ?? started.timeout ?? 1800 }, flags);
    }),
  );

  for (const kind of ['replay', 'resume'] as const) {
    const cmd = addWaitOptions(
      program
        .command(kind)
        .description(
          kind === 'replay'
            ? "run a past run's frozen plan again, exactly, even after its test cases changed (POST /v1/runs/{id}/replay)"
            : 'resume a failed run from its first failed node with the state it had there (POST /v1/runs/{id}/resume)',
        )
        .argument('<runId>', 'the run (run_…)'),
    );
    if (kind === 'resume')
      cmd.option(
        '--test-case <id>',
        'the failed test case to resume (default: the first failed one with a recorded state)',
      );
    cmd.option('--idempotency-key <key>', 'starts at most one run per key within 24 h (default: a new UUID per call)');
    cmd.action(
      done(async () => {
        const flags = cmd.opts<WaitFlags & { testCase?: string; idempotencyKey?: string }>();
        parseReporters(flags.reporter);
        const body = flags.testCase ? { testCaseId: flags.testCase } : {};
        return startFromRun(ctx, kind, cmd.args[0]!, body, flags);
      }),
    );
  }

  addWaitOptions(
    program
      .command('wait')
      .description('follow a run until it ends, report it and exit with its outcome')
      .argument('<runId>', 'the run (run_…)'),
    true,
  ).action(
    done(async () => {
      const cmd = program.commands.find((c) => c.name() === 'wait')!;
      const client = ctx.client();
      const run = await client.get<RunDocument>(`/v1/runs/${encodeURIComponent(cmd.args[0]!)}`);
      return waitAndReport(ctx, client, run, cmd.opts<WaitFlags>());
    }),
  );

  program
    .command('report')
    .description('write the reports of a run that has ended')
    .argument('<runId>', 'the run (run_…)')
    .option('--reporter <list>', `reports: ${REPORTERS.join(', ')}`, 'cli')
    .option('-o, --out <dir>', 'folder for report files', 'assay-reports')
    .action(
      done(async () => {
        const cmd = program.commands.find((c) => c.name() === 'report')!;
        const client = ctx.client();
        const run = await client.get<RunDocument>(`/v1/runs/${encodeURIComponent(cmd.args[0]!)}`);
        if (run.status !== 'completed' && run.status !== 'failed')
          throw new UsageError(
            `run ${run.runId} is ${run.status}; report it once it has ended (assay wait ${run.runId})`,
          );
        return reportRun(ctx, client, run, cmd.opts<{ reporter: string; out: string }>());
      }),
    );
};
