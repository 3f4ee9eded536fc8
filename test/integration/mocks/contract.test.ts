/**
 * Contract validation of the mock service (docs/mocks.md "Contract validation"; src/mock/contract.ts)
 * against a running Assay on loopback: 422 `mock-request-invalid` with the violations of the body,
 * the query, a header and a path parameter; parameters coerced as OpenAPI servers do; a design with
 * `validateRequests: false` accepts the same request; `validateResponses` and parameter checks at
 * save; and an OpenAPI description nobody here wrote (the Swagger Petstore of @readme/oas-examples)
 * imported with validation on, refusing invalid requests and answering valid ones. The workspace's
 * mock settings (`GET/PUT /v1/mock-settings`) are checked here too.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { eventually, readReply, startTestApp, type Reply, type TestApp } from '../../helpers/app';
import { compileContract } from '../../../src/mock/contract';

const PETSTORE = path.resolve(__dirname, '../../../../node_modules/@readme/oas-examples/3.0/json/petstore.json');

interface Violation {
  in: string;
  field: string;
  message: string;
}

function expectProblem(res: Reply, status: number, code: string): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  expect(res.body).to.include({ status, code });
}

describe('mock contract validation', function () {
  this.timeout(60_000);
  let app: TestApp;

  before(async () => {
    app = await startTestApp({ dialect: 'sqlite' });
  });
  after(async () => {
    await app?.stop();
  });

  const mock = async (
    p: string,
    init: { method?: string; headers?: Record<string, string>; body?: string } = {},
  ): Promise<Reply> => readReply(await fetch(`${app.url}/mock/${app.workspaceId}${p}`, init));
  const fields = (res: Reply) =>
    (res.body.violations as Violation[]).map((v) => `${v.in} ${v.field}`).sort((a, b) => a.localeCompare(b));

  const ORDER = {
    method: 'POST',
    path: '/shops/{shopId}/orders',
    requestSchema: {
      type: 'object',
      required: ['sku', 'quantity'],
      additionalProperties: false,
      properties: {
        sku: { type: 'string', pattern: '^[A-Z]{3}-\\d+$' },
        quantity: { type: 'integer', minimum: 1 },
        email: { type: 'string', format: 'email' },
      },
    },
    parameters: [
      { in: 'path', name: 'shopId', required: true, schema: { type: 'integer' } },
      { in: 'query', name: 'dryRun', schema: { type: 'boolean' } },
      { in: 'query', name: 'tags', schema: { type: 'array', items: { enum: ['a', 'b'] } } },
      { in: 'header', name: 'X-Request-Id', required: true, schema: { type: 'string', minLength: 8 } },
    ],
    responses: [{ status: 201, code: 1, data: { ok: true } }],
  };

  it('answers 422 mock-request-invalid listing the violations of the body, query, header and path', async () => {
    const made = await app.request('POST', '/v1/designs', ORDER);
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    expect(made.body).to.deep.include({ parameters: ORDER.parameters });

    const bad = await mock('/shops/x1/orders?dryRun=maybe&tags=a&tags=c', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'short' },
      body: JSON.stringify({ sku: 'nope', quantity: 0, extra: 1, email: 'not-an-email' }),
    });
    expectProblem(bad, 422, 'mock-request-invalid');
    expect(fields(bad)).to.deep.equal([
      'body /email',
      'body /extra',
      'body /quantity',
      'body /sku',
      'header x-request-id',
      'path shopId',
      'query dryRun',
      'query tags',
    ]);
    const byField = Object.fromEntries((bad.body.violations as Violation[]).map((v) => [v.field, v.message]));
    expect(byField['/quantity']).to.equal('must be >= 1');
    expect(byField['/extra']).to.equal('is not allowed by the schema');
    expect(bad.body.detail).to.match(/^The request breaks the contract of POST \/shops\/\{shopId\}\/orders: /);
    // The journal keeps the violations with the request.
    const journalled = await eventually(async () => {
      const res = await app.request('GET', `/v1/designs/${made.body.id}/requests?violations=true`);
      return res.body.items?.length === 1 ? res.body.items[0] : undefined;
    }, 10_000);
    expect(journalled).to.deep.include({ status: 422, source: 'mock', violations: bad.body.violations });

    // Required: the header and the body's properties; a missing body; a body that is not JSON.
    const missing = await mock('/shops/1/orders', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expectProblem(missing, 422, 'mock-request-invalid');
    expect(fields(missing)).to.deep.equal(['body /quantity', 'body /sku', 'header x-request-id']);
    expect((missing.body.violations as Violation[]).every((v) => v.message === 'is required')).to.equal(true);
    const noBody = await mock('/shops/1/orders', { method: 'POST', headers: { 'x-request-id': 'req-12345' } });
    expectProblem(noBody, 422, 'mock-request-invalid');
    expect(noBody.body.violations).to.deep.equal([{ in: 'body', field: '', message: 'a request body is required' }]);
    const notJson = await mock('/shops/1/orders', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'req-12345' },
      body: '{"sku": ',
    });
    expectProblem(notJson, 422, 'mock-request-invalid');
    expect(notJson.body.violations[0]).to.include({ in: 'body', field: '' });
    expect(notJson.body.violations[0].message).to.match(/^is not JSON/);

    // Valid: strings on the wire coerced to the schemas' types (integer path, boolean query, one-item array).
    for (const query of ['?dryRun=true&tags=a&tags=b', '?tags=b', '?tags=a,b', '']) {
      const ok = await mock(`/shops/42/orders${query}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'X-Request-ID': 'req-12345' },
        body: JSON.stringify({ sku: 'ABC-12', quantity: 2, email: 'a@example.com' }),
      });
      expect(ok.status, `${query} ${JSON.stringify(ok.body)}`).to.equal(201);
      expect(ok.body).to.deep.equal({ ok: true });
    }
  });

  it('accepts the same invalid request when the design says validateRequests: false (and again once true)', async () => {
    const made = await app.request('POST', '/v1/designs', {
      ...ORDER,
      path: '/lenient/{shopId}',
      validateRequests: false,
    });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    expect(made.body.validateRequests).to.equal(false);
    const send = () =>
      mock('/lenient/x?dryRun=maybe', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sku: 1 }),
      });
    expect((await send()).status).to.equal(201);
    const on = await app.request('PATCH', `/v1/designs/${made.body.id}`, { validateRequests: true });
    expect(on.status, JSON.stringify(on.body)).to.equal(200);
    expectProblem(await send(), 422, 'mock-request-invalid');
  });

  it('a design with nothing to validate compiles no contract (the static answer path is unchanged)', async () => {
    expect(compileContract({ method: 'GET', responses: [{ status: 200 }] })).to.equal(undefined);
    expect(
      compileContract({ method: 'GET', responses: [{ status: 200 }], options: { validateRequests: true } }),
    ).to.equal(undefined);
    const withSchema = compileContract({
      method: 'GET',
      responses: [{ status: 200 }],
      responseSchemas: { '200': { type: 'object' } },
    });
    expect(withSchema?.validatesRequests).to.equal(false);
    const made = await app.request('POST', '/v1/designs', {
      method: 'GET',
      path: '/plain',
      responses: [{ status: 200, code: 1, data: { n: 1 } }],
    });
    expect(made.status).to.equal(201);
    const res = await mock('/plain?anything=goes', { headers: { 'x-whatever': '1' } });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ n: 1 });
  });

  it('refuses at save, with validateResponses, a response whose data breaks its schema, naming responses[i].data…', async () => {
    const body = {
      method: 'GET',
      path: '/people/{id}',
      validateResponses: true,
      responseSchemas: {
        '200': {
          type: 'object',
          required: ['id', 'name'],
          properties: {
            id: { type: 'integer' },
            name: { type: 'string' },
            tags: { type: 'array', items: { type: 'string' } },
          },
        },
      },
      responses: [
        { status: 200, code: 1, data: { id: 1, name: 'Ada' } },
        { status: 200, code: 2, data: { id: 'two', tags: ['a', 3] } },
        { status: 404, code: 1, data: { message: 'no schema, not checked' } },
        {
          status: 400,
          code: 1,
          schema: { type: 'object', required: ['error'] },
          data: { message: 'its own schema' },
        },
        { status: 200, code: 3, dynamic: true, data: { id: '{{id}}', name: 'templated: not checked' } },
      ],
    };
    const refused = await app.request('POST', '/v1/designs', body);
    expectProblem(refused, 400, 'validation-failed');
    const errors = (refused.body.errors as Array<{ field: string; pointer: string; detail: string }>).map(
      (e) => e.pointer,
    );
    expect(errors).to.have.members([
      '#/responses/1/data/id',
      '#/responses/1/data/name',
      '#/responses/1/data/tags/1',
      '#/responses/3/data/error',
    ]);
    expect(refused.body.errors[0].field).to.match(/^responses\[1\]\.data/);
    // Without validateResponses the same design is kept; then switching it on is refused.
    const kept = await app.request('POST', '/v1/designs', { ...body, validateResponses: undefined });
    expect(kept.status, JSON.stringify(kept.body)).to.equal(201);
    const on = await app.request('PATCH', `/v1/designs/${kept.body.id}`, { validateResponses: true });
    expectProblem(on, 400, 'validation-failed');
    const fixed = await app.request('PATCH', `/v1/designs/${kept.body.id}`, {
      validateResponses: true,
      responses: [body.responses[0], body.responses[2]],
    });
    expect(fixed.status, JSON.stringify(fixed.body)).to.equal(200);
  });

  it('refuses parameters whose schema does not compile, named twice, or naming a path parameter the path lacks', async () => {
    const base = { method: 'GET', path: '/p/{id}', responses: [{ status: 200, code: 1 }] };
    const cases: Array<[unknown[], string]> = [
      [[{ in: 'query', name: 'q', schema: { type: 'nonsense' } }], 'parameters[0].schema'],
      [
        [
          { in: 'header', name: 'X-A' },
          { in: 'header', name: 'x-a' },
        ],
        'parameters[1].name',
      ],
      [[{ in: 'path', name: 'other' }], 'parameters[0].name'],
      [[{ in: 'cookie', name: 'sid' }], 'parameters[0].in'],
    ];
    for (const [parameters, field] of cases) {
      const res = await app.request('POST', '/v1/designs', { ...base, parameters });
      expectProblem(res, 400, 'validation-failed');
      expect(
        res.body.errors.map((e: { field: string }) => e.field),
        JSON.stringify(res.body),
      ).to.include(field);
    }
  });

  it('imports the Swagger Petstore (@readme/oas-examples) with validation on: invalid requests are refused, valid ones answered', async () => {
    const doc = JSON.parse(fs.readFileSync(PETSTORE, 'utf8'));
    const res = await app.request('POST', '/v1/designs/import', doc);
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).to.equal(201);
    const created = res.body.created as Array<Record<string, any>>;
    const find = (method: string, p: string) => created.find((d) => d.method === method && d.path === p)!;
    expect(created.every((d) => d.validateRequests === true)).to.equal(true);
    expect(find('GET', '/pet/findByStatus').parameters).to.deep.equal([
      {
        in: 'query',
        name: 'status',
        required: true,
        schema: {
          type: 'array',
          items: { type: 'string', enum: ['available', 'pending', 'sold'], default: 'available' },
        },
      },
    ]);
    expect(find('POST', '/pet').requestBodyRequired).to.equal(true);
    expect(find('DELETE', '/pet/{petId}').parameters.map((p: { name: string }) => p.name)).to.have.members([
      'api_key',
      'petId',
    ]);

    // Query: required, enum items; path: an int64 id.
    const noStatus = await mock('/pet/findByStatus');
    expectProblem(noStatus, 422, 'mock-request-invalid');
    expect(noStatus.body.violations).to.deep.equal([{ in: 'query', field: 'status', message: 'is required' }]);
    const badStatus = await mock('/pet/findByStatus?status=available&status=lost');
    expectProblem(badStatus, 422, 'mock-request-invalid');
    expect(fields(badStatus)).to.deep.equal(['query status']);
    expect((await mock('/pet/findByStatus?status=available&status=sold')).status).to.equal(200);
    const badId = await mock('/pet/fluffy');
    expectProblem(badId, 422, 'mock-request-invalid');
    expect(badId.body.violations).to.deep.equal([{ in: 'path', field: 'petId', message: 'must be integer' }]);
    expect((await mock('/pet/12')).status).to.equal(200);
    // /user/login needs username and password.
    expect(fields(await mock('/user/login'))).to.deep.equal(['query password', 'query username']);
    expect((await mock('/user/login?username=ada&password=x')).status).to.equal(200);
    // The store's order: maximum 10 on the path.
    expect(fields(await mock('/store/order/11'))).to.deep.equal(['path orderId']);

    // Bodies: a Pet needs name and photoUrls (strings); an Order's quantity is an integer.
    const pet = await mock('/pet', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Rex', photoUrls: [1], status: 'lost' }),
    });
    expectProblem(pet, 422, 'mock-request-invalid');
    expect(fields(pet)).to.deep.equal(['body /photoUrls/0', 'body /status']);
    const noPet = await mock('/pet', { method: 'POST' });
    expectProblem(noPet, 422, 'mock-request-invalid');
    const goodPet = await mock('/pet', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Rex', photoUrls: ['https://example.com/rex.png'], status: 'available' }),
    });
    // The Petstore documents only 405 (invalid input) for addPet: the mock answers with it, not 422.
    expect(goodPet.status, JSON.stringify(goodPet.body)).to.equal(405);
    expect(goodPet.headers.get('x-mock-design')).to.equal(find('POST', '/pet').id);
    const order = await mock('/store/order', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ petId: 1, quantity: 'two', shipDate: 'yesterday' }),
    });
    expectProblem(order, 422, 'mock-request-invalid');
    expect(fields(order)).to.deep.equal(['body /quantity', 'body /shipDate']);
    // A form body (application/x-www-form-urlencoded) is not checked; its path parameter is.
    const form = await mock('/pet/7', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'name=Rex&status=sold',
    });
    expect(form.status, JSON.stringify(form.body)).not.to.equal(422);
  });

  it('keeps the workspace mock settings: defaults, replace, refusals', async () => {
    const initial = await app.request('GET', '/v1/mock-settings');
    expect(initial.status).to.equal(200);
    expect(initial.body).to.deep.equal({ proxy: null, seed: null });
    const put = await app.request('PUT', '/v1/mock-settings', {
      proxy: { url: 'https://staging.example.com/v2/', mode: 'validate' },
      seed: 42,
    });
    expect(put.status, JSON.stringify(put.body)).to.equal(200);
    expect(put.body).to.deep.equal({ proxy: { url: 'https://staging.example.com/v2', mode: 'validate' }, seed: 42 });
    expect((await app.request('GET', '/v1/mock-settings')).body).to.deep.equal(put.body);
    for (const [url, why] of [
      ['ftp://example.com', /http: or https:/],
      ['https://user:pw@example.com', /credentials/],
      ['https://example.com/?a=1', /query or fragment/],
      ['/relative', /absolute/],
    ] as const) {
      const bad = await app.request('PUT', '/v1/mock-settings', { proxy: { url, mode: 'record' } });
      expectProblem(bad, 400, 'validation-failed');
      expect(bad.body.errors[0].field).to.equal('proxy.url');
      expect(bad.body.errors[0].detail).to.match(why);
    }
    expectProblem(
      await app.request('PUT', '/v1/mock-settings', { proxy: { url: 'https://a.example', mode: 'mirror' } }),
      400,
      'validation-failed',
    );
    const readKey = await app.issueKey('read');
    expectProblem(await app.request('PUT', '/v1/mock-settings', { proxy: null }, { key: readKey }), 403, 'forbidden');
    expect((await app.request('GET', '/v1/mock-settings', undefined, { key: readKey })).status).to.equal(200);
    const off = await app.request('PUT', '/v1/mock-settings', {});
    expect(off.body).to.deep.equal({ proxy: null, seed: null });
  });
});
