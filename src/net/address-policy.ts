/**
 * The address policy: where user-controlled outgoing requests may connect (docs/security.md
 * "Address policy (outgoing requests)").
 *
 * One module and one configuration for every outgoing request a tenant controls: API nodes
 * (activities/api-request.ts), scripts' `fetch` and libraries loaded by URL (src/sandbox/host-bridge.ts,
 * src/sandbox/library-loader.ts), the bundler's fetches (src/bundler/fetcher.ts), outgoing webhooks (activities/webhooks.ts) and the
 * console's relay (api/routes/relay.ts, with the kind `node` of API nodes). Each
 * caller takes the undici dispatcher of its {@link EgressKind} from {@link AddressPolicy.agent};
 * the check runs in that dispatcher's connector, for every new connection, after DNS: so every
 * redirect hop (a new origin is a new connection) and every spelling of an address (`localhost`,
 * `127.1`, `2130706433`, `0x7f000001`, `[::ffff:127.0.0.1]`: the URL parser and the resolver
 * turn them all into one address) is judged on the address really connected to. A name that
 * resolves to several addresses is refused when any of them is refused (DNS rebinding gains
 * nothing), and the connection goes to the address that was judged.
 *
 * Order of the rules for one connection (hostname as written, resolved address, port):
 * 1. cloud metadata addresses ({@link METADATA_ADDRESSES}): refused, whatever else is configured;
 * 2. the service's own infrastructure (Temporal frontend, Temporal Web UI, database, the API's and
 *    bundler's ports; {@link infrastructureOf}): refused, whatever else is configured. An
 *    infrastructure endpoint on a local address (loopback, unspecified, or one of this machine's
 *    interface addresses) is matched on every local address with its port;
 * 3. a deny rule (`ASSAY_EGRESS_DENY`) that matches: refused;
 * 4. an allow rule (`ASSAY_EGRESS_ALLOW`, and for the bundler `ASSAY_BUNDLER_ALLOW_HOSTS`): allowed;
 * 5. a public unicast address (ipaddr.js `range()` is `unicast`, IPv4-mapped IPv6 judged as its
 *    IPv4): allowed;
 * 6. loopback (and the unspecified address, which reaches this machine): allowed when the kind's
 *    private access is `loopback` or `all`; private (RFC 1918), unique local (RFC 4193),
 *    link-local and carrier-grade NAT: allowed when it is `all`;
 * 7. anything else (multicast, broadcast, reserved, 6to4/Teredo/NAT64 embeddings): refused.
 *
 * Rules are `host`, `host:port`, `*.suffix`, `cidr`, `cidr:port` (IPv6 in brackets when a port
 * follows: `[fd00::/8]:443`); an IP address is a one-address CIDR. A host rule matches the name as
 * written in the URL (wherever it points); a CIDR rule matches the resolved address.
 */
import dns from 'node:dns';
import net from 'node:net';
import os from 'node:os';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector, Client } from 'undici';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** Who makes an outgoing request; each has its own private-address switch. */
export type EgressKind = 'node' | 'script' | 'library' | 'webhook' | 'bundler';

/**
 * Which non-public addresses a kind may reach: `none`; `loopback` (127.0.0.0/8, ::1, the
 * unspecified address); `all` (loopback plus private, unique local, link-local, carrier-grade NAT).
 */
export type PrivateAccess = 'none' | 'loopback' | 'all';

/** One allow or deny rule, parsed. `port` undefined: every port. */
export interface EgressRule {
  /** The rule as configured, for messages. */
  text: string;
  /** Lower-case host name; `*.example.com` matches every name under example.com. */
  host?: string;
  cidr?: [Address, number];
  port?: number;
}

/** An endpoint of the service itself that user requests may never reach. */
export interface InfrastructureEndpoint {
  /** What it is, for messages: `Temporal frontend (TEMPORAL_ADDRESS)`. */
  label: string;
  /** Host name or IP address (no brackets). */
  host: string;
  port: number;
}

