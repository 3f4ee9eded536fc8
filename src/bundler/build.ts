/**
 * One bundle: esbuild turns an ES module at a URL, with everything it imports, into one classic
 * script (an IIFE) that assigns the library to a global (docs/bundler.md "How a URL becomes a
 * script").
 *
 * An esbuild plugin resolves and loads every import over HTTP(S) through {@link ModuleFetcher}:
 *
 * - full URLs as they are; `/x`, `./x`, `../x` and `//host/x` against the importing module's
 *   final URL;
 * - bare specifiers (`import 'react'`, as unpkg's raw files carry them) against the importing
 *   module's CDN: `https://cdn.jsdelivr.net/npm/<spec>/+esm` under jsDelivr's `/npm/`, else
 *   `<origin>/<spec>` (unpkg, esm.sh and mirrors of them answer that with the package's entry);
 * - Node built-ins (`fs`, `node:path`): an `import` of one is refused (`node-builtin`); a
 *   `require()` of one is left out with a warning, as browser builds do (it throws only if
 *   called, and libraries call it inside try/catch);
 * - other schemes (`data:`, `file:`) and `#subpath` imports are refused (`unsupported-import`).
 *
 * Loaders follow the final URL and content type: JSON as JSON, `.ts`/`.tsx`/`.jsx` as such,
 * CSS as empty (with a warning: scripts have no page to style), the rest as JavaScript. Output:
 * ES2022, `platform: browser`, `process.env.NODE_ENV` defined as "production", minified unless
 * asked otherwise.
 */
import { builtinModules } from 'node:module';
import { createHash } from 'node:crypto';
import * as esbuild from 'esbuild';
import { BundleError } from './errors';
import { ModuleFetcher, type FetchLimits } from './fetcher';
import type { AddressPolicy } from '../net/address-policy';
import { TEMPORARY_GLOBAL, wrapperFor } from './names';

/** What to bundle. */
export interface BuildInput {
  /** The entry module (http or https). */
  url: string;
  /** The global to assign, already checked (names.ts). */
  globalName: string;
  minify: boolean;
  defaultAccessPath?: string;
}

/** The limits of one build: fetch limits, the output cap (bytes) and the deadline (ms). */
export interface BuildLimits extends FetchLimits {
  maxOutputBytes: number;
  buildTimeoutMs: number;
}

/** One module that went into a bundle. */
export interface BundledModule {
  url: string;
  sha256: string;
  bytes: number;
}

/** A bundle made. */
export interface BuildOutput {
  code: string;
  /** The entry's URL after redirects. */
  finalUrl: string;
  /** The modules in the bundle, by URL. */
  modules: BundledModule[];
  /** SHA-256 over the modules' URLs and content hashes: the same sources give the same value. */
  sourcesHash: string;
  /** Things the user should know that did not stop the bundle. */
  warnings: string[];
}

const NAMESPACE = 'assay-url';
const BUILTINS = new Set(builtinModules.filter((m) => !m.startsWith('_')));

function isNodeBuiltin(spec: string): boolean {
  if (spec.startsWith('node:')) return true;
  return !spec.startsWith('@') && BUILTINS.has(spec.split('/')[0]!);
}

/** Where a bare specifier is fetched from, given the importing module's URL (see the module doc). */
export function bareSpecifierUrl(spec: string, importer: URL): string {
  if (importer.hostname === 'cdn.jsdelivr.net' && importer.pathname.startsWith('/npm/'))
    return `${importer.origin}/npm/${spec}/+esm`;
  return `${importer.origin}/${spec}`;
}

function loaderFor(url: string, contentType: string): esbuild.Loader {
  const path = new URL(url).pathname.toLowerCase();
  if (contentType === 'application/json' || path.endsWith('.json')) return 'json';
  if (/\.m?ts$/.test(path)) return 'ts';
  if (path.endsWith('.tsx')) return 'tsx';
  if (path.endsWith('.jsx')) return 'jsx';
  if (contentType === 'text/css' || path.endsWith('.css')) return 'empty';
  return 'js';
}

/** The location of an esbuild message, with our namespace taken off the file name. */
function locationOf(message: esbuild.Message): Record<string, unknown> {
  const loc = message.location;
  if (!loc) return {};
  return {
    url: loc.file.replace(new RegExp(`^${NAMESPACE}:`), ''),
    line: loc.line,
    column: loc.column,
    lineText: loc.lineText.slice(0, 300),
  };
}

/** Turns esbuild's failure into the matching {@link BundleError}. */
function explain(errors: esbuild.Message[], first: BundleError | undefined): BundleError {
  if (first) return first;
  const e = errors[0];
  if (!e) return new BundleError('bundle-failed', 'esbuild failed without a message.');
  const where = locationOf(e);
  const at = where.url ? ` (${String(where.url)}:${String(where.line)}:${String(where.column)})` : '';
  if (/top-level await/i.test(e.text)) {
    return new BundleError(
      'top-level-await',
      `The library uses top-level await${at}, which a classic script (what the sandbox loads) cannot contain. Use a build of the library without it, or an earlier version.`,
      where,
    );
  }
  if (e.location && !/not supported|cannot be used|is not available/i.test(e.text)) {
    return new BundleError('module-syntax-error', `Syntax error${at}: ${e.text}`, { ...where, message: e.text });
  }
  return new BundleError('bundle-failed', `esbuild could not bundle the library${at}: ${e.text}`, {
    ...where,
    message: e.text,
  });
}

