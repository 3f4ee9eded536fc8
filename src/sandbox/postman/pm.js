/**
 * Assay's Postman compatibility layer: the `pm` object (and the legacy `postman`, `tests`,
 * `responseBody` … globals) for scripts imported from a Postman collection (docs/import-postman.md).
 * Bundled with chai (`pm.expect`) and ajv (`…to.have.jsonSchema`) by src/sandbox/build-libraries.ts
 * into the predefined sandbox library `postman` (global `AssayPostman`), which imported test cases
 * list in their scripts' `libs`.
 *
 * The behaviour follows Postman's scripting reference
 * (https://learning.postman.com/docs/tests-and-scripts/write-scripts/postman-sandbox-reference/)
 * and what Newman does with the same scripts:
 *
 * - `pm.test(name, fn)` records a check through the sandbox's `$test` (sync, async, or with a `done`
 *   callback); `pm.expect` is chai's `expect`; `pm.response.to.have.status(200)`, `.to.be.ok`,
 *   `.to.have.header(…)`, `.to.be.json`, `.to.have.jsonBody(…)`, `.to.have.body(…)`,
 *   `.to.have.jsonSchema(…)` … are chai assertions on the response (as Postman's chai-postman has).
 * - Every variable scope (`pm.environment`, `pm.collectionVariables`, `pm.globals`, `pm.variables`,
 *   `pm.iterationData` reads) maps onto the test case's variables (`$context`), which the next
 *   request of the same test case sees.
 * - In a pre-request script `pm.request` holds the request as written (with `{{variables}}`
 *   unresolved, as in Postman); after the scripts it is resolved with the variables as they are
 *   then, so a variable a pre-request script sets is used by its own request.
 * - `pm.sendRequest(req, callback)` sends through the sandbox's `fetch` (the address policy applies);
 *   the hook waits for its callbacks.
 *
 * Not available (the importer lists them): `pm.cookies`, `pm.vault`, `postman.setNextRequest`,
 * `pm.execution.setNextRequest`/`skipRequest`, `pm.visualizer` (ignored), `pm.require` of packages.
 */
/* global crypto, URL, URLSearchParams, fetch, btoa, _ */
import './events.js';
import * as chai from 'chai';
import Ajv from 'ajv';

const { expect } = chai;
const RESPONSE = Symbol('postman response');

const REASONS = {
  100: 'Continue',
  101: 'Switching Protocols',
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  203: 'Non-Authoritative Information',
  204: 'No Content',
  205: 'Reset Content',
  206: 'Partial Content',
  300: 'Multiple Choices',
  301: 'Moved Permanently',
  302: 'Found',
  303: 'See Other',
  304: 'Not Modified',
  307: 'Temporary Redirect',
  308: 'Permanent Redirect',
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  411: 'Length Required',
  412: 'Precondition Failed',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  416: 'Range Not Satisfiable',
  417: 'Expectation Failed',
  418: "I'm a Teapot",
  422: 'Unprocessable Entity',
  425: 'Too Early',
  426: 'Upgrade Required',
  428: 'Precondition Required',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  451: 'Unavailable For Legal Reasons',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
  505: 'HTTP Version Not Supported',
};

// --- variables and templates -------------------------------------------------------------------

function text(value) {
  if (value === undefined || value === null) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

const DYNAMIC = {
  $guid: () => crypto.randomUUID(),
  $randomUUID: () => crypto.randomUUID(),
  $timestamp: () => String(Math.floor(Date.now() / 1000)),
  $isoTimestamp: () => new Date().toISOString(),
  $randomInt: () => String(Math.floor(Math.random() * 1001)),
};

/** `{{name}}` replaced from `vars` (recursively, as Postman does, 10 levels), dynamic `{{$guid}}`…; unknown names stay. */
function fill(template, vars, depth = 0) {
  if (typeof template !== 'string' || depth > 10) return template;
  let changed = false;
  const out = template.replace(/\{\{([^{}]+)\}\}/g, (whole, name) => {
    const key = name.trim();
    if (Object.prototype.hasOwnProperty.call(vars, key) && vars[key] !== undefined) {
      changed = true;
      return text(vars[key]);
    }
    if (DYNAMIC[key]) return DYNAMIC[key]();
    return whole;
  });
  return changed && /\{\{[^{}]+\}\}/.test(out) ? fill(out, vars, depth + 1) : out;
}

function fillDeep(value, vars) {
  if (typeof value === 'string') return fill(value, vars);
  if (Array.isArray(value)) return value.map((v) => fillDeep(v, vars));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillDeep(v, vars)]));
  return value;
}

