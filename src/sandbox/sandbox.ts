/**
 * The script sandbox: user scripts run in isolated-vm isolates (separate V8 heaps with a memory
 * limit), never in the worker's own context.
 *
 * Isolation and speed:
 * - Each test case of a run gets its own isolate and a fresh context in it (runtime and built-in
 *   libraries only), created on the test case's first script and reused by its later scripts (so a
 *   library loads once per test case, not per hook), then released when the run's next test case
 *   starts, when the run ends, or when idle for `contextIdleMs`. Runs and test cases never share a
 *   context, so a library one test case lists in `libs` is never visible to another (issue 9,
 *   item 8). Within a test case, a library or global an earlier script left stays visible to the
 *   later ones while the context lives; contexts are a cache (a worker restart or the idle sweep
 *   loses them), so a script must list every library it uses.
 * - Spare isolates are kept warm with a fresh context already prepared in them, so a new test
 *   case's first script rarely waits for the runtime and built-ins; library scripts are compiled
 *   once per isolate, and the V8 code cache (`cachedData`, produced by this process only) makes
 *   compiles in new isolates cheap. `createSnapshot` is not used: isolated-vm's maintainer advises
 *   against it and it aborts on Intl.
 * - Each script is compiled inside a function of its own, so `var`s and hook functions of one
 *   script never leak into the next; `$request`, `$response`, `$context`, `$log` and `console` are
 *   that function's parameters.
 *
 * Limits: `memoryLimitMb` per isolate; `timeoutMs` of wall time per execution. isolated-vm's own
 * timeout covers only synchronous code, so an execution still waiting after `timeoutMs` (on a
 * fetch, a timer, a promise that never settles) disposes its isolate. A script that throws, times
 * out or runs out of memory yields `ok: false` with the message and the line; nothing throws to the
 * caller, and the next execution gets a healthy isolate. What a script throws is described inside
 * the isolate (runtime/bootstrap.js), where the value is whole: the full message (bounded by
 * {@link boundMessage}) and the line and column of the user's own frame (see {@link locate}).
 *
 * The bridged `fetch` goes through the host (undici) with `fetchTimeoutMs` and a response cap of
 * `maxFetchBytes`. It and libraries loaded by URL connect through the address policy
 * (`SandboxOptions.policy`, src/net/address-policy.ts): kind `script` for `fetch`, `library` for
 * libraries; a refused address is the fetch's error (`fetch` rejects) or the library's error.
 */
import { randomBytes } from 'node:crypto';
import ivm from 'isolated-vm';
import { publicOnlyPolicy, type AddressPolicy, type EgressKind } from '../net/address-policy';
import { guardedRequest, readCapped } from '../net/http';
import { libraryManifest, librarySource, ownLibrary } from './libraries';

export type HookName = 'beforeRequest' | 'afterResponse' | 'generateValue';

/** A script configuration (spec "Scripts and libraries"): code and library URLs. */
export interface ScriptConfig {
  code: string;
  libs?: string[];
}

export interface ScriptRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: unknown;
}

export interface ScriptResponse {
  status?: number;
  headers: Record<string, string>;
  body?: unknown;
  /** Milliseconds. */
  time: number;
}

export interface ScriptLog {
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
}

export interface ScriptInput {
  /** The run the script belongs to. */
  runId: string;
  script: ScriptConfig;
  /** The hook to call after the script's top level ran; none for a Script node. */
  hook?: HookName;
  request?: ScriptRequest;
  response?: ScriptResponse;
  variables: Record<string, unknown>;
  /** Earlier nodes' requests and responses by node id (read-only in the script). */
  nodes?: Record<string, unknown>;
  /** Innermost loop: index, item. */
  loop?: unknown;
  /**
   * The test case the script belongs to (`$context.testCase`). Scripts share a context per run and
   * test case: the test case's later scripts see what its earlier ones loaded or set, no other
   * test case does. Without it, per run.
   */
  testCase?: { id: string; name: string };
  /** Names the script in stack traces, e.g. `n3.beforeRequest`. */
  label: string;
  /** Wall-time limit for this execution in ms (default: the sandbox's `timeoutMs`). */
  timeoutMs?: number;
}

