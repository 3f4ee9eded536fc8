/**
 * `assay import openapi` end to end (docs/import-openapi.md): the built CLI imports a small OpenAPI
 * description (YAML) into a real Assay (API + worker on Temporal), the contract tests run against a
 * loopback server implementing the description and pass; the server then breaks the contract (a
 * field of the wrong type) and the run fails on that operation's matchesSchema assertion; a
 * re-import changes nothing; `--with-mocks` imports Assay's own mocks of the description and the
 * same contract tests pass against them.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { startTestApp, type TestApp } from '../../helpers/app';
import { runCli } from '../../helpers/cli';
import { OPENAPI_FIXTURES } from '../../helpers/openapi-contract';
import zlib from 'node:zlib';

const SPEC = `openapi: 3.0.3
info:
  title: Tiny Shop
  version: "1.0"
servers:
  - url: https://shop.example.com/api
components:
  securitySchemes:
    bearer: { type: http, scheme: bearer }
  schemas:
    Item:
      type: object
      required: [id, name, price]
      properties:
        id: { type: integer, example: 7 }
        name: { type: string, example: Lamp }
        price: { type: number, example: 9.5 }
        note: { type: string, nullable: true }
    NewItem:
      type: object
      required: [name, price]
      properties:
        name: { type: string, example: Lamp }
        price: { type: number, example: 9.5 }
paths:
  /items:
    get:
      tags: [items]
      operationId: listItems
      parameters:
        - { name: limit, in: query, required: true, schema: { type: integer, default: 10 } }
        - { name: cursor, in: query, schema: { type: string } }
      responses:
        "200":
          description: the items
          content:
            application/json:
              schema: { type: array, items: { $ref: "#/components/schemas/Item" } }
    post:
      tags: [items]
      operationId: createItem
      security: [ { bearer: [] } ]
      requestBody:
        required: true
        content:
          application/json:
            schema: { $ref: "#/components/schemas/NewItem" }
      responses:
        "201":
          description: created
          content:
            application/json:
              schema: { $ref: "#/components/schemas/Item" }
        "400": { description: bad item }
  /items/{itemId}:
    get:
      tags: [items]
      operationId: getItem
      parameters:
        - { name: itemId, in: path, required: true, schema: { type: integer }, example: 7 }
      responses:
        "200":
          description: one item
          content:
            application/json:
              schema: { $ref: "#/components/schemas/Item" }
        "404": { description: no such item }
  /health:
    get:
      responses:
        default: { description: whatever }
`;

interface Shop {
  url: string;
  /** When true, GET /items/{id} answers a price as a string (breaks the contract). */
  broken: boolean;
  requests: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: string }>;
  close(): Promise<void>;
}

/** The loopback server implementing SPEC. */
async function startShop(): Promise<Shop> {
  const shop = { broken: false, requests: [] as Shop['requests'] } as Shop;
  const item = (id: number) => ({ id, name: 'Lamp', price: shop.broken && id === 7 ? '9.50' : 9.5, note: null });
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      shop.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const url = new URL(req.url ?? '/', 'http://localhost');
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify(value));
      };
      if (req.method === 'GET' && url.pathname === '/openapi.yaml') {
        res.writeHead(200, { 'content-type': 'application/yaml' });
        return res.end(SPEC.replace('https://shop.example.com/api', '/api'));
      }
      if (req.method === 'GET' && url.pathname === '/items' && url.searchParams.get('limit'))
        return json(200, [item(1), item(2)]);
      if (req.method === 'POST' && url.pathname === '/items') {
        if (req.headers.authorization !== 'Bearer secret') return json(401, { error: 'who are you' });
        try {
          const input = JSON.parse(body) as { name?: unknown; price?: unknown };
          if (typeof input.name !== 'string' || typeof input.price !== 'number')
            return json(400, { error: 'bad item' });
          return json(201, { id: 3, name: input.name, price: input.price });
        } catch {
          return json(400, { error: 'not JSON' });
        }
      }
      const m = /^\/items\/(\d+)$/.exec(url.pathname);
      if (req.method === 'GET' && m) return json(200, item(Number(m[1])));
      json(404, { error: 'no route' });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  shop.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  shop.close = () => new Promise<void>((r) => server.close(() => r()));
  return shop;
}

