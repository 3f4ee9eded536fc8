/**
 * The console's auth profiles page (docs/console.md "Auth profiles";
 * console/src/resources/auth-profiles.tsx)
 * in a real Chromium against the real API and a real OAuth 2.0 token endpoint on loopback: an
 * OAuth 2.0 client-credentials profile is created through the form (templates kept, a literal
 * secret stored sealed and shown masked), "Fetch a token now" with an environment shows the token
 * type, expiry, scope and a preview — never the token — or the endpoint's error text; the profile is
 * edited, refused deletion while a test case names it (the API's 409 names it), then deleted; a
 * token URL that is no URL shows the field's error.
 */
import type http from 'node:http';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Events, OAuth2Server } from 'oauth2-mock-server';
import type { TestApp } from '../helpers/app';
import { launchBrowser, recordApiRequests, screenshot, signedIn, startConsoleApp } from '../helpers/browser';

const CLIENT_ID = 'console-client';
const CLIENT_SECRET = 'env-SECRET-4711';
const LITERAL_SECRET = 'typed-SECRET-0815';

/**
 * A real OAuth 2.0 server on loopback (oauth2-mock-server: signed JWTs, RFC 6749 token endpoint at
 * `/token`, tokens valid an hour with the scope asked for). Its `beforeResponse` hook records each
 * token request and answers 401 `invalid_client` (RFC 6749 §5.2) to a client other than ours or a
 * wrong secret (from the body or a Basic header).
 */
async function startTokenEndpoint(): Promise<{
  url: string;
  tokens: string[];
  requests: Array<{ auth?: string; body: Record<string, string> }>;
  close(): Promise<void>;
}> {
  const server = new OAuth2Server();
  await server.issuer.keys.generate('RS256');
  await server.start(0, '127.0.0.1');
  const tokens: string[] = [];
  const requests: Array<{ auth?: string; body: Record<string, string> }> = [];
  server.service.on(
    Events.BeforeResponse,
    (
      response: { statusCode: number; body: Record<string, unknown> },
      req: http.IncomingMessage & { body: Record<string, string> },
    ) => {
      requests.push({ auth: req.headers.authorization, body: req.body });
      let id = req.body.client_id;
      let secret = req.body.client_secret;
      const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
      if (basic) {
        const [u, p] = Buffer.from(basic[1]!, 'base64').toString('utf8').split(':');
        [id, secret] = [decodeURIComponent(u!), decodeURIComponent(p ?? '')];
      }
      if (id !== CLIENT_ID || ![CLIENT_SECRET, LITERAL_SECRET].includes(secret ?? '')) {
        response.statusCode = 401;
        response.body = { error: 'invalid_client', error_description: 'client authentication failed' };
      } else tokens.push(String(response.body.access_token));
    },
  );
  return { url: `${server.issuer.url!}/token`, tokens, requests, close: () => server.stop() };
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
    expect(await page.getByLabel('Token URL', { exact: true }).count()).to.equal(0);
    await page.getByLabel('Profile name').fill('idp');
    await page.getByLabel('Type').selectOption('oauth2');
    expect(await page.getByLabel('Token', { exact: true }).count()).to.equal(0);
    expect(await page.getByLabel('Refresh token', { exact: true }).count()).to.equal(0);
    await page.getByLabel('Grant').selectOption('refresh_token');
    await page.getByLabel('Refresh token', { exact: true }).waitFor();
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
    expect(idp.requests[0]!.body.client_secret).to.equal(CLIENT_SECRET);
    expect(idp.requests[0]!.auth).to.equal(undefined);
    expect(await section.getByTestId('token-type').innerText()).to.match(/^bearer$/i);
    expect(await section.getByTestId('token-expires').innerText()).to.match(/\(in (59|60) min|in 1 h\)/);
    expect(await section.getByTestId('token-scope').innerText()).to.equal('read write');
    const preview = await section.getByTestId('token-preview').innerText();
    expect(preview).to.equal(`${idp.tokens[0]!.slice(0, 4)}…`);
    expect(await page.content()).to.not.contain(idp.tokens[0]!);
    await screenshot(page, 'auth-profile');

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
    // The second answer: the scope asked for now.
    await section
      .getByTestId('token-scope')
      .filter({ hasText: /^read$/ })
      .waitFor();
    expect(idp.tokens).to.have.length(2);
    const basic = idp.requests.at(-1)!.auth!;
    expect(Buffer.from(basic.replace(/^Basic /, ''), 'base64').toString()).to.equal(`${CLIENT_ID}:${LITERAL_SECRET}`);
    expect(idp.requests.at(-1)!.body.scope).to.equal('read');
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

    // Delete while a test case names it: refused, naming the test case; then deleted.
    const user = await app.request('POST', '/v1/test-cases', {
      name: 'uses idp',
      authProfile: 'idp',
      flow: [{ type: 'api', id: 'me', request: { method: 'GET', url: 'http://127.0.0.1:9/me' } }],
    });
    expect(user.status, JSON.stringify(user.body)).to.equal(201);
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByText(/test case "uses idp"/).waitFor();
    expect((await app.request('GET', '/v1/auth-profiles/idp')).status).to.equal(200);
    expect((await app.request('DELETE', `/v1/test-cases/${user.body.id}`)).status).to.equal(204);
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
