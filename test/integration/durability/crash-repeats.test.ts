/**
 * What a crash repeats (docs/durability.md "What a crash repeats"), counted at a loopback target
 * that records every request with its `X-Assay-Execution`: the processes are real (API, workers
 * and a Temporal dev server of this file's own, on a database file so that it can be killed and
 * started again) and are killed with SIGKILL, or stopped with SIGSTOP to be a worker too slow to
 * answer Temporal.
 *
 * `node` mode (the default): at most the node executions under way, each sent again with the same
 * id, and no id ever carried by two node executions:
 * - a worker killed in the middle of a test case of 30 requests (before node execution records:
 *   4 of the requests before the kill sent again, one under a new id);
 * - the API and then a worker killed twice in a tree of loops, Parallel lanes, a sub-flow and a
 *   Loop continued in child workflows: the ids are exactly the tree's, repeats only of what was
 *   under way (before the lanes had clocks of their own: the run stuck on a nondeterminism error);
 * - the API, then the Temporal server killed and started again, and a worker stopped past the
 *   workflow task timeout (alone, then beside another worker that takes its task over): nothing
 *   sent twice (before the records: 9 requests sent twice with no process killed).
 * `testCase` mode, in the same runs: repeats only among the requests sent around the outage (a
 * worker killed mid test case: test-case-mode-chaos.test.ts).
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { eventually, startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { processEnv, spawnAssay, waitForHttp, type AssayProcess } from '../../helpers/processes';
import { startRecorder, repeatsOf, type Hit, type Recorder } from '../../helpers/recorder';
import { recordHistory, testDataConverter } from '../../helpers/temporal';
import { startDevServer, type DevServer } from '../../../src/temporal/dev-server';
import { freePort } from '../../../src/net/free-port';

type Json = Record<string, any>;

/** An API node `id` calling `/slow?ms=<ms>` and asserting the answer. */
const slow = (id: string, ms: number) => ({
  type: 'api',
  id,
  request: { method: 'GET', url: `{{base}}/slow?ms=${ms}`, timeoutMs: 10_000 },
  assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
});
/** `count` nodes `s1`… of `ms` each, and their paths. */
const row = (count: number, ms: number) => Array.from({ length: count }, (_, k) => slow(`s${k + 1}`, ms));
const rowPaths = (count: number) => Array.from({ length: count }, (_, k) => `s${k + 1}`);

