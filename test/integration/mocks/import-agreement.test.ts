/**
 * A description's contract tests and its mocks agree (docs/import-openapi.md "When the description
 * contradicts itself"): the requests `assay import openapi` makes are sent to the mocks
 * `POST /v1/designs/import` made from the same description, over HTTP, and answered with the
 * documented success status:
 *
 * - a request body or parameter example that breaks its own schema is sent made to match (a note
 *   says what was wrong), where the mocks would answer it 422;
 * - path parameters named with `-` or `.` (`{subscription-id}`, `{item.id}`) are mocked, and
 *   validated under their own names;
 * - a request schema of `allOf` parts that each forbid additional properties accepts no body: the
 *   mock does not check bodies against it, and both reports say so;
 * - a body documented on a GET is not required (clients send none), nor are query parameters
 *   holding objects checked (they have no default text form).
 */
import { expect } from 'chai';
import type { ApiNode } from '../../../src/domain/types';
import { contractTestsFromOpenApi } from '../../../cli/importers/openapi';
import { readReply, startTestApp, type Reply, type TestApp } from '../../helpers/app';

type Json = Record<string, unknown>;
const json = (schema: Json) => ({ content: { 'application/json': { schema } } });
const ok = (status: string, schema: Json) => ({ [status]: { description: 'ok', ...json(schema) } });

const DOC = {
  openapi: '3.0.3',
  info: { title: 'Agreement', version: '1' },
  paths: {
    '/pets': {
      post: {
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['name', 'age'],
                additionalProperties: false,
                properties: { name: { type: 'string', minLength: 2 }, age: { type: 'integer', minimum: 0 } },
              },
              // Breaks its own schema three ways: a required property missing, a wrong type, an extra one.
              example: { name: 'Rex', age: 'ten', colour: 'brown' },
            },
          },
        },
        responses: ok('201', { type: 'object', properties: { id: { type: 'integer', example: 7 } } }),
      },
    },
    '/search': {
      get: {
        parameters: [
          {
            name: 'sort',
            in: 'query',
            required: true,
            schema: { type: 'string', enum: ['asc', 'desc'] },
            example: 'ascending',
          },
        ],
        responses: ok('200', { type: 'array', items: { type: 'string' }, example: ['a'] }),
      },
    },
    '/subscriptions/{subscription-id}/items/{item.id}': {
      get: {
        parameters: [
          { name: 'subscription-id', in: 'path', required: true, schema: { type: 'string', pattern: '^sub_[0-9]+$' } },
          { name: 'item.id', in: 'path', required: true, schema: { type: 'integer' } },
        ],
        responses: ok('200', { type: 'object', properties: { ok: { type: 'boolean', example: true } } }),
      },
    },
    // Elasticsearch's path parameters: a name or a list of names, `oneOf` (both read `logs`).
    '/{index}/_search': {
      get: {
        parameters: [
          {
            name: 'index',
            in: 'path',
            required: true,
            schema: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
            example: 'logs',
          },
        ],
        responses: ok('200', { type: 'object', properties: { hits: { type: 'integer', example: 1 } } }),
      },
    },
    // Asana documents a required body on a GET; Algolia a query parameter holding objects.
    '/typeahead': {
      get: {
        parameters: [
          { name: 'objects', in: 'query', required: true, schema: { type: 'array', items: { type: 'object' } } },
        ],
        requestBody: { required: true, ...json({ type: 'object', properties: { q: { type: 'string' } } }) },
        responses: ok('200', { type: 'array', items: { type: 'string' }, example: ['a'] }),
      },
    },
    '/merge': {
      post: {
        requestBody: {
          required: true,
          ...json({
            allOf: [
              {
                type: 'object',
                required: ['a'],
                additionalProperties: false,
                properties: { a: { type: 'string', example: 'x' } },
              },
              {
                type: 'object',
                required: ['b'],
                additionalProperties: false,
                properties: { b: { type: 'string', example: 'y' } },
              },
            ],
          }),
        },
        responses: ok('200', { type: 'object', properties: { merged: { type: 'boolean', example: true } } }),
      },
    },
  },
};

