/**
 * Compiling library code into isolates of the script sandbox: the runtime, the built-in libraries
 * and the libraries scripts list are compiled once per isolate (and kept with it), and V8's code
 * cache (`cachedData`, produced by this process only, by the first compile of each file) makes the
 * compiles in later isolates cheap. Used by the context pool (src/sandbox/context-pool.ts, runtime
 * and built-ins) and the library loader (src/sandbox/library-loader.ts, `libs`). `createSnapshot`
 * is not used: isolated-vm's maintainer advises against it and it aborts on Intl.
 */
import type ivm from 'isolated-vm';

export class CodeCache {
  private readonly codeCache = new Map<string, ivm.ExternalCopy<ArrayBuffer>>();
  private readonly compiled = new WeakMap<ivm.Isolate, Map<string, ivm.Script>>();

  /** Compiles `source` in `isolate` once (`key` names it: a file name or a URL), with this process's V8 code cache. */
  async compile(isolate: ivm.Isolate, key: string, source: string): Promise<ivm.Script> {
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
}
