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
  private readonly piscina: Piscina<ImportJob, ImportReply>;
  private closed = false;

  constructor(options: ImportPoolOptions = {}) {
    const size = Math.max(1, options.size ?? 2);
    this.piscina = new Piscina({
      filename: path.join(__dirname, 'import-thread.js'),
      minThreads: 0,
      maxThreads: size,
      idleTimeout: options.idleMs ?? 30_000,
    });
  }

  /** Parses and converts the body on a worker thread. Never rejects: failures come back as data. */
  async run(job: ImportJob): Promise<ImportReply> {
    if (this.closed) return { failure: { kind: 'internal', message: 'the import pool is closed' } };
    try {
      return await this.piscina.run(job);
    } catch (err) {
      return { failure: { kind: 'internal', message: `the import thread failed: ${(err as Error).message}` } };
    }
  }

  /** Stops every thread; queued and running imports end with an `internal` failure. */
  async close(): Promise<void> {
    this.closed = true;
    await this.piscina.destroy();
  }
}
