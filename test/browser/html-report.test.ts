/**
 * The HTML report (report.html) opened from file:// in a real Chromium, offline: it sends no
 * request at all (every request the page makes is recorded, and any but the file itself is
 * refused), the failing test case is open with its expected and actual side by side, a
 * data-driven test case shows its failing row, and a performance run's charts are drawn (uPlot
 * canvases) without a script error, in light and dark; printed, every section shows.
 */
import { expect } from 'chai';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Locator, Page } from 'playwright-core';
import { writeReports, type ReportInput } from '../../cli/reports/index';
import { launchBrowser, screenshot } from '../helpers/browser';
import { dataDrivenRun, failingRun, performanceRun } from '../fixtures/junit/report-documents';

describe('report.html (Chromium, file://)', function () {
  this.timeout(60_000);
  let browser: Browser;
  let dir: string;

  before(async () => {
    [browser, dir] = await Promise.all([launchBrowser(), fs.mkdtemp(path.join(os.tmpdir(), 'assay-html-report-'))]);
  });
  after(async () => {
    await browser?.close();
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  /** Writes `input`'s report.html into its own folder and opens it; records every request and script error. */
  async function open(name: string, input: ReportInput, colorScheme: 'light' | 'dark' = 'light') {
    const [file] = await writeReports(input, ['html'], path.join(dir, name));
    const url = pathToFileURL(file!).href;
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme, offline: true });
    const page = await context.newPage();
    const requests: string[] = [];
    const errors: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    page.on('pageerror', (e) => errors.push(e.message));
    await page.route('**/*', (route) => (route.request().url() === url ? route.continue() : route.abort()));
    await page.goto(url);
    return { page, url, requests, errors, close: () => context.close() };
  }

  const failure = (scope: Page | Locator, text: string) => scope.locator('.failure').filter({ hasText: text });

  it('a failing run: no request leaves, the failing test case is open with expected and actual, the passing one closed (open when printed)', async () => {
    const { page, url, requests, errors, close } = await open('failing', failingRun());
    expect(await page.locator('[data-outcome]').textContent()).to.equal('FAILED');
    const failing = page.locator('details.tc', { hasText: 'user name <is> "Ada" & co' });
    expect(await failing.getAttribute('open')).to.not.equal(null);
    const f = failure(failing, 'response.body.name');
    expect(await f.locator('.exp pre').innerText()).to.equal('"Ada"');
    expect(await f.locator('.act pre').innerText()).to.equal('"Grace"');
    expect(await f.locator('.exp pre').isVisible()).to.equal(true);
    // Side by side: expected left of actual, on the same line.
    const [exp, act] = [await f.locator('.exp pre').boundingBox(), await f.locator('.act pre').boundingBox()];
    expect(exp!.x + exp!.width).to.be.at.most(act!.x);
    expect(Math.abs(exp!.y - act!.y)).to.be.below(2);
    expect(
      await page.locator('details.tc', { hasText: 'service down' }).locator('.failure pre.err').innerText(),
    ).to.equal('connect ECONNREFUSED 127.0.0.1:9');
    const passing = page.locator('details.tc', { hasText: 'get user' }).first();
    expect(await passing.getAttribute('open')).to.equal(null);
    expect(await passing.locator('table.assertions').isVisible()).to.equal(false);
    await screenshot(page, 'report-html');
    // Printed, every section is open.
    await page.emulateMedia({ media: 'print' });
    expect(await passing.locator('table.assertions').isVisible()).to.equal(true);
    expect(requests).to.deep.equal([url]);
    expect(errors).to.deep.equal([]);
    await close();
  });

  it('a data-driven test case: the failing row is named and open, the passing rows closed', async () => {
    const { page, requests, url, close } = await open('rows', dataDrivenRun());
    const tc = page.locator('details.tc', { hasText: 'get user' });
    expect(await tc.locator('.tc-facts').innerText()).to.include('1/3 rows failed');
    expect(await failure(tc, 'row 2').locator('.where').first().innerText()).to.equal('row 2: {"id":2,"name":"Grace"}');
    const rows = tc.locator('details.row');
    expect(await rows.count()).to.equal(3);
    expect(await Promise.all([0, 1, 2].map((i) => rows.nth(i).getAttribute('open')))).to.deep.equal([null, '', null]);
    expect(requests).to.deep.equal([url]);
    await close();
  });

  for (const scheme of ['light', 'dark'] as const) {
    it(`a performance run (${scheme}): figures, thresholds and three uPlot charts, drawn offline without a script error`, async () => {
      const { page, requests, url, errors, close } = await open(`perf-${scheme}`, performanceRun(), scheme);
      for (const id of ['chart-throughput', 'chart-latency', 'chart-vus']) {
        const canvas = page.locator(`#${id} canvas`);
        await canvas.waitFor();
        const box = await canvas.boundingBox();
        expect(box!.width, id).to.be.above(300);
      }
      expect(await page.locator('tr.ko', { hasText: 'http_req_failed' }).innerText()).to.include('0.4%');
      const background = await page.evaluate('getComputedStyle(document.body).backgroundColor');
      expect(background).to.equal(scheme === 'dark' ? 'rgb(20, 23, 28)' : 'rgb(255, 255, 255)');
      if (scheme === 'dark') await screenshot(page, 'report-html-performance');
      expect(requests).to.deep.equal([url]);
      expect(errors).to.deep.equal([]);
      await close();
    });
  }
});
