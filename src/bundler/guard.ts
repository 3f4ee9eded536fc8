/**
 * Where the bundler may fetch from (SSRF guard, docs/bundler.md "Limits").
 *
 * Only addresses in the global unicast range are fetched: loopback, private (RFC 1918), unique
 * local (RFC 4193), link-local (169.254.0.0/16, where cloud metadata lives), carrier-grade NAT,
 * unspecified, multicast, reserved and the IPv6 ranges that embed an IPv4 address (6to4, NAT64)
 * are refused. The classification is ipaddr.js's `range()`; IPv4-mapped IPv6 addresses are
 * judged as the IPv4 address they carry.
 *
 * The check runs on every hop, twice: on the URL (a literal address is judged before any
 * connection) and at connect time, inside the DNS lookup of the connection itself, so a name
 * that resolves to a public address when asked and to a private one when connecting (DNS
 * rebinding) is refused too. A name that resolves to several addresses is refused when any of
 * them is not public.
 *
 * Exemptions come from configuration: `ASSAY_BUNDLER_ALLOW_PRIVATE=true` lifts the check, and
 * `ASSAY_BUNDLER_ALLOW_HOSTS` names hosts (`name` or `name:port`, as written in URLs) that are
 * fetched wherever they point, e.g. an internal package mirror.
 */
import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent } from 'undici';
import { BundleError } from './errors';

/** Whether `address` (IPv4 or IPv6 text) is a public unicast address. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
}

/** The refusal of one address, thrown from the lookup and found again on the request's error. */
export class BlockedAddressError extends Error {
  constructor(
    readonly hostname: string,
    readonly address: string,
  ) {
    super(`${hostname} resolves to ${address}, which is not a public address`);
    this.name = 'BlockedAddressError';
  }
}

/** The {@link BlockedAddressError} somewhere in an error's `cause` chain, if any. */
export function blockedAddressIn(err: unknown): BlockedAddressError | undefined {
  for (let e = err, depth = 0; e && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof BlockedAddressError) return e;
  }
  return undefined;
}

/** A DNS lookup for sockets that refuses names resolving to anything but public addresses. */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '', 0);
    const list = addresses as dns.LookupAddress[];
    const blocked = list.find((a) => !isPublicAddress(a.address));
    if (blocked) return callback(new BlockedAddressError(hostname, blocked.address) as NodeJS.ErrnoException, '', 0);
    if (options.all) return (callback as unknown as (e: null, all: dns.LookupAddress[]) => void)(null, list);
    const first = list[0];
    if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
    callback(null, first.address, first.family);
  });
};

/** The fetch policy: which hosts are exempt, and the connection pools for each case. */
export class HostPolicy {
  private readonly allowPrivate: boolean;
  private readonly allowHosts: Set<string>;
  /** Connections that pass the connect-time check. */
  readonly guarded: Agent;
  /** Connections to exempt hosts. */
  readonly open: Agent;

  constructor(options: { allowPrivate: boolean; allowHosts: string[]; connectTimeoutMs: number }) {
    this.allowPrivate = options.allowPrivate;
    this.allowHosts = new Set(options.allowHosts.map((h) => h.toLowerCase()));
    // Up to 16 connections per origin: esbuild asks for every import of a module at once.
    const common = { connections: 16, keepAliveTimeout: 10_000, connectTimeout: options.connectTimeoutMs };
    this.guarded = new Agent({ ...common, connect: { lookup: guardedLookup } });
    this.open = new Agent(common);
  }

  /** Whether `url` is exempt from the address check (by `ASSAY_BUNDLER_ALLOW_*`). */
  exempt(url: URL): boolean {
    if (this.allowPrivate) return true;
    const host = url.hostname.toLowerCase();
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    return this.allowHosts.has(host) || this.allowHosts.has(`${host}:${port}`);
  }

  /**
   * Judges a URL before connecting: the agent to use, after refusing a literal non-public address
   * (a literal address never reaches the lookup).
   * @throws BundleError `host-not-allowed`
   */
  dispatcherFor(url: URL, role: string): Agent {
    if (this.exempt(url)) return this.open;
    const literal = url.hostname.replace(/^\[|\]$/g, '');
    if (ipaddr.isValid(literal) && !isPublicAddress(literal)) {
      throw hostNotAllowed(url, literal, role);
    }
    return this.guarded;
  }

  async close(): Promise<void> {
    await Promise.all([this.guarded.close(), this.open.close()]);
  }
}

/** The 403 for a URL whose host is, or resolves to, a non-public address. */
export function hostNotAllowed(url: URL, address: string, role: string): BundleError {
  return new BundleError(
    'host-not-allowed',
    `${role} ${url.href} points at ${address}, a private, loopback or otherwise non-public address; the bundler fetches only from public hosts unless ASSAY_BUNDLER_ALLOW_HOSTS or ASSAY_BUNDLER_ALLOW_PRIVATE allows it.`,
    { url: url.href, address },
  );
}
