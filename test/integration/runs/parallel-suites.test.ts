/**
 * Parallel suites (docs/parallel.md), end to end through the API, a worker and a Temporal server:
 *
 * - concurrency: test cases overlap (the target sees as many requests in flight as the run's
 *   concurrency, never more), results and the JUnit order stay the runner's whatever order they
 *   end in, the live progress counts test cases under way;
 * - dependencies: a test case waits for those it depends on, and is skipped when one failed (or
 *   comes after it);
 * - bail: after N failed test cases the rest are reported skipped, those under way finish;
 * - a run's own narrowing of its runner (`folder`, `tags`), and the fields' validation (400/422);
 * - per-origin limits: the target never sees more requests of the run in flight than allowed;
 * - a plan over the workflow's payload cap runs, its history holding no test case but those run.
 */
import { expect } from 'chai';
import { eventually, startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { startRecorder, type Hit, type Recorder } from '../../helpers/recorder';
import { temporalClient } from '../../helpers/temporal';

type Json = Record<string, any>;

const slow = (id: string, ms: number, extra: Json = {}) => ({
  type: 'api',
  id,
  request: { method: 'GET', url: `{{base}}/slow?ms=${ms}&i=${id}` },
  assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
  ...extra,
});
const failing = (id: string) => ({
  type: 'api',
  id,
  request: { method: 'GET', url: `{{base}}/fast?i=${id}` },
  assertions: [{ name: 'is 201', target: 'response.status', operator: 'equals', expected: 201 }],
});

describe('parallel suites: concurrency, order, dependencies, bail, narrowing, origin limits, large plans', function () {
  this.timeout(180_000);
  let app: TestApp;
  let target: Recorder;

  before(async () => {
    [app, target] = await Promise.all([startTestApp({ worker: true }), startRecorder()]);
    const env = await app.request('POST', '/v1/environments', { name: 'local', variables: { base: target.url } });
    expect(env.status, JSON.stringify(env.body)).to.equal(201);
  });
  after(async () => {
    await target?.close();
    await app?.stop();
  });

  const createCases = async (folder: string, cases: Array<Json & { name: string }>): Promise<string[]> => {
    const ids: string[] = [];
    for (const tc of cases) {
      const res = await app.request('POST', '/v1/test-cases', { folder, ...tc });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      ids.push(res.body.id as string);
    }
    return ids;
  };
  const createRunner = async (name: string, extra: Json = {}) => {
    const res = await app.request('POST', '/v1/runners', { name, folder: name, order: 'createdAt', ...extra });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body;
  };
  const run = async (runner: string, extra: Json = {}) => {
    const res = await app.request('POST', '/v1/runs', { runner, environment: 'local', ...extra });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.runId as string;
  };
  const results = async (runId: string) => (await app.request('GET', `/v1/runs/${runId}/results`)).body;
  const ofRun = (runId: string) => (h: Hit) => h.execution?.startsWith(`${runId}/`) ?? false;
  /** Most requests of `hits` being answered at one moment (from arrival and answer times). */
  const mostAtOnce = (hits: Hit[]) => {
    const edges = hits.flatMap((h) => [
      [h.at, 1],
      [h.answeredAt ?? Number.MAX_SAFE_INTEGER, -1],
    ]);
    edges.sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!);
    let now = 0;
    let most = 0;
    for (const [, d] of edges) most = Math.max(most, (now += d!));
    return most;
  };

  for (const durability of ['node', 'testCase'] as const) {
    it(`${durability} mode: concurrency 4 overlaps four test cases, never more; results stay in the runner's order; progress counts those under way`, async () => {
      const folder = `overlap-${durability}`;
      // Later test cases answer sooner, so they end out of order.
      const names = Array.from({ length: 12 }, (_, i) => `case ${String(i + 1).padStart(2, '0')}`);
      await createCases(
        folder,
        names.map((name, i) => ({ name, flow: [slow('a', 250 + (12 - i) * 40), slow('b', 100)] })),
      );
      const runner = await createRunner(folder, { concurrency: 4 });
      expect(runner).to.include({ concurrency: 4, bail: 0, originLimits: null });
      const runId = await run(folder, { durability });
      const seen = new Set<number>();
      await eventually(
        async () => {
          const doc = (await app.request('GET', `/v1/runs/${runId}`)).body;
          if (doc.status === 'running') seen.add(doc.progress?.running ?? 0);
          return doc.status !== 'running' && doc.status !== 'queued';
        },
        90_000,
        50,
      );
      const done = await waitForRun(app, runId);
      expect(done, JSON.stringify(done)).to.include({ status: 'completed', result: 'passed', concurrency: 4 });
      expect(
        [...seen].some((n) => n > 1),
        `progress.running seen: ${[...seen]}`,
      ).to.equal(true);
      const hits = target.hits.filter(ofRun(runId));
      expect(hits).to.have.length(24);
      expect(mostAtOnce(hits)).to.be.within(2, 4);
      const doc = await results(runId);
      expect(doc.details.testCases.map((t: Json) => t.name)).to.deep.equal(names);
      expect(doc.summary).to.deep.include({ total: 12, passed: 12, failed: 0, skipped: 0 });
      // Each test case ran its nodes in order, one after the other.
      for (const [position] of names.entries()) {
        const mine = hits.filter((h) => h.execution!.startsWith(`${runId}/${position}/`));
        expect(mine.map((h) => h.query.replace(/.*i=/, ''))).to.deep.equal(['a', 'b']);
        expect(mine[1]!.at).to.be.at.least(mine[0]!.answeredAt!);
      }
    });
  }

  it('dependencies: a test case starts after those it depends on; one whose dependency failed, or comes after it, is skipped', async () => {
    const folder = 'deps';
    const [a, b] = await createCases(folder, [
      { name: 'a passes slowly', flow: [slow('a', 600)] },
      { name: 'b fails', flow: [failing('b')] },
    ]);
    const [, d] = await createCases(folder, [
      { name: 'c needs a', flow: [slow('c', 10)], dependsOn: [a] },
      { name: 'd needs b', flow: [slow('d', 10)], dependsOn: [b] },
    ]);
    const [e] = await createCases(folder, [{ name: 'e needs d', flow: [slow('e', 10)], dependsOn: [d] }]);
    const [g] = await createCases(folder, [{ name: 'f needs g', flow: [slow('f', 10)] }]);
    const late = await createCases(folder, [{ name: 'g later', flow: [slow('g', 10)] }]);
    const before = await app.request('PATCH', `/v1/test-cases/${g}`, { dependsOn: late });
    expect(before.status, JSON.stringify(before.body)).to.equal(200);
    expect(before.body.dependsOn).to.deep.equal(late);
    expect(e).to.be.a('string');
    await createRunner(folder);
    const runId = await run(folder, { concurrency: 4 });
    const done = await waitForRun(app, runId);
    expect(done).to.include({ status: 'completed', result: 'failed' });
    const doc = await results(runId);
    const byName = Object.fromEntries(doc.details.testCases.map((t: Json) => [t.name, t]));
    expect(doc.details.testCases.map((t: Json) => `${t.name}:${t.status}`)).to.deep.equal([
      'a passes slowly:passed',
      'b fails:failed',
      'c needs a:passed',
      'd needs b:skipped',
      'e needs d:skipped',
      'f needs g:skipped',
      'g later:passed',
    ]);
    expect(byName['d needs b'].error).to.match(/depends on test case 2, which failed/);
    expect(byName['e needs d'].error).to.match(/depends on test case 4, which was skipped/);
    expect(byName['f needs g'].error).to.match(/comes after it/);
    const hits = target.hits.filter(ofRun(runId));
    const at = (i: string) => hits.find((h) => h.query.endsWith(`i=${i}`));
    // c waited for a to end; nothing of d, e or f was sent.
    expect(at('c')!.at).to.be.at.least(at('a')!.answeredAt!);
    expect([at('d'), at('e'), at('f')]).to.deep.equal([undefined, undefined, undefined]);
    expect(doc.summary).to.deep.include({ total: 7, passed: 3, failed: 1, skipped: 3 });
  });

  it('bail: after N failed test cases the rest are skipped, those under way finish; the run completes failed', async () => {
    const folder = 'bail';
    await createCases(folder, [
      { name: 'one', flow: [slow('n1', 10)] },
      { name: 'two fails', flow: [failing('n2')] },
      { name: 'three', flow: [slow('n3', 10)] },
      { name: 'four fails', flow: [failing('n4')] },
      ...Array.from({ length: 6 }, (_, i) => ({ name: `rest ${i + 5}`, flow: [slow(`n${i + 5}`, 10)] })),
    ]);
    await createRunner(folder, { bail: 2 });
    const runId = await run(folder);
    const done = await waitForRun(app, runId);
    expect(done).to.include({ status: 'completed', result: 'failed', bail: 2 });
    const doc = await results(runId);
    expect(doc.details.testCases.map((t: Json) => t.status)).to.deep.equal([
      'passed',
      'failed',
      'passed',
      'failed',
      ...Array(6).fill('skipped'),
    ]);
    expect(doc.details.testCases[4].error).to.match(/stopped after 2 failed test cases \(bail: 2\)/);
    expect(doc.summary).to.deep.include({ total: 10, passed: 2, failed: 2, skipped: 6 });
    expect(target.hits.filter(ofRun(runId))).to.have.length(4);

    // With concurrency, those under way when the second failure ends still finish.
    const parallel = await run(folder, { concurrency: 3, bail: 1 });
    const ended = await waitForRun(app, parallel);
    expect(ended).to.include({ status: 'completed', result: 'failed' });
    const statuses = (await results(parallel)).details.testCases.map((t: Json) => t.status);
    expect(statuses.slice(0, 2)).to.deep.equal(['passed', 'failed']);
    expect(statuses.filter((s: string) => s === 'skipped').length).to.be.at.least(5);
    expect(statuses.every((s: string) => ['passed', 'failed', 'skipped'].includes(s))).to.equal(true);
  });

  it("a run's own folder and tags narrow its runner; nothing left is 422; bad values are 400 naming the field", async () => {
    await createCases('narrow', [{ name: 'top', flow: [slow('top', 1)], tags: ['smoke'] }]);
    await createCases('narrow/api', [
      { name: 'deep smoke', flow: [slow('deep1', 1)], tags: ['smoke', 'api'] },
      { name: 'deep slow', flow: [slow('deep2', 1)], tags: ['slow'] },
    ]);
    await createRunner('narrow');
    const runId = await run('narrow', { folder: 'narrow/api', tags: ['smoke'] });
    const done = await waitForRun(app, runId);
    expect(done).to.include({ status: 'completed', result: 'passed' });
    expect(done.selection).to.deep.equal({ folder: 'narrow/api', tags: ['smoke'] });
    expect((await results(runId)).details.testCases.map((t: Json) => t.name)).to.deep.equal(['deep smoke']);

    const none = await app.request('POST', '/v1/runs', { runner: 'narrow', environment: 'local', tags: ['absent'] });
    expect(none.status, JSON.stringify(none.body)).to.equal(422);
    expect(none.body.code).to.equal('runner-selects-nothing');
    expect(none.body.detail).to.match(/absent/);

    for (const [body, field] of [
      [{ concurrency: 0 }, 'concurrency'],
      [{ concurrency: 65 }, 'concurrency'],
      [{ bail: -1 }, 'bail'],
      [{ originLimits: {} }, 'originLimits'],
      [{ originLimits: { maxInFlight: 0 } }, 'originLimits/maxInFlight'],
    ] as const) {
      const res = await app.request('POST', '/v1/runs', { runner: 'narrow', environment: 'local', ...body });
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(JSON.stringify(res.body.errors), JSON.stringify(body)).to.contain(field);
    }
    const badDep = await app.request('POST', '/v1/test-cases', {
      name: 'bad dep',
      folder: 'narrow',
      flow: [],
      dependsOn: ['tc_nope'],
    });
    expect(badDep.status).to.equal(422);
    expect(badDep.body.errors[0].field).to.equal('dependsOn[0]');
  });

  it('per-origin limit: with concurrency 8 and maxInFlight 2 the target never sees more than 2 of the run at once', async () => {
    const folder = 'origin-limit';
    await createCases(
      folder,
      Array.from({ length: 8 }, (_, i) => ({ name: `limited ${i}`, flow: [slow('x', 150), slow('y', 150)] })),
    );
    await createRunner(folder, { concurrency: 8, originLimits: { maxInFlight: 2 } });
    const runId = await run(folder);
    const done = await waitForRun(app, runId);
    expect(done, JSON.stringify(done)).to.include({ status: 'completed', result: 'passed' });
    expect(done.originLimits).to.deep.equal({ maxInFlight: 2 });
    const hits = target.hits.filter(ofRun(runId));
    expect(hits).to.have.length(16);
    expect(mostAtOnce(hits)).to.be.within(1, 2);
  });

  it('a plan over the workflow payload cap (1.5 MiB) runs; the history holds only small events', async () => {
    const folder = 'large-plan';
    const filler = 'x'.repeat(24 * 1024);
    await createCases(
      folder,
      Array.from({ length: 80 }, (_, i) => ({
        name: `large ${i}`,
        description: '',
        flow: [
          {
            type: 'api',
            id: 'post',
            // The padding goes in the body the node would send; the target answers whatever it gets.
            request: { method: 'POST', url: `{{base}}/fast?i=${i}`, body: { pad: filler } },
            assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
          },
        ],
      })),
    );
    await createRunner(folder, { concurrency: 8 });
    const runId = await run(folder);
    const done = await waitForRun(app, runId, 120_000);
    expect(done, JSON.stringify(done.error)).to.include({ status: 'completed', result: 'passed' });
    expect((await results(runId)).summary).to.deep.include({ total: 80, passed: 80 });
    const client = await temporalClient();
    const history = await client.workflow.getHandle(`run-${runId}`).fetchHistory();
    const sizes = (history.events ?? []).map((e) => JSON.stringify(e).length);
    // The whole plan is about 2 MB; no event carries it (pages of test cases are at most 256 KiB).
    expect(Math.max(...sizes)).to.be.below(600 * 1024);
  });
});