describe('OpenAPI import: contract tests and mocks of one description agree', function () {
  this.timeout(60_000);
  let app: TestApp;
  let imported: Reply;
  const plan = contractTestsFromOpenApi(DOC);
  const byOperation = Object.fromEntries(plan.testCases.map((tc) => [tc.operation, tc]));

  before(async () => {
    app = await startTestApp({ dialect: 'sqlite' });
    imported = await app.request('POST', '/v1/designs/import', { document: JSON.stringify(DOC) });
  });
  after(async () => {
    await app?.stop();
  });

  /** Sends a contract test's request to the mocks, as a run would (its {{baseUrl}} the mock base). */
  async function send(operation: string, pathOverride?: string): Promise<Reply> {
    const node = byOperation[operation]!.body.flow[0] as ApiNode;
    const base = `${app.url}/mock/${app.workspaceId}`;
    let url = node.request.url.replace('{{baseUrl}}', base);
    if (pathOverride) url = `${base}${pathOverride}`;
    const body = node.request.body;
    return readReply(
      await fetch(url, {
        method: node.request.method,
        headers: (node.request.headers ?? {}) as Record<string, string>,
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      }),
    );
  }

  it('imports a design for every operation, hyphenated and dotted path parameters included', () => {
    expect(imported.status, JSON.stringify(imported.body)).to.equal(201);
    expect(imported.body.skipped).to.deep.equal([]);
    expect((imported.body.created as Array<{ path: string }>).map((d) => d.path)).to.include(
      '/subscriptions/{subscription-id}/items/{item.id}',
    );
    expect(plan.skipped).to.deep.equal([]);
  });

  it('a request body example that breaks its schema is sent made to match, saying what was wrong; the mock answers 201', async () => {
    const tc = byOperation['POST /pets']!;
    expect(tc.notes.join('\n')).to.match(/request body \(application\/json\) example does not match its own schema/);
    expect(tc.notes.join('\n')).to.match(/age must be integer/);
    const body = (tc.body.flow[0] as ApiNode).request.body as Json;
    expect(body.name).to.equal('Rex');
    expect(body).to.not.have.property('colour');
    expect(body.age).to.be.a('number');
    const res = await send('POST /pets');
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
  });

  it('a parameter example outside its enum is sent as a value of the enum; the mock answers 200', async () => {
    expect(byOperation['GET /search']!.notes.join('\n')).to.match(/query parameter "sort" example does not match/);
    const url = (byOperation['GET /search']!.body.flow[0] as ApiNode).request.url;
    expect(url).to.match(/sort=(asc|desc)$/);
    expect((await send('GET /search')).status).to.equal(200);
  });

  it('routes path parameters named with - and ., and checks them under their own names', async () => {
    const operation = 'GET /subscriptions/{subscription-id}/items/{item.id}';
    const res = await send(operation);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.deep.equal({ ok: true });
    const wrong = await send(operation, '/subscriptions/nope/items/5');
    expect(wrong.status).to.equal(422);
    expect(JSON.stringify(wrong.body.violations)).to.match(/subscription-id/);
  });

  it('a parameter whose schema is oneOf [string, array of string] takes a name (text fits both once coerced)', async () => {
    const res = await send('GET /{index}/_search');
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  });

  it('a GET with a documented body and a query parameter of objects: neither is asked of the request', async () => {
    const res = await send('GET /typeahead');
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  });

  it('a request schema whose allOf parts each forbid additional properties: both reports say no body can match; the rest is checked', async () => {
    const warnings = imported.body.warnings as Array<{ operation: string; reason: string }>;
    expect(warnings.find((w) => w.operation === 'POST /merge')?.reason).to.match(
      /request body schema accepts nothing \(its allOf parts each forbid additional properties.*request bodies are not checked/,
    );
    expect(byOperation['POST /merge']!.notes.join('\n')).to.match(/allOf parts each forbid additional properties/);
    const res = await send('POST /merge');
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.deep.equal({ merged: true });
  });
});
