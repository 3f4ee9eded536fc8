/**
 * The console's resource pages (docs/console.md "Resources") in a real Chromium against a real API, database,
 * Temporal server and worker: the test case folder tree and tag filter, editing a test case (the
 * API's field errors shown at the flow editor, nothing stored; invalid JSON refused before any
 * request; a valid edit saved), environment values masked until shown and edited as a merge
 * patch, a read key that sees no edit controls, a runner's preview in run order, a deployment's
 * next fire times, enabled switch, webhook address and curl example, an API design's "Try it"
 * against its mock, and the libraries table. Data is seeded through the API.
 */
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { eventually, waitForRun, type TestApp } from '../helpers/app';
import { startReceiver } from '../helpers/receiver';
import {
  launchBrowser,
  openConsole,
  startConsoleApp,
  recordApiRequests,
  screenshot,
  signIn,
  signedIn,
} from '../helpers/browser';

/** A one-node flow calling `{{base}}` + `path`. */
function flow(path: string) {
  return [
    {
      type: 'api',
      id: 'call',
      request: { method: 'GET', url: `{{base}}${path}` },
      assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
    },
  ];
}

/** The names in the first column of the table named `label`. */
async function names(page: Page, label: string): Promise<string[]> {
  const rows = page.getByRole('table', { name: label }).locator('tbody tr td:first-child a');
  return (await rows.allInnerTexts()).map((s) => s.trim());
}

/**
 * Replaces the whole text of the CodeMirror editor named `label` the way a user pastes it
 * (select all, Ctrl+V). Pasting goes through CodeMirror's paste handler in one transaction;
 * Chromium's `insertText` of nested multi-line JSON into the contenteditable hangs the renderer.
 */
async function setEditor(page: Page, label: string, text: string): Promise<void> {
  const editor = page.getByRole('textbox', { name: label, exact: true });
  await editor.click();
  await page.keyboard.press('Control+A');
  await page.evaluate(`navigator.clipboard.writeText(${JSON.stringify(text)})`);
  await page.keyboard.press('Control+V');
  await eventually(async () => (await editor.innerText()).replace(/\s+/g, '') === text.replace(/\s+/g, ''), 5000);
}

