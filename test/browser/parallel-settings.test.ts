/**
 * The console's scheduling fields (docs/parallel.md) in a real Chromium against a real API and
 * database: a runner's "Test cases at once", "Stop after failures" and "Per origin: max in flight"
 * set through its form, stored by the API and shown on its page; a value out of range refused with
 * the API's field error at its input, nothing stored; a deployment left empty showing "the runner’s"
 * (and a value of its own put back to it); a run started with options (concurrency, bail, folder,
 * tags) whose document and page show them, and its progress while running (test cases done and
 * under way); a test case's "Depends on" chosen by name in the designer
 * and stored as ids. No worker runs: the run stays queued, and only what the API stores and shows is
 * checked (the run workflow's side is tested in test/integration).
 */
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { TestApp } from '../helpers/app';
import { Run } from '../../src/store/entities';
import { launchBrowser, screenshot, signedIn, startConsoleApp } from '../helpers/browser';

/**
 * Waits until the element of `data-testid` `testId` reads `text` (a page reloads its data after a
 * save: the old text may show a moment), then checks it once more.
 */
async function shows(page: Page, testId: string, text: string): Promise<void> {
  const el = page.getByTestId(testId);
  await el
    .filter({ hasText: new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) })
    .waitFor({ timeout: 10_000 })
    .catch(() => undefined);
  expect((await el.innerText()).trim(), testId).to.equal(text);
}

/** A one-node flow that waits 1 ms. */
const FLOW = [{ type: 'wait', id: 'w', name: 'w', ms: 1 }];

