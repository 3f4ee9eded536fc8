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
