/**
 * The designer's ways in (console/src/designer/ways-in: a curl command, a local request, an API
 * design operation to an API node) and the debug panel's pure parts (console/src/designer/debug:
 * a response field to an assertion target or extraction, results painted by node id, the debug
 * run's bodies and field errors). The JSONata targets are evaluated with jsonata itself, so a
 * path the engine would read differently fails here.
 */
import { expect } from 'chai';
import jsonata from 'jsonata';
import { curlToNode } from '../../console/src/designer/ways-in/curl';
import { localRequestToNode } from '../../console/src/designer/ways-in/local';
import { exampleOf, nodeFromOperation, type DesignOperation } from '../../console/src/designer/ways-in/design';
import { nodeIdFor } from '../../console/src/designer/ways-in/node';
import {
  assertionFor,
  extractionFor,
  jsonataPath,
  jsonType,
  subschemaAt,
  variableName,
} from '../../console/src/designer/debug/paths';
import { paintResults } from '../../console/src/designer/debug/paint';
import { debugFieldErrors, debugRunBody, sendNodeTestCase } from '../../console/src/designer/debug/request';
import { newRequest } from '../../console/src/local/request';
import type { NodeResult } from '../../src/domain/types';

describe('designer ways in: a curl command to an API node', () => {
  it('takes the method, URL, headers and JSON body, and asserts a 2xx status', () => {
    const made = curlToNode(
      `curl -X POST 'https://api.example.com/v1/users?team=a' \\
        -H 'Content-Type: application/json' -H 'X-Trace: t-1' \\
        --data-raw '{"email":"ada@example.com","admin":false}'`,
    );
    if ('error' in made) throw new Error(made.error);
    expect(made.node.type).to.equal('api');
    expect(made.node.request).to.deep.equal({
      method: 'POST',
      url: 'https://api.example.com/v1/users?team=a',
      headers: { 'X-Trace': 't-1' },
      body: { email: 'ada@example.com', admin: false },
    });
    expect(made.node.assertions).to.deep.equal([
      { name: 'status is 2xx', target: 'response.status', operator: 'inRange', expected: [200, 299] },
    ]);
    expect(made.node.id).to.equal('post-users');
    expect(made.node.name).to.equal('POST /v1/users?team=a');
    expect(made.warnings).to.deep.equal([]);
  });

  it('moves credentials into variables (-u, Authorization, -b, API keys), never literals in the node; a relative URL into {{base}}', () => {
    const made = curlToNode(
      "curl -u ada:s3cret: -b 'sid=abc123' -H 'X-Api-Key: key-987654' -H 'X-Trace: t-1' /orders/7",
    );
    if ('error' in made) throw new Error(made.error);
    expect(made.node.request.method).to.equal('GET');
    expect(made.node.request.url).to.equal('{{base}}/orders/7');
    expect(made.node.request.headers).to.deep.equal({
      Authorization: 'Basic {{authorization}}',
      Cookie: '{{cookie}}',
      'X-Api-Key': '{{xApiKey}}',
      'X-Trace': 't-1',
    });
    expect(JSON.stringify(made.node)).not.to.match(/abc123|key-987654|s3cret/);
    expect(JSON.stringify(made.node)).not.to.include(btoa('ada:s3cret:'));
    // base64("ada:s3cret:"), the password being everything after the first colon.
    expect(made.secrets).to.deep.equal([
      { variable: 'authorization', header: 'Authorization', value: btoa('ada:s3cret:') },
      { variable: 'cookie', header: 'Cookie', value: 'sid=abc123' },
      { variable: 'xApiKey', header: 'X-Api-Key', value: 'key-987654' },
    ]);
    expect(made.node.request.body).to.equal(undefined);
    // A Bearer token keeps its scheme; a header already naming a variable stays as it is.
    const bearer = curlToNode("curl -H 'Authorization: Bearer tok-1234' -H 'X-Token: {{t}}' https://x.test/a");
    if ('error' in bearer) throw new Error(bearer.error);
    expect(bearer.node.request.headers).to.deep.equal({ Authorization: 'Bearer {{token}}', 'X-Token': '{{t}}' });
    expect(bearer.secrets).to.deep.equal([{ variable: 'token', header: 'Authorization', value: 'tok-1234' }]);
  });

  it('keeps a JSON body that does not parse as text, with its type, and gives an id not taken', () => {
    const made = curlToNode(`curl https://x.test/users -H 'content-type: application/json' -d '{"a": {{n}}}'`, {
      taken: ['post-users', 'post-users-2'],
    });
    if ('error' in made) throw new Error(made.error);
    expect(made.node.request.body).to.equal('{"a": {{n}}}');
    // The importer drops the JSON type (a JSON body sends it by itself); a body kept as text gets it back.
    expect(made.node.request.headers).to.deep.equal({ 'Content-Type': 'application/json' });
    expect(made.node.id).to.equal('post-users-3');
  });

  it('refuses what is not a curl command, a command without URL, empty text', () => {
    expect(curlToNode('wget https://x.test')).to.deep.equal({
      error: 'This is not a curl command: it should start with "curl".',
    });
    expect(curlToNode('curl -X POST')).to.deep.equal({ error: 'The curl command names no URL.' });
    expect(curlToNode('   '))
      .to.have.property('error')
      .that.matches(/Paste a curl command/);
  });

  it('takes -F text parts as multipart; file parts are left out with a warning (a page cannot read them)', () => {
    const made = curlToNode("curl https://x.test/up -F name=ada -F 'doc=@report.pdf'");
    if ('error' in made) throw new Error(made.error);
    expect(made.node.request.method).to.equal('POST');
    expect(made.node.request.multipart).to.deep.equal([{ name: 'name', value: 'ada' }]);
    expect(made.warnings.join('\n')).to.match(/-F doc=@report\.pdf: a page cannot read the files/);
    const onlyFiles = curlToNode("curl https://x.test/up -F 'doc=@report.pdf'");
    if ('error' in onlyFiles) throw new Error(onlyFiles.error);
    expect(onlyFiles.node.request).to.deep.equal({ method: 'POST', url: 'https://x.test/up' });
  });

  it('passes on what the importer could not take over', () => {
    const made = curlToNode('curl --max-time 5 https://x.test/a');
    if ('error' in made) throw new Error(made.error);
    expect(made.warnings).to.deep.equal(['Not supported, ignored: --max-time 5.']);
  });
});

