/**
 * The store's bounded waits (src/store/bounds.ts) on a fake mysql2 pool, the classification of a
 * timeout (src/store/errors.ts), and the keys that stand in for the store on reads (api/auth.ts
 * `VerifiedKeys`). The real thing against a frozen MariaDB: test/integration/durability/database-freeze.test.ts.
 */
import { EventEmitter } from 'node:events';
import { expect } from 'chai';
import { QueryFailedError } from 'typeorm';
import {
  boundPool,
  STORE_TIMEOUT_CODE,
  storeFailureInScope,
  StoreTimeoutError,
  withStoreBounds,
} from '../../src/store/bounds';
import { isDatabaseRefusal, isDatabaseTimeout, isDatabaseUnavailable } from '../../src/store/errors';
import { VerifiedKeys } from '../../api/auth';

type Callback = (err: unknown, ...results: unknown[]) => void;

/** A pool connection whose statements are answered only when the test says so. */
class FakeConnection extends EventEmitter {
  released = 0;
  destroyed = false;
  socketDestroyed = false;
  readonly statements: Array<{ sql: string; callback: Callback }> = [];
  readonly stream = { destroy: () => void (this.socketDestroyed = true) };
  query(sql: string, callback: Callback): void {
    this.statements.push({ sql, callback });
  }
  release(): void {
    this.released += 1;
  }
  destroy(): void {
    this.destroyed = true;
  }
}

