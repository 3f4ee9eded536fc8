/**
 * Assay's Postman compatibility layer: the `pm` object (and the legacy `postman`, `tests`,
 * `responseBody` … globals) for scripts imported from a Postman collection (docs/import-postman.md).
 * Bundled by src/sandbox/build-libraries.ts into the predefined sandbox library `postman` (global
 * `AssayPostman`), which imported test cases list in their scripts' `libs`, with what Postman's
 * sandbox (postman-sandbox 6.7.4, Newman 6.2.2) gives scripts: chai (`pm.expect`) and chai-postman's
 * assertions (chai-postman.js), ajv (`…to.have.jsonSchema`), Sugar.js's prototype methods
 * (sugar.js), and the legacy globals' libraries (legacy-libraries.js: lodash 3 as `_`, tv4,
 * xml2Json). The library has a realm of its own (src/sandbox/libraries.ts `realm`): Postman scripts
 * run in a context of their test case that no other script shares, so Sugar never reaches them.
 *
 * The behaviour follows Postman's scripting reference
 * (https://learning.postman.com/docs/tests-and-scripts/write-scripts/postman-sandbox-reference/)
 * and what Newman does with the same scripts:
 *
 * - `pm.test(name, fn)` records a check through the sandbox's `$test` (sync, async, or with a `done`
 *   callback); `tests[name] = value` records one when the script ends (also when it threw).
 * - Every variable scope (`pm.environment`, `pm.collectionVariables`, `pm.globals`, `pm.variables`)
 *   maps onto the test case's variables (`$context`), which the next request of the same test case
 *   sees; values keep their types (a number stays a number). Newman's scopes are kept apart over
 *   them ("variable scopes as Newman keeps them" below) for hooks whose `info.scopes` is set.
 * - `pm.iterationData` is the row of the enclosing Iteration node (a data set), empty otherwise.
 * - Each script (collection's, folders', request's) runs on its own, as Newman runs each as a
 *   separate execution: one that throws keeps the checks and variables it recorded, the next
 *   scripts still run, and the hook then fails with the error. A pre-request script's error does
 *   not stop the request (Newman sends it anyway): it is reported when the test hook ends.
 * - In a pre-request script `pm.request` holds the request as written (with `{{variables}}`
 *   unresolved, as in Postman); after the scripts it is resolved with the variables as they are
 *   then, so a variable a pre-request script sets is used by its own request.
 * - `pm.cookies` and `pm.cookies.jar()`: cookies.js (the test case's jar in `__postman`).
 * - `pm.execution.setNextRequest` / `postman.setNextRequest` set the variable `__next`, which the
 *   flow the importer built for such a collection dispatches on (cli/importers/postman-next-request.ts).
 * - `pm.sendRequest(req, callback)` sends through the sandbox's `fetch` (the address policy applies);
 *   the hook waits for its callbacks.
 *
 * Refused with an error naming the call: `pm.vault`, `pm.require`, `pm.execution.skipRequest`,
 * `pm.execution.runRequest`, `cheerio`, `Backbone`, and `setNextRequest` in a flow that does not
 * honour it. `pm.visualizer` is accepted and ignored.
 */
/* global crypto, URL, URLSearchParams, fetch, btoa, _ */
import './events.js';
import './sugar.js';
import * as chai from 'chai';
// ajv 6, as postman-sandbox 6.7.4 bundles it (6.12.5): jsonSchema's messages are ajv 6's ("data.a should be string").
import Ajv from 'ajv6';
import REASONS from 'http-reasons/db.json';
import { chaiPostman, REQUEST, RESPONSE } from './chai-postman.js';
import { cookieList, Jar, jarApi } from './cookies.js';
import { lodash3, tv4, xml2Json } from './legacy-libraries.js';
import { POSTMAN_SCRIPT_PARAMETERS } from '../../domain/postman-parameters';

chai.use(chaiPostman(Ajv));
const { expect } = chai;

/** The test case variable where the library keeps its own state (cookie jar, globals' names, a pre-request error). */
const STATE = '__postman';
/** The test case variable `setNextRequest` writes and the importer's flow reads. */
const NEXT = '__next';
const HIDDEN = new Set([STATE, NEXT]);