/** The policy's configuration (src/config.ts `egress`, plus the infrastructure it derives). */
export interface AddressPolicyOptions {
  allow: EgressRule[];
  deny: EgressRule[];
  /** Extra allow rules per kind (the bundler's `ASSAY_BUNDLER_ALLOW_HOSTS`). */
  allowFor?: Partial<Record<EgressKind, EgressRule[]>>;
  privateAccess: Record<EgressKind, PrivateAccess>;
  infrastructure: InfrastructureEndpoint[];
  /** Connect timeout of the agents, ms (default 10000). */
  connectTimeoutMs?: number;
  /**
   * Connections per origin of each agent but the bundler's (default 64; null: no limit). The load
   * generator's policies have no limit: each virtual user then has a connection of its own, as in
   * k6, instead of waiting in the agent's queue with the wait counted into its response times.
   */
  connections?: number | null;
}

/**
 * Cloud metadata services (AWS, GCP, Azure: 169.254.169.254; AWS ECS task metadata:
 * 169.254.170.2; AWS IPv6: fd00:ec2::254; Alibaba: 100.100.100.200). Never reachable.
 */
export const METADATA_ADDRESSES = ['169.254.169.254', '169.254.170.2', 'fd00:ec2::254', '100.100.100.200'];

/** The error code a refused connection carries, and API nodes report as `errorCode`. */
export const ADDRESS_NOT_ALLOWED = 'ADDRESS_NOT_ALLOWED';

/** A refused connection: thrown from the connector, found again with {@link addressRefusalIn}. */
export class AddressNotAllowedError extends Error {
  readonly code = ADDRESS_NOT_ALLOWED;
  constructor(
    /** The host as written in the URL. */
    readonly hostname: string,
    /** The address it resolved to (the hostname itself when it is an address). */
    readonly address: string,
    readonly port: number,
    /** The rule that refused it, in words. */
    readonly rule: string,
  ) {
    const target = hostname === address ? `${address}:${port}` : `${hostname}:${port} (${address})`;
    super(`The address policy refuses ${target}: ${rule}`);
    this.name = 'AddressNotAllowedError';
  }
}

/** The {@link AddressNotAllowedError} somewhere in an error's `cause` chain, if any. */
export function addressRefusalIn(err: unknown): AddressNotAllowedError | undefined {
  for (let e = err, depth = 0; e && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof AddressNotAllowedError) return e;
  }
  return undefined;
}

/**
 * Parses one rule (`host`, `host:port`, `*.suffix`, `cidr`, `cidr:port`, `[ipv6 or cidr]:port`).
 * `asWritten`: an IP address is a host as written in URLs (matched against the URL's host, not
 * against what a name resolves to), as `ASSAY_BUNDLER_ALLOW_HOSTS` has always meant.
 * @throws Error naming what is wrong
 */
export function parseRule(raw: string, options: { asWritten?: boolean } = {}): EgressRule {
  const text = raw.trim().toLowerCase();
  let hostPart = text;
  let portPart: string | undefined;
  if (text.startsWith('[')) {
    const end = text.indexOf(']');
    if (end < 0) throw new Error(`"${raw}": missing "]"`);
    hostPart = text.slice(1, end);
    const rest = text.slice(end + 1);
    if (rest !== '') {
      if (!rest.startsWith(':')) throw new Error(`"${raw}": expected ":port" after "]"`);
      portPart = rest.slice(1);
    }
  } else if ((text.match(/:/g) ?? []).length === 1) {
    [hostPart, portPart] = text.split(':') as [string, string];
  }
  let port: number | undefined;
  if (portPart !== undefined) {
    port = Number(portPart);
    if (!/^\d{1,5}$/.test(portPart) || port < 1 || port > 65535)
      throw new Error(`"${raw}": the port must be 1 to 65535`);
  }
  if (hostPart.includes('/')) {
    try {
      return { text, cidr: ipaddr.parseCIDR(hostPart), port };
    } catch {
      throw new Error(`"${raw}": "${hostPart}" is not a CIDR range`);
    }
  }
  if (ipaddr.isValid(hostPart)) {
    const address = normalise(hostPart);
    if (options.asWritten) return { text, host: ipaddr.parse(hostPart).toString(), port };
    return { text, cidr: [address, address.kind() === 'ipv4' ? 32 : 128], port };
  }
  if (!/^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(hostPart)) {
    throw new Error(`"${raw}" is not a host, host:port, CIDR or CIDR:port`);
  }
  return { text, host: hostPart, port };
}

