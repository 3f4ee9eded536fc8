/**
 * The mock journal (docs/mocks.md "Journal and verification"): every request a mock answers, with
 * how it was answered, kept in the store (`mock_journal_entries`) for `GET /v1/designs/{id}/requests`,
 * `GET /v1/mock-requests` (api/routes/mock-requests.ts) and `mockVerify` nodes ({@link verifyJournal}).
 *
 * The engine's journal stage (src/mock/engine.ts `MockStages.journal`):
 * - **scoped requests** (a run's, `X-Assay-Mock-Scope` or `/~scope`) are written before the answer
 *   is sent (the engine waits for {@link MockJournal.record}'s promise), by **group commit**: while
 *   one batch is being inserted the next requests gather into the next batch, one INSERT each, so a
 *   flow that verifies right after its service under test was answered finds the entry. A write
 *   that fails, or takes longer than `commitTimeoutMs` (2 s), lets the answer go anyway (the entry
 *   may be lost: `assay_mock_journal_dropped_total{reason="failed"}`);
 * - **unscoped requests** are a push onto an in-memory buffer (nothing else on the hot path),
 *   flushed every `flushMs` (250 ms) in batches; the buffer holds at most `bufferMax` (250)
 *   entries between flushes, so at most 1,000 unscoped entries a second per API process are
 *   written; more are dropped and counted (`assay_mock_journal_dropped_total{reason="overflow"}`):
 *   under a load test the journal keeps a sample, and the static answer path stays fast.
 *
 * Bounds: at most `ASSAY_MOCK_JOURNAL_MAX` entries per workspace (default 10,000; the oldest go) and
 * `ASSAY_MOCK_JOURNAL_TTL_SECONDS` (default one day), enforced by a sweep every minute in the API
 * process ({@link MockJournal.sweep}); between sweeps a workspace may hold more for a while.
 *
 * What is kept: method, path (within the workspace, at most 2,000 characters), query string (at
 * most 4,000), request headers with secrets masked (any name matching `SECRET_HEADER_NAME` of
 * src/domain/mocks.ts: containing `auth`, `cookie`, `key`, `password`, `secret`, `session` or
 * `token`, shown as `***`), the body's first 16 KiB, status (0 for a connection fault), fault, delay,
 * contract violations, source (`mock` or `proxy`), design, collection, scope and time.
 */
import type { DataSource } from 'typeorm';
import { In, LessThan } from 'typeorm';
import type { Logger } from 'pino';
import { newId } from '../ids';
import { MockJournalEntry, Run } from '../store/entities';
import { SECRET_HEADER_NAME, type MockJournalEntryView, type MockViolation } from '../domain/mocks';
import type { MockExchange } from './exchange';
import { mockJournalDropped } from '../observability/metrics';
import { evaluateExpression, ExpressionError, truthy, type EvaluationLimits } from '../domain/expressions';
import { preview } from '../domain/assertions';
import {
  MOCK_VERIFY_KEPT,
  MOCK_VERIFY_SCAN_MAX,
  type MockVerifyEntry,
  type MockVerifyInput,
  type MockVerifyOutput,
} from '../domain/mock-verify-io';

/** Bytes of a request body kept in an entry. */
export const JOURNAL_BODY_BYTES = 16 * 1024;
const MAX_PATH_CHARS = 2000;
const MAX_QUERY_CHARS = 4000;
const MAX_HEADER_CHARS = 2000;

/** Options of a {@link MockJournal}. */
export interface MockJournalOptions {
  /** Entries kept per workspace (`ASSAY_MOCK_JOURNAL_MAX`); 0 turns the journal off. */
  maxPerWorkspace: number;
  /** Seconds an entry is kept (`ASSAY_MOCK_JOURNAL_TTL_SECONDS`). */
  ttlSeconds: number;
  /** Flush interval of unscoped entries, ms (default 250). */
  flushMs?: number;
  /**
   * Unscoped entries buffered at most between two flushes (default 250: with `flushMs` 250, at most
   * 1,000 unscoped entries a second per process reach the store, so the journal never costs the
   * static answer path more than a small share of the process; past it they are dropped and counted).
   */
  bufferMax?: number;
  /** Longest a scoped answer waits for its entry's write, ms (default 2,000). */
  commitTimeoutMs?: number;
  /** Sweep interval, ms (default 60,000). */
  sweepMs?: number;
  logger?: Logger;
}

/** Request headers as kept: lower-case names, several values joined, secrets as `***`, long values cut. */
export function journalHeaders(headers: MockExchange['req']['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(', ') : value;
    out[name] = SECRET_HEADER_NAME.test(name)
      ? '***'
      : text.length > MAX_HEADER_CHARS
        ? text.slice(0, MAX_HEADER_CHARS)
        : text;
  }
  return out;
}

