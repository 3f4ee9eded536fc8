/**
 * The script sandbox a configuration describes (`ASSAY_SCRIPT_*`, README "Configuration"): what
 * the worker's activities and the load threads run scripts in.
 */
import type { AssayConfig } from '../config';
import type { AddressPolicy } from '../net/address-policy';
import { Sandbox } from './sandbox';

/**
 * A sandbox with the configured limits; `policy` judges scripts' `fetch` and libraries loaded by URL,
 * `localLibrary` answers libraries the host has (the bundler's stored blobs: src/bundler/blobs.ts
 * `storedBlobReader`).
 */
export function sandboxFromConfig(
  config: AssayConfig,
  policy: AddressPolicy,
  localLibrary: (url: string) => Promise<string | undefined>,
): Sandbox {
  return new Sandbox({
    memoryLimitMb: config.scripts.memoryLimitMb,
    timeoutMs: config.scripts.timeoutMs,
    fetchTimeoutMs: config.scripts.fetchTimeoutMs,
    maxFetchBytes: config.scripts.maxFetchBytes,
    maxContexts: config.scripts.maxContexts,
    localLibrary,
    policy,
  });
}
