/**
 * The `durability` setting (docs/durability.md "Durability modes") on runners, deployments and runs:
 * validated (400 `validation-failed` naming the field, nothing stored), answered by GET, and frozen
 * into the plan by `startRun` (activities/runs.ts) with the run's over the deployment's over the
 * runner's over `node`, always set; the plan hash does not depend on it. No worker: the test calls
 * `startRun` itself on runs the API stored (their workflows wait on a task queue nobody polls).
 */
import { expect } from 'chai';
import { createRunActivities } from '../../../activities/runs';
import { Run, queuedRun } from '../../../src/store/entities';
import { findRunWithPlan } from '../../../src/store/runs';
import { newId, runWorkflowId } from '../../../src/ids';
import { startTestApp, type Reply, type TestApp } from '../../helpers/app';

function expectFieldProblem(res: Reply, field: string): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(400);
  expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
  expect(res.body).to.include({ status: 400, code: 'validation-failed', type: '/problems/validation-failed' });
  expect(res.body.errors.map((e: { field: string }) => e.field)).to.deep.equal([field]);
  expect(res.body.errors[0].detail).to.contain('"node", "testCase"');
}

describe('the durability setting of runners, deployments and runs (API)', function () {
  this.timeout(60_000);
  let app: TestApp;
  let activities: ReturnType<typeof createRunActivities>;

  before(async () => {
    app = await startTestApp();
    activities = createRunActivities(app.dataSource, app.config);
    expect((await app.request('POST', '/v1/environments', { name: 'local' })).status).to.equal(201);
    const tc = await app.request('POST', '/v1/test-cases', {
      name: 'pause',
      folder: 'd',
      flow: [{ type: 'wait', ms: 1 }],
    });
    expect(tc.status, JSON.stringify(tc.body)).to.equal(201);
  });
  after(async () => {
    await app?.stop();
  });

  /** Freezes the plan of run `runId` as its workflow would, and returns the plan as stored with its GET. */
  async function frozen(runId: string) {
    await activities.startRun({ runId });
    const row = await findRunWithPlan(app.dataSource.manager, runId);
    const got = await app.request('GET', `/v1/runs/${runId}`);
    expect(got.status).to.equal(200);
    return { plan: row!.plan!, doc: got.body };
  }

  it('a runner says node by default, takes testCase, and refuses anything else (or null) naming the field', async () => {
    const made = await app.request('POST', '/v1/runners', { name: 'plain', folder: 'd' });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    expect(made.body.durability).to.equal('node');
    expectFieldProblem(
      await app.request('POST', '/v1/runners', { name: 'bad', folder: 'd', durability: 'run' }),
      'durability',
    );
    expect((await app.request('GET', '/v1/runners/bad')).status, 'nothing stored').to.equal(404);

    const durable = await app.request('POST', '/v1/runners', { name: 'durable', folder: 'd', durability: 'testCase' });
    expect(durable.status, JSON.stringify(durable.body)).to.equal(201);
    expect((await app.request('GET', '/v1/runners/durable')).body.durability).to.equal('testCase');
    expectFieldProblem(await app.request('PATCH', '/v1/runners/durable', { durability: 'activity' }), 'durability');
    expect((await app.request('PATCH', '/v1/runners/durable', { durability: null })).status).to.equal(400);
    expect((await app.request('GET', '/v1/runners/durable')).body.durability, 'nothing stored').to.equal('testCase');
    // PUT replaces: a runner without the field goes back to the default.
    const replaced = await app.request('PUT', '/v1/runners/plain', { folder: 'd', durability: 'testCase' });
    expect(replaced.body.durability).to.equal('testCase');
    expect((await app.request('PUT', '/v1/runners/plain', { folder: 'd' })).body.durability).to.equal('node');
  });

  it('a deployment says null (the runner’s) by default, takes a mode or null, and refuses anything else naming the field', async () => {
    const made = await app.request('POST', '/v1/deployments', {
      name: 'inherit',
      runner: 'durable',
      environment: 'local',
    });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    expect(made.body.durability).to.equal(null);
    expectFieldProblem(
      await app.request('POST', '/v1/deployments', {
        name: 'bad',
        runner: 'durable',
        environment: 'local',
        durability: 'NODE',
      }),
      'durability',
    );
    const list = await app.request('GET', '/v1/deployments');
    expect(
      list.body.items.map((d: { name: string }) => d.name),
      'nothing stored',
    ).to.deep.equal(['inherit']);

    const patched = await app.request('PATCH', `/v1/deployments/${made.body.id}`, { durability: 'node' });
    expect(patched.status, JSON.stringify(patched.body)).to.equal(200);
    expect((await app.request('GET', `/v1/deployments/${made.body.id}`)).body.durability).to.equal('node');
    expectFieldProblem(await app.request('PATCH', `/v1/deployments/${made.body.id}`, { durability: 7 }), 'durability');
    expect((await app.request('GET', `/v1/deployments/${made.body.id}`)).body.durability).to.equal('node');
    expect(
      (await app.request('PATCH', `/v1/deployments/${made.body.id}`, { durability: null })).body.durability,
    ).to.equal(null);
    await app.request('PATCH', `/v1/deployments/${made.body.id}`, { durability: 'node' });
  });

  it('a run refuses a durability it does not know, naming the field, and starts none', async () => {
    expectFieldProblem(
      await app.request('POST', '/v1/runs', { runner: 'durable', environment: 'local', durability: 'segment' }),
      'durability',
    );
    expect((await app.request('GET', '/v1/runs')).body.items).to.deep.equal([]);
  });

  it("freezes the runner's mode into the plan, else node (always set); GET shows it queued and started", async () => {
    const started = await app.request('POST', '/v1/runs', { runner: 'durable', environment: 'local' });
    expect(started.status, JSON.stringify(started.body)).to.equal(201);
    const queued = await app.request('GET', `/v1/runs/${started.body.runId}`);
    expect(queued.body).to.include({ status: 'queued', durability: 'testCase' });
    const fromRunner = await frozen(started.body.runId);
    expect(fromRunner.plan.durability).to.equal('testCase');
    expect(fromRunner.doc).to.include({ status: 'running', durability: 'testCase' });

    const plain = await app.request('POST', '/v1/runs', { runner: 'plain', environment: 'local' });
    const byDefault = await frozen(plain.body.runId);
    expect(byDefault.plan.durability, 'set even when it is the default').to.equal('node');
    expect(byDefault.doc.durability).to.equal('node');
    // How a run is made durable does not change what it runs (src/history/plan-hash.ts).
    expect(byDefault.doc.planHash).to.equal(fromRunner.doc.planHash);

    const listed = await app.request('GET', '/v1/runs?runner=durable');
    expect(listed.body.items.map((r: { durability: string }) => r.durability)).to.deep.equal(['testCase']);
  });

  it("freezes the run's own mode over the runner's", async () => {
    const own = await app.request('POST', '/v1/runs', { runner: 'durable', environment: 'local', durability: 'node' });
    expect(own.status, JSON.stringify(own.body)).to.equal(201);
    expect((await app.request('GET', `/v1/runs/${own.body.runId}`)).body.durability).to.equal('node');
    expect((await frozen(own.body.runId)).plan.durability).to.equal('node');

    const asked = await app.request('POST', '/v1/runs', {
      runner: 'plain',
      environment: 'local',
      durability: 'testCase',
    });
    expect((await frozen(asked.body.runId)).plan.durability).to.equal('testCase');
    const inherit = await app.request('POST', '/v1/runs', {
      runner: 'durable',
      environment: 'local',
      durability: null,
    });
    expect(inherit.status, JSON.stringify(inherit.body)).to.equal(201);
    expect((await frozen(inherit.body.runId)).plan.durability).to.equal('testCase');
  });

  it("freezes the deployment's mode over the runner's, and a run's own over the deployment's", async () => {
    const deployment = (await app.request('GET', '/v1/deployments')).body.items[0];
    expect(deployment).to.include({ runner: 'durable', durability: 'node' });
    const now = await app.request('POST', `/v1/deployments/${deployment.id}/runs`);
    expect(now.status, JSON.stringify(now.body)).to.equal(201);
    expect((await app.request('GET', `/v1/runs/${now.body.runId}`)).body.durability).to.equal('node');
    expect((await frozen(now.body.runId)).plan.durability).to.equal('node');

    // No API call gives a deployment's run a mode of its own: a row as a caller of createAndStartRun would store it.
    const id = newId('run');
    const runner = (await app.request('GET', '/v1/runners/durable')).body;
    const environment = (await app.request('GET', '/v1/environments/local')).body;
    await app.dataSource.getRepository(Run).insert(
      queuedRun({
        id,
        workspaceId: app.workspaceId,
        runnerId: runner.id,
        runnerName: 'durable',
        environmentId: environment.id,
        environmentName: 'local',
        deploymentId: deployment.id,
        trigger: 'api',
        workflowId: runWorkflowId(id),
        timeoutSeconds: 60,
        variables: {},
        context: null,
        durability: 'testCase',
      }) as never,
    );
    expect((await frozen(id)).plan.durability).to.equal('testCase');
  });
});