/** Parses a comma-separated list of rules. @throws Error naming the bad rule */
export function parseRules(list: string | undefined): EgressRule[] {
  if (!list) return [];
  return list
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean)
    .map((r) => parseRule(r));
}

/** An address in canonical form: IPv4-mapped IPv6 becomes its IPv4. */
function normalise(address: string): Address {
  return ipaddr.process(address);
}

function ruleMatches(rule: EgressRule, hostname: string, address: Address, port: number): boolean {
  if (rule.port !== undefined && rule.port !== port) return false;
  if (rule.host) {
    if (rule.host.startsWith('*.')) return hostname.endsWith(rule.host.slice(1));
    return hostname === rule.host;
  }
  if (rule.cidr) return address.kind() === rule.cidr[0].kind() && address.match(rule.cidr);
  return false;
}

/** Loopback, the unspecified address, or an address of one of this machine's interfaces. */
function isLocal(address: Address): boolean {
  const range = address.range();
  if (range === 'loopback' || range === 'unspecified') return true;
  const text = address.toString();
  for (const list of Object.values(os.networkInterfaces())) {
    for (const iface of list ?? []) {
      if (ipaddr.isValid(iface.address) && normalise(iface.address).toString() === text) return true;
    }
  }
  return false;
}

/** Connect errors after which the next address of a name is tried. */
const FAST_FAILURES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'EAFNOSUPPORT']);

const METADATA = METADATA_ADDRESSES.map((a) => normalise(a).toString());
const PRIVATE_RANGES = new Set(['private', 'uniqueLocal', 'linkLocal', 'carrierGradeNat']);

/**
 * The endpoints of the service's own infrastructure named by a configuration: the Temporal
 * frontend, the Temporal Web UI, the database (MySQL only; SQLite is a file) and the API's and
 * bundler's ports on their bind hosts. `api`/`bundler` ports of 0 (a free port, tests) are left
 * out: the servers add their real port with {@link AddressPolicy.addInfrastructure}.
 */
export function infrastructureOf(config: {
  temporal: { address: string; uiUrl: string };
  database: { type: 'mysql'; url: string } | { type: 'sqlite'; file: string };
  api: { host: string; port: number };
  bundler: { host: string; port: number };
}): InfrastructureEndpoint[] {
  const out: InfrastructureEndpoint[] = [];
  const temporal = hostPort(`grpc://${config.temporal.address}`, 7233);
  if (temporal) out.push({ label: 'the Temporal frontend (TEMPORAL_ADDRESS)', ...temporal });
  const ui = hostPort(config.temporal.uiUrl, 80);
  if (ui) out.push({ label: 'the Temporal Web UI (TEMPORAL_UI_URL)', ...ui });
  if (config.database.type === 'mysql') {
    const db = hostPort(config.database.url, 3306);
    if (db) out.push({ label: 'the database (DATABASE_URL)', ...db });
  }
  if (config.api.port > 0)
    out.push({ label: "the API's own port (ASSAY_PORT)", host: config.api.host, port: config.api.port });
  if (config.bundler.port > 0)
    out.push({
      label: "the bundler's own port (ASSAY_BUNDLER_PORT)",
      host: config.bundler.host,
      port: config.bundler.port,
    });
  return out;
}

