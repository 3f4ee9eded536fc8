/**
 * Per-origin limits of a run (docs/parallel.md "Protecting the target"), honoured across every
 * worker process that shares the store: a suite run with `concurrency` must not become an
 * accidental load test of the service it tests.
 *
 * - `maxInFlight` N: at most N requests of the run in flight at once per origin. Each request holds
 *   a lease on one of N slots: a row of `run_origin_slots` (src/store/entities/run-origin-gate.ts)
 *   whose primary key (run, origin, slot) makes a taken slot a duplicate insert. The lease lasts
 *   the request's time limit plus {@link LEASE_MARGIN_MS}: a worker killed with -9 frees its slots
 *   by then (at once when it ran on the same machine, whose process table tells it is gone:
 *   src/store/node-executions.ts `ownerAlive`). When every slot is taken, the process's waiters for
 *   that run and origin queue here (first come, first served) and one of them polls the store,
 *   backing off from {@link POLL_MIN_MS} to {@link POLL_MAX_MS} with jitter; a release in this
 *   process wakes its queue at once.
 * - `requestsPerSecond` R: requests of the run start at most R per second per origin, evenly
 *   spaced: GCRA's virtual scheduling (ITU-T I.371 §4.4.2; "Generic cell rate algorithm"). Each
 *   request claims the next start time `t = max(now, next)` and moves `next` to `t + 1000/R` ms, in
 *   one atomic statement on the run's row of `run_origin_paces`, then waits until `t`. Times are µs
 *   so that a high R is not rounded to whole milliseconds.
 *
 * With both, a request first takes its slot, then its start time (a start time claimed while
 * waiting for a slot could bunch starts together past R). Without either the gate costs nothing
 * and never touches the store. Times are each worker's wall clock: workers on several machines
 * need clocks kept in step (NTP) to well within the margin.
 *
 * Store cost per request: with `maxInFlight`, an INSERT to take a free slot and a DELETE to give it
 * back (plus a SELECT per poll while every slot is taken); with `requestsPerSecond`, one UPDATE
 * (an INSERT for the first request to an origin).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import type { OriginLimits } from '../domain/node-io';
import { RunOriginPace, RunOriginSlot } from '../store/entities';
import { isUniqueViolation } from '../store/errors';
import { ownerAlive, processOwner } from '../store/node-executions';

/** Added to a request's time limit for its lease's expiry, ms: what a dead holder's slot stays taken past its request. */
export const LEASE_MARGIN_MS = 5000;
/** First and longest pause between two polls of the store while every slot is taken, ms (each with up to ±50 % jitter). */
export const POLL_MIN_MS = 5;
export const POLL_MAX_MS = 50;
/** The request's `errorCode` when it could not get its slot or start time before the run's deadline. */
export const ORIGIN_LIMIT_TIMEOUT = 'ORIGIN_LIMIT_TIMEOUT';

/** Gives a request's slot back (idempotent; never throws: a lease the store did not delete expires). */
export type Release = () => Promise<void>;

/** What one request asks the gate for. */
export interface GateRequest {
  runId: string;
  /** The request's origin (`new URL(url).origin`: `scheme://host[:port]`). */
  origin: string;
  limits: OriginLimits;
  /** Stops the wait (rejects with an `AbortError`, as an aborted request). */
  signal?: AbortSignal;
  /** Epoch ms (the run's deadline): a request that cannot start by then is rejected with {@link OriginLimitTimeout}. */
  deadlineMs: number;
  /** The request's time limit, ms: its lease lasts this plus {@link LEASE_MARGIN_MS} (plus any wait for its start time). */
  leaseMs: number;
}

/** A request that could not get a slot or a start time of its origin before the run's deadline. */
export class OriginLimitTimeout extends Error {
  readonly code = ORIGIN_LIMIT_TIMEOUT;
  constructor(
    readonly origin: string,
    readonly limits: OriginLimits,
    readonly deadlineMs: number,
  ) {
    super(
      `no slot under the run's limits for ${origin} (${describeLimits(limits)}) before the run's deadline (${new Date(deadlineMs).toISOString()})`,
    );
    this.name = 'OriginLimitTimeout';
  }
}

