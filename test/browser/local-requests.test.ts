/**
 * The console's Local requests page (docs/interface-spec.md "Local request";
 * docs/local-requests.md), driven in a real Chromium against a test app (no worker needed) and two
 * echo servers on 127.0.0.1: one that allows CORS, one that does not (so the browser blocks it).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { execFileSync } from 'node:child_process';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { eventually, startTestApp, type TestApp } from '../helpers/app';
import { launchBrowser, openConsole, recordApiRequests, screenshot, signIn, signedIn } from '../helpers/browser';

/** One request as an echo server saw it. */
interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

interface Echo {
  url: string;
  seen: Seen[];
  close(): Promise<void>;
}

/**
 * An echo server on 127.0.0.1: answers every request with JSON `{method, url, headers, body}` and
 * records it. With `cors`, it allows any origin, method and header (answering preflights) and
 * exposes its headers; without, the browser refuses to hand its answers to the page.
 */
async function startEcho(cors: boolean): Promise<Echo> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (cors) {
        res.setHeader('Access-Control-Allow-Origin', '*');
        res.setHeader('Access-Control-Expose-Headers', '*');
        if (req.method === 'OPTIONS' && req.headers['access-control-request-method']) {
          res.setHeader('Access-Control-Allow-Methods', 'GET, POST, PUT, DELETE, PATCH, HEAD, OPTIONS');
          res.setHeader('Access-Control-Allow-Headers', req.headers['access-control-request-headers'] ?? '*');
          res.writeHead(204).end();
          return;
        }
      }
      const entry: Seen = {
        method: req.method!,
        url: req.url!,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      seen.push(entry);
      res.setHeader('Content-Type', 'application/json');
      res.setHeader('X-Echo', 'yes');
      res.end(JSON.stringify(entry));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen, close: () => new Promise((r) => server.close(() => r())) };
}

