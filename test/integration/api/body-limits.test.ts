/**
 * Every route keeps its documented body limit (docs/api.md "Errors", docs/security.md "Limits"):
 * each operation of the API's own OpenAPI document that takes a body (every POST, PUT and PATCH
 * under /v1 and the incoming webhooks), the codec server, the mocks and the bundler get a body one
 * byte over their limit (413 `payload-too-large`, nothing stored) and one exactly at it (not 413),
 * chunked (no Content-Length) and with a Content-Length. The limits are set low here
 * (ASSAY_MAX_BODY_BYTES 16 KiB, ASSAY_IMPORT_MAX_BYTES 32 KiB) so that a byte over is cheap; the
 * fixed ones (mock collections' 8 MiB seeds, the codec's 8 MiB) are sent as they are.
 */
import http from 'node:http';
import { expect } from 'chai';
import { startTestApp, type TestApp } from '../../helpers/app';
import { apiOperations } from '../../../api/openapi/operations';
import { CODEC_MAX_BODY_BYTES } from '../../../api/routes/codec';
import { MOCK_BODY_MAX_BYTES } from '../../../src/mock/exchange';
import { MAX_SEED_BYTES } from '../../../src/mock/state';
import { startBundler, type BundlerHandle } from '../../../bin/processes';
import { createLogger } from '../../../src/logger';

const MAX_BODY = 16 * 1024;
const IMPORT_MAX = 32 * 1024;
/** ASSAY_FILE_MAX_BYTES: `PUT /v1/files/{name}` takes the file's bytes, up to this (docs/api.md "Files"). */
const FILE_MAX = 24 * 1024;

/** A JSON object of exactly `bytes` bytes. */
function jsonOf(bytes: number): string {
  const frame = '{"x":""}';
  return `{"x":"${'a'.repeat(bytes - frame.length)}"}`;
}

/** A route that reads a body: its limit, and the problem code past it (`payload-too-large` unless named). */
interface Route {
  name: string;
  url: string;
  method: string;
  limit: number;
  headers: Record<string, string>;
  code?: string;
}

interface Sent {
  status: number;
  body: string;
  headers: http.IncomingHttpHeaders;
}

/** Sends `body` to `url` with a Content-Length, or chunked (64 KiB chunks, no Content-Length). */
function send(
  url: string,
  method: string,
  body: string,
  headers: Record<string, string>,
  chunked: boolean,
): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method,
        headers: { 'content-type': 'application/json', ...headers },
        agent: false,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: text, headers: res.headers }));
      },
    );
    // The server may answer 413 and close before the whole body is written.
    req.on('error', (err) => reject(err));
    if (chunked) {
      for (let i = 0; i < body.length; i += 64 * 1024) req.write(body.slice(i, i + 64 * 1024));
      req.end();
    } else {
      req.setHeader('content-length', Buffer.byteLength(body));
      req.end(body);
    }
  });
}

