/** Recognises database errors across MySQL/MariaDB (mysql2) and SQLite (better-sqlite3). */
import { STORE_TIMEOUT_CODE } from './bounds';

/** True for a unique-key violation (MySQL ER_DUP_ENTRY 1062, SQLite SQLITE_CONSTRAINT_UNIQUE/PRIMARYKEY). */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; errno?: number; driverError?: { code?: string; errno?: number } };
  const code = e.driverError?.code ?? e.code;
  const errno = e.driverError?.errno ?? e.errno;
  return (
    code === 'ER_DUP_ENTRY' ||
    errno === 1062 ||
    code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  );
}

/**
 * Error codes of a database that cannot be reached right now (mysql2, Node sockets, SQLite locks),
 * and of a bounded wait that ran out (src/store/bounds.ts: a stopped server answers nothing).
 */
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
  STORE_TIMEOUT_CODE,
]);

/**
 * SQLite's lock codes, primary and extended, as better-sqlite3 reports them (the extended one when
 * there is one: `SQLITE_BUSY_SNAPSHOT`, `SQLITE_BUSY_RECOVERY`, `SQLITE_BUSY_TIMEOUT`,
 * `SQLITE_LOCKED_SHAREDCACHE`, https://www.sqlite.org/rescode.html): another connection holds the
 * lock; the same statement may succeed later.
 */
const SQLITE_LOCK_CODE = /^SQLITE_(BUSY|LOCKED)(_[A-Z]+)?$/;

/**
 * True when `err` says the database is unreachable or going away (not that a query is wrong): the
 * API answers 503 with Retry-After, start-up waits, activities retry. Looks through TypeORM's
 * `driverError` and `cause` chains.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const seen = new Set<unknown>();
  let e = err as
    | { code?: unknown; errno?: unknown; fatal?: unknown; message?: unknown; driverError?: unknown; cause?: unknown }
    | undefined;
  while (e && typeof e === 'object' && !seen.has(e)) {
    seen.add(e);
    if (typeof e.code === 'string' && (UNAVAILABLE_CODES.has(e.code) || SQLITE_LOCK_CODE.test(e.code))) return true;
    if (e.fatal === true) return true;
    if (
      typeof e.message === 'string' &&
      /connection is in closed state|Pool is closed|connect ETIMEDOUT|Connection lost/i.test(e.message)
    )
      return true;
    e = (e.driverError ?? e.cause) as typeof e;
  }
  return false;
}

/**
 * True when `err` (or its `driverError`/`cause` chain) is a bounded wait on the store that ran out
 * (src/store/bounds.ts `StoreTimeoutError`): the database did not answer in time, so whether a
 * write sent before it was applied is unknown. A timeout is also {@link isDatabaseUnavailable}.
 */
export function isDatabaseTimeout(err: unknown): boolean {
  const seen = new Set<unknown>();
  let e = err as { code?: unknown; driverError?: unknown; cause?: unknown } | undefined;
  while (e && typeof e === 'object' && !seen.has(e)) {
    seen.add(e);
    if (e.code === STORE_TIMEOUT_CODE) return true;
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
  return (
    typeof code === 'string' && (code.startsWith('ER_') || /^SQLITE_(CONSTRAINT|TOOBIG|MISMATCH|RANGE)/.test(code))
  );
}
