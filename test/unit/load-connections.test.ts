/**
 * The load generator's agent gives each virtual user a connection of its own
 * (`policyFromConfig(config, { connections: null })`, activities/index.ts and
 * activities/load-thread.ts), where an ordinary policy's agent holds 64 connections per origin and
 * queues the rest (the wait would count into a VU's response time). A loopback server holds every
 * request until all have arrived (or a second passed) and counts the sockets they came on.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { request } from 'undici';
import { loadConfig } from '../../src/config';
import { policyFromConfig } from '../../src/net/address-policy';

const REQUESTS = 100;

/** Sends REQUESTS requests at once through `policy`'s node agent; the sockets the server saw. */
async function socketsFor(connections: number | null | undefined): Promise<number> {
  const sockets = new Set<unknown>();
  const held: http.ServerResponse[] = [];
  const release = () => held.splice(0).forEach((r) => r.end('ok'));
  const server = http.createServer((req, res) => {
    sockets.add(req.socket);
    held.push(res);
    if (held.length === REQUESTS) release();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  // Past the agent's limit the rest wait for a free connection: release after a second.
  const timer = setInterval(release, 1000);
  const config = loadConfig({
    ASSAY_EGRESS_PRIVATE_FOR_NODES: 'loopback',
    ASSAY_DATA_DIR: '/tmp/assay-unit-load-connections',
  });
  const policy = policyFromConfig(config, connections === undefined ? {} : { connections });
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    await Promise.all(
      Array.from({ length: REQUESTS }, async () => {
        const res = await request(url, { dispatcher: policy.agent('node') });
        await res.body.text();
      }),
    );
    return sockets.size;
  } finally {
    clearInterval(timer);
    await policy.close();
    server.closeAllConnections();
    server.close();
  }
}

describe("load generator's connections", () => {
  it('an ordinary policy holds 64 connections per origin', async () => {
    expect(await socketsFor(undefined)).to.equal(64);
  });

  it("the load generator's policy (connections: null) opens one per concurrent request", async () => {
    expect(await socketsFor(null)).to.equal(REQUESTS);
  });
});
