/**
 * Mocha root hooks (loaded by .mocharc.json): Temporal's runtime logs errors only (tests make
 * activities fail on purpose, and the SDK warns about each attempt), and shared services stop
 * after the whole run. ASSAY_TEST_TEMPORAL_LOG_LEVEL=debug|warn shows more.
 */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { stopServices } from './helpers/harness';

const level = (process.env.ASSAY_TEST_TEMPORAL_LOG_LEVEL ?? 'error').toUpperCase() as 'DEBUG' | 'WARN' | 'ERROR';
Runtime.install({ logger: new DefaultLogger(level) });

export const mochaHooks = {
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    await stopServices();
  },
};
