/**
 * "From a form" on `/designs/new` (docs/console.md "API designs") in a real Chromium against a real
 * API and database: the README's first design (`GET /users/{userId}`, "Get a user", 200 code 1
 * with `{"id": 1, "name": "Ada", "email": "ada@example.com"}`) made by typing into fields only,
 * stored with a typed body and answered by its mock; an empty path sent and refused by the API,
 * its error shown at the Path field (and a bad status at the Status field), nothing stored; a body
 * row with a value but no name refused before anything is sent; a nested body given as JSON.
 */
import { expect } from 'chai';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import type { TestApp } from '../helpers/app';
import { launchBrowser, recordApiRequests, signedIn, startConsoleApp } from '../helpers/browser';

describe('console: a new design from a form', function () {
  this.timeout(120_000);
  let app: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  before(async () => {
    [app, browser] = await Promise.all([startConsoleApp(), launchBrowser()]);
    ({ context, page } = await signedIn(browser, app));
  });

  after(async () => {
    await context?.close();
    await browser?.close();
    await app?.stop();
  });

  /** The "From a form" card. */
  const form = () => page.getByRole('form', { name: 'From a form' });

  /** The error shown under the form field labelled exactly `label`. */
  function errorAt(label: string): Locator {
    return form()
      .locator('label.field')
      .filter({ has: page.locator('.field-label', { hasText: new RegExp(`^${label}$`) }) })
      .locator('.field-error');
  }

  async function designs(
    path: string,
  ): Promise<{ method: string; path: string; name?: string; responses: unknown[] }[]> {
    const res = await app.request('GET', `/v1/designs?path=${encodeURIComponent(path)}`);
    expect(res.status).to.equal(200);
    return res.body.items;
  }

  it('shows the API’s errors at the Path and Status fields and stores nothing', async () => {
    await page.goto(`${app.url}/designs/new`);
    await form().waitFor();
    // The JSON form's button stays the only one the JSON form's tests find by "Create design".
    expect(await page.getByRole('button', { name: 'Create design' }).count()).to.equal(1);
    const sent = recordApiRequests(page, app);
    await form().getByRole('spinbutton', { name: 'Status', exact: true }).fill('700');
    await form().getByRole('button', { name: 'Create from form' }).click();
    await errorAt('Path').waitFor();
    expect(await errorAt('Name').count()).to.equal(0);
    // The error came from the API: the form sent the empty path.
    const posts = sent.filter((r) => r.method() === 'POST' && r.url().endsWith('/v1/designs'));
    expect(posts).to.have.length(1);
    expect(posts[0]!.postDataJSON()).to.deep.include({ method: 'GET', path: '' });
    const refused = await app.request('POST', '/v1/designs', posts[0]!.postDataJSON());
    expect(refused.status).to.equal(400);
    const detail = (field: string) =>
      (refused.body.errors as { field: string; detail: string }[]).find((e) => e.field === field)?.detail;
    expect(detail('path')).to.be.a('string');
    expect(await errorAt('Path').innerText()).to.equal(detail('path'));
    expect(await errorAt('Status').innerText()).to.equal(detail('responses[0].status'));
    expect(await designs('/')).to.have.length(0);
  });

  it('refuses a body field with a value but no name before sending anything', async () => {
    await page.goto(`${app.url}/designs/new`);
    const sent = recordApiRequests(page, app);
    await form().getByRole('textbox', { name: 'Path', exact: true }).fill('/users/{userId}');
    await form().getByLabel('Field 1 value', { exact: true }).fill('1');
    await form().getByRole('button', { name: 'Create from form' }).click();
    const alert = form().getByRole('row').getByRole('alert');
    await alert.waitFor();
    expect(await alert.innerText()).to.include('Field 1 has a value but no name');
    expect(sent.filter((r) => r.method() === 'POST')).to.have.length(0);
    expect(await designs('/')).to.have.length(0);
  });

  it('creates the README’s first design by typing into fields, and its mock answers the typed body', async () => {
    await page.goto(`${app.url}/designs/new`);
    const f = form();
    await f.getByRole('combobox', { name: 'Method', exact: true }).selectOption('GET');
    await f.getByRole('textbox', { name: 'Path', exact: true }).fill('/users/{userId}');
    await f.getByRole('textbox', { name: 'Name', exact: true }).fill('Get a user');
    expect(await f.getByRole('spinbutton', { name: 'Status', exact: true }).inputValue()).to.equal('200');
    expect(await f.getByRole('spinbutton', { name: 'Code', exact: true }).inputValue()).to.equal('1');
    await f.getByRole('button', { name: 'Add field' }).click();
    await f.getByRole('button', { name: 'Add field' }).click();
    await f.getByRole('button', { name: 'Add field' }).click();
    const fields: [string, string][] = [
      ['id', '1'],
      ['name', 'Ada'],
      ['email', 'ada@example.com'],
    ];
    for (const [i, [name, value]] of fields.entries()) {
      await f.getByLabel(`Field ${i + 1} name`, { exact: true }).fill(name);
      await f.getByLabel(`Field ${i + 1} value`, { exact: true }).fill(value);
    }
    await f.getByLabel('Field 4 name', { exact: true }).fill('spare');
    await f.getByRole('button', { name: 'Remove field 4' }).click();
    expect(await f.getByLabel('Field 4 name', { exact: true }).count()).to.equal(0);
    expect(await page.getByTestId('field-1-type').innerText()).to.equal('number');
    expect(await page.getByTestId('field-2-type').innerText()).to.equal('string');

    await f.getByRole('button', { name: 'Create from form' }).click();
    await page.waitForURL(/\/designs\/dsg_/);
    const mockUrl = await page.getByTestId('mock-url').innerText();

    const stored = await designs('/users');
    expect(stored).to.have.length(1);
    expect(stored[0]).to.deep.include({ method: 'GET', path: '/users/{userId}', name: 'Get a user' });
    expect(stored[0]!.responses).to.deep.equal([
      { status: 200, code: 1, data: { id: 1, name: 'Ada', email: 'ada@example.com' } },
    ]);

    expect(mockUrl).to.equal(`${app.url}/mock/${app.workspaceId}/users/{userId}`);
    const res = await fetch(`${app.url}/mock/${app.workspaceId}/users/1`);
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal({ id: 1, name: 'Ada', email: 'ada@example.com' });
  });

  it('takes a nested body as JSON instead, starting from the fields typed so far', async () => {
    await page.goto(`${app.url}/designs/new`);
    const f = form();
    await f.getByRole('combobox', { name: 'Method', exact: true }).selectOption('POST');
    await f.getByRole('textbox', { name: 'Path', exact: true }).fill('/orders');
    await f.getByRole('spinbutton', { name: 'Status', exact: true }).fill('201');
    await f.getByLabel('Field 1 name', { exact: true }).fill('paid');
    await f.getByLabel('Field 1 value', { exact: true }).fill('false');
    await f.getByLabel('Body as JSON instead').check();
    const json = f.getByLabel('Body (JSON)', { exact: true });
    expect(JSON.parse(await json.inputValue())).to.deep.equal({ paid: false });
    await json.fill('{"paid": false, "items": [{"sku": "a-1", "qty": 2}], "note": null}');
    await f.getByRole('button', { name: 'Create from form' }).click();
    await page.waitForURL(/\/designs\/dsg_/);
    const stored = await designs('/orders');
    expect(stored).to.have.length(1);
    expect(stored[0]).to.deep.include({ method: 'POST', path: '/orders' });
    expect(stored[0]!.responses).to.deep.equal([
      { status: 201, code: 1, data: { paid: false, items: [{ sku: 'a-1', qty: 2 }], note: null } },
    ]);
  });
});
