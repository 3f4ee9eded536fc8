/**
 * Mocha root hooks: stop shared services after the whole run. Loaded by .mocharc.json.
 */
import { stopServices } from './helpers/harness';

export const mochaHooks = {
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    await stopServices();
  },
};
