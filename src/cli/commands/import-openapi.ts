/** `assay import openapi SPEC` — STUB, replaced by the OpenAPI import work. */
import type { Command } from 'commander';
import type { CliContext } from '../context';
import type { ExitCode } from '../errors';

export function registerOpenApiImport(_group: Command, _ctx: CliContext, _done: (action: () => Promise<ExitCode>) => () => Promise<void>): void {}
