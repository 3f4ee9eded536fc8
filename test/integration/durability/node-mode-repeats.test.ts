/**
 * What a crash repeats in the default `node` durability mode (docs/durability.md "What a crash
 * repeats"): at most the node executions under way, each sent again with the same
 * `X-Assay-Execution`, no id ever carried by two node executions. A counting target on loopback
 * sees every request; the processes are real (API, workers, a Temporal dev server of its own) and
 * are killed with SIGKILL, or stopped with SIGSTOP to be a worker too slow to answer Temporal.
 *
 * - a worker killed in the middle of a test case of 40 requests (the experiment of the finding:
 *   before node execution records, the requests of the last second were all sent again);
 * - a worker killed twice in a tree of loops, Parallel lanes, a sub-flow and a Loop continued in
 *   child workflows: the ids are exactly the tree's, repeats only of what was under way;
 * - the API process killed: nothing is sent twice;
 * - the Temporal server killed and started again: nothing is sent twice;
 * - a worker stopped past the workflow task timeout, alone and beside another worker (its tasks
 *   time out and run again, here or on the other worker): nothing is sent twice.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { eventually, startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { processEnv, spawnAssay, waitForHttp, type AssayProcess } from '../../helpers/processes';
import { startRecorder, repeatsOf, type Hit, type Recorder } from '../../helpers/recorder';
import { temporalClient, testDataConverter } from '../../helpers/temporal';
import { startDevServer, type DevServer } from '../../../src/temporal/dev-server';
import { freePort } from '../../../src/net/free-port';

type Json = Record<string, any>;

/** An API node `id` calling `/slow?ms=<ms>&i=<id>` and asserting the answer. */
const slow = (id: string, ms: number) => ({
  type: 'api',
  id,
  request: { method: 'GET', url: `{{base}}/slow?ms=${ms}&i=${id.length}`, timeoutMs: 10_000 },
  assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
});
const forty = () => Array.from({ length: 40 }, (_, k) => slow(`s${k + 1}`, 200));