/** `maxInFlight 3, requestsPerSecond 20`: the limits set. */
export function describeLimits(limits: OriginLimits): string {
  const parts: string[] = [];
  if (positive(limits.maxInFlight)) parts.push(`maxInFlight ${limits.maxInFlight}`);
  if (positive(limits.requestsPerSecond)) parts.push(`requestsPerSecond ${limits.requestsPerSecond}`);
  return parts.join(', ');
}

function positive(n: number | undefined): n is number {
  return typeof n === 'number' && Number.isFinite(n) && n > 0;
}

/** True when `limits` sets at least one limit (a positive number). */
export function hasOriginLimit(limits: OriginLimits | undefined): limits is OriginLimits {
  return limits !== undefined && (positive(limits.maxInFlight) || positive(limits.requestsPerSecond));
}

/** The stored form of an origin: itself, or `sha256:<hex>` of one over 255 characters (the column's size). */
export function originKey(origin: string): string {
  return origin.length <= 255 ? origin : `sha256:${createHash('sha256').update(origin).digest('hex')}`;
}

const NO_RELEASE: Release = async () => {};

function abortError(): DOMException {
  return new DOMException('The wait for a slot of the origin was aborted', 'AbortError');
}

/** Waits `ms`; rejects with an `AbortError` when `signal` aborts first. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError());
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A request waiting in this process for a slot. */
interface Waiter {
  leaseMs: number;
  /** Hands it a slot taken for it. */
  grant(slot: number): void;
  fail(err: unknown): void;
}

/** This process's state of one run's origin: its queue and the slots it holds or is taking. */
interface Lane {
  key: string;
  runId: string;
  origin: string;
  max: number;
  waiters: Waiter[];
  held: Set<number>;
  claiming: Set<number>;
  pumping: boolean;
  /** Ends the poller's pause (a slot was given back here). */
  wake?: () => void;
  /** Where the next free-slot guess starts, so that concurrent takers try different slots. */
  next: number;
}

/**
 * The origin gate of one worker process over the store (see the module comment). Make one per
 * process (or per data source); every gate over the same database shares the limits.
 */
export class OriginGate {
  private readonly lanes = new Map<string, Lane>();
  private readonly holder: string;
  private readonly mysql: boolean;

  /** `holder`: the leases' holder (default: this process, src/store/node-executions.ts `processOwner`, and a nonce). */
  constructor(
    private readonly dataSource: DataSource,
    options: { holder?: string } = {},
  ) {
    this.holder = options.holder ?? `${processOwner().id}|${randomBytes(4).toString('hex')}`;
    this.mysql = dataSource.options.type === 'mysql' || dataSource.options.type === 'mariadb';
  }

  /**
   * Waits until request `req` may be sent under its run's limits for its origin: a slot of
   * `maxInFlight` taken, then its start time under `requestsPerSecond` reached. Returns at once,
   * without the store, when no limit is set.
   * @returns what gives the slot back once the response was read (or the request failed)
   * @throws OriginLimitTimeout when the deadline comes first; an `AbortError` when `req.signal`
   *   aborts first; a store error (the caller's activity is retried). Nothing is held after a throw.
   */
  async acquire(req: GateRequest): Promise<Release> {
    const max = positive(req.limits.maxInFlight) ? Math.max(1, Math.floor(req.limits.maxInFlight)) : undefined;
    const rate = positive(req.limits.requestsPerSecond) ? req.limits.requestsPerSecond : undefined;
    if (max === undefined && rate === undefined) return NO_RELEASE;
    if (req.signal?.aborted) throw abortError();
    const key = originKey(req.origin);
    const lease = max !== undefined ? await this.takeSlot(req, key, max) : undefined;
    if (rate === undefined) return lease!.release;
    try {
      const startMs = await this.claimStart(req.runId, key, rate);
      if (startMs > req.deadlineMs) throw new OriginLimitTimeout(req.origin, req.limits, req.deadlineMs);
      // Timers count whole milliseconds: a start less than 1 ms away is taken now.
      const wait = startMs - Date.now();
      if (wait >= 1) {
        // The lease must outlast the wait too: extended when the margin would not cover it.
        if (lease && wait > LEASE_MARGIN_MS / 2) await lease.extend(startMs + req.leaseMs + LEASE_MARGIN_MS);
        await sleep(wait, req.signal);
      }
    } catch (err) {
      await lease?.release();
      throw err;
    }
    return lease?.release ?? NO_RELEASE;
  }

