#!/usr/bin/env node
/**
 * The `assay` command line (docs/cli.md): `npx assay --help` in this package, or the single-file
 * build served by the API at `/cli/assay.cjs` (`node assay.cjs --help`, needs only Node 22 or 24).
 */
// First, before anything else is loaded: on a Node.js older than 22, one line and exit 2.
import '../cli/node-check';
import { main } from '../cli/main';

const io = {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  cwd: process.cwd(),
  onSignal(handler: (signal: 'SIGINT' | 'SIGTERM') => void) {
    process.on('SIGINT', handler);
    process.on('SIGTERM', handler);
    return () => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    };
  },
};

/** Resolves once what was written to `stream` before has been handed to the OS (a pipe holds 64 KiB). */
function drained(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.writableLength === 0) resolve();
    else stream.write('', () => resolve());
  });
}

main(process.argv.slice(2), io).then(
  (code) => {
    process.exitCode = code;
    // Let stdout and stderr drain (a piped --json report runs to MiBs: exiting at once cut it at
    // the pipe's 64 KiB), then leave even if a socket lingers; a reader that went away is not
    // waited for past 10 s.
    void Promise.race([
      Promise.all([drained(process.stdout), drained(process.stderr)]),
      new Promise((resolve) => setTimeout(resolve, 10_000).unref()),
    ]).then(() => process.exit(code));
  },
  (err: unknown) => {
    process.stderr.write(`assay: ${String(err)}\n`);
    process.exit(3);
  },
);
