/**
 * The web console (docs/console.md), served by the API under `/` from the Vite build in
 * `config.api.consoleDir`. Same origin as the REST API, so the console calls `/v1` without CORS.
 *
 * - GET/HEAD only, and never for the service's own paths (`/v1`, `/problems`, `/healthz`, `/libs`, `/cli`,
 *   `/webhooks`, `/mock`, `/codec`, `/docs`): those keep their routers and their problem+json 404s.
 * - A file of the build (`/assets/index-3f2a….js`) is sent as it is; hashed assets are cached for a
 *   year (`immutable`), since a new build gives them new names.
 * - Any other path is a console route (`/runs/run_01…`): `index.html`, never cached, so a reload
 *   of any page works and a new build is picked up at once.
 * - Every answer carries a Content-Security-Policy: scripts and styles from this origin only
 *   (styles inline too: CodeMirror and uPlot set element styles), no frames, no plugins;
 *   `connect-src *` because local requests are sent by the browser to any address the user types
 *   (the interface spec's "Local request": never through Assay unless the user picks the relay).
 *
 * - Answers over 1 KiB are compressed (koa-compress: brotli or gzip as the browser accepts): the
 *   bundle is about 700 KB, mostly CodeMirror, and about a third of that compressed.
 *
 * When the folder holds no build (`npm run build` not run), console paths answer 404 `not-found`
 * saying how to build it.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Middleware } from 'koa';
import zlib from 'node:zlib';
import { send } from '@koa/send';
import compress from 'koa-compress';
import type { AppState } from './context';
import { Problem } from './problem';

/** Paths that belong to the service, never to the console (case-insensitive like the routers). */
export const SERVICE_PATHS = /^\/(v1|problems|healthz|libs|cli|webhooks|mock|codec|docs)(\/|$)/i;

/** The console's Content-Security-Policy (see the module comment for each source). */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  'connect-src *',
  "object-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

/** Serves the console build in `dir` (see the module comment). Install after the routers. */
export function serveConsole(dir: string): Middleware<AppState> {
  const compressor = compress({
    threshold: 1024,
    br: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } },
    gzip: { level: 6 },
  });
  const serve = consoleFiles(dir);
  return (ctx, next) => {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || SERVICE_PATHS.test(ctx.path)) return next();
    return compressor(ctx, () => serve(ctx, next));
  };
}

/** The console's files and routes (see the module comment), uncompressed; {@link serveConsole} chose the request. */
function consoleFiles(dir: string): Middleware<AppState> {
  const index = path.join(dir, 'index.html');
  return async (ctx, next) => {
    if (!fs.existsSync(index)) {
      await next();
      if (ctx.body == null && ctx.status === 404)
        throw new Problem(
          'not-found',
          'The web console is not built: run `npm run build` (or `make install`), or set ASSAY_CONSOLE_DIR.',
        );
      return;
    }
    ctx.set('Content-Security-Policy', CONSOLE_CSP);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('X-Frame-Options', 'DENY');
    const asFile = ctx.path !== '/' && path.extname(ctx.path) !== '';
    if (asFile) {
      const immutable = ctx.path.startsWith('/assets/');
      const sent = await send(ctx, ctx.path, {
        root: dir,
        index: false,
        immutable,
        maxage: immutable ? 365 * 24 * 3600 * 1000 : 0,
      }).catch((err: { status?: number }) => {
        if (err.status === 404) return undefined;
        throw err;
      });
      if (sent) return;
      // A missing asset is a 404, not index.html: a stale page asking for an old bundle must fail
      // visibly instead of parsing HTML as JavaScript.
      if (ctx.path.startsWith('/assets/')) throw new Problem('not-found', `No console file ${ctx.path}.`);
    }
    await send(ctx, 'index.html', { root: dir, index: false });
    ctx.set('Cache-Control', 'no-cache');
  };
}