/** One Postman variable scope over the test case's variables (`$context`). */
function scope($context, name, info) {
  return {
    name,
    get: (key) => $context.get(key),
    set: (key, value) => $context.set(key, value),
    unset: (key) => $context.unset(key),
    has: (key) => $context.has(key),
    clear: () => Object.keys($context.variables).forEach((k) => $context.unset(k)),
    toObject: () => ({ ...$context.variables }),
    replaceIn: (template) => fill(String(template), $context.variables),
    ...(info || {}),
  };
}

// --- headers -----------------------------------------------------------------------------------

/** A HeaderList-like view over a plain `{name: value}` object (case-insensitive names). */
function headerList(target) {
  const find = (key) => Object.keys(target).find((k) => k.toLowerCase() === String(key).toLowerCase());
  const list = {
    get: (key) => {
      const k = find(key);
      return k === undefined ? undefined : target[k];
    },
    has: (key, value) => {
      const k = find(key);
      return k !== undefined && (value === undefined || target[k] === value);
    },
    one: (key) => {
      const k = find(key);
      return k === undefined ? undefined : { key: k, value: target[k] };
    },
    add: (h) => {
      if (h && h.key !== undefined) target[h.key] = text(h.value);
    },
    upsert: (h) => {
      if (!h || h.key === undefined) return;
      const k = find(h.key);
      if (k !== undefined) delete target[k];
      target[h.key] = text(h.value);
    },
    remove: (key) => {
      const k = find(typeof key === 'object' && key ? key.key : key);
      if (k !== undefined) delete target[k];
    },
    toObject: () => {
      const o = {};
      for (const [k, v] of Object.entries(target)) o[k.toLowerCase()] = v;
      return o;
    },
    all: () => Object.entries(target).map(([key, value]) => ({ key, value })),
    each: (fn) => Object.entries(target).forEach(([key, value]) => fn({ key, value })),
    count: () => Object.keys(target).length,
    toString: () =>
      Object.entries(target)
        .map(([k, v]) => `${k}: ${v}`)
        .join('\n'),
  };
  list.members = list.all();
  return list;
}

// --- request and response ------------------------------------------------------------------------

function urlObject(getRaw) {
  const parsed = () => {
    try {
      return new URL(getRaw());
    } catch {
      return undefined;
    }
  };
  return {
    toString: () => getRaw(),
    getHost: () => parsed()?.hostname ?? '',
    getPath: () => parsed()?.pathname ?? '',
    getQueryString: () => (parsed()?.search ?? '').replace(/^\?/, ''),
    getPathWithQuery: () => {
      const u = parsed();
      return u ? `${u.pathname}${u.search}` : getRaw();
    },
    get protocol() {
      return (parsed()?.protocol ?? '').replace(/:$/, '');
    },
    get host() {
      return (parsed()?.hostname ?? '').split('.');
    },
    get port() {
      return parsed()?.port || undefined;
    },
    get path() {
      return (parsed()?.pathname ?? '').split('/').filter(Boolean);
    },
    get query() {
      const u = parsed();
      const entries = u ? [...u.searchParams.entries()] : [];
      return {
        all: () => entries.map(([key, value]) => ({ key, value })),
        toObject: () => Object.fromEntries(entries),
        get: (k) => u?.searchParams.get(k) ?? undefined,
        count: () => entries.length,
      };
    },
  };
}

function requestView(req) {
  const body = req.body;
  const raw = typeof body === 'string' ? body : body === undefined ? undefined : JSON.stringify(body);
  return {
    method: req.method,
    get url() {
      return urlObject(() => req.url);
    },
    set url(value) {
      req.url = String(value);
    },
    headers: headerList(req.headers || (req.headers = {})),
    body: {
      mode: raw === undefined ? undefined : 'raw',
      get raw() {
        return req.bodyRaw !== undefined ? req.bodyRaw : raw;
      },
      set raw(value) {
        req.bodyRaw = String(value);
      },
      update(value) {
        req.bodyRaw =
          typeof value === 'string'
            ? value
            : value && typeof value.raw === 'string'
              ? value.raw
              : JSON.stringify(value);
      },
      toString() {
        return req.bodyRaw !== undefined ? req.bodyRaw : (raw ?? '');
      },
    },
    toJSON: () => ({
      method: req.method,
      url: req.url,
      header: Object.entries(req.headers || {}).map(([key, value]) => ({ key, value })),
      body: raw,
    }),
  };
}

