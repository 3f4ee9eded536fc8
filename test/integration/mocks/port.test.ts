/**
 * The mocks on a port of their own (ASSAY_MOCK_PORT, docs/mocks.md "A port of their own"): the same
 * answers as on the API's port; nothing else served there; runs and the console's local requests
 * reach it while the API's own port and the worker's HTTP port stay refused by the address policy.
 */
import { expect } from 'chai';
import { startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import type { WorkerHandle } from '../../../bin/processes';
import { loadConfig, ConfigError } from '../../../src/config';

const status200 = { target: 'response.status', operator: 'equals', expected: 200 };

describe('mocks on their own port (ASSAY_MOCK_PORT)', function () {
  this.timeout(120_000);
  let app: TestApp;
  let mocks: string;
  /** The design's `mockUrl` as the API answers it. */
  let mockUrl: string;

  before(async () => {
    app = await startTestApp({ worker: true, env: { ASSAY_MOCK_PORT: '0' } });
    expect(app.api.mockUrl, 'the API reports where the mocks listen').to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(app.api.mockUrl).not.to.equal(app.url);
    mocks = `${app.api.mockUrl}/mock/${app.workspaceId}`;
    const design = await app.request('POST', '/v1/designs', {
      method: 'GET',
      path: '/users/{userId}',
      name: 'Get a user',
      responses: [
        { status: 200, code: 1, name: 'ada', data: { id: 1, name: 'Ada' } },
        { status: 404, code: 1, data: { error: 'no such user' } },
      ],
    });
    expect(design.status, JSON.stringify(design.body)).to.equal(201);
    mockUrl = design.body.mockUrl;
  });
  after(async () => {
    await app?.stop();
  });

  it('answers a mock request as the API port does, and serves nothing else', async () => {
    const own = await fetch(`${mocks}/users/1`);
    expect(own.status).to.equal(200);
    const onApiPort = await fetch(`${app.url}/mock/${app.workspaceId}/users/1`);
    expect(await own.json()).to.deep.equal(await onApiPort.json());
    const chosen = await fetch(`${mocks}/users/7?_status_=404`);
    expect(chosen.status).to.equal(404);
    expect(await chosen.json()).to.deep.equal({ error: 'no such user' });

    // The REST API, the console and health are not there, even with a valid key.
    for (const path of ['/v1/workspaces', '/', '/healthz', '/webhooks/deploy/x']) {
      const res = await fetch(`${app.api.mockUrl}${path}`, { headers: { authorization: `Bearer ${app.key}` } });
      expect(res.status, path).to.equal(404);
      expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
      const body = (await res.json()) as { detail: string };
      expect(body).to.include({ code: 'not-found', status: 404 });
      expect(body.detail).to.match(/serves mocks only/);
    }
  });

  it("names the mock port in a design's mockUrl (ASSAY_PUBLIC_URL's host, the mock port), or ASSAY_MOCK_PUBLIC_URL", () => {
    const port = new URL(app.api.mockUrl!).port;
    expect(mockUrl).to.equal(`http://localhost:${port}/mock/${app.workspaceId}/users/{userId}`);
    expect(
      loadConfig({ ASSAY_MOCK_PORT: '8082', ASSAY_PUBLIC_URL: 'https://assay.example.com:8443/' }).mocks.publicUrl,
    ).to.equal('https://assay.example.com:8082');
    expect(
      loadConfig({ ASSAY_MOCK_PORT: '8082', ASSAY_MOCK_PUBLIC_URL: 'https://mocks.example.com/' }).mocks.publicUrl,
    ).to.equal('https://mocks.example.com');
    expect(loadConfig({}).mocks.publicUrl, 'no mock port: mockUrl is on the API').to.equal(null);
    expect(() => loadConfig({ ASSAY_MOCK_PORT: '8082', ASSAY_MOCK_PUBLIC_URL: 'mocks:8082' })).to.throw(
      ConfigError,
      /ASSAY_MOCK_PUBLIC_URL/,
    );
  });

  it('a run tests the mock at its mockUrl and passes; the API port and the worker port stay refused', async () => {
    const worker = app.worker as WorkerHandle;
    expect(worker.httpUrl, 'the test worker serves /metrics').to.be.a('string');
    // The user copies the design's mockUrl into an environment, as the console's copy button does.
    await app.request('POST', '/v1/environments', {
      name: 'mocked',
      variables: { user: mockUrl.replace('{userId}', '1'), api: app.url, workerHttp: worker.httpUrl },
    });
    const cases = {
      'mock user': [
        {
          type: 'api',
          request: { method: 'GET', url: '{{user}}' },
          assertions: [status200, { target: 'response.body.name', operator: 'equals', expected: 'Ada' }],
        },
      ],
      'api port': [{ type: 'api', request: { method: 'GET', url: '{{api}}/healthz' } }],
      'worker port': [{ type: 'api', request: { method: 'GET', url: '{{workerHttp}}/metrics' } }],
    };
    for (const [name, flow] of Object.entries(cases)) {
      const res = await app.request('POST', '/v1/test-cases', { name, folder: 'mocked', flow });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
    }
    await app.request('POST', '/v1/runners', { name: 'mocked', folder: 'mocked' });
    const started = await app.request('POST', '/v1/runs', { runner: 'mocked', environment: 'mocked' });
    expect(started.status, JSON.stringify(started.body)).to.equal(201);
    const run = await waitForRun(app, started.body.runId);
    expect(run.status).to.equal('completed');
    const results = (await app.request('GET', `/v1/runs/${started.body.runId}/results`)).body;
    const byName = Object.fromEntries(results.details.testCases.map((c: { name: string }) => [c.name, c]));
    expect(byName['mock user'].status).to.equal('passed');
    expect(byName['api port'].status).to.equal('failed');
    expect(byName['api port'].nodes[0].error).to.match(
      /ADDRESS_NOT_ALLOWED.*the API's own port \(ASSAY_PORT\) is never reachable/,
    );
    expect(byName['worker port'].status).to.equal('failed');
    expect(byName['worker port'].nodes[0].error).to.match(
      /ADDRESS_NOT_ALLOWED.*the worker's own port \(ASSAY_WORKER_HTTP_PORT\) is never reachable/,
    );
  });

  it("the console's local requests (POST /v1/relay) reach the mock port, not the API's", async () => {
    const ok = await app.request('POST', '/v1/relay', { method: 'GET', url: `${mocks}/users/1` });
    expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
    expect(ok.body.status).to.equal(200);
    expect(JSON.parse(ok.body.body)).to.deep.equal({ id: 1, name: 'Ada' });
    const refused = await app.request('POST', '/v1/relay', {
      method: 'GET',
      url: `${app.url}/mock/${app.workspaceId}/users/1`,
    });
    expect(refused.status).to.equal(403);
    expect(refused.body).to.include({ code: 'address-not-allowed', errorCode: 'ADDRESS_NOT_ALLOWED' });
  });

  it('ASSAY_MOCK_PORT is off when unset and refused when not a port, naming the variable', () => {
    expect(loadConfig({}).mocks.port).to.equal(null);
    expect(loadConfig({ ASSAY_MOCK_PORT: '8082' }).mocks.port).to.equal(8082);
    for (const bad of ['http', '-1', '70000', '80.5']) {
      expect(() => loadConfig({ ASSAY_MOCK_PORT: bad }), bad).to.throw(ConfigError, /ASSAY_MOCK_PORT/);
    }
  });
});
