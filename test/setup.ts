/**
 * Mocha root hooks (loaded by .mocharc.json): Temporal's runtime logs errors only (tests make
 * activities fail on purpose, and the SDK warns about each attempt), and shared services stop
 * after the whole run. ASSAY_TEST_TEMPORAL_LOG_LEVEL=debug|warn shows more.
 *
 * Every top-level suite must leave the process as it found it (no changed `process.env`, no
 * server still listening): test/helpers/leaks.ts fails the suite that does, so the files pass in
 * any order (issue 24; scripts/test-order.sh runs them in another one).
 */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { stopServices } from './helpers/harness';
import { checkSuitesLeaveNothing, trackServers } from './helpers/leaks';

const level = (process.env.ASSAY_TEST_TEMPORAL_LOG_LEVEL ?? 'error').toUpperCase() as 'DEBUG' | 'WARN' | 'ERROR';
Runtime.install({ logger: new DefaultLogger(level) });
// Before any test file is loaded, so that a server a file starts at load time is seen too.
trackServers();

export const mochaHooks = {
  beforeAll(this: Mocha.Context) {
    checkSuitesLeaveNothing(this.test!.parent!);
  },
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    await stopServices();
  },
};