function responseView($response) {
  const body = $response.body;
  const bodyText = typeof body === 'string' ? body : body === undefined || body === null ? '' : JSON.stringify(body);
  const view = {
    [RESPONSE]: true,
    code: $response.status,
    status: REASONS[$response.status] ?? '',
    reason: () => REASONS[$response.status] ?? '',
    headers: headerList({ ...($response.headers || {}) }),
    responseTime: $response.time,
    responseSize: bodyText.length,
    size: () => ({ body: bodyText.length, header: 0, total: bodyText.length }),
    text: () => bodyText,
    json: () => {
      if (body !== null && typeof body === 'object') return body;
      try {
        return JSON.parse(bodyText);
      } catch (err) {
        const e = new Error(`JSONError: ${err.message}`);
        e.name = 'JSONError';
        throw e;
      }
    },
    cookies: { get: () => undefined, has: () => false, toObject: () => ({}) },
  };
  Object.defineProperty(view, 'to', { get: () => expect(view).to });
  Object.defineProperty(view, 'be', { get: () => expect(view).to.be });
  Object.defineProperty(view, 'have', { get: () => expect(view).to.have });
  return view;
}

// --- chai assertions on the response (Postman's chai-postman, rewritten for Assay's documents) ----

chai.use((lib, utils) => {
  const { Assertion } = lib;
  const isResponse = (obj) => obj && obj[RESPONSE] === true;
  const range = (name, test, label) =>
    Assertion.addProperty(name, function () {
      const r = this._obj;
      if (!isResponse(r)) throw new Error(`.${name} can only be used on pm.response`);
      this.assert(
        test(r.code),
        `expected response code to be ${label} but found ${r.code}`,
        `expected response code to not be ${label} but found ${r.code}`,
      );
    });
  const overwrite = (name, test, label) =>
    Assertion.overwriteProperty(
      name,
      (_super) =>
        function () {
          const r = this._obj;
          if (!isResponse(r)) return _super.call(this);
          this.assert(
            test(r.code),
            `expected response code to be ${label} but found ${r.code}`,
            `expected response code to not be ${label} but found ${r.code}`,
          );
        },
    );
  overwrite('ok', (c) => c === 200, '200');
  range('info', (c) => c >= 100 && c < 200, '1XX');
  range('success', (c) => c >= 200 && c < 300, '2XX');
  range('redirection', (c) => c >= 300 && c < 400, '3XX');
  range('clientError', (c) => c >= 400 && c < 500, '4XX');
  range('serverError', (c) => c >= 500 && c < 600, '5XX');
  overwrite('error', (c) => c >= 400 && c < 600, '4XX or 5XX');
  range('accepted', (c) => c === 202, '202');
  range('badRequest', (c) => c === 400, '400');
  range('unauthorized', (c) => c === 401, '401');
  range('unauthorised', (c) => c === 401, '401');
  range('forbidden', (c) => c === 403, '403');
  range('notFound', (c) => c === 404, '404');
  range('rateLimited', (c) => c === 429, '429');

  Assertion.addProperty('withBody', function () {
    const r = this._obj;
    this.assert(
      isResponse(r) && r.text().length > 0,
      'expected response to have content in body',
      'expected response to not have content in body',
    );
  });
  Assertion.addProperty('json', function () {
    const r = this._obj;
    let parsed = true;
    try {
      r.json();
    } catch {
      parsed = false;
    }
    this.assert(
      isResponse(r) && parsed,
      'expected response body to be a valid json but got error',
      'expected response body not to be a valid json',
    );
  });
  const typed = (name, pattern) =>
    Assertion.addProperty(name, function () {
      const type = String(this._obj.headers.get('content-type') ?? '');
      this.assert(
        pattern.test(type),
        `expected response to be ${name} but got content-type "${type}"`,
        `expected response not to be ${name}`,
      );
    });
  typed('html', /html/i);
  typed('xml', /xml/i);

  Assertion.addMethod('status', function (expected) {
    const r = this._obj;
    if (!isResponse(r)) throw new Error('.status() can only be used on pm.response');
    if (typeof expected === 'number') {
      this.assert(
        r.code === expected,
        `expected response to have status code ${expected} but got ${r.code}`,
        `expected response to not have status code ${expected}`,
        expected,
        r.code,
      );
    } else {
      this.assert(
        r.status === expected,
        `expected response to have status reason '${expected}' but got '${r.status}'`,
        `expected response to not have status reason '${expected}'`,
        expected,
        r.status,
      );
    }
  });
  Assertion.overwriteMethod(
    'header',
    (_super) =>
      function (name, value) {
        const r = this._obj;
        if (!isResponse(r)) return _super ? _super.apply(this, arguments) : undefined;
        const present = r.headers.has(name);
        if (arguments.length < 2) {
          this.assert(
            present,
            `expected response to have header with key '${name}'`,
            `expected response to not have header with key '${name}'`,
          );
          return;
        }
        const actual = r.headers.get(name);
        this.assert(
          present && actual === String(value),
          `expected '${name}' response header to be '${value}' but got '${actual}'`,
          `expected '${name}' response header to not be '${value}'`,
          String(value),
          actual,
        );
      },
  );
  Assertion.addMethod('body', function (expected) {
    const r = this._obj;
    if (arguments.length === 0) {
      this.assert(
        r.text().length > 0,
        'expected response to have content in body',
        'expected response to not have content in body',
      );
      return;
    }
    if (expected instanceof RegExp) {
      this.assert(
        expected.test(r.text()),
        `expected response body text to match '${expected}'`,
        `expected response body text to not match '${expected}'`,
      );
    } else if (typeof expected === 'string') {
      this.assert(
        r.text() === expected,
        `expected response body to equal '${expected}' but got '${r.text()}'`,
        `expected response body to not equal '${expected}'`,
        expected,
        r.text(),
      );
    } else {
      let json;
      try {
        json = r.json();
      } catch {
        json = undefined;
      }
      this.assert(
        utils.eql(json, expected),
        'expected response body json to equal #{exp} but got #{act}',
        'expected response body json to not equal #{exp}',
        expected,
        json,
      );
    }
  });
  Assertion.addMethod('jsonBody', function (path, value) {
    const r = this._obj;
    let json;
    try {
      json = r.json();
    } catch {
      this.assert(false, 'expected response body to be a valid json', '');
      return;
    }
    if (arguments.length === 0) {
      this.assert(true, '', 'expected response body to not be a valid json');
      return;
    }
    if (typeof path !== 'string') {
      this.assert(
        utils.eql(json, path),
        'expected response body json to equal #{exp} but got #{act}',
        'expected response body json to not equal #{exp}',
        path,
        json,
      );
      return;
    }
    const has = _.has(json, path);
    const actual = _.get(json, path);
    if (arguments.length < 2) {
      this.assert(
        has,
        `expected #{act} in response to contain property '${path}'`,
        `expected #{act} in response to not contain property '${path}'`,
        undefined,
        json,
      );
      return;
    }
    this.assert(
      has && utils.eql(actual, value),
      `expected response body json at "${path}" to contain #{exp} but got #{act}`,
      `expected response body json at "${path}" to not contain #{exp}`,
      value,
      actual,
    );
  });
  Assertion.addMethod('jsonSchema', function (schema, options) {
    const r = this._obj;
    const data = isResponse(r) ? r.json() : r;
    const ajv = new Ajv({ allErrors: true, strict: false, logger: false, ...(options || {}) });
    const valid = ajv.validate(schema, data);
    this.assert(
      valid,
      `expected data to satisfy schema but found following errors: \n${ajv.errorsText(ajv.errors, { separator: ', ' })}`,
      'expected data to not satisfy schema',
      true,
      valid,
    );
  });
  Assertion.addMethod('responseTime', function (ms) {
    const t = this._obj.responseTime;
    if (arguments.length === 0) this.assert(typeof t === 'number', 'expected response to have a response time', '');
    else this.assert(t === ms, `expected response time to be ${ms} but got ${t}`, '', ms, t);
  });
  Assertion.addMethod('statusCode', function (code) {
    const r = this._obj;
    this.assert(
      r.code === code,
      `expected response to have status code ${code} but got ${r.code}`,
      `expected response to not have status code ${code}`,
      code,
      r.code,
    );
  });
  Assertion.addMethod('statusCodeClass', function (cls) {
    const r = this._obj;
    this.assert(
      Math.floor(r.code / 100) === cls,
      `expected response code to be ${cls}XX but found ${r.code}`,
      `expected response code to not be ${cls}XX`,
    );
  });
  Assertion.addMethod('statusReason', function (reason) {
    const r = this._obj;
    this.assert(
      r.status === reason,
      `expected response to have status reason '${reason}' but got '${r.status}'`,
      `expected response to not have status reason '${reason}'`,
      reason,
      r.status,
    );
  });
});

