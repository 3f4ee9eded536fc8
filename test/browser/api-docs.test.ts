/**
 * The API reference page (docs/api.md "The OpenAPI document"; api/openapi/router.ts) in a real Chromium against a
 * real API: `/docs` renders Scalar's reference of `/v1/openapi.json` with Assay's operations, with
 * no API key, and the page asks nothing of any other origin (no CDN, no web fonts, no telemetry):
 * every request the page makes is recorded, and any to another origin is refused and fails the test.
 */
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { TestApp } from '../helpers/app';
import { launchBrowser, screenshot, startConsoleApp } from '../helpers/browser';

describe('API reference page (/docs)', function () {
  this.timeout(120_000);
  let app: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const requested: string[] = [];
  const outside: string[] = [];
  const problems: string[] = [];

  before(async () => {
    [app, browser] = await Promise.all([startConsoleApp(), launchBrowser()]);
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const origin = new URL(app.url).origin;
    // Every request of the page, whatever its kind (script, font, image, fetch, beacon…).
    await context.route('**/*', (route) => {
      const url = route.request().url();
      requested.push(url);
      if (url.startsWith('data:') || url.startsWith('blob:') || new URL(url).origin === origin) return route.continue();
      outside.push(url);
      return route.abort('blockedbyclient');
    });
    page = await context.newPage();
    page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
    });
  });

  after(async () => {
    await context?.close();
    await browser?.close();
    await app?.stop();
  });

  it("renders the reference with the API's operations, without a key, from this origin only", async () => {
    const res = await page.goto(`${app.url}/docs`);
    expect(res?.status()).to.equal(200);
    expect(res?.headers()['content-security-policy']).to.include("connect-src 'self'");
    // The document's title, tags and operations, rendered by the reference (none is in the HTML page itself).
    await page.getByRole('heading', { name: 'Assay API' }).waitFor({ timeout: 30_000 });
    for (const tag of ['Environments', 'Test cases', 'Runs', 'Deployments'])
      await page.getByText(tag, { exact: true }).first().waitFor();
    // A tag opens in the sidebar to its operations' summaries.
    await page.getByText('Runs', { exact: true }).first().click();
    for (const summary of ['Start a run', 'List runs', 'Cancel a run']) {
      await page.getByText(summary, { exact: true }).first().waitFor({ state: 'visible', timeout: 30_000 });
    }
    await screenshot(page, 'api-docs');
    const html = await page.content();
    expect(html).to.not.include('fonts.scalar.com');
    expect(
      requested.some((u) => u.endsWith('/v1/openapi.json')),
      `requests: ${requested.join(', ')}`,
    ).to.equal(true);
    expect(outside, 'requests to other origins').to.deep.equal([]);
    expect(
      problems.filter((p) => /Content Security Policy|Refused to/i.test(p)),
      'CSP refusals',
    ).to.deep.equal([]);
  });

  it('opens an operation and shows its request body fields and scope note', async () => {
    await page.getByText('Start a run', { exact: true }).first().click();
    await page.getByText('environment', { exact: true }).first().waitFor({ timeout: 15_000 });
    await page
      .getByText(/Needs an API key with scope/)
      .first()
      .waitFor({ timeout: 15_000 });
    expect(outside, 'requests to other origins').to.deep.equal([]);
  });
});
