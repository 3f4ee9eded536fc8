/**
 * The Koa application: REST API under /v1, problem descriptions under /problems, /healthz,
 * /readyz and /metrics (api/base.ts), the Temporal codec server under /codec
 * (api/routes/codec.ts), the console's sign-in under /auth (api/routes/sign-in.ts), and the API's OpenAPI document (/v1/openapi.json) with its reference
 * page (/docs; api/openapi/router.ts).
 *
 * Middleware, outermost first: the store's bounded waits (src/store/bounds.ts) → request id → error mapping → (for /v1) the early workflow lookup
 * of `GET /v1/runs/{id}` (used only while the store does not answer) → authentication → rate
 * limit → scope (one table, api/scopes.ts) → JSON-only bodies → body parsing (but for the OpenAPI
 * import, which reads its own) → recording changes (api/changes.ts) → routers; then the web console (api/console.ts) for any other GET.
 */
import Koa from 'koa';
import compose from 'koa-compose';
import type { ApiDeps, AppContext, AppState } from './context';
import { allowedMethods, useServiceBase } from './base';
import { jsonBodies } from './body';
import { AuthFailureLimiter, authenticate, VerifiedKeys } from './auth';
import { enforceScopes } from './scopes';
import { rateLimit } from './rate-limit';
import { workspacesRouter } from './routes/workspaces';
import { environmentsRouter } from './routes/environments';
import { authProfilesRouter } from './routes/auth-profiles';
import { testCasesRouter } from './routes/test-cases';
import { runnersRouter } from './routes/runners';
import { liveRunLookup, runsRouter } from './routes/runs';
import { runOriginsRouter } from './routes/run-origins';
import { compareRouter } from './routes/compare';
import { librariesRouter, libraryFilesRouter } from './routes/libraries';
import { deploymentsRouter } from './routes/deployments';
import { designsRouter } from './routes/designs';
import { mockSettingsRouter } from './routes/mock-settings';
import { mockRequestsRouter } from './routes/mock-requests';
import { mockCollectionsRouter, ownsCollectionBody } from './routes/mock-collections';
import { incomingWebhooksRouter } from './routes/incoming-webhooks';
import { callbacksRouter } from './routes/callbacks';
import { relayRouter } from './routes/relay';
import { foldersRouter } from './routes/folders';
import { historyRouter } from './routes/history';
import { filesRouter, ownsFileBody } from './routes/files';
import { serveConsole } from './console';
import { recordChanges } from './changes';
import { auditRouter } from './routes/audit';
import { versionsRouter } from './routes/versions';
import { cliDownloadRouter } from './routes/cli-download';
import { codecCors, codecRouter } from './routes/codec';
import { signInRouter } from './routes/sign-in';
import { membersRouter } from './routes/members';
import { keysRouter } from './routes/keys';
import { openApiRouter } from './openapi/router';
import { CHECK_TIMEOUT_MS, storeCheck } from '../src/observability/health';
import { withStoreBounds } from '../src/store/bounds';

/** The routers served under /v1 (each gets the `/v1` prefix); every route needs an entry in api/scopes.ts. */
export const V1_ROUTERS = [
  // First: a restore (`POST …/versions/:version/restore`) is handed on, rewritten as the
  // resource's PUT, to the resource routers below (api/routes/versions.ts).
  versionsRouter,
  auditRouter,
  workspacesRouter,
  environmentsRouter,
  authProfilesRouter,
  testCasesRouter,
  runnersRouter,
  runsRouter,
  runOriginsRouter,
  compareRouter,
  librariesRouter,
  deploymentsRouter,
  designsRouter,
  mockSettingsRouter,
  mockRequestsRouter,
  mockCollectionsRouter,
  relayRouter,
  foldersRouter,
  historyRouter,
  filesRouter,
  membersRouter,
  keysRouter,
];

/** Routes that read their body themselves (matched as the routers match: any case, an optional trailing slash). */
function ownsBody(ctx: AppContext): boolean {
  // Data collections read their own (seeds up to 8 MiB: api/routes/mock-collections.ts); file
  // uploads theirs, as bytes of any media type (api/routes/files.ts).
  return (
    (ctx.method === 'POST' && /^\/v1\/designs\/import\/?$/i.test(ctx.path)) ||
    ownsCollectionBody(ctx) ||
    ownsFileBody(ctx)
  );
}

