/**
 * Tests and mocks made from one description agree (docs/import-openapi.md "Mocks", docs/mocks.md
 * "OpenAPI import"): an operation that documents only a range (`2XX`, OpenAPI 3.1 §4.8.16.2) gets a
 * mock answering the range's first status, which its contract test accepts (`inRange [200, 299]`),
 * and an explicit status of the class wins over the range; a request body whose schema says
 * `example: null` (an empty `example:` in YAML) is sent as a sample of the schema, not as `null`,
 * unless the schema allows null.
 */
import { expect } from 'chai';
import type { ApiNode } from '../../src/domain/types';
import { designsFromOpenApi } from '../../src/mock/openapi';
import { contractTestsFromOpenApi } from '../../cli/importers/openapi';

type Json = Record<string, unknown>;
const doc = (paths: Json): Json => ({ openapi: '3.0.3', info: { title: 'Agreement', version: '1' }, paths });
const json = (schema: Json) => ({ content: { 'application/json': { schema } } });

describe('OpenAPI import: tests and mocks agree', () => {
  it('mocks an operation that documents only 2XX with 200, and prefers an explicit status of the class', () => {
    const result = designsFromOpenApi(
      doc({
        '/only-range': {
          get: {
            responses: {
              '2XX': {
                description: 'fine',
                ...json({ type: 'object', properties: { ok: { type: 'boolean', example: true } } }),
              },
            },
          },
        },
        '/both': {
          get: {
            responses: {
              '2XX': { description: 'range', ...json({ type: 'string', example: 'range' }) },
              '201': { description: 'made', ...json({ type: 'string', example: 'explicit' }) },
            },
          },
        },
      }),
    );
    const byPath = Object.fromEntries(result.designs.map((d) => [d.path, d]));
    expect(byPath['/only-range']!.responses.map((r) => r.status)).to.deep.equal([200]);
    expect(byPath['/only-range']!.responses[0]!.data).to.deep.equal({ ok: true });
    expect(byPath['/both']!.responses.map((r) => [r.status, r.data])).to.deep.equal([[201, 'explicit']]);
    expect(result.skipped).to.deep.equal([]);
    // The contract test of the range-only operation accepts what the mock answers.
    const plan = contractTestsFromOpenApi(
      doc({ '/only-range': { get: { responses: { '2XX': { description: 'fine' } } } } }),
      {},
    );
    const node = plan.testCases[0]!.body.flow[0] as ApiNode;
    const status = node.assertions!.find((a) => a.target === 'response.status')!;
    expect(status).to.include({ operator: 'inRange' });
    expect(status.expected).to.deep.equal([200, 299]);
  });

  it('sends a sample for a request body whose schema example is null, and null only when the schema allows it', () => {
    const schema = {
      type: 'object',
      example: null,
      required: ['name'],
      properties: { name: { type: 'string', example: 'Ann' } },
    };
    const body = (s: Json) => {
      const plan = contractTestsFromOpenApi(
        doc({
          '/users': {
            post: { requestBody: { required: true, ...json(s) }, responses: { '201': { description: 'made' } } },
          },
        }),
        {},
      );
      return (plan.testCases[0]!.body.flow[0] as ApiNode).request.body;
    };
    expect(body(schema)).to.deep.equal({ name: 'Ann' });
    expect(body({ ...schema, nullable: true })).to.equal(null);
  });
});
