/**
 * Bundled code for the script sandbox straight from the store: a `libs` entry that is one of this
 * deployment's blob URLs (`{ASSAY_BUNDLER_PUBLIC_URL}/blobs/{sha256}.js`) is read from the
 * database the bundler wrote it to, so workers need no route to the bundler's public address
 * (in docker-compose, `localhost:8081` means another thing inside the worker's container) and
 * keep running scripts while the bundler is down.
 */
import type { DataSource } from 'typeorm';
import { BundleBlob } from '../store/entities';

/**
 * A reader for {@link SandboxOptions.localLibrary}: the code of a blob URL under `publicUrl`, or
 * undefined for any other URL and for blobs not in the store (the sandbox then fetches it).
 */
export function storedBlobReader(dataSource: DataSource, publicUrl: string): (url: string) => Promise<string | undefined> {
  const prefix = `${publicUrl.replace(/\/$/, '')}/blobs/`;
  return async (url) => {
    if (!url.startsWith(prefix)) return undefined;
    const match = /^([0-9a-f]{64})\.js$/.exec(url.slice(prefix.length));
    if (!match) return undefined;
    const blob = await dataSource.getRepository(BundleBlob).findOneBy({ id: match[1]! });
    return blob?.code;
  };
}
