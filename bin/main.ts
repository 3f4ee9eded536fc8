/**
 * Assay's entry point: `node dist/bin/main.js <command>`.
 *
 *   api      the REST API (applies migrations first)
 *   worker   the Temporal worker (waits for the schema)
 *   bundler  the bundler service (ESM libraries to scripts; docs/bundler.md), on its own port
 *   all      API and worker in one process
 *   dev      everything for a developer: a Temporal dev server (UI on 8233, history in
 *            <dataDir>/temporal.db), migrations, a default workspace and API key, API, worker
 *            and bundler; prints the URLs and the key
 *   migrate  apply migrations and exit
 *
 * Configuration comes from environment variables (src/config.ts, README "Configuration").
 */
import type { DataSource } from 'typeorm';
import path from 'node:path';
import { loadConfig, withLocalDevelopmentEgress, type AssayConfig } from '../src/config';
import { createLogger } from '../src/logger';
import { openStore, startApi, startBundler, startWorker, ensureDevKey } from './processes';
import { ensureWorkspace } from '../src/api-keys';
import { openDataSource } from '../src/store/data-source';
import { startDevServer, waitForTemporal } from '../src/temporal/dev-server';
import { retryForever } from '../src/retry';

type Stopper = () => Promise<void>;

function onSignal(stoppers: Stopper[], logger: ReturnType<typeof createLogger>): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    for (const s of [...stoppers].reverse()) await s().catch((err) => logger.error({ err }, 'error during shutdown'));
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

/**
 * The worker must not run before the API has migrated the schema: wait for it, and for the
 * database itself, with backoff (one log line per attempt), however long it takes.
 */
async function waitForSchema(config: AssayConfig, logger: ReturnType<typeof createLogger>): Promise<DataSource> {
  return retryForever(
    async () => {
      const dataSource = await openDataSource(config.database);
      if (!(await dataSource.showMigrations())) return dataSource;
      await dataSource.destroy();
      throw new Error('The database schema is not migrated yet; start the API (or `main.js migrate`).');
    },
    { logger, what: 'the migrated database schema', maxDelayMs: 10_000 },
  );
}

async function temporalIsUp(address: string): Promise<boolean> {
  return waitForTemporal(address, 1500).then(
    () => true,
    () => false,
  );
}

/** The mocks' own port under `dev` when ASSAY_MOCK_PORT is not set (docs/mocks.md "A port of their own"). */
export const DEV_MOCK_PORT = 8082;

/**
 * The configuration of `main.js <command>` from `env`. `dev` adds local development egress (API
 * nodes, scripts, libraries loaded by URL and outgoing webhooks may reach loopback:
 * src/config.ts `LOCAL_DEVELOPMENT_EGRESS`, docs/security.md "Address policy (outgoing requests)";
 * the service's own ports stay refused) and the mocks' own port {@link DEV_MOCK_PORT}, each unless
 * `env` sets it. @throws ConfigError for an unusable variable
 */
export function commandConfig(command: string, env: NodeJS.ProcessEnv = process.env): AssayConfig {
  if (command !== 'dev') return loadConfig(env);
  return loadConfig(
    withLocalDevelopmentEgress({ ...env, ASSAY_MOCK_PORT: env.ASSAY_MOCK_PORT ?? String(DEV_MOCK_PORT) }),
  );
}

async function main(): Promise<void> {
  const command = process.argv[2] ?? 'all';
  const config = commandConfig(command);
  const logger = createLogger(config.logLevel);
  const stoppers: Stopper[] = [];
  onSignal(stoppers, logger);

  switch (command) {
    case 'migrate': {
      const ds = await openStore(config, logger);
      await ds.destroy();
      return;
    }
    case 'api': {
      const ds = await openStore(config, logger);
      stoppers.push(() => ds.destroy());
      const api = await startApi(config, ds, logger);
      stoppers.push(() => api.close());
      return;
    }
    case 'bundler': {
      const ds = await openStore(config, logger);
      stoppers.push(() => ds.destroy());
      const bundler = await startBundler(config, ds, logger);
      stoppers.push(() => bundler.close());
      return;
    }
    case 'worker': {
      const ds = await waitForSchema(config, logger);
      stoppers.push(() => ds.destroy());
      const worker = await startWorker(config, ds, logger);
      stoppers.push(() => worker.shutdown());
      await worker.running;
      return;
    }
    case 'all':
    case 'dev': {
      if (command === 'dev' && !(await temporalIsUp(config.temporal.address))) {
        const [ip, port] = config.temporal.address.split(':');
        const server = await startDevServer({
          ip,
          port: Number(port),
          uiPort: Number(process.env.TEMPORAL_UI_PORT ?? 8233),
          dbFile: path.join(config.dataDir, 'temporal.db'),
          logFile: path.join(config.dataDir, 'temporal.log'),
        });
        stoppers.push(() => server.stop());
        if (server.uiUrl) config.temporal.uiUrl = server.uiUrl;
        logger.info({ address: server.address, ui: server.uiUrl }, 'Temporal dev server started');
      }
      const ds = await openStore(config, logger);
      stoppers.push(() => ds.destroy());
      // The API first: it serves (and answers 503 for new runs) while the worker waits for Temporal.
      const api = await startApi(config, ds, logger);
      stoppers.push(() => api.close());
      const worker = await startWorker(config, ds, logger);
      stoppers.push(() => worker.shutdown());
      if (command === 'dev') {
        const bundler = await startBundler(config, ds, logger);
        stoppers.push(() => bundler.close());
        const key = await ensureDevKey(config, ds);
        const workspace = await ensureWorkspace(ds.manager, 'default');
        const store =
          config.database.type === 'sqlite' ? `SQLite file ${config.database.file}` : 'MySQL (DATABASE_URL)';
        process.stdout.write(
          [
            '',
            'Assay is running.',
            `  Console:          ${api.url}/   (sign in with the dev API key below)`,
            `  API:              ${api.url}/v1   (health: ${api.url}/healthz)`,
            `  Bundler:          ${bundler.url}/api/bundle`,
            ...(api.mockUrl
              ? [`  Mocks:            ${api.mockUrl}/mock/${workspace.id}/…   (their own port: runs may call them)`]
              : []),
            `  Temporal Web UI:  ${config.temporal.uiUrl}`,
            `  Temporal:         ${config.temporal.address}`,
            `  Store:            ${store}`,
            `  Dev API key:      ${key}`,
            '',
            `  Try: curl -H "Authorization: Bearer ${key}" ${api.url}/v1/workspaces`,
            '  Stop with Ctrl-C.',
            '',
          ].join('\n'),
        );
      }
      await worker.running;
      return;
    }
    default:
      throw new Error(`Unknown command "${command}". Use one of: api, worker, bundler, all, dev, migrate.`);
  }
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : err);
    process.exit(1);
  });
}