/** The row of an answered exchange. */
export function journalRow(ex: MockExchange, status: number, receivedAt: Date): MockJournalEntry {
  const body = ex.body && ex.body.length > 0 ? ex.body : undefined;
  const row = new MockJournalEntry();
  row.id = newId('mockRequest');
  row.workspaceId = ex.workspaceId;
  row.designId = ex.designId ?? null;
  row.collectionId = ex.collectionId ?? null;
  row.scope = ex.scope;
  row.method = ex.method.slice(0, 16);
  row.path = ex.path.slice(0, MAX_PATH_CHARS);
  row.query = ex.rawQuery.slice(0, MAX_QUERY_CHARS);
  row.headers = journalHeaders(ex.req.headers);
  row.body = body ? body.subarray(0, JOURNAL_BODY_BYTES).toString('utf8') : null;
  row.bodySize = body?.length ?? 0;
  row.status = status;
  row.fault = ex.fault ?? null;
  row.delayMs = Math.round(ex.delayMs ?? 0);
  row.violations = ex.violations?.length ? ex.violations : null;
  row.source = ex.source ?? 'mock';
  row.receivedAt = receivedAt;
  return row;
}

/** A kept body as the API shows it: parsed JSON when it is whole JSON, else the text; undefined when none. */
function bodyValue(row: MockJournalEntry): unknown {
  if (row.body === null || row.body === '') return undefined;
  if (row.bodySize > JOURNAL_BODY_BYTES) return row.body;
  try {
    return JSON.parse(row.body);
  } catch {
    return row.body;
  }
}

/** An entry as the API answers it (src/domain/mocks.ts `MockJournalEntryView`). */
export function entryView(row: MockJournalEntry): MockJournalEntryView {
  const body = bodyValue(row);
  return {
    id: row.id,
    designId: row.designId,
    collectionId: row.collectionId,
    scope: row.scope,
    method: row.method,
    path: row.path,
    query: row.query,
    headers: row.headers,
    ...(body !== undefined ? { body } : {}),
    status: row.status,
    fault: row.fault,
    delayMs: row.delayMs,
    violations: row.violations ?? [],
    source: row.source,
    receivedAt: new Date(row.receivedAt).toISOString(),
  };
}

/** Rows per INSERT: 17 variables a row, within SQLite's 32,766 (since 3.32) and MySQL's 65,535. */
/**
 * One multi-row INSERT with the driver's own value conversion (dates, JSON) but none of the query
 * builder's per-parameter work, which cost the mock service a third of its static throughput
 * (docs/benchmarks.md "Mock service"): the journal's rows are plain, known columns.
 */
async function insertRows(dataSource: DataSource, rows: MockJournalEntry[]): Promise<void> {
  if (rows.length === 0) return;
  const metadata = dataSource.getMetadata(MockJournalEntry);
  const columns = metadata.columns;
  const driver = dataSource.driver;
  const names = columns.map((c) => driver.escape(c.databaseName)).join(', ');
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  const params: unknown[] = [];
  for (const row of rows)
    for (const c of columns) params.push(driver.preparePersistentValue(c.getEntityValue(row) ?? null, c));
  await dataSource.query(
    `INSERT INTO ${driver.escape(metadata.tableName)} (${names}) VALUES ${rows.map(() => tuple).join(', ')}`,
    params,
  );
}

function batchSize(dataSource: DataSource): number {
  return dataSource.options.type === 'mysql' || dataSource.options.type === 'mariadb' ? 500 : 250;
}

/** The journal stage and its sweep (see the module comment). */
export class MockJournal {
  private buffer: Array<{ ex: MockExchange; status: number; at: number }> = [];
  /** Unscoped entries dropped since the last flush (counted into the metric there, not per request). */
  private overflow = 0;
  private next: { rows: MockJournalEntry[]; waiters: Array<() => void> } | null = null;
  private committing: Promise<void> | null = null;
  private flushing: Promise<void> | null = null;
  private timers: NodeJS.Timeout[] = [];
  private sweeping: Promise<unknown> | null = null;
  private readonly flushMs: number;
  private readonly bufferMax: number;
  private readonly commitTimeoutMs: number;

  constructor(
    private readonly dataSource: DataSource,
    readonly options: MockJournalOptions,
  ) {
    this.flushMs = options.flushMs ?? 250;
    this.bufferMax = options.bufferMax ?? 250;
    this.commitTimeoutMs = options.commitTimeoutMs ?? 2000;
  }

  /** Starts the flush timer and the sweep (first one after a minute); the timers do not keep the process alive. */
  start(): this {
    if (this.options.maxPerWorkspace <= 0) return this;
    const flush = setInterval(() => void this.flush(), this.flushMs);
    const sweepMs = this.options.sweepMs ?? 60_000;
    const sweep = setInterval(() => void this.sweep(), sweepMs);
    flush.unref();
    sweep.unref();
    this.timers.push(flush, sweep);
    return this;
  }

