/**
 * Runs with a memory in the console, in a real Chromium (docs/console.md "History", "Flaky tests",
 * "Comparing runs"; docs/history.md): a test case whose target answers 200 and 500 in turn runs
 * four times on one runner, then
 *
 * - its page shows the history strip (four cells, oldest left, alternating), the pass rate, the
 *   p95, "failing since" the last run, the flaky mark and the node's figures;
 * - the flaky list names it on that runner and environment; another runner's list is empty;
 * - the run page shows each test case's strip on the run's runner and environment with this run's
 *   cell outlined and the flaky mark; **Rerun failed** starts a run, linked to its origin, of the
 *   failed test case only;
 * - the runner form sets `quarantineFlaky` and `baseline`, the deployment form pins a baseline
 *   run; the next run whose flaky test case fails passes, the test case marked quarantined;
 * - the compare page of two functional runs says regression and lists the newly failing test
 *   case; of two performance runs (the second against a slowed target) shows the figures side by
 *   side, the plans' difference (a variable) and the two series overlaid;
 * - the HTML report tags flaky and quarantined test cases.
 *
 * Against the real API, a worker on the Temporal dev server and loopback targets.
 */
import { expect } from 'chai';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { writeReports } from '../../cli/reports/index';
import { flakyRun } from '../fixtures/junit/report-documents';
import { waitForRun, type TestApp } from '../helpers/app';
import { startTarget, type Target } from '../helpers/target';
import { launchBrowser, screenshot, signedIn, startConsoleApp } from '../helpers/browser';

/** A loopback server whose `GET /coin` answers 200, then 500, then 200…; `failNext` decides the next answer. */
interface Coin {
  url: string;
  failNext: boolean;
  hits: number;
  close(): Promise<void>;
}

