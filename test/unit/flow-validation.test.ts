import { expect } from 'chai';
import { assignNodeIds, validateFlow } from '../../src/validation/flow';
import type { FlowNode } from '../../src/domain/types';

const api = (extra: Record<string, unknown> = {}) => ({ type: 'api', request: { method: 'GET', url: 'http://x' }, ...extra });

describe('flow validation (src/validation/flow)', () => {
  it('accepts a valid flow', () => {
    expect(validateFlow([api({ assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }] })])).to.deep.equal([]);
  });

  it('names the field at fault', () => {
    const issues = validateFlow([api(), { type: 'api', request: { method: 'FETCH', url: '' } }]);
    const paths = issues.map((i) => i.path.join('.'));
    expect(paths).to.include('flow.1.request.method');
    expect(paths).to.include('flow.1.request.url');
  });

  it('rejects unknown node types and unknown fields', () => {
    expect(validateFlow([{ type: 'teleport' }]).map((i) => i.path.join('.'))).to.include('flow.0.type');
    const unknownField = validateFlow([api({ colour: 'red' })]);
    expect(unknownField).to.deep.include({ path: ['flow', 0, 'colour'], message: 'is not a known field' });
  });

  it('rejects a node id used twice', () => {
    const issues = validateFlow([api({ id: 'a' }), api({ id: 'a' })]);
    expect(issues).to.deep.equal([{ path: ['flow', 1, 'id'], message: '"a" is already the id of the node at flow.0' }]);
  });

  it('rejects expressions that do not parse, bad regexes, unsafe regexes, bad schemas, missing expected', () => {
    const issues = validateFlow([
      api({
        assertions: [
          { target: 'response.status = ', operator: 'exists' },
          { target: 'response.body.name', operator: 'matches', expected: '(' },
          { target: 'response.body.name', operator: 'matches', expected: '(a+)+$' },
          { target: 'response.body', operator: 'matchesSchema', expected: { type: 'nonsense' } },
          { target: 'response.status', operator: 'equals' },
          { target: 'response.status', operator: 'inRange', expected: [300, 200] },
        ],
      }),
    ]);
    const byPath = Object.fromEntries(issues.map((i) => [i.path.join('.'), i.message]));
    expect(byPath['flow.0.assertions.0.target']).to.contain('not a valid JSONata expression');
    expect(byPath['flow.0.assertions.1.expected']).to.contain('not a valid regular expression');
    expect(byPath['flow.0.assertions.2.expected']).to.contain('backtrack');
    expect(byPath['flow.0.assertions.3.expected']).to.contain('not a valid JSON Schema');
    expect(byPath['flow.0.assertions.4.expected']).to.equal('is required for equals');
    expect(byPath['flow.0.assertions.5.expected']).to.contain('[min, max]');
  });

  it('gives nodes without an id one that is not taken', () => {
    const flow = assignNodeIds([api(), api({ id: 'n1' }), api()] as unknown as FlowNode[]);
    expect(flow.map((n) => n.id)).to.deep.equal(['n2', 'n1', 'n3']);
  });
});
