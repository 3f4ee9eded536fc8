/**
 * A running Assay for tests: fresh database, API on a free loopback port, and (when asked) a
 * worker on its own task queue, all against the shared real services (helpers/harness.ts).
 */
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import type { DataSource } from 'typeorm';
import { LOCAL_DEVELOPMENT_EGRESS, loadConfig, type AssayConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { migrate, openDataSource } from '../../src/store/data-source';
import { ensureWorkspace, issueKey } from '../../src/api-keys';
import type { KeyScope } from '../../src/store/entities';
import { startApi, startWorker, type ApiHandle } from '../../bin/processes';
import type { RunWorkerHandle } from '../../bin/worker';
import { AddressPolicy, type InfrastructureEndpoint } from '../../src/net/address-policy';
import { freshDatabase, getServices, unique } from './harness';
import type Router from '@koa/router';
import { createApp } from '../../api/app';
import type { ApiDeps, AppState } from '../../api/context';

/**
 * An address policy for a Sandbox or Bundler a test builds by hand: loopback allowed for every
 * kind, as local development egress (src/config.ts {@link LOCAL_DEVELOPMENT_EGRESS}); `infrastructure` refused (plus the API and bundler ports this
 * process listens on, which every policy refuses).
 */
export function testEgressPolicy(infrastructure: InfrastructureEndpoint[] = []): AddressPolicy {
  return new AddressPolicy({
    allow: [],
    deny: [],
    privateAccess: { ...loadConfig({ ...LOCAL_DEVELOPMENT_EGRESS }).egress.privateAccess, bundler: 'loopback' },
    infrastructure,
  });
}

/**
 * The key ring of every test app (`ASSAY_SECRET_KEYS`; a test overrides it through
 * `TestAppOptions.env`, `''` for a key generated into the app's data dir). One ring for all apps,
 * so that the shared client of helpers/temporal.ts reads their encrypted Temporal payloads
 * (src/temporal/codec.ts). A key for tests only, never for a real deployment.
 */
export const TEST_SECRET_KEYS = 'test1:xICCnYsGY8lXexMaRybtFWJL48eq8F6LoG30+0PC6f8=';

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** A fetch response as a {@link Reply}: the body parsed as JSON, or kept as text when it is not JSON (undefined when empty). */
export async function readReply<T = any>(res: Response): Promise<Reply<T>> {
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON: keep the text */
  }
  return { status: res.status, headers: res.headers, body: parsed as T };
}

export interface TestApp {
  url: string;
  key: string;
  workspaceId: string;
  config: AssayConfig;
  dataSource: DataSource;
  api: ApiHandle;
  worker?: RunWorkerHandle;
  /** Calls the API with the app's key (or `options.key`); JSON in and out. */
  request<T = any>(
    method: string,
    path: string,
    body?: unknown,
    options?: { key?: string | null; headers?: Record<string, string>; raw?: string },
  ): Promise<Reply<T>>;
  /** Issues another key in the same workspace (or a new one). */
  issueKey(scope: KeyScope, workspace?: string): Promise<string>;
  startWorker(): Promise<RunWorkerHandle>;
  stop(): Promise<void>;
}

export interface TestAppOptions {
  dialect?: 'mysql' | 'sqlite';
  worker?: boolean;
  /** Extra environment for loadConfig (e.g. ASSAY_RATE_LIMIT_PER_MINUTE). */
  env?: Record<string, string>;
  /** Reaches the fresh MySQL database at another address (e.g. through helpers/tcp-proxy.ts). */
  databaseAddress?: string;
}

