/**
 * Mocha root hooks (loaded by .mocharc.json): Temporal's runtime logs errors only (tests make
 * activities fail on purpose, and the SDK warns about each attempt), and shared services stop
 * after the whole run. ASSAY_TEST_TEMPORAL_LOG_LEVEL=debug|warn shows more.
 *
 * The suite also runs as if `make dev` were running beside it: before the first test it holds
 * every port a local stack listens on ({@link DEV_STACK_PORTS}) that is still free, so a test that
 * binds a fixed port instead of port 0 fails here, not only on a developer's machine.
 * `ASSAY_TEST_HOLD_PORTS=0` turns that off; the cluster suite (ASSAY_CLUSTER=1), which talks to a
 * stack on those ports, never holds them.
 *
 * Every top-level suite must leave the process as it found it (no changed `process.env`, no
 * server still listening): test/helpers/leaks.ts fails the suite that does, so the files pass in
 * any order (scripts/test-order.sh runs them in another one).
 */
import net from 'node:net';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { stopServices } from './helpers/harness';
import { checkSuitesLeaveNothing, trackServers } from './helpers/leaks';

const level = (process.env.ASSAY_TEST_TEMPORAL_LOG_LEVEL ?? 'error').toUpperCase() as 'DEBUG' | 'WARN' | 'ERROR';
Runtime.install({ logger: new DefaultLogger(level) });
// Before any test file is loaded, so that a server a file starts at load time is seen too.
trackServers();

/**
 * The loopback ports of `make dev` (bin/main.ts `dev`, README "Run it"): the Temporal frontend and
 * Web UI, the API, the bundler, the mocks' own port and the worker's HTTP server.
 */
export const DEV_STACK_PORTS = [7233, 8233, 8080, 8081, 8082, 9464];

/** Listens on `port` of 127.0.0.1; undefined when it is taken (by a live stack: the case we imitate). */
function hold(port: number): Promise<net.Server | undefined> {
  return new Promise((resolve) => {
    const server = net.createServer((socket) => socket.destroy());
    server.once('error', () => resolve(undefined));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => resolve(server));
  });
}

let held: net.Server[] = [];

export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    // The ports first: they are part of the state every suite starts from (and leaves).
    if (process.env.ASSAY_TEST_HOLD_PORTS !== '0' && process.env.ASSAY_CLUSTER !== '1') {
      held = (await Promise.all(DEV_STACK_PORTS.map(hold))).filter((s): s is net.Server => s !== undefined);
      for (const s of held) s.unref();
    }
    checkSuitesLeaveNothing(this.test!.parent!);
  },
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    await Promise.all(held.map((s) => new Promise((r) => s.close(r))));
    held = [];
    await stopServices();
  },
};
