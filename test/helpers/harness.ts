/**
 * The services integration tests talk to, started once per mocha process and only when a test
 * asks for them:
 *
 * - MySQL/MariaDB: the server in `DATABASE_URL` when set (each test file gets its own fresh
 *   database on it); else one answering on 127.0.0.1:3306 as root without a password (unless
 *   ASSAY_TEST_LOCAL_MYSQL=0); else a MySQL 8 container through testcontainers.
 * - Temporal: the frontend in `TEMPORAL_ADDRESS` when set; else the Temporal CLI dev server when a
 *   `temporal` binary is found (started here, waiting for readiness); else a container.
 *
 * Nothing is mocked: tests use real servers on loopback.
 */
import { randomBytes } from 'node:crypto';
import type { StartedTestContainer } from 'testcontainers';
import { findTemporalCli, startDevServer, type DevServer } from '../../src/temporal/dev-server';
import type { DatabaseConfig } from '../../src/config';

interface Services {
  temporalAddress: string;
  mysqlUrl: string;
  stop(): Promise<void>;
}

let services: Promise<Services> | undefined;

/** A MySQL/MariaDB on this machine's default port with root and no password (as on Assay's dev machines). */
const LOCAL_MYSQL = 'mysql://root@127.0.0.1:3306/';

async function answers(url: string): Promise<boolean> {
  const mysql = await import('mysql2/promise');
  try {
    const conn = await mysql.createConnection({ uri: url, connectTimeout: 2000 });
    await conn.end();
    return true;
  } catch {
    return false;
  }
}

async function startMysql(): Promise<{ url: string; stop(): Promise<void> }> {
  const given = process.env.DATABASE_URL;
  if (given && /^(mysql|mariadb):/.test(given))
    return { url: given.replace(/^mariadb:/, 'mysql:'), stop: async () => {} };
  if (process.env.ASSAY_TEST_LOCAL_MYSQL !== '0' && (await answers(LOCAL_MYSQL)))
    return { url: LOCAL_MYSQL, stop: async () => {} };
  const { MySqlContainer } = await import('@testcontainers/mysql');
  const container = await new MySqlContainer('mysql:8.4').withRootPassword('assay').start();
  return { url: container.getConnectionUri(true), stop: async () => void (await container.stop()) };
}

async function startTemporal(): Promise<{ address: string; stop(): Promise<void> }> {
  if (process.env.TEMPORAL_ADDRESS) return { address: process.env.TEMPORAL_ADDRESS, stop: async () => {} };
  if (findTemporalCli()) {
    const server: DevServer = await startDevServer({ readyTimeoutMs: 180_000 });
    return { address: server.address, stop: () => server.stop() };
  }
  const { GenericContainer, Wait } = await import('testcontainers');
  const container: StartedTestContainer = await new GenericContainer('temporalio/temporal:1.5.1')
    .withCommand(['server', 'start-dev', '--ip', '0.0.0.0', '--headless'])
    .withExposedPorts(7233)
    .withWaitStrategy(Wait.forListeningPorts())
    .withStartupTimeout(180_000)
    .start();
  return {
    address: `${container.getHost()}:${container.getMappedPort(7233)}`,
    stop: async () => void (await container.stop()),
  };
}

/** Starts (once) and returns the shared services. */
export function getServices(): Promise<Services> {
  services ??= (async () => {
    const [mysql, temporal] = await Promise.all([startMysql(), startTemporal()]);
    return {
      temporalAddress: temporal.address,
      mysqlUrl: mysql.url,
      async stop() {
        await Promise.all([mysql.stop(), temporal.stop()]);
      },
    };
  })();
  return services;
}

/** Stops the services if they were started (mocha root hook). */
export async function stopServices(): Promise<void> {
  if (!services) return;
  const s = await services.catch(() => undefined);
  services = undefined;
  await s?.stop();
}

/** A random suffix for names that must not collide between test files and runs. */
export function unique(prefix: string): string {
  return `${prefix}_${randomBytes(5).toString('hex')}`;
}

/**
 * A fresh, empty database: a new schema on the MySQL server, or a new SQLite file.
 * @returns its config and a function that drops it.
 */
export async function freshDatabase(
  kind: 'mysql' | 'sqlite',
): Promise<{ database: DatabaseConfig; drop(): Promise<void> }> {
  if (kind === 'sqlite') {
    const fs = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-test-'));
    return {
      database: { type: 'sqlite', file: path.join(dir, 'assay.db') },
      drop: async () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  }
  const { mysqlUrl } = await getServices();
  const name = unique('assay_t');
  const mysql = await import('mysql2/promise');
  const admin = await mysql.createConnection({ uri: mysqlUrl });
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  await admin.end();
  const url = new URL(mysqlUrl);
  url.pathname = `/${name}`;
  return {
    database: { type: 'mysql', url: url.toString() },
    async drop() {
      const conn = await mysql.createConnection({ uri: mysqlUrl });
      await conn.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await conn.end();
    },
  };
}
