/**
 * Assay's own API document and reference page (docs/api.md "The OpenAPI document"):
 *
 *   GET /v1/openapi.json          the OpenAPI 3.1 document (api/openapi/document.ts); no API key
 *   GET /docs                     the reference page: Scalar's API reference, standalone build
 *   GET /docs/assets/<file>       the page's scripts: the Scalar bundle (from node_modules, served as
 *                                 it is, gzip when accepted) and the page's init script
 *
 * Mounted before the /v1 pipeline (api/app.ts), so neither needs a key nor counts against a key's
 * rate limit. The page works offline: its Content-Security-Policy lets it load scripts and make
 * requests to this origin (and `ASSAY_PUBLIC_URL`'s, which the document names as its server) only,
 * and the reference is started with Scalar's default web fonts, telemetry, AI agent and MCP off.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import Router from '@koa/router';
import type { AssayConfig } from '../../src/config';
import type { AppContext, AppState } from '../context';
import { Problem } from '../problem';
import { openApiDocument } from './document';

/** The npm package of the reference page, and its standalone browser bundle inside it. */
export const SCALAR_PACKAGE = '@scalar/api-reference';
const SCALAR_BUNDLE = 'dist/browser/standalone.js';

/** Where the page's assets are served. */
export const DOCS_ASSETS = '/docs/assets';

/**
 * The folder of an installed package, looked for in the `node_modules` of this file's folder and
 * its parents (the package's `exports` do not expose the bundle to `require.resolve`); undefined
 * when it is not installed.
 */
export function installedPackageDir(name: string, from = __dirname): string | undefined {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (fs.existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** A served file: its bytes, gzip of them, and a strong ETag. */
interface Asset {
  body: Buffer;
  gzip: Buffer;
  etag: string;
  type: string;
}

function asset(body: Buffer, type: string): Asset {
  return {
    body,
    gzip: zlib.gzipSync(body, { level: 6 }),
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
    type,
  };
}

/** Sends `a` (304 on a matching `If-None-Match`; gzip when the client accepts it). */
function sendAsset(ctx: AppContext, a: Asset, cacheControl: string): void {
  ctx.set('ETag', a.etag);
  ctx.set('Cache-Control', cacheControl);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Vary', 'Accept-Encoding');
  if (
    ctx
      .get('If-None-Match')
      .split(',')
      .some((t) => t.trim() === a.etag)
  ) {
    ctx.status = 304;
    return;
  }
  ctx.type = a.type;
  if (ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
    ctx.set('Content-Encoding', 'gzip');
    ctx.body = a.gzip;
  } else {
    ctx.body = a.body;
  }
}

/** The Content-Security-Policy of the reference page: this origin (and the document's server) only. */
export function docsCsp(config: Pick<AssayConfig, 'api'>): string {
  let server = '';
  try {
    server = ` ${new URL(config.api.publicUrl).origin}`;
  } catch {
    /* not a URL: this origin only */
  }
  return [
    "default-src 'self'",
    "script-src 'self'",
    // Scalar injects its stylesheet and sets element styles.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self'${server}`,
    "worker-src 'self' blob:",
    "object-src 'none'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
  ].join('; ');
}

/** The page's start script: the reference of `/v1/openapi.json`, nothing fetched from elsewhere. */
const INIT_SCRIPT = `// Assay API reference (api/openapi/router.ts): Scalar's standalone build, offline.
Scalar.createApiReference('#app', {
  url: '/v1/openapi.json',
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: 'never',
  documentDownloadType: 'json',
  metaData: { title: 'Assay API reference' },
});
`;

function page(bundleFile: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Assay API reference</title>
<link rel="icon" href="data:,">
</head>
<body>
<div id="app"></div>
<script src="${DOCS_ASSETS}/${bundleFile}"></script>
<script src="${DOCS_ASSETS}/init.js"></script>
</body>
</html>
`;
}

/** The routes of the module comment. `scalarDir` overrides where the Scalar package is found (tests). */
export function openApiRouter(
  { config }: { config: AssayConfig },
  scalarDir = installedPackageDir(SCALAR_PACKAGE),
): Router<AppState> {
  const router = new Router<AppState>();
  let documentAsset: Asset | undefined;
  let bundle: { file: string; asset?: Asset } | undefined;
  const init = asset(Buffer.from(INIT_SCRIPT, 'utf8'), 'text/javascript; charset=utf-8');

  /** The bundle's file name (with the package version, so it can be cached for good), or undefined when not installed. */
  function bundleInfo(): { file: string; asset?: Asset } | undefined {
    if (bundle || !scalarDir) return bundle;
    const source = path.join(scalarDir, SCALAR_BUNDLE);
    if (!fs.existsSync(source)) return undefined;
    const { version } = JSON.parse(fs.readFileSync(path.join(scalarDir, 'package.json'), 'utf8')) as {
      version: string;
    };
    bundle = { file: `scalar-api-reference-${version}.js` };
    return bundle;
  }

  router.get('/v1/openapi.json', (ctx) => {
    documentAsset ??= asset(
      Buffer.from(JSON.stringify(openApiDocument(config)), 'utf8'),
      'application/json; charset=utf-8',
    );
    ctx.set('Access-Control-Allow-Origin', '*');
    sendAsset(ctx, documentAsset, 'no-cache');
  });

  router.get('/docs', (ctx) => {
    const info = bundleInfo();
    if (!info)
      throw new Problem(
        'not-found',
        `The API reference page needs the npm package ${SCALAR_PACKAGE} (npm install); the document itself is at /v1/openapi.json.`,
      );
    ctx.set('Content-Security-Policy', docsCsp(config));
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = page(info.file);
  });

  router.get(`${DOCS_ASSETS}/:file`, (ctx) => {
    if (ctx.params.file === 'init.js') return sendAsset(ctx, init, 'no-cache');
    const info = bundleInfo();
    if (!info || ctx.params.file !== info.file)
      throw new Problem('not-found', `No reference page file "${ctx.params.file}".`);
    info.asset ??= asset(fs.readFileSync(path.join(scalarDir!, SCALAR_BUNDLE)), 'text/javascript; charset=utf-8');
    sendAsset(ctx, info.asset, 'public, max-age=31536000, immutable');
  });

  return router;
}
