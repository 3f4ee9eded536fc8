/**
 * The isolates and contexts scripts run in (isolated-vm: separate V8 heaps with a memory limit).
 *
 * - Each test case of a run gets its own isolate and a fresh context in it (runtime and built-in
 *   libraries only), created on the test case's first script and reused by its later scripts (so a
 *   library loads once per test case, not per hook), then released when the run's next test case
 *   starts, when the run ends, or when idle for `contextIdleMs`. Runs and test cases never share a
 *   context, so a library one test case lists in `libs` is never visible to another. Within a test
 *   case, a library or global an earlier script left stays visible to the later ones while the
 *   context lives; contexts are a cache (a worker restart or the idle sweep loses them), so a
 *   script must list every library it uses.
 * - A library with a realm of its own (src/sandbox/libraries.ts `realm`: the Postman library)
 *   makes the scripts listing it run in a second context of their test case, its own isolate,
 *   so what that library changes in the built-in objects never reaches the test case's other
 *   scripts.
 * - At most `maxContexts` contexts live at once; beyond it the oldest are released.
 * - Spare isolates are kept warm with a fresh context already prepared in them, so a new test
 *   case's first script rarely waits for the runtime and built-ins. A released context's isolate
 *   goes back among the spares (user code never ran in the fresh context prepared there); a broken
 *   one (timed out, out of memory) is disposed.
 */
import ivm from 'isolated-vm';
import type { CodeCache } from './code-cache';
import type { HostBridge } from './host-bridge';
import { libraryManifest, librarySource } from './libraries';

/** A fresh context with the runtime and the built-in libraries run in it, no user code yet. */
export interface PreparedContext {
  isolate: ivm.Isolate;
  context: ivm.Context;
  /** The runtime's `__assay.run` (src/sandbox/runtime/bootstrap.js). */
  run: ivm.Reference<(id: number, hook: string | null, input: string) => Promise<string>>;
  /** Library keys run in the context: built-in file names, predefined file names, custom URLs. */
  loaded: Set<string>;
}

/** The context of one test case of one run (or of one run, for callers that name no test case). */
export interface ScriptContext extends PreparedContext {
  key: string;
  runId: string;
  /** Epoch ms of its last use; the caller sets it around an execution. */
  lastUsed: number;
  /** Executions under way in it; the caller counts them (a busy context is never swept). */
  busy: number;
  /** Set once the context is given back; an execution still holding it asks for a new one. */
  released: boolean;
}

export interface ContextPoolOptions {
  memoryLimitMb: number;
  /** Contexts (run and test case) kept at once; the oldest are released beyond it. */
  maxContexts: number;
  contextIdleMs: number;
  /** Warm isolates kept ready, each with a fresh context (runtime and built-ins run) prepared. */
  spareIsolates: number;
  /** Compiles the runtime and the built-ins once per isolate. */
  compiler: CodeCache;
  /** Installed in every context as `__assayHost`. */
  host: HostBridge;
}

interface ContextEntry {
  runId: string;
  testCaseId?: string;
  pending: Promise<ScriptContext>;
  /** The context once created (synchronous access for the sweep and for test case changes). */
  ctx?: ScriptContext;
}

/** A warm isolate and the fresh context being prepared in it. */
interface Spare {
  isolate: ivm.Isolate;
  ready: Promise<PreparedContext>;
}

/** Built-in libraries, run in every fresh context in this order. */
const BUILTINS_FIRST = ['lodash', 'faker', 'zod', 'ky', 'luxon'];

export class ContextPool {
  private readonly contexts = new Map<string, ContextEntry>();
  private readonly spares: Spare[] = [];
  private readonly sweeper: NodeJS.Timeout;
  private disposed = false;

  constructor(private readonly options: ContextPoolOptions) {
    this.sweeper = setInterval(() => this.sweep(), Math.min(30_000, this.options.contextIdleMs)).unref();
  }

  /**
   * The context of a run's test case, created on its first script. A run's test cases run one
   * after another (workflows/run.ts), so a new test case means the run's earlier ones are over:
   * their idle contexts are released here (the sweep and the run's end catch the rest).
   */
  contextFor(runId: string, testCaseId: string | undefined, realm?: string): Promise<ScriptContext> {
    const key = JSON.stringify([runId, testCaseId ?? null, ...(realm ? [realm] : [])]);
    const existing = this.contexts.get(key);
    if (existing) return existing.pending;
    // Takes a spare isolate synchronously, before the run's older contexts give theirs back.
    const pending = this.createContext(key, runId);
    const entry: ContextEntry = { runId, testCaseId, pending };
    this.contexts.set(key, entry);
    pending.then(
      (ctx) => {
        entry.ctx = ctx;
      },
      () => {
        if (this.contexts.get(key) === entry) this.contexts.delete(key);
      },
    );
    // The same test case's other realm (its Postman scripts' context, or its ordinary one) stays.
    for (const [other, e] of this.contexts) {
      if (other !== key && e.runId === runId && e.testCaseId !== testCaseId && e.ctx && e.ctx.busy === 0)
        void this.release(other);
    }
    this.evictBeyondLimit();
    return pending;
  }

  /** Forgets a context whose isolate is broken (timed out, out of memory) and disposes it. */
  discard(ctx: ScriptContext): void {
    ctx.released = true;
    const entry = this.contexts.get(ctx.key);
    if (entry && entry.ctx === ctx) this.contexts.delete(ctx.key);
    if (!ctx.isolate.isDisposed) ctx.isolate.dispose();
  }

