/**
 * The bundler service's core (spec "Bundler request"; docs/bundler.md): answers a bundle request
 * from the cache or by building, and serves bundled code by its content hash.
 *
 * Cache: the request's parameters (URL, global name, minify, defaultAccessPath) and the esbuild
 * version hash to the key of a {@link Bundle} row, which records the content hash of every
 * source fetched and names the code it produced, a {@link BundleBlob} addressed by the code's
 * SHA-256. A repeated request is answered from the row (`cached: true`) without fetching
 * anything; for a URL that pins no exact version the row is trusted for
 * `ASSAY_BUNDLER_UNPINNED_TTL_SECONDS`, then the sources are fetched and bundled again (same
 * sources, same code, same `blobUrl`). Rows live in the database, so the cache survives restarts
 * and every bundler process on the database shares it. In one process, concurrent requests for
 * one key share one build, and recently served code stays in memory (64 MiB).
 */
import { createHash } from 'node:crypto';
import * as esbuild from 'esbuild';
import { LRUCache } from 'lru-cache';
import type { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import type { AssayConfig } from '../config';
import { Bundle, BundleBlob } from '../store/entities';
import { buildBundle } from './build';
import type { AddressPolicy } from '../net/address-policy';
import { bundlerOnlyPolicy } from './guard';
import { isPinned } from './names';
import { bundlerBuildDuration, bundlerBuilds, bundlerCacheHits } from '../observability/metrics';

/** A bundle request, checked (api/bundler.ts validates the body). */
export interface BundleRequest {
  /** http(s) URL of the ES module. */
  url: string;
  /** The global to define: given, or detected from the URL. */
  globalName: string;
  minify: boolean;
  includeCode: boolean;
  defaultAccessPath?: string;
}

/** The answer (spec "Bundler request" fields, then Assay's additions). */
export interface BundleAnswer {
  globalName: string;
  /** True when answered from the cache without fetching or building. */
  cached: boolean;
  /** Bytes of the code. */
  size: number;
  /** The URL asked for. */
  url: string;
  /** Where the code is served (`{ASSAY_BUNDLER_PUBLIC_URL}/blobs/{sha256}.js`); list it in a script's `libs`. */
  blobUrl: string;
  /** The code, when `includeCode` was true. */
  code?: string;
  /** The entry's URL after redirects. */
  finalUrl: string;
  /** Hex SHA-256 of the code (also the blob's ETag). */
  sha256: string;
  /** How many modules went into the bundle. */
  modules: number;
  /** Hex SHA-256 over the sources' URLs and content hashes. */
  sourcesHash: string;
  /** Whether the URL pins an exact version. */
  pinned: boolean;
  /** When the bundle was built (ISO 8601 UTC). */
  builtAt: string;
  warnings: string[];
}

/** Bumped when the shape of the produced code changes, so older cache rows are not reused. */
const FORMAT = 1;

/** The cache key of a request: hex SHA-256 of its parameters and of what builds them. */
export function cacheKey(req: Pick<BundleRequest, 'url' | 'globalName' | 'minify' | 'defaultAccessPath'>): string {
  const params = {
    format: FORMAT,
    esbuild: esbuild.version,
    url: req.url,
    globalName: req.globalName,
    minify: req.minify,
    defaultAccessPath: req.defaultAccessPath ?? null,
  };
  return createHash('sha256').update(JSON.stringify(params)).digest('hex');
}

export class Bundler {
  private readonly policy: AddressPolicy;
  /** Whether {@link policy} is the bundler's own (closed by {@link close}). */
  private readonly ownPolicy: boolean;
  private readonly inFlight = new Map<string, Promise<BundleAnswer>>();
  private readonly blobs = new LRUCache<string, BundleBlob>({
    maxSize: 64 * 1024 * 1024,
    sizeCalculation: (b) => Math.max(1, b.size),
  });

  constructor(
    /** `policy`: the process's address policy (src/net/address-policy.ts); default: one from `config` alone. */
    private readonly deps: {
      dataSource: DataSource;
      config: AssayConfig['bundler'];
      logger: Logger;
      policy?: AddressPolicy;
    },
  ) {
    this.ownPolicy = !deps.policy;
    this.policy = deps.policy ?? bundlerOnlyPolicy(deps.config);
  }

  /**
   * Answers a request from the cache, or fetches, bundles and stores it.
   * @throws BundleError for every refusal (4xx); other errors are failures of the service
   */
  bundle(req: BundleRequest): Promise<BundleAnswer> {
    const key = cacheKey(req);
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.answer(key, req).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return req.includeCode ? pending : pending.then(({ code: _code, ...rest }) => rest);
  }

  private async answer(key: string, req: BundleRequest): Promise<BundleAnswer> {
    const bundles = this.deps.dataSource.getRepository(Bundle);
    const known = await bundles.findOneBy({ key });
    const ttlMs = this.deps.config.unpinnedTtlSeconds * 1000;
    if (known && (known.pinned || Date.now() - known.builtAt.getTime() < ttlMs)) {
      const blob = await this.blob(known.blobId);
      if (blob) {
        bundlerCacheHits.inc();
        return this.describe(known, blob, true);
      }
    }
    const started = performance.now();
    let out: Awaited<ReturnType<typeof buildBundle>>;
    try {
      out = await buildBundle(req, this.policy, this.deps.config);
    } catch (err) {
      bundlerBuilds.inc({ outcome: 'failed' });
      throw err;
    }
    bundlerBuilds.inc({ outcome: 'built' });
    bundlerBuildDuration.observe((performance.now() - started) / 1000);
    const sha256 = createHash('sha256').update(out.code).digest('hex');
    const size = Buffer.byteLength(out.code);
    const blob = Object.assign(new BundleBlob(), { id: sha256, size, code: out.code, createdAt: new Date() });
    await this.deps.dataSource.createQueryBuilder().insert().into(BundleBlob).values(blob).orIgnore().execute();
    this.blobs.set(sha256, blob);
    // Pinned or not is a property of the URL asked for: an unpinned URL may redirect to another version tomorrow.
    const pinned = isPinned(new URL(req.url));
    const warnings = pinned
      ? out.warnings
      : [
          `${req.url} pins no exact version (like name@1.2.3); this bundle is reused for ${this.deps.config.unpinnedTtlSeconds} s, then built again from whatever the URL then serves.`,
          ...out.warnings,
        ];
    const row = Object.assign(new Bundle(), {
      key,
      url: req.url,
      finalUrl: out.finalUrl,
      globalName: req.globalName,
      minify: req.minify,
      defaultAccessPath: req.defaultAccessPath ?? null,
      pinned,
      blobId: sha256,
      size,
      sourcesHash: out.sourcesHash,
      modules: out.modules,
      warnings,
      builtAt: new Date(),
    });
    await bundles.upsert(row, ['key']);
    this.deps.logger.info(
      {
        url: req.url,
        globalName: req.globalName,
        modules: out.modules.length,
        size,
        ms: Math.round(performance.now() - started),
      },
      'bundle built',
    );
    return this.describe(row, blob, false);
  }

  private describe(row: Bundle, blob: BundleBlob, cached: boolean): BundleAnswer {
    return {
      globalName: row.globalName,
      cached,
      size: row.size,
      url: row.url,
      blobUrl: `${this.deps.config.publicUrl}/blobs/${row.blobId}.js`,
      code: blob.code,
      finalUrl: row.finalUrl,
      sha256: row.blobId,
      modules: row.modules.length,
      sourcesHash: row.sourcesHash,
      pinned: row.pinned,
      builtAt: row.builtAt.toISOString(),
      warnings: row.warnings,
    };
  }

  /** The stored code with this id (hex SHA-256), or undefined. */
  async blob(id: string): Promise<BundleBlob | undefined> {
    const hit = this.blobs.get(id);
    if (hit) return hit;
    const found = await this.deps.dataSource.getRepository(BundleBlob).findOneBy({ id });
    if (found) this.blobs.set(id, found);
    return found ?? undefined;
  }

  /** Closes the connection pools. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.inFlight.values()]);
    if (this.ownPolicy) await this.policy.close();
  }
}