// --- variables and templates -------------------------------------------------------------------

/** A variable value as Postman writes it into a template: `String(value)` (null is "null"). */
function text(value) {
  if (value === undefined) return '';
  return String(value);
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
    if (!HIDDEN.has(key) && Object.prototype.hasOwnProperty.call(vars, key) && vars[key] !== undefined) {
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

/** The library's own state in the test case's variables. */
function stateOf($context) {
  const s = $context.get(STATE);
  return s && typeof s === 'object' && !Array.isArray(s) ? { ...s } : {};
}
function saveState($context, state) {
  const kept = Object.fromEntries(Object.entries(state).filter(([, v]) => v !== undefined && v !== null));
  if (Object.keys(kept).length) $context.set(STATE, kept);
  else $context.unset(STATE);
}

/** Names of the test case's variables a script sees (the library's own left out). */
const visibleNames = ($context) => Object.keys($context.variables).filter((k) => !HIDDEN.has(k));

/**
 * One Postman variable scope over the test case's variables (`$context`). `globals`: the scope
 * is `pm.globals`, whose `clear()` removes only what was set through it (the imported environment
 * stays, as Newman's environment does when globals are cleared); the other scopes' `clear()`
 * removes every variable but those.
 */
function scope($context, name, info, globals = false) {
  const setNames = () => stateOf($context).globals ?? [];
  const remember = (key) => {
    if (!globals) return;
    const st = stateOf($context);
    st.globals = [...new Set([...(st.globals ?? []), String(key)])];
    saveState($context, st);
  };
  const values = () => {
    const o = {};
    for (const k of visibleNames($context)) o[k] = $context.get(k);
    return o;
  };
  return {
    name,
    get: (key) => (HIDDEN.has(key) ? undefined : $context.get(key)),
    set: (key, value) => {
      if (key === undefined || key === null || HIDDEN.has(String(key))) return;
      $context.set(String(key), value === undefined ? null : value);
      remember(key);
    },
    unset: (key) => {
      if (!HIDDEN.has(String(key))) $context.unset(key);
    },
    has: (key) => !HIDDEN.has(String(key)) && $context.has(key),
    clear: () => {
      const ofGlobals = new Set(setNames());
      for (const k of visibleNames($context)) if (globals === ofGlobals.has(k)) $context.unset(k);
      if (globals) {
        const st = stateOf($context);
        delete st.globals;
        saveState($context, st);
      }
    },
    toObject: values,
    toJSON: () => ({ values: Object.entries(values()).map(([key, value]) => ({ key, value })) }),
    replaceIn: (template) => fill(String(template), $context.variables),
    ...(info || {}),
  };
}

// --- variable scopes as Newman keeps them ------------------------------------------------------
//
// Imports made with the scope model (the hook's `info.scopes` set, cli/importers/postman.ts) keep
// Newman's four scopes over the test case's one set of variables: each variable holds the value
// Newman would resolve (local, then environment, collection, globals: postman-runtime
// lib/runner/util.js resolveVariables), which `{{name}}` in any request reads, and the library's
// state (`__postman.scopes`) keeps, for each name that is not only an environment value, which
// scopes hold it and their values. So `pm.environment.clear()` removes the environment's values
// only and a name another scope holds falls through to it, `unset` likewise, and `toObject()`
// lists one scope, as postman-collection's VariableScope does. A variable set outside Postman
// scripts (a Context node, an extract, iteration data) is taken as the value of the scope that
// gave the name its value. Imports made before (no `info.scopes`) keep one scope for all.

/** Scope letters in order of precedence: local (`pm.variables.set`), environment, collection, globals. */
const ORDER = ['l', 'e', 'c', 'g'];
const own = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const topOf = (entry) => ORDER.find((s) => own(entry, s));
/** A copy of a JSON value: the state and a variable never share an object (each is stored on its own). */
const copy = (v) => (v !== null && typeof v === 'object' ? JSON.parse(JSON.stringify(v)) : v);

function scopesOf(st) {
  return st.scopes && typeof st.scopes === 'object' && !Array.isArray(st.scopes) ? { ...st.scopes } : {};
}

/**
 * Brings the scope model up to date before scripts run: on the test case's first hook, the names
 * the import says are collection or globals values (`initial`: name → {c?, g?}), a variable whose
 * value differs from theirs being also an environment value (the environment's, or `--var`);
 * then a variable changed or removed outside Postman scripts since is taken as its winning
 * scope's new value or gone.
 */
function syncScopes($context, initial) {
  if (!initial) return;
  const st = stateOf($context);
  const scopes = scopesOf(st);
  if (!st.scoped) {
    for (const [k, entry] of Object.entries(initial)) {
      if (!$context.has(k) || HIDDEN.has(k) || !entry || typeof entry !== 'object') continue;
      const e = { ...entry };
      const top = topOf(e);
      if (top === undefined) continue;
      if (!same(e[top], $context.get(k))) e.e = copy($context.get(k));
      scopes[k] = e;
    }
    st.scoped = true;
  }
  for (const [k, entry] of Object.entries(scopes)) {
    const top = topOf(entry);
    if (!$context.has(k) || top === undefined) delete scopes[k];
    else if (!same(entry[top], $context.get(k))) scopes[k] = { ...entry, [top]: copy($context.get(k)) };
  }
  st.scopes = Object.keys(scopes).length ? scopes : undefined;
  saveState($context, st);
}

/**
 * One scope of the model (see above): `letter` `e`, `c`, `g`, or `l` for `pm.variables`, whose
 * reads see every scope (the resolved value) and whose writes are local values.
 */
function modelScope($context, name, letter, info) {
  const load = () => {
    const st = stateOf($context);
    return { st, scopes: scopesOf(st) };
  };
  // A name not in the model is an environment value when it is a variable.
  const entryOf = (scopes, k) => (scopes[k] ? { ...scopes[k] } : $context.has(k) ? { e: copy($context.get(k)) } : {});
  const put = (scopes, k, entry) => {
    const top = topOf(entry);
    if (top === undefined) {
      delete scopes[k];
      if ($context.has(k)) $context.unset(k);
      return;
    }
    $context.set(k, copy(entry[top]));
    if (top === 'e' && Object.keys(entry).length === 1) delete scopes[k];
    else scopes[k] = entry;
  };
  const save = (st, scopes) => {
    st.scopes = Object.keys(scopes).length ? scopes : undefined;
    saveState($context, st);
  };
  const update = (key, change) => {
    const k = String(key);
    if (HIDDEN.has(k)) return;
    const { st, scopes } = load();
    const entry = entryOf(scopes, k);
    change(entry);
    put(scopes, k, entry);
    save(st, scopes);
  };
  const resolved = letter === 'l';
  const values = () => {
    const { scopes } = load();
    const o = {};
    for (const k of visibleNames($context)) {
      if (resolved) o[k] = $context.get(k);
      else {
        const entry = entryOf(scopes, k);
        if (own(entry, letter)) o[k] = entry[letter];
      }
    }
    return o;
  };
  const get = (key) => {
    const k = String(key);
    if (HIDDEN.has(k)) return undefined;
    if (resolved) return $context.get(k);
    const entry = entryOf(load().scopes, k);
    return own(entry, letter) ? entry[letter] : undefined;
  };
  return {
    name,
    get,
    set: (key, value) => {
      if (key === undefined || key === null) return;
      update(key, (entry) => {
        entry[letter] = value === undefined ? null : copy(value);
      });
    },
    unset: (key) =>
      update(key, (entry) => {
        delete entry[letter];
      }),
    has: (key) => {
      const k = String(key);
      if (HIDDEN.has(k)) return false;
      return resolved ? $context.has(k) : own(entryOf(load().scopes, k), letter);
    },
    clear: () => {
      const { st, scopes } = load();
      for (const k of visibleNames($context)) {
        const entry = entryOf(scopes, k);
        if (!own(entry, letter)) continue;
        delete entry[letter];
        put(scopes, k, entry);
      }
      save(st, scopes);
    },
    toObject: values,
    toJSON: () => ({ values: Object.entries(values()).map(([key, value]) => ({ key, value })) }),
    replaceIn: (template) => fill(String(template), resolved ? $context.variables : values()),
    ...(info || {}),
  };
}

/** The row of the innermost enclosing Iteration node (a data set's row, or an `items` item), or undefined. */
function iterationFrame($context) {
  const frames = $context.loops && $context.loops.length ? $context.loops : $context.loop ? [$context.loop] : [];
  for (let i = frames.length - 1; i >= 0; i--) if (frames[i] && frames[i].as !== undefined) return frames[i];
  return undefined;
}

/** `pm.iterationData`: the Iteration node's row (an object's fields), read-only as in Newman's runs. */
function iterationData($context) {
  const frame = iterationFrame($context);
  const item = frame && frame.item && typeof frame.item === 'object' && !Array.isArray(frame.item) ? frame.item : {};
  const row = { ...item };
  return {
    get: (k) => row[k],
    has: (k) => Object.prototype.hasOwnProperty.call(row, k),
    toObject: () => ({ ...row }),
    toJSON: () => ({ values: Object.entries(row).map(([key, value]) => ({ key, value })) }),
    set: (k, v) => {
      row[k] = v;
    },
    unset: (k) => {
      delete row[k];
    },
    clear: () => Object.keys(row).forEach((k) => delete row[k]),
    replaceIn: (template) => fill(String(template), row),
  };
}

// --- headers -----------------------------------------------------------------------------------

/** `content-type` as Postman shows a received header name (Go's canonical form: `Content-Type`). */
function canonical(name) {
  return String(name)
    .split('-')
    .map((p) => (p ? p[0].toUpperCase() + p.slice(1).toLowerCase() : p))
    .join('-');
}

/** A HeaderList-like view over a plain `{name: value}` object (case-insensitive names). */
function headerList(target, shown = (k) => k) {
  const find = (key) => Object.keys(target).find((k) => k.toLowerCase() === String(key).toLowerCase());
  const all = () => Object.entries(target).map(([key, value]) => ({ key: shown(key), value }));
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
      return k === undefined ? undefined : { key: shown(k), value: target[k] };
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
    all,
    idx: (i) => all()[i],
    each: (fn) => all().forEach((h) => fn(h)),
    map: (fn) => all().map((h) => fn(h)),
    filter: (fn) => all().filter((h) => fn(h)),
    find: (fn) => all().find((h) => fn(h)),
    count: () => Object.keys(target).length,
    toJSON: () => all(),
    toString: () =>
      all()
        .map((h) => `${h.key}: ${h.value}`)
        .join('\n'),
  };
  Object.defineProperty(list, 'members', { get: all, enumerable: true });
  return list;
}

/** Legacy `responseHeaders`: names as received (canonical), read case-insensitively. */
function legacyHeaders(headers) {
  const target = {};
  for (const [k, v] of Object.entries(headers || {})) target[canonical(k)] = v;
  const find = (prop) =>
    typeof prop === 'string' && !Object.prototype.hasOwnProperty.call(target, prop)
      ? Object.keys(target).find((k) => k.toLowerCase() === prop.toLowerCase())
      : prop;
  return new Proxy(target, {
    get: (t, prop) => t[find(prop)],
    has: (t, prop) => find(prop) in t,
  });
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
    getRemote: () => {
      const u = parsed();
      return u ? u.host : '';
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
        has: (k) => Boolean(u?.searchParams.has(k)),
        count: () => entries.length,
      };
    },
  };
}