describe('designer ways in: a local request to an API node', () => {
  it('keeps name, enabled headers, a form body with its placeholders, and asserts a 2xx status', () => {
    const r = newRequest({
      name: 'Sign in',
      method: 'POST',
      url: '/login',
      headers: [
        { name: 'X-On', value: '1', enabled: true },
        { name: 'X-Off', value: '2', enabled: false },
      ],
      bodyKind: 'form',
      form: [{ name: 'user', value: '{{user}}', enabled: true }],
    });
    const made = localRequestToNode(r, { origin: 'http://127.0.0.1:8080' });
    if ('error' in made) throw new Error(made.error);
    expect(made.node).to.deep.equal({
      id: 'post-login',
      name: 'Sign in',
      type: 'api',
      request: {
        method: 'POST',
        url: 'http://127.0.0.1:8080/login',
        headers: { 'X-On': '1', 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'user={{user}}',
      },
      assertions: [{ name: 'status is 2xx', target: 'response.status', operator: 'inRange', expected: [200, 299] }],
    });
  });

  it('refuses a multipart body', () => {
    const r = newRequest({ method: 'POST', bodyKind: 'multipart' });
    expect(localRequestToNode(r))
      .to.have.property('error')
      .that.matches(/multipart/i);
  });
});

describe('designer ways in: an API design operation to an API node', () => {
  const userSchema = {
    type: 'object',
    required: ['id', 'email'],
    properties: { id: { type: 'integer', readOnly: true }, email: { type: 'string', format: 'email' } },
  };
  const designs: DesignOperation[] = [
    { method: 'GET', path: '/users', responses: [{ status: 200 }] },
    {
      method: 'PUT',
      path: '/teams/{team-id}/users/{userId}',
      name: 'Replace a user',
      requestSchema: {
        type: 'object',
        properties: {
          id: { type: 'integer', readOnly: true },
          email: { type: 'string', format: 'email' },
          role: { enum: ['admin', 'member'] },
          tags: { type: 'array', items: { type: 'string' } },
          address: { $ref: '#/$defs/address' },
        },
        $defs: { address: { type: 'object', properties: { city: { type: 'string', example: 'Oslo' } } } },
      },
      responseSchemas: { '200': userSchema, '404': { type: 'object' } },
      responses: [{ status: 404 }, { status: 200 }, { status: 201 }],
      parameters: [
        { in: 'path', name: 'userId', required: true },
        { in: 'query', name: 'dry-run', required: true },
        { in: 'query', name: 'verbose' },
        { in: 'header', name: 'X-Tenant', required: true },
        { in: 'header', name: 'Accept', required: true },
      ],
    },
  ];

  it('makes the request with path parameters as variables, an example body and the success status and schema', () => {
    const node = nodeFromOperation(designs, 'put', '/teams/{team-id}/users/{userId}');
    expect(node).to.deep.equal({
      id: 'put-users',
      name: 'Replace a user',
      type: 'api',
      request: {
        method: 'PUT',
        url: '{{base}}/teams/{{team-id}}/users/{{userId}}?dry-run={{dry-run}}',
        headers: { 'X-Tenant': '{{X-Tenant}}', 'Content-Type': 'application/json' },
        body: { email: 'user@example.com', role: 'admin', tags: ['string'], address: { city: 'Oslo' } },
      },
      assertions: [
        { name: 'status is 200', target: 'response.status', operator: 'equals', expected: 200 },
        {
          name: 'body matches the 200 response schema',
          target: 'response.body',
          operator: 'matchesSchema',
          expected: userSchema,
        },
      ],
    });
  });

  it('without a schema or a 2xx response asserts the status only; other base variable; unknown operation refused', () => {
    const node = nodeFromOperation(designs, 'GET', '/users', { base: 'api', taken: ['get-users'] });
    expect(node.request).to.deep.equal({ method: 'GET', url: '{{api}}/users' });
    expect(node.name).to.equal('GET /users');
    expect(node.id).to.equal('get-users-2');
    expect(node.assertions).to.deep.equal([
      { name: 'status is 200', target: 'response.status', operator: 'equals', expected: 200 },
    ]);
    const only404 = nodeFromOperation({ method: 'DELETE', path: '/x', responses: [{ status: 404 }] }, 'DELETE', '/x');
    expect(only404.assertions).to.deep.equal([
      { name: 'status is 2xx', target: 'response.status', operator: 'inRange', expected: [200, 299] },
    ]);
    expect(() => nodeFromOperation(designs, 'POST', '/users')).to.throw('No API design for POST /users.');
  });

  it('an example wins over the type; a loop of $refs ends', () => {
    expect(exampleOf({ type: 'integer', example: 5 })).to.equal(5);
    expect(exampleOf({ type: ['null', 'number'], minimum: 3 })).to.equal(3);
    const loop = { $ref: '#/$defs/n', $defs: { n: { type: 'object', properties: { next: { $ref: '#/$defs/n' } } } } };
    expect(JSON.stringify(exampleOf(loop)).length).to.be.below(200);
  });

  it('ids always match the node id syntax', () => {
    expect(nodeIdFor('GET', '{{base}}/')).to.equal('get');
    expect(nodeIdFor('GET', 'https://x.test/users/42')).to.equal('get-users');
    expect(nodeIdFor('M-SEARCH', '/ünïcode')).to.match(/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/);
  });
});

describe('designer debug: from a response field to a test', () => {
  const response = {
    status: 200,
    headers: { 'content-type': 'application/json', etag: '"1"' },
    body: {
      items: [{ id: 7, 'x-y': { z: true } }],
      matrix: [
        [1, 2],
        [3, 4],
      ],
      true: 'word',
      'a`b': 1.5,
      '1st': null,
    },
  };
  const read = async (expr: string) => jsonata(expr).evaluate({ response });

  it('writes targets JSONata reads back as the same field', async () => {
    const cases: Array<[Array<string | number>, string, unknown]> = [
      [['items', 0, 'id'], 'response.body.items[0].id', 7],
      [['items', 0, 'x-y', 'z'], 'response.body.items[0].`x-y`.z', true],
      [['matrix', 1, 0], 'response.body.matrix[1][0]', 3],
      [['true'], 'response.body.`true`', 'word'],
      [['a`b'], '$lookup(response.body, "a`b")', 1.5],
      [['1st'], 'response.body.`1st`', null],
    ];
    for (const [segments, target, value] of cases) {
      expect(jsonataPath('response.body', segments)).to.equal(target);
      expect(await read(target)).to.deep.equal(value);
    }
    const header = assertionFor({ source: 'headers', segments: ['content-type'], value: 'application/json' }, 'equals');
    expect(header).to.deep.equal({
      target: 'response.headers.`content-type`',
      operator: 'equals',
      expected: 'application/json',
    });
    expect(await read(header!.target)).to.equal('application/json');
  });

  it('offers equals, isType with the JSON type, exists, and matchesSchema only with a schema', () => {
    const field = { source: 'body' as const, segments: ['items', 0, 'id'], value: 7 };
    expect(assertionFor(field, 'isType')).to.deep.equal({
      target: 'response.body.items[0].id',
      operator: 'isType',
      expected: 'integer',
    });
    expect(assertionFor(field, 'exists')).to.deep.equal({ target: 'response.body.items[0].id', operator: 'exists' });
    expect(assertionFor(field, 'matchesSchema')).to.equal(undefined);
    expect(assertionFor(field, 'matchesSchema', { type: 'integer' })).to.deep.equal({
      target: 'response.body.items[0].id',
      operator: 'matchesSchema',
      expected: { type: 'integer' },
    });
    expect([1.5, 2, 's', true, null, [], {}].map(jsonType)).to.deep.equal([
      'number',
      'integer',
      'string',
      'boolean',
      'null',
      'array',
      'object',
    ]);
  });

  it('finds the part of the response schema that describes a field', () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { items: { type: 'array', items: { $ref: '#/$defs/item' } } },
      $defs: {
        item: { allOf: [{ type: 'object', properties: { id: { type: 'integer' }, tag: { $ref: '#/$defs/tag' } } }] },
        tag: { type: 'string' },
      },
    };
    expect(subschemaAt(schema, ['items', 0, 'id'])).to.deep.equal({ type: 'integer' });
    expect(subschemaAt(schema, ['items', 0, 'tag'])).to.deep.equal({
      $schema: schema.$schema,
      $defs: schema.$defs,
      $ref: '#/$defs/tag',
    });
    expect(subschemaAt(schema, ['nope'])).to.equal(undefined);
    expect(subschemaAt(undefined, ['items'])).to.equal(undefined);
  });

  it('proposes a variable name from the field name, and reads the field in the node and after it', async () => {
    expect(variableName(['items', 0, 'user-name'])).to.equal('userName');
    expect(variableName(['Content-Type'])).to.equal('contentType');
    expect(variableName(['1st'])).to.equal('_1st');
    expect(variableName([0])).to.equal('value');
    const x = extractionFor('get-user', { source: 'body', segments: ['items', 0, 'id'] });
    expect(x).to.deep.equal({
      variable: 'id',
      expression: 'response.body.items[0].id',
      later: 'nodes.`get-user`.response.body.items[0].id',
    });
    expect(await read(x.expression)).to.equal(7);
    expect(await jsonata(x.later).evaluate({ nodes: { 'get-user': { response } } })).to.equal(7);
  });
});

