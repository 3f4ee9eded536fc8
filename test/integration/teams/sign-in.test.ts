/**
 * Console sign-in through OpenID Connect (api/routes/sign-in.ts, src/teams/, docs/teams.md "People
 * and sign-in", docs/security.md "Sessions and CSRF"), against a real provider on loopback
 * (test/helpers/oidc.ts) and a real API on MariaDB: the code flow with PKCE S256, state and nonce,
 * the session cookie's flags, /auth/session, CSRF on cookie-authenticated changes, roles from the
 * groups claim, expired and idle sessions, sign-out, and open redirects refused.
 */
import { expect } from 'chai';
import { startTestApp, type TestApp } from '../../helpers/app';
import { ConsoleBrowser, startOidcProvider, type OidcProvider } from '../../helpers/oidc';
import { Session, User, WorkspaceMember } from '../../../src/store/entities';
import { hashSessionToken } from '../../../src/teams/sessions';

describe('console sign-in (OpenID Connect)', function () {
  this.timeout(120_000);
  let provider: OidcProvider;
  let app: TestApp;

  before(async () => {
    provider = await startOidcProvider();
    app = await startTestApp({
      env: provider.env({
        ASSAY_OIDC_GROUP_ROLES: 'qa-viewers=qa:viewer, qa-editors=qa:editor, qa-editors=staging:runner, leads=qa:admin',
        ASSAY_OIDC_DISPLAY_NAME: 'Example SSO',
        ASSAY_SESSION_IDLE_MINUTES: '30',
      }),
    });
    provider.addUser('erin', {
      sub: 'erin-sub',
      email: 'Erin@Example.com',
      email_verified: true,
      name: 'Erin Editor',
      groups: ['qa-editors'],
    });
    provider.addUser('vic', {
      sub: 'vic-sub',
      email: 'vic@example.com',
      email_verified: true,
      name: 'Vic Viewer',
      groups: ['qa-viewers'],
    });
  });
  after(async () => {
    await app?.stop();
    await provider?.stop();
  });

  const sessionRow = async (browser: ConsoleBrowser) =>
    app.dataSource
      .getRepository(Session)
      .findOneByOrFail({ hash: hashSessionToken(browser.cookies.get('assay_session')!.value) });

  it('/auth/config says sign-in is on, with its display name', async () => {
    const res = await fetch(`${app.url}/auth/config`);
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal({ oidc: { enabled: true, displayName: 'Example SSO' } });
  });

  it('signs in with the code flow (PKCE S256, state, nonce) and sets an HttpOnly SameSite=Lax session cookie', async () => {
    const browser = new ConsoleBrowser(app.url);
    const before = provider.authorizations.length;
    const landed = await browser.signIn('erin', '/designs?tab=mocks');
    expect(landed).to.equal('/designs?tab=mocks');
    // The hops: Assay → provider → Assay's callback → the return path.
    const [login, authorize, callback] = browser.hops;
    expect(login!.status).to.equal(302);
    expect(login!.location).to.match(new RegExp(`^${provider.issuer}/`));
    expect(authorize!.status).to.equal(302);
    expect(callback!.url).to.match(new RegExp(`^${app.url}/auth/callback\\?`));
    expect(callback!.status).to.equal(302);
    expect(callback!.location).to.equal('/designs?tab=mocks');

    const sent = provider.authorizations[before]!;
    expect(sent).to.include({
      response_type: 'code',
      code_challenge_method: 'S256',
      client_id: provider.clientId,
      redirect_uri: `${app.url}/auth/callback`,
      login_hint: 'erin',
    });
    expect(sent.code_challenge).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect(sent.state).to.be.a('string').with.length.above(20);
    expect(sent.nonce).to.be.a('string').with.length.above(20);
    expect(sent.scope!.split(' ')).to.include.members(['openid', 'email', 'profile']);
    const token = provider.tokenRequests[provider.tokenRequests.length - 1]!;
    expect(token.grant_type).to.equal('authorization_code');
    expect(token.code_verifier).to.match(/^[A-Za-z0-9_-]{43,128}$/);

    const cookie = browser.cookies.get('assay_session')!;
    expect(cookie.value).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect(cookie.raw)
      .to.match(/; HttpOnly/)
      .and.to.match(/; SameSite=Lax/)
      .and.to.match(/; Path=\//);
    expect(cookie.raw).not.to.match(/Secure/); // the public URL is http here
    // The pending login cookie was scoped to /auth and cleared by the callback.
    expect(browser.cookies.has('assay_login')).to.equal(false);
    // Only the token's SHA-256 is stored.
    const row = await sessionRow(browser);
    expect(row.hash).to.equal(hashSessionToken(cookie.value));

    const session = await browser.session();
    expect(session.status).to.equal(200);
    expect(session.body.user).to.include({ name: 'Erin Editor', email: 'erin@example.com' });
    expect(session.body.user.id).to.match(/^usr_/);
    expect(session.body.csrfToken).to.be.a('string').with.length.above(20);
    expect(Date.parse(session.body.expiresAt)).to.be.above(Date.now() + 11 * 3_600_000);
    expect(session.body.workspaces.map((w: { name: string; role: string }) => [w.name, w.role])).to.deep.equal([
      ['qa', 'editor'],
      ['staging', 'runner'],
    ]);
  });

  it('the login cookie is HttpOnly, SameSite=Lax and scoped to /auth', async () => {
    const browser = new ConsoleBrowser(app.url);
    const res = await browser.fetch(`${app.url}/auth/login?return=/`);
    expect(res.status).to.equal(302);
    const login = browser.cookies.get('assay_login')!;
    expect(login.raw)
      .to.match(/; Path=\/auth;/)
      .and.to.match(/HttpOnly/)
      .and.to.match(/SameSite=Lax/);
    expect(login.raw).to.match(/Max-Age=600/);
  });

  it('changes made with the cookie need the CSRF token; reads do not', async () => {
    const browser = new ConsoleBrowser(app.url);
    await browser.signIn('erin');
    const { csrfToken } = (await browser.session()).body;
    expect((await browser.request('GET', '/v1/environments', undefined, { csrf: null })).status).to.equal(200);
    const none = await browser.request('POST', '/v1/environments', { name: 'csrf-env' }, { csrf: null });
    expect(none.status).to.equal(403);
    expect(none.body.code).to.equal('csrf-token-invalid');
    const wrong = await browser.request('POST', '/v1/environments', { name: 'csrf-env' }, { csrf: `${csrfToken}x` });
    expect(wrong.body.code).to.equal('csrf-token-invalid');
    const ok = await browser.request('POST', '/v1/environments', { name: 'csrf-env' }, { csrf: csrfToken });
    expect(ok.status, JSON.stringify(ok.body)).to.equal(201);
    // It went to the first workspace by name (qa), where Erin is an editor.
    const qa = await browser.request('GET', '/v1/environments/csrf-env', undefined, { workspace: 'qa' });
    expect(qa.status).to.equal(200);
    // A key in Authorization wins over the cookie (no CSRF needed for a key).
    const keyed = await browser.request('GET', '/v1/workspaces', undefined, {
      csrf: null,
      headers: { authorization: `Bearer ${app.key}` },
    });
    expect(keyed.body.items[0].name).to.equal('default');
  });

  it('roles come from the groups claim: a viewer cannot write, an editor can; workspaces are chosen by header', async () => {
    const vic = new ConsoleBrowser(app.url);
    await vic.signIn('vic');
    expect((await vic.request('GET', '/v1/environments')).status).to.equal(200);
    const refused = await vic.request('POST', '/v1/environments', { name: 'vic-env' });
    expect(refused.status).to.equal(403);
    expect(refused.body).to.include({ code: 'forbidden', scopeNeeded: 'write' });

    const erin = new ConsoleBrowser(app.url);
    await erin.signIn('erin');
    expect((await erin.request('POST', '/v1/environments', { name: 'erin-env' }, { workspace: 'qa' })).status).to.equal(
      201,
    );
    // Staging: a runner there; by id too.
    const workspaces = await erin.request('GET', '/v1/workspaces', undefined, { workspace: 'staging' });
    expect(workspaces.status).to.equal(200);
    const staging = workspaces.body.items.find((w: { name: string }) => w.name === 'staging');
    expect(staging).to.include({ role: 'runner', current: true });
    expect(staging.user).to.include({ name: 'Erin Editor', email: 'erin@example.com' });
    expect(workspaces.body.items.find((w: { name: string }) => w.name === 'qa')).to.include({ current: false });
    const write = await erin.request('POST', '/v1/environments', { name: 'x' }, { workspace: staging.id });
    expect(write.status).to.equal(403);
    expect(write.body.scopeNeeded).to.equal('write');
    // Not a member of "default".
    const outside = await erin.request('GET', '/v1/environments', undefined, { workspace: 'default' });
    expect(outside.status).to.equal(403);
    expect(outside.body.code).to.equal('not-a-member');
  });

  it('a new sign-in applies the groups anew: a group left takes its role away, a direct role stays', async () => {
    provider.addUser('gus', { sub: 'gus-sub', email: 'gus@example.com', email_verified: true, groups: ['leads'] });
    const gus = new ConsoleBrowser(app.url);
    await gus.signIn('gus');
    expect((await gus.session()).body.workspaces).to.deep.equal([
      { id: (await gus.session()).body.workspaces[0].id, name: 'qa', role: 'admin' },
    ]);
    const user = await app.dataSource.getRepository(User).findOneByOrFail({ subject: 'gus-sub' });
    expect(user.name).to.equal('gus@example.com'); // no name claim: the e-mail
    // A direct role in "default" besides.
    await app.dataSource.getRepository(WorkspaceMember).insert({
      workspaceId: app.workspaceId,
      userId: user.id,
      role: 'viewer',
      groupRole: null,
      createdAt: new Date(),
      updatedAt: new Date(),
    });
    provider.addUser('gus', { sub: 'gus-sub', email: 'gus@example.com', email_verified: true, groups: ['nothing'] });
    await gus.signIn('gus');
    const roles = (await gus.session()).body.workspaces.map((w: { name: string; role: string }) => [w.name, w.role]);
    expect(roles).to.deep.equal([['default', 'viewer']]);
    expect(await app.dataSource.getRepository(WorkspaceMember).countBy({ userId: user.id })).to.equal(1);
  });

  it('an expired or idle session is refused (401) on /auth/session and /v1', async () => {
    const browser = new ConsoleBrowser(app.url);
    await browser.signIn('erin');
    expect((await browser.request('GET', '/v1/environments')).status).to.equal(200);
    const row = await sessionRow(browser);
    const repo = app.dataSource.getRepository(Session);
    await repo.update({ id: row.id }, { expiresAt: new Date(Date.now() - 1000) });
    expect((await browser.session()).status).to.equal(401);
    const expired = await browser.request('GET', '/v1/environments');
    expect(expired.status).to.equal(401);
    expect(expired.body.code).to.equal('unauthorized');

    await browser.signIn('erin');
    const again = await sessionRow(browser);
    await repo.update({ id: again.id }, { lastSeenAt: new Date(Date.now() - 31 * 60_000) });
    expect((await browser.session()).status).to.equal(401);
    expect((await browser.request('GET', '/v1/environments')).status).to.equal(401);
  });

  it('signing out needs the CSRF token, ends the session and clears the cookie', async () => {
    const browser = new ConsoleBrowser(app.url);
    await browser.signIn('erin');
    const cookie = browser.cookies.get('assay_session')!.value;
    const refused = await browser.fetch(`${app.url}/auth/logout`, { method: 'POST' });
    expect(refused.status).to.equal(403);
    expect((await refused.json()).code).to.equal('csrf-token-invalid');
    const { csrfToken } = (await browser.session()).body;
    const out = await browser.fetch(`${app.url}/auth/logout`, {
      method: 'POST',
      headers: { 'x-csrf-token': csrfToken },
    });
    expect(out.status).to.equal(204);
    expect(browser.cookies.has('assay_session')).to.equal(false);
    // The old cookie no longer works anywhere.
    const replay = await fetch(`${app.url}/v1/environments`, { headers: { cookie: `assay_session=${cookie}` } });
    expect(replay.status).to.equal(401);
    expect((await browser.session()).status).to.equal(401);
  });

  it('refuses open redirects and sign-ins that do not check out', async () => {
    for (const target of [
      '//evil.example/x',
      'https://evil.example/',
      '/\\evil.example',
      'evil',
      '/\r\nSet-Cookie: x',
    ]) {
      const res = await fetch(`${app.url}/auth/login?return=${encodeURIComponent(target)}`, { redirect: 'manual' });
      expect(res.status, target).to.equal(400);
      expect((await res.json()).code, target).to.equal('invalid-query');
    }
    // A callback without a sign-in under way in this browser.
    const stray = await fetch(`${app.url}/auth/callback?code=abc&state=def`, { redirect: 'manual' });
    expect(stray.status).to.equal(302);
    expect(stray.headers.get('location')).to.equal('/?signInError=sign-in-failed');
    // A callback whose state is not the one this browser started with.
    const browser = new ConsoleBrowser(app.url);
    const login = await browser.fetch(`${app.url}/auth/login?return=/&login_hint=erin`);
    const atProvider = await browser.fetch(login.headers.get('location')!);
    const back = new URL(atProvider.headers.get('location')!);
    back.searchParams.set('state', 'forged');
    const forged = await browser.fetch(back.href);
    expect(forged.status).to.equal(302);
    expect(forged.headers.get('location')).to.equal('/?signInError=sign-in-failed');
    expect(browser.cookies.has('assay_session')).to.equal(false);
    // No session: 401 on /auth/session and on /v1 without a key.
    expect((await fetch(`${app.url}/auth/session`)).status).to.equal(401);
  });

  it('an unverified e-mail is neither stored nor bound to a pre-provisioned user', async () => {
    const users = app.dataSource.getRepository(User);
    await users.insert({
      id: 'usr_invited_mallory_target',
      issuer: null,
      subject: null,
      email: 'boss@example.com',
      name: 'Boss',
      groups: null,
      createdAt: new Date(),
      lastSignInAt: null,
      disabledAt: null,
    });
    provider.addUser('mallory', { sub: 'mallory-sub', email: 'boss@example.com', email_verified: false, name: 'M' });
    const browser = new ConsoleBrowser(app.url);
    await browser.signIn('mallory');
    const session = await browser.session();
    expect(session.body.user.id).not.to.equal('usr_invited_mallory_target');
    expect(session.body.user.email).to.equal(null);
    expect((await users.findOneByOrFail({ id: 'usr_invited_mallory_target' })).subject).to.equal(null);
  });

  it('marks its cookies Secure when Assay is reached over https (ASSAY_PUBLIC_URL)', async () => {
    const https = await startTestApp({
      env: provider.env({
        ASSAY_PUBLIC_URL: 'https://assay.example.test',
        ASSAY_OIDC_REDIRECT_URL: 'https://assay.example.test/auth/callback',
      }),
    });
    try {
      const res = await fetch(`${https.url}/auth/login?return=/`, { redirect: 'manual' });
      expect(res.status).to.equal(302);
      const login = res.headers.getSetCookie().find((c) => c.startsWith('assay_login='));
      expect(login)
        .to.match(/; HttpOnly/)
        .and.to.match(/; SameSite=Lax/)
        .and.to.match(/; Secure/);
      const authorize = new URL(res.headers.get('location')!);
      expect(authorize.searchParams.get('redirect_uri')).to.equal('https://assay.example.test/auth/callback');
    } finally {
      await https.stop();
    }
  });
});
