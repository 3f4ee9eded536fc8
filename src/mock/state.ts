/**
 * Mock state (docs/mocks.md "State"): data collections' records in the store, per scope, and the
 * engine's state stage (src/mock/engine.ts `MockStages.state`): the generated CRUD routes
 * (src/mock/crud.ts) and the responses that read and write records with JSONata.
 *
 * Where records live: `mock_records`, keyed by collection, scope and record id (src/store/entities/
 * mock-state.ts). Scopes: `''` is the shared state (requests without a scope), `~seed` the
 * collection's seed (a name no request can give: `~` is outside MOCK_SCOPE_PATTERN), any other a
 * run's (`run_…`) or a user's. A scope starts from the seed: the first write to it inserts its row
 * in `mock_scopes` and copies the seed in with one INSERT…SELECT, in the same transaction (the
 * insert of the scope row decides, across processes, who copies); reads of a scope that has not
 * started read the seed. Every write is one transaction (MySQL: READ COMMITTED with the scope's
 * row locked `FOR UPDATE`, so writes to one scope are serialised and their order is the order of
 * `seq`; SQLite: a connection of its own and `BEGIN IMMEDIATE`, serialised in the process by a
 * queue and across processes by SQLite's lock), and the answer is written only after its commit:
 * an acknowledged write is durable. Nothing of the records is cached in the process, so every API
 * process sees every write at once; only the collections' definitions are cached (like designs,
 * revalidated every `revalidateMs`).
 *
 * Scopes unused (no write, no read of a started scope) for `ASSAY_MOCK_SCOPE_TTL_SECONDS` are
 * deleted by {@link startScopeSweep}; a run's scope is deleted when the run ends
 * (activities/runs.ts `finishRun` → {@link discardScope}).
 */
import type { DataSource } from 'typeorm';
import { ulid } from 'ulid';
import type { Logger } from 'pino';
import { MockCollection } from '../store/entities';
import { evaluateExpression, ExpressionError, type EvaluationLimits } from '../domain/expressions';
import type { MockStateAction } from '../domain/mocks';
import { readBody, requestView, MockBodyTooLarge, type MockExchange } from './exchange';

/** The shared state's scope (requests without `X-Assay-Mock-Scope`). */
export const SHARED_SCOPE = '';
/** The reserved scope holding a collection's seed. */
export const SEED_SCOPE = '~seed';
/** Records a collection's seed may hold, and a scope at most (a POST past it is refused). */
export const MAX_RECORDS = 10_000;
/** Bytes of JSON a seed may have. */
export const MAX_SEED_BYTES = 8 * 1024 * 1024;
/** Longest record id (characters). */
export const MAX_RECORD_ID = 200;

/** Limits of state expressions (`update`, `body`): evaluated in the API process, where a wall clock works. */
export const STATE_LIMITS: EvaluationLimits = {
  maxSteps: 100_000,
  maxDepth: 200,
  maxSequence: 100_000,
  timeoutMs: 1000,
};

/** A collection as the state stage uses it. */
export interface CollectionInfo {
  id: string;
  workspaceId: string;
  name: string;
  basePath: string | null;
  idField: string;
}

/** A record's JSON object. */
export type MockRecordData = Record<string, unknown>;

/** A refusal of a state operation: a problem code of src/problems.ts, its detail and extras. */
export class StateRefusal extends Error {
  constructor(
    readonly code:
      | 'mock-record-not-found'
      | 'mock-record-exists'
      | 'mock-request-invalid'
      | 'mock-state-failed'
      | 'mock-body-too-large',
    message: string,
    readonly extras: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** One statement runner (inside a transaction or not). */
interface Sql {
  /** Runs a statement; the rows it changed. */
  run(sql: string, params?: unknown[]): Promise<number>;
  all<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
}

/** The store as state uses it: raw SQL, the same on both dialects but for a few words. */
interface StateDb {
  readonly dialect: 'mysql' | 'sqlite';
  /** A write transaction (retried on a MySQL deadlock); its result once committed. */
  write<T>(fn: (tx: Sql) => Promise<T>): Promise<T>;
  /** Reads (not in a transaction on MySQL; behind the queue on SQLite, never seeing an open write). */
  read<T>(fn: (sql: Sql) => Promise<T>): Promise<T>;
  close(): void;
}

function errorCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; driverError?: { code?: unknown } };
  const code = e?.code ?? e?.driverError?.code;
  return typeof code === 'string' ? code : undefined;
}

