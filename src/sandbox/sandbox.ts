/**
 * The script sandbox: user scripts run in isolated-vm isolates (separate V8 heaps with a memory
 * limit), never in the worker's own context. {@link Sandbox.execute} runs one script; the rest has a
 * file of its own:
 *
 * - the isolates and contexts scripts run in, one context per run and test case, spares kept warm:
 *   src/sandbox/context-pool.ts;
 * - libraries a script lists in `libs`, predefined or loaded by URL: src/sandbox/library-loader.ts
 *   (which libraries exist: src/sandbox/libraries.ts);
 * - compiling the runtime and libraries once per isolate, with V8's code cache:
 *   src/sandbox/code-cache.ts;
 * - the host side of scripts' `fetch`, timers and random bytes: src/sandbox/host-bridge.ts.
 *
 * Each script is compiled inside a function of its own, so `var`s and hook functions of one script
 * never leak into the next; `$request`, `$response`, `$context`, `$log`, `console` and `$test` are
 * that function's parameters.
 *
 * Limits: `memoryLimitMb` per isolate; `timeoutMs` of wall time per execution. isolated-vm's own
 * timeout covers only synchronous code, so an execution still waiting after `timeoutMs` (on a
 * fetch, a timer, a promise that never settles) disposes its isolate. A script that throws, times
 * out or runs out of memory yields `ok: false` with the message and the line; nothing throws to the
 * caller, and the next execution gets a healthy isolate. What a script throws is described inside
 * the isolate (runtime/bootstrap.js), where the value is whole: the full message (bounded by
 * {@link boundMessage}) and the line and column of the user's own frame (see {@link locate}).
 *
 * Scripts' `fetch` and libraries loaded by URL connect through the address policy
 * (`SandboxOptions.policy`, src/net/address-policy.ts): kind `script` for `fetch`, `library` for
 * libraries; a refused address is the fetch's error (`fetch` rejects) or the library's error.
 */
import type ivm from 'isolated-vm';
import type { ScriptConfig, ScriptLogLine } from '../domain/types';
import type { ScriptCheck, ScriptError, ScriptRequest, ScriptResult } from '../domain/node-io';
import { publicOnlyPolicy, type AddressPolicy } from '../net/address-policy';
import { CodeCache } from './code-cache';
import { ContextPool, type ScriptContext } from './context-pool';
import { HostBridge } from './host-bridge';
import { LibraryError, LibraryLoader } from './library-loader';
import { realmOf } from './libraries';

/** What a script gives back, declared with the node I/O types (src/domain/node-io.ts). */
export type { ScriptCheck, ScriptError, ScriptRequest, ScriptResult };

export type HookName = 'beforeRequest' | 'afterResponse' | 'generateValue';

export interface ScriptResponse {
  status?: number;
  headers: Record<string, string>;
  body?: unknown;
  /** Milliseconds. */
  time: number;
  /** After redirects: the last response's URL (HttpExchange `url`). */
  url?: string;
  /** After redirects: the Set-Cookie values of the redirects followed (HttpExchange `redirectCookies`). */
  redirectCookies?: Array<{ url: string; setCookie: string[] }>;
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
  /** Every enclosing loop, outermost first (`$context.loops`). */
  loops?: unknown[];
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
  private readonly pool: ContextPool;
  private readonly libraries: LibraryLoader;
  private readonly policy: AddressPolicy;
  /** Whether {@link policy} is the sandbox's own (closed by {@link dispose}). */
  private readonly ownPolicy: boolean;
  private nextScript = 1;

  constructor(options: Partial<SandboxOptions> = {}) {
    this.options = { ...DEFAULT_SANDBOX_OPTIONS, ...options };
    this.ownPolicy = !options.policy;
    this.policy = options.policy ?? publicOnlyPolicy();
    const o = this.options;
    const compiler = new CodeCache();
    const host = new HostBridge({
      policy: this.policy,
      fetchTimeoutMs: o.fetchTimeoutMs,
      maxFetchBytes: o.maxFetchBytes,
    });
    this.pool = new ContextPool({
      memoryLimitMb: o.memoryLimitMb,
      maxContexts: o.maxContexts,
      contextIdleMs: o.contextIdleMs,
      spareIsolates: o.spareIsolates,
      compiler,
      host,
    });
    this.libraries = new LibraryLoader({
      compiler,
      policy: this.policy,
      runTimeoutMs: o.timeoutMs,
      libraryTimeoutMs: o.libraryTimeoutMs,
      maxLibraryBytes: o.maxLibraryBytes,
      localLibrary: o.localLibrary,
    });
  }

