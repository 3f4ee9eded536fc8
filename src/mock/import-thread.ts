/**
 * Worker-thread side of the OpenAPI import pool (src/mock/import-pool.ts): parses one request body
 * per task (JSON.parse, or the YAML parser), checks its depth and text, parses the OpenAPI
 * document (src/mock/openapi.ts `parseOpenApi`) and turns it into designs (`designsFromOpenApi`,
 * sampling included), then answers the result, or what went wrong as data ({@link ImportFailure}):
 * errors do not cross threads as classes.
 */
import { designsFromOpenApi, DocumentTooDeepError, parseOpenApi } from './openapi';
import { SampleError } from './samples';
import { illFormedString, tooDeep } from '../validation/json-limits';
import { Piscina } from 'piscina';
import type { ImportFailure, ImportJob, ImportReply, ImportWireReply } from './import-pool';

/** The body as the API took it: strict JSON (an object or array, as @koa/bodyparser takes), or the document's text. */
function importFromBody(text: string, as: ImportJob['as']): ImportReply {
  let documentText: string;
  if (as === 'json') {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (err) {
      return { failure: { kind: 'malformed-json', message: (err as Error).message } };
    }
    if (body === null || typeof body !== 'object')
      return { failure: { kind: 'malformed-json', message: 'only an object or an array is accepted' } };
    const deep = tooDeep(body);
    if (deep) return { failure: { kind: 'too-deep', path: deep, what: 'body' } };
    const bad = illFormedString(body);
    if (bad) return { failure: { kind: 'ill-formed', path: bad } };
    const field = (body as { document?: unknown }).document;
    // `{document: "<JSON or YAML text>"}`, `{document: {…}}`, or the document itself.
    documentText = typeof field === 'string' ? field : JSON.stringify(field ?? body);
  } else {
    documentText = text;
  }
  let doc: ReturnType<typeof parseOpenApi>;
  try {
    doc = parseOpenApi(documentText);
  } catch (err) {
    if (err instanceof DocumentTooDeepError)
      return { failure: { kind: 'too-deep', path: ['document', ...err.path], what: 'document' } };
    return { failure: { kind: 'invalid-document', message: (err as Error).message } };
  }
  // Text parsed here (YAML, or a `document` string) was not checked with the body.
  const bad = illFormedString(doc);
  if (bad) return { failure: { kind: 'ill-formed', path: ['document', ...bad] } };
  try {
    return { result: designsFromOpenApi(doc) };
  } catch (err) {
    if (!(err instanceof SampleError)) throw err;
    const failure: ImportFailure = {
      kind: 'sample',
      message: err.message,
      status: err.status,
      code: err.code,
      path: err.path,
      detail: err.detail,
    };
    return { failure };
  }
}

/**
 * The task piscina runs on a worker thread (src/mock/import-pool.ts): the reply is data, never an
 * exception. A result goes back as one UTF-8 JSON text moved (not copied) to the API's thread, at
 * most `job.maxResultBytes`; a failure is cloned.
 */
export default function importTask(job: ImportJob): ImportWireReply {
  let reply: ImportReply;
  try {
    reply = importFromBody(job.text, job.as);
  } catch (err) {
    return { failure: { kind: 'internal', message: (err as Error)?.stack ?? String(err) } };
  }
  if (!reply.result) return reply;
  const limit = job.maxResultBytes ?? Number.MAX_SAFE_INTEGER;
  const tooLarge = (): ImportReply => ({
    failure: {
      kind: 'too-large',
      bound: 'result',
      limit,
      message: `the designs made from the document exceed ${limit} bytes of JSON (ASSAY_IMPORT_MAX_RESULT_BYTES): ${reply.result!.designs.length} designs`,
    },
  });
  let text: string;
  try {
    text = JSON.stringify(reply);
  } catch (err) {
    // Past V8's longest string (about 512 MiB): past any limit.
    if (err instanceof RangeError) return tooLarge();
    throw err;
  }
  // UTF-8 is at least as long as the string's length in UTF-16 units when all is ASCII, at most 3 × it.
  if (text.length > limit) return tooLarge();
  const bytes = new TextEncoder().encode(text);
  if (bytes.byteLength > limit) return tooLarge();
  return Piscina.move(bytes) as unknown as Uint8Array;
}
