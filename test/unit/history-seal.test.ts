/**
 * Secret values sealed inside Temporal payloads (src/secrets/history-seal.ts, docs/codec.md
 * "Secrets in histories"): every form the masker knows is replaced by a token that opens back to
 * exactly what it replaced, numbers included; the codec server's view shows `***`; a token of
 * another workspace's ring does not open.
 */
import { expect } from 'chai';
import { KeyRing, parseSecretKeys } from '../../src/secrets/keyring';
import {
  HistorySealer,
  historySecretRing,
  maskSealedSecrets,
  openSealedSecrets,
  SEALED_SECRET_PREFIX,
} from '../../src/secrets/history-seal';

const root = new KeyRing(parseSecretKeys(`k1:${Buffer.alloc(32, 3).toString('base64')}`));
const ringA = historySecretRing(root, 'ws_A');
const ringB = historySecretRing(root, 'ws_B');
const SECRET = 'p@ss w"rd/+=1';

describe('secrets sealed in history payloads', () => {
  const sealer = new HistorySealer([SECRET, '987654', 'abc']);

  it('seals the value and each of its forms in strings and keys, and opens back to the same document', () => {
    const basic = Buffer.from(`ann:${SECRET}`).toString('base64');
    const doc = {
      url: `https://x.example/?t=${encodeURIComponent(SECRET)}&b=${Buffer.from(SECRET).toString('base64url')}`,
      headers: { Authorization: `Basic ${basic}`, 'X-Token': SECRET },
      body: JSON.stringify({ password: SECRET }),
      list: [SECRET, 'plain', 1, true, null],
      [`key-${SECRET}`]: 'in a key',
      pin: 987654,
      other: 98765,
      short: 'abc stays',
    };
    const text = JSON.stringify(doc);
    const sealed = sealer.sealJson(text, ringA)!;
    expect(sealed).to.be.a('string');
    for (const form of [
      SECRET,
      encodeURIComponent(SECRET),
      Buffer.from(SECRET).toString('base64url'),
      basic,
      JSON.stringify(SECRET).slice(1, -1),
    ])
      expect(sealed, form).not.to.include(form);
    expect(sealed).not.to.include('987654');
    const parsed = JSON.parse(sealed) as Record<string, unknown>;
    expect(parsed.pin)
      .to.be.a('string')
      .that.matches(/^\*\*\*secret:v1\.k1\./);
    expect(parsed.other).to.equal(98765);
    expect(parsed.short).to.equal('abc stays');
    expect(JSON.parse(openSealedSecrets(sealed, ringA)!)).to.deep.equal(doc);
  });

  it('leaves a document without secrets alone (undefined: use it as it is)', () => {
    expect(sealer.sealJson(JSON.stringify({ a: 'nothing here', n: 12 }), ringA)).to.equal(undefined);
    expect(new HistorySealer([]).sealJson(JSON.stringify({ a: SECRET }), ringA)).to.equal(undefined);
    expect(openSealedSecrets('{"a":"no token"}', ringA)).to.equal(undefined);
  });

  it("shows every token as *** in the codec server's view, keeping the JSON valid", () => {
    const sealed = sealer.sealJson(JSON.stringify({ url: `/x?t=${SECRET}`, pin: 987654 }), ringA)!;
    expect(JSON.parse(maskSealedSecrets(sealed))).to.deep.equal({ url: '/x?t=***', pin: '***' });
  });

  it("does not open another workspace's tokens, nor an altered one: they stay as they are", () => {
    const sealed = sealer.sealJson(JSON.stringify({ t: SECRET }), ringA)!;
    expect(openSealedSecrets(sealed, ringB)).to.equal(sealed);
    const token = (JSON.parse(sealed) as { t: string }).t;
    expect(token.startsWith(SEALED_SECRET_PREFIX)).to.equal(true);
    const altered = JSON.stringify({ t: token.slice(0, -3) + (token.endsWith('A') ? 'BBB' : 'AAA') });
    expect(openSealedSecrets(altered, ringA)).to.equal(altered);
    // A token someone wrote into a response (not sealed by this ring) is text like any other.
    const forged = JSON.stringify({ t: `${SEALED_SECRET_PREFIX}v1.k1.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAA` });
    expect(openSealedSecrets(forged, ringA)).to.equal(forged);
  });

  it('derives unrelated rings per workspace from the same root, rotating with it', () => {
    const [a] = [ringA.seal('x')];
    expect(() => ringB.open(a!)).to.throw();
    expect(ringA.open(a!)).to.equal('x');
    const rotated = new KeyRing(
      parseSecretKeys(`k2:${Buffer.alloc(32, 4).toString('base64')},k1:${Buffer.alloc(32, 3).toString('base64')}`),
    );
    expect(historySecretRing(rotated, 'ws_A').open(a!)).to.equal('x');
    expect(historySecretRing(rotated, 'ws_A').seal('y')).to.match(/^v1\.k2\./);
  });
});
