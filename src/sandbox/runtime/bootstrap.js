/**
 * The script sandbox's runtime, evaluated in every new isolated-vm context before any library or
 * user script. A bare V8 context has no fetch, Request/Response/Headers, URL, TextEncoder, timers,
 * crypto.getRandomValues or atob/btoa; libraries such as ky, axios, zod (URL checks) and CryptoJS
 * (random salts) break quietly without them, so they are provided here:
 *
 * - URL / URLSearchParams: core-js's WHATWG URL implementation (48 KB; whatwg-url with its
 *   Unicode tables would be ten times that, paid by every new context), bundled in.
 * - TextEncoder / TextDecoder: fast-text-encoding, bundled in.
 * - fetch, Headers, Request, Response, AbortController, AbortSignal: implemented here over the
 *   host's fetch bridge (`host.fetch`), which applies the timeout and the response size cap.
 * - setTimeout / setInterval / clearTimeout / clearInterval / queueMicrotask: over `host.sleep`.
 * - crypto.getRandomValues / crypto.randomUUID: over `host.randomBytes` (the host's CSPRNG).
 * - atob / btoa, structuredClone (JSON values).
 *
 * The host functions arrive as `globalThis.__assayHost` and are taken out of sight at once; user
 * code never sees an isolated-vm Reference. Bundled by src/sandbox/build-libraries.ts (esbuild,
 * IIFE) into dist/sandbox-libs/runtime.js.
 */
import URL from 'core-js-pure/web/url';
import URLSearchParams from 'core-js-pure/web/url-search-params';
import 'fast-text-encoding';

const host = globalThis.__assayHost;
delete globalThis.__assayHost;

// Enough frames that a user's frame below a library's own (zod, lodash chains) is still in the stack.
Error.stackTraceLimit = 32;

// --- base64 -----------------------------------------------------------------------------------
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
function btoa(input) {
  const s = String(input);
  let out = '';
  for (let i = 0; i < s.length; i += 3) {
    const a = s.charCodeAt(i);
    const b = s.charCodeAt(i + 1);
    const c = s.charCodeAt(i + 2);
    if (a > 255 || b > 255 || c > 255) throw new Error('btoa: the string contains characters outside Latin-1');
    const n = (a << 16) | ((b || 0) << 8) | (c || 0);
    out +=
      B64[(n >> 18) & 63] +
      B64[(n >> 12) & 63] +
      (Number.isNaN(b) ? '=' : B64[(n >> 6) & 63]) +
      (Number.isNaN(c) ? '=' : B64[n & 63]);
  }
  return out;
}
function atob(input) {
  const s = String(input)
    .replace(/[\t\n\f\r ]/g, '')
    .replace(/=+$/, '');
  let out = '';
  let bits = 0;
  let value = 0;
  for (const ch of s) {
    const v = B64.indexOf(ch);
    if (v < 0) throw new Error('atob: the string is not valid base64');
    value = (value << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += String.fromCharCode((value >> bits) & 255);
    }
  }
  return out;
}
const bytesToBinary = (bytes) => {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return s;
};
const binaryToBytes = (s) => {
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i) & 255;
  return out;
};

// --- timers (cancelled when the execution that created them ends) -------------------------------
let nextTimer = 1;
const timers = new Map();
function schedule(fn, ms, args, repeat) {
  const id = nextTimer++;
  const delay = Math.max(0, Number(ms) || 0);
  const tick = () => {
    host.sleep(delay).then(() => {
      if (!timers.has(id)) return;
      if (!repeat) timers.delete(id);
      try {
        if (typeof fn === 'function') fn(...args);
      } finally {
        if (repeat && timers.has(id)) tick();
      }
    });
  };
  timers.set(id, true);
  tick();
  return id;
}
const setTimeout = (fn, ms, ...args) => schedule(fn, ms, args, false);
const setInterval = (fn, ms, ...args) => schedule(fn, Math.max(1, Number(ms) || 1), args, true);
const clearTimeout = (id) => void timers.delete(id);
const queueMicrotask = (fn) => void Promise.resolve().then(fn);