/** The raw text of a request body as Assay holds it (a JSON body is written back as JSON). */
function bodyText(body) {
  return typeof body === 'string' ? body : body === undefined || body === null ? undefined : JSON.stringify(body);
}

function requestView(req) {
  const raw = bodyText(req.body);
  const view = {
    [REQUEST]: true,
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
      isEmpty() {
        return (req.bodyRaw !== undefined ? req.bodyRaw : (raw ?? '')) === '';
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
  Object.defineProperty(view, 'to', { get: () => expect(view).to });
  return view;
}

function reasonOf(code) {
  return (REASONS[code] && REASONS[code].name) || '';
}

function jsonError(err) {
  const e = new Error(err.message);
  e.name = 'JSONError';
  return e;
}

/**
 * `pm.response` over Assay's `$response`; over `undefined` (no response arrived: the test scripts
 * run anyway, as Newman runs them) postman-collection's empty `new Response()`: no code, no
 * headers, `text()` undefined, `json()` throwing.
 */
function responseView($response) {
  const none = $response === undefined;
  if (none) $response = { headers: {} };
  const body = $response.body;
  const bodyText = typeof body === 'string' ? body : body === undefined || body === null ? '' : JSON.stringify(body);
  const headers = { ...($response.headers || {}) };
  const headerBytes = Object.entries(headers).reduce((n, [k, v]) => n + `${k}: ${v}\r\n`.length, 0);
  const bodyBytes = () => {
    const length = Number(headers['content-length']);
    return Number.isFinite(length) && String(headers['content-length']).trim() !== '' ? length : bodyText.length;
  };
  const view = {
    [RESPONSE]: true,
    code: $response.status,
    status: reasonOf($response.status),
    reason: () => reasonOf($response.status),
    details: () => ({
      ...(REASONS[$response.status] || {}),
      code: $response.status,
      standardName: reasonOf($response.status),
    }),
    headers: headerList(headers, canonical),
    responseTime: $response.time,
    responseSize: bodyBytes(),
    size: () => {
      const header = `HTTP/X.X ${$response.status} ${reasonOf($response.status)}\r\n\r\n`.length + headerBytes;
      return { body: bodyBytes(), header, total: bodyBytes() + header };
    },
    text: () => (none ? undefined : bodyText),
    json: () => {
      if (body !== null && typeof body === 'object') return JSON.parse(bodyText);
      try {
        return JSON.parse(bodyText.replace(/^\uFEFF/, ''));
      } catch (err) {
        throw jsonError(err);
      }
    },
    cookies: cookieList([]),
  };
  Object.defineProperty(view, 'to', { get: () => expect(view).to });
  return view;
}

// --- what Assay does not provide ------------------------------------------------------------------

const MODULES = {
  lodash: () => _,
  chai: () => chai,
  ajv: () => Ajv,
  tv4: () => tv4,
  xml2js: () => undefined,
  uuid: () => ({ v4: () => crypto.randomUUID() }),
  'crypto-js': () => globalThis.CryptoJS,
  moment: () => globalThis.moment,
};

function refusal(what) {
  return new Error(
    `${what} is not supported by Assay's Postman compatibility (see docs/import-postman.md, "Scripts: the pm object")`,
  );
}

function unsupported(what) {
  return () => {
    throw refusal(what);
  };
}

/** An object whose every use throws the refusal of `what` (`pm.vault.get(…)`, `cheerio(…)`). */
function refused(what) {
  const fail = () => {
    throw refusal(what);
  };
  return new Proxy(function () {}, {
    get: (_t, prop) => (prop === Symbol.toPrimitive || prop === 'toJSON' ? undefined : fail()),
    apply: fail,
    construct: fail,
  });
}

function requireModule(name) {
  const make = MODULES[name];
  const mod = make ? make() : undefined;
  if (mod === undefined)
    throw new Error(
      `require('${name}') is not available in Assay's Postman compatibility (available: ${Object.keys(MODULES)
        .filter((m) => m !== 'xml2js')
        .join(', ')}; crypto-js and moment need their library in libs; see docs/import-postman.md)`,
    );
  return mod;
}

// --- the pm object -------------------------------------------------------------------------------

/**
 * `pm` and the legacy `postman` of one hook. `jar`: the test case's cookie jar (cookies.js);
 * `cookies`: the CookieList `pm.cookies` shows.
 */
function makePm(env, event, request, jar, cookies) {
  const { $context, $test } = env;
  const pending = [];
  const track = (promise) => {
    pending.push(promise.catch(() => undefined));
    return promise;
  };
  const info = env.info || {};
  const frame = iterationFrame($context);
  const test = (name, fn) => $test(name, fn);
  test.skip = () => undefined;
  const setNextRequest = (name) => {
    if (!env.nextRequest)
      throw refusal(`setNextRequest (in a collection the import did not turn into a dispatch loop)`);
    $context.set(NEXT, name === null || name === undefined ? '' : String(name));
  };
  const cookieApi = cookies;
  cookieApi.jar = () => jarApi(jar, track);
  const pm = {
    info: {
      eventName: event,
      iteration: frame ? frame.index : 0,
      iterationCount: frame ? info.iterationCount || (typeof frame.count === 'number' ? frame.count : 1) : 1,
      requestName: info.requestName ?? '',
      requestId: info.requestId ?? '',
    },
    ...(info.scopes
      ? {
          environment: modelScope($context, 'environment', 'e', { name: info.environmentName ?? '' }),
          collectionVariables: modelScope($context, 'collectionVariables', 'c'),
          globals: modelScope($context, 'globals', 'g'),
          variables: modelScope($context, 'variables', 'l'),
        }
      : {
          environment: scope($context, 'environment', { name: info.environmentName ?? '' }),
          collectionVariables: scope($context, 'collectionVariables'),
          globals: scope($context, 'globals', undefined, true),
          variables: scope($context, 'variables'),
        }),
    iterationData: iterationData($context),
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
      track(promise);
      return callback ? undefined : promise;
    },
    cookies: cookieApi,
    visualizer: { set: () => undefined, clear: () => undefined },
    execution: {
      setNextRequest,
      skipRequest: unsupported('pm.execution.skipRequest'),
      runRequest: unsupported('pm.execution.runRequest'),
      location: Object.assign([...(info.location || [])], { current: info.requestName ?? '' }),
    },
    vault: refused('pm.vault'),
    require: unsupported('pm.require'),
  };
  const postman = {
    setEnvironmentVariable: (k, v) => pm.environment.set(k, v === false || v ? String(v) : v),
    getEnvironmentVariable: (k) => pm.environment.get(k),
    clearEnvironmentVariable: (k) => pm.environment.unset(k),
    clearEnvironmentVariables: () => pm.environment.clear(),
    setGlobalVariable: (k, v) => pm.globals.set(k, v === false || v ? String(v) : v),
    getGlobalVariable: (k) => pm.globals.get(k),
    clearGlobalVariable: (k) => pm.globals.unset(k),
    clearGlobalVariables: () => pm.globals.clear(),
    setNextRequest,
  };
  return { pm, postman, pending };
}

/**
 * A form's `[name, value]` fields as the legacy `request.data` shows them: a name given more than
 * once holds an array of its values (postman-sandbox lib/sandbox/postman-legacy-interface.js
 * `getRequestBody`, for urlencoded and form-data bodies alike).
 */
function formData(fields) {
  const out = {};
  for (const [name, value] of fields) {
    if (!Object.hasOwn(out, name)) out[name] = value;
    else if (Array.isArray(out[name])) out[name].push(value);
    else out[name] = [out[name], value];
  }
  return out;
}

/**
 * The `[name, value]` text fields of a multipart/form-data body (RFC 7578) delimited by `boundary`,
 * as the import writes a form-data body of text fields (cli/importers/postman.ts: a `name` with `"`
 * written `%22`). Parts without a name are left out.
 */
function multipartFields(body, boundary) {
  const fields = [];
  for (const part of String(body).split(`--${boundary}`)) {
    const end = part.indexOf('\r\n\r\n');
    if (end < 0) continue;
    const name = /content-disposition:[^\r\n]*;\s*name="([^"]*)"/i.exec(part.slice(0, end));
    if (name) fields.push([name[1].replace(/%22/g, '"'), part.slice(end + 4).replace(/\r\n$/, '')]);
  }
  return fields;
}

