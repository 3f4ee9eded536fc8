/**
 * Mocks that satisfy their own schema (src/mock/conforming.ts, src/mock/openapi.ts, src/mock/paths.ts;
 * docs/mocks.md "OpenAPI import"): samples repaired where openapi-sampler breaks the schema,
 * examples that break theirs repaired and reported, partial-segment paths, and the contract tests
 * `assay import openapi` makes from public descriptions passing against the mocks made from them.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { conformSample, generateFromSchema, schemaErrors } from '../../src/mock/conforming';
import { designsFromOpenApi } from '../../src/mock/openapi';
import { toJsonSchema } from '../../src/mock/openapi-schema';
import { parsePath } from '../../src/mock/paths';
import { sampleFromSchema } from '../../src/mock/samples';
import { contractAgainstMocks, OPENAPI_FIXTURES } from '../helpers/openapi-contract';

type Json = Record<string, unknown>;

const ACCOUNT = {
  type: 'object',
  required: ['sid', 'uri', 'kind', 'tags'],
  properties: {
    sid: { type: 'string', pattern: '^AC[0-9a-fA-F]{32}$', example: 'AC-not-a-sid' },
    uri: { type: 'string', format: 'uri' },
    created: { type: 'string', format: 'date-time' },
    id: { type: 'string', format: 'uuid' },
    email: { type: 'string', format: 'email' },
    code: { type: 'string', minLength: 12, maxLength: 12 },
    kind: {
      oneOf: [
        {
          type: 'object',
          required: ['a'],
          additionalProperties: false,
          properties: { a: { type: 'integer', minimum: 5, multipleOf: 5 } },
        },
        { type: 'string', enum: ['plain'] },
      ],
    },
    tags: { type: 'array', minItems: 2, uniqueItems: true, items: { type: 'string', enum: ['a', 'b', 'c'] } },
    ratio: { type: 'number', minimum: 0, maximum: 1, exclusiveMinimum: true },
    child: { $ref: '#/components/schemas/Account' },
  },
};
const DOC: Json = { openapi: '3.0.3', components: { schemas: { Account: ACCOUNT } } };
const REF = { $ref: '#/components/schemas/Account' };

describe('samples that satisfy their own schema (src/mock/conforming)', () => {
  const checked = toJsonSchema(REF, DOC, { response: true }).schema;

  it("openapi-sampler's sample breaks the schema; the conformed one validates, keeping what was right", () => {
    const sampled = sampleFromSchema(REF, DOC) as Json;
    expect(schemaErrors(sampled, checked)).to.not.deep.equal([]);
    const conformed = conformSample(sampled, checked);
    expect(conformed.errors).to.deep.equal([]);
    expect(conformed.valid).to.equal(true);
    expect(schemaErrors(conformed.value, checked)).to.deep.equal([]);
    const value = conformed.value as Json;
    expect(value.sid).to.match(/^AC[0-9a-fA-F]{32}$/);
    expect(conformed.replaced).to.include('/sid');
    // Valid values of the sampler stay as they were.
    expect(value.email).to.equal(sampled.email);
    expect(value.created).to.equal(sampled.created);
  });

  it('is deterministic: the same schema gives the same sample', () => {
    const a = conformSample(sampleFromSchema(REF, DOC), checked).value;
    const b = conformSample(sampleFromSchema(REF, DOC), checked).value;
    expect(a).to.deep.equal(b);
  });

  it('generates from keywords alone: patterns, formats, bounds, enums, oneOf, uniqueItems', () => {
    const value = generateFromSchema(checked) as Json;
    expect(schemaErrors(value, checked)).to.deep.equal([]);
    expect(value.code).to.have.length(12);
    expect(new Set(value.tags as string[]).size).to.equal((value.tags as string[]).length);
    for (const [format, schema] of Object.entries({
      date: { type: 'string', format: 'date' },
      ipv6: { type: 'string', format: 'ipv6' },
      hostname: { type: 'string', format: 'hostname' },
      byte: { type: 'string', format: 'byte' },
      duration: { type: 'string', format: 'duration' },
      int32: { type: 'integer', format: 'int32', minimum: 3000000000 },
    }))
      expect(schemaErrors(generateFromSchema(schema), schema), format).to.have.length(format === 'int32' ? 1 : 0);
  });

  it('tells overlapping oneOf branches apart by a property only the other branch constrains', () => {
    const overlapping = {
      oneOf: [
        { type: 'object', properties: { a: { type: 'string' } } },
        { type: 'object', properties: { b: { type: 'string' } } },
      ],
    };
    const result = conformSample({}, overlapping);
    expect(result.errors).to.deep.equal([]);
    expect(result.value).to.deep.equal({ a: 'string', b: 0 });
  });

  it("chooses null for oneOf [string, nullable string] (Elasticsearch's 'a string or null'): only null matches one branch", () => {
    const schema = {
      type: 'object',
      required: ['reason'],
      properties: { reason: { oneOf: [{ type: 'string' }, { type: ['string', 'null'] }] } },
    };
    const out = conformSample({ reason: 'disk full' }, schema);
    expect(out.valid).to.equal(true);
    expect(out.value).to.deep.equal({ reason: null });
  });

  it('says what it could not satisfy: contradictory keywords, oneOf branches no value tells apart', () => {
    // InfluxData's: `required` on an array holds vacuously, so every array matches both branches.
    const vacuous = { type: 'array', oneOf: [{ required: ['a'] }, { required: ['b'] }] };
    const result = conformSample([], vacuous);
    expect(result.valid).to.equal(false);
    expect(result.errors.join()).to.match(/must match exactly one schema in oneOf/);
    expect(conformSample('x', { type: 'string', minLength: 5, maxLength: 2 }).valid).to.equal(false);
  });
});

describe('the OpenAPI mock import (src/mock/openapi)', () => {
  const doc = (paths: Json): Json => ({
    openapi: '3.0.3',
    info: { title: 't', version: '1' },
    paths,
    components: DOC.components,
  });
  const ok = (content: Json) => ({ get: { responses: { '200': { description: 'ok', content } } } });

  it('serves the documented media type; JSON types first, as the contract test picks', () => {
    const result = designsFromOpenApi(
      doc({
        '/a': ok({ 'application/scim+json': { schema: REF } }),
        '/b': ok({ 'text/plain': { schema: { type: 'string' } }, 'application/json': { schema: REF } }),
        '/c': ok({ 'application/xml': { schema: { type: 'string' } } }),
        '/d': ok({ 'application/json': { schema: REF } }),
      }),
    );
    const typeOf = (p: string) => result.designs.find((d) => d.path === p)!.responses[0]!.headers?.['content-type'];
    expect([typeOf('/a'), typeOf('/b'), typeOf('/c'), typeOf('/d')]).to.deep.equal([
      'application/scim+json',
      undefined,
      'application/xml',
      undefined,
    ]);
    expect(result.warnings).to.deep.equal([]);
  });

  it('repairs an example that breaks its own schema and says so; a valid one is served as written', () => {
    const result = designsFromOpenApi(
      doc({
        '/bad': ok({
          'application/json': {
            schema: { type: 'object', properties: { n: { type: 'integer' } } },
            example: { n: 'x', m: 1 },
          },
        }),
        '/good': ok({
          'application/json': { schema: { type: 'object' }, examples: { one: { value: { any: 'thing' } } } },
        }),
      }),
    );
    expect(result.warnings).to.have.length(1);
    expect(result.warnings[0]!.operation).to.equal('GET /bad 200');
    expect(result.warnings[0]!.reason).to.match(
      /example does not match its own schema \(\/n must be integer\); the mock serves it with \/n made to match/,
    );
    expect(result.designs.find((d) => d.path === '/bad')!.responses[0]!.data).to.deep.equal({ n: 1, m: 1 });
    expect(result.designs.find((d) => d.path === '/good')!.responses[0]!.data).to.deep.equal({ any: 'thing' });
  });

  it('a fragment tells operations apart in some descriptions: the first takes the route, the next are skipped saying so', () => {
    const result = designsFromOpenApi(doc({ '/files/{id}': ok({}), '/files/{id}#shared_link': ok({}) }));
    expect(result.designs.map((d) => d.path)).to.deep.equal(['/files/{id}']);
    expect(result.skipped).to.deep.equal([
      {
        operation: 'GET /files/{id}#shared_link',
        reason:
          'the same route as GET /files/{id}, imported first (the part after # is never sent: the mock answers with that operation)',
      },
    ]);
  });
});

describe('design paths (src/mock/paths)', () => {
  it('takes a parameter within a segment when text starting with . or - follows, and literal colons', () => {
    expect(parsePath('/Accounts/{Sid}.json')).to.deep.include({
      params: ['Sid'],
      routeKey: '/Accounts/{}.json',
      routerPath: '/Accounts/:Sid.json',
    });
    expect(parsePath('/near/{lat}-{lng}')).to.deep.include({ params: ['lat', 'lng'], routerPath: '/near/:lat-:lng' });
    expect(parsePath('/v1/{name}/levels:append')).to.deep.include({ routerPath: '/v1/:name/levels::append' });
  });

  it('refuses what find-my-way would read otherwise, naming the segment', () => {
    expect(parsePath('/a/{x}{y}')).to.deep.equal({
      error:
        'segment "{x}{y}": a parameter within a segment must be followed by text starting with . or - (as in {Sid}.json)',
    });
    expect(parsePath('/a/{id}abc'))
      .to.have.property('error')
      .that.matches(/followed by text starting with \. or -/);
    expect(parsePath('/a/{id}.{id}')).to.deep.equal({ error: 'uses the parameter {id} twice' });
    expect(parsePath('/a/{1x}.json'))
      .to.have.property('error')
      .that.matches(/a parameter is written \{name\}/);
    expect(parsePath('/a/*')).to.deep.equal({ error: 'segment "*" may not contain *' });
  });
});

describe('contract tests of public descriptions against their own mocks (test/fixtures/openapi/public)', function () {
  this.timeout(120_000);
  // A spread of vendors and traits; the whole set (46 descriptions) is bench/openapi-contract.ts's.
  const files = [
    'twilio-api-v2010.json.gz', // {Sid}.json paths, patterns, relative URIs in examples
    'lob-api.yaml.gz', // `content` by $ref, prefixed ids
    'xero-payroll-uk.yaml.gz', // uuids, dates
    'meilisearch-api.json.gz', // oneOf, 3.1
    'vonage-verify.yaml.gz', // examples written as JSON text, oneOf branches that overlap
    'onfido-api.yaml.gz', // overlapping oneOf branches
  ];
  it('at least 99.5 % pass; each failure is explained by the import report', async () => {
    let operations = 0;
    let passed = 0;
    const unexplained: string[] = [];
    for (const file of files) {
      const text = zlib.gunzipSync(fs.readFileSync(path.join(OPENAPI_FIXTURES, file))).toString('utf8');
      const outcome = await contractAgainstMocks(text);
      operations += outcome.operations;
      passed += outcome.passed;
      for (const f of outcome.failures)
        if (!f.explainedBy) unexplained.push(`${file} ${f.operation}: ${f.why.join('; ')}`);
    }
    expect(unexplained, unexplained.join('\n')).to.deep.equal([]);
    expect(operations).to.be.greaterThan(500);
    expect(passed / operations).to.be.at.least(0.995);
  });
});
