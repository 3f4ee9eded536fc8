/**
 * The bundler's naming rules (src/bundler/names.ts; docs/bundler.md "Global name"): detection from
 * the URL shapes of the common CDNs, the identifier check and the names scripts rely on, pinned
 * versions, and the bare-specifier rule of src/bundler/build.ts.
 */
import { expect } from 'chai';
import { accessPathProblem, detectGlobalName, globalNameProblem, isPinned } from '../../src/bundler/names';
import { bareSpecifierUrl } from '../../src/bundler/build';

describe('bundler names', () => {
  it('detects the package name from the URL shapes of esm.sh, jsDelivr, unpkg, jspm and plain hosts', () => {
    const cases: Array<[string, string | undefined]> = [
      ['https://esm.sh/lodash-es@4.17.21', 'lodashEs'],
      ['https://esm.sh/v135/date-fns@3.6.0/es2022/date-fns.mjs', 'dateFns'],
      ['https://esm.sh/lodash-es', 'lodashEs'],
      ['https://cdn.jsdelivr.net/npm/@faker-js/faker@9.8.0/+esm', 'faker'],
      ['https://cdn.jsdelivr.net/npm/lodash-es/+esm', 'lodashEs'],
      ['https://unpkg.com/ky@1.7.3/distribution/index.js', 'ky'],
      ['https://unpkg.com/@turf/distance@7.4.0/dist/esm/index.js', 'distance'],
      ['https://ga.jspm.io/npm:preact@10.24.3/dist/preact.module.js', 'preact'],
      ['https://example.com/static/js/my-lib.min.js', 'myLib'],
      ['https://example.com/3d-tools/index.mjs', '_3dTools'],
      ['https://example.com/', undefined],
      ['https://example.com/dist/index.js', undefined],
    ];
    for (const [url, name] of cases) expect(detectGlobalName(new URL(url)), url).to.equal(name);
  });

  it('accepts identifiers and dotted paths; refuses other text, reserved words and the sandbox globals', () => {
    for (const ok of ['myLib', 'acme.utils', '$lib', '_internal', 'dayjs', 'CryptoJS', 'a.default'])
      expect(globalNameProblem(ok), ok).to.equal(undefined);
    const refused: Array<[string, string]> = [
      ['my-lib', 'not an identifier'],
      ['1lib', 'not an identifier'],
      ['a..b', 'not an identifier'],
      ['a.', 'not an identifier'],
      ['', 'not an identifier'],
      ['class', 'reserved word'],
      ['default.x', 'reserved word'],
      ['_', 'already a global'],
      ['faker', 'already a global'],
      ['luxon.extra', 'already a global'],
      ['JSON', 'already a global'],
      ['fetch', 'already a global'],
      ['$context', 'already a global'],
      ['globalThis', 'already a global'],
    ];
    for (const [name, why] of refused) expect(globalNameProblem(name), name).to.contain(why);
  });

  it('checks defaultAccessPath as a dotted path of property names', () => {
    expect(accessPathProblem('default')).to.equal(undefined);
    expect(accessPathProblem('default.utils')).to.equal(undefined);
    expect(accessPathProblem('default[0]')).to.contain('not a property name');
  });

  it('calls a URL pinned only when it names an exact version', () => {
    expect(isPinned(new URL('https://esm.sh/lodash-es@4.17.21'))).to.equal(true);
    expect(isPinned(new URL('https://cdn.jsdelivr.net/npm/@faker-js/faker@9.8.0/+esm'))).to.equal(true);
    expect(isPinned(new URL('https://esm.sh/react@19.0.0-rc.1/es2022/react.mjs'))).to.equal(true);
    expect(isPinned(new URL('https://esm.sh/lodash-es'))).to.equal(false);
    expect(isPinned(new URL('https://esm.sh/lodash-es@4'))).to.equal(false);
    expect(isPinned(new URL('https://esm.sh/lodash-es@latest'))).to.equal(false);
    expect(isPinned(new URL('https://esm.sh/lodash-es@^4.17.0'))).to.equal(false);
  });

  it('resolves bare imports against the importing CDN', () => {
    expect(
      bareSpecifierUrl('@turf/helpers', new URL('https://unpkg.com/@turf/distance@7.4.0/dist/esm/index.js')),
    ).to.equal('https://unpkg.com/@turf/helpers');
    expect(bareSpecifierUrl('react', new URL('https://cdn.jsdelivr.net/npm/react-dom@19.0.0/+esm'))).to.equal(
      'https://cdn.jsdelivr.net/npm/react/+esm',
    );
    expect(bareSpecifierUrl('react', new URL('https://esm.sh/react-dom@19.0.0'))).to.equal('https://esm.sh/react');
  });
});
