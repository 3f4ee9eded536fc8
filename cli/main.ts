/**
 * The `assay` command line (docs/cli.md): `main(argv, io)` parses the arguments with commander,
 * runs the command and answers its exit code (cli/errors.ts `EXIT`). Errors become one line on
 * stderr, `assay: <message>`; `--help` works on every command.
 */
import { Command, CommanderError, Option } from 'commander';
import { CliContext, type CliIO, type Registrar } from './context';
import { CliError, EXIT, type ExitCode } from './errors';
import { registerRunCommands } from './commands/run';
import { registerDeployCommands } from './commands/deploy';
import { registerImportCommands } from './commands/import';
import { registerGitCommands } from './commands/files';
import { registerWorkspaceFileCommands } from './commands/workspace-files';
import { registerCompareCommands } from './commands/compare';
import { registerControlCommands } from './commands/control';

/** Version printed by `assay --version` (the package's). */
export const CLI_VERSION = '0.1.0';

/** Builds the program for `io`; exported for the help test. */
export function buildProgram(io: CliIO): { program: Command; result: { code?: ExitCode } } {
  const program = new Command('assay');
  const result: { code?: ExitCode } = {};
  const ctx = new CliContext(io, program);
  program
    .description(
      'Run Assay API tests from CI and the terminal; import Postman and OpenAPI; keep tests as files in git.',
    )
    .version(CLI_VERSION, '-V, --version')
    .addOption(new Option('--url <url>', 'Assay API address (env ASSAY_URL; default http://127.0.0.1:8080)'))
    .addOption(new Option('--api-key <key>', 'API key (env ASSAY_API_KEY)'))
    .addOption(
      new Option('--config <file>', 'JSON config file {"url", "apiKey"} (env ASSAY_CONFIG; default ./.assay.json)'),
    )
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      outputError: (s, write) => write(s.startsWith('error:') ? `assay: ${s.slice(7)}` : s),
    })
    .exitOverride()
    .addHelpText(
      'after',
      `
Exit codes: 0 passed · 1 tests failed · 2 usage or configuration error · 3 the run could not complete
(timed out, cancelled, failed) or the service could not be reached. Docs: docs/cli.md`,
    );
  const done = (action: () => Promise<ExitCode>) => async () => {
    result.code = await action();
  };
  for (const register of [
    registerRunCommands,
    registerControlCommands,
    registerDeployCommands,
    registerImportCommands,
    registerGitCommands,
    registerWorkspaceFileCommands,
    registerCompareCommands,
  ] satisfies Registrar[]) {
    register(program, ctx, done);
  }
  // Every subcommand reports errors the same way and exits through main().
  const configure = (cmd: Command) => {
    cmd.exitOverride().showHelpAfterError('(run with --help for usage)').configureOutput(program.configureOutput());
    cmd.commands.forEach(configure);
  };
  program.commands.forEach(configure);
  return { program, result };
}

/** Runs the CLI; answers the exit code. Never throws. */
export async function main(argv: string[], io: CliIO): Promise<ExitCode> {
  const { program, result } = buildProgram(io);
  try {
    await program.parseAsync(argv, { from: 'user' });
    if (result.code === undefined) {
      // A command group without a subcommand (`assay deploy`): show its help.
      program.outputHelp();
      return argv.length === 0 ? EXIT.usage : EXIT.ok;
    }
    return result.code;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help')
        return EXIT.ok;
      return EXIT.usage;
    }
    if (err instanceof CliError) {
      io.stderr.write(`assay: ${err.message}\n`);
      return err.exitCode;
    }
    io.stderr.write(`assay: internal error: ${(err as Error)?.stack ?? String(err)}\n`);
    return EXIT.incomplete;
  }
}
