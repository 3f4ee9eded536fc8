/**
 * The global a bundle defines: checking a `globalName` or `defaultAccessPath`, and detecting a
 * name from the library URL when the request gives none (docs/bundler.md "Global name").
 *
 * Detection rule, first match wins:
 *   1. the first path segment naming a versioned package, `name@version` or `@scope/name@version`
 *      (jspm's `npm:name@version` too): the package name without its scope
 *      (`/npm/@faker-js/faker@9.8.0/+esm` → `faker`, `/lodash-es@4.17.21/lodash.js` → `lodash-es`);
 *   2. else the last path segment that is not a generic build word (`index`, `+esm`, `dist`,
 *      `es2022`, …), without its extensions (`/libs/my-lib.min.js` → `my-lib`);
 *   then turned into camelCase (`lodash-es` → `lodashEs`, `date-fns` → `dateFns`), with `_` in
 *   front when it would start with a digit.
 *
 * A name is a JavaScript identifier or a dotted path of identifiers (`acme.utils`). Its first
 * segment becomes a global of the script sandbox, so it may not be a reserved word, a standard
 * global (`JSON`, `URL`, `fetch`, …) or one of the sandbox's own names (`_`, `z`, `faker`, `ky`,
 * `luxon`, `$context`, …): replacing those would break every script of the run.
 */
import { runInNewContext } from 'node:vm';
import { LIBRARIES } from '../sandbox/libraries';

/** An identifier or a dotted path of identifiers. */
export const DOTTED_NAME = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/;

const RESERVED_WORDS = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally for function if import in ' +
    'instanceof new null return super switch this throw true try typeof var void while with yield let static implements interface package ' +
    'private protected public await arguments eval undefined NaN Infinity'
  ).split(' '),
);

/** Globals scripts rely on: ECMAScript's, the sandbox runtime's (src/sandbox/runtime/bootstrap.js), the hook objects, the built-in libraries. */
const SANDBOX_GLOBALS = new Set<string>([
  ...(runInNewContext('Object.getOwnPropertyNames(globalThis)') as string[]),
  ...'URL URLSearchParams atob btoa setTimeout setInterval clearTimeout clearInterval queueMicrotask crypto DOMException AbortController AbortSignal Headers Request Response fetch structuredClone self window TextEncoder TextDecoder'.split(
    ' ',
  ),
  ...'$request $response $context $log console __assay'.split(' '),
  ...LIBRARIES.filter((l) => l.kind === 'builtin').map((l) => l.global),
]);

/** Why `name` cannot be a bundle's global, or undefined when it can. */
export function globalNameProblem(name: string): string | undefined {
  if (!DOTTED_NAME.test(name))
    return `"${name}" is not an identifier or a dotted path of identifiers (like myLib or acme.utils)`;
  const first = name.split('.')[0]!;
  if (RESERVED_WORDS.has(first)) return `"${first}" is a reserved word of JavaScript`;
  if (SANDBOX_GLOBALS.has(first)) return `"${first}" is already a global of the script sandbox; choose another name`;
  return undefined;
}

/** Why `path` cannot be a `defaultAccessPath`, or undefined when it can. */
export function accessPathProblem(path: string): string | undefined {
  return DOTTED_NAME.test(path)
    ? undefined
    : `"${path}" is not a property name or a dotted path of property names (like default or default.utils)`;
}

const GENERIC_SEGMENTS = new Set(
  'index main mod module modules browser bundle bundles +esm esm es es5 es6 dist build lib src umd cjs npm gh v1 min prod production development'.split(
    ' ',
  ),
);

/** The package name a URL names by rule 1, if any. */
function versionedPackage(segments: string[]): string | undefined {
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!.replace(/^npm:/, '');
    const next = segments[i + 1];
    if (seg.startsWith('@') && next && /^[^@]+@[^@]+$/.test(next)) return next.split('@')[0];
    if (!seg.startsWith('@') && /^[^@]+@[^@]+$/.test(seg)) return seg.split('@')[0];
  }
  return undefined;
}

function camelCase(raw: string): string | undefined {
  const parts = raw.split(/[^A-Za-z0-9_$]+/).filter(Boolean);
  if (parts.length === 0) return undefined;
  const joined = parts.map((p, i) => (i === 0 ? p : p[0]!.toUpperCase() + p.slice(1))).join('');
  return /^\d/.test(joined) ? `_${joined}` : joined;
}

/** The global name detected from a library URL by the rule above, or undefined when none can be made. */
export function detectGlobalName(url: URL): string | undefined {
  const segments = url.pathname
    .split('/')
    .filter(Boolean)
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    });
  const pkg = versionedPackage(segments);
  if (pkg) return camelCase(pkg);
  for (let i = segments.length - 1; i >= 0; i--) {
    const stem = segments[i]!.replace(/(\.(m?js|cjs|ts|mts|jsx|tsx))$/i, '').replace(
      /\.(min|esm|module|browser|umd|prod|production|development)$/i,
      '',
    );
    if (!stem || GENERIC_SEGMENTS.has(stem.toLowerCase()) || /^es20\d\d$|^v\d+$/i.test(stem)) continue;
    return camelCase(stem.replace(/^@/, ''));
  }
  return undefined;
}

/**
 * Whether a URL pins its library: a `name@version` segment whose version is exact (`1.2.3`,
 * `1.2.3-beta.1`), not a range or tag (`@4`, `@latest`). Bundles of unpinned URLs are built
 * again after `ASSAY_BUNDLER_UNPINNED_TTL_SECONDS`.
 */
export function isPinned(url: URL): boolean {
  return /@v?\d+\.\d+\.\d+([-+][\w.-]+)?(\/|$)/.test(decodeURIComponent(url.pathname));
}

const jsString = (s: string | string[]) => JSON.stringify(s);

/**
 * The code around esbuild's IIFE. esbuild puts the module's exports (the namespace: named
 * exports, and `default` when there is one) in `var __assay_lib`; the banner scopes that var to
 * a function, and the footer walks `defaultAccessPath` (throwing a clear error when the library
 * has no such export) and assigns the result to the dotted global, creating the objects in
 * between.
 */
export function wrapperFor(options: { url: string; globalName: string; defaultAccessPath?: string }): {
  banner: string;
  footer: string;
} {
  const comment = `/* ${options.globalName}: bundled by Assay from ${options.url.replace(/\*\//g, '*\\/')} */`;
  const access = options.defaultAccessPath ? options.defaultAccessPath.split('.') : [];
  const names = options.globalName.split('.');
  const footer = [
    'var v = __assay_lib;',
    access.length
      ? `${jsString(access)}.forEach(function (k) { if (v == null || !(k in Object(v))) throw new Error(${jsString(`Library ${options.globalName} (${options.url}): the module has no export "${options.defaultAccessPath}" (defaultAccessPath)`)}); v = v[k]; });`
      : '',
    `var g = globalThis, n = ${jsString(names)};`,
    'for (var i = 0; i < n.length - 1; i++) g = g[n[i]] != null ? g[n[i]] : (g[n[i]] = {});',
    'g[n[n.length - 1]] = v;',
    '})();',
  ]
    .filter(Boolean)
    .join('\n');
  return { banner: `${comment}\n(function () {`, footer };
}

/** The temporary name esbuild gives the IIFE's result (function-scoped by the banner). */
export const TEMPORARY_GLOBAL = '__assay_lib';