// --- crypto ---------------------------------------------------------------------------------------
const crypto = {
  getRandomValues(array) {
    if (!ArrayBuffer.isView(array)) throw new TypeError('getRandomValues: expected a typed array');
    if (array.byteLength > 65536) throw new Error('getRandomValues: at most 65536 bytes');
    const bytes = host.randomBytes(array.byteLength);
    new Uint8Array(array.buffer, array.byteOffset, array.byteLength).set(bytes);
    return array;
  },
  randomUUID() {
    const b = crypto.getRandomValues(new Uint8Array(16));
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  },
};

// --- abort -------------------------------------------------------------------------------------
class DOMException extends Error {
  constructor(message = '', name = 'Error') {
    super(message);
    this.name = name;
  }
}
class AbortSignal {
  constructor() {
    this.aborted = false;
    this.reason = undefined;
    this.onabort = null;
    this._listeners = [];
  }
  addEventListener(type, fn) {
    if (type === 'abort') this._listeners.push(fn);
  }
  removeEventListener(type, fn) {
    this._listeners = this._listeners.filter((l) => l !== fn);
  }
  throwIfAborted() {
    if (this.aborted) throw this.reason;
  }
  _abort(reason) {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason;
    const event = { type: 'abort', target: this };
    if (typeof this.onabort === 'function') this.onabort(event);
    for (const l of this._listeners) l(event);
  }
  static abort(reason) {
    const s = new AbortSignal();
    s._abort(reason);
    return s;
  }
  static timeout(ms) {
    const s = new AbortSignal();
    setTimeout(() => s._abort(new DOMException('The operation timed out', 'TimeoutError')), ms);
    return s;
  }
  static any(signals) {
    const s = new AbortSignal();
    for (const other of signals) {
      if (other.aborted) {
        s._abort(other.reason);
        break;
      }
      other.addEventListener('abort', () => s._abort(other.reason));
    }
    return s;
  }
}
class AbortController {
  constructor() {
    this.signal = new AbortSignal();
  }
  abort(reason) {
    this.signal._abort(reason);
  }
}

// --- Headers, Request, Response, fetch -----------------------------------------------------------
class Headers {
  constructor(init) {
    this._map = new Map();
    if (init instanceof Headers) init.forEach((v, k) => this.append(k, v));
    else if (Array.isArray(init)) for (const [k, v] of init) this.append(k, v);
    else if (init && typeof init === 'object') for (const k of Object.keys(init)) this.append(k, init[k]);
  }
  append(name, value) {
    const k = String(name).toLowerCase();
    const prev = this._map.get(k);
    this._map.set(k, prev === undefined ? String(value) : `${prev}, ${value}`);
  }
  set(name, value) {
    this._map.set(String(name).toLowerCase(), String(value));
  }
  get(name) {
    const v = this._map.get(String(name).toLowerCase());
    return v === undefined ? null : v;
  }
  has(name) {
    return this._map.has(String(name).toLowerCase());
  }
  delete(name) {
    this._map.delete(String(name).toLowerCase());
  }
  forEach(fn, thisArg) {
    for (const [k, v] of this.entries()) fn.call(thisArg, v, k, this);
  }
  *entries() {
    yield* [...this._map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }
  *keys() {
    for (const [k] of this.entries()) yield k;
  }
  *values() {
    for (const [, v] of this.entries()) yield v;
  }
  [Symbol.iterator]() {
    return this.entries();
  }
  getSetCookie() {
    const v = this.get('set-cookie');
    return v === null ? [] : [v];
  }
}

/** A body kept as bytes (Uint8Array) or as text. */
function bodyToBytes(body) {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string') return new TextEncoder().encode(body);
  if (body instanceof URLSearchParams) return new TextEncoder().encode(body.toString());
  if (body instanceof ArrayBuffer) return new Uint8Array(body.slice(0));
  if (ArrayBuffer.isView(body))
    return new Uint8Array(body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength));
  return new TextEncoder().encode(String(body));
}
function defaultContentType(body) {
  if (typeof body === 'string') return 'text/plain;charset=UTF-8';
  if (body instanceof URLSearchParams) return 'application/x-www-form-urlencoded;charset=UTF-8';
  return null;
}

