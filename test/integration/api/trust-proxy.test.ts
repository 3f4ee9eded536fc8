/**
 * `ASSAY_TRUST_PROXY`: per-address limits count the TCP peer unless the operator says a proxy sets
 * `X-Forwarded-For`; a client cannot dodge the bundler's keyless limit by choosing that header.
 */
import { expect } from 'chai';
import { createLogger } from '../../../src/logger';
import { startBundler, type BundlerHandle } from '../../../bin/processes';
import { startTestApp, type TestApp } from '../../helpers/app';

describe('X-Forwarded-For and per-address limits', function () {
  this.timeout(60_000);
  let app: TestApp;
  const bundlers: BundlerHandle[] = [];

  before(async () => {
    app = await startTestApp();
  });
  after(async () => {
    for (const b of bundlers) await b.close();
    await app?.stop();
  });

  async function bundler(trustProxy: boolean): Promise<string> {
    const config = {
      ...app.config,
      api: { ...app.config.api, trustProxy },
      bundler: { ...app.config.bundler, port: 0, requireKey: false, rateLimitPerMinute: 2 },
    };
    const handle = await startBundler(config, app.dataSource, createLogger('silent', 'bundler-test'));
    bundlers.push(handle);
    return handle.url;
  }

  const call = (url: string, forwardedFor: string) =>
    fetch(`${url}/api/bundle`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
      body: '{}',
    }).then((r) => r.status);

  it('counts the peer address by default, whatever X-Forwarded-For says', async () => {
    const url = await bundler(false);
    const statuses = [await call(url, '203.0.113.1'), await call(url, '203.0.113.2'), await call(url, '203.0.113.3')];
    expect(statuses[2]).to.equal(429);
  });

  it('believes X-Forwarded-For behind a proxy the operator names (ASSAY_TRUST_PROXY=true)', async () => {
    const url = await bundler(true);
    const statuses = [await call(url, '203.0.113.1'), await call(url, '203.0.113.2'), await call(url, '203.0.113.3')];
    expect(statuses).to.not.include(429);
  });
});