function mysqlDb(dataSource: DataSource): StateDb {
  const pool: Sql = {
    async run(sql, params = []) {
      const runner = dataSource.createQueryRunner();
      try {
        return (await runner.query(sql, params, true)).affected ?? 0;
      } finally {
        await runner.release();
      }
    },
    all: (sql, params = []) => dataSource.query(sql, params),
  };
  return {
    dialect: 'mysql',
    async write(fn) {
      for (let attempt = 1; ; attempt++) {
        const runner = dataSource.createQueryRunner();
        try {
          await runner.connect();
          await runner.startTransaction('READ COMMITTED');
          const tx: Sql = {
            run: async (sql, params = []) => (await runner.query(sql, params, true)).affected ?? 0,
            all: (sql, params = []) => runner.query(sql, params),
          };
          const out = await fn(tx);
          await runner.commitTransaction();
          return out;
        } catch (err) {
          if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
          const code = errorCode(err);
          if (attempt < 5 && (code === 'ER_LOCK_DEADLOCK' || code === 'ER_LOCK_WAIT_TIMEOUT')) continue;
          throw err;
        } finally {
          await runner.release();
        }
      }
    },
    read: (fn) => fn(pool),
    close: () => undefined,
  };
}

/** The part of better-sqlite3 used here. */
interface SqliteStatement {
  run(...params: unknown[]): { changes: number };
  all(...params: unknown[]): unknown[];
}
interface SqliteDatabase {
  prepare(sql: string): SqliteStatement;
  exec(sql: string): void;
  pragma(sql: string): unknown;
  close(): void;
  readonly inTransaction: boolean;
}

/**
 * SQLite through a connection of its own (better-sqlite3): TypeORM shares one connection in the
 * process and would nest concurrent transactions as savepoints of each other. Writes are
 * `BEGIN IMMEDIATE` (the database's write lock at once, waited for up to 5 s while another
 * connection holds it), one at a time in the process.
 */
function sqliteDb(file: string): StateDb {
  // Loaded only for SQLite stores (the package has no type declarations: the part used is typed here).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Database = require('better-sqlite3') as new (file: string, options: { timeout: number }) => SqliteDatabase;
  // A short busy wait (it blocks the thread): the write lock is waited for below, between tries.
  const db = new Database(file, { timeout: 20 });
  db.pragma('journal_mode = WAL');
  const statements = new Map<string, SqliteStatement>();
  const prepare = (sql: string) => {
    let stmt = statements.get(sql);
    if (!stmt) statements.set(sql, (stmt = db.prepare(sql)));
    return stmt;
  };
  const sql: Sql = {
    run: async (text, params = []) => prepare(text).run(...params).changes,
    all: async <T>(text: string, params: unknown[] = []) => prepare(text).all(...params) as T[],
  };
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = queue.then(fn, fn);
    queue = next.catch(() => undefined);
    return next;
  };
  return {
    dialect: 'sqlite',
    write: (fn) =>
      serial(async () => {
        // Another connection (this process's TypeORM one, another process) may hold the write lock
        // across its own awaits: wait for it without blocking the event loop, up to 5 s.
        for (const until = Date.now() + 5000; ;) {
          try {
            db.exec('BEGIN IMMEDIATE');
            break;
          } catch (err) {
            if (errorCode(err) !== 'SQLITE_BUSY' || Date.now() > until) throw err;
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
        }
        try {
          const out = await fn(sql);
          db.exec('COMMIT');
          return out;
        } catch (err) {
          if (db.inTransaction) db.exec('ROLLBACK');
          throw err;
        }
      }),
    read: (fn) => serial(() => fn(sql)),
    close: () => db.close(),
  };
}

/** `YYYY-MM-DD HH:MM:SS.mmm` in UTC: how both dialects' `datetime(3)` columns are written here. */
function sqlTime(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

/** A record id as stored (`recordId`): a string of 1–200 characters, or a safe integer written out. */
export function recordIdOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value.length > 0 && value.length <= MAX_RECORD_ID ? value : undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return undefined;
}

function parseData(value: unknown): MockRecordData {
  return (typeof value === 'string' ? JSON.parse(value) : value) as MockRecordData;
}

