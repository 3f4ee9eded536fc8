/**
 * Callback addresses and signatures (docs/async.md "Callbacks"): tokens made in the workflow
 * (src/domain/callback-address.ts, pure) read and checked by the API against every key of the ring
 * (src/callbacks/keys.ts), the inbox's bounds (src/domain/callback-inbox.ts), and the two signature
 * schemes (src/callbacks/signature.ts).
 */
import { expect } from 'chai';
import { createHmac } from 'node:crypto';
import {
  base64url,
  callbackKey,
  callbackToken,
  fromBase64url,
  readCallbackToken,
  utf8,
} from '../../src/domain/callback-address';
import { planCallbacks, runCallbackKey, verifyCallbackToken } from '../../src/callbacks/keys';
import { signatureProblem } from '../../src/callbacks/signature';
import { CallbackInbox, INBOX_PER_KEY } from '../../src/domain/callback-inbox';
import { KeyRing, parseSecretKeys } from '../../src/secrets/keyring';
import { signedHeaders } from '../fixtures/async/callback-service';

const OLD = 'old:xICCnYsGY8lXexMaRybtFWJL48eq8F6LoG30+0PC6f8=';
const NEW = `new:${Buffer.alloc(32, 7).toString('base64')}`;

describe('callback addresses', () => {
  it('encodes UTF-8 and base64url as Node does (workflow code has neither Buffer nor TextEncoder)', () => {
    for (const text of ['', 'a', 'ab', 'abc', 'tc_1:login › token:cb', 'é€😀', 'x'.repeat(100)]) {
      expect(Buffer.from(utf8(text)).toString('utf8')).to.equal(text);
      expect(base64url(utf8(text))).to.equal(Buffer.from(text).toString('base64url'));
      expect(Buffer.from(fromBase64url(base64url(utf8(text)))!).toString('utf8')).to.equal(text);
    }
    expect(fromBase64url('a+b')).to.equal(undefined);
  });

  it('makes tokens the API verifies with any key of the ring, and refuses forged ones', () => {
    const ring = new KeyRing(parseSecretKeys(OLD));
    const { key } = planCallbacks(ring, 'http://x', 'run_1');
    expect(key).to.equal(createHmac('sha256', ring.keys[0]!.key).update('assay-callback:run_1').digest('base64url'));
    const target = { runId: 'run_1', workflowId: 'run-run_1', key: callbackKey('tc_1', ['login'], 'cb') };
    const token = callbackToken(target, key);
    expect(readCallbackToken(token)).to.deep.include(target);
    expect(verifyCallbackToken(ring, token)).to.deep.include(target);
    // After rotation (a new first key), the old key still verifies.
    expect(verifyCallbackToken(new KeyRing(parseSecretKeys(`${NEW},${OLD}`)), token)).to.deep.include(target);
    expect(verifyCallbackToken(new KeyRing(parseSecretKeys(NEW)), token)).to.equal(undefined);
    // Another run's key, another node, a changed tag: refused.
    const other = callbackToken({ ...target, runId: 'run_2' }, key);
    expect(verifyCallbackToken(ring, other)).to.equal(undefined);
    const [payload, tag] = token.split('.') as [string, string];
    const moved = callbackToken({ ...target, key: 'tc_1::other' }, key).split('.')[0]!;
    expect(verifyCallbackToken(ring, `${moved}.${tag}`)).to.equal(undefined);
    expect(verifyCallbackToken(ring, `${payload}.${tag.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'))}`)).to.equal(
      undefined,
    );
    expect(readCallbackToken('x.y')).to.equal(undefined);
    expect(runCallbackKey(ring.keys[0]!.key, 'run_1')).to.equal(key);
  });
});

describe('callback inbox', () => {
  it('keeps callbacks per key in arrival order, drops the oldest beyond the bound and survives continue-as-new', () => {
    const inbox = new CallbackInbox();
    const cb = (n: number) => ({ method: 'POST', path: '', query: {}, headers: {}, body: { n }, receivedAt: '' });
    for (let n = 1; n <= INBOX_PER_KEY + 2; n++) inbox.add({ key: 'a', callback: cb(n) });
    inbox.add({ key: 'b', callback: cb(0) });
    expect(inbox.dropped).to.deep.equal({ a: 2 });
    const again = new CallbackInbox(inbox.state());
    const first = again.after('a', 0)[0]!;
    expect(first.callback.body).to.deep.equal({ n: 3 });
    again.take('a', first.seq);
    expect(again.after('a', 0)).to.have.length(INBOX_PER_KEY - 1);
    expect(again.has('b', 0)).to.equal(true);
    expect(again.has('b', again.after('b', 0)[0]!.seq)).to.equal(false);
  });
});

describe('callback signatures', () => {
  const body = Buffer.from('{"status":"paid"}');
  it('hmac: sha256=<hex> in X-Assay-Signature (or the header named)', () => {
    const headers = Object.fromEntries(
      Object.entries(signedHeaders('hmac', 's3cret', body.toString())).map(([k, v]) => [k.toLowerCase(), v]),
    );
    expect(signatureProblem({ scheme: 'hmac', secret: 's3cret' }, headers, body)).to.equal(undefined);
    expect(signatureProblem({ scheme: 'hmac', secret: 'other' }, headers, body)).to.match(/does not match/);
    expect(signatureProblem({ scheme: 'hmac', secret: 's3cret' }, {}, body)).to.equal(
      'the X-Assay-Signature header is missing',
    );
    expect(
      signatureProblem(
        { scheme: 'hmac', secret: 's3cret', header: 'X-Hub-Signature-256' },
        { 'x-hub-signature-256': headers['x-assay-signature'] },
        body,
      ),
    ).to.equal(undefined);
  });

  it('standard-webhooks: whsec_ secrets, several signatures, the 5-minute tolerance', () => {
    const secret = `whsec_${Buffer.from('key bytes').toString('base64')}`;
    const now = Date.UTC(2026, 0, 1);
    const headers = signedHeaders('standard-webhooks', secret, body.toString(), now);
    const sig = { scheme: 'standard-webhooks' as const, secret };
    expect(signatureProblem(sig, headers, body, now)).to.equal(undefined);
    const several = { ...headers, 'webhook-signature': `v1,AAAA ${headers['webhook-signature']}` };
    expect(signatureProblem(sig, several, body, now)).to.equal(undefined);
    expect(signatureProblem(sig, headers, body, now + 6 * 60_000)).to.match(/more than 5 minutes/);
    expect(signatureProblem(sig, headers, Buffer.from('{}'), now)).to.match(/does not match/);
    expect(signatureProblem(sig, {}, body, now)).to.match(/are required/);
    // A secret without the prefix is its UTF-8 bytes (as Assay's outgoing webhooks sign).
    const plain = signedHeaders('standard-webhooks', 'plain', body.toString(), now);
    expect(signatureProblem({ scheme: 'standard-webhooks', secret: 'plain' }, plain, body, now)).to.equal(undefined);
  });
});
