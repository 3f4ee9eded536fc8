/**
 * The mock service against a running Assay on loopback (spec "Mock definition", "Mock service
 * behavior" rules 1–8; docs/mocks.md): designs and their refusals, each selector through the query
 * and headers (and Postman's and Prism's), conflicting selectors, random choice over many calls,
 * path parameters, exact over parameterised paths, dynamic placeholders on and off, faker, the
 * no-match answers, sample data from schemas (quick and AI), and OpenAPI import of real public API
 * descriptions (Swagger Petstore and the USPTO Data Set API from @readme/oas-examples).
 */
import { expect } from 'chai';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { stringify as toYaml } from 'yaml';
import { startTestApp, type Reply, type TestApp } from '../../helpers/app';

const EXAMPLES = path.resolve(__dirname, '../../../../node_modules/@readme/oas-examples/3.0/json');

function expectProblem(res: Reply, status: number, code: string): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  expect(res.body).to.include({ status, code });
}

describe('mock service', function () {
  this.timeout(60_000);
  let app: TestApp;
  let ai: http.Server;
  let aiAnswer = '';

  before(async () => {
    // An OpenAI-compatible endpoint on loopback stands in for the AI provider (outside this machine).
    ai = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const ok =
          req.url === '/v1/chat/completions' &&
          req.headers.authorization === 'Bearer test-key' &&
          JSON.parse(body).model === 'tiny';
        res.writeHead(ok ? 200 : 400, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify(
            ok
              ? { choices: [{ message: { role: 'assistant', content: aiAnswer } }] }
              : { error: { message: 'bad request' } },
          ),
        );
      });
    });
    await new Promise<void>((r) => ai.listen(0, '127.0.0.1', r));
    app = await startTestApp({
      env: {
        ASSAY_MOCK_SEED: '7',
        ASSAY_AI_BASE_URL: `http://127.0.0.1:${(ai.address() as AddressInfo).port}/v1`,
        ASSAY_AI_MODEL: 'tiny',
        ASSAY_AI_API_KEY: 'test-key',
      },
    });
  });
  after(async () => {
    await app?.stop();
    await new Promise((r) => ai?.close(r));
  });

  const design = (body: Record<string, unknown>) => app.request('POST', '/v1/designs', body);
  const mock = (p: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) =>
    fetch(`${app.url}/mock/${app.workspaceId}${p}`, init);
  const mockJson = async (p: string, init: { method?: string; headers?: Record<string, string> } = {}) => {
    const res = await mock(p, init);
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  };

  describe('designs', () => {
    it('refuses bad methods, statuses, paths, schemas and codes used twice in a status, storing nothing', async () => {
      const good = { method: 'GET', path: '/things', responses: [{ status: 200, code: 1, data: [] }] };
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ ...good, method: 'FETCH' }, 'method'],
        [{ ...good, responses: [{ status: 600, code: 1 }] }, 'responses[0].status'],
        [{ ...good, path: 'things' }, 'path'],
        [{ ...good, path: '/a/{x}{y}' }, 'path'],
        [{ ...good, path: '/a/{x}/{x}' }, 'path'],
        [
          {
            ...good,
            responses: [
              { status: 200, code: 1 },
              { status: 200, code: 1 },
            ],
          },
          'responses[1].code',
        ],
        [{ ...good, responseSchemas: { '200': { type: 'nonsense' } } }, 'responseSchemas["200"]'],
        // What compiling would refuse beyond the meta-schema (api/routes/designs.ts schemaShapeProblem).
        [{ ...good, requestSchema: { $ref: '#/$defs/Missing' } }, 'requestSchema'],
        [{ ...good, requestSchema: { type: 'string', pattern: '(unclosed' } }, 'requestSchema'],
        [
          {
            ...good,
            responseSchemas: { '200': { type: 'object', patternProperties: { '[z-a]': { type: 'string' } } } },
          },
          'responseSchemas["200"]',
        ],
      ];
      for (const [body, field] of cases) {
        const res = await design(body);
        expectProblem(res, 400, 'validation-failed');
        expect(
          res.body.errors.map((e: { field: string }) => e.field),
          JSON.stringify(res.body),
        ).to.include(field);
      }
      expect((await app.request('GET', '/v1/designs')).body.items).to.deep.equal([]);
    });

    it('gives a mock address once there are responses; 409 when another design claims the same route', async () => {
      const empty = await design({ method: 'GET', path: '/empty', responses: [] });
      expect(empty.status).to.equal(201);
      expect(empty.body.mockUrl).to.equal(null);
      const created = await design({
        method: 'GET',
        path: '/orders/{orderId}/',
        responses: [{ status: 200, code: 1, data: { ok: true } }],
      });
      expect(created.status).to.equal(201);
      expect(created.body.path).to.equal('/orders/{orderId}');
      expect(created.body.mockUrl).to.equal(`${app.config.api.publicUrl}/mock/${app.workspaceId}/orders/{orderId}`);
      const clash = await design({ method: 'GET', path: '/orders/{id}', responses: [{ status: 200, code: 1 }] });
      expectProblem(clash, 409, 'route-taken');
      expect(clash.body.designId).to.equal(created.body.id);
      expect(
        (await design({ method: 'DELETE', path: '/orders/{id}', responses: [{ status: 204, code: 1 }] })).status,
      ).to.equal(201);
    });
  });

  describe('choosing a response', () => {
    before(async () => {
      const res = await design({
        method: 'GET',
        path: '/pets',
        responses: [
          { status: 404, code: 1, data: { error: 'none' } },
          { status: 201, code: 1, data: { created: true } },
          { status: 200, code: 1, name: 'cats', data: { kind: 'cats' } },
          { status: 200, code: 2, name: 'dogs', data: { kind: 'dogs' } },
          { status: 200, code: 3, name: 'birds', data: { kind: 'birds' } },
          { status: 500, code: 7, data: { error: 'boom' } },
        ],
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
    });

    it('rule 2: picks at random among the default status (the lowest 2xx), covering every response', async () => {
      const counts: Record<string, number> = {};
      for (let i = 0; i < 300; i++) {
        const r = await mockJson('/pets');
        expect(r.status).to.equal(200);
        counts[r.body.kind] = (counts[r.body.kind] ?? 0) + 1;
      }
      expect(Object.keys(counts).sort()).to.deep.equal(['birds', 'cats', 'dogs']);
      for (const n of Object.values(counts)) expect(n).to.be.within(60, 140);
    });

    it('rules 3 and 4: _code_ and _status_ from the query or a header', async () => {
      expect((await mockJson('/pets?_code_=2')).body).to.deep.equal({ kind: 'dogs' });
      expect((await mockJson('/pets', { headers: { _code_: '3' } })).body).to.deep.equal({ kind: 'birds' });
      const q = await mockJson('/pets?_status_=404');
      expect(q.status).to.equal(404);
      expect(q.body).to.deep.equal({ error: 'none' });
      expect((await mockJson('/pets', { headers: { _status_: '201' } })).status).to.equal(201);
      const both = await mockJson('/pets?_status_=500&_code_=7');
      expect(both.status).to.equal(500);
      expect(both.headers.get('x-mock-response-code')).to.equal('7');
      expect((await mockJson('/pets?_code_=7')).status, '_code_ alone finds it in another status').to.equal(500);
    });

    it("accepts Postman's and Prism's selectors, with a documented precedence when several conflict", async () => {
      expect((await mockJson('/pets', { headers: { 'x-mock-response-code': '404' } })).status).to.equal(404);
      expect((await mockJson('/pets', { headers: { prefer: 'code=201' } })).status).to.equal(201);
      expect((await mockJson('/pets', { headers: { 'x-mock-response-name': 'dogs' } })).body).to.deep.equal({
        kind: 'dogs',
      });
      expect((await mockJson('/pets', { headers: { prefer: 'code=200, example=birds' } })).body).to.deep.equal({
        kind: 'birds',
      });
      // query _status_ > _status_ header > x-mock-response-code > Prefer
      expect((await mockJson('/pets?_status_=200&_code_=1', { headers: { _status_: '404' } })).status).to.equal(200);
      expect(
        (await mockJson('/pets', { headers: { _status_: '201', 'x-mock-response-code': '404' } })).status,
      ).to.equal(201);
      expect(
        (await mockJson('/pets', { headers: { 'x-mock-response-code': '404', prefer: 'code=500' } })).status,
      ).to.equal(404);
      expect((await mockJson('/pets?_code_=1', { headers: { _code_: '2' } })).body).to.deep.equal({ kind: 'cats' });
    });

    it('answers what is defined when a selector matches nothing, and 400 for a selector that is not a number', async () => {
      const none = await mockJson('/pets?_status_=418');
      expectProblem(none, 404, 'mock-response-not-found');
      expect(none.body.defined).to.deep.equal({ '200': [1, 2, 3], '201': [1], '404': [1], '500': [7] });
      expect(none.body.detail).to.contain('200: 1, 2, 3');
      expectProblem(await mockJson('/pets?_status_=200&_code_=9'), 404, 'mock-response-not-found');
      expectProblem(await mockJson('/pets?_status_=abc'), 400, 'mock-bad-selector');
    });
  });

  describe('paths and placeholders', () => {
    before(async () => {
      const body = {
        id: '{{userId}}',
        q: '{{q}}',
        selector: '{{_code_}}',
        name: '{{faker.person.firstName}}',
        n: '{{faker.number.int}}',
        text: 'user {{userId}} asked for {{q}}',
        nope: '{{faker.person.noSuchThing}}',
        proto: '{{faker.constructor.name}}',
        missing: '{{other}}',
      };
      for (const [p, dynamic] of [
        ['/users/{userId}', true],
        ['/static-users/{userId}', false],
      ] as const) {
        const res = await design({
          method: 'GET',
          path: p,
          responses: [{ status: 200, code: 1, dynamic, data: body, headers: { 'x-user': 'u-{{userId}}' } }],
        });
        expect(res.status, JSON.stringify(res.body)).to.equal(201);
      }
      await design({ method: 'GET', path: '/users/me', responses: [{ status: 200, code: 1, data: { me: true } }] });
      await design({
        method: 'GET',
        path: '/users/{userId}/posts',
        responses: [{ status: 200, code: 1, data: { posts: true } }],
      });
      await design({
        method: 'GET',
        path: '/users/{userId}/{section}',
        responses: [{ status: 200, code: 1, dynamic: true, data: { section: '{{section}}' } }],
      });
    });

    it('rule 5: a {param} segment matches a concrete segment', async () => {
      expect((await mockJson('/users/42')).body.id).to.equal('42');
      expect((await mockJson('/users/ada%20l')).body.id).to.equal('ada l');
    });

    it('rule 6: an exact path wins over a parameterised one, and a literal segment over a parameter, whatever the order they were made in', async () => {
      expect((await mockJson('/users/me')).body).to.deep.equal({ me: true });
      expect((await mockJson('/users/7/posts')).body).to.deep.equal({ posts: true });
      expect((await mockJson('/users/7/likes')).body).to.deep.equal({ section: 'likes' });
    });

    it('rules 7 and 8: with dynamic on, path and query parameters and faker calls are filled; selectors are not query parameters', async () => {
      const r = await mockJson('/users/42?q=books&_code_=1');
      expect(r.body).to.include({
        id: '42',
        q: 'books',
        selector: '{{_code_}}',
        text: 'user 42 asked for books',
        nope: '{{faker.person.noSuchThing}}',
        proto: '{{faker.constructor.name}}',
        missing: '{{other}}',
      });
      expect(r.body.name).to.be.a('string').and.not.match(/\{\{/);
      expect(r.body.n).to.be.a('number');
      expect(r.headers.get('x-user')).to.equal('u-42');
      const again = await mockJson('/users/42?q=books');
      expect(again.body.name === r.body.name && again.body.n === r.body.n, 'fresh fake values per request').to.equal(
        false,
      );
    });

    it('rule 7: with dynamic off, placeholders stay as static text', async () => {
      const r = await mockJson('/static-users/42?q=books');
      expect(r.body).to.include({ id: '{{userId}}', q: '{{q}}', name: '{{faker.person.firstName}}' });
      expect(r.headers.get('x-user')).to.equal('u-{{userId}}');
    });
  });

  describe('no match, methods, headers, delay', () => {
    it('404 listing the designs when nothing matches; 405 with Allow for another method; HEAD and OPTIONS', async () => {
      const none = await mockJson('/nowhere');
      expectProblem(none, 404, 'mock-not-found');
      expect(none.body.designs).to.include('GET /pets');
      const wrongMethod = await mockJson('/pets', { method: 'POST' });
      expectProblem(wrongMethod, 405, 'mock-method-not-allowed');
      expect(wrongMethod.headers.get('allow')).to.equal('GET, HEAD');
      const head = await mock('/users/me', { method: 'HEAD' });
      expect(head.status).to.equal(200);
      expect(await head.text()).to.equal('');
      const options = await mock('/pets', { method: 'OPTIONS' });
      expect(options.status).to.equal(204);
      expect(options.headers.get('access-control-allow-methods')).to.contain('GET');
      expectProblem(await mockJson('/nowhere'.replace('/nowhere', '/../x')), 404, 'mock-not-found');
      const bad = await fetch(`${app.url}/mock/not-a-workspace/pets`);
      expect(bad.status).to.equal(404);
    });

    it('405 lists every designed method in Allow and `allowed`, for a parameterised path and an unknown method too', async () => {
      for (const method of ['PUT', 'DELETE']) {
        const res = await design({ method, path: '/things/{id}', responses: [{ status: 204, code: 1 }] });
        expect(res.status, JSON.stringify(res.body)).to.equal(201);
      }
      for (const method of ['GET', 'POST', 'PURGE']) {
        const res = await mockJson('/things/7', { method });
        expectProblem(res, 405, 'mock-method-not-allowed');
        expect(res.headers.get('allow'), method).to.equal('PUT, DELETE');
        expect(res.body.allowed).to.deep.equal(['PUT', 'DELETE']);
      }
    });

    it('sends the response headers and waits the response delay', async () => {
      await design({
        method: 'POST',
        path: '/slow',
        responses: [
          {
            status: 202,
            code: 1,
            delayMs: 300,
            headers: { 'X-Trace': 'abc', 'Content-Type': 'application/vnd.api+json' },
            data: { accepted: true },
          },
        ],
      });
      const started = Date.now();
      const res = await mock('/slow', { method: 'POST' });
      expect(Date.now() - started).to.be.at.least(290);
      expect(res.status).to.equal(202);
      expect(res.headers.get('x-trace')).to.equal('abc');
      expect(res.headers.get('content-type')).to.equal('application/vnd.api+json');
    });

    it('sees a changed design at once', async () => {
      const d = (
        await design({ method: 'GET', path: '/changing', responses: [{ status: 200, code: 1, data: { v: 1 } }] })
      ).body;
      expect((await mockJson('/changing')).body).to.deep.equal({ v: 1 });
      await app.request('PATCH', `/v1/designs/${d.id}`, { responses: [{ status: 200, code: 1, data: { v: 2 } }] });
      expect((await mockJson('/changing')).body).to.deep.equal({ v: 2 });
      await app.request('DELETE', `/v1/designs/${d.id}`);
      expectProblem(await mockJson('/changing'), 404, 'mock-not-found');
    });
  });

  describe('sample data', () => {
    const schema = {
      type: 'object',
      required: ['id', 'email', 'tags'],
      properties: {
        id: { type: 'integer', minimum: 1 },
        email: { type: 'string', format: 'email' },
        tags: { type: 'array', items: { type: 'string' } },
      },
    };

    it('fills a response without data from its schema when the design is saved', async () => {
      const d = (
        await design({
          method: 'GET',
          path: '/sampled',
          responseSchemas: { '200': schema },
          responses: [{ status: 200, code: 1 }],
        })
      ).body;
      expect(d.responses[0].data).to.deep.equal({ id: 1, email: 'user@example.com', tags: ['string'] });
      expect((await mockJson('/sampled')).body).to.deep.equal(d.responses[0].data);
    });

    it('generates quickly on request, or with the AI provider when configured, refusing answers that do not fit the schema', async () => {
      expect((await app.request('POST', '/v1/mock-samples', { schema })).body).to.deep.equal({
        mode: 'fast',
        data: { id: 1, email: 'user@example.com', tags: ['string'] },
      });
      aiAnswer = '```json\n{"id": 7, "email": "grace@navy.mil", "tags": ["cobol"]}\n```';
      expect((await app.request('POST', '/v1/mock-samples', { schema, mode: 'ai' })).body).to.deep.equal({
        mode: 'ai',
        data: { id: 7, email: 'grace@navy.mil', tags: ['cobol'] },
      });
      aiAnswer = '{"id": "seven"}';
      const invalidAnswer = await app.request('POST', '/v1/mock-samples', { schema, mode: 'ai' });
      expectProblem(invalidAnswer, 502, 'ai-failed');
      expect(invalidAnswer.body.detail).to.contain('does not match the schema');
    });
  });

  describe('OpenAPI import', () => {
    it('imports the Swagger Petstore and mocks it; exact paths win; a second import skips what exists unless asked to replace', async () => {
      const doc = JSON.parse(fs.readFileSync(path.join(EXAMPLES, 'petstore.json'), 'utf8'));
      const res = await app.request('POST', '/v1/designs/import', doc);
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      expect(res.body.title).to.equal('Swagger Petstore');
      expect(res.body.created).to.have.length(16);
      expect(res.body.skipped.map((s: { operation: string }) => s.operation)).to.include('GET /user/logout');
      const byStatus = await mockJson('/pet/findByStatus?status=available');
      expect(byStatus.status).to.equal(200);
      expect(byStatus.body[0]).to.include({ name: 'doggie' });
      const one = await mockJson('/pet/123');
      expect(one.status).to.equal(200);
      expect(one.body).to.include.keys('id', 'name', 'photoUrls');
      expect((await mockJson('/pet/123?_status_=404')).status).to.equal(404);
      // The import validates requests (docs/mocks.md "Contract validation"): login's query parameters are required.
      const login = '/user/login?username=ada&password=x';
      expect((await mockJson(login)).status, 'exact /user/login over /user/{username}').to.equal(200);
      expect((await mockJson(login)).headers.get('x-mock-design')).to.equal(
        res.body.created.find((d: { path: string }) => d.path === '/user/login').id,
      );

      const again = await app.request('POST', '/v1/designs/import', doc);
      expect(again.body.created).to.have.length(0);
      expect(
        again.body.skipped.filter((s: { reason: string }) => s.reason.startsWith('already designed')),
      ).to.have.length(16);
      const replaced = await app.request('POST', '/v1/designs/import?replace=true', doc);
      expect(replaced.body.created).to.have.length(16);
    });

    it('imports a 3.0 schema with `nullable` beside no `type` (ajv refuses that pair), keeping a property named "nullable"', async () => {
      const doc = {
        openapi: '3.0.3',
        info: { title: 'nullable', version: '1' },
        paths: {
          '/notes/{id}': {
            get: {
              responses: {
                '200': {
                  description: 'ok',
                  content: {
                    'application/json': {
                      schema: {
                        type: 'object',
                        required: ['id'],
                        properties: {
                          id: { type: 'integer' },
                          note: { nullable: true, description: 'any or null' },
                          nullable: { type: 'boolean' },
                          ref: { nullable: true, allOf: [{ type: 'string' }] },
                        },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      };
      const res = await app.request('POST', '/v1/designs/import', doc);
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      const created = (await app.request('GET', `/v1/designs/${res.body.created[0].id}`)).body;
      expect(created.responseSchemas['200'].properties.note).to.deep.equal({ description: 'any or null' });
      expect(created.responseSchemas['200'].properties.nullable).to.deep.equal({ type: 'boolean' });
      expect((await mockJson('/notes/5')).status).to.equal(200);
    });

    it('serves the documented media type, samples that satisfy their schema, {Sid}.json paths, and warns of examples that break theirs', async () => {
      const account = {
        type: 'object',
        required: ['sid', 'uri', 'status'],
        properties: {
          sid: { type: 'string', pattern: '^AC[0-9a-fA-F]{32}$' },
          uri: { type: 'string', format: 'uri' },
          status: { type: 'string', enum: ['active', 'closed'] },
          balance: { type: 'integer', minimum: 10, multipleOf: 5 },
        },
      };
      const doc = {
        openapi: '3.0.3',
        info: { title: 'Media', version: '1' },
        paths: {
          '/media/Accounts/{Sid}.json': {
            get: { responses: { '200': { description: 'ok', content: { 'application/json': { schema: account } } } } },
          },
          '/media/Users/{id}': {
            get: {
              responses: {
                '200': {
                  description: 'ok',
                  content: {
                    'application/scim+json': {
                      schema: account,
                      example: { sid: 'not-a-sid', uri: '/relative', status: 'active' },
                    },
                  },
                },
              },
            },
          },
          '/media/health': {
            get: {
              responses: {
                '200': { description: 'ok', content: { 'text/plain': { schema: { type: 'string' }, example: 'OK' } } },
              },
            },
          },
          '/media/tasks:batchGet': {
            post: { responses: { '200': { description: 'ok', content: { 'application/json': { schema: account } } } } },
          },
        },
      };
      const res = await app.request('POST', '/v1/designs/import', doc);
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      expect(res.body.skipped, JSON.stringify(res.body.skipped)).to.deep.equal([]);
      expect(res.body.warnings).to.have.length(1);
      expect(res.body.warnings[0].operation).to.equal('GET /media/Users/{id} 200');
      expect(res.body.warnings[0].reason).to.match(/example does not match its own schema \(\/sid must match pattern/);
      expect(res.body.warnings[0].reason).to.match(/serves it with \/sid, \/uri made to match/);

      const sample = await mockJson('/media/Accounts/AC0123.json');
      expect(sample.status).to.equal(200);
      expect(sample.body.sid).to.match(/^AC[0-9a-fA-F]{32}$/);
      expect(() => new URL(sample.body.uri)).to.not.throw();
      expect(['active', 'closed']).to.include(sample.body.status);
      if (sample.body.balance !== undefined) expect(sample.body.balance % 5).to.equal(0);

      const scim = await mockJson('/media/Users/7');
      expect(scim.headers.get('content-type')).to.equal('application/scim+json');
      expect(scim.body.sid).to.match(/^AC[0-9a-fA-F]{32}$/);
      expect(scim.body.status).to.equal('active'); // the example's valid values are kept

      const text = await mock('/media/health');
      expect(text.headers.get('content-type')).to.equal('text/plain');
      expect(await text.text()).to.equal('OK');

      expect((await mockJson('/media/tasks:batchGet', { method: 'POST' })).status).to.equal(200);
    });

    it('imports YAML text too (the USPTO Data Set API), and refuses what is not OpenAPI 3', async () => {
      const doc = JSON.parse(fs.readFileSync(path.join(EXAMPLES, 'uspto.json'), 'utf8'));
      const res = await app.request('POST', '/v1/designs/import', { document: toYaml(doc) });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      expect(res.body.created.map((d: { method: string; path: string }) => `${d.method} ${d.path}`)).to.include(
        'GET /{dataset}/{version}/fields',
      );
      expect((await mockJson('/oa_citations/v1/fields')).status).to.equal(200);
      const swagger2 = await app.request('POST', '/v1/designs/import', { swagger: '2.0', paths: {} });
      expectProblem(swagger2, 400, 'validation-failed');
      expect(swagger2.body.detail).to.contain('Only OpenAPI 3.x');
    });
  });
});
