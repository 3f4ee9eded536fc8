/**
 * `assay import insomnia`'s conversion (cli/importers/insomnia.ts, insomnia-format.ts,
 * insomnia-templates.ts) on the real exports of test/fixtures/insomnia (SOURCES.md) and on bad
 * input: what test cases, nodes, extracts, auth profiles and environments each one becomes.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { parseInsomnia, InsomniaFormatError } from '../../cli/importers/insomnia-format';
import { importInsomnia, type InsomniaApiNode } from '../../cli/importers/insomnia';
import { convertTemplate, jsonPathToJsonata } from '../../cli/importers/insomnia-templates';

const FIXTURES = path.resolve(__dirname, '../../../test/fixtures/insomnia');
const load = (file: string) => parseInsomnia(fs.readFileSync(path.join(FIXTURES, file), 'utf8'));
const apiNodes = (flow: unknown[]) => flow.filter((n) => (n as { type: string }).type === 'api') as InsomniaApiNode[];

describe('assay import insomnia: conversion', () => {
  it('v4 JSON (petstore): test cases in Insomnia order, environment base + first sub-environment resolved, unit tests as assertions', () => {
    const doc = load('petstore-v4.json');
    expect(doc.format).to.equal('v4');
    const plan = importInsomnia(doc);
    expect(plan.testCases.map((t) => `${t.name}:${t.flow.length}`)).to.deep.equal([
      'Example Folder:1',
      'Swagger Petstore 1.0.0:12',
    ]);
    expect(plan.testCases[0]!.flow[0]).to.deep.include({ name: 'Example 2' });
    expect(plan.environment.sub).to.equal('OpenAPI env');
    // base_url is "{{ scheme }}://{{ host }}{{ base_path }}" in the base environment: resolved.
    expect(plan.environment.variables.base_url).to.equal('http://petstore.swagger.io/v2');
    const post = apiNodes(plan.testCases[1]!.flow).find((n) => n.name === 'Add a new pet to the store')!;
    expect(post.request.url).to.equal('{{base_url}}/pet');
    expect(post.request.body).to.deep.include({ name: 'doggie', status: 'string' });
    expect(apiNodes(plan.testCases[0]!.flow)[0]!.assertions).to.deep.equal([
      { target: 'response.status', operator: 'equals', expected: 404 },
    ]);
    expect(apiNodes(plan.testCases[1]!.flow).find((n) => n.name === 'Example 1')!.assertions).to.deep.equal([
      { target: 'response.status', operator: 'equals', expected: 200 },
    ]);
    expect(plan.notes.map((n) => n.message)).to.deep.equal([
      'the API design document (api_spec) is not carried: import it with assay import openapi',
    ]);
    expect(importInsomnia(doc, { singleTestCase: true }).testCases.map((t) => t.flow.length)).to.deep.equal([13]);
  });

  it('v4 YAML (smoke tests): basic auth as an auth profile with the password a secret variable, a folder environment as a Context node, scripts reported', () => {
    const plan = importInsomnia(load('smoke-test-v4.yaml'));
    expect(plan.testCases.map((t) => t.name)).to.deep.equal(['FolderWithEnv', 'Smoke tests']);
    expect(plan.authProfiles).to.have.length(1);
    expect(plan.authProfiles[0]!.fields).to.deep.equal({
      type: 'basic',
      username: 'user',
      password: '{{sends_request_with_basic_authentication_password}}',
    });
    expect(plan.environment.variables.sends_request_with_basic_authentication_password).to.deep.equal({
      value: 'pass',
      secret: true,
    });
    const basic = apiNodes(plan.testCases[1]!.flow).find((n) => n.authProfile)!;
    expect(basic.request.headers ?? {}).to.not.have.property('Authorization'); // disabled in the export
    expect(JSON.stringify(plan.testCases)).to.not.include('"pass"');
    expect(plan.testCases[0]!.flow[0]).to.deep.equal({
      type: 'context',
      id: 'env-folderwithenv',
      name: 'Folder environment: FolderWithEnv',
      set: { customValue: '"fromFolder"' },
    });
    const script = plan.requests.find((r) => r.at === 'FolderWithEnv / sends request with pre-request script')!;
    expect(script.notCarried[0]).to.match(/^pre-request script not carried/);
  });

  it('v4 YAML (environments): --environment picks a sub-environment over the base; an unknown one is refused by name', () => {
    const doc = load('environments-v4.yaml');
    expect(importInsomnia(doc).environment.variables.exampleString).to.equal('subenvA0');
    const b = importInsomnia(doc, { environment: 'ExampleB' });
    expect(b.environment).to.deep.include({ name: 'environments-ExampleB', sub: 'ExampleB' });
    expect(b.environment.variables.exampleObject).to.deep.equal({ anotherString: 'subenvB1', anotherNumber: 2222 });
    expect(importInsomnia(doc, { environment: '' }).environment.variables.exampleNumber).to.equal(1001);
    expect(apiNodes(b.testCases[0]!.flow)[0]!.request.body).to.equal(
      '{{exampleObject.anotherString}}\n{{exampleString}}\n{{exampleNumber}}\n{{exampleObject.anotherNumber}}',
    );
    expect(() => importInsomnia(doc, { environment: 'Prod' })).to.throw(
      'no sub-environment "Prod" (the file has "ExampleA", "ExampleB")',
    );
  });

  it('v4 YAML (oauth): client credentials and password grants become OAuth 2.0 profiles; browser grants are reported', () => {
    const plan = importInsomnia(load('oauth-v4.yaml'));
    expect(plan.authProfiles.map((p) => p.fields)).to.deep.equal([
      {
        type: 'oauth2',
        grant: 'client_credentials',
        tokenUrl: 'http://127.0.0.1:4010/oidc/token',
        clientId: 'client_credentials',
        clientSecret: '{{client_credentials_client_secret}}',
        scopes: ['openid'],
        clientAuthentication: 'basic',
      },
      {
        type: 'oauth2',
        grant: 'password',
        tokenUrl: 'http://127.0.0.1:4010/oidc/token',
        clientId: 'resource_owner',
        clientSecret: '{{resource_owner_password_credentials_client_secret}}',
        scopes: ['openid'],
        clientAuthentication: 'basic',
        username: 'foo',
        password: '{{resource_owner_password_credentials_password}}',
      },
    ]);
    const lost = plan.requests.filter((r) => r.notCarried.length).map((r) => r.at);
    expect(lost).to.deep.equal([
      'Folder Level Auth Code / Inherit Auth Folder / Request with Inherited Auth',
      'Authorization Code / No PKCE',
      'Authorization Code / PKCE SHA256',
      'Authorization Code / PKCE Plain',
      'Implicit / ID Token',
      'Implicit / ID and Access Token',
    ]);
    expect(plan.requests[0]!.notCarried[0]).to.equal(
      'OAuth 2.0 grant "authorization_code" (from Folder Level Auth Code) is not carried: it needs a browser (auth profiles fetch tokens with client_credentials and password)',
    );
  });

  it('v5 YAML (chained responses): each response tag becomes an extract on the referenced node and {{variable}} in the body', () => {
    const doc = load('chained-responses-v5.yaml');
    expect(doc.format).to.equal('v5');
    const plan = importInsomnia(doc);
    const [first, second, third] = apiNodes(plan.testCases[0]!.flow);
    expect(first!.extract).to.deep.equal({ get_echo_data: 'response.body.data' });
    expect(second!.extract).to.deep.equal({ get_echo_2_data: 'response.body.data' });
    expect(second!.request).to.deep.include({
      url: 'http://localhost:4010/echo',
      body: '{{get_echo_data}} and second',
      alwaysSendBody: true,
    });
    expect(third!.request.body).to.equal('{{get_echo_2_data}} and third');
    expect(plan.requests.every((r) => !r.notCarried.length)).to.equal(true);
  });

  it('v5 YAML (auth types, in sort-key order): basic → profile, OAuth 1.0 → the node auth with the token secret a secret variable', () => {
    const plan = importInsomnia(load('auth-types-v5.yaml'));
    const [oauth1, basic] = apiNodes(plan.testCases[0]!.flow);
    expect(basic!.authProfile).to.equal('Auth-tests.sends-request-with-basic-authentication');
    expect(oauth1!.request.auth).to.deep.equal({
      type: 'oauth1',
      consumerKey: 'key',
      token: 'key',
      tokenSecret: '{{sends_request_with_oauth1_token_secret}}',
      signatureMethod: 'HMAC-SHA1',
      placement: 'header',
    });
    expect(plan.warnings.map((w) => w.at)).to.include('cookie jar');
  });

  it('a response tag to a missing request, or to one that runs later, is reported, not carried', () => {
    const doc = parseInsomnia(
      JSON.stringify({
        _type: 'export',
        __export_format: 4,
        resources: [
          { _id: 'wrk_1', _type: 'workspace', name: 'W', parentId: null },
          {
            _id: 'req_a',
            _type: 'request',
            parentId: 'wrk_1',
            name: 'A',
            method: 'GET',
            metaSortKey: 1,
            url: "http://x.test/{% response 'body', 'req_gone', 'b64::JC5pZA==::46b', 'never', 60 %}",
          },
          {
            _id: 'req_b',
            _type: 'request',
            parentId: 'wrk_1',
            name: 'B',
            method: 'GET',
            metaSortKey: 0,
            url: "http://x.test/{% response 'header', 'req_a', 'X-Id' %}",
          },
        ],
      }),
    );
    const plan = importInsomnia(doc);
    expect(plan.requests.map((r) => r.notCarried)).to.deep.equal([
      [
        'URL: response tag refers to "A", which runs after this one in the imported order: not carried (move it before this request in Insomnia)',
      ],
      ['URL: response tag refers to request req_gone, which is not among the imported requests: not carried'],
    ]);
  });

  it('templates: variables, filters and tags', () => {
    expect(convertTemplate("{{ _.a }}-{{b}}-{{ _['c d'] }}-{% uuid 'v4' %}-{% now 'unix' %}").text).to.equal(
      '{{a}}-{{b}}-{{c d}}-{{$guid}}-{{$timestamp}}',
    );
    expect(convertTemplate("{% base64 'encode', 'normal', 'user:pw' %}").text).to.equal('dXNlcjpwdw==');
    const f = convertTemplate("{{ _.name | upper }} {% faker 'randomFirstName' %}");
    expect(f.text).to.equal("{{name}} {% faker 'randomFirstName' %}");
    expect(f.notCarried).to.have.length(2);
    expect(jsonPathToJsonata("$.items[0]['x y'].id")).to.equal('response.body.items[0].`x y`.id');
    expect(jsonPathToJsonata('$..id')).to.equal(null);
  });

  it('bad input: not Insomnia, an unknown format version, a v5 file that is not a collection', () => {
    expect(() => parseInsomnia('{"log": {"entries": []}}')).to.throw(InsomniaFormatError, /^not an Insomnia export/);
    expect(() => parseInsomnia('_type: export\n__export_format: 3\nresources: []')).to.throw(
      'Insomnia export format 3 is not supported',
    );
    expect(() => parseInsomnia('type: collection.insomnia.rest/6.0\ncollection: []')).to.throw(
      'Insomnia file version "6.0" (type "collection.insomnia.rest/6.0") is not supported',
    );
    expect(() => parseInsomnia('type: spec.insomnia.rest/5.0\nspec: {}')).to.throw(/holds no request collection/);
    expect(() => parseInsomnia('a: [1\n')).to.throw(/^neither JSON nor YAML/);
  });
});

describe('assay import insomnia: requests, bodies and auth types', () => {
  const v5 = (items: unknown[]) =>
    parseInsomnia(
      JSON.stringify({
        type: 'collection.insomnia.rest/5.0',
        name: 'W',
        collection: items,
        environments: { data: {} },
      }),
    );
  const request = (name: string, fields: Record<string, unknown>) => ({
    name,
    method: 'POST',
    url: 'api.test/things/:id',
    meta: { id: `req_${name}` },
    ...fields,
  });

  it('query, path parameters, disabled entries, form bodies, redirects, URL encoding', () => {
    const plan = importInsomnia(
      v5([
        request('form', {
          parameters: [
            { name: 'q', value: 'a b' },
            { name: 'page', value: '{{ _.page }}' },
            { name: 'off', value: '1', disabled: true },
          ],
          pathParameters: [{ name: 'id', value: '7' }],
          headers: [
            { name: 'X-A', value: '1' },
            { name: 'X-B', value: '2', disabled: true },
          ],
          body: {
            mimeType: 'application/x-www-form-urlencoded',
            params: [
              { name: 'a', value: 'x&y' },
              { name: 'b', value: '{{ _.b }}' },
              { name: 'c', value: 'z', disabled: true },
            ],
          },
          settings: { followRedirects: 'off', encodeUrl: false },
        }),
        request('upload', {
          body: { mimeType: 'multipart/form-data', params: [{ name: 'f', type: 'file', fileName: '/tmp/x.bin' }] },
        }),
      ]),
    );
    const [form, upload] = apiNodes(plan.testCases[0]!.flow);
    expect(form!.request).to.deep.equal({
      method: 'POST',
      url: 'http://api.test/things/7?q=a+b&page={{page}}',
      headers: { 'X-A': '1', 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'a=x%26y&b={{b}}',
      followRedirects: false,
      disableUrlEncoding: true,
    });
    expect(upload!.request.multipart).to.equal(undefined);
    expect(plan.requests[1]!.notCarried).to.deep.equal([
      'multipart part "f": file /tmp/x.bin not found (pass --working-dir with the file)',
    ]);
  });

  it('digest, Hawk, AWS IAM on the node; bearer and API key (query) as profiles; folder auth inherited; NTLM reported', () => {
    const plan = importInsomnia(
      v5([
        request('digest', { authentication: { type: 'digest', username: 'u', password: 'digest-pw' } }),
        request('hawk', { authentication: { type: 'hawk', id: 'h', key: 'hawk-key-1', algorithm: 'sha1' } }),
        request('iam', {
          authentication: {
            type: 'iam',
            accessKeyId: 'AKID',
            secretAccessKey: 'aws-secret',
            region: 'eu-west-1',
            service: 's3',
          },
        }),
        request('key', {
          authentication: { type: 'apikey', key: 'api_key', value: 'key-value', addTo: 'queryParams' },
        }),
        {
          name: 'Folder',
          meta: { id: 'fld_1' },
          authentication: { type: 'bearer', token: '{{ _.token }}' },
          children: [
            request('inherits', {}),
            request('none', { authentication: { type: 'none' } }),
            request('ntlm', { authentication: { type: 'ntlm', username: 'u', password: 'p' } }),
          ],
        },
      ]),
    );
    const [digest, hawk, iam, key] = apiNodes(plan.testCases[0]!.flow);
    expect(digest!.request.auth).to.deep.equal({ type: 'digest', username: 'u', password: '{{digest_password}}' });
    expect(hawk!.request.auth).to.deep.equal({ type: 'hawk', id: 'h', key: '{{hawk_hawk_key}}', algorithm: 'sha1' });
    expect(iam!.request.auth).to.deep.equal({
      type: 'awsv4',
      accessKeyId: 'AKID',
      secretAccessKey: '{{iam_aws_secret_access_key}}',
      region: 'eu-west-1',
      service: 's3',
    });
    expect(plan.authProfiles.map((p) => p.fields)).to.deep.equal([
      { type: 'apiKey', name: 'api_key', value: '{{key_api_key}}', in: 'query' },
      { type: 'bearer', token: '{{token}}' },
    ]);
    expect(key!.authProfile).to.equal('W.key');
    const [inherits, none, ntlm] = apiNodes(plan.testCases[1]!.flow);
    expect(inherits!.authProfile).to.equal('W.Folder');
    expect(none!.authProfile).to.equal(undefined);
    expect(ntlm!.authProfile).to.equal(undefined);
    expect(plan.requests.find((r) => r.id === 'req_ntlm')!.notCarried[0]).to.match(
      /^NTLM auth \(from Folder \/ ntlm\) is not carried/,
    );
    expect(Object.keys(plan.environment.variables)).to.deep.equal([
      'digest_password',
      'hawk_hawk_key',
      'iam_aws_secret_access_key',
      'key_api_key',
    ]);
  });
  it('GraphQL, folder headers, bearer with a prefix, API key in a cookie, header and raw response tags, XPath reported', () => {
    const plan = importInsomnia(
      v5([
        {
          name: 'F',
          meta: { id: 'fld_f' },
          headers: [{ name: 'X-Folder', value: 'f' }],
          children: [
            request('login', {
              authentication: { type: 'bearer', token: 'tok-secret', prefix: 'Token' },
              body: { mimeType: 'application/graphql', text: '{"query":"{ me { id } }","variables":{"a":1}}' },
            }),
            request('next', {
              authentication: { type: 'apikey', key: 'sid', value: 'cookie-val', addTo: 'cookie' },
              headers: [
                { name: 'X-Folder', value: 'mine' },
                { name: 'X-Id', value: "{% response 'header', 'req_login', 'X-Request-Id', 'never' %}" },
                { name: 'X-Raw', value: "{% response 'raw', 'req_login', '', 'never' %}" },
                { name: 'X-Xml', value: "{% response 'body', 'req_login', '/a/b', 'never' %}" },
              ],
            }),
          ],
        },
      ]),
    );
    const [login, next] = apiNodes(plan.testCases[0]!.flow);
    expect(login!.request.body).to.deep.equal({ query: '{ me { id } }', variables: { a: 1 } });
    expect(login!.request.headers).to.deep.equal({
      'X-Folder': 'f',
      'Content-Type': 'application/json',
      Authorization: 'Token {{login_token}}',
    });
    expect(login!.extract).to.deep.equal({
      post_id_x_request_id: 'response.headers.`x-request-id`',
      post_id_raw: '$string(response.body)',
    });
    expect(next!.request.headers).to.deep.include({
      'X-Folder': 'mine',
      'X-Id': '{{post_id_x_request_id}}',
      'X-Raw': '{{post_id_raw}}',
      Cookie: 'sid={{next_api_key}}',
    });
    expect(plan.requests[1]!.notCarried).to.deep.equal([
      'header X-Xml: response tag with the XPath filter /a/b: not carried (extract reads JSON)',
    ]);
  });
  it('an Authorization header literal becomes a secret variable; disabled auth sends none; OAuth 1.0 RSA is reported', () => {
    const plan = importInsomnia(
      v5([
        request('hdr', { headers: [{ name: 'Authorization', value: 'Bearer abc-123-xyz' }] }),
        request('off', { authentication: { type: 'basic', username: 'u', password: 'pw-1234', disabled: true } }),
        request('rsa', { authentication: { type: 'oauth1', consumerKey: 'k', signatureMethod: 'RSA-SHA1' } }),
      ]),
    );
    const [hdr, off, rsa] = apiNodes(plan.testCases[0]!.flow);
    expect(hdr!.request.headers).to.deep.equal({ Authorization: 'Bearer {{authorization}}' });
    expect(plan.environment.variables.authorization).to.deep.equal({ value: 'abc-123-xyz', secret: true });
    expect(off!.authProfile).to.equal(undefined);
    expect(plan.authProfiles).to.deep.equal([]);
    expect(rsa!.request.auth).to.equal(undefined);
    expect(plan.requests[2]!.notCarried).to.deep.equal([
      'OAuth 1.0 with RSA-SHA1 is not carried (HMAC-SHA1/256/512 and PLAINTEXT are)',
    ]);
  });
});