  /** Releases every context of a run (their isolates go back to the spares or away). */
  async releaseRun(runId: string): Promise<void> {
    const keys = [...this.contexts].filter(([, entry]) => entry.runId === runId).map(([key]) => key);
    await Promise.all(keys.map((key) => this.release(key)));
  }

  /** Number of runs with at least one live context. */
  get activeRuns(): number {
    return new Set([...this.contexts.values()].map((e) => e.runId)).size;
  }

  /** Number of live contexts: one per test case under way. */
  get activeContexts(): number {
    return this.contexts.size;
  }

  /** Number of spare isolates kept (each with a context ready or being prepared). */
  get spareCount(): number {
    return this.spares.length;
  }

  /** Releases every context and disposes the spares; no context is created after it. */
  async dispose(): Promise<void> {
    this.disposed = true;
    clearInterval(this.sweeper);
    for (const key of [...this.contexts.keys()]) await this.release(key);
    for (const spare of this.spares.splice(0)) if (!spare.isolate.isDisposed) spare.isolate.dispose();
  }

  private async createContext(key: string, runId: string): Promise<ScriptContext> {
    if (this.disposed) throw new Error('the sandbox is shut down');
    const spare = this.spares.shift();
    setImmediate(() => this.topUpSpares());
    let prepared = spare
      ? await spare.ready.catch(() => {
          if (!spare.isolate.isDisposed) spare.isolate.dispose();
          return undefined;
        })
      : undefined;
    if (!prepared) {
      const isolate = this.newIsolate();
      try {
        prepared = await this.prepare(isolate);
      } catch (err) {
        if (!isolate.isDisposed) isolate.dispose();
        throw err;
      }
    }
    if (this.disposed) {
      prepared.run.release();
      prepared.context.release();
      if (!prepared.isolate.isDisposed) prepared.isolate.dispose();
      throw new Error('the sandbox is shut down');
    }
    return { ...prepared, key, runId, lastUsed: Date.now(), busy: 0, released: false };
  }

  /**
   * A fresh context in `isolate`: the host bridge, the runtime, then the built-in libraries. Spare
   * isolates get theirs in the background, so a new test case's first script rarely waits for it.
   */
  private async prepare(isolate: ivm.Isolate): Promise<PreparedContext> {
    const context = await isolate.createContext();
    try {
      const global = context.global;
      await global.set('globalThis', global.derefInto());
      await this.options.host.install(context);
      const manifest = libraryManifest();
      const { compiler } = this.options;
      await compiler.compile(isolate, 'runtime', librarySource(manifest.runtime.fileName)).then((s) => s.run(context));
      const loaded = new Set<string>();
      for (const name of BUILTINS_FIRST) {
        const lib = manifest.libraries.find((l) => l.name === name)!;
        await (await compiler.compile(isolate, lib.fileName, librarySource(lib.fileName))).run(context);
        loaded.add(lib.fileName);
      }
      const run = (await context.eval('__assay.run', { reference: true })) as PreparedContext['run'];
      return { isolate, context, run, loaded };
    } catch (err) {
      context.release();
      throw err;
    }
  }

  private newIsolate(): ivm.Isolate {
    return new ivm.Isolate({
      memoryLimit: this.options.memoryLimitMb,
      onCatastrophicError: (message) => {
        process.stderr.write(`isolated-vm catastrophic error: ${message}\n`);
      },
    });
  }

  private topUpSpares(): void {
    while (!this.disposed && this.spares.length < this.options.spareIsolates) this.addSpare(this.newIsolate());
  }

  /** Keeps `isolate` as a spare and prepares a fresh context in it now. */
  private addSpare(isolate: ivm.Isolate): void {
    const ready = this.prepare(isolate);
    ready.catch(() => undefined); // awaited (and a failure handled) by whoever takes the spare
    this.spares.push({ isolate, ready });
  }

  /** Forgets a context and gives its isolate back. */
  private async release(key: string): Promise<void> {
    const entry = this.contexts.get(key);
    if (!entry) return;
    this.contexts.delete(key);
    const ctx = await entry.pending.catch(() => undefined);
    if (ctx) this.recycle(ctx);
  }

  /**
   * Drops a released context and puts its isolate back among the spares (with a fresh context
   * prepared in it; user code never ran there) when there is room, else disposes it.
   */
  private recycle(ctx: ScriptContext): void {
    if (ctx.released) return;
    ctx.released = true;
    ctx.run.release();
    ctx.context.release();
    if (ctx.isolate.isDisposed) return;
    if (!this.disposed && this.spares.length < this.options.spareIsolates) this.addSpare(ctx.isolate);
    else ctx.isolate.dispose();
  }

  private evictBeyondLimit(): void {
    if (this.contexts.size <= this.options.maxContexts) return;
    // Oldest first (Map keeps insertion order).
    for (const key of [...this.contexts.keys()]) {
      if (this.contexts.size <= this.options.maxContexts) break;
      void this.release(key);
    }
  }

  private sweep(): void {
    const now = Date.now();
    for (const [key, entry] of this.contexts) {
      const ctx = entry.ctx;
      if (ctx && ctx.busy === 0 && now - ctx.lastUsed > this.options.contextIdleMs) void this.release(key);
    }
  }
}
