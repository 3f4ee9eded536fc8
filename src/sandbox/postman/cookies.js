/* global URL */
/**
 * Cookies of imported Postman scripts (docs/import-postman.md "Cookies"): Newman keeps one cookie
 * jar for the run (tough-cookie, filled from responses' `Set-Cookie`, sent with every request to a
 * matching URL); `pm.cookies` is the jar's cookies for the request's URL after the response, and
 * `pm.cookies.jar()` reads and changes the jar (postman-sandbox lib/sandbox/cookie-jar.js).
 *
 * Assay keeps that jar in the test case's variable `__postman` (`cookies`), which the Postman
 * library reads and writes around each imported request: Set-Cookie of the response goes in,
 * and the jar's cookies for the URL go out as the request's `Cookie` header. The rules are
 * RFC 6265's (domain and path matching, host-only cookies, Max-Age over Expires, Secure only over
 * https), in tough-cookie's loose mode as Postman uses it (a cookie without `=` is a value with an
 * empty name).
 */

/** A cookie as Postman's `Cookie` shows it (postman-collection's Cookie JSON). */
function cookieView(c) {
  const view = {
    name: c.name,
    value: c.value,
    expires: c.expires === null || c.expires === undefined ? null : new Date(c.expires),
    maxAge: c.maxAge,
    domain: c.domain,
    path: c.path,
    secure: Boolean(c.secure),
    httpOnly: Boolean(c.httpOnly),
    hostOnly: Boolean(c.hostOnly),
  };
  Object.defineProperty(view, 'key', { get: () => view.name, enumerable: false });
  Object.defineProperty(view, 'valueOf', { value: () => view.value, enumerable: false });
  Object.defineProperty(view, 'toString', {
    value: () =>
      `${view.name}=${view.value}${view.path ? `; Path=${view.path}` : ''}${view.domain && !view.hostOnly ? `; Domain=${view.domain}` : ''}`,
    enumerable: false,
  });
  return view;
}

/** A PropertyList of cookies, as `pm.cookies` and `jar().getAll()` give it (get, has, one, toObject, …). */
export function cookieList(cookies) {
  const members = cookies.map(cookieView);
  const find = (name) => {
    for (let i = members.length - 1; i >= 0; i--) if (members[i].name === String(name)) return members[i];
    return undefined;
  };
  const list = {
    members,
    get: (name) => find(name)?.value,
    one: (name) => find(name),
    has: (name, value) => {
      const c = find(name);
      return c !== undefined && (value === undefined || c.value === value);
    },
    all: () => members.slice(),
    count: () => members.length,
    idx: (i) => members[i],
    each: (fn) => members.forEach((c) => fn(c)),
    map: (fn) => members.map((c) => fn(c)),
    filter: (fn) => members.filter((c) => fn(c)),
    find: (fn) => members.find((c) => fn(c)),
    toObject: () => {
      const o = {};
      for (const c of members) o[c.name] = c.value;
      return o;
    },
    toJSON: () => members.map((c) => ({ ...c })),
    toString: () => members.map((c) => `${c.name}=${c.value}`).join('; '),
  };
  return list;
}

