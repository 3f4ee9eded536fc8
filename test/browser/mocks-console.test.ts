/**
 * A design's mock page and the mock data pages (docs/console.md "API designs", "Mock data") in a
 * real Chromium against a real API and database: the import page says request validation is on;
 * the design's Faults tab saves latency, faults and the seed (`PATCH /v1/designs/{id}`; removing
 * the delay replaces the design) and marks a field the API refuses; the Journal tab shows the
 * mock's requests within its 2 s poll, newest first, a request breaking the contract marked with
 * its violations (the picture docs/console/design-mock.png), filtered and cleared; the Data tab shows the shared records
 * of the collection covering the design's path and resets them to the seed; the Mock data pages
 * list collections and create one from a JSON seed; the Recording tab switches the workspace's
 * proxy (`PUT /v1/mock-settings`); a read key sees the settings without edit controls. Data is seeded through the API; the mock is called from here.
 */
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { eventually, type TestApp } from '../helpers/app';
import { launchBrowser, openConsole, signIn, startConsoleApp, screenshot, signedIn } from '../helpers/browser';

describe('console: a design’s mock page and mock data', function () {
  this.timeout(120_000);
  let app: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  /** The workspace's mock address on the app's port: `…/mock/ws_…`. */
  let mock: string;

  before(async () => {
    [app, browser] = await Promise.all([startConsoleApp(), launchBrowser()]);
    mock = `${app.url}/mock/${app.workspaceId}`;
    ({ context, page } = await signedIn(browser, app));
  });

  after(async () => {
    await context?.close();
    await browser?.close();
    await app?.stop();
  });

  /** Creates a design through the API and returns its id. */
  async function design(body: unknown): Promise<string> {
    const res = await app.request('POST', '/v1/designs', body);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.id as string;
  }

  it('says on the import page that imported designs validate requests', async () => {
    await page.goto(`${app.url}/designs/new`);
    const note = page.getByTestId('import-validation');
    await note.waitFor();
    expect(await note.innerText()).to.match(/Request validation is on/);
    expect(await note.innerText()).to.include('mock-request-invalid');
  });

  it('saves a design’s latency, faults and seed from the Faults tab, marks a refused field, and removes the delay', async () => {
    const id = await design({
      method: 'GET',
      path: '/orders/{orderId}',
      name: 'Get an order',
      responses: [{ status: 200, code: 1, data: { id: 7, total: 42 } }],
    });
    await page.goto(`${app.url}/designs/${id}`);
    await page.getByRole('tab', { name: 'Faults' }).click();
    expect(page.url()).to.include('?tab=faults');
    const form = page.getByRole('form', { name: 'Latency and faults' });
    await form.getByRole('combobox').first().selectOption('lognormal');
    await form.getByLabel('Median, ms').fill('80');
    await form.getByLabel('Sigma').fill('0.4');
    await form.getByRole('button', { name: 'Add fault' }).click();
    const fault = form.getByRole('group', { name: 'Fault 1' });
    await fault.getByRole('combobox').selectOption('status');
    await fault.getByLabel('Probability (0–1)').fill('2');
    await form.getByLabel("Seed of the design's random source").fill('42');
    // The API refuses a probability above 1 and names the field; nothing is stored.
    await form.getByRole('button', { name: 'Save faults' }).click();
    await fault.getByRole('alert').waitFor();
    expect(await fault.getByRole('alert').innerText()).to.match(/1|maximum|must be/);
    expect((await app.request('GET', `/v1/designs/${id}`)).body.faults).to.equal(undefined);

    await fault.getByLabel('Probability (0–1)').fill('0.25');
    await fault.getByRole('textbox', { name: /^Status/ }).fill('502');
    await form.getByRole('button', { name: 'Save faults' }).click();
    await form.getByRole('status').getByText('Saved').waitFor();
    const saved = (await app.request('GET', `/v1/designs/${id}`)).body;
    expect(saved.delay).to.deep.equal({ type: 'lognormal', median: 80, sigma: 0.4 });
    expect(saved.faults).to.deep.equal([{ fault: 'status', probability: 0.25, status: 502 }]);
    expect(saved.seed).to.equal(42);
    expect(saved.responses).to.have.length(1);
    // The tab marks that faults are on; the mock section says so.
    await page.getByTestId('mock-validation').getByText('lognormal median 80 ms').waitFor();

    // Removing the delay (a merge patch cannot) replaces the design, keeping everything else.
    await form.getByRole('combobox').first().selectOption('none');
    await form.getByRole('button', { name: 'Save faults' }).click();
    await form.getByRole('status').getByText('Saved').waitFor();
    const after = (await app.request('GET', `/v1/designs/${id}`)).body;
    expect(after.delay).to.equal(undefined);
    expect(after.faults).to.deep.equal(saved.faults);
    expect(after.seed).to.equal(42);
    expect(after.responses).to.deep.equal(saved.responses);
  });

  it('lists the mock’s requests in the Journal tab within its poll, newest first, violations marked', async () => {
    const id = await design({
      method: 'POST',
      path: '/payments',
      name: 'Create a payment',
      requestSchema: {
        type: 'object',
        required: ['amount', 'currency'],
        properties: { amount: { type: 'number', minimum: 1 }, currency: { type: 'string', enum: ['EUR', 'USD'] } },
      },
      responses: [{ status: 201, code: 1, data: { id: 'pay_1', status: 'accepted' } }],
    });
    await page.goto(`${app.url}/designs/${id}?tab=journal`);
    await page.getByText('No requests yet').waitFor();
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${mock}/payments`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    expect((await post({ amount: 42, currency: 'EUR' }, { authorization: 'Bearer sk_live_secret' })).status).to.equal(
      201,
    );
    expect((await post({ amount: 0, currency: 'GBP' }, { 'x-assay-mock-scope': 'run_checkout' })).status).to.equal(422);
    // No reload: the tab asks again every 2 s.
    const rows = page.getByTestId('journal-row');
    await eventually(async () => (await rows.count()) === 2, 10_000);
    // Newest first: the refused request, marked, with its violations and its scope.
    const first = rows.nth(0);
    expect(await first.getAttribute('class')).to.include('mock-violation');
    expect(await first.innerText()).to.include('422');
    expect(await first.innerText()).to.include('run_checkout');
    const violations = await first.getByRole('list', { name: 'Violations' }).innerText();
    expect(violations).to.match(/amount/);
    expect(violations).to.match(/currency/);
    expect(await rows.nth(1).innerText()).to.include('201');
    expect(await rows.nth(1).getAttribute('class')).to.equal(null);
    // The journal keeps no secret: the authorization header is shown masked.
    await rows.nth(1).getByText('Headers and body').click();
    expect(await rows.nth(1).innerText()).to.not.include('sk_live_secret');
    // The picture: the design's title, mock section, tabs and journal, on a taller page than the others.
    await page.setViewportSize({ width: 1280, height: 1180 });
    await page.evaluate('window.scrollTo(0, 0)');
    await screenshot(page, 'design-mock');
    await page.setViewportSize({ width: 1280, height: 800 });

    // Filters: violations only, then one scope.
    await page.getByLabel('Violations only').check();
    await eventually(async () => (await rows.count()) === 1, 10_000);
    await page.getByLabel('Violations only').uncheck();
    await page.getByRole('search', { name: 'Journal filters' }).getByLabel('Scope').fill('run_nobody');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('No requests yet').waitFor();
    await page.getByRole('search', { name: 'Journal filters' }).getByLabel('Scope').fill('');
    await page.getByRole('button', { name: 'Filter' }).click();
    await eventually(async () => (await rows.count()) === 2, 10_000);
    // A write key clears the design's journal.
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Clear journal' }).click();
    await page.getByText('No requests yet').waitFor();
    expect((await app.request('GET', `/v1/designs/${id}/requests`)).body.items).to.have.length(0);
  });

  it('shows the shared records of the collection covering a design in its Data tab, and resets them to the seed', async () => {
    const col = await app.request('POST', '/v1/mock-collections', {
      name: 'users',
      basePath: '/users',
      seed: [
        { id: 1, name: 'Ada' },
        { id: 2, name: 'Grace' },
      ],
    });
    expect(col.status, JSON.stringify(col.body)).to.equal(201);
    const id = await design({
      method: 'GET',
      path: '/users/me',
      name: 'Who am I',
      responses: [{ status: 200, code: 1, data: { id: 1, name: 'Ada' } }],
    });
    // A write through the generated CRUD route, to the shared state.
    const created = await fetch(`${mock}/users`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 3, name: 'Barbara' }),
    });
    expect(created.status).to.equal(201);

    await page.goto(`${app.url}/designs/${id}`);
    await page.getByRole('tab', { name: 'Data' }).click();
    const section = page.getByRole('region', { name: 'Collection users' });
    const records = section.getByRole('table', { name: 'Records of users' }).locator('tbody tr');
    await eventually(async () => (await records.count()) === 3, 10_000);
    expect(await records.nth(2).innerText()).to.include('Barbara');

    page.once('dialog', (d) => void d.accept());
    await section.getByRole('button', { name: 'Reset users' }).click();
    await eventually(async () => (await records.count()) === 2, 10_000);
    expect(await section.innerText()).to.not.include('Barbara');
    expect((await fetch(`${mock}/users/3`)).status).to.equal(404);
  });

  it('lists the data collections and creates one from a JSON seed', async () => {
    await page.goto(`${app.url}/mock-collections`);
    await page.getByRole('table', { name: 'Data collections' }).getByRole('link', { name: 'users' }).waitFor();
    const form = page.getByRole('form', { name: 'New data collection' });
    await form.getByLabel('Name').fill('products');
    await form.getByLabel('CRUD base path').fill('/products');
    await form.getByLabel('Seed (JSON array of records)').fill(JSON.stringify([{ id: 'p1', stock: 3 }]));
    await form.getByRole('button', { name: 'Create collection' }).click();
    await page.waitForURL(/\/mock-collections\/mcol_/);
    await page.getByRole('heading', { name: 'Data: products' }).waitFor();
    const records = page.getByRole('table', { name: 'Records of products' }).locator('tbody tr');
    await eventually(async () => (await records.count()) === 1, 10_000);
    expect(await records.nth(0).innerText()).to.include('p1');
    // The generated routes answer with the seed.
    expect(await (await fetch(`${mock}/products/p1`)).json()).to.deep.equal({ id: 'p1', stock: 3 });
  });

  it('switches the workspace’s recording proxy in the Recording tab', async () => {
    const id = await design({
      method: 'GET',
      path: '/health',
      responses: [{ status: 200, code: 1, data: { ok: true } }],
    });
    await page.goto(`${app.url}/designs/${id}?tab=recording`);
    const form = page.getByRole('form', { name: 'Recording' });
    await form.getByLabel('Validate').check();
    await form.getByLabel('Upstream URL').fill('https://api.example.com');
    await form.getByRole('button', { name: 'Save recording settings' }).click();
    await form.getByRole('status').getByText('Saved').waitFor();
    expect((await app.request('GET', '/v1/mock-settings')).body.proxy).to.deep.equal({
      url: 'https://api.example.com',
      mode: 'validate',
    });
    await form.getByLabel('Off').check();
    await form.getByRole('button', { name: 'Save recording settings' }).click();
    await form.getByRole('status').getByText('Saved').waitFor();
    expect((await app.request('GET', '/v1/mock-settings')).body.proxy).to.equal(null);
  });

  it('shows a read key the faults and recording settings without edit controls', async () => {
    const id = await design({
      method: 'GET',
      path: '/read-only',
      delay: { type: 'fixed', milliseconds: 20 },
      responses: [{ status: 200, code: 1, data: { ok: true } }],
    });
    const reader = await openConsole(browser, app);
    try {
      await signIn(reader.page, await app.issueKey('read'));
      await reader.page.goto(`${app.url}/designs/${id}?tab=faults`);
      const form = reader.page.getByRole('form', { name: 'Latency and faults' });
      await form.getByText('A key with write scope can change these.').waitFor();
      expect(await form.getByLabel('Milliseconds').inputValue()).to.equal('20');
      expect(await form.getByLabel('Milliseconds').isDisabled()).to.equal(true);
      expect(await form.getByRole('button', { name: 'Save faults' }).count()).to.equal(0);
      await reader.page.getByRole('tab', { name: 'Recording' }).click();
      await reader.page.getByRole('form', { name: 'Recording' }).getByText('A key with write scope').waitFor();
      await reader.page.getByRole('tab', { name: 'Journal' }).click();
      expect(await reader.page.getByRole('button', { name: 'Clear journal' }).count()).to.equal(0);
    } finally {
      await reader.context.close();
    }
  });
});