export interface ScriptError {
  /** `limit`: the script's output was over a payload cap (src/domain/limits.ts), set by activities/nodes.ts. */
  kind: 'error' | 'syntax' | 'timeout' | 'memory' | 'library' | 'limit';
  /**
   * `name: message` of what the script threw, the whole message (a ZodError's JSON list of issues
   * included; a thrown non-Error value as `Uncaught <value>`), at most
   * {@link MAX_ERROR_MESSAGE_CHARS} characters, then `… [cut: N more characters]`.
   */
  message: string;
  /**
   * Line and column in the user's code (its innermost frame, below any library's frames), when
   * known: not for a thrown non-Error value, which carries no stack.
   */
  line?: number;
  column?: number;
}

/**
 * One check a script recorded with `$test(name, fn)` (docs/flows.md "Scripts"): `message` is what
 * `fn` threw (`AssertionError: expected 404 to equal 200`), at most 2,000 characters.
 */
export interface ScriptTest {
  name: string;
  passed: boolean;
  message?: string;
}

export interface ScriptResult {
  ok: boolean;
  /** `$request` after the script (a beforeRequest hook may change it). */
  request?: ScriptRequest;
  /** The variables after the script (`$context.set`/`unset`). */
  variables: Record<string, unknown>;
  /** What `generateValue` returned. */
  value?: unknown;
  /** Lines logged; for a script that threw, those logged before it threw. */
  logs: ScriptLog[];
  /** Checks recorded with `$test` (absent when none), also those recorded before a throw. */
  tests?: ScriptTest[];
  error?: ScriptError;
  durationMs: number;
}

export interface SandboxOptions {
  memoryLimitMb: number;
  timeoutMs: number;
  fetchTimeoutMs: number;
  maxFetchBytes: number;
  libraryTimeoutMs: number;
  maxLibraryBytes: number;
  /** Contexts (run and test case) kept at once; the oldest are released beyond it. */
  maxContexts: number;
  contextIdleMs: number;
  /** Warm isolates kept ready, each with a fresh context (runtime and built-ins run) prepared. */
  spareIsolates: number;
  /**
   * Library code the host has without the network, by URL (the worker passes the bundler's
   * blobs from the store: src/bundler/blobs.ts); undefined means fetch it.
   */
  localLibrary?: (url: string) => Promise<string | undefined>;
  /**
   * The address policy of `fetch` (kind `script`) and of libraries loaded by URL (kind
   * `library`). Default: a policy of its own that refuses every non-public address.
   */
  policy?: AddressPolicy;
}

export const DEFAULT_SANDBOX_OPTIONS: SandboxOptions = {
  memoryLimitMb: 64,
  timeoutMs: 5000,
  fetchTimeoutMs: 10_000,
  maxFetchBytes: 1024 * 1024,
  libraryTimeoutMs: 10_000,
  maxLibraryBytes: 5 * 1024 * 1024,
  maxContexts: 16,
  contextIdleMs: 60_000,
  spareIsolates: 1,
};

/** A library that could not be loaded into a script's context. */
class LibraryError extends Error {}

/** A fresh context with the runtime and the built-in libraries run in it, no user code yet. */
interface PreparedContext {
  isolate: ivm.Isolate;
  context: ivm.Context;
  run: ivm.Reference<(id: number, hook: string | null, input: string) => Promise<string>>;
  /** Library keys run in the context: built-in file names, predefined file names, custom URLs. */
  loaded: Set<string>;
}

/** The context of one test case of one run (or of one run, for callers that name no test case). */
interface ScriptContext extends PreparedContext {
  key: string;
  runId: string;
  lastUsed: number;
  busy: number;
  /** Set once the context is given back; an execution still holding it asks for a new one. */
  released: boolean;
}

interface ContextEntry {
  runId: string;
  pending: Promise<ScriptContext>;
  /** The context once created (synchronous access for the sweep and for test case changes). */
  ctx?: ScriptContext;
}

/** A warm isolate and the fresh context being prepared in it. */
interface Spare {
  isolate: ivm.Isolate;
  ready: Promise<PreparedContext>;
}

const BUILTINS_FIRST = ['lodash', 'faker', 'zod', 'ky', 'luxon'];

/** Longest error message reported, in characters; a longer one is cut with a visible marker. */
export const MAX_ERROR_MESSAGE_CHARS = 4096;

