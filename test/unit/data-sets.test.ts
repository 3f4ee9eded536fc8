import { expect } from 'chai';
import { dataSetRows } from '../../src/validation/data-sets';
import { referencedNodeIds, truthy } from '../../src/domain/expressions';
import { fillTemplate } from '../../src/domain/templating';
import { statusMatches } from '../../activities/nodes';
import { ulidFrom } from '../../src/domain/ulid';

describe('data sets, truthiness, references, templates of objects, retry statuses', () => {
  it('parses CSV with a header row; strings by default, numbers and booleans with cast', () => {
    const csv = 'id,name,active\n1,Ada,true\n2,"Grace, H.",false\n';
    expect(dataSetRows({ name: 'x', type: 'csv', csv })).to.deep.equal([
      { id: '1', name: 'Ada', active: 'true' },
      { id: '2', name: 'Grace, H.', active: 'false' },
    ]);
    expect(dataSetRows({ name: 'x', type: 'csv', csv, cast: true })).to.deep.equal([
      { id: 1, name: 'Ada', active: true },
      { id: 2, name: 'Grace, H.', active: false },
    ]);
    expect(dataSetRows({ name: 'x', type: 'json', data: [{ a: 1 }] })).to.deep.equal([{ a: 1 }]);
  });

  it('follows JSONata truthiness', () => {
    for (const v of [undefined, null, false, 0, '', [], [0, ''], {}])
      expect(truthy(v), JSON.stringify(v)).to.equal(false);
    for (const v of [true, 1, 'x', [0, 1], { a: 1 }]) expect(truthy(v), JSON.stringify(v)).to.equal(true);
  });

  it('finds the node ids an expression reads', () => {
    expect(referencedNodeIds('nodes.login.response.body.token & nodes.me.response.status').sort()).to.deep.equal([
      'login',
      'me',
    ]);
    expect(referencedNodeIds('variables.nodes')).to.deep.equal([]);
    expect(referencedNodeIds('nodes.(')).to.deep.equal([]);
  });

  it('templates read fields of object variables and write objects as JSON', () => {
    const dyn = { uuid: () => 'u', now: () => 0, random: () => 0 };
    expect(
      fillTemplate('{{user.name}}/{{user.tags}}/{{user.missing}}', { user: { name: 'Ada', tags: ['a'] } }, dyn),
    ).to.equal('Ada/["a"]/{{user.missing}}');
    expect(fillTemplate('{{a.b}}', { 'a.b': 'flat wins', a: { b: 'nested' } }, dyn)).to.equal('flat wins');
  });

  it('matches retry statuses by number or class', () => {
    expect(statusMatches(503, [429, '5xx'])).to.equal(true);
    expect(statusMatches(429, [429, '5xx'])).to.equal(true);
    expect(statusMatches(404, [429, '5xx'])).to.equal(false);
  });
});

describe('ULIDs made in workflow code', () => {
  it('have the format and the time of the ulid package', async () => {
    const { decodeTime, isValid } = await import('ulid');
    const id = ulidFrom(1_795_259_137_543, () => 0.5);
    expect(isValid(id)).to.equal(true);
    expect(decodeTime(id)).to.equal(1_795_259_137_543);
    expect(ulidFrom(1, () => 0)).to.equal('00000000010000000000000000');
  });
});
