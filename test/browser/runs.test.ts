/**
 * The web console's runs in a real Chromium (docs/console.md "Runs", "How it is tested"): sign-in with the key kept in
 * session or local storage, starting a run from the form and watching its progress bar move and
 * its result appear, a failed assertion's expected and actual, the runs list with live progress
 * and filters, cancel and re-run, no layout jump while the run updates, the dark theme, and the
 * keyboard. Against the real API, a worker on the Temporal dev server and a loopback target.
 */
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { eventually, waitForRun, type TestApp } from '../helpers/app';
import { startTarget, type Target } from '../helpers/target';
import { launchBrowser, openConsole, startConsoleApp, screenshot, signIn, signedIn } from '../helpers/browser';

const get = (url: string, assertions: unknown[] = []) => ({ type: 'api', request: { method: 'GET', url }, assertions });

describe('console: runs (Chromium)', function () {
  this.timeout(180_000);
  let app: TestApp;
  let target: Target;
  let browser: Browser;

  before(async () => {
    [app, target, browser] = await Promise.all([startConsoleApp({ worker: true }), startTarget(), launchBrowser()]);
    expect(
      (await app.request('POST', '/v1/environments', { name: 'local', variables: { base: target.url } })).status,
    ).to.equal(201);
    // Four slow test cases (progress has steps to show) and one whose assertion fails.
    for (let i = 1; i <= 4; i++) {
      const res = await app.request('POST', '/v1/test-cases', {
        name: `slow ${i}`,
        folder: 'e2e',
        flow: [get(`{{base}}/slow?ms={{delay}}`, [{ target: 'response.status', operator: 'equals', expected: 200 }])],
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
    }
    const failing = await app.request('POST', '/v1/test-cases', {
      name: 'user name',
      folder: 'e2e',
      flow: [
        {
          ...get('{{base}}/users/1', [{ target: 'response.body.name', operator: 'equals', expected: 'Grace' }]),
          id: 'getUser',
          name: 'Get user 1',
        },
      ],
    });
    expect(failing.status).to.equal(201);
    expect((await app.request('POST', '/v1/runners', { name: 'e2e', folder: 'e2e' })).status).to.equal(201);
    expect(
      (await app.request('POST', '/v1/runners', { name: 'quick', testCaseIds: [failing.body.id] })).status,
    ).to.equal(201);
  });
  after(async () => {
    await browser?.close();
    await target?.close();
    await app?.stop();
  });

  /** The run id in the page's address (/runs/<id>). */
  const runIdOf = (page: Page) => new URL(page.url()).pathname.split('/').pop()!;

  it('refuses an unknown key with the API problem, then signs in showing the workspace and the key scope, kept only for the session', async () => {
    const { context, page } = await openConsole(browser, app);
    await screenshot(page, 'sign-in');
    await page.getByLabel('API key').fill('assay_not_a_key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(await page.getByRole('alert').textContent()).to.match(/Unauthorized|unauthorized/i);
    await signIn(page, app.key);
    expect(await page.getByTestId('workspace').textContent()).to.equal('default');
    expect(await page.getByTestId('scope').textContent()).to.equal('write');
    const stored = await page.evaluate(() => ({
      session: sessionStorage.getItem('assay.session'),
      local: localStorage.getItem('assay.session'),
    }));
    expect(stored.session).to.contain(app.key);
    expect(stored.local).to.equal(null);
    // A reload keeps the session (same tab); a new tab of the context does not (sessionStorage).
    await page.reload();
    await page.getByTestId('workspace').waitFor();
    const other = await context.newPage();
    await other.goto(app.url);
    await other.getByLabel('API key').waitFor();
    await context.close();
  });

  it('remembers the key in local storage when asked, and shows a read key as read without run buttons', async () => {
    const reader = await app.issueKey('read');
    const { context, page } = await openConsole(browser, app);
    await signIn(page, reader, { remember: true });
    expect(await page.getByTestId('scope').textContent()).to.equal('read');
    expect(await page.evaluate(() => localStorage.getItem('assay.session'))).to.contain(reader);
    expect(await page.getByRole('link', { name: 'Start a run' }).count()).to.equal(0);
    const again = await context.newPage();
    await again.goto(`${app.url}/runs`);
    await again.getByTestId('workspace').waitFor();
    await again.getByRole('button', { name: 'Sign out' }).click();
    await again.getByLabel('API key').waitFor();
    expect(await again.evaluate(() => localStorage.getItem('assay.session'))).to.equal(null);
    await context.close();
  });

  it('starts a run from the form; its progress bar moves, the layout stays put, and the result appears', async () => {
    const { context, page } = await signedIn(browser, app);
    // The header's link (an empty list offers one too, in its empty state).
    await page.locator('header').getByRole('link', { name: 'Start a run' }).click();
    await page.getByLabel('Runner').selectOption('e2e');
    await page.getByLabel('Environment').selectOption('local');
    await page.getByLabel('Name 1').fill('delay');
    await page.getByLabel('Value 1').fill('1500');
    await page.getByRole('button', { name: 'Start run' }).click();
    await page.waitForURL(/\/runs\/run_/);
    const runId = runIdOf(page);

    const bar = page.getByRole('progressbar', { name: 'Run progress' });
    const heading = page.getByRole('heading', { name: 'Test cases' });
    const seen = new Set<string>();
    const headingTops = new Set<number>();
    await eventually(
      async () => {
        if (await bar.count()) {
          seen.add((await bar.getAttribute('aria-valuenow')) ?? '');
          headingTops.add(Math.round((await heading.boundingBox())!.y));
          if (seen.size >= 3) await screenshot(page, 'run-running');
        }
        return seen.size >= 3 || (await page.getByText('completed', { exact: true }).count()) > 0;
      },
      60_000,
      200,
    );
    // At least two distinct values between 0 and 100 were on screen: the bar moved.
    const values = [...seen].map(Number).filter((n) => n > 0 && n < 100);
    expect(values.length, `progress values seen: ${[...seen]}`).to.be.at.least(2);
    expect([...headingTops], 'the test cases heading never moved while the run updated').to.have.length(1);

    await page
      .getByRole('group', { name: 'Summary' })
      .or(page.locator('[aria-label="Summary"]'))
      .getByText('failed', { exact: true })
      .waitFor({ timeout: 60_000 });
    const run = await waitForRun(app, runId);
    expect(run.result).to.equal('failed');
    expect(await page.locator('[aria-label="Summary"]').textContent()).to.contain('completed');
    await eventually(async () => (await page.locator('details.testcase').count()) === 5, 10_000);
    await screenshot(page, 'run-failed');
    await context.close();
  });

  it('opens a failed assertion with expected and actual side by side, and the request it made', async () => {
    const start = await app.request('POST', '/v1/runs', { runner: 'quick', environment: 'local' });
    await waitForRun(app, start.body.runId);
    const { context, page } = await signedIn(browser, app);
    await page.goto(`${app.url}/runs/${start.body.runId}`);
    const tc = page.locator('details.testcase[data-testcase="user name"]');
    await tc.waitFor();
    // A failed test case is open by default; its failure names the assertion.
    expect(await tc.getAttribute('open')).to.not.equal(null);
    const failure = tc.locator('.failure').first();
    expect(await failure.textContent()).to.contain('response.body.name');
    expect(await failure.getByTestId('expected').textContent()).to.equal('"Grace"');
    expect(await failure.getByTestId('actual').textContent()).to.equal('"Ada"');
    expect(await tc.getByText(`GET ${target.url}/users/1`).count()).to.equal(1);
    expect(await tc.getByRole('table', { name: 'Assertions of Get user 1' }).count()).to.equal(1);
    const temporal = page.getByRole('link', { name: 'Open in Temporal Web UI' });
    expect(await temporal.getAttribute('href')).to.contain(`run-${start.body.runId}`);
    await context.close();
  });

  it('lists runs newest first with live progress bars, filters by runner, and pages', async () => {
    const slow = await app.request('POST', '/v1/runs', {
      runner: 'e2e',
      environment: 'local',
      variables: { delay: 1200 },
    });
    const { context, page } = await signedIn(browser, app);
    await page.goto(`${app.url}/runs`);
    const row = page.locator(`tr[data-run-id="${slow.body.runId}"]`);
    await row.waitFor();
    const firstRow = page.locator('tbody tr').first();
    expect(await firstRow.getAttribute('data-run-id'), 'newest first').to.equal(slow.body.runId);
    await row.getByRole('progressbar').waitFor({ timeout: 30_000 });
    await screenshot(page, 'runs');
    await page.getByLabel('Runner').selectOption('quick');
    await page.waitForURL(/runner=quick/);
    await eventually(async () => (await page.locator(`tr[data-run-id="${slow.body.runId}"]`).count()) === 0, 10_000);
    const runners = await page.locator('tbody tr td:nth-child(2)').allTextContents();
    expect(runners.length).to.be.greaterThan(0);
    expect(new Set(runners)).to.deep.equal(new Set(['quick']));
    // The list ends when the run ends: it finishes on the list without a reload.
    await page.getByLabel('Runner').selectOption('');
    await eventually(async () => (await row.getByText('failed', { exact: true }).count()) > 0, 60_000, 250);

    // Two a page: Older shows the next two, Newer comes back (this test's own runs make at least three).
    for (let i = 0; i < 2; i++)
      await waitForRun(
        app,
        (await app.request('POST', '/v1/runs', { runner: 'quick', environment: 'local' })).body.runId,
      );
    await page.goto(`${app.url}/runs?limit=2`);
    await page.locator('tbody tr').nth(1).waitFor();
    const first = await page.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run-id')));
    expect(first).to.have.length(2);
    expect(await page.getByRole('button', { name: 'Newer' }).isDisabled()).to.equal(true);
    await page.getByRole('button', { name: 'Older' }).click();
    await eventually(
      async () => (await page.locator('tbody tr').first().getAttribute('data-run-id')) !== first[0],
      10_000,
    );
    const second = await page.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run-id')));
    expect(second.filter((id) => first.includes(id))).to.deep.equal([]);
    await page.getByRole('button', { name: 'Newer' }).click();
    await eventually(
      async () => (await page.locator('tbody tr').first().getAttribute('data-run-id')) === first[0],
      10_000,
    );
    await context.close();
  });

  it('cancels a running run after confirmation, then re-runs it', async () => {
    const start = await app.request('POST', '/v1/runs', {
      runner: 'e2e',
      environment: 'local',
      variables: { delay: 3000 },
    });
    const { context, page } = await signedIn(browser, app);
    await page.goto(`${app.url}/runs/${start.body.runId}`);
    await page.getByRole('progressbar', { name: 'Run progress' }).waitFor();
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Cancel run' }).click();
    await page.getByText('Run cancelled', { exact: true }).waitFor({ timeout: 30_000 });
    expect((await app.request('GET', `/v1/runs/${start.body.runId}`)).body.error).to.equal('Run cancelled');
    await page.getByRole('button', { name: 'Re-run' }).click();
    await page.waitForURL((u) => u.pathname.startsWith('/runs/run_') && !u.pathname.endsWith(start.body.runId));
    const rerun = await app.request('GET', `/v1/runs/${runIdOf(page)}`);
    expect(rerun.body).to.include({ runner: 'e2e', environment: 'local' });
    expect(rerun.body.variables).to.deep.equal({ delay: 3000 });
    await app.request('POST', `/v1/runs/${runIdOf(page)}/cancel`);
    await context.close();
  });

  it('shows a performance run live, then its figures, thresholds and per-second charts', async () => {
    const start = await app.request('POST', '/v1/runs', {
      runner: 'quick',
      environment: 'local',
      performance: {
        executor: 'constant-vus',
        vus: 2,
        duration: '4s',
        thinkTime: '50ms',
        thresholds: { http_req_duration: ['p(95)<2000'], checks: ['rate>0.99'] },
      },
    });
    expect(start.status, JSON.stringify(start.body)).to.equal(201);
    const { context, page } = await signedIn(browser, app);
    await page.goto(`${app.url}/runs/${start.body.runId}`);
    const live = page.locator('[aria-label="Live load figures"]');
    await live.waitFor({ timeout: 30_000 });
    expect(await live.textContent()).to.contain('Active VUs');
    const perf = page.getByRole('region', { name: 'Performance' });
    await perf.waitFor({ timeout: 60_000 });
    // The check (name equals "Grace") fails every time: the checks threshold fails, the duration one passes.
    const thresholds = perf.getByRole('table', { name: 'Thresholds' });
    expect(await thresholds.locator('tr', { hasText: 'checks' }).getByText('failed').count()).to.equal(1);
    expect(await thresholds.locator('tr', { hasText: 'http_req_duration' }).getByText('passed').count()).to.equal(1);
    for (const chart of ['Requests per second and VUs', 'p95 response time (ms)']) {
      const img = perf.getByRole('img', { name: chart });
      expect(await img.locator('canvas').count(), chart).to.be.greaterThan(0);
    }
    await perf.scrollIntoViewIfNeeded();
    await screenshot(page, 'performance');
    await context.close();
  });

  it('shows API problems with their title and detail in the start form', async () => {
    const { context, page } = await signedIn(browser, app);
    await page.goto(`${app.url}/runs/new`);
    await page.getByLabel('Runner').selectOption('quick');
    await page.getByLabel('Environment').selectOption('local');
    await page.getByLabel('Timeout (seconds)').fill('99999999');
    await page.getByRole('button', { name: 'Start run' }).click();
    const problem = page.locator('.problem');
    await problem.waitFor();
    expect(await problem.locator('.problem-title').textContent()).to.equal('Validation failed');
    expect(
      await page
        .locator('.field-invalid')
        .getByText(/timeout|must be/i)
        .count(),
    ).to.be.greaterThan(0);
    await context.close();
  });

  it('loads the code editor (CodeMirror) only on a page that has one', async () => {
    const { context, page } = await openConsole(browser, app);
    const chunks: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/assets/')) chunks.push(new URL(r.url()).pathname);
    });
    await signIn(page, app.key);
    await page.goto(`${app.url}/runs`);
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    expect(chunks.filter((c) => c.includes('code-editor'))).to.deep.equal([]);
    await page.getByRole('link', { name: 'Test cases' }).click();
    await page.getByRole('link', { name: 'New test case' }).first().click();
    // The designer of a new test case shows its hooks in a code editor.
    await page.getByRole('textbox', { name: 'Hooks', exact: true }).waitFor();
    expect(chunks.filter((c) => c.includes('code-editor'))).to.have.length(1);
    await context.close();
  });

  it('opens every section without a script error, for a write key and a read key', async () => {
    for (const key of [app.key, await app.issueKey('read')]) {
      const { context, page } = await openConsole(browser, app);
      const errors: string[] = [];
      page.on('pageerror', (err) => errors.push(`${page.url()}: ${err.message}`));
      page.on('console', (msg) => {
        if (msg.type() === 'error') errors.push(`${page.url()}: ${msg.text()}`);
      });
      await signIn(page, key);
      for (const section of [
        'Runs',
        'Test cases',
        'Environments',
        'Auth profiles',
        'Runners',
        'Deployments',
        'API designs',
        'Libraries',
        'Files',
        'Local requests',
      ]) {
        await page
          .getByRole('navigation', { name: 'Sections' })
          .getByRole('link', { name: section, exact: true })
          .click();
        await page.getByRole('heading', { level: 1 }).first().waitFor();
        await page.waitForLoadState('networkidle');
        expect(await page.locator('[aria-current="page"]').textContent(), section).to.equal(section);
      }
      expect(errors).to.deep.equal([]);
      await context.close();
    }
  });

  it('follows the system theme (dark) and shows keyboard focus', async () => {
    const { context, page } = await signedIn(browser, app, { colorScheme: 'dark' });
    const bg = await page.evaluate('getComputedStyle(document.body).backgroundColor');
    expect(bg).to.equal('rgb(20, 23, 27)');
    await page.keyboard.press('Tab');
    const focused = (await page.evaluate(
      '({ text: document.activeElement.textContent, outline: getComputedStyle(document.activeElement).outlineStyle })',
    )) as { text: string; outline: string };
    expect(focused.text).to.equal('Skip to content');
    expect(focused.outline).to.equal('solid');
    await screenshot(page, 'runs-dark');
    await context.close();
  });
});