/**
 * `text` cut to {@link MAX_ERROR_MESSAGE_CHARS} characters (never inside a surrogate pair), then
 * `… [cut: N more characters]`; `total` is the length of the whole text when `text` is already a
 * prefix of it (the isolate sends at most 8 KiB).
 */
export function boundMessage(text: string, total = text.length): string {
  if (total <= MAX_ERROR_MESSAGE_CHARS && text.length <= MAX_ERROR_MESSAGE_CHARS) return text;
  let end = Math.min(text.length, MAX_ERROR_MESSAGE_CHARS);
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}… [cut: ${total - end} more characters]`;
}

/**
 * Line and column of the user's code in an error's stack or message: the first (innermost) frame
 * in `<label>.js:<line>:<column>`, the file the user's script is compiled as. Frames of a
 * library's own code (zod's `parse`, a `libs` file) or of the runtime come before it in the stack
 * and are skipped; so is a frame of another script whose label merely ends in this one's.
 */
export function locate(text: string, label: string): { line?: number; column?: number } {
  const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`(?:^|[\\s(\\[@])${escaped}\\.js:(\\d+)(?::(\\d+))?`, 'm').exec(text);
  return m ? { line: Number(m[1]), column: m[2] ? Number(m[2]) : undefined } : {};
}

/** What the runtime (runtime/bootstrap.js `describeThrown`) reports for a value a script threw. */
interface ThrownDescription {
  text: string;
  length: number;
  stack?: string;
}

export class Sandbox {
  readonly options: SandboxOptions;
  private readonly contexts = new Map<string, ContextEntry>();
  private readonly spares: Spare[] = [];
  private readonly codeCache = new Map<string, ivm.ExternalCopy<ArrayBuffer>>();
  private readonly compiled = new WeakMap<ivm.Isolate, Map<string, ivm.Script>>();
  private readonly customLibraries = new Map<string, string>();
  private readonly policy: AddressPolicy;
  /** Whether {@link policy} is the sandbox's own (closed by {@link dispose}). */
  private readonly ownPolicy: boolean;
  private readonly sweeper: NodeJS.Timeout;
  private nextScript = 1;
  private disposed = false;

  constructor(options: Partial<SandboxOptions> = {}) {
    this.options = { ...DEFAULT_SANDBOX_OPTIONS, ...options };
    this.ownPolicy = !options.policy;
    this.policy = options.policy ?? publicOnlyPolicy();
    this.sweeper = setInterval(() => this.sweep(), Math.min(30_000, this.options.contextIdleMs)).unref();
  }

  /** Runs one script. Never throws for anything the script does. */
  async execute(input: ScriptInput): Promise<ScriptResult> {
    const started = performance.now();
    const done = (r: Omit<ScriptResult, 'durationMs'>): ScriptResult => ({ ...r, durationMs: Math.round((performance.now() - started) * 100) / 100 });
    // Every message is bounded by boundMessage where it is made.
    const fail = (error: ScriptError, logs: ScriptLog[] = []) => done({ ok: false, variables: input.variables, logs, error });
    const timeoutMs = Math.max(1, Math.min(input.timeoutMs ?? this.options.timeoutMs, this.options.timeoutMs));

    let ctx: ScriptContext;
    try {
      ctx = await this.contextFor(input.runId, input.testCase?.id);
      // Released between its creation and now (its run ended, or evicted): take a new one, once.
      if (ctx.released) ctx = await this.contextFor(input.runId, input.testCase?.id);
      if (ctx.released) throw new Error('its context was released while the script was starting');
    } catch (err) {
      return fail({ kind: 'error', message: `The sandbox could not start: ${(err as Error).message}` });
    }
    ctx.busy += 1;
    ctx.lastUsed = Date.now();
    try {
      try {
        await this.loadLibraries(ctx, input.script.libs ?? []);
      } catch (err) {
        if (err instanceof LibraryError) return fail({ kind: 'library', message: boundMessage(err.message) });
        throw err;
      }
      const id = this.nextScript++;
      let script: ivm.Script;
      try {
        script = await ctx.isolate.compileScript(
          `__assay.register(${id}, async function ($request, $response, $context, $log, console, $test) {\n${input.script.code}\n;return { beforeRequest: typeof beforeRequest === 'function' ? beforeRequest : undefined, afterResponse: typeof afterResponse === 'function' ? afterResponse : undefined, generateValue: typeof generateValue === 'function' ? generateValue : undefined };\n});`,
          { filename: `${input.label}.js`, lineOffset: -1 },
        );
      } catch (err) {
        const e = err as Error;
        return fail({ kind: 'syntax', message: boundMessage(e.message), ...locate(`${e.stack ?? ''}\n${e.message}`, input.label) });
      }
      const payload = JSON.stringify({
        request: input.request,
        response: input.response,
        variables: input.variables,
        nodes: input.nodes,
        loop: input.loop,
        runId: input.runId,
        testCase: input.testCase,
      });
      let timer: NodeJS.Timeout | undefined;
      const wallClock = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new WallClockTimeout()), timeoutMs);
      });
      try {
        const json = await Promise.race([
          (async () => {
            await script.run(ctx.context, { timeout: timeoutMs });
            return ctx.run.apply(undefined, [id, input.hook ?? null, payload], { timeout: timeoutMs, result: { promise: true, copy: true } });
          })(),
          wallClock,
        ]);
        const out = JSON.parse(json) as
          | { ok: true; request?: ScriptRequest; variables: Record<string, unknown>; value?: unknown; logs: ScriptLog[]; tests?: ScriptTest[] }
          | { ok: false; error: ThrownDescription; logs: ScriptLog[]; tests?: ScriptTest[] };
        if (!out.ok) {
          // What the script threw, described inside the isolate; the lines it logged before are kept.
          const where = locate(out.error.stack ?? '', input.label);
          const failed = fail({ kind: 'error', message: boundMessage(out.error.text, out.error.length), ...where }, out.logs);
          return out.tests?.length ? { ...failed, tests: out.tests } : failed;
        }
        return done({ ok: true, request: out.request, variables: out.variables, value: out.value, logs: out.logs, ...(out.tests?.length ? { tests: out.tests } : {}) });
      } catch (err) {
        return fail(this.classify(err, ctx, input.label, timeoutMs));
      } finally {
        clearTimeout(timer);
        script.release();
      }
    } finally {
      ctx.busy -= 1;
      ctx.lastUsed = Date.now();
    }
  }

  /** Releases every context of a run (their isolates go back to the spares or away). */
  async releaseRun(runId: string): Promise<void> {
    const keys = [...this.contexts].filter(([, entry]) => entry.runId === runId).map(([key]) => key);
    await Promise.all(keys.map((key) => this.release(key)));
  }

  /** Number of runs with at least one live context (for tests and metrics). */
  get activeRuns(): number {
    return new Set([...this.contexts.values()].map((e) => e.runId)).size;
  }

  /** Number of live contexts: one per test case under way (for tests and metrics). */
  get activeContexts(): number {
    return this.contexts.size;
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    clearInterval(this.sweeper);
    for (const key of [...this.contexts.keys()]) await this.release(key);
    for (const spare of this.spares.splice(0)) if (!spare.isolate.isDisposed) spare.isolate.dispose();
    if (this.ownPolicy) await this.policy.close();
  }

  // --- errors ---------------------------------------------------------------------------------

  /** An error that reached the host: a timeout, the memory limit, or isolated-vm's own failure. */
  private classify(err: unknown, ctx: ScriptContext, label: string, timeoutMs: number): ScriptError {
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof WallClockTimeout || /Script execution timed out/i.test(message)) {
      this.discard(ctx);
      return { kind: 'timeout', message: `The script did not finish within ${timeoutMs} ms` };
    }
    if (ctx.isolate.isDisposed || /disposed|memory limit/i.test(message)) {
      this.discard(ctx);
      return { kind: 'memory', message: `The script exceeded its memory limit of ${this.options.memoryLimitMb} MB` };
    }
    const e = err instanceof Error ? err : new Error(message);
    return { kind: 'error', message: boundMessage(message === '' ? e.name : `${e.name}: ${message}`), ...locate(`${e.stack ?? ''}\n${message}`, label) };
  }

  // --- contexts and isolates --------------------------------------------------------------------

  /**
   * The context of a run's test case, created on its first script. A run's test cases run one
   * after another (workflows/run.ts), so a new test case means the run's earlier ones are over:
   * their idle contexts are released here (the sweep and the run's end catch the rest).
   */
  private contextFor(runId: string, testCaseId: string | undefined): Promise<ScriptContext> {
    const key = JSON.stringify(testCaseId === undefined ? [runId] : [runId, testCaseId]);
    const existing = this.contexts.get(key);
    if (existing) return existing.pending;
    // Takes a spare isolate synchronously, before the run's older contexts give theirs back.
    const pending = this.createContext(key, runId);
    const entry: ContextEntry = { runId, pending };
    this.contexts.set(key, entry);
    pending.then(
      (ctx) => {
        entry.ctx = ctx;
      },
      () => {
        if (this.contexts.get(key) === entry) this.contexts.delete(key);
      },
    );
    for (const [other, e] of this.contexts) {
      if (other !== key && e.runId === runId && e.ctx && e.ctx.busy === 0) void this.release(other);
    }
    this.evictBeyondLimit();
    return pending;
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
      await global.set('__assayRandomBytes', new ivm.Callback((n: number) => [...randomBytes(Math.min(65536, Math.max(0, Number(n) || 0)))]));
      await context.evalClosure(
        `globalThis.__assayHost = {
        fetch: (url, init) => $0.apply(undefined, [url, init], { arguments: { copy: true }, result: { promise: true, copy: true } }),
        sleep: (ms) => $1.apply(undefined, [ms], { arguments: { copy: true }, result: { promise: true } }),
        randomBytes: globalThis.__assayRandomBytes,
      };
      delete globalThis.__assayRandomBytes;`,
        // Each function arrives in the isolate as a Reference, reachable only through these closures.
        [(url: string, init: FetchInit) => this.hostFetch(url, init), (ms: number) => this.hostSleep(ms)],
        { arguments: { reference: true } },
      );
      const manifest = libraryManifest();
      await this.compile(isolate, 'runtime', librarySource(manifest.runtime.fileName)).then((s) => s.run(context));
      const loaded = new Set<string>();
      for (const name of BUILTINS_FIRST) {
        const lib = manifest.libraries.find((l) => l.name === name)!;
        await (await this.compile(isolate, lib.fileName, librarySource(lib.fileName))).run(context);
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

  /** Compiles `source` in `isolate` once, with this process's V8 code cache. */
  private async compile(isolate: ivm.Isolate, key: string, source: string): Promise<ivm.Script> {
    let scripts = this.compiled.get(isolate);
    if (!scripts) {
      scripts = new Map();
      this.compiled.set(isolate, scripts);
    }
    const existing = scripts.get(key);
    if (existing) return existing;
    const cached = this.codeCache.get(key);
    const script = await isolate.compileScript(source, {
      filename: key,
      ...(cached ? { cachedData: cached } : { produceCachedData: true }),
    });
    const produced = (script as ivm.Script & ivm.CachedDataResult).cachedData;
    if (!cached && produced) this.codeCache.set(key, produced);
    scripts.set(key, script);
    return script;
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

  /** Forgets a context whose isolate is broken (timed out, out of memory) and disposes it. */
  private discard(ctx: ScriptContext): void {
    ctx.released = true;
    const entry = this.contexts.get(ctx.key);
    if (entry && entry.ctx === ctx) this.contexts.delete(ctx.key);
    if (!ctx.isolate.isDisposed) ctx.isolate.dispose();
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

  // --- libraries --------------------------------------------------------------------------------

  private async loadLibraries(ctx: ScriptContext, libs: string[]): Promise<void> {
    for (const entry of libs) {
      const own = ownLibrary(entry);
      const key = own ? own.fileName : entry;
      if (ctx.loaded.has(key)) continue;
      const source = own ? librarySource(own.fileName) : await this.fetchLibrary(entry);
      let script: ivm.Script;
      try {
        script = await this.compile(ctx.isolate, key, source);
      } catch (err) {
        const message = (err as Error).message;
        if (/import statement|Unexpected token 'export'|Cannot use 'import\.meta'|export/i.test(message)) {
          throw new LibraryError(
            `Library ${entry} is an ES module (it uses import/export); scripts load IIFE or UMD builds only. Convert it with the bundler (POST {bundler_url}/api/bundle with {"url": "${entry}"}) and list the returned blobUrl in libs.`,
          );
        }
        throw new LibraryError(`Library ${entry} does not compile: ${message}`);
      }
      try {
        await script.run(ctx.context, { timeout: this.options.timeoutMs });
      } catch (err) {
        throw new LibraryError(`Library ${entry} failed while loading: ${(err as Error).message}`);
      }
      ctx.loaded.add(key);
    }
  }

  /**
   * A custom library's code: from {@link SandboxOptions.localLibrary} when the host has it, else
   * fetched (http/https only, with a timeout and a size cap); cached in memory by URL.
   */
  private async fetchLibrary(url: string): Promise<string> {
    const cached = this.customLibraries.get(url);
    if (cached !== undefined) return cached;
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new LibraryError(`"${url}" is neither a library URL nor the name of a predefined library (see GET /v1/libraries)`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new LibraryError(`Library ${url}: only http and https URLs can be loaded`);
    const local = await this.options.localLibrary?.(url)?.catch((err: Error) => {
      throw new LibraryError(`Library ${url}: ${err.message}`);
    });
    if (local !== undefined) return this.remember(url, local);
    const res = await this.download('library', url, this.options.libraryTimeoutMs, this.options.maxLibraryBytes).catch((err: Error) => {
      throw new LibraryError(`Library ${url} could not be fetched: ${err.message}`);
    });
    if (res.status !== 200) throw new LibraryError(`Library ${url} answered HTTP ${res.status}`);
    if (res.truncated) throw new LibraryError(`Library ${url} is larger than ${this.options.maxLibraryBytes} bytes`);
    return this.remember(url, res.body.toString('utf8'));
  }

  /** Keeps the last 100 custom libraries in memory, by URL. */
  private remember(url: string, text: string): string {
    if (this.customLibraries.size >= 100) this.customLibraries.delete(this.customLibraries.keys().next().value!);
    this.customLibraries.set(url, text);
    return text;
  }

  // --- host bridge ------------------------------------------------------------------------------

  private hostSleep(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, Math.min(Math.max(0, Number(ms) || 0), 2 ** 31 - 1)).unref());
  }

  private async hostFetch(url: string, init: FetchInit): Promise<FetchAnswer> {
    try {
      const parsed = new URL(url);
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return { error: `only http and https URLs can be fetched, not ${parsed.protocol}` };
      const res = await this.download('script', url, this.options.fetchTimeoutMs, this.options.maxFetchBytes, {
        method: init.method,
        headers: Object.fromEntries(init.headers ?? []),
        body: init.bodyBase64 ? Buffer.from(init.bodyBase64, 'base64') : undefined,
        follow: init.redirect !== 'manual',
      });
      if (res.truncated) return { error: `the response is larger than ${this.options.maxFetchBytes} bytes` };
      return {
        status: res.status,
        statusText: res.statusText,
        url: res.url,
        redirected: res.url !== url,
        headers: res.headers,
        bodyBase64: res.body.toString('base64'),
      };
    } catch (err) {
      return { error: (err as Error).message };
    }
  }

  /** One GET (or the script's request) through the policy's agent for `kind`, read up to `maxBytes`. */
  private async download(
    kind: EgressKind,
    url: string,
    timeoutMs: number,
    maxBytes: number,
    init: { method?: string; headers?: Record<string, string>; body?: Buffer; follow?: boolean } = {},
  ): Promise<{ status: number; statusText: string; url: string; headers: Array<[string, string]>; body: Buffer; truncated: boolean }> {
    const res = await guardedRequest(this.policy.agent(kind), url, {
      method: init.method,
      headers: { 'user-agent': 'Assay-Sandbox/0.1', ...init.headers },
      body: init.body,
      timeoutMs,
      followRedirects: init.follow !== false,
    });
    const { bytes, truncated } = await readCapped(res.body, maxBytes);
    const headers: Array<[string, string]> = [];
    for (const [k, v] of Object.entries(res.headers)) {
      if (v === undefined) continue;
      for (const one of Array.isArray(v) ? v : [v]) headers.push([k.toLowerCase(), one]);
    }
    return { status: res.statusCode, statusText: '', url, headers, body: bytes, truncated };
  }
}

interface FetchInit {
  method?: string;
  headers?: Array<[string, string]>;
  bodyBase64?: string;
  redirect?: string;
}

type FetchAnswer =
  | { error: string }
  | { status: number; statusText: string; url: string; redirected: boolean; headers: Array<[string, string]>; bodyBase64: string; error?: undefined };

class WallClockTimeout extends Error {
  constructor() {
    super('wall-clock timeout');
  }
}