function hostPort(url: string, defaultPort: number): { host: string; port: number } | undefined {
  try {
    const u = new URL(url);
    const port = Number(u.port) || (u.protocol === 'https:' ? 443 : u.protocol === 'http:' ? 80 : defaultPort);
    return { host: u.hostname.replace(/^\[|\]$/g, '').toLowerCase(), port };
  } catch {
    return undefined;
  }
}

/** What an infrastructure host stands for: its addresses, and whether it is this machine. */
interface ResolvedEndpoint {
  endpoint: InfrastructureEndpoint;
  addresses: Set<string>;
  local: boolean;
}

/**
 * Endpoints this process serves (the API and the bundler register theirs once listening, so a
 * free port chosen at start-up is known): part of the infrastructure of every policy here.
 */
const ownEndpoints = new Set<InfrastructureEndpoint>();

/**
 * Registers an endpoint this process listens on; every {@link AddressPolicy} of the process refuses
 * it from then on. @returns a function that removes it again (when the server closes)
 */
export function registerOwnEndpoint(endpoint: InfrastructureEndpoint): () => void {
  ownEndpoints.add(endpoint);
  endpointsVersion += 1;
  return () => {
    ownEndpoints.delete(endpoint);
    endpointsVersion += 1;
  };
}
let endpointsVersion = 0;

/** How long resolved infrastructure names are trusted, ms. */
const INFRASTRUCTURE_TTL_MS = 30_000;

/** The TLS-unchecked twin of each policy agent ({@link AddressPolicy.agent}), made when first asked for. */
const twins = new WeakMap<Agent, () => Agent>();
/** Twins of agents made outside a policy (tests, benches): plain agents that accept any certificate. */
const plainTwins = new WeakMap<Agent, Agent>();

/**
 * The agent to send through instead of `agent` when the server's certificate must not be checked
 * (an API node's `strictSSL: false`): the policy's own twin for a policy agent (same rules, see
 * {@link AddressPolicy.agent}); for an agent made outside a policy, a plain agent that accepts any
 * certificate, one per agent.
 */
export function tlsUncheckedTwin(agent: Agent): Agent {
  const ofPolicy = twins.get(agent);
  if (ofPolicy) return ofPolicy();
  let twin = plainTwins.get(agent);
  if (!twin) {
    twin = new Agent({ keepAliveTimeout: 10_000, connect: { rejectUnauthorized: false } });
    plainTwins.set(agent, twin);
  }
  return twin;
}

/** The policy in force in one process; see the module's comment for the rules. */
export class AddressPolicy {
  private readonly infrastructure: InfrastructureEndpoint[];
  private resolved?: { at: number; version: number; list: Promise<ResolvedEndpoint[]> };
  /** Agents by kind, and by `<kind>:tls-unchecked` for their twins ({@link AddressPolicy.agent}). */
  private readonly agents = new Map<string, Agent>();

  constructor(readonly options: AddressPolicyOptions) {
    this.infrastructure = [...options.infrastructure];
  }

  /** Adds an endpoint of the service (a server that learnt its port after listening). */
  addInfrastructure(endpoint: InfrastructureEndpoint): void {
    this.infrastructure.push(endpoint);
    this.resolved = undefined;
  }

