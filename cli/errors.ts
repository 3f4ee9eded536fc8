/**
 * Exit codes of the `assay` command line (docs/cli.md "Exit codes"), chosen so a CI step can tell
 * a red build from a broken pipeline:
 *
 * | code | meaning |
 * |---|---|
 * | 0 | done; for a run: it completed and every test case passed |
 * | 1 | the run completed and at least one test case failed |
 * | 2 | usage or configuration error: a bad flag, no API key, an unknown runner, a refused request |
 * | 3 | the run could not complete: it timed out, was cancelled or failed; the service was unreachable |
 */
export const EXIT = {
  ok: 0,
  testsFailed: 1,
  usage: 2,
  incomplete: 3,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An error the CLI prints as one line (`assay: <message>`) before exiting with `exitCode`. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode = EXIT.usage,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** A bad flag or argument (exit code 2). */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, EXIT.usage);
    this.name = 'UsageError';
  }
}
