/**
 * The format assertion operators (src/domain/formats.ts): each with values that hold and values
 * that do not, through `evaluateAssertion` as flows use them, and their validation when saved.
 */
import { expect } from 'chai';
import { evaluateAssertion } from '../../src/domain/assertions';
import type { Assertion } from '../../src/domain/types';
import { validateFlow } from '../../src/validation/flow';

async function holds(operator: Assertion['operator'], value: unknown): Promise<{ passed: boolean; message?: string }> {
  return evaluateAssertion(
    { target: 'variables.v', operator },
    {
      response: { headers: {}, time: 0, size: 0 },
      variables: { v: value } as never,
      nodes: {},
    },
  );
}

const CASES: Record<string, { yes: unknown[]; no: unknown[] }> = {
  isEmail: {
    yes: ['ada@example.com', 'first.last+tag@sub.example.co.uk', "o'brien@example.org", 'user@localhost'],
    no: [
      'ada',
      'ada@',
      '@example.com',
      'a b@example.com',
      'ada@-example.com',
      'ada@example..com',
      '"q"@example.com',
      42,
    ],
  },
  isUrl: {
    yes: [
      'https://example.com',
      'http://user:pw@example.com:8080/a/b?x=1&y=%20#frag',
      'ftp://[2001:db8::1]/file',
      'custom+scheme://host',
      'http://127.0.0.1:3000/',
    ],
    no: [
      'example.com',
      '/relative/path',
      'mailto:ada@example.com',
      'localhost:8080',
      'http://',
      'http://exa mple.com',
      'https://example.com/%zz',
      '1http://x',
      null,
    ],
  },
  isUuid: {
    yes: [
      '123e4567-e89b-12d3-a456-426614174000',
      'F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6',
      '00000000-0000-0000-0000-000000000000',
      'ffffffff-ffff-ffff-ffff-ffffffffffff',
    ],
    no: [
      '123e4567e89b12d3a456426614174000',
      '{123e4567-e89b-12d3-a456-426614174000}',
      '123e4567-e89b-12d3-a456-42661417400g',
      'urn:uuid:123e4567-e89b-12d3-a456-426614174000',
      '',
    ],
  },
  isIso8601: {
    yes: [
      '2026-11-20',
      '2026-11-20T09:30:00Z',
      '2026-11-20t09:30:00.512z',
      '2026-11-20T09:30:00+01:00',
      '2024-02-29T23:59:60Z',
      '2026-11-20 09:30:00-05:30',
    ],
    no: [
      '2026-11-20T09:30',
      '2026-13-01',
      '2023-02-29',
      '2026-04-31',
      '2026-11-20T24:00:00Z',
      '2026-11-20T09:30:00',
      '20261120',
      'yesterday',
      1732095000,
    ],
  },
  isJson: {
    yes: ['{"a":1}', '[1,2]', '"text"', '42', 'null', ' true '],
    no: ['{a:1}', "{'a':1}", '', 'undefined', '[1,]', { a: 1 }, 42],
  },
};

describe('format assertion operators', () => {
  for (const [operator, { yes, no }] of Object.entries(CASES)) {
    describe(operator, () => {
      for (const value of yes)
        it(`holds for ${JSON.stringify(value)}`, async () => {
          const r = await holds(operator as Assertion['operator'], value);
          expect(r.passed, r.message).to.equal(true);
        });
      for (const value of no)
        it(`does not hold for ${JSON.stringify(value)}, saying why`, async () => {
          const r = await holds(operator as Assertion['operator'], value);
          expect(r.passed).to.equal(false);
          expect(r.message).to.match(/^expected (an? |a string)/);
        });
    });
  }

  it('names the reason a date is refused', async () => {
    expect((await holds('isIso8601', '2023-02-29')).message).to.contain('day 29 does not exist in 2023-02');
    expect((await holds('isJson', { a: 1 })).message).to.equal('expected a string of JSON text, got an object');
  });

  it('runs in linear time on long hostile input', async () => {
    const started = Date.now();
    for (const op of ['isEmail', 'isUrl'] as const) await holds(op, `http://${'a@'.repeat(20_000)}!`);
    await holds('isEmail', `${'a'.repeat(50_000)}@${'a-'.repeat(20_000)}`);
    expect(Date.now() - started).to.be.below(1000);
  });

  it('are saved without `expected`, and refuse one naming the field', () => {
    const flow = (expected?: unknown) => [
      {
        type: 'assert',
        id: 'a',
        assertions: [{ target: 'variables.v', operator: 'isUuid', ...(expected === undefined ? {} : { expected }) }],
      },
    ];
    expect(validateFlow(flow())).to.deep.equal([]);
    expect(validateFlow(flow('uuid'))).to.deep.equal([
      { path: ['flow', 0, 'assertions', 0, 'expected'], message: 'is not taken by isUuid (remove it)' },
    ]);
  });
});
