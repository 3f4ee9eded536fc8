/**
 * Fetching the modules of one bundle over HTTP(S), inside its limits.
 *
 * Redirects are followed by hand so that every hop is judged by the address policy and the
 * URL after the last hop becomes the module's identity (a relative import then resolves against
 * where the module really is, and two URLs that redirect to one file load it once). Each URL is
 * fetched once per bundle. Limits (all from `ASSAY_BUNDLER_*`, docs/bundler.md "Limits"): a
 * timeout per module covering its redirects, a size cap per module enforced while streaming
 * (a `Content-Length` over the cap is refused before reading), a cap on the sum of all modules,
 * a cap on the number of modules, and the bundle's overall deadline, which aborts every fetch
 * still running.
 */
import { createHash } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { BundleError } from './errors';
import { addressRefusalIn, type AddressPolicy } from '../net/address-policy';
import { guardedRequest, isTimeout, readCapped, type CappedBody } from '../net/http';
import { hostNotAllowed } from './guard';

/** The limits one bundle is built within. Sizes in bytes, times in milliseconds. */
export interface FetchLimits {
  fetchTimeoutMs: number;
  maxModuleBytes: number;
  maxTotalBytes: number;
  maxModules: number;
  maxRedirects: number;
}

/** One fetched module. */
export interface FetchedModule {
  /** The URL after redirects: the module's identity. */
  url: string;
  /** The media type the origin gave, without parameters (`''` when none). */
  contentType: string;
  body: Buffer;
  /** Lower-case hex SHA-256 of `body`. */
  sha256: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const NOT_SCRIPT =
  /^(text\/html|application\/xhtml\+xml|text\/css|image\/|audio\/|video\/|font\/|application\/pdf|application\/zip|application\/wasm)/;

/** The fetches of one bundle: memoised by URL, counted and capped together. */
export class ModuleFetcher {
  private readonly byRequested = new Map<string, Promise<FetchedModule>>();
  private readonly byFinal = new Map<string, FetchedModule>();
  private totalBytes = 0;

  constructor(
    private readonly policy: AddressPolicy,
    private readonly limits: FetchLimits,
    /** Aborted when the bundle's deadline passes. */
    private readonly deadline: AbortSignal,
  ) {}

  /** Every module fetched so far, by final URL. */
  modules(): FetchedModule[] {
    return [...this.byFinal.values()];
  }

  /** The module whose final URL is `url` (after {@link fetch} resolved it). */
  loaded(url: string): FetchedModule | undefined {
    return this.byFinal.get(url);
  }

  /**
   * Fetches `url` once per bundle (later calls share the first answer).
   * @param role who asks, for messages: `The library URL` or `An import in <importer>`
   * @throws BundleError for every limit, refusal and failure
   */
  fetch(url: string, role: string): Promise<FetchedModule> {
    let pending = this.byRequested.get(url);
    if (!pending) {
      if (this.byRequested.size >= this.limits.maxModules) {
        return Promise.reject(
          new BundleError(
            'too-many-modules',
            `The library needs more than ${this.limits.maxModules} modules (ASSAY_BUNDLER_MAX_MODULES); the last one asked for was ${url}.`,
            {
              maxModules: this.limits.maxModules,
              url,
            },
          ),
        );
      }
      pending = this.download(url, role);
      this.byRequested.set(url, pending);
    }
    return pending;
  }

