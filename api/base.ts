/**
 * What every Assay HTTP service (the API, the bundler) starts with: request metrics (and, with
 * traces on, a server span: src/observability/server-requests.ts), a request id on every answer, errors
 * mapped to problem+json once, a 404 problem when nothing answered, `GET /healthz` (the process
 * lives: no dependency checked), `GET /readyz` (the store, and for the API Temporal, answer; 503
 * problem `not-ready` naming what does not: src/observability/health.ts), `GET /metrics`
 * (Prometheus text: src/observability/metrics.ts) and `GET /problems/{code}` (RFC 9457 §3.1.1:
 * the problem `type` URIs resolve to a description). {@link allowedMethods} gives every router the
 * same 405 answer. docs/operations.md.
 */
import { randomUUID } from 'node:crypto';
import type Koa from 'koa';
import type { Middleware } from 'koa';
import Router from '@koa/router';
import type { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import type { AssayConfig } from '../src/config';
import type { AppState } from './context';
import { errorHandler } from './errors';
import { PROBLEMS, problemTypeUri, type ProblemCode } from '../src/problems';
import { Problem } from './problem';
import { httpInstrumentation } from '../src/observability/server-requests';
import { LIVE_BODY, readiness, readinessAnswer, storeCheck, type ReadinessCheck } from '../src/observability/health';
import { METRICS_CONTENT_TYPE, metricsText, startProcessMetrics } from '../src/observability/metrics';

/** A client's `X-Request-Id` is kept only when it is 1–128 characters of `[A-Za-z0-9._:-]`. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The request id of a request: the client's `X-Request-Id` when it is 1–128 characters of
 * `[A-Za-z0-9._:-]` (docs/api.md "Request ids"), else a new UUID, so that a client cannot put
 * arbitrary text of any length into logs and answers.
 */
export function requestIdFrom(header: string | undefined): string {
  return header && REQUEST_ID.test(header) ? header : randomUUID();
}

/** What {@link useServiceBase} needs. */
export interface ServiceBaseDeps {
  dataSource: DataSource;
  logger: Logger;
  config: AssayConfig;
  /** The service's name in metrics (`service` label; default `api`). */
  service?: 'api' | 'bundler';
  /** The readiness checks of `GET /readyz` by name (default: `store`, the data source answers within `config.databaseTimeouts`). */
  readiness?: Record<string, ReadinessCheck>;
}

/** Installs the shared middleware and routes on `app`; call before the service's own routers. */
export function useServiceBase(app: Koa<AppState>, deps: ServiceBaseDeps): void {
  startProcessMetrics();
  const checks = deps.readiness ?? { store: storeCheck(deps.dataSource, deps.config.databaseTimeouts) };
  // X-Forwarded-For / -Proto are believed only behind a proxy the operator names (ASSAY_TRUST_PROXY):
  // otherwise any client could choose the address that per-address limits count by.
  app.proxy = deps.config.api.trustProxy;
  // Errors Koa sees outside the middleware chain (a request or response stream failing). Without
  // this listener Koa prints a multi-line stack to stderr; a client that cut its connection or
  // sent an unreadable body is one line at debug.
  app.on('error', (err: Error & { code?: string; expose?: boolean; status?: number }) => {
    const code = err.code ?? '';
    if (
      code.startsWith('HPE_') ||
      code === 'ECONNRESET' ||
      code === 'EPIPE' ||
      code === 'ECONNABORTED' ||
      (err.expose && (err.status ?? 500) < 500)
    ) {
      deps.logger.debug({ code: code || undefined, reason: err.message.split('\n')[0] }, 'client connection error');
    } else {
      deps.logger.error({ err }, 'request stream failed');
    }
  });
  app.use(httpInstrumentation(deps.service ?? 'api'));
  app.use(async (ctx, next) => {
    ctx.state.requestId = requestIdFrom(ctx.get('X-Request-Id'));
    ctx.set('X-Request-Id', ctx.state.requestId);
    await next();
  });
  app.use(errorHandler(deps.logger));
  // Nothing answered: a 404 problem (after the routers had their chance to answer 405).
  app.use(async (ctx, next) => {
    await next();
    if (ctx.status === 404 && ctx.body == null)
      throw new Problem('not-found', `No route for ${ctx.method} ${ctx.path}.`);
  });

  const root = new Router<AppState>();
  // Liveness: answers while the process can serve HTTP, whatever its dependencies do.
  root.get('/healthz', (ctx) => {
    ctx.body = LIVE_BODY;
  });
  // Readiness: the dependencies answer (200), or 503 `not-ready` naming those that do not.
  root.get('/readyz', async (ctx) => {
    const answer = readinessAnswer(await readiness(checks));
    ctx.status = answer.status;
    ctx.type = answer.contentType;
    ctx.body = answer.body;
  });
  root.get('/metrics', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.type = METRICS_CONTENT_TYPE;
    ctx.body = await metricsText();
  });
  root.get('/problems/:code', (ctx) => {
    const code = ctx.params.code as ProblemCode;
    if (!Object.prototype.hasOwnProperty.call(PROBLEMS, code))
      throw new Problem('not-found', `No problem type "${ctx.params.code}".`);
    ctx.body = { type: problemTypeUri(code), code, ...PROBLEMS[code] };
  });
  app.use(root.routes());
  app.use(allowedMethods(root));
}

/**
 * A router's answer to a known path asked with another method: 405 problem `method-not-allowed`
 * with the `Allow` header listing the path's methods (RFC 9110 §15.5.6: a 405 MUST carry `Allow`;
 * §10.2.1) and the same list as `allowed` in the body. A method the router knows nowhere (501 in
 * @koa/router) is answered the same way when the path exists; on a path no route has, the request
 * goes on to the 404 `not-found`. Use it in place of `router.allowedMethods()`.
 */
export function allowedMethods(router: Router<AppState>): Middleware<AppState> {
  const inner = router.allowedMethods() as unknown as Middleware<AppState>;
  return async (ctx, next) => {
    await inner(ctx, next);
    if ((ctx.status !== 405 && ctx.status !== 501) || ctx.body != null) return;
    const allowed = [
      ...new Set(
        ctx.response
          .get('Allow')
          .split(',')
          .map((m) => m.trim())
          .filter(Boolean),
      ),
    ];
    if (allowed.length === 0) {
      ctx.remove('Allow');
      ctx.status = 404;
      return;
    }
    throw new Problem(
      'method-not-allowed',
      `${ctx.path} answers ${allowed.join(', ')}, not ${ctx.method}.`,
      { allowed },
      { headers: { Allow: allowed.join(', ') } },
    );
  };
}
