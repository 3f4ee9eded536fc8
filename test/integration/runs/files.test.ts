/**
 * Files in requests (docs/flows.md "Files"), end to end: files uploaded with `PUT /v1/files/{name}`,
 * test cases run by a real worker on a real Temporal server, in both durability modes (`node` and
 * `testCase`), against a loopback server that parses each multipart body with the platform's
 * parser (`Request.formData()`, undici) and compares every part byte for byte with the uploaded
 * file: two files under one field and a text part with a template; a binary body with its
 * Content-Length and type; a missing file failing the node `FILE_NOT_FOUND` with nothing sent;
 * results showing parts' metadata (name, file name, type, size, SHA-256), never the content. And a
 * performance run posting a file: every body arrives intact and the file is read from the store
 * once per shard.
 */
import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import aws4 from 'aws4';
import { fileStoreReads } from '../../../activities/files';

/** SigV4 credentials of the `/signed/…` requests (test values, never real ones). */
const AWS = { accessKeyId: 'AKIDFILESTEST', secretAccessKey: 'files-test-secret-key-0001' };

/**
 * The SigV4 signature of a received request recomputed over the bytes that arrived (with the
 * headers its `SignedHeaders` names, and its own `X-Amz-Date`): equal to the one sent only when the
 * signature covered exactly these bytes.
 */
function sigV4Matches(r: { method: string; path: string; headers: http.IncomingHttpHeaders; body: Buffer }): boolean {
  const m =
    /Credential=[^/]+\/\d+\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
      String(r.headers.authorization ?? ''),
    );
  if (!m) return false;
  const [, region, service, signedHeaders, signature] = m;
  const headers: Record<string, string> = {};
  for (const name of signedHeaders!.split(';')) if (name !== 'host') headers[name] = String(r.headers[name] ?? '');
  const again = aws4.sign(
    { host: String(r.headers.host), path: r.path, method: r.method, headers, body: r.body, region, service },
    AWS,
  );
  return String(again.headers!.Authorization).endsWith(`Signature=${signature}`);
}

/** What the target saw of one request. */
interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** Multipart bodies: each part as the platform's parser read it. */
  parts?: Array<{ name: string; filename?: string; type?: string; bytes: Buffer }>;
}

/** A loopback server keeping every request (multipart bodies parsed); answers 200 `{"ok":true}`. */
async function startUploadTarget(): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        const entry: Received = { method: req.method!, path: req.url!, headers: req.headers, body };
        if (/^multipart\/form-data/i.test(req.headers['content-type'] ?? '')) {
          const form = await new Request(`http://target${req.url}`, {
            method: 'POST',
            headers: { 'content-type': req.headers['content-type']! },
            body: body as Uint8Array<ArrayBuffer>,
          }).formData();
          entry.parts = [];
          for (const [name, value] of form as unknown as Iterable<[string, string | File]>) {
            if (typeof value === 'string') entry.parts.push({ name, bytes: Buffer.from(value, 'utf8') });
            else
              entry.parts.push({
                name,
                filename: value.name,
                type: value.type,
                bytes: Buffer.from(await value.arrayBuffer()),
              });
          }
        }
        received.push(entry);
        // `/moved/…`: 307 to `/landed/…` (the body must follow); `/flaky/…`: 503 the first time;
        // `/poll/…`: 202 the first time (the Poll node asks again); `/signed/…`: 403 unless the
        // SigV4 signature covers the bytes that arrived.
        if (req.url!.startsWith('/poll/') && received.filter((r) => r.path === req.url).length === 1) {
          res.writeHead(202, { 'content-type': 'application/json' });
          res.end('{"ready":false}');
          return;
        }
        if (req.url!.startsWith('/signed/') && !sigV4Matches(entry)) {
          res.writeHead(403, { 'content-type': 'text/plain' });
          res.end('signature does not cover the body');
          return;
        }
        if (req.url!.startsWith('/moved/')) {
          res.writeHead(307, { location: req.url!.replace('/moved/', '/landed/') });
          res.end();
          return;
        }
        if (req.url!.startsWith('/flaky/') && received.filter((r) => r.path === req.url).length === 1) {
          res.writeHead(503);
          res.end();
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
      })().catch((err: Error) => {
        res.writeHead(400, { 'content-type': 'text/plain' });
        res.end(String(err.message));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** Content that would break a careless encoder: CRLFs, dashes like a boundary, every byte value, a marker. */
function trickyBytes(size: number, marker: string): Buffer {
  const head = Buffer.from(`\r\n--boundary\r\nContent-Disposition: form-data\r\n\r\n${marker}\r\n`);
  const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
  return Buffer.concat([head, all, randomBytes(size - head.length - all.length)]);
}

/** Uploads `bytes` as workspace file `name` (PUT /v1/files/{name}). */
async function upload(app: TestApp, name: string, bytes: Buffer, contentType?: string): Promise<{ id: string }> {
  const res = await fetch(`${app.url}/v1/files/${name}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${app.key}`, ...(contentType ? { 'content-type': contentType } : {}) },
    body: bytes as Uint8Array<ArrayBuffer>,
  });
  const body = (await res.json()) as { id: string };
  expect(res.status, JSON.stringify(body)).to.be.oneOf([200, 201]);
  return body;
}

