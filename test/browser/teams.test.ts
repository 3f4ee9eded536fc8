/**
 * Teams in the console (docs/console.md "Signing in", "Audit", "Versions"; docs/teams.md) in a real
 * Chromium against a real API, database and OpenID Connect provider (test/helpers/oidc.ts): an
 * editor signs in through the console's single sign-on button (their role comes from an
 * identity-provider group), sees the edit controls and saves an edit of a test case; a viewer sees
 * none and the API refuses their write made with the session cookie and CSRF token (403); an admin
 * signed in with an admin API key reads the editor's edit in the audit trail with its diff and name,
 * compares the test case's versions as a flow tree and restores version 1, which the page then
 * shows. One app, three browser contexts.
 */
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { eventually, type TestApp } from '../helpers/app';
import { launchBrowser, openConsole, screenshot, startConsoleApp } from '../helpers/browser';
import { startOidcProvider, type OidcProvider } from '../helpers/oidc';
import { AuditPage, ConsolePage, VersionsPanel } from './pages/console';
import { DesignerPage } from './pages/designer';

const ED = {
  sub: 'ed',
  email: 'ed@example.com',
  email_verified: true,
  name: 'Ed Editor',
  groups: ['qa-editors'],
};
const VI = {
  sub: 'vi',
  email: 'vi@example.com',
  email_verified: true,
  name: 'Vi Viewer',
  groups: ['qa-viewers'],
};
const V1_URL = '{{base}}/users/1';
const V2_URL = '{{base}}/users/2';

