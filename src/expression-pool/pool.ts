/**
 * A small pool of worker threads for heavy JSONata expressions.
 *
 * An expression that exhausts the workflow's step budget is evaluated again in a local activity
 * with {@link ACTIVITY_LIMITS} (2,000,000 steps). On the worker's main thread that stalled the
 * worker (its activities, its Temporal polling) about 1 s each, and JSONata's own timeout is only
 * checked between steps. Here each evaluation runs on a worker thread, and one that has not
 * answered after `timeoutMs` is stopped by terminating its thread (a new one replaces it): the
 * main thread never evaluates, and nothing can hold a thread past the limit.
 *
 * Evaluations wait in a FIFO queue when every thread is busy. Threads are started on demand and
 * `unref`'d, so an idle pool does not keep the process alive.
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { ACTIVITY_LIMITS } from '../domain/expressions';

/** The outcome of one evaluation: the value, or the error as data (message and JSONata/Assay code). */
export type PoolResult = { value?: unknown; error?: { message: string; code: string } };

/** Code of the error when an evaluation outlives the pool's time limit. */
export const POOL_TIMEOUT_CODE = 'ASSAY_TIMEOUT';

interface Job {
  expression: string;
  input: unknown;
  resolve(result: PoolResult): void;
}

interface Slot {
  worker: Worker;
  job?: Job & { id: number; timer: NodeJS.Timeout };
}

export interface ExpressionPoolOptions {
  /** Threads at most (default 2). */
  size?: number;
  /** Wall-clock limit of one evaluation in ms, queueing not included (default ACTIVITY_LIMITS.timeoutMs + 1,000: JSONata's own limit answers first). */
  timeoutMs?: number;
}

/** The pool shared by this process's activities and webhook deliveries (started on first use). */
export function sharedExpressionPool(): ExpressionPool {
  shared ??= new ExpressionPool();
  return shared;
}
let shared: ExpressionPool | undefined;

export class ExpressionPool {
  private readonly size: number;
  private readonly timeoutMs: number;
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(options: ExpressionPoolOptions = {}) {
    this.size = Math.max(1, options.size ?? 2);
    this.timeoutMs = options.timeoutMs ?? (ACTIVITY_LIMITS.timeoutMs ?? 2000) + 1000;
  }

  /** Evaluates `expression` against `input` on a worker thread. Never rejects: errors come back as data. */
  evaluate(expression: string, input: unknown): Promise<PoolResult> {
    if (this.closed) return Promise.resolve({ error: { message: 'the expression pool is closed', code: 'UNKNOWN' } });
    return new Promise((resolve) => {
      this.queue.push({ expression, input, resolve });
      this.dispatch();
    });
  }

  /** Terminates every thread; queued evaluations end with an error. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0))
      job.resolve({ error: { message: 'the expression pool is closed', code: 'UNKNOWN' } });
    await Promise.all(
      this.slots
        .splice(0)
        .map((slot) =>
          this.finish(slot, { error: { message: 'the expression pool is closed', code: 'UNKNOWN' } }, true),
        ),
    );
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => !s.job);
      if (!slot && this.slots.length < this.size) slot = this.spawn();
      if (!slot) return;
      const job = this.queue.shift()!;
      const id = this.nextId++;
      const timer = setTimeout(() => {
        void this.finish(
          slot!,
          { error: { message: `Expression stopped after ${this.timeoutMs} ms (time limit)`, code: POOL_TIMEOUT_CODE } },
          true,
        );
      }, this.timeoutMs);
      slot.job = { ...job, id, timer };
      try {
        slot.worker.postMessage({ id, expression: job.expression, input: job.input });
      } catch (err) {
        // The input cannot be cloned (it came from JSON, so this should not happen).
        void this.finish(
          slot,
          { error: { message: `cannot evaluate: ${(err as Error).message}`, code: 'UNKNOWN' } },
          false,
        );
      }
    }
  }

  private spawn(): Slot {
    const worker = new Worker(path.join(__dirname, 'thread.js'));
    const slot: Slot = { worker };
    worker.on('message', (message: { id: number } & PoolResult) => {
      if (slot.job?.id !== message.id) return;
      void this.finish(slot, message.error ? { error: message.error } : { value: message.value }, false);
    });
    const lost = (reason: string) => {
      if (!this.slots.includes(slot)) return;
      void this.finish(slot, { error: { message: `the expression thread stopped: ${reason}`, code: 'UNKNOWN' } }, true);
    };
    worker.on('error', (err) => lost(err.message));
    worker.on('exit', (code) => lost(`exit code ${code}`));
    // After the listeners: adding a 'message' listener refs the thread's port again.
    worker.unref();
    this.slots.push(slot);
    return slot;
  }

  /** Ends the slot's job with `result`; with `kill`, terminates its thread and drops the slot. */
  private async finish(slot: Slot, result: PoolResult, kill: boolean): Promise<void> {
    const job = slot.job;
    slot.job = undefined;
    if (job) {
      clearTimeout(job.timer);
      job.resolve(result);
    }
    if (kill) {
      const at = this.slots.indexOf(slot);
      if (at >= 0) this.slots.splice(at, 1);
      await slot.worker.terminate().catch(() => undefined);
    }
    if (!this.closed) this.dispatch();
  }
}
