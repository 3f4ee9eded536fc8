/**
 * The key ring (AES-256-GCM with key ids, rotation, the dev key file), the secret variable shapes
 * and the masker (the value and its encodings, Basic credentials, log arguments).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { KeyRing, KeyRingError, loadKeyRing, newSecretKeyEntry, parseSecretKeys } from '../../src/secrets/keyring';
import { maskLogArgument, SecretMasker } from '../../src/secrets/mask';
import { maskVariables, openVariables, sealVariables, type StoredVariable } from '../../src/secrets/variables';
import { loadConfig, ConfigError } from '../../src/config';

const K1 = newSecretKeyEntry('k1');
const K2 = newSecretKeyEntry('k2');

describe('secrets', () => {
  describe('key ring', () => {
    it('seals and opens; a value sealed for one place does not open in another; altered text is refused', () => {
      const ring = new KeyRing(parseSecretKeys(K1));
      const sealed = ring.seal('tok-123', 'assay-variable:token');
      expect(sealed).to.match(/^v1\.k1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
      expect(sealed).not.to.include('tok-123');
      expect(ring.seal('tok-123', 'assay-variable:token')).not.to.equal(sealed); // a fresh IV each time
      expect(ring.open(sealed, 'assay-variable:token')).to.equal('tok-123');
      expect(() => ring.open(sealed, 'assay-variable:other')).to.throw(KeyRingError, /does not open with key "k1"/);
      const parts = sealed.split('.');
      const flipped = `${parts.slice(0, 3).join('.')}.${parts[3]!.slice(0, -2)}AA`;
      expect(() => ring.open(flipped, 'assay-variable:token')).to.throw(KeyRingError);
    });

    it('rotates: the first key seals, every key opens, an unknown key id is named', () => {
      const old = new KeyRing(parseSecretKeys(K1));
      const sealed = old.seal('s3cret-value');
      const rotated = new KeyRing(parseSecretKeys(`${K2},${K1}`));
      expect(rotated.open(sealed)).to.equal('s3cret-value');
      expect(rotated.isStale(sealed)).to.equal(true);
      expect(rotated.seal('x').split('.')[1]).to.equal('k2');
      expect(() => new KeyRing(parseSecretKeys(K2)).open(sealed)).to.throw(
        KeyRingError,
        /key "k1", which ASSAY_SECRET_KEYS does not hold \(it has k2\)/,
      );
    });

    it('refuses malformed key lists with the reason, also through loadConfig', () => {
      expect(() => parseSecretKeys('k1')).to.throw(KeyRingError, /each entry is id:key/);
      expect(() => parseSecretKeys('k1:abcd')).to.throw(KeyRingError, /must be 32 bytes/);
      expect(() => parseSecretKeys(`${K1},${K1}`)).to.throw(KeyRingError, /listed twice/);
      expect(() => parseSecretKeys(`bad id:${K1.split(':')[1]}`)).to.throw(KeyRingError, /key id "bad id"/);
      expect(() => loadConfig({ ASSAY_SECRET_KEYS: 'k1:short' })).to.throw(
        ConfigError,
        /^ASSAY_SECRET_KEYS: key "k1" must be 32 bytes/,
      );
      expect(loadConfig({ ASSAY_SECRET_KEYS: K1 }).secretKeys).to.equal(K1);
      // hex works too
      expect(parseSecretKeys(`h:${'ab'.repeat(32)}`)[0]!.key).to.have.length(32);
    });

    it('without ASSAY_SECRET_KEYS generates one key into the data dir (0600) and reads it back', () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-keys-'));
      try {
        const first = loadKeyRing(undefined, dir);
        const file = path.join(dir, 'secret-keys');
        expect(fs.statSync(file).mode & 0o777).to.equal(0o600);
        const again = loadKeyRing('', dir);
        expect(again.open(first.seal('kept'))).to.equal('kept');
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  describe('secret variables', () => {
    const ring = new KeyRing(parseSecretKeys(`${K2},${K1}`));
    it('seals secrets, keeps plain values, answers masked, opens for a run', () => {
      const stored = sealVariables(
        { base: 'http://x', n: 3, token: { value: 'tok-abcdef', secret: true }, pin: { value: 123456, secret: true } },
        ring,
      );
      expect(stored.base).to.equal('http://x');
      expect(stored.n).to.equal(3);
      expect(JSON.stringify(stored)).not.to.include('tok-abcdef');
      expect(maskVariables(stored)).to.deep.equal({
        base: 'http://x',
        n: 3,
        token: { secret: true, value: '***' },
        pin: { secret: true, value: '***' },
      });
      expect(maskVariables(stored, true)).to.deep.equal({
        base: '***',
        n: '***',
        token: { secret: true, value: '***' },
        pin: { secret: true, value: '***' },
      });
      const opened = openVariables(stored, ring);
      expect(opened.values).to.deep.equal({ base: 'http://x', n: 3, token: 'tok-abcdef', pin: 123456 });
      expect(opened.secretNames).to.deep.equal(['token', 'pin']);
      expect(opened.secretValues).to.deep.equal(['tok-abcdef', '123456']);
    });

    it('"***" keeps the stored secret (sealed again under the new key when stale); with none stored it is refused', () => {
      const old = new KeyRing(parseSecretKeys(K1));
      const previous = sealVariables({ token: { value: 'tok-abcdef', secret: true } }, old) as Record<
        string,
        StoredVariable
      >;
      const kept = sealVariables({ token: { value: '***', secret: true } }, ring, previous);
      expect((kept.token as { sealed: string }).sealed.split('.')[1]).to.equal('k2');
      expect(openVariables(kept, ring).values.token).to.equal('tok-abcdef');
      expect(() => sealVariables({ other: { value: '***', secret: true } }, ring, previous)).to.throw(
        /other: "\*\*\*" keeps a stored secret, but there is none/,
      );
    });
  });

  describe('masker', () => {
    const masker = new SecretMasker(['tok-abc/123 x', 'pw-9876', 'ab']);
    it('masks the value, its URL, JSON-escaped and base64 forms, and Basic credentials holding it', () => {
      expect(masker.maskText('Authorization: Bearer tok-abc/123 x')).to.equal('Authorization: Bearer ***');
      expect(masker.maskText('/items?t=tok-abc%2F123%20x&u=1')).to.equal('/items?t=***&u=1');
      expect(masker.maskText(Buffer.from('tok-abc/123 x').toString('base64'))).to.equal('***');
      expect(masker.maskText(`Authorization: Basic ${Buffer.from('ada:pw-9876').toString('base64')}`)).to.equal(
        'Authorization: Basic ***',
      );
      expect(masker.maskText(`Basic ${Buffer.from('ada:other').toString('base64')}`)).to.equal(
        `Basic ${Buffer.from('ada:other').toString('base64')}`,
      );
      expect(masker.maskText('short ab stays')).to.equal('short ab stays'); // under 4 characters: not looked for
    });

    it('masks deeply (keys too) and log arguments, Errors included', () => {
      expect(masker.maskDeep({ url: 'http://h/pw-9876', list: ['pw-9876', 1], ['k pw-9876']: true })).to.deep.equal({
        url: 'http://h/***',
        list: ['***', 1],
        ['k ***']: true,
      });
      const err = maskLogArgument(masker, new TypeError('failed with pw-9876')) as Error;
      expect(err).to.be.instanceOf(Error);
      expect(err.name).to.equal('TypeError');
      expect(err.message).to.equal('failed with ***');
      expect(err.stack).not.to.include('pw-9876');
      expect(maskLogArgument(masker, { msg: 'x pw-9876', nested: { a: ['pw-9876'] } })).to.deep.equal({
        msg: 'x ***',
        nested: { a: ['***'] },
      });
    });
  });
});
