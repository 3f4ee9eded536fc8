/**
 * Postman auth imported as auth profiles (docs/import-postman.md "Auth profiles";
 * cli/importers/postman-auth.ts): a collection with a collection-level bearer token, a folder with
 * basic auth, a request with an API key and one with `noauth`, and a collection with OAuth 2.0
 * client credentials, imported with `assay import postman` against a real API. The profiles are
 * created through the REST API with their `{{variables}}` kept, the test cases and nodes reference
 * them (`none` for `noauth`), a second import changes nothing, and both imported suites run against
 * an API on loopback that checks every credential — the OAuth 2.0 one with a token its token
 * endpoint issued — and pass.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startTestApp, type TestApp } from '../../helpers/app';
import { runCli } from '../../helpers/cli';

const SCHEMA = 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json';
const kv = (o: Record<string, unknown>) => Object.entries(o).map(([key, value]) => ({ key, value, type: 'string' }));
const request = (name: string, url: string, auth?: unknown) => ({
  name,
  request: { method: 'GET', url, ...(auth ? { auth } : {}) },
});
/** Every request must be answered 200 (the API under test answers 401 to a wrong credential). */
const STATUS_200 = [
  {
    listen: 'test',
    script: { type: 'text/javascript', exec: ["pm.test('authorized', () => pm.response.to.have.status(200));"] },
  },
];

const SHOP = {
  info: { name: 'Shop API', schema: SCHEMA },
  auth: { type: 'bearer', bearer: kv({ token: '{{apiToken}}' }) },
  event: STATUS_200,
  item: [
    {
      name: 'Catalog',
      item: [request('List products', '{{baseUrl}}/bearer')],
    },
    {
      name: 'Admin',
      auth: { type: 'basic', basic: kv({ username: 'admin', password: '{{adminPassword}}' }) },
      item: [
        request('Users', '{{baseUrl}}/basic'),
        request('Reports', '{{baseUrl}}/key', {
          type: 'apikey',
          apikey: kv({ key: 'X-Api-Key', value: '{{apiKey}}', in: 'header' }),
        }),
        request('Health', '{{baseUrl}}/open', { type: 'noauth' }),
      ],
    },
  ],
};

const PARTNER = {
  info: { name: 'Partner API', schema: SCHEMA },
  auth: {
    type: 'oauth2',
    oauth2: kv({
      grant_type: 'client_credentials',
      accessTokenUrl: '{{tokenUrl}}',
      clientId: 'partner-client',
      clientSecret: '{{clientSecret}}',
      scope: 'orders:read orders:write',
      client_authentication: 'body',
      addTokenTo: 'header',
    }),
  },
  event: STATUS_200,
  item: [
    request('Orders', '{{baseUrl}}/oauth'),
    {
      name: 'Browser login',
      auth: {
        type: 'oauth2',
        oauth2: kv({
          grant_type: 'authorization_code',
          authUrl: 'https://idp.example/authorize',
          accessTokenUrl: 'https://idp.example/token',
          clientId: 'web',
        }),
      },
      item: [request('Profile', '{{baseUrl}}/open')],
    },
  ],
};

/**
 * The API under test and its token endpoint: `/bearer`, `/basic`, `/key`, `/oauth` answer 200 only
 * to their credential (`/oauth`: a token the endpoint issued), `/open` only without credentials.
 */
