/**
 * A small pool of worker threads for OpenAPI imports (`POST /v1/designs/import`).
 *
 * The descriptions big APIs publish run to megabytes: parsing one (JSON or YAML), checking its
 * depth and sampling its responses (src/mock/openapi.ts `designsFromOpenApi`) took the API's main
 * thread for hundreds of milliseconds, during which no other request was answered. Here all of
 * that runs on a worker thread (src/mock/import-thread.ts); the main thread only copies the text
 * there and the designs back.
 *
 * The threads are piscina's (a well-kept pool: a FIFO queue, threads started on demand and stopped
 * after `idleMs` without work, giving back the memory a big document took). At most `size` imports
 * run at once (default 2); the others wait their turn.
 *
 * Bounded end to end (docs/mocks.md "OpenAPI import", Bounds), so that no description, however built,
 * ends the process:
 * - each thread's heap is capped (`memoryMb`, ASSAY_IMPORT_MEMORY_MB, default 1024: Node's worker
 *   `resourceLimits`); a document whose parse or designs need more ends that thread only
 *   (ERR_WORKER_OUT_OF_MEMORY), piscina starts another, and the import fails `too-large`;
 * - what a thread sends back is one JSON text, at most `maxResultBytes` (ASSAY_IMPORT_MAX_RESULT_BYTES,
 *   default 128 MiB) of UTF-8, moved (not copied) to the API's thread; past it the import fails
 *   `too-large` and nothing is sent;
 * - each import has `timeoutMs` (ASSAY_IMPORT_TIMEOUT_MS, default 5 minutes) from its submission; past it
 *   the thread is stopped (piscina's abort), another takes its place, and the import fails
 *   `too-large`: a description whose schemas take minutes to sample holds no thread for longer. A structured clone of the designs (what was sent before) could
 *   be any size once a dereferenced description's shared schemas were expanded, and was rebuilt on
 *   the API's thread in one piece.
 */
import path from 'node:path';
import { Piscina } from 'piscina';
import type { ImportResult } from './openapi';
import type { SampleProblemCode } from './samples';

export type { ImportResult };

/** One import: the request body's text and how to read it (`json`: the body is JSON; `yaml`: it is the document's text, JSON or YAML). */
export interface ImportJob {
  text: string;
  as: 'json' | 'yaml';
  /** The largest reply the thread may send, bytes of UTF-8 JSON (set by the pool). */
  maxResultBytes?: number;
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
  | {
      kind: 'too-large';
      /** What was exceeded: the thread's heap, the size of the designs, or the time. */
      bound: 'memory' | 'result' | 'time';
      /** The bound, MiB for `memory`, bytes for `result`, ms for `time`. */
      limit: number;
      message: string;
    }
  | { kind: 'internal'; message: string };

export type ImportReply =
  { result: ImportResult; failure?: undefined } | { failure: ImportFailure; result?: undefined };

export interface ImportPoolOptions {
  /** Imports running at once (default 2). */
  size?: number;
  /** A thread with no work for this long stops (default 30 s). */
  idleMs?: number;
  /** Each thread's old-generation heap, MiB (default {@link DEFAULT_IMPORT_MEMORY_MB}). */
  memoryMb?: number;
  /** The largest reply a thread sends back, bytes of JSON (default {@link DEFAULT_IMPORT_MAX_RESULT_BYTES}). */
  maxResultBytes?: number;
  /** The longest one import may run on its thread, ms (default {@link DEFAULT_IMPORT_TIMEOUT_MS}). */
  timeoutMs?: number;
}

/** Default longest import, ms (ASSAY_IMPORT_TIMEOUT_MS). */
export const DEFAULT_IMPORT_TIMEOUT_MS = 300_000;

/** Default heap of an import thread, MiB (ASSAY_IMPORT_MEMORY_MB). */
export const DEFAULT_IMPORT_MEMORY_MB = 1024;
/** Default largest reply of an import thread, bytes (ASSAY_IMPORT_MAX_RESULT_BYTES). */
export const DEFAULT_IMPORT_MAX_RESULT_BYTES = 128 * 1024 * 1024;

/** The pool of this process's API for these bounds (started on first use; one per distinct bounds). */
export function sharedImportPool(
  options: Pick<ImportPoolOptions, 'memoryMb' | 'maxResultBytes' | 'timeoutMs'> = {},
): ImportPool {
  const key = `${options.memoryMb ?? DEFAULT_IMPORT_MEMORY_MB}/${options.maxResultBytes ?? DEFAULT_IMPORT_MAX_RESULT_BYTES}/${options.timeoutMs ?? DEFAULT_IMPORT_TIMEOUT_MS}`;
  let pool = shared.get(key);
  if (!pool) {
    pool = new ImportPool(options);
    shared.set(key, pool);
  }
  return pool;
}
const shared = new Map<string, ImportPool>();

/** What a thread answers: the reply as UTF-8 JSON bytes (moved), or a failure small enough to clone. */
export type ImportWireReply = Uint8Array | ImportReply;

export class ImportPool {
  private readonly piscina: Piscina<ImportJob, ImportWireReply>;
  private closed = false;
  readonly memoryMb: number;
  readonly maxResultBytes: number;
  readonly timeoutMs: number;