/** The legacy `request` global: the request as Postman's legacy interface shows it. */
function legacyRequest(request, env) {
  const info = env.info || {};
  const json = request.toJSON();
  const headers = {};
  for (const h of json.header) headers[String(h.key).toLowerCase()] = h.value;
  let data = {};
  const raw = json.body;
  if (raw !== undefined && raw !== '') {
    const type = String(request.headers.get('content-type') || '');
    // The boundary from the Content-Type, or from the body's first line where the request has no
    // Content-Type (as a GET with a form-data body is sent).
    const boundary =
      /^multipart\/form-data;.*\bboundary="?([^";]+)"?/i.exec(type) ??
      (type ? null : /^--([^\r\n]+)\r\ncontent-disposition: form-data;/i.exec(raw));
    data = /application\/x-www-form-urlencoded/i.test(type)
      ? formData([...new URLSearchParams(raw)])
      : boundary
        ? formData(multipartFields(raw, boundary[1]))
        : raw;
  }
  return {
    id: info.requestId || undefined,
    name: info.requestName,
    description: info.description,
    headers,
    method: json.method,
    url: json.url,
    data,
  };
}

/**
 * The legacy `postman.set…Variable`/`clear…Variable(s)` of one script, which also change that
 * script's legacy `environment` and `globals` objects as Newman's do (postman-sandbox
 * lib/sandbox/postman-legacy-interface.js: `setEnvironmentVariable` writes `__environment[key]`,
 * `clearEnvironmentVariables` deletes every key...), so a script reads back what it set.
 */
