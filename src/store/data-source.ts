/**
 * The TypeORM data source: MySQL 8 / MariaDB 10.11 through mysql2 when `DATABASE_URL` is set, else
 * an embedded SQLite file through better-sqlite3 (so that running Assay needs nothing but Node 24).
 *
 * The schema is only ever changed by migrations (never `synchronize`); each dialect has its own
 * folder under `migrations/`, generated from the same entities.
 */
import 'reflect-metadata';
import path from 'node:path';
import { DataSource } from 'typeorm';
import type { DatabaseConfig } from '../config';
import { ENTITIES } from './entities';
import { makePrivateDir, makePrivateFile, sqliteFiles, tightenFiles } from '../private-files';

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
 * flavour ({@link detectMysqlFlavour}); it defaults to `mysql`.
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
      extra: { connectTimeout: 10_000 },
    });
  }
  // The store is private to the user running Assay: a new folder 0700, the file (and so its -wal
  // and -shm, which SQLite creates with the database file's mode) 0600 (src/private-files.ts).
  makePrivateDir(path.dirname(path.resolve(database.file)));
  makePrivateFile(database.file);
  tightenFiles(...sqliteFiles(database.file));
  return new DataSource({
    type: 'better-sqlite3',
    database: database.file,
    entities: ENTITIES,
    migrations,
    migrationsTableName: 'assay_migrations',
    synchronize: false,
    logging: options.logging ?? false,
    // WAL lets the API and the worker (two processes) read while one writes; writers wait up to 5 s.
    prepareDatabase: (db: { pragma(sql: string): unknown }) => {
      db.pragma('journal_mode = WAL');
      db.pragma('busy_timeout = 5000');
      db.pragma('foreign_keys = ON');
    },
  });
}

/** Detects the server flavour, builds the data source and connects it. */
export async function openDataSource(database: DatabaseConfig, options: { logging?: boolean } = {}): Promise<DataSource> {
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
    const [row] = (await lockHolder.query(`SELECT GET_LOCK('assay_migrations', 60) AS locked`)) as Array<{ locked: number }>;
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

/** Error codes of a database that cannot be reached right now (mysql2, Node sockets, SQLite locks). */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'EAI_AGAIN',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  'ER_CONNECTION_KILLED',
  'ER_QUERY_INTERRUPTED',
  'ER_LOCK_WAIT_TIMEOUT',
  'SQLITE_BUSY',
]);

/**
 * True when `err` says the database is unreachable or going away (not that a query is wrong): the
 * API answers 503 with Retry-After, start-up waits, activities retry. Looks through TypeORM's
 * `driverError` and `cause` chains.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const seen = new Set<unknown>();
  let e = err as { code?: unknown; errno?: unknown; fatal?: unknown; message?: unknown; driverError?: unknown; cause?: unknown } | undefined;
  while (e && typeof e === 'object' && !seen.has(e)) {
    seen.add(e);
    if (typeof e.code === 'string' && UNAVAILABLE_CODES.has(e.code)) return true;
    if (e.fatal === true) return true;
    if (typeof e.message === 'string' && /connection is in closed state|Pool is closed|connect ETIMEDOUT|Connection lost/i.test(e.message)) return true;
    e = (e.driverError ?? e.cause) as typeof e;
  }
  return false;
}

/**
 * True when `err` is the database refusing a statement (a constraint, a value it cannot store, a
 * syntax error): MySQL/MariaDB `ER_…` codes other than those of an outage, SQLite constraint and
 * size errors. Retrying such a write does not help; an unknown error is not counted as one.
 */
export function isDatabaseRefusal(err: unknown): boolean {
  if (isDatabaseUnavailable(err)) return false;
  const e = err as { code?: unknown; driverError?: { code?: unknown } };
  const code = e?.driverError?.code ?? e?.code;
  return typeof code === 'string' && (code.startsWith('ER_') || /^SQLITE_(CONSTRAINT|TOOBIG|MISMATCH|RANGE)/.test(code));
}
