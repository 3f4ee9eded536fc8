/**
 * Node execution records: what keeps the `node` durability mode's promise that a crash repeats at
 * most the node under way (docs/durability.md "What a crash repeats").
 *
 * An API node (or Script, WebSocket, SSE, gRPC node) runs as a local activity, whose result reaches
 * Temporal's history only when its workflow task ends: up to a second of nodes later
 * (workflows/workflow-port.ts `CHECKPOINT_MS`). When the worker dies before that, or the task times
 * out on a machine too busy to answer in time, the workflow's next task runs those activities
 * again. Each one first looks here, by its node execution id (src/flow/execution-id.ts):
 *
 * 1. This process runs that execution already (an earlier instance of the same workflow, evicted
 *    when its task timed out, still waits for the request): it joins it and gets the same outcome.
 * 2. Otherwise it claims the execution (a row naming this process), runs it while renewing the
 *    claim's lease, and writes the outcome before returning it — so before the workflow sends its
 *    next request.
 * 3. If the row is there already:
 *    - with an outcome: that outcome is the answer, and nothing is sent again;
 *    - claimed by a live owner (on this machine: the process still exists; elsewhere: the lease,
 *      renewed every second, has not run out): it waits for the outcome;
 *    - claimed by an owner that is gone: it takes the claim over and runs the execution again —
 *      the one repeat the mode allows, with the same `X-Assay-Execution`.
 *
 * An execution whose activity was cancelled, or that threw, keeps no outcome (its claim is
 * released), so a retry runs it again. When the store cannot be reached the execution runs without
 * a record (logged and counted): a crash during a database outage repeats as much as a plain local
 * activity would.
 *
 * Rows are short-lived: a run's progress write (a workflow task boundary) deletes those of its
 * earlier test cases ({@link deleteRecordsBefore}), the run's end deletes the rest
 * ({@link deleteRunRecords}), and the retention sweep removes strays older than a day
 * ({@link sweepStrayRecords}).
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import { LessThan, type DataSource, type EntityManager } from 'typeorm';
import { NodeExecution } from './entities';
import { isUniqueViolation } from './errors';

/** How long a claim holds without its owner renewing it, ms: the wait for a dead owner on another machine. */
export const CLAIM_LEASE_MS = 5000;
/** How often an owner renews the lease of an execution under way, ms. */
export const LEASE_RENEW_MS = 1000;
/** How often a waiter looks for a live owner's outcome, ms. */
export const OUTCOME_POLL_MS = 100;
/** Age past which the retention sweep deletes a record whatever its run, ms (a day). */
export const STRAY_RECORD_MS = 24 * 3600 * 1000;

/** How one recorded execution was answered (`assay_node_executions_total{outcome}`). */
export type RecordedOutcome =
  /** Claimed and run here: the first time this execution runs. */
  | 'sent'
  /** Answered from its recorded outcome: a repeat avoided. */
  | 'recorded'
  /** Answered by waiting for the live owner (this process or another) that runs it. */
  | 'joined'
  /** Run again after its owner died with it under way: the node under way at a crash. */
  | 'taken-over'
  /** Run without a record: the store did not answer. */
  | 'unrecorded';

/** The node execution to run: its id (src/flow/execution-id.ts), run and test case position. */
export interface RecordedExecution {
  execution: string;
  runId: string;
  position: number;
}

/**
 * This process as the owner of claims: `<host>|<machine>|<pid>|<start>|<nonce>`, `machine` being
 * the Linux boot id and PID namespace (empty elsewhere), `start` the process's start time in clock
 * ticks since boot (/proc/<pid>/stat), so that a process of the same machine can tell for sure
 * whether the owner still exists (a PID reused by another process has another start time).
 */
export interface ProcessOwner {
  id: string;
  machine: string;
}

let self: ProcessOwner | undefined;

/** The owner identity of this process (made once). */
export function processOwner(): ProcessOwner {
  if (self) return self;
  const machine = machineId();
  const start = processStart(process.pid)?.start ?? '';
  const host = os.hostname().replace(/\|/g, '_').slice(0, 60);
  self = { id: `${host}|${machine}|${process.pid}|${start}|${randomBytes(6).toString('hex')}`, machine };
  return self;
}

/** Boot id and PID namespace of this machine's kernel, or '' where they cannot be read (not Linux). */
function machineId(): string {
  try {
    const boot = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const pidNamespace = fs.readlinkSync('/proc/self/ns/pid');
    return `${boot}:${pidNamespace.replace(/\D/g, '')}`;
  } catch {
    return '';
  }
}

/** A process's state letter and start time (clock ticks since boot) from /proc/<pid>/stat; undefined when it does not exist. */
function processStart(pid: number): { state: string; start: string } | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // `pid (comm) state ppid …`: comm may hold spaces and parentheses; fields after it are plain.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Field 3 is the state, field 22 the start time (proc(5)).
  return { state: fields[0] ?? '', start: fields[19] ?? '' };
}

