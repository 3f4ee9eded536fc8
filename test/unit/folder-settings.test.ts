/** What folders add to a test case's definition when a run freezes its plan (src/store/folder-settings.ts). */
import { expect } from 'chai';
import { folderChain, withFolderSettings } from '../../src/store/folder-settings';
import type { Folder } from '../../src/store/entities';
import type { TestCaseDefinition } from '../../src/domain/types';

const folder = (path: string, hooks: string | null, authProfile: string | null = null) =>
  ({ path, hooks: hooks === null ? null : { code: hooks }, authProfile }) as Folder;
const definition = (folderPath: string): TestCaseDefinition => ({
  id: 'tc_1',
  name: 'one',
  folder: folderPath,
  tags: [],
  flow: [],
  dataSets: {},
});

describe('folder settings in a frozen plan', () => {
  it('lists the folders a test case is under, outermost first', () => {
    expect(folderChain('a/b/c')).to.deep.equal(['a', 'a/b', 'a/b/c']);
    expect(folderChain('')).to.deep.equal([]);
  });

  it('gives the hooks of the folders at or above the test case, outermost first, and the nearest auth profile', () => {
    const folders = [
      folder('a/b', '// b', 'inner'),
      folder('a', '// a', 'outer'),
      folder('a/b/c', null),
      folder('ab', '// not a parent'),
      folder('a/b/d', '// a sibling'),
    ];
    expect(withFolderSettings(definition('a/b/c'), folders)).to.deep.include({
      folderHooks: [{ code: '// a' }, { code: '// b' }],
      folderAuthProfile: 'inner',
    });
    expect(withFolderSettings(definition('a'), folders)).to.deep.include({
      folderHooks: [{ code: '// a' }],
      folderAuthProfile: 'outer',
    });
  });

  it('leaves a definition untouched when no folder applies', () => {
    const plain = definition('elsewhere');
    expect(withFolderSettings(plain, [folder('a', '// a', 'p')])).to.deep.equal(plain);
    expect(withFolderSettings(plain, [])).to.equal(plain);
  });
});
