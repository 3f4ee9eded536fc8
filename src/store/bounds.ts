/**
 * Bounded waits on a MySQL/MariaDB store: how long a caller may wait for a pool
 * connection and for one statement's answer before it is told that the database is unavailable.
 *
 * Why neither mysql2 nor TypeORM does it: a database whose process is stopped (SIGSTOP, a frozen
 * VM or container) refuses nothing. Its kernel still accepts connections and acknowledges bytes,
 * so a statement on a connection opened before the freeze waits for ever, a new connection waits
 * for mysql2's `connectTimeout` (10 s) for the server's greeting, and a caller queued for a pool
 * connection waits until one is released (mysql2's pool has no acquire timeout; TypeORM's
 * `acquireTimeout` is not an option mysql2 knows). mysql2's own per-query `timeout` starts only
 * when the statement is sent, so a statement queued behind a hung one on the same connection
 * never times out, and it leaves the hung connection in the pool for the next caller.
 *
 * What this module does instead, for callers inside a {@link withStoreBounds} scope only (the
 * API's requests and mock reads, readiness checks; never migrations, background sweeps, the
 * bundler's requests or the worker's activities, which wait for the database as before, so that
 * no run is failed or repeated by a timeout):
 *
 * - acquiring a pool connection is bounded by `acquireTimeoutMs`; a connection that arrives after
 *   the caller gave up goes back to the pool;
 * - each statement is bounded by `queryTimeoutMs` from the moment it is issued (queued or sent);
 *   past it the caller gets a {@link StoreTimeoutError} and the connection is taken out of the pool
 *   and its socket destroyed, so nobody else waits behind the hung statement;
 * - after one bounded wait ran out, every further acquire in the same scope fails at once, so a
 *   request with several statements answers after one bound, not one per statement.
 *
 * A statement that timed out may still be executed by the server when it resumes (its bytes are in
 * the server's socket buffer): a write outside a transaction may then land after its caller was
 * told 503 (inside a transaction it is rolled back, as the connection is closed before COMMIT).
 *
 * SQLite is a file: nothing here applies to it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import mysql2 from 'mysql2';
import type { DatabaseTimeouts } from '../config';

/** Error code of {@link StoreTimeoutError} (src/store/errors.ts counts it as "database unavailable"). */
export const STORE_TIMEOUT_CODE = 'ASSAY_DATABASE_TIMEOUT';

/** A bounded wait on the store ran out: the database is taken as unavailable (api/errors.ts: 503). */
export class StoreTimeoutError extends Error {
  readonly code = STORE_TIMEOUT_CODE;
  /** What was waited for: a pool connection, or a statement's answer. */
  readonly phase: 'acquire' | 'query';
  /** The bound that ran out, ms (0: an earlier wait of the same scope had run out). */
  readonly timeoutMs: number;

  constructor(phase: 'acquire' | 'query', timeoutMs: number, message?: string) {
    super(
      message ??
        (phase === 'acquire'
          ? `No database connection within ${timeoutMs} ms (the database does not answer)`
          : `The database did not answer within ${timeoutMs} ms`),
    );
    this.name = 'StoreTimeoutError';
    this.phase = phase;
    this.timeoutMs = timeoutMs;
  }
}

/** The bounds of one scope, and whether one of its waits already ran out. */
interface Scope {
  timeouts: DatabaseTimeouts;
  /** The first wait of this scope that ran out. */
  failure?: StoreTimeoutError;
}

const scopes = new AsyncLocalStorage<Scope>();

/**
 * Runs `fn` with the store's waits bounded by `timeouts` (module comment); everything `fn` starts,
 * awaited or not, is in the scope. A scope inside another replaces it for `fn`.
 */
export function withStoreBounds<T>(timeouts: DatabaseTimeouts, fn: () => T): T {
  return scopes.run({ timeouts }, fn);
}

/** The error of the first bounded wait that ran out in the current scope, if any. */
export function storeFailureInScope(): StoreTimeoutError | undefined {
  return scopes.getStore()?.failure;
}