/**
 * Whether the owner of a claim may still be running the execution. On this machine (same boot id
 * and PID namespace): its process exists with the same start time, and it renewed the lease in
 * time or is stopped (SIGSTOP: it cannot renew, and will go on when continued). Elsewhere: the
 * lease has not run out.
 */
export function ownerAlive(owner: string, leaseUntilMs: number, now = Date.now()): boolean {
  const [, machine, pid, start] = owner.split('|');
  const mine = processOwner();
  if (!machine || machine !== mine.machine || !pid || !start) return leaseUntilMs > now;
  const proc = processStart(Number(pid));
  if (!proc || proc.start !== start) return false;
  return leaseUntilMs > now || proc.state === 'T' || proc.state === 't';
}

/** Hex SHA-256 of a node execution id: the record's key. */
export function recordKey(execution: string): string {
  return createHash('sha256').update(execution).digest('hex');
}

/** What {@link NodeExecutionRecords} reports besides outcomes. */
export interface NodeExecutionRecordsOptions {
  /** Called once per execution with how it was answered (metrics). */
  onOutcome?: (outcome: RecordedOutcome, execution: string) => void;
  /** A store error an execution went on without (logged by the worker). */
  onStoreError?: (err: unknown, execution: string, during: 'claim' | 'outcome' | 'release') => void;
  /** The owner identity (default: this process's, {@link processOwner}); tests pass their own. */
  owner?: ProcessOwner;
}

/** The records of one worker process (see the module comment). */
export class NodeExecutionRecords {
  private readonly inFlight = new Map<string, Promise<unknown>>();
  private readonly owner: ProcessOwner;

  constructor(
    private readonly dataSource: DataSource,
    private readonly options: NodeExecutionRecordsOptions = {},
  ) {
    this.owner = options.owner ?? processOwner();
  }

  /**
   * Runs `execute` for node execution `target` at most once across crashes and repeated workflow
   * tasks (see the module comment), or answers with its recorded outcome.
   * @param keep false for an output not to record (the activity was cancelled): its claim is released
   * @param signal stops a wait for another owner (throws its reason)
   * @throws what `execute` throws (the claim released), or `signal`'s reason
   */
  async run<T>(
    target: RecordedExecution,
    execute: () => Promise<T>,
    options: { keep?: (output: T) => boolean; signal?: AbortSignal } = {},
  ): Promise<T> {
    const id = recordKey(target.execution);
    const under = this.inFlight.get(id);
    if (under) {
      this.options.onOutcome?.('joined', target.execution);
      return (await under) as T;
    }
    const running = this.claimAndRun(id, target, execute, options);
    this.inFlight.set(id, running);
    try {
      return await running;
    } finally {
      if (this.inFlight.get(id) === running) this.inFlight.delete(id);
    }
  }

  /**
   * One statement, plain SQL (both dialects take `?` and these unquoted names): a node pays these
   * on every execution, so not through TypeORM's query builder. Returns the rows read and the rows
   * changed.
   */
  private async sql(
    query: string,
    parameters: unknown[],
  ): Promise<{ records: Array<Record<string, unknown>>; affected: number }> {
    const runner = this.dataSource.createQueryRunner();
    try {
      const result = await runner.query(query, parameters, true);
      return { records: (result.records ?? []) as Array<Record<string, unknown>>, affected: result.affected ?? 0 };
    } finally {
      await runner.release();
    }
  }

  private async claimAndRun<T>(
    id: string,
    target: RecordedExecution,
    execute: () => Promise<T>,
    options: { keep?: (output: T) => boolean; signal?: AbortSignal },
  ): Promise<T> {
    let waited = false;
    for (;;) {
      let row: { owner: string; leaseUntilMs: number; outcome: unknown } | undefined;
      let claimed: boolean;
      try {
        claimed = await this.claim(id, target);
        if (!claimed) row = await this.read(id);
      } catch (err) {
        this.options.onStoreError?.(err, target.execution, 'claim');
        this.options.onOutcome?.('unrecorded', target.execution);
        return execute();
      }
      if (claimed) return this.execute(id, target, execute, options, 'sent');
      if (!row) continue; // released meanwhile: claim it
      if (row.outcome !== null && row.outcome !== undefined) {
        this.options.onOutcome?.(waited ? 'joined' : 'recorded', target.execution);
        return row.outcome as T;
      }
      const foreign = row.owner !== this.owner.id;
      if (foreign && ownerAlive(row.owner, row.leaseUntilMs)) {
        waited = true;
        await pause(OUTCOME_POLL_MS, options.signal);
        continue;
      }
      // Its owner is gone (or is this process, with nothing under way here): run it again.
      let taken: boolean;
      try {
        taken = await this.takeOver(id, row.owner);
      } catch (err) {
        this.options.onStoreError?.(err, target.execution, 'claim');
        this.options.onOutcome?.('unrecorded', target.execution);
        return execute();
      }
      if (taken) return this.execute(id, target, execute, options, 'taken-over');
    }
  }

