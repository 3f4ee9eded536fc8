/**
 * `POST /v1/designs/import` of a description whose schemas a strict validator refuses
 * (docs/import-openapi.md "What is normalised, what is skipped and why";
 * test/fixtures/openapi/strict-schemas.yaml): what has an unambiguous meaning is imported
 * normalised, and the mock validates requests by it; an operation that still cannot be taken is
 * skipped with its reason, and every other operation is imported.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { readReply, startTestApp, type Reply, type TestApp } from '../../helpers/app';

const FIXTURE = path.resolve(__dirname, '../../../../test/fixtures/openapi/strict-schemas.yaml');

describe('OpenAPI import: normalised schemas, skipped operations', function () {
  this.timeout(60_000);
  let app: TestApp;
  let answer: Reply;

  before(async () => {
    app = await startTestApp({ dialect: 'sqlite' });
    answer = await app.request('POST', '/v1/designs/import', { document: fs.readFileSync(FIXTURE, 'utf8') });
  });
  after(async () => {
    await app?.stop();
  });

  const post = async (p: string, body: unknown): Promise<Reply> =>
    readReply(
      await fetch(`${app.url}/mock/${app.workspaceId}${p}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    );

  it('imports every operation but the one that cannot be taken, and names it with its reason', () => {
    expect(answer.status, JSON.stringify(answer.body).slice(0, 1000)).to.equal(201);
    const created = (answer.body.created as Array<{ method: string; path: string }>).map(
      (d) => `${d.method} ${d.path}`,
    );
    expect(created).to.have.members([
      'GET /health',
      'POST /orders',
      'POST /quantities',
      'POST /colours',
      'POST /schemas',
      'POST /logins',
      'POST /bulk',
    ]);
    const skipped = answer.body.skipped as Array<{ operation: string; reason: string }>;
    expect(skipped.map((s) => s.operation)).to.have.members(['POST /broken']);
    expect(skipped.find((s) => s.operation === 'POST /broken')!.reason).to.match(
      /requestSchema is not a valid JSON Schema: .*regular expression/i,
    );
  });

  it('a request schema of 27,000 subschemas once its references are followed is stored with its components under $defs, and checked', async () => {
    const design = (await app.request('GET', '/v1/designs?limit=50')).body.items.find(
      (d: { path: string }) => d.path === '/bulk',
    );
    expect(JSON.stringify(design.requestSchema).length).to.be.below(20_000);
    expect(design.requestSchema.$defs).to.have.keys('Level1', 'Level2', 'Level3');
    expect((await post('/bulk', { a01: { b01: { c01: 'x' } } })).status).to.equal(204);
    const wrong = await post('/bulk', { a01: 'not an object' });
    expect(wrong.status).to.equal(422);
    expect(JSON.stringify(wrong.body.violations)).to.match(/a01/);
  });

  it('says what it normalised, operation by operation', () => {
    const changes = answer.body.normalised as Array<{ operation: string; change: string }>;
    const of = (operation: string) => changes.filter((c) => c.operation === operation).map((c) => c.change);
    expect(of('POST /quantities')).to.include(
      'requestSchema: exclusiveMinimum: true with minimum 5 (OpenAPI 3.0) became exclusiveMinimum: 5 (at /properties/quantity)',
    );
    expect(of('POST /colours').join('\n')).to.match(/requestSchema: enum listed 1 item\(s\) twice/);
    expect(of('POST /colours').join('\n')).to.match(/requestSchema: required listed 1 item\(s\) twice/);
    expect(of('POST /schemas').join('\n')).to.match(/requestSchema: the example holds an \$id/);
    expect(of('POST /logins').join('\n')).to.match(/pattern "\^\[\\\\w-\.\]\+\$" is not valid with ECMA-262's u flag/);
    expect(of('GET /health')).to.deep.equal([]);
  });

  it('OpenAPI 3.0 exclusiveMinimum: true with minimum 5 refuses 5 and accepts 6; exclusiveMaximum: false keeps 10 in', async () => {
    const five = await post('/quantities', { quantity: 5 });
    expect(five.status, JSON.stringify(five.body)).to.equal(422);
    expect(five.body.code).to.equal('mock-request-invalid');
    expect((await post('/quantities', { quantity: 6 })).status).to.equal(200);
    expect((await post('/quantities', { quantity: 10 })).status).to.equal(200);
    expect((await post('/quantities', { quantity: 11 })).status).to.equal(422);
  });

  it('an enum with a duplicate still allows its values and only them; a required property listed twice is required', async () => {
    expect((await post('/colours', { colour: 'red' })).status).to.equal(200);
    expect((await post('/colours', { colour: 'green' })).status).to.equal(200);
    expect((await post('/colours', { colour: 'blue' })).status).to.equal(422);
    expect((await post('/colours', {})).status).to.equal(422);
  });

  it('examples holding an $id are left out of the stored schema; the operation answers', async () => {
    const designs = await app.request('GET', '/v1/designs?path=/schemas');
    const stored = JSON.stringify(designs.body.items[0].requestSchema);
    expect(stored).not.to.include('$id');
    expect((await post('/schemas', { input: { type: 'object' } })).status).to.equal(200);
  });

  it('patterns valid in ECMA-262 without the u flag are checked as written', async () => {
    expect((await post('/logins', { login: 'a-b.c_d' })).status).to.equal(200);
    expect((await post('/logins', { login: 'a b' })).status).to.equal(422);
    expect((await post('/logins', { login: 'ok', code: '-12' })).status).to.equal(200);
    expect((await post('/logins', { login: 'ok', code: '12' })).status).to.equal(422);
  });

  it('a normal operation answers as before', async () => {
    expect((await post('/orders', { sku: 'A1' })).status).to.equal(201);
    expect((await post('/orders', {})).status).to.equal(422);
  });
});
