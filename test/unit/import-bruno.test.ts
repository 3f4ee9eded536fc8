/**
 * The Bruno import's conversion (cli/importers/bruno.ts, docs/import-bruno.md) on real collections
 * (test/fixtures/bruno/SOURCES.md: Bruno's own test collection and a starter project by another
 * author) and a hand-written one: counts, order, asserts as assertions, `vars:post-response` as
 * `extract`, auth as auth profiles or node auth, bodies and files, environments with their secrets
 * kept out; and bad input (no bruno.json, a .bru that does not parse, too many files) refused with
 * a message naming what is wrong.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  BRUNO_LIMITS,
  BrunoInputError,
  assertionOf,
  importBruno,
  parseBrunoCollection,
  readBrunoCollection,
  type BrunoApiNode,
  type BrunoImport,
} from '../../cli/importers/bruno';
import { resPath } from '../../cli/importers/bruno-scripts';
import { runsWithoutResponse } from '../../src/domain/postman-parameters';

const FIXTURES = path.resolve(__dirname, '../../../test/fixtures/bruno');
const load = (name: string, options: Parameters<typeof importBruno>[1] = {}): BrunoImport => {
  const dir = path.join(FIXTURES, name);
  return importBruno(parseBrunoCollection(readBrunoCollection(dir)), { dir, ...options });
};
const apiNodes = (imported: BrunoImport, testCase: string): BrunoApiNode[] =>
  imported.testCases.find((t) => t.name === testCase)!.flow.filter((n): n is BrunoApiNode => n.type === 'api');

describe('assay import bruno: conversion', () => {
  let tmp: string;
  before(() => (tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bruno-unit-'))));
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  describe("Bruno's own test collection (bruno-testbench)", () => {
    const imported = load('bruno-testbench');

    it('makes a test case of the loose requests and one per top-level folder, in seq order', () => {
      expect(imported.collectionName).to.equal('bruno-testbench');
      expect(imported.requests).to.have.length(223);
      expect(imported.requests.every((r) => r.node)).to.equal(true);
      expect(imported.testCases.map((t) => t.name)).to.deep.equal([
        'bruno-testbench',
        'url-serialization',
        'request-setting',
        'asserts',
        'auth',
        'echo',
        'file-binary',
        'graphql',
        'multipart',
        'preview',
        'redirects',
        'response-parsing',
        'scripting (1)',
        'scripting (2)',
        'sse',
        'string interpolation',
        'variable-datatypes',
      ]);
      // The 1 MiB "scripting" folder is split so that each part fits one request body.
      expect(imported.warnings.map((w) => w.at)).to.include('scripting');
      for (const tc of imported.testCases) expect(JSON.stringify(tc).length).to.be.at.most(900 * 1024);
    });

    it("maps the assert block's operators to assertions", () => {
      const [node] = apiNodes(imported, 'asserts');
      const byName = new Map(node!.assertions!.map((a) => [a.name, a]));
      expect(byName.get('res.body.number: eq 123')).to.deep.include({
        target: 'response.body.number',
        operator: 'equals',
        expected: 123,
      });
      expect(byName.get('res.body.numberAsString: eq "123"')).to.deep.include({ operator: 'equals', expected: '123' });
      // JSONata's keywords as names are quoted.
      expect(byName.get('res.body.true: eq true')).to.deep.include({ target: 'response.body.`true`', expected: true });
      expect(byName.get('res.body.null: eq null')).to.deep.include({ target: 'response.body.`null`', expected: null });
      expect(byName.get("res.body.string: eq 'foo'")).to.deep.include({ operator: 'equals', expected: 'foo' });
      expect(byName.get('res.body.nonexistent: eq undefined')).to.deep.include({ operator: 'notExists' });
      expect(node!.assertions).to.have.length(26); // of 28: two are listed
      // What is not a res path is reported, not dropped.
      expect(imported.untranslated).to.deep.include({
        at: 'asserts / test-assert-combinations',
        message:
          'assertion on "res.body.numberBig.toString()": only res.status, res.body…, res.headers… and res.responseTime are carried',
      });
    });

    it('turns auth into auth profiles (collection bearer, request basic) and node auth (digest)', () => {
      expect(imported.authProfiles[0]).to.deep.include({
        name: 'bruno-testbench',
        fields: { type: 'bearer', token: '{{bearer_auth_token}}' },
        from: 'collection',
      });
      expect(imported.authProfiles.map((p) => p.fields)).to.deep.include({
        type: 'basic',
        username: 'bruno',
        password: '{{basic_auth_password}}',
      });
      const auth = apiNodes(imported, 'auth');
      expect(imported.testCases.find((t) => t.name === 'auth')!.authProfile).to.equal('bruno-testbench');
      const digest = auth.find((n) => n.name === 'digest / Digest Auth 200')!;
      expect(digest.request.auth).to.deep.equal({ type: 'digest', username: 'admin', password: 'password' });
      expect(digest.authProfile).to.equal('none');
      // A bearer auth without a token: no profile, sent without auth, a warning.
      expect(auth.find((n) => n.name === 'bearer / via auth / Bearer Auth undefined')!.authProfile).to.equal('none');
      expect(imported.warnings).to.deep.include({
        at: 'auth / bearer / via auth / Bearer Auth undefined',
        message: 'bearer auth without a token: sent without auth',
      });
    });

    it('carries bodies: GraphQL as {query}, multipart @file parts and file bodies as workspace files', () => {
      const [spacex] = apiNodes(imported, 'graphql');
      expect(spacex!.request.method).to.equal('POST');
      expect(spacex!.request.body).to.deep.equal({ query: '{\n  company {\n    ceo\n  }\n}\n' });
      const file = apiNodes(imported, 'multipart').find((n) => n.name === 'multipart-mixed-form-data-file')!;
      expect(file.request.multipart).to.deep.equal([
        { name: 'sample', file: 'bruno/bruno-testbench/bruno.png', contentType: 'image/png' },
      ]);
      expect(imported.uploads.map((u) => u.name)).to.deep.equal([
        'bruno/bruno-testbench/bruno.png',
        'bruno/bruno-testbench/file.json',
        'bruno/bruno-testbench/file.txt',
      ]);
      expect(imported.untranslated).to.deep.include({
        at: 'echo / echo multipart',
        message:
          'multipart text part "foo": its Content-Type application/json--test is not sent (Assay sends text parts without one)',
      });
      expect(apiNodes(imported, 'file-binary').map((n) => n.request.file)).to.deep.include({
        file: 'bruno/bruno-testbench/file.json',
        contentType: 'application/json',
      });
    });

    it('runs scripts and tests through the Bruno adapter over the postman library, and lists what it refuses', () => {
      const [ping] = apiNodes(imported, 'bruno-testbench');
      expect(ping!.script!.libs).to.deep.equal(['postman@1.0.0']);
      expect(ping!.script!.code).to.include('function AssayBruno(pm, require)');
      expect(ping!.script!.code).to.include('const { bru, req, res, test, expect } = AssayBruno(pm, require);');
      expect(ping!.script!.code).to.include('async function afterResponse()');
      // Bruno runs no tests when no response arrived: only the Postman import asks for that.
      expect(runsWithoutResponse(ping!.script!.code)).to.equal(false);
      const messages = new Set(imported.untranslated.map((n) => n.message));
      expect(messages).to.include('a script uses bru.runRequest: it throws when called');
      expect(messages).to.include('a script uses bru.sendRequest: it throws when called');
      expect(messages).to.include(
        'a script uses bru.getProcessEnv: it answers undefined (a run has no process environment)',
      );
      expect(imported.ignored).to.deep.include({ at: 'bruno-testbench', message: 'the collection docs' });
    });

    it('imports both environments; the secret names have no value and are never written', () => {
      expect(imported.environments.map((e) => e.name)).to.deep.equal(['Local', 'Prod']);
      const local = imported.environments[0]!;
      expect(local.secretsWithoutValue).to.include.members(['github_client_secret', 'github_access_token']);
      expect(local.secretsWithoutValue).to.have.length(9);
      for (const name of local.secretsWithoutValue) expect(local.variables).to.not.have.property(name);
      expect(local.variables).to.include({
        host: 'http://localhost:8080',
        typed_env_num: 300,
        typed_env_bool: true,
        typed_env_obj: '{"scope":"env"}',
      });
      expect(imported.untranslated).to.deep.include({
        at: 'environments/Local.bru',
        message:
          "bark reads {{process.env.PROC_ENV_VAR}}: a run has no process environment; set the variable's value instead",
      });
      expect(load('bruno-testbench', { environments: ['Prod'] }).environments.map((e) => e.name)).to.deep.equal([
        'Prod',
      ]);
      expect(() => load('bruno-testbench', { environments: ['Staging'] })).to.throw(
        BrunoInputError,
        'no environment "Staging" in the collection (it has: Local, Prod)',
      );
    });
  });

  it('a starter collection by another author: assert and tests blocks, one environment', () => {
    const imported = load('bruno-api-test-starter');
    expect(imported.collectionName).to.equal('api-collections');
    expect(imported.untranslated).to.deep.equal([]);
    const [node] = apiNodes(imported, 'api-collections');
    expect(node!.request).to.deep.equal({ method: 'GET', url: '{{host}}/posts/1' });
    expect(node!.assertions).to.deep.equal([
      { name: 'res.status: eq 200', target: 'response.status', operator: 'equals', expected: 200 },
      { name: 'res.body.id: eq 1', target: 'response.body.id', operator: 'equals', expected: 1 },
      {
        name: 'res.body.title: contains provident',
        target: 'response.body.title',
        operator: 'contains',
        expected: 'provident',
      },
    ]);
    expect(node!.script!.code).to.include('test("res.status should be 200"');
    expect(imported.environments).to.deep.equal([
      {
        name: 'demo',
        from: 'environments/demo.bru',
        variables: { host: 'https://jsonplaceholder.typicode.com' },
        secretsWithoutValue: [],
      },
    ]);
  });

  it('vars:post-response → extract; vars:pre-request → Context nodes; params, headers and auth inherited', () => {
    const imported = load('loopback-shop');
    const [login, me] = apiNodes(imported, 'auth');
    expect(login!.extract).to.deep.equal({ token: 'response.body.token' });
    expect(login!.authProfile).to.equal('none');
    expect(login!.request.headers).to.deep.equal({
      'x-client': 'assay-bruno-test',
      'Content-Type': 'application/json',
    });
    expect(me!.request.url).to.equal('{{base}}/users/me?verbose=yes');
    expect(me!.authProfile).to.equal(undefined);
    const tc = imported.testCases.find((t) => t.name === 'auth')!;
    expect(tc.authProfile).to.equal('loopback-shop.auth');
    expect(imported.authProfiles).to.deep.equal([
      {
        name: 'loopback-shop.auth',
        description: 'Imported from Bruno: the bearer auth of "auth"',
        fields: { type: 'bearer', token: '{{token}}' },
        from: 'auth',
      },
    ]);
    expect(tc.flow[0]).to.deep.equal({
      type: 'context',
      id: 'collection-vars',
      name: 'Collection and folder variables (vars:pre-request)',
      set: { user: '$exists(variables.`user`) ? variables.`user` : "ada"' },
    });
  });

  it('a post-response variable that is not a plain res path is set by the script', () => {
    const dir = path.join(tmp, 'vars');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'bruno.json'), '{"version":"1","name":"vars","type":"collection"}');
    fs.writeFileSync(
      path.join(dir, 'A.bru'),
      'meta {\n  name: A\n  type: http\n  seq: 1\n}\n\nget {\n  url: http://x/a\n  body: none\n  auth: none\n}\n\nvars:post-response {\n  id: res.body.items[0].id\n  count: res.body.items.length + 1\n  ~off: res.status\n}\n',
    );
    const [node] = importBruno(parseBrunoCollection(readBrunoCollection(dir))).testCases[0]!.flow as BrunoApiNode[];
    expect(node!.extract).to.deep.equal({ id: 'response.body.items[0].id' });
    expect(node!.script!.code).to.include('bru.setVar("count", (res.body.items.length + 1));');
  });

  it('auth of every kind, bodies and settings', () => {
    const dir = path.join(tmp, 'kinds');
    const req = (name: string, seq: number, method: string, block: string) =>
      `meta {\n  name: ${name}\n  type: http\n  seq: ${seq}\n}\n\n${method} {\n  url: http://x/${name}\n${block}`;
    const files: Record<string, string> = {
      'bruno.json': '{"version":"1","name":"kinds","type":"collection"}',
      'collection.bru':
        'auth {\n  mode: apikey\n}\n\nauth:apikey {\n  key: api_key\n  value: {{key}}\n  placement: queryparams\n}\n',
      'a/folder.bru': 'meta {\n  name: a\n  seq: 1\n}\n\nauth {\n  mode: inherit\n}\n',
      'a/cc.bru': req(
        'cc',
        1,
        'get',
        '  body: none\n  auth: oauth2\n}\n\nauth:oauth2 {\n  grant_type: client_credentials\n  access_token_url: http://t/token\n  client_id: cid\n  client_secret: {{secret}}\n  scope: read write\n}\n',
      ),
      'a/pw.bru': req(
        'pw',
        2,
        'get',
        '  body: none\n  auth: oauth2\n}\n\nauth:oauth2 {\n  grant_type: password\n  access_token_url: http://t/token\n  client_id: cid\n  username: u\n  password: p\n}\n',
      ),
      'a/code.bru': req(
        'code',
        3,
        'get',
        '  body: none\n  auth: oauth2\n}\n\nauth:oauth2 {\n  grant_type: authorization_code\n  authorization_url: http://t/auth\n  access_token_url: http://t/token\n  client_id: cid\n}\n',
      ),
      'a/aws.bru': req(
        'aws',
        4,
        'get',
        '  body: none\n  auth: awsv4\n}\n\nauth:awsv4 {\n  accessKeyId: AK\n  secretAccessKey: {{sk}}\n  service: s3\n  region: eu-west-1\n}\n',
      ),
      'a/wsse.bru': req(
        'wsse',
        5,
        'get',
        '  body: none\n  auth: wsse\n}\n\nauth:wsse {\n  username: u\n  password: p\n}\n',
      ),
      'a/inherit.bru': req('inherit', 6, 'get', '  body: none\n  auth: inherit\n}\n'),
      'b/form.bru': req(
        'form',
        1,
        'post',
        '  body: formUrlEncoded\n  auth: none\n}\n\nbody:form-urlencoded {\n  a: 1 2\n  b: {{x}}\n  ~c: 3\n}\n\nsettings {\n  encodeUrl: false\n  timeout: 5000\n  followRedirects: false\n  maxRedirects: 3\n}\n',
      ),
      'b/xml.bru': req('xml', 2, 'post', '  body: xml\n  auth: none\n}\n\nbody:xml {\n  <a>{{x}}</a>\n}\n'),
      'b/sparql.bru': req(
        'sparql',
        3,
        'post',
        '  body: sparql\n  auth: none\n}\n\nbody:sparql {\n  SELECT * WHERE { ?s ?p ?o }\n}\n',
      ),
      'b/gql.bru': `meta {\n  name: gql\n  type: graphql\n  seq: 4\n}\n\npost {\n  url: http://x/graphql\n  body: graphql\n  auth: none\n}\n\nbody:graphql {\n  query Q($id: ID) { a(id: $id) }\n}\n\nbody:graphql:vars {\n  {"id": "{{id}}"}\n}\n`,
    };
    for (const [f, t] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
      fs.writeFileSync(path.join(dir, f), t);
    }
    const imported = importBruno(parseBrunoCollection(readBrunoCollection(dir)));
    expect(imported.authProfiles.map((p) => [p.name, p.fields])).to.deep.equal([
      ['kinds', { type: 'apiKey', name: 'api_key', value: '{{key}}', in: 'query' }],
      [
        'kinds.a.cc',
        {
          type: 'oauth2',
          grant: 'client_credentials',
          tokenUrl: 'http://t/token',
          clientId: 'cid',
          clientSecret: '{{secret}}',
          scopes: ['read', 'write'],
          clientAuthentication: 'body',
        },
      ],
      [
        'kinds.a.pw',
        {
          type: 'oauth2',
          grant: 'password',
          tokenUrl: 'http://t/token',
          clientId: 'cid',
          clientAuthentication: 'body',
          username: 'u',
          password: 'p',
        },
      ],
    ]);
    const a = apiNodes(imported, 'a');
    expect(imported.testCases.find((t) => t.name === 'a')!.authProfile).to.equal('kinds');
    expect(a.map((n) => [n.name, n.authProfile])).to.deep.equal([
      ['cc', 'kinds.a.cc'],
      ['pw', 'kinds.a.pw'],
      ['code', 'none'],
      ['aws', 'none'],
      ['wsse', 'none'],
      ['inherit', undefined],
    ]);
    expect(a[3]!.request.auth).to.deep.equal({
      type: 'awsv4',
      accessKeyId: 'AK',
      secretAccessKey: '{{sk}}',
      region: 'eu-west-1',
      service: 's3',
    });
    expect(imported.untranslated).to.deep.equal([
      {
        at: 'a / code',
        message:
          'OAuth 2.0 grant "authorization_code" is not carried: an auth profile fetches tokens with client_credentials and password',
      },
      {
        at: 'a / wsse',
        message: 'wsse auth is not carried (Assay signs basic, bearer, API key, OAuth 2.0, digest and AWS SigV4)',
      },
    ]);
    const [form, xml, sparql, gql] = apiNodes(imported, 'b');
    expect(form!.request).to.deep.include({
      body: 'a=1%202&b={{x}}',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      disableUrlEncoding: true,
      timeoutMs: 5000,
      followRedirects: false,
      maxRedirects: 3,
    });
    expect(xml!.request).to.deep.include({ body: '<a>{{x}}</a>', headers: { 'Content-Type': 'application/xml' } });
    expect(sparql!.request.headers).to.deep.equal({ 'Content-Type': 'application/sparql-query' });
    expect(gql!.request).to.deep.include({
      method: 'POST',
      body: { query: 'query Q($id: ID) { a(id: $id) }', variables: { id: '{{id}}' } },
    });
  });

  it("runs scripts in Bruno's order: sandwich by default, sequential when bruno.json says so", () => {
    const make = (name: string, flow?: string) => {
      const dir = path.join(tmp, name);
      fs.mkdirSync(path.join(dir, 'f'), { recursive: true });
      fs.writeFileSync(
        path.join(dir, 'bruno.json'),
        JSON.stringify({ version: '1', name, type: 'collection', ...(flow ? { scripts: { flow } } : {}) }),
      );
      fs.writeFileSync(
        path.join(dir, 'collection.bru'),
        'script:pre-request {\n  bru.setVar("c_pre", 1);\n}\n\nscript:post-response {\n  bru.setVar("c_post", 1);\n}\n',
      );
      fs.writeFileSync(
        path.join(dir, 'f/folder.bru'),
        'meta {\n  name: f\n}\n\nscript:post-response {\n  bru.setVar("f_post", 1);\n}\n',
      );
      fs.writeFileSync(
        path.join(dir, 'f/R.bru'),
        'meta {\n  name: R\n  seq: 1\n}\n\nget {\n  url: http://x/\n  body: none\n  auth: none\n}\n\nscript:pre-request {\n  bru.setVar("r_pre", 1);\n}\n\nscript:post-response {\n  bru.setVar("r_post", 1);\n}\n\ntests {\n  test("r", () => {});\n}\n',
      );
      const code = (importBruno(parseBrunoCollection(readBrunoCollection(dir))).testCases[0]!.flow[0] as BrunoApiNode)
        .script!.code;
      return ['c_pre', 'r_pre', 'r_post', 'f_post', 'c_post', 'test("r"'].sort(
        (a, b) => code.indexOf(a) - code.indexOf(b),
      );
    };
    expect(make('sandwich')).to.deep.equal(['c_pre', 'r_pre', 'r_post', 'f_post', 'c_post', 'test("r"']);
    expect(make('sequential', 'sequential')).to.deep.equal([
      'c_pre',
      'r_pre',
      'c_post',
      'f_post',
      'r_post',
      'test("r"',
    ]);
  });

  it('maps every Bruno assert operator, reporting what has no equivalent', () => {
    const cases: Array<[string, string, unknown]> = [
      ['res.status', 'eq 200', { target: 'response.status', operator: 'equals', expected: 200 }],
      ['res.status', '200', { target: 'response.status', operator: 'equals', expected: 200 }],
      ['res.status', 'neq 500', { operator: 'notEquals', expected: 500 }],
      ['res.body.n', 'gt 1', { operator: 'greaterThan', expected: 1 }],
      ['res.body.n', 'gte 1', { operator: 'greaterThanOrEqual', expected: 1 }],
      ['res.body.n', 'lt 1', { operator: 'lessThan', expected: 1 }],
      ['res.body.n', 'lte 1', { operator: 'lessThanOrEqual', expected: 1 }],
      ['res.status', 'in [200, 201]', { operator: 'oneOf', expected: [200, 201] }],
      [
        'res.status',
        'notIn 400, 500',
        { target: '(response.status) in [400,500]', operator: 'equals', expected: false },
      ],
      ['res.body.s', 'contains ab', { operator: 'contains', expected: 'ab' }],
      ['res.body.s', 'notContains ab', { operator: 'notContains', expected: 'ab' }],
      ['res.body.items', 'length 2', { operator: 'equals', expected: 2 }],
      ['res.body.s', 'matches ^a+$', { operator: 'matches', expected: '^a+$' }],
      [
        'res.body.s',
        'notMatches /^b/',
        { target: '$contains($string(response.body.s), /^b/)', operator: 'equals', expected: false },
      ],
      ['res.body.s', 'startsWith a.b', { operator: 'matches', expected: '^a\\.b' }],
      ['res.body.s', 'endsWith (x)', { operator: 'matches', expected: '\\(x\\)$' }],
      ['res.body.n', 'between 1, 5', { operator: 'inRange', expected: [1, 5] }],
      ['res.body.s', 'isEmpty', { operator: 'oneOf', expected: ['', [], {}] }],
      ['res.body.s', 'isNotEmpty', { target: '$boolean(response.body.s)', operator: 'equals', expected: true }],
      ['res.body.s', 'isNull', { operator: 'equals', expected: null }],
      ['res.body.s', 'isUndefined', { operator: 'notExists' }],
      ['res.body.s', 'isDefined', { operator: 'exists' }],
      ['res.body.b', 'isTruthy', { operator: 'equals', expected: true }],
      ['res.body.b', 'isFalsy', { operator: 'equals', expected: false }],
      ['res.body', 'isJson', { target: '$type(response.body)', operator: 'oneOf', expected: ['object', 'array'] }],
      ['res.body.n', 'isNumber', { operator: 'isType', expected: 'number' }],
      ['res.body.s', 'isString', { operator: 'isType', expected: 'string' }],
      ['res.body.b', 'isBoolean', { operator: 'isType', expected: 'boolean' }],
      ['res.body.a', 'isArray', { operator: 'isType', expected: 'array' }],
      [
        'res.body.id',
        'eq {{id}}',
        { target: '(response.body.id) = variables.`id`', operator: 'equals', expected: true },
      ],
      ['res.body.ok', 'eq true', { operator: 'equals', expected: true }],
      ['res.body.s', 'eq "200"', { operator: 'equals', expected: '200' }],
    ];
    for (const [lhs, rhs, want] of cases)
      expect(assertionOf(lhs, rhs), `${lhs}: ${rhs}`).to.deep.include(want as object);
    expect(assertionOf('res.body.s', 'eq a-{{x}}')).to.deep.equal({
      unsupported: 'assertion "res.body.s: eq a-{{x}}": a template in "a-{{x}}" is not carried',
    });
    expect(assertionOf('bru.getVar("x")', 'eq 1')).to.have.property('unsupported');
  });

  it('reads res expressions as JSONata paths', () => {
    expect(resPath('res.status')).to.equal('response.status');
    expect(resPath('res.getStatus()')).to.equal('response.status');
    expect(resPath('res.responseTime')).to.equal('response.time');
    expect(resPath('res.headers.content-type')).to.equal('response.headers.`content-type`');
    expect(resPath("res.headers['X-Request-Id']")).to.equal('response.headers.`x-request-id`');
    expect(resPath('res.getHeader("ETag")')).to.equal('response.headers.etag');
    expect(resPath('res.body.data[0]["a b"].c')).to.equal('response.body.data[0].`a b`.c');
    expect(resPath("res('data.items')")).to.equal('response.body.data.items');
    expect(resPath('res.getBody().token')).to.equal('response.body.token');
    expect(resPath('res.body.items.map(x => x.id)')).to.equal(undefined);
  });

  describe('bad input', () => {
    const collection = (
      name: string,
      files: Record<string, string>,
      config = '{"version":"1","name":"c","type":"collection"}',
    ) => {
      const dir = path.join(tmp, name);
      fs.mkdirSync(dir, { recursive: true });
      if (config) fs.writeFileSync(path.join(dir, 'bruno.json'), config);
      for (const [f, text] of Object.entries(files)) {
        fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
        fs.writeFileSync(path.join(dir, f), text);
      }
      return dir;
    };
    const ok = 'meta {\n  name: A\n  seq: 1\n}\n\nget {\n  url: http://x/\n}\n';

    it('a folder without bruno.json, or with one that is not JSON', () => {
      expect(() => readBrunoCollection(collection('none', { 'A.bru': ok }, ''))).to.throw(
        BrunoInputError,
        /none has no bruno\.json: not a Bruno collection folder$/,
      );
      expect(() => readBrunoCollection(path.join(tmp, 'missing'))).to.throw(BrunoInputError, /is not a folder/);
      expect(() => readBrunoCollection(collection('badjson', {}, '{"name": '))).to.throw(
        BrunoInputError,
        /bruno\.json is not valid JSON/,
      );
    });

    it('a .bru that does not parse: the file and the line', () => {
      const dir = collection('broken', {
        'folder/B.bru': 'meta {\n  name: B\n}\n\nget {\n  url: http://x\n\nassert {\n}\n',
      });
      expect(() => parseBrunoCollection(readBrunoCollection(dir))).to.throw(
        BrunoInputError,
        /^folder\/B\.bru does not parse: Line 8, col \d+: Expected ":"/,
      );
      const env = collection('brokenenv', { 'environments/Dev.bru': 'vars {\n  a: 1\n' });
      expect(() => parseBrunoCollection(readBrunoCollection(env))).to.throw(
        BrunoInputError,
        /^environments\/Dev\.bru does not parse: Line 3/,
      );
    });

    it('too many .bru files, or too large a one', () => {
      const dir = collection('many', { 'A.bru': ok, 'B.bru': ok, 'C.bru': ok, 'D.bru': ok });
      expect(() => readBrunoCollection(dir, { ...BRUNO_LIMITS, files: 3 })).to.throw(
        BrunoInputError,
        'more than 3 .bru files: too many for one import',
      );
      expect(() => readBrunoCollection(dir, { ...BRUNO_LIMITS, fileBytes: 20 })).to.throw(
        BrunoInputError,
        /^A\.bru: \d+ bytes, more than the 20 a \.bru file may have$/,
      );
      expect(() => readBrunoCollection(dir, { ...BRUNO_LIMITS, totalBytes: 100 })).to.throw(
        BrunoInputError,
        /more than 100 bytes/,
      );
      expect(readBrunoCollection(dir).files).to.have.length(4);
    });

    it('a secret with a value in the file is imported as a secret; a file outside the collection is listed', () => {
      const dir = collection('secret', {
        'environments/Dev.bru': 'vars {\n  base: http://x\n}\nvars:secret [\n  token\n]\n',
        'Up.bru':
          'meta {\n  name: Up\n  seq: 1\n}\n\npost {\n  url: http://x/up\n  body: multipartForm\n  auth: none\n}\n\nbody:multipart-form {\n  f: @file(../outside.bin)\n  g: @file(nope.bin)\n}\n',
      });
      const parsed = parseBrunoCollection(readBrunoCollection(dir));
      (parsed.environments[0]!.variables as Array<{ name: string; value: unknown }>).find(
        (v) => v.name === 'token',
      )!.value = 'tok-1234';
      const imported = importBruno(parsed, { dir });
      expect(imported.environments[0]!.variables).to.deep.equal({
        base: 'http://x',
        token: { value: 'tok-1234', secret: true },
      });
      expect(imported.untranslated.map((n) => n.message)).to.deep.equal([
        'file ../outside.bin: only files inside the collection folder are uploaded',
        'file nope.bin is not in the collection folder',
      ]);
    });
  });
});