  /** Inserts the claim; false when a row is there already. */
  private async claim(id: string, target: RecordedExecution): Promise<boolean> {
    try {
      await this.sql(
        'INSERT INTO node_executions (id, runId, position, execution, owner, leaseUntilMs, outcome) VALUES (?, ?, ?, ?, ?, ?, NULL)',
        [id, target.runId, target.position, target.execution.slice(0, 600), this.owner.id, Date.now() + CLAIM_LEASE_MS],
      );
      return true;
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }

  /** The row of `id` (its outcome parsed), or undefined. */
  private async read(id: string): Promise<{ owner: string; leaseUntilMs: number; outcome: unknown } | undefined> {
    const { records } = await this.sql('SELECT owner, leaseUntilMs, outcome FROM node_executions WHERE id = ?', [id]);
    const row = records[0];
    if (!row) return undefined;
    const outcome = row.outcome;
    return {
      owner: String(row.owner),
      leaseUntilMs: Number(row.leaseUntilMs),
      // MySQL 8's JSON arrives parsed; MariaDB's (LONGTEXT) and SQLite's as text.
      outcome: typeof outcome === 'string' ? JSON.parse(outcome) : outcome,
    };
  }

  /** Moves the claim from `from` (gone) to this process; false when another got it first. */
  private async takeOver(id: string, from: string): Promise<boolean> {
    const done = await this.sql(
      'UPDATE node_executions SET owner = ?, leaseUntilMs = ? WHERE id = ? AND owner = ? AND outcome IS NULL',
      [this.owner.id, Date.now() + CLAIM_LEASE_MS, id, from],
    );
    return done.affected > 0;
  }

  /** Runs the claimed execution, renewing its lease, and records its outcome (or releases the claim). */
  private async execute<T>(
    id: string,
    target: RecordedExecution,
    execute: () => Promise<T>,
    options: { keep?: (output: T) => boolean },
    how: RecordedOutcome,
  ): Promise<T> {
    const renew = setInterval(() => {
      void this.sql('UPDATE node_executions SET leaseUntilMs = ? WHERE id = ? AND owner = ?', [
        Date.now() + CLAIM_LEASE_MS,
        id,
        this.owner.id,
      ]).catch(() => undefined);
    }, LEASE_RENEW_MS);
    let output: T;
    try {
      output = await execute();
    } catch (err) {
      clearInterval(renew);
      await this.release(id, target);
      throw err;
    }
    clearInterval(renew);
    if (options.keep && !options.keep(output)) {
      await this.release(id, target);
      return output;
    }
    try {
      await this.sql('UPDATE node_executions SET outcome = ?, leaseUntilMs = ? WHERE id = ? AND owner = ?', [
        JSON.stringify(output ?? null),
        Date.now() + CLAIM_LEASE_MS,
        id,
        this.owner.id,
      ]);
    } catch (err) {
      this.options.onStoreError?.(err, target.execution, 'outcome');
    }
    this.options.onOutcome?.(how, target.execution);
    return output;
  }

  private async release(id: string, target: RecordedExecution): Promise<void> {
    try {
      await this.sql('DELETE FROM node_executions WHERE id = ? AND owner = ? AND outcome IS NULL', [id, this.owner.id]);
    } catch (err) {
      this.options.onStoreError?.(err, target.execution, 'release');
    }
  }
}

/** Waits `ms`, or rejects with `signal`'s reason once it is aborted. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Deletes run `runId`'s records of test cases before `position`: their nodes' results are in the
 * workflow's history once a workflow task has ended after them, which the caller (the run's
 * progress write, a normal activity) guarantees. Returns the rows deleted.
 */
export async function deleteRecordsBefore(manager: EntityManager, runId: string, position: number): Promise<number> {
  const done = await manager.getRepository(NodeExecution).delete({ runId, position: LessThan(position) });
  return done.affected ?? 0;
}

/** Deletes every record of run `runId` (it ended: nothing of it runs again). Returns the rows deleted. */
export async function deleteRunRecords(manager: EntityManager, runId: string): Promise<number> {
  const done = await manager.getRepository(NodeExecution).delete({ runId });
  return done.affected ?? 0;
}

/** Deletes records whose lease ended over {@link STRAY_RECORD_MS} ago (the retention sweep). Returns the rows deleted. */
export async function sweepStrayRecords(manager: EntityManager, now = Date.now()): Promise<number> {
  const done = await manager.getRepository(NodeExecution).delete({ leaseUntilMs: LessThan(now - STRAY_RECORD_MS) });
  return done.affected ?? 0;
}
