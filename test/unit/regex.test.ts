/**
 * User regular expressions run on RE2 (linear time; docs/security.md "Regular expressions"). The
 * ReDoS patterns below take seconds (doubling with each character) on a backtracking engine; here they must
 * complete at all within the test timeout (no timing threshold). Patterns RE2 cannot run are
 * refused when a flow is saved, naming the field.
 */
import { expect } from 'chai';
import { evaluateAssertion, type AssertionContext } from '../../src/domain/assertions';
import { checkExpression, evaluateExpression } from '../../src/domain/expressions';
import { checkRegex, LinearRegExp } from '../../src/domain/regex';
import { validateFlow } from '../../src/validation/flow';
import type { Assertion } from '../../src/domain/types';

// 34 characters: a backtracking engine needs about 2^33 steps (minutes) to fail these.
const evil = `${'a'.repeat(33)}!`;
const context = (body: unknown): AssertionContext => ({
  response: { status: 200, headers: {}, body, time: 1, size: 1 },
  variables: {},
  nodes: {},
});
const assert = (a: Partial<Assertion>, body: unknown) =>
  evaluateAssertion({ target: 'response.body', ...a } as Assertion, context(body));
const api = (assertions: unknown[]) => ({ type: 'api', request: { method: 'GET', url: 'http://x' }, assertions });
const byPath = (issues: Array<{ path: Array<string | number>; message: string }>) =>
  Object.fromEntries(issues.map((i) => [i.path.join('.'), i.message]));

describe('regular expressions on RE2 (src/domain/regex)', function () {
  this.timeout(20_000);

  it('matches with ^(a|a)*$ on a long non-matching string completes, and still matches what it should', async () => {
    const bad = await assert({ operator: 'matches', expected: '^(a|a)*$' }, evil);
    expect(bad.passed).to.equal(false);
    expect(bad.message).to.contain('to match /^(a|a)*$/');
    expect((await assert({ operator: 'matches', expected: '^(a|a)*$' }, 'aaaa')).passed).to.equal(true);
    expect((await assert({ operator: 'matches', expected: '/^ADA$/i' }, 'ada')).passed).to.equal(true);
    expect((await assert({ operator: 'matches', expected: '^\\d{3}-(?<tail>\\w+)$' }, '123-abc')).passed).to.equal(
      true,
    );
  });

  it('a matchesSchema pattern of ^(a+)+$ completes (ajv runs patterns on RE2), patternProperties too', async () => {
    const bad = await assert({ operator: 'matchesSchema', expected: { type: 'string', pattern: '^(a+)+$' } }, evil);
    expect(bad.passed).to.equal(false);
    expect(bad.message).to.contain('must match pattern');
    expect(
      (await assert({ operator: 'matchesSchema', expected: { type: 'string', pattern: '^(a+)+$' } }, 'aaa')).passed,
    ).to.equal(true);
    const props = await assert(
      {
        operator: 'matchesSchema',
        expected: { type: 'object', patternProperties: { '^(a|a)*$': { type: 'number' } } },
      },
      { [evil]: 'x', aa: 'y' },
    );
    expect(props.passed).to.equal(false);
    expect(props.message).to.contain('/aa must be number');
  });

  it('JSONata regex literals ($match, $replace, $contains, $split, ~>) run on RE2', async () => {
    const s = { s: evil };
    expect(await evaluateExpression('$contains(s, /^(a|aa)+$/)', s)).to.equal(false);
    expect(await evaluateExpression('$match(s, /^((a+)+)+$/)', s)).to.equal(undefined);
    expect(await evaluateExpression('s ~> $replace(/(a|a)*!/, "x")', s)).to.equal('x');
    expect(await evaluateExpression('$match("x ab@cd e@f", /(\\w+)@(\\w+)/)', {})).to.deep.equal([
      { match: 'ab@cd', index: 2, groups: ['ab', 'cd'] },
      { match: 'e@f', index: 8, groups: ['e', 'f'] },
    ]);
    expect(await evaluateExpression('$replace("xAbyab", /a(b)/i, "[$1]")', {})).to.equal('x[b]y[b]');
    expect(await evaluateExpression('$split("a, b,c", /,\\s*/)', {})).to.deep.equal(['a', 'b', 'c']);
  });

  it("a zero-length match still stops with JSONata's D1004, not a loop", async () => {
    let error: unknown;
    try {
      await evaluateExpression('$match("abc", /x*/)', {});
    } catch (err) {
      error = err;
    }
    expect((error as { code?: string }).code).to.equal('D1004');
  });

  it('refuses what RE2 cannot run: backreferences, lookaround, bad flags, huge programs', () => {
    expect(checkRegex('(a)\\1')).to.contain('backreferences are not supported');
    expect(checkRegex('(?<n>a)\\k<n>')).to.contain('backreferences');
    expect(checkRegex('a(?=b)')).to.contain('lookahead and lookbehind are not supported');
    expect(checkRegex('(?<!b)a')).to.contain('lookahead and lookbehind');
    expect(checkRegex('a', 'x')).to.contain('unknown flag');
    expect(checkRegex('((a{100}){100}){10}')).to.match(/too large|invalid repeat/);
    expect(checkRegex('^[a-z]+\\.(com|org)$', 'i')).to.equal(null);
    expect(() => new LinearRegExp('(a)\\2')).to.throw(/backreferences/);
  });

  it('a flow with a backreference, a lookahead schema pattern or a backreference regex literal is refused, naming the field', () => {
    const issues = byPath(
      validateFlow([
        api([
          { target: 'response.body.name', operator: 'matches', expected: '^(a)\\1$' },
          { target: 'response.body', operator: 'matchesSchema', expected: { type: 'string', pattern: '^a(?!b)' } },
          { target: '$match(response.body.name, /(x)\\1/)', operator: 'exists' },
          { target: 'response.body.name', operator: 'matches', expected: '^(a|a)*$' },
        ]),
      ]),
    );
    expect(issues['flow.0.assertions.0.expected']).to.contain('backreferences are not supported');
    expect(issues['flow.0.assertions.1.expected']).to.contain('lookahead and lookbehind are not supported');
    expect(issues['flow.0.assertions.2.target']).to.contain('backreferences are not supported');
    expect(issues).to.not.have.property('flow.0.assertions.3.expected');
    expect(checkExpression('$match(s, /(?<=a)b/)')?.message).to.contain('lookahead and lookbehind');
  });
});