describe('the node durability mode: a crash repeats at most the node under way, with the same X-Assay-Execution', function () {
  this.timeout(240_000);
  let app: TestApp;
  let target: Recorder;
  const procs: AssayProcess[] = [];

  const spawn = (command: 'api' | 'worker', on: TestApp = app, env: Record<string, string> = {}) => {
    const p = spawnAssay(command, processEnv(on, { ASSAY_LOG_LEVEL: 'warn', ...env }));
    procs.push(p);
    return p;
  };
  const createRunner = async (on: TestApp, name: string, cases: Array<Json>) => {
    for (const tc of cases) {
      const res = await on.request('POST', '/v1/test-cases', { folder: name, ...tc });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
    }
    const res = await on.request('POST', '/v1/runners', { name, folder: name, order: 'createdAt' });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
  };
  const startRun = async (on: TestApp, runner: string) => {
    const res = await on.request('POST', '/v1/runs', { runner, environment: 'local' });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.runId as string;
  };
  const hitsOf = (runId: string): Hit[] => target.hits.filter((h) => h.execution?.startsWith(`${runId}/`));
  /** The run passed, and its results list `ids` in order, each passed. */
  const expectPassed = async (on: TestApp, runId: string) => {
    const run = await waitForRun(on, runId, 120_000).catch(async (err) => {
      console.log(JSON.stringify((await on.request('GET', `/v1/runs/${runId}`)).body, null, 1));
      for (const p of procs) console.log(p.output().slice(-3000));
      if (on === app) {
        const h = await (await temporalClient()).workflow.getHandle(`run-${runId}`).fetchHistory();
        fs.writeFileSync(`/tmp/${runId}.json`, historyToJSON(h));
      }
      throw err;
    });
    expect(run, JSON.stringify(run)).to.include({ status: 'completed', result: 'passed' });
    return (await on.request('GET', `/v1/runs/${runId}/results`)).body.details.testCases[0];
  };
  /** The ids sent, exactly `paths` (of test case 0), and every id at most twice. */
  const expectIds = (runId: string, paths: string[]) => {
    const { counts, repeated } = repeatsOf(hitsOf(runId));
    expect([...counts.keys()].sort()).to.deep.equal(paths.map((p) => `${runId}/0/${p}`).sort());
    for (const [id, n] of counts) expect(n, id).to.be.at.most(2);
    return repeated;
  };

  before(async () => {
    [app, target] = await Promise.all([startTestApp(), startRecorder()]);
    await app.request('POST', '/v1/environments', { name: 'local', variables: { base: target.url } });
  });
  afterEach(async () => {
    for (const p of procs.splice(0)) {
      if (p.child.signalCode === 'SIGSTOP' || p.child.exitCode === null) p.child.kill('SIGCONT');
      await p.kill();
    }
  });
  after(async () => {
    await target?.close();
    await app?.stop();
  });

  it('a worker killed (-9) after 15 of 40 requests: the run passes, and only the request under way is sent again', async () => {
    await createRunner(app, 'forty', [{ name: 'forty', flow: forty() }]);
    const first = spawn('worker');
    const runId = await startRun(app, 'forty');
    await eventually(async () => hitsOf(runId).length >= 15, 60_000, 5);
    await first.kill();
    const sent = hitsOf(runId);
    const underWay = sent.at(-1)!.execution;
    spawn('worker');
    const tc = await expectPassed(app, runId);
    expect(tc.nodes.map((n: Json) => `${n.id}:${n.status}`)).to.deep.equal(
      Array.from({ length: 40 }, (_, k) => `s${k + 1}:passed`),
    );
    const repeated = expectIds(
      runId,
      Array.from({ length: 40 }, (_, k) => `s${k + 1}`),
    );
    // Before the records, every request of the second before the kill was sent again (5 of them).
    expect(repeated, `${sent.length} sent before the kill`).to.satisfy(
      (r: string[]) => r.length === 0 || (r.length === 1 && r[0] === underWay),
    );
  });

  it('a worker killed twice in loops, Parallel lanes, a sub-flow and a Loop continued in child workflows: exactly the tree ids, repeats only of what was under way', async () => {
    const login = await app.request('POST', '/v1/test-cases', {
      name: 'log in',
      folder: 'tree-shared',
      reusable: true,
      flow: [slow('token', 150), slow('profile', 150)],
    });
    expect(login.status, JSON.stringify(login.body)).to.equal(201);
    await createRunner(app, 'tree', [
      {
        name: 'tree',
        flow: [
          { type: 'loop', id: 'each', count: 6, body: [slow('get', 150)] },
          {
            type: 'parallel',
            id: 'lanes',
            concurrency: 2,
            children: [slow('a1', 400), slow('b1', 250), slow('a2', 400), slow('b2', 250)],
          },
          { type: 'ref', id: 'login', mode: 'ref', testCaseId: login.body.id },
          { type: 'loop', id: 'many', count: 30, body: [slow('m', 60)] },
        ],
      },
    ]);
    // A Loop's rest continues in a child workflow once the history passes 40 events (docs/flows.md).
    const env = { ASSAY_SEGMENT_HISTORY_EVENTS: '40' };
    const first = spawn('worker', app, env);
    const runId = await startRun(app, 'tree');
    const mine = () => hitsOf(runId);
    // Under way at a kill: sent and not answered yet, or answered so lately (half a second) that the
    // worker may not have written the outcome down before it died.
    const underWayAt = (killedAt: number) =>
      mine()
        .filter((h) => h.answeredAt === undefined || h.answeredAt > killedAt - 500)
        .map((h) => h.execution!);
    // Kill 1: in the Parallel lanes, with two requests under way.
    await eventually(async () => mine().filter((h) => h.execution!.includes('/lanes/')).length >= 3, 60_000, 5);
    await first.kill();
    const underWay = underWayAt(Date.now());
    const second = spawn('worker', app, env);
    // Kill 2: in the long loop, after it went on in a child workflow.
    await eventually(async () => mine().filter((h) => h.execution!.includes('/many[')).length >= 18, 90_000, 5);
    await second.kill();
    underWay.push(...underWayAt(Date.now()));
    spawn('worker', app, env);

    const tc = await expectPassed(app, runId);
    expect(tc.nodes.map((n: Json) => `${n.id}:${n.status}`)).to.deep.equal([
      'each:passed',
      'lanes:passed',
      'login:passed',
      'many:passed',
    ]);
    expect(tc.nodes[3].iterations).to.equal(30);
    const repeated = expectIds(runId, [
      ...Array.from({ length: 6 }, (_, i) => `each[${i}]/get`),
      ...['a1', 'b1', 'a2', 'b2'].map((id) => `lanes/${id}`),
      'login/token',
      'login/profile',
      ...Array.from({ length: 30 }, (_, i) => `many[${i}]/m`),
    ]);
    for (const id of repeated) expect(underWay, `${id} was not under way at a kill`).to.include(id);
    // The loop did continue in child workflows.
    let segments = 0;
    for await (const _ of (await temporalClient()).workflow.list({
      query: `WorkflowId STARTS_WITH "run-${runId}-loop-many"`,
    }))
      segments += 1;
    expect(segments, 'loop segment workflows').to.be.at.least(1);
  });

  it('the API process killed (-9) mid-run: the run completes and nothing is sent twice', async () => {
    await createRunner(app, 'api-kill', [{ name: 'forty', flow: forty() }]);
    spawn('worker');
    const port = await freePort();
    const api = spawn('api', app, { ASSAY_PORT: String(port) });
    const url = `http://127.0.0.1:${port}`;
    await waitForHttp(`${url}/healthz`);
    const res = await fetch(`${url}/v1/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${app.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ runner: 'api-kill', environment: 'local' }),
    });
    expect(res.status).to.equal(201);
    const { runId } = (await res.json()) as { runId: string };
    await eventually(async () => hitsOf(runId).length >= 10, 60_000, 5);
    await api.kill();
    await expectPassed(app, runId);
    const repeated = expectIds(
      runId,
      Array.from({ length: 40 }, (_, k) => `s${k + 1}`),
    );
    expect(repeated).to.deep.equal([]);
  });

  describe('with a Temporal server of its own', () => {
    let dir: string;
    let server: DevServer | undefined;
    let own: TestApp;

    before(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-temporal-kill-'));
      server = await startDevServer({ dbFile: path.join(dir, 'temporal.db'), readyTimeoutMs: 120_000 });
      own = await startTestApp({ env: { TEMPORAL_ADDRESS: server.address } });
      await own.request('POST', '/v1/environments', { name: 'local', variables: { base: target.url } });
    });
    after(async () => {
      await own?.stop();
      await server?.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('the Temporal server killed (-9) mid-run and started again: the run completes and nothing is sent twice', async () => {
      await createRunner(own, 'temporal-kill', [{ name: 'forty', flow: forty() }]);
      spawn('worker', own);
      const runId = await startRun(own, 'temporal-kill');
      await eventually(async () => hitsOf(runId).length >= 12, 60_000, 5);
      const port = Number(server!.address.split(':').at(-1));
      const gone = new Promise((resolve) => server!.process.once('exit', resolve));
      server!.process.kill('SIGKILL');
      await gone;
      server = await startDevServer({ port, dbFile: path.join(dir, 'temporal.db'), readyTimeoutMs: 120_000 });
      await expectPassed(own, runId);
      const repeated = expectIds(
        runId,
        Array.from({ length: 40 }, (_, k) => `s${k + 1}`),
      );
      expect(repeated).to.deep.equal([]);
    });

    it('a worker stopped (SIGSTOP) past the workflow task timeout, alone and beside another worker: its tasks time out, nothing is sent twice', async () => {
      await createRunner(own, 'stopped', [{ name: 'forty', flow: forty() }]);
      const slowWorker = spawn('worker', own);
      const runId = await startRun(own, 'stopped');
      const freeze = async (ms: number) => {
        // Stopped while a request is under way: its answer waits for the worker to go on.
        await eventually(async () => target.inFlight() > 0, 10_000, 1);
        slowWorker.child.kill('SIGSTOP');
        await new Promise((r) => setTimeout(r, ms));
        slowWorker.child.kill('SIGCONT');
      };
      await eventually(async () => hitsOf(runId).length >= 5, 60_000, 5);
      // Alone: the task times out (2 s), the worker goes on and runs the task again itself.
      await freeze(3500);
      await eventually(async () => hitsOf(runId).length >= 15, 60_000, 5);
      // Beside another worker, which takes the task over while this one cannot answer.
      spawn('worker', own);
      await new Promise((r) => setTimeout(r, 1500));
      await freeze(3500);
      await expectPassed(own, runId);
      const repeated = expectIds(
        runId,
        Array.from({ length: 40 }, (_, k) => `s${k + 1}`),
      );
      expect(repeated).to.deep.equal([]);
      // The tasks did time out (else this test tried nothing).
      const connection = await Connection.connect({ address: server!.address });
      try {
        const client = new Client({ connection, dataConverter: testDataConverter() });
        const events = (await client.workflow.getHandle(`run-${runId}`).fetchHistory()).events ?? [];
        expect(events.filter((e) => e.workflowTaskTimedOutEventAttributes).length).to.be.at.least(1);
      } finally {
        await connection.close();
      }
    });
  });
});
