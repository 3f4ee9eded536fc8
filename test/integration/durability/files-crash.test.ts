/**
 * Files in requests when a worker dies (docs/flows.md "Files"): a run of multipart nodes whose
 * worker is killed with SIGKILL in the middle completes on a new worker, and every part the target
 * received (the node under way sent again included) is the uploaded file byte for byte; the
 * results and the debug capture show the parts' metadata, not their content.
 */
import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually, startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { processEnv, spawnAssay, type AssayProcess } from '../../helpers/processes';

/** One multipart request as the target parsed it (the platform's parser, `Request.formData()`). */
interface Upload {
  path: string;
  parts: Array<{ name: string; filename?: string; bytes: Buffer }>;
}

/** A loopback server that parses each multipart body, keeps it, and answers after 600 ms. */
async function startSlowUploadTarget(): Promise<{ url: string; uploads: Upload[]; close(): Promise<void> }> {
  const uploads: Upload[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const form = await new Request(`http://target${req.url}`, {
          method: 'POST',
          headers: { 'content-type': req.headers['content-type'] ?? '' },
          body: Buffer.concat(chunks) as Uint8Array<ArrayBuffer>,
        }).formData();
        const parts: Upload['parts'] = [];
        for (const [name, value] of form as unknown as Iterable<[string, string | File]>)
          parts.push(
            typeof value === 'string'
              ? { name, bytes: Buffer.from(value) }
              : { name, filename: value.name, bytes: Buffer.from(await value.arrayBuffer()) },
          );
        uploads.push({ path: req.url!, parts });
        setTimeout(() => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"ok":true}');
        }, 600);
      })().catch((err: Error) => {
        res.writeHead(400);
        res.end(err.message);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    uploads,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('files in requests when a worker dies', function () {
  this.timeout(180_000);
  let app: TestApp;
  let target: Awaited<ReturnType<typeof startSlowUploadTarget>>;
  const children: AssayProcess[] = [];
  const photo = Buffer.concat([Buffer.from('\r\n--x\r\n'), randomBytes(150 * 1024)]);
  const sheet = Buffer.concat([Buffer.from('a,b\r\n1,2\r\n'), randomBytes(10 * 1024)]);

  before(async () => {
    // No worker in this process: the test's worker processes are the ones killed and replaced.
    [app, target] = await Promise.all([startTestApp(), startSlowUploadTarget()]);
    for (const [name, bytes, type] of [
      ['crash/photo.jpg', photo, 'image/jpeg'],
      ['crash/sheet.csv', sheet, 'text/csv'],
    ] as const) {
      const res = await fetch(`${app.url}/v1/files/${name}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${app.key}`, 'content-type': type },
        body: bytes as Uint8Array<ArrayBuffer>,
      });
      expect(res.status).to.equal(201);
    }
    await app.request('POST', '/v1/environments', { name: 'local', variables: { base: target.url } });
  });
  after(async () => {
    for (const c of children) await c.kill();
    await target?.close();
    await app?.stop();
  });

  const spawnWorker = () => {
    const worker = spawnAssay('worker', processEnv(app, { ASSAY_LOG_LEVEL: 'warn' }));
    children.push(worker);
    return worker;
  };

  const uploadNode = (i: number) => ({
    type: 'api',
    id: `up${i}`,
    request: {
      method: 'POST',
      url: `{{base}}/up/${i}`,
      timeoutMs: 5000,
      multipart: [
        { name: 'step', value: `step ${i}` },
        { name: 'files', file: 'crash/photo.jpg' },
        { name: 'files', file: 'crash/sheet.csv' },
      ],
    },
    assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
  });

  it('completes after its worker is killed -9 mid-run, every part received intact', async () => {
    const first = spawnWorker();
    const res = await app.request('POST', '/v1/test-cases/debug', {
      testCase: { name: 'six uploads', flow: [1, 2, 3, 4, 5, 6].map(uploadNode) },
      environment: 'local',
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    const runId = res.body.runId as string;
    await eventually(async () => target.uploads.length >= 2, 60_000, 50);
    await first.kill();
    expect((await app.request('GET', `/v1/runs/${runId}`)).body.status).to.equal('running');

    spawnWorker();
    const run = await waitForRun(app, runId, 90_000);
    expect(run).to.include({ status: 'completed', result: 'passed' });
    // Every node sent, at most the one under way at the kill twice; each upload whole.
    expect(new Set(target.uploads.map((u) => u.path)).size).to.equal(6);
    expect(target.uploads.length).to.be.within(6, 7);
    for (const upload of target.uploads) {
      const step = upload.path.split('/').pop();
      expect(upload.parts.map((p) => `${p.name} ${p.filename ?? ''}`)).to.deep.equal([
        'step ',
        'files photo.jpg',
        'files sheet.csv',
      ]);
      expect(upload.parts[0]!.bytes.toString()).to.equal(`step ${step}`);
      expect(upload.parts[1]!.bytes.equals(photo), `photo in ${upload.path}`).to.equal(true);
      expect(upload.parts[2]!.bytes.equals(sheet), `sheet in ${upload.path}`).to.equal(true);
    }

    const results = (await app.request('GET', `/v1/runs/${runId}/results`)).body;
    const [tc] = results.details.testCases;
    const hash = (b: Buffer) => createHash('sha256').update(b).digest('hex');
    for (const node of tc.nodes) {
      expect(node.request.parts.map((p: { sha256?: string }) => p.sha256)).to.deep.equal([
        undefined,
        hash(photo),
        hash(sheet),
      ]);
      // The debug capture: the same metadata instead of a body.
      expect(node.debug.request.parts).to.deep.equal(node.request.parts);
      expect(node.debug.request.body).to.equal(undefined);
      expect(node.debug.request.headers['content-type']).to.match(/^multipart\/form-data; boundary=/);
    }
  });
});
