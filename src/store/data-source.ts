/**
 * The TypeORM data source: MySQL 8 / MariaDB 10.11 through mysql2 when `DATABASE_URL` is set, else
 * an embedded SQLite file through better-sqlite3 (so that running Assay needs nothing but Node 24).
 *
 * The schema is only ever changed by migrations (never `synchronize`); each dialect has its own
 * folder under `migrations/`, generated from the same entities.
 */
import 'reflect-metadata';
import { AsyncLocalStorage } from 'node:async_hooks';
import path from 'node:path';
import { DataSource, type QueryRunner } from 'typeorm';
import type { DatabaseConfig } from '../config';
import { ENTITIES } from './entities';
import { makePrivateDir, makePrivateFile, sqliteFiles, tightenFiles } from '../private-files';
import { boundedMysql2 } from './bounds';

/** Which MySQL-family server a URL points at; TypeORM reads MariaDB's catalogue differently. */
export type MysqlFlavour = 'mysql' | 'mariadb';

/** Asks the server for its version: MariaDB says so in `VERSION()`. */
export async function detectMysqlFlavour(url: string): Promise<MysqlFlavour> {
  const mysql = await import('mysql2/promise');
  const connection = await mysql.createConnection({ uri: url, connectTimeout: 10_000 });
  try {
    const [rows] = await connection.query('SELECT VERSION() AS version');
    const version = String((rows as Array<{ version: string }>)[0]?.version ?? '');
    return /mariadb/i.test(version) ? 'mariadb' : 'mysql';
  } finally {
    await connection.end();
  }
}

/**
 * Builds (does not connect) a data source for `database`. For MySQL-family servers pass the
 * flavour ({@link detectMysqlFlavour}); it defaults to `mysql`. Its mysql2 pool bounds the waits of
 * callers inside a `withStoreBounds` scope (src/store/bounds.ts); outside one it waits as mysql2 does.
 */
export function createDataSource(
  database: DatabaseConfig,
  options: { logging?: boolean; flavour?: MysqlFlavour } = {},
): DataSource {
  // Both MySQL flavours share one migration folder: the SQL is the same.
  const migrations = [path.join(__dirname, 'migrations', database.type, '*.js')];
  if (database.type === 'mysql') {
    return new DataSource({
      type: options.flavour ?? 'mysql',
      url: database.url,
      entities: ENTITIES,
      migrations,
      migrationsTableName: 'assay_migrations',
      synchronize: false,
      logging: options.logging ?? false,
      // Every timestamp is UTC on the wire; the connection time zone must not shift them.
      timezone: 'Z',
      charset: 'utf8mb4_unicode_ci',
      poolSize: 10,
      // mysql2 with bounded waits for the API's requests (src/store/bounds.ts).
      driver: boundedMysql2(),
      extra: { connectTimeout: 10_000 },
    });
  }
  // The store is private to the user running Assay: a new folder 0700, the file (and so its -wal
  // and -shm, which SQLite creates with the database file's mode) 0600 (src/private-files.ts).
  makePrivateDir(path.dirname(path.resolve(database.file)));
  makePrivateFile(database.file);
  tightenFiles(...sqliteFiles(database.file));
  return sqliteConcurrency(
    new DataSource({
      type: 'better-sqlite3',
      database: database.file,
      entities: ENTITIES,
      migrations,
      migrationsTableName: 'assay_migrations',
      synchronize: false,
      logging: options.logging ?? false,
      // WAL lets the API and the worker (two processes) read while one writes; writers wait up to 5 s
      // (transactions too: they begin IMMEDIATE, sqliteConcurrency below).
      // synchronous NORMAL (SQLite's advice for WAL): a commit survives the process dying at once
      // (kill -9), and the file is never corrupted; a power loss may take back the last commits, as
      // it may the dev server's own SQLite (src/temporal/dev-server.ts). FULL would fsync every
      // commit: 3.4 ms instead of 0.1 here, on every node's execution record
      // (src/store/node-executions.ts). Use MySQL/MariaDB for durability against machine failure.
      prepareDatabase: (db: { pragma(sql: string): unknown }) => {
        db.pragma('journal_mode = WAL');
        db.pragma('synchronous = NORMAL');
        db.pragma('busy_timeout = 5000');
        db.pragma('foreign_keys = ON');
      },
    }),
  );
}

