/**
 * The parameters of every imported Postman script function, in order: `pm` and the globals of
 * Postman's legacy sandbox interface (https://learning.postman.com/docs/tests-and-scripts/write-scripts/postman-sandbox-reference/).
 * One list for both sides: the importer writes `async function (<these>) { … }`
 * (cli/importers/postman-scripts.ts) and the sandbox library passes the arguments in this order
 * (src/sandbox/postman/pm.js, which esbuild bundles with this module).
 */
export const POSTMAN_SCRIPT_PARAMETERS = [
  'pm',
  'postman',
  'tests',
  'responseBody',
  'responseCode',
  'responseHeaders',
  'responseTime',
  'responseCookies',
  'environment',
  'globals',
  'data',
  'iteration',
  'request',
  'require',
  '_',
  'tv4',
  'xml2Json',
  'cheerio',
  'Backbone',
] as const;

/**
 * The option an imported Postman request's `afterResponse` passes to `AssayPostman.test({…})`
 * (cli/importers/postman-scripts.ts): its test scripts also run when no response arrived (a
 * connection refused, an unknown host, a timeout), with an empty `pm.response`, as Newman runs them
 * (postman-runtime lib/runner/extensions/item.command.js queues the `test` event whatever the
 * request's error, unless `--bail`). Scripts without it (Assay's own, the Bruno import's) keep
 * Assay's rule: no `afterResponse` without a response (docs/flows.md "Hooks").
 */
export const POSTMAN_WITHOUT_RESPONSE_OPTION = 'withoutResponse: true';

/** Whether a hook script's `code` asks for its `afterResponse` to run without a response ({@link POSTMAN_WITHOUT_RESPONSE_OPTION}). */
export function runsWithoutResponse(code: string): boolean {
  return /^\s*await AssayPostman\.test\(\{[^\n]*\bwithoutResponse: true\b/m.test(code);
}