  /** One statement, plain SQL (both dialects take `?` and these unquoted names), on a runner of its own. */
  private async sql(
    query: string,
    parameters: unknown[],
  ): Promise<{ records: Array<Record<string, unknown>>; affected: number; raw: unknown }> {
    const runner = this.dataSource.createQueryRunner();
    try {
      const result = await runner.query(query, parameters, true);
      return {
        records: (Array.isArray(result.records) ? result.records : []) as Array<Record<string, unknown>>,
        affected: result.affected ?? 0,
        raw: result.raw,
      };
    } finally {
      await runner.release();
    }
  }

  private laneFor(runId: string, key: string, max: number): Lane {
    const id = `${runId}\n${key}`;
    let lane = this.lanes.get(id);
    if (!lane) {
      lane = {
        key: id,
        runId,
        origin: key,
        max,
        waiters: [],
        held: new Set(),
        claiming: new Set(),
        pumping: false,
        next: 0,
      };
      this.lanes.set(id, lane);
    }
    lane.max = max;
    return lane;
  }

  private dropIfIdle(lane: Lane): void {
    if (lane.waiters.length || lane.held.size || lane.claiming.size || lane.pumping) return;
    if (this.lanes.get(lane.key) === lane) this.lanes.delete(lane.key);
  }

  /** The slots to try, from the lane's rotating start, without those this process holds or is taking. */
  private candidates(lane: Lane): number[] {
    const out: number[] = [];
    for (let i = 0; i < lane.max; i++) {
      const slot = (lane.next + i) % lane.max;
      if (!lane.held.has(slot) && !lane.claiming.has(slot)) out.push(slot);
    }
    lane.next = (lane.next + 1) % lane.max;
    return out;
  }

