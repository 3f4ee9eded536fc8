/**
 * The OpenAPI import's own body limit and worker thread (api/import-document.ts,
 * src/mock/import-pool.ts; docs/api.md "Designs") against a real API on loopback and a real
 * MariaDB/MySQL store:
 *
 * - a description of megabytes (the size big APIs publish) imports, while every other route keeps
 *   ASSAY_MAX_BODY_BYTES (a 2 MiB design is 413);
 * - a body over ASSAY_IMPORT_MAX_BYTES is 413 `payload-too-large` naming the limit;
 * - the import is parsed and sampled on a worker thread: `GET /healthz` answers while it runs;
 * - YAML bodies (`application/yaml`) import; other media types are 415;
 * - malformed and too-deep documents are still 400 naming `document`.
 */
import { expect } from 'chai';
import { stringify as toYaml } from 'yaml';
import { sharedImportPool } from '../../../src/mock/import-pool';
import { startTestApp, type Reply, type TestApp } from '../../helpers/app';

function expectProblem(res: Reply, status: number, code: string): void {
  expect(res.status, JSON.stringify(res.body).slice(0, 500)).to.equal(status);
  expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
  expect(res.body).to.include({ status, code, type: `/problems/${code}` });
}

const MiB = 1024 * 1024;
/** The import limit of the test app: between the big document and the too-big one. */
const IMPORT_LIMIT = 4 * MiB;

/** An OpenAPI 3.0 document of `paths` operations, each response schema carrying `chars` characters of descriptions. */
function bigDocument(paths: number, chars: number, title = 'Big'): Record<string, unknown> {
  const words = 'The quick brown fox jumps over the lazy dog while the API answers. ';
  const prose = (n: number) => words.repeat(Math.ceil(n / words.length)).slice(0, n);
  const schemas: Record<string, unknown> = {};
  const pathItems: Record<string, unknown> = {};
  for (let i = 0; i < paths; i++) {
    schemas[`Item${i}`] = {
      type: 'object',
      description: prose(chars / 2),
      required: ['id'],
      properties: {
        id: { type: 'string', description: prose(chars / 4) },
        count: { type: 'integer', minimum: 0, description: prose(chars / 4) },
      },
    };
    pathItems[`/big/items${i}/{id}`] = {
      get: {
        summary: `Item ${i}`,
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          200: {
            description: 'the item',
            content: { 'application/json': { schema: { $ref: `#/components/schemas/Item${i}` } } },
          },
          404: { description: 'no such item' },
        },
      },
    };
  }
  return { openapi: '3.0.3', info: { title, version: '1' }, paths: pathItems, components: { schemas } };
}

const small = (path: string) => ({
  openapi: '3.0.3',
  info: { title: 'Small', version: '1' },
  paths: {
    [path]: {
      get: {
        responses: {
          200: { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } },
        },
      },
    },
  },
});

