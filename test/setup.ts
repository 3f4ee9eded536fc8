/**
 * Mocha root hooks (loaded by .mocharc.json): Temporal's runtime logs warnings and errors only,
 * and shared services stop after the whole run.
 */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { stopServices } from './helpers/harness';

Runtime.install({ logger: new DefaultLogger(process.env.ASSAY_TEST_TEMPORAL_LOG_LEVEL === 'debug' ? 'DEBUG' : 'WARN') });

export const mochaHooks = {
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    await stopServices();
  },
};
