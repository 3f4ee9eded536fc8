/**
 * What every `assay` command gets: its output streams, the environment, and the API client built
 * from the global flags (cli/config.ts). Commands write results to `stdout` and progress,
 * warnings and errors to `stderr`, so `assay … > file` keeps only what was asked for.
 */
import type { Command } from 'commander';
import { AssayClient } from './client';
import { resolveSettings, type CliSettings } from './config';
import { UsageError, type ExitCode } from './errors';

/** A writable text stream (process.stdout, or a buffer in tests). */
export interface TextOut {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface CliIO {
  stdout: TextOut;
  stderr: TextOut;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Subscribes to SIGINT/SIGTERM; answers the unsubscribe function. */
  onSignal(handler: (signal: 'SIGINT' | 'SIGTERM') => void): () => void;
}

export class CliContext {
  private cachedSettings?: CliSettings;
  private cachedClient?: AssayClient;

  constructor(
    readonly io: CliIO,
    private readonly program: Command,
  ) {}

  get stdout(): TextOut {
    return this.io.stdout;
  }

  get stderr(): TextOut {
    return this.io.stderr;
  }

  /** True when a person is watching: stderr is a terminal (progress bars, questions on ^C). */
  get interactive(): boolean {
    return Boolean(this.io.stderr.isTTY) && !this.io.env.CI;
  }

  /** `--url`, `--api-key`, `--config`, environment and config file, resolved once. */
  settings(): CliSettings {
    if (!this.cachedSettings) {
      const flags = this.program.opts<{ url?: string; apiKey?: string; config?: string }>();
      this.cachedSettings = resolveSettings({ flags, env: this.io.env, cwd: this.io.cwd });
    }
    return this.cachedSettings;
  }

  /** The API client; @throws UsageError (exit 2) when no API key is configured. */
  client(): AssayClient {
    if (!this.cachedClient) {
      const settings = this.settings();
      if (!settings.apiKey)
        throw new UsageError('no API key: set ASSAY_API_KEY (or pass --api-key, or put "apiKey" in .assay.json)');
      this.cachedClient = new AssayClient({ url: settings.url, apiKey: settings.apiKey });
    }
    return this.cachedClient;
  }

  /** One line to stderr. */
  note(line: string): void {
    this.io.stderr.write(`${line}\n`);
  }

  /** One line to stdout. */
  print(line: string): void {
    this.io.stdout.write(`${line}\n`);
  }
}

/** A command's action: answers the process exit code. */
export type CommandAction = () => Promise<ExitCode>;

/**
 * Registers commands on `program`. Each action answers its exit code through `done`, so that the
 * caller, not commander, decides how the process ends.
 */
export type Registrar = (
  program: Command,
  ctx: CliContext,
  done: (action: () => Promise<ExitCode>) => () => Promise<void>,
) => void;
