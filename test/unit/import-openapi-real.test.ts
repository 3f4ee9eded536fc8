/**
 * What real descriptions (test/fixtures/openapi/public/SOURCES.md) needed of the OpenAPI import
 * (docs/import-openapi.md "Big descriptions" and "When the description contradicts itself"):
 * YAML anchors shared widely (Langfuse), path parameters named with `-` or `.` (Chargebee's
 * `{subscription-id}`), schemas whose inlined copy grows exponentially (Elasticsearch), and
 * test cases too many for one run's plan (runners split by size).
 */
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { RUNNER_PLAN_BUDGET, runnerPlanBudget, splitByBytes } from '../../cli/commands/import-openapi';
import { contractTestsFromOpenApi } from '../../cli/importers/openapi';
import { designsFromOpenApi, parseOpenApi } from '../../src/mock/openapi';
import { toJsonSchema } from '../../src/mock/openapi-schema';
import { parsePath } from '../../src/mock/paths';
import { schemaLoop, tooDeep } from '../../src/validation/json-limits';
import { OPENAPI_FIXTURES } from '../helpers/openapi-contract';
import { evaluateAssertion, type AssertionContext } from '../../src/domain/assertions';
import type { ApiNode, Assertion } from '../../src/domain/types';

/** Runs a matchesSchema assertion the way a run does, against `body`. */
async function matches(schema: unknown, body: unknown): Promise<boolean> {
  const context = { response: { status: 200, headers: {}, body, time: 1, size: 1 }, variables: {}, nodes: {} };
  return (
    await evaluateAssertion(
      { target: 'response.body', operator: 'matchesSchema', expected: schema } as Assertion,
      context as unknown as AssertionContext,
    )
  ).passed;
}

const fixture = (file: string) => zlib.gunzipSync(fs.readFileSync(path.join(OPENAPI_FIXTURES, file))).toString('utf8');

