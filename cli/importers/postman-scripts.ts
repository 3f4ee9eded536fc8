/**
 * The scripts of an imported Postman request (docs/import-postman.md "Scripts: the pm object"):
 * the collection's, folders' and request's pre-request and test scripts become the API node's
 * `beforeRequest` / `afterResponse` hooks, each script wrapped in a function of its own that the
 * `postman` sandbox library (src/sandbox/postman/pm.js) calls with `pm` and Postman's legacy
 * globals, in Newman's order. What the library refuses is listed in the import report.
 */
import vm from 'node:vm';
import { POSTMAN_SCRIPT_PARAMETERS, POSTMAN_WITHOUT_RESPONSE_OPTION } from '../../src/domain/postman-parameters';

/** The sandbox library imported scripts run with (src/sandbox/libraries.ts). */
export const POSTMAN_LIBRARY = 'postman@1.0.0';

/** Other predefined libraries a script's code asks for. */
const PREDEFINED_FOR: Array<{ test: RegExp; lib: string }> = [
  { test: /\bCryptoJS\b|require\(\s*['"]crypto-js['"]\s*\)/, lib: 'crypto-js@4.2.0' },
  { test: /\bmoment\b|require\(\s*['"]moment['"]\s*\)/, lib: 'moment@2.30.1' },
];

/** What the library refuses (a call fails its `pm.test`, or the hook, naming it) or ignores. */
const UNSUPPORTED_SCRIPT: Array<{ test: RegExp; what: string }> = [
  { test: /\bpm\.execution\.skipRequest\s*\(/, what: 'pm.execution.skipRequest (refused when called)' },
  { test: /\bpm\.execution\.runRequest\s*\(/, what: 'pm.execution.runRequest (refused when called)' },
  { test: /\bpm\.vault\b/, what: 'pm.vault (refused when used)' },
  { test: /\bpm\.require\s*\(/, what: 'pm.require (package library; refused when called)' },
  { test: /\bpm\.visualizer\b/, what: 'pm.visualizer (ignored: there is no visualizer)' },
  { test: /\bcheerio\b|\bBackbone\b/, what: 'cheerio / Backbone (refused when used)' },
];

/** Scripts that read cookies: their test case keeps Newman's cookie jar across its requests. */
export function usesCookies(codes: string[]): boolean {
  return codes.some((c) => /\bpm\.cookies\b|\bresponseCookies\b|\bgetResponseCookie\b/.test(c));
}

/** Whether `code` parses as a function body (the sandbox compiles it so); the error otherwise. */
function syntaxError(code: string): string | undefined {
  try {
    new vm.Script(`(async function () {\n${code}\n})`);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** A note for the import report (postman.ts `ImportNote`). */
interface Note {
  at: string;
  message: string;
}

/**
 * Each script of `codes` as an async function taking the Postman script parameters
 * (src/domain/postman-parameters.ts), for the `postman` library to call; one that does not parse
 * becomes a function that throws its SyntaxError (noted in `notes`). Also used by the Bruno import
 * (cli/importers/bruno-scripts.ts).
 */
export function scriptFunctions(codes: string[], at: string, what: string, notes: Note[]): string[] {
  return codes.map((code) => {
    const error = syntaxError(code);
    if (error) {
      notes.push({ at, message: `${what} script does not parse (${error}); it fails its node as it fails in Postman` });
      return `function () { throw new SyntaxError(${JSON.stringify(`the imported ${what} script does not parse: ${error}`)}); }`;
    }
    for (const u of UNSUPPORTED_SCRIPT)
      if (u.test.test(code)) notes.push({ at, message: `${what} script uses ${u.what}` });
    // Async, as postman-sandbox wraps each script (top-level await works); the inner block lets the
    // script declare names (`const data = …`) that are also parameters.
    return `async function (${POSTMAN_SCRIPT_PARAMETERS.join(', ')}) {\n{\n${code}\n}\n}`;
  });
}

/** The request as the hooks see it before its `{{variables}}` are filled. */
export interface HookRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: unknown;
  basic?: { username: string; password: string };
}

export interface HookOptions {
  /** The test case keeps a cookie jar (some script reads cookies): every request gets both hooks. */
  cookies?: boolean;
  /** The test case is a setNextRequest dispatch loop (postman-next-request.ts): `setNextRequest` works. */
  nextRequest?: boolean;
  /** Postman's id of the request (legacy `request.id`, `pm.info.requestId`), when the export has one. */
  requestId?: string;
  /** The request's description (legacy `request.description`). */
  description?: string;
  /** Rows of the imported iteration data (`pm.info.iterationCount`), when the collection runs over some. */
  iterationCount?: number;
  /**
   * Newman's scopes of the names globals and collection variables hold (name → the values of the
   * scopes holding it: `c` collection, `g` globals), for the library's scope model
   * (src/sandbox/postman/pm.js `syncScopes`); given (even empty), scopes are kept apart.
   */
  scopes?: Record<string, Record<string, unknown>>;
}

/**
 * The hooks of an imported API node: Postman's scripts run by the `postman` library; undefined
 * when the node needs none. A node with pre-request scripts also gets a test hook, which reports
 * their error (Newman sends the request when a pre-request script throws, and so does Assay).
 */
export function hookCode(
  at: string,
  requestName: string,
  request: HookRequest,
  pre: string[],
  test: string[],
  environmentName: string,
  notes: Note[],
  options: HookOptions = {},
): { code: string; libs: string[] } | undefined {
  const needsPre = pre.length > 0 || request.basic !== undefined || Boolean(options.cookies);
  const needsTest = test.length > 0 || pre.length > 0 || Boolean(options.cookies);
  if (!needsPre && !needsTest) return undefined;
  const info = JSON.stringify({
    requestName,
    environmentName,
    ...(options.requestId ? { requestId: options.requestId } : {}),
    ...(options.description ? { description: options.description } : {}),
    ...(options.iterationCount ? { iterationCount: options.iterationCount } : {}),
    ...(options.scopes ? { scopes: options.scopes } : {}),
  });
  const flags = `${options.cookies ? ', cookies: true' : ''}${options.nextRequest ? ', nextRequest: true' : ''}`;
  const parts = [
    `// Imported from Postman: the collection's, folders' and request's scripts of "${requestName.replace(/\n/g, ' ')}", run as written by`,
    `// Assay's Postman compatibility library (docs/import-postman.md).`,
  ];
  if (needsPre) {
    const template = JSON.stringify({
      method: request.method,
      url: request.url,
      headers: request.headers,
      body: request.body,
      auth: request.basic ? { type: 'basic', ...request.basic } : undefined,
    });
    parts.push(
      `async function beforeRequest() {`,
      `  await AssayPostman.prerequest({ $request, $context, $test, console, info: ${info}, template: ${template}${flags} }, [`,
      scriptFunctions(pre, at, 'pre-request', notes).join(',\n'),
      `  ]);`,
      `}`,
    );
  }
  if (needsTest) {
    parts.push(
      `async function afterResponse() {`,
      // Newman runs the test scripts when no response arrived too (POSTMAN_WITHOUT_RESPONSE_OPTION).
      `  await AssayPostman.test({ $request, $response, $context, $test, console, info: ${info}${flags}, ${POSTMAN_WITHOUT_RESPONSE_OPTION} }, [`,
      scriptFunctions(test, at, 'test', notes).join(',\n'),
      `  ]);`,
      `}`,
    );
  }
  const code = parts.join('\n');
  const libs = [
    POSTMAN_LIBRARY,
    ...PREDEFINED_FOR.filter((p) => p.test.test([...pre, ...test].join('\n'))).map((p) => p.lib),
  ];
  return { code, libs };
}
