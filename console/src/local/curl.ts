/**
 * curl command lines in and out of local requests: the shared reader and writer of
 * src/importers/curl.ts (pure, also what `assay import curl` reads commands with), typed with the
 * local requests' own types. Pure: no storage, no network.
 */
import type { CurlImport as SharedCurlImport, ExportOptions } from '../../../src/importers/curl';
import {
  CurlError,
  DEFAULT_TYPES,
  parseCurl as parseShared,
  shellQuote,
  toCurl as toShared,
} from '../../../src/importers/curl';
import type { LocalRequest } from './request';

export { CurlError, DEFAULT_TYPES, shellQuote, type ExportOptions };

/** The fields of a request a curl command line carries. */
export type CurlRequest = Pick<LocalRequest, 'method' | 'url' | 'headers' | 'bodyKind' | 'text' | 'form' | 'multipart'>;

/** What {@link parseCurl} read, and what it could not take over (shown to the user). */
export interface CurlImport {
  request: CurlRequest;
  warnings: string[];
}

/**
 * Reads a curl command line into a local request's fields (src/importers/curl.ts `parseCurl`: its
 * flags, quoting and warnings). @throws CurlError when the text does not start with `curl` or
 * names no URL.
 */
export function parseCurl(command: string): CurlImport {
  const imported: SharedCurlImport = parseShared(command);
  return imported;
}

/**
 * A curl command line for `r` (enabled headers and rows only), one argument per line
 * (src/importers/curl.ts `toCurl`).
 */
export function toCurl(r: CurlRequest, options: ExportOptions): string {
  return toShared(r, options);
}
