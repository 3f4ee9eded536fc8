/**
 * The Koa application: REST API under /v1, problem descriptions under /problems, and /healthz.
 *
 * Middleware, outermost first: request id → error mapping → (for /v1) authentication → rate
 * limit → scope → JSON-only bodies → body parsing → routers.
 */
import { randomUUID } from 'node:crypto';
import Koa from 'koa';
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import compose from 'koa-compose';
import type { ApiDeps, AppContext, AppState } from './context';
import { errorHandler } from './errors';
import { authenticate, defaultScope } from './auth';
import { rateLimit } from './rate-limit';
import { Problem, PROBLEMS, type ProblemCode } from './problem';
import { workspacesRouter } from './routes/workspaces';
import { environmentsRouter } from './routes/environments';
import { testCasesRouter } from './routes/test-cases';
import { runnersRouter } from './routes/runners';
import { runsRouter } from './routes/runs';
import { librariesRouter, libraryFilesRouter } from './routes/libraries';
import { deploymentsRouter } from './routes/deployments';
import { designsRouter } from './routes/designs';
import { incomingWebhooksRouter } from './routes/incoming-webhooks';

const JSON_TYPES = ['application/json', 'application/merge-patch+json', 'application/*+json'];

/** 415 for a request body that is not JSON; bodies of GET/DELETE are ignored. */
const jsonOnly: Koa.Middleware<AppState> = async (ctx, next) => {
  const hasBody = (ctx.request.length ?? 0) > 0 || ctx.get('Transfer-Encoding') !== '';
  if (['POST', 'PUT', 'PATCH'].includes(ctx.method) && hasBody && !ctx.is(JSON_TYPES)) {
    throw new Problem('unsupported-media-type', `Request bodies must be JSON (Content-Type: application/json), not "${ctx.get('Content-Type') || 'none'}".`);
  }
  await next();
};

export function createApp(deps: ApiDeps): Koa<AppState> {
  const app = new Koa<AppState>();
  app.proxy = true;

  app.use(async (ctx, next) => {
    ctx.state.requestId = ctx.get('X-Request-Id') || randomUUID();
    ctx.set('X-Request-Id', ctx.state.requestId);
    await next();
  });
  app.use(errorHandler(deps.logger));
  // Nothing answered: a 404 problem (after the routers had their chance to answer 405).
  app.use(async (ctx, next) => {
    await next();
    if (ctx.status === 404 && ctx.body == null) throw new Problem('not-found', `No route for ${ctx.method} ${ctx.path}.`);
  });

  const root = new Router<AppState>();
  root.get('/healthz', async (ctx) => {
    await deps.dataSource.query('SELECT 1');
    ctx.body = { status: 'ok' };
  });
  root.get('/problems/:code', (ctx) => {
    const code = ctx.params.code as ProblemCode;
    if (!Object.prototype.hasOwnProperty.call(PROBLEMS, code)) throw new Problem('not-found', `No problem type "${ctx.params.code}".`);
    ctx.body = { type: `/problems/${code}`, code, ...PROBLEMS[code] };
  });

  // Everything under /v1: authentication, rate limit, scope, JSON-only bodies, body parsing.
  const v1Pipeline = compose<AppContext>([
    authenticate(deps.dataSource),
    rateLimit(deps.config.api.rateLimitPerMinute),
    defaultScope(),
    jsonOnly,
    bodyParser({
      enableTypes: ['json'],
      // The list replaces the parser's defaults (it merges arrays by index), so it is given whole.
      extendTypes: { json: JSON_TYPES },
      jsonLimit: deps.config.api.maxBodyBytes,
      encoding: 'utf-8',
    }) as unknown as Koa.Middleware<AppState>,
  ]);
  app.use(root.routes());
  app.use(root.allowedMethods());
  const files = libraryFilesRouter();
  app.use(files.routes());
  const hooks = incomingWebhooksRouter(deps);
  app.use(hooks.routes());
  app.use(hooks.allowedMethods({ throw: true }));
  app.use((ctx, next) => (ctx.path === '/v1' || ctx.path.startsWith('/v1/') ? v1Pipeline(ctx, next) : next()));
  for (const router of [workspacesRouter, environmentsRouter, testCasesRouter, runnersRouter, runsRouter, librariesRouter, deploymentsRouter, designsRouter]) {
    const r = router(deps).prefix('/v1');
    app.use(r.routes());
    app.use(r.allowedMethods({ throw: true }));
  }
  return app;
}