describe('designer debug: results by node id, the debug bodies', () => {
  const n = (id: string, extra: Partial<NodeResult> = {}): NodeResult =>
    ({ id, type: 'api', status: 'passed', duration: 1, ...extra }) as NodeResult;

  it('paints through branches and iterations, keeping the last of repeated nodes and counting them, not into Refs', () => {
    const painted = paintResults([
      {
        nodes: [
          n('if', { type: 'if', children: [n('then-call')] }),
          n('loop', {
            type: 'loop',
            iterationResults: [
              { index: 0, status: 'passed', nodes: [n('body', { duration: 1 })] },
              { index: 1, status: 'failed', nodes: [n('body', { duration: 2, status: 'failed' })] },
            ],
          }),
          n('ref', { type: 'ref', children: [n('if', { status: 'failed' })] }),
        ],
      },
    ]);
    expect([...painted.results.keys()]).to.deep.equal(['if', 'then-call', 'loop', 'body', 'ref']);
    expect(painted.results.get('body')!.status).to.equal('failed');
    expect(painted.counts.get('body')).to.equal(2);
    expect(painted.results.get('if')!.status).to.equal('passed');
    expect(painted.counts.get('if')).to.equal(1);
  });

  it('sends the test case fields only; "Send" runs one API node alone with the test case around it', () => {
    const doc = {
      id: 'tc_1',
      name: 'users',
      folder: 'a',
      tags: ['t'],
      description: '',
      authProfile: 'staff',
      dataSets: [],
      hooks: { code: '' },
      updatedAt: '2026-01-01T00:00:00Z',
      flow: [
        { id: 'login', type: 'api', request: { method: 'POST', url: '{{base}}/login' } },
        {
          id: 'if',
          type: 'if',
          condition: 'true',
          then: [{ id: 'me', type: 'api', disabled: true, request: { method: 'GET', url: '/me' } }],
        },
      ],
    };
    const body = debugRunBody(doc, 'staging', {});
    expect(body.environment).to.equal('staging');
    expect(body).to.not.have.property('variables');
    expect(body.testCase).to.not.have.property('updatedAt');
    expect(Object.keys(body.testCase)).to.deep.equal([
      'id',
      'name',
      'folder',
      'tags',
      'description',
      'flow',
      'dataSets',
      'hooks',
      'authProfile',
    ]);
    expect(debugRunBody(doc, 'e', { a: 1 }).variables).to.deep.equal({ a: 1 });

    const sent = sendNodeTestCase(doc, 'me');
    expect(sent.flow).to.deep.equal([{ id: 'me', type: 'api', request: { method: 'GET', url: '/me' } }]);
    expect(sent.authProfile).to.equal('staff');
    expect(sent.hooks).to.deep.equal({ code: '' });
    expect(() => sendNodeTestCase(doc, 'if')).to.throw(
      'Node "if" is not an API node (if): only API nodes are sent alone.',
    );
    expect(() => sendNodeTestCase(doc, 'nope')).to.throw('No node "nope" in the flow.');
  });

  it('points field errors into the test case, and those of a node sent alone at that node', () => {
    const problem = {
      errors: [
        { pointer: '/testCase/flow/0/request/url', detail: 'bad url' },
        { pointer: '/testCase', detail: 'whole' },
        { pointer: '/environment', detail: 'no such environment' },
        { detail: 'no pointer' },
      ],
    };
    expect(debugFieldErrors(problem)).to.deep.equal([
      { pointer: '/flow/0/request/url', detail: 'bad url' },
      { pointer: '', detail: 'whole' },
      { pointer: '/environment', detail: 'no such environment' },
    ]);
    expect(debugFieldErrors(problem, '/flow/1/then/0')[0]).to.deep.equal({
      pointer: '/flow/1/then/0/request/url',
      detail: 'bad url',
    });
    expect(debugFieldErrors(undefined)).to.deep.equal([]);
  });
});