  /**
   * Judges one connection. `hostname` as written in the URL (no brackets), `address` the resolved
   * address, `port` the port connected to.
   * @returns undefined when allowed, else the refusal
   */
  async judge(
    kind: EgressKind,
    hostname: string,
    address: string,
    port: number,
  ): Promise<AddressNotAllowedError | undefined> {
    const host = hostname.toLowerCase();
    const refuse = (rule: string) => new AddressNotAllowedError(hostname, address, port, rule);
    if (!ipaddr.isValid(address)) return refuse('not an IP address');
    const addr = normalise(address);
    if (METADATA.includes(addr.toString())) return refuse('a cloud metadata address, never reachable');
    for (const infra of await this.resolveInfrastructure()) {
      if (infra.endpoint.port !== port) continue;
      if (infra.addresses.has(addr.toString()) || (infra.local && isLocal(addr))) {
        return refuse(`${infra.endpoint.label} is never reachable from user requests`);
      }
    }
    const deny = this.options.deny.find((r) => ruleMatches(r, host, addr, port));
    if (deny) return refuse(`deny rule "${deny.text}" (ASSAY_EGRESS_DENY)`);
    const allow = [...this.options.allow, ...(this.options.allowFor?.[kind] ?? [])].find((r) =>
      ruleMatches(r, host, addr, port),
    );
    if (allow) return undefined;
    const range = addr.range();
    if (range === 'unicast') return undefined;
    const access = this.options.privateAccess[kind];
    const what = KIND_NAMES[kind];
    if (range === 'loopback' || range === 'unspecified') {
      if (access === 'loopback' || access === 'all') return undefined;
      return refuse(`a loopback address; ${what} may reach one only when ${SWITCHES[kind]} allows it`);
    }
    if (PRIVATE_RANGES.has(range)) {
      if (access === 'all') return undefined;
      return refuse(
        `a private or link-local address (${range}); ${what} may reach one only when ${SWITCHES[kind]}=true`,
      );
    }
    return refuse(`not a unicast address (${range})`);
  }

  /**
   * Resolves `hostname` and judges every address (refused when any is refused).
   * @returns the addresses to connect to, in the resolver's order
   * @throws AddressNotAllowedError, or the resolver's error
   */
  async resolve(kind: EgressKind, hostname: string, port: number): Promise<dns.LookupAddress[]> {
    const bare = hostname.replace(/^\[|\]$/g, '');
    const list: dns.LookupAddress[] = net.isIP(bare)
      ? [{ address: bare, family: net.isIP(bare) }]
      : await dns.promises.lookup(bare, { all: true });
    if (list.length === 0) throw Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' });
    for (const entry of list) {
      const refusal = await this.judge(kind, bare, entry.address, port);
      if (refusal) throw refusal;
    }
    return list;
  }

  /**
   * Judges a URL before any connection: its host (every address it resolves to) and port.
   * @throws AddressNotAllowedError, TypeError for a malformed URL, or the resolver's error
   */
  async checkUrl(kind: EgressKind, url: string | URL): Promise<void> {
    const u = typeof url === 'string' ? new URL(url) : url;
    await this.resolve(kind, u.hostname, Number(u.port) || (u.protocol === 'https:' ? 443 : 80));
  }

  /**
   * The undici dispatcher for requests of `kind`: a keep-alive agent whose connector resolves the
   * host, judges the addresses with the port, and connects to the address judged. One per kind
   * and policy; closed by {@link close}.
   *
   * `tls: 'unchecked'`: its twin that accepts any server certificate (an API node's
   * `strictSSL: false`), judged by the same rules. A separate agent, so a connection whose
   * certificate was not checked is never reused by a request that wants it checked; the twin of a
   * policy's agent is also found with {@link tlsUncheckedTwin}.
   */
  agent(kind: EgressKind, tls: 'checked' | 'unchecked' = 'checked'): Agent {
    const key = tls === 'checked' ? kind : `${kind}:tls-unchecked`;
    let agent = this.agents.get(key);
    if (!agent) {
      agent = new Agent({
        keepAliveTimeout: 10_000,
        connections: kind === 'bundler' ? 16 : this.options.connections === undefined ? 64 : this.options.connections,
        connectTimeout: this.options.connectTimeoutMs ?? 10_000,
        connect: this.judgedConnector(kind, tls),
      });
      this.agents.set(key, agent);
      if (tls === 'checked') twins.set(agent, () => this.agent(kind, 'unchecked'));
    }
    return agent;
  }