describe('OpenAPI import: what real descriptions need', () => {
  it('reads a description sharing parts through 155 YAML aliases, and still refuses entity expansion', () => {
    const doc = parseOpenApi(fixture('langfuse-api.yaml.gz'));
    expect(Object.keys(doc.paths as object).length).to.be.greaterThan(50);
    let laughs = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n';
    let previous = 'a';
    for (let i = 0; i < 9; i++) {
      laughs += `n${i}: &n${i} [${Array(9).fill(`*${previous}`).join(',')}]\n`;
      previous = `n${i}`;
    }
    expect(() => parseOpenApi(`openapi: 3.0.0\n${laughs}`)).to.throw(/resource exhaustion/);
  });

  it('parses path parameters named with - and ., routing them under positional names', () => {
    const parsed = parsePath('/subscriptions/{subscription-id}/items/{item.id}.json');
    expect(parsed).to.deep.include({
      path: '/subscriptions/{subscription-id}/items/{item.id}.json',
      params: ['subscription-id', 'item.id'],
      routeKey: '/subscriptions/{}/items/{}.json',
      routerPath: '/subscriptions/:__p0/items/:__p1.json',
      routerNames: { __p0: 'subscription-id', __p1: 'item.id' },
    });
    expect(parsePath('/users/{userId}')).to.not.have.property('routerNames');
  });

  it("imports a mock for every one of Chargebee's operations with hyphenated parameters", () => {
    const doc = parseOpenApi(fixture('chargebee-v1.yaml.gz'));
    const hyphenated = Object.keys(doc.paths as object).filter((p) => /\{[^}]*-[^}]*\}/.test(p));
    expect(hyphenated.length).to.be.greaterThan(20);
    const { designs, skipped } = designsFromOpenApi(doc);
    expect(skipped.filter((s) => /\{[^}]*-/.test(s.operation))).to.deep.equal([]);
    const paths = new Set(designs.map((d) => d.path));
    for (const p of hyphenated) expect(paths.has(p), p).to.equal(true);
  });

  it("keeps an exponentially inlining schema's components under $defs: small, shallow, checkable", () => {
    // Each level's three properties refer to the next: 3^30 copies when inlined.
    const schemas: Record<string, unknown> = { L30: { type: 'string' } };
    for (let i = 0; i < 30; i++)
      schemas[`L${i}`] = {
        type: 'object',
        properties: Object.fromEntries(['a', 'b', 'c'].map((k) => [k, { $ref: `#/components/schemas/L${i + 1}` }])),
      };
    const doc = {
      openapi: '3.0.3',
      info: { title: 'Fan-out', version: '1' },
      paths: {
        '/fan': {
          post: {
            requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/L0' } } } },
            responses: {
              '200': {
                description: 'ok',
                content: { 'application/json': { schema: { $ref: '#/components/schemas/L0' } } },
              },
            },
          },
        },
      },
      components: { schemas },
    };
    const started = performance.now();
    const { designs } = designsFromOpenApi(doc);
    const plan = contractTestsFromOpenApi(doc);
    // Bounded: the exponential copy would never finish (a generous bound for a busy 2-core machine).
    expect(performance.now() - started).to.be.below(30_000);
    const design = designs[0]!;
    expect(JSON.stringify(design.requestSchema).length).to.be.below(20_000);
    expect(Object.keys((design.requestSchema as { $defs: object }).$defs)).to.have.length(31);
    expect(tooDeep(design)).to.equal(null);
    expect(schemaLoop(design.requestSchema)).to.equal(null);
    expect(tooDeep(plan.testCases[0]!.body)).to.equal(null);
  });

  it("a parent whose oneOf lists subtypes that extend it (Okta's signing keys): imported, the back reference accepting anything", async () => {
    const doc = {
      openapi: '3.0.3',
      info: { title: 'Keys', version: '1' },
      paths: {
        '/keys': {
          post: {
            requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Key' } } } },
            responses: {
              '201': {
                description: 'made',
                content: { 'application/json': { schema: { $ref: '#/components/schemas/Key' } } },
              },
            },
          },
        },
      },
      components: {
        schemas: {
          Key: {
            type: 'object',
            properties: { kid: { type: 'string' } },
            discriminator: { propertyName: 'kty' },
            oneOf: [{ $ref: '#/components/schemas/EcKey' }, { $ref: '#/components/schemas/RsaKey' }],
          },
          EcKey: {
            allOf: [{ $ref: '#/components/schemas/Key' }],
            type: 'object',
            required: ['kty', 'x'],
            properties: { kty: { type: 'string', enum: ['EC'] }, x: { type: 'string' } },
          },
          RsaKey: {
            allOf: [{ $ref: '#/components/schemas/Key' }],
            type: 'object',
            required: ['kty', 'e'],
            properties: { kty: { type: 'string', enum: ['RSA'] }, e: { type: 'string' } },
          },
        },
      },
    };
    // Before: the mock import overflowed ajv's stack (500) and the contract test was skipped.
    const { designs, skipped } = designsFromOpenApi(doc);
    expect(skipped).to.deep.equal([]);
    expect(designs).to.have.length(1);
    const plan = contractTestsFromOpenApi(doc);
    expect(plan.skipped).to.deep.equal([]);
    const tc = plan.testCases[0]!;
    expect(tc.notes.join('\n')).to.match(/refers back to itself .* accepts anything/);
    const schema = (tc.body.flow[0] as ApiNode).assertions!.find((a) => a.operator === 'matchesSchema')!.expected;
    expect(schemaLoop(schema)).to.equal(null);
    expect(await matches(schema, { kid: 'k1', kty: 'EC', x: 'abc' })).to.equal(true);
    expect(await matches(schema, { kid: 'k1', kty: 'EC' })).to.equal(false);
  });

  it("reads examples written as JSON text (Elasticsearch's) as the values they hold, unless the schema is a string", () => {
    const json = (schema: object, example: unknown) => ({ content: { 'application/json': { schema, example } } });
    const doc = {
      openapi: '3.0.3',
      info: { title: 'Text', version: '1' },
      paths: {
        '/search': {
          post: {
            requestBody: json({ type: 'object', properties: { size: { type: 'integer' } } }, '{\n  "size": 5\n}'),
            responses: { '200': { description: 'ok', ...json({ type: 'object' }, '{"took": 3}') } },
          },
        },
        '/raw': {
          post: {
            requestBody: json({ type: 'string' }, '{"kept": "as text"}'),
            responses: { '200': { description: 'ok', ...json({ type: 'string' }, '[1, 2]') } },
          },
        },
      },
    };
    const plan = contractTestsFromOpenApi(doc);
    const body = (op: string) => (plan.testCases.find((t) => t.operation === op)!.body.flow[0] as ApiNode).request.body;
    expect(body('POST /search')).to.deep.equal({ size: 5 });
    expect(body('POST /raw')).to.equal(JSON.stringify('{"kept": "as text"}'));
    const { designs } = designsFromOpenApi(doc);
    const data = (p: string) => designs.find((d) => d.path === p)!.responses[0]!.data;
    expect(data('/search')).to.deep.equal({ took: 3 });
    expect(data('/raw')).to.equal('[1, 2]');
  });

  it('reads an empty enum (Discord writes them; JSON Schema refuses them) as no enum, saying so', () => {
    const converted = toJsonSchema(
      { type: 'object', properties: { action: { type: 'string', enum: [] } } },
      {
        openapi: '3.1.0',
      },
    );
    expect((converted.schema.properties as Record<string, object>).action).to.deep.equal({ type: 'string' });
    expect(converted.notes.join('\n')).to.match(/enum listed no values.*read as no enum \(at \/properties\/action\)/);
  });

  it('cuts test cases into runners of at most RUNNER_PLAN_BUDGET bytes, in order', () => {
    const mib = RUNNER_PLAN_BUDGET / 1024 / 1024;
    const items = [0.6, 0.5, 0.1, 0.9, 0.3].map((share, i) => ({ item: i, bytes: share * mib * 1024 * 1024 }));
    expect(splitByBytes(items, RUNNER_PLAN_BUDGET)).to.deep.equal([[0], [1, 2], [3], [4]]);
    expect(splitByBytes([{ item: 'big', bytes: 2 * RUNNER_PLAN_BUDGET }], RUNNER_PLAN_BUDGET)).to.deep.equal([['big']]);
    expect(splitByBytes([], RUNNER_PLAN_BUDGET)).to.deep.equal([]);
    // ASSAY_IMPORT_RUNNER_BYTES sets a smaller part, never a larger one.
    expect(runnerPlanBudget({ ASSAY_IMPORT_RUNNER_BYTES: '1048576' })).to.equal(1024 * 1024);
    expect(runnerPlanBudget({ ASSAY_IMPORT_RUNNER_BYTES: String(64 * 1024 * 1024) })).to.equal(RUNNER_PLAN_BUDGET);
    expect(runnerPlanBudget({ ASSAY_IMPORT_RUNNER_BYTES: 'lots' })).to.equal(RUNNER_PLAN_BUDGET);
  });
});