function isObject(value: unknown): value is MockRecordData {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** RFC 7396 JSON Merge Patch: `patch` applied to `target` (a new value; `null` members remove). */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: MockRecordData = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** What a list request asks for (json-server's parameters; docs/mocks.md "Generated routes"). */
export interface ListQuery {
  /** `?field=value` on top-level fields; several values of one field: any of them. */
  filters: Map<string, string[]>;
  /** `_sort=field,-other`. */
  sort: Array<{ field: string; desc: boolean }>;
  /** `_page` (from 1) and `_limit` (1–1000, default 100). */
  page: number;
  limit: number;
}

/** Order of two field values for `_sort` (numbers as numbers, else text); missing values are not compared here. */
function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = typeof a === 'string' ? a : JSON.stringify(a);
  const y = typeof b === 'string' ? b : JSON.stringify(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function matches(record: MockRecordData, filters: Map<string, string[]>): boolean {
  for (const [field, values] of filters) {
    const v = record[field];
    const text = v === null ? 'null' : typeof v === 'object' ? JSON.stringify(v) : String(v);
    if (!values.includes(text)) return false;
  }
  return true;
}

/**
 * The mock state of one store: collections' definitions (cached per workspace), records per scope,
 * the state stage's operations. One per data source ({@link mockStateFor}).
 */
export class MockState {
  readonly db: StateDb;
  private readonly cache = new Map<string, { at: number; version: string; list: CollectionInfo[] }>();
  private readonly touched = new Map<string, number>();
  private readonly touchMs: number;

  constructor(
    private readonly dataSource: DataSource,
    private readonly options: { ttlSeconds: number; revalidateMs: number },
  ) {
    const type = dataSource.options.type;
    this.db = type === 'better-sqlite3' ? sqliteDb(String(dataSource.options.database)) : mysqlDb(dataSource);
    // A scope's `usedAt` is moved at most this often per process (reads would otherwise write).
    this.touchMs = Math.min(60_000, Math.max(100, (options.ttlSeconds * 1000) / 10));
  }

  /** Forgets a workspace's cached collections (after a change through this process). */
  invalidate(workspaceId: string): void {
    this.cache.delete(workspaceId);
  }

  /** The workspace's collections (cached; a change through another process is seen within `revalidateMs`). */
  async collections(workspaceId: string): Promise<CollectionInfo[]> {
    const cached = this.cache.get(workspaceId);
    const now = Date.now();
    if (cached && now - cached.at < this.options.revalidateMs) return cached.list;
    const [row] = await this.db.read((sql) =>
      sql.all<{ n: number | string; at: unknown }>(
        'SELECT COUNT(*) AS n, MAX(updatedAt) AS at FROM mock_collections WHERE workspaceId = ?',
        [workspaceId],
      ),
    );
    const version = `${row?.n}/${String(row?.at)}`;
    if (cached && cached.version === version) {
      cached.at = now;
      return cached.list;
    }
    const rows = await this.dataSource.getRepository(MockCollection).find({ where: { workspaceId } });
    const list = rows
      .map((c) => ({ id: c.id, workspaceId: c.workspaceId, name: c.name, basePath: c.basePath, idField: c.idField }))
      // Longest base path first: `/users/admins` before `/users`.
      .sort((a, b) => (b.basePath?.length ?? 0) - (a.basePath?.length ?? 0));
    this.cache.set(workspaceId, { at: now, version, list });
    return list;
  }

  /**
   * Starts `scope` of `c` inside a write transaction when it has not started (its row, and the
   * seed copied in), and locks its row (MySQL) so that writes to one scope are one at a time.
   */
  private async begin(tx: Sql, c: CollectionInfo, scope: string): Promise<void> {
    const now = Date.now();
    const lock = this.db.dialect === 'mysql' ? ' FOR UPDATE' : '';
    const select = `SELECT usedAt FROM mock_scopes WHERE collectionId = ? AND scope = ?${lock}`;
    // SQLite: the first statement is a write anyway (BEGIN IMMEDIATE holds the lock already).
    const rows = this.db.dialect === 'mysql' ? await tx.all(select, [c.id, scope]) : [];
    if (rows.length === 0) {
      const ignore = this.db.dialect === 'mysql' ? 'INSERT IGNORE' : 'INSERT OR IGNORE';
      const inserted = await tx.run(
        `${ignore} INTO mock_scopes (collectionId, scope, workspaceId, createdAt, usedAt) VALUES (?, ?, ?, ?, ?)`,
        [c.id, scope, c.workspaceId, sqlTime(now), sqlTime(now)],
      );
      if (inserted === 1) {
        await tx.run(
          `INSERT INTO mock_records (collectionId, scope, recordId, seq, intId, data)
           SELECT collectionId, ?, recordId, seq, intId, data FROM mock_records WHERE collectionId = ? AND scope = ?`,
          [scope, c.id, SEED_SCOPE],
        );
        this.touched.set(`${c.id}/${scope}`, now);
        return;
      }
      // Another transaction started it meanwhile: take its row's lock now that it is there.
      if (this.db.dialect === 'mysql') await tx.all(select, [c.id, scope]);
    }
    await this.touchIn(tx, c, scope, now);
  }

  private async touchIn(sql: Sql, c: CollectionInfo, scope: string, now: number): Promise<void> {
    const key = `${c.id}/${scope}`;
    if (now - (this.touched.get(key) ?? 0) < this.touchMs) return;
    this.touched.set(key, now);
    if (this.touched.size > 10_000) this.touched.clear();
    await sql.run('UPDATE mock_scopes SET usedAt = ? WHERE collectionId = ? AND scope = ?', [
      sqlTime(now),
      c.id,
      scope,
    ]);
  }

  /** The scope a read sees: itself when it has started, else the seed (reads never start a scope). */
  private async readScope(sql: Sql, c: CollectionInfo, scope: string): Promise<string> {
    const rows = await sql.all('SELECT usedAt FROM mock_scopes WHERE collectionId = ? AND scope = ?', [c.id, scope]);
    if (rows.length === 0) return SEED_SCOPE;
    await this.touchIn(sql, c, scope, Date.now());
    return scope;
  }

  private async getIn(sql: Sql, c: CollectionInfo, scope: string, id: string): Promise<MockRecordData | undefined> {
    const rows = await sql.all<{ data: unknown }>(
      'SELECT data FROM mock_records WHERE collectionId = ? AND scope = ? AND recordId = ?',
      [c.id, scope, id],
    );
    return rows[0] ? parseData(rows[0].data) : undefined;
  }

  private async allIn(sql: Sql, c: CollectionInfo, scope: string): Promise<MockRecordData[]> {
    const rows = await sql.all<{ data: unknown }>(
      'SELECT data FROM mock_records WHERE collectionId = ? AND scope = ? ORDER BY seq, recordId',
      [c.id, scope],
    );
    return rows.map((r) => parseData(r.data));
  }

  /**
   * Inserts `body` as a new record (POST, and state responses without `id`): its id, else the next
   * one. @throws StateRefusal `mock-record-exists` when the id is taken
   */
  private async createIn(sql: Sql, c: CollectionInfo, scope: string, body: MockRecordData): Promise<MockRecordData> {
    const record = { ...body };
    if (record[c.idField] === undefined || record[c.idField] === null)
      record[c.idField] = await this.nextId(sql, c, scope);
    const id = recordIdOf(record[c.idField]);
    if (id === undefined) throw badId(c);
    if (await this.getIn(sql, c, scope, id))
      throw new StateRefusal('mock-record-exists', `${c.name} already has a record with ${c.idField} "${id}".`, {
        collection: c.name,
        id,
      });
    await this.insertIn(sql, c, scope, id, record);
    return record;
  }

  /** Inserts `record` as the scope's newest (its id must be free). */
  private async insertIn(
    sql: Sql,
    c: CollectionInfo,
    scope: string,
    id: string,
    record: MockRecordData,
  ): Promise<void> {
    const [row] = await sql.all<{ s: unknown; n: unknown }>(
      'SELECT MAX(seq) AS s, COUNT(*) AS n FROM mock_records WHERE collectionId = ? AND scope = ?',
      [c.id, scope],
    );
    if (Number(row?.n ?? 0) >= MAX_RECORDS)
      throw new StateRefusal(
        'mock-state-failed',
        `The collection "${c.name}" holds ${MAX_RECORDS} records in this scope, its most.`,
      );
    const seq = row?.s === null || row?.s === undefined ? 1 : Number(row.s) + 1;
    const idValue = record[c.idField];
    await sql.run(
      'INSERT INTO mock_records (collectionId, scope, recordId, seq, intId, data) VALUES (?, ?, ?, ?, ?, ?)',
      [c.id, scope, id, seq, typeof idValue === 'number' ? idValue : null, JSON.stringify(record)],
    );
  }

  private async updateIn(
    sql: Sql,
    c: CollectionInfo,
    scope: string,
    id: string,
    record: MockRecordData,
  ): Promise<void> {
    await sql.run('UPDATE mock_records SET data = ? WHERE collectionId = ? AND scope = ? AND recordId = ?', [
      JSON.stringify(record),
      c.id,
      scope,
      id,
    ]);
  }

  /** The id a new record without one gets: the largest integer id + 1 when every id is an integer (1 when none), else a ULID. */
  private async nextId(sql: Sql, c: CollectionInfo, scope: string): Promise<string | number> {
    const [row] = await sql.all<{ i: unknown; n: unknown; ni: unknown }>(
      'SELECT MAX(intId) AS i, COUNT(*) AS n, COUNT(intId) AS ni FROM mock_records WHERE collectionId = ? AND scope = ?',
      [c.id, scope],
    );
    if (Number(row?.n ?? 0) === Number(row?.ni ?? 0))
      return row?.i === null || row?.i === undefined ? 1 : Number(row.i) + 1;
    return ulid();
  }

  /** One record, or undefined. */
  get(c: CollectionInfo, scope: string, id: string): Promise<MockRecordData | undefined> {
    return this.db.read(async (sql) => this.getIn(sql, c, await this.readScope(sql, c, scope), id));
  }

  /** A page of the scope's records as a generated list route answers it, and how many match. */
  list(c: CollectionInfo, scope: string, q: ListQuery): Promise<{ records: MockRecordData[]; total: number }> {
    return this.db.read(async (sql) => {
      const from = await this.readScope(sql, c, scope);
      const offset = (q.page - 1) * q.limit;
      if (q.filters.size === 0 && q.sort.length === 0) {
        const [count] = await sql.all<{ n: unknown }>(
          'SELECT COUNT(*) AS n FROM mock_records WHERE collectionId = ? AND scope = ?',
          [c.id, from],
        );
        const rows = await sql.all<{ data: unknown }>(
          'SELECT data FROM mock_records WHERE collectionId = ? AND scope = ? ORDER BY seq, recordId LIMIT ? OFFSET ?',
          [c.id, from, q.limit, offset],
        );
        return { records: rows.map((r) => parseData(r.data)), total: Number(count?.n ?? 0) };
      }
      let all = (await this.allIn(sql, c, from)).filter((r) => matches(r, q.filters));
      if (q.sort.length > 0)
        all = all.sort((a, b) => {
          for (const { field, desc } of q.sort) {
            // Records without the field come last in either direction.
            const x = a[field] ?? null;
            const y = b[field] ?? null;
            if (x === null || y === null) {
              if (x !== y) return x === null ? 1 : -1;
              continue;
            }
            const d = compareValues(x, y);
            if (d !== 0) return desc ? -d : d;
          }
          return 0;
        });
      return { records: all.slice(offset, offset + q.limit), total: all.length };
    });
  }

  /** Records of a scope in insertion order after `after` ([seq, recordId]), for `GET /v1/mock-collections/{id}/records`. */
  page(
    c: CollectionInfo,
    scope: string,
    after: [string, string] | undefined,
    limit: number,
  ): Promise<{ items: Array<{ id: string; data: MockRecordData }>; next: [string, string] | null }> {
    return this.db.read(async (sql) => {
      const from =
        scope === SEED_SCOPE
          ? SEED_SCOPE
          : (await sql.all('SELECT usedAt FROM mock_scopes WHERE collectionId = ? AND scope = ?', [c.id, scope]))
                .length > 0
            ? scope
            : SEED_SCOPE;
      const params: unknown[] = [c.id, from];
      let where = 'collectionId = ? AND scope = ?';
      if (after) {
        where += ' AND (seq > ? OR (seq = ? AND recordId > ?))';
        params.push(Number(after[0]), Number(after[0]), after[1]);
      }
      const rows = await sql.all<{ recordId: string; seq: unknown; data: unknown }>(
        `SELECT recordId, seq, data FROM mock_records WHERE ${where} ORDER BY seq, recordId LIMIT ?`,
        [...params, limit + 1],
      );
      const items = rows.slice(0, limit).map((r) => ({ id: r.recordId, data: parseData(r.data) }));
      const last = rows.length > limit ? rows[limit - 1]! : undefined;
      return { items, next: last ? [String(last.seq), last.recordId] : null };
    });
  }

  /** How many records a scope has (the seed's when it has not started). */
  count(c: CollectionInfo, scope: string): Promise<number> {
    return this.db.read(async (sql) => {
      const from =
        scope === SEED_SCOPE
          ? SEED_SCOPE
          : (await sql.all('SELECT usedAt FROM mock_scopes WHERE collectionId = ? AND scope = ?', [c.id, scope])).length
            ? scope
            : SEED_SCOPE;
      const [row] = await sql.all<{ n: unknown }>(
        'SELECT COUNT(*) AS n FROM mock_records WHERE collectionId = ? AND scope = ?',
        [c.id, from],
      );
      return Number(row?.n ?? 0);
    });
  }

  /** POST: inserts `body` (its id, else a generated one). @throws StateRefusal `mock-record-exists` */
  create(c: CollectionInfo, scope: string, body: MockRecordData): Promise<MockRecordData> {
    return this.db.write(async (tx) => {
      await this.begin(tx, c, scope);
      return this.createIn(tx, c, scope, body);
    });
  }

  /** PUT: replaces record `id` (its id kept), or creates it; `created` says which. */
  replace(
    c: CollectionInfo,
    scope: string,
    id: string,
    body: MockRecordData,
  ): Promise<{ record: MockRecordData; created: boolean }> {
    return this.db.write(async (tx) => {
      await this.begin(tx, c, scope);
      const before = await this.getIn(tx, c, scope, id);
      const record = { ...body, [c.idField]: before ? before[c.idField] : idValue(id, body[c.idField]) };
      if (before) await this.updateIn(tx, c, scope, id, record);
      else await this.insertIn(tx, c, scope, id, record);
      return { record, created: !before };
    });
  }

  /** PATCH (RFC 7396 merge patch; the id kept). @throws StateRefusal `mock-record-not-found` */
  patch(c: CollectionInfo, scope: string, id: string, patch: MockRecordData): Promise<MockRecordData> {
    return this.db.write(async (tx) => {
      await this.begin(tx, c, scope);
      const before = await this.getIn(tx, c, scope, id);
      if (!before) throw notFound(c, id);
      const record = { ...(mergePatch(before, patch) as MockRecordData), [c.idField]: before[c.idField] };
      await this.updateIn(tx, c, scope, id, record);
      return record;
    });
  }

  /** DELETE. @throws StateRefusal `mock-record-not-found` */
  remove(c: CollectionInfo, scope: string, id: string): Promise<void> {
    return this.db.write(async (tx) => {
      await this.begin(tx, c, scope);
      const n = await tx.run('DELETE FROM mock_records WHERE collectionId = ? AND scope = ? AND recordId = ?', [
        c.id,
        scope,
        id,
      ]);
      if (n === 0) throw notFound(c, id);
    });
  }

  /**
   * A state response (MockResponse `state`): with `update`, the record's new value (with `id`) or
   * a new record (without) written in one transaction with the `body` evaluation; without, a read.
   * Returns the body's value when the action has a `body` expression, else `{ body: undefined }`
   * (the response's own data is answered).
   * @throws StateRefusal (404 when `id` names no record; 500 `mock-state-failed` when an expression fails)
   */
  async act(
    c: CollectionInfo,
    scope: string,
    action: MockStateAction,
    id: string | undefined,
    request: unknown,
  ): Promise<{ body: unknown; hasBody: boolean }> {
    const evaluate = async (field: 'update' | 'body', input: unknown) => {
      try {
        return await evaluateExpression(action[field]!, input, {}, STATE_LIMITS);
      } catch (err) {
        if (!(err instanceof ExpressionError)) throw err;
        throw new StateRefusal('mock-state-failed', `state.${field} failed: ${err.message}`, {
          field: `state.${field}`,
        });
      }
    };
    const answer = async (input: Record<string, unknown>) =>
      action.body === undefined
        ? { body: undefined, hasBody: false }
        : { body: await evaluate('body', input), hasBody: true };
    if (action.update === undefined) {
      return this.db.read(async (sql) => {
        const from = await this.readScope(sql, c, scope);
        if (id !== undefined) {
          const record = await this.getIn(sql, c, from, id);
          if (!record) throw notFound(c, id);
          return answer({ record, before: record, request });
        }
        return answer({ record: null, before: null, request, records: await this.allIn(sql, c, from) });
      });
    }
    return this.db.write(async (tx) => {
      await this.begin(tx, c, scope);
      if (id !== undefined) {
        const before = await this.getIn(tx, c, scope, id);
        if (!before) throw notFound(c, id);
        const next = await evaluate('update', { record: before, request });
        if (!isObject(next))
          throw new StateRefusal('mock-state-failed', 'state.update must give the record as a JSON object.', {
            field: 'state.update',
          });
        const record = { ...next, [c.idField]: before[c.idField] };
        await this.updateIn(tx, c, scope, id, record);
        return answer({ record, before, request });
      }
      const next = await evaluate('update', { record: null, request });
      if (!isObject(next))
        throw new StateRefusal('mock-state-failed', 'state.update must give the new record as a JSON object.', {
          field: 'state.update',
        });
      const record = await this.createIn(tx, c, scope, next);
      return answer({ record, before: null, request, records: await this.allIn(tx, c, scope) });
    });
  }

  /**
   * Replaces a collection's seed with `records` (checked: objects with ids, unique) and resets its
   * shared state to it; started scopes keep theirs.
   */
  async setSeed(c: CollectionInfo, records: MockRecordData[]): Promise<void> {
    await this.db.write(async (tx) => {
      await tx.run('DELETE FROM mock_records WHERE collectionId = ? AND scope = ?', [c.id, SEED_SCOPE]);
      const rows = records.map((r, i) => {
        const v = r[c.idField];
        return [c.id, SEED_SCOPE, recordIdOf(v)!, i + 1, typeof v === 'number' ? v : null, JSON.stringify(r)];
      });
      // In chunks: placeholders stay under MySQL's 65,535 and SQLite's 32,766.
      for (let i = 0; i < rows.length; i += 500) {
        const chunk = rows.slice(i, i + 500);
        await tx.run(
          `INSERT INTO mock_records (collectionId, scope, recordId, seq, intId, data) VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?)').join(', ')}`,
          chunk.flat(),
        );
      }
      await this.resetIn(tx, c);
    });
  }

  private async resetIn(tx: Sql, c: CollectionInfo): Promise<void> {
    await tx.run('DELETE FROM mock_records WHERE collectionId = ? AND scope = ?', [c.id, SHARED_SCOPE]);
    await tx.run('DELETE FROM mock_scopes WHERE collectionId = ? AND scope = ?', [c.id, SHARED_SCOPE]);
  }

  /** The shared state back to the seed (`POST /v1/mock-collections/{id}/reset`). */
  reset(c: CollectionInfo): Promise<void> {
    return this.db.write((tx) => this.resetIn(tx, c));
  }

  /** Deletes everything of a collection (its records in every scope, its scopes). */
  drop(collectionId: string): Promise<void> {
    return this.db.write(async (tx) => {
      await tx.run('DELETE FROM mock_records WHERE collectionId = ?', [collectionId]);
      await tx.run('DELETE FROM mock_scopes WHERE collectionId = ?', [collectionId]);
    });
  }

  /** Discards `scope` in every collection of the workspace; how many collections had it. */
  discardScope(workspaceId: string, scope: string): Promise<number> {
    if (scope === SHARED_SCOPE || scope === SEED_SCOPE) return Promise.resolve(0);
    return this.db.write(async (tx) => {
      const rows = await tx.all<{ collectionId: string }>(
        'SELECT collectionId FROM mock_scopes WHERE workspaceId = ? AND scope = ?',
        [workspaceId, scope],
      );
      for (const { collectionId } of rows) await this.dropScope(tx, collectionId, scope);
      return rows.length;
    });
  }

  private async dropScope(tx: Sql, collectionId: string, scope: string): Promise<void> {
    await tx.run('DELETE FROM mock_records WHERE collectionId = ? AND scope = ?', [collectionId, scope]);
    await tx.run('DELETE FROM mock_scopes WHERE collectionId = ? AND scope = ?', [collectionId, scope]);
  }

  /** Deletes scopes (never the shared state) unused since `cutoff`, at most `max`; how many. */
  async sweep(cutoff: Date, max = 1000): Promise<number> {
    const rows = await this.db.read((sql) =>
      sql.all<{ collectionId: string; scope: string }>(
        'SELECT collectionId, scope FROM mock_scopes WHERE usedAt < ? AND scope <> ? ORDER BY usedAt LIMIT ?',
        [sqlTime(cutoff.getTime()), SHARED_SCOPE, max],
      ),
    );
    let deleted = 0;
    for (const { collectionId, scope } of rows) {
      await this.db.write(async (tx) => {
        // Still unused: a scope used since the select is kept.
        const n = await tx.run('DELETE FROM mock_scopes WHERE collectionId = ? AND scope = ? AND usedAt < ?', [
          collectionId,
          scope,
          sqlTime(cutoff.getTime()),
        ]);
        if (n > 0) {
          await tx.run('DELETE FROM mock_records WHERE collectionId = ? AND scope = ?', [collectionId, scope]);
          deleted++;
        }
      });
      this.touched.delete(`${collectionId}/${scope}`);
    }
    return deleted;
  }

  close(): void {
    this.db.close();
  }
}

function notFound(c: CollectionInfo, id: string): StateRefusal {
  return new StateRefusal('mock-record-not-found', `${c.name} has no record with ${c.idField} "${id}".`, {
    collection: c.name,
    id,
  });
}

function badId(c: CollectionInfo): StateRefusal {
  return new StateRefusal(
    'mock-request-invalid',
    `The record's ${c.idField} must be a string of 1 to ${MAX_RECORD_ID} characters or an integer.`,
    { violations: [{ in: 'body', field: `/${c.idField}`, message: 'must be a string or an integer' }] },
  );
}

/** The id value a record created by PUT gets: the body's when it names the same id, else the URL's (an integer when it reads as one). */
function idValue(id: string, given: unknown): string | number {
  if (given !== undefined && recordIdOf(given) === id) return given as string | number;
  return /^-?[1-9][0-9]{0,14}$|^0$/.test(id) ? Number(id) : id;
}

/**
 * Discards `scope` in every collection of the workspace through the data source's own connection
 * (the worker's, when a run ends: activities/runs.ts `finishRun`); how many collections had it.
 */
export async function discardScope(dataSource: DataSource, workspaceId: string, scope: string): Promise<number> {
  if (scope === SHARED_SCOPE || scope === SEED_SCOPE) return 0;
  return dataSource.transaction(async (manager) => {
    const rows = (await manager.query('SELECT collectionId FROM mock_scopes WHERE workspaceId = ? AND scope = ?', [
      workspaceId,
      scope,
    ])) as Array<{ collectionId: string }>;
    for (const { collectionId } of rows) {
      await manager.query('DELETE FROM mock_records WHERE collectionId = ? AND scope = ?', [collectionId, scope]);
      await manager.query('DELETE FROM mock_scopes WHERE collectionId = ? AND scope = ?', [collectionId, scope]);
    }
    return rows.length;
  });
}

const states = new WeakMap<DataSource, MockState>();

/** The one {@link MockState} of a data source (the API routes and the engine share it). */
export function mockStateFor(
  dataSource: DataSource,
  options: { ttlSeconds: number; revalidateMs: number } = { ttlSeconds: 86_400, revalidateMs: 2000 },
): MockState {
  let state = states.get(dataSource);
  if (!state) states.set(dataSource, (state = new MockState(dataSource, options)));
  return state;
}

/** Closes and forgets the {@link MockState} of a data source (before it is destroyed). */
export function closeMockState(dataSource: DataSource): void {
  states.get(dataSource)?.close();
  states.delete(dataSource);
}

/** Time between scope sweeps, ms (at most; a small TTL sweeps more often). */
const SWEEP_INTERVAL_MS = 60_000;

/**
 * Starts the periodic deletion of scopes unused for `ttlSeconds` (in the API process, like the
 * run retention sweep, src/store/retention.ts): every minute (every TTL/2 when shorter, at least
 * every 200 ms). Several processes may sweep at once: a scope deleted by one is not found by
 * the other. A failed sweep is logged and retried at the next tick; the timer does not keep the
 * process alive.
 */
export function startScopeSweep(state: MockState, ttlSeconds: number, logger: Logger): { stop(): Promise<void> } {
  let running: Promise<void> | null = null;
  let stopped = false;
  const every = Math.max(200, Math.min(SWEEP_INTERVAL_MS, (ttlSeconds * 1000) / 2));
  const timer = setInterval(() => {
    if (stopped || running) return;
    running = state
      .sweep(new Date(Date.now() - ttlSeconds * 1000))
      .then((deleted) => {
        if (deleted > 0) logger.info({ deleted, ttlSeconds }, 'mock state: deleted unused scopes');
      })
      .catch((err: unknown) => logger.warn({ err }, 'mock scope sweep failed; retrying at the next one'))
      .finally(() => {
        running = null;
      });
  }, every);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}

/** Reads the exchange's body (bounded). @throws StateRefusal `mock-body-too-large` */
export async function readStateBody(ex: MockExchange): Promise<Buffer> {
  try {
    return await readBody(ex);
  } catch (err) {
    if (err instanceof MockBodyTooLarge)
      throw new StateRefusal('mock-body-too-large', 'The request body is larger than 1 MiB.');
    throw err;
  }
}

/** The request as state expressions see it (the body read first, bounded). @throws StateRefusal 413 */
export async function stateRequest(ex: MockExchange, params: Record<string, string>): Promise<unknown> {
  await readStateBody(ex);
  return requestView(ex, params);
}
