/**
 * A performance run's page in a real Chromium (docs/console.md "Runs", docs/performance.md
 * "Results"): live progress in seconds of the profile (not in test cases), and charts whose y-axis
 * labels are drawn whole (compact, `20k`, inside the canvas) with VUs on an axis of their own on
 * the right. uPlot draws on a canvas, so the labels are read as the page draws them: every
 * `fillText` of the chart's canvas since its last full clear, with its position and measured width.
 * Against the real API, a worker on the Temporal dev server and a loopback target; the second page
 * reads the run's real results with its per-second request counts scaled up (a 20,000 requests/s
 * load on a shared test machine is out of reach; the chart's labels are what is under test). The
 * live controls (Pause, Scale, Resume, Stop) are clicked as a user would, and each command read back
 * from the API and the page's log.
 */
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { eventually, waitForRun, type TestApp } from '../helpers/app';
import { startTarget, type Target } from '../helpers/target';
import { launchBrowser, startConsoleApp, signedIn } from '../helpers/browser';

/** One text the page drew on a chart's canvas (device pixels). */
interface DrawnText {
  text: string;
  x: number;
  align: string;
  width: number;
  canvasWidth: number;
}

/** Records the texts drawn on each canvas since its last full clear (uPlot clears it before each redraw). */
const RECORD_CANVAS_TEXT = `
(() => {
  const drawn = new WeakMap();
  const proto = CanvasRenderingContext2D.prototype;
  const fillText = proto.fillText;
  const clearRect = proto.clearRect;
  proto.clearRect = function (x, y, w, h) {
    if (x <= 0 && y <= 0 && w >= this.canvas.width && h >= this.canvas.height) drawn.set(this.canvas, []);
    return clearRect.call(this, x, y, w, h);
  };
  proto.fillText = function (text, x, y, maxWidth) {
    const list = drawn.get(this.canvas) || [];
    drawn.set(this.canvas, list);
    const m = this.getTransform();
    list.push({ text: String(text), x: m.a * x + m.c * y + m.e, align: this.textAlign, width: this.measureText(String(text)).width, canvasWidth: this.canvas.width, rotated: m.b !== 0 });
    return fillText.call(this, text, x, y, maxWidth);
  };
  window.__chartText = (title) => {
    const canvas = document.querySelector('[role="img"][aria-label="' + title + '"] canvas');
    return canvas ? (drawn.get(canvas) || []).filter((t) => !t.rotated) : null;
  };
})();
`;

async function chartText(page: Page, title: string): Promise<DrawnText[]> {
  return (await page.evaluate(
    (t) => (globalThis as unknown as { __chartText(t: string): DrawnText[] }).__chartText(t),
    title,
  ))!;
}

/** A label's number: `20k` → 20000, `1.5M` → 1500000, `3` → 3. */
const labelValue = (text: string) =>
  Number.parseFloat(text) * (text.endsWith('k') ? 1e3 : text.endsWith('M') ? 1e6 : text.endsWith('G') ? 1e9 : 1);

