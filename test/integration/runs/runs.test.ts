/**
 * Runs from POST to results, executed by a real worker on a real Temporal server against a real
 * HTTP server on loopback: results and failure details, 4xx responses that assertions expect,
 * unreachable hosts, templating, progress while running, timeout, cancellation, a runner deleted
 * before the run starts, and the search attributes that find a run in the Temporal Web UI.
 */
import { expect } from 'chai';
import net from 'node:net';
import { eventually, startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { startTarget, type Target } from '../../helpers/target';
import { recordHistory, temporalClient, workflowStatus } from '../../helpers/temporal';

/** A loopback port with nothing listening. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

const get = (url: string, assertions: unknown[] = [], extra: Record<string, unknown> = {}) => ({
  type: 'api',
  request: { method: 'GET', url, ...extra },
  assertions,
});

describe('runs on Temporal', function () {
  this.timeout(120_000);
  let app: TestApp;
  let target: Target;

  before(async () => {
    [app, target] = await Promise.all([startTestApp({ worker: true }), startTarget()]);
    await app.request('POST', '/v1/environments', {
      name: 'local',
      variables: { base: target.url, token: 'env-token', user: 'env-user' },
    });
  });
  after(async () => {
    await target?.close();
    await app?.stop();
  });

  async function makeCase(folder: string, name: string, flow: unknown[]): Promise<string> {
    const res = await app.request('POST', '/v1/test-cases', { name, folder, flow });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.id;
  }

  async function startRun(runner: string, extra: Record<string, unknown> = {}): Promise<string> {
    const res = await app.request('POST', '/v1/runs', { runner, environment: 'local', ...extra });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.runId;
  }

  it('runs every test case and reports passes, failures with expected and actual, 4xx on purpose and unreachable hosts', async () => {
    const port = await closedPort();
    await makeCase('e2e', '1 get user', [
      get('{{base}}/users/1', [
        { target: 'response.status', operator: 'equals', expected: 200 },
        { target: 'response.body.name', operator: 'equals', expected: 'Ada' },
        { target: 'response.body', operator: 'matchesSchema', expected: { type: 'object', required: ['id', 'email'] } },
        { target: 'response.headers."content-type"', operator: 'contains', expected: 'application/json' },
      ]),
    ]);
    await makeCase('e2e', '2 missing user is a 404 on purpose', [
      get('{{base}}/users/99', [
        { target: 'response.status', operator: 'equals', expected: 404 },
        { target: 'response.body.error', operator: 'equals', expected: 'not found' },
      ]),
      get('{{base}}/status/503', [{ target: 'response.status', operator: 'inRange', expected: [500, 599] }]),
    ]);
    await makeCase('e2e', '3 templating', [
      {
        type: 'api',
        id: 'echo',
        request: {
          method: 'POST',
          url: '{{base}}/echo?q={{user}}',
          headers: { 'X-Token': '{{token}}' },
          body: { user: '{{user}}', keep: '{{unknown}}' },
        },
        assertions: [
          { target: 'response.body.headers."x-token"', operator: 'equals', expected: 'run-token' },
          { target: 'response.body.body', operator: 'equals', expected: { user: 'env-user', keep: '{{unknown}}' } },
          { target: 'response.body.query.q', operator: 'equals', expected: 'env-user' },
        ],
      },
      get('{{base}}/users/2', [
        {
          target: 'response.body.name = "Grace" and nodes.echo.response.status = 200',
          operator: 'equals',
          expected: true,
        },
      ]),
    ]);
    await makeCase('e2e', '4 wrong expectation', [
      get('{{base}}/users/2', [
        { name: 'name is Ada', target: 'response.body.name', operator: 'equals', expected: 'Ada' },
      ]),
    ]);
    await makeCase('e2e', '5 unreachable host', [
      get(`http://127.0.0.1:${port}/x`, [{ target: 'response.status', operator: 'equals', expected: 200 }]),
    ]);
    await app.request('POST', '/v1/runners', { name: 'e2e', folder: 'e2e' });

    const runId = await startRun('e2e', { variables: { token: 'run-token' } });
    const run = await waitForRun(app, runId);
    expect(run.status).to.equal('completed');
    expect(run.result).to.equal('failed');
    expect(run.summary).to.deep.equal({ total: 5, passed: 3, failed: 2, skipped: 0 });
    expect(run.duration).to.be.a('number').and.to.be.greaterThan(0);
    expect(Date.parse(run.completedAt)).to.be.at.least(Date.parse(run.startedAt));
    expect(run).not.to.have.property('progress');
    expect(run).not.to.have.property('error');

    const results = (await app.request('GET', `/v1/runs/${runId}/results`)).body;
    expect(results).to.include({
      runId,
      status: 'completed',
      result: 'failed',
      duration: run.duration,
      completedAt: run.completedAt,
    });
    const cases = results.details.testCases;
    expect(cases.map((c: { name: string; status: string }) => `${c.name}: ${c.status}`)).to.deep.equal([
      '1 get user: passed',
      '2 missing user is a 404 on purpose: passed',
      '3 templating: passed',
      '4 wrong expectation: failed',
      '5 unreachable host: failed',
    ]);
    for (const c of cases) {
      expect(c.assertions).to.be.a('number');
      expect(c.duration).to.be.a('number');
    }
    expect(cases[0].assertions).to.equal(4);
    expect(cases[3].failures).to.deep.equal([
      {
        node: 'n1',
        assertion: 'name is Ada',
        operator: 'equals',
        expected: 'Ada',
        actual: 'Grace',
        message: 'expected "Ada" (string), got "Grace" (string)',
      },
    ]);
    expect(cases[4].failures[0].message).to.contain('ECONNREFUSED');
    expect(cases[4].nodes[0].error).to.contain('ECONNREFUSED');
    expect(cases[4].assertions).to.equal(0);
    await recordHistory('completed-mixed', `run-${runId}`);
  });

  it('reports result passed when every test case passes, and the run is findable by search attributes', async () => {
    await makeCase('green', 'ok', [
      get('{{base}}/users/3', [{ target: 'response.status', operator: 'equals', expected: 200 }]),
    ]);
    await app.request('POST', '/v1/runners', { name: 'green', folder: 'green' });
    const runId = await startRun('green');
    const run = await waitForRun(app, runId);
    expect(run).to.include({ status: 'completed', result: 'passed' });
    const client = await temporalClient();
    const ids = await eventually(
      async () => {
        const found: string[] = [];
        for await (const wf of client.workflow.list({
          query: `AssayRunner = "green" AND AssayEnvironment = "local" AND AssayWorkspace = "${app.workspaceId}"`,
        })) {
          found.push(wf.workflowId);
        }
        return found.length > 0 ? found : undefined;
      },
      20_000,
      500,
    );
    expect(ids).to.deep.equal([`run-${runId}`]);
  });

  it('shows progress and an estimated completion while running', async () => {
    for (let i = 1; i <= 5; i++)
      await makeCase('slow', `slow ${i}`, [
        get('{{base}}/slow?ms=500', [{ target: 'response.status', operator: 'equals', expected: 200 }]),
      ]);
    await app.request('POST', '/v1/runners', { name: 'slow', folder: 'slow' });
    const runId = await startRun('slow');
    const midway = await eventually(
      async () => {
        const res = await app.request('GET', `/v1/runs/${runId}`);
        const p = res.body.progress;
        return res.body.status === 'running' && p && p.completed >= 1 && p.completed < 5 ? res.body : undefined;
      },
      30_000,
      50,
    );
    expect(midway.progress.total).to.equal(5);
    expect(midway.progress.percentage).to.equal(midway.progress.completed * 20);
    expect(midway.startedAt).to.match(/Z$/);
    expect(Date.parse(midway.estimatedCompletion)).to.be.greaterThan(Date.parse(midway.startedAt));
    // The estimate is on pace: 5 requests of 0.5 s, not the 30-minute deadline.
    expect(Date.parse(midway.estimatedCompletion) - Date.parse(midway.startedAt)).to.be.lessThan(60_000);
    const run = await waitForRun(app, runId);
    expect(run).to.include({ status: 'completed', result: 'passed' });
  });

  it('ends a run that outlives its timeout as failed with the error, keeping what finished', async () => {
    // The first case answers at once and the second outlasts the 2 s timeout by far, so which case
    // is under way when the timer fires does not depend on how busy the machine is (a 1.5 s first
    // case once missed the 2 s mark on a loaded CI machine).
    await makeCase('timeout', 't1', [get('{{base}}/users/1')]);
    await makeCase('timeout', 't2', [get('{{base}}/slow?ms=20000')]);
    await makeCase('timeout', 't3', [get('{{base}}/users/1')]);
    await app.request('POST', '/v1/runners', { name: 'timeout', folder: 'timeout' });
    const runId = await startRun('timeout', { timeout: 2 });
    const run = await waitForRun(app, runId);
    expect(run.status).to.equal('failed');
    expect(run.error).to.equal('Run timed out after 2 s');
    expect(run).not.to.have.property('result');
    const results = (await app.request('GET', `/v1/runs/${runId}/results`)).body;
    expect(results.status).to.equal('failed');
    expect(results.error).to.equal('Run timed out after 2 s');
    expect(results.details.testCases.map((c: { status: string }) => c.status)).to.deep.equal([
      'passed',
      'failed',
      'skipped',
    ]);
    expect(results.details.testCases[1].error).to.equal('Interrupted: Run timed out after 2 s');
    expect(results.summary).to.deep.equal({ total: 3, passed: 1, failed: 1, skipped: 1 });
    // The run's row is final before the workflow has closed (on a busy machine, seen RUNNING): wait for that too.
    await eventually(async () => (await workflowStatus(`run-${runId}`)) === 'FAILED', 20_000, 50);
    await recordHistory('timed-out', `run-${runId}`);
  });

  it('cancels a running run: it ends failed with "Run cancelled" and the workflow is cancelled', async () => {
    // 5 s per case: the last case cannot have started by the time the cancel lands, however busy the machine.
    for (let i = 1; i <= 3; i++) await makeCase('cancel', `c${i}`, [get('{{base}}/slow?ms=5000')]);
    await app.request('POST', '/v1/runners', { name: 'cancel', folder: 'cancel' });
    const runId = await startRun('cancel');
    await eventually(async () => (await app.request('GET', `/v1/runs/${runId}`)).body.status === 'running', 20_000, 50);
    const cancel = await app.request('POST', `/v1/runs/${runId}/cancel`);
    expect(cancel.status).to.equal(202);
    expect(cancel.body).to.include({ runId, cancelRequested: true });
    const run = await waitForRun(app, runId);
    expect(run).to.include({ status: 'failed', error: 'Run cancelled' });
    // The run's row is final before the workflow has closed as cancelled: wait for that too.
    await eventually(async () => (await workflowStatus(`run-${runId}`)) === 'CANCELLED', 20_000, 50);
    const results = (await app.request('GET', `/v1/runs/${runId}/results`)).body;
    expect(results.details.testCases.at(-1).status).to.equal('skipped');
    await recordHistory('cancelled', `run-${runId}`);
  });

  it('fails a run whose runner was deleted before a worker picked it up, saying so', async () => {
    await app.worker!.shutdown();
    await makeCase('gone', 'g', [get('{{base}}/users/1')]);
    await app.request('POST', '/v1/runners', { name: 'gone', folder: 'gone' });
    const runId = await startRun('gone');
    expect((await app.request('DELETE', '/v1/runners/gone')).status).to.equal(204);
    // No worker: the API answers from the stored row.
    const queued = await app.request('GET', `/v1/runs/${runId}`);
    expect(queued.body.status).to.equal('queued');
    await app.startWorker();
    const run = await waitForRun(app, runId);
    expect(run.status).to.equal('failed');
    expect(run.error).to.equal('Run could not start: Runner "gone" no longer exists');
  });
});

describe('long runs', function () {
  this.timeout(120_000);
  let app: TestApp;
  let target: Target;

  before(async () => {
    [app, target] = await Promise.all([
      startTestApp({ worker: true, env: { ASSAY_TEST_CASES_PER_EXECUTION: '2' } }),
      startTarget(),
    ]);
    await app.request('POST', '/v1/environments', { name: 'local', variables: { base: target.url } });
  });
  after(async () => {
    await target?.close();
    await app?.stop();
  });

  it('continue as new to keep history short, and still report one run with every result', async () => {
    for (let i = 1; i <= 5; i++) {
      await app.request('POST', '/v1/test-cases', {
        name: `case ${i}`,
        folder: 'long',
        flow: [get(`{{base}}/users/${i}`, [{ target: 'response.body.id', operator: 'equals', expected: i }])],
      });
    }
    await app.request('POST', '/v1/runners', { name: 'long', folder: 'long' });
    const { runId } = (await app.request('POST', '/v1/runs', { runner: 'long', environment: 'local' })).body;
    const run = await waitForRun(app, runId);
    expect(run).to.include({ status: 'completed', result: 'passed' });
    expect(run.summary).to.deep.equal({ total: 5, passed: 5, failed: 0, skipped: 0 });
    const results = (await app.request('GET', `/v1/runs/${runId}/results`)).body;
    expect(results.details.testCases.map((c: { name: string }) => c.name)).to.deep.equal([
      'case 1',
      'case 2',
      'case 3',
      'case 4',
      'case 5',
    ]);
    const client = await temporalClient();
    const executions = await eventually(
      async () => {
        const statuses: string[] = [];
        for await (const wf of client.workflow.list({ query: `WorkflowId = "run-${runId}"` }))
          statuses.push(wf.status.name);
        // The row says completed a moment before the last execution closes: wait for the close.
        return statuses.length === 3 && !statuses.includes('RUNNING') ? statuses.sort() : undefined;
      },
      20_000,
      300,
    );
    expect(executions).to.deep.equal(['COMPLETED', 'CONTINUED_AS_NEW', 'CONTINUED_AS_NEW']);
    await recordHistory('continued-as-new-last-execution', `run-${runId}`);
  });
});
