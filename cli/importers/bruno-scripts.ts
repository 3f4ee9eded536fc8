/**
 * Bruno's scripting API over Assay's Postman compatibility library, for `assay import bruno`
 * (docs/import-bruno.md "Scripts"): a Bruno `script:pre-request`, `script:post-response` or `tests`
 * block runs as written, with `bru`, `req`, `res`, `test` and `expect` defined by a small adapter
 * ({@link BRUNO_ADAPTER}) over the `pm` object of the `postman` sandbox library
 * (src/sandbox/postman/pm.js). No text of the script is rewritten: the adapter is a function the
 * hook defines, and each script starts by calling it. Names follow Bruno's JavaScript API
 * (https://docs.usebruno.com/testing/script/javascript-reference); what has no Assay equivalent
 * throws when called, naming itself, and is listed in the import report.
 *
 * Also: Bruno's `res.…` expressions of `assert` blocks and `vars:post-response` as JSONata over
 * what Assay's assertions and `extract` see (docs/flows.md "Extracting variables").
 */
import { POSTMAN_LIBRARY, scriptFunctions } from './postman-scripts';

/**
 * The adapter: `AssayBruno(pm, require)` answers `{bru, req, res, test, expect}` for one script.
 * `bru` reads and writes the run's variables (`pm.variables`, `pm.environment`, `pm.globals`),
 * `req` is the request before it is sent (pre-request scripts: changes are sent), `res` the
 * response (post-response scripts and tests; also callable, `res('a.b')`, as Bruno's is), `test`
 * and `expect` are `pm.test` and `pm.expect` (chai), so a Bruno test's result is a node assertion.
 */
export const BRUNO_ADAPTER = String.raw`function AssayBruno(pm, require) {
  const refuse = (what) => () => {
    throw new Error(what + " is not available in Assay's Bruno compatibility (see docs/import-bruno.md)");
  };
  const set = (scope) => (k, v) => (v === undefined || v === null ? scope.unset(k) : scope.set(k, v));
  const getPath = (value, path) => {
    const keys = String(path).replace(/\[(\d+)\]/g, '.$1').split('.').filter(Boolean);
    let v = value;
    for (const k of keys) v = v === undefined || v === null ? undefined : v[k];
    return v;
  };
  const bru = {
    getVar: (k) => pm.variables.get(k),
    setVar: set(pm.variables),
    hasVar: (k) => pm.variables.has(k),
    deleteVar: (k) => pm.variables.unset(k),
    getAllVars: () => pm.variables.toObject(),
    getEnvVar: (k) => pm.environment.get(k),
    setEnvVar: set(pm.environment),
    hasEnvVar: (k) => pm.environment.has(k),
    deleteEnvVar: (k) => pm.environment.unset(k),
    getEnvName: () => pm.environment.name,
    getGlobalEnvVar: (k) => pm.globals.get(k),
    setGlobalEnvVar: set(pm.globals),
    getAllGlobalEnvVars: () => pm.globals.toObject(),
    getCollectionVar: (k) => pm.variables.get(k),
    setCollectionVar: set(pm.collectionVariables),
    getAllCollectionVars: () => pm.variables.toObject(),
    getFolderVar: (k) => pm.variables.get(k),
    getRequestVar: (k) => pm.variables.get(k),
    interpolate: (v) => (typeof v === 'string' ? pm.variables.replaceIn(v) : v),
    getProcessEnv: () => undefined,
    isSafeMode: () => true,
    setNextRequest: refuse('bru.setNextRequest'),
    runRequest: refuse('bru.runRequest'),
    sendRequest: refuse('bru.sendRequest'),
    sleep: refuse('bru.sleep'),
    cookies: { jar: refuse('bru.cookies') },
    runner: {
      setNextRequest: refuse('bru.runner.setNextRequest'),
      skipRequest: refuse('bru.runner.skipRequest'),
      stopExecution: refuse('bru.runner.stopExecution'),
    },
  };
  const r = pm.request;
  const req = {
    get url() { return String(r.url); },
    get method() { return r.method; },
    get headers() { return r.headers.toObject(); },
    get body() { return req.getBody(); },
    headerList: r.headers,
    getUrl: () => String(r.url),
    setUrl: (u) => { r.url = String(u); },
    getMethod: () => r.method,
    setMethod: refuse('req.setMethod'),
    getName: () => pm.info.requestName,
    getHeader: (n) => r.headers.get(n),
    getHeaders: () => r.headers.toObject(),
    setHeader: (n, v) => r.headers.upsert({ key: n, value: String(v) }),
    setHeaders: (o) => { for (const k of Object.keys(o || {})) req.setHeader(k, o[k]); },
    deleteHeader: (n) => r.headers.remove(n),
    getBody: () => {
      const t = r.body.toString();
      try { return JSON.parse(t); } catch { return t; }
    },
    setBody: (b) => r.body.update(typeof b === 'string' ? b : JSON.stringify(b)),
    setTimeout: refuse('req.setTimeout'),
    setMaxRedirects: refuse('req.setMaxRedirects'),
  };
  let res;
  const p = pm.response;
  if (p) {
    let body;
    try { body = p.json(); } catch { body = p.text(); }
    res = (path) => getPath(res.body, path);
    Object.assign(res, {
      status: p.code,
      statusText: p.status,
      headers: p.headers.toObject(),
      headerList: p.headers,
      body,
      responseTime: p.responseTime,
      getStatus: () => res.status,
      getStatusText: () => res.statusText,
      getHeader: (n) => p.headers.get(n),
      getHeaders: () => res.headers,
      getBody: () => res.body,
      setBody: (b) => { res.body = b; },
      getResponseTime: () => res.responseTime,
      getSize: () => p.size(),
      getUrl: () => String(r.url),
    });
  }
  return { bru, req, res, test: pm.test, expect: pm.expect, require };
}`;

