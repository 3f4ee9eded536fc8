/**
 * Members and API keys (api/routes/members.ts, api/routes/keys.ts, api/auth.ts, docs/teams.md
 * "Roles", "API keys"), with people signed in through a real provider on loopback
 * (test/helpers/oidc.ts) and a real API on MariaDB: members CRUD and the owner rules; keys made
 * within one's role, service accounts, expiry, last use, visibility, demotion with the user's role,
 * and revocation when a member is removed.
 */
import { expect } from 'chai';
import { eventually, startTestApp, type TestApp } from '../../helpers/app';
import { ConsoleBrowser, startOidcProvider, type OidcProvider } from '../../helpers/oidc';
import { ApiKey, User, WorkspaceMember } from '../../../src/store/entities';

describe('members and API keys', function () {
  this.timeout(120_000);
  let provider: OidcProvider;
  let app: TestApp;
  let adminKey: string;
  let owner: ConsoleBrowser;

  before(async () => {
    provider = await startOidcProvider();
    app = await startTestApp({ env: provider.env() });
    adminKey = await app.issueKey('admin');
    // The first owner, as `npm run keys -- admin` makes them (bin/api-keys.ts).
    const now = new Date();
    await app.dataSource.getRepository(User).insert({
      id: 'usr_first_owner',
      issuer: null,
      subject: null,
      email: 'olive@example.com',
      name: 'Olive',
      groups: null,
      createdAt: now,
      lastSignInAt: null,
      disabledAt: null,
    });
    await app.dataSource.getRepository(WorkspaceMember).insert({
      workspaceId: app.workspaceId,
      userId: 'usr_first_owner',
      role: 'owner',
      groupRole: null,
      createdAt: now,
      updatedAt: now,
    });
    for (const [hint, name] of [
      ['olive', 'Olive Owner'],
      ['ed', 'Ed Editor'],
      ['ada', 'Ada Admin'],
      ['otto', 'Otto Other'],
      ['bo', 'Bo Owner'],
    ] as const)
      provider.addUser(hint, { sub: `${hint}-sub`, email: `${hint}@example.com`, email_verified: true, name });
    owner = new ConsoleBrowser(app.url);
    await owner.signIn('olive');
  });
  after(async () => {
    await app?.stop();
    await provider?.stop();
  });

  const signIn = async (hint: string) => {
    const browser = new ConsoleBrowser(app.url);
    await browser.signIn(hint);
    return browser;
  };

  it('the first sign-in with the verified e-mail binds the pre-provisioned owner', async () => {
    const session = await owner.session();
    expect(session.body.user).to.include({ id: 'usr_first_owner', name: 'Olive Owner' });
    expect(session.body.workspaces).to.deep.equal([{ id: app.workspaceId, name: 'default', role: 'owner' }]);
  });

  it('adds, lists, reads, changes and validates members', async () => {
    const added = await owner.request('POST', '/v1/members', { email: 'Ed@Example.com', name: 'Ed', role: 'editor' });
    expect(added.status, JSON.stringify(added.body)).to.equal(201);
    expect(added.body).to.include({
      name: 'Ed',
      email: 'ed@example.com',
      role: 'editor',
      directRole: 'editor',
      groupRole: null,
      lastSignInAt: null,
    });
    expect(added.headers.get('location')).to.equal(`/v1/members/${added.body.userId}`);
    const again = await owner.request('POST', '/v1/members', { email: 'ed@example.com', role: 'viewer' });
    expect(again.status).to.equal(409);
    expect(again.body.code).to.equal('member-exists');
    const bad = await owner.request('POST', '/v1/members', { email: 'not-an-email', role: 'king' });
    expect(bad.status).to.equal(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).to.include.members(['email', 'role']);

    const list = await app.request('GET', '/v1/members?limit=1', undefined, { key: adminKey });
    expect(list.status).to.equal(200);
    expect(list.body.items).to.have.length(1);
    const next = await app.request('GET', `/v1/members?cursor=${list.body.nextCursor}`, undefined, { key: adminKey });
    expect([...list.body.items, ...next.body.items].map((m: { email: string }) => m.email).sort()).to.deep.equal([
      'ed@example.com',
      'olive@example.com',
    ]);

    // Ed signs in: bound to the member made for his e-mail.
    const ed = await signIn('ed');
    expect((await ed.session()).body.user.id).to.equal(added.body.userId);
    const read = await owner.request('GET', `/v1/members/${added.body.userId}`);
    expect(read.body.lastSignInAt).to.be.a('string');
    expect(read.body.name).to.equal('Ed Editor');
    const patched = await owner.request('PATCH', `/v1/members/${added.body.userId}`, { role: 'runner' });
    expect(patched.status).to.equal(200);
    expect(patched.body).to.include({ role: 'runner', directRole: 'runner' });
    expect((await owner.request('PATCH', `/v1/members/${added.body.userId}`, { role: 'x' })).status).to.equal(400);
    expect((await owner.request('GET', '/v1/members/usr_nobody')).status).to.equal(404);
    // A runner may not manage members.
    const refused = await ed.request('GET', '/v1/members');
    expect(refused.status).to.equal(403);
    expect(refused.body.scopeNeeded).to.equal('admin');
    await owner.request('PATCH', `/v1/members/${added.body.userId}`, { role: 'editor' });
  });

  it('only an owner grants, changes or removes the owner role; the last owner stays', async () => {
    const byKey = await app.request(
      'POST',
      '/v1/members',
      { email: 'ada@example.com', role: 'owner' },
      { key: adminKey },
    );
    expect(byKey.status).to.equal(403);
    expect(byKey.body.code).to.equal('forbidden');
    const ada = await app.request(
      'POST',
      '/v1/members',
      { email: 'ada@example.com', role: 'admin' },
      { key: adminKey },
    );
    expect(ada.status).to.equal(201);
    const adaBrowser = await signIn('ada');
    // An admin cannot touch the owner nor make one.
    const demote = await adaBrowser.request('PATCH', '/v1/members/usr_first_owner', { role: 'admin' });
    expect(demote.status).to.equal(403);
    expect((await adaBrowser.request('DELETE', '/v1/members/usr_first_owner')).status).to.equal(403);
    expect((await adaBrowser.request('PATCH', `/v1/members/${ada.body.userId}`, { role: 'owner' })).status).to.equal(
      403,
    );
    // The only owner cannot step down or be removed.
    const last = await owner.request('PATCH', '/v1/members/usr_first_owner', { role: 'admin' });
    expect(last.status).to.equal(409);
    expect(last.body.code).to.equal('last-owner');
    expect((await owner.request('DELETE', '/v1/members/usr_first_owner')).body.code).to.equal('last-owner');
    // With a second owner, the first may step down.
    expect((await owner.request('PATCH', `/v1/members/${ada.body.userId}`, { role: 'owner' })).status).to.equal(200);
    expect((await owner.request('PATCH', '/v1/members/usr_first_owner', { role: 'admin' })).status).to.equal(200);
    expect((await adaBrowser.request('PATCH', '/v1/members/usr_first_owner', { role: 'owner' })).status).to.equal(200);
  });

  it('two owners taking the owner role from each other at the same instant leave one owner', async () => {
    const bo = await owner.request('POST', '/v1/members', { email: 'bo@example.com', role: 'owner' });
    expect(bo.status, JSON.stringify(bo.body)).to.equal(201);
    const boBrowser = await signIn('bo');
    const owners = async () =>
      (await app.dataSource.getRepository(WorkspaceMember).findBy({ workspaceId: app.workspaceId, role: 'owner' })).map(
        (m) => m.userId,
      );
    const firstOwner = 'usr_first_owner';
    // Only these two are owners (an earlier test made Ada one).
    for (const userId of await owners())
      if (userId !== firstOwner && userId !== bo.body.userId)
        expect((await owner.request('PATCH', `/v1/members/${userId}`, { role: 'admin' })).status).to.equal(200);
    for (let round = 0; round < 4; round++) {
      // Both owners again; then each demotes the other at once.
      if (!(await owners()).includes(bo.body.userId))
        expect((await owner.request('PATCH', `/v1/members/${bo.body.userId}`, { role: 'owner' })).status).to.equal(200);
      if (!(await owners()).includes(firstOwner))
        expect((await boBrowser.request('PATCH', `/v1/members/${firstOwner}`, { role: 'owner' })).status).to.equal(200);
      const answers = await Promise.all([
        owner.request('PATCH', `/v1/members/${bo.body.userId}`, { role: 'admin' }),
        boBrowser.request('PATCH', `/v1/members/${firstOwner}`, { role: 'admin' }),
      ]);
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses[0], JSON.stringify(answers.map((a) => a.body))).to.equal(200);
      expect(statuses[1], JSON.stringify(answers.map((a) => a.body))).to.be.oneOf([403, 409]);
      expect(await owners(), `round ${round}`).to.have.length(1);
    }
    // Leave the first owner an owner, as the later tests expect.
    const remaining = (await owners())[0]!;
    if (remaining !== firstOwner)
      expect((await boBrowser.request('PATCH', `/v1/members/${firstOwner}`, { role: 'owner' })).status).to.equal(200);
  });

  it('keys: within the maker’s role, service accounts for admins, owners’ visible only to them or admins', async () => {
    const ed = await signIn('ed');
    const made = await ed.request('POST', '/v1/keys', { name: 'laptop', scope: 'write' });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    expect(made.body.key).to.match(/^assay_/);
    expect(made.body).to.include({ name: 'laptop', scope: 'write', expiresAt: null, revokedAt: null });
    expect(made.body.owner).to.deep.include({ type: 'user', name: 'Ed Editor' });
    const above = await ed.request('POST', '/v1/keys', { name: 'too much', scope: 'admin' });
    expect(above.status).to.equal(403);
    expect(above.body.code).to.equal('scope-exceeds-role');
    const service = await ed.request('POST', '/v1/keys', { name: 'ci', scope: 'run', serviceAccount: 'ci' });
    expect(service.status).to.equal(403);
    const ownerScope = await owner.request('POST', '/v1/keys', { name: 'x', scope: 'owner' });
    expect(ownerScope.body.code).to.equal('scope-exceeds-role');
    const ci = await owner.request('POST', '/v1/keys', { name: 'ci', scope: 'run', serviceAccount: 'ci' });
    expect(ci.status).to.equal(201);
    expect(ci.body.owner).to.deep.equal({ type: 'service-account', name: 'ci' });
    // A workspace key (no person) makes only service accounts' keys.
    const personal = await app.request('POST', '/v1/keys', { name: 'p', scope: 'read' }, { key: adminKey });
    expect(personal.status).to.equal(400);
    expect(personal.body.errors[0].field).to.equal('serviceAccount');
    expect(
      (await ed.request('POST', '/v1/keys', { name: 'old', scope: 'read', expiresAt: '2001-01-01T00:00:00Z' })).status,
    ).to.equal(400);

    // Ed's key works, and its use is recorded.
    expect((await app.request('GET', '/v1/environments', undefined, { key: made.body.key })).status).to.equal(200);
    await eventually(async () => (await ed.request('GET', `/v1/keys/${made.body.id}`)).body.lastUsedAt);
    // Ed sees only his own keys; another's is 404; an admin sees all.
    const mine = await ed.request('GET', '/v1/keys');
    expect(mine.body.items.map((k: { id: string }) => k.id)).to.deep.equal([made.body.id]);
    expect((await ed.request('GET', `/v1/keys/${ci.body.id}`)).status).to.equal(404);
    expect((await ed.request('DELETE', `/v1/keys/${ci.body.id}`)).status).to.equal(404);
    const all = await owner.request('GET', '/v1/keys?limit=200');
    expect(all.body.items.map((k: { id: string }) => k.id)).to.include.members([made.body.id, ci.body.id]);
    expect(all.body.items[0].id).to.equal(ci.body.id); // newest first
    // Revoking one's own key.
    const spare = await ed.request('POST', '/v1/keys', { name: 'spare', scope: 'read' });
    expect((await ed.request('DELETE', `/v1/keys/${spare.body.id}`)).status).to.equal(204);
    expect((await app.request('GET', '/v1/environments', undefined, { key: spare.body.key })).status).to.equal(401);
  });

  it("a user's key acts with at most the user's current role", async () => {
    const ed = await signIn('ed');
    const { key } = (await ed.request('POST', '/v1/keys', { name: 'demoted', scope: 'write' })).body;
    expect((await app.request('POST', '/v1/environments', { name: 'by-ed' }, { key })).status).to.equal(201);
    const edId = (await ed.session()).body.user.id;
    const runner = await app.request('POST', '/v1/runners', { name: 'ed-runner', folder: '' });
    expect(runner.status, JSON.stringify(runner.body)).to.equal(201);
    const made = await app.request('POST', '/v1/deployments', {
      name: 'ed-hook',
      runner: 'ed-runner',
      environment: 'by-ed',
      webhookEnabled: true,
    });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    const deployment = made.body;
    expect((await owner.request('PATCH', `/v1/members/${edId}`, { role: 'viewer' })).status).to.equal(200);
    const refused = await app.request('POST', '/v1/environments', { name: 'by-ed-2' }, { key });
    expect(refused.status).to.equal(403);
    expect(refused.body.scopeNeeded).to.equal('write');
    expect((await app.request('GET', '/v1/environments', undefined, { key })).status).to.equal(200);
    // The same holds at a deployment's incoming webhook (`X-API-Key`, scope `run` needed).
    const webhookUrl = `${app.url}${new URL(String(deployment.webhookUrl)).pathname}`;
    const hook = (apiKey: string) =>
      fetch(webhookUrl, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: '{}',
      });
    expect((await hook(key)).status).to.equal(401);
    await owner.request('PATCH', `/v1/members/${edId}`, { role: 'editor' });
    // Accepted again (the runner selects nothing in this workspace: 422 from the run start, past authentication).
    const again = await hook(key);
    expect(again.status).to.equal(422);
    expect((await again.json()).code).to.equal('runner-selects-nothing');
    expect((await app.request('POST', '/v1/environments', { name: 'by-ed-3' }, { key })).status).to.equal(201);
  });

  it('an expired key is refused with 401 naming when it expired', async () => {
    const made = await owner.request('POST', '/v1/keys', {
      name: 'short',
      scope: 'read',
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(made.status).to.equal(201);
    expect((await app.request('GET', '/v1/environments', undefined, { key: made.body.key })).status).to.equal(200);
    const past = new Date(Date.now() - 1000);
    await app.dataSource.getRepository(ApiKey).update({ id: made.body.id }, { expiresAt: past });
    const res = await app.request('GET', '/v1/environments', undefined, { key: made.body.key });
    expect(res.status).to.equal(401);
    expect(res.body.detail).to.contain('expired').and.to.contain(past.toISOString());
  });

  it('removing a member revokes their keys here and takes the workspace from their session', async () => {
    const otto = await app.request(
      'POST',
      '/v1/members',
      { email: 'otto@example.com', role: 'runner' },
      { key: adminKey },
    );
    const browser = await signIn('otto');
    const key = (await browser.request('POST', '/v1/keys', { name: 'otto', scope: 'run' })).body;
    expect((await app.request('GET', '/v1/workspaces', undefined, { key: key.key })).status).to.equal(200);
    expect((await owner.request('DELETE', `/v1/members/${otto.body.userId}`)).status).to.equal(204);
    expect((await owner.request('GET', `/v1/members/${otto.body.userId}`)).status).to.equal(404);
    expect((await app.request('GET', '/v1/workspaces', undefined, { key: key.key })).status).to.equal(401);
    expect((await owner.request('GET', `/v1/keys/${key.id}`)).body.revokedAt).to.be.a('string');
    const session = await browser.session();
    expect(session.status).to.equal(200);
    expect(session.body.workspaces).to.deep.equal([]);
    const refused = await browser.request('GET', '/v1/environments');
    expect(refused.status).to.equal(403);
    expect(refused.body.code).to.equal('not-a-member');
  });
});