  /** Inserts the lease of `slot`; false when it is taken. */
  private async insertSlot(lane: Lane, slot: number, expiresAtMs: number): Promise<boolean> {
    try {
      await this.sql('INSERT INTO run_origin_slots (runId, origin, slot, holder, expiresAtMs) VALUES (?, ?, ?, ?, ?)', [
        lane.runId,
        lane.origin,
        slot,
        this.holder,
        expiresAtMs,
      ]);
      return true;
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }

  private async deleteSlot(lane: Lane, slot: number): Promise<void> {
    await this.sql('DELETE FROM run_origin_slots WHERE runId = ? AND origin = ? AND slot = ? AND holder = ?', [
      lane.runId,
      lane.origin,
      slot,
      this.holder,
    ]);
  }

  /** A slot for `req`: taken at once when this process has no queue and a slot is free, else after the queue. */
  private async takeSlot(
    req: GateRequest,
    key: string,
    max: number,
  ): Promise<{ release: Release; extend(expiresAtMs: number): Promise<void> }> {
    const lane = this.laneFor(req.runId, key, max);
    if (lane.waiters.length === 0 && lane.held.size + lane.claiming.size < lane.max) {
      // The fast path: one INSERT, for a slot this process neither holds nor is taking.
      const slot = this.candidates(lane)[0]!;
      lane.claiming.add(slot);
      let taken: boolean | undefined;
      try {
        taken = await this.insertSlot(lane, slot, Date.now() + req.leaseMs + LEASE_MARGIN_MS);
      } finally {
        lane.claiming.delete(slot);
        // The store failed: waiters that queued meanwhile are pumped (they get the error, or a slot).
        if (taken === undefined) this.wakeOrDrop(lane);
      }
      if (taken) {
        lane.held.add(slot);
        return this.lease(lane, slot);
      }
    }
    if (Date.now() >= req.deadlineMs) {
      this.wakeOrDrop(lane);
      throw new OriginLimitTimeout(req.origin, req.limits, req.deadlineMs);
    }
    const slot = await new Promise<number>((resolve, reject) => {
      const leave = (err: unknown) => {
        const at = lane.waiters.indexOf(waiter);
        if (at < 0) return;
        lane.waiters.splice(at, 1);
        done();
        reject(err);
        this.wakeOrDrop(lane);
      };
      const onAbort = () => leave(abortError());
      const done = () => {
        clearTimeout(timer);
        req.signal?.removeEventListener('abort', onAbort);
      };
      const waiter: Waiter = {
        leaseMs: req.leaseMs,
        grant: (s) => {
          done();
          resolve(s);
        },
        fail: (err) => {
          done();
          reject(err);
        },
      };
      lane.waiters.push(waiter);
      // Timers hold at most 2^31 - 1 ms (about 24 days): a longer deadline is cut there.
      const ms = Math.min(2 ** 31 - 1, Math.max(0, req.deadlineMs - Date.now()));
      const timer = setTimeout(() => leave(new OriginLimitTimeout(req.origin, req.limits, req.deadlineMs)), ms);
      req.signal?.addEventListener('abort', onAbort, { once: true });
      void this.pump(lane);
    });
    return this.lease(lane, slot);
  }

  /** Pumps the lane's queue when it has one (and is not pumped already, else wakes its poller); else forgets an idle lane. */
  private wakeOrDrop(lane: Lane): void {
    if (lane.waiters.length) void this.pump(lane);
    else this.dropIfIdle(lane);
  }

  private lease(lane: Lane, slot: number): { release: Release; extend(expiresAtMs: number): Promise<void> } {
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        try {
          await this.deleteSlot(lane, slot);
        } catch {
          // The store did not answer: the lease expires (LEASE_MARGIN_MS past the request's limit).
        }
        lane.held.delete(slot);
        this.wakeOrDrop(lane);
      },
      extend: async (expiresAtMs) => {
        await this.sql(
          'UPDATE run_origin_slots SET expiresAtMs = ? WHERE runId = ? AND origin = ? AND slot = ? AND holder = ?',
          [expiresAtMs, lane.runId, lane.origin, slot, this.holder],
        );
      },
    };
  }

  /**
   * The lane's poller: takes slots for its waiters, first come first served, polling the store with
   * a bounded backoff while every slot is taken. Only one runs per lane; it stops when the queue is
   * empty or this process holds every slot (a release here starts it again).
   */
  private async pump(lane: Lane): Promise<void> {
    if (lane.pumping) {
      lane.wake?.();
      return;
    }
    lane.pumping = true;
    let pause = POLL_MIN_MS;
    try {
      while (lane.waiters.length > 0 && lane.held.size + lane.claiming.size < lane.max) {
        const leaseMs = Math.max(...lane.waiters.map((w) => w.leaseMs));
        const slot = await this.claimAny(lane, Date.now() + leaseMs + LEASE_MARGIN_MS);
        if (slot === undefined) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, pause * (0.5 + Math.random()));
            lane.wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          lane.wake = undefined;
          pause = Math.min(POLL_MAX_MS, pause * 2);
          continue;
        }
        pause = POLL_MIN_MS;
        const waiter = lane.waiters.shift();
        lane.held.add(slot);
        if (waiter) waiter.grant(slot);
        else await this.lease(lane, slot).release(); // every waiter left meanwhile: nothing stays behind
      }
    } catch (err) {
      for (const waiter of lane.waiters.splice(0)) waiter.fail(err);
    } finally {
      lane.pumping = false;
      lane.wake = undefined;
      this.dropIfIdle(lane);
    }
  }

  /** Takes a free slot, or one whose holder is gone; undefined when every slot is held. */
  private async claimAny(lane: Lane, expiresAtMs: number): Promise<number | undefined> {
    const { records } = await this.sql(
      'SELECT slot, holder, expiresAtMs FROM run_origin_slots WHERE runId = ? AND origin = ?',
      [lane.runId, lane.origin],
    );
    const rows = new Map(
      records.map((r) => [Number(r.slot), { holder: String(r.holder), expiresAtMs: r.expiresAtMs }]),
    );
    for (const slot of this.candidates(lane)) {
      const row = rows.get(slot);
      // A lease of this gate for a slot it does not hold is one whose DELETE failed: free to take.
      if (row && row.holder !== this.holder && ownerAlive(row.holder, Number(row.expiresAtMs))) continue;
      lane.claiming.add(slot);
      try {
        if (!row) {
          if (await this.insertSlot(lane, slot, expiresAtMs)) return slot;
        } else {
          // Its holder is gone: the lease moves here unless another gate moved it first.
          const moved = await this.sql(
            'UPDATE run_origin_slots SET holder = ?, expiresAtMs = ? WHERE runId = ? AND origin = ? AND slot = ? AND holder = ? AND expiresAtMs = ?',
            [this.holder, expiresAtMs, lane.runId, lane.origin, slot, row.holder, row.expiresAtMs],
          );
          if (moved.affected > 0) return slot;
        }
      } finally {
        lane.claiming.delete(slot);
      }
    }
    return undefined;
  }

  /**
   * Claims the next start time of the run's origin (GCRA, see the module comment) in one atomic
   * statement: on MySQL/MariaDB the new value comes back as the statement's insert id
   * (`LAST_INSERT_ID(expr)`, https://dev.mysql.com/doc/refman/8.4/en/information-functions.html#function_last-insert-id),
   * on SQLite through `RETURNING` (https://www.sqlite.org/lang_returning.html). The first request
   * to an origin inserts the row.
   * @returns the start time, epoch ms
   */
  private async claimStart(runId: string, origin: string, perSecond: number): Promise<number> {
    const intervalUs = Math.max(1, Math.ceil(1e6 / perSecond));
    for (;;) {
      const nowUs = Date.now() * 1000;
      let nextUs: number | undefined;
      if (this.mysql) {
        const done = await this.sql(
          'UPDATE run_origin_paces SET nextAtUs = LAST_INSERT_ID(GREATEST(nextAtUs, ?) + ?) WHERE runId = ? AND origin = ?',
          [nowUs, intervalUs, runId, origin],
        );
        if (done.affected > 0) nextUs = Number((done.raw as { insertId: number | string }).insertId);
      } else {
        const { records } = await this.sql(
          'UPDATE run_origin_paces SET nextAtUs = MAX(nextAtUs, ?) + ? WHERE runId = ? AND origin = ? RETURNING nextAtUs',
          [nowUs, intervalUs, runId, origin],
        );
        if (records[0]) nextUs = Number(records[0].nextAtUs);
      }
      if (nextUs !== undefined) return (nextUs - intervalUs) / 1000;
      try {
        await this.sql('INSERT INTO run_origin_paces (runId, origin, nextAtUs) VALUES (?, ?, ?)', [
          runId,
          origin,
          nowUs + intervalUs,
        ]);
        return nowUs / 1000;
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
      }
    }
  }
}