describe('files in requests: multipart/form-data and binary bodies', function () {
  this.timeout(180_000);
  let app: TestApp;
  let target: Awaited<ReturnType<typeof startUploadTarget>>;
  const MARKER = 'FILE-CONTENT-MARKER-7f3a';
  const avatar = trickyBytes(200 * 1024, MARKER);
  const report = trickyBytes(64 * 1024, MARKER);
  const blob = trickyBytes(3000, MARKER);
  let reportId: string;

  before(async () => {
    [app, target] = await Promise.all([
      startTestApp({ worker: true, env: { ASSAY_LOAD_THREADS: '2' } }),
      startUploadTarget(),
    ]);
    await upload(app, 'fixtures/avatar.png', avatar, 'image/png');
    reportId = (await upload(app, 'docs/report.pdf', report, 'application/pdf')).id;
    await upload(app, 'data.bin', blob);
    await app.request('POST', '/v1/environments', { name: 'local', variables: { base: target.url } });
    const flow = [
      {
        type: 'api',
        id: 'form',
        request: {
          method: 'POST',
          url: '{{base}}/upload/{{mode}}',
          headers: { 'Content-Type': 'text/plain' },
          multipart: [
            { name: 'note', value: 'hello {{who}}' },
            { name: 'files', file: 'fixtures/avatar.png' },
            { name: 'files', file: '{{reportRef}}', filename: 'r.pdf', contentType: 'application/x-report' },
          ],
        },
        // A hook sees the parts as results show them (read-only: emptying them changes nothing sent).
        script: {
          code: "function beforeRequest() { $request.headers['X-Parts'] = $request.parts.map((p) => p.name + ':' + (p.filename || '-') + ':' + (p.sha256 || p.size)).join(','); $request.parts = []; }",
        },
        assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
      },
      {
        type: 'api',
        id: 'binary',
        request: { method: 'PUT', url: '{{base}}/binary/{{mode}}', file: 'data.bin' },
        assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
      },
      {
        type: 'api',
        id: 'typed',
        request: {
          method: 'POST',
          url: '{{base}}/typed/{{mode}}',
          file: { file: 'fixtures/avatar.png', contentType: 'application/x-avatar' },
        },
      },
    ];
    const hooks = {
      code: "function beforeRequest() { if ($request.file) $request.headers['X-File'] = $request.file.name + ':' + $request.file.size; }",
    };
    expect(
      (await app.request('POST', '/v1/test-cases', { name: 'uploads', folder: 'files', flow, hooks })).status,
    ).to.equal(201);
    const missing = [
      {
        type: 'api',
        id: 'lost',
        request: {
          method: 'POST',
          url: '{{base}}/lost/{{mode}}',
          multipart: [
            { name: 'a', file: 'fixtures/avatar.png' },
            { name: 'b', file: 'fixtures/{{who}}.png' },
          ],
        },
      },
    ];
    expect(
      (await app.request('POST', '/v1/test-cases', { name: 'missing file', folder: 'missing', flow: missing })).status,
    ).to.equal(201);
    const resend = [
      {
        type: 'api',
        id: 'moved',
        request: {
          method: 'POST',
          url: '{{base}}/moved/{{mode}}',
          multipart: [{ name: 'doc', file: 'docs/report.pdf' }],
        },
        assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
      },
      {
        type: 'api',
        id: 'flaky',
        request: { method: 'POST', url: '{{base}}/flaky/{{mode}}', file: 'data.bin' },
        retry: { attempts: 2, delayMs: 10 },
        assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
      },
      {
        type: 'poll',
        id: 'poll',
        request: {
          method: 'POST',
          url: '{{base}}/poll/{{mode}}',
          multipart: [{ name: 'doc', file: 'docs/report.pdf' }],
        },
        until: 'response.status = 200',
        interval: 10,
        maxAttempts: 5,
      },
      {
        type: 'api',
        id: 'signed',
        request: {
          method: 'PUT',
          url: '{{base}}/signed/{{mode}}',
          file: 'data.bin',
          auth: { type: 'awsv4', ...AWS, region: 'eu-west-1', service: 's3' },
        },
        assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
      },
      {
        type: 'api',
        id: 'signedForm',
        request: {
          method: 'POST',
          url: '{{base}}/signed/form-{{mode}}',
          multipart: [{ name: 'doc', file: 'fixtures/avatar.png' }],
          auth: { type: 'awsv4', ...AWS, region: 'eu-west-1', service: 'execute-api' },
        },
        assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
      },
    ];
    expect(
      (await app.request('POST', '/v1/test-cases', { name: 'resend', folder: 'resend', flow: resend })).status,
    ).to.equal(201);
    for (const folder of ['files', 'missing', 'resend'])
      expect((await app.request('POST', '/v1/runners', { name: folder, folder })).status).to.equal(201);
  });
  after(async () => {
    await target?.close();
    await app?.stop();
  });

  async function run(runner: string, durability: 'node' | 'testCase'): Promise<{ run: any; tc: any; text: string }> {
    const res = await app.request('POST', '/v1/runs', {
      runner,
      environment: 'local',
      durability,
      variables: { mode: durability, who: 'world', reportRef: reportId },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    const done = await waitForRun(app, res.body.runId, 90_000);
    const results = (await app.request('GET', `/v1/runs/${res.body.runId}/results`)).body;
    return { run: done, tc: results.details.testCases[0], text: JSON.stringify(results) };
  }

  for (const durability of ['node', 'testCase'] as const) {
    it(`sends multipart parts and binary bodies byte for byte, results showing metadata only (${durability} mode)`, async () => {
      const { run: done, tc, text } = await run('files', durability);
      expect(done.result, text).to.equal('passed');

      const form = target.received.find((r) => r.path === `/upload/${durability}`)!;
      expect(form.headers['content-type']).to.match(/^multipart\/form-data; boundary=/);
      // Built up front: Content-Length, no chunked transfer.
      expect(form.headers['transfer-encoding']).to.equal(undefined);
      expect(Number(form.headers['content-length'])).to.equal(form.body.length);
      expect(form.parts!.map((p) => `${p.name} ${p.filename ?? '-'} ${p.type ?? '-'}`)).to.deep.equal([
        'note - -',
        'files avatar.png image/png',
        'files r.pdf application/x-report',
      ]);
      expect(form.parts![0]!.bytes.toString('utf8')).to.equal('hello world');
      expect(form.headers['x-parts']).to.equal(
        `note:-:11,files:avatar.png:${sha256(avatar)},files:r.pdf:${sha256(report)}`,
      );
      expect(form.parts![1]!.bytes.equals(avatar)).to.equal(true);
      expect(form.parts![2]!.bytes.equals(report)).to.equal(true);

      const binary = target.received.find((r) => r.path === `/binary/${durability}`)!;
      expect(binary.method).to.equal('PUT');
      expect(binary.headers['content-type']).to.equal('application/octet-stream');
      expect(binary.headers['content-length']).to.equal(String(blob.length));
      expect(binary.body.equals(blob)).to.equal(true);
      expect(binary.headers['x-file'], 'a hook on the test case sees the binary body as $request.file').to.equal(
        `data.bin:${blob.length}`,
      );
      const typed = target.received.find((r) => r.path === `/typed/${durability}`)!;
      expect(typed.headers['content-type']).to.equal('application/x-avatar');
      expect(typed.body.equals(avatar)).to.equal(true);

      const [formNode, binaryNode, typedNode] = tc.nodes;
      expect(formNode.request.parts).to.deep.equal([
        { name: 'note', size: 11 },
        {
          name: 'files',
          filename: 'avatar.png',
          contentType: 'image/png',
          size: avatar.length,
          sha256: sha256(avatar),
        },
        {
          name: 'files',
          filename: 'r.pdf',
          contentType: 'application/x-report',
          size: report.length,
          sha256: sha256(report),
        },
      ]);
      expect(binaryNode.request.file).to.deep.equal({
        name: 'data.bin',
        contentType: 'application/octet-stream',
        size: blob.length,
        sha256: sha256(blob),
      });
      expect(typedNode.request.file).to.include({ name: 'fixtures/avatar.png', contentType: 'application/x-avatar' });
      // Never the content, in any form.
      expect(text).not.to.include(MARKER);
      expect(text).not.to.include(avatar.subarray(0, 64).toString('base64'));
    });

    it(`fails a node naming a missing file FILE_NOT_FOUND and sends nothing (${durability} mode)`, async () => {
      const { run: done, tc } = await run('missing', durability);
      expect(done.result).to.equal('failed');
      const [node] = tc.nodes;
      expect(node).to.include({ status: 'failed', errorCode: 'FILE_NOT_FOUND' });
      expect(node.error).to.include('"fixtures/world.png"');
      expect(node.error).not.to.include('avatar');
      expect(node.request.parts).to.equal(undefined);
      expect(target.received.filter((r) => r.path === `/lost/${durability}`)).to.have.length(0);
    });
  }

  it('sends the same bytes again on a 307 redirect, a retry and each Poll attempt; SigV4 signs the bytes sent', async () => {
    const { run: done, tc, text } = await run('resend', 'node');
    expect(done.result, text).to.equal('passed');
    const moved = target.received.filter((r) => r.path.endsWith('ed/node') && /\/(moved|landed)\//.test(r.path));
    expect(moved.map((r) => r.path)).to.deep.equal(['/moved/node', '/landed/node']);
    expect(moved[0]!.headers['content-type']).to.equal(moved[1]!.headers['content-type']);
    expect(moved[1]!.body.equals(moved[0]!.body)).to.equal(true);
    expect(moved[1]!.parts![0]!.bytes.equals(report)).to.equal(true);
    const flaky = target.received.filter((r) => r.path === '/flaky/node');
    expect(flaky).to.have.length(2);
    for (const r of flaky) expect(r.body.equals(blob)).to.equal(true);
    expect(tc.nodes[1].attempts.map((a: { status: number }) => a.status)).to.deep.equal([503, 200]);
    expect(tc.nodes[1].request.file).to.include({ name: 'data.bin', size: blob.length });

    // The Poll node sent the file on each attempt, and stopped at the 200.
    const polls = target.received.filter((r) => r.path === '/poll/node');
    expect(polls).to.have.length(2);
    for (const r of polls) expect(r.parts![0]!.bytes.equals(report)).to.equal(true);
    expect(tc.nodes[2]).to.include({ status: 'passed' });

    // SigV4 over a binary body (s3: the payload hash sent as X-Amz-Content-Sha256) and over a
    // multipart body: the target recomputed each signature over the bytes it received.
    const signed = target.received.find((r) => r.path === '/signed/node')!;
    expect(signed.body.equals(blob)).to.equal(true);
    expect(signed.headers['x-amz-content-sha256']).to.equal(sha256(blob));
    expect(sigV4Matches(signed)).to.equal(true);
    const signedForm = target.received.find((r) => r.path === '/signed/form-node')!;
    expect(signedForm.parts![0]!.bytes.equals(avatar)).to.equal(true);
    expect(sigV4Matches(signedForm)).to.equal(true);
    // And the check can fail: the same request with one byte changed is refused.
    const tampered = Buffer.from(signedForm.body);
    const at = tampered.length - 10;
    tampered.writeUInt8(tampered.readUInt8(at) ^ 1, at);
    expect(sigV4Matches({ ...signedForm, body: tampered })).to.equal(false);
    expect(tc.nodes[3].status, JSON.stringify(tc.nodes[3])).to.equal('passed');
    expect(tc.nodes[4].status, JSON.stringify(tc.nodes[4])).to.equal('passed');
  });

  it('refuses a request with two bodies, naming the field at fault', async () => {
    const res = await app.request('POST', '/v1/test-cases', {
      name: 'two bodies',
      flow: [
        {
          type: 'api',
          id: 'x',
          request: { method: 'POST', url: 'http://x/', body: { a: 1 }, multipart: [{ name: 'a', value: 'b' }] },
        },
      ],
    });
    expect(res.status).to.equal(400);
    expect(JSON.stringify(res.body)).to.include('multipart');
    expect(JSON.stringify(res.body)).to.include('cannot be used with body');
  });

  it('a performance run posting a file: every body intact, the file read once per shard', async () => {
    const flow = [
      {
        type: 'api',
        id: 'post',
        request: {
          method: 'POST',
          url: '{{base}}/perf',
          multipart: [
            { name: 'vu', value: '{{__VU}}' },
            { name: 'doc', file: 'docs/report.pdf' },
          ],
        },
        assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
      },
    ];
    expect(
      (await app.request('POST', '/v1/test-cases', { name: 'perf upload', folder: 'perf', flow })).status,
    ).to.equal(201);
    expect((await app.request('POST', '/v1/runners', { name: 'perf', folder: 'perf' })).status).to.equal(201);
    const readsBefore = fileStoreReads();
    const res = await app.request('POST', '/v1/runs', {
      runner: 'perf',
      environment: 'local',
      timeout: 300,
      performance: { executor: 'constant-vus', vus: 2, duration: '2s' },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    const done = await waitForRun(app, res.body.runId, 120_000);
    expect(done.status, JSON.stringify(done)).to.equal('completed');
    const p = (await app.request('GET', `/v1/runs/${res.body.runId}/results`)).body.performance;
    const posts = target.received.filter((r) => r.path === '/perf');
    expect(p.requests, JSON.stringify(p).slice(0, 3000)).to.equal(posts.length);
    expect(posts.length, JSON.stringify(p).slice(0, 3000)).to.be.greaterThan(10);
    for (const post of posts) {
      expect(post.parts!.map((part) => part.name)).to.deep.equal(['vu', 'doc']);
      expect(post.parts![1]!.bytes.equals(report), 'a posted file differs from the upload').to.equal(true);
      expect(Number(post.headers['content-length'])).to.equal(post.body.length);
    }
    // Two VUs on two load threads, one shard: the shard read the file once for both threads.
    expect(new Set(posts.map((post) => post.parts![0]!.bytes.toString())).size).to.equal(2);
    expect(p.errorRate).to.equal(0);
    expect(fileStoreReads() - readsBefore).to.equal(1);
  });
});