  /**
   * One keep-alive connection to `origin` (`scheme://host[:port]`) for requests of `kind`, judged
   * as {@link agent}'s are: an undici `Client` the caller owns and closes. A load test's virtual
   * user keeps one per origin (activities/load-part.ts), as a k6 VU keeps its own connections, so
   * its requests go straight to its connection instead of through a pool that looks for a free one
   * among every VU's (undici's Pool scans its clients: a cost per request that grows with the VUs).
   * @throws undici's InvalidArgumentError for an origin that is not an http(s) URL
   */
  connection(kind: EgressKind, origin: string): Client {
    return new Client(origin, {
      keepAliveTimeout: 10_000,
      connectTimeout: this.options.connectTimeoutMs ?? 10_000,
      connect: this.judgedConnector(kind, 'checked'),
    });
  }

  /**
   * A connector that resolves the host, judges the addresses with the port and connects to the
   * address judged (the next one when one refuses at once).
   */
  private judgedConnector(kind: EgressKind, tls: 'checked' | 'unchecked'): buildConnector.connector {
    const base = buildConnector({
      timeout: this.options.connectTimeoutMs ?? 10_000,
      ...(tls === 'unchecked' ? { rejectUnauthorized: false } : {}),
    });
    return (opts, callback) => {
      const port = Number(opts.port) || (opts.protocol === 'https:' ? 443 : 80);
      this.resolve(kind, opts.hostname, port).then(
        (addresses) => {
          // Connects to the judged addresses only, the next one when one refuses at once (a
          // name with an IPv6 and an IPv4 address, a server listening on one of them). TLS
          // still checks the certificate against the name (undici takes it from `host`).
          const attempt = (i: number) =>
            base({ ...opts, hostname: addresses[i]!.address }, (err, socket) => {
              if (err && i + 1 < addresses.length && FAST_FAILURES.has((err as NodeJS.ErrnoException).code ?? ''))
                return attempt(i + 1);
              if (err) return callback(err, null);
              callback(null, socket!);
            });
          attempt(0);
        },
        (err: Error) => callback(err, null),
      );
    };
  }

  async close(): Promise<void> {
    const agents = [...this.agents.values()];
    this.agents.clear();
    await Promise.all(agents.map((a) => a.close()));
  }

  private resolveInfrastructure(): Promise<ResolvedEndpoint[]> {
    if (
      this.resolved &&
      this.resolved.version === endpointsVersion &&
      Date.now() - this.resolved.at < INFRASTRUCTURE_TTL_MS
    )
      return this.resolved.list;
    const list = Promise.all([...this.infrastructure, ...ownEndpoints].map((e) => resolveEndpoint(e)));
    this.resolved = { at: Date.now(), version: endpointsVersion, list };
    return list;
  }
}

async function resolveEndpoint(endpoint: InfrastructureEndpoint): Promise<ResolvedEndpoint> {
  let addresses: string[];
  if (ipaddr.isValid(endpoint.host)) addresses = [endpoint.host];
  else if (endpoint.host === 'localhost' || endpoint.host.endsWith('.localhost')) addresses = ['127.0.0.1', '::1'];
  else {
    // An unresolvable name refuses nothing by address; a local one still matches every local address.
    addresses = await dns.promises.lookup(endpoint.host, { all: true }).then(
      (list) => list.map((a) => a.address),
      () => [],
    );
  }
  const parsed = addresses.filter((a) => ipaddr.isValid(a)).map(normalise);
  return { endpoint, addresses: new Set(parsed.map((a) => a.toString())), local: parsed.some(isLocal) };
}

/**
 * Whether `hostname:port`, as written in a URL, denotes one of `endpoints` by address rather than
 * by spelling: the same port and an address in common, or both on this machine (loopback, the
 * unspecified address, an interface address; the rule infrastructure endpoints are matched by, see
 * the module's comment). So `http://127.0.0.1:8081`, `http://[::1]:8081` and `http://localhost:8081`
 * all denote a server bound to `127.0.0.1:8081`. Names are resolved (an unresolvable one denotes
 * nothing); `hostname` may carry IPv6 brackets.
 */
