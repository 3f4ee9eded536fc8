/**
 * Workspace files in the console (docs/console.md "Files" and the designer's Body modes) in a real
 * Chromium against a real API and store, with a small size limit and quota so the refusals show:
 *
 * - the Files page: a binary file uploaded through `<input type=file>` under a name with `/`,
 *   listed with its type, size and hash; downloaded byte for byte (the link's address fetched
 *   with the key, and the link clicked); a bad name refused before sending; a file over the size
 *   limit (413) and one over the workspace quota (429) refused with the limit in words; deleted
 *   after a confirm; a read key sees no upload and no delete;
 * - the designer: an API node whose Body is Multipart, with a text part and a file part picked
 *   from the workspace files, and one uploaded from disk with "Upload…", saved as
 *   `request.multipart`; then switched to File, saved as
 *   `request.file`, with no `body` left;
 * - ways in: a local request with a multipart body (its file in this browser's IndexedDB) added
 *   as a node after "Upload <file> to the workspace files?": text parts as they are, the file part
 *   naming the uploaded file, the disabled part and the Content-Type header left out.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { eventually, type TestApp } from '../helpers/app';
import { launchBrowser, screenshot, signedIn, startConsoleApp } from '../helpers/browser';
import { DesignerPage } from './pages/designer';

/** `n` bytes covering every byte value (not UTF-8 text), different for each `seed`. */
function binary(n: number, seed = 0): Buffer {
  return Buffer.from(Array.from({ length: n }, (_, i) => (i * 7 + seed) % 256));
}

const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