function legacyScopeWriters(postman, legacy) {
  const text = (v) => (v === false || v ? String(v) : v);
  const writers = (scope, set, unset, clear) => ({
    [set]: (k, v) => {
      legacy[scope][k] = text(v);
      return postman[set](k, v);
    },
    [unset]: (k) => {
      if (k) delete legacy[scope][k];
      return postman[unset](k);
    },
    [clear]: () => {
      for (const k of Object.keys(legacy[scope])) delete legacy[scope][k];
      return postman[clear]();
    },
  });
  return {
    ...writers('environment', 'setEnvironmentVariable', 'clearEnvironmentVariable', 'clearEnvironmentVariables'),
    ...writers('globals', 'setGlobalVariable', 'clearGlobalVariable', 'clearGlobalVariables'),
  };
}

/**
 * Runs `scripts` (functions taking {@link PARAMETERS}) one after the other, each on its own as
 * Newman runs them: one that throws does not stop the next. @returns the errors thrown.
 */
async function runScripts(env, event, request, response, scripts, jar, cookies) {
  const { pm, postman, pending } = makePm(env, event, request, jar, cookies);
  if (response) pm.response = response;
  const errors = [];
  for (const script of scripts) {
    const tests = {};
    const vars = {};
    for (const k of visibleNames(env.$context)) vars[k] = env.$context.get(k);
    const frame = iterationFrame(env.$context);
    const data = pm.iterationData.toObject();
    const legacy = {
      pm,
      postman,
      tests,
      responseBody: response ? response.text() : undefined,
      responseCode: response ? { ...response.details() } : undefined,
      responseHeaders: response ? legacyHeaders(response.headers.toObject()) : undefined,
      responseTime: response ? response.responseTime : undefined,
      responseCookies: response ? cookies : undefined,
      // Newman's legacy objects are the environment's and the globals' values (the model's scopes).
      environment: env.info && env.info.scopes ? pm.environment.toObject() : { ...vars },
      globals: env.info && env.info.scopes ? pm.globals.toObject() : { ...vars },
      data,
      iteration: frame ? frame.index : 0,
      request: legacyRequest(request, env),
      require: requireModule,
      _: lodash3,
      tv4,
      xml2Json,
      cheerio: refused('cheerio'),
      Backbone: refused('Backbone'),
    };
    legacy.postman = { ...postman, ...legacyScopeWriters(postman, legacy) };
    if (response)
      Object.assign(legacy.postman, {
        getResponseHeader: (k) => response.headers.get(k),
        getResponseCookie: (k) => cookies.one(String(k)),
      });
    try {
      await script(...PARAMETERS.map((p) => legacy[p]));
    } catch (err) {
      errors.push(err);
    } finally {
      await Promise.all(pending.splice(0));
      for (const [name, value] of Object.entries(tests)) env.$test(name, Boolean(value));
    }
  }
  return errors;
}