/**
 * Deletes run `runId`'s leases and paces (call it when the run ended: nothing of it sends again).
 * @returns the rows deleted
 */
export async function discardRunGate(manager: EntityManager, runId: string): Promise<number> {
  const slots = await manager.getRepository(RunOriginSlot).delete({ runId });
  const paces = await manager.getRepository(RunOriginPace).delete({ runId });
  return (slots.affected ?? 0) + (paces.affected ?? 0);
}

/**
 * What a request's sender calls before each send (each attempt, each redirect hop): waits for a
 * slot of `origin` and returns its release. `timeoutMs`: that send's time limit (its lease's length).
 */
export type RequestGate = (origin: string, timeoutMs: number) => Promise<Release>;

/**
 * The {@link RequestGate} of one API node execution over `gate`, or undefined when `limits` sets
 * no limit (or there is no gate): then nothing waits and the store is never asked.
 */
export function requestGate(
  gate: OriginGate | undefined,
  options: { runId: string; limits: OriginLimits | undefined; deadlineMs: number; signal?: AbortSignal },
): RequestGate | undefined {
  const { limits } = options;
  if (!gate || !hasOriginLimit(limits)) return undefined;
  return (origin, timeoutMs) =>
    gate.acquire({
      runId: options.runId,
      origin,
      limits,
      deadlineMs: options.deadlineMs,
      leaseMs: timeoutMs,
      ...(options.signal ? { signal: options.signal } : {}),
    });
}
