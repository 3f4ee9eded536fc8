/**
 * Process wiring shared by the entry points: open the store, serve the API, run the worker.
 */
import fs from 'node:fs';
import path from 'node:path';
import http, { type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { boundedServer, type ServerBounds } from '../src/net/server-bounds';
import type { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { withPort, type AssayConfig } from '../src/config';
import { migrate, openDataSource } from '../src/store/data-source';
import { isDatabaseUnavailable } from '../src/store/errors';
import { createRunWorkflowClient, type RunWorkflowClient } from '../src/temporal/run-workflows';
import { storePayloadScopes } from '../src/temporal/payload-scopes';
import { ScheduleSync } from '../src/temporal/schedules';
import { RunRecovery } from '../src/temporal/run-recovery';
import { retryForever } from '../src/retry';
import { MockEngine } from '../src/mock/engine';
import { MockContract } from '../src/mock/contract';
import { MockProxy } from '../src/mock/proxy';
import { MockSettingsCache } from '../src/mock/settings';
import { MockJournal } from '../src/mock/journal';
import { MockChaos } from '../src/mock/chaos';
import { startRunWorker, type RunWorkerHandle } from './worker';
import { createApp } from '../api/app';
import { PROBLEMS, problemDocument, type ProblemCode } from '../src/problems';
import { createBundlerApp } from '../api/bundler';
import { Bundler } from '../src/bundler/service';
import { ensureWorkspace, findKey, issueKey } from '../src/api-keys';
import { ApiKey } from '../src/store/entities';
import { startRetentionSweep } from '../src/store/retention';
import { closeMockState, mockStateFor, startScopeSweep } from '../src/mock/state';
import { MockStateStage } from '../src/mock/crud';
import { makePrivateDir, PRIVATE_FILE_MODE, tightenFiles } from '../src/private-files';
import { policyFromConfig, registerOwnEndpoint } from '../src/net/address-policy';
import { flushTracing, initTracing } from '../src/observability/tracing';
import { startProcessMetrics } from '../src/observability/metrics';
import { startWorkerHttp } from '../src/observability/worker-http';
import { CHECK_TIMEOUT_MS, pingTemporal, storeCheck } from '../src/observability/health';

/**
 * Opens the store and applies pending migrations. The data folder is made mode 0700 first
 * (src/private-files.ts). A database that cannot be reached is waited for
 * (backoff from 1 s to 30 s, one log line per attempt) rather than ending the process.
 */
export async function openStore(config: AssayConfig, logger: Logger): Promise<DataSource> {
  makePrivateDir(config.dataDir, { tighten: true });
  const dataSource = await retryForever(() => openDataSource(config.database), {
    logger,
    what: 'the database',
    isTransient: isDatabaseUnavailable,
  });
  const applied = await migrate(dataSource);
  if (applied.length > 0) logger.info({ applied }, 'migrations applied');
  return dataSource;
}

export interface ApiHandle {
  server: Server;
  mocks: MockEngine;
  /** The mock journal (src/mock/journal.ts): tests flush and sweep it. */
  journal: MockJournal;
  workflows: RunWorkflowClient;
  schedules: ScheduleSync;
  recovery: RunRecovery;
  url: string;
  /** The mocks' own listener (`ASSAY_MOCK_PORT`), e.g. `http://127.0.0.1:8082`; undefined when off. */
  mockUrl?: string;
  close(): Promise<void>;
}

/**
 * Serves the REST API on the configured host and port (port 0: a free one). Traces start here when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set (service `assay-api`; src/observability/tracing.ts).
 */
export async function startApi(config: AssayConfig, dataSource: DataSource, logger: Logger): Promise<ApiHandle> {
  if (initTracing('assay-api'))
    logger.info(
      { endpoint: process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_ENDPOINT },
      'traces exported over OTLP',
    );
  const workflows = createRunWorkflowClient(config, storePayloadScopes(config, dataSource));
  const schedules = new ScheduleSync(config, dataSource, logger);
  schedules.start(config.deployments.reconcileIntervalMs);
  const recovery = new RunRecovery(dataSource, workflows, logger);
  recovery.start(config.api.recoveryIntervalMs);
  // The address policy of this process's outgoing requests: the relay (POST /v1/relay) and the
  // mock proxy (src/mock/proxy.ts), with the same rules as the workers' API nodes.
  const policy = policyFromConfig(config);
  // The mock journal (writes in the background, sweeps every minute) and latency/faults (src/mock/).
  const journal = new MockJournal(dataSource, {
    maxPerWorkspace: config.mocks.journalMax,
    ttlSeconds: config.mocks.journalTtlSeconds,
    logger,
  }).start();
  // Mock state (data collections, scopes; src/mock/state.ts): one per store, shared with the API routes.
  const mockState = mockStateFor(dataSource, {
    ttlSeconds: config.mocks.scopeTtlSeconds,
    revalidateMs: config.mocks.revalidateMs,
  });
  // The workspaces' mock settings (the proxy; the seed chaos falls back to), cached per workspace.
  const settings = new MockSettingsCache(dataSource, {
    revalidateMs: config.mocks.revalidateMs,
    storeTimeouts: config.databaseTimeouts,
  });
  const mocks = new MockEngine({
    dataSource,
    revalidateMs: config.mocks.revalidateMs,
    seed: config.mocks.seed,
    storeTimeouts: config.databaseTimeouts,
    stages: {
      journal,
      chaos: new MockChaos({ seed: config.mocks.seed, workspaceSeed: (ws) => settings.seedOf(ws) }),
      state: new MockStateStage(mockState),
      contract: new MockContract(),
      settings,
      proxy: new MockProxy({ dataSource, policy, timeoutMs: config.runs.requestTimeoutMs }),
    },
  });
  // The mock path is hot: it skips Koa and goes straight to the engine.
  const onMockError = (err: unknown) => logger.error({ err }, 'mock request failed');
  // The mocks' own port first, so that designs' `mockUrl` names it even when it was 0 (a free one).
  const mockPort =
    config.mocks.port === null
      ? undefined
      : await serve(mocksOnly(mocks, onMockError), config.mocks.port, config.api.host, logger, config.api);
  if (mockPort) logger.info({ url: mockPort.url }, 'mocks listening on their own port (ASSAY_MOCK_PORT)');
  const apiConfig =
    mockPort && config.mocks.publicUrl === null
      ? {
          ...config,
          mocks: { ...config.mocks, publicUrl: withPort(config.api.publicUrl, Number(new URL(mockPort.url).port)) },
        }
      : config;
  const app = createApp({ config: apiConfig, dataSource, workflows, schedules, mocks, journal, logger, policy });
  const koa = app.callback();
  const { server, url } = await serve(
    (req, res) => (MockEngine.owns(req.url) ? mocks.handle(req, res, onMockError) : void koa(req, res)),
    config.api.port,
    config.api.host,
    logger,
    config.api,
  );
  // The address policy of every outgoing request in this process refuses the API's own port.
  const unregister = registerOwnEndpoint({
    label: "the API's own port (ASSAY_PORT)",
    host: config.api.host,
    port: Number(new URL(url).port),
  });
  logger.info({ url }, 'API listening');
  const retention = startRetentionSweep(config, dataSource, logger);
  const scopeSweep = startScopeSweep(mockState, config.mocks.scopeTtlSeconds, logger);
  return {
    server,
    mocks,
    journal,
    workflows,
    schedules,
    recovery,
    url,
    mockUrl: mockPort?.url,
    async close() {
      await closeServer(server);
      if (mockPort) await closeServer(mockPort.server);
      unregister();
      await policy.close();
      await recovery.close();
      await retention.stop();
      await journal.stop();
      await scopeSweep.stop();
      closeMockState(dataSource);
      await schedules.close();
      await workflows.close();
      await flushTracing().catch(() => undefined);
    },
  };
}

/**
 * The request handler of the mocks' own port (`ASSAY_MOCK_PORT`, docs/mocks.md "A port of their
 * own"): `/mock/{workspaceId}{path}` goes to the mock engine, exactly as on the API's port; any
 * other path is 404 problem+json `not-found` saying that this port serves mocks only. Nothing of
 * the REST API, the console or the webhooks is reachable here, which is why the address policy
 * need not refuse this port.
 */
export function mocksOnly(mocks: MockEngine, onError: (err: unknown) => void): http.RequestListener {
  return (req, res) => {
    if (MockEngine.owns(req.url)) return mocks.handle(req, res, onError);
    res.writeHead(PROBLEMS['not-found'].status, { 'Content-Type': 'application/problem+json' });
    res.end(
      JSON.stringify(
        problemDocument(
          'not-found',
          'This port serves mocks only: /mock/{workspaceId}{path}. The REST API is on ASSAY_PORT.',
        ),
      ),
    );
  };
}

/**
 * The servers' 'clientError' handler (Node emits it for a request it cannot parse, a connection cut
 * mid-request, or a header/request timeout). It logs ONE line (`client connection error` with the
 * error code; `debug` for a connection the client reset, `info` otherwise) instead of a stack, and
 * when the socket can still be written answers with a problem+json and closes: 400 `malformed-request`,
 * 431 `headers-too-large`, 408 `request-timeout` (the statuses Node's own default
 * handler uses; https://nodejs.org/api/http.html#event-clienterror).
 */
export function onClientError(logger: Logger): (err: Error & { code?: string }, socket: Duplex) => void {
  return (err, socket) => {
    const code = err.code ?? 'unknown';
    const reset = code === 'ECONNRESET' || code === 'EPIPE';
    logger[reset ? 'debug' : 'info']({ code, reason: err.message.split('\n')[0] }, 'client connection error');
    const response = (socket as Duplex & { _httpMessage?: http.ServerResponse })._httpMessage;
    const problem: ProblemCode =
      code === 'HPE_HEADER_OVERFLOW'
        ? 'headers-too-large'
        : code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? 'request-timeout'
          : 'malformed-request';
    const { status, title } = PROBLEMS[problem];
    const body = JSON.stringify({
      type: `/problems/${problem}`,
      title,
      status,
      detail: PROBLEMS[problem].description,
      code: problem,
    });
    if (!reset && socket.writable && response && !response.headersSent && problem === 'request-timeout') {
      // A body that did not arrive in time (ASSAY_RECEIVE_TIMEOUT_MS): the application is still
      // reading it; the 408 goes out through its response, and the connection closes.
      response.writeHead(status, {
        'Content-Type': 'application/problem+json',
        'Content-Length': Buffer.byteLength(body),
        Connection: 'close',
      });
      response.end(body, () => socket.destroy());
      return;
    }
    if (reset || !socket.writable || response) {
      // The client is gone, or an answer has already started on this socket: just close it.
      socket.destroy();
      return;
    }
    socket.end(
      `HTTP/1.1 ${status} ${title}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  };
}

/**
 * An HTTP server for `listener` as every Assay server is set up (keep-alive 65 s, {@link onClientError},
 * the receive time and connections per address of `bounds`: src/net/server-bounds.ts),
 * listening on `host`:`port` (0: a free one). @returns the server and its address
 * (`http://host:port`; `localhost` for 0.0.0.0). Rejects when the port cannot be bound.
 */
async function serve(
  listener: http.RequestListener,
  port: number,
  host: string,
  logger: Logger,
  bounds: ServerBounds,
): Promise<{ server: Server; url: string }> {
  const server = boundedServer(listener, bounds, onClientError(logger));
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  const actual = typeof address === 'object' && address ? address.port : port;
  return { server, url: `http://${host === '0.0.0.0' ? 'localhost' : host}:${actual}` };
}

/** Stops accepting connections and resolves once the open ones have ended (requests under way finish; idle keep-alive ones are closed by Node). */
async function closeServer(server: Server): Promise<void> {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
}

export interface BundlerHandle {
  server: Server;
  bundler: Bundler;
  url: string;
  close(): Promise<void>;
}

/**
 * Serves the bundler service (docs/bundler.md) on its own host and port (port 0: a free one).
 * When ASSAY_BUNDLER_PUBLIC_URL is not set and the port was 0, `blobUrl`s use the real address.
 */
export async function startBundler(
  config: AssayConfig,
  dataSource: DataSource,
  logger: Logger,
): Promise<BundlerHandle> {
  if (initTracing('assay-bundler')) logger.info('traces exported over OTLP');
  const settings = { ...config.bundler };
  const policy = policyFromConfig(config);
  const bundler = new Bundler({ dataSource, config: settings, logger, policy });
  const app = createBundlerApp({ config, dataSource, bundler, logger });
  const { server, url } = await serve(app.callback(), settings.port, settings.host, logger, config.api);
  const unregister = registerOwnEndpoint({
    label: "the bundler's own port (ASSAY_BUNDLER_PORT)",
    host: settings.host,
    port: Number(new URL(url).port),
  });
  if (settings.port === 0 && /^http:\/\/localhost:0$/.test(settings.publicUrl)) settings.publicUrl = url;
  logger.info({ url }, 'bundler listening');
  return {
    server,
    bundler,
    url,
    async close() {
      await closeServer(server);
      unregister();
      await bundler.close();
      await policy.close();
      await flushTracing().catch(() => undefined);
    },
  };
}

/** A worker started by {@link startWorker}. */
export interface WorkerHandle extends RunWorkerHandle {
  /** The address of its HTTP server (/metrics, /healthz, /readyz); undefined when the port was taken. */
  httpUrl?: string;
}

/**
 * Starts the worker process's HTTP server (ASSAY_WORKER_HTTP_PORT: /metrics, /healthz, /readyz;
 * src/observability/worker-http.ts) first, so it answers while the worker waits for Temporal,
 * then the worker. Traces start here when OTEL_EXPORTER_OTLP_ENDPOINT is set (service
 * `assay-worker`).
 */
export async function startWorker(config: AssayConfig, dataSource: DataSource, logger: Logger): Promise<WorkerHandle> {
  if (initTracing('assay-worker')) logger.info('traces exported over OTLP');
  startProcessMetrics();
  let started: RunWorkerHandle | undefined;
  const http = await startWorkerHttp({
    host: config.workerHttp.host,
    port: config.workerHttp.port,
    bounds: config.api,
    logger,
    checks: {
      // The worker serves no requests to agree with: its check keeps the probe's whole 2 s (a pool
      // busy with activities is not an outage), bounded so that a hung statement leaves the pool.
      store: storeCheck(dataSource, { acquireTimeoutMs: CHECK_TIMEOUT_MS, queryTimeoutMs: CHECK_TIMEOUT_MS }),
      // Ready once the worker polls and Temporal answers on its connection.
      temporal: async () => {
        if (!started) throw new Error('the worker is still connecting to Temporal');
        const state = started.worker.getState();
        if (state !== 'RUNNING') throw new Error(`the worker is ${state.toLowerCase()}`);
        await pingTemporal(started.connection, CHECK_TIMEOUT_MS);
      },
    },
  });
  // The address policy of every outgoing request in this process refuses the worker's own port.
  const unregister = http
    ? registerOwnEndpoint({
        label: "the worker's own port (ASSAY_WORKER_HTTP_PORT)",
        host: config.workerHttp.host,
        port: Number(new URL(http.url).port),
      })
    : () => undefined;
  try {
    started = await startRunWorker({ config, dataSource, logger });
  } catch (err) {
    await http?.close();
    unregister();
    throw err;
  }
  const worker = started;
  return {
    ...worker,
    httpUrl: http?.url,
    async shutdown() {
      await worker.shutdown();
      await http?.close();
      unregister();
      await flushTracing().catch(() => undefined);
    },
  };
}

/**
 * Dev mode: makes sure workspace "default" exists with an API key of scope `admin` (the local
 * admin: it may also manage keys and members, docs/teams.md), keeps the key in
 * `<dataDir>/dev-api-key` (mode 0600, the folder 0700) so that it can be printed at every start, and
 * returns it. A saved key of a lower scope (made before `admin` existed) is raised to `admin`.
 */
export async function ensureDevKey(config: AssayConfig, dataSource: DataSource): Promise<string> {
  const file = path.join(config.dataDir, 'dev-api-key');
  makePrivateDir(config.dataDir, { tighten: true });
  tightenFiles(file);
  if (fs.existsSync(file)) {
    const saved = fs.readFileSync(file, 'utf8').trim();
    const record = saved ? await findKey(dataSource.manager, saved) : null;
    if (record) {
      if (record.scope !== 'admin')
        await dataSource.getRepository(ApiKey).update({ id: record.id }, { scope: 'admin' });
      return saved;
    }
  }
  const workspace = await ensureWorkspace(dataSource.manager, 'default');
  const { key } = await issueKey(dataSource.manager, workspace.id, {
    name: 'local admin',
    scope: 'admin',
    createdBy: 'cli',
  });
  fs.writeFileSync(file, `${key}\n`, { mode: PRIVATE_FILE_MODE });
  tightenFiles(file);
  return key;
}
