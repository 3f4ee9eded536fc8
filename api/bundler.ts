/**
 * The bundler service's HTTP interface (spec "Bundler request"; docs/bundler.md), on its own port:
 *
 *   POST /api/bundle        {url, globalName?, minify?, includeCode?, defaultAccessPath?}
 *                           → 200 {globalName, cached, size, url, blobUrl, code?, finalUrl,
 *                             sha256, modules, sourcesHash, pinned, builtAt, warnings}
 *                           Needs `Authorization: Bearer <API_KEY>` (any scope) unless
 *                           ASSAY_BUNDLER_REQUIRE_KEY=false; rate-limited per key (or per
 *                           client address without keys).
 *   GET  /blobs/{sha256}.js the bundled code: text/javascript (RFC 9239), immutable caching, ETag,
 *                           CORS open (spec: libraries must load from a browser); no key.
 *   GET  /healthz, /readyz (the store answers), /metrics, GET /problems/{code} (api/base.ts)
 *
 * Errors are problem+json: 400 `validation-failed` naming the field, 401, 415, 413, 429, and for
 * what the library does or where it lives the 403/422 codes of src/bundler/errors.ts.
 */
import Koa from 'koa';
import Router from '@koa/router';
import type { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import type { AssayConfig } from '../src/config';
import { BundleError } from '../src/bundler/errors';
import { accessPathProblem, detectGlobalName, globalNameProblem } from '../src/bundler/names';
import type { Bundler } from '../src/bundler/service';
import type { AppState } from './context';
import { allowedMethods, useServiceBase } from './base';
import { jsonBodies } from './body';
import { AuthFailureLimiter, authenticate } from './auth';
import { rateLimit } from './rate-limit';
import { fieldError } from '../src/problems';
import { invalid, Problem } from './problem';
import { bodyValidator, jsonBody } from './validation';
import { sendImmutableScript } from './scripts';

interface BundleBody {
  url: string;
  globalName?: string;
  minify?: boolean;
  includeCode?: boolean;
  defaultAccessPath?: string;
}

const validateBody = bodyValidator<BundleBody>({
  type: 'object',
  required: ['url'],
  additionalProperties: false,
  properties: {
    url: { type: 'string', minLength: 1, maxLength: 2048 },
    globalName: { type: 'string', minLength: 1, maxLength: 200 },
    minify: { type: 'boolean' },
    includeCode: { type: 'boolean' },
    defaultAccessPath: { type: 'string', minLength: 1, maxLength: 200 },
  },
});

/** The library URL, parsed; 400 unless it is an absolute http(s) URL. */
function libraryUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid([fieldError(['url'], 'must be an absolute URL, like https://esm.sh/lodash-es@4.17.21')]);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw invalid([fieldError(['url'], `must be an http or https URL, not ${url.protocol}`)]);
  if (url.username || url.password) throw invalid([fieldError(['url'], 'must not carry credentials')]);
  return url;
}

export interface BundlerAppDeps {
  config: AssayConfig;
  dataSource: DataSource;
  bundler: Bundler;
  logger: Logger;
}

export function createBundlerApp(deps: BundlerAppDeps): Koa<AppState> {
  const { config, bundler } = deps;
  const app = new Koa<AppState>();
  useServiceBase(app, { ...deps, service: 'bundler' });

  const router = new Router<AppState>();

  router.post(
    '/api/bundle',
    ...(config.bundler.requireKey
      ? [
          authenticate(deps.dataSource, new AuthFailureLimiter(config.api.authFailuresPerMinute)),
          rateLimit(config.bundler.rateLimitPerMinute),
        ]
      : [rateLimit(config.bundler.rateLimitPerMinute, (ctx) => ctx.ip)]),
    jsonBodies(64 * 1024),
    async (ctx) => {
      const body = validateBody(jsonBody(ctx));
      const url = libraryUrl(body.url);
      const globalName = body.globalName ?? detectGlobalName(url);
      if (globalName === undefined) {
        throw invalid([
          fieldError(
            ['globalName'],
            `no name can be detected from ${url.href}; give one (docs/bundler.md "Global name")`,
          ),
        ]);
      }
      const nameProblem = globalNameProblem(globalName);
      if (nameProblem) {
        throw invalid([
          fieldError(
            ['globalName'],
            body.globalName === undefined ? `detected from the URL, but ${nameProblem}; give one` : nameProblem,
          ),
        ]);
      }
      const pathProblem = body.defaultAccessPath === undefined ? undefined : accessPathProblem(body.defaultAccessPath);
      if (pathProblem) throw invalid([fieldError(['defaultAccessPath'], pathProblem)]);
      try {
        ctx.body = await bundler.bundle({
          url: url.href,
          globalName,
          minify: body.minify ?? true,
          includeCode: body.includeCode ?? false,
          defaultAccessPath: body.defaultAccessPath,
        });
      } catch (err) {
        if (err instanceof BundleError) throw new Problem(err.code, err.message, err.extras);
        throw err;
      }
    },
  );

  router.get('/blobs/:file', async (ctx) => {
    const match = /^([0-9a-f]{64})\.js$/.exec(ctx.params.file ?? '');
    const blob = match ? await bundler.blob(match[1]!) : undefined;
    if (!blob) throw new Problem('not-found', `No bundle "${ctx.params.file}"; POST /api/bundle answers a blobUrl.`);
    sendImmutableScript(ctx, blob.id, () => blob.code);
  });

  app.use(router.routes());
  app.use(allowedMethods(router));
  return app;
}