describe('console resource pages', function () {
  this.timeout(120_000);
  let app: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const ids: Record<string, string> = {};

  before(async () => {
    [app, browser] = await Promise.all([startConsoleApp({ worker: true }), launchBrowser()]);
    const env = await app.request('POST', '/v1/environments', {
      name: 'staging',
      description: 'the staging stack',
      variables: { base: 'http://127.0.0.1:9', token: 'abc-secret', retries: 3 },
    });
    expect(env.status).to.equal(201);
    const seed: [string, string, string, string[]][] = [
      ['get user', 'get user', 'users', ['smoke', 'fast']],
      ['admin list', 'admin list', 'users/admin', ['smoke']],
      ['list orders', 'list orders', 'orders', ['fast']],
      ['health', 'health', '', []],
    ];
    for (const [key, name, folder, tags] of seed) {
      const res = await app.request('POST', '/v1/test-cases', {
        name,
        folder,
        tags,
        flow: flow(`/${key.replace(/ /g, '-')}`),
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      ids[key] = res.body.id;
    }
    const runner = await app.request('POST', '/v1/runners', {
      name: 'smoke',
      description: 'ids first, then users',
      testCaseIds: [ids['health']],
      folder: 'users',
      order: 'name',
    });
    expect(runner.status, JSON.stringify(runner.body)).to.equal(201);
    ({ context, page } = await signedIn(browser, app));
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
  });

  after(async () => {
    await browser?.close();
    await app?.stop();
  });

  it('shows the test cases of a folder (with its subfolders) that carry all the chosen tags', async () => {
    await page.goto(`${app.url}/test-cases`);
    await page.getByRole('table', { name: 'Test cases' }).waitFor();
    expect((await names(page, 'Test cases')).sort()).to.deep.equal(['admin list', 'get user', 'health', 'list orders']);

    const tree = page.getByRole('navigation', { name: 'Folders' });
    await tree.getByRole('button', { name: /^users \(2\)/ }).click();
    await eventually(async () => (await names(page, 'Test cases')).length === 2);
    expect(await names(page, 'Test cases')).to.deep.equal(['get user', 'admin list']);
    expect(page.url()).to.contain('folder=users');

    await page.getByRole('button', { name: 'fast', exact: true }).click();
    await eventually(async () => (await names(page, 'Test cases')).length === 1);
    expect(await names(page, 'Test cases')).to.deep.equal(['get user']);
    expect(await page.getByRole('button', { name: 'fast', exact: true }).getAttribute('aria-pressed')).to.equal('true');
    await screenshot(page, 'test-cases');

    await tree.getByRole('button', { name: /^All folders/ }).click();
    await eventually(async () => (await names(page, 'Test cases')).length === 2);
    expect((await names(page, 'Test cases')).sort()).to.deep.equal(['get user', 'list orders']);

    await page.getByRole('button', { name: 'smoke', exact: true }).click();
    await eventually(async () => (await names(page, 'Test cases')).length === 1);
    expect(await names(page, 'Test cases')).to.deep.equal(['get user']);

    await tree.getByRole('button', { name: /^orders/ }).click();
    await page.getByText('No test case in folder “orders” carries all of the tags').waitFor();
  });

  it('shows the API’s error for an invalid flow at the flow editor and stores nothing', async () => {
    const id = ids['get user']!;
    // The designer's JSON view (docs/console.md "The designer"), linked as ?view=json.
    await page.goto(`${app.url}/test-cases/${id}?view=json`);
    await page.getByRole('textbox', { name: 'Flow', exact: true }).waitFor();
    const before = (await app.request('GET', `/v1/test-cases/${id}`)).body;

    const bad = flow('/x');
    bad[0]!.request.url = '';
    const text = JSON.stringify(bad, null, 2);
    const sent = recordApiRequests(page, app);
    await setEditor(page, 'Flow', text);
    await page.getByRole('button', { name: 'Save' }).click();

    const errors = page.getByRole('list', { name: 'Flow errors' });
    await errors.waitFor();
    expect(await errors.innerText()).to.contain('flow[0].request.url');
    // The lint mark covers the empty url value: `""` in the flow text.
    const mark = page.locator('.cm-lintRange-error');
    await mark.first().waitFor();
    expect(await mark.first().innerText()).to.equal('""');
    expect(sent.filter((r) => r.method() === 'PUT')).to.have.length(1);
    await screenshot(page, 'test-case-editor');

    const after = (await app.request('GET', `/v1/test-cases/${id}`)).body;
    expect(after.flow).to.deep.equal(before.flow);
    expect(after.updatedAt).to.equal(before.updatedAt);
  });

  it('refuses a flow that is not JSON before sending anything', async () => {
    const id = ids['get user']!;
    await page.goto(`${app.url}/test-cases/${id}?view=json`);
    await page.getByRole('textbox', { name: 'Flow', exact: true }).waitFor();
    const sent = recordApiRequests(page, app);
    await setEditor(page, 'Flow', '[{"type": "api",, }]');
    await page
      .getByText(/The flow is not valid JSON: .* at line 1\. The tree is read-only until the JSON is valid again/)
      .waitFor();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText(/fix it before saving/).waitFor();
    await page.locator('.cm-lintRange-error').first().waitFor();
    expect(sent.filter((r) => r.method() !== 'GET')).to.have.length(0);
  });

  it('saves a valid edit of a test case', async () => {
    const id = ids['list orders']!;
    await page.goto(`${app.url}/test-cases/${id}?view=json`);
    await page.getByRole('textbox', { name: 'Flow', exact: true }).waitFor();
    await page.getByText('Test case: name, folder, tags').click();
    await page.getByLabel(/^Tags/).fill('fast, nightly');
    await setEditor(page, 'Flow', JSON.stringify(flow('/orders?page=2')));
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText(/^Saved at /).waitFor();
    const stored = (await app.request('GET', `/v1/test-cases/${id}`)).body;
    expect(stored.tags.sort()).to.deep.equal(['fast', 'nightly']);
    expect(stored.flow[0].request.url).to.equal('{{base}}/orders?page=2');
  });

  it('keeps up with fast typing in the flow editor and saves exactly what was typed', async () => {
    const id = ids['list orders']!;
    await page.goto(`${app.url}/test-cases/${id}?view=json`);
    const editor = page.getByRole('textbox', { name: 'Flow', exact: true });
    await editor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    // Typed key by key with no pause: each keystroke re-renders the page while the next arrives.
    const typed = '[{"type": "api", "request": {"method": "GET", "url": "{{base}}/orders?typed=fast"}}]';
    await page.keyboard.type(typed);
    await eventually(async () => (await editor.innerText()).replace(/\s+/g, '') === typed.replace(/\s+/g, ''), 10_000);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText(/^Saved at /).waitFor();
    expect((await app.request('GET', `/v1/test-cases/${id}`)).body.flow[0].request.url).to.equal(
      '{{base}}/orders?typed=fast',
    );
  });

  it('creates a test case from the new test case page', async () => {
    await page.goto(`${app.url}/test-cases/new?folder=orders`);
    await page.getByLabel('Test case name').fill('create order');
    expect(await page.getByLabel(/^Folder/).inputValue()).to.equal('orders');
    await page.getByRole('button', { name: 'Create test case' }).click();
    await page.waitForURL(/\/test-cases\/tc_/);
    const list = (await app.request('GET', '/v1/test-cases?folder=orders')).body.items.map(
      (t: { name: string }) => t.name,
    );
    expect(list).to.include('create order');
  });

  it('masks environment values until “Show”, and saves edits as typed values', async () => {
    await page.goto(`${app.url}/environments/staging`);
    const value = page.getByLabel('Value of token', { exact: true });
    await value.waitFor();
    expect(await value.getAttribute('type')).to.equal('password');
    await page.getByRole('button', { name: 'Show value of token' }).click();
    expect(await value.getAttribute('type')).to.equal('text');
    expect(await value.inputValue()).to.equal('abc-secret');
    await screenshot(page, 'environment');

    await page.getByLabel('Value of retries', { exact: true }).fill('5');
    await page.getByRole('button', { name: 'Add variable' }).click();
    await page.getByLabel('Name of variable 4').fill('verbose');
    await page.getByLabel('Value of verbose', { exact: true }).fill('true');
    await page.getByRole('button', { name: 'Save variables' }).click();
    // The form shows what was stored (no edit below may land on the form the save replaces).
    await page.getByText('Saved.', { exact: true }).waitFor();
    await eventually(
      async () => (await app.request('GET', '/v1/environments/staging')).body.variables.verbose === true,
    );
    const env = (await app.request('GET', '/v1/environments/staging')).body;
    expect(env.variables).to.deep.equal({ base: 'http://127.0.0.1:9', token: 'abc-secret', retries: 5, verbose: true });

    await page.getByRole('button', { name: 'Remove verbose' }).click();
    await page.getByRole('button', { name: 'Save variables' }).click();
    await eventually(async () => !('verbose' in (await app.request('GET', '/v1/environments/staging')).body.variables));
  });

  it('shows a read key read-only pages, and says that values come masked', async () => {
    const readKey = await app.issueKey('read');
    const opened = await openConsole(browser, app);
    try {
      await signIn(opened.page, readKey);
      const p = opened.page;
      await p.goto(`${app.url}/environments/staging`);
      await p.getByText('Your key has read scope: the API sends every value as').waitFor();
      expect(await p.getByTestId('value-token').innerText()).to.equal('••••');
      await p.getByRole('button', { name: 'Show value of token' }).click();
      expect(await p.getByTestId('value-token').innerText()).to.equal('***');
      expect(await p.getByRole('button', { name: 'Save variables' }).count()).to.equal(0);
      expect(await p.getByRole('button', { name: 'Delete environment' }).count()).to.equal(0);
      // No field to edit; the Versions panel's compare boxes choose what to read, they change nothing.
      expect(await p.locator('input:not(#versions input)').count()).to.equal(0);
      expect(await p.getByRole('button', { name: /^Restore version/ }).count()).to.equal(0);

      await p.goto(`${app.url}/test-cases/${ids['health']}`);
      await p.getByText('Your key has read scope: this test case is read-only.').waitFor();
      expect(await p.getByRole('button', { name: 'Save' }).count()).to.equal(0);
      expect(await p.getByRole('button', { name: 'Delete' }).count()).to.equal(0);
      // The designer is read-only: no palette, no Run or Send (scope run), the tree and forms say so.
      const tree = p.getByRole('tree', { name: 'Flow' });
      expect(await tree.getAttribute('aria-readonly')).to.equal('true');
      expect(await p.getByRole('button', { name: 'Add node', exact: true }).count()).to.equal(0);
      expect(await p.getByRole('button', { name: 'Run', exact: true }).count()).to.equal(0);
      await tree.getByRole('treeitem', { name: 'call', exact: true }).locator('.dz-row').first().click();
      const node = p.getByRole('region', { name: 'Node' });
      await node.getByLabel('URL', { exact: true }).waitFor();
      expect(await node.getByLabel('URL', { exact: true }).isEditable()).to.equal(false);
      expect(await node.getByRole('button', { name: 'Send' }).count()).to.equal(0);
      await p.goto(`${app.url}/test-cases`);
      await p.getByRole('table', { name: 'Test cases' }).waitFor();
      expect(await p.getByRole('link', { name: 'New test case' }).count()).to.equal(0);
    } finally {
      await opened.context.close();
    }
  });

  it('previews the test cases a runner selects, in run order, with a link to start a run', async () => {
    await page.goto(`${app.url}/runners/smoke`);
    await page.getByRole('table', { name: 'Selected test cases' }).waitFor();
    const rows = await page
      .getByRole('table', { name: 'Selected test cases' })
      .locator('tbody tr td:nth-child(2)')
      .allInnerTexts();
    expect(rows).to.deep.equal(['health', 'get user', 'admin list']);
    expect(await page.getByRole('link', { name: 'Start a run' }).getAttribute('href')).to.equal(
      '/runs/new?runner=smoke',
    );
    await page.getByRole('region', { name: 'Selection' }).getByText('users', { exact: true }).waitFor();
    await screenshot(page, 'runner');
  });

  it('shows a deployment’s next fire times, webhook address and curl example; the switch turns it off', async () => {
    const res = await app.request('POST', '/v1/deployments', {
      name: 'nightly',
      runner: 'smoke',
      environment: 'staging',
      schedule: '30 3 * * *',
      timezone: 'Europe/Berlin',
      webhookEnabled: true,
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    const dep = res.body;
    await page.goto(`${app.url}/deployments/${dep.id}`);
    const times = page.getByRole('list', { name: 'Next fire times' }).locator('time');
    await eventually(async () => (await times.count()) > 0);
    const first = await times.allInnerTexts();
    expect(first.length).to.be.at.least(2);
    for (const t of first) expect(t).to.match(/^\d{4}-\d\d-\d\d 03:30:00$/);

    expect(await page.getByTestId('webhook-url').innerText()).to.equal(dep.webhookUrl);
    const curl = await page.getByLabel('curl example', { exact: true }).innerText();
    expect(curl).to.contain(`curl -s -X POST '${dep.webhookUrl}'`);
    expect(curl).to.contain('Authorization: Bearer $WEBHOOK_TOKEN');
    await page.getByRole('button', { name: 'Copy webhook address' }).click();
    await page.getByRole('button', { name: 'Copy webhook address' }).getByText('Copied').waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).to.equal(dep.webhookUrl);
    await screenshot(page, 'deployment');

    const toggle = page.getByRole('switch', { name: 'Enabled' });
    expect(await toggle.isChecked()).to.equal(true);
    await toggle.uncheck();
    await eventually(async () => (await app.request('GET', `/v1/deployments/${dep.id}`)).body.enabled === false);
    await page.getByText('starts no runs: schedule paused').waitFor();
    expect(await page.getByRole('button', { name: 'Run now' }).isDisabled()).to.equal(true);
    await toggle.check();
    await eventually(async () => (await app.request('GET', `/v1/deployments/${dep.id}`)).body.enabled === true);
  });

  it('creates a deployment and shows its webhook token once', async () => {
    await page.goto(`${app.url}/deployments/new`);
    await page.getByLabel('Deployment name').fill('from-ci');
    await page.getByLabel('Runner').selectOption('smoke');
    await page.getByLabel('Environment').selectOption('staging');
    await page.getByLabel('Incoming webhook').check();
    await page.getByRole('button', { name: 'Create deployment' }).click();
    await page.getByText('Webhook token — shown this once.').waitFor();
    const token = await page.getByTestId('webhook-token').innerText();
    const url = await page.getByTestId('webhook-url').innerText();
    // The address is built on ASSAY_PUBLIC_URL (port 0 in tests): call its path on the test app.
    const call = await fetch(`${app.url}${new URL(url).pathname}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"trigger": "test"}',
    });
    expect(call.status).to.equal(200);
    const runId = ((await call.json()) as { runId: string }).runId;
    await page.reload();
    await page.getByRole('table', { name: 'Recent runs' }).getByText(runId).waitFor();
    expect(await page.getByText('Webhook token — shown this once.').count()).to.equal(0);

    await page.getByRole('button', { name: 'Run now' }).click();
    await page.waitForURL(/\/runs\/run_/);
    const started = page.url().split('/runs/')[1]!;
    expect((await app.request('GET', `/v1/runs/${started}`)).body).to.include({
      trigger: 'api',
      deploymentId: (await app.request('GET', '/v1/deployments')).body.items.find(
        (x: { name: string }) => x.name === 'from-ci',
      ).id,
    });
  });

  it('lists the outgoing webhook deliveries of a deployment’s recent runs', async () => {
    const receiver = await startReceiver();
    try {
      const res = await app.request('POST', '/v1/deployments', {
        name: 'notifying',
        runner: 'smoke',
        environment: 'staging',
        webhooks: {
          onComplete: [{ url: `${receiver.url}/complete` }],
          onFailure: [{ url: `${receiver.url}/failure`, method: 'PUT' }],
        },
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      receiver.secret = res.body.signingSecret;
      receiver.failFirst('/failure', 1);
      const started = await app.request('POST', `/v1/deployments/${res.body.id}/runs`);
      await waitForRun(app, started.body.runId);
      await eventually(async () => receiver.received.length === 2, 30_000);

      await page.goto(`${app.url}/deployments/${res.body.id}`);
      const table = page.getByRole('table', { name: 'Webhook deliveries' });
      await table.waitFor();
      const complete = await table.locator('tbody tr', { hasText: 'onComplete' }).locator('td').allInnerTexts();
      const failure = await table.locator('tbody tr', { hasText: 'onFailure' }).locator('td').allInnerTexts();
      expect(complete.slice(1, 5)).to.deep.equal(['onComplete', `POST ${receiver.url}/complete`, 'delivered', '1']);
      expect(failure.slice(1, 5)).to.deep.equal(['onFailure', `PUT ${receiver.url}/failure`, 'delivered', '2']);
      expect(failure[5]).to.contain('204');
      await page.getByRole('table', { name: 'Recent runs' }).getByRole('link', { name: started.body.runId }).waitFor();
    } finally {
      await receiver.close();
    }
  });

  it('tries an API design’s mock from the browser and shows its status and body', async () => {
    const res = await app.request('POST', '/v1/designs', {
      method: 'GET',
      path: '/users/{userId}',
      name: 'Get a user',
      responses: [
        { status: 200, code: 1, name: 'ada', data: { id: 1, name: 'Ada' }, headers: { 'X-Team': 'core' } },
        { status: 404, code: 1, data: { error: 'no such user' } },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    await page.goto(`${app.url}/designs/${res.body.id}`);
    expect(await page.getByTestId('mock-url').innerText()).to.equal(res.body.mockUrl);
    expect(await page.getByLabel('Mock path to call').inputValue()).to.equal(`/mock/${app.workspaceId}/users/1`);
    await page.getByRole('button', { name: 'Send GET' }).click();
    await page.getByTestId('try-status').getByText('200').waitFor();
    expect(JSON.parse(await page.getByTestId('try-body').innerText())).to.deep.equal({ id: 1, name: 'Ada' });
    await screenshot(page, 'design');

    await page.getByLabel('Status (_status_)').selectOption('404');
    await page.getByRole('button', { name: 'Send GET' }).click();
    await page.getByTestId('try-status').getByText('404').waitFor();
    expect(JSON.parse(await page.getByTestId('try-body').innerText())).to.deep.equal({ error: 'no such user' });
    await page.getByRole('region', { name: 'Status 200' }).getByText('X-Team').waitFor();
  });

  it('asks before deleting a test case, and deletes it only when confirmed', async () => {
    const res = await app.request('POST', '/v1/test-cases', { name: 'to delete', folder: 'tmp', flow: flow('/gone') });
    await page.goto(`${app.url}/test-cases/${res.body.id}`);
    await page.getByRole('tree', { name: 'Flow' }).waitFor();
    const questions: string[] = [];
    page.once('dialog', (d) => {
      questions.push(d.message());
      void d.dismiss();
    });
    await page.getByRole('button', { name: 'Delete' }).click();
    await eventually(async () => questions.length === 1);
    expect(questions[0]).to.contain('Delete test case “to delete”?');
    expect((await app.request('GET', `/v1/test-cases/${res.body.id}`)).status).to.equal(200);
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL(`${app.url}/test-cases`);
    expect((await app.request('GET', `/v1/test-cases/${res.body.id}`)).status).to.equal(404);
  });

  it('edits an environment’s servers and parent, and shows what it inherits with where it comes from', async () => {
    await app.request('POST', '/v1/environments', {
      name: 'reuse-base',
      variables: { shared: 'from-base', key: { value: 'base-secret', secret: true } },
      servers: { users: 'http://127.0.0.1:9/users' },
    });
    await app.request('POST', '/v1/environments', { name: 'reuse-child', variables: { own: 'x' } });
    await page.goto(`${app.url}/environments/reuse-child`);
    await page.getByRole('button', { name: 'Add server' }).click();
    await page.getByLabel('Name of server 1').fill('orders');
    await page.getByLabel('Base URL of orders').fill('http://127.0.0.1:9/orders');
    await page.getByLabel('Extends').fill('reuse-base');
    await page.getByRole('button', { name: 'Save variables' }).click();
    await page.getByText('Saved.', { exact: true }).waitFor();
    const env = (await app.request('GET', '/v1/environments/reuse-child')).body;
    expect(env).to.deep.include({ extends: 'reuse-base', servers: { orders: 'http://127.0.0.1:9/orders' } });
    const inherited = page.getByTestId('inherited');
    await inherited.getByText('from-base').waitFor();
    expect(await inherited.textContent())
      .to.contain('server.users')
      .and.contain('reuse-base')
      .and.not.contain('base-secret');
    await app.request('DELETE', '/v1/environments/reuse-child');
    await app.request('DELETE', '/v1/environments/reuse-base');
  });

  it('creates, renames and deletes an environment', async () => {
    await page.goto(`${app.url}/environments`);
    await page.getByLabel('Environment name').fill('qa');
    await page.getByRole('button', { name: 'Create environment' }).click();
    await page.waitForURL(`${app.url}/environments/qa`);
    await page.getByText('No variables yet.').waitFor();
    await page.getByLabel('New name').fill('qa-2');
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.waitForURL(`${app.url}/environments/qa-2`);
    expect((await app.request('GET', '/v1/environments/qa')).status).to.equal(404);
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete environment' }).click();
    await page.waitForURL(`${app.url}/environments`);
    expect((await app.request('GET', '/v1/environments/qa-2')).status).to.equal(404);
  });

  it('edits a runner’s selection, and the preview follows', async () => {
    await app.request('POST', '/v1/runners', { name: 'edit-me', folder: 'users' });
    await page.goto(`${app.url}/runners/edit-me`);
    await page.getByRole('table', { name: 'Selected test cases' }).waitFor();
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Tags (all required; comma-separated)').fill('fast');
    await page.getByRole('combobox', { name: /^Order/ }).selectOption('createdAt');
    await page.getByRole('button', { name: 'Save runner' }).click();
    await page.getByRole('region', { name: 'Selection' }).waitFor();
    const stored = (await app.request('GET', '/v1/runners/edit-me')).body;
    expect(stored).to.include({ folder: 'users', order: 'createdAt' });
    expect(stored.tags).to.deep.equal(['fast']);
    await eventually(
      async () => (await page.getByRole('table', { name: 'Selected test cases' }).locator('tbody tr').count()) === 1,
    );
    expect(
      await page
        .getByRole('table', { name: 'Selected test cases' })
        .locator('tbody tr td:nth-child(2)')
        .allInnerTexts(),
    ).to.deep.equal(['get user']);
  });

  it('marks the API’s errors in a new design’s JSON, then creates it', async () => {
    await page.goto(`${app.url}/designs/new`);
    await page.getByRole('textbox', { name: 'Design', exact: true }).waitFor();
    const design = {
      method: 'FETCH',
      path: '/orders/{orderId}',
      responses: [{ status: 200, code: 1, data: { id: 7 } }],
    };
    await setEditor(page, 'Design', JSON.stringify(design, null, 2));
    await page.getByRole('button', { name: 'Create design' }).click();
    const errors = page.getByRole('list', { name: 'Design errors' });
    await errors.waitFor();
    expect(await errors.innerText()).to.match(/^method /);
    expect(await page.locator('.cm-lintRange-error').first().innerText()).to.equal('"FETCH"');
    expect((await app.request('GET', '/v1/designs?path=/orders')).body.items).to.have.length(0);

    await setEditor(page, 'Design', JSON.stringify({ ...design, method: 'GET' }, null, 2));
    await page.getByRole('button', { name: 'Create design' }).click();
    await page.waitForURL(/\/designs\/dsg_/);
    await page.getByTestId('mock-url').waitFor();
    expect((await app.request('GET', '/v1/designs?path=/orders')).body.items).to.have.length(1);
  });

  it('lists the script libraries with their URLs', async () => {
    await page.goto(`${app.url}/libraries`);
    const table = page.getByRole('table', { name: 'Libraries' });
    await table.waitFor();
    const globals = await table.locator('tbody tr td:first-child').allInnerTexts();
    for (const g of ['_', 'faker', 'z', 'ky', 'luxon', 'CryptoJS']) expect(globals).to.include(g);
    const lodash = table.locator('tbody tr', { hasText: 'lodash' });
    expect(await lodash.innerText()).to.contain('builtin');
    const libs = (await app.request('GET', '/v1/libraries')).body.items as { global: string; url: string }[];
    const crypto = libs.find((l) => l.global === 'CryptoJS')!;
    await table.getByText(crypto.url).waitFor();
    expect(await page.getByLabel('Script example', { exact: true }).innerText()).to.contain(crypto.url);
  });
});