describe('console parallel suite settings', function () {
  this.timeout(120_000);
  let app: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const ids: Record<string, string> = {};
  const runIds: string[] = [];

  before(async () => {
    [app, browser] = await Promise.all([startConsoleApp(), launchBrowser()]);
    const env = await app.request('POST', '/v1/environments', { name: 'staging', variables: {} });
    expect(env.status, JSON.stringify(env.body)).to.equal(201);
    for (const [name, folder, tags] of [
      ['create user', 'users', ['smoke']],
      ['login', 'users', ['smoke']],
      ['list orders', 'orders', []],
    ] as const) {
      const res = await app.request('POST', '/v1/test-cases', { name, folder, tags, flow: FLOW });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      ids[name] = res.body.id;
    }
    ({ context, page } = await signedIn(browser, app));
  });

  after(async () => {
    // The queued runs (no worker here) are cancelled, so nothing waits on them.
    for (const id of runIds) await app?.request('POST', `/v1/runs/${id}/cancel`);
    await context?.close();
    await browser?.close();
    await app?.stop();
  });

  it('sets a runner’s test cases at once, stop after failures and max in flight through its form', async () => {
    await page.goto(`${app.url}/runners/new`);
    await page.getByLabel('Runner name').fill('nightly');
    await page.getByLabel('Test cases at once').fill('8');
    await page.getByLabel('Stop after failures').fill('2');
    await page.getByLabel('Per origin: max in flight').fill('3');
    await page.getByRole('button', { name: 'Create runner' }).click();
    await page.waitForURL(`${app.url}/runners/nightly`);

    const stored = await app.request('GET', '/v1/runners/nightly');
    expect(stored.status).to.equal(200);
    expect(stored.body).to.include({ concurrency: 8, bail: 2 });
    expect(stored.body.originLimits).to.deep.equal({ maxInFlight: 3 });

    await shows(page, 'concurrency', '8 at once');
    await shows(page, 'bail', 'after 2 failures');
    await shows(page, 'origin-limits', 'at most 3 in flight per origin');
    await screenshot(page, 'runner-parallel');
  });

  it('shows the API’s field error for 100 test cases at once and stores nothing', async () => {
    await page.goto(`${app.url}/runners/nightly`);
    await page.getByRole('button', { name: 'Edit' }).click();
    const input = page.getByLabel('Test cases at once');
    expect(await input.inputValue()).to.equal('8');
    await input.fill('100');
    await page.getByRole('button', { name: 'Save runner' }).click();
    const field = page.locator('label.field').filter({ hasText: 'Test cases at once' });
    const error = field.getByRole('alert');
    await error.waitFor();
    expect(await error.innerText()).to.match(/64/);
    expect(await field.getAttribute('class')).to.contain('field-invalid');
    await screenshot(page, 'runner-parallel-error');
    const stored = await app.request('GET', '/v1/runners/nightly');
    expect(stored.body.concurrency).to.equal(8);

    // Cleared, the limits go back to none; the rest is kept.
    await input.fill('8');
    await page.getByLabel('Per origin: max in flight').fill('');
    await page.getByRole('button', { name: 'Save runner' }).click();
    await page.getByRole('button', { name: 'Edit' }).waitFor();
    await shows(page, 'origin-limits', 'no limit');
    const after = await app.request('GET', '/v1/runners/nightly');
    expect(after.body).to.include({ concurrency: 8, bail: 2, originLimits: null });
  });

  it('shows “the runner’s” for a deployment left empty, and puts a value of its own back to it', async () => {
    await page.goto(`${app.url}/deployments/new`);
    await page.getByLabel('Deployment name').fill('nightly-staging');
    await page.getByLabel('Runner').selectOption('nightly');
    await page.getByLabel('Environment').selectOption('staging');
    await page.getByRole('button', { name: 'Create deployment' }).click();
    await page.waitForURL(/\/deployments\/[^/]+$/);
    for (const id of ['concurrency', 'bail', 'origin-limits']) await shows(page, id, 'the runner’s');
    const depId = page.url().split('/').pop()!;
    const stored = await app.request('GET', `/v1/deployments/${depId}`);
    expect(stored.body).to.include({ concurrency: null, bail: null, originLimits: null });

    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Test cases at once').fill('4');
    await page.getByLabel('Per origin: requests per second').fill('2.5');
    await page.getByRole('button', { name: 'Save deployment' }).click();
    await page.getByRole('button', { name: 'Edit' }).waitFor();
    await shows(page, 'concurrency', '4 at once');
    await shows(page, 'bail', 'the runner’s');
    await shows(page, 'origin-limits', '2.5 requests/s per origin');
    expect((await app.request('GET', `/v1/deployments/${depId}`)).body).to.deep.include({
      concurrency: 4,
      bail: null,
      originLimits: { requestsPerSecond: 2.5 },
    });

    await page.getByRole('button', { name: 'Edit' }).click();
    expect(await page.getByLabel('Test cases at once').inputValue()).to.equal('4');
    await page.getByLabel('Test cases at once').fill('');
    await page.getByLabel('Per origin: requests per second').fill('');
    await page.getByRole('button', { name: 'Save deployment' }).click();
    await page.getByRole('button', { name: 'Edit' }).waitFor();
    await shows(page, 'concurrency', 'the runner’s');
    expect((await app.request('GET', `/v1/deployments/${depId}`)).body).to.include({
      concurrency: null,
      originLimits: null,
    });
  });

  it('starts a run with its own test cases at once, bail, folder and tags', async () => {
    await page.goto(`${app.url}/runs/new?runner=nightly&environment=staging`);
    await page.getByText(/^Options:/).click();
    await page.getByLabel('Test cases at once').fill('3');
    await page.getByLabel('Stop after failures').fill('1');
    await page.getByLabel('Only the folder').fill('users');
    await page.getByLabel('Only the tags').fill('smoke');
    await screenshot(page, 'start-run-options');
    await page.getByRole('button', { name: 'Start run' }).click();
    await page.waitForURL(/\/runs\/run_[^/]+$/);
    const runId = page.url().split('/').pop()!;
    runIds.push(runId);

    const run = (await app.request('GET', `/v1/runs/${runId}`)).body;
    expect(run).to.include({ concurrency: 3, bail: 1 });
    expect(run.selection).to.deep.equal({ folder: 'users', tags: ['smoke'] });
    await shows(page, 'concurrency', '3 at once');
    await shows(page, 'bail', 'bail after 1');
    await shows(page, 'selection', 'only folder users · tags smoke');
    await screenshot(page, 'run-parallel');
  });

  it('shows a running run’s progress as done and under way', async () => {
    const runId = runIds[0]!;
    // What the run workflow's checkpoint stores while 3 of 4 test cases are under way (no worker
    // runs here: the row is written as it would write it).
    await app.dataSource.getRepository(Run).update(runId, {
      status: 'running',
      startedAt: new Date(),
      progressCompleted: 1,
      progressTotal: 4,
      progressRunning: 3,
    });
    await page.goto(`${app.url}/runs/${runId}`);
    await page.getByText(/^1 of 4 done, 3 under way · expected to finish/).waitFor({ timeout: 10_000 });
    expect((await app.request('GET', `/v1/runs/${runId}`)).body.progress).to.include({ completed: 1, running: 3 });
  });

  it('starts a run with nothing set: the options are not sent, the run inherits', async () => {
    await page.goto(`${app.url}/runs/new?runner=nightly&environment=staging`);
    const sent = page.waitForRequest((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/v1/runs');
    await page.getByRole('button', { name: 'Start run' }).click();
    const body = (await sent).postDataJSON() as Record<string, unknown>;
    expect(body).to.not.have.any.keys('concurrency', 'bail', 'originLimits', 'folder', 'tags');
    await page.waitForURL(/\/runs\/run_[^/]+$/);
    const runId = page.url().split('/').pop()!;
    runIds.push(runId);
    const run = (await app.request('GET', `/v1/runs/${runId}`)).body;
    expect(run).to.include({ runId, concurrency: null, bail: null });
    expect(run).to.not.have.property('selection');
    expect(await page.getByTestId('selection').count()).to.equal(0);
  });

  it('chooses a test case’s dependencies by name in the designer and stores their ids', async () => {
    await page.goto(`${app.url}/test-cases/${ids['login']}`);
    await page.getByText('Test case: name, folder, tags, auth, data sets, hooks').click();
    const add = page.getByRole('combobox', { name: 'Add a dependency' });
    // Itself is not offered.
    expect(await add.locator('option').allInnerTexts()).to.not.include('users/login');
    await add.selectOption({ label: 'users/create user' });
    const chosen = page.getByRole('list', { name: 'Depends on' });
    await chosen.getByText('users/create user').waitFor();
    await screenshot(page, 'designer-depends-on');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText(/^Saved at /).waitFor();
    expect((await app.request('GET', `/v1/test-cases/${ids['login']}`)).body.dependsOn).to.deep.equal([
      ids['create user'],
    ]);

    // Shown again after a reload, then removed.
    await page.reload();
    await page.getByText('Test case: name, folder, tags, auth, data sets, hooks').click();
    await page.getByRole('button', { name: 'Remove dependency users/create user' }).click();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText(/^Saved at /).waitFor();
    expect((await app.request('GET', `/v1/test-cases/${ids['login']}`)).body.dependsOn).to.deep.equal([]);
  });
});