describe('body limits: every route refuses one byte over its limit', function () {
  this.timeout(120_000);
  let app: TestApp;
  let bundler: BundlerHandle;
  const ids: Record<string, string> = {};
  /** An `admin` key, so that members and keys reach their body parser (api/scopes.ts). */
  let adminKey: string;

  before(async () => {
    app = await startTestApp({
      env: {
        ASSAY_MAX_BODY_BYTES: String(MAX_BODY),
        ASSAY_IMPORT_MAX_BYTES: String(IMPORT_MAX),
        ASSAY_FILE_MAX_BYTES: String(FILE_MAX),
      },
    });
    adminKey = await app.issueKey('admin');
    bundler = await startBundler(app.config, app.dataSource, createLogger('silent', 'bundler-test'));
    // Resources the routes with a path parameter name (a body is read before the resource is looked
    // up on /v1, but an incoming webhook checks its token first).
    await app.request('POST', '/v1/environments', { name: 'local', variables: {} });
    await app.request('POST', '/v1/test-cases', { name: 't', folder: 'f', flow: [] });
    await app.request('POST', '/v1/runners', { name: 'r', folder: 'f' });
    const dep = await app.request('POST', '/v1/deployments', {
      name: 'd',
      runner: 'r',
      environment: 'local',
      webhookEnabled: true,
    });
    expect(dep.status, JSON.stringify(dep.body)).to.equal(201);
    ids.webhookId = new URL(dep.body.webhookUrl).pathname.split('/').pop()!;
    ids.webhookToken = dep.body.webhookToken;
    // A data collection: its mock route reads the body (a mock that needs no body answers without
    // reading it, docs/mocks.md, so it refuses nothing).
    const collection = await app.request('POST', '/v1/mock-collections', { name: 'users', basePath: '/users' });
    expect(collection.status, JSON.stringify(collection.body)).to.equal(201);
  });
  after(async () => {
    await bundler?.close();
    await app?.stop();
  });

  /** Every route that reads a body, with its limit, as a client calls it. */
  function routes(): Route[] {
    const key = { authorization: `Bearer ${adminKey}` };
    const out: Route[] = [];
    for (const op of apiOperations(app.config)) {
      if (!['post', 'put', 'patch'].includes(op.method)) continue;
      // A callback address is looked up before its body is read (404 for one Assay did not make);
      // test/integration/async/callbacks.test.ts sends one over ASSAY_MAX_BODY_BYTES to a real one.
      if (op.path.startsWith('/callbacks/')) continue;
      // Sign-in (api/routes/sign-in.ts) reads no body: `POST /auth/logout` ends a session whatever it is sent.
      if (op.path.startsWith('/auth/')) continue;
      const path = op.path
        .replace(/:(\w+)/g, (_, p: string) => (p === 'webhookId' ? ids.webhookId! : `x-${p}`))
        .replace(/\*(\w+)$/, (_, p: string) => `x-${p}.json`);
      const file = /^\/v1\/files\//.test(op.path);
      const limit = /^\/v1\/designs\/import$/.test(op.path)
        ? IMPORT_MAX
        : /^\/v1\/mock-collections(\/:collectionId)?$/.test(op.path)
          ? MAX_SEED_BYTES + 64 * 1024
          : file
            ? FILE_MAX
            : MAX_BODY;
      const headers = op.path.startsWith('/webhooks/') ? { authorization: `Bearer ${ids.webhookToken}` } : key;
      out.push({
        name: `${op.method.toUpperCase()} ${op.path}`,
        url: `${app.url}${path}`,
        method: op.method,
        limit,
        headers,
        ...(file ? { code: 'file-too-large' } : {}),
      });
    }
    for (const path of ['/codec/decode', '/codec/encode'])
      out.push({
        name: `POST ${path}`,
        url: `${app.url}${path}`,
        method: 'post',
        limit: CODEC_MAX_BODY_BYTES,
        headers: key,
      });
    out.push({
      name: 'POST /codec/session',
      url: `${app.url}/codec/session`,
      method: 'post',
      limit: 4096,
      headers: {},
    });
    out.push({
      name: 'POST /mock/{workspaceId}/…',
      url: `${app.url}/mock/${app.workspaceId}/users`,
      method: 'post',
      limit: MOCK_BODY_MAX_BYTES,
      headers: {},
      code: 'mock-body-too-large',
    });
    out.push({
      name: 'POST /api/bundle (bundler)',
      url: `${bundler.url}/api/bundle`,
      method: 'post',
      limit: 64 * 1024,
      headers: key,
    });
    return out;
  }

  it('covers every operation of the OpenAPI document that takes a body', () => {
    const names = new Set(routes().map((r) => r.name));
    for (const op of apiOperations(app.config))
      if ('body' in op && op.body)
        expect(names, `${op.method} ${op.path}`).to.include(`${op.method.toUpperCase()} ${op.path}`);
    expect(names.size).to.be.greaterThan(35);
  });

  it('answers 413 payload-too-large one byte over, with a Content-Length and chunked; never 413 at the limit', async () => {
    const environmentsBefore = (await app.request('GET', '/v1/environments')).body.items.length;
    const wrong: string[] = [];
    for (const route of routes()) {
      for (const chunked of [false, true]) {
        const over = await send(route.url, route.method, jsonOf(route.limit + 1), route.headers, chunked);
        if (over.status !== 413 || JSON.parse(over.body).code !== (route.code ?? 'payload-too-large'))
          wrong.push(
            `${route.name}${chunked ? ' (chunked)' : ''}: ${route.limit + 1} bytes → ${over.status} ${over.body.slice(0, 120)}`,
          );
      }
      const at = await send(route.url, route.method, jsonOf(route.limit), route.headers, false);
      if (at.status === 413) wrong.push(`${route.name}: ${route.limit} bytes (the limit) → 413`);
    }
    expect(wrong).to.deep.equal([]);
    // Nothing was stored by a refused body.
    expect((await app.request('GET', '/v1/environments')).body.items.length).to.equal(environmentsBefore);
  });
});