  private async download(url: string, role: string): Promise<FetchedModule> {
    const timeout = AbortSignal.timeout(this.limits.fetchTimeoutMs);
    const signal = AbortSignal.any([timeout, this.deadline]);
    let current = new URL(url);
    for (let hop = 0; ; hop++) {
      const hopRole = hop === 0 ? role : `${role} (redirected)`;
      // The policy's agent judges the address of every connection (each hop, each import).
      let res: Dispatcher.ResponseData;
      try {
        res = await guardedRequest(this.policy.agent('bundler'), current, {
          headers: {
            accept: 'text/javascript, application/javascript, application/json;q=0.9, */*;q=0.5',
            'user-agent': 'Assay-Bundler/0.1',
          },
          timeoutMs: this.limits.fetchTimeoutMs,
          signal,
        });
      } catch (err) {
        throw this.failure(err, current, hopRole, timeout);
      }
      const location = res.headers.location;
      if (REDIRECTS.has(res.statusCode) && typeof location === 'string') {
        await res.body.dump().catch(() => undefined);
        if (hop >= this.limits.maxRedirects) {
          throw new BundleError(
            'module-fetch-failed',
            `${url} redirects more than ${this.limits.maxRedirects} times (ASSAY_BUNDLER_MAX_REDIRECTS).`,
            { url },
          );
        }
        const next = new URL(location, current);
        if (next.protocol !== 'http:' && next.protocol !== 'https:') {
          throw new BundleError(
            'module-fetch-failed',
            `${current.href} redirects to ${next.href}; only http and https URLs are fetched.`,
            { url: current.href },
          );
        }
        current = next;
        continue;
      }
      if (res.statusCode !== 200) {
        await res.body.dump().catch(() => undefined);
        throw new BundleError(
          'module-fetch-failed',
          `${current.href} answered HTTP ${res.statusCode}${current.href === url ? '' : ` (redirected from ${url})`}.`,
          {
            url: current.href,
            httpStatus: res.statusCode,
          },
        );
      }
      const contentType = String(res.headers['content-type'] ?? '')
        .split(';')[0]!
        .trim()
        .toLowerCase();
      if (NOT_SCRIPT.test(contentType)) {
        await res.body.dump().catch(() => undefined);
        throw new BundleError(
          'module-not-javascript',
          `${current.href} answered ${contentType}, not a JavaScript module. Give the URL of the module file itself (for example from esm.sh, jsDelivr or unpkg), not of a web page.`,
          {
            url: current.href,
            contentType,
          },
        );
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > this.limits.maxModuleBytes) {
        res.body.destroy();
        throw this.tooLarge(current);
      }
      let read: CappedBody;
      try {
        // Every module's bytes count towards the bundle's total as they arrive.
        read = await readCapped(res.body, this.limits.maxModuleBytes, (bytes) => {
          this.totalBytes += bytes;
          if (this.totalBytes > this.limits.maxTotalBytes) {
            throw new BundleError(
              'bundle-too-large',
              `The library's modules add up to more than ${this.limits.maxTotalBytes} bytes (ASSAY_BUNDLER_MAX_TOTAL_BYTES).`,
              {
                maxTotalBytes: this.limits.maxTotalBytes,
              },
            );
          }
        });
      } catch (err) {
        if (err instanceof BundleError) throw err;
        throw this.failure(err, current, hopRole, timeout);
      }
      if (read.truncated) throw this.tooLarge(current);
      const body = read.bytes;
      const module: FetchedModule = {
        url: current.href,
        contentType,
        body,
        sha256: createHash('sha256').update(body).digest('hex'),
      };
      // Two URLs redirecting to one file share the first copy.
      const known = this.byFinal.get(module.url);
      if (known) return known;
      this.byFinal.set(module.url, module);
      return module;
    }
  }

  private tooLarge(url: URL): BundleError {
    return new BundleError(
      'module-too-large',
      `${url.href} is larger than ${this.limits.maxModuleBytes} bytes (ASSAY_BUNDLER_MAX_MODULE_BYTES).`,
      {
        url: url.href,
        maxModuleBytes: this.limits.maxModuleBytes,
      },
    );
  }

  /** Names what went wrong with one fetch: refused address, timeout, deadline, or network failure. */
  private failure(err: unknown, url: URL, role: string, timeout: AbortSignal): BundleError {
    const refused = addressRefusalIn(err);
    if (refused) return hostNotAllowed(url, refused, role);
    if (this.deadline.aborted)
      return this.deadline.reason instanceof BundleError
        ? this.deadline.reason
        : new BundleError('bundle-timeout', 'The bundle took too long.');
    const code = (err as { code?: string }).code;
    if (timeout.aborted || isTimeout(err)) {
      return new BundleError(
        'module-fetch-timeout',
        `${url.href} did not answer within ${this.limits.fetchTimeoutMs} ms (ASSAY_BUNDLER_FETCH_TIMEOUT_MS).`,
        {
          url: url.href,
          fetchTimeoutMs: this.limits.fetchTimeoutMs,
        },
      );
    }
    const reason =
      (err as { cause?: { code?: string; message?: string } }).cause?.code ?? code ?? (err as Error).message;
    return new BundleError('module-fetch-failed', `${url.href} could not be fetched (${reason}).`, {
      url: url.href,
      reason,
    });
  }
}