  constructor(options: ImportPoolOptions = {}) {
    const size = Math.max(1, options.size ?? 2);
    this.memoryMb = options.memoryMb ?? DEFAULT_IMPORT_MEMORY_MB;
    this.maxResultBytes = options.maxResultBytes ?? DEFAULT_IMPORT_MAX_RESULT_BYTES;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_IMPORT_TIMEOUT_MS;
    this.piscina = new Piscina({
      filename: path.join(__dirname, 'import-thread.js'),
      minThreads: 0,
      maxThreads: size,
      idleTimeout: options.idleMs ?? 30_000,
      // Node's worker heap bounds (https://nodejs.org/api/worker_threads.html#new-workerfilename-options):
      // past them the thread ends with ERR_WORKER_OUT_OF_MEMORY, the process goes on.
      resourceLimits: { maxOldGenerationSizeMb: this.memoryMb, maxYoungGenerationSizeMb: 64, stackSizeMb: 8 },
    });
  }

  /** Parses and converts the body on a worker thread. Never rejects: failures come back as data. */
  async run(job: ImportJob): Promise<ImportReply> {
    if (this.closed) return { failure: { kind: 'internal', message: 'the import pool is closed' } };
    let wire: ImportWireReply;
    // Counted from the submission (piscina tells no start per task): a wait in the queue, behind
    // at most `size` running imports, counts too.
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), this.timeoutMs);
    try {
      wire = await this.piscina.run({ ...job, maxResultBytes: this.maxResultBytes }, { signal: abort.signal });
    } catch (err) {
      if (abort.signal.aborted)
        return {
          failure: {
            kind: 'too-large',
            bound: 'time',
            limit: this.timeoutMs,
            message: `importing the document takes longer than ${this.timeoutMs} ms (ASSAY_IMPORT_TIMEOUT_MS)`,
          },
        };
      if ((err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY')
        return {
          failure: {
            kind: 'too-large',
            bound: 'memory',
            limit: this.memoryMb,
            message: `importing the document needs more than ${this.memoryMb} MiB (ASSAY_IMPORT_MEMORY_MB)`,
          },
        };
      return { failure: { kind: 'internal', message: `the import thread failed: ${(err as Error).message}` } };
    } finally {
      clearTimeout(timer);
    }
    if (!(wire instanceof Uint8Array)) return wire;
    return JSON.parse(Buffer.from(wire.buffer, wire.byteOffset, wire.byteLength).toString('utf8')) as ImportReply;
  }

  /** Stops every thread; queued and running imports end with an `internal` failure. */
  async close(): Promise<void> {
    this.closed = true;
    await this.piscina.destroy();
  }
}
