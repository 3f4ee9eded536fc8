/**
 * The `testCase` durability mode (docs/durability.md "Durability modes") gives the results the
 * `node` mode gives: the flow corpus (test/fixtures/flow-corpus.ts: IF, Loop, Iteration over
 * expressions and data sets, Parallel, Context, Script nodes and hooks, retries, expressions that
 * throw, Assert nodes, Ref sub-flows, Wait nodes splitting segments, variables shared across test
 * cases, failing assertions) run by one runner in each mode, with the results documents, the JUnit
 * reports and the summaries deep-equal once what legitimately differs is taken out (durations,
 * timestamps, run ids, the target's port, `X-Assay-Execution`). The `testCase` run's Temporal
 * history holds one `runTestCaseSegment` activity per segment, its summary naming the test case and
 * its nodes; that history is recorded for the replay test.
 */
import { expect } from 'chai';
import type { Payload } from '@temporalio/common';
import { startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { startTarget, type Target } from '../../helpers/target';
import { recordHistory, temporalClient, testDataConverter } from '../../helpers/temporal';
import { CORPUS_VARIABLES, createCorpus, normalised, type CorpusCase } from '../../fixtures/flow-corpus';
import { renderJunit } from '../../../cli/reports/index';
import { testCaseSegments } from '../../../src/flow/segments';
import type { Durability } from '../../../src/domain/types';

type Json = Record<string, any>;

async function decodeText(payload: Payload | null | undefined): Promise<string | undefined> {
  if (!payload) return undefined;
  const [plain] = await testDataConverter().payloadCodecs![0]!.decode([payload]);
  return JSON.parse(Buffer.from(plain!.data!).toString('utf8')) as string;
}

/** The expected summary of an activity segment: `<test case>: <n> node(s): <ids>` (src/flow/interpreter.ts). */
function segmentSummaries(cases: CorpusCase[], refNames: Record<string, string>): string[] {
  const out: string[] = [];
  for (const tc of cases) {
    for (const s of testCaseSegments(tc.flow as never)) {
      if (s.durable) continue;
      // "assert stops" stops in its first segment: the segment after its Wait runs no activity.
      if (tc.name === 'assert stops' && s.start > 0) continue;
      const ids = tc.flow
        .slice(s.start, s.end)
        .map((n) => n.name ?? (n.type === 'ref' ? refNames[n.testCaseId] : undefined) ?? n.id);
      out.push(`${tc.name}: ${ids.length} node${ids.length === 1 ? '' : 's'}: ${ids.join(', ')}`);
    }
  }
  return out;
}

describe('the testCase durability mode: the flow corpus in both modes', function () {
  this.timeout(180_000);
  let app: TestApp;
  const targets: Partial<Record<Durability, Target>> = {};
  let cases: CorpusCase[];
  let refNames: Record<string, string>;
  const runs: Partial<Record<Durability, { runId: string; run: Json; results: Json }>> = {};

  before(async () => {
    let node: Target, testCase: Target;
    [app, node, testCase] = await Promise.all([
      startTestApp({ worker: true, env: { ASSAY_MAX_LOOP_ITERATIONS: '20' } }),
      startTarget(),
      startTarget(),
    ]);
    // One target per mode: the flaky endpoint counts per key, so each run starts with fresh counts.
    targets.node = node;
    targets.testCase = testCase;
    await app.request('POST', '/v1/environments', { name: 'local', variables: { ...CORPUS_VARIABLES } });
    ({ cases, names: refNames } = await createCorpus(app));
    // The two runs one after the other (the same runner, its test cases in order).
    for (const durability of ['node', 'testCase'] as const) {
      const started = await app.request('POST', '/v1/runs', {
        runner: 'corpus',
        environment: 'local',
        variables: { base: targets[durability]!.url },
        durability,
      });
      expect(started.status, JSON.stringify(started.body)).to.equal(201);
      const runId = started.body.runId as string;
      const run = await waitForRun(app, runId, 120_000);
      const results = (await app.request('GET', `/v1/runs/${runId}/results`)).body;
      runs[durability] = { runId, run, results };
    }
  });
  after(async () => {
    await Promise.all(Object.values(targets).map((t) => t?.close()));
    await app?.stop();
  });

  const replacements = (durability: Durability): Array<[string, string]> => [
    [runs[durability]!.runId, 'RUN'],
    [targets[durability]!.url.replace(/^http:\/\//, ''), 'TARGET'],
  ];

  it('gives deep-equal results documents, JUnit reports and summaries', () => {
    const node = runs.node!;
    const testCase = runs.testCase!;
    // The corpus passes and fails where it should: the same in both modes, checked below.
    expect(node.run).to.include({ status: 'completed', result: 'failed' });
    expect(node.results.details.testCases).to.have.length(cases.length);
    const byName = (name: string) => node.results.details.testCases.find((c: Json) => c.name === name);
    expect(byName('shared 2 use it').status, 'variableScope run').to.equal('passed');
    expect(byName('onion').status, JSON.stringify(byName('onion').failures)).to.equal('passed');
    expect(byName('wait between api nodes').status).to.equal('passed');
    expect(byName('ref login').status).to.equal('passed');
    expect(byName('assert stops').nodes.map((n: Json) => n.status)).to.deep.equal([
      'failed',
      'skipped',
      'skipped',
      'skipped',
    ]);
    expect(byName('retry recovers').nodes[0].attempts.map((a: Json) => a.status)).to.deep.equal([503, 503, 200]);

    // No test case needed a second attempt: `attempts` is absent in both modes.
    for (const tc of testCase.results.details.testCases) expect(tc).not.to.have.property('attempts');

    const [a, b] = [
      normalised(node.results, replacements('node')),
      normalised(testCase.results, replacements('testCase')),
    ];
    for (let i = 0; i < cases.length; i++)
      expect(b.details.testCases[i], `test case ${cases[i]!.name}`).to.deep.equal(a.details.testCases[i]);
    expect(b).to.deep.equal(a);
    expect(testCase.run.summary).to.deep.equal(node.run.summary);
    expect(testCase.results.summary).to.deep.equal(node.results.summary);
    expect(testCase.run.result).to.equal(node.run.result);

    const junit = (durability: Durability) => {
      const { run, results } = runs[durability]!;
      const xml = renderJunit({ run, results, links: run.links, generatedAt: new Date(0) } as never);
      return xml
        .split(runs[durability]!.runId)
        .join('RUN')
        .split(targets[durability]!.url.replace(/^http:\/\//, ''))
        .join('TARGET')
        .replace(/ (time|timestamp)="[^"]*"/g, ' $1=""')
        .replace(/run-RUN\/[^"<\s&]*/g, 'EXECUTION')
        .replace(/\b\d+(\.\d+)? ?ms\b/g, 'N ms');
    };
    expect(junit('testCase')).to.equal(junit('node'));
  });

  it('runs one runTestCaseSegment activity per segment in the testCase mode, none in the node mode, summaries naming the test case and nodes', async () => {
    const client = await temporalClient();
    const scheduled = async (runId: string) => {
      const history = await client.workflow.getHandle(`run-${runId}`).fetchHistory();
      const summaries: string[] = [];
      for (const event of history.events ?? []) {
        const attrs = event.activityTaskScheduledEventAttributes;
        if (attrs?.activityType?.name !== 'runTestCaseSegment') continue;
        summaries.push((await decodeText(event.userMetadata?.summary)) ?? '');
      }
      return summaries;
    };
    expect(await scheduled(runs.node!.runId)).to.deep.equal([]);
    const summaries = await scheduled(runs.testCase!.runId);
    const expected = segmentSummaries(cases, refNames);
    // Two segments around the Wait of "wait between api nodes" (and its IF holding a Wait, run in the workflow).
    expect(expected).to.include.members([
      'wait between api nodes: 2 nodes: before, keep',
      'wait between api nodes: 1 node: afterWait',
      'wait between api nodes: 1 node: last',
    ]);
    expect(summaries).to.have.length(expected.length);
    // A summary may start with pending notes (src/flow/flow-base.ts `summary`): it ends with the segment's.
    summaries.forEach((s, i) => expect(s.endsWith(expected[i]!), `${s} ≠ ${expected[i]}`).to.equal(true));
    await recordHistory('test-case-durability', `run-${runs.testCase!.runId}`);
  });
});
