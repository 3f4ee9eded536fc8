import { expect } from 'chai';
import { evaluateAssertion, preview, type AssertionContext } from '../../src/domain/assertions';
import type { Assertion } from '../../src/domain/types';

const context: AssertionContext = {
  response: {
    status: 201,
    headers: { 'content-type': 'application/json; charset=utf-8', 'x-count': '3' },
    body: { id: 42, name: 'Ada Lovelace', tags: ['math', 'poetry'], price: 9.5, meta: { ok: true } },
    time: 12.5,
    size: 80,
  },
  variables: { expectedName: 'Ada Lovelace' },
  nodes: {},
};

async function check(
  a: Partial<Assertion> & Pick<Assertion, 'operator'>,
): Promise<{ passed: boolean; message?: string; actual?: unknown }> {
  return evaluateAssertion({ target: 'response.status', ...a } as Assertion, context);
}

describe('assertions (src/domain/assertions)', () => {
  it('status equals and in range', async () => {
    expect((await check({ operator: 'equals', expected: 201 })).passed).to.equal(true);
    const failed = await check({ operator: 'equals', expected: 200 });
    expect(failed.passed).to.equal(false);
    expect(failed.actual).to.equal(201);
    expect(failed.message).to.equal('expected 200 (number), got 201 (number)');
    expect((await check({ operator: 'inRange', expected: [200, 299] })).passed).to.equal(true);
    expect((await check({ operator: 'inRange', expected: [400, 499] })).message).to.equal(
      'expected a value in [400, 499], got 201',
    );
    expect((await check({ operator: 'oneOf', expected: [200, 201] })).passed).to.equal(true);
  });

  it('body paths: equals, notEquals, exists, notExists, contains, comparisons, regex', async () => {
    const cases: Array<[Assertion, boolean]> = [
      [{ target: 'response.body.name', operator: 'equals', expected: 'Ada Lovelace' }, true],
      [{ target: 'response.body.meta', operator: 'equals', expected: { ok: true } }, true],
      [{ target: 'response.body.name', operator: 'notEquals', expected: 'Grace' }, true],
      [{ target: 'response.body.name', operator: 'notEquals', expected: 'Ada Lovelace' }, false],
      [{ target: 'response.body.id', operator: 'exists' }, true],
      [{ target: 'response.body.missing', operator: 'exists' }, false],
      [{ target: 'response.body.missing', operator: 'notExists' }, true],
      [{ target: 'response.body.name', operator: 'contains', expected: 'Love' }, true],
      [{ target: 'response.body.tags', operator: 'contains', expected: 'poetry' }, true],
      [{ target: 'response.body.tags', operator: 'notContains', expected: 'art' }, true],
      [{ target: 'response.body.meta', operator: 'contains', expected: 'ok' }, true],
      [{ target: 'response.body.price', operator: 'greaterThan', expected: 9 }, true],
      [{ target: 'response.body.price', operator: 'lessThan', expected: 9 }, false],
      [{ target: 'response.body.price', operator: 'lessThanOrEqual', expected: 9.5 }, true],
      [{ target: 'response.body.price', operator: 'greaterThanOrEqual', expected: 10 }, false],
      [{ target: 'response.body.name', operator: 'matches', expected: '^Ada' }, true],
      [{ target: 'response.body.name', operator: 'matches', expected: '/^ada/i' }, true],
      [{ target: 'response.body.name', operator: 'matches', expected: '^Grace' }, false],
      [{ target: 'response.headers."content-type"', operator: 'contains', expected: 'json' }, true],
      [{ target: 'response.time', operator: 'lessThan', expected: 1000 }, true],
      [{ target: 'response.body.name = $$.variables.expectedName', operator: 'equals', expected: true }, true],
      [{ target: 'response.body.id', operator: 'isType', expected: 'integer' }, true],
      [{ target: 'response.body.tags', operator: 'isType', expected: 'array' }, true],
    ];
    for (const [assertion, expected] of cases) {
      const result = await evaluateAssertion(assertion, context);
      expect(
        result.passed,
        `${assertion.target} ${assertion.operator} ${JSON.stringify(assertion.expected)}: ${result.message}`,
      ).to.equal(expected);
    }
  });

  it('JSON Schema checks with ajv, naming what failed', async () => {
    const ok = await evaluateAssertion(
      {
        target: 'response.body',
        operator: 'matchesSchema',
        expected: { type: 'object', required: ['id', 'name'], properties: { id: { type: 'integer' } } },
      },
      context,
    );
    expect(ok.passed).to.equal(true);
    const bad = await evaluateAssertion(
      {
        target: 'response.body',
        operator: 'matchesSchema',
        expected: { type: 'object', properties: { id: { type: 'string' } }, required: ['email'] },
      },
      context,
    );
    expect(bad.passed).to.equal(false);
    expect(bad.message).to.contain("must have required property 'email'");
    expect(bad.message).to.contain('/id must be string');
    const draft2020 = await evaluateAssertion(
      {
        target: 'response.body.tags',
        operator: 'matchesSchema',
        expected: {
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          type: 'array',
          prefixItems: [{ const: 'math' }],
        },
      },
      context,
    );
    expect(draft2020.passed).to.equal(true);
  });

  it('a bad expression is a failed assertion with the reason, not a throw', async () => {
    const result = await evaluateAssertion({ target: 'response.body.(', operator: 'exists' }, context);
    expect(result.passed).to.equal(false);
    expect(result.message).to.match(/position/);
  });

  it('comparisons on non-numbers fail with a clear message', async () => {
    const result = await evaluateAssertion(
      { target: 'response.body.name', operator: 'greaterThan', expected: 3 },
      context,
    );
    expect(result.passed).to.equal(false);
    expect(result.message).to.equal('expected a number, got "Ada Lovelace" (string)');
  });

  it('preview cuts long values visibly: the first characters, then …(cut, N chars), never half a surrogate pair', () => {
    expect(preview('a'.repeat(500), 500)).to.equal('a'.repeat(500));
    expect(preview('a'.repeat(501), 500)).to.equal(`${'a'.repeat(500)}…(cut, 501 chars)`);
    expect(preview({ list: 'b'.repeat(600) }, 500)).to.equal(
      `${JSON.stringify({ list: 'b'.repeat(600) }).slice(0, 500)}…(cut, 611 chars of JSON)`,
    );
    expect(preview({ short: true }, 500)).to.deep.equal({ short: true });
    expect(preview(12345, 2)).to.equal(12345);
    expect(preview(`${'x'.repeat(499)}😀tail`, 500)).to.equal(`${'x'.repeat(499)}…(cut, 505 chars)`);
  });
});
