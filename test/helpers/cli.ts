/**
 * Runs the built `assay` command line (dist/bin/assay.js) as a child process, the way CI does:
 * arguments, environment (ASSAY_URL / ASSAY_API_KEY of a test app), working directory; answers its
 * exit code and what it wrote. stderr and stdout are not TTYs here, so progress is plain lines.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { TestApp } from './app';

export const ASSAY_BIN = path.resolve(__dirname, '../../bin/assay.js');

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** The stderr match that made `signalWhen` send its signal, if it did. */
  signalledOn?: RegExpExecArray;
}

export interface CliOptions {
  /** Sets ASSAY_URL and ASSAY_API_KEY from the app (unless `env` overrides them). */
  app?: Pick<TestApp, 'url' | 'key'>;
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Text written to stdin, then closed. */
  input?: string;
  /** Called with the child once started (to send it a signal). */
  onSpawn?: (child: ChildProcess) => void;
  /** Sends `signal` to the CLI the first time its stderr so far matches `pattern` (then `CliRun.signalledOn` holds the match). */
  signalWhen?: { pattern: RegExp; signal: NodeJS.Signals };
  /** Another build of the CLI to run (e.g. the single-file bundle); default dist/bin/assay.js. */
  bin?: string;
  /** The Node.js binary to run it with (e.g. from scripts/ensure-node.sh); default the test's own. */
  node?: string;
  /** Kills the child (SIGKILL) after this long; default 120 s. */
  timeoutMs?: number;
}

/** Runs `assay <args>`; resolves when it exits. */
export function runCli(args: string[], options: CliOptions = {}): Promise<CliRun> {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, NODE_OPTIONS: '' };
  if (options.app) {
    env.ASSAY_URL = options.app.url;
    env.ASSAY_API_KEY = options.app.key;
  }
  for (const [k, v] of Object.entries(options.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return new Promise((resolve, reject) => {
    const child = spawn(options.node ?? process.execPath, ['--enable-source-maps', options.bin ?? ASSAY_BIN, ...args], {
      cwd: options.cwd ?? process.cwd(),
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let signalledOn: RegExpExecArray | undefined;
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      const when = options.signalWhen;
      if (when && !signalledOn) {
        const m = when.pattern.exec(stderr);
        if (m) {
          signalledOn = m;
          child.kill(when.signal);
        }
      }
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, signalledOn });
    });
    if (options.input !== undefined) child.stdin.end(options.input);
    else child.stdin.end();
    options.onSpawn?.(child);
  });
}

/**
 * A Node.js binary of `version`, a major (`'24'`) or an exact version (`'22.0.0'`): the test's own
 * when it is that, else the one scripts/ensure-node.sh keeps in ~/.cache/assay/node<version> (the
 * Makefile's `test` target installs them before mocha; here the script only answers its path, or
 * installs it once when a test file is run alone on a machine without it).
 */
export function nodeBinary(version: string): string {
  const own = version.includes('.') ? process.versions.node : process.versions.node.split('.')[0];
  if (own === version) return process.execPath;
  const script = path.resolve(__dirname, '../../../scripts/ensure-node.sh');
  return execFileSync(script, [version], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: 300_000,
  }).trim();
}
