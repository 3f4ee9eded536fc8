import { expect } from 'chai';
import { fillTemplate, fillTemplates, type DynamicSources } from '../../src/domain/templating';

const dynamic: DynamicSources = {
  uuid: () => '00000000-0000-4000-8000-000000000000',
  now: () => 1_700_000_000_123,
  random: () => 0.5,
};

describe('{{variable}} templating (src/domain/templating)', () => {
  it('fills known variables as text and keeps unknown names as written', () => {
    const vars = { base: 'http://h', id: 7, on: true };
    expect(fillTemplate('{{base}}/users/{{ id }}?on={{on}}&x={{unknown}}', vars, dynamic)).to.equal(
      'http://h/users/7?on=true&x={{unknown}}',
    );
  });

  it('fills names with spaces, slashes and backslashes, as Postman variable names may have them', () => {
    const vars = { 'my var': 'MV', 'a/b': 'AB', 'a\\b': 'ABS', 'x-y.z': 'dots', ünï: 'u' };
    expect(fillTemplate('{{my var}}|{{a/b}}|{{a\\b}}|{{x-y.z}}|{{ünï}}|{{ my var }}', vars, dynamic)).to.equal(
      'MV|AB|ABS|dots|u|MV',
    );
    // Empty braces and unknown odd names stay as written.
    expect(fillTemplate('{{}}{{ }}{{no such/var}}', vars, dynamic)).to.equal('{{}}{{ }}{{no such/var}}');
  });

  it('a variable named with the spaces around it wins over the trimmed name (Postman reads it so)', () => {
    expect(fillTemplate('{{ sp }}|{{sp}}', { ' sp ': 'exact', sp: 'trimmed' }, dynamic)).to.equal('exact|trimmed');
    expect(fillTemplate('{{ sp }}', { sp: 'trimmed' }, dynamic)).to.equal('trimmed');
  });

  it('is case-sensitive', () => {
    expect(fillTemplate('{{Name}}', { name: 'a' }, dynamic)).to.equal('{{Name}}');
  });

  it('fills dynamic values from the given sources', () => {
    expect(fillTemplate('{{$guid}} {{$timestamp}} {{$isoTimestamp}} {{$randomInt}}', {}, dynamic)).to.equal(
      '00000000-0000-4000-8000-000000000000 1700000000 2023-11-14T22:13:20.123Z 500',
    );
    expect(fillTemplate('{{$nope}}', {}, dynamic)).to.equal('{{$nope}}');
  });

  it('a variable named like a dynamic value wins over it', () => {
    expect(fillTemplate('{{$guid}}', { $guid: 'mine' }, dynamic)).to.equal('mine');
  });

  it('fills strings (and keys) inside JSON bodies and leaves other values alone', () => {
    const body = { '{{k}}': '{{v}}', n: 1, list: ['{{v}}', null, false], nested: { s: 'x-{{v}}' } };
    expect(fillTemplates(body, { k: 'key', v: 'val' }, dynamic)).to.deep.equal({
      key: 'val',
      n: 1,
      list: ['val', null, false],
      nested: { s: 'x-val' },
    });
  });
});