export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const services = await getServices();
  const db = await freshDatabase(options.dialect ?? 'mysql');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-app-'));
  const config = loadConfig({
    ASSAY_DATA_DIR: dataDir,
    TEMPORAL_ADDRESS: services.temporalAddress,
    ASSAY_TASK_QUEUE: unique('assay-test'),
    ASSAY_PORT: '0',
    ASSAY_HOST: '127.0.0.1',
    ASSAY_LOG_LEVEL: process.env.ASSAY_TEST_LOG_LEVEL ?? 'silent',
    ASSAY_SECRET_KEYS: TEST_SECRET_KEYS,
    // A test worker's HTTP server (/metrics, /healthz, /readyz) on any free port, never the 9464 of a real worker.
    ASSAY_WORKER_HTTP_PORT: '0',
    // A bundler a test starts from this config (bin/processes.ts startBundler) on any free port, never 8081.
    ASSAY_BUNDLER_PORT: '0',
    // What the test app's operator allows: local development egress, as `make dev` (loopback, where
    // every test target, receiver and CDN listens; the service's own ports stay refused). A test
    // overrides it through `TestAppOptions.env`.
    ...LOCAL_DEVELOPMENT_EGRESS,
    ...options.env,
  });
  config.database = db.database;
  if (options.databaseAddress && db.database.type === 'mysql') {
    const url = new URL(db.database.url);
    url.host = options.databaseAddress;
    config.database = { type: 'mysql', url: url.toString() };
  }
  const logger = createLogger(config.logLevel, 'assay-test');
  const dataSource = await openDataSource(config.database);
  await migrate(dataSource);
  const workspace = await ensureWorkspace(dataSource.manager, 'default');
  const { key } = await issueKey(dataSource.manager, workspace.id, { name: 'test', scope: 'write' });
  const api = await startApi(config, dataSource, logger);
  // Console sign-in (docs/teams.md): the provider sends the browser back to the redirect URL, by
  // default `<ASSAY_PUBLIC_URL>/auth/callback` (src/config.ts), which cannot name the free port the
  // API got only now; the sign-in routes read it per request, so it is set to the real address here.
  if (config.teams.oidc && !options.env?.ASSAY_OIDC_REDIRECT_URL && !options.env?.ASSAY_PUBLIC_URL)
    config.teams.oidc.redirectUrl = `${api.url}/auth/callback`;

  const app: TestApp = {
    url: api.url,
    key,
    workspaceId: workspace.id,
    config,
    dataSource,
    api,
    async request(method, p, body, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers };
      const useKey = opts.key === undefined ? key : opts.key;
      if (useKey !== null) headers.authorization = `Bearer ${useKey}`;
      let payload: string | undefined = opts.raw;
      if (body !== undefined) {
        payload = JSON.stringify(body);
        headers['content-type'] ??= 'application/json';
      }
      return readReply(await fetch(`${api.url}${p}`, { method, headers, body: payload }));
    },
    async issueKey(scope, workspaceName) {
      const ws = workspaceName ? await ensureWorkspace(dataSource.manager, workspaceName) : workspace;
      return (await issueKey(dataSource.manager, ws.id, { name: `test-${scope}`, scope })).key;
    },
    async startWorker() {
      app.worker = await startWorker(config, dataSource, logger);
      return app.worker;
    },
    async stop() {
      await app.worker?.shutdown();
      await api.close();
      await dataSource.destroy();
      await db.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  if (options.worker) await app.startWorker();
  return app;
}

/** What `createApp` takes, from a running test app: its config, store, Temporal clients and mock engine; a silent logger. */
export function appDeps(app: TestApp): ApiDeps {
  return {
    config: app.config,
    dataSource: app.dataSource,
    workflows: app.api.workflows,
    schedules: app.api.schedules,
    mocks: app.api.mocks,
    logger: createLogger('silent', 'assay-test'),
  };
}

/** The routers the real app mounts (`createApp` over {@link appDeps}), in mounting order. */
export function appRouters(app: TestApp): Router<AppState>[] {
  return createApp(appDeps(app))
    .middleware.map((m) => (m as { router?: Router<AppState> }).router)
    .filter((r): r is Router<AppState> => r !== undefined);
}

/** Polls `fn` until it returns a truthy value or `timeoutMs` passes. */
export async function eventually<T>(
  fn: () => Promise<T | undefined | null | false>,
  timeoutMs = 30_000,
  intervalMs = 100,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await fn();
      if (value) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > until)
      throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Waits until run `runId` is completed or failed; returns the run document. */
export async function waitForRun(app: TestApp, runId: string, timeoutMs = 60_000): Promise<any> {
  return eventually(
    async () => {
      const res = await app.request('GET', `/v1/runs/${runId}`);
      return res.body.status === 'completed' || res.body.status === 'failed' ? res.body : undefined;
    },
    timeoutMs,
    150,
  );
}