/** A pool that hands out connections only when the test says so; `closed` is set by `end`. */
class FakePool {
  readonly waiting: Array<(err: unknown, connection?: FakeConnection) => void> = [];
  closed = false;
  getConnection(cb: (err: unknown, connection?: FakeConnection) => void): void {
    this.waiting.push(cb);
  }
  give(connection: FakeConnection): void {
    this.waiting.shift()!(null, connection);
  }
  end(): void {
    this.closed = true;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const BOUNDS = { acquireTimeoutMs: 50, queryTimeoutMs: 50 };

/** `getConnection` as a promise. */
function acquire(pool: FakePool): Promise<FakeConnection> {
  return new Promise((resolve, reject) => pool.getConnection((err, c) => (err ? reject(err) : resolve(c!))));
}

/** `query` as a promise. */
function query(connection: FakeConnection, sql: string): Promise<unknown> {
  return new Promise((resolve, reject) => connection.query(sql, (err, rows) => (err ? reject(err) : resolve(rows))));
}

describe('bounded store waits (src/store/bounds.ts)', () => {
  it('leaves waits outside a scope unbounded', async () => {
    const real = new FakePool();
    const pool = boundPool(real);
    const acquired = acquire(pool);
    await sleep(120);
    const connection = new FakeConnection();
    real.give(connection);
    expect(await acquired).to.equal(connection);
    const rows = query(connection, 'SELECT 1');
    await sleep(120);
    connection.statements[0]!.callback(null, [{ one: 1 }]);
    expect(await rows).to.deep.equal([{ one: 1 }]);
    expect(connection.destroyed).to.equal(false);
  });

  it('gives up acquiring after acquireTimeoutMs; a late connection goes back to the pool; later acquires in the scope fail at once', async () => {
    const real = new FakePool();
    const pool = boundPool(real);
    await withStoreBounds(BOUNDS, async () => {
      const started = Date.now();
      const err = await acquire(pool).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err)
        .to.be.instanceOf(StoreTimeoutError)
        .and.include({ phase: 'acquire', timeoutMs: 50, code: STORE_TIMEOUT_CODE });
      expect(Date.now() - started).to.be.within(40, 500);
      expect(storeFailureInScope()).to.equal(err);
      const late = new FakeConnection();
      real.give(late);
      expect(late.released).to.equal(1);
      const again = Date.now();
      const second = await acquire(pool).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(second).to.be.instanceOf(StoreTimeoutError).and.include({ phase: 'acquire', timeoutMs: 0 });
      expect(Date.now() - again).to.be.below(40);
      expect(real.waiting).to.have.length(0);
    });
    // Another scope starts afresh.
    await withStoreBounds(BOUNDS, async () => {
      const acquired = acquire(pool);
      const connection = new FakeConnection();
      real.give(connection);
      expect(await acquired).to.equal(connection);
    });
  });

  it('gives up a statement after queryTimeoutMs and takes its connection out of the pool; a late answer is dropped', async () => {
    const real = new FakePool();
    const pool = boundPool(real);
    const connection = new FakeConnection();
    await withStoreBounds(BOUNDS, async () => {
      const acquired = acquire(pool);
      real.give(connection);
      await acquired;
      const answered = await query(connection, 'SELECT 1');
      void answered;
    }).then(
      () => expect.fail('the statement should have timed out'),
      (err: unknown) => {
        expect(err).to.be.instanceOf(StoreTimeoutError).and.include({ phase: 'query', timeoutMs: 50 });
      },
    );
    expect(connection.destroyed, 'out of the pool').to.equal(true);
    expect(connection.socketDestroyed, 'socket closed now').to.equal(true);
    connection.statements[0]!.callback(null, []); // the server answers late: nobody hears it
  });

  it('passes an answer given in time through', async () => {
    const real = new FakePool();
    const pool = boundPool(real);
    const connection = new FakeConnection();
    const rows = await withStoreBounds(BOUNDS, async () => {
      const acquired = acquire(pool);
      real.give(connection);
      const pending = query(await acquired, 'SELECT 1');
      connection.statements[0]!.callback(null, [{ one: 1 }]);
      return pending;
    });
    expect(rows).to.deep.equal([{ one: 1 }]);
    expect(connection.destroyed).to.equal(false);
    expect(storeFailureInScope()).to.equal(undefined);
  });

  it('leaves the rest of the pool its own', () => {
    const real = new FakePool();
    const pool = boundPool(real);
    pool.end();
    expect(real.closed).to.equal(true);
    expect(pool.waiting).to.equal(real.waiting);
  });

  it('counts a timeout as the database being unavailable (503, retried by activities), never as a refusal', () => {
    const timeout = new StoreTimeoutError('query', 1000);
    const wrapped = new QueryFailedError('SELECT 1', [], timeout);
    for (const err of [timeout, wrapped]) {
      expect(isDatabaseUnavailable(err)).to.equal(true);
      expect(isDatabaseTimeout(err)).to.equal(true);
      expect(isDatabaseRefusal(err)).to.equal(false);
    }
    expect(isDatabaseTimeout(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }))).to.equal(false);
  });
});

describe('keys standing in for the store on reads (api/auth.ts VerifiedKeys)', () => {
  const caller = {
    workspaceId: 'ws_1',
    keyId: 'key_1',
    userId: null,
    scope: 'read' as const,
    actor: { type: 'key' as const, id: 'key_1', name: 'k (assay_…)' },
    principal: 'key_1',
  };

  it('answers a key the store confirmed within the last 10 minutes, and forgets a refused one', () => {
    const keys = new VerifiedKeys();
    const now = Date.now();
    expect(keys.recent('h', now)).to.equal(undefined);
    keys.confirmed('h', caller, now);
    expect(keys.recent('h', now + VerifiedKeys.MAX_AGE_MS)).to.deep.equal(caller);
    expect(keys.recent('h', now + VerifiedKeys.MAX_AGE_MS + 1)).to.equal(undefined);
    keys.refused('h');
    expect(keys.recent('h', now)).to.equal(undefined);
  });

  it('keeps at most MAX_KEYS, dropping the oldest confirmation', () => {
    const keys = new VerifiedKeys();
    for (let i = 0; i <= VerifiedKeys.MAX_KEYS; i++) keys.confirmed(`h${i}`, caller);
    expect(keys.recent('h0')).to.equal(undefined);
    expect(keys.recent(`h${VerifiedKeys.MAX_KEYS}`)).to.deep.equal(caller);
  });
});
