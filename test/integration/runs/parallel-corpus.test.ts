/**
 * Parallel and sequential runs give the same results (docs/parallel.md): the flow corpus
 * (test/fixtures/flow-corpus.ts: every node type, hooks, retries, Ref sub-flows, Wait nodes,
 * failing assertions) run by a runner whose test cases do not share variables, with concurrency 1
 * and with concurrency 8, in both durability modes: the results documents deep-equal once
 * durations, timestamps, run ids and the target's address are taken out, in the runner's order.
 * A runner whose test cases share their variables (`variableScope: "run"`) runs one at a time
 * whatever its concurrency, and its results equal the sequential run's.
 */
import { expect } from 'chai';
import { startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { startTarget, type Target } from '../../helpers/target';
import { CORPUS_VARIABLES, createCorpus, normalised, type CorpusCase } from '../../fixtures/flow-corpus';
import type { Durability } from '../../../src/domain/types';

type Json = Record<string, any>;

interface Done {
  runId: string;
  target: Target;
  run: Json;
  results: Json;
}

describe('parallel suites: the flow corpus run in parallel gives the sequential results, in both modes', function () {
  this.timeout(300_000);
  let app: TestApp;
  let cases: CorpusCase[];
  const targets: Target[] = [];
  const done: Record<string, Done> = {};

  const runCorpus = async (key: string, runner: string, durability: Durability, concurrency: number) => {
    // One target per run: the flaky endpoint counts per key, so each run starts with fresh counts.
    const target = await startTarget();
    targets.push(target);
    const started = await app.request('POST', '/v1/runs', {
      runner,
      environment: 'local',
      variables: { base: target.url },
      durability,
      concurrency,
    });
    expect(started.status, JSON.stringify(started.body)).to.equal(201);
    const runId = started.body.runId as string;
    const run = await waitForRun(app, runId, 150_000);
    const results = (await app.request('GET', `/v1/runs/${runId}/results`)).body;
    done[key] = { runId, target, run, results };
  };
  const comparable = (d: Done) =>
    normalised(d.results, [
      [d.runId, 'RUN'],
      [d.target.url.replace(/^http:\/\//, ''), 'TARGET'],
    ]);

  before(async () => {
    app = await startTestApp({ worker: true, env: { ASSAY_MAX_LOOP_ITERATIONS: '20' } });
    await app.request('POST', '/v1/environments', { name: 'local', variables: { ...CORPUS_VARIABLES } });
    ({ cases } = await createCorpus(app));
    const res = await app.request('POST', '/v1/runners', {
      name: 'corpus-independent',
      folder: 'corpus',
      order: 'createdAt',
      variableScope: 'testCase',
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    for (const durability of ['node', 'testCase'] as const) {
      await runCorpus(`${durability}-1`, 'corpus-independent', durability, 1);
      await runCorpus(`${durability}-8`, 'corpus-independent', durability, 8);
    }
    await runCorpus('shared-1', 'corpus', 'node', 1);
    await runCorpus('shared-8', 'corpus', 'node', 8);
  });
  after(async () => {
    await Promise.all(targets.map((t) => t.close()));
    await app?.stop();
  });

  for (const durability of ['node', 'testCase'] as const) {
    it(`${durability} mode: concurrency 8 gives the results of concurrency 1, in the runner's order`, () => {
      const [one, eight] = [done[`${durability}-1`]!, done[`${durability}-8`]!];
      expect(one.run).to.include({ status: 'completed', concurrency: 1 });
      expect(eight.run).to.include({ status: 'completed', concurrency: 8 });
      expect(one.results.details.testCases.map((t: Json) => t.name)).to.deep.equal(cases.map((c) => c.name));
      const [a, b] = [comparable(one), comparable(eight)];
      for (let i = 0; i < cases.length; i++)
        expect(b.details.testCases[i], `test case ${cases[i]!.name}`).to.deep.equal(a.details.testCases[i]);
      expect(b).to.deep.equal(a);
      expect(eight.run.summary).to.deep.equal(one.run.summary);
      expect(eight.run.result).to.equal(one.run.result);
    });
  }

  it('both modes agree with each other in parallel too', () => {
    expect(comparable(done['testCase-8']!)).to.deep.equal(comparable(done['node-8']!));
  });

  it('a runner sharing variables between test cases runs them one at a time whatever its concurrency', () => {
    const [one, eight] = [done['shared-1']!, done['shared-8']!];
    const shared = eight.results.details.testCases.find((t: Json) => t.name === 'shared 2 use it');
    expect(shared.status, 'it sees what "shared 1" set').to.equal('passed');
    expect(comparable(eight)).to.deep.equal(comparable(one));
  });
});
