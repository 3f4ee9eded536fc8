/**
 * The first module of the `assay` command line: bin/assay.ts imports it before anything else, so
 * in `dist/bin/assay.js` and in the one-file bundle (`dist/cli/assay.cjs`, cli/build.ts) it
 * runs before any dependency is loaded. On a Node.js older than {@link MIN_NODE_MAJOR} it prints
 * one line (`assay: needs Node.js 22 or newer (this is v20.20.2)`) and exits 2 (docs/cli.md "Exit
 * codes": a configuration error), instead of a stack trace from a library that needs newer APIs.
 *
 * It imports nothing and uses only syntax Node 12 parses (no `?.`, `??`, private fields, …), so
 * that on an old Node this check, and not a parse error in it, is what the user sees.
 */

/** The oldest Node.js major the CLI runs on (docs/cli.md "Install"). */
export const MIN_NODE_MAJOR = 22;

/**
 * The one line to print when `version` (a `process.version` such as `v20.20.2`) is older than
 * {@link MIN_NODE_MAJOR}; `undefined` when it is new enough.
 */
export function nodeVersionProblem(version: string): string | undefined {
  const major = parseInt(String(version).replace(/^v/, ''), 10);
  if (major >= MIN_NODE_MAJOR) return undefined;
  return 'assay: needs Node.js ' + MIN_NODE_MAJOR + ' or newer (this is ' + version + ')';
}

const problem = nodeVersionProblem(process.version);
if (problem !== undefined) {
  process.stderr.write(problem + '\n');
  process.exit(2);
}
