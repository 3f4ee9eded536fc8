/**
 * API-surface rules (docs/spec-choices.md "API surface") against a real API on loopback, a real
 * MariaDB/MySQL store (and the embedded SQLite store for deletion), a real Temporal and worker:
 *
 * - every 405 carries `Allow` (RFC 9110 §15.5.6) on /v1 routes, incoming webhooks, /healthz,
 *   /problems and /libs;
 * - a disabled deployment starts no run from run-now or its incoming webhook (409, no row);
 * - an empty filter value is a 400 naming the parameter on every listing;
 * - incoming webhook credentials: any one valid credential is enough, wrong ones alone are 401;
 * - DELETE /v1/runs/{id} and the retention sweep delete ended runs with their results and
 *   deliveries, never an active run nor another workspace's.
 */
import { expect } from 'chai';
import { Client, Connection } from '@temporalio/client';
import { Run, RunTestCaseResult, WebhookDelivery, queuedRun } from '../../../src/store/entities';
import { deleteRun, sweepExpiredRuns } from '../../../src/store/retention';
import { newId, runWorkflowId } from '../../../src/ids';
import { eventually, startTestApp, waitForRun, type Reply, type TestApp } from '../../helpers/app';
import { startReceiver, type Receiver } from '../../helpers/receiver';
import { startTarget, type Target } from '../../helpers/target';

function expectProblem(res: Reply, status: number, code: string): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
  expect(res.body).to.include({ status, code, type: `/problems/${code}` });
  expect(res.body.detail).to.be.a('string');
}

/** The methods of an `Allow` header, sorted. */
function allowOf(res: Reply): string[] {
  return (res.headers.get('allow') ?? '')
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean)
    .sort();
}

const DAY_MS = 86_400_000;

