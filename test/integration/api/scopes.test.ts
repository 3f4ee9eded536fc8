/**
 * Scopes per endpoint (api/scopes.ts, docs/security.md "Scopes per endpoint"):
 * the one table covers every route the routers serve (the /auth sign-in routes included), and every
 * /v1 endpoint × every key scope (read, run, write, admin; `owner` is a person's role only) is
 * answered 403 exactly when the table says the scope is too small.
 */
import { expect } from 'chai';
import type Router from '@koa/router';
import { appDeps, startTestApp, type TestApp } from '../../helpers/app';
import { KEY_SCOPES, type KeyScope } from '../../../src/store/entities';
import { V1_ROUTERS } from '../../../api/app';
import { libraryFilesRouter } from '../../../api/routes/libraries';
import { incomingWebhooksRouter } from '../../../api/routes/incoming-webhooks';
import { callbacksRouter } from '../../../api/routes/callbacks';
import { signInRouter } from '../../../api/routes/sign-in';
import { ENDPOINT_SCOPES, scopeAllows, scopeEntryFor } from '../../../api/scopes';
import type { AppState } from '../../../api/context';

describe('scopes per endpoint (one table)', function () {
  this.timeout(120_000);
  let app: TestApp;
  const keys = {} as Record<KeyScope, string>;

  before(async () => {
    app = await startTestApp();
    for (const scope of KEY_SCOPES) keys[scope] = await app.issueKey(scope);
  });
  after(async () => {
    await app?.stop();
  });

  const deps = () => appDeps(app);

  it('every route of every router has its own entry in the table, and every entry is a route', () => {
    const routers: Router<AppState>[] = [
      ...V1_ROUTERS.map((r) => r(deps()).prefix('/v1')),
      libraryFilesRouter(),
      incomingWebhooksRouter(deps()),
      callbacksRouter(deps()),
      signInRouter(deps()),
    ];
    const served = new Set<string>();
    for (const router of routers) {
      for (const layer of router.stack) {
        for (const method of layer.methods) {
          if (method === 'HEAD') continue; // answered by the GET entry
          served.add(`${method} ${layer.path}`);
        }
      }
    }
    expect(served.size).to.be.greaterThan(30);
    const missing = [...served].filter((k) => !(k in ENDPOINT_SCOPES));
    expect(missing, 'routes without a scope entry').to.deep.equal([]);
    const stale = Object.keys(ENDPOINT_SCOPES).filter((k) => !served.has(k));
    expect(stale, 'table entries no router serves').to.deep.equal([]);
    // Each route resolves to its own entry (literal segments beat parameters).
    for (const k of served) {
      const [method, template] = k.split(' ') as [string, string];
      const concrete = template.replace(/:[A-Za-z]+/g, 'p1');
      expect(scopeEntryFor(method, concrete)?.template, k).to.equal(template);
    }
  });

  it('walks the table: every /v1 endpoint × each scope → 403 exactly when the scope is too small', async () => {
    const checked: string[] = [];
    for (const [entry, needed] of Object.entries(ENDPOINT_SCOPES)) {
      const [method, template] = entry.split(' ') as [string, string];
      if (needed === 'public') continue;
      const path = template.replace(/:[A-Za-z]+/g, 'no-such-thing');
      for (const scope of KEY_SCOPES) {
        const res = await app.request(method, path, method === 'GET' ? undefined : {}, { key: keys[scope] });
        const label = `${scope} key: ${method} ${path} → ${res.status} ${JSON.stringify(res.body)}`;
        expect(res.status, label).to.be.below(500);
        if (scopeAllows(scope, needed)) {
          expect(res.status, label).to.not.equal(403);
        } else {
          expect(res.status, label).to.equal(403);
          expect(res.body.code, label).to.equal('forbidden');
          expect(res.body.scopeNeeded, label).to.equal(needed);
        }
        checked.push(label);
      }
    }
    expect(checked.length).to.equal(
      Object.values(ENDPOINT_SCOPES).filter((s) => s !== 'public').length * KEY_SCOPES.length,
    );
  });

  it('a run-scope key cannot call POST /v1/mock-samples; a write key can', async () => {
    const schema = { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] };
    const refused = await app.request('POST', '/v1/mock-samples', { schema }, { key: keys.run });
    expect(refused.status).to.equal(403);
    expect(refused.body).to.include({ code: 'forbidden', scopeNeeded: 'write' });
    const ok = await app.request('POST', '/v1/mock-samples', { schema }, { key: keys.write });
    expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
    expect(ok.body.data.id).to.be.a('number');
  });

  it('/V1/… in other letter cases (which the routers answer) is authenticated and scope-checked too', async () => {
    const schema = { type: 'integer' };
    for (const path of ['/V1/environments', '/v1/ENVIRONMENTS', '/V1/Workspaces']) {
      expect((await app.request('GET', path, undefined, { key: null })).status, path).to.equal(401);
    }
    expect((await app.request('POST', '/V1/mock-samples', { schema }, { key: null })).status).to.equal(401);
    const refused = await app.request('POST', '/V1/Mock-Samples', { schema }, { key: keys.run });
    expect(refused.status).to.equal(403);
    expect(refused.body.scopeNeeded).to.equal('write');
    expect((await app.request('GET', '/V1/environments', undefined, { key: keys.read })).status).to.equal(200);
  });

  it('a path no route has still needs write for writes and read for reads (404 after the check)', async () => {
    expect((await app.request('POST', '/v1/nowhere', {}, { key: keys.run })).status).to.equal(403);
    expect((await app.request('POST', '/v1/nowhere', {}, { key: keys.write })).status).to.equal(404);
    expect((await app.request('GET', '/v1/nowhere', undefined, { key: keys.read })).status).to.equal(404);
  });
});
