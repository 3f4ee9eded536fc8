/**
 * Writes Assay's OpenAPI document (api/openapi/document.ts; what `GET /v1/openapi.json` answers) to
 * a file, or to stdout without one, with no server running: the document is built from the
 * configuration in the environment (ASSAY_PUBLIC_URL names its server) and the routes' schemas.
 *
 *   node dist/scripts/openapi-document.js [file]
 *
 * `npm run lint` runs it from its own compile (.lint-build/) and lints the file with Spectral
 * (.spectral.yaml); a client generator can read the file as it would the served document.
 */
import fs from 'node:fs';
import { loadConfig } from '../src/config';
import { openApiDocument } from '../api/openapi/document';

const text = `${JSON.stringify(openApiDocument(loadConfig()), null, 2)}\n`;
const file = process.argv[2];
if (file) fs.writeFileSync(file, text);
else process.stdout.write(text);
