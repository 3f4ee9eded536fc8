/**
 * The pure rules behind the input bounds (docs/security.md "Input limits"): JSON depth and lone surrogates, schema loops,
 * Temporal's cron rules, design paths with dot segments, mock sample caps.
 */
import { expect } from 'chai';
import { illFormedString, MAX_JSON_DEPTH, schemaLoop, tooDeep } from '../../src/validation/json-limits';
import { temporalCronProblem } from '../../src/temporal/cron';
import { parsePath } from '../../src/mock/paths';
import { SampleError, sampleFromSchema } from '../../src/mock/samples';

const nest = (n: number): unknown => {
  let v: unknown = [];
  for (let i = 1; i < n; i++) v = [v];
  return v;
};

describe('input limits', () => {
  describe('tooDeep', () => {
    it('accepts MAX_JSON_DEPTH levels and points at the first level beyond', () => {
      expect(MAX_JSON_DEPTH).to.equal(31);
      expect(tooDeep(nest(31))).to.equal(null);
      expect(tooDeep(nest(32))).to.deep.equal(new Array(31).fill(0));
      expect(tooDeep({ a: { b: nest(30) } })).to.deep.equal(['a', 'b', ...new Array(29).fill(0)]);
      expect(tooDeep('text')).to.equal(null);
    });
    it('walks 100,000 levels without overflowing the stack', () => {
      expect(tooDeep(JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`))).to.have.length(31);
    });
    it('counts a cyclic value as too deep', () => {
      const a: Record<string, unknown> = {};
      a.self = a;
      expect(tooDeep(a)).to.have.length(31);
    });
  });

  it('illFormedString finds lone surrogates in values and keys, not pairs', () => {
    expect(illFormedString({ a: ['ok', '😀'] })).to.equal(null);
    expect(illFormedString({ a: ['ok', 'x\ud800y'] })).to.deep.equal(['a', 1]);
    expect(illFormedString({ ['\udc00']: 1 })).to.deep.equal(['\udc00']);
  });

  describe('schemaLoop', () => {
    it('finds in-place loops', () => {
      expect(schemaLoop({ $ref: '#' })).to.match(/refers back to itself/);
      expect(schemaLoop({ anyOf: [{ type: 'string' }, { allOf: [{ $ref: '#' }] }] })).to.match(/refers back/);
      expect(
        schemaLoop({
          $defs: { a: { $ref: '#/$defs/b' }, b: { not: { $ref: '#/$defs/a' } } },
          properties: { x: { $ref: '#/$defs/a' } },
        }),
      ).to.match(/refers back/);
    });
    it('accepts recursion through properties and items, and unresolved or remote refs', () => {
      expect(
        schemaLoop({ type: 'object', properties: { children: { type: 'array', items: { $ref: '#' } } } }),
      ).to.equal(null);
      expect(schemaLoop({ $ref: 'https://example.com/s.json' })).to.equal(null);
      expect(schemaLoop({ $ref: '#/nowhere' })).to.equal(null);
      expect(schemaLoop(true)).to.equal(null);
    });
    it('bounds the work on a schema whose references fan out', () => {
      const defs: Record<string, unknown> = {};
      for (let i = 0; i < 40; i++)
        defs[`d${i}`] = { allOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }] };
      defs.d40 = { type: 'string' };
      const started = schemaLoop({ $defs: defs, $ref: '#/$defs/d0' });
      expect(started).to.match(/too large to check/);
    });
  });

  describe("temporalCronProblem (Temporal's calendar.go rules)", () => {
    for (const ok of [
      '* * * * *',
      '*/15 9-17 * * mon-fri',
      '0 0 1 jan,jul *',
      '0 12 * * 7',
      '5/10 * * * *',
      '0 0 1-31/2 * SUNDAY',
      '0,30 * * sept *',
      '+5 * * * *',
    ]) {
      it(`accepts "${ok}"`, () => expect(temporalCronProblem(ok)).to.equal(null));
    }
    for (const [bad, why] of [
      ['0 0 ? * *', /day-of-month: "\?"/],
      ['0 0 * * ?', /day-of-week/],
      ['0 0 L * *', /day-of-month/],
      ['0 0 * * 1#2', /day-of-week/],
      ['*/0 * * * *', /step 0/],
      ['0 0 5-1 * *', /range/],
      ['0 0 1-2-3 * *', /not a range/],
      ['0 0 * * 8', /out of range/],
      ['60 * * * *', /minute/],
      ['0 0 * ja *', /month/],
      ['0 0 * * m', /day-of-week/],
      ['0 0 1/2/3 * *', /more than one \//],
      ['0 0 , * *', /day-of-month/],
      ['0 0 * *', /five fields/],
    ] as const) {
      it(`refuses "${bad}"`, () => expect(temporalCronProblem(bad)).to.match(why));
    }
  });

  it('parsePath refuses dot segments, plain and percent-encoded, and keeps dots inside segments', () => {
    for (const p of ['/../../etc/x', '/a/./b', '/a/..', '/%2e%2E/x', '/a/%2e'])
      expect(parsePath(p))
        .to.have.property('error')
        .that.match(/dot segment/);
    expect(parsePath('/files/v1.2/a..b/.well-known')).to.include({ path: '/files/v1.2/a..b/.well-known' });
  });

  describe('sampleFromSchema caps', () => {
    const refused = (schema: object): SampleError => {
      try {
        sampleFromSchema(schema);
      } catch (err) {
        expect(err).to.be.instanceOf(SampleError);
        return err as SampleError;
      }
      throw new Error('not refused');
    };
    it('refuses huge minItems and minLength naming the keyword, before sampling', () => {
      const e = refused({
        type: 'object',
        properties: { list: { type: 'array', minItems: 1e8, items: { type: 'integer' } } },
      });
      expect(e).to.include({ status: 422, code: 'sample-too-large' });
      expect(e.path).to.deep.equal(['properties', 'list', 'minItems']);
      expect(refused({ type: 'string', minLength: 1e9 }).path).to.deep.equal(['minLength']);
    });
    it('refuses samples that multiply past 1 MiB', () => {
      expect(
        refused({ type: 'array', minItems: 1000, items: { type: 'array', minItems: 1000, items: { type: 'integer' } } })
          .code,
      ).to.equal('sample-too-large');
    });
    it('samples within the caps, resolving $refs against the schema', () => {
      expect(
        sampleFromSchema({
          type: 'array',
          minItems: 3,
          items: { $ref: '#/$defs/n' },
          $defs: { n: { type: 'integer', example: 7 } },
        }),
      ).to.deep.equal([7, 7, 7]);
    });
  });
});