/**
 * Fetches and bundles `input.url`.
 * @throws BundleError (every 4xx of docs/bundler.md "Errors")
 */
export async function buildBundle(input: BuildInput, policy: AddressPolicy, limits: BuildLimits): Promise<BuildOutput> {
  const deadline = new AbortController();
  const fetcher = new ModuleFetcher(policy, limits, deadline.signal);
  const warnings: string[] = [];
  let firstError: BundleError | undefined;
  const fail = (err: BundleError): never => {
    firstError ??= err;
    throw err;
  };

  const plugin: esbuild.Plugin = {
    name: 'assay-http',
    setup(build) {
      build.onResolve({ filter: /.*/ }, async (args) => {
        let target: string;
        let role: string;
        if (args.kind === 'entry-point') {
          target = args.path;
          role = 'The library URL';
        } else {
          const importer = new URL(args.importer);
          const spec = args.path;
          role = `An import in ${importer.href}`;
          if (isNodeBuiltin(spec)) {
            if (args.kind === 'require-call' || args.kind === 'require-resolve') {
              warnings.push(
                `${importer.href} requires the Node built-in "${spec}"; it is left out (calling it in a script throws).`,
              );
              return { path: spec, external: true };
            }
            return fail(
              new BundleError(
                'node-builtin',
                `${importer.href} imports the Node built-in "${spec}"; scripts run without Node APIs. Use a browser build of the library (esm.sh replaces built-ins with browser versions).`,
                {
                  url: importer.href,
                  specifier: spec,
                },
              ),
            );
          }
          if (/^https?:\/\//i.test(spec)) target = spec;
          else if (/^(\/|\.\/|\.\.\/|\.$|\.\.$)/.test(spec)) target = new URL(spec, importer).href;
          else if (/^[a-z][a-z0-9+.-]*:/i.test(spec) || spec.startsWith('#')) {
            return fail(
              new BundleError(
                'unsupported-import',
                `${importer.href} imports "${spec}"; the bundler follows only http and https imports and package names.`,
                { url: importer.href, specifier: spec },
              ),
            );
          } else target = bareSpecifierUrl(spec, importer);
        }
        try {
          const module = await fetcher.fetch(target, role);
          return { path: module.url, namespace: NAMESPACE };
        } catch (err) {
          return fail(
            err instanceof BundleError
              ? err
              : new BundleError('module-fetch-failed', `${target} could not be fetched: ${(err as Error).message}`, {
                  url: target,
                }),
          );
        }
      });
      build.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => {
        const module = fetcher.loaded(args.path);
        if (!module)
          return fail(
            new BundleError('module-fetch-failed', `${args.path} was resolved but not fetched.`, { url: args.path }),
          );
        const loader = loaderFor(module.url, module.contentType);
        if (loader === 'empty') warnings.push(`${module.url} is a stylesheet; it is left out.`);
        return { contents: module.body, loader };
      });
    },
  };

  const wrapper = wrapperFor(input);
  const context = await esbuild.context({
    entryPoints: [input.url],
    bundle: true,
    write: false,
    format: 'iife',
    globalName: TEMPORARY_GLOBAL,
    platform: 'browser',
    target: 'es2022',
    minify: input.minify,
    legalComments: input.minify ? 'eof' : 'inline',
    define: { 'process.env.NODE_ENV': '"production"' },
    banner: { js: wrapper.banner },
    footer: { js: wrapper.footer },
    logLevel: 'silent',
    plugins: [plugin],
  });
  const timer = setTimeout(() => {
    const err = new BundleError(
      'bundle-timeout',
      `The bundle took longer than ${limits.buildTimeoutMs} ms (ASSAY_BUNDLER_BUILD_TIMEOUT_MS).`,
      { buildTimeoutMs: limits.buildTimeoutMs },
    );
    firstError ??= err;
    deadline.abort(err);
    void context.cancel();
  }, limits.buildTimeoutMs);
  let result: esbuild.BuildResult;
  try {
    result = await context.rebuild();
  } catch (err) {
    const failure = err as esbuild.BuildFailure;
    throw explain(failure.errors ?? [], firstError);
  } finally {
    clearTimeout(timer);
    await context.dispose();
  }
  if (firstError) throw firstError;
  const out = result.outputFiles?.[0];
  if (!out) throw new BundleError('bundle-failed', 'esbuild produced no output.');
  const code = out.text;
  const size = Buffer.byteLength(code);
  if (size > limits.maxOutputBytes) {
    throw new BundleError(
      'bundle-too-large',
      `The bundle is ${size} bytes, over the cap of ${limits.maxOutputBytes} (ASSAY_BUNDLER_MAX_OUTPUT_BYTES).`,
      { size, maxOutputBytes: limits.maxOutputBytes },
    );
  }
  const modules = fetcher
    .modules()
    .map((m) => ({ url: m.url, sha256: m.sha256, bytes: m.body.length }))
    .sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
  const sourcesHash = createHash('sha256')
    .update(modules.map((m) => `${m.url} ${m.sha256}`).join('\n'))
    .digest('hex');
  const entry = await fetcher.fetch(input.url, 'The library URL');
  return { code, finalUrl: entry.url, modules, sourcesHash, warnings: [...new Set(warnings)] };
}
