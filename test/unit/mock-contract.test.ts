/**
 * Contract validation and the proxy's filters, in process (src/mock/contract.ts, src/mock/proxy.ts;
 * docs/mocks.md "Contract validation", "Proxy: validate and record"): parameter coercion and
 * arrays, 2020-12 parameter schemas, answers checked per status and media type, and what the
 * proxy forwards and records (hop-by-hop headers, secrets).
 */
import { expect } from 'chai';
import type { IncomingMessage } from 'node:http';
import { compileContract } from '../../src/mock/contract';
import { forwardedHeaders, recordedHeaders, redactSecrets } from '../../src/mock/proxy';
import type { MockExchange } from '../../src/mock/exchange';

function exchange(headers: Record<string, string | string[]>, rawQuery = ''): MockExchange {
  return {
    workspaceId: 'ws_01JD0000000000000000000000',
    scope: null,
    method: 'GET',
    path: '/x',
    rawQuery,
    req: { headers } as unknown as IncomingMessage,
    res: undefined as never,
    startedAt: 0,
  };
}

describe('mock contract (src/mock/contract)', () => {
  const contract = compileContract({
    method: 'GET',
    responses: [{ status: 200 }, { status: 404 }],
    responseSchemas: { '200': { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } } },
    options: {
      parameters: [
        { in: 'query', name: 'limit', required: true, schema: { type: 'integer', maximum: 100 } },
        { in: 'query', name: 'ids', schema: { type: 'array', items: { type: 'integer' }, maxItems: 3 } },
        { in: 'header', name: 'X-Flags', schema: { type: 'array', items: { enum: ['a', 'b'] } } },
        { in: 'header', name: 'Authorization', required: true, schema: { const: 'never checked' } },
        {
          in: 'path',
          name: 'id',
          schema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: ['integer', 'null'] },
        },
      ],
    },
  })!;
  const check = (headers: Record<string, string>, query: string, params: Record<string, string> = { id: '1' }) =>
    contract.checkRequest(exchange(headers, query), params) as Array<{ in: string; field: string; message: string }>;

  it('coerces query, header and path strings to the schema types; arrays from repeats or commas', () => {
    expect(contract.validatesRequests).to.equal(true);
    expect(check({}, 'limit=10&ids=1&ids=2')).to.deep.equal([]);
    expect(check({ 'x-flags': 'a, b' }, 'limit=10&ids=1,2,3')).to.deep.equal([]);
    expect(check({}, 'limit=ten&ids=1,x')).to.deep.equal([
      { in: 'query', field: 'limit', message: 'must be integer' },
      { in: 'query', field: 'ids', message: 'must be integer' },
    ]);
    expect(check({ 'x-flags': 'a,c' }, 'limit=101&ids=1,2,3,4').map((v) => `${v.in} ${v.field}`)).to.deep.equal([
      'query limit',
      'query ids',
      'header x-flags',
    ]);
    expect(check({}, 'limit=1', { id: 'seven' })).to.deep.equal([
      { in: 'path', field: 'id', message: 'must be integer,null' },
    ]);
    // Authorization is HTTP's (ignored as a parameter, as OpenAPI says).
    expect(check({}, 'limit=1')).to.deep.equal([]);
    expect(check({}, '')).to.deep.equal([{ in: 'query', field: 'limit', message: 'is required' }]);
  });

  it('checks answers: the status must be defined, a JSON body must match the status schema, other media pass', () => {
    const json = (v: unknown) => Buffer.from(JSON.stringify(v));
    expect(contract.checkResponse(200, 'application/json', json({ id: 1 }))).to.deep.equal([]);
    expect(contract.checkResponse(200, 'application/json; charset=utf-8', json({ id: 'x' }))).to.deep.equal([
      { in: 'response', field: '/id', message: 'must be integer' },
    ]);
    expect(contract.checkResponse(200, undefined, Buffer.from('{oops'))[0]!.message).to.match(/^the body is not JSON/);
    expect(contract.checkResponse(200, 'text/html', Buffer.from('<p>'))).to.deep.equal([]);
    expect(contract.checkResponse(404, 'application/json', json({ anything: true }))).to.deep.equal([]);
    expect(contract.checkResponse(503, 'application/json', json({}))).to.deep.equal([
      { in: 'response', field: 'status', message: '503 is not a status the design defines (200, 404)' },
    ]);
  });
});

describe('mock proxy filters (src/mock/proxy)', () => {
  it('forwards without hop-by-hop headers, those Connection names, Host, the scope, Accept-Encoding; marks the workspace', () => {
    const out = forwardedHeaders(
      exchange({
        host: 'mock.local',
        connection: 'keep-alive, X-Hop',
        'x-hop': '1',
        'keep-alive': 'timeout=5',
        'transfer-encoding': 'chunked',
        'content-length': '3',
        'accept-encoding': 'gzip',
        'x-assay-mock-scope': 'run_1',
        'x-assay-mock-proxied': 'ws_other',
        authorization: 'Bearer t',
        cookie: 'a=1',
        'x-api-key': 'k',
      }),
    );
    expect(out).to.deep.equal({
      authorization: 'Bearer t',
      cookie: 'a=1',
      'x-api-key': 'k',
      'x-assay-mock-proxied': 'ws_other, ws_01JD0000000000000000000000',
    });
  });

  it('records only the safe response headers, and JSON fields named like secrets as "***" at every depth', () => {
    expect(
      recordedHeaders({
        'content-type': 'application/json',
        'set-cookie': ['a=1'],
        etag: '"1"',
        location: '/x/1',
        'cache-control': 'max-age=60',
        'x-request-id': 'r',
        'x-ratelimit-remaining': '9',
        'x-api-key': 'k',
        'x-session': 's',
        'x-csrf-token': 't',
        'x-authorization-hint': 'h',
        'x-mock-design': 'dsg_1',
        authorization: 'Bearer x',
        server: 'nginx',
        'www-authenticate': 'Basic',
      }),
    ).to.deep.equal({
      'content-type': 'application/json',
      etag: '"1"',
      location: '/x/1',
      'cache-control': 'max-age=60',
      'x-request-id': 'r',
      'x-ratelimit-remaining': '9',
    });
    expect(
      redactSecrets({
        user: 'ada',
        Password: 'p',
        access_token: 't',
        clientSecret: 's',
        'api-key': 'k',
        apikey: 'k2',
        Authorization: 'a',
        list: [{ refreshToken: 'r', keep: 1 }],
        tokens: { a: 1 },
      }),
    ).to.deep.equal({
      user: 'ada',
      Password: '***',
      access_token: '***',
      clientSecret: '***',
      'api-key': '***',
      apikey: '***',
      Authorization: '***',
      list: [{ refreshToken: '***', keep: 1 }],
      tokens: '***',
    });
  });
});
