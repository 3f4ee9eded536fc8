/**
 * Roles and workspaces probed over every route (docs/teams.md "Roles", docs/security.md "Scopes per
 * endpoint"): people signed in through a real OpenID Connect provider on loopback, one per role,
 * their roles from the groups claim. Every /v1 endpoint of the one table (api/scopes.ts) answers
 * each role 403 `forbidden` exactly when the role's scope is below the endpoint's; and nobody, an
 * owner included, reads or changes another workspace's test cases, versions, keys, members or audit
 * events: those answer as if they did not exist, the same as an id nobody has.
 */
import { expect } from 'chai';
import { startTestApp, type TestApp } from '../../helpers/app';
import { ConsoleBrowser, startOidcProvider, type OidcProvider } from '../../helpers/oidc';
import { ENDPOINT_SCOPES } from '../../../api/scopes';
import { ROLES, ROLE_SCOPES, scopeAllows, type Role } from '../../../src/teams/roles';

describe('roles and workspaces probed over every route', function () {
  this.timeout(180_000);
  let provider: OidcProvider;
  let app: TestApp;
  const people = {} as Record<Role, ConsoleBrowser>;
  /** Owner of workspace `elsewhere` only, with a test case, a key and audit events there. */
  let outsider: ConsoleBrowser;
  const theirs = { testCaseId: '', keyId: '', userId: '' };

  before(async () => {
    provider = await startOidcProvider();
    app = await startTestApp({
      env: provider.env({
        ASSAY_OIDC_GROUP_ROLES: [...ROLES.map((r) => `probe-${r}=default:${r}`), 'them=elsewhere:owner'].join(','),
      }),
    });
    for (const role of ROLES) {
      provider.addUser(role, {
        sub: `sub-${role}`,
        email: `${role}@example.com`,
        email_verified: true,
        name: role,
        groups: [`probe-${role}`],
      });
      people[role] = new ConsoleBrowser(app.url);
      await people[role].signIn(role);
    }
    provider.addUser('them', {
      sub: 'sub-them',
      email: 'them@example.com',
      email_verified: true,
      name: 'Them',
      groups: ['them'],
    });
    outsider = new ConsoleBrowser(app.url);
    await outsider.signIn('them');
    const created = await outsider.request('POST', '/v1/test-cases', {
      name: 'their secret plan',
      flow: [{ type: 'api', id: 'call', request: { method: 'GET', url: 'http://127.0.0.1:9/x' } }],
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    theirs.testCaseId = created.body.id;
    const renamed = await outsider.request('PATCH', `/v1/test-cases/${theirs.testCaseId}`, {
      name: 'their plan, renamed',
    });
    expect(renamed.status, JSON.stringify(renamed.body)).to.equal(200);
    const key = await outsider.request('POST', '/v1/keys', { name: 'theirs', scope: 'read' });
    expect(key.status, JSON.stringify(key.body)).to.equal(201);
    theirs.keyId = key.body.id;
    theirs.userId = (await outsider.session()).body.user.id;
  });
  after(async () => {
    await app?.stop();
    await provider?.stop();
  });

  it('every /v1 endpoint × every role → 403 `forbidden` exactly when the role allows less', async () => {
    let checked = 0;
    for (const [entry, needed] of Object.entries(ENDPOINT_SCOPES)) {
      const [method, template] = entry.split(' ') as [string, string];
      if (needed === 'public') continue;
      const path = template.replace(/[:*][A-Za-z]+/g, 'no-such-thing');
      for (const role of ROLES) {
        const res = await people[role].request(method, path, method === 'GET' ? undefined : {});
        const label = `${role}: ${method} ${path} → ${res.status} ${JSON.stringify(res.body)}`;
        expect(res.status, label).to.be.below(500);
        if (scopeAllows(ROLE_SCOPES[role], needed)) expect(res.status, label).to.not.equal(403);
        else {
          expect(res.status, label).to.equal(403);
          expect(res.body, label).to.include({ code: 'forbidden', scopeNeeded: needed });
        }
        checked++;
      }
    }
    expect(checked).to.equal(Object.values(ENDPOINT_SCOPES).filter((s) => s !== 'public').length * ROLES.length);
  });

  it('nobody here, an owner included, gets into another workspace by naming it', async () => {
    for (const role of ROLES) {
      const res = await people[role].request('GET', '/v1/test-cases', undefined, { workspace: 'elsewhere' });
      expect(res.status, role).to.equal(403);
      expect(res.body.code, role).to.equal('not-a-member');
      expect(JSON.stringify(res.body), role).to.not.include('their');
    }
  });

  it("another workspace's test case, versions, key, member and audit events answer as an id nobody has", async () => {
    /** The status and problem code of a request, for comparing with the same request on a made-up id. */
    const answer = async (who: ConsoleBrowser, method: string, path: string, body?: unknown) => {
      const res = await who.request(method, path, body);
      expect(JSON.stringify(res.body ?? ''), `${method} ${path}`).to.not.match(/their (secret )?plan/);
      return `${res.status} ${res.body?.code ?? ''}`;
    };
    const probes: Array<[string, (id: string) => string, string, unknown?]> = [
      ['GET', (id) => `/v1/test-cases/${id}`, theirs.testCaseId],
      ['GET', (id) => `/v1/test-cases/${id}/versions`, theirs.testCaseId],
      ['GET', (id) => `/v1/test-cases/${id}/versions/1`, theirs.testCaseId],
      ['GET', (id) => `/v1/test-cases/${id}/versions/1/diff?to=2`, theirs.testCaseId],
      ['POST', (id) => `/v1/test-cases/${id}/versions/1/restore`, theirs.testCaseId, {}],
      ['PATCH', (id) => `/v1/test-cases/${id}`, theirs.testCaseId, { name: 'taken over' }],
      ['DELETE', (id) => `/v1/test-cases/${id}`, theirs.testCaseId],
      ['GET', (id) => `/v1/keys/${id}`, theirs.keyId],
      ['DELETE', (id) => `/v1/keys/${id}`, theirs.keyId],
      ['GET', (id) => `/v1/members/${id}`, theirs.userId],
      ['PATCH', (id) => `/v1/members/${id}`, theirs.userId, { role: 'viewer' }],
      ['DELETE', (id) => `/v1/members/${id}`, theirs.userId],
    ];
    for (const role of ROLES) {
      for (const [method, path, id, body] of probes) {
        const real = await answer(people[role], method, path(id), body);
        const madeUp = await answer(people[role], method, path(`${id.split('_')[0]}_00000000000000000000000000`), body);
        expect(real, `${role}: ${method} ${path(id)}`).to.equal(madeUp);
        expect(real, `${role}: ${method} ${path(id)}`).to.match(/^(403 forbidden|404 )/);
      }
    }
    // The audit trail of this workspace holds none of theirs, filtered by their resource or not.
    for (const role of ['admin', 'owner'] as const) {
      const filtered = await people[role].request('GET', `/v1/audit?resourceId=${theirs.testCaseId}`);
      expect(filtered.status).to.equal(200);
      expect(filtered.body.items).to.deep.equal([]);
      const exported = await people[role].fetch(`${app.url}/v1/audit/export`);
      expect(exported.status).to.equal(200);
      expect(await exported.text()).to.not.include(theirs.testCaseId);
    }
    // Still theirs, unchanged, with both versions.
    const still = await outsider.request('GET', `/v1/test-cases/${theirs.testCaseId}/versions`);
    expect(still.body.items.map((v: { version: number }) => v.version)).to.deep.equal([2, 1]);
    expect((await outsider.request('GET', `/v1/keys/${theirs.keyId}`)).body.revokedAt).to.equal(null);
  });
});