describe('console teams: single sign-on, roles, audit and versions', function () {
  this.timeout(180_000);
  let provider: OidcProvider;
  let app: TestApp;
  let browser: Browser;
  let testCaseId: string;

  before(async () => {
    provider = await startOidcProvider();
    // startConsoleApp sets ASSAY_PUBLIC_URL to the app's own address, so the redirect URL
    // (<public URL>/auth/callback, src/config.ts) points at the app.
    [app, browser] = await Promise.all([
      startConsoleApp({
        env: provider.env({ ASSAY_OIDC_GROUP_ROLES: 'qa-editors=default:editor,qa-viewers=default:viewer' }),
      }),
      launchBrowser(),
    ]);
    const res = await app.request('POST', '/v1/test-cases', {
      name: 'get user',
      flow: [
        {
          type: 'api',
          id: 'call',
          request: { method: 'GET', url: V1_URL },
          assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
        },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    testCaseId = res.body.id;
  });

  after(async () => {
    await browser?.close();
    await app?.stop();
    await provider?.stop();
  });

  it('signs an editor in through single sign-on, with edit controls, and saves their edit', async () => {
    provider.signInAs(ED);
    const { context, page } = await openConsole(browser, app);
    const c = new ConsolePage(page, app);
    await screenshot(page, 'sign-in-sso');
    await c.signInWithSso();
    expect(await c.userName()).to.equal('Ed Editor');
    expect(await c.role()).to.equal('editor');
    const sections = await c.sections();
    expect(sections).to.include('API keys');
    expect(sections).to.not.include('Members');
    expect(sections).to.not.include('Audit');

    await c.goto('/test-cases');
    await page.getByRole('link', { name: 'New test case' }).first().waitFor();
    await c.goto(`/test-cases/${testCaseId}`);
    const designer = new DesignerPage(page);
    await designer.item('call').waitFor();
    expect(await c.buttons('Save').count()).to.equal(1);
    expect(await c.buttons('Delete').count()).to.equal(1);
    await designer.select('call');
    await designer.fill('URL', V2_URL);
    await designer.save();
    await designer.saved();
    const stored = await app.request('GET', `/v1/test-cases/${testCaseId}`);
    expect(stored.body.flow[0].request.url).to.equal(V2_URL);
    await context.close();
  });

  it('shows a viewer no edit controls, and the API refuses their write with the session cookie', async () => {
    provider.signInAs(VI);
    const { context, page } = await openConsole(browser, app);
    const c = new ConsolePage(page, app);
    // A failed sign-in comes back with ?signInError=<code>, which the sign-in page shows.
    await c.goto('/?signInError=sign-in-failed');
    await page.getByRole('alert').getByText('Sign-in failed').waitFor();
    await c.signInWithSso();
    expect(await c.userName()).to.equal('Vi Viewer');
    expect(await c.role()).to.equal('viewer');

    await c.goto('/test-cases');
    await page.getByRole('table', { name: 'Test cases' }).waitFor();
    expect(await page.getByRole('link', { name: 'New test case' }).count()).to.equal(0);
    await c.goto(`/test-cases/${testCaseId}`);
    await new DesignerPage(page).item('call').waitFor();
    await page.getByText('Your role here is viewer: this test case is read-only.').waitFor();
    for (const name of ['Save', 'Delete', 'Run', 'Undo', 'Restore version 1'])
      expect(await c.buttons(name).count(), name).to.equal(0);
    expect(await page.getByRole('button', { name: /^Add node/ }).count()).to.equal(0);

    // The same write the console would send, with the session's cookie and CSRF token: 403.
    const answer = (await page.evaluate(async (id: string) => {
      const s = (await (await fetch('/auth/session')).json()) as { csrfToken: string };
      const res = await fetch(`/v1/test-cases/${id}`, {
        method: 'PATCH',
        credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': s.csrfToken },
        body: JSON.stringify({ description: 'a viewer was here' }),
      });
      return { status: res.status, body: (await res.json()) as { code?: string } };
    }, testCaseId)) as { status: number; body: { code?: string } };
    expect(answer.status).to.equal(403);
    expect(answer.body.code).to.not.equal('csrf-token-invalid');
    expect((await app.request('GET', `/v1/test-cases/${testCaseId}`)).body.description ?? '').to.not.contain('viewer');

    await c.signOut();
    expect(await page.evaluate(async () => (await fetch('/auth/session')).status)).to.equal(401);
    await context.close();
  });

  it('shows an admin the editor’s edit in the audit trail, and restores version 1 from the versions panel', async () => {
    const adminKey = await app.issueKey('admin');
    const { context, page } = await openConsole(browser, app);
    const c = new ConsolePage(page, app);
    await c.signInWithKey(adminKey);
    expect(await c.sections()).to.include.members(['Members', 'API keys', 'Audit']);

    // The audit trail: the editor's update, by name, with the URL's before and after.
    await c.goto('/audit?resourceType=test-case');
    const audit = new AuditPage(page);
    await audit.rows('test-case.update').first().waitFor();
    expect(await audit.rows('test-case.update').first().innerText()).to.contain('Ed Editor');
    const changes = await audit.openChanges('test-case.update', 'get user');
    const text = await changes.innerText();
    expect(text).to.match(/request.?url/);
    expect(text).to.contain(V1_URL);
    expect(text).to.contain(V2_URL);
    await screenshot(page, 'audit');

    // The versions panel: 1 (created with the test key), 2 (Ed's edit), compared as a flow tree.
    await c.goto(`/test-cases/${testCaseId}`);
    const designer = new DesignerPage(page);
    await designer.item('call').waitFor();
    const versions = new VersionsPanel(page);
    await eventually(async () => (await versions.versions()).join() === '2,1', 10_000);
    expect(await versions.row(2).innerText()).to.contain('Ed Editor');
    await versions.tick(1);
    const tree = versions.flowChanges(1, 2);
    await tree.waitFor();
    const node = tree.getByRole('listitem', { name: /^API call: changed/ });
    expect(await node.innerText()).to.contain(V2_URL);
    expect(await node.getByRole('list', { name: 'Changed fields of call' }).innerText()).to.contain('/request/url');
    await screenshot(page, 'versions');

    await versions.restore(1);
    await eventually(async () => (await designer.description('call')).includes(V1_URL), 10_000);
    await eventually(async () => (await versions.versions()).join() === '3,2,1', 10_000);
    expect(await versions.row(3).innerText()).to.contain('restored from version 1');
    const stored = await app.request('GET', `/v1/test-cases/${testCaseId}`);
    expect(stored.body.flow[0].request.url).to.equal(V1_URL);
    await context.close();
  });
});
