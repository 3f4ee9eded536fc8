/**
 * The body of `POST /v1/designs/import` (api/routes/designs.ts): an OpenAPI 3.x document as JSON
 * (the document, or `{document: "<JSON or YAML text>"}`) or as YAML (`application/yaml`,
 * `application/x-yaml`, `text/yaml`), up to its own limit (ASSAY_IMPORT_MAX_BYTES, default 32 MiB:
 * the descriptions big APIs publish pass the 1 MiB of other bodies). The body is read as text
 * ({@link documentBodies}; the /v1 JSON parser passes it by, api/app.ts) and everything CPU-heavy,
 * parsing it, checking its depth and sampling the designs, runs on a worker thread
 * (src/mock/import-pool.ts) so a big import does not hold up other requests ({@link importDocument}).
 *
 * The answers are those the route gave when it parsed the body itself: 400 `malformed-json` for a
 * JSON body that does not parse; 400 `too-deep` for a body (or the document) nested too deep; 400
 * `validation-failed` naming `document` for what is not an importable document, or naming the
 * string with a lone surrogate; the sample problems (api/errors.ts `sampleProblem`) at `document`.
 */
import type Koa from 'koa';
import { bodyParser } from '@koa/bodyparser';
import { fieldError } from '../src/problems';
import { SampleError } from '../src/mock/samples';
import { type ImportPool, type ImportResult, sharedImportPool } from '../src/mock/import-pool';
import { hasBody, JSON_TYPES, parsedBody, tooDeepProblem } from './body';
import { sampleProblem } from './errors';
import { invalid, Problem } from './problem';
import type { AppContext, AppState } from './context';

/** The setting behind each bound of an import (src/mock/import-pool.ts). */
const IMPORT_BOUND_SETTINGS = {
  memory: 'ASSAY_IMPORT_MEMORY_MB',
  result: 'ASSAY_IMPORT_MAX_RESULT_BYTES',
  time: 'ASSAY_IMPORT_TIMEOUT_MS',
} as const;

/** Media types of a YAML body. */
export const YAML_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml'];

/**
 * Reads the body as text, JSON or YAML, at most `maxBytes` bytes (413 `payload-too-large` naming the
 * limit and `setting` beyond it), into `ctx.request.body`; 415 for any other media type.
 */
export function documentBodies(maxBytes: number, setting: string): Koa.Middleware<AppState> {
  const readText = bodyParser({
    enableTypes: ['text'],
    // The list replaces the parser's default text types (text/plain; it merges arrays by index).
    extendTypes: { text: [...JSON_TYPES, ...YAML_TYPES] },
    textLimit: maxBytes,
    encoding: 'utf-8',
    onError(err) {
      if ((err as { status?: number }).status === 413)
        throw new Problem(
          'payload-too-large',
          `The request body exceeds ${maxBytes} bytes, the import's limit (${setting}).`,
          { limit: maxBytes },
        );
      throw err;
    },
  }) as unknown as Koa.Middleware<AppState>;
  return async (ctx, next) => {
    if (hasBody(ctx) && !ctx.is([...JSON_TYPES, ...YAML_TYPES])) {
      throw new Problem(
        'unsupported-media-type',
        `The import takes JSON (Content-Type: application/json) or YAML (application/yaml), not "${ctx.get('Content-Type') || 'none'}".`,
      );
    }
    await readText(ctx, next);
  };
}

/**
 * The designs of the document in the body {@link documentBodies} read, made on a worker thread; the
 * failures as the problems above. A body without content is 400 naming the body.
 */
export async function importDocument(ctx: AppContext, pool: ImportPool = sharedImportPool()): Promise<ImportResult> {
  if (!hasBody(ctx)) throw invalid([fieldError([], 'a JSON body is required')], 'A JSON request body is required.');
  const body = parsedBody(ctx);
  // A body the /v1 JSON parser read (a path it did not take for the import's) is JSON already.
  const reply = await pool.run(
    typeof body === 'string'
      ? { text: body, as: ctx.is(JSON_TYPES) ? 'json' : 'yaml' }
      : { text: JSON.stringify(body), as: 'json' },
  );
  if (reply.result) return reply.result;
  const failure = reply.failure;
  switch (failure.kind) {
    case 'malformed-json':
      throw new Problem('malformed-json', `The request body is not valid JSON: ${failure.message}`);
    case 'too-deep':
      throw tooDeepProblem(failure.path, failure.what === 'body' ? 'The request body' : 'The document');
    case 'ill-formed':
      throw invalid([
        fieldError(failure.path, 'contains a lone UTF-16 surrogate (\\ud800-\\udfff outside a pair): not Unicode text'),
      ]);
    case 'invalid-document':
      throw invalid(
        [fieldError(['document'], failure.message)],
        `Not an importable OpenAPI document: ${failure.message}`,
      );
    case 'too-large': {
      const setting = IMPORT_BOUND_SETTINGS[failure.bound];
      throw new Problem(
        'import-too-large',
        `The document cannot be imported within this server's bounds: ${failure.message}. Nothing was stored; import a smaller description (split it by tag or path) or ask the operator to raise ${setting}.`,
        { limit: failure.limit, setting },
      );
    }
    case 'sample': {
      const err = new SampleError(failure.message, failure.status, failure.code, failure.path, failure.detail);
      throw sampleProblem([{ err, at: ['document'] }], err.message);
    }
    default:
      throw new Error(`The OpenAPI import failed: ${failure.message}`);
  }
}