class Body {
  _initBody(body) {
    this._bytes = bodyToBytes(body);
    this.bodyUsed = false;
  }
  get body() {
    // No streams in the sandbox: libraries check for null or a value; the bytes stand in.
    return this._bytes;
  }
  _consume() {
    if (this.bodyUsed) return Promise.reject(new TypeError('Body has already been consumed'));
    this.bodyUsed = true;
    return Promise.resolve(this._bytes || new Uint8Array(0));
  }
  async arrayBuffer() {
    const b = await this._consume();
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
  }
  async bytes() {
    return new Uint8Array(await this.arrayBuffer());
  }
  async text() {
    return new TextDecoder().decode(await this._consume());
  }
  async json() {
    return JSON.parse(await this.text());
  }
  async blob() {
    throw new TypeError('Blob is not available in the Assay sandbox; use arrayBuffer() or text()');
  }
  async formData() {
    throw new TypeError('FormData is not available in the Assay sandbox');
  }
}

class Request extends Body {
  constructor(input, init = {}) {
    super();
    const from = input instanceof Request ? input : null;
    this.url = from ? from.url : new URL(String(input)).href;
    this.method = String(init.method || (from ? from.method : 'GET')).toUpperCase();
    this.headers = new Headers(init.headers || (from ? from.headers : undefined));
    this.signal = init.signal || (from ? from.signal : new AbortSignal());
    this.redirect = init.redirect || (from ? from.redirect : 'follow');
    this.credentials = init.credentials || 'same-origin';
    this.mode = 'cors';
    this.cache = 'default';
    const body = init.body !== undefined ? init.body : from && from._bytes ? from._bytes : null;
    if (body !== null && (this.method === 'GET' || this.method === 'HEAD'))
      throw new TypeError('Request with GET/HEAD method cannot have body');
    this._initBody(body);
    const type = defaultContentType(init.body);
    if (type && !this.headers.has('content-type')) this.headers.set('content-type', type);
  }
  clone() {
    if (this.bodyUsed) throw new TypeError('Body has already been consumed');
    return new Request(this, {});
  }
}

class Response extends Body {
  constructor(body = null, init = {}) {
    super();
    this.status = init.status === undefined ? 200 : init.status;
    this.statusText = init.statusText === undefined ? '' : String(init.statusText);
    this.headers = new Headers(init.headers);
    this.url = init.url || '';
    this.redirected = Boolean(init.redirected);
    this.type = 'basic';
    this._initBody(body);
    const type = defaultContentType(body);
    if (type && !this.headers.has('content-type')) this.headers.set('content-type', type);
  }
  get ok() {
    return this.status >= 200 && this.status < 300;
  }
  clone() {
    if (this.bodyUsed) throw new TypeError('Body has already been consumed');
    return new Response(this._bytes, {
      status: this.status,
      statusText: this.statusText,
      headers: this.headers,
      url: this.url,
      redirected: this.redirected,
    });
  }
  static json(data, init = {}) {
    const headers = new Headers(init.headers);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    return new Response(JSON.stringify(data), { ...init, headers });
  }
  static error() {
    const r = new Response(null, { status: 0 });
    r.type = 'error';
    return r;
  }
}

async function fetch(input, init = {}) {
  const request = new Request(input, init);
  request.signal.throwIfAborted();
  const headers = [];
  request.headers.forEach((v, k) => headers.push([k, v]));
  const bytes = request._bytes;
  const pending = host.fetch(request.url, {
    method: request.method,
    headers,
    bodyBase64: bytes ? btoa(bytesToBinary(bytes)) : undefined,
    redirect: request.redirect,
  });
  const aborted = new Promise((_, reject) => {
    if (request.signal.aborted) reject(request.signal.reason);
    request.signal.addEventListener('abort', () => reject(request.signal.reason));
  });
  const res = await Promise.race([pending, aborted]);
  if (res.error) throw new TypeError(`fetch failed: ${res.error}`);
  return new Response(binaryToBytes(atob(res.bodyBase64 || '')), {
    status: res.status,
    statusText: res.statusText,
    headers: res.headers,
    url: res.url,
    redirected: res.redirected,
  });
}

