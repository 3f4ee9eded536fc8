/**
 * `assay import postman …` and `assay import openapi …` (docs/cli.md "Importing"): the group; each
 * importer registers its own subcommand.
 */
import type { Registrar } from '../context';
import { registerOpenApiImport } from './import-openapi';
import { registerPostmanImport } from './import-postman';

export const registerImportCommands: Registrar = (program, ctx, done) => {
  const group = program
    .command('import')
    .description('bring tests in: a Postman collection, or an OpenAPI description as contract tests');
  registerPostmanImport(group, ctx, done);
  registerOpenApiImport(group, ctx, done);
};
