/**
 * Debug runs (`POST /v1/test-cases/debug`, docs/api.md "Debug runs") are runs like any other when
 * a process dies: a worker killed with SIGKILL in the middle of one is replaced and the debug run
 * completes, every node recorded once with its capture, at most the node under way sent again (with
 * its first `X-Assay-Execution` id, docs/durability.md "What a crash repeats"); and a debug run
 * whose API died between storing its row and starting its workflow is started by the recovery
 * sweep from the test case its row keeps.
 */
import { expect } from 'chai';
import { Run, queuedRun, DEBUG_RUNNER_NAME } from '../../../src/store/entities';
import { newId, runWorkflowId } from '../../../src/ids';
import { eventually, startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { processEnv, spawnAssay, type AssayProcess } from '../../helpers/processes';
import { startTarget, type Target } from '../../helpers/target';

const slowNode = (i: number) => ({
  type: 'api',
  id: `step${i}`,
  request: { method: 'GET', url: '{{base}}/slow?ms=600', timeoutMs: 5000 },
  assertions: [{ target: 'response.body.waited', operator: 'equals', expected: 600 }],
});

describe('a debug run when a process dies', function () {
  this.timeout(180_000);
  let app: TestApp;
  let target: Target;
  const children: AssayProcess[] = [];

  before(async () => {
    // No worker in this process: the test's worker processes are the ones killed and replaced.
    // The in-process API sweeps for stranded runs only when the test asks it to.
    [app, target] = await Promise.all([
      startTestApp({ env: { ASSAY_RECOVERY_INTERVAL_MS: '3600000' } }),
      startTarget(),
    ]);
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

  it('completes after its worker is killed -9 mid-run, each node sent once but the one under way', async () => {
    const first = spawnWorker();
    const res = await app.request('POST', '/v1/test-cases/debug', {
      testCase: { name: 'six slow calls', flow: [1, 2, 3, 4, 5, 6].map(slowNode) },
      environment: 'local',
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    const runId = res.body.runId as string;
    await eventually(async () => (target.hits.get('/slow') ?? 0) >= 2, 60_000, 50);
    await first.kill();
    expect((await app.request('GET', `/v1/runs/${runId}`)).body.status).to.equal('running');

    spawnWorker();
    const run = await waitForRun(app, runId, 90_000);
    expect(run).to.include({ status: 'completed', result: 'passed', trigger: 'debug', runner: null });
    const [tc] = (await app.request('GET', `/v1/runs/${runId}/results`)).body.details.testCases;
    expect(tc.nodes.map((n: { id: string; status: string }) => `${n.id} ${n.status}`)).to.deep.equal(
      [1, 2, 3, 4, 5, 6].map((i) => `step${i} passed`),
    );
    for (const node of tc.nodes) expect(node.debug.response).to.include({ status: 200 });
    expect(target.hits.get('/slow')).to.be.within(6, 7);
    const ids = target.executions.get('/slow')!;
    expect(new Set(ids).size).to.equal(6);
  });

  it('is started by the recovery sweep when its API died before starting its workflow', async () => {
    spawnWorker();
    const hitsBefore = target.hits.get('/slow') ?? 0;
    const id = newId('run');
    const repo = app.dataSource.getRepository(Run);
    const row = repo.create(
      queuedRun({
        id,
        workspaceId: app.workspaceId,
        runnerId: null,
        runnerName: DEBUG_RUNNER_NAME,
        environmentId: null,
        environmentName: 'local',
        deploymentId: null,
        trigger: 'debug',
        workflowId: runWorkflowId(id),
        timeoutSeconds: 120,
        variables: {},
        context: null,
        debugTestCase: {
          id: newId('testCase'),
          name: 'stranded draft',
          folder: '',
          description: '',
          tags: [],
          flow: [slowNode(1)] as never,
          dataSets: null,
          hooks: null,
          authProfile: null,
        },
      }),
    );
    // As an API killed right after storing it leaves it: older than the sweep's grace period.
    row.createdAt = new Date(Date.now() - 30_000);
    await repo.insert(row as never);
    expect((await app.api.recovery.sweep()).started).to.deep.equal([id]);
    const run = await waitForRun(app, id, 60_000);
    expect(run).to.include({ status: 'completed', result: 'passed', trigger: 'debug' });
    expect(target.hits.get('/slow')).to.equal(hitsBefore + 1);
  });
});