export function createApp(deps: ApiDeps): Koa<AppState> {
  const app = new Koa<AppState>();
  // Every store wait of a request is bounded (src/store/bounds.ts, ASSAY_DATABASE_*_TIMEOUT_MS): a
  // database that does not answer is 503 `database-unavailable` within them, never a hang.
  app.use((ctx, next) => withStoreBounds(deps.config.databaseTimeouts, next));
  // /readyz: the store (within the same bounds) and Temporal answer (src/observability/health.ts).
  useServiceBase(app, {
    ...deps,
    service: 'api',
    readiness: {
      store: storeCheck(deps.dataSource, deps.config.databaseTimeouts),
      temporal: () => deps.workflows.ping(CHECK_TIMEOUT_MS),
    },
  });

  // One count of failed authentications per address, for /v1 and the codec server.
  const authFailures = new AuthFailureLimiter(deps.config.api.authFailuresPerMinute);
  // Everything under /v1: authentication, rate limit, scope, JSON-only bodies, body parsing.
  const v1Pipeline = compose<AppContext>([
    // GET /v1/runs/{id}: the run's workflow is asked early when the store is slow (api/routes/runs.ts).
    liveRunLookup(deps.workflows),
    // Keys the store confirmed lately stand in for it on reads while it does not answer (api/auth.ts).
    // A console session's cookie too (api/auth.ts; docs/teams.md "People and sign-in").
    authenticate(deps.dataSource, authFailures, new VerifiedKeys(), {
      idleMinutes: deps.config.teams.sessionIdleMinutes,
    }),
    rateLimit(deps.config.api.rateLimitPerMinute),
    enforceScopes(),
    // The OpenAPI import reads its own body: a bigger limit, YAML too (api/import-document.ts).
    jsonBodies(deps.config.api.maxBodyBytes, ownsBody),
    // Last, around the routers: every successful change goes to the audit trail, and saves of
    // versioned resources are kept as versions (api/changes.ts).
    recordChanges(deps),
  ]);
  const files = libraryFilesRouter();
  app.use(files.routes());
  app.use(allowedMethods(files));
  const cli = cliDownloadRouter();
  app.use(cli.routes());
  app.use(allowedMethods(cli));
  // The codec server for the Temporal Web UI and CLI (outside /v1: its own protocol, CORS and auth).
  app.use(codecCors(deps.config));
  const codec = codecRouter(deps, authFailures);
  app.use(codec.routes());
  app.use(allowedMethods(codec));
  const hooks = incomingWebhooksRouter(deps);
  app.use(hooks.routes());
  app.use(allowedMethods(hooks));
  // Callback nodes' addresses (public: the token is the credential; docs/async.md "Callbacks").
  const callbacks = callbacksRouter(deps);
  app.use(callbacks.routes());
  app.use(allowedMethods(callbacks));
  // Console sign-in through OpenID Connect and its session (outside /v1: api/routes/sign-in.ts).
  const signIn = signInRouter(deps, authFailures);
  app.use(signIn.routes());
  app.use(allowedMethods(signIn));
  // The API's own OpenAPI document (/v1/openapi.json) and reference page (/docs): before the /v1
  // pipeline, so reading them needs no API key (api/openapi/router.ts).
  const apiDocs = openApiRouter(deps);
  app.use(apiDocs.routes());
  app.use(allowedMethods(apiDocs));
  // Case-insensitive like the routers (@koa/router matches paths case-insensitively): `/V1/…`
  // must not reach a /v1 route without authentication and the scope check.
  app.use((ctx, next) => (/^\/v1(\/|$)/i.test(ctx.path) ? v1Pipeline(ctx, next) : next()));
  for (const router of V1_ROUTERS) {
    const r = router(deps).prefix('/v1');
    app.use(r.routes());
    app.use(allowedMethods(r));
  }
  // The web console: every other GET is a console file or route (api/console.ts).
  app.use(serveConsole(deps.config.api.consoleDir));
  return app;
}
