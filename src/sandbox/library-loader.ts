/**
 * Loading the libraries a script lists in `libs` into its context (spec "Scripts and libraries"):
 * Assay's own predefined ones by name or `/libs/` URL (src/sandbox/libraries.ts, from the built
 * files), any other by URL: from the host when it has the code (`localLibrary`: the bundler's
 * stored blobs), else fetched over http or https through the address policy with kind `library`
 * (src/net/address-policy.ts), with a timeout and a size cap. Fetched code is kept in memory by URL
 * (the last {@link REMEMBERED_LIBRARIES}); a context runs each library once, however many of its
 * scripts list it. Anything that goes wrong is a {@link LibraryError}, the script's `library` error.
 */
import type ivm from 'isolated-vm';
import type { AddressPolicy } from '../net/address-policy';
import type { CodeCache } from './code-cache';
import { download } from './host-bridge';
import { librarySource, ownLibrary } from './libraries';

/** A library that could not be loaded into a script's context. */
export class LibraryError extends Error {}

/** Custom libraries kept in memory, by URL (the oldest is forgotten first). */
export const REMEMBERED_LIBRARIES = 100;

/** Where libraries are loaded: a context, its isolate, and the library keys already run in it. */
export interface LibraryTarget {
  isolate: ivm.Isolate;
  context: ivm.Context;
  /** Library keys run in the context: built-in file names, predefined file names, custom URLs. */
  loaded: Set<string>;
}

export interface LibraryLoaderOptions {
  /** Compiles each library once per isolate. */
  compiler: CodeCache;
  /** Judges libraries fetched by URL (kind `library`). */
  policy: AddressPolicy;
  /** Wall-time limit of running a library's top level, ms (the sandbox's script `timeoutMs`). */
  runTimeoutMs: number;
  libraryTimeoutMs: number;
  maxLibraryBytes: number;
  /** Library code the host has without the network, by URL; undefined means fetch it. */
  localLibrary?: (url: string) => Promise<string | undefined>;
}

export class LibraryLoader {
  private readonly customLibraries = new Map<string, string>();

  constructor(private readonly options: LibraryLoaderOptions) {}

  /** Runs in `target` each of `libs` it has not run yet, in order. @throws LibraryError */
  async load(target: LibraryTarget, libs: string[]): Promise<void> {
    for (const entry of libs) {
      const own = ownLibrary(entry);
      const key = own ? own.fileName : entry;
      if (target.loaded.has(key)) continue;
      const source = own ? librarySource(own.fileName) : await this.fetchLibrary(entry);
      let script: ivm.Script;
      try {
        script = await this.options.compiler.compile(target.isolate, key, source);
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
        await script.run(target.context, { timeout: this.options.runTimeoutMs });
      } catch (err) {
        throw new LibraryError(`Library ${entry} failed while loading: ${(err as Error).message}`);
      }
      target.loaded.add(key);
    }
  }

  /**
   * A custom library's code: from {@link LibraryLoaderOptions.localLibrary} when the host has it,
   * else fetched (http/https only, with a timeout and a size cap); cached in memory by URL.
   */
  private async fetchLibrary(url: string): Promise<string> {
    const cached = this.customLibraries.get(url);
    if (cached !== undefined) return cached;
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new LibraryError(
        `"${url}" is neither a library URL nor the name of a predefined library (see GET /v1/libraries)`,
      );
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      throw new LibraryError(`Library ${url}: only http and https URLs can be loaded`);
    const local = await this.options.localLibrary?.(url)?.catch((err: Error) => {
      throw new LibraryError(`Library ${url}: ${err.message}`);
    });
    if (local !== undefined) return this.remember(url, local);
    const { policy, libraryTimeoutMs, maxLibraryBytes } = this.options;
    const res = await download(policy, 'library', url, libraryTimeoutMs, maxLibraryBytes).catch((err: Error) => {
      throw new LibraryError(`Library ${url} could not be fetched: ${err.message}`);
    });
    if (res.status !== 200) throw new LibraryError(`Library ${url} answered HTTP ${res.status}`);
    if (res.truncated) throw new LibraryError(`Library ${url} is larger than ${maxLibraryBytes} bytes`);
    return this.remember(url, res.body.toString('utf8'));
  }

  /** Keeps the last {@link REMEMBERED_LIBRARIES} custom libraries in memory, by URL. */
  private remember(url: string, text: string): string {
    if (this.customLibraries.size >= REMEMBERED_LIBRARIES)
      this.customLibraries.delete(this.customLibraries.keys().next().value!);
    this.customLibraries.set(url, text);
    return text;
  }
}
