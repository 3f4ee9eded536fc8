/**
 * The OpenAPI → contract test conversion (cli/importers/openapi.ts, openapi-schema.ts;
 * docs/import-openapi.md): request parameters, bodies and credentials, the assertions and the
 * JSON Schema they carry (nullable, refs, recursion, cut depth), skipped operations, and every
 * example description of @readme/oas-examples making flows Assay's own validation accepts.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { evaluateAssertion, type AssertionContext } from '../../src/domain/assertions';
import type { ApiNode, Assertion } from '../../src/domain/types';
import { contractTestsFromOpenApi, serverUrlOf, slug, type ContractImportPlan } from '../../cli/importers/openapi';
import { SCHEMA_DEPTH_BUDGET, toJsonSchema } from '../../src/mock/openapi-schema';
import { parseOpenApi } from '../../src/mock/openapi';
import { tooDeep } from '../../src/validation/json-limits';
import { validateFlow } from '../../src/validation/flow';

type Json = Record<string, any>;

const EXAMPLES = path.resolve(__dirname, '../../../node_modules/@readme/oas-examples');

function doc(paths: Json, extra: Json = {}): Json {
  return { openapi: '3.0.3', info: { title: 'Unit API', version: '2' }, paths, ...extra };
}

const ok = (schema?: Json, type = 'application/json') => ({
  '200': { description: 'ok', ...(schema ? { content: { [type]: { schema } } } : {}) },
});

function only(plan: ContractImportPlan) {
  expect(plan.testCases, JSON.stringify(plan.skipped)).to.have.length(1);
  const tc = plan.testCases[0]!;
  return { tc, node: tc.body.flow[0] as ApiNode };
}

/** Runs a matchesSchema assertion the way a run does, against `body`. */
async function matches(schema: unknown, body: unknown): Promise<boolean> {
  const context: AssertionContext = {
    response: { status: 200, headers: {}, body, time: 1, size: 1 },
    variables: {},
    nodes: {},
  };
  return (
    await evaluateAssertion(
      { target: 'response.body', operator: 'matchesSchema', expected: schema } as Assertion,
      context,
    )
  ).passed;
}

