/**
 * A webhook receiver on loopback, written the way docs/deployments.md tells users to write one:
 * it recomputes the HMAC-SHA256 of the raw body with the shared secret and compares it with the
 * `x-assay-signature` header using crypto.timingSafeEqual, answering 401 when they differ. It can
 * be told to fail the first N calls of a path, and it keeps every call it accepted.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  method: string;
  headers: http.IncomingHttpHeaders;
  raw: string;
  body: any;
}

export interface Receiver {
  url: string;
  /** Calls accepted (signature valid, not made to fail). */
  received: Received[];
  /** Calls refused because the signature did not match. */
  rejected: number;
  /** The secret deliveries are checked with. */
  secret: string;
  failFirst(path: string, times: number): void;
  close(): Promise<void>;
}

/** True when `header` is `sha256=<hex>` of `raw` under `secret` (constant-time comparison). */
export function verifySignature(secret: string, raw: Buffer, header: string | undefined): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`, 'utf8');
  const given = Buffer.from(header ?? '', 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export async function startReceiver(): Promise<Receiver> {
  const failures = new Map<string, number>();
  const receiver: Omit<Receiver, 'url' | 'close'> & { failFirst: Receiver['failFirst'] } = {
    received: [],
    rejected: 0,
    secret: '',
    failFirst(path, times) {
      failures.set(path, times);
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (!verifySignature(receiver.secret, raw, req.headers['x-assay-signature'] as string | undefined)) {
        receiver.rejected += 1;
        res.writeHead(401).end('bad signature');
        return;
      }
      const left = failures.get(path) ?? 0;
      if (left > 0) {
        failures.set(path, left - 1);
        res.writeHead(503).end('try later');
        return;
      }
      const text = raw.toString('utf8');
      receiver.received.push({
        path,
        method: req.method ?? '',
        headers: req.headers,
        raw: text,
        body: text ? JSON.parse(text) : undefined,
      });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  });
}