  /** Stops the timers, writes what is buffered, waits for writes under way. */
  async stop(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    await this.flush();
    await this.committing;
    await this.sweeping;
  }

  /** The engine's stage: see the module comment. Never throws. */
  record(ex: MockExchange, status: number): void | Promise<void> {
    if (this.options.maxPerWorkspace <= 0) return;
    if (ex.scope === null) {
      if (this.buffer.length < this.bufferMax) this.buffer.push({ ex, status, at: Date.now() });
      else this.overflow += 1;
      return;
    }
    return this.commit(journalRow(ex, status, new Date()));
  }

  /** Adds `row` to the next group commit; resolves once written (or failed, or past `commitTimeoutMs`). */
  private commit(row: MockJournalEntry): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.commitTimeoutMs);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      (this.next ??= { rows: [], waiters: [] }).rows.push(row);
      this.next.waiters.push(done);
      this.committing ??= this.commitLoop();
    });
  }

  private async commitLoop(): Promise<void> {
    try {
      while (this.next) {
        const batch = this.next;
        this.next = null;
        await this.insert(batch.rows);
        for (const w of batch.waiters) w();
      }
    } finally {
      this.committing = null;
    }
  }

  /** Inserts rows in batches; a failure is logged and counted, never thrown. */
  private async insert(rows: MockJournalEntry[]): Promise<void> {
    const size = batchSize(this.dataSource);
    for (let i = 0; i < rows.length; i += size) {
      const part = rows.slice(i, i + size);
      // Other requests go first between batches (SQLite's driver is synchronous: an insert holds the event loop).
      if (i > 0) await new Promise((resolve) => setImmediate(resolve));
      try {
        await insertRows(this.dataSource, part);
      } catch (err) {
        mockJournalDropped.inc({ reason: 'failed' }, part.length);
        this.options.logger?.warn({ err, entries: part.length }, 'mock journal: entries not written');
      }
    }
  }

  /** Writes the entries buffered now (after a flush under way, if any); resolves once they are written. */
  flush(): Promise<void> {
    if (this.overflow > 0) {
      mockJournalDropped.inc({ reason: 'overflow' }, this.overflow);
      this.overflow = 0;
    }
    // A flush under way took an earlier buffer: this one's entries go right after it.
    if (this.flushing) return this.flushing.then(() => this.flush());
    if (this.buffer.length === 0) return Promise.resolve();
    this.flushing = (async () => {
      try {
        // One buffer a flush: what arrives meanwhile waits for the next (the rate stays bounded).
        const taken = this.buffer;
        this.buffer = [];
        await this.insert(taken.map((b) => journalRow(b.ex, b.status, new Date(b.at))));
      } finally {
        this.flushing = null;
      }
    })();
    return this.flushing;
  }

  /**
   * One sweep: deletes entries older than the TTL, then each workspace's entries past the newest
   * `maxPerWorkspace`, in batches of 1,000 (at most 100 batches a sweep). Returns how many went.
   */
  sweep(now = Date.now()): Promise<number> {
    if (this.sweeping) return this.sweeping as Promise<number>;
    const run = this.sweepOnce(now)
      .catch((err: unknown) => {
        this.options.logger?.warn({ err }, 'mock journal sweep failed; retrying at the next one');
        return 0;
      })
      .finally(() => {
        this.sweeping = null;
      });
    this.sweeping = run;
    return run;
  }

  private async sweepOnce(now: number): Promise<number> {
    const repo = this.dataSource.getRepository(MockJournalEntry);
    const cutoff = new Date(now - this.options.ttlSeconds * 1000);
    let deleted = 0;
    let batches = 0;
    for (; batches < 100; batches++) {
      const ids = (await repo.find({ select: { id: true }, where: { receivedAt: LessThan(cutoff) }, take: 1000 })).map(
        (r) => r.id,
      );
      if (ids.length === 0) break;
      await repo.delete({ id: In(ids) });
      deleted += ids.length;
    }
    const max = this.options.maxPerWorkspace;
    const over = (await repo
      .createQueryBuilder('e')
      .select('e.workspaceId', 'workspaceId')
      .groupBy('e.workspaceId')
      .having('COUNT(*) > :max', { max })
      .getRawMany()) as Array<{ workspaceId: string }>;
    for (const { workspaceId } of over) {
      for (; batches < 100; batches++) {
        const ids = (
          await repo.find({
            select: { id: true },
            where: { workspaceId },
            order: { receivedAt: 'DESC', id: 'DESC' },
            skip: max,
            take: 1000,
          })
        ).map((r) => r.id);
        if (ids.length === 0) break;
        await repo.delete({ id: In(ids) });
        deleted += ids.length;
      }
    }
    if (deleted > 0) this.options.logger?.info({ deleted }, 'mock journal: old entries deleted');
    return deleted;
  }
}

