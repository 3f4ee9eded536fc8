/**
 * Postman auth as auth profiles, the mapping on its own (docs/import-postman.md "Auth profiles";
 * cli/importers/postman-auth.ts): where a profile is referenced (test case for the collection and
 * top-level folders, node for subfolders and requests), `none` for `noauth` and for auth the node
 * signs itself, one profile per distinct auth, OAuth 2.0 fields and grants. The profiles created
 * through the API and the imported suite run against a token endpoint: test/integration/cli/postman-auth.test.ts.
 */
import { expect } from 'chai';
import { importPostman, type ImportedApiNode } from '../../cli/importers/postman';

const SCHEMA = 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json';
const kv = (o: Record<string, unknown>) =>
  Object.entries(o).map(([key, value]) => ({ key, value, type: typeof value === 'string' ? 'string' : 'any' }));
const request = (name: string, auth?: unknown, headers: Array<{ key: string; value: string }> = []) => ({
  name,
  request: { method: 'GET', url: `https://api.example.test/${name}`, header: headers, ...(auth ? { auth } : {}) },
});
const bearer = (token: string) => ({ type: 'bearer', bearer: kv({ token }) });

const nodes = (imported: ReturnType<typeof importPostman>, testCase: string) =>
  Object.fromEntries(
    (imported.testCases.find((t) => t.name === testCase)!.flow as ImportedApiNode[]).map((n) => [n.name, n]),
  );

describe('Postman import: auth as auth profiles (cli/importers/postman-auth.ts)', () => {
  it('references the collection and top-level folder auth from test cases, subfolder and request auth from nodes', () => {
    const imported = importPostman({
      info: { name: 'Shop / API', schema: SCHEMA },
      auth: bearer('{{token}}'),
      item: [
        request('loose'),
        {
          name: 'Admin',
          auth: { type: 'basic', basic: kv({ username: 'admin', password: '{{pw}}' }) },
          item: [
            request('users'),
            { name: 'Deep one', auth: bearer('{{token}}'), item: [request('deep')] },
            {
              name: 'Keys',
              auth: { type: 'apikey', apikey: kv({ key: 'k', value: 'v', in: 'query' }) },
              item: [request('keyed')],
            },
            request('digest', { type: 'digest', digest: kv({ username: 'u', password: 'p' }) }),
            request('open', { type: 'noauth' }),
            request('own header', undefined, [{ key: 'Authorization', value: 'Basic Zm9vOmJhcg==' }]),
          ],
        },
        { name: 'Public', auth: { type: 'noauth' }, item: [request('anyone')] },
      ],
    });
    expect(imported.authProfiles.map((p) => [p.name, p.fields.type, p.from])).to.deep.equal([
      ['Shop-API', 'bearer', 'collection'],
      ['Shop-API.Admin', 'basic', 'Admin'],
      ['Shop-API.Admin.Keys', 'apiKey', 'Admin / Keys'],
    ]);
    expect(imported.testCases.map((t) => [t.name, t.authProfile])).to.deep.equal([
      ['Shop / API', 'Shop-API'],
      ['Admin', 'Shop-API.Admin'],
      ['Public', 'none'],
    ]);
    const admin = nodes(imported, 'Admin');
    expect(admin.users!.authProfile).to.equal(undefined);
    // The same bearer as the collection's: one profile, referenced by the node.
    expect(admin['Deep one / deep']!.authProfile).to.equal('Shop-API');
    expect(admin['Keys / keyed']!.authProfile).to.equal('Shop-API.Admin.Keys');
    expect(admin['Keys / keyed']!.request.url).to.equal('https://api.example.test/keyed');
    expect(admin.digest!.authProfile).to.equal('none');
    expect(admin.digest!.request.auth).to.deep.include({ type: 'digest', username: 'u' });
    expect(admin.open!.authProfile).to.equal('none');
    expect(admin['own header']!.authProfile).to.equal('none');
    expect(admin['own header']!.request.headers).to.deep.equal({ Authorization: 'Basic Zm9vOmJhcg==' });
    expect(nodes(imported, 'Public').anyone!.authProfile).to.equal(undefined);
    // No credential is written into a request or a script any more.
    expect(JSON.stringify(imported.testCases)).to.not.match(/\{\{pw\}\}|\{\{token\}\}|Bearer/);
    expect(imported.untranslated).to.deep.equal([]);
  });

  it('maps OAuth 2.0 client credentials and password grants; lists the browser grants and lost options', () => {
    const oauth2 = (o: Record<string, unknown>) => ({ type: 'oauth2', oauth2: kv(o) });
    const imported = importPostman({
      info: { name: 'IdP', schema: SCHEMA },
      auth: oauth2({
        grant_type: 'client_credentials',
        accessTokenUrl: 'idp.example.test/token',
        clientId: '{{clientId}}',
        clientSecret: '{{clientSecret}}',
        scope: 'a b',
        tokenRequestParams: [
          { key: 'audience', value: 'https://api', send_as: 'request_body' },
          { key: 'resource', value: 'x', send_as: 'request_body' },
        ],
      }),
      item: [
        request('cc'),
        {
          name: 'Owner',
          auth: oauth2({
            grant_type: 'password_credentials',
            accessTokenUrl: '{{idp}}/token',
            clientId: 'c',
            username: '{{user}}',
            password: '{{password}}',
            client_authentication: 'body',
          }),
          item: [request('ro')],
        },
        {
          name: 'Browser',
          auth: oauth2({ grant_type: 'implicit', authUrl: 'https://idp/auth', accessToken: 'stored-token' }),
          item: [request('implicit')],
        },
      ],
    });
    expect(imported.authProfiles.map((p) => p.fields)).to.deep.equal([
      {
        type: 'oauth2',
        grant: 'client_credentials',
        tokenUrl: 'http://idp.example.test/token',
        clientId: '{{clientId}}',
        clientSecret: '{{clientSecret}}',
        scopes: ['a', 'b'],
        audience: 'https://api',
        clientAuthentication: 'basic',
      },
      {
        type: 'oauth2',
        grant: 'password',
        tokenUrl: '{{idp}}/token',
        clientId: 'c',
        clientAuthentication: 'body',
        username: '{{user}}',
        password: '{{password}}',
      },
    ]);
    expect(imported.testCases.map((t) => t.authProfile)).to.deep.equal(['IdP', 'IdP.Owner', undefined]);
    expect(nodes(imported, 'Browser').implicit!.request.headers).to.deep.equal({
      Authorization: 'Bearer stored-token',
    });
    expect(imported.untranslated.map((n) => `${n.at}: ${n.message}`)).to.deep.equal([
      'IdP: OAuth 2.0 token request parameters (resource) are not translated (a profile sends scope and audience)',
      'Browser: OAuth 2.0 grant "implicit" is not translated to an auth profile: it needs a browser (profiles fetch tokens with client_credentials, password and refresh_token); the stored access token is sent as a header instead, and is not refreshed',
    ]);
  });
});