describe('API surface (405 Allow, disabled deployments, empty filters, webhook credentials, deleting runs)', function () {
  this.timeout(120_000);
  let app: TestApp;
  let target: Target;
  let receiver: Receiver;

  before(async () => {
    [app, target, receiver] = await Promise.all([
      startTestApp({ worker: true, env: { ASSAY_WEBHOOK_RETRY_INITIAL_MS: '200', ASSAY_WEBHOOK_RETRY_MAX_MS: '500' } }),
      startTarget(),
      startReceiver(),
    ]);
    for (const name of ['local', 'staging'])
      await app.request('POST', '/v1/environments', { name, variables: { base: target.url } });
    const ok = [
      {
        type: 'api',
        request: { method: 'GET', url: '{{base}}/users/1' },
        assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
      },
    ];
    await app.request('POST', '/v1/test-cases', { name: 'ok', folder: 'green', tags: ['smoke'], flow: ok });
    await app.request('POST', '/v1/test-cases', { name: 'also ok', folder: 'blue', flow: ok });
    await app.request('POST', '/v1/test-cases', {
      name: 'long wait',
      folder: 'slow',
      flow: [{ type: 'wait', ms: 120_000 }],
    });
    for (const name of ['green', 'blue', 'slow']) {
      const res = await app.request('POST', '/v1/runners', { name, folder: name });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
    }
  });
  after(async () => {
    await receiver?.close();
    await target?.close();
    await app?.stop();
  });

  const startRun = async (runner: string, environment = 'local'): Promise<string> => {
    const res = await app.request('POST', '/v1/runs', { runner, environment });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.runId;
  };
  const countRows = async (table: string, column: string, value: string): Promise<number> =>
    Number((await app.dataSource.query(`SELECT COUNT(*) AS n FROM ${table} WHERE ${column} = ?`, [value]))[0].n);

  describe('405 answers carry Allow (RFC 9110 §15.5.6)', () => {
    const cases: Array<[string, string, string[], boolean]> = [
      ['DELETE', '/v1/workspaces', ['GET', 'HEAD'], true],
      ['PUT', '/v1/runs', ['GET', 'HEAD', 'POST'], true],
      ['GET', '/v1/runs/run_nope/cancel', ['POST'], true],
      ['PUT', '/v1/runs/run_nope', ['DELETE', 'GET', 'HEAD'], true],
      ['POST', '/v1/deployments/dep_nope', ['DELETE', 'GET', 'HEAD', 'PATCH'], true],
      ['PURGE', '/v1/environments', ['GET', 'HEAD', 'POST'], true],
      ['GET', '/v1/relay', ['POST'], true],
      ['GET', '/webhooks/deploy/whatever', ['POST'], false],
      ['POST', '/healthz', ['GET', 'HEAD'], false],
      ['POST', '/problems/not-found', ['GET', 'HEAD'], false],
      ['DELETE', '/libs/lodash@4.17.21.js', ['GET', 'HEAD'], false],
    ];
    for (const [method, path, allowed, withKey] of cases) {
      it(`${method} ${path} → 405 with Allow: ${allowed.join(', ')}`, async () => {
        const res = await app.request(method, path, undefined, withKey ? {} : { key: null });
        expectProblem(res, 405, 'method-not-allowed');
        expect(allowOf(res)).to.deep.equal(allowed);
        expect([...res.body.allowed].sort()).to.deep.equal(allowed);
      });
    }

    it('an unknown method on an unknown path is still 404 (no route to allow anything)', async () => {
      const res = await app.request('PURGE', '/nothing-here', undefined, { key: null });
      expectProblem(res, 404, 'not-found');
      expect(res.headers.get('allow')).to.equal(null);
    });
  });

  describe('a disabled deployment starts no runs', () => {
    it('run-now and the incoming webhook answer 409 deployment-disabled and create no run row; enabled again, both start runs', async () => {
      const created = await app.request('POST', '/v1/deployments', {
        name: 'paused',
        runner: 'green',
        environment: 'local',
        enabled: false,
        webhookEnabled: true,
      });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const d = created.body;
      const hook = new URL(d.webhookUrl).pathname;
      const callHook = (headers: Record<string, string>) =>
        app.request('POST', hook, { trigger: 'ci' }, { key: null, headers });

      const now = await app.request('POST', `/v1/deployments/${d.id}/runs`);
      expectProblem(now, 409, 'deployment-disabled');
      expect(now.body.deploymentId).to.equal(d.id);
      expect(now.body.detail).to.contain('"enabled": true').and.to.contain(`PATCH /v1/deployments/${d.id}`);
      const viaHook = await callHook({ authorization: `Bearer ${d.webhookToken}` });
      expectProblem(viaHook, 409, 'deployment-disabled');
      // Authentication comes first: a caller without valid credentials learns nothing about the state.
      expectProblem(await callHook({ authorization: 'Bearer whk_wrong' }), 401, 'unauthorized');
      expect(await countRows('runs', 'deploymentId', d.id)).to.equal(0);

      await app.request('PATCH', `/v1/deployments/${d.id}`, { enabled: true });
      const started = await app.request('POST', `/v1/deployments/${d.id}/runs`);
      expect(started.status, JSON.stringify(started.body)).to.equal(201);
      const hooked = await callHook({ authorization: `Bearer ${d.webhookToken}` });
      expect(hooked.status, JSON.stringify(hooked.body)).to.equal(200);
      expect(await countRows('runs', 'deploymentId', d.id)).to.equal(2);
      await Promise.all([waitForRun(app, started.body.runId), waitForRun(app, hooked.body.runId)]);
    });
  });

  describe('empty filter values are refused', () => {
    let greenRun: string;
    before(async () => {
      greenRun = await startRun('green');
      await waitForRun(app, greenRun);
      // The newest run is another runner's: an ignored empty `runner=` would answer this one.
      await waitForRun(app, await startRun('blue'));
    });

    const expectQueryProblem = (res: Reply, name: string) => {
      expectProblem(res, 400, 'invalid-query');
      expect(res.body.errors).to.deep.equal([{ field: name, pointer: `?${name}`, detail: res.body.errors[0].detail }]);
      expect(res.body.detail).to.contain(`"${name}"`);
    };

    it('GET /v1/runs: runner, environment, status, trigger, deployment given empty or blank → 400 naming it', async () => {
      for (const name of ['runner', 'environment', 'status', 'trigger', 'deployment']) {
        expectQueryProblem(await app.request('GET', `/v1/runs?${name}=&limit=1`), name);
        expectQueryProblem(await app.request('GET', `/v1/runs?limit=1&${name}=%20`), name);
      }
      expectQueryProblem(await app.request('GET', '/v1/runs?runner=green&runner=blue'), 'runner');
      expectQueryProblem(await app.request('GET', '/v1/runs?trigger=cron'), 'trigger');
      const latestGreen = await app.request('GET', '/v1/runs?runner=green&environment=local&limit=1');
      expect(latestGreen.body.items.map((r: { runId: string }) => r.runId)).to.deep.equal([greenRun]);
      const apiRuns = await app.request('GET', '/v1/runs?trigger=api&status=completed&limit=200');
      expect(apiRuns.body.items.map((r: { runId: string }) => r.runId)).to.include(greenRun);
      // Paging parameters keep reading an empty value as absent (a shell loop's first page).
      expect((await app.request('GET', '/v1/runs?limit=&cursor=&order=')).status).to.equal(200);
    });

    it('GET /v1/test-cases (folder, tags) and GET /v1/designs (path) refuse empty filters too', async () => {
      expectQueryProblem(await app.request('GET', '/v1/test-cases?folder='), 'folder');
      expectQueryProblem(await app.request('GET', '/v1/test-cases?tags='), 'tags');
      expectQueryProblem(await app.request('GET', '/v1/test-cases?tags=%2C%20%2C'), 'tags');
      expectQueryProblem(await app.request('GET', '/v1/designs?path='), 'path');
      const green = await app.request('GET', '/v1/test-cases?folder=green&tags=smoke');
      expect(green.body.items.map((t: { name: string }) => t.name)).to.deep.equal(['ok']);
      expect((await app.request('GET', '/v1/designs?path=/x')).status).to.equal(200);
    });
  });

  describe('incoming webhook credentials: any one valid credential is enough', () => {
    let d: any;
    let hook: string;
    let key: string;
    before(async () => {
      d = (
        await app.request('POST', '/v1/deployments', {
          name: 'creds',
          runner: 'green',
          environment: 'local',
          webhookEnabled: true,
        })
      ).body;
      hook = new URL(d.webhookUrl).pathname;
      key = await app.issueKey('run');
    });
    const call = (headers: Record<string, string>) =>
      app.request('POST', hook, { trigger: 'ci' }, { key: null, headers });

    it('wrong bearer + valid API key → 200; valid bearer + wrong API key → 200; both valid → 200', async () => {
      const runs: string[] = [];
      for (const headers of [
        { authorization: 'Bearer whk_wrong', 'x-api-key': key },
        { authorization: `Bearer ${d.webhookToken}`, 'x-api-key': 'assay_wrong' },
        { authorization: `Bearer ${d.webhookToken}`, 'x-api-key': key },
        { authorization: 'Basic dXNlcjpwYXNz', 'x-api-key': key },
      ]) {
        const res = await call(headers);
        expect(res.status, `${JSON.stringify(headers)} → ${JSON.stringify(res.body)}`).to.equal(200);
        runs.push(res.body.runId);
      }
      expect(await countRows('runs', 'deploymentId', d.id)).to.equal(4);
      await Promise.all(runs.map((r) => waitForRun(app, r)));
    });

    it('both wrong → 401 naming both; none → 401; a read key or a foreign key alone → 401; no run is created', async () => {
      const before = await countRows('runs', 'deploymentId', d.id);
      const both = await call({ authorization: 'Bearer whk_wrong', 'x-api-key': 'assay_wrong' });
      expectProblem(both, 401, 'unauthorized');
      expect(both.body.detail).to.contain('webhook token is wrong').and.to.contain('API key is unknown');
      expectProblem(await call({}), 401, 'unauthorized');
      expectProblem(await call({ authorization: 'Basic dXNlcjpwYXNz' }), 401, 'unauthorized');
      expectProblem(await call({ 'x-api-key': await app.issueKey('read') }), 401, 'unauthorized');
      expectProblem(
        await call({ authorization: 'Bearer whk_wrong', 'x-api-key': await app.issueKey('write', 'elsewhere') }),
        401,
        'unauthorized',
      );
      // Without required authentication, no credential is fine, but a wrong one is still refused.
      await app.request('PATCH', `/v1/deployments/${d.id}`, { webhookRequireAuth: false });
      expectProblem(await call({ authorization: 'Bearer whk_wrong' }), 401, 'unauthorized');
      await app.request('PATCH', `/v1/deployments/${d.id}`, { webhookRequireAuth: true });
      expect(await countRows('runs', 'deploymentId', d.id)).to.equal(before);
    });
  });

  describe('DELETE /v1/runs/{runId}', () => {
    let kept: string;
    let gone: string;
    before(async () => {
      const dep = (
        await app.request('POST', '/v1/deployments', {
          name: 'notify',
          runner: 'green',
          environment: 'local',
          webhooks: { onComplete: [{ url: `${receiver.url}/done` }] },
        })
      ).body;
      receiver.secret = dep.signingSecret;
      gone = (await app.request('POST', `/v1/deployments/${dep.id}/runs`)).body.runId;
      kept = (await app.request('POST', `/v1/deployments/${dep.id}/runs`)).body.runId;
      for (const runId of [gone, kept]) {
        expect((await waitForRun(app, runId)).status).to.equal('completed');
        await eventually(async () => {
          const items = (await app.request('GET', `/v1/runs/${runId}/deliveries`)).body.items;
          return items.length === 1 && items[0].status === 'delivered';
        });
      }
    });

    it('deletes a finished run with its results and deliveries (204); the run and its results then answer 404; other runs are untouched', async () => {
      expect(await countRows('run_test_case_results', 'runId', gone)).to.equal(1);
      expect(await countRows('webhook_deliveries', 'runId', gone)).to.equal(1);
      const res = await app.request('DELETE', `/v1/runs/${gone}`);
      expect(res.status, JSON.stringify(res.body)).to.equal(204);
      for (const p of ['', '/results', '/deliveries'])
        expectProblem(await app.request('GET', `/v1/runs/${gone}${p}`), 404, 'not-found');
      expect(await countRows('runs', 'id', gone)).to.equal(0);
      expect(await countRows('run_test_case_results', 'runId', gone)).to.equal(0);
      expect(await countRows('webhook_deliveries', 'runId', gone)).to.equal(0);
      expectProblem(await app.request('DELETE', `/v1/runs/${gone}`), 404, 'not-found');

      const other = await app.request('GET', `/v1/runs/${kept}/results`);
      expect(other.status).to.equal(200);
      expect(other.body.details.testCases).to.have.length(1);
      expect((await app.request('GET', `/v1/runs/${kept}/deliveries`)).body.items).to.have.length(1);
    });

    it('a run deleted while a delivery is still being retried: the delivery stops instead of retrying for a day', async () => {
      const dep = (
        await app.request('POST', '/v1/deployments', {
          name: 'down-receiver',
          runner: 'green',
          environment: 'local',
          webhooks: { onComplete: [{ url: `${receiver.url}/down` }] },
        })
      ).body;
      receiver.secret = dep.signingSecret;
      receiver.failFirst('/down', 1_000_000);
      const runId = (await app.request('POST', `/v1/deployments/${dep.id}/runs`)).body.runId;
      await waitForRun(app, runId);
      await eventually(
        async () => (await app.request('GET', `/v1/runs/${runId}/deliveries`)).body.items[0]?.attempts >= 2,
      );
      expect((await app.request('DELETE', `/v1/runs/${runId}`)).status).to.equal(204);
      const connection = await Connection.connect({ address: app.config.temporal.address });
      try {
        const handle = new Client({ connection }).workflow.getHandle(`webhooks-${runId}`);
        await eventually(async () => (await handle.describe()).status.name === 'COMPLETED', 30_000, 200);
      } finally {
        await connection.close();
      }
      expect(await countRows('webhook_deliveries', 'runId', runId)).to.equal(0);
    });

    it('404 for an unknown run and for a run of another workspace (which stays); 403 for read and run keys', async () => {
      expectProblem(await app.request('DELETE', '/v1/runs/run_nope'), 404, 'not-found');
      const foreign = await app.issueKey('write', 'team-b');
      expectProblem(await app.request('DELETE', `/v1/runs/${kept}`, undefined, { key: foreign }), 404, 'not-found');
      expectProblem(
        await app.request('DELETE', `/v1/runs/${kept}`, undefined, { key: await app.issueKey('read') }),
        403,
        'forbidden',
      );
      expectProblem(
        await app.request('DELETE', `/v1/runs/${kept}`, undefined, { key: await app.issueKey('run') }),
        403,
        'forbidden',
      );
      expect((await app.request('GET', `/v1/runs/${kept}`)).status).to.equal(200);
    });

    it('refuses a running run with 409 run-active (cancel first); once cancelled it can be deleted', async () => {
      const runId = await startRun('slow');
      await eventually(async () => (await app.request('GET', `/v1/runs/${runId}`)).body.status === 'running');
      const refused = await app.request('DELETE', `/v1/runs/${runId}`);
      expectProblem(refused, 409, 'run-active');
      expect(refused.body.runStatus).to.equal('running');
      expect(refused.body.detail).to.contain(`/v1/runs/${runId}/cancel`);
      expect((await app.request('GET', `/v1/runs/${runId}`)).body.status).to.equal('running');

      expect((await app.request('POST', `/v1/runs/${runId}/cancel`)).status).to.equal(202);
      expect((await waitForRun(app, runId)).status).to.equal('failed');
      expect((await app.request('DELETE', `/v1/runs/${runId}`)).status).to.equal(204);
      expectProblem(await app.request('GET', `/v1/runs/${runId}`), 404, 'not-found');
    });

    it('refuses a queued run with 409 run-active', async () => {
      // A queued row with no workflow behind it (as a crash between storing and starting leaves).
      const id = newId('run');
      const repo = app.dataSource.getRepository(Run);
      await repo.insert(
        repo.create(
          queuedRun({
            id,
            workspaceId: app.workspaceId,
            runnerId: null,
            runnerName: 'green',
            environmentId: null,
            environmentName: 'local',
            deploymentId: null,
            trigger: 'api',
            workflowId: runWorkflowId(id),
            timeoutSeconds: 60,
            variables: {},
            context: null,
          }),
        ) as never,
      );
      const refused = await app.request('DELETE', `/v1/runs/${id}`);
      expectProblem(refused, 409, 'run-active');
      expect(['queued', 'running']).to.include(refused.body.runStatus);
      expect(await countRows('runs', 'id', id)).to.equal(1);
      await app.request('POST', `/v1/runs/${id}/cancel`);
      await waitForRun(app, id);
      expect((await app.request('DELETE', `/v1/runs/${id}`)).status).to.equal(204);
    });
  });

  describe('retention sweep (src/store/retention.ts)', () => {
    it('deletes only ended runs completed before the cutoff, with their results and deliveries, in bounded batches', async () => {
      const dep = (
        await app.request('POST', '/v1/deployments', {
          name: 'retained',
          runner: 'green',
          environment: 'local',
          webhooks: { onComplete: [{ url: `${receiver.url}/retained` }] },
        })
      ).body;
      receiver.secret = dep.signingSecret;
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) ids.push((await app.request('POST', `/v1/deployments/${dep.id}/runs`)).body.runId);
      for (const runId of ids) {
        await waitForRun(app, runId);
        await eventually(
          async () => (await app.request('GET', `/v1/runs/${runId}/deliveries`)).body.items[0]?.status === 'delivered',
        );
      }
      const [old1, old2, old3, recent] = ids as [string, string, string, string];
      const runs = app.dataSource.getRepository(Run);
      await runs.update({ id: old1 }, { completedAt: new Date(Date.now() - 40 * DAY_MS) });
      await runs.update(
        { id: old2 },
        { completedAt: new Date(Date.now() - 31 * DAY_MS), status: 'failed', error: 'Run cancelled' },
      );
      await runs.update({ id: old3 }, { completedAt: new Date(Date.now() - 35 * DAY_MS) });
      // An active run that is old is never swept, whatever its timestamps say.
      const active = await startRun('slow');
      await eventually(async () => (await app.request('GET', `/v1/runs/${active}`)).body.status === 'running');
      await runs.update(
        { id: active },
        { createdAt: new Date(Date.now() - 90 * DAY_MS), completedAt: new Date(Date.now() - 90 * DAY_MS) },
      );

      const cutoff = new Date(Date.now() - 30 * DAY_MS);
      // Bounded: one batch of one run deletes exactly one, the oldest.
      expect(await sweepExpiredRuns(app.dataSource, cutoff, { batchSize: 1, maxBatches: 1 })).to.equal(1);
      expect(await countRows('runs', 'id', old1)).to.equal(0);
      expect(await sweepExpiredRuns(app.dataSource, cutoff, { batchSize: 1 })).to.equal(2);
      expect(await sweepExpiredRuns(app.dataSource, cutoff)).to.equal(0);

      for (const runId of [old1, old2, old3]) {
        expect(await countRows('runs', 'id', runId)).to.equal(0);
        expect(await countRows('run_test_case_results', 'runId', runId)).to.equal(0);
        expect(await countRows('webhook_deliveries', 'runId', runId)).to.equal(0);
      }
      expect(await countRows('run_test_case_results', 'runId', recent)).to.equal(1);
      expect(await countRows('webhook_deliveries', 'runId', recent)).to.equal(1);
      expect((await app.request('GET', `/v1/runs/${active}`)).body.status).to.equal('running');

      await app.request('POST', `/v1/runs/${active}/cancel`);
      await waitForRun(app, active);
    });
  });

  describe('on the embedded SQLite store', () => {
    let lite: TestApp;
    before(async () => {
      lite = await startTestApp({ dialect: 'sqlite', env: { ASSAY_RUN_RETENTION_DAYS: '30' } });
    });
    after(async () => {
      await lite?.stop();
    });

    /** Stores an ended (or running) run with one result and one delivery, as the worker would have. */
    async function storedRun(
      status: 'completed' | 'failed' | 'running',
      completedDaysAgo: number | null,
    ): Promise<string> {
      const id = newId('run');
      const at = completedDaysAgo === null ? null : new Date(Date.now() - completedDaysAgo * DAY_MS);
      const row = queuedRun({
        id,
        workspaceId: lite.workspaceId,
        runnerId: null,
        runnerName: 'r',
        environmentId: null,
        environmentName: 'e',
        deploymentId: 'dep_x',
        trigger: 'api',
        workflowId: runWorkflowId(id),
        timeoutSeconds: 60,
        variables: {},
        context: null,
      });
      await lite.dataSource
        .getRepository(Run)
        .insert({ ...row, status, completedAt: at, result: status === 'completed' ? 'passed' : null } as never);
      await lite.dataSource.getRepository(RunTestCaseResult).insert({
        runId: id,
        position: 0,
        testCaseId: 'tc_x',
        name: 't',
        status: 'passed',
        duration: 1,
        assertions: 0,
        detail: { testCaseId: 'tc_x', name: 't', status: 'passed' } as never,
        createdAt: new Date(),
      });
      const now = new Date();
      await lite.dataSource.getRepository(WebhookDelivery).insert({
        id: newId('delivery'),
        runId: id,
        deploymentId: 'dep_x',
        event: 'complete',
        position: 0,
        url: 'http://127.0.0.1:9/x',
        method: 'POST',
        status: 'delivered',
        attempts: 1,
        lastStatusCode: 204,
        lastError: null,
        deliveredAt: now,
        createdAt: now,
        updatedAt: now,
      });
      return id;
    }
    const left = async (id: string) => [
      await lite.dataSource.getRepository(Run).countBy({ id }),
      await lite.dataSource.getRepository(RunTestCaseResult).countBy({ runId: id }),
      await lite.dataSource.getRepository(WebhookDelivery).countBy({ runId: id }),
    ];

    it('the sweep and DELETE delete the same way', async () => {
      const old = await storedRun('completed', 45);
      const oldFailed = await storedRun('failed', 31);
      const recent = await storedRun('completed', 2);
      const running = await storedRun('running', null);
      expect(await sweepExpiredRuns(lite.dataSource, new Date(Date.now() - 30 * DAY_MS))).to.equal(2);
      expect(await left(old)).to.deep.equal([0, 0, 0]);
      expect(await left(oldFailed)).to.deep.equal([0, 0, 0]);
      expect(await left(recent)).to.deep.equal([1, 1, 1]);
      expect(await left(running)).to.deep.equal([1, 1, 1]);

      expect(await deleteRun(lite.dataSource, lite.workspaceId, running)).to.deep.equal({
        outcome: 'active',
        status: 'running',
      });
      expectProblem(await lite.request('DELETE', `/v1/runs/${running}`), 409, 'run-active');
      expect((await lite.request('DELETE', `/v1/runs/${recent}`)).status).to.equal(204);
      expect(await left(recent)).to.deep.equal([0, 0, 0]);
      expect(await deleteRun(lite.dataSource, lite.workspaceId, recent)).to.deep.equal({ outcome: 'not-found' });
    });
  });
});
