/**
 * A TCP proxy on loopback that a test can cut and restore, standing between Assay and a server
 * (the database, Temporal) to simulate an outage without stopping the shared server:
 *
 * - `cut()`: every open connection is destroyed and the port stops listening (new connections
 *   are refused, as when the server is down);
 * - `restore()`: listens again on the same port and forwards as before (nothing when not cut);
 * - `close()`: closes the proxy, cut or not.
 */
import net from 'node:net';

export interface TcpProxy {
  /** Port the proxy listens on (the same before and after a cut). */
  port: number;
  /** Host:port form, for addresses. */
  address: string;
  /** True between `cut()` and `restore()`. */
  readonly down: boolean;
  /** Drops every connection and stops listening. */
  cut(): Promise<void>;
  /** Listens again on the same port; does nothing when the proxy is not cut. */
  restore(): Promise<void>;
  /** Drops every connection and stops listening for good. */
  close(): Promise<void>;
}

/** A {@link TcpProxy} on a free loopback port forwarding to `targetHost:targetPort`. Close it in `after`. */
export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let down = false;
  const makeServer = () =>
    net.createServer((client) => {
      const upstream = net.connect(targetPort, targetHost);
      sockets.add(client);
      sockets.add(upstream);
      const drop = () => {
        sockets.delete(client);
        sockets.delete(upstream);
        client.destroy();
        upstream.destroy();
      };
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
      client.pipe(upstream);
      upstream.pipe(client);
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
    async cut() {
      down = true;
      const closed = closeServer();
      for (const s of sockets) s.destroy();
      sockets.clear();
      await closed;
    },
    async restore() {
      // Not cut: the server listens already. (A second one failed on the port, and `close()`
      // then closed that one, leaving the first listening after the test file: issue 24.)
      if (!down) return;
      server = makeServer();
      await listen(port);
      down = false;
    },
    async close() {
      for (const s of sockets) s.destroy();
      if (!down) await closeServer();
    },
  };
}
