/**
 * Callback nodes end to end (docs/async.md "Callbacks"; src/flow/callback-node.ts,
 * workflows/workflow-port.ts, api/routes/callbacks.ts): a real API, Temporal dev server and worker,
 * and the loopback callback service (test/fixtures/async/callback-service.ts) that calls the node's
 * address back. A callback after 3 s; one that arrives before the wait starts; one that does not
 * match, then one that does; wrong signatures (401, not counted) then right ones, in both schemes;
 * a timeout naming the wait; an address of an ended run (410); a forged address (404); and a
 * worker killed with SIGKILL while the node waits.
 */
import { expect } from 'chai';
import { eventually, startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { processEnv, spawnAssay, type AssayProcess } from '../../helpers/processes';
import { startCallbackService, type CallbackService } from '../../fixtures/async/callback-service';
import { readCallbackToken } from '../../../src/domain/callback-address';
import { runStateQuery } from '../../../src/domain/run-workflow';
import { runWorkflowId } from '../../../src/ids';
import { temporalClient } from '../../helpers/temporal';

type Json = Record<string, unknown>;

/** An API node that asks the callback service for a job calling `{{callback.url}}` back. */
const job = (extra: Json = {}) => ({
  type: 'api',
  id: 'job',
  request: {
    method: 'POST',
    url: '{{svc}}/jobs',
    headers: { 'content-type': 'application/json' },
    body: { callbackUrl: '{{callback.url}}', ...extra },
  },
  assertions: [{ target: 'response.status', operator: 'equals', expected: 202 }],
});

/** The answers to a job's first `n` callbacks (the service records each once its answer is read). */
const answered = (svc: CallbackService, jobId: string, n: number) =>
  eventually(async () => {
    const list = svc.answers.get(jobId) ?? [];
    return list.length >= n ? list : undefined;
  }, 10_000);

let counter = 0;

/** Saves `flow` as a test case of its own runner and starts a run of it. */
async function startFlow(app: TestApp, flow: unknown[], variables: Json = {}): Promise<string> {
  const name = `cb-${++counter}`;
  const tc = await app.request('POST', '/v1/test-cases', { name, folder: name, flow });
  expect(tc.status, JSON.stringify(tc.body)).to.equal(201);
  await app.request('POST', '/v1/runners', { name, folder: name });
  const res = await app.request('POST', '/v1/runs', { runner: name, environment: 'local', variables });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return res.body.runId;
}

async function runFlow(app: TestApp, flow: unknown[], variables: Json = {}) {
  const runId = await startFlow(app, flow, variables);
  const run = await waitForRun(app, runId, 60_000);
  const results = (await app.request('GET', `/v1/runs/${runId}/results`)).body;
  const testCase = results.details.testCases[0];
  return { runId, run, testCase, node: (id: string) => testCase.nodes.find((n: Json) => n.id === id) };
}

/** The id of the job run `runId` asked the callback service for (its callback address names the run). */
const jobOf = (svc: CallbackService, runId: string) =>
  [...svc.jobs].find(([, url]) => readCallbackToken(url.split('/').pop()!)?.runId === runId)![0];

describe('Callback nodes', function () {
  this.timeout(120_000);
  let app: TestApp;
  let svc: CallbackService;

  before(async () => {
    [app, svc] = await Promise.all([startTestApp({ worker: true }), startCallbackService()]);
    // Addresses name the API the test started (its port is chosen at start).
    app.config.api.publicUrl = app.url;
    await app.request('POST', '/v1/environments', { name: 'local', variables: { svc: svc.url } });
  });
  after(async () => {
    await svc?.close();
    await app?.stop();
  });

  it('passes when the callback arrives (3 s later), with the callback in the result and in `nodes`', async () => {
    const started = Date.now();
    const { runId, run, testCase, node } = await runFlow(app, [
      job({ delayMs: 3000, body: { status: 'paid', amount: 42 } }),
      {
        type: 'callback',
        id: 'paid',
        timeout: '30s',
        assertions: [{ target: 'callback.body.amount', operator: 'equals', expected: 42 }],
      },
      {
        type: 'assert',
        id: 'seen',
        assertions: [{ target: 'nodes.paid.request.body.status', operator: 'equals', expected: 'paid' }],
      },
    ]);
    expect(run.result, JSON.stringify(testCase)).to.equal('passed');
    expect(Date.now() - started).to.be.greaterThan(3000);
    const cb = node('paid');
    expect(cb.callback).to.include({ received: 1, expected: 1, unmatched: 0 });
    expect(cb.callback.id).to.match(/^cb_[\w-]{12}$/);
    expect(cb.callback.callbacks[0]).to.deep.include({ method: 'POST', body: { status: 'paid', amount: 42 } });
    expect(cb.duration).to.be.within(2000, 30_000);
    expect(await answered(svc, jobOf(svc, runId), 1)).to.deep.equal([
      { status: 200, body: { received: true, callbackId: cb.callback.id } },
    ]);
  });

  it('keeps a callback that arrived before the node started waiting, and answers with `respond`', async () => {
    const { runId, run, testCase, node } = await runFlow(app, [
      job({ delayMs: 0 }),
      { type: 'wait', id: 'later', ms: 1500 },
      { type: 'callback', id: 'done', timeout: '10s', respond: { status: 202, body: { ok: 'yes' } } },
    ]);
    expect(run.result, JSON.stringify(testCase)).to.equal('passed');
    expect(node('done').callback.received).to.equal(1);
    expect(await answered(svc, jobOf(svc, runId), 1)).to.deep.equal([{ status: 202, body: { ok: 'yes' } }]);
  });

  it('counts only callbacks for which `match` holds (one that does not is counted as unmatched)', async () => {
    const { run, testCase, node } = await runFlow(app, [
      job({ delayMs: 200, callbacks: [{ body: { status: 'pending' } }, { body: { status: 'paid' }, delayMs: 300 }] }),
      { type: 'callback', id: 'paid', timeout: '10s', match: "callback.body.status = 'paid'" },
    ]);
    expect(run.result, JSON.stringify(testCase)).to.equal('passed');
    expect(node('paid').callback).to.include({ received: 1, unmatched: 1 });
    expect(node('paid').callback.callbacks[0].body).to.deep.equal({ status: 'paid' });
  });

  for (const scheme of ['hmac', 'standard-webhooks'] as const) {
    it(`refuses a wrong ${scheme} signature with 401 (not counted) and accepts the right one`, async () => {
      const secret = scheme === 'hmac' ? 'cb-secret-1' : `whsec_${Buffer.from('cb-secret-2').toString('base64')}`;
      const { runId, run, testCase, node } = await runFlow(
        app,
        [
          job({
            delayMs: 200,
            scheme,
            callbacks: [
              { body: { n: 1 }, secret: 'wrong', scheme },
              { body: { n: 2 }, scheme },
              { body: { n: 3 }, secret, scheme, delayMs: 200 },
            ],
          }),
          { type: 'callback', id: 'signed', timeout: '10s', signature: { scheme, secret: '{{cbSecret}}' } },
        ],
        { cbSecret: { value: secret, secret: true } },
      );
      expect(run.result, JSON.stringify(testCase)).to.equal('passed');
      expect(node('signed').callback).to.include({ received: 1, unmatched: 0 });
      expect(node('signed').callback.callbacks[0].body).to.deep.equal({ n: 3 });
      const answers = await answered(svc, jobOf(svc, runId), 3);
      expect(answers.map((a) => a.status)).to.deep.equal([401, 401, 200]);
      expect(answers[0]!.body).to.include({ code: 'callback-signature-invalid' });
    });
  }

  it('fails naming the wait when nothing matching arrives in time; the ended run then answers 410', async () => {
    const { run, testCase, node } = await runFlow(app, [
      job({ delayMs: 100, body: { status: 'pending' } }),
      { type: 'callback', id: 'never', timeout: '2s', match: "callback.body.status = 'paid'" },
    ]);
    expect(run.result).to.equal('failed');
    const failed = node('never');
    expect(failed.status).to.equal('failed');
    expect(failed.error).to.match(
      /^callback cb_[\w-]{12} not received within 2s \(1 callback did not match callback\.body\.status = 'paid'\)$/,
    );
    expect(testCase.failures[0].message).to.equal(failed.error);
    // The address of a run that has ended: 410, recorded nowhere.
    const url = svc.callbackUrls[svc.callbackUrls.length - 1]!;
    const late = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(late.status).to.equal(410);
    expect(await late.json()).to.include({ code: 'callback-run-ended' });
  });

  it('answers 404 for an address Assay did not make (a forged tag, a changed node, garbage)', async () => {
    const url = svc.callbackUrls[0]!;
    const token = url.split('/').pop()!;
    const [payload, tag] = token.split('.') as [string, string];
    const forgedTag = `${payload}.${tag[0] === 'A' ? 'B' : 'A'}${tag.slice(1)}`;
    const target = readCallbackToken(token)!;
    const otherNode = Buffer.from(JSON.stringify([target.runId, target.workflowId, `${target.key}x`])).toString(
      'base64url',
    );
    for (const bad of [forgedTag, `${otherNode}.${tag}`, 'garbage', `${payload}.${'A'.repeat(22)}`]) {
      const res = await fetch(`${app.url}/callbacks/${bad}`, { method: 'POST', body: '{}' });
      expect(res.status, bad).to.equal(404);
      expect(await res.json()).to.include({ code: 'callback-not-found' });
    }
  });

  it('refuses a body over the size limit with 413', async () => {
    const runId = await startFlow(app, [job({ delayMs: 60_000 }), { type: 'callback', id: 'big', timeout: '20s' }]);
    const url = await eventually(async () =>
      svc.callbackUrls.find((u) => readCallbackToken(u.split('/').pop()!)?.runId === runId),
    );
    // The run's live state (the runState query) says what it waits for.
    const client = await temporalClient();
    const live = await eventually(async () => {
      const state = await client.workflow.getHandle(runWorkflowId(runId)).query(runStateQuery);
      return state.waiting;
    });
    expect(live).to.include({ nodeId: 'big', kind: 'callback' });
    expect(live.callbackId).to.match(/^cb_/);
    expect(Date.parse(live.until) - Date.parse(live.since)).to.equal(20_000);
    // Nothing runs while it waits: no activity is scheduled or running for the run's workflow.
    const described = await client.workflow.getHandle(runWorkflowId(runId)).describe();
    expect(described.raw.pendingActivities ?? [], 'activities held while the node waits').to.have.length(0);
    const big = 'x'.repeat(app.config.api.maxBodyBytes + 1);
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: big });
    expect(res.status).to.equal(413);
    // A plain text callback is then accepted and ends the wait.
    const ok = await fetch(url, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'done' });
    expect(ok.status).to.equal(200);
    const run = await waitForRun(app, runId, 30_000);
    expect(run.result).to.equal('passed');
  });

  describe('with a worker killed (SIGKILL) while the node waits', () => {
    let own: TestApp;
    const workers: AssayProcess[] = [];
    const spawnWorker = () => {
      const w = spawnAssay('worker', processEnv(own, { ASSAY_LOG_LEVEL: 'warn', ASSAY_PUBLIC_URL: own.url }));
      workers.push(w);
      return w;
    };
    before(async () => {
      own = await startTestApp();
      own.config.api.publicUrl = own.url;
      await own.request('POST', '/v1/environments', { name: 'local', variables: { svc: svc.url } });
    });
    after(async () => {
      for (const w of workers) await w.kill();
      await own?.stop();
    });

    it('completes the run when the callback arrives after another worker took over', async () => {
      const first = spawnWorker();
      const runId = await startFlow(own, [
        job({ delayMs: 600_000 }),
        { type: 'callback', id: 'later', timeout: '60s' },
      ]);
      // Waiting: the live state says so.
      const url = await eventually(async () => {
        const run = (await own.request('GET', `/v1/runs/${runId}`)).body;
        return (
          run.status === 'running' &&
          svc.callbackUrls.find((u) => readCallbackToken(u.split('/').pop()!)?.runId === runId)
        );
      }, 30_000);
      await first.kill();
      // No worker: the callback is signalled all the same (Temporal keeps it in the history).
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"after":"kill"}',
      });
      expect(res.status).to.equal(200);
      spawnWorker();
      const run = await waitForRun(own, runId, 60_000);
      expect(run).to.include({ status: 'completed', result: 'passed' });
      const results = (await own.request('GET', `/v1/runs/${runId}/results`)).body;
      const node = results.details.testCases[0].nodes.find((n: Json) => n.id === 'later');
      expect(node.callback.callbacks[0].body).to.deep.equal({ after: 'kill' });
    });
  });
});