describe('OpenAPI import: its own body limit, parsed on a worker thread', function () {
  this.timeout(180_000);
  let app: TestApp;
  const big = bigDocument(500, 5000);
  const bigText = JSON.stringify(big);

  before(async () => {
    app = await startTestApp({ env: { ASSAY_IMPORT_MAX_BYTES: String(IMPORT_LIMIT) } });
  });
  after(async () => {
    await app?.stop();
  });

  it('imports a description of megabytes, while other routes keep ASSAY_MAX_BODY_BYTES', async () => {
    expect(Buffer.byteLength(bigText)).to.be.within(2 * MiB, 3 * MiB);
    expect(app.config.api.maxBodyBytes).to.equal(MiB);
    const res = await app.request('POST', '/v1/designs/import', undefined, {
      raw: bigText,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).to.equal(201);
    expect(res.body.title).to.equal('Big');
    expect(res.body.created).to.have.length(500);
    const one = (await app.request('GET', '/v1/designs?path=/big/items7/')).body.items;
    expect(one).to.have.length(1);
    expect(one[0].responses[0].data).to.have.property('id');

    const design = await app.request('POST', '/v1/designs', {
      method: 'GET',
      path: '/huge',
      description: 'x'.repeat(2 * MiB),
      responses: [{ status: 200, code: 1, data: {} }],
    });
    expectProblem(design, 413, 'payload-too-large');
  });

  it('answers 413 payload-too-large naming the limit for a body over ASSAY_IMPORT_MAX_BYTES', async () => {
    const tooBig = JSON.stringify(bigDocument(900, 5000, 'Too big'));
    expect(Buffer.byteLength(tooBig)).to.be.greaterThan(IMPORT_LIMIT);
    const res = await app.request('POST', '/v1/designs/import', undefined, {
      raw: tooBig,
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(res, 413, 'payload-too-large');
    expect(res.body.limit).to.equal(IMPORT_LIMIT);
    expect(res.body.detail).to.contain(String(IMPORT_LIMIT)).and.to.contain('ASSAY_IMPORT_MAX_BYTES');
    const yaml = await app.request('POST', '/v1/designs/import', undefined, {
      raw: toYaml(JSON.parse(tooBig)),
      headers: { 'content-type': 'application/yaml' },
    });
    expectProblem(yaml, 413, 'payload-too-large');
    expect((await app.request('GET', '/v1/designs?path=/big/items899')).body.items).to.have.length(0);
  });

  it('answers other requests while a big import is parsed (on a worker thread)', async () => {
    const pool = sharedImportPool();
    const run = pool.run.bind(pool);
    let parsing!: () => void;
    const started = new Promise<void>((resolve) => (parsing = resolve));
    const order: string[] = [];
    pool.run = (job) => {
      parsing();
      return run(job).then((reply) => {
        order.push('parsed');
        return reply;
      });
    };
    try {
      const importing = app
        .request('POST', '/v1/designs/import?replace=true', undefined, {
          raw: bigText,
          headers: { 'content-type': 'application/json' },
        })
        .then((res) => {
          order.push('imported');
          return res;
        });
      await started;
      const health = await fetch(`${app.url}/healthz`);
      order.push('healthz');
      expect(health.status).to.equal(200);
      const res = await importing;
      expect(res.status, JSON.stringify(res.body).slice(0, 500)).to.equal(201);
      expect(order).to.deep.equal(['healthz', 'parsed', 'imported']);
    } finally {
      pool.run = run;
    }
  });

  it('imports a YAML body (application/yaml, application/x-yaml, text/yaml) and refuses other media types with 415', async () => {
    for (const [i, type] of ['application/yaml', 'application/x-yaml', 'text/yaml; charset=utf-8'].entries()) {
      const res = await app.request('POST', '/v1/designs/import', undefined, {
        raw: toYaml(small(`/yaml${i}`)),
        headers: { 'content-type': type },
      });
      expect(res.status, JSON.stringify(res.body).slice(0, 500)).to.equal(201);
      expect(res.body.created.map((d: { path: string }) => d.path)).to.deep.equal([`/yaml${i}`]);
    }
    const plain = await app.request('POST', '/v1/designs/import', undefined, {
      raw: toYaml(small('/plain')),
      headers: { 'content-type': 'text/plain' },
    });
    expectProblem(plain, 415, 'unsupported-media-type');
    const none = await app.request('POST', '/v1/designs/import');
    expectProblem(none, 400, 'validation-failed');
  });

  it('still answers malformed and too-deep documents with 400 naming `document`', async () => {
    const yamlBody = (raw: string) =>
      app.request('POST', '/v1/designs/import', undefined, { raw, headers: { 'content-type': 'application/yaml' } });

    const brokenYaml = await yamlBody('openapi: 3.0.0\npaths: {"/x": [unclosed\n');
    expectProblem(brokenYaml, 400, 'validation-failed');
    expect(brokenYaml.body.errors[0].field).to.equal('document');
    const brokenInside = await app.request('POST', '/v1/designs/import', {
      document: '{"openapi": "3.0.0", "paths": ',
    });
    expectProblem(brokenInside, 400, 'validation-failed');
    expect(brokenInside.body.errors[0].field).to.equal('document');
    const swagger = await yamlBody('swagger: "2.0"\npaths: {}\n');
    expectProblem(swagger, 400, 'validation-failed');
    expect(swagger.body.errors[0].field).to.equal('document');

    const malformedJson = await app.request('POST', '/v1/designs/import', undefined, {
      raw: '{"openapi": "3.0.0", "paths": ',
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(malformedJson, 400, 'malformed-json');

    const deep = `${'['.repeat(5_000)}${']'.repeat(5_000)}`;
    const deepYaml = await yamlBody(
      `openapi: 3.0.0\ninfo: {title: t}\npaths:\n  /x:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              example: ${deep}\n`,
    );
    expectProblem(deepYaml, 400, 'too-deep');
    expect(deepYaml.body.errors[0].field).to.match(/^document/);
    const deepInside = await app.request('POST', '/v1/designs/import', {
      document: JSON.stringify({ ...small('/deep'), 'x-deep': JSON.parse(deep.slice(4_950, 5_050)) }),
    });
    expectProblem(deepInside, 400, 'too-deep');
    expect(deepInside.body.errors[0].field).to.match(/^document/);
    const deepBody = await app.request('POST', '/v1/designs/import', undefined, {
      raw: `{"openapi":"3.0.0","info":{"title":"t"},"paths":{"/x":{"get":{"responses":{"200":{"description":"ok","content":{"application/json":{"example":${deep}}}}}}}}}`,
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(deepBody, 400, 'too-deep');
    expect((await app.request('GET', '/v1/designs?path=/x')).body.items).to.have.length(0);
  });
});
