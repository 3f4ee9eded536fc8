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

main(process.argv.slice(2), io).then(
  (code) => {
    process.exitCode = code;
    // Let stdout drain (a piped report), then leave even if a socket lingers.
    setImmediate(() => process.exit(code));
  },
  (err: unknown) => {
    process.stderr.write(`assay: ${String(err)}\n`);
    process.exit(3);
  },
);
