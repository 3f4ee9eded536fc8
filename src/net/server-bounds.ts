/**
 * Bounds on what a client can hold of Assay's HTTP servers (the API, the mocks' own port, the
 * bundler, the worker's /metrics; docs/security.md "Slow and greedy clients"), as the reverse
 * proxies in front of such services bound it (nginx's `client_header_timeout`,
 * `client_body_timeout` and `limit_conn`):
 *
 * - **Receive time.** A client has `receiveTimeoutMs` (ASSAY_RECEIVE_TIMEOUT_MS, default 30 s) to
 *   send a whole request, headers and body, and at most a third of it (10 s at most) for the
 *   headers; past either, the request is answered 408 `request-timeout` (when no answer has
 *   started) and the connection is closed. Node's `requestTimeout` and `headersTimeout`, checked
 *   every second (`connectionsCheckingInterval`; Node's default of 30 s would let a slow client
 *   stay half a minute longer). The time an answer takes is not bounded here: a slow answer, a
 *   stream or a long poll stays open.
 * - **Connections per client address.** At most `maxConnectionsPerAddress`
 *   (ASSAY_MAX_CONNECTIONS_PER_ADDRESS, default 256; 0: no bound) open connections per TCP peer
 *   address and server. Each request on a connection beyond it is answered 429
 *   `too-many-connections` with `Retry-After: 1` and `Connection: close`, its body unread, and
 *   never reaches the application. The peer address is the TCP one (behind a reverse proxy: the
 *   proxy's, so the bound is then the proxy's to enforce).
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { PROBLEMS } from '../problems';

/** The bounds of a server (from `config.api`). */
export interface ServerBounds {
  /** Longest time to receive a whole request (headers and body), ms. */
  receiveTimeoutMs: number;
  /** Open connections per client address; 0: no bound. */
  maxConnectionsPerAddress: number;
}

/** The longest the headers of a request may take, ms (nginx's `client_header_timeout` is 60 s; Node's default 60 s). */
const MAX_HEADERS_TIMEOUT_MS = 10_000;

/** The headers timeout that goes with `receiveTimeoutMs`: a third of it, at most 10 s, at least 1 s. */
export function headersTimeoutMs(receiveTimeoutMs: number): number {
  return Math.max(1000, Math.min(MAX_HEADERS_TIMEOUT_MS, Math.floor(receiveTimeoutMs / 3)));
}

/** The 429 `too-many-connections` problem+json answer, closing the connection. */
function refuse(res: http.ServerResponse): void {
  const { status, title, description } = PROBLEMS['too-many-connections'];
  const body = JSON.stringify({
    type: '/problems/too-many-connections',
    title,
    status,
    detail: description,
    code: 'too-many-connections',
  });
  res.writeHead(status, {
    'Content-Type': 'application/problem+json',
    'Content-Length': Buffer.byteLength(body),
    Connection: 'close',
    'Retry-After': '1',
  });
  res.end(body);
}

/**
 * An HTTP server for `listener` within `bounds` (see the module comment); `onClientError` answers
 * what Node refuses before the application sees it (408 among them: bin/processes.ts
 * `onClientError`).
 */
export function boundedServer(
  listener: http.RequestListener,
  bounds: ServerBounds,
  onClientError?: (err: Error & { code?: string }, socket: Duplex) => void,
): http.Server {
  const perAddress = new Map<string, number>();
  const over = new WeakSet<Socket>();
  const cap = bounds.maxConnectionsPerAddress;
  const server = http.createServer(
    {
      requestTimeout: bounds.receiveTimeoutMs,
      headersTimeout: Math.min(headersTimeoutMs(bounds.receiveTimeoutMs), bounds.receiveTimeoutMs),
      connectionsCheckingInterval: Math.min(1000, bounds.receiveTimeoutMs),
    },
    cap > 0
      ? (req, res) => {
          if (over.has(req.socket)) {
            refuse(res);
            return;
          }
          listener(req, res);
        }
      : listener,
  );
  if (cap > 0) {
    server.on('connection', (socket: Socket) => {
      const address = socket.remoteAddress ?? 'unknown';
      const open = (perAddress.get(address) ?? 0) + 1;
      perAddress.set(address, open);
      if (open > cap) over.add(socket);
      socket.once('close', () => {
        const left = (perAddress.get(address) ?? 1) - 1;
        if (left <= 0) perAddress.delete(address);
        else perAddress.set(address, left);
      });
    });
  }
  if (onClientError) server.on('clientError', onClientError);
  return server;
}