describe('console: a performance run page (Chromium)', function () {
  this.timeout(180_000);
  let app: TestApp;
  let target: Target;
  let browser: Browser;

  before(async () => {
    [app, target, browser] = await Promise.all([startConsoleApp({ worker: true }), startTarget(), launchBrowser()]);
    expect(
      (await app.request('POST', '/v1/environments', { name: 'local', variables: { base: target.url } })).status,
    ).to.equal(201);
    const tc = await app.request('POST', '/v1/test-cases', {
      name: 'user',
      flow: [
        {
          type: 'api',
          id: 'get',
          name: 'get user',
          request: { method: 'GET', url: '{{base}}/users/1' },
          assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
        },
      ],
    });
    expect(tc.status, JSON.stringify(tc.body)).to.equal(201);
    expect((await app.request('POST', '/v1/runners', { name: 'load', testCaseIds: [tc.body.id] })).status).to.equal(
      201,
    );
  });
  after(async () => {
    await browser?.close();
    await target?.close();
    await app?.stop();
  });

  it('shows live progress in seconds of the profile, then charts with whole y-axis labels and VUs on their own right axis', async () => {
    const start = await app.request('POST', '/v1/runs', {
      runner: 'load',
      environment: 'local',
      performance: { executor: 'constant-vus', vus: 3, duration: '6s', thinkTime: '20ms' },
    });
    expect(start.status, JSON.stringify(start.body)).to.equal(201);
    const runId = start.body.runId as string;
    const { context, page } = await signedIn(browser, app);
    await page.addInitScript(RECORD_CANVAS_TEXT);
    await page.goto(`${app.url}/runs/${runId}`);
    const progress = page.locator('.run-live p.muted');
    // While the load runs: seconds of the 6 s profile, never test cases.
    await page.getByText(/^elapsed [1-6] s of 6 s · expected to finish/).waitFor({ timeout: 30_000 });
    expect(await progress.first().textContent()).not.to.contain('test cases');
    expect((await waitForRun(app, runId, 90_000)).status).to.equal('completed');

    // The real results, per-second requests scaled so the busiest second passes 20,000 requests/s.
    const real = (await app.request('GET', `/v1/runs/${runId}/results`)).body;
    const series = real.performance.series as Array<{ requests: number; failed: number; vus: number }>;
    const factor = Math.ceil(20_500 / Math.max(1, ...series.map((p) => p.requests)));
    await page.route(`**/v1/runs/${runId}/results`, async (route) => {
      const res = await route.fetch();
      const doc = await res.json();
      for (const p of doc.performance.series) p.requests *= factor;
      await route.fulfill({ response: res, json: doc });
    });
    await page.reload();
    const title = 'Requests per second and VUs';
    await page.getByRole('img', { name: title }).locator('canvas').waitFor({ timeout: 30_000 });
    await page.getByRole('img', { name: title }).scrollIntoViewIfNeeded();
    let drawn: DrawnText[] = [];
    for (let i = 0; i < 50 && !drawn.some((t) => t.align === 'left'); i++) {
      await page.waitForTimeout(100);
      drawn = await chartText(page, title);
    }
    // uPlot draws the left axis' labels right-aligned to it, the right axis' left-aligned.
    const left = drawn.filter((t) => t.align === 'right');
    const right = drawn.filter((t) => t.align === 'left');
    const report = JSON.stringify(drawn);
    expect(left.length, report).to.be.greaterThan(2);
    for (const t of left) {
      expect(t.text, report).to.match(/^-?\d+(\.\d+)?[kMG]?$/);
      // Whole: the label starts inside the canvas (the old fixed 50 px axis drew `20,000` from x < 0).
      expect(t.x - t.width, `${t.text} cut off: ${report}`).to.be.at.least(0);
    }
    expect(Math.max(...left.map((t) => labelValue(t.text))), report).to.be.at.least(20_000);
    expect(left.map((t) => t.text).some((t) => t.endsWith('k'))).to.equal(true);
    // VUs on their own axis: whole numbers up to the peak (3), not a flat line at 0 beside 20k.
    const peak = Math.max(...series.map((p) => p.vus));
    expect(peak).to.be.within(1, 3);
    expect(right.length, report).to.be.greaterThan(1);
    for (const t of right) {
      expect(t.text, report).to.match(/^\d+$/);
      expect(t.x + t.width, `${t.text} cut off: ${report}`).to.be.at.most(t.canvasWidth);
    }
    expect(Math.max(...right.map((t) => Number(t.text))), report).to.be.within(peak, peak * 2 + 1);
    // The p95 chart's labels (ms, small numbers) are whole too.
    const p95 = await chartText(page, 'p95 response time (ms)');
    for (const t of p95.filter((d) => d.align === 'right')) expect(t.x - t.width, t.text).to.be.at.least(0);
    await context.close();
  });

  it('steers the load from the run page: Pause, Scale, Resume and Stop, each logged with who and when', async () => {
    const start = await app.request('POST', '/v1/runs', {
      runner: 'load',
      environment: 'local',
      timeout: 300,
      performance: { executor: 'constant-vus', vus: 2, duration: '2m', thinkTime: '20ms' },
    });
    expect(start.status, JSON.stringify(start.body)).to.equal(201);
    const runId = start.body.runId as string;
    const { context, page } = await signedIn(browser, app);
    page.on('dialog', (dialog) => void dialog.accept());
    await page.goto(`${app.url}/runs/${runId}`);
    const controls = page.getByRole('group', { name: 'Steer the load' });
    const log = page.getByRole('table', { name: 'Load commands' });
    // Commands are accepted once the load is under way.
    await page.getByText(/^elapsed [1-9]\d* s of 2 min/).waitFor({ timeout: 30_000 });
    const doc = async () => (await app.request('GET', `/v1/runs/${runId}`)).body;

    await controls.getByRole('button', { name: 'Pause' }).click();
    await controls.getByRole('button', { name: 'Resume' }).waitFor({ timeout: 10_000 });
    await page.getByText('Paused: the profile clock is stopped').waitFor();
    await page.getByText(/^paused at \d+ s of 2 min/).waitFor({ timeout: 10_000 });
    await log.getByRole('cell', { name: 'pause', exact: true }).waitFor();
    expect((await doc()).performance.state).to.equal('paused');
    expect(await log.locator('tbody tr').first().textContent()).to.match(/key:/);

    await controls.getByRole('spinbutton', { name: 'Scale to VUs' }).fill('4');
    await controls.getByRole('button', { name: 'Scale' }).click();
    await log.getByRole('cell', { name: 'scale to 4 VUs' }).waitFor({ timeout: 10_000 });
    await controls.getByRole('button', { name: 'Resume' }).click();
    await controls.getByRole('button', { name: 'Pause' }).waitFor({ timeout: 10_000 });
    // Resumed at 4 VUs: the shards report them within a few seconds.
    const resumed = await eventually(async () => {
      const d = await doc();
      return d.performance?.state === 'running' && d.performance.activeVUs === 4 ? d : undefined;
    }, 15_000);
    expect(resumed.performance.control.commands.map((c: { action: string }) => c.action)).to.deep.equal([
      'pause',
      'scale',
      'resume',
    ]);

    await controls.getByRole('button', { name: 'Stop' }).click();
    const ended = await waitForRun(app, runId, 60_000);
    // Stopped early (a 2-minute profile), every figure kept.
    expect(ended.status).to.equal('completed');
    const results = (await app.request('GET', `/v1/runs/${runId}/results`)).body;
    expect(results.performance.loadDurationMs).to.be.below(90_000);
    expect(results.performance.requests).to.be.greaterThan(0);
    expect(results.performance.control.commands.map((c: { action: string }) => c.action)).to.deep.equal([
      'pause',
      'scale',
      'resume',
      'stop',
    ]);
    await page.reload();
    await page.getByRole('table', { name: 'Load commands' }).getByRole('cell', { name: 'stop', exact: true }).waitFor();
    expect(await page.getByRole('group', { name: 'Steer the load' }).count()).to.equal(0);
    await context.close();
  });
});
