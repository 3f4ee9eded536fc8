/**
 * Where the bundler may fetch from (SSRF guard, docs/bundler.md "Where it fetches from").
 *
 * The check itself is the service-wide address policy (src/net/address-policy.ts, kind
 * `bundler`; docs/security.md "Address policy (outgoing requests)"): judged at connect time after
 * DNS, for every hop. Only public unicast addresses are fetched unless `ASSAY_BUNDLER_ALLOW_PRIVATE`
 * or an allow rule (`ASSAY_BUNDLER_ALLOW_HOSTS`, `ASSAY_EGRESS_ALLOW`) lets an address through;
 * the service's own infrastructure and cloud metadata stay refused whatever is configured. This
 * file only turns a refusal into the bundler's 403 problem.
 */
import {
  bundlerAllowRules,
  publicOnlyPolicy,
  type AddressNotAllowedError,
  type AddressPolicy,
} from '../net/address-policy';
import type { AssayConfig } from '../config';
import { BundleError } from './errors';

/**
 * The policy of a bundler given none by its process: its own settings only (no infrastructure
 * known; bin/processes.ts `startBundler` passes the process's policy instead).
 */
export function bundlerOnlyPolicy(config: AssayConfig['bundler']): AddressPolicy {
  return publicOnlyPolicy({
    allowFor: bundlerAllowRules(config.allowHosts),
    privateAccess: { bundler: config.allowPrivate ? 'all' : 'none' },
    connectTimeoutMs: config.fetchTimeoutMs,
  });
}

/** The 403 `host-not-allowed` for a URL the address policy refused (`url`, `address`, `rule`). */
export function hostNotAllowed(url: URL, refusal: AddressNotAllowedError, role: string): BundleError {
  return new BundleError(
    'host-not-allowed',
    `${role} ${url.href} points at ${refusal.address}, which the bundler may not fetch from: ${refusal.rule}. Public hosts are fetched; ASSAY_BUNDLER_ALLOW_HOSTS or ASSAY_BUNDLER_ALLOW_PRIVATE can allow a private mirror.`,
    { url: url.href, address: refusal.address, rule: refusal.rule },
  );
}