/**
 * Fits TypeORM's SQLite driver to concurrent requests (answers `dataSource`):
 *
 * - Transactions take the write lock when they begin (`BEGIN IMMEDIATE`,
 *   https://www.sqlite.org/lang_transaction.html) instead of TypeORM's deferred
 *   `BEGIN TRANSACTION`. A deferred transaction that reads (as `Repository.save` does before it
 *   inserts) and then writes, after another process (a worker, a second API) committed meanwhile,
 *   fails at once with `SQLITE_BUSY_SNAPSHOT` in WAL mode: the busy timeout does not apply to it
 *   (https://www.sqlite.org/rescode.html#busy_snapshot). An immediate one waits for the lock up to
 *   `busy_timeout` at BEGIN, and past that fails with `SQLITE_BUSY` (503 `database-unavailable`,
 *   src/store/errors.ts).
 * - One transaction at a time in the process. The driver has one connection and one query runner
 *   for the whole process: two transactions begun together both sent BEGIN ("cannot start a
 *   transaction within a transaction"), or the second became a savepoint of the first, so that
 *   the first's rollback undid the second's writes. `manager.transaction` (which
 *   `dataSource.transaction` calls) now waits for the one in progress; one begun inside a
 *   transaction's callback is a savepoint of it, as before.
 * - A statement outside the transaction in progress (another request's) waits for it to end, so
 *   that its rollback cannot take that statement with it.
 */
function sqliteConcurrency(dataSource: DataSource): DataSource {
  type Query = (sql: string, ...rest: unknown[]) => Promise<unknown>;
  const inside = new AsyncLocalStorage<true>();
  let inProgress: Promise<unknown> | null = null;
  let queue: Promise<unknown> = Promise.resolve();

  const manager = dataSource.manager as unknown as { transaction: (...args: unknown[]) => Promise<unknown> };
  const transaction = manager.transaction.bind(manager);
  manager.transaction = (...args) => {
    if (inside.getStore()) return transaction(...args);
    const run = queue.then(() => {
      const current = inside.run(true, () => transaction(...args));
      inProgress = current.then(
        () => undefined,
        () => undefined,
      );
      return current.finally(() => (inProgress = null));
    });
    queue = run.catch(() => undefined);
    return run;
  };

  const driver = dataSource.driver as unknown as { createQueryRunner(mode: unknown): QueryRunner };
  const create = driver.createQueryRunner.bind(driver);
  const patched = new WeakSet<QueryRunner>();
  driver.createQueryRunner = (mode) => {
    const runner = create(mode);
    if (!patched.has(runner)) {
      patched.add(runner);
      const query = runner.query.bind(runner) as Query;
      (runner as unknown as { query: Query }).query = async (sql, ...rest) => {
        while (inProgress && !inside.getStore()) await inProgress;
        return query(sql === 'BEGIN TRANSACTION' ? 'BEGIN IMMEDIATE TRANSACTION' : sql, ...rest);
      };
    }
    return runner;
  };
  return dataSource;
}

/** Detects the server flavour, builds the data source and connects it. */
export async function openDataSource(
  database: DatabaseConfig,
  options: { logging?: boolean } = {},
): Promise<DataSource> {
  const flavour = database.type === 'mysql' ? await detectMysqlFlavour(database.url) : undefined;
  return createDataSource(database, { ...options, flavour }).initialize();
}

/**
 * Applies pending migrations. On MySQL a named lock serialises concurrent starters (API and worker
 * starting together); SQLite serialises writers itself.
 *
 * @returns the names of the migrations applied now (empty when the schema was current).
 */
export async function migrate(dataSource: DataSource): Promise<string[]> {
  if (dataSource.options.type !== 'mysql' && dataSource.options.type !== 'mariadb') {
    return (await dataSource.runMigrations({ transaction: 'each' })).map((m) => m.name);
  }
  // GET_LOCK belongs to one connection, so hold it on a dedicated query runner.
  const lockHolder = dataSource.createQueryRunner();
  try {
    const [row] = (await lockHolder.query(`SELECT GET_LOCK('assay_migrations', 60) AS locked`)) as Array<{
      locked: number;
    }>;
    if (!row || Number(row.locked) !== 1) throw new Error('Could not take the migration lock within 60 s');
    try {
      return (await dataSource.runMigrations({ transaction: 'each' })).map((m) => m.name);
    } finally {
      await lockHolder.query(`SELECT RELEASE_LOCK('assay_migrations')`);
    }
  } finally {
    await lockHolder.release();
  }
}
