/**
 * What every Assay Koa service (the API, the bundler) records of each request it answers
 * (docs/operations.md): `assay_http_requests_total` and `assay_http_request_duration_seconds`
 * labelled with the matched route template (`/v1/runs/:id`, never the raw path), and, when traces
 * are on, a server span (`POST /v1/runs`) that continues the caller's W3C trace context
 * (`traceparent`) and is the parent of what the request does (starting a run's workflow above all).
 *
 * The mock service (`/mock/…`) skips Koa and is counted on its own (`assay_mock_requests_total`).
 */
import * as otel from '@opentelemetry/api';
import type { Middleware } from 'koa';
import { httpDuration, httpRequests } from './metrics';
import { assayTracer } from './tracing';

/** Route label of a request no route matched (the console's files, a 404). */
export const UNMATCHED_ROUTE = '(unmatched)';

/** Methods kept as they are in labels; any other becomes `OTHER` (bounded label values). */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * The metrics (and, with traces on, span) middleware of service `service`; install it first, so
 * it sees the final status that the error mapping sets.
 */
export function httpInstrumentation(service: 'api' | 'bundler'): Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    const method = METHODS.has(ctx.method) ? ctx.method : 'OTHER';
    const tracer = assayTracer();
    let span: otel.Span | undefined;
    try {
      if (tracer) {
        const parent = otel.propagation.extract(otel.ROOT_CONTEXT, ctx.headers);
        span = tracer.startSpan(
          method,
          { kind: otel.SpanKind.SERVER, attributes: { 'http.request.method': method, 'url.scheme': ctx.protocol } },
          parent,
        );
        await otel.context.with(otel.trace.setSpan(parent, span), next);
      } else {
        await next();
      }
    } finally {
      // @koa/router sets the matched route's template (with the router's prefix).
      const route = (ctx as { _matchedRoute?: string | RegExp })._matchedRoute;
      const routeLabel = typeof route === 'string' ? route : UNMATCHED_ROUTE;
      const status = ctx.status;
      httpRequests.inc({ service, method, route: routeLabel, status: String(status) });
      httpDuration.observe({ service, method, route: routeLabel }, (performance.now() - started) / 1000);
      if (span) {
        span.updateName(typeof route === 'string' ? `${method} ${route}` : method);
        if (typeof route === 'string') span.setAttribute('http.route', route);
        span.setAttribute('http.response.status_code', status);
        if (status >= 500) span.setStatus({ code: otel.SpanStatusCode.ERROR });
        span.end();
      }
    }
  };
}