/** The first lines of each imported script: the adapter's names, then the script in a block of its own (it may redeclare them). */
function adapted(code: string): string {
  return `const { bru, req, res, test, expect } = AssayBruno(pm, require);\n{\n${code}\n}`;
}

/** Bruno-only calls the adapter refuses (they throw when called): listed in the import report. */
const UNSUPPORTED: Array<{ test: RegExp; what: string; does?: string }> = [
  { test: /\bbru\.(runner\.)?setNextRequest\s*\(/, what: "bru.setNextRequest (run order is the runner's)" },
  { test: /\bbru\.runner\.(skipRequest|stopExecution)\s*\(/, what: 'bru.runner.skipRequest / stopExecution' },
  { test: /\bbru\.runRequest\s*\(/, what: 'bru.runRequest' },
  { test: /\bbru\.sendRequest\s*\(/, what: 'bru.sendRequest' },
  { test: /\bbru\.sleep\s*\(/, what: 'bru.sleep' },
  { test: /\bbru\.cookies\b/, what: 'bru.cookies' },
  {
    test: /\bbru\.getProcessEnv\s*\(/,
    what: 'bru.getProcessEnv',
    does: 'it answers undefined (a run has no process environment)',
  },
  { test: /\breq\.(setMethod|setTimeout|setMaxRedirects)\s*\(/, what: 'req.setMethod / setTimeout / setMaxRedirects' },
  {
    test: /\brequire\s*\(\s*['"](?!lodash['"]|chai['"]|ajv['"]|tv4['"])[^'"]+['"]\s*\)/,
    what: 'require() of a module the Postman library does not give (it has lodash, chai, ajv, tv4)',
  },
];

/** A note for the import report (cli/importers/bruno.ts `ImportNote`). */
interface Note {
  at: string;
  message: string;
}

/**
 * The `script` of an imported API node: `pre` runs in `beforeRequest` on the request as written
 * (`template`), `post` (post-response scripts, then tests, in Bruno's order) in `afterResponse`;
 * undefined when both are empty. Scripts that do not parse fail their node when it runs (listed);
 * calls of what the adapter refuses are listed in `untranslated`.
 */
export function brunoHookCode(
  at: string,
  requestName: string,
  template: { method: string; url: string; headers: Record<string, string>; body?: unknown },
  pre: string[],
  post: string[],
  environmentName: string,
  untranslated: Note[],
): { code: string; libs: string[] } | undefined {
  if (!pre.length && !post.length) return undefined;
  for (const code of [...pre, ...post])
    for (const u of UNSUPPORTED)
      if (u.test.test(code))
        untranslated.push({ at, message: `a script uses ${u.what}: ${u.does ?? 'it throws when called'}` });
  const info = JSON.stringify({ requestName, environmentName });
  const parts = [
    `// Imported from Bruno: the scripts of "${requestName.replace(/\n/g, ' ')}" (collection, folders, request), run as`,
    `// written with bru/req/res/test/expect over Assay's Postman compatibility library (docs/import-bruno.md).`,
    BRUNO_ADAPTER,
  ];
  // A node with pre-request scripts also gets a test hook: it reports their error (postman-scripts.ts).
  if (pre.length)
    parts.push(
      `async function beforeRequest() {`,
      `  await AssayPostman.prerequest({ $request, $context, $test, console, info: ${info}, template: ${JSON.stringify(template)} }, [`,
      scriptFunctions(pre.map(adapted), at, 'pre-request', untranslated).join(',\n'),
      `  ]);`,
      `}`,
    );
  parts.push(
    `async function afterResponse() {`,
    `  await AssayPostman.test({ $request, $response, $context, $test, console, info: ${info} }, [`,
    scriptFunctions(post.map(adapted), at, 'post-response', untranslated).join(',\n'),
    `  ]);`,
    `}`,
  );
  return { code: parts.join('\n'), libs: [POSTMAN_LIBRARY] };
}

/** JSONata's words that are not names (https://docs.jsonata.org/path-operators, operators, literals). */
const JSONATA_WORDS = new Set(['true', 'false', 'null', 'and', 'or', 'in', 'function']);

/** A JSONata name step: bare when it is an identifier, else (or a JSONata word) in backquotes. */
function step(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !JSONATA_WORDS.has(name) ? name : `\`${name.replace(/`/g, '')}\``;
}

/**
 * A Bruno `res` expression (of an `assert` block's left side or a `vars:post-response` value) as
 * JSONata over what assertions see, or undefined when it is not a plain path: `res.status`,
 * `res.getStatus()` → `response.status`; `res.body…`, `res.getBody()…`, `res('a.b')` →
 * `response.body…` (`.name`, `["name"]`, `[0]` steps); `res.headers.name`, `res.headers['name']`,
 * `res.getHeader('name')` → ``response.headers.`name` `` (lower case, as received);
 * `res.responseTime`, `res.getResponseTime()` → `response.time`.
 */
export function resPath(expression: string): string | undefined {
  const e = expression.trim();
  let m: RegExpExecArray | null;
  if (/^res\.(status|getStatus\(\))$/.test(e)) return 'response.status';
  if (/^res\.(responseTime|getResponseTime\(\))$/.test(e)) return 'response.time';
  if ((m = /^res\.getHeader\(\s*(['"])([^'"]+)\1\s*\)$/.exec(e)))
    return `response.headers.${step(m[2]!.toLowerCase())}`;
  if ((m = /^res\.headers(?:\.([A-Za-z0-9_$-]+)|\[\s*(['"])([^'"]+)\2\s*\])$/.exec(e)))
    return `response.headers.${step((m[1] ?? m[3]!).toLowerCase())}`;
  if ((m = /^res\(\s*(['"])([^'"]*)\1\s*\)$/.exec(e))) return pathSteps('response.body', `.${m[2]}`);
  if ((m = /^res\.(?:body|getBody\(\))(.*)$/.exec(e))) return pathSteps('response.body', m[1]!);
  return undefined;
}

/** `base` followed by JS property steps (`.a`, `["b c"]`, `[0]`) as JSONata; undefined when `rest` is not only such steps. */
function pathSteps(base: string, rest: string): string | undefined {
  let out = base;
  let r = rest;
  while (r) {
    let m: RegExpExecArray | null;
    if ((m = /^\.([A-Za-z_$][A-Za-z0-9_$-]*)/.exec(r))) out += `.${step(m[1]!)}`;
    else if ((m = /^\[(\d+)\]/.exec(r))) out += `[${m[1]}]`;
    else if ((m = /^\[\s*(['"])([^'"]*)\1\s*\]/.exec(r))) out += `.${step(m[2]!)}`;
    else return undefined;
    r = r.slice(m[0].length);
  }
  return out;
}
