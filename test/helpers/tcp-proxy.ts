/**
 * A TCP proxy on loopback that a test can cut and restore, or freeze and thaw, standing between
 * Assay and a server (the database, Temporal) to simulate an outage without stopping or freezing
 * the shared server:
 *
 * - `cut()`: every open connection is destroyed and the port stops listening (new connections
 *   are refused, as when the server is down);
 * - `restore()`: listens again on the same port and forwards as before (nothing when not cut);
 * - `freeze()`: the server's process is stopped (SIGSTOP, `docker pause`): the port keeps
 *   accepting (the kernel completes the handshake of a stopped process's listening socket), open
 *   connections stay open, and nothing is forwarded in either direction: what each side sends is
 *   held, as a stopped process's socket buffers hold it. Nothing is refused or reset, so a client
 *   waits until its own timeout;
 * - `thaw()`: the process continues (SIGCONT): what was held is delivered in the order it was
 *   sent, a connection a client closed meanwhile is closed after its last bytes (a stopped server
 *   still reads and answers those bytes when it continues, as MariaDB does), connections accepted
 *   meanwhile reach the server now, and forwarding goes on.
 */
import net from 'node:net';

export interface TcpProxy {
  /** Port the proxy listens on (the same before and after a cut). */
  port: number;
  /** Host:port form, for addresses. */
  address: string;
  /** True between `cut()` and `restore()`. */
  readonly down: boolean;
  /** True between `freeze()` and `thaw()`. */
  readonly frozen: boolean;
  /** Connections open now (each a client with its upstream). */
  readonly connections: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}

/** One direction of a proxied connection: bytes from one socket to the other, held while frozen. */
interface Leg {
  to: () => net.Socket | undefined;
  held: Buffer[];
  /** The sending side ended or closed while its bytes were held: end `to` after them. */
  endHeld: boolean;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  /** Per open connection: delivers what is held (connecting upstream first if needed). */
  const thawers = new Set<() => void>();
  let down = false;
  let frozen = false;

  const makeServer = () =>
    net.createServer((client) => {
      let upstream: net.Socket | undefined;
      let closed = 0;
      sockets.add(client);
      const c2u: Leg = { to: () => upstream, held: [], endHeld: false };
      const u2c: Leg = { to: () => client, held: [], endHeld: false };
      const holding = (leg: Leg) => frozen || !leg.to() || leg.held.length > 0;
      const forget = () => {
        thawers.delete(thaw);
        sockets.delete(client);
        if (upstream) sockets.delete(upstream);
      };
      /** A reset or socket error: both sides go at once (as before freezing existed). */
      const drop = () => {
        if (frozen) return;
        forget();
        client.destroy();
        upstream?.destroy();
      };
      const forward = (leg: Leg, data: Buffer) => {
        if (holding(leg)) leg.held.push(data);
        else if (!leg.to()!.destroyed) leg.to()!.write(data);
      };
      /** The sending side of `leg` finished: the other side is ended once what it holds is delivered. */
      const finished = (leg: Leg) => {
        if (holding(leg)) leg.endHeld = true;
        else if (!leg.to()!.destroyed) leg.to()!.end();
      };
      const flush = (leg: Leg) => {
        const to = leg.to();
        if (!to) return;
        const chunks = leg.held.splice(0);
        if (!to.destroyed) for (const chunk of chunks) to.write(chunk);
        if (leg.endHeld && !to.destroyed) to.end();
      };
      const onClose = () => {
        closed += 1;
        if (closed === (upstream ? 2 : 1) && !(upstream === undefined && c2u.endHeld)) forget();
      };
      const connectUpstream = () => {
        const socket = net.connect(targetPort, targetHost);
        upstream = socket;
        sockets.add(socket);
        socket.on('data', (d: Buffer) => forward(u2c, d));
        socket.on('end', () => finished(u2c));
        socket.on('error', () => (frozen ? (u2c.endHeld = true) : drop()));
        socket.on('close', () => {
          finished(u2c);
          onClose();
        });
      };
      function thaw() {
        if (!upstream) connectUpstream();
        flush(c2u);
        flush(u2c);
      }
      thawers.add(thaw);
      client.on('data', (d: Buffer) => forward(c2u, d));
      client.on('end', () => finished(c2u));
      client.on('error', () => (frozen ? (c2u.endHeld = true) : drop()));
      client.on('close', () => {
        // A client that went away while frozen: its last bytes still reach the server at thaw.
        finished(c2u);
        onClose();
      });
      // A stopped server's kernel accepts, but the server reads nothing: reach it only at thaw.
      if (!frozen) connectUpstream();
    });
  let server = makeServer();
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port));
    });
  const port = await listen(0);
  const closeServer = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return {
    port,
    address: `127.0.0.1:${port}`,
    get down() {
      return down;
    },
    get frozen() {
      return frozen;
    },
    get connections() {
      return thawers.size;
    },
    async cut() {
      down = true;
      frozen = false;
      const closed = closeServer();
      for (const s of sockets) s.destroy();
      sockets.clear();
      thawers.clear();
      await closed;
    },
    async restore() {
      // Not cut: the server listens already (a second one would fail on the port, and `close()`
      // would then close that one, leaving the first listening after the test file).
      if (!down) return;
      server = makeServer();
      await listen(port);
      down = false;
    },
    freeze() {
      frozen = true;
    },
    thaw() {
      frozen = false;
      for (const thaw of [...thawers]) thaw();
    },
    async close() {
      frozen = false;
      for (const s of sockets) s.destroy();
      thawers.clear();
      if (!down) await closeServer();
    },
  };
}
