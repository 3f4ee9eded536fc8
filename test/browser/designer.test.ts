/**
 * The test-case designer (docs/console.md "The designer") in a real Chromium against a real API,
 * store, Temporal server and worker, with the mocks on a port of their own as in the README:
 *
 * - the README's "first run" built by clicks and typing into forms only (no JSON typed): the mock
 *   design, the environment, both test cases with their assertions, the runner; then each test case
 *   run from the designer (a debug run through the engine), each node's result read from the tree;
 * - editing: a node dragged into a Loop and back, both undone; a cURL command pasted as a node; an
 *   assertion added from a response field; every field of a test case saved and read back (nothing
 *   lost: authProfile, reusable, hooks, data sets); a save over someone else's newer save refused
 *   with 409 and shown, then "Reload theirs";
 * - keyboard only: the tree navigated, a node added from the palette, moved, undone and redone,
 *   copied and pasted without a mouse;
 * - data sets edited as a table (no JSON), stored typed;
 * - 500 nodes open and an edit lands: timings written to the log (docs/benchmarks.md), never asserted.
 */
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { eventually, type TestApp } from '../helpers/app';
import { launchBrowser, screenshot, signedIn, startConsoleApp } from '../helpers/browser';
import { DesignerPage } from './pages/designer';

describe('console test-case designer', function () {
  this.timeout(180_000);
  let app: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let designer: DesignerPage;
  let workspaceId: string;
  /** Messages of the browser's confirm dialogs; the next one is dismissed when `dismissNext`. */
  const asked: string[] = [];
  let dismissNext = false;

  before(async () => {
    [app, browser] = await Promise.all([
      startConsoleApp({ worker: true, env: { ASSAY_MOCK_PORT: '0' } }),
      launchBrowser(),
    ]);
    workspaceId = (await app.request('GET', '/v1/workspaces')).body.items[0].id;
    ({ context, page } = await signedIn(browser, app));
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
    designer = new DesignerPage(page);
    // Leaving the designer with unsaved changes asks first: these tests accept, unless told to dismiss.
    page.on('dialog', (d) => {
      asked.push(d.message());
      void (dismissNext ? ((dismissNext = false), d.dismiss()) : d.accept());
    });
  });

  after(async () => {
    await browser?.close();
    await app?.stop();
  });

  it('builds the README’s first run by forms only, and runs each test case from the designer', async () => {
    // The mock design: GET /users/{userId} answering Ada.
    await page.goto(`${app.url}/designs/new`);
    const form = page.getByRole('form', { name: 'From a form' });
    await form.getByRole('combobox', { name: 'Method', exact: true }).selectOption('GET');
    await form.getByRole('textbox', { name: 'Path', exact: true }).fill('/users/{userId}');
    await form.getByRole('textbox', { name: 'Name', exact: true }).fill('Get a user');
    for (const [i, [name, value]] of [
      ['id', '1'],
      ['name', 'Ada'],
      ['email', 'ada@example.com'],
    ].entries()) {
      if (i > 0) await form.getByRole('button', { name: 'Add field' }).click();
      await form.getByRole('textbox', { name: `Field ${i + 1} name`, exact: true }).fill(name!);
      await form.getByRole('textbox', { name: `Field ${i + 1} value`, exact: true }).fill(value!);
    }
    await form.getByRole('button', { name: 'Create from form' }).click();
    await page.waitForURL(/\/designs\/[^/]+$/);

    // The environment: base = the mocks' address.
    await page.goto(`${app.url}/environments`);
    await page.getByLabel('Environment name').fill('local');
    await page.getByRole('button', { name: 'Create environment' }).click();
    await page.waitForURL(`${app.url}/environments/local`);
    await page.getByRole('button', { name: 'Add variable' }).click();
    await page.getByLabel('Name of variable 1').fill('base');
    await page.getByLabel('Value of base', { exact: true }).fill(`${app.api.mockUrl}/mock/${workspaceId}`);
    await page.getByRole('button', { name: 'Save variables' }).click();
    await page.getByText('Saved.', { exact: true }).waitFor();

    // Two test cases, in the designer.
    const build = async (
      name: string,
      path: string,
      assertions: [target: string, operator: string, expected: string][],
    ): Promise<string> => {
      await page.goto(`${app.url}/test-cases/new`);
      await page.getByLabel('Test case name').fill(name);
      await page.getByLabel(/^Folder/).fill('smoke');
      await designer.addFromPalette('API', 'here');
      await designer.fill('URL', `{{base}}${path}`);
      for (const [i, [target, operator, expected]] of assertions.entries()) {
        if (i > 0 || !(await designer.field('Assertion 1 target').count()))
          await page.getByRole('button', { name: 'Add assertion' }).click();
        await designer.fill(`Assertion ${i + 1} target`, target);
        await designer.choose(`Assertion ${i + 1} operator`, operator);
        await designer.fill(`Assertion ${i + 1} expected`, expected);
      }
      await designer.save();
      await page.waitForURL(/\/test-cases\/tc_\w+$/);
      await designer.tree.waitFor();
      return page.url().split('/').pop()!;
    };
    const getUser = await build('get a user', '/users/1', [
      ['response.status', 'equals', '200'],
      ['response.body.name', 'equals', 'Ada'],
    ]);
    const notFound = await build('unknown path is a 404 on purpose', '/no-such-path', [
      ['response.status', 'equals', '404'],
      ['response.headers."content-type"', 'contains', 'problem+json'],
    ]);
    const stored = (await app.request('GET', `/v1/test-cases/${getUser}`)).body;
    expect(stored).to.include({ name: 'get a user', folder: 'smoke' });
    expect(stored.flow[0].request).to.deep.equal({ method: 'GET', url: '{{base}}/users/1' });
    expect(stored.flow[0].assertions).to.deep.equal([
      { target: 'response.status', operator: 'equals', expected: 200 },
      { target: 'response.body.name', operator: 'equals', expected: 'Ada' },
    ]);

    // The runner.
    await page.goto(`${app.url}/runners/new`);
    await page.getByLabel('Runner name').fill('smoke');
    await page.getByLabel(/^Folder/).fill('smoke');
    await page.getByRole('button', { name: 'Create runner' }).click();
    await page.waitForURL(`${app.url}/runners/smoke`);
    const preview = (await app.request('GET', '/v1/runners/smoke/test-cases')).body;
    expect(JSON.stringify(preview)).to.contain(getUser).and.contain(notFound);

    // Each test case run from the designer; each node's result read from the tree.
    for (const id of [getUser, notFound]) {
      await page.goto(`${app.url}/test-cases/${id}`);
      const node = (await app.request('GET', `/v1/test-cases/${id}`)).body.flow[0].id as string;
      await designer.run('local');
      await eventually(async () => (await designer.description(node)).includes('passed'), 10_000);
      if (id === getUser) await screenshot(page, 'designer-run');
    }
    // They were debug runs, listed as such, and left no history.
    const debugRuns = (await app.request('GET', '/v1/runs?trigger=debug')).body.items;
    expect(debugRuns).to.have.length(2);
    expect(
      debugRuns.every((r: { result: string; runner: null }) => r.result === 'passed' && r.runner === null),
    ).to.equal(true);
  });

  it('edits a data set as a table: columns user/expected, two rows, stored typed', async () => {
    const created = await app.request('POST', '/v1/test-cases', {
      name: 'data sets by table',
      folder: 'edits',
      flow: [{ type: 'wait', id: 'w', name: 'w', ms: 1 }],
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    await page.goto(`${app.url}/test-cases/${created.body.id}`);
    await designer.item('w').waitFor();
    // The "Test case" section is closed for a saved test case.
    await page.getByText('Test case: name, folder, tags, auth, data sets, hooks').click();
    await page.getByRole('button', { name: 'Add data set' }).click();
    const set = page.getByRole('group', { name: 'Data set 1', exact: true });
    await set.getByRole('textbox', { name: 'Data set 1 name', exact: true }).fill('logins');
    await set.getByRole('textbox', { name: 'Column 1 name', exact: true }).fill('user');
    await set.getByRole('button', { name: 'Add column' }).click();
    await set.getByRole('textbox', { name: 'Column 2 name', exact: true }).fill('expected');
    await set.getByRole('textbox', { name: 'Row 1 user', exact: true }).fill('ada');
    await set.getByRole('textbox', { name: 'Row 1 expected', exact: true }).fill('200');
    await set.getByRole('button', { name: 'Add row' }).click();
    await set.getByRole('textbox', { name: 'Row 2 user', exact: true }).fill('bob');
    await set.getByRole('textbox', { name: 'Row 2 expected', exact: true }).fill('404');
    await designer.save();
    await designer.saved();
    const stored = (await app.request('GET', `/v1/test-cases/${created.body.id}`)).body;
    expect(stored.dataSets).to.deep.equal([
      {
        name: 'logins',
        type: 'json',
        data: [
          { user: 'ada', expected: 200 },
          { user: 'bob', expected: 404 },
        ],
      },
    ]);
  });

  describe('editing', () => {
    let id: string;
    const flow = () => [
      {
        type: 'api',
        id: 'login',
        name: 'login',
        request: { method: 'GET', url: '{{base}}/users/1' },
        assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
      },
      { type: 'loop', id: 'again', name: 'again', count: 2, body: [] },
      { type: 'wait', id: 'pause', name: 'pause', ms: 1 },
    ];

    before(async () => {
      await app.request('POST', '/v1/designs', {
        method: 'GET',
        path: '/users/{userId}',
        name: 'Get a user (editing)',
        responses: [{ status: 200, code: 1, data: { id: 1, name: 'Ada', email: 'ada@example.com' } }],
      });
      await app.request('POST', '/v1/environments', {
        name: 'mocks',
        variables: { base: `${app.api.mockUrl}/mock/${workspaceId}` },
      });
      expect(
        (
          await app.request('POST', '/v1/auth-profiles', {
            name: 'svc',
            type: 'bearer',
            config: { token: 'abcd-1234' },
          })
        ).status,
      ).to.equal(201);
      const res = await app.request('POST', '/v1/test-cases', {
        name: 'edit me',
        folder: 'edits',
        tags: ['a', 'b'],
        description: 'every field set',
        flow: flow(),
        dataSets: [{ name: 'users', type: 'json', data: [{ user: 1 }] }],
        hooks: { code: 'function beforeRequest() {}' },
        authProfile: 'svc',
        reusable: true,
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      id = res.body.id;
    });

    it('drags a node into a Loop and back, and undoes both', async () => {
      await page.goto(`${app.url}/test-cases/${id}`);
      await designer.item('login').waitFor();
      expect(await designer.levels()).to.deep.equal(['1:login', '1:again', '1:pause']);
      // Onto the Loop's row: into its body.
      await designer.row('login').dragTo(designer.row('again'));
      await eventually(async () => (await designer.levels()).join() === '1:again,2:login,1:pause', 5000);
      // Onto the top edge of the Wait's row: before it, at the top level again.
      await designer.row('login').dragTo(designer.row('pause'), { targetPosition: { x: 20, y: 3 } });
      await eventually(async () => (await designer.levels()).join() === '1:again,1:login,1:pause', 5000);
      await page.getByRole('button', { name: 'Undo' }).click();
      await eventually(async () => (await designer.levels()).join() === '1:again,2:login,1:pause', 5000);
      await page.getByRole('button', { name: 'Undo' }).click();
      await eventually(async () => (await designer.levels()).join() === '1:login,1:again,1:pause', 5000);
      expect(await designer.json()).to.deep.equal(flow());
      expect(await page.getByRole('button', { name: 'Save' }).isDisabled()).to.equal(true);
    });

    it('turns a pasted cURL command into an API node', async () => {
      await page.goto(`${app.url}/test-cases/${id}`);
      await designer.select('pause');
      await page.getByRole('button', { name: 'Paste cURL' }).click();
      const dialog = page.getByRole('dialog', { name: 'Paste cURL' });
      await dialog
        .getByLabel('curl command')
        .fill(
          `curl -X POST 'https://api.example.com/orders' -H 'X-Trace: t-1' -H 'Content-Type: application/json' --data-raw '{"sku":"A-1","qty":2}'`,
        );
      await dialog.getByRole('button', { name: 'Add node' }).click();
      await dialog.waitFor({ state: 'detached' });
      const added = (await designer.json()) as Array<{ type: string; request?: Record<string, unknown> }>;
      expect(added).to.have.length(4);
      const node = added[3]!;
      expect(node.type).to.equal('api');
      expect(node.request).to.deep.include({ method: 'POST', body: { sku: 'A-1', qty: 2 } });
      expect(node.request!.headers).to.deep.include({ 'X-Trace': 't-1' });

      // Credentials never stay literals: the node names a variable, the dialog offers to keep the
      // value as a secret of an environment.
      expect((await app.request('POST', '/v1/environments', { name: 'paste-env', variables: {} })).status).to.equal(
        201,
      );
      await page.getByRole('button', { name: 'Paste cURL' }).click();
      await dialog
        .getByLabel('curl command')
        .fill(`curl https://api.example.com/me -H 'Authorization: Bearer tok-secret-7731'`);
      await dialog.getByRole('button', { name: 'Add node' }).click();
      const credentials = dialog.getByRole('group', { name: 'Credentials' });
      await credentials.getByText('{{token}}').waitFor();
      await credentials.getByLabel('Keep their values as secrets in').selectOption('paste-env');
      await dialog.getByRole('button', { name: 'Add node' }).click();
      await dialog.waitFor({ state: 'detached' });
      const withMe = (await designer.json()) as Array<{ request?: { url: string; headers?: Record<string, string> } }>;
      const me = withMe.find((n) => n.request?.url === 'https://api.example.com/me');
      expect(me?.request?.headers).to.deep.equal({ Authorization: 'Bearer {{token}}' });
      expect(JSON.stringify(withMe)).not.to.include('tok-secret-7731');
      const env = await app.request('GET', '/v1/environments/paste-env');
      expect(env.body.variables).to.deep.equal({ token: { secret: true, value: '***' } });
      await page.getByRole('button', { name: 'Undo' }).click();

      // An API design's operation becomes a node: method, path, a status assertion.
      await page.getByRole('button', { name: 'From API design' }).click();
      const fromDesign = page.getByRole('dialog', { name: 'From API design' });
      await fromDesign.getByLabel('Design (path)').selectOption('/users/{userId}');
      await fromDesign.getByRole('radio', { name: /GET/ }).check();
      await fromDesign.getByRole('button', { name: 'Add node' }).click();
      await fromDesign.waitFor({ state: 'detached' });
      const withDesign = (await designer.json()) as Array<{
        request?: { method: string; url: string };
        assertions?: unknown[];
      }>;
      const fromOperation = withDesign.find((n) => n.request?.url === '{{base}}/users/{{userId}}');
      expect(fromOperation?.request?.method).to.equal('GET');
      expect(fromOperation?.assertions?.[0]).to.deep.include({
        target: 'response.status',
        operator: 'equals',
        expected: 200,
      });

      // A local request of this browser becomes a node too.
      const now = new Date().toISOString();
      await page.evaluate(([key, doc]) => localStorage.setItem(key, doc), [
        `assay.local-requests.v1.${workspaceId}`,
        JSON.stringify({
          version: 1,
          groups: [],
          requests: [
            {
              id: 'r1',
              name: 'list orders',
              method: 'GET',
              url: '/orders?status=open',
              headers: [{ name: 'Accept', value: 'application/json', enabled: true }],
              bodyKind: 'none',
              text: '',
              form: [],
              multipart: [],
              group: null,
              relay: false,
              createdAt: now,
              updatedAt: now,
            },
          ],
        }),
      ] as const);
      await page.getByRole('button', { name: 'From a local request' }).click();
      const local = page.getByRole('dialog', { name: 'From a local request' });
      await local.getByRole('button', { name: /list orders/ }).click();
      await local.waitFor({ state: 'detached' });
      const withLocal = (await designer.json()) as Array<{ name?: string; request?: Record<string, unknown> }>;
      const fromLocal = withLocal.find((n) => n.name === 'list orders');
      expect(fromLocal?.request).to.deep.include({ method: 'GET', url: '{{base}}/orders?status=open' });
    });

    it('sends one API node alone, and marks a refused save at the node and its field', async () => {
      await page.goto(`${app.url}/test-cases/${id}`);
      await page.getByLabel('Run in environment', { exact: true }).selectOption('mocks');
      await designer.select('login');
      await designer.page.getByRole('region', { name: 'Node' }).getByRole('button', { name: 'Send' }).click();
      await page
        .getByRole('region', { name: 'Debug result of login' })
        .getByText('passed', { exact: true })
        .first()
        .waitFor();
      expect(await designer.description('login')).to.contain('passed');

      await page.getByRole('tab', { name: 'Edit' }).click();
      await designer.fill('URL', '');
      await designer.save();
      await eventually(async () => (await designer.description('login')).includes('1 problem'), 5000);
      const url = designer.field('URL');
      const error = await url.evaluate((el) => el.closest('.field, label, .dzf-field')?.textContent ?? '');
      expect(error).to.match(/fewer than 1 characters|must NOT have fewer/);
      expect((await app.request('GET', `/v1/test-cases/${id}`)).body.flow[0].request.url).to.equal('{{base}}/users/1');
      await screenshot(page, 'designer-field-error');
      // The Scripts tab's code editor completes what hooks see.
      await page.getByRole('tab', { name: 'Scripts' }).click();
      await designer.field('Script code').click();
      await page.keyboard.type('$cont');
      await page.getByRole('listbox').getByText('$context.set').waitFor();
      await page.keyboard.press('Escape');
      // Undo every edit (the script's, the URL's): the page has nothing unsaved again.
      const undo = page.getByRole('button', { name: 'Undo' });
      for (let i = 0; i < 10 && !(await undo.isDisabled()); i++) await undo.click();
      await page.getByRole('tab', { name: 'Params' }).click();
      await eventually(async () => (await url.inputValue()) === '{{base}}/users/1', 5000);
      expect(await page.getByRole('button', { name: 'Save' }).isDisabled()).to.equal(true);
    });

    it('keeps unsaved changes as a draft in this browser and offers them back', async () => {
      // An earlier test may have left a draft of this test case (its page closed within the draft's
      // delay): an edit instead of "Restore them" sets it aside, so this test starts from one too.
      await page.evaluate(([key, doc]) => localStorage.setItem(key, doc), [
        `assay.designer.v1.${workspaceId}.${id}`,
        JSON.stringify({ doc: { name: 'stale', flow: [], dataSets: [], tags: [] }, savedAt: new Date().toISOString() }),
      ] as const);
      await page.goto(`${app.url}/test-cases/${id}`);
      await page.getByText(/This browser kept unsaved changes from/).waitFor();
      await designer.select('pause');
      await designer.fill('Wait (ms)', '250');
      await page.getByText('Unsaved changes (kept as a draft in this browser).').waitFor();
      // The offer goes with the edit (a render later on a busy machine).
      await eventually(
        async () => (await page.getByText(/This browser kept unsaved changes from/).count()) === 0,
        5000,
      );
      // A link away asks first; "Cancel" keeps the page and the edit.
      dismissNext = true;
      asked.length = 0;
      await page.getByRole('link', { name: 'Runs', exact: true }).click();
      await eventually(async () => asked.length === 1, 5000);
      expect(asked[0]).to.contain('unsaved changes');
      expect(new URL(page.url()).pathname).to.equal(`/test-cases/${id}`);
      expect(await designer.field('Wait (ms)').inputValue()).to.equal('250');
      // The draft is written a moment after the last edit.
      await eventually(
        async () =>
          (
            await page.evaluate((key) => localStorage.getItem(key) ?? '', `assay.designer.v1.${workspaceId}.${id}`)
          ).includes('"ms":250'),
        5000,
      );
      await page.reload(); // the page asks before leaving (beforeunload); the handler accepts
      await page.getByText(/This browser kept unsaved changes from/).waitFor();
      await page.getByRole('button', { name: 'Restore them' }).click();
      await designer.select('pause');
      expect(await designer.field('Wait (ms)').inputValue()).to.equal('250');
      await page.getByRole('button', { name: 'Undo' }).click();
      await eventually(async () => (await designer.field('Wait (ms)').inputValue()) === '1', 5000);
    });

    it('adds an assertion from a field of a debug response, and saves every field of the test case', async () => {
      await page.goto(`${app.url}/test-cases/${id}`);
      await designer.run('mocks');
      await designer.select('login');
      await page.getByRole('tab', { name: /^Result/ }).click();
      const body = page.getByRole('group', { name: 'Response body' });
      await body.getByRole('button', { name: /^Actions for .*name$/ }).click();
      await page.getByRole('menuitem', { name: 'Assert equals "Ada"' }).click();
      await eventually(async () => (await designer.field('Assertion 2 target').count()) === 1, 5000);
      expect(await designer.field('Assertion 2 target').inputValue()).to.equal('response.body.name');
      await screenshot(page, 'designer-assert-from-response');
      await designer.save();
      await designer.saved();
      const saved = (await app.request('GET', `/v1/test-cases/${id}`)).body;
      const expectedFlow = flow();
      (expectedFlow[0] as { assertions: unknown[] }).assertions.push({
        target: 'response.body.name',
        operator: 'equals',
        expected: 'Ada',
      });
      expect(saved.flow).to.deep.equal(expectedFlow);
      // Nothing else lost or changed: the fields the console once dropped on save included.
      expect(saved).to.deep.include({
        name: 'edit me',
        folder: 'edits',
        tags: ['a', 'b'],
        description: 'every field set',
        dataSets: [{ name: 'users', type: 'json', data: [{ user: 1 }] }],
        hooks: { code: 'function beforeRequest() {}' },
        authProfile: 'svc',
        reusable: true,
        version: 2,
      });
    });

    it('refuses a save over someone else’s newer save (409), says what changed, and reloads theirs', async () => {
      await page.goto(`${app.url}/test-cases/${id}`);
      await designer.item('login').waitFor();
      const current = (await app.request('GET', `/v1/test-cases/${id}`)).body;
      // Someone else saves meanwhile.
      const theirs = await app.request('PUT', `/v1/test-cases/${id}`, {
        ...current,
        description: 'changed by someone else',
        id: undefined,
        version: undefined,
        createdAt: undefined,
        updatedAt: undefined,
      });
      expect(theirs.status, JSON.stringify(theirs.body)).to.equal(200);
      await designer.select('pause');
      await designer.fill('Wait (ms)', '5');
      await designer.save();
      const dialog = page.getByRole('dialog', { name: 'This test case was changed meanwhile' });
      await dialog.waitFor();
      expect(await dialog.getByRole('list', { name: 'How theirs differs from yours' }).innerText()).to.contain(
        'description',
      );
      await screenshot(page, 'designer-conflict');
      // Nothing of mine was stored.
      const stored = (await app.request('GET', `/v1/test-cases/${id}`)).body;
      expect(stored.description).to.equal('changed by someone else');
      expect(stored.flow[2].ms).to.equal(1);
      await dialog.getByRole('button', { name: 'Reload theirs (discard mine)' }).click();
      await dialog.waitFor({ state: 'detached' });
      await page.getByText('Reloaded the saved version').waitFor();
      await designer.select('pause');
      expect(await designer.field('Wait (ms)').inputValue()).to.equal('1');
    });
  });

  it('is operable by keyboard alone: navigate the tree, add a node, move it, undo and redo', async () => {
    const res = await app.request('POST', '/v1/test-cases', {
      name: 'keyboard',
      flow: [
        { type: 'wait', id: 'first', ms: 1 },
        { type: 'if', id: 'check', condition: 'true', then: [{ type: 'wait', id: 'inner', ms: 1 }] },
      ],
    });
    await page.goto(`${app.url}/test-cases/${res.body.id}`);
    await designer.item('first').waitFor();
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label'));
    // Tab into the tree from the view switch: the roving tabindex lands on the first node.
    await page.getByRole('tab', { name: 'Designer', exact: true }).focus();
    for (let i = 0; i < 10 && (await focused()) !== 'first'; i++) await page.keyboard.press('Tab');
    expect(await focused()).to.equal('first');
    const press = async (key: string, then: string) => {
      await page.keyboard.press(key);
      await eventually(async () => (await focused()) === then, 5000);
    };
    await press('ArrowDown', 'check');
    await press('ArrowDown', 'inner');
    await press('ArrowLeft', 'check'); // a leaf's ArrowLeft: to its parent (WAI-ARIA tree view)
    // Insert opens the palette after the focused node; typing filters, Enter adds.
    await page.keyboard.press('Insert');
    await page.keyboard.type('Assert');
    await page.keyboard.press('Enter');
    await eventually(async () => (await designer.levels()).length === 4, 5000);
    const added = (await designer.levels())[3]!;
    expect(added).to.match(/^1:assert\d*$/);
    await eventually(async () => (await focused()) === added.slice(2), 5000);
    // Alt+↑ moves it up, into the IF's branch; Ctrl+Z undoes, Ctrl+Shift+Z redoes.
    await page.keyboard.press('Alt+ArrowUp');
    await eventually(
      async () => (await designer.levels()).join() === `1:first,1:check,2:inner,2:${added.slice(2)}`,
      5000,
    );
    // The moved row is drawn again and takes the focus back on the next frame.
    await eventually(async () => (await focused()) === added.slice(2), 5000);
    await page.keyboard.press('Control+z');
    await eventually(
      async () => (await designer.levels()).join() === `1:first,1:check,2:inner,1:${added.slice(2)}`,
      5000,
    );
    await eventually(async () => (await focused()) === added.slice(2), 5000);
    await page.keyboard.press('Control+Shift+z');
    await eventually(
      async () => (await designer.levels()).join() === `1:first,1:check,2:inner,2:${added.slice(2)}`,
      5000,
    );
    // Ctrl+C puts the focused node on the clipboard as JSON; Ctrl+V pastes a copy after it, its id renamed.
    // Home moves the focus to the first node; pressed again if a render after the redo took it back.
    await eventually(async () => {
      if ((await focused()) !== 'first') await page.keyboard.press('Home');
      return (await focused()) === 'first';
    }, 10_000);
    await page.keyboard.press('Control+c');
    await eventually(async () => (await page.evaluate(() => navigator.clipboard.readText())).includes('"first"'), 5000);
    await page.keyboard.press('Control+v');
    await eventually(async () => (await designer.levels()).length === 5, 5000);
    const copied = JSON.parse(await page.evaluate(() => navigator.clipboard.readText()));
    expect([copied].flat()[0]).to.deep.include({ type: 'wait', id: 'first', ms: 1 });
    expect((await designer.levels())[1]).to.match(/^1:first\d+$/);
    const live = await page.getByRole('tree', { name: 'Flow' }).locator('xpath=..').getByRole('status').innerText();
    expect(live.length).to.be.greaterThan(0);
  });

  it('opens a test case of 500 nodes and takes an edit (figures logged for docs/benchmarks.md)', async () => {
    const flow: unknown[] = [];
    for (let i = 0; flow.length < 450; i++)
      flow.push({
        type: 'api',
        id: `call${i}`,
        request: { method: 'GET', url: `{{base}}/items/${i}` },
        assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
      });
    for (let i = 0; i < 10; i++)
      flow.push({
        type: 'if',
        id: `branch${i}`,
        condition: 'true',
        then: Array.from({ length: 4 }, (_, k) => ({ type: 'wait', id: `w${i}_${k}`, ms: 1 })),
      });
    const res = await app.request('POST', '/v1/test-cases', { name: 'five hundred', flow });
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).to.equal(201);
    const started = Date.now();
    await page.goto(`${app.url}/test-cases/${res.body.id}`);
    await designer.item('w9_3').waitFor();
    const openMs = Date.now() - started;
    expect(await page.getByRole('treeitem').count()).to.equal(500);
    await designer.select('call200');
    const name = designer.field('Name');
    await name.click();
    const edit = await page.evaluate(async () => {
      const input = document.activeElement as HTMLInputElement;
      const t0 = performance.now();
      input.value = 'renamed';
      input.dispatchEvent(new Event('input', { bubbles: true }));
      // Until the tree shows the new name, painted.
      await new Promise<void>((resolve) => {
        const check = () =>
          document.querySelector('[role="treeitem"][aria-label="renamed"]') ? resolve() : requestAnimationFrame(check);
        check();
      });
      await new Promise((r) => requestAnimationFrame(() => r(undefined)));
      return performance.now() - t0;
    });
    console.log(
      `      500 nodes: opened in ${openMs} ms (navigation to the last row drawn); an edit painted in ${edit.toFixed(0)} ms`,
    );
    expect(await designer.item('renamed').count()).to.equal(1);
  });
});
