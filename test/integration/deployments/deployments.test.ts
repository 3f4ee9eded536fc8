/**
 * Deployments end to end on a real Temporal server with a real worker: the REST contract and its
 * refusals, Temporal Schedules that follow the store (and are brought back in line after a failed
 * call), scheduled runs that create their own rows, incoming webhooks with each form of
 * authentication and each refusal, and signed outgoing webhooks delivered to a receiver on loopback
 * that checks the signature in constant time, including one that fails three times first.
 */
import { expect } from 'chai';
import { Client, Connection, ScheduleNotFoundError } from '@temporalio/client';
import { Deployment } from '../../../src/store/entities';
import { createRunActivities } from '../../../activities/runs';
import { ScheduleSync } from '../../../src/temporal/schedules';
import { createLogger } from '../../../src/logger';
import { eventually, startTestApp, waitForRun, type Reply, type TestApp } from '../../helpers/app';
import { startReceiver, type Receiver } from '../../helpers/receiver';
import { startTarget, type Target } from '../../helpers/target';
import { recordHistory, temporalClient, testDataConverter } from '../../helpers/temporal';

function expectProblem(res: Reply, status: number, code: string): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  expect(res.body).to.include({ status, code });
}

describe('deployments', function () {
  this.timeout(120_000);
  let app: TestApp;
  let target: Target;
  let receiver: Receiver;
  let client: Client;

  before(async () => {
    [app, target, receiver] = await Promise.all([
      startTestApp({
        worker: true,
        env: { ASSAY_WEBHOOK_RETRY_INITIAL_MS: '200', ASSAY_WEBHOOK_RETRY_MAX_MS: '1000' },
      }),
      startTarget(),
      startReceiver(),
    ]);
    client = new Client({
      connection: await Connection.connect({ address: app.config.temporal.address }),
      dataConverter: testDataConverter(),
    });
    for (const name of ['local', 'staging'])
      await app.request('POST', '/v1/environments', { name, variables: { base: target.url } });
    await app.request('POST', '/v1/test-cases', {
      name: 'ok',
      folder: 'green',
      flow: [
        {
          type: 'api',
          request: { method: 'GET', url: '{{base}}/users/1' },
          assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
        },
      ],
    });
    await app.request('POST', '/v1/test-cases', {
      name: 'not ok',
      folder: 'red',
      flow: [
        {
          type: 'api',
          request: { method: 'GET', url: '{{base}}/users/99' },
          assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
        },
      ],
    });
    await app.request('POST', '/v1/runners', { name: 'green', folder: 'green' });
    await app.request('POST', '/v1/runners', { name: 'red', folder: 'red' });
  });
  after(async () => {
    await receiver?.close();
    await target?.close();
    await app?.stop();
  });

  const scheduleHandle = (deploymentId: string) =>
    client.schedule.getHandle(app.api.schedules.scheduleId(deploymentId));

  describe('REST', () => {
    it('refuses bad schedules, time zones, webhook entries and unknown references, storing nothing', async () => {
      const base = { name: 'd', runner: 'green', environment: 'local' };
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ schedule: '61 * * * *' }, 'schedule'],
        [{ schedule: '* * * *' }, 'schedule'],
        [{ schedule: '0 0 1 * MON' }, 'schedule'],
        [{ timezone: 'Mars/Olympus' }, 'timezone'],
        [{ webhooks: { onComplete: [{ url: 'ftp://x/y' }] } }, 'webhooks.onComplete[0].url'],
        [{ webhooks: { onFailure: [{ url: 'http://x', method: 'GET' }] } }, 'webhooks.onFailure[0].method'],
        [
          { webhooks: { onComplete: [{ url: 'http://x', payload: { text: '{{result.(}}' } }] } },
          'webhooks.onComplete[0].payload.text',
        ],
      ];
      for (const [extra, field] of cases) {
        const res = await app.request('POST', '/v1/deployments', { ...base, ...extra });
        expectProblem(res, 400, 'validation-failed');
        expect(
          res.body.errors.map((e: { field: string }) => e.field),
          JSON.stringify(res.body),
        ).to.include(field);
      }
      const unknown = await app.request('POST', '/v1/deployments', { ...base, runner: 'nope', environment: 'nada' });
      expectProblem(unknown, 422, 'unknown-reference');
      expect(unknown.body.errors.map((e: { field: string }) => e.field)).to.deep.equal(['runner', 'environment']);
      expect((await app.request('GET', '/v1/deployments')).body.items).to.deep.equal([]);
    });

    it('creates a deployment with a schedule in its time zone and a webhook; shows secrets once; pauses, reschedules and deletes its Temporal Schedule', async () => {
      const created = await app.request('POST', '/v1/deployments', {
        name: 'nightly',
        runner: 'green',
        environment: 'local',
        schedule: '0 3 * * *',
        timezone: 'Europe/Berlin',
        webhookEnabled: true,
      });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const d = created.body;
      expect(d.id).to.match(/^dep_/);
      expect(d.webhookUrl).to.match(new RegExp(`^${app.config.api.publicUrl}/webhooks/deploy/[A-Za-z0-9_-]{32}$`));
      expect(d.webhookToken).to.match(/^whk_/);
      expect(d.signingSecret).to.match(/^whsec_/);
      expect(d.scheduleState.status).to.equal('active');
      // 03:00 in Berlin in November (CET, UTC+1) is 02:00 UTC.
      expect(d.scheduleState.nextRunTimes[0]).to.match(/T02:00:00\.000Z$/);
      const got = (await app.request('GET', `/v1/deployments/${d.id}`)).body;
      expect(got).not.to.have.property('webhookToken');
      expect(got).not.to.have.property('signingSecret');
      expectProblem(
        await app.request('POST', '/v1/deployments', { name: 'nightly', runner: 'green', environment: 'local' }),
        409,
        'name-taken',
      );

      const paused = await app.request('PATCH', `/v1/deployments/${d.id}`, { enabled: false });
      expect(paused.body.scheduleState.status).to.equal('paused');
      expect((await scheduleHandle(d.id).describe()).state.paused).to.equal(true);

      const moved = await app.request('PATCH', `/v1/deployments/${d.id}`, {
        enabled: true,
        schedule: '30 6 * * 1-5',
        timezone: 'UTC',
      });
      expect(moved.body.scheduleState.status).to.equal('active');
      expect(moved.body.scheduleState.nextRunTimes[0]).to.match(/T06:30:00\.000Z$/);
      expect((await scheduleHandle(d.id).describe()).state.paused).to.equal(false);

      const unscheduled = await app.request('PATCH', `/v1/deployments/${d.id}`, { schedule: null });
      expect(unscheduled.body.scheduleState).to.deep.equal({ status: 'none' });
      let gone: unknown;
      await scheduleHandle(d.id)
        .describe()
        .catch((err) => (gone = err));
      expect(gone).to.be.instanceOf(ScheduleNotFoundError);

      await app.request('PATCH', `/v1/deployments/${d.id}`, { schedule: '0 4 * * *' });
      expect((await app.request('DELETE', `/v1/deployments/${d.id}`)).status).to.equal(204);
      gone = undefined;
      await scheduleHandle(d.id)
        .describe()
        .catch((err) => (gone = err));
      expect(gone).to.be.instanceOf(ScheduleNotFoundError);
      expectProblem(await app.request('GET', `/v1/deployments/${d.id}`), 404, 'not-found');
    });
  });

  describe('schedules', () => {
    it('a scheduled run creates its own row (trigger schedule), shows in the listing and completes', async () => {
      const d = (
        await app.request('POST', '/v1/deployments', {
          name: 'yearly',
          runner: 'green',
          environment: 'local',
          schedule: '0 0 1 1 *',
        })
      ).body;
      await scheduleHandle(d.id).trigger();
      const listed = await eventually(
        async () => {
          const res = await app.request('GET', `/v1/runs?deployment=${d.id}`);
          return res.body.items.length === 1 ? res.body.items[0] : undefined;
        },
        30_000,
        200,
      );
      expect(listed).to.include({ trigger: 'schedule', deploymentId: d.id, runner: 'green', environment: 'local' });
      const run = await waitForRun(app, listed.runId);
      expect(run).to.include({ status: 'completed', result: 'passed' });
      expect(
        (await app.request('GET', '/v1/runs?trigger=schedule')).body.items.map((r: { runId: string }) => r.runId),
      ).to.include(listed.runId);
      const [row] = await app.dataSource.query('SELECT workflowId FROM runs WHERE id = ?', [listed.runId]);
      expect(row.workflowId).to.match(new RegExp(`^run-scheduled-${d.id}-\\d{4}-`));
      // Its workflow id follows the schedule, and the AssayRunId search attribute finds it (docs/api.md).
      const client = await temporalClient();
      const found = await eventually(
        async () => {
          const ids: string[] = [];
          for await (const w of client.workflow.list({ query: `AssayRunId = "${listed.runId}"` }))
            ids.push(w.workflowId);
          return ids.length > 0 ? ids : undefined;
        },
        30_000,
        250,
      );
      expect(found).to.deep.equal([row.workflowId]);
      await recordHistory('scheduled-run', row.workflowId);
    });

    it("creates a scheduled run's row once, however often its activity runs; refuses for a disabled deployment", async () => {
      const activities = createRunActivities(app.dataSource, app.config);
      const d = (
        await app.request('POST', '/v1/deployments', { name: 'idempotent', runner: 'green', environment: 'local' })
      ).body;
      const input = {
        runId: 'run_01IDEMPOTENT0000000000000',
        deploymentId: d.id,
        workflowId: `run-scheduled-${d.id}-2026-11-21T00:00:00Z`,
      };
      await activities.createScheduledRun(input);
      await activities.createScheduledRun(input);
      const rows = await app.dataSource.query('SELECT id, `trigger` FROM runs WHERE workflowId = ?', [
        input.workflowId,
      ]);
      expect(rows).to.deep.equal([{ id: input.runId, trigger: 'schedule' }]);
      await app.request('PATCH', `/v1/deployments/${d.id}`, { enabled: false });
      let refused: unknown;
      await activities
        .createScheduledRun({ ...input, runId: 'run_01IDEMPOTENT0000000000001', workflowId: `${input.workflowId}-2` })
        .catch((err: unknown) => (refused = err));
      expect((refused as Error).message).to.equal('Deployment "idempotent" is disabled');
    });

    it('after a failed call to Temporal the row says pending, and reconciling brings the schedule in line; orphans are deleted', async () => {
      const d = (
        await app.request('POST', '/v1/deployments', { name: 'flaky-temporal', runner: 'green', environment: 'local' })
      ).body;
      // The API saved the row but Temporal was unreachable for this change.
      const broken = new ScheduleSync(
        { ...app.config, temporal: { ...app.config.temporal, address: '127.0.0.1:1' } },
        app.dataSource,
        createLogger('silent'),
      );
      const repo = app.dataSource.getRepository(Deployment);
      const row = await repo.findOneByOrFail({ id: d.id });
      row.schedule = '15 * * * *';
      row.updatedAt = new Date();
      await repo.save(row);
      expect(await broken.sync(row)).to.equal(false);
      await broken.close();
      const pending = (await app.request('GET', `/v1/deployments/${d.id}`)).body.scheduleState;
      expect(pending.status).to.equal('pending');
      expect(pending.error).to.be.a('string');
      let missing: unknown;
      await scheduleHandle(d.id)
        .describe()
        .catch((err) => (missing = err));
      expect(missing).to.be.instanceOf(ScheduleNotFoundError);

      // A schedule of this installation that no deployment owns (its delete failed, say).
      const ghost = `${app.config.temporal.taskQueue}.deployment.dep_ghost`;
      await client.schedule.create({
        scheduleId: ghost,
        spec: { cronExpressions: ['0 0 1 1 *'] },
        action: {
          type: 'startWorkflow',
          workflowType: 'runWorkflow',
          taskQueue: app.config.temporal.taskQueue,
          args: [{}],
        },
      });

      const report = await app.api.schedules.reconcile(false);
      expect(report.synced).to.include(d.id);
      expect(report.deleted).to.include(ghost);
      expect((await scheduleHandle(d.id).describe()).state.paused).to.equal(false);
      expect((await app.request('GET', `/v1/deployments/${d.id}`)).body.scheduleState.status).to.equal('active');
      let ghostGone: unknown;
      await client.schedule
        .getHandle(ghost)
        .describe()
        .catch((err) => (ghostGone = err));
      expect(ghostGone).to.be.instanceOf(ScheduleNotFoundError);
    });
  });

  describe('a runner that selects no test case', () => {
    let d: any;
    const message =
      /Runner "empty" selects no test case \(it selects folder "nothing-here" and tags "none"\); a run would pass with 0 tests/;
    const runCount = async () => (await app.request('GET', '/v1/runs?runner=empty&limit=200')).body.items.length;

    before(async () => {
      await app.request('POST', '/v1/runners', { name: 'empty', folder: 'nothing-here', tags: ['none'] });
      d = (
        await app.request('POST', '/v1/deployments', {
          name: 'empty-nightly',
          runner: 'empty',
          environment: 'local',
          schedule: '0 0 1 1 *',
          webhookEnabled: true,
        })
      ).body;
    });

    it('POST /v1/runs and POST /v1/deployments/{id}/runs answer 422 runner-selects-nothing naming the runner, storing no run', async () => {
      for (const res of [
        await app.request('POST', '/v1/runs', { runner: 'empty', environment: 'local' }),
        await app.request('POST', `/v1/deployments/${d.id}/runs`),
      ]) {
        expectProblem(res, 422, 'runner-selects-nothing');
        expect(res.body.detail).to.match(message);
        expect(res.body).to.deep.include({ runner: 'empty', selection: { folder: 'nothing-here', tags: ['none'] } });
        expect(res.body).not.to.have.property('runId');
      }
      expect(await runCount()).to.equal(0);
    });

    it('an incoming webhook answers 422 and records a failed run saying why', async () => {
      const res = await app.request(
        'POST',
        new URL(d.webhookUrl).pathname,
        { commit: 'abc' },
        { key: null, headers: { authorization: `Bearer ${d.webhookToken}` } },
      );
      expectProblem(res, 422, 'runner-selects-nothing');
      expect(res.body.runId).to.match(/^run_/);
      const run = (await app.request('GET', `/v1/runs/${res.body.runId}`)).body;
      expect(run).to.include({ status: 'failed', trigger: 'webhook', deploymentId: d.id, runner: 'empty' });
      expect(run.error).to.match(message);
    });

    it('a scheduled run fails before sending anything, saying why', async () => {
      const before = await runCount();
      await scheduleHandle(d.id).trigger();
      const listed = await eventually(async () => {
        const items = (await app.request('GET', `/v1/runs?deployment=${d.id}&trigger=schedule`)).body.items;
        return items.find((r: { status: string }) => r.status === 'failed');
      }, 60_000);
      expect(listed.error).to.match(message);
      expect(await runCount()).to.equal(before + 1);
    });
  });

  describe('incoming webhooks', () => {
    let d: any;
    let hook: string;
    const runsOf = async () => (await app.request('GET', `/v1/runs?deployment=${d.id}&limit=200`)).body.items.length;

    before(async () => {
      d = (
        await app.request('POST', '/v1/deployments', {
          name: 'ci-hook',
          runner: 'green',
          environment: 'local',
          webhookEnabled: true,
        })
      ).body;
      hook = new URL(d.webhookUrl).pathname;
    });
    const post = (body: unknown, headers: Record<string, string> = {}, path = hook, raw?: string) =>
      app.request('POST', path, raw === undefined ? body : undefined, {
        key: null,
        headers: { 'content-type': 'application/json', ...headers },
        raw,
      });

    it('starts a run with the webhook token; the caller fields are stored and come back with the results', async () => {
      const res = await post(
        {
          trigger: 'ci',
          version: '1.4.2',
          branch: 'main',
          commit: 'abc123',
          variables: { build: 42 },
          metadata: { pipeline: 'p-7' },
        },
        { authorization: `Bearer ${d.webhookToken}` },
      );
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.runId).to.match(/^run_/);
      const run = await waitForRun(app, res.body.runId);
      expect(run).to.include({ status: 'completed', trigger: 'webhook', deploymentId: d.id });
      expect(run.variables).to.deep.equal({ build: 42 });
      const results = (await app.request('GET', `/v1/runs/${res.body.runId}/results`)).body;
      expect(results.context).to.deep.equal({
        trigger: 'ci',
        version: '1.4.2',
        branch: 'main',
        commit: 'abc123',
        metadata: { pipeline: 'p-7' },
      });
    });

    it('starts a run with an API key of the workspace (scope run), and with an environment override', async () => {
      const key = await app.issueKey('run');
      const res = await post({ trigger: 'deployment', environment: 'staging' }, { 'x-api-key': key });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.environment).to.equal('staging');
    });

    it('refuses: no credentials 401, wrong token 401, read-only or foreign key 401, unknown or disabled webhook 404, bad JSON 400, unknown environment 422; none starts a run', async () => {
      const before = await runsOf();
      expectProblem(await post({ trigger: 'x' }), 401, 'unauthorized');
      expectProblem(await post({ trigger: 'x' }, { authorization: 'Bearer whk_wrong' }), 401, 'unauthorized');
      expectProblem(await post({ trigger: 'x' }, { 'x-api-key': await app.issueKey('read') }), 401, 'unauthorized');
      expectProblem(
        await post({ trigger: 'x' }, { 'x-api-key': await app.issueKey('write', 'other-team') }),
        401,
        'unauthorized',
      );
      expectProblem(
        await post({ trigger: 'x' }, { authorization: `Bearer ${d.webhookToken}` }, '/webhooks/deploy/nope'),
        404,
        'not-found',
      );
      expectProblem(
        await post(undefined, { authorization: `Bearer ${d.webhookToken}` }, hook, '{"trigger": '),
        400,
        'malformed-json',
      );
      expectProblem(
        await post(
          undefined,
          { authorization: `Bearer ${d.webhookToken}`, 'content-type': 'text/plain' },
          hook,
          'trigger=x',
        ),
        415,
        'unsupported-media-type',
      );
      expectProblem(
        await post({ trigger: 'x', environment: 'mars' }, { authorization: `Bearer ${d.webhookToken}` }),
        422,
        'unknown-reference',
      );
      expectProblem(
        await post({ trigger: 'x', variables: { nested: { no: 1 } } }, { authorization: `Bearer ${d.webhookToken}` }),
        400,
        'validation-failed',
      );
      await app.request('PATCH', `/v1/deployments/${d.id}`, { webhookEnabled: false });
      expectProblem(await post({ trigger: 'x' }, { authorization: `Bearer ${d.webhookToken}` }), 404, 'not-found');
      await app.request('PATCH', `/v1/deployments/${d.id}`, { webhookEnabled: true });
      expect(await runsOf()).to.equal(before);
    });

    it('accepts calls without credentials only when the deployment says so; rotation replaces address and token', async () => {
      await app.request('PATCH', `/v1/deployments/${d.id}`, { webhookRequireAuth: false });
      expect((await post({ trigger: 'open' })).status).to.equal(200);
      await app.request('PATCH', `/v1/deployments/${d.id}`, { webhookRequireAuth: true });
      const rotated = (await app.request('POST', `/v1/deployments/${d.id}/rotate-webhook`)).body;
      expect(rotated.webhookUrl).not.to.equal(d.webhookUrl);
      expectProblem(await post({ trigger: 'x' }, { authorization: `Bearer ${d.webhookToken}` }), 404, 'not-found');
      const fresh = await post(
        { trigger: 'x' },
        { authorization: `Bearer ${rotated.webhookToken}` },
        new URL(rotated.webhookUrl).pathname,
      );
      expect(fresh.status).to.equal(200);
    });
  });

  describe('outgoing webhooks', () => {
    it('fires onComplete with a rendered, signed payload (every placeholder, a conditional, a whole-value object) and onFailure with the default payload', async () => {
      const payload = {
        text: '{{result.status = "passed" ? ":white_check_mark:" : ":x:"}} {{deployment.name}} on {{deployment.environment}}: {{result.passed}}/{{result.total}} passed, {{result.failed}} failed',
        status: '{{result.status}}',
        summary: '{{result.summary}}',
        details: '{{result.details}}',
        passed: '{{result.passed}}',
        failed: '{{result.failed}}',
        total: '{{result.total}}',
        duration: '{{result.duration}}',
        timestamp: '{{result.timestamp}}',
        link: '{{result.detailsUrl}}',
        unknown: '{{result.nothing}}',
      };
      const created = await app.request('POST', '/v1/deployments', {
        name: 'notify',
        runner: 'red',
        environment: 'local',
        webhooks: {
          onComplete: [{ url: `${receiver.url}/complete`, headers: { 'X-Team': 'qa {{deployment.name}}' }, payload }],
          onFailure: [{ url: `${receiver.url}/failure`, method: 'PUT' }],
        },
      });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      receiver.secret = created.body.signingSecret;
      const { runId } = (await app.request('POST', `/v1/deployments/${created.body.id}/runs`)).body;
      const run = await waitForRun(app, runId);
      expect(run).to.include({ status: 'completed', result: 'failed' });
      await eventually(
        async () =>
          receiver.received.filter((r) => r.body?.event === 'run.completed' || r.path === '/complete').length >= 2,
        30_000,
        100,
      );

      const complete = receiver.received.find((r) => r.path === '/complete')!;
      expect(complete.method).to.equal('POST');
      expect(complete.headers['x-team']).to.equal('qa notify');
      expect(complete.headers['x-assay-event']).to.equal('run.completed');
      expect(complete.headers['x-assay-delivery']).to.match(/^dlv_/);
      expect(complete.body).to.deep.include({
        text: ':x: notify on local: 0/1 passed, 1 failed',
        status: 'failed',
        summary: { total: 1, passed: 0, failed: 1, skipped: 0 },
        passed: 0,
        failed: 1,
        total: 1,
        duration: run.duration,
        timestamp: run.completedAt,
        link: `${app.config.api.publicUrl}/v1/runs/${runId}/results`,
        unknown: '{{result.nothing}}',
      });
      expect(complete.body.details.testCases[0].name).to.equal('not ok');

      const failure = receiver.received.find((r) => r.path === '/failure')!;
      expect(failure.method).to.equal('PUT');
      expect(failure.body).to.deep.include({
        event: 'run.completed',
        deployment: { id: created.body.id, name: 'notify', runner: 'red', environment: 'local' },
      });
      expect(failure.body.run).to.include({ runId, status: 'failed', runStatus: 'completed', result: 'failed' });

      const deliveries = await eventually(
        async () => {
          const items = (await app.request('GET', `/v1/runs/${runId}/deliveries`)).body.items;
          return items.every((i: { status: string }) => i.status === 'delivered') && items.length === 2
            ? items
            : undefined;
        },
        10_000,
        100,
      );
      expect(deliveries.map((x: { event: string; attempts: number }) => `${x.event}:${x.attempts}`)).to.deep.equal([
        'onComplete:1',
        'onFailure:1',
      ]);
      await recordHistory('webhook-deliveries', `webhooks-${runId}`);
    });

    it('retries a receiver that fails three times, then delivers once; a passing run fires no onFailure', async () => {
      const created = (
        await app.request('POST', '/v1/deployments', {
          name: 'retrying',
          runner: 'green',
          environment: 'local',
          webhooks: { onComplete: [{ url: `${receiver.url}/flaky` }], onFailure: [{ url: `${receiver.url}/never` }] },
        })
      ).body;
      receiver.secret = created.signingSecret;
      receiver.failFirst('/flaky', 3);
      const { runId } = (await app.request('POST', `/v1/deployments/${created.id}/runs`)).body;
      expect((await waitForRun(app, runId)).result).to.equal('passed');
      const [delivery] = await eventually(
        async () => {
          const items = (await app.request('GET', `/v1/runs/${runId}/deliveries`)).body.items;
          return items.length === 1 && items[0].status === 'delivered' ? items : undefined;
        },
        60_000,
        200,
      );
      expect(delivery).to.include({
        event: 'onComplete',
        status: 'delivered',
        attempts: 4,
        lastStatusCode: 204,
        lastError: null,
      });
      expect(receiver.received.filter((r) => r.path === '/flaky')).to.have.length(1);
      expect(receiver.received.filter((r) => r.path === '/never')).to.have.length(0);
    });

    it('a receiver rejects a tampered body; a rotated signing secret signs the next deliveries', async () => {
      const original = receiver.received.find((r) => r.path === '/flaky')!;
      const tampered = original.raw.replace('"passed"', '"failed"');
      expect(tampered).not.to.equal(original.raw);
      const rejectedBefore = receiver.rejected;
      const res = await fetch(`${receiver.url}/flaky`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-assay-signature': original.headers['x-assay-signature'] as string,
        },
        body: tampered,
      });
      expect(res.status).to.equal(401);
      expect(receiver.rejected).to.equal(rejectedBefore + 1);

      const deployment = (await app.request('GET', '/v1/deployments')).body.items.find(
        (x: { name: string }) => x.name === 'retrying',
      );
      const rotated = (await app.request('POST', `/v1/deployments/${deployment.id}/rotate-signing-secret`)).body;
      expect(rotated.signingSecret)
        .to.match(/^whsec_/)
        .and.not.equal(receiver.secret);
      receiver.secret = rotated.signingSecret;
      const count = receiver.received.length;
      const { runId } = (await app.request('POST', `/v1/deployments/${deployment.id}/runs`)).body;
      await waitForRun(app, runId);
      await eventually(async () => receiver.received.length > count, 30_000, 100);
      expect(receiver.received.at(-1)!.body.run.runId).to.equal(runId);
    });
  });
});
