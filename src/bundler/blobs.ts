/**
 * Bundled code for the script sandbox straight from the store: a `libs` entry that is one of this
 * deployment's blob URLs (`{ASSAY_BUNDLER_PUBLIC_URL}/blobs/{sha256}.js`) is read from the
 * database the bundler wrote it to, so workers need no route to the bundler's public address
 * (in docker-compose, `localhost:8081` means another thing inside the worker's container) and
 * keep running scripts while the bundler is down.
 *
 * A blob URL is recognised by address, not by spelling: `http://127.0.0.1:8081/blobs/…` is the
 * bundler's own when its public URL says `http://localhost:8081` (src/net/address-policy.ts
 * `denotesEndpoint`). The bundler's port is the service's infrastructure, which the address policy
 * never lets a script fetch; its blobs are read here instead.
 */
import type { DataSource } from 'typeorm';
import { BundleBlob } from '../store/entities';
import { denotesEndpoint, type InfrastructureEndpoint } from '../net/address-policy';

/** Where the bundler is: its public URL (`ASSAY_BUNDLER_PUBLIC_URL`) and, when known, its bind address. */
export interface BundlerAddress {
  publicUrl: string;
  /** `ASSAY_BUNDLER_HOST` (default `127.0.0.1`). */
  host?: string;
  /** `ASSAY_BUNDLER_PORT`; 0 (a free port chosen at start) adds nothing. */
  port?: number;
}

const BLOB_PATH = /\/blobs\/([0-9a-f]{64})\.js$/;

/** Thrown when a URL is one of this bundler's blobs but the store has no such blob. */
export class MissingBlobError extends Error {
  constructor(url: string) {
    super(
      `${url} is a blob of this Assay's bundler, but no bundle with that digest is stored (bundle it again with POST /api/bundle)`,
    );
    this.name = 'MissingBlobError';
  }
}

function portOf(u: URL): number {
  return Number(u.port) || (u.protocol === 'https:' ? 443 : 80);
}

/**
 * A reader for {@link SandboxOptions.localLibrary}: the code of a blob of this bundler (a URL whose
 * host and port denote the bundler's public URL or its bind address, path
 * `[{public path}]/blobs/{sha256}.js`), or undefined for any other URL.
 * @throws MissingBlobError for a blob URL of this bundler that the store does not hold
 */
export function storedBlobReader(
  dataSource: DataSource,
  bundler: BundlerAddress,
): (url: string) => Promise<string | undefined> {
  const publicUrl = new URL(bundler.publicUrl);
  const publicPath = publicUrl.pathname.replace(/\/$/, '');
  const endpoints: InfrastructureEndpoint[] = [
    {
      label: 'the bundler (ASSAY_BUNDLER_PUBLIC_URL)',
      host: publicUrl.hostname.replace(/^\[|\]$/g, '').toLowerCase(),
      port: portOf(publicUrl),
    },
  ];
  if (bundler.host && bundler.port)
    endpoints.push({ label: 'the bundler (ASSAY_BUNDLER_PORT)', host: bundler.host, port: bundler.port });
  return async (url) => {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return undefined;
    }
    const match = BLOB_PATH.exec(u.pathname);
    if (!match || u.search || !['', publicPath].includes(u.pathname.slice(0, match.index))) return undefined;
    if (!(await denotesEndpoint(u.hostname, portOf(u), endpoints))) return undefined;
    const blob = await dataSource.getRepository(BundleBlob).findOneBy({ id: match[1]! });
    if (!blob) throw new MissingBlobError(url);
    return blob.code;
  };
}
