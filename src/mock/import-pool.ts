/**
 * A small pool of worker threads for OpenAPI imports (`POST /v1/designs/import`).
 *
 * The descriptions big APIs publish run to megabytes: parsing one (JSON or YAML), checking its
 * depth and sampling its responses (src/mock/openapi.ts `designsFromOpenApi`) took the API's main
 * thread for hundreds of milliseconds, during which no other request was answered. Here all of
 * that runs on a worker thread (src/mock/import-thread.ts); the main thread only copies the text
 * there and the designs back.
 *
 * At most `size` imports run at once (default 2); the others wait in a FIFO queue. Threads start on
 * demand, are `unref`'d (an idle pool does not keep the process alive) and stop after
 * `idleMs` without work, giving back the memory a big document took.
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { ImportResult } from './openapi';
import type { SampleProblemCode } from './samples';

export type { ImportResult };

/** One import: the request body's text and how to read it (`json`: the body is JSON; `yaml`: it is the document's text, JSON or YAML). */
export interface ImportJob {
  text: string;
  as: 'json' | 'yaml';
}

/**
 * What went wrong, as data (classes do not cross threads): `malformed-json` the JSON body does not
 * parse; `too-deep` the body or the document nests too deep at `path`; `ill-formed` a string with
 * a lone surrogate at `path`; `invalid-document` not an importable OpenAPI document; `sample` a
 * `SampleError`'s fields; `internal` anything else (its stack).
 */
export type ImportFailure =
  | { kind: 'malformed-json'; message: string }
  | { kind: 'too-deep'; path: Array<string | number>; what: 'body' | 'document' }
  | { kind: 'ill-formed'; path: Array<string | number> }
  | { kind: 'invalid-document'; message: string }
  | {
      kind: 'sample';
      message: string;
      status: number;
      code: SampleProblemCode;
      path: Array<string | number>;
      detail: string;
    }
  | { kind: 'internal'; message: string };

export type ImportReply =
  { result: ImportResult; failure?: undefined } | { failure: ImportFailure; result?: undefined };

interface Job extends ImportJob {
  resolve(reply: ImportReply): void;
}

interface Slot {
  worker: Worker;
  job?: Job & { id: number };
  idle?: NodeJS.Timeout;
}

export interface ImportPoolOptions {
  /** Imports running at once (default 2). */
  size?: number;
  /** A thread with no work for this long stops (default 30 s). */
  idleMs?: number;
}

/** The pool of this process's API (started on first use). */
export function sharedImportPool(): ImportPool {
  shared ??= new ImportPool();
  return shared;
}
let shared: ImportPool | undefined;

export class ImportPool {
  private readonly size: number;
  private readonly idleMs: number;
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(options: ImportPoolOptions = {}) {
    this.size = Math.max(1, options.size ?? 2);
    this.idleMs = options.idleMs ?? 30_000;
  }

  /** Parses and converts the body on a worker thread. Never rejects: failures come back as data. */
  run(job: ImportJob): Promise<ImportReply> {
    if (this.closed) return Promise.resolve({ failure: { kind: 'internal', message: 'the import pool is closed' } });
    return new Promise((resolve) => {
      this.queue.push({ ...job, resolve });
      this.dispatch();
    });
  }

  /** Terminates every thread; queued and running imports end with an `internal` failure. */
  async close(): Promise<void> {
    this.closed = true;
    const closed: ImportReply = { failure: { kind: 'internal', message: 'the import pool is closed' } };
    for (const job of this.queue.splice(0)) job.resolve(closed);
    await Promise.all(this.slots.splice(0).map((slot) => this.finish(slot, closed, true)));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => !s.job);
      if (!slot && this.slots.length < this.size) slot = this.spawn();
      if (!slot) return;
      const job = this.queue.shift()!;
      const id = this.nextId++;
      clearTimeout(slot.idle);
      slot.job = { ...job, id };
      slot.worker.postMessage({ id, text: job.text, as: job.as });
    }
  }

  private spawn(): Slot {
    const worker = new Worker(path.join(__dirname, 'import-thread.js'));
    const slot: Slot = { worker };
    worker.on('message', (message: { id: number } & ImportReply) => {
      if (slot.job?.id !== message.id) return;
      void this.finish(slot, message.failure ? { failure: message.failure } : { result: message.result }, false);
    });
    const lost = (reason: string) => {
      if (!this.slots.includes(slot)) return;
      void this.finish(slot, { failure: { kind: 'internal', message: `the import thread stopped: ${reason}` } }, true);
    };
    worker.on('error', (err) => lost(err.message));
    worker.on('exit', (code) => lost(`exit code ${code}`));
    // After the listeners: adding a 'message' listener refs the thread's port again.
    worker.unref();
    this.slots.push(slot);
    return slot;
  }

  /** Ends the slot's job with `reply`; with `kill`, terminates its thread and drops the slot. */
  private async finish(slot: Slot, reply: ImportReply, kill: boolean): Promise<void> {
    const job = slot.job;
    slot.job = undefined;
    job?.resolve(reply);
    clearTimeout(slot.idle);
    if (kill) await this.retire(slot);
    else if (!this.closed) {
      slot.idle = setTimeout(() => {
        if (!slot.job) void this.retire(slot);
      }, this.idleMs);
      slot.idle.unref();
    }
    if (!this.closed) this.dispatch();
  }

  /** Drops the slot and terminates its thread. */
  private async retire(slot: Slot): Promise<void> {
    clearTimeout(slot.idle);
    const at = this.slots.indexOf(slot);
    if (at >= 0) this.slots.splice(at, 1);
    await slot.worker.terminate().catch(() => undefined);
  }
}
