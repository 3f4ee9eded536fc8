/**
 * A free TCP port, for servers that must know their port before they start (the Temporal dev
 * server's frontend, the SDK's metrics exporter, test and benchmark servers started as processes).
 * A server that can listen on port 0 itself should do that instead: the port asked for here is free
 * when answered, not reserved.
 */
import net from 'node:net';

/** A TCP port free on `ip` (default 127.0.0.1) at the time of asking. */
export function freePort(ip = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, ip, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