describe('what a crash repeats, in both durability modes, counted at the target', function () {
  this.timeout(240_000);
  let dir: string;
  let server: DevServer | undefined;
  let app: TestApp;
  let target: Recorder;
  let client: Client;
  let connection: Connection;
  const procs: AssayProcess[] = [];

  const spawn = (command: 'api' | 'worker', env: Record<string, string> = {}) => {
    const p = spawnAssay(command, processEnv(app, { ASSAY_LOG_LEVEL: 'warn', ...env }));
    procs.push(p);
    return p;
  };
  const createRunner = async (name: string, cases: Array<Json>) => {
    for (const tc of cases) {
      const res = await app.request('POST', '/v1/test-cases', { folder: name, ...tc });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
    }
    const res = await app.request('POST', '/v1/runners', { name, folder: name, order: 'createdAt' });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
  };
  const startRun = async (runner: string, durability: 'node' | 'testCase' = 'node') => {
    const res = await app.request('POST', '/v1/runs', { runner, environment: 'local', durability });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.runId as string;
  };
  const hitsOf = (runId: string): Hit[] => target.hits.filter((h) => h.execution?.startsWith(`${runId}/`));
  /** Ids of `runId`'s requests sent between `from` and `to` (epoch ms). */
  const sentBetween = (runId: string, from: number, to: number) =>
    hitsOf(runId)
      .filter((h) => h.at >= from && h.at <= to)
      .map((h) => h.execution!);
  /** The run passed; its first test case's result. */
  const expectPassed = async (runId: string) => {
    const run = await waitForRun(app, runId, 120_000);
    expect(run, JSON.stringify(run)).to.include({ status: 'completed', result: 'passed' });
    return (await app.request('GET', `/v1/runs/${runId}/results`)).body.details.testCases[0];
  };
  /** The ids sent were exactly `paths` (of test case 0), each at most twice; returns those sent twice. */
  const expectIds = (runId: string, paths: string[]) => {
    const { counts, repeated } = repeatsOf(hitsOf(runId));
    expect([...counts.keys()].sort()).to.deep.equal(paths.map((p) => `${runId}/0/${p}`).sort());
    for (const [id, n] of counts) expect(n, id).to.be.at.most(2);
    return repeated;
  };
  const killTemporal = async () => {
    const gone = new Promise((resolve) => server!.process.once('exit', resolve));
    server!.process.kill('SIGKILL');
    await gone;
  };

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-crashes-'));
    [server, target] = await Promise.all([
      startDevServer({ dbFile: path.join(dir, 'temporal.db'), readyTimeoutMs: 120_000 }),
      startRecorder(),
    ]);
    app = await startTestApp({ env: { TEMPORAL_ADDRESS: server.address } });
    await app.request('POST', '/v1/environments', { name: 'local', variables: { base: target.url } });
    connection = await Connection.connect({ address: server.address });
    client = new Client({ connection, dataConverter: testDataConverter() });
  });
  afterEach(async () => {
    for (const p of procs.splice(0)) {
      p.child.kill('SIGCONT');
      await p.kill();
    }
  });
  after(async () => {
    await connection?.close();
    await target?.close();
    await app?.stop();
    await server?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('node: a worker killed (-9) after 12 of 30 requests; the run passes and only the request under way is sent again', async () => {
    await createRunner('thirty', [{ name: 'thirty', flow: row(30, 200) }]);
    const first = spawn('worker');
    const runId = await startRun('thirty');
    await eventually(async () => hitsOf(runId).length >= 12, 60_000, 5);
    await first.kill();
    const sent = hitsOf(runId);
    const underWay = sent.at(-1)!.execution;
    spawn('worker');
    const tc = await expectPassed(runId);
    expect(tc.nodes.map((n: Json) => `${n.id}:${n.status}`)).to.deep.equal(rowPaths(30).map((p) => `${p}:passed`));
    const repeated = expectIds(runId, rowPaths(30));
    expect(repeated, `${sent.length} sent before the kill`).to.satisfy(
      (r: string[]) => r.length === 0 || (r.length === 1 && r[0] === underWay),
    );
  });

  it('node: the API killed, then a worker killed twice, in loops, Parallel lanes, a sub-flow and a Loop continued in child workflows: exactly the tree ids, repeats only of what was under way', async () => {
    const login = await app.request('POST', '/v1/test-cases', {
      name: 'log in',
      folder: 'tree-shared',
      reusable: true,
      flow: [slow('token', 150), slow('profile', 150)],
    });
    expect(login.status, JSON.stringify(login.body)).to.equal(201);
    await createRunner('tree', [
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
    const first = spawn('worker', env);
    // The run started through an API process that is killed right after (the API sends nothing).
    const port = await freePort();
    const api = spawn('api', { ASSAY_PORT: String(port) });
    await waitForHttp(`http://127.0.0.1:${port}/healthz`);
    const started = await fetch(`http://127.0.0.1:${port}/v1/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${app.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ runner: 'tree', environment: 'local' }),
    });
    expect(started.status).to.equal(201);
    const { runId } = (await started.json()) as { runId: string };
    const mine = () => hitsOf(runId);
    await eventually(async () => mine().length >= 2, 60_000, 5);
    await api.kill();
    // Under way at a kill: sent and not answered yet, or answered so lately (half a second) that
    // the worker may not have written the outcome down before it died.
    const underWayAt = (killedAt: number) =>
      mine()
        .filter((h) => h.answeredAt === undefined || h.answeredAt > killedAt - 500)
        .map((h) => h.execution!);
    // Kill 1: in the Parallel lanes, with two requests under way.
    await eventually(async () => mine().filter((h) => h.execution!.includes('/lanes/')).length >= 3, 60_000, 5);
    await first.kill();
    const underWay = underWayAt(Date.now());
    const second = spawn('worker', env);
    // Kill 2: in the long loop, after it went on in a child workflow.
    await eventually(async () => mine().filter((h) => h.execution!.includes('/many[')).length >= 18, 90_000, 5);
    await second.kill();
    underWay.push(...underWayAt(Date.now()));
    spawn('worker', env);

    const tc = await expectPassed(runId);
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
    let segments = 0;
    for await (const _ of client.workflow.list({ query: `WorkflowId STARTS_WITH "run-${runId}-loop-many"` }))
      segments += 1;
    expect(segments, 'loop segment workflows').to.be.at.least(1);
    // Parallel lanes with clocks of their own, workflow tasks timed out by the kills, a sub-flow.
    await recordHistory('parallel-lanes-crashed', `run-${runId}`, client);
  });

  it('both modes: the API, then the Temporal server killed (-9) mid-run and started again; node sends nothing twice, testCase only around the outage', async () => {
    await createRunner('outage', [{ name: 'thirty', flow: row(30, 150) }]);
    spawn('worker');
    // Both runs started through an API process, killed once they are under way (runs do not go through it).
    const apiPort = await freePort();
    const api = spawn('api', { ASSAY_PORT: String(apiPort) });
    await waitForHttp(`http://127.0.0.1:${apiPort}/healthz`);
    const [node, segment] = await Promise.all(
      (['node', 'testCase'] as const).map(async (durability) => {
        const res = await fetch(`http://127.0.0.1:${apiPort}/v1/runs`, {
          method: 'POST',
          headers: { authorization: `Bearer ${app.key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ runner: 'outage', environment: 'local', durability }),
        });
        expect(res.status).to.equal(201);
        return ((await res.json()) as { runId: string }).runId;
      }),
    );
    await eventually(async () => hitsOf(node!).length >= 3 && hitsOf(segment!).length >= 3, 60_000, 5);
    await api.kill();
    await eventually(async () => hitsOf(node!).length >= 10 && hitsOf(segment!).length >= 10, 60_000, 5);
    const killedAt = Date.now();
    const port = Number(server!.address.split(':').at(-1));
    await killTemporal();
    server = await startDevServer({ port, dbFile: path.join(dir, 'temporal.db'), readyTimeoutMs: 120_000 });
    const restartedAt = Date.now();
    await expectPassed(node!);
    await expectPassed(segment!);
    expect(expectIds(node!, rowPaths(30)), 'node mode').to.deep.equal([]);
    // docs/durability.md: the nodes since the last checkpoint Temporal received, and while it was
    // down (the segment's heartbeats did not reach it) until the worker learns the retry took over.
    const around = sentBetween(segment!, killedAt - 3000, restartedAt + 3000);
    for (const id of expectIds(segment!, rowPaths(30))) expect(around, `${id} sent twice`).to.include(id);
  });

  it('both modes: a worker stopped (SIGSTOP) past the workflow task timeout, alone, then beside another worker that takes its tasks over: nothing sent twice', async () => {
    await createRunner('stopped', [{ name: 'thirty', flow: row(30, 150) }]);
    const stopped = spawn('worker');
    const [node, segment] = [await startRun('stopped'), await startRun('stopped', 'testCase')];
    const freeze = async (ms: number) => {
      // Stopped while a request is under way: its answer waits for the worker to go on.
      await eventually(async () => target.inFlight() > 0, 10_000, 1);
      stopped.child.kill('SIGSTOP');
      await new Promise((r) => setTimeout(r, ms));
      stopped.child.kill('SIGCONT');
    };
    await eventually(async () => hitsOf(node).length >= 4, 60_000, 5);
    // Alone: the task times out (2 s); the worker goes on and runs it again itself.
    await freeze(3000);
    await eventually(async () => hitsOf(node).length >= 12, 60_000, 5);
    // Beside another worker, which takes the task over while this one cannot answer.
    spawn('worker');
    await new Promise((r) => setTimeout(r, 1000));
    await freeze(3000);
    await expectPassed(node);
    await expectPassed(segment);
    expect(expectIds(node, rowPaths(30)), 'node mode').to.deep.equal([]);
    // Under the 5 s heartbeat timeout of a segment: nothing runs again in testCase mode either.
    expect(expectIds(segment, rowPaths(30)), 'testCase mode').to.deep.equal([]);
    // The node-mode run's tasks did time out (else this tried nothing).
    const events = (await client.workflow.getHandle(`run-${node}`).fetchHistory()).events ?? [];
    expect(events.filter((e) => e.workflowTaskTimedOutEventAttributes).length).to.be.at.least(1);
  });
});