/** Throws the first of `errors`, naming the others in its message. */
function rethrow(errors) {
  if (!errors.length) return;
  const [first, ...rest] = errors;
  if (rest.length && first && typeof first === 'object') {
    const more = rest.map((e) => (e && e.name ? `${e.name}: ${e.message}` : String(e))).join('; ');
    try {
      first.message = `${first.message} (and ${rest.length} more script error${rest.length > 1 ? 's' : ''}: ${more})`;
    } catch {
      /* a frozen error keeps its message */
    }
  }
  throw first;
}

function describe(err) {
  return err && typeof err === 'object' && err.name ? `${err.name}: ${err.message}` : `Uncaught ${String(err)}`;
}

/** The parameter names each imported script function takes, in order (one list: src/domain/postman-parameters.ts). */
const PARAMETERS = POSTMAN_SCRIPT_PARAMETERS;

globalThis.AssayPostman = {
  version: 2,
  parameters: PARAMETERS,
  /**
   * Runs the pre-request scripts (collection's, folders', request's) with `pm.request` holding
   * `env.template` (the request as written), then resolves it with the variables as they are then
   * into `env.$request`, which Assay sends (with the jar's cookies when `env.cookies`). An error
   * of a script is kept for the test hook to report: the request is sent, as Newman sends it.
   */
  async prerequest(env, scripts) {
    const t = env.template || {};
    const draft = {
      method: t.method || env.$request.method,
      url: t.url ?? env.$request.url,
      headers: { ...(t.headers || {}) },
      body: t.body,
    };
    if (env.nextRequest && env.nextRequest.default !== undefined) env.$context.set(NEXT, env.nextRequest.default);
    syncScopes(env.$context, env.info && env.info.scopes);
    const state = stateOf(env.$context);
    delete state.preError;
    saveState(env.$context, state);
    const jar = new Jar(state.cookies);
    const request = requestView(draft);
    const errors = await runScripts(env, 'prerequest', request, undefined, scripts, jar, cookieList([]));
    const vars = env.$context.variables;
    env.$request.method = draft.method;
    env.$request.url = fill(String(draft.url), vars);
    const headers = {};
    for (const [k, v] of Object.entries(draft.headers)) headers[fill(k, vars)] = fill(String(v), vars);
    if (t.auth && t.auth.type === 'basic' && !Object.keys(headers).some((k) => k.toLowerCase() === 'authorization')) {
      headers.Authorization = `Basic ${btoa(`${fill(text(t.auth.username), vars)}:${fill(text(t.auth.password), vars)}`)}`;
    }
    const after = stateOf(env.$context);
    if (env.cookies) {
      const sent = jar.header(env.$request.url);
      if (sent) {
        const own = Object.keys(headers).find((k) => k.toLowerCase() === 'cookie');
        if (own) headers[own] = `${headers[own]}; ${sent}`;
        else headers.Cookie = sent;
      }
    }
    after.cookies = jar.cookies.length ? jar.toJSON() : undefined;
    if (errors.length) after.preError = errors.map(describe).join('; ');
    saveState(env.$context, after);
    env.$request.headers = headers;
    if (draft.bodyRaw !== undefined) env.$request.body = fill(draft.bodyRaw, vars);
    else if (draft.body !== undefined) env.$request.body = fillDeep(draft.body, vars);
  },
  /**
   * Runs the test scripts (collection's, folders', request's) with `pm.response`; then fails with
   * the first error a script threw, or with the pre-request scripts' error.
   */
  async test(env, scripts) {
    const request = requestView({ ...env.$request, headers: { ...(env.$request.headers || {}) } });
    const response = responseView(env.$response);
    const $response = env.$response || {};
    syncScopes(env.$context, env.info && env.info.scopes);
    const state = stateOf(env.$context);
    const preError = state.preError;
    delete state.preError;
    // Without the jar of earlier requests (`env.cookies` unset), the response's own cookies.
    const jar = new Jar(env.cookies ? state.cookies : []);
    // The redirects' cookies first (each with its hop's URL), then the last response's (its URL).
    for (const hop of $response.redirectCookies || []) jar.receive(hop.url, hop.setCookie);
    const finalUrl = $response.url || env.$request.url;
    jar.receive(finalUrl, ($response.headers || {})['set-cookie']);
    const cookies = cookieList(jar.match(finalUrl));
    response.cookies = cookies;
    saveState(env.$context, state);
    const errors = await runScripts(env, 'test', request, response, scripts, jar, cookies);
    const after = stateOf(env.$context);
    if (env.cookies) after.cookies = jar.cookies.length ? jar.toJSON() : undefined;
    saveState(env.$context, after);
    if (preError) {
      const e = new Error(`a pre-request script failed (the request was sent, as Newman sends it): ${preError}`);
      e.name = 'PrerequestScriptError';
      errors.unshift(e);
    }
    rethrow(errors);
  },
};