// --- the pm object -------------------------------------------------------------------------------

const MODULES = {
  lodash: () => _,
  chai: () => chai,
  ajv: () => Ajv,
  uuid: () => ({ v4: () => crypto.randomUUID() }),
  'crypto-js': () => globalThis.CryptoJS,
  moment: () => globalThis.moment,
};

function requireModule(name) {
  const make = MODULES[name];
  const mod = make ? make() : undefined;
  if (mod === undefined)
    throw new Error(
      `require('${name}') is not available in Assay's Postman compatibility (available: ${Object.keys(MODULES).join(', ')}; crypto-js and moment need their library in libs)`,
    );
  return mod;
}

function unsupported(what) {
  return () => {
    throw new Error(`${what} is not supported by Assay's Postman compatibility (docs/import-postman.md)`);
  };
}

/**
 * The iteration of an imported collection run with iteration data (the importer wraps the requests in
 * an Iteration node over the rows, and writes `iterationCount` into `info`): 0 and 1 without data.
 */
function iterationOf(env) {
  const loop = env.$context.loop;
  const info = env.info || {};
  if (!loop || !info.iterationCount) return { index: 0, count: 1, row: {} };
  const row = loop.item && typeof loop.item === 'object' ? loop.item : {};
  return { index: loop.index, count: info.iterationCount, row };
}