async function startCoin(): Promise<Coin> {
  const coin = { failNext: false, hits: 0 } as Coin;
  const server = http.createServer((req, res) => {
    coin.hits += 1;
    const fail = coin.failNext;
    coin.failNext = !fail;
    res.writeHead(fail ? 500 : 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ok: !fail }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  coin.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  coin.close = () => new Promise((resolve) => server.close(() => resolve()));
  return coin;
}

const status200 = [{ target: 'response.status', operator: 'equals', expected: 200 }];

describe('console: history, flaky tests, compare and rerun (Chromium)', function () {
  this.timeout(240_000);
  let app: TestApp;
  let target: Target;
  let coin: Coin;
  let browser: Browser;
  let wobblyId: string;
  let stableId: string;
  /** The four runs of runner `nightly`: wobbly passed, failed, passed, failed. */
  const runs: string[] = [];

  /** Starts a run and waits for it to end; its run document. */
  async function run(body: Record<string, unknown>): Promise<any> {
    const res = await app.request('POST', '/v1/runs', body);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return waitForRun(app, res.body.runId, 90_000);
  }

  before(async () => {
    // Each assigned as it starts, so `after` closes what started even when another failed to.
    const started = await Promise.allSettled([
      startConsoleApp({ worker: true }).then((a) => (app = a)),
      startTarget().then((t) => (target = t)),
      startCoin().then((c) => (coin = c)),
      launchBrowser().then((b) => (browser = b)),
    ]);
    for (const s of started) if (s.status === 'rejected') throw s.reason;
    const env = await app.request('POST', '/v1/environments', {
      name: 'local',
      variables: { base: target.url, coin: coin.url, delay: 1 },
    });
    expect(env.status, JSON.stringify(env.body)).to.equal(201);
    const stable = await app.request('POST', '/v1/test-cases', {
      name: 'stable user',
      folder: 'hist',
      flow: [{ type: 'api', id: 'get', request: { method: 'GET', url: '{{base}}/users/1' }, assertions: status200 }],
    });
    const wobbly = await app.request('POST', '/v1/test-cases', {
      name: 'wobbly coin',
      folder: 'hist',
      flow: [
        {
          type: 'api',
          id: 'toss',
          name: 'Toss',
          request: { method: 'GET', url: '{{coin}}/coin' },
          assertions: status200,
        },
      ],
    });
    const load = await app.request('POST', '/v1/test-cases', {
      name: 'search under load',
      folder: 'load',
      flow: [
        {
          type: 'api',
          id: 'search',
          name: 'search',
          request: { method: 'GET', url: '{{base}}/slow?ms={{delay}}' },
          assertions: status200,
        },
      ],
    });
    for (const r of [stable, wobbly, load]) expect(r.status, JSON.stringify(r.body)).to.equal(201);
    stableId = stable.body.id;
    wobblyId = wobbly.body.id;
    expect((await app.request('POST', '/v1/runners', { name: 'nightly', folder: 'hist' })).status).to.equal(201);
    expect((await app.request('POST', '/v1/runners', { name: 'load', folder: 'load' })).status).to.equal(201);
    // Four runs, one after the other: wobbly passes, fails, passes, fails (three flips: flaky).
    for (let i = 0; i < 4; i++) {
      coin.failNext = i % 2 === 1;
      const done = await run({ runner: 'nightly', environment: 'local' });
      expect(done.result, `run ${i + 1}`).to.equal(i % 2 === 1 ? 'failed' : 'passed');
      runs.push(done.runId);
    }
  });
  after(async () => {
    await browser?.close();
    await coin?.close();
    await target?.close();
    await app?.stop();
  });

  /** The outcomes a strip shows, oldest first. */
  const cells = (page: Page, scope = page.locator('body')) =>
    scope.locator('.hs-cell').evaluateAll((els) => els.map((e) => e.getAttribute('data-status')));

  it('the test case page: the history strip with pass rate, p95, failing since, the flaky mark and the node figures', async () => {
    const { context, page } = await signedIn(browser, app);
    await page.goto(`${app.url}/test-cases/${wobblyId}`);
    const section = page.getByRole('region', { name: 'History' });
    const strip = section.getByTestId('history-strip');
    await strip.locator('.hs-cell').first().waitFor();
    expect(await cells(page, strip)).to.deep.equal(['passed', 'failed', 'passed', 'failed']);
    // Each cell links to its run, oldest first.
    expect(
      await strip.locator('.hs-cell').evaluateAll((els) => els.map((e) => e.getAttribute('data-run'))),
    ).to.deep.equal(runs);
    expect(await strip.getByTestId('pass-rate').textContent()).to.equal('pass rate 50 %');
    expect(await strip.getByTestId('p95').textContent()).to.match(/^p95 \d+(\.\d)? ms$/);
    const since = strip.getByTestId('failing-since');
    expect(await since.locator('a').getAttribute('href')).to.equal(`/runs/${runs[3]}`);
    expect(await strip.getByTestId('flaky').textContent()).to.equal('flaky');
    const flakyOn = section.getByRole('table', { name: 'Flaky on' });
    expect(await flakyOn.locator('tbody tr').count()).to.equal(1);
    expect(await flakyOn.locator('tbody tr').textContent())
      .to.contain('nightly')
      .and.contain('local')
      .and.contain('3 in');
    const node = section.getByRole('table', { name: 'Nodes over the history' }).locator('tr[data-node="toss"]');
    expect(await node.textContent())
      .to.contain('Toss')
      .and.contain('50 %')
      .and.contain('2/4');
    expect(await section.getByTestId('last-failure').locator('a').getAttribute('href')).to.equal(`/runs/${runs[3]}`);
    // A filter that matches nothing says so.
    await section.getByLabel('Runner').fill('another');
    await section.getByRole('button', { name: 'Apply' }).click();
    await section.getByText('No run of this test case matches').waitFor();
    await section.getByLabel('Runner').fill('nightly');
    await section.getByRole('button', { name: 'Apply' }).click();
    await strip.locator('.hs-cell').first().waitFor();
    await screenshot(page, 'history-test-case');
    await context.close();
  });

  it('the flaky list names the test case on its runner and environment, and filters by runner', async () => {
    const { context, page } = await signedIn(browser, app);
    await page.goto(`${app.url}/runs`);
    await page.getByRole('link', { name: 'Flaky tests' }).click();
    const table = page.getByRole('table', { name: 'Flaky test cases' });
    await table.waitFor();
    const rows = table.locator('tbody tr');
    expect(await rows.count()).to.equal(1);
    expect(await rows.getAttribute('data-test-case')).to.equal(wobblyId);
    const text = await rows.textContent();
    expect(text).to.contain('wobbly coin').and.contain('nightly').and.contain('local').and.contain('3 in 4');
    await rows.locator('.hs-cell').first().waitFor();
    expect(await cells(page, rows)).to.deep.equal(['passed', 'failed', 'passed', 'failed']);
    await screenshot(page, 'flaky');
    await page.getByLabel('Runner').fill('load');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('No flaky test case').waitFor();
    expect(new URL(page.url()).search).to.equal('?runner=load');
    await context.close();
  });

  it('the run page: each test case with its strip on this runner and environment, this run outlined, the flaky mark; Rerun failed runs only the failed one', async () => {
    const { context, page } = await signedIn(browser, app);
    await page.goto(`${app.url}/runs/${runs[3]}`);
    const wobbly = page.locator('details[data-testcase="wobbly coin"]');
    const stable = page.locator('details[data-testcase="stable user"]');
    await wobbly.locator('.hs-cell').first().waitFor();
    await stable.locator('.hs-cell').first().waitFor();
    expect(await cells(page, wobbly)).to.deep.equal(['passed', 'failed', 'passed', 'failed']);
    expect(await cells(page, stable)).to.deep.equal(['passed', 'passed', 'passed', 'passed']);
    expect(await wobbly.locator('.hs-cell.hs-current').getAttribute('data-run')).to.equal(runs[3]);
    expect(await wobbly.locator('summary .badge-flaky').count()).to.equal(1);
    expect(await stable.locator('summary .badge-flaky').count()).to.equal(0);
    expect(await stable.getByTestId('history-strip').getAttribute('data-test-case')).to.equal(stableId);
    // The node that flips is named flaky too (results' flakyNodes).
    expect(await wobbly.locator('[data-flaky-node]').getAttribute('data-flaky-node')).to.equal('toss');
    await screenshot(page, 'history-run');

    const hitsBefore = target.hits.get('/users/1') ?? 0;
    coin.failNext = false;
    await page.getByRole('button', { name: 'Rerun failed' }).click();
    await page.waitForURL((u) => u.pathname.startsWith('/runs/') && !u.pathname.endsWith(runs[3]!));
    const rerunId = new URL(page.url()).pathname.split('/').pop()!;
    expect(await page.getByTestId('origin').textContent()).to.equal('rerun of');
    expect(await page.locator('.page-sub a', { hasText: runs[3]! }).count()).to.equal(1);
    const done = await waitForRun(app, rerunId);
    expect(done.result).to.equal('passed');
    expect(done.origin).to.deep.include({ kind: 'rerun', runId: runs[3] });
    const results = await app.request('GET', `/v1/runs/${rerunId}/results`);
    expect(results.body.details.testCases.map((t: { name: string }) => t.name)).to.deep.equal(['wobbly coin']);
    expect(target.hits.get('/users/1') ?? 0, 'the passing test case did not run again').to.equal(hitsBefore);
    await page.locator('details[data-testcase="wobbly coin"] .badge-passed').first().waitFor();
    await context.close();
  });

  it('the runner form sets quarantine and the baseline, the deployment form a pinned baseline; the next failure of the flaky test case is quarantined and the run passes', async () => {
    const { context, page } = await signedIn(browser, app);
    await page.goto(`${app.url}/runners/nightly`);
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Quarantine flaky test cases').check();
    await page.getByLabel('Baseline (what its runs compare with)').selectOption('lastPassing');
    await page.getByRole('button', { name: 'Save runner' }).click();
    await page.getByTestId('baseline').getByText('the last passing run', { exact: true }).waitFor();
    expect(await page.getByTestId('quarantine').textContent()).to.match(/^quarantined/);
    const saved = await app.request('GET', '/v1/runners/nightly');
    expect(saved.body).to.include({ quarantineFlaky: true, baseline: 'lastPassing' });
    // A pinned run that does not exist is refused at the field.
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Baseline (what its runs compare with)').selectOption('run');
    await page.getByLabel('Baseline run id').fill('run_00000000000000000000000000');
    await page.getByRole('button', { name: 'Save runner' }).click();
    await page.locator('.field-invalid').first().waitFor();
    expect(await page.locator('.field-invalid .field-error').first().textContent()).to.match(/run|baseline/i);
    await page.getByRole('button', { name: 'Cancel' }).click();

    // A deployment pins its own baseline over the runner's.
    const dep = await app.request('POST', '/v1/deployments', {
      name: 'nightly-ci',
      runner: 'nightly',
      environment: 'local',
    });
    expect(dep.status, JSON.stringify(dep.body)).to.equal(201);
    await page.goto(`${app.url}/deployments/${dep.body.id}`);
    expect(await page.getByTestId('baseline').textContent()).to.equal('the runner’s');
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Baseline (what its runs compare with)').selectOption('run');
    await page.getByLabel('Baseline run id').fill(runs[2]!);
    await page.getByRole('button', { name: 'Save deployment' }).click();
    await page.getByTestId('baseline').getByRole('link', { name: runs[2]! }).waitFor();
    expect((await app.request('GET', `/v1/deployments/${dep.body.id}`)).body.baseline).to.equal(runs[2]);

    coin.failNext = true;
    const done = await run({ runner: 'nightly', environment: 'local' });
    expect(done.result, 'a quarantined failure does not fail the run').to.equal('passed');
    await page.goto(`${app.url}/runs/${done.runId}`);
    const wobbly = page.locator('details[data-testcase="wobbly coin"]');
    await wobbly.locator('summary .badge-quarantined').waitFor();
    expect(await wobbly.locator('summary .badge-failed').count()).to.equal(1);
    await wobbly.locator('.hs-cell.hs-current').waitFor();
    expect(await wobbly.locator('.hs-cell.hs-current').getAttribute('class')).to.contain('hs-quarantined');
    await screenshot(page, 'history-quarantined');
    await context.close();
  });

  it('compares two functional runs: a regression, the newly failing test case, the same plan', async () => {
    const { context, page } = await signedIn(browser, app);
    await page.goto(`${app.url}/runs/${runs[3]}`);
    await page.getByLabel('Base run id').fill(runs[2]!);
    await page.getByRole('button', { name: 'Compare', exact: true }).click();
    await page.waitForURL(`${app.url}/runs/${runs[2]}/compare/${runs[3]}`);
    expect(await page.getByTestId('verdict').textContent()).to.equal('regression');
    const newly = page.getByRole('table', { name: 'Newly failing' });
    expect(await newly.locator('tbody tr').count()).to.equal(1);
    expect(await newly.locator('tbody tr').textContent()).to.contain('wobbly coin');
    expect(await page.getByTestId('unchanged').textContent()).to.equal('1 test case unchanged.');
    expect(await page.getByTestId('same-plan').textContent()).to.contain('same plan');
    expect(await page.getByTestId('plan-diff').count()).to.equal(0);
    await context.close();
  });

  it('compares two performance runs: every figure side by side, the plans’ difference, the two series overlaid', async () => {
    const profile = { executor: 'constant-vus', vus: 2, duration: '3s', thinkTime: '20ms' };
    const base = await run({ runner: 'load', environment: 'local', performance: profile, variables: { delay: 2 } });
    const head = await run({ runner: 'load', environment: 'local', performance: profile, variables: { delay: 80 } });
    const { context, page } = await signedIn(browser, app);
    await page.goto(`${app.url}/runs/${base.runId}/compare/${head.runId}`);
    const perf = page.getByRole('region', { name: 'Performance' });
    await perf.waitFor();
    expect(await page.getByTestId('verdict').textContent()).to.equal('regression');
    const p95 = perf.getByRole('table', { name: 'Figures side by side' }).locator('tr[data-figure="p95"]');
    expect(await p95.locator('td').last().getAttribute('class')).to.contain('cmp-worse');
    expect(await p95.locator('td').last().textContent()).to.match(/^\+\d/);
    for (const chart of ['p95 response time', 'Requests per second']) {
      const img = perf.getByRole('img', { name: new RegExp(`^${chart}`) });
      expect(await img.locator('canvas').count(), chart).to.be.greaterThan(0);
      const legend = await img.locator('.u-legend').textContent();
      expect(legend, chart).to.contain('base').and.contain('head');
    }
    expect(await perf.getByRole('table', { name: 'Requests side by side' }).textContent()).to.contain('search');
    expect(await page.getByTestId('same-plan').textContent()).to.contain('plans differ');
    expect(await page.getByTestId('plan-diff').textContent()).to.contain('delay');
    await perf.scrollIntoViewIfNeeded();
    await screenshot(page, 'compare-performance');
    await context.close();
  });

  it('the HTML report tags the flaky and the quarantined test case and counts them', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'assay-history-report-'));
    try {
      const [file] = await writeReports(flakyRun(), ['html'], dir);
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, offline: true });
      const page = await context.newPage();
      await page.goto(pathToFileURL(file!).href);
      const wobbly = page.locator('details.tc', { hasText: 'wobbly search' });
      expect(await wobbly.locator('.tag.flaky').isVisible()).to.equal(true);
      expect(await wobbly.locator('.tag.flaky').getAttribute('title')).to.contain('flipped 4 times');
      const checkout = page.locator('details.tc', { hasText: 'checkout' });
      expect(await checkout.locator('.tag.quarantined').isVisible()).to.equal(true);
      expect(await page.locator('[data-card="flaky"] .v').textContent()).to.equal('2');
      expect(await page.locator('[data-card="quarantined"] .v').textContent()).to.equal('1');
      expect(await page.locator('[data-outcome]').textContent()).to.equal('PASSED');
      await checkout.scrollIntoViewIfNeeded();
      await screenshot(page, 'report-flaky');
      await context.close();
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
