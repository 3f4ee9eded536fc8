/**
 * Secret variables in the console (docs/secrets.md "The console"; console/src/resources/environments.tsx) in a real
 * Chromium against the real API: a stored secret shows a "secret" badge and never a value; saving
 * other edits leaves it as stored (its `***` is not sent back); the "Secret" checkbox saves a new
 * variable as a secret, and a plain one made secret is stored sealed. While a save is under way the
 * form takes no edits; its answer replaces the form with "Saved." (before, an edit typed between
 * the save's answer and a later reload of the page was silently dropped).
 */
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { eventually, type TestApp } from '../helpers/app';
import { launchBrowser, recordApiRequests, signedIn, startConsoleApp } from '../helpers/browser';

const MASKED = { secret: true, value: '***' };

describe('console secret variables', function () {
  this.timeout(120_000);
  let app: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  const rawVariables = async () => {
    const [row] = await app.dataSource.query('SELECT variables FROM environments WHERE name = ?', ['vault']);
    return typeof row.variables === 'string' ? (row.variables as string) : JSON.stringify(row.variables);
  };

  before(async () => {
    [app, browser] = await Promise.all([startConsoleApp(), launchBrowser()]);
    const env = await app.request('POST', '/v1/environments', {
      name: 'vault',
      variables: { base: 'http://127.0.0.1:9', token: { value: 'stored-SECRET-1', secret: true } },
    });
    expect(env.status, JSON.stringify(env.body)).to.equal(201);
    ({ context, page } = await signedIn(browser, app));
  });
  after(async () => {
    await context?.close();
    await browser?.close();
    await app?.stop();
  });

  it('shows a stored secret with a badge and no value, keeps it on save, and saves new and changed variables as secrets when ticked', async () => {
    const sent = recordApiRequests(page, app);
    await page.goto(`${app.url}/environments/vault`);
    await page.getByTestId('secret-token').waitFor();
    expect(await page.getByTestId('secret-token').innerText()).to.equal('secret');
    expect(await page.getByLabel('token is secret').isChecked()).to.equal(true);
    expect(await page.getByRole('button', { name: 'Show value of token' }).count()).to.equal(0);
    expect(await page.getByLabel('Value of token', { exact: true }).getAttribute('type')).to.equal('password');

    // A new secret and a plain value made secret; the stored one untouched.
    await page.getByRole('button', { name: 'Add variable' }).click();
    await page.getByLabel('Name of variable 3').fill('apiKey');
    await page.getByLabel('Value of apiKey', { exact: true }).fill('typed-SECRET-2');
    await page.getByLabel('apiKey is secret').check();
    await page.getByLabel('base is secret').check();
    await page.getByRole('button', { name: 'Save variables' }).click();
    await page.getByText('Saved.', { exact: true }).waitFor();
    await eventually(
      async () => (await app.request('GET', '/v1/environments/vault')).body.variables.apiKey?.secret === true,
    );
    expect((await app.request('GET', '/v1/environments/vault')).body.variables).to.deep.equal({
      base: MASKED,
      token: MASKED,
      apiKey: MASKED,
    });
    const patch = sent.find((r) => r.method() === 'PATCH');
    expect(patch!.postDataJSON()).to.deep.equal({
      variables: {
        base: { value: 'http://127.0.0.1:9', secret: true },
        apiKey: { value: 'typed-SECRET-2', secret: true },
      },
    });
    const raw = await rawVariables();
    expect(raw).to.not.contain('typed-SECRET-2').and.not.contain('stored-SECRET-1').and.not.contain('127.0.0.1:9');

    // A secret too short to be masked: the API's refusal is shown, nothing stored.
    await page.getByTestId('secret-apiKey').waitFor();
    await page.getByLabel('Value of apiKey', { exact: true }).fill('abc');
    await page.getByRole('button', { name: 'Save variables' }).click();
    await page.getByText('at least 4 characters').first().waitFor();
    expect(await rawVariables()).to.equal(raw);
  });

  it('takes no edits while a save is under way, then shows what was stored, and the next edit is what the next save sends', async () => {
    expect((await app.request('POST', '/v1/environments', { name: 'held', variables: { mode: 'a' } })).status).to.equal(
      201,
    );
    const sent = recordApiRequests(page, app);
    await page.goto(`${app.url}/environments/held`);
    const value = page.getByLabel('Value of mode', { exact: true });
    await value.waitFor();

    // The API stores the save at once; its answer reaches the page only when the test says so.
    let release!: () => void;
    const answerHeld = new Promise<void>((resolve) => (release = resolve));
    let answered: Promise<void> = Promise.resolve();
    await page.route(`${app.url}/v1/environments/held`, (route) => {
      if (route.request().method() !== 'PATCH') return route.continue();
      answered = (async () => {
        const response = await route.fetch();
        await answerHeld;
        await route.fulfill({ response });
      })();
      return answered;
    });
    try {
      await value.fill('b');
      await page.getByRole('button', { name: 'Save variables' }).click();
      await eventually(async () => (await app.request('GET', '/v1/environments/held')).body.variables.mode === 'b');
      await page.getByRole('button', { name: 'Saving…' }).waitFor();
      expect(await value.isDisabled()).to.equal(true);
      expect(await page.getByRole('button', { name: 'Add variable' }).isDisabled()).to.equal(true);
    } finally {
      release();
      // Unrouting while the handler still holds the answer would let Playwright answer it first.
      await answered;
      await page.unroute(`${app.url}/v1/environments/held`);
    }

    await page.getByText('Saved.', { exact: true }).waitFor();
    expect(await value.inputValue()).to.equal('b');
    await value.fill('c');
    expect(await page.getByText('Saved.', { exact: true }).count()).to.equal(0);
    await page.getByRole('button', { name: 'Save variables' }).click();
    await page.getByText('Saved.', { exact: true }).waitFor();
    expect((await app.request('GET', '/v1/environments/held')).body.variables).to.deep.equal({ mode: 'c' });
    expect(sent.filter((r) => r.method() === 'PATCH').map((r) => r.postDataJSON())).to.deep.equal([
      { variables: { mode: 'b' } },
      { variables: { mode: 'c' } },
    ]);
  });
});