function makePm(env, event, request) {
  const { $context, $test } = env;
  const pending = [];
  const info = env.info || {};
  const test = (name, fn) => $test(name, fn);
  test.skip = () => undefined;
  const iteration = iterationOf(env);
  const pm = {
    info: {
      eventName: event,
      iteration: iteration.index,
      iterationCount: iteration.count,
      requestName: info.requestName ?? '',
      requestId: info.requestId ?? '',
    },
    environment: scope($context, 'environment', { name: info.environmentName ?? '' }),
    collectionVariables: scope($context, 'collectionVariables'),
    globals: scope($context, 'globals'),
    variables: scope($context, 'variables'),
    iterationData: {
      get: (k) =>
        $context.loop && $context.loop.item && typeof $context.loop.item === 'object'
          ? $context.loop.item[k]
          : undefined,
      has: (k) =>
        Boolean(
          $context.loop && $context.loop.item && typeof $context.loop.item === 'object' && k in $context.loop.item,
        ),
      toObject: () =>
        $context.loop && $context.loop.item && typeof $context.loop.item === 'object' ? { ...$context.loop.item } : {},
      unset: () => undefined,
    },
    request,
    test,
    expect,
    sendRequest(req, callback) {
      const spec = typeof req === 'string' ? { url: req, method: 'GET' } : req || {};
      const headers = {};
      const h = spec.header || spec.headers;
      if (Array.isArray(h)) for (const x of h) headers[x.key] = x.value;
      else if (h && typeof h === 'object') Object.assign(headers, h);
      let body;
      if (spec.body) {
        if (spec.body.mode === 'urlencoded')
          body = new URLSearchParams((spec.body.urlencoded || []).map((p) => [p.key, p.value])).toString();
        else if (spec.body.mode === 'raw') body = spec.body.raw;
        else if (typeof spec.body === 'string') body = spec.body;
      }
      const url = typeof spec.url === 'string' ? spec.url : spec.url && spec.url.raw ? spec.url.raw : String(spec.url);
      const promise = fetch(fill(url, $context.variables), { method: spec.method || 'GET', headers, body }).then(
        async (res) => {
          const raw = await res.text();
          let parsed = raw;
          try {
            parsed = JSON.parse(raw);
          } catch {
            /* text */
          }
          const resHeaders = {};
          res.headers.forEach((v, k) => (resHeaders[k] = v));
          const view = responseView({ status: res.status, headers: resHeaders, body: parsed, time: 0 });
          if (callback) callback(null, view);
          return view;
        },
        (err) => {
          if (callback) callback(err, undefined);
          else throw err;
        },
      );
      pending.push(promise.catch(() => undefined));
      return promise;
    },
    cookies: {
      get: unsupported('pm.cookies'),
      has: unsupported('pm.cookies'),
      toObject: unsupported('pm.cookies'),
      jar: unsupported('pm.cookies.jar'),
    },
    visualizer: { set: () => undefined, clear: () => undefined },
    execution: {
      setNextRequest: unsupported('pm.execution.setNextRequest'),
      skipRequest: unsupported('pm.execution.skipRequest'),
    },
    require: unsupported('pm.require'),
  };
  const postman = {
    setEnvironmentVariable: (k, v) => $context.set(k, v),
    getEnvironmentVariable: (k) => $context.get(k),
    clearEnvironmentVariable: (k) => $context.unset(k),
    clearEnvironmentVariables: () => Object.keys($context.variables).forEach((k) => $context.unset(k)),
    setGlobalVariable: (k, v) => $context.set(k, v),
    getGlobalVariable: (k) => $context.get(k),
    clearGlobalVariable: (k) => $context.unset(k),
    setNextRequest: unsupported('postman.setNextRequest'),
    getResponseHeader: (k) => (pm.response ? pm.response.headers.get(k) : undefined),
  };
  return { pm, postman, pending };
}