function structuredClone(value) {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

Object.assign(globalThis, {
  URL,
  URLSearchParams,
  atob,
  btoa,
  setTimeout,
  setInterval,
  clearTimeout,
  clearInterval: clearTimeout,
  queueMicrotask,
  crypto,
  DOMException,
  AbortController,
  AbortSignal,
  Headers,
  Request,
  Response,
  fetch,
  structuredClone,
  self: globalThis,
  window: undefined,
});

/**
 * The sandbox driver, called by the host for every execution: runs the compiled user script
 * (registered by `__assay.register`) with per-execution `$request`, `$response`, `$context`, `$log`
 * and `console`, calls the asked hook, and answers a JSON string.
 */
const registered = new Map();
let nextExecution = 1;
globalThis.__assay = {
  register(id, fn) {
    registered.set(id, fn);
  },
  async run(id, hook, inputJson) {
    const userFn = registered.get(id);
    registered.delete(id);
    const input = JSON.parse(inputJson);
    const logs = [];
    const maxLogs = 200;
    const write =
      (level) =>
      (...args) => {
        if (logs.length >= maxLogs) return;
        const message = args.map((a) => (typeof a === 'string' ? a : safeStringify(a))).join(' ');
        logs.push({ level, message: message.length > 10000 ? `${message.slice(0, 10000)}…` : message });
      };
    const $log = write('info');
    const console = {
      log: write('info'),
      info: write('info'),
      debug: write('debug'),
      warn: write('warn'),
      error: write('error'),
      trace: write('debug'),
    };
    const variables = { ...input.variables };
    const $context = Object.freeze({
      variables,
      get: (name) => variables[name],
      set: (name, value) => {
        variables[String(name)] = value;
      },
      unset: (name) => {
        delete variables[String(name)];
      },
      has: (name) => Object.prototype.hasOwnProperty.call(variables, name),
      nodes: input.nodes || {},
      loop: input.loop,
      loops: input.loops || (input.loop ? [input.loop] : []),
      runId: input.runId,
      testCase: input.testCase,
    });
    const $request = input.request;
    const $response = input.response;
    const { $test, tests, settle } = makeTests();
    const before = new Set(timers.keys());
    const execution = nextExecution++;
    try {
      const hooks = await userFn($request, $response, $context, $log, console, $test);
      let value;
      if (hook) {
        const fn = hooks && hooks[hook];
        if (typeof fn === 'function') value = await fn($request, $response, $context);
        else if (hook === 'generateValue') throw new Error('The script defines no generateValue function');
      }
      await settle();
      return safeStringify({ ok: true, request: $request, variables, value, logs, tests, execution });
    } catch (thrown) {
      // Described here, where the thrown value is still whole: isolated-vm's copy to the host keeps
      // only an Error's first stack line and turns any other value into a generic message.
      await settle();
      // The variables it set before it threw are kept, as its checks are (as Postman keeps them).
      return safeStringify({ ok: false, error: describeThrown(thrown), variables, logs, tests, execution });
    } finally {
      // Timers a finished execution left behind must not run into the next one.
      for (const id of timers.keys()) if (!before.has(id)) timers.delete(id);
    }
  },
};

/** Named checks a script records with `$test` (docs/flows.md "Scripts"): at most 200 per execution. */
const MAX_TESTS = 200;

/**
 * `$test(name, fn)`: runs `fn` and records `{name, passed, message?}`, as Postman's `pm.test` and
 * k6's `check` do: a check that throws fails (its error is the message), the script goes on. `fn`
 * may be async (its promise is awaited before the hook's result is sent) or take a `done`
 * callback (`done()` passes, `done(err)` fails; one never called fails when the hook ends).
 * `$test(name, true|false)` records a value directly. Answers whether it passed (undefined while
 * pending).
 */
function makeTests() {
  const tests = [];
  const pending = [];
  const record = (entry, passed, error) => {
    entry.passed = passed;
    if (!passed) entry.message = error === undefined ? 'failed' : thrownText(error, 0).slice(0, 2000);
  };
  const $test = (name, fn) => {
    const entry = { name: String(name === undefined ? '' : name).slice(0, 500), passed: false };
    if (tests.length >= MAX_TESTS) return false;
    tests.push(entry);
    if (typeof fn === 'boolean') {
      record(entry, fn, fn ? undefined : new Error('the value was false'));
      return fn;
    }
    if (typeof fn !== 'function') {
      record(entry, false, new TypeError('$test(name, fn): fn must be a function or a boolean'));
      return false;
    }
    try {
      if (fn.length > 0) {
        let finish;
        const done = new Promise((resolve) => (finish = resolve));
        entry.passed = undefined;
        pending.push({ entry, done, fromDone: true });
        const returned = fn((err) => finish(err === undefined || err === null ? { ok: true } : { ok: false, err }));
        if (returned && typeof returned.then === 'function')
          returned.then(undefined, (err) => finish({ ok: false, err }));
        return undefined;
      }
      const returned = fn();
      if (returned && typeof returned.then === 'function') {
        entry.passed = undefined;
        pending.push({
          entry,
          done: returned.then(
            () => ({ ok: true }),
            (err) => ({ ok: false, err }),
          ),
        });
        return undefined;
      }
      record(entry, true);
      return true;
    } catch (err) {
      record(entry, false, err);
      return false;
    }
  };
  const settle = async () => {
    for (const p of pending.splice(0)) {
      // A done-callback check gets up to a second more after the hook ended (the script's own time limit still applies).
      const outcome = p.fromDone
        ? await Promise.race([p.done, new Promise((r) => setTimeout(() => r(undefined), 1000))])
        : await p.done;
      if (outcome === undefined) record(p.entry, false, new Error('done() was never called'));
      else record(p.entry, outcome.ok, outcome.err);
    }
  };
  return { $test, tests, settle };
}

// Taken now: user code may delete or replace the global.
const AggregateErrorClass = globalThis.AggregateError;

/** Characters of an error's text and stack sent to the host; the host cuts the text to its own bound. */
const MAX_ERROR_TEXT = 8192;
const MAX_ERROR_STACK = 16384;

/** `name: message` of an Error or Error-like object (`name` and `message` strings). */
function isErrorLike(value) {
  if (value instanceof Error) return true;
  return (
    value !== null && typeof value === 'object' && typeof value.name === 'string' && typeof value.message === 'string'
  );
}

/** One line's worth of text for any thrown value, its causes (up to 3 deep) appended. */
function thrownText(value, depth) {
  if (isErrorLike(value)) {
    const name = typeof value.name === 'string' && value.name !== '' ? value.name : 'Error';
    const message = value.message === undefined || value.message === null ? '' : String(value.message);
    let text = message === '' ? name : `${name}: ${message}`;
    if (
      typeof AggregateErrorClass === 'function' &&
      value instanceof AggregateErrorClass &&
      Array.isArray(value.errors)
    ) {
      for (const inner of value.errors.slice(0, 5)) text += `\n  ${thrownText(inner, depth + 1)}`;
    }
    if (value.cause !== undefined && depth < 3) text += `\nCaused by: ${thrownText(value.cause, depth + 1)}`;
    return text;
  }
  // A value that is not an Error (`throw "x"`, `throw { code: 1 }`): shown as V8 shows it, "Uncaught …".
  if (typeof value === 'string') return `Uncaught ${JSON.stringify(value)}`;
  let shown;
  try {
    shown = safeStringify(value);
  } catch {
    shown = undefined;
  }
  return `Uncaught ${shown === undefined ? String(value) : shown}`;
}

/**
 * What the host reports for a value the user's script threw: `text` (`name: message`, the whole
 * message, multi-line JSON of a ZodError included; at most MAX_ERROR_TEXT characters), `length`
 * (of the whole text) and `stack` (for the line and column of the user's frame). Reading a hostile
 * value (a getter that throws) falls back to a fixed text.
 */
function describeThrown(value) {
  let text;
  let stack;
  try {
    text = thrownText(value, 0);
  } catch {
    text = 'Uncaught exception (its value could not be read)';
  }
  try {
    if (value !== null && typeof value === 'object' && typeof value.stack === 'string')
      stack = value.stack.slice(0, MAX_ERROR_STACK);
  } catch {
    stack = undefined;
  }
  return { text: text.slice(0, MAX_ERROR_TEXT), length: text.length, stack };
}

function safeStringify(value) {
  const seen = new WeakSet();
  return JSON.stringify(value, (_key, v) => {
    if (typeof v === 'bigint') return v.toString();
    if (typeof v === 'function') return undefined;
    if (v && typeof v === 'object') {
      if (seen.has(v)) return '[Circular]';
      seen.add(v);
    }
    return v;
  });
}