/**
 * A matcher of journal paths for a `mockVerify` node's `path`: a design path template
 * (`/users/{id}`, `/files/{name}.json`: each `{…}` is one segment, or the part of one before the
 * text after it) or a concrete path (compared whole). Trailing and repeated slashes are ignored, as
 * the engine's router ignores them.
 */
export function pathMatcher(path: string): (candidate: string) => boolean {
  const norm = (p: string) => {
    const s = p.replace(/\/{2,}/g, '/');
    return s.length > 1 && s.endsWith('/') ? s.slice(0, -1) : s;
  };
  const wanted = norm(path);
  if (!/\{[^}]*\}/.test(wanted)) return (candidate) => norm(candidate) === wanted;
  const source = wanted
    .split(/(\{[^}]*\})/)
    .map((part) => (/^\{[^}]*\}$/.test(part) ? '[^/]+?' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  const re = new RegExp(`^${source}$`);
  return (candidate) => re.test(norm(candidate));
}

/** Limits of one `where` evaluation (per entry; the activity's budget, not the workflow's). */
const WHERE_LIMITS: EvaluationLimits = { maxSteps: 50_000, maxDepth: 200, maxSequence: 100_000, timeoutMs: 500 };

/** An entry as `where` sees it and a verification lists it: `query` parsed, the body cut for results. */
function verifyEntry(row: MockJournalEntry, cut: boolean): MockVerifyEntry {
  const view = entryView(row);
  const entry: MockVerifyEntry = { ...view, query: Object.fromEntries(new URLSearchParams(view.query)) };
  if (cut && entry.body !== undefined) entry.body = preview(entry.body, 4000);
  return entry;
}

/**
 * Answers a `mockVerify` node (src/flow/mock-verify-node.ts): the journal entries of the run's
 * workspace in the node's scope, matching method, path and design, counted where the JSONata
 * `where` holds on them. Oldest first; at most {@link MOCK_VERIFY_SCAN_MAX} looked at.
 */
export async function verifyJournal(dataSource: DataSource, input: MockVerifyInput): Promise<MockVerifyOutput> {
  const out: MockVerifyOutput = {
    count: 0,
    candidates: 0,
    requests: [],
    violations: [],
    nearest: [],
    truncated: false,
    finishedAtMs: 0,
  };
  const run = await dataSource
    .getRepository(Run)
    .findOne({ select: { id: true, workspaceId: true }, where: { id: input.runId } });
  if (!run) {
    out.error = `run ${input.runId} is not in the store, so its workspace's mock journal cannot be read`;
    out.finishedAtMs = Date.now();
    return out;
  }
  const qb = dataSource
    .getRepository(MockJournalEntry)
    .createQueryBuilder('e')
    .where('e.workspaceId = :ws', { ws: run.workspaceId });
  if (input.scope === 'run') qb.andWhere('e.scope = :scope', { scope: input.runId });
  else if (input.scope === 'shared') qb.andWhere('e.scope IS NULL');
  if (input.designId) qb.andWhere('e.designId = :designId', { designId: input.designId });
  if (input.method) qb.andWhere('e.method = :method', { method: input.method.toUpperCase() });
  const rows = await qb
    .orderBy('e.receivedAt', 'ASC')
    .addOrderBy('e.id', 'ASC')
    .take(MOCK_VERIFY_SCAN_MAX + 1)
    .getMany();
  if (rows.length > MOCK_VERIFY_SCAN_MAX) {
    out.truncated = true;
    rows.length = MOCK_VERIFY_SCAN_MAX;
  }
  const matchesPath = input.path ? pathMatcher(input.path) : () => true;
  const violations: MockViolation[] = [];
  for (const row of rows) {
    if (!matchesPath(row.path)) continue;
    out.candidates += 1;
    if (input.where !== undefined) {
      let held: unknown;
      try {
        held = await evaluateExpression(input.where, verifyEntry(row, false), {}, WHERE_LIMITS);
      } catch (err) {
        out.error = `where: ${err instanceof ExpressionError ? err.message : String(err)}`;
        break;
      }
      if (!truthy(held)) {
        if (out.nearest.length < 3) out.nearest.push(verifyEntry(row, true));
        continue;
      }
    }
    out.count += 1;
    if (out.requests.length < MOCK_VERIFY_KEPT) out.requests.push(verifyEntry(row, true));
    for (const v of row.violations ?? []) if (violations.length < 50) violations.push(v);
  }
  out.violations = violations;
  out.finishedAtMs = Date.now();
  return out;
}