async function runScripts(env, event, request, response, scripts) {
  const { pm, postman, pending } = makePm(env, event, request);
  if (response) pm.response = response;
  const { index, row } = iterationOf(env);
  for (const script of scripts) {
    const tests = {};
    const vars = { ...env.$context.variables };
    const legacy = response
      ? [
          pm,
          postman,
          tests,
          response.text(),
          { code: response.code, name: response.status, detail: response.status },
          response.headers.toObject(),
          response.responseTime,
          vars,
          vars,
          { ...row },
          index,
          request.toJSON(),
          requireModule,
        ]
      : [
          pm,
          postman,
          tests,
          undefined,
          undefined,
          undefined,
          undefined,
          vars,
          vars,
          { ...row },
          index,
          request.toJSON(),
          requireModule,
        ];
    try {
      script(...legacy);
    } finally {
      await Promise.all(pending.splice(0));
      for (const [name, value] of Object.entries(tests)) env.$test(name, Boolean(value));
    }
  }
}

/**
 * The parameter names each imported script function takes, in order (the importer writes
 * `function (<these>) { { <script> } }`).
 */
const PARAMETERS = [
  'pm',
  'postman',
  'tests',
  'responseBody',
  'responseCode',
  'responseHeaders',
  'responseTime',
  'environment',
  'globals',
  'data',
  'iteration',
  'request',
  'require',
];

globalThis.AssayPostman = {
  version: 1,
  parameters: PARAMETERS,
  /**
   * Runs the pre-request scripts (collection's, folders', request's) with `pm.request` holding
   * `env.template` (the request as written), then resolves it with the variables as they are then
   * into `env.$request`, which Assay sends.
   */
  async prerequest(env, scripts) {
    const t = env.template || {};
    const draft = {
      method: t.method || env.$request.method,
      url: t.url ?? env.$request.url,
      headers: { ...(t.headers || {}) },
      body: t.body,
    };
    const request = requestView(draft);
    await runScripts(env, 'prerequest', request, undefined, scripts);
    const vars = env.$context.variables;
    env.$request.method = draft.method;
    env.$request.url = fill(String(draft.url), vars);
    const headers = {};
    for (const [k, v] of Object.entries(draft.headers)) headers[fill(k, vars)] = fill(String(v), vars);
    if (t.auth && t.auth.type === 'basic' && !Object.keys(headers).some((k) => k.toLowerCase() === 'authorization')) {
      headers.Authorization = `Basic ${btoa(`${fill(text(t.auth.username), vars)}:${fill(text(t.auth.password), vars)}`)}`;
    }
    env.$request.headers = headers;
    if (draft.bodyRaw !== undefined) env.$request.body = fill(draft.bodyRaw, vars);
    else if (draft.body !== undefined) env.$request.body = fillDeep(draft.body, vars);
  },
  /** Runs the test scripts (collection's, folders', request's) with `pm.response`. */
  async test(env, scripts) {
    const request = requestView({ ...env.$request, headers: { ...(env.$request.headers || {}) } });
    await runScripts(env, 'test', request, responseView(env.$response), scripts);
  },
};