describe('console files', function () {
  this.timeout(180_000);
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  const asked: string[] = [];
  const avatar = binary(1500);
  const name = 'fixtures/avatar.png';

  before(async () => {
    [app, browser] = await Promise.all([
      // At most 4096 bytes a file, 4000 bytes of distinct content in all.
      startConsoleApp({ env: { ASSAY_FILE_MAX_BYTES: '4096', ASSAY_QUOTA_FILE_BYTES: '4000' } }),
      launchBrowser(),
    ]);
    ({ page } = await signedIn(browser, app));
    page.on('dialog', (d) => {
      asked.push(d.message());
      void d.accept();
    });
  });

  after(async () => {
    await browser?.close();
    await app?.stop();
  });

  const upload = async (file: { name: string; mimeType: string; buffer: Buffer }, as?: string) => {
    await page.getByLabel('File to upload').setInputFiles(file);
    await page.getByLabel('File name').fill(as ?? '');
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
  };

  it('uploads a file, lists it with its size, downloads it byte for byte; refuses a bad name, the size limit and the quota', async () => {
    await page.goto(`${app.url}/files`);
    await page.getByText('No files yet').waitFor();

    await upload({ name: 'avatar.png', mimeType: 'image/png', buffer: avatar }, name);
    await page.getByText(`Uploaded ${name} (1.5 KB).`).waitFor();
    const row = page.getByRole('table', { name: 'Files' }).getByRole('row').filter({ hasText: name });
    const cells = (await row.getByRole('cell').allInnerTexts()).map((t) => t.trim());
    expect(cells.slice(0, 4)).to.deep.equal([name, 'image/png', '1.5 KB', sha256(avatar).slice(0, 12)]);
    expect(await row.getByRole('cell').nth(2).getAttribute('title')).to.equal('1500 bytes');
    const stored = (await app.request('GET', `/v1/files/${encodeURIComponent(name)}`)).body;
    expect(stored).to.include({ name, contentType: 'image/png', size: 1500, sha256: sha256(avatar) });

    // The link's address is the API's content URL: fetched with the key, the same bytes.
    const link = page.getByRole('link', { name: `Download ${name}` });
    const href = await link.getAttribute('href');
    const res = await fetch(new URL(href!, app.url), { headers: { Authorization: `Bearer ${app.key}` } });
    expect(res.status).to.equal(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(avatar)).to.equal(true);
    // Clicked, it saves the same bytes under the name's last segment.
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).to.equal('avatar.png');
    expect(fs.readFileSync((await download.path())!).equals(avatar)).to.equal(true);
    await screenshot(page, 'files');

    // A name the API would refuse is refused before sending.
    await page
      .getByLabel('File to upload')
      .setInputFiles({ name: 'a.txt', mimeType: 'text/plain', buffer: binary(10) });
    await page.getByLabel('File name').fill('bad name!');
    await page.getByText('A name is 1–200 letters, digits, _ . - or /.').waitFor();
    expect(await page.getByRole('button', { name: 'Upload', exact: true }).isDisabled()).to.equal(true);

    // Over the size limit: 413, the limit in words, nothing stored.
    await upload({ name: 'big.bin', mimeType: 'application/octet-stream', buffer: binary(5000, 1) });
    const tooLarge = page.getByRole('alert').filter({ hasText: 'File too large' });
    await tooLarge.waitFor();
    expect(await tooLarge.innerText()).to.contain('Files may be at most 4.0 KB; this one is 4.9 KB.');

    // Over the workspace quota (1500 + 3000 > 4000 bytes): 429, the quota in words, nothing stored.
    await upload({ name: 'more.bin', mimeType: 'application/octet-stream', buffer: binary(3000, 2) });
    const quota = page.getByRole('alert').filter({ hasText: 'Quota exceeded' });
    await quota.waitFor();
    expect(await quota.innerText()).to.match(/The workspace's files may take 3\.9 KB in all; 1\.5 KB are used/);
    const listed = (await app.request('GET', '/v1/files')).body.items.map((f: { name: string }) => f.name);
    expect(listed).to.deep.equal([name]);
  });

  it('the designer sends workspace files: a Multipart body with a text and a file part, then a File body', async () => {
    const designer = new DesignerPage(page);
    await page.goto(`${app.url}/test-cases/new`);
    await page.getByLabel('Test case name').fill('upload an avatar');
    await designer.addFromPalette('API', 'here');
    await designer.choose('Method', 'POST');
    await designer.fill('URL', '{{base}}/avatars');
    const form = page.getByRole('region', { name: 'Node' });
    await form.getByRole('tab', { name: /^Body/ }).click();
    expect(await form.getByText('multipart is not', { exact: false }).count()).to.equal(0);
    await form.getByRole('radio', { name: 'Multipart' }).check();
    await form.getByLabel('Part 1 name').fill('note');
    await form.getByLabel('Part 1 value').fill('hello {{user}}');
    await form.getByRole('button', { name: 'Add part' }).click();
    await form.getByLabel('Part 2 name').fill('avatar');
    await form.getByLabel('Part 2 kind').selectOption('File');
    await form.getByLabel('Part 2 file', { exact: true }).selectOption(name);
    await form.getByLabel('Part 2 file name').fill('me.png');
    // "Upload…" sends a file from disk to the workspace files and picks it.
    await form.getByRole('button', { name: 'Add part' }).click();
    await form.getByLabel('Part 3 name').fill('notes');
    await form.getByLabel('Part 3 kind').selectOption('File');
    await form
      .getByLabel('Upload a file for Part 3 file')
      .setInputFiles({ name: 'notes v2.txt', mimeType: 'text/plain', buffer: Buffer.from('notes\n') });
    await eventually(
      async () => (await form.getByLabel('Part 3 file', { exact: true }).inputValue()) === 'notes_v2.txt',
    );
    await screenshot(page, 'designer-multipart');
    await designer.save();
    await page.waitForURL(/\/test-cases\/tc_\w+$/);
    const id = page.url().split('/').pop()!;
    let request = (await app.request('GET', `/v1/test-cases/${id}`)).body.flow[0].request;
    expect(request).to.deep.equal({
      method: 'POST',
      url: '{{base}}/avatars',
      multipart: [
        { name: 'note', value: 'hello {{user}}' },
        { name: 'avatar', file: name, filename: 'me.png' },
        { name: 'notes', file: 'notes_v2.txt' },
      ],
    });
    const notes = (await app.request('GET', '/v1/files/notes_v2.txt')).body;
    expect(notes).to.include({ contentType: 'text/plain', size: 6 });

    // Reordered, then the whole body from the file: one request, no multipart or body left.
    await form.getByRole('tab', { name: /^Body/ }).click();
    await form.getByRole('button', { name: 'Move part 2 up' }).click();
    await form.getByRole('radio', { name: 'File' }).check();
    await form.getByLabel('Body file', { exact: true }).selectOption(name);
    await form.getByLabel('Body content type').fill('application/octet-stream');
    await designer.save();
    await designer.saved();
    request = (await app.request('GET', `/v1/test-cases/${id}`)).body.flow[0].request;
    expect(request).to.deep.equal({
      method: 'POST',
      url: '{{base}}/avatars',
      file: { file: name, contentType: 'application/octet-stream' },
    });
  });

  it('a local request with a multipart body becomes an API node once its file is uploaded to the workspace files', async () => {
    const workspaceId = (await app.request('GET', '/v1/workspaces')).body.items[0].id as string;
    const photo = binary(500, 3);
    const now = new Date().toISOString();
    const local = {
      version: 1,
      groups: [],
      requests: [
        {
          id: 'r1',
          name: 'post a photo',
          method: 'POST',
          url: '/photos',
          headers: [{ name: 'Content-Type', value: 'multipart/form-data', enabled: true }],
          bodyKind: 'multipart',
          text: '',
          form: [],
          multipart: [
            { kind: 'text', name: 'caption', value: 'hi {{user}}', enabled: true },
            { kind: 'text', name: 'off', value: 'not sent', enabled: false },
            {
              kind: 'file',
              name: 'photo',
              value: '',
              enabled: true,
              fileId: 'f1',
              fileName: 'my photo.jpg',
              fileType: 'image/jpeg',
              fileSize: photo.length,
            },
          ],
          group: null,
          relay: false,
          createdAt: now,
          updatedAt: now,
        },
      ],
    };
    // The request in localStorage, its file in IndexedDB, as the Local requests page keeps them.
    await page.evaluate(
      async ({ ws, doc, bytes }) => {
        localStorage.setItem(`assay.local-requests.v1.${ws}`, JSON.stringify(doc));
        const db = await new Promise<IDBDatabase>((resolve, reject) => {
          const req = indexedDB.open('assay-local-requests', 1);
          req.onupgradeneeded = () => req.result.createObjectStore('files');
          req.onsuccess = () => resolve(req.result);
          req.onerror = () => reject(req.error);
        });
        await new Promise<void>((resolve, reject) => {
          const t = db.transaction('files', 'readwrite');
          t.objectStore('files').put(new Blob([new Uint8Array(bytes)], { type: 'image/jpeg' }), `${ws}/f1`);
          t.oncomplete = () => resolve();
          t.onerror = () => reject(t.error);
        });
        db.close();
      },
      { ws: workspaceId, doc: local, bytes: [...photo] },
    );
    await page.goto(`${app.url}/test-cases/new`);
    await page.getByLabel('Test case name').fill('from a local request');
    await page.getByRole('button', { name: 'From a local request' }).click();
    const dialog = page.getByRole('dialog', { name: 'From a local request' });
    await dialog.getByRole('button', { name: /post a photo/ }).click();
    await dialog.getByText('Upload my photo.jpg to the workspace files?').waitFor();
    expect((await app.request('GET', '/v1/files')).body.items).to.have.length(2);
    await dialog.getByRole('button', { name: 'Upload and add node' }).click();
    await dialog.waitFor({ state: 'detached' });
    await new DesignerPage(page).save();
    await page.waitForURL(/\/test-cases\/tc_\w+$/);
    const flow = (await app.request('GET', `/v1/test-cases/${page.url().split('/').pop()}`)).body.flow;
    expect(flow[0].request).to.deep.equal({
      method: 'POST',
      url: '{{base}}/photos',
      multipart: [
        { name: 'caption', value: 'hi {{user}}' },
        { name: 'photo', file: 'my_photo.jpg', filename: 'my photo.jpg' },
      ],
    });
    const uploaded = (await app.request('GET', '/v1/files/my_photo.jpg')).body;
    expect(uploaded).to.include({ contentType: 'image/jpeg', size: 500, sha256: sha256(photo) });
  });

  it('deletes a file after a confirm; a read key sees no upload and no delete', async () => {
    const readKey = await app.issueKey('read');
    const reader = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const rpage = await reader.newPage();
    await rpage.goto(app.url);
    await rpage.getByLabel('API key').fill(readKey);
    await rpage.getByRole('button', { name: 'Sign in' }).click();
    await rpage.getByTestId('workspace').waitFor();
    await rpage.goto(`${app.url}/files`);
    await rpage.getByRole('link', { name: `Download ${name}` }).waitFor();
    expect(await rpage.getByLabel('File to upload').count()).to.equal(0);
    expect(await rpage.getByRole('button', { name: `Delete ${name}` }).count()).to.equal(0);
    await rpage.getByText('A key with write scope can upload and delete files.').waitFor();
    await reader.close();

    await page.goto(`${app.url}/files`);
    await page.getByRole('button', { name: `Delete ${name}` }).click();
    await page.getByRole('link', { name: `Download ${name}` }).waitFor({ state: 'detached' });
    await page.getByRole('link', { name: 'Download my_photo.jpg' }).waitFor();
    expect(asked.at(-1)).to.match(new RegExp(`^Delete the file ${name}\\?`));
    expect((await app.request('GET', `/v1/files/${encodeURIComponent(name)}`)).status).to.equal(404);
  });
});
