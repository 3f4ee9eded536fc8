/**
 * The API serves the web console (docs/console.md "How it is built and served"; api/console.ts): index.html for `/` and every
 * console route (deep links reload), hashed assets cached for a year, a Content-Security-Policy on
 * every console answer, and the service's own paths untouched (problem+json 404s, 401s, 405s).
 * Needs the console build (`npm run build` writes dist/web).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startTestApp, type TestApp } from '../../helpers/app';

describe('the web console served by the API', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => app?.stop());

  const get = (p: string, init: RequestInit = {}) => fetch(`${app.url}${p}`, init);

  it('answers / and any console route with index.html, uncached, under a strict CSP', async () => {
    for (const p of ['/', '/runs', '/runs/run_01ABC', '/requests/anything', '/test-cases/tc_1?x=1']) {
      const res = await get(p);
      expect(res.status, p).to.equal(200);
      expect(res.headers.get('content-type'), p).to.match(/^text\/html/);
      expect(res.headers.get('cache-control'), p).to.equal('no-cache');
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp, p).to.contain("script-src 'self'");
      expect(csp, p).to.contain("frame-ancestors 'none'");
      expect(csp, p).to.contain('connect-src *');
      expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(await res.text(), p).to.contain('<div id="app">');
    }
  });

  it('serves the bundled assets named in index.html with immutable caching; a missing asset is a 404 problem, not HTML', async () => {
    const html = await (await get('/')).text();
    const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.some((a) => a.endsWith('.js'))).to.equal(true);
    for (const a of assets) {
      const res = await get(a);
      expect(res.status, a).to.equal(200);
      expect(res.headers.get('cache-control'), a).to.contain('immutable');
      expect(res.headers.get('cache-control'), a).to.contain('max-age=31536000');
      expect(res.headers.get('content-type'), a).to.match(a.endsWith('.js') ? /javascript/ : /css/);
    }
    // Compressed for browsers that accept it (fetch sends Accept-Encoding and decodes the answer).
    const js = assets.find((a) => a.endsWith('.js'))!;
    expect((await get(js, { headers: { 'accept-encoding': 'br' } })).headers.get('content-encoding')).to.equal('br');
    expect((await get(js, { headers: { 'accept-encoding': 'gzip' } })).headers.get('content-encoding')).to.equal(
      'gzip',
    );
    const missing = await get('/assets/index-gone.js');
    expect(missing.status).to.equal(404);
    expect(missing.headers.get('content-type')).to.match(/problem\+json/);
  });

  it('leaves the service paths alone: /v1, /problems, /healthz, /mock keep their answers; only GET and HEAD reach the console', async () => {
    const unknownV1 = await app.request('GET', '/v1/no-such-thing');
    expect(unknownV1.status).to.equal(404);
    expect(unknownV1.body.code).to.equal('not-found');
    expect((await app.request('GET', '/V1/runs', undefined, { key: null })).status).to.equal(401);
    expect((await app.request('GET', '/problems/not-a-code', undefined, { key: null })).body.code).to.equal(
      'not-found',
    );
    expect((await app.request('GET', '/healthz', undefined, { key: null })).body).to.deep.equal({ status: 'ok' });
    const mock = await get(`/mock/${app.workspaceId}/nothing`);
    expect(mock.headers.get('content-type') ?? '').to.not.match(/text\/html/);
    const post = await app.request('POST', '/runs', {}, { key: null });
    expect(post.status).to.equal(404);
    expect(post.body.code).to.equal('not-found');
    const head = await get('/runs', { method: 'HEAD' });
    expect(head.status).to.equal(200);
  });

  it('says how to build the console when its folder holds no build', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-no-console-'));
    const bare = await startTestApp({ env: { ASSAY_CONSOLE_DIR: empty } });
    try {
      const res = await bare.request('GET', '/', undefined, { key: null });
      expect(res.status).to.equal(404);
      expect(res.body.code).to.equal('not-found');
      expect(res.body.detail).to.contain('npm run build');
      expect((await bare.request('GET', '/v1/workspaces')).status).to.equal(200);
    } finally {
      await bare.stop();
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });
});
