/**
 * The audit trail's JSON diff and secret masking (src/teams/diff.ts): RFC 6901 paths, arrays by
 * index, the 1,000-entry cap, and which values are masked.
 */
import { expect } from 'chai';
import { isSecretName, jsonDiff, MASK, MAX_CHANGES, maskSecrets } from '../../src/teams/diff';

describe('teams diff', () => {
  it('lists changed, added and removed members with RFC 6901 paths', () => {
    const changes = jsonDiff(
      { name: 'a', 'x/y': 1, 'm~n': true, gone: 1, nested: { deep: [1, 2] } },
      { name: 'b', 'x/y': 2, 'm~n': true, nested: { deep: [1, 3, 4] }, added: null },
    );
    expect(changes).to.deep.equal([
      { path: '/name', before: 'a', after: 'b' },
      { path: '/x~1y', before: 1, after: 2 },
      { path: '/gone', before: 1 },
      { path: '/nested/deep/1', before: 2, after: 3 },
      { path: '/nested/deep/2', after: 4 },
      { path: '/added', after: null },
    ]);
  });

  it('gives nothing for equal documents (member order does not count) and a whole-value change for type changes', () => {
    expect(jsonDiff({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).to.deep.equal([]);
    expect(jsonDiff({ a: [1] }, { a: { 0: 1 } })).to.deep.equal([{ path: '/a', before: [1], after: { 0: 1 } }]);
    expect(jsonDiff(1, 2)).to.deep.equal([{ path: '', before: 1, after: 2 }]);
    expect(jsonDiff([1, 2, 3], [1])).to.deep.equal([
      { path: '/1', before: 2 },
      { path: '/2', before: 3 },
    ]);
  });

  it('lists at most 1,000 changes, then one saying how many more', () => {
    const before = Array.from({ length: 1500 }, (_, i) => i);
    const after = before.map((i) => i + 1);
    const changes = jsonDiff(before, after);
    expect(changes).to.have.length(MAX_CHANGES + 1);
    expect(changes[MAX_CHANGES - 1]).to.deep.equal({ path: '/999', before: 999, after: 1000 });
    expect(changes[MAX_CHANGES]).to.deep.equal({ path: '', after: '500 more changes not listed' });
  });

  it('masks secret environment variables, secret-named members and sealed values', () => {
    const masked = maskSecrets({
      variables: {
        host: 'api.example.com',
        pass: { secret: true, value: 'hunter22' },
        stored: { secret: true, sealed: 'v1.k1.iv.data' },
        apiToken: 'plain-but-secret',
        password: '{{db_password}}',
        token: '',
        authorization: null,
      },
      headers: { Authorization: 'Bearer abc', 'X-Api-Key': 'k', 'Set-Cookie': 's=1', Accept: 'json' },
      config: { tokenUrl: 'https://idp/token', clientSecret: 's3cr3t', private_key: 'pem', api_key: 7 },
      webhooks: { onComplete: [{ url: 'https://x', headers: { 'X-Sig': 'v1.k1.abc.def' } }] },
      cookies: { session: 'abc' },
      secret: true,
    });
    expect(masked).to.deep.equal({
      variables: {
        host: 'api.example.com',
        pass: { secret: true, value: MASK },
        stored: { secret: true, sealed: MASK },
        apiToken: MASK,
        password: '{{db_password}}',
        token: '',
        authorization: null,
      },
      headers: { Authorization: MASK, 'X-Api-Key': MASK, 'Set-Cookie': MASK, Accept: 'json' },
      config: { tokenUrl: 'https://idp/token', clientSecret: MASK, private_key: MASK, api_key: MASK },
      webhooks: { onComplete: [{ url: 'https://x', headers: { 'X-Sig': MASK } }] },
      cookies: MASK,
      secret: true,
    });
  });

  it('names secrets by the listed words, as whole names or endings', () => {
    for (const name of [
      'password',
      'PASSWORD',
      'secret',
      'token',
      'apiKey',
      'api_key',
      'Authorization',
      'clientSecret',
      'privateKey',
      'cookie',
      'refreshToken',
      'signingSecret',
      'webhookToken',
      'x-api-key',
    ])
      expect(isSecretName(name), name).to.equal(true);
    for (const name of ['tokenUrl', 'tokenType', 'name', 'secretKeys', 'keyId', 'author', 'passwordPolicy'])
      expect(isSecretName(name), name).to.equal(false);
  });
});