export async function denotesEndpoint(
  hostname: string,
  port: number,
  endpoints: InfrastructureEndpoint[],
): Promise<boolean> {
  const candidates = endpoints.filter((e) => e.port === port);
  if (candidates.length === 0) return false;
  const host = await resolveEndpoint({ label: 'the URL', host: hostname.replace(/^\[|\]$/g, '').toLowerCase(), port });
  if (host.addresses.size === 0) return false;
  for (const e of await Promise.all(candidates.map(resolveEndpoint))) {
    if ((e.local && host.local) || [...host.addresses].some((a) => e.addresses.has(a))) return true;
  }
  return false;
}

const KIND_NAMES: Record<EgressKind, string> = {
  node: 'API nodes',
  script: "scripts' fetch",
  library: 'libraries loaded by URL',
  webhook: 'outgoing webhooks',
  bundler: 'the bundler',
};

/** The configuration switch of each kind's private access, for messages. */
export const SWITCHES: Record<EgressKind, string> = {
  node: 'ASSAY_EGRESS_PRIVATE_FOR_NODES',
  script: 'ASSAY_EGRESS_PRIVATE_FOR_SCRIPTS',
  library: 'ASSAY_EGRESS_PRIVATE_FOR_LIBRARIES',
  webhook: 'ASSAY_EGRESS_PRIVATE_FOR_WEBHOOKS',
  bundler: 'ASSAY_BUNDLER_ALLOW_PRIVATE',
};

/**
 * A policy that knows no configuration: public unicast addresses only, for every kind (no rules,
 * no infrastructure, cloud metadata refused as always). `options` replace parts of it, and
 * `options.privateAccess` the switches it names (the bundler's own settings: src/bundler/guard.ts).
 */
export function publicOnlyPolicy(
  options: Partial<Omit<AddressPolicyOptions, 'privateAccess'>> & {
    privateAccess?: Partial<Record<EgressKind, PrivateAccess>>;
  } = {},
): AddressPolicy {
  return new AddressPolicy({
    allow: [],
    deny: [],
    infrastructure: [],
    ...options,
    privateAccess: {
      node: 'none',
      script: 'none',
      library: 'none',
      webhook: 'none',
      bundler: 'none',
      ...options.privateAccess,
    },
  });
}

/**
 * The extra allow rules of the bundler: `ASSAY_BUNDLER_ALLOW_HOSTS`, hosts (and addresses) as
 * written in URLs. @throws Error naming a bad entry
 */
export function bundlerAllowRules(hosts: string[]): Partial<Record<EgressKind, EgressRule[]>> {
  return { bundler: hosts.map((h) => parseRule(h, { asWritten: true })) };
}

/**
 * The policy of a configuration: its rules and switches (src/config.ts `egress`, `bundler`) and
 * the infrastructure it names ({@link infrastructureOf}); `options.connections`: the agents'
 * connections per origin ({@link AddressPolicyOptions.connections}).
 */
export function policyFromConfig(
  config: Parameters<typeof infrastructureOf>[0] & {
    egress: {
      allow: EgressRule[];
      deny: EgressRule[];
      privateAccess: Record<Exclude<EgressKind, 'bundler'>, PrivateAccess>;
    };
    bundler: { allowPrivate: boolean; allowHosts: string[]; fetchTimeoutMs: number };
  },
  options: Pick<AddressPolicyOptions, 'connections'> = {},
): AddressPolicy {
  return new AddressPolicy({
    ...options,
    allow: config.egress.allow,
    deny: config.egress.deny,
    allowFor: bundlerAllowRules(config.bundler.allowHosts),
    privateAccess: { ...config.egress.privateAccess, bundler: config.bundler.allowPrivate ? 'all' : 'none' },
    infrastructure: infrastructureOf(config),
  });
}
