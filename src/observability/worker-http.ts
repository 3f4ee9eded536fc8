/**
 * The worker process's own small HTTP server (docs/operations.md): on `ASSAY_WORKER_HTTP_PORT`
 * (default 9464; `0`: any free port) at `ASSAY_HOST` (default 127.0.0.1), it answers
 *
 *   GET /metrics  Prometheus text: Assay's metrics and the Temporal SDK's (src/observability/metrics.ts)
 *   GET /healthz  200 {"status":"ok"} while the process lives
 *   GET /readyz   200 when the store and Temporal answer, else 503 problem+json `not-ready`
 *
 * (HEAD too); another method on these paths is 405 `method-not-allowed` with `Allow`, any other
 * path 404 `not-found`. A port already taken is not fatal: the worker logs a warning and runs on
 * without the server (several workers on one machine each need their own port).
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { boundedServer, type ServerBounds } from '../net/server-bounds';
import type { Logger } from 'pino';
import { problemDocument, PROBLEMS, type ProblemCode } from '../problems';
import { LIVE_BODY, readiness, readinessAnswer, type ReadinessCheck } from './health';
import { METRICS_CONTENT_TYPE, metricsText } from './metrics';

/** A running worker HTTP server. */
export interface WorkerHttpServer {
  /** `http://host:port` it listens on. */
  url: string;
  close(): Promise<void>;
}

function send(
  res: ServerResponse,
  method: string,
  status: number,
  contentType: string,
  body: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    'content-type': contentType,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(method === 'HEAD' ? undefined : body);
}

function problem(
  res: ServerResponse,
  method: string,
  code: ProblemCode,
  detail: string,
  extras: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): void {
  send(
    res,
    method,
    PROBLEMS[code].status,
    'application/problem+json; charset=utf-8',
    JSON.stringify(problemDocument(code, detail, extras)),
    headers,
  );
}

const PATHS = new Set(['/metrics', '/healthz', '/readyz']);

async function answer(
  req: IncomingMessage,
  res: ServerResponse,
  checks: Record<string, ReadinessCheck>,
): Promise<void> {
  const method = req.method ?? 'GET';
  const path = (req.url ?? '/').split('?')[0]!;
  if (!PATHS.has(path))
    return problem(
      res,
      method,
      'not-found',
      `No route for ${method} ${path}; the worker serves /metrics, /healthz and /readyz.`,
    );
  if (method !== 'GET' && method !== 'HEAD') {
    return problem(
      res,
      method,
      'method-not-allowed',
      `${path} answers GET, HEAD, not ${method}.`,
      { allowed: ['GET', 'HEAD'] },
      { allow: 'GET, HEAD' },
    );
  }
  if (path === '/healthz') return send(res, method, 200, 'application/json; charset=utf-8', JSON.stringify(LIVE_BODY));
  if (path === '/metrics') return send(res, method, 200, METRICS_CONTENT_TYPE, await metricsText());
  const ready = readinessAnswer(await readiness(checks));
  send(res, method, ready.status, ready.contentType, JSON.stringify(ready.body));
}

/**
 * Starts the server on `host`:`port` with the readiness `checks` of `/readyz`.
 * @returns the server, or undefined when the port is taken (logged as a warning)
 * @throws other listen errors (an address that is not this machine's)
 */
export async function startWorkerHttp(options: {
  host: string;
  port: number;
  checks: Record<string, ReadinessCheck>;
  logger: Logger;
  /** Receive time and connections per address (src/net/server-bounds.ts); Node's defaults without. */
  bounds?: ServerBounds;
}): Promise<WorkerHttpServer | undefined> {
  const { host, port, checks, logger } = options;
  const listener: http.RequestListener = (req, res) => {
    answer(req, res, checks).catch((err: unknown) => {
      logger.error({ err }, 'worker HTTP request failed');
      if (!res.headersSent) problem(res, req.method ?? 'GET', 'internal', 'The worker failed to answer.');
      else res.destroy();
    });
  };
  const server = options.bounds ? boundedServer(listener, options.bounds) : http.createServer(listener);
  server.keepAliveTimeout = 65_000;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    if ((err as { code?: string }).code === 'EADDRINUSE') {
      logger.warn(
        { host, port },
        'ASSAY_WORKER_HTTP_PORT is taken: the worker runs without its HTTP server (/metrics, /healthz, /readyz)',
      );
      return undefined;
    }
    throw err;
  }
  server.on('error', (err) => logger.error({ err }, 'worker HTTP server error'));
  const address = server.address();
  const actual = typeof address === 'object' && address ? address.port : port;
  const url = `http://${host === '0.0.0.0' ? 'localhost' : host.includes(':') ? `[${host}]` : host}:${actual}`;
  logger.info({ url }, 'worker HTTP server listening (/metrics, /healthz, /readyz)');
  return {
    url,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