  /** Runs one script. Never throws for anything the script does. */
  async execute(input: ScriptInput): Promise<ScriptResult> {
    const started = performance.now();
    const done = (r: Omit<ScriptResult, 'durationMs'>): ScriptResult => ({
      ...r,
      durationMs: Math.round((performance.now() - started) * 100) / 100,
    });
    // Every message is bounded by boundMessage where it is made.
    const fail = (error: ScriptError, logs: ScriptLogLine[] = []) =>
      done({ ok: false, variables: input.variables, logs, error });
    const timeoutMs = Math.max(1, Math.min(input.timeoutMs ?? this.options.timeoutMs, this.options.timeoutMs));

    let ctx: ScriptContext;
    try {
      const realm = realmOf(input.script.libs);
      ctx = await this.pool.contextFor(input.runId, input.testCase?.id, realm);
      // Released between its creation and now (its run ended, or evicted): take a new one, once.
      if (ctx.released) ctx = await this.pool.contextFor(input.runId, input.testCase?.id, realm);
      if (ctx.released) throw new Error('its context was released while the script was starting');
    } catch (err) {
      return fail({ kind: 'error', message: `The sandbox could not start: ${(err as Error).message}` });
    }
    ctx.busy += 1;
    ctx.lastUsed = Date.now();
    try {
      try {
        await this.libraries.load(ctx, input.script.libs ?? []);
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
        return fail({
          kind: 'syntax',
          message: boundMessage(e.message),
          ...locate(`${e.stack ?? ''}\n${e.message}`, input.label),
        });
      }
      const payload = JSON.stringify({
        request: input.request,
        response: input.response,
        variables: input.variables,
        nodes: input.nodes,
        loop: input.loop,
        loops: input.loops,
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
            return ctx.run.apply(undefined, [id, input.hook ?? null, payload], {
              timeout: timeoutMs,
              result: { promise: true, copy: true },
            });
          })(),
          wallClock,
        ]);
        const out = JSON.parse(json) as
          | {
              ok: true;
              request?: ScriptRequest;
              variables: Record<string, unknown>;
              value?: unknown;
              logs: ScriptLogLine[];
              tests?: ScriptCheck[];
            }
          | {
              ok: false;
              error: ThrownDescription;
              variables?: Record<string, unknown>;
              logs: ScriptLogLine[];
              tests?: ScriptCheck[];
            };
        if (!out.ok) {
          // What the script threw, described inside the isolate; the lines it logged before are kept.
          const where = locate(out.error.stack ?? '', input.label);
          // The variables it set before it threw stay, as its checks do.
          const failed = {
            ...fail({ kind: 'error', message: boundMessage(out.error.text, out.error.length), ...where }, out.logs),
            variables: out.variables ?? input.variables,
          };
          return out.tests?.length ? { ...failed, tests: out.tests } : failed;
        }
        return done({
          ok: true,
          request: out.request,
          variables: out.variables,
          value: out.value,
          logs: out.logs,
          ...(out.tests?.length ? { tests: out.tests } : {}),
        });
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
  releaseRun(runId: string): Promise<void> {
    return this.pool.releaseRun(runId);
  }

  /** Number of runs with at least one live context (for tests and metrics). */
  get activeRuns(): number {
    return this.pool.activeRuns;
  }

  /** Number of live contexts: one per test case under way (for tests and metrics). */
  get activeContexts(): number {
    return this.pool.activeContexts;
  }

  async dispose(): Promise<void> {
    await this.pool.dispose();
    if (this.ownPolicy) await this.policy.close();
  }

  /** An error that reached the host: a timeout, the memory limit, or isolated-vm's own failure. */
  private classify(err: unknown, ctx: ScriptContext, label: string, timeoutMs: number): ScriptError {
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof WallClockTimeout || /Script execution timed out/i.test(message)) {
      this.pool.discard(ctx);
      return { kind: 'timeout', message: `The script did not finish within ${timeoutMs} ms` };
    }
    if (ctx.isolate.isDisposed || /disposed|memory limit/i.test(message)) {
      this.pool.discard(ctx);
      return { kind: 'memory', message: `The script exceeded its memory limit of ${this.options.memoryLimitMb} MB` };
    }
    const e = err instanceof Error ? err : new Error(message);
    return {
      kind: 'error',
      message: boundMessage(message === '' ? e.name : `${e.name}: ${message}`),
      ...locate(`${e.stack ?? ''}\n${message}`, label),
    };
  }
}

class WallClockTimeout extends Error {
  constructor() {
    super('wall-clock timeout');
  }
}
