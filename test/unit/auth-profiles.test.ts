/**
 * Auth profiles without a network: the token request's form and client authentication for each
 * grant (RFC 6749 §4.3, §4.4, §6, §2.3.1), when a token is renewed, the precedence of the levels,
 * the field checks naming the field, and the sealing of literal secrets.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { Agent } from 'undici';
import { needsRenewal, requestToken, tokenRequestOf, type FilledOAuth2 } from '../../src/auth/oauth2';
import {
  maskProfileFields,
  profileFieldErrors,
  sealProfileFields,
  openProfileFields,
} from '../../src/auth/profile-fields';
import { apiNodeAuthProfile, effectiveProfileName, testCaseAuth } from '../../src/domain/auth-profiles';
import { KeyRing, parseSecretKeys } from '../../src/secrets/keyring';

const ring = new KeyRing(parseSecretKeys('t:xICCnYsGY8lXexMaRybtFWJL48eq8F6LoG30+0PC6f8='));

describe('auth profiles', () => {
  const base: FilledOAuth2 = {
    grant: 'client_credentials',
    tokenUrl: 'https://auth.example/token',
    clientId: 'my client',
    clientSecret: 'p@ss:word',
    scopes: ['read', 'write'],
    audience: 'https://api.example',
  };
  const form = (body: string) => Object.fromEntries(new URLSearchParams(body));

  it('client credentials: Basic client authentication of the form-encoded id and secret, scope space-separated, audience in the body', () => {
    const { body, headers } = tokenRequestOf(base);
    expect(form(body)).to.deep.equal({
      grant_type: 'client_credentials',
      scope: 'read write',
      audience: 'https://api.example',
    });
    expect(headers['content-type']).to.equal('application/x-www-form-urlencoded');
    expect(Buffer.from(headers.authorization!.slice(6), 'base64').toString()).to.equal('my+client:p%40ss%3Aword');
  });

  it('client authentication in the body, and a client without a secret sending only its id', () => {
    const inBody = tokenRequestOf({ ...base, clientAuthentication: 'body' });
    expect(inBody.headers.authorization).to.equal(undefined);
    expect(form(inBody.body)).to.include({ client_id: 'my client', client_secret: 'p@ss:word' });
    const publicClient = tokenRequestOf({ ...base, clientSecret: undefined });
    expect(publicClient.headers.authorization).to.equal(undefined);
    expect(form(publicClient.body)).to.include({ client_id: 'my client' }).and.not.have.property('client_secret');
  });

  it('password and refresh_token grants, and a renewal with the refresh token that came', () => {
    expect(form(tokenRequestOf({ ...base, grant: 'password', username: 'ann', password: 'pw 1' }).body)).to.include({
      grant_type: 'password',
      username: 'ann',
      password: 'pw 1',
    });
    expect(form(tokenRequestOf({ ...base, grant: 'refresh_token', refreshToken: 'r1' }).body)).to.include({
      grant_type: 'refresh_token',
      refresh_token: 'r1',
    });
    expect(form(tokenRequestOf(base, 'r2').body)).to.include({ grant_type: 'refresh_token', refresh_token: 'r2' });
  });

  it('renews when less than 30 s or 10 % of the lifetime remain, whichever is smaller', () => {
    const hour = { accessToken: 'a', tokenType: 'Bearer', obtainedAtMs: 0, expiresAtMs: 3_600_000 };
    expect(needsRenewal(hour, 3_569_000)).to.equal(false);
    expect(needsRenewal(hour, 3_571_000)).to.equal(true);
    const short = { ...hour, expiresAtMs: 2000 };
    expect(needsRenewal(short, 1700)).to.equal(false);
    expect(needsRenewal(short, 1850)).to.equal(true);
    expect(needsRenewal({ accessToken: 'a', tokenType: 'Bearer', obtainedAtMs: 0 }, 1e12)).to.equal(false);
  });

  it('takes the first level that names a profile, node > test case > folder > runner, `none` turning it off', () => {
    expect(effectiveProfileName(undefined, 'tc', 'folder', 'runner')).to.equal('tc');
    expect(effectiveProfileName(undefined, undefined, 'folder', 'runner')).to.equal('folder');
    expect(effectiveProfileName('none', 'tc')).to.equal(undefined);
    const profiles = { a: { id: 'aup_1', name: 'a', type: 'bearer' as const, config: {} } };
    const plan = { workspaceId: 'ws', environment: 'e', authProfile: 'a', authProfiles: profiles };
    expect(apiNodeAuthProfile(undefined, testCaseAuth(plan, {}))?.profile.name).to.equal('a');
    expect(apiNodeAuthProfile(undefined, testCaseAuth(plan, { authProfile: 'none' }))).to.equal(undefined);
    expect(apiNodeAuthProfile(undefined, testCaseAuth(plan, { folderAuthProfile: 'none' }))).to.equal(undefined);
    expect(testCaseAuth({ workspaceId: 'ws', environment: 'e' }, { authProfile: 'a' })).to.equal(undefined);
  });

  it('names the field at fault', () => {
    const fields = (type: string, config: Record<string, unknown>) =>
      profileFieldErrors(type, config).map((e) => e.field);
    expect(fields('oauth2', { grant: 'implicit', tokenUrl: 'ftp://x', clientId: 'c' })).to.have.members([
      'grant',
      'tokenUrl',
    ]);
    expect(fields('oauth2', { grant: 'password', tokenUrl: '{{auth}}/token', clientId: 'c' })).to.have.members([
      'username',
      'password',
    ]);
    expect(fields('oauth2', { grant: 'refresh_token', tokenUrl: 'https://a/t', clientId: 'c' })).to.deep.equal([
      'refreshToken',
    ]);
    expect(fields('apiKey', { name: 'k', value: 'vvvv', in: 'cookie' })).to.deep.equal(['in']);
    expect(fields('bearer', { token: 't', extra: 1 })).to.deep.equal(['extra']);
    expect(fields('digest', {})).to.deep.equal(['type']);
    expect(
      fields('oauth2', { grant: 'client_credentials', tokenUrl: 'https://a/t', clientId: 'c', scopes: ['a b'] }),
    ).to.deep.equal(['scopes']);
  });

  it('seals literal secrets (bound to the profile and field), keeps templates as written, and keeps a stored value for "***"', () => {
    const { fields, errors } = sealProfileFields(
      'aup_1',
      { clientId: 'c', clientSecret: 'literal-secret', refreshToken: '{{rt}}' },
      ring,
    );
    expect(errors).to.deep.equal([]);
    expect(fields.clientSecret).to.match(/^v1\./);
    expect(fields.refreshToken).to.equal('{{rt}}');
    expect(maskProfileFields(fields)).to.deep.equal({ clientId: 'c', clientSecret: '***', refreshToken: '{{rt}}' });
    const opened = openProfileFields({ id: 'aup_1', name: 'p', type: 'oauth2', config: fields }, ring);
    expect(opened.clientSecret).to.equal('literal-secret');
    expect(() => openProfileFields({ id: 'aup_2', name: 'p', type: 'oauth2', config: fields }, ring)).to.throw(
      /does not open/,
    );
    const kept = sealProfileFields('aup_1', { clientSecret: '***' }, ring, fields);
    expect(kept.fields.clientSecret).to.equal(fields.clientSecret);
    expect(sealProfileFields('aup_1', { clientSecret: '***' }, ring, {}).errors[0]!.field).to.equal('clientSecret');
  });

  it('fails a token request that gets no answer within the timeout, or an error page, with the status and text', async () => {
    const server = http.createServer((req, res) => {
      if (req.url === '/hang') return; // never answers
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end('upstream down');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const agent = new Agent();
    try {
      const started = Date.now();
      const hung = await requestToken({ ...base, tokenUrl: `${url}/hang` }, agent, 300).catch((e: Error) => e);
      expect(String(hung)).to.match(/did not answer within 300 ms/);
      expect(Date.now() - started).to.be.below(3000);
      const down = await requestToken({ ...base, tokenUrl: `${url}/token` }, agent, 2000).catch((e: Error) => e);
      expect(String(down)).to.contain('token endpoint answered 503 upstream down');
      expect((down as { status?: number }).status).to.equal(503);
    } finally {
      await agent.close();
      server.closeAllConnections();
      server.close();
    }
  });
});