type Callback = (err: unknown, ...results: unknown[]) => void;

/** What this module uses of a mysql2 pool connection (lib/pool_connection.js). */
interface PoolConnectionLike {
  query(...args: unknown[]): unknown;
  release(): void;
  destroy(): void;
  on(event: 'error', listener: (err: unknown) => void): unknown;
  stream?: { destroy(): void };
  /** Set once its `query` is bounded. */
  assayBounded?: true;
}

/** What this module uses of a mysql2 pool (lib/base/pool.js). */
interface PoolLike {
  getConnection(cb: (err: unknown, connection?: PoolConnectionLike) => void): void;
}

/** Takes a hung connection out of the pool and closes its socket now (not after the server's FIN). */
function abandon(connection: PoolConnectionLike): void {
  connection.destroy();
  connection.stream?.destroy();
}

/** Bounds `connection.query` by the scope's `queryTimeoutMs` when called inside a scope (once per connection). */
function boundQueries(connection: PoolConnectionLike): PoolConnectionLike {
  if (connection.assayBounded) return connection;
  connection.assayBounded = true;
  // A destroyed connection may still report its socket's end; the pool and TypeORM listen too.
  connection.on('error', () => undefined);
  const query = connection.query.bind(connection);
  connection.query = (...args: unknown[]) => {
    const scope = scopes.getStore();
    const at = args.findIndex((a) => typeof a === 'function');
    // Outside a scope, or a streamed query (no callback): as mysql2 does it.
    if (!scope || at < 0) return query(...args);
    const ms = scope.timeouts.queryTimeoutMs;
    const callback = args[at] as Callback;
    let settled = false;
    const timer = setTimeout(() => {
      settled = true;
      const err = new StoreTimeoutError('query', ms);
      scope.failure ??= err;
      abandon(connection);
      callback(err);
    }, ms);
    timer.unref();
    args[at] = (...results: unknown[]) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      (callback as (...r: unknown[]) => void)(...results);
    };
    return query(...args);
  };
  return connection;
}

/**
 * The pool as TypeORM sees it: `getConnection` bounded by the scope's `acquireTimeoutMs` (module
 * comment) and every connection it hands out by `queryTimeoutMs`; outside a scope as mysql2's.
 * Everything else is the pool's own. The pool itself is left as it is: when it hands a freed
 * connection to a queued caller it calls its own `getConnection` again, and that call, made from
 * whatever context freed the connection, must not take that context's bounds.
 */
export function boundPool<P extends PoolLike>(pool: P): P {
  const getConnection = pool.getConnection.bind(pool);
  const bounded: PoolLike['getConnection'] = (cb) => {
    const scope = scopes.getStore();
    if (!scope) return getConnection((err, connection) => cb(err, connection && boundQueries(connection)));
    if (scope.failure) {
      const failure = scope.failure;
      return process.nextTick(() =>
        cb(new StoreTimeoutError('acquire', 0, `${failure.message} earlier in this request`)),
      );
    }
    const ms = scope.timeouts.acquireTimeoutMs;
    let settled = false;
    const timer = setTimeout(() => {
      settled = true;
      const err = new StoreTimeoutError('acquire', ms);
      scope.failure ??= err;
      cb(err);
    }, ms);
    timer.unref();
    getConnection((err, connection) => {
      if (settled) {
        // The caller gave up: a connection that came late serves the next one.
        connection?.release();
        return;
      }
      settled = true;
      clearTimeout(timer);
      cb(err, connection && boundQueries(connection));
    });
  };
  return new Proxy(pool, {
    get(target, property) {
      if (property === 'getConnection') return bounded;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * The mysql2 module as TypeORM's MySQL driver loads it (its `driver` option), with every pool it
 * creates bounded ({@link boundPool}).
 */
export function boundedMysql2(): Record<string, unknown> {
  return {
    ...mysql2,
    createPool: (options: mysql2.PoolOptions) => boundPool(mysql2.createPool(options) as unknown as PoolLike),
  };
}
