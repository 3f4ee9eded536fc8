/**
 * "Hosts" on this machine built from Linux network namespaces, for the cluster suites that need
 * separate machines (test/cluster/load-hosts.test.ts, test/cluster/suite-hosts.test.ts):
 *
 *   root namespace   bridge `<prefix>0` at `<net>.1/24` (the hub: Temporal, the API, the store)
 *   `<prefix>-t`     `<net>.10`  the target
 *   `<prefix>-1…n`   `<net>.11…` one host each; with `hostLink`, its eth0 sends at most
 *                    `hostLink.rate` (a `tc` token bucket, tbf), so each host has a capacity of its own
 *
 * each namespace joined to the bridge by a veth pair; no address outside `<net>.0/24`, no route
 * out. Two suites in one mocha process use different prefixes and subnets, so their networks never
 * meet. Needs root and iproute2 (`ip`, `tc`; ip-netns(8), tc-tbf(8)).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';

/** Runs a command, throwing with its stderr on failure; returns its stdout. */
export function sh(cmd: string, ...args: string[]): string {
  return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Runs a command, ignoring any failure (cleanup). */
export function quiet(cmd: string, ...args: string[]): void {
  try {
    execFileSync(cmd, args, { stdio: 'ignore' });
  } catch {
    /* already gone */
  }
}

/**
 * Why this machine cannot build namespaces for a suite selected by ASSAY_CLUSTER=1, or undefined
 * when it can: not selected, not Linux, not root, or one of `tools` missing.
 */
export function netnsMissing(tools: readonly string[] = ['ip', 'tc']): string | undefined {
  if (process.env.ASSAY_CLUSTER !== '1') return 'ASSAY_CLUSTER=1 not set (make test-cluster sets it)';
  if (process.platform !== 'linux') return 'network namespaces need Linux';
  if (process.getuid?.() !== 0) return 'not root (network namespaces need root)';
  for (const tool of tools)
    try {
      execFileSync(tool, ['-V'], { stdio: 'ignore' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return `no \`${tool}\` (apt-get install -y iproute2)`;
    }
  return undefined;
}

/** The kernel has no tbf queueing discipline (sch_tbf): a suite is skipped, naming it. */
export class NoTbf extends Error {}

/** One namespace on the bridge. */
export interface NetnsNode {
  /** Namespace name (`ip netns exec <ns> …`). */
  ns: string;
  /** Its eth0's address on the bridge. */
  ip: string;
}

/** What one host's link is held to: tc-tbf(8) `rate`, `burst` and `latency` (the queue's length in time). */
export interface HostLink {
  /** e.g. `1mbit` (tc units: bit/s). */
  rate: string;
  /** Bucket size, default `4kb`. */
  burst?: string;
  /** How long a packet may wait in the queue before it is dropped, default `100ms`. */
  latency?: string;
}

export interface NetnsNetwork {
  prefix: string;
  bridge: string;
  /** The bridge's address in the root namespace: what the hosts reach the hub's services on. */
  hub: string;
  /** `<net>.0/24`: an egress allowance that covers the target (ASSAY_EGRESS_ALLOW). */
  cidr: string;
  target: NetnsNode;
  hosts: NetnsNode[];
  /** Makes the bridge and namespaces; throws (after tearing them down) on failure, {@link NoTbf} when the kernel refuses tbf. */
  build(): void;
  /** Removes every namespace and the bridge of this prefix (also an earlier, killed run's); never throws. */
  teardown(): void;
}

/**
 * The network of `hosts` hosts for one suite: `prefix` names its links and namespaces (at most
 * 8 characters, so `<prefix>v<n>` fits IFNAMSIZ), `net` the first three octets of its /24.
 */
export function netnsNetwork(options: {
  prefix: string;
  net: string;
  hosts: number;
  hostLink?: HostLink;
}): NetnsNetwork {
  const { prefix, net: subnet } = options;
  const bridge = `${prefix}0`;
  const target = { ns: `${prefix}-t`, ip: `${subnet}.10` };
  const hosts = Array.from({ length: options.hosts }, (_, i) => ({
    ns: `${prefix}-${i + 1}`,
    ip: `${subnet}.${11 + i}`,
  }));
  const teardown = () => {
    for (const { ns } of [target, ...hosts]) quiet('ip', 'netns', 'del', ns);
    // A namespace outlives its name while the kernel holds sockets of it (a killed worker's
    // connections closing), and with it the veth pair: delete the root end, which takes the pair.
    [target, ...hosts].forEach((_, i) => quiet('ip', 'link', 'del', `${prefix}v${i}`));
    quiet('ip', 'link', 'del', bridge);
  };
  const build = () => {
    try {
      sh('ip', 'link', 'add', bridge, 'type', 'bridge');
      sh('ip', 'addr', 'add', `${subnet}.1/24`, 'dev', bridge);
      sh('ip', 'link', 'set', bridge, 'up');
      [target, ...hosts].forEach(({ ns, ip }, i) => {
        const outer = `${prefix}v${i}`;
        sh('ip', 'netns', 'add', ns);
        sh('ip', 'link', 'add', outer, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns);
        sh('ip', 'link', 'set', outer, 'master', bridge);
        sh('ip', 'link', 'set', outer, 'up');
        sh('ip', 'netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up');
        sh('ip', 'netns', 'exec', ns, 'ip', 'addr', 'add', `${ip}/24`, 'dev', 'eth0');
        sh('ip', 'netns', 'exec', ns, 'ip', 'link', 'set', 'eth0', 'up');
        if (ns === target.ns || !options.hostLink) return;
        const { rate, burst = '4kb', latency = '100ms' } = options.hostLink;
        try {
          sh(
            'ip',
            'netns',
            'exec',
            ns,
            'tc',
            'qdisc',
            'add',
            'dev',
            'eth0',
            'root',
            'tbf',
            'rate',
            rate,
            'burst',
            burst,
            'latency',
            latency,
          );
        } catch (err) {
          throw new NoTbf(
            `the kernel refused a tbf qdisc (${String((err as { stderr?: string }).stderr ?? err).trim()})`,
          );
        }
      });
    } catch (err) {
      teardown();
      throw err;
    }
  };
  return { prefix, bridge, hub: `${subnet}.1`, cidr: `${subnet}.0/24`, target, hosts, build, teardown };
}

/**
 * Runs `source` (CommonJS) with this Node in namespace `ns`; resolves once it writes its first line
 * to stdout (its "listening"), rejects when it exits first or stays silent for 20 s.
 */
export function startNodeInNamespace(ns: string, source: string): Promise<ChildProcess> {
  const child = spawn('ip', ['netns', 'exec', ns, process.execPath, '-e', source], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${ns}: no output within 20 s`)), 20_000);
    child.stdout!.once('data', () => {
      clearTimeout(timer);
      child.stdout!.resume();
      resolve(child);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${ns}: exited (${code})`));
    });
  });
}

/**
 * A TCP forwarder listening on `host` (a free port) to `to` (`host:port`): Temporal listens on
 * loopback, the hosts reach it through one on the bridge's address.
 */
export async function forwarder(host: string, to: string): Promise<{ port: number; close(): void }> {
  const [toHost, toPort] = [to.slice(0, to.lastIndexOf(':')), Number(to.slice(to.lastIndexOf(':') + 1))];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((inbound) => {
    const outbound = net.connect(toPort, toHost);
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => (s === inbound ? outbound : inbound).destroy());
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}
