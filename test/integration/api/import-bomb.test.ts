/**
 * An OpenAPI import never ends the process (src/mock/import-pool.ts, docs/mocks.md "OpenAPI
 * import", Bounds): descriptions built to explode — thousands of operations whose responses are deep
 * `allOf` chains of wide objects (each sample a fresh object), and hundreds of operations sharing a
 * huge example, hundreds of operations with 1,000-item samples — are refused 422
 * `import-too-large` naming the bound they hit (the import thread's heap, ASSAY_IMPORT_MEMORY_MB;
 * the designs' size, ASSAY_IMPORT_MAX_RESULT_BYTES; the time, ASSAY_IMPORT_TIMEOUT_MS), nothing is
 * stored, the API answers throughout, and the next import works.
 */
import { expect } from 'chai';
import { startTestApp, type TestApp } from '../../helpers/app';

type Json = Record<string, unknown>;

/** `operations` GET operations answering `schema` (a component), as one OpenAPI 3.0 description. */
function description(operations: number, schemas: Json): Json {
  const paths: Json = {};
  for (let i = 0; i < operations; i++)
    paths[`/items${i}/{id}`] = {
      get: {
        operationId: `get${i}`,
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '200': {
            description: 'ok',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Top' } } },
          },
        },
      },
    };
  return { openapi: '3.0.3', info: { title: 'Bomb', version: '1' }, paths, components: { schemas } };
}

/** A chain of `depth` `allOf` levels, each adding `width` string properties with examples. */
function allOfChain(depth: number, width: number): Json {
  const schemas: Json = {};
  for (let d = 0; d < depth; d++) {
    const properties: Json = {};
    for (let w = 0; w < width; w++)
      properties[`p${d}_${w}`] = { type: 'string', example: `value ${d} ${w} ${'y'.repeat(40)}` };
    const own = { type: 'object', required: Object.keys(properties), properties };
    schemas[d === 0 ? 'Top' : `L${d}`] =
      d + 1 < depth ? { allOf: [own, { $ref: `#/components/schemas/L${d + 1}` }] } : own;
  }
  return schemas;
}

describe('OpenAPI import bombs: refused within bounds, the service keeps answering', function () {
  this.timeout(180_000);
  let app: TestApp;

  before(async () => {
    app = await startTestApp({
      env: {
        ASSAY_IMPORT_MEMORY_MB: '128',
        ASSAY_IMPORT_MAX_RESULT_BYTES: String(4 * 1024 * 1024),
        ASSAY_IMPORT_MAX_BYTES: String(16 * 1024 * 1024),
        ASSAY_IMPORT_TIMEOUT_MS: '8000',
      },
    });
  });
  after(async () => app?.stop());

  /** Imports `doc` while asking /healthz every 50 ms; answers the import and the health answers. */
  async function importWhileProbing(doc: Json) {
    let importing = true;
    const health: number[] = [];
    const probe = (async () => {
      // Bounded: at most 2,400 probes (2 minutes).
      for (let i = 0; importing && i < 2400; i++) {
        health.push((await fetch(`${app.url}/healthz`)).status);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const res = await app.request('POST', '/v1/designs/import', doc);
    importing = false;
    await probe;
    return { res, health };
  }

  it("refuses hundreds of operations of 1,000-item samples past the thread's heap: 422 naming ASSAY_IMPORT_MEMORY_MB", async () => {
    // Each operation's sample is a fresh array of 1,000 objects (about 1 MiB): 400 of them are 400 MiB.
    const item: Json = { type: 'object', required: ['a', 'b', 'c', 'd', 'e'], properties: {} };
    for (const p of ['a', 'b', 'c', 'd', 'e'])
      (item.properties as Json)[p] = { type: 'string', minLength: 150, maxLength: 150 };
    const { res, health } = await importWhileProbing(
      description(400, { Top: { type: 'array', minItems: 1000, maxItems: 1000, items: item } }),
    );
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).to.equal(422);
    expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
    expect(res.body).to.include({ code: 'import-too-large', setting: 'ASSAY_IMPORT_MEMORY_MB', limit: 128 });
    expect(health.length).to.be.greaterThan(0);
    expect(new Set(health)).to.deep.equal(new Set([200]));
    expect((await app.request('GET', '/v1/designs')).body.items).to.deep.equal([]);
  });

  it('stops thousands of operations of deep allOf chains past the time bound: 422 naming ASSAY_IMPORT_TIMEOUT_MS', async () => {
    const { res, health } = await importWhileProbing(description(3000, allOfChain(40, 40)));
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).to.equal(422);
    expect(res.body).to.include({ code: 'import-too-large', setting: 'ASSAY_IMPORT_TIMEOUT_MS', limit: 8000 });
    expect(new Set(health)).to.deep.equal(new Set([200]));
    expect((await app.request('GET', '/v1/designs')).body.items).to.deep.equal([]);
  });

  it('refuses hundreds of operations sharing a huge example past the designs’ size: 422 naming ASSAY_IMPORT_MAX_RESULT_BYTES', async () => {
    const huge = {
      type: 'object',
      example: { blob: 'x'.repeat(100 * 1024) },
      properties: { blob: { type: 'string' } },
    };
    const { res, health } = await importWhileProbing(description(200, { Top: huge }));
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).to.equal(422);
    expect(res.body).to.include({
      code: 'import-too-large',
      setting: 'ASSAY_IMPORT_MAX_RESULT_BYTES',
      limit: 4 * 1024 * 1024,
    });
    expect(res.body.detail).to.include('200 designs');
    expect(new Set(health)).to.deep.equal(new Set([200]));
    expect((await app.request('GET', '/v1/designs')).body.items).to.deep.equal([]);
  });

  it('imports the next description as usual (a new thread took the place of the one that ran out of memory)', async () => {
    const res = await app.request('POST', '/v1/designs/import', description(3, allOfChain(3, 3)));
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).to.equal(201);
    expect(res.body.created).to.have.length(3);
    const [design] = (await app.request('GET', '/v1/designs?path=/items1/')).body.items;
    expect(design.responses[0].data).to.include({ p2_2: `value 2 2 ${'y'.repeat(40)}` });
  });
});
