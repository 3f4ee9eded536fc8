/**
 * `assay import postman|openapi|har|curl|insomnia|bruno …` (docs/cli.md "Importing"): the group; each
 * importer registers its own subcommand.
 */
import type { Registrar } from '../context';
import { registerBrunoImport } from './import-bruno';
import { registerCurlImport } from './import-curl';
import { registerHarImport } from './import-har';
import { registerInsomniaImport } from './import-insomnia';
import { registerOpenApiImport } from './import-openapi';
import { registerPostmanImport } from './import-postman';

export const registerImportCommands: Registrar = (program, ctx, done) => {
  const group = program
    .command('import')
    .description(
      'bring tests in: a Postman collection, an OpenAPI description as contract tests, a HAR recording, curl commands, an Insomnia export or a Bruno collection',
    );
  registerPostmanImport(group, ctx, done);
  registerOpenApiImport(group, ctx, done);
  registerCurlImport(group, ctx, done);
  registerHarImport(group, ctx, done);
  registerInsomniaImport(group, ctx, done);
  registerBrunoImport(group, ctx, done);
};