describe('Local requests page (console)', function () {
  this.timeout(120_000);
  let app: TestApp;
  let browser: Browser;
  let echo: Echo;
  let closed: Echo;

  before(async () => {
    [app, browser, echo, closed] = await Promise.all([
      startTestApp({ worker: false }),
      launchBrowser(),
      startEcho(true),
      startEcho(false),
    ]);
  });
  after(async () => {
    await browser?.close();
    await echo?.close();
    await closed?.close();
    await app?.stop();
  });

  /** A signed-in page on /requests. */
  async function open(): Promise<Page> {
    const { page } = await signedIn(browser, app);
    await page.getByRole('link', { name: 'Local requests' }).click();
    await page.getByRole('heading', { name: 'Local requests', level: 1 }).waitFor();
    return page;
  }

  /** Makes a new request and waits for its editor. */
  async function newRequest(page: Page): Promise<void> {
    await page.getByRole('button', { name: 'New request' }).first().click();
    await page.getByLabel('URL', { exact: true }).waitFor();
  }

  /** The stored document of the signed-in workspace (localStorage). */
  async function stored(page: Page, workspaceId = app.workspaceId): Promise<any> {
    return page.evaluate(
      (key) => JSON.parse(localStorage.getItem(key) ?? 'null'),
      `assay.local-requests.v1.${workspaceId}`,
    );
  }

  /** Sets method and URL. */
  async function target(page: Page, method: string, url: string): Promise<void> {
    await page.getByLabel('Method', { exact: true }).selectOption(method);
    await page.getByLabel('URL', { exact: true }).fill(url);
  }

  /** Clicks Send and waits for the answer the echo server recorded (number `n`, from 1). */
  async function sendAndEcho(page: Page, server: Echo = echo): Promise<Seen> {
    const before = server.seen.length;
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByTestId('response-status').waitFor();
    return eventually(async () => server.seen[before], 10_000);
  }

  /** Types `text` into the CodeMirror editor named `label` (insertText: no auto-closed brackets). */
  async function typeInEditor(page: Page, label: string, text: string): Promise<void> {
    const editor = page.getByRole('textbox', { name: label });
    await editor.click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText(text);
  }

  async function addHeader(page: Page, name: string, value: string): Promise<void> {
    const n = await page.getByLabel(/^Header \d+ name$/).count();
    await page.getByRole('button', { name: 'Add header' }).click();
    await page.getByLabel(`Header ${n + 1} name`).fill(name);
    await page.getByLabel(`Header ${n + 1} value`).fill(value);
  }

  it('shows an empty state that offers a new request or a curl import', async () => {
    const page = await open();
    const empty = page.locator('.empty');
    expect(await empty.textContent()).to.contain('No local requests yet');
    expect(await empty.getByRole('button', { name: 'New request' }).isVisible()).to.equal(true);
    expect(await empty.getByRole('button', { name: 'Import from curl' }).isVisible()).to.equal(true);
    await page.context().close();
  });

  it('starts a new request as GET / with no name, and shows the URL as its name until it has one', async () => {
    const page = await open();
    await newRequest(page);
    expect(await page.getByLabel('Method', { exact: true }).inputValue()).to.equal('GET');
    expect(await page.getByLabel('URL', { exact: true }).inputValue()).to.equal('/');
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).to.equal('');
    expect(await page.getByTestId('request-title').textContent()).to.equal('/');
    const list = page.getByRole('navigation', { name: 'Local requests list' });
    expect(await list.getByRole('link').textContent()).to.equal('GET/');
    await page.getByLabel('URL', { exact: true }).fill('/v1/health');
    expect(await page.getByTestId('request-title').textContent()).to.equal('/v1/health');
    await page.getByLabel('Name', { exact: true }).fill('Health check');
    expect(await page.getByTestId('request-title').textContent()).to.equal('Health check');
    expect(await list.getByRole('link').textContent()).to.equal('GETHealth check');
    expect(await page.getByLabel('Method', { exact: true }).locator('option').allTextContents()).to.deep.equal([
      'GET',
      'POST',
      'PUT',
      'DELETE',
      'PATCH',
      'HEAD',
      'OPTIONS',
    ]);
    await page.context().close();
  });

  it('sends each method to the server, straight from the browser', async () => {
    const page = await open();
    await newRequest(page);
    for (const method of ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS']) {
      await target(page, method, `${echo.url}/m/${method}`);
      const seen = await sendAndEcho(page);
      expect(seen.method, method).to.equal(method);
      expect(seen.url).to.equal(`/m/${method}`);
      expect(await page.getByTestId('response-status').textContent()).to.contain('200');
    }
    await page.context().close();
  });

  it('sends the enabled headers and leaves out the disabled ones', async () => {
    const page = await open();
    await newRequest(page);
    await target(page, 'GET', `${echo.url}/headers`);
    await addHeader(page, 'X-One', 'first value');
    await addHeader(page, 'X-Two', 'second');
    await page.getByLabel('Send header 2').uncheck();
    const seen = await sendAndEcho(page);
    expect(seen.headers['x-one']).to.equal('first value');
    expect(seen.headers).not.to.have.property('x-two');
    await page.context().close();
  });

  it('sends a JSON body with Content-Type application/json, and invalid JSON as written with a note', async () => {
    const page = await open();
    await newRequest(page);
    await target(page, 'POST', `${echo.url}/json`);
    await page.getByRole('radio', { name: 'JSON' }).check();
    await typeInEditor(page, 'JSON body', '{"name": "Ada", "tags": ["a", "b"]}');
    let seen = await sendAndEcho(page);
    expect(seen.headers['content-type']).to.equal('application/json');
    expect(JSON.parse(seen.body)).to.deep.equal({ name: 'Ada', tags: ['a', 'b'] });
    await typeInEditor(page, 'JSON body', '{"name": Ada}');
    await page.getByText('Not valid JSON: it is still sent, exactly as written').waitFor();
    seen = await sendAndEcho(page);
    expect(seen.body).to.equal('{"name": Ada}');
    await page.context().close();
  });

  it('sends a URL-encoded form', async () => {
    const page = await open();
    await newRequest(page);
    await target(page, 'POST', `${echo.url}/form`);
    await page.getByRole('radio', { name: 'URL-encoded form' }).check();
    for (const [i, [name, value]] of [
      ['user', 'Ada Lovelace'],
      ['note', 'a&b=c'],
    ].entries()) {
      await page.getByRole('button', { name: 'Add field' }).click();
      await page.getByLabel(`Field ${i + 1} name`).fill(name!);
      await page.getByLabel(`Field ${i + 1} value`).fill(value!);
    }
    const seen = await sendAndEcho(page);
    expect(seen.headers['content-type']).to.equal('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(seen.body))).to.deep.equal({ user: 'Ada Lovelace', note: 'a&b=c' });
    await page.context().close();
  });

  it('sends a multipart form with a text part and a file, and keeps the file across a reload', async () => {
    const page = await open();
    await newRequest(page);
    await target(page, 'POST', `${echo.url}/upload`);
    await page.getByRole('radio', { name: 'Multipart form (files)' }).check();
    await page.getByRole('button', { name: 'Add part' }).click();
    await page.getByLabel('Part 1 name').fill('title');
    await page.getByLabel('Part 1 value').fill('Quarterly report');
    await page.getByRole('button', { name: 'Add part' }).click();
    await page.getByLabel('Part 2 kind').selectOption('file');
    await page.getByLabel('Part 2 name').fill('attachment');
    await page
      .getByLabel('Part 2 file')
      .setInputFiles({ name: 'report.csv', mimeType: 'text/csv', buffer: Buffer.from('quarter,total\nQ1,1200\n') });
    await eventually(
      async () => (await page.getByTestId('part-2-file').textContent())?.includes('report.csv (22 B)'),
      5000,
    );
    const check = (seen: Seen) => {
      expect(seen.headers['content-type']).to.match(/^multipart\/form-data; boundary=/);
      expect(seen.body).to.contain('name="title"\r\n\r\nQuarterly report\r\n');
      expect(seen.body).to.contain(
        'name="attachment"; filename="report.csv"\r\nContent-Type: text/csv\r\n\r\nquarter,total\nQ1,1200\n\r\n',
      );
    };
    check(await sendAndEcho(page));
    await page.reload();
    await page.getByLabel('Part 2 file').waitFor();
    expect(await page.getByTestId('part-2-file').textContent()).to.equal('report.csv (22 B)');
    check(await sendAndEcho(page));
    await page.context().close();
  });

  it('sends a plain-text body as text/plain', async () => {
    const page = await open();
    await newRequest(page);
    await target(page, 'PUT', `${echo.url}/text`);
    await page.getByRole('radio', { name: 'Plain text' }).check();
    await typeInEditor(page, 'Text body', 'line one\nline two');
    const seen = await sendAndEcho(page);
    expect(seen.headers['content-type']).to.equal('text/plain;charset=UTF-8');
    expect(seen.body).to.equal('line one\nline two');
    await page.context().close();
  });

  it('replaces {{name}} from a local group in the URL, headers and body, case-sensitively, and leaves unknown names as written', async () => {
    const page = await open();
    await newRequest(page);
    await page.getByRole('button', { name: 'New local group' }).click();
    await page.getByLabel('Group name').fill('Local echo');
    for (const [i, [name, value]] of [
      ['base', echo.url],
      ['Token', 'UPPER'],
      ['token', 'lower'],
    ].entries()) {
      await page.getByRole('button', { name: 'Add variable' }).click();
      await page.getByLabel(`Variable ${i + 1} name`).fill(name!);
      await page.getByLabel(`Variable ${i + 1} value`).fill(value!);
    }
    await target(page, 'POST', '{{base}}/v/{{Token}}');
    await addHeader(page, 'X-Token', '{{token}}');
    await addHeader(page, 'X-Missing', '{{nope}}');
    await page.getByRole('radio', { name: 'Plain text' }).check();
    await typeInEditor(page, 'Text body', 'token={{ token }}');
    const seen = await sendAndEcho(page);
    expect(seen.url).to.equal('/v/UPPER');
    expect(seen.headers['x-token']).to.equal('lower');
    expect(seen.headers['x-missing']).to.equal('{{nope}}');
    expect(seen.body).to.equal('token=lower');
    expect(await page.getByLabel('Variable group').locator('option:checked').textContent()).to.equal('Local echo');
    await page.context().close();
  });

  it('uses a workspace environment as the variable group (read only), with "***" values for a read key', async () => {
    const created = await app.request('POST', '/v1/environments', {
      name: 'echo-env',
      variables: { host: echo.url, id: 42, secret: 's3cret' },
    });
    expect(created.status).to.equal(201);
    const page = await open();
    await newRequest(page);
    await page.getByLabel('Variable group').selectOption({ label: 'echo-env' });
    await page.getByRole('definition').filter({ hasText: 's3cret' }).waitFor();
    await target(page, 'GET', '{{host}}/env/{{id}}');
    await addHeader(page, 'X-Secret', '{{secret}}');
    const seen = await sendAndEcho(page);
    expect(seen.url).to.equal('/env/42');
    expect(seen.headers['x-secret']).to.equal('s3cret');
    await page.context().close();

    const readKey = await app.issueKey('read');
    const { page: reader } = await openConsole(browser, app);
    await signIn(reader, readKey);
    await reader.getByRole('link', { name: 'Local requests' }).click();
    await newRequest(reader);
    await reader.getByLabel('Variable group').selectOption({ label: 'echo-env' });
    await reader.getByText('This key has the read scope, so Assay shows every value as "***"').waitFor();
    expect(await reader.getByRole('definition').allTextContents()).to.deep.equal(['***', '***', '***']);
    await reader.context().close();
  });

  it('gives {{$guid}} a new UUID and {{$timestamp}} the current Unix time on every send', async () => {
    const page = await open();
    await newRequest(page);
    await target(page, 'GET', `${echo.url}/dyn?g={{$guid}}&t={{$timestamp}}`);
    const first = new URL(`http://x${(await sendAndEcho(page)).url}`).searchParams;
    const second = new URL(`http://x${(await sendAndEcho(page)).url}`).searchParams;
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    expect(first.get('g')).to.match(uuid);
    expect(second.get('g')).to.match(uuid);
    expect(first.get('g')).not.to.equal(second.get('g'));
    const now = Math.floor(Date.now() / 1000);
    expect(Number(second.get('t'))).to.be.within(now - 10, now);
    await page.context().close();
  });

  it('keeps a request (name, method, URL, headers, body, group link, relay setting) after a reload', async () => {
    const page = await open();
    await newRequest(page);
    await page.getByRole('button', { name: 'New local group' }).click();
    await page.getByLabel('Group name').fill('Kept group');
    await page.getByLabel('Name', { exact: true }).fill('Create user');
    await target(page, 'POST', 'https://api.example.test/users');
    await addHeader(page, 'Accept', 'application/json');
    await page.getByRole('radio', { name: 'JSON' }).check();
    await typeInEditor(page, 'JSON body', '{"name": "Ada"}');
    await page.getByRole('checkbox', { name: /Send through the Assay relay/ }).check();
    const url = page.url();
    await page.reload();
    expect(page.url()).to.equal(url);
    await page.getByLabel('URL', { exact: true }).waitFor();
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).to.equal('Create user');
    expect(await page.getByLabel('Method', { exact: true }).inputValue()).to.equal('POST');
    expect(await page.getByLabel('URL', { exact: true }).inputValue()).to.equal('https://api.example.test/users');
    expect(await page.getByLabel('Header 1 name').inputValue()).to.equal('Accept');
    expect(await page.getByLabel('Header 1 value').inputValue()).to.equal('application/json');
    expect(await page.getByRole('radio', { name: 'JSON' }).isChecked()).to.equal(true);
    expect(await page.getByRole('textbox', { name: 'JSON body' }).textContent()).to.equal('{"name": "Ada"}');
    expect(await page.getByLabel('Variable group').locator('option:checked').textContent()).to.equal('Kept group');
    expect(await page.getByRole('checkbox', { name: /Send through the Assay relay/ }).isChecked()).to.equal(true);
    await page.context().close();
  });

  it('saves on every change: a reload right after typing keeps what was typed', async () => {
    const page = await open();
    await newRequest(page);
    await page.getByLabel('URL', { exact: true }).fill('');
    await page.getByLabel('URL', { exact: true }).pressSequentially('/typed', { delay: 0 });
    await page.reload();
    expect(await page.getByLabel('URL', { exact: true }).inputValue()).to.equal('/typed');
    const doc = await stored(page);
    expect(doc.version).to.equal(1);
    expect(doc.requests.map((r: any) => r.url)).to.deep.equal(['/typed']);
    await page.context().close();
  });

  it('deletes a request for good only after the confirmation', async () => {
    const page = await open();
    await newRequest(page);
    await page.getByLabel('Name', { exact: true }).fill('Doomed');
    await newRequest(page);
    await page.getByLabel('Name', { exact: true }).fill('Kept');
    await page.getByRole('link', { name: /Doomed/ }).click();
    const list = page.getByRole('navigation', { name: 'Local requests list' });
    let question = '';
    page.once('dialog', (d) => {
      question = d.message();
      void d.dismiss();
    });
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    expect(question).to.contain('Delete the local request "Doomed"? This cannot be undone.');
    expect(await list.getByRole('link').allTextContents()).to.deep.equal(['GETKept', 'GETDoomed']);
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByText('Choose a request').waitFor();
    expect(await list.getByRole('link').allTextContents()).to.deep.equal(['GETKept']);
    await page.reload();
    await list.waitFor();
    expect(await list.getByRole('link').allTextContents()).to.deep.equal(['GETKept']);
    expect((await stored(page)).requests.map((r: any) => r.name)).to.deep.equal(['Kept']);
    await page.context().close();
  });

  it("does not show another workspace's requests", async () => {
    const page = await open();
    await newRequest(page);
    await page.getByLabel('Name', { exact: true }).fill('Only in default');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(page, await app.issueKey('write', 'other'));
    await page.getByRole('link', { name: 'Local requests' }).click();
    await page.getByText('No local requests yet').waitFor();
    expect(await page.getByText('Only in default').count()).to.equal(0);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(page, app.key);
    await page.getByRole('link', { name: 'Local requests' }).click();
    await page.getByRole('link', { name: /Only in default/ }).waitFor();
    await page.context().close();
  });

  it('says plainly when the browser blocks a request, and the relay brings it back', async () => {
    const page = await open();
    await newRequest(page);
    await target(page, 'POST', `${closed.url}/blocked?via=relay`);
    await addHeader(page, 'X-Relay', 'yes');
    await page.getByRole('radio', { name: 'Plain text' }).check();
    await typeInEditor(page, 'Text body', 'relayed body');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const blocked = page.getByTestId('blocked');
    await blocked.waitFor();
    expect(await blocked.textContent()).to.equal(
      `The browser blocked this request (CORS or mixed content) or could not reach ${closed.url}.`,
    );
    // Relay (console-relay branch): turn the setting on and send again.
    const before = closed.seen.length;
    await page.getByRole('checkbox', { name: /Send through the Assay relay/ }).check();
    const apiCalls = recordApiRequests(page, app);
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByTestId('response-status').waitFor();
    expect(await page.getByTestId('response-status').textContent()).to.contain('200');
    const seen = closed.seen.slice(before).find((s) => s.url === '/blocked?via=relay');
    expect(seen?.method).to.equal('POST');
    expect(seen?.headers['x-relay']).to.equal('yes');
    expect(seen?.body).to.equal('relayed body');
    expect(JSON.parse((await page.getByTestId('response-body').textContent()) ?? '{}').body).to.equal('relayed body');
    expect(apiCalls.map((r) => `${r.method()} ${new URL(r.url()).pathname}`)).to.deep.equal(['POST /v1/relay']);
    await page.context().close();
  });

  it('relays a multipart form with a file (sent to the relay as base64)', async () => {
    const page = await open();
    await newRequest(page);
    await target(page, 'POST', `${closed.url}/relay-upload`);
    await page.getByRole('checkbox', { name: /Send through the Assay relay/ }).check();
    await page.getByRole('radio', { name: 'Multipart form (files)' }).check();
    await page.getByRole('button', { name: 'Add part' }).click();
    await page.getByLabel('Part 1 kind').selectOption('file');
    await page.getByLabel('Part 1 name').fill('doc');
    await page
      .getByLabel('Part 1 file')
      .setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('relayed file\n') });
    await page.getByTestId('part-1-file').filter({ hasText: 'notes.txt' }).waitFor();
    const seen = await sendAndEcho(page, closed);
    expect(seen.headers['content-type']).to.match(/^multipart\/form-data; boundary=/);
    expect(seen.body).to.contain(
      'name="doc"; filename="notes.txt"\r\nContent-Type: text/plain\r\n\r\nrelayed file\n\r\n',
    );
    await page.context().close();
  });

  it("shows the relay's problems: a refused connection, a refused address, a read key", async () => {
    const gone = await startEcho(false);
    await gone.close();
    const page = await open();
    await newRequest(page);
    await page.getByRole('checkbox', { name: /Send through the Assay relay/ }).check();
    const problem = page.getByRole('region', { name: 'Response' }).locator('.problem');
    await target(page, 'GET', `${gone.url}/nothing-here`);
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await problem.filter({ hasText: 'Relay failed' }).waitFor();
    expect(await problem.textContent()).to.contain('ECONNREFUSED');
    // `/` is the console's own origin: the Assay API, which the address policy always refuses.
    await target(page, 'GET', '/');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await problem.filter({ hasText: 'Address not allowed' }).waitFor();
    await page.context().close();

    const { page: reader } = await openConsole(browser, app);
    await signIn(reader, await app.issueKey('read'));
    await reader.getByRole('link', { name: 'Local requests' }).click();
    await newRequest(reader);
    await target(reader, 'GET', `${echo.url}/read`);
    await reader.getByRole('checkbox', { name: /Send through the Assay relay/ }).check();
    await reader.getByRole('button', { name: 'Send', exact: true }).click();
    await reader
      .getByRole('region', { name: 'Response' })
      .locator('.problem')
      .filter({ hasText: 'Forbidden' })
      .waitFor();
    await reader.context().close();
  });

  it('imports a curl command line, listing the flags it does not support', async () => {
    const page = await open();
    await page.getByRole('button', { name: 'Import from curl' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Import from curl' });
    await dialog
      .getByLabel('curl command', { exact: true })
      .fill(
        `curl -X PUT 'https://api.example.test/users/7?x=1' \\\n  -H 'Content-Type: application/json' -H "X-Quote: it's" \\\n  -u ada:s3cret -A 'agent/1.0' -b 'sid=abc' --compressed -k --max-time 5 \\\n  --data-raw '{"name": "Ada"}'`,
      );
    await dialog.getByRole('button', { name: 'Import' }).click();
    const notes = page.getByRole('status', { name: 'Import warnings' });
    await notes.waitFor();
    expect(await notes.textContent()).to.contain('Not supported, ignored: -k, --max-time 5.');
    expect(await notes.textContent()).not.to.contain('compressed');
    const r = (await stored(page)).requests[0];
    expect(r.method).to.equal('PUT');
    expect(r.url).to.equal('https://api.example.test/users/7?x=1');
    expect(r.bodyKind).to.equal('json');
    expect(r.text).to.equal('{"name": "Ada"}');
    expect(r.headers.map((h: any) => [h.name, h.value])).to.deep.equal([
      ['X-Quote', "it's"],
      ['Authorization', `Basic ${Buffer.from('ada:s3cret').toString('base64')}`],
      ['User-Agent', 'agent/1.0'],
      ['Cookie', 'sid=abc'],
    ]);

    // -F with a file, -G with -d, -I, form data by default type.
    const imports: [string, (r: any) => void, string?][] = [
      [
        `curl -F 'title=Report' -F 'file=@report.csv;type=text/csv' https://up.example.test/files`,
        (x) => {
          expect(x.method).to.equal('POST');
          expect(x.bodyKind).to.equal('multipart');
          expect(x.multipart.map((p: any) => [p.kind, p.name, p.value, p.fileName])).to.deep.equal([
            ['text', 'title', 'Report', undefined],
            ['file', 'file', '', 'report.csv'],
          ]);
        },
        'The file "report.csv" of form field "file" must be chosen again',
      ],
      [
        `curl -G -d q=ada -d page=2 https://s.example.test/search`,
        (x) =>
          expect([x.method, x.url, x.bodyKind]).to.deep.equal([
            'GET',
            'https://s.example.test/search?q=ada&page=2',
            'none',
          ]),
      ],
      [`curl -I https://h.example.test/`, (x) => expect(x.method).to.equal('HEAD')],
      [
        `curl --url https://f.example.test/login -d 'user=ada&pass=a%26b' --data-urlencode 'note=x y'`,
        (x) => {
          expect(x.method).to.equal('POST');
          expect(x.bodyKind).to.equal('form');
          expect(x.form.map((f: any) => [f.name, f.value])).to.deep.equal([
            ['user', 'ada'],
            ['pass', 'a&b'],
            ['note', 'x y'],
          ]);
        },
      ],
      [
        `curl -d @body.json -H 'Content-Type: text/plain' https://t.example.test/`,
        (x) => expect(x.bodyKind).to.equal('none'),
        'reads the body from the file body.json',
      ],
    ];
    for (const [command, check, warning] of imports) {
      await page.getByRole('button', { name: 'Import from curl' }).first().click();
      await dialog.getByLabel('curl command', { exact: true }).fill(command);
      await dialog.getByRole('button', { name: 'Import' }).click();
      await dialog.waitFor({ state: 'hidden' });
      check((await stored(page)).requests[0]);
      if (warning) expect(await notes.textContent(), command).to.contain(warning);
    }
    await page.getByRole('button', { name: 'Import from curl' }).first().click();
    await dialog.getByLabel('curl command', { exact: true }).fill('wget https://x.example.test/');
    await dialog.getByRole('button', { name: 'Import' }).click();
    await dialog.getByText('This is not a curl command').waitFor();
    await page.context().close();
  });

  it('copies a request as a POSIX-quoted curl command that imports back to the same request', async () => {
    const page = await open();
    const cases: ((page: Page) => Promise<void>)[] = [
      async (p) => {
        await target(p, 'POST', "https://api.example.test/it's?q=a b&v={{var}}");
        await addHeader(p, 'X-Quote', `it's "quoted" $HOME \`cmd\``);
        await addHeader(p, 'Authorization', 'Bearer {{token}}');
        await p.getByRole('radio', { name: 'JSON' }).check();
        await typeInEditor(p, 'JSON body', `{"text": "it's\\nfine", "shell": "$(rm -rf /)"}\n`);
      },
      async (p) => {
        await target(p, 'PATCH', 'https://api.example.test/form');
        await p.getByRole('radio', { name: 'URL-encoded form' }).check();
        await p.getByRole('button', { name: 'Add field' }).click();
        await p.getByLabel('Field 1 name').fill('a');
        await p.getByLabel('Field 1 value').fill("x&y=z 'q'");
      },
      async (p) => {
        await target(p, 'POST', 'https://api.example.test/parts');
        await p.getByRole('radio', { name: 'Multipart form (files)' }).check();
        await p.getByRole('button', { name: 'Add part' }).click();
        await p.getByLabel('Part 1 name').fill('note');
        await p.getByLabel('Part 1 value').fill('@not-a-file;type=x');
      },
      async (p) => {
        await target(p, 'DELETE', 'https://api.example.test/text');
        await p.getByRole('radio', { name: 'Plain text' }).check();
        await typeInEditor(p, 'Text body', 'plain\ttext');
      },
    ];
    const fields = (r: any) => ({
      method: r.method,
      url: r.url,
      headers: r.headers,
      bodyKind: r.bodyKind,
      text: r.bodyKind === 'json' || r.bodyKind === 'text' ? r.text : '',
      form: r.form,
      multipart: r.multipart,
    });
    for (const build of cases) {
      await newRequest(page);
      await build(page);
      const original = (await stored(page)).requests[0];
      await page.getByRole('button', { name: 'Copy as curl' }).click();
      const copy = page.getByRole('dialog', { name: 'Copy as curl' });
      const command = await copy.getByLabel('curl command line').inputValue();
      await copy.getByRole('button', { name: 'Close' }).click();
      // A real POSIX shell reads the quoting: print each argument it gets.
      const args = execFileSync('sh', ['-c', `printf '%s\\0' ${command.replace(/^curl /, '')}`])
        .toString('utf8')
        .split('\0')
        .slice(0, -1);
      expect(args).to.include(original.url);
      await page.getByRole('button', { name: 'Import from curl' }).first().click();
      const dialog = page.getByRole('dialog', { name: 'Import from curl' });
      await dialog.getByLabel('curl command', { exact: true }).fill(command);
      await dialog.getByRole('button', { name: 'Import' }).click();
      await dialog.waitFor({ state: 'hidden' });
      const imported = (await stored(page)).requests[0];
      expect(imported.id).not.to.equal(original.id);
      expect(fields(imported), command).to.deep.equal(fields(original));
    }
    await page.context().close();
  });

  it('sends with Ctrl+Enter, from a field and from inside the body editor, once per press', async () => {
    const page = await open();
    await newRequest(page);
    await target(page, 'POST', `${echo.url}/keys`);
    await page.getByRole('radio', { name: 'JSON' }).check();
    await typeInEditor(page, 'JSON body', '{"k": 1}');
    const before = echo.seen.length;
    await page.getByLabel('URL', { exact: true }).press('Control+Enter');
    await eventually(async () => echo.seen.length === before + 1, 5000);
    // The first answer shown and Send ready again: a press while a request is under way is ignored on purpose.
    await page.getByTestId('response-status').waitFor();
    await eventually(() => page.getByRole('button', { name: 'Send', exact: true }).isEnabled(), 5000);
    await page.getByRole('textbox', { name: 'JSON body' }).press('Control+Enter');
    await eventually(async () => echo.seen.length === before + 2, 5000);
    await new Promise((r) => setTimeout(r, 300));
    expect(echo.seen.length).to.equal(before + 2);
    expect(await page.getByRole('textbox', { name: 'JSON body' }).textContent()).to.equal('{"k": 1}');
    await page.context().close();
  });

  it('saves a request as a test case on request, links to it, multipart files uploaded first', async () => {
    const page = await open();
    await newRequest(page);
    await page.getByLabel('Name', { exact: true }).fill('Create order');
    await target(page, 'POST', '{{base}}/orders');
    await addHeader(page, 'X-Trace', '{{$guid}}');
    await page.getByRole('radio', { name: 'JSON' }).check();
    await typeInEditor(page, 'JSON body', '{"item": "{{item}}", "qty": 2}');
    await page.getByRole('button', { name: 'Save as test case' }).click();
    const dialog = page.getByRole('dialog', { name: 'Save as test case' });
    expect(await dialog.getByLabel('Test case name').inputValue()).to.equal('Create order');
    await dialog.getByLabel('Folder').fill('local');
    await dialog.getByRole('button', { name: 'Save test case' }).click();
    const link = dialog.getByRole('link', { name: /Open the test case/ });
    await link.waitFor();
    const id = (await link.getAttribute('href'))!.replace('/test-cases/', '');
    const tc = await app.request('GET', `/v1/test-cases/${id}`);
    expect(tc.status).to.equal(200);
    expect(tc.body.name).to.equal('Create order');
    expect(tc.body.folder).to.equal('local');
    expect(tc.body.flow).to.have.length(1);
    expect(tc.body.flow[0]).to.include({ type: 'api', name: 'Create order' });
    expect(tc.body.flow[0].request).to.deep.equal({
      method: 'POST',
      url: '{{base}}/orders',
      headers: { 'X-Trace': '{{$guid}}' },
      body: { item: '{{item}}', qty: 2 },
    });
    await dialog.getByRole('button', { name: 'Close' }).click();

    // A name that is taken in the folder: the API's problem is shown.
    await page.getByRole('button', { name: 'Save as test case' }).click();
    await dialog.getByLabel('Folder').fill('local');
    await dialog.getByRole('button', { name: 'Save test case' }).click();
    await dialog.locator('.problem').getByText('Name already taken').waitFor();
    expect(await dialog.locator('.field-invalid').textContent()).to.contain('is already taken in this folder');
    await dialog.getByRole('button', { name: 'Close' }).click();

    // A multipart body: saving uploads its file to the workspace files, the node's part names it.
    await page.getByRole('radio', { name: 'Multipart form (files)' }).check();
    await page.getByRole('button', { name: 'Add part' }).click();
    await page.getByLabel('Part 1 name').fill('title');
    await page.getByLabel('Part 1 value').fill('Q1');
    await page.getByRole('button', { name: 'Add part' }).click();
    await page.getByLabel('Part 2 kind').selectOption('file');
    await page.getByLabel('Part 2 name').fill('attachment');
    const csv = Buffer.from('quarter,total\nQ1,1200\n');
    await page.getByLabel('Part 2 file').setInputFiles({ name: 'q1 report.csv', mimeType: 'text/csv', buffer: csv });
    await eventually(
      async () => (await page.getByTestId('part-2-file').textContent())?.includes('q1 report.csv'),
      5000,
    );
    await page.getByRole('button', { name: 'Save as test case' }).click();
    await dialog
      .getByRole('note')
      .getByText(/Saving uploads q1 report\.csv to the workspace files/)
      .waitFor();
    await dialog.getByLabel('Test case name').fill('Upload report');
    await dialog.getByRole('button', { name: 'Save test case' }).click();
    const saved = dialog.getByRole('link', { name: /Open the test case/ });
    await saved.waitFor();
    const uploadCase = await app.request(
      'GET',
      `/v1/test-cases/${(await saved.getAttribute('href'))!.split('/').pop()}`,
    );
    expect(uploadCase.body.flow[0].request.multipart).to.deep.equal([
      { name: 'title', value: 'Q1' },
      { name: 'attachment', file: 'q1_report.csv', filename: 'q1 report.csv' },
    ]);
    expect(uploadCase.body.flow[0].request.body).to.equal(undefined);
    const stored = await fetch(`${app.url}/v1/files/q1_report.csv/content`, {
      headers: { authorization: `Bearer ${app.key}` },
    });
    expect(stored.status).to.equal(200);
    expect(Buffer.from(await stored.arrayBuffer()).equals(csv)).to.equal(true);
    await page.context().close();
  });

  it('never sends a local request to the Assay API, except when saved as a test case', async () => {
    const marker = 'zq-local-marker-7731';
    const page = await open();
    const calls = recordApiRequests(page, app);
    await newRequest(page);
    await page.getByLabel('Name', { exact: true }).fill(`Name ${marker}`);
    await target(page, 'POST', `${echo.url}/${marker}`);
    await addHeader(page, 'X-Marker', marker);
    await page.getByRole('button', { name: 'New local group' }).click();
    await page.getByRole('button', { name: 'Add variable' }).click();
    await page.getByLabel('Variable 1 name').fill('m');
    await page.getByLabel('Variable 1 value').fill(marker);
    await page.getByRole('radio', { name: 'JSON' }).check();
    await typeInEditor(page, 'JSON body', `{"marker": "${marker}", "v": "{{m}}"}`);
    const seen = await sendAndEcho(page);
    expect(seen.body).to.contain(marker);
    await page.getByRole('button', { name: 'Copy as curl' }).click();
    await page.getByRole('dialog', { name: 'Copy as curl' }).getByRole('button', { name: 'Close' }).click();
    await page.reload();
    await page.getByLabel('URL', { exact: true }).waitFor();
    await newRequest(page);
    await page.getByLabel('URL', { exact: true }).fill(`/${marker}-second`);
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByText('Choose a request').waitFor();

    const carrying = calls.filter((r) => r.url().includes(marker) || (r.postData() ?? '').includes(marker));
    expect(carrying.map((r) => `${r.method()} ${r.url()}`)).to.deep.equal([]);
    const allowed = new Set(['GET /v1/environments', 'GET /v1/workspaces']);
    for (const r of calls)
      expect(allowed.has(`${r.method()} ${new URL(r.url()).pathname}`), `${r.method()} ${r.url()}`).to.equal(true);
    expect(calls.length).to.be.greaterThan(0);

    await page.getByRole('link', { name: new RegExp(marker) }).click();
    await page.getByRole('button', { name: 'Save as test case' }).click();
    const dialog = page.getByRole('dialog', { name: 'Save as test case' });
    await dialog.getByRole('button', { name: 'Save test case' }).click();
    await dialog.getByRole('link', { name: /Open the test case/ }).waitFor();
    const after = calls.filter((r) => r.url().includes(marker) || (r.postData() ?? '').includes(marker));
    expect(after.map((r) => `${r.method()} ${new URL(r.url()).pathname}`)).to.deep.equal(['POST /v1/test-cases']);
    const listed = await app.request('GET', '/v1/test-cases');
    expect(listed.body.items.map((t: any) => t.name)).to.include(`Name ${marker}`);
    await page.context().close();
  });

  it('takes screenshots of the page and of the response panel', async () => {
    const page = await open();
    await page.getByRole('button', { name: 'New request' }).first().click();
    await page.getByLabel('Name', { exact: true }).fill('List users');
    await target(page, 'GET', `${echo.url}/users?limit=2`);
    await newRequest(page);
    await page.getByLabel('Name', { exact: true }).fill('Create user');
    await target(page, 'POST', `${echo.url}/users`);
    await addHeader(page, 'Accept', 'application/json');
    await page.getByRole('radio', { name: 'JSON' }).check();
    await typeInEditor(page, 'JSON body', '{\n  "name": "Ada Lovelace",\n  "role": "admin"\n}');
    await screenshot(page, 'local-requests');
    await sendAndEcho(page);
    await page.getByRole('region', { name: 'Response' }).scrollIntoViewIfNeeded();
    await screenshot(page, 'local-requests-response');
    await page.context().close();
  });
});