describe('assay import openapi (CLI, real API and worker)', function () {
  this.timeout(180_000);
  let app: TestApp;
  let shop: Shop;
  let dir: string;
  let specFile: string;

  before(async () => {
    // The mocks also on a port of their own (ASSAY_MOCK_PORT), which runs may reach.
    [app, shop] = await Promise.all([startTestApp({ worker: true, env: { ASSAY_MOCK_PORT: '0' } }), startShop()]);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-openapi-'));
    specFile = path.join(dir, 'shop.yaml');
    fs.writeFileSync(specFile, SPEC);
  });
  after(async () => {
    await shop?.close();
    await app?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** The run id the CLI announced on stderr. */
  const runIdOf = (stderr: string) => /Run (run_[A-Za-z0-9]+)/.exec(stderr)?.[1];

  /** The failures of the run announced on stderr, as text (for assertion messages). */
  async function failuresOf(stderr: string): Promise<string> {
    const runId = runIdOf(stderr);
    if (!runId) return '';
    const results = await app.request('GET', `/v1/runs/${runId}/results`);
    return JSON.stringify(
      results.body.details?.testCases?.map((t: any) => ({ name: t.name, failures: t.failures })),
      null,
      1,
    );
  }

  async function contractCases(): Promise<any[]> {
    const res = await app.request('GET', '/v1/test-cases?folder=tiny-shop&limit=200');
    expect(res.status).to.equal(200);
    return res.body.items;
  }

  it('imports one test case per operation with a success response, environment and runner, and lists what it skipped and the variables to set', async () => {
    const r = await runCli(
      [
        'import',
        'openapi',
        specFile,
        '--base-url',
        shop.url,
        '--environment',
        'contract',
        '--runner',
        'contract',
        '--json',
      ],
      { app, cwd: dir },
    );
    expect(r.code, r.stderr).to.equal(0);
    const report = JSON.parse(r.stdout);
    expect(report.counts).to.deep.equal({ created: 3, updated: 0, unchanged: 0, skipped: 1, failed: 0 });
    expect(report.testCases.map((t: any) => `${t.action} ${t.name} ${t.folder}`).sort()).to.deep.equal([
      'created GET /items tiny-shop/items',
      'created GET /items/{itemId} tiny-shop/items',
      'created POST /items tiny-shop/items',
    ]);
    expect(report.skipped).to.deep.equal([
      { operation: 'GET /health', reason: 'no documented success response (2xx; default does not count)' },
    ]);
    expect(report.environment).to.deep.equal({ name: 'contract', action: 'created', baseUrl: shop.url });
    expect(report.runner).to.include({ name: 'contract', action: 'created', folder: 'tiny-shop' });
    expect(report.variables.map((v: any) => v.name)).to.deep.equal(['token']);
    expect(r.stderr).to.match(/3 created, 0 updated, 0 unchanged, 1 skipped/);
    expect(r.stderr).to.match(/skipped\s+GET \/health/);
    expect(r.stderr).to.match(/token\s+a bearer token; Authorization header \(Bearer\)/);

    const env = await app.request('GET', '/v1/environments/contract');
    expect(env.body.variables).to.deep.equal({ baseUrl: shop.url });
    const cases = await contractCases();
    expect(cases).to.have.length(3);
    for (const tc of cases) expect(tc.tags).to.include.members(['contract', 'items']);
    const runnerCases = await app.request('GET', '/v1/runners/contract/test-cases');
    expect(runnerCases.body.items.map((t: any) => t.name).sort()).to.deep.equal([
      'GET /items',
      'GET /items/{itemId}',
      'POST /items',
    ]);
  });

  it('the contract tests pass against a server that keeps the contract, sending the documented parameters, body and credentials', async () => {
    expect(
      (await app.request('PATCH', '/v1/environments/contract', { variables: { token: 'secret' } })).status,
    ).to.equal(200);
    shop.requests.length = 0;
    const r = await runCli(['run', '--runner', 'contract', '--env', 'contract', '--wait', '--poll-interval', '0.2'], {
      app,
      cwd: dir,
    });
    expect(r.code, r.stdout + r.stderr + (await failuresOf(r.stderr))).to.equal(0);
    const seen = shop.requests.map((q) => `${q.method} ${q.url}`).sort();
    expect(seen).to.deep.equal(['GET /items/7', 'GET /items?limit=10', 'POST /items']);
    const post = shop.requests.find((q) => q.method === 'POST')!;
    expect(JSON.parse(post.body)).to.deep.equal({ name: 'Lamp', price: 9.5 });
    expect(post.headers['content-type']).to.match(/^application\/json/);
    expect(post.headers.authorization).to.equal('Bearer secret');
  });

  it('a server that breaks the contract (a field of the wrong type) fails that operation on matchesSchema', async () => {
    shop.broken = true;
    try {
      const r = await runCli(['run', '--runner', 'contract', '--env', 'contract', '--wait', '--poll-interval', '0.2'], {
        app,
        cwd: dir,
      });
      expect(r.code, r.stdout + r.stderr).to.equal(1);
      const runId = runIdOf(r.stderr);
      expect(runId, r.stderr).to.be.a('string');
      const results = await app.request('GET', `/v1/runs/${runId}/results`);
      const failed = results.body.details.testCases.filter((t: any) => t.status === 'failed');
      expect(failed.map((t: any) => t.name)).to.deep.equal(['GET /items/{itemId}']);
      const failures = failed[0].failures;
      expect(failures).to.have.length(1);
      expect(failures[0]).to.include({ operator: 'matchesSchema', assertion: 'body matches the 200 response schema' });
      expect(failures[0].message).to.match(/price/);
    } finally {
      shop.broken = false;
    }
  });

  it('a re-import reports every test case unchanged and creates no duplicates; a changed description updates in place', async () => {
    const before = await contractCases();
    const again = await runCli(
      [
        'import',
        'openapi',
        specFile,
        '--base-url',
        shop.url,
        '--environment',
        'contract',
        '--runner',
        'contract',
        '--json',
      ],
      { app, cwd: dir },
    );
    expect(again.code, again.stderr).to.equal(0);
    const report = JSON.parse(again.stdout);
    expect(report.counts).to.deep.equal({ created: 0, updated: 0, unchanged: 3, skipped: 1, failed: 0 });
    expect(report.environment.action).to.equal('unchanged');
    expect(report.runner.action).to.equal('unchanged');
    expect((await contractCases()).map((t) => t.id).sort()).to.deep.equal(before.map((t) => t.id).sort());
    // The token set by hand survives the merge patch.
    expect((await app.request('GET', '/v1/environments/contract')).body.variables).to.deep.equal({
      baseUrl: shop.url,
      token: 'secret',
    });

    const changedFile = path.join(dir, 'shop-v2.yaml');
    fs.writeFileSync(changedFile, SPEC.replace('version: "1.0"', 'version: "1.1"'));
    const changed = await runCli(
      ['import', 'openapi', changedFile, '--base-url', shop.url, '--environment', 'contract'],
      { app, cwd: dir },
    );
    expect(changed.code, changed.stderr).to.equal(0);
    expect(changed.stderr).to.match(/0 created, 3 updated, 0 unchanged, 1 skipped/);
    expect((await contractCases()).map((t) => t.id).sort()).to.deep.equal(before.map((t) => t.id).sort());
  });

  it('--dry-run saves nothing and prints the test case documents', async () => {
    const r = await runCli(
      ['import', 'openapi', specFile, '--folder', 'dry/run', '--tags', 'nothing-has-this,items', '--dry-run'],
      { app, cwd: dir },
    );
    expect(r.code, r.stderr).to.equal(0);
    const docs = JSON.parse(r.stdout);
    expect(docs.map((d: any) => d.folder)).to.deep.equal(['dry/run/items', 'dry/run/items', 'dry/run/items']);
    expect(r.stderr).to.match(/Would be: 3 created, 0 updated, 0 unchanged, 0 skipped/);
    expect(r.stderr).to.match(/1 operation left out by --tags/);
    expect((await app.request('GET', '/v1/test-cases?folder=dry')).body.items).to.deep.equal([]);
  });

  it('reads SPEC from a URL and resolves a relative servers[0].url against it', async () => {
    const r = await runCli(
      ['import', 'openapi', `${shop.url}/openapi.yaml`, '--environment', 'from-url', '--dry-run', '--json'],
      { app, cwd: dir },
    );
    expect(r.code, r.stderr).to.equal(0);
    const report = JSON.parse(r.stdout);
    expect(report).to.include({ title: 'Tiny Shop', baseUrl: `${shop.url}/api` });
    expect(report.environment).to.deep.equal({ name: 'from-url', action: 'created', baseUrl: `${shop.url}/api` });
    expect((await app.request('GET', '/v1/environments/from-url')).status).to.equal(404);
    const gone = await runCli(['import', 'openapi', `${shop.url}/nothing.yaml`], { app, cwd: dir });
    expect(gone.code).to.equal(2);
    expect(gone.stderr).to.equal(`assay: ${shop.url}/nothing.yaml could not be fetched: HTTP 404\n`);
  });

  it('a document that is not OpenAPI 3.x, or does not parse, exits 2 with one line naming the file', async () => {
    const swagger = path.join(dir, 'swagger.json');
    fs.writeFileSync(swagger, JSON.stringify({ swagger: '2.0', info: { title: 'old' }, paths: {} }));
    const r1 = await runCli(['import', 'openapi', swagger], { app, cwd: dir });
    expect(r1.code).to.equal(2);
    expect(r1.stderr.trim().split('\n')).to.deep.equal([
      `assay: ${swagger}: Only OpenAPI 3.x documents can be imported (this one says openapi: "2.0")`,
    ]);
    const broken = path.join(dir, 'broken.json');
    fs.writeFileSync(broken, '{"openapi": "3.0.0",\n "info" {}}');
    const r2 = await runCli(['import', 'openapi', broken], { app, cwd: dir });
    expect(r2.code).to.equal(2);
    expect(r2.stderr.trim().split('\n')).to.have.length(1);
    expect(r2.stderr, r2.stderr).to.match(/broken\.json: .*position \d+ \(line 2 column 9\)/);
    const yaml = path.join(dir, 'broken.yaml');
    fs.writeFileSync(yaml, 'openapi: 3.0.0\ninfo:\n  title: x\n   bad: [\n');
    const r3 = await runCli(['import', 'openapi', yaml], { app, cwd: dir });
    expect(r3.code).to.equal(2);
    expect(r3.stderr.trim().split('\n')).to.have.length(1);
    expect(r3.stderr, r3.stderr).to.match(/broken\.yaml: .* at line \d+, column \d+$/m);
    const missing = await runCli(['import', 'openapi', path.join(dir, 'nope.yaml')], { app, cwd: dir });
    expect(missing.code).to.equal(2);
    expect(missing.stderr).to.equal(`assay: ${path.join(dir, 'nope.yaml')}: no such file\n`);
  });

  it('real descriptions (@readme/oas-examples Petstore 3.0, Train Travel 3.1, Star Trek) are accepted by the API whole, and re-import unchanged', async () => {
    const examples = path.resolve(__dirname, '../../../../node_modules/@readme/oas-examples');
    for (const [file, created, skipped] of [
      ['3.0/json/petstore.json', 9, 11],
      ['3.1/json/train-travel.json', 7, 0],
      ['3.0/json/star-trek.json', 120, 0],
    ] as const) {
      const args = ['import', 'openapi', path.join(examples, file), '--folder', `examples/${file}`, '--json'];
      const first = await runCli(args, { app, cwd: dir });
      expect(first.code, first.stderr).to.equal(0);
      expect(JSON.parse(first.stdout).counts, file).to.deep.equal({
        created,
        updated: 0,
        unchanged: 0,
        skipped,
        failed: 0,
      });
      const again = await runCli(args, { app, cwd: dir });
      expect(JSON.parse(again.stdout).counts, file).to.deep.equal({
        created: 0,
        updated: 0,
        unchanged: created,
        skipped,
        failed: 0,
      });
    }
  });

  it('--with-mocks imports the mock designs, and the contract tests pass against the mocks', async () => {
    const r = await runCli(['import', 'openapi', specFile, '--with-mocks', '--json'], { app, cwd: dir });
    expect(r.code, r.stderr).to.equal(0);
    const report = JSON.parse(r.stdout);
    expect(report.mocks.created).to.equal(3);
    expect(report.mocks.skipped.map((s: any) => s.operation)).to.deep.equal(['GET /health']);
    expect(r.stderr).to.match(
      /Mock designs: 3 created, 1 skipped, 0 warnings; mock base URL http:\/\/[^/]+:\d+\/mock\/ws_/,
    );
    // The report names the mocks' own port (the designs' mockUrl), the one runs may call.
    const mockBase = new URL(report.mocks.mockBaseUrl);
    expect(mockBase.pathname).to.equal(`/mock/${app.workspaceId}`);
    expect(mockBase.port).to.equal(new URL(app.api.mockUrl!).port);
    // The worker may not call the API's own port (docs/security.md, address policy rule 2: the
    // service's infrastructure), which answers /mock/… too (the console's "Try it").
    await app.request('POST', '/v1/environments', {
      name: 'mocks-direct',
      variables: { baseUrl: `${app.url}/mock/${app.workspaceId}`, token: 'any' },
    });
    const direct = await runCli(
      ['run', '--runner', 'contract', '--env', 'mocks-direct', '--wait', '--poll-interval', '0.2'],
      { app, cwd: dir },
    );
    expect(direct.code).to.equal(1);
    const why = await failuresOf(direct.stderr);
    expect(why, why).to.match(/ADDRESS_NOT_ALLOWED.*the API's own port/);
    const envRes = await app.request('POST', '/v1/environments', {
      name: 'mocks',
      variables: { baseUrl: report.mocks.mockBaseUrl, token: 'any' },
    });
    expect(envRes.status).to.equal(201);
    const run = await runCli(['run', '--runner', 'contract', '--env', 'mocks', '--wait', '--poll-interval', '0.2'], {
      app,
      cwd: dir,
    });
    expect(run.code, run.stdout + run.stderr + (await failuresOf(run.stderr))).to.equal(0);
  });

  it('test cases over what one run carries go to runners NAME-1 … NAME-n by size; each runs, and passes against the mocks', async () => {
    // 40 operations whose response schemas (300 described properties) make ~1.5 MiB of test cases.
    const properties = Object.fromEntries(
      Array.from({ length: 300 }, (_, i) => [
        `field_${i}`,
        {
          type: 'string',
          example: `value ${i}`,
          description: `The ${i}th field of a wide record, described at length as generated descriptions often are.`,
        },
      ]),
    );
    const paths = Object.fromEntries(
      Array.from({ length: 40 }, (_, i) => [
        `/records${i}/{record-id}`,
        {
          get: {
            parameters: [{ name: 'record-id', in: 'path', required: true, schema: { type: 'string' }, example: 'r1' }],
            responses: {
              '200': {
                description: 'ok',
                content: { 'application/json': { schema: { $ref: '#/components/schemas/Wide' } } },
              },
            },
          },
        },
      ]),
    );
    const wide = path.join(dir, 'wide.json');
    fs.writeFileSync(
      wide,
      JSON.stringify({
        openapi: '3.0.3',
        info: { title: 'Wide', version: '1' },
        paths,
        components: { schemas: { Wide: { type: 'object', properties } } },
      }),
    );
    // A runner of that name an earlier, smaller import made is left as it is.
    expect(
      (await app.request('POST', '/v1/runners', { name: 'wide', folder: 'wide', tags: ['contract'] })).status,
    ).to.equal(201);
    const mockBase = `${app.api.mockUrl}/mock/${app.workspaceId}`;
    const r = await runCli(
      [
        'import',
        'openapi',
        wide,
        '--with-mocks',
        '--runner',
        'wide',
        '--environment',
        'wide',
        '--base-url',
        mockBase,
        '--json',
      ],
      // Runners of at most 1 MiB (the default, 8 MiB, would take one runner: docs/parallel.md).
      { app, cwd: dir, env: { ASSAY_IMPORT_RUNNER_BYTES: String(1024 * 1024) } },
    );
    expect(r.code, r.stderr).to.equal(0);
    const report = JSON.parse(r.stdout);
    expect(report.runner).to.equal(undefined);
    const runners = report.runners as Array<{ name: string; testCases: number; bytes: number }>;
    expect(runners.map((x) => x.name)).to.deep.equal(['wide-1', 'wide-2']);
    expect(runners.reduce((n, x) => n + x.testCases, 0)).to.equal(40);
    for (const x of runners) expect(x.bytes).to.be.at.most(1024 * 1024);
    expect(r.stderr).to.match(/over what one runner holds \(1\.0 MiB\): 2 runners, run each/);
    expect((await app.request('GET', '/v1/runners/wide')).body).to.include({ folder: 'wide' });
    // Hyphenated path parameters are mocked too: every test case passes.
    for (const x of runners) {
      const run = await runCli(['run', '--runner', x.name, '--env', 'wide', '--wait', '--poll-interval', '0.2'], {
        app,
        cwd: dir,
      });
      expect(run.code, run.stderr + (await failuresOf(run.stderr))).to.equal(0);
      const results = (await app.request('GET', `/v1/runs/${runIdOf(run.stderr)}/results`)).body;
      expect(results.summary).to.include({ total: x.testCases, passed: x.testCases });
    }
    // A re-import leaves both runners as they are.
    const again = await runCli(['import', 'openapi', wide, '--runner', 'wide', '--json'], {
      app,
      cwd: dir,
      env: { ASSAY_IMPORT_RUNNER_BYTES: String(1024 * 1024) },
    });
    expect(JSON.parse(again.stdout).runners.map((x: { action: string }) => x.action)).to.deep.equal([
      'unchanged',
      'unchanged',
    ]);
  });

  it('a --json report of MiBs arrives whole through a pipe (the process waits for stdout to drain)', async () => {
    const spec = path.join(dir, 'lob-api.yaml');
    fs.writeFileSync(spec, zlib.gunzipSync(fs.readFileSync(path.join(OPENAPI_FIXTURES, 'lob-api.yaml.gz'))));
    // A dry run without an API key plans from scratch: stdout gets every test case document.
    const r = await runCli(['import', 'openapi', spec, '--dry-run', '--json'], {
      cwd: dir,
      env: { ASSAY_API_KEY: undefined, ASSAY_URL: undefined },
    });
    expect(r.code, r.stderr.slice(-500)).to.equal(0);
    expect(r.stdout.length).to.be.greaterThan(1024 * 1024);
    const report = JSON.parse(r.stdout);
    expect(report.testCases).to.have.length(report.counts.created);
    expect(report.testCases.length).to.be.greaterThan(100);
  });

  // Descriptions nobody here wrote (test/fixtures/openapi/public/SOURCES.md): Twilio's patterns
  // (`^ZS[0-9a-fA-F]{32}$`), Vonage's examples that break their own schemas, Lob's `content` by $ref.
  for (const [file, folder, warned] of [
    ['twilio-serverless-v1.json.gz', 'twilio-serverless', false],
    ['vonage-account.yaml.gz', 'vonage-account', true],
  ] as const) {
    it(`public description ${file}: every contract test passes against the mocks made from it`, async () => {
      const spec = path.join(dir, file.replace(/\.gz$/, ''));
      fs.writeFileSync(spec, zlib.gunzipSync(fs.readFileSync(path.join(OPENAPI_FIXTURES, file))));
      const mockBase = `${app.api.mockUrl}/mock/${app.workspaceId}`;
      const r = await runCli(
        [
          'import',
          'openapi',
          spec,
          '--with-mocks',
          '--folder',
          folder,
          '--runner',
          folder,
          '--environment',
          folder,
          '--base-url',
          mockBase,
          '--json',
        ],
        { app, cwd: dir },
      );
      expect(r.code, r.stderr).to.equal(0);
      const report = JSON.parse(r.stdout);
      expect(report.mocks.created).to.be.greaterThan(5);
      // Vonage's descriptions have oneOf branches no value tells apart: the report names each, and
      // the CLI prints them. (Its examples written as JSON text are read as their values.)
      expect(report.mocks.warnings.length > 0, JSON.stringify(report.mocks.warnings)).to.equal(warned);
      if (warned) expect(r.stderr).to.match(/mock warning: .* its oneOf branches overlap/);
      // Credentials the operations ask for: any value does for the mocks.
      const variables = Object.fromEntries(report.variables.map((v: { name: string }) => [v.name, 'any']));
      if (Object.keys(variables).length)
        expect((await app.request('PATCH', `/v1/environments/${folder}`, { variables })).status).to.equal(200);
      const run = await runCli(['run', '--runner', folder, '--env', folder, '--wait', '--poll-interval', '0.2'], {
        app,
        cwd: dir,
      });
      expect(run.code, run.stderr + (await failuresOf(run.stderr))).to.equal(0);
      const results = (await app.request('GET', `/v1/runs/${runIdOf(run.stderr)}/results`)).body;
      expect(results.summary.total).to.equal(report.testCases.length);
      expect(results.summary.passed).to.equal(report.testCases.length);
    });
  }
});