async function startApi(): Promise<{ url: string; tokenRequests: URLSearchParams[]; close(): Promise<void> }> {
  const issued = new Set<string>();
  const tokenRequests: URLSearchParams[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const auth = req.headers.authorization;
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
      };
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/token') {
        const form = new URLSearchParams(raw);
        tokenRequests.push(form);
        if (form.get('client_id') !== 'partner-client' || form.get('client_secret') !== 'partner-secret')
          return reply(401, { error: 'invalid_client' });
        const token = `partner-${issued.size}-${Date.now()}`;
        issued.add(token);
        return reply(200, { access_token: token, token_type: 'Bearer', expires_in: 600, scope: form.get('scope') });
      }
      const ok =
        url.pathname === '/bearer'
          ? auth === 'Bearer shop-token'
          : url.pathname === '/basic'
            ? auth === `Basic ${Buffer.from('admin:admin-pw').toString('base64')}`
            : url.pathname === '/key'
              ? req.headers['x-api-key'] === 'shop-key' && auth === undefined
              : url.pathname === '/oauth'
                ? issued.has(auth?.replace(/^Bearer /, '') ?? '')
                : url.pathname === '/open' && auth === undefined;
      reply(ok ? 200 : 401, { path: url.pathname, auth: auth ?? null });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tokenRequests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('Postman import: auth as auth profiles', function () {
  this.timeout(120_000);
  let app: TestApp;
  let api: Awaited<ReturnType<typeof startApi>>;
  let dir: string;

  const write = (name: string, value: unknown) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, JSON.stringify(value));
    return file;
  };
  const environment = (name: string, values: Record<string, string>) =>
    write(`${name}.postman_environment.json`, {
      name,
      values: Object.entries(values).map(([key, value]) => ({ key, value, enabled: true })),
    });
  const testCases = async (folder: string) => {
    const listed = (await app.request('GET', `/v1/test-cases?folder=${encodeURIComponent(folder)}`)).body
      .items as Array<{
      id: string;
      name: string;
    }>;
    const out: Record<string, { authProfile?: string; flow: Array<{ name: string; authProfile?: string }> }> = {};
    for (const t of listed) out[t.name] = (await app.request('GET', `/v1/test-cases/${t.id}`)).body;
    return out;
  };

  before(async () => {
    [app, api] = await Promise.all([startTestApp({ worker: true }), startApi()]);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-postman-auth-'));
  });
  after(async () => {
    await Promise.all([app?.stop(), api?.close()]);
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('makes profiles of collection, folder and request auth, references them, and the suite passes', async () => {
    const collection = write('shop.json', SHOP);
    const env = environment('shop', {
      baseUrl: api.url,
      apiToken: 'shop-token',
      adminPassword: 'admin-pw',
      apiKey: 'shop-key',
    });
    const imported = await runCli(
      ['import', 'postman', collection, '--environment', env, '--runner', 'shop', '--json'],
      {
        app,
        cwd: dir,
      },
    );
    expect(imported.code, imported.stderr).to.equal(0);
    const report = JSON.parse(imported.stdout);
    expect(report.untranslated).to.deep.equal([]);
    expect(report.authProfiles).to.deep.equal([
      { name: 'Shop-API', type: 'bearer', from: 'collection', action: 'created' },
      { name: 'Shop-API.Admin', type: 'basic', from: 'Admin', action: 'created' },
      { name: 'Shop-API.Admin.Reports', type: 'apiKey', from: 'Admin / Reports', action: 'created' },
    ]);
    expect(imported.stderr).to.include('auth profile Shop-API.Admin (basic, from Admin): created');

    const profile = async (name: string) => (await app.request('GET', `/v1/auth-profiles/${name}`)).body;
    expect(await profile('Shop-API')).to.deep.include({ type: 'bearer', config: { token: '{{apiToken}}' } });
    expect(await profile('Shop-API.Admin')).to.deep.include({
      type: 'basic',
      config: { username: 'admin', password: '{{adminPassword}}' },
    });
    expect(await profile('Shop-API.Admin.Reports')).to.deep.include({
      type: 'apiKey',
      config: { name: 'X-Api-Key', value: '{{apiKey}}', in: 'header' },
    });

    const stored = await testCases('Shop API');
    expect(stored.Catalog!.authProfile).to.equal('Shop-API');
    expect(stored.Admin!.authProfile).to.equal('Shop-API.Admin');
    const node = (name: string) => stored.Admin!.flow.find((n) => n.name === name)!;
    expect(node('Users').authProfile).to.equal(undefined);
    expect(node('Reports').authProfile).to.equal('Shop-API.Admin.Reports');
    expect(node('Health').authProfile).to.equal('none');
    // Nothing written into the requests: the profiles send the credentials.
    expect(JSON.stringify(stored)).to.not.match(/Authorization|shop-token|admin-pw/);

    const again = await runCli(['import', 'postman', collection, '--environment', env, '--runner', 'shop', '--json'], {
      app,
      cwd: dir,
    });
    expect(again.code, again.stderr).to.equal(0);
    const second = JSON.parse(again.stdout);
    expect(second.authProfiles.map((p: { action: string }) => p.action)).to.deep.equal([
      'unchanged',
      'unchanged',
      'unchanged',
    ]);
    expect(second.testCases.map((t: { action: string }) => t.action)).to.deep.equal(['unchanged', 'unchanged']);

    const run = await runCli(['run', '--runner', 'shop', '--env', 'shop', '--wait'], { app, cwd: dir });
    expect(run.code, run.stderr + run.stdout).to.equal(0);
  });

  it('makes an OAuth 2.0 client-credentials profile; other grants are listed; the suite gets its token and passes', async () => {
    const collection = write('partner.json', PARTNER);
    const env = environment('partner', {
      baseUrl: api.url,
      tokenUrl: `${api.url}/token`,
      clientSecret: 'partner-secret',
    });
    const imported = await runCli(
      ['import', 'postman', collection, '--environment', env, '--runner', 'partner', '--json'],
      { app, cwd: dir },
    );
    expect(imported.code, imported.stderr).to.equal(0);
    const report = JSON.parse(imported.stdout);
    expect(report.authProfiles).to.deep.equal([
      { name: 'Partner-API', type: 'oauth2', from: 'collection', action: 'created' },
    ]);
    expect(report.untranslated).to.have.length(1);
    expect(report.untranslated[0]).to.include({ at: 'Browser login' });
    expect(report.untranslated[0].message).to.match(/grant "authorization_code" is not translated/);
    expect((await app.request('GET', '/v1/auth-profiles/Partner-API')).body.config).to.deep.equal({
      grant: 'client_credentials',
      tokenUrl: '{{tokenUrl}}',
      clientId: 'partner-client',
      clientSecret: '{{clientSecret}}',
      scopes: ['orders:read', 'orders:write'],
      clientAuthentication: 'body',
    });
    const stored = await testCases('Partner API');
    expect(stored['Partner API']!.authProfile).to.equal('Partner-API');
    expect(stored['Browser login']!.authProfile ?? null).to.equal(null);

    const run = await runCli(['run', '--runner', 'partner', '--env', 'partner', '--wait'], { app, cwd: dir });
    expect(run.code, run.stderr + run.stdout).to.equal(0);
    expect(api.tokenRequests).to.have.length(1);
    expect(api.tokenRequests[0]!.get('grant_type')).to.equal('client_credentials');
    expect(api.tokenRequests[0]!.get('scope')).to.equal('orders:read orders:write');
  });
});
