/**
 * The console's auth profiles page (docs/auth.md "The console"; console/src/resources/auth-profiles.tsx)
 * in a real Chromium against the real API and a real OAuth 2.0 token endpoint on loopback: an
 * OAuth 2.0 client-credentials profile is created through the form (templates kept, a literal
 * secret stored sealed and shown masked), "Fetch a token now" with an environment shows the token
 * type, expiry, scope and a preview — never the token — or the endpoint's error text; the profile is
 * edited and deleted; a token URL that is no URL shows the field's error.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { TestApp } from '../helpers/app';
import { launchBrowser, recordApiRequests, signedIn, startConsoleApp } from '../helpers/browser';

const CLIENT_ID = 'console-client';
const CLIENT_SECRET = 'env-SECRET-4711';
const LITERAL_SECRET = 'typed-SECRET-0815';

/**
 * A token endpoint (RFC 6749 §4.4): client credentials in the body or a Basic header; answers a
 * fresh token valid an hour with the scope asked for, or 401 `invalid_client` for other secrets.
 */
async function startTokenEndpoint(): Promise<{
  url: string;
  tokens: string[];
  requests: Array<{ auth?: string; body: URLSearchParams }>;
  close(): Promise<void>;
}> {
  const tokens: string[] = [];
  const requests: Array<{ auth?: string; body: URLSearchParams }> = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const body = new URLSearchParams(raw);
      requests.push({ auth: req.headers.authorization, body });
      let id = body.get('client_id');
      let secret = body.get('client_secret');
      const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
      if (basic) {
        const [u, p] = Buffer.from(basic[1]!, 'base64').toString('utf8').split(':');
        [id, secret] = [decodeURIComponent(u!), decodeURIComponent(p ?? '')];
      }
      res.setHeader('Content-Type', 'application/json');
      res.setHeader('Cache-Control', 'no-store');
      if (
        body.get('grant_type') !== 'client_credentials' ||
        id !== CLIENT_ID ||
        ![CLIENT_SECRET, LITERAL_SECRET].includes(secret ?? '')
      ) {
        res.statusCode = 401;
        res.end(JSON.stringify({ error: 'invalid_client', error_description: 'client authentication failed' }));
        return;
      }
      const token = `tok${tokens.length}-${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
      tokens.push(token);
      res.end(
        JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: 3600, scope: body.get('scope') ?? '' }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/oauth/token`,
    tokens,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('console auth profiles', function () {
  this.timeout(120_000);
  let app: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let idp: Awaited<ReturnType<typeof startTokenEndpoint>>;

  before(async () => {
    [app, browser, idp] = await Promise.all([startConsoleApp(), launchBrowser(), startTokenEndpoint()]);
    const env = await app.request('POST', '/v1/environments', {
      name: 'staging',
      variables: { tokenUrl: idp.url, clientSecret: { value: CLIENT_SECRET, secret: true } },
    });
    expect(env.status, JSON.stringify(env.body)).to.equal(201);
    ({ context, page } = await signedIn(browser, app));
    page.on('dialog', (d) => void d.accept());
  });
  after(async () => {
    await context?.close();
    await browser?.close();
    await Promise.all([app?.stop(), idp?.close()]);
  });

  const fetchTokenNow = async () => {
    const section = page.getByRole('region', { name: 'Fetch a token now' });
    await section.getByLabel('Environment').selectOption('staging');
    await section.getByRole('button', { name: 'Fetch a token now' }).click();
    return section;
  };

  it('creates an OAuth 2.0 client-credentials profile, fetches a token now, edits it and deletes it', async () => {
    const sent = recordApiRequests(page, app);
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Auth profiles' }).click();
    await page.getByText('No auth profiles yet').waitFor();
    await page.getByRole('link', { name: 'New auth profile' }).first().click();
    await page.getByRole('heading', { name: 'New auth profile', level: 1 }).waitFor();

    // The chosen type's fields: bearer has a token only; OAuth 2.0 its grant's.
    expect(await page.getByLabel('Token', { exact: true }).getAttribute('type')).to.equal('password');
    expect(await page.getByLabel('Token URL').count()).to.equal(0);
    await page.getByLabel('Profile name').fill('idp');
    await page.getByLabel('Type').selectOption('oauth2');
    expect(await page.getByLabel('Token', { exact: true }).count()).to.equal(0);
    expect(await page.getByLabel('Refresh token').count()).to.equal(0);
    await page.getByLabel('Grant').selectOption('refresh_token');
    await page.getByLabel('Refresh token').waitFor();
    await page.getByLabel('Grant').selectOption('client_credentials');
    await page.getByLabel('Token URL').fill('{{tokenUrl}}');
    await page.getByLabel('Client id').fill(CLIENT_ID);
    await page.getByLabel('Client secret', { exact: true }).fill('{{clientSecret}}');
    expect(await page.getByLabel('Client secret', { exact: true }).getAttribute('type')).to.equal('password');
    await page.getByLabel('Scopes').fill('read write');
    await page.getByLabel('Client authentication').selectOption('body');
    await page.getByRole('button', { name: 'Create auth profile' }).click();
    await page.getByRole('heading', { name: 'Auth profile idp', level: 1 }).waitFor();

    const created = sent.find((r) => r.method() === 'POST' && r.url().endsWith('/v1/auth-profiles'));
    expect(created!.postDataJSON()).to.deep.include({ name: 'idp', type: 'oauth2' });
    const stored = (await app.request('GET', '/v1/auth-profiles/idp')).body;
    expect(stored.config).to.deep.equal({
      grant: 'client_credentials',
      tokenUrl: '{{tokenUrl}}',
      clientId: CLIENT_ID,
      clientSecret: '{{clientSecret}}',
      scopes: ['read', 'write'],
      clientAuthentication: 'body',
    });

    // Fetch a token now: the endpoint's answer, the token itself never on the page.
    let section = await fetchTokenNow();
    await section.getByTestId('token-expires').waitFor();
    expect(idp.tokens).to.have.length(1);
    expect(idp.requests[0]!.body.get('client_secret')).to.equal(CLIENT_SECRET);
    expect(idp.requests[0]!.auth).to.equal(undefined);
    expect(await section.getByTestId('token-type').innerText()).to.match(/^bearer$/i);
    expect(await section.getByTestId('token-expires').innerText()).to.match(/\(in (59|60) min|in 1 h\)/);
    expect(await section.getByTestId('token-scope').innerText()).to.equal('read write');
    const preview = await section.getByTestId('token-preview').innerText();
    expect(preview).to.equal(`${idp.tokens[0]!.slice(0, 4)}…`);
    expect(await page.content()).to.not.contain(idp.tokens[0]!);

    // Edit: a literal secret (stored sealed, shown masked), Basic client authentication, one scope.
    await page.getByLabel('Client secret', { exact: true }).fill(LITERAL_SECRET);
    await page.getByLabel('Scopes').fill('read');
    await page.getByLabel('Client authentication').selectOption('basic');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByText('Saved.', { exact: true }).waitFor();
    const edited = (await app.request('GET', '/v1/auth-profiles/idp')).body;
    expect(edited.config).to.deep.include({ clientSecret: '***', scopes: ['read'], clientAuthentication: 'basic' });
    const secretInput = page.getByLabel('Client secret', { exact: true });
    expect(await secretInput.inputValue()).to.equal('***');
    expect(await secretInput.getAttribute('type')).to.equal('password');
    expect(await page.getByRole('button', { name: 'Show Client secret' }).count()).to.equal(0);
    expect(await page.content()).to.not.contain(LITERAL_SECRET);

    // Saving again with the mask keeps the stored secret: the token endpoint still accepts it.
    await page.getByLabel('Audience').fill('https://api.example.test');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByText('Saved.', { exact: true }).waitFor();
    const saves = sent.filter((r) => r.method() === 'PUT').map((r) => r.postDataJSON());
    expect(saves.at(-1).config.clientSecret).to.equal('***');
    section = await fetchTokenNow();
    await section.getByTestId('token-preview').filter({ hasText: /^tok1/ }).waitFor();
    const basic = idp.requests.at(-1)!.auth!;
    expect(Buffer.from(basic.replace(/^Basic /, ''), 'base64').toString()).to.equal(`${CLIENT_ID}:${LITERAL_SECRET}`);
    expect(idp.requests.at(-1)!.body.get('scope')).to.equal('read');
    expect(await section.getByTestId('token-scope').innerText()).to.equal('read');

    // The endpoint refuses: its error text, no token.
    await page.getByLabel('Client id').fill('someone-else');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByText('Saved.', { exact: true }).waitFor();
    section = await fetchTokenNow();
    await section
      .getByText(/invalid_client/)
      .first()
      .waitFor();
    expect(await section.getByTestId('token-preview').count()).to.equal(0);

    // Delete: back to the list, which is empty again.
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No auth profiles yet').waitFor();
    expect((await app.request('GET', '/v1/auth-profiles/idp')).status).to.equal(404);
  });

  it("shows the field's error for a token URL that is no URL, and creates nothing", async () => {
    await page.goto(`${app.url}/auth-profiles/new`);
    await page.getByLabel('Profile name').fill('broken');
    await page.getByLabel('Type').selectOption('oauth2');
    await page.getByLabel('Token URL').fill('not a url');
    await page.getByLabel('Client id').fill(CLIENT_ID);
    await page.getByRole('button', { name: 'Create auth profile' }).click();
    const field = page.locator('label.field', { has: page.getByLabel('Token URL') });
    await field.getByRole('alert').waitFor();
    expect(await field.getByRole('alert').innerText()).to.match(/URL/);
    expect(await page.getByLabel('Client id').locator('xpath=ancestor::label').getByRole('alert').count()).to.equal(0);
    expect((await app.request('GET', '/v1/auth-profiles/broken')).status).to.equal(404);
  });
});