function parseUrl(url) {
  const text = url && typeof url === 'object' && typeof url.toString === 'function' ? url.toString() : url;
  if (typeof text !== 'string' || !text) return undefined;
  try {
    return new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`);
  } catch {
    return undefined;
  }
}

/** RFC 6265 5.1.4 default-path of a request path. */
function defaultPath(pathname) {
  if (!pathname || pathname[0] !== '/') return '/';
  const i = pathname.lastIndexOf('/');
  return i <= 0 ? '/' : pathname.slice(0, i);
}

function domainMatch(host, domain) {
  host = host.toLowerCase();
  domain = domain.toLowerCase();
  return host === domain || (host.endsWith(`.${domain}`) && !/^[\d.]+$/.test(host));
}

function pathMatch(requestPath, cookiePath) {
  if (requestPath === cookiePath) return true;
  if (!requestPath.startsWith(cookiePath)) return false;
  return cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/';
}

/**
 * One `Set-Cookie` value for `url` as a stored cookie, or undefined when it is not acceptable
 * for that URL (a Domain the host does not match). `now`: epoch ms.
 */
export function parseSetCookie(text, url, now) {
  const parts = String(text).split(';');
  const first = parts.shift();
  const eq = first.indexOf('=');
  const name = (eq < 0 ? '' : first.slice(0, eq)).trim();
  const value = (eq < 0 ? first : first.slice(eq + 1)).trim();
  const c = { name, value, domain: url.hostname, path: defaultPath(url.pathname), hostOnly: true, expires: null };
  let maxAge;
  for (const part of parts) {
    const i = part.indexOf('=');
    const key = (i < 0 ? part : part.slice(0, i)).trim().toLowerCase();
    const v = i < 0 ? '' : part.slice(i + 1).trim();
    if (key === 'domain' && v) {
      const d = v.replace(/^\./, '').toLowerCase();
      if (!domainMatch(url.hostname, d)) return undefined;
      c.domain = d;
      c.hostOnly = false;
    } else if (key === 'path') c.path = v && v[0] === '/' ? v : defaultPath(url.pathname);
    else if (key === 'max-age' && /^-?\d+$/.test(v)) maxAge = Number(v);
    else if (key === 'expires') {
      const t = Date.parse(v);
      if (!Number.isNaN(t)) c.expires = t;
    } else if (key === 'secure') c.secure = true;
    else if (key === 'httponly') c.httpOnly = true;
  }
  if (maxAge !== undefined) {
    c.maxAge = maxAge;
    c.expires = maxAge <= 0 ? 0 : now + maxAge * 1000;
  }
  return c;
}

/**
 * `Set-Cookie` header values of a response: Assay joins repeated headers with `, `, which
 * also occurs inside an `Expires` date; a new cookie starts where `, ` is followed by `name=`.
 */
export function splitSetCookie(header) {
  if (header === undefined || header === null || header === '') return [];
  if (Array.isArray(header)) return header.map(String);
  return String(header).split(/,\s*(?=[^;,\s=]+=)/);
}

/** The test case's cookie jar: a list of stored cookies in `__postman.cookies`. */
export class Jar {
  constructor(cookies, now = Date.now()) {
    this.now = now;
    this.cookies = (Array.isArray(cookies) ? cookies : []).filter((c) => c && !this.expired(c));
  }

  expired(c) {
    return c.expires !== null && c.expires !== undefined && c.expires <= this.now;
  }

  /** Stores `cookie` (a stored cookie) as a Set-Cookie would: an expired one removes its namesake. */
  put(cookie) {
    const same = (c) => c.name === cookie.name && c.domain === cookie.domain && c.path === cookie.path;
    const old = this.cookies.find(same);
    this.cookies = this.cookies.filter((c) => !same(c));
    if (!this.expired(cookie)) this.cookies.push({ ...cookie, created: old ? old.created : this.now });
  }

  /** Stores a response's `Set-Cookie` values (one string or several) for `url`. */
  receive(url, setCookie) {
    const u = parseUrl(url);
    if (!u) return;
    for (const text of splitSetCookie(setCookie)) {
      const c = parseSetCookie(text, u, this.now);
      if (c) this.put(c);
    }
  }

  /** The cookies sent to `url`: longest path first, then oldest (RFC 6265 5.4). */
  match(url, options = {}) {
    const u = parseUrl(url);
    if (!u) return [];
    const host = u.hostname.toLowerCase();
    const secure = options.secure === undefined ? u.protocol === 'https:' : options.secure;
    return this.cookies
      .filter((c) => (c.hostOnly ? host === c.domain.toLowerCase() : domainMatch(host, c.domain)))
      .filter((c) => pathMatch(u.pathname || '/', c.path || '/'))
      .filter((c) => !c.secure || secure)
      .filter((c) => options.http !== false || !c.httpOnly)
      .sort((a, b) => (b.path || '').length - (a.path || '').length || (a.created ?? 0) - (b.created ?? 0));
  }

  /** The `Cookie` header value for `url`, or undefined when no cookie matches. */
  header(url) {
    const cookies = this.match(url);
    return cookies.length ? cookies.map((c) => (c.name ? `${c.name}=${c.value}` : c.value)).join('; ') : undefined;
  }

  remove(url, name) {
    const hit = this.match(url).filter((c) => name === undefined || c.name === name);
    if (name !== undefined) hit.splice(1);
    this.cookies = this.cookies.filter((c) => !hit.includes(c));
  }

  toJSON() {
    return this.cookies;
  }
}

/** `dualModeFunction` of postman-sandbox: a promise without a callback, else the callback later. */
function dual(fn, callback, callbackRequired, track) {
  const promise = new Promise((resolve, reject) => {
    try {
      resolve(fn());
    } catch (err) {
      reject(err);
    }
  });
  if (callback === undefined) return track(promise);
  if (typeof callback !== 'function' && callbackRequired) throw new TypeError('callback needs to be a function');
  track(
    promise.then(
      (result) => typeof callback === 'function' && callback(null, result),
      (err) => typeof callback === 'function' && callback(err instanceof Error ? err : new Error(err)),
    ),
  );
  return undefined;
}

/**
 * `pm.cookies.jar()`: get, getAll, set, unset, clear over `jar`, with Postman's argument checks,
 * callbacks (or promises without one). `track` registers each operation so the hook waits for it.
 */
export function jarApi(jar, track) {
  const needUrl = (what, url) => {
    const u = parseUrl(url);
    if (!u) throw new TypeError(`CookieJar.${what}() requires a valid url`);
    return u.href;
  };
  return {
    get(url, name, callback) {
      return dual(
        () => {
          const href = needUrl('get', url);
          if (typeof name !== 'string') throw new TypeError('CookieJar.get() requires cookie name to be a string');
          const c = jar.match(href).find((x) => x.name === name);
          return c ? c.value : null;
        },
        callback,
        true,
        track,
      );
    },
    getAll(url, options, callback) {
      if (typeof options === 'function' && !callback) {
        callback = options;
        options = {};
      }
      if (options === undefined) options = {};
      return dual(
        () => {
          const href = needUrl('getAll', url);
          if (typeof options !== 'object' || options === null)
            throw new TypeError('CookieJar.getAll() requires options to be an object');
          const http = Object.hasOwn(options, 'http') ? Boolean(options.http) : true;
          const secure = Object.hasOwn(options, 'secure') ? Boolean(options.secure) : undefined;
          return cookieList(jar.match(href, { http, secure }));
        },
        callback,
        true,
        track,
      );
    },
    set(url, name, value, callback) {
      if (typeof value === 'function' && !callback) {
        callback = value;
        value = null;
      }
      return dual(
        () => {
          const href = needUrl('set', url);
          const u = new URL(href);
          let cookie;
          if (name && value) cookie = parseSetCookie(`${name}=${value}`, u, jar.now);
          else if (name && typeof name === 'object') {
            const n = name.name ?? name.key;
            cookie = parseSetCookie(`${n}=${name.value ?? ''}`, u, jar.now);
            if (cookie) {
              if (name.path) cookie.path = name.path;
              if (name.domain) {
                cookie.domain = String(name.domain).replace(/^\./, '');
                cookie.hostOnly = Boolean(name.hostOnly);
              }
              if (name.secure) cookie.secure = true;
              if (name.httpOnly) cookie.httpOnly = true;
              if (name.expires) cookie.expires = new Date(name.expires).getTime();
            }
          } else if (typeof name === 'string') cookie = parseSetCookie(name, u, jar.now);
          else throw new TypeError('CookieJar.set() requires a valid set cookie arguments');
          if (!cookie) throw new Error("Cookie not in this host's domain");
          jar.put(cookie);
          return cookieView(cookie);
        },
        callback,
        false,
        track,
      );
    },
    unset(url, name, callback) {
      return dual(
        () => {
          const href = needUrl('unset', url);
          if (typeof name !== 'string') throw new TypeError('CookieJar.unset() requires cookie name to be a string');
          jar.remove(href, name);
          return undefined;
        },
        callback,
        false,
        track,
      );
    },
    clear(url, callback) {
      return dual(
        () => {
          jar.remove(needUrl('clear', url));
          return undefined;
        },
        callback,
        false,
        track,
      );
    },
  };
}
