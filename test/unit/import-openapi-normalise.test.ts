/**
 * Contract tests (cli/importers/openapi.ts) from descriptions whose schemas a strict validator
 * refuses (docs/import-openapi.md "What is normalised, what is skipped and why";
 * test/fixtures/openapi/strict-schemas.yaml): every planned test case is one the API accepts
 * (src/validation/flow.ts), its matchesSchema means what the description meant, and an operation
 * whose schema still cannot be checked is skipped with the reason.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { evaluateAssertion, type AssertionContext } from '../../src/domain/assertions';
import type { ApiNode, Assertion } from '../../src/domain/types';
import { contractTestsFromOpenApi } from '../../cli/importers/openapi';
import { parseOpenApi } from '../../src/mock/openapi';
import { validateFlow } from '../../src/validation/flow';

const FIXTURE = path.resolve(__dirname, '../../../test/fixtures/openapi/strict-schemas.yaml');

/** Runs a matchesSchema assertion the way a run does, against `body`. */
async function matches(schema: unknown, body: unknown): Promise<boolean> {
  const context: AssertionContext = {
    response: { status: 200, headers: {}, body, time: 1, size: 1 },
    variables: {},
    nodes: {},
  };
  return (
    await evaluateAssertion(
      { target: 'response.body', operator: 'matchesSchema', expected: schema } as Assertion,
      context,
    )
  ).passed;
}

const schemaOf = (node: ApiNode) => node.assertions!.find((a) => a.operator === 'matchesSchema')!.expected;

describe('OpenAPI import: schemas a strict validator refuses (contract tests)', () => {
  const plan = contractTestsFromOpenApi(parseOpenApi(fs.readFileSync(FIXTURE, 'utf8')));
  const tc = (operation: string) => plan.testCases.find((t) => t.operation === operation)!;
  const node = (operation: string) => tc(operation).body.flow[0] as ApiNode;

  it('plans a test case the API accepts for every operation but the one whose schema is no JSON Schema', () => {
    expect(plan.testCases.map((t) => t.operation)).to.include.members([
      'GET /health',
      'POST /orders',
      'POST /quantities',
      'POST /colours',
      'POST /schemas',
      'POST /logins',
    ]);
    for (const t of plan.testCases) expect(validateFlow(t.body.flow, ['flow'], []), t.operation).to.deep.equal([]);
    const broken = plan.skipped.find((s) => s.operation === 'POST /broken');
    expect(broken?.reason).to.match(/^the 200 response schema cannot be checked \(.+\)$/);
  });

  it('exclusiveMinimum: true with minimum 5 refuses 5 and accepts 6', async () => {
    const schema = schemaOf(node('POST /quantities'));
    expect(await matches(schema, { quantity: 5 })).to.equal(false);
    expect(await matches(schema, { quantity: 6 })).to.equal(true);
    expect(await matches(schema, { quantity: 10 })).to.equal(true);
  });

  it('duplicate enum and required items are removed, with a note on the test case', async () => {
    const schema = schemaOf(node('POST /colours'));
    expect(await matches(schema, { colour: 'red' })).to.equal(true);
    expect(await matches(schema, { colour: 'blue' })).to.equal(false);
    expect(await matches(schema, {})).to.equal(false);
    expect(tc('POST /colours').notes.join('\n')).to.match(/response schema: enum listed 1 item\(s\) twice/);
    expect(tc('POST /colours').notes.join('\n')).to.match(/response schema: required listed 1 item\(s\) twice/);
  });

  it('OpenAPI 3.1 descriptions with 3.0 booleans and JSON Schema documents as examples are normalised too', async () => {
    const doc = {
      openapi: '3.1.0',
      info: { title: 'T', version: '1' },
      paths: {
        '/n': {
          get: {
            responses: {
              '200': {
                description: 'ok',
                content: {
                  'application/json': {
                    schema: {
                      type: 'object',
                      properties: {
                        n: { type: 'number', maximum: 3, exclusiveMaximum: true },
                        a: { type: 'object', examples: [{ $id: 'https://example.com/s' }] },
                        b: { type: 'object', examples: [{ $id: 'https://example.com/s' }] },
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
    const p = contractTestsFromOpenApi(doc);
    expect(p.skipped).to.deep.equal([]);
    const t = p.testCases[0]!;
    expect(validateFlow(t.body.flow, ['flow'], [])).to.deep.equal([]);
    const schema = schemaOf(t.body.flow[0] as ApiNode);
    expect(await matches(schema, { n: 3 })).to.equal(false);
    expect(await matches(schema, { n: 2.9 })).to.equal(true);
    expect(t.notes.join('\n')).to.match(
      /exclusiveMaximum: true with maximum 3 \(OpenAPI 3\.0\) became exclusiveMaximum: 3/,
    );
  });
});