describe('OpenAPI import: test cases', () => {
  it('names, folders and tags a test case per operation; slugs the title; servers[0] with variable defaults', () => {
    const d = doc(
      {
        '/users': {
          get: {
            tags: ['users', 'admin/ops'],
            summary: 'List users',
            operationId: 'listUsers',
            responses: ok({ type: 'array' }),
          },
        },
        '/ping': { get: { responses: ok() } },
      },
      {
        info: { title: 'Ünit API — v2!', version: '2' },
        servers: [
          {
            url: 'https://{region}.example.com/{base}',
            variables: { region: { default: 'eu' }, base: { default: 'v1' } },
          },
        ],
      },
    );
    const plan = contractTestsFromOpenApi(d);
    expect(plan.folder).to.equal('unit-api-v2');
    expect(plan.serverUrl).to.equal('https://eu.example.com/v1');
    const [users, ping] = plan.testCases;
    expect(users!.body).to.include({ name: 'GET /users', folder: 'unit-api-v2/users' });
    expect(users!.body.tags).to.deep.equal(['users', 'admin/ops', 'contract']);
    expect(users!.body.description).to.contain('(listUsers)');
    expect((users!.body.flow[0] as ApiNode).name).to.equal('List users');
    expect(ping!.body).to.include({ name: 'GET /ping', folder: 'unit-api-v2' });
    expect(slug('')).to.equal('openapi');
    expect(serverUrlOf(doc({}))).to.equal(null);
    expect(contractTestsFromOpenApi(d, { folder: '/contracts//unit/' }).testCases[0]!.body.folder).to.equal(
      'contracts/unit/users',
    );
  });

  it('fills path parameters from example, examples, schema example, default, enum and samples; path-level ones are overridden', () => {
    const d = doc({
      '/a/{p1}/{p2}/{p3}/{p4}/{p5}/{p6}': {
        parameters: [{ name: 'p6', in: 'path', required: true, schema: { type: 'string', example: 'path-level' } }],
        get: {
          parameters: [
            { name: 'p1', in: 'path', required: true, schema: { type: 'integer' }, example: 11 },
            {
              name: 'p2',
              in: 'path',
              required: true,
              schema: { type: 'string' },
              examples: { first: { value: 'two words' }, second: { value: 'no' } },
            },
            { name: 'p3', in: 'path', required: true, schema: { type: 'string', example: 'schema-ex' } },
            { name: 'p4', in: 'path', required: true, schema: { type: 'integer', default: 44 } },
            { name: 'p5', in: 'path', required: true, schema: { type: 'string', enum: ['red', 'blue'] } },
            { name: 'p6', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
          ],
          responses: ok(),
        },
      },
    });
    const { node } = only(contractTestsFromOpenApi(d));
    const parts = node.request.url.split('/');
    expect(parts.slice(0, 6)).to.deep.equal(['{{baseUrl}}', 'a', '11', 'two%20words', 'schema-ex', '44']);
    expect(parts[6]).to.equal('red');
    expect(parts[7]).to.match(/^[0-9a-f-]{36}$/);
  });

  it('adds required query, header and cookie parameters (styles honoured), never optional ones', () => {
    const d = doc({
      '/search': {
        get: {
          parameters: [
            { name: 'q', in: 'query', required: true, schema: { type: 'string', example: 'a&b' } },
            {
              name: 'ids',
              in: 'query',
              required: true,
              schema: { type: 'array', items: { type: 'integer' }, example: [1, 2] },
            },
            {
              name: 'csv',
              in: 'query',
              required: true,
              explode: false,
              schema: { type: 'array', items: { type: 'string' }, example: ['x', 'y'] },
            },
            {
              name: 'filter',
              in: 'query',
              required: true,
              style: 'deepObject',
              schema: { type: 'object', example: { kind: 'cat' } },
            },
            { name: 'page', in: 'query', schema: { type: 'integer', example: 3 } },
            { name: 'X-Tenant', in: 'header', required: true, schema: { type: 'string', example: 'acme' } },
            { name: 'Accept', in: 'header', required: true, schema: { type: 'string', example: 'text/html' } },
            { name: 'session', in: 'cookie', required: true, schema: { type: 'string', example: 's1' } },
          ],
          responses: ok({ type: 'object' }),
        },
      },
    });
    const { node } = only(contractTestsFromOpenApi(d));
    expect(node.request.url).to.equal('{{baseUrl}}/search?q=a%26b&ids=1&ids=2&csv=x,y&filter%5Bkind%5D=cat');
    expect(node.request.headers).to.deep.equal({
      'X-Tenant': 'acme',
      Cookie: 'session=s1',
      Accept: 'application/json',
    });
  });

  it('makes a JSON body from the media type example, its examples, or a sample without readOnly and with writeOnly properties', () => {
    const user = {
      type: 'object',
      required: ['name'],
      properties: {
        id: { type: 'integer', readOnly: true },
        name: { type: 'string', example: 'Ada' },
        password: { type: 'string', writeOnly: true, example: 'pw' },
      },
    };
    const d = doc(
      {
        '/one': {
          post: {
            requestBody: { content: { 'application/json': { schema: user, example: { name: 'Given' } } } },
            responses: ok(),
          },
        },
        '/two': {
          post: {
            requestBody: {
              content: { 'application/json': { schema: user, examples: { a: { value: { name: 'First' } } } } },
            },
            responses: ok(),
          },
        },
        '/three': { post: { requestBody: { $ref: '#/components/requestBodies/User' }, responses: ok() } },
        '/four': {
          put: {
            requestBody: {
              content: {
                'text/plain': { schema: { type: 'string' } },
                'application/vnd.api+json': { schema: { type: 'string', example: 'just text' } },
              },
            },
            responses: ok(),
          },
        },
      },
      {
        components: {
          requestBodies: {
            User: {
              content: {
                'application/xml': { schema: user },
                'application/json': { schema: { $ref: '#/components/schemas/User' } },
              },
            },
          },
          schemas: { User: user },
        },
      },
    );
    const bodies = contractTestsFromOpenApi(d).testCases.map((t) => (t.body.flow[0] as ApiNode).request);
    expect(bodies[0]!.body).to.deep.equal({ name: 'Given' });
    expect(bodies[0]!.headers!['Content-Type']).to.equal('application/json');
    expect(bodies[1]!.body).to.deep.equal({ name: 'First' });
    expect(bodies[2]!.body).to.deep.equal({ name: 'Ada', password: 'pw' });
    // A JSON string is sent as JSON text, with the media type asked for.
    expect(bodies[3]!.body).to.equal('"just text"');
    expect(bodies[3]!.headers!['Content-Type']).to.equal('application/vnd.api+json');
  });

  it('form bodies are encoded; a required body it cannot make skips the operation, an optional one is left out with a note', () => {
    const d = doc({
      '/form': {
        post: {
          requestBody: {
            content: {
              'application/x-www-form-urlencoded': {
                schema: {
                  type: 'object',
                  properties: { a: { type: 'string', example: 'x y' }, n: { type: 'integer', example: 2 } },
                },
              },
            },
          },
          responses: ok(),
        },
      },
      '/upload': {
        post: {
          requestBody: {
            required: true,
            content: {
              'multipart/form-data': {
                schema: { type: 'object', properties: { file: { type: 'string', format: 'binary' } } },
              },
            },
          },
          responses: ok(),
        },
      },
      '/maybe': { post: { requestBody: { content: { 'application/octet-stream': {} } }, responses: ok() } },
    });
    const plan = contractTestsFromOpenApi(d);
    const form = plan.testCases.find((t) => t.operation === 'POST /form')!;
    expect((form.body.flow[0] as ApiNode).request).to.deep.include({ body: 'a=x%20y&n=2' });
    expect((form.body.flow[0] as ApiNode).request.headers!['Content-Type']).to.equal(
      'application/x-www-form-urlencoded',
    );
    expect(plan.skipped).to.deep.equal([
      { operation: 'POST /upload', reason: 'request body multipart/form-data cannot be made from examples or samples' },
    ]);
    const maybe = plan.testCases.find((t) => t.operation === 'POST /maybe')!;
    expect((maybe.body.flow[0] as ApiNode).request.body).to.equal(undefined);
    expect(maybe.notes).to.deep.equal([
      'request body application/octet-stream cannot be made from examples or samples; sent without a body (it is optional)',
    ]);
    expect(maybe.body.description).to.contain('Note: request body application/octet-stream');
  });

  it('adds credentials as {{variables}} for bearer, basic, apiKey (header, query, cookie) and oauth2; operation security overrides the global one', () => {
    const schemes = {
      bearer: { type: 'http', scheme: 'bearer' },
      basic: { type: 'http', scheme: 'basic' },
      'key-header': { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      keyQuery: { type: 'apiKey', in: 'query', name: 'api_key' },
      keyCookie: { type: 'apiKey', in: 'cookie', name: 'sid' },
      oauth: { type: 'oauth2', flows: {} },
      tls: { type: 'mutualTLS' },
    };
    const d = doc(
      {
        '/global': { get: { responses: ok() } },
        '/basic': { get: { security: [{ basic: [] }], responses: ok() } },
        '/keys': {
          get: { security: [{ tls: [] }, { 'key-header': [], keyQuery: [], keyCookie: [] }], responses: ok() },
        },
        '/oauth': { get: { security: [{ oauth: ['read'] }], responses: ok() } },
        '/open': { get: { security: [], responses: ok() } },
        '/optional': { get: { security: [{}, { bearer: [] }], responses: ok() } },
        '/tls': { get: { security: [{ tls: [] }], responses: ok() } },
      },
      { security: [{ bearer: [] }], components: { securitySchemes: schemes } },
    );
    const plan = contractTestsFromOpenApi(d);
    const req = (op: string) => (plan.testCases.find((t) => t.operation === op)!.body.flow[0] as ApiNode).request;
    expect(req('GET /global').headers).to.deep.equal({ Authorization: 'Bearer {{token}}' });
    expect(req('GET /basic').headers).to.deep.equal({ Authorization: 'Basic {{basicAuth}}' });
    expect(req('GET /keys').headers).to.deep.equal({ 'X-API-Key': '{{key_header}}', Cookie: 'sid={{keyCookie}}' });
    expect(req('GET /keys').url).to.equal('{{baseUrl}}/keys?api_key={{keyQuery}}');
    expect(req('GET /oauth').headers).to.deep.equal({ Authorization: 'Bearer {{token}}' });
    expect(req('GET /open').headers).to.equal(undefined);
    expect(req('GET /optional').headers).to.equal(undefined);
    expect(req('GET /tls').headers).to.equal(undefined);
    expect(plan.testCases.find((t) => t.operation === 'GET /tls')!.notes[0]).to.match(/mutualTLS/);
    expect(plan.variables.map((v) => `${v.name}:${v.scheme}`)).to.deep.equal([
      'token:bearer',
      'basicAuth:basic',
      'key_header:key-header',
      'keyQuery:keyQuery',
      'keyCookie:keyCookie',
      'token:oauth',
    ]);
  });

  it('asserts the lowest 2xx status, the content type and the schema; 2XX as a range; skips operations without a success response', () => {
    const d = doc({
      '/made': {
        post: {
          responses: {
            '400': { description: 'bad' },
            '202': { description: 'later' },
            '201': {
              description: 'made',
              content: { 'application/json; charset=utf-8': { schema: { type: 'object' } } },
            },
          },
        },
      },
      '/range': {
        get: { responses: { '2XX': { description: 'fine', content: { 'text/csv': { schema: { type: 'string' } } } } } },
      },
      '/none': { get: { responses: { default: { description: 'anything' }, '404': { description: 'no' } } } },
      '/trace': { trace: { responses: ok() } },
    });
    const plan = contractTestsFromOpenApi(d);
    const made = plan.testCases[0]!.body.flow[0] as ApiNode;
    expect(made.assertions).to.deep.equal([
      { name: 'status is 201', target: 'response.status', operator: 'equals', expected: 201 },
      {
        name: 'content type is application/json',
        target: 'response.headers."content-type"',
        operator: 'contains',
        expected: 'application/json',
      },
      {
        name: 'body matches the 201 response schema',
        target: 'response.body',
        operator: 'matchesSchema',
        expected: { type: 'object' },
      },
    ]);
    expect(made.request.headers).to.deep.equal({ Accept: 'application/json' });
    const range = plan.testCases[1]!.body.flow[0] as ApiNode;
    expect(range.assertions!.map((a) => [a.operator, a.expected])).to.deep.equal([
      ['inRange', [200, 299]],
      ['contains', 'text/csv'],
    ]);
    expect(plan.skipped).to.deep.equal([
      { operation: 'GET /none', reason: 'no documented success response (2xx; default does not count)' },
      { operation: 'TRACE /trace', reason: 'TRACE requests cannot be sent by Assay' },
    ]);
  });

  it('--tags keeps operations carrying one of the tags and counts the others', () => {
    const d = doc({
      '/a': { get: { tags: ['x'], responses: ok() } },
      '/b': { get: { tags: ['y', 'z'], responses: ok() } },
      '/c': { get: { responses: ok() } },
    });
    const plan = contractTestsFromOpenApi(d, { tags: ['z', 'q'] });
    expect(plan.testCases.map((t) => t.operation)).to.deep.equal(['GET /b']);
    expect(plan.filteredOut).to.equal(2);
  });
});

describe('OpenAPI import: response schemas', () => {
  const components = {
    schemas: {
      Pet: {
        type: 'object',
        required: ['id', 'name', 'secret'],
        discriminator: { propertyName: 'kind' },
        example: { id: 1 },
        'x-internal': true,
        properties: {
          id: { type: 'integer', format: 'int64', exclusiveMinimum: true, minimum: 0 },
          name: { type: 'string', nullable: true, format: 'pet-name' },
          kind: { type: 'string', enum: ['cat', 'dog'], nullable: true },
          owner: { $ref: '#/components/schemas/Owner' },
          secret: { type: 'string', writeOnly: true },
        },
      },
      Owner: { type: 'object', nullable: true, properties: { name: { type: 'string' } } },
      Node: {
        type: 'object',
        required: ['value'],
        properties: {
          value: { type: 'integer' },
          children: { type: 'array', items: { $ref: '#/components/schemas/Node' } },
        },
      },
    },
  };
  const d = doc({}, { components });

  it('OpenAPI 3.0: nullable, example/discriminator/x- removed, boolean exclusiveMinimum, unknown formats, writeOnly left out, refs inlined', async () => {
    const { schema, notes } = toJsonSchema({ $ref: '#/components/schemas/Pet' }, d);
    expect(notes).to.deep.equal([]);
    expect(schema).to.deep.equal({
      type: 'object',
      required: ['id', 'name'],
      properties: {
        id: { type: 'integer', format: 'int64', exclusiveMinimum: 0 },
        name: { type: ['string', 'null'] },
        kind: { type: ['string', 'null'], enum: ['cat', 'dog', null] },
        owner: { type: ['object', 'null'], properties: { name: { type: 'string' } } },
      },
    });
    expect(await matches(schema, { id: 1, name: null, kind: null, owner: null })).to.equal(true);
    expect(await matches(schema, { id: 0, name: 'Rex' })).to.equal(false);
    expect(await matches(schema, { id: 1, name: 5 })).to.equal(false);
  });

  it('a recursive schema is checked through $defs to any depth, and the note says so', async () => {
    const { schema, notes } = toJsonSchema({ $ref: '#/components/schemas/Node' }, d);
    expect(notes).to.deep.equal(['recursive schema #/components/schemas/Node is checked through $defs/Node']);
    expect((schema.properties as Json).children.items).to.deep.equal({ $ref: '#/$defs/Node' });
    const tree = { value: 1, children: [{ value: 2, children: [{ value: 3, children: [{ value: 4 }] }] }] };
    expect(await matches(schema, tree)).to.equal(true);
    tree.children[0]!.children[0]!.children[0]!.value = 'four' as never;
    expect(await matches(schema, tree)).to.equal(false);
  });

  it('cuts schemas nested deeper than stored JSON allows, with a note; unresolvable and external refs accept anything', () => {
    let deep: Json = { type: 'string' };
    for (let i = 0; i < 20; i++) deep = { type: 'object', properties: { d: deep } };
    const cut = toJsonSchema(deep, d);
    expect(tooDeep(cut.schema, SCHEMA_DEPTH_BUDGET)).to.equal(null);
    expect(cut.notes[0]).to.match(/cut/);
    const refs = toJsonSchema(
      { type: 'object', properties: { a: { $ref: '#/components/schemas/Nope' }, b: { $ref: 'other.yaml#/Pet' } } },
      d,
    );
    expect(refs.schema).to.deep.equal({ type: 'object', properties: { a: {}, b: {} } });
    expect(refs.notes).to.have.length(2);
  });

  it('counts JSON levels, not schema objects: nullable $refs and allOf wrappers (Box) and deep enum values still fit a saved test case', async () => {
    // Box's description: every `$ref` is `allOf: [$ref]` + `nullable`, which 3.0 conversion wraps in
    // `anyOf: [..., {type: null}]` — two JSON levels per wrapper that the schema count missed.
    const schemas: Json = {
      Leaf: { type: 'object', properties: { v: { type: 'string', enum: [{ a: { b: { c: 1 } } }] } } },
    };
    for (let i = 0; i < 14; i++)
      schemas[`L${i}`] = {
        type: 'object',
        nullable: true,
        properties: { next: { allOf: [{ $ref: `#/components/schemas/${i ? `L${i - 1}` : 'Leaf'}` }], nullable: true } },
      };
    const d30 = doc(
      { '/deep': { get: { responses: ok({ $ref: '#/components/schemas/L13' }) } } },
      { components: { schemas } },
    );
    const { tc, node } = only(contractTestsFromOpenApi(d30));
    // The whole document POST /v1/test-cases gets nests no deeper than the API takes.
    expect(tooDeep(tc.body)).to.equal(null);
    expect(validateFlow(tc.body.flow)).to.deep.equal([]);
    expect(tc.notes.join('\n')).to.match(/cut/);
    const schema = node.assertions!.find((a) => a.operator === 'matchesSchema')!.expected;
    // What is kept still checks: the outer levels refuse a wrong type.
    expect(await matches(schema, { next: { next: null } })).to.equal(true);
    expect(await matches(schema, { next: { next: 'x' } })).to.equal(false);
  });

  it('OpenAPI 3.1: JSON Schema 2020-12 kept as it is ($schema declared, type arrays, $ref siblings applied)', async () => {
    const d31 = { ...d, openapi: '3.1.0', components: { schemas: { Id: { type: 'integer' } } } };
    const { schema } = toJsonSchema(
      {
        type: 'object',
        properties: {
          id: { $ref: '#/components/schemas/Id', minimum: 5 },
          tag: { type: ['string', 'null'], examples: ['a'] },
        },
      },
      d31,
    );
    expect(schema.$schema).to.equal('https://json-schema.org/draft/2020-12/schema');
    expect((schema.properties as Json).id).to.deep.equal({ allOf: [{ type: 'integer' }, { minimum: 5 }] });
    expect(await matches(schema, { id: 6, tag: null })).to.equal(true);
    expect(await matches(schema, { id: 4 })).to.equal(false);
  });
});

describe('OpenAPI import: the @readme/oas-examples descriptions', () => {
  it('Petstore (3.0): nine operations with a 2xx, eleven skipped, path parameters, api_key and oauth credentials', async () => {
    const plan = contractTestsFromOpenApi(
      parseOpenApi(fs.readFileSync(path.join(EXAMPLES, '3.0/json/petstore.json'), 'utf8')),
    );
    expect(plan.folder).to.equal('swagger-petstore');
    expect(plan.testCases).to.have.length(9);
    expect(plan.skipped).to.have.length(11);
    const byId = plan.testCases.find((t) => t.operationId === 'getPetById')!;
    expect(byId.body.folder).to.equal('swagger-petstore/pet');
    const node = byId.body.flow[0] as ApiNode;
    expect(node.request.url).to.match(/^\{\{baseUrl\}\}\/pet\/\d+$/);
    expect(node.request.headers).to.deep.equal({ api_key: '{{api_key}}', Accept: 'application/json' });
    const schema = node.assertions!.find((a) => a.operator === 'matchesSchema')!.expected;
    expect(
      await matches(schema, {
        id: 1,
        name: 'doggie',
        photoUrls: ['x'],
        status: 'available',
        category: { id: 1, name: 'Dogs' },
        tags: [],
      }),
    ).to.equal(true);
    expect(await matches(schema, { id: 1, name: 'doggie', photoUrls: 'x' })).to.equal(false);
    expect(plan.variables.map((v) => v.name)).to.deep.equal(['token', 'api_key']);
  });

  it('every example description makes flows that Assay accepts and that fit stored JSON', () => {
    let total = 0;
    for (const version of ['3.0', '3.1']) {
      const dir = path.join(EXAMPLES, version, 'json');
      for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.json'))) {
        let d: Json;
        try {
          d = parseOpenApi(fs.readFileSync(path.join(dir, file), 'utf8'));
        } catch {
          continue; // webhooks.json has no paths
        }
        const plan = contractTestsFromOpenApi(d);
        for (const tc of plan.testCases) {
          total++;
          const issues = validateFlow(tc.body.flow, ['flow'], []);
          expect(issues, `${version}/${file} ${tc.operation}: ${JSON.stringify(issues)}`).to.deep.equal([]);
          expect(tooDeep({ ...tc.body }), `${version}/${file} ${tc.operation}`).to.equal(null);
        }
      }
    }
    expect(total).to.be.greaterThan(400);
  });
});
