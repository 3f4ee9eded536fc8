/**
 * SQLite lock errors on the embedded store (docs/operations.md "The embedded store under concurrent
 * writes"): better-sqlite3 reports extended result codes (https://www.sqlite.org/rescode.html), and
 * every lock code, primary or extended, is "database unavailable" (503 with Retry-After), never a
 * refusal; a store transaction takes the write lock when it begins (BEGIN IMMEDIATE), so a read
 * then a write in it cannot fail with SQLITE_BUSY_SNAPSHOT.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDataSource } from '../../src/store/data-source';
import { isDatabaseRefusal, isDatabaseUnavailable } from '../../src/store/errors';

/** The few better-sqlite3 calls this test makes (the package ships no type declarations here). */
interface Sqlite {
  pragma(sql: string): unknown;
  exec(sql: string): void;
  prepare(sql: string): { all(): unknown[] };
  close(): void;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Database = require('better-sqlite3') as new (file: string) => Sqlite;

describe('SQLite lock errors', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-lock-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('extended busy and locked codes are database-unavailable, not refusals', () => {
    for (const code of [
      'SQLITE_BUSY',
      'SQLITE_BUSY_SNAPSHOT',
      'SQLITE_BUSY_RECOVERY',
      'SQLITE_BUSY_TIMEOUT',
      'SQLITE_LOCKED',
      'SQLITE_LOCKED_SHAREDCACHE',
    ]) {
      const err = {
        message: 'QueryFailedError',
        driverError: Object.assign(new Error('database is locked'), { code }),
      };
      expect(isDatabaseUnavailable(err), code).to.equal(true);
      expect(isDatabaseRefusal(err), code).to.equal(false);
    }
    expect(isDatabaseUnavailable({ code: 'SQLITE_CONSTRAINT_UNIQUE' })).to.equal(false);
  });

  it('a deferred read-then-write after another connection committed fails SQLITE_BUSY_SNAPSHOT, which is unavailable', () => {
    const file = path.join(dir, 'a.db');
    const a = new Database(file);
    const b = new Database(file);
    try {
      for (const db of [a, b]) db.pragma('journal_mode = WAL');
      a.exec('CREATE TABLE t (x INTEGER)');
      a.exec('BEGIN');
      a.prepare('SELECT * FROM t').all();
      b.exec('INSERT INTO t VALUES (1)');
      let caught: unknown;
      try {
        a.exec('INSERT INTO t VALUES (2)');
      } catch (err) {
        caught = err;
      }
      a.exec('ROLLBACK');
      expect((caught as { code?: string })?.code).to.equal('SQLITE_BUSY_SNAPSHOT');
      expect(isDatabaseUnavailable(caught)).to.equal(true);
    } finally {
      a.close();
      b.close();
    }
  });

  it('a store transaction holds the write lock from its start (BEGIN IMMEDIATE)', async () => {
    const file = path.join(dir, 'store.db');
    const dataSource = await createDataSource({ type: 'sqlite', file }).initialize();
    const other = new Database(file);
    try {
      await dataSource.query('CREATE TABLE t (x INTEGER)');
      other.pragma('busy_timeout = 0');
      let otherWrite: string | undefined;
      await dataSource.transaction(async (manager) => {
        await manager.query('SELECT * FROM t');
        try {
          other.exec('INSERT INTO t VALUES (1)');
          otherWrite = 'written';
        } catch (err) {
          otherWrite = (err as { code?: string }).code;
        }
        await manager.query('INSERT INTO t VALUES (2)');
      });
      expect(otherWrite).to.equal('SQLITE_BUSY');
      expect(await dataSource.query('SELECT x FROM t')).to.deep.equal([{ x: 2 }]);
    } finally {
      other.close();
      await dataSource.destroy();
    }
  });

  describe('transactions of one process (one shared connection)', () => {
    const tick = () => new Promise((r) => setTimeout(r, 5));

    it('two begun together: the one that fails is rolled back alone, the other is kept', async () => {
      const dataSource = await createDataSource({ type: 'sqlite', file: path.join(dir, 'two.db') }).initialize();
      try {
        await dataSource.query('CREATE TABLE t (x TEXT)');
        const outcomes = await Promise.allSettled([
          dataSource.transaction(async (m) => {
            await m.query("INSERT INTO t VALUES ('a')");
            await tick();
            throw new Error('refused');
          }),
          dataSource.transaction(async (m) => {
            await tick();
            await m.query("INSERT INTO t VALUES ('b')");
            await tick();
          }),
        ]);
        expect(outcomes.map((o) => (o.status === 'rejected' ? (o.reason as Error).message : 'ok'))).to.deep.equal([
          'refused',
          'ok',
        ]);
        expect(await dataSource.query('SELECT x FROM t')).to.deep.equal([{ x: 'b' }]);
      } finally {
        await dataSource.destroy();
      }
    });

    it("a statement of another caller during a transaction is not taken back by that transaction's rollback", async () => {
      const dataSource = await createDataSource({ type: 'sqlite', file: path.join(dir, 'other.db') }).initialize();
      try {
        await dataSource.query('CREATE TABLE t (x TEXT)');
        let started!: () => void;
        const begun = new Promise<void>((r) => (started = r));
        const failing = dataSource.transaction(async (m) => {
          await m.query("INSERT INTO t VALUES ('in')");
          started();
          await tick();
          await tick();
          throw new Error('refused');
        });
        await begun;
        const outside = dataSource.query("INSERT INTO t VALUES ('out')");
        await Promise.allSettled([failing, outside]);
        await outside;
        expect(await dataSource.query('SELECT x FROM t')).to.deep.equal([{ x: 'out' }]);
      } finally {
        await dataSource.destroy();
      }
    });
  });
});
