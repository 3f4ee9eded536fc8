/** `assay import postman COLLECTION` — STUB. */
import type { Command } from 'commander';
import type { CliContext } from '../context';
import type { ExitCode } from '../errors';

export function registerPostmanImport(_group: Command, _ctx: CliContext, _done: (action: () => Promise<ExitCode>) => () => Promise<void>): void {}
