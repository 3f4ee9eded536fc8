/**
 * Disabled nodes and debug capture in the run workflow (workflows/run.ts, the `node` durability
 * mode: every node a durable step), as real workflow code with stubbed activities
 * (test/helpers/workflow-stubs.ts): a disabled node schedules no activity and is recorded
 * `skipped` (`disabled`); a plan with `debug: true` records each node's capture (src/flow/debug.ts),
 * one without records none. The `testCase` mode and the direct port: test/unit/disabled-nodes.test.ts
 * and test/unit/debug-capture.test.ts.
 */
import { expect } from 'chai';
import {
  apiNode,
  inputsOf,
  storedResults,
  newRunId,
  planOf,
  startStubWorkflowEnv,
  testCase,
  type StubWorkflowEnv,
} from '../helpers/workflow-stubs';
import type { FlowNode } from '../../src/domain/types';

describe('run workflow: disabled nodes and debug capture', function () {
  this.timeout(30_000);
  let stubs: StubWorkflowEnv;

  before(async function () {
    this.timeout(120_000);
    stubs = await startStubWorkflowEnv('wf-debug');
  });

  after(async function () {
    this.timeout(60_000);
    await stubs?.stop();
  });

  const flow = (): FlowNode[] => [
    { ...apiNode('off', '/off'), disabled: true },
    apiNode('on', '/on'),
    { type: 'if', id: 'offIf', disabled: true, condition: 'true', then: [apiNode('inIf', '/in-if')] },
    { type: 'context', id: 'ctx', set: { seen: '$exists(nodes.off)' } },
  ];

  it('schedules nothing for disabled nodes and records them skipped; a debug plan records the captures', async () => {
    const runId = newRunId();
    const run = stubs.register({
      plan: { ...planOf(runId, [testCase('a', flow())]), variables: { who: 'ada' }, debug: true },
      api: () => ({ status: 200, body: { hello: 'ada' } }),
    });
    const outcome = await (await stubs.start(run)).result();
    expect(outcome.result).to.equal('passed');
    expect(inputsOf(run, 'executeApiNode').map((i) => i.request.url)).to.deep.equal(['http://stub.test/on']);
    const [recorded] = storedResults(run);
    const nodes = recorded!.result.nodes;
    expect(nodes.map((n) => [n.id, n.status, n.reason])).to.deep.equal([
      ['off', 'skipped', 'disabled'],
      ['on', 'passed', undefined],
      ['offIf', 'skipped', 'disabled'],
      ['ctx', 'passed', undefined],
    ]);
    expect(nodes[0]!.debug, 'a disabled node has no capture').to.equal(undefined);
    expect(nodes[1]!.debug).to.deep.equal({
      request: { method: 'GET', url: 'http://stub.test/on', headers: {} },
      response: { status: 200, headers: { 'content-type': 'application/json' }, body: { hello: 'ada' }, timeMs: 1 },
      variables: { who: 'ada' },
    });
    expect(nodes[3]!.debug).to.deep.equal({ variables: { who: 'ada', seen: false } });
  });

  it('captures in the child workflows a long loop continues in', async () => {
    const runId = newRunId();
    const iterations = 40;
    const run = stubs.register({
      plan: {
        ...planOf(
          runId,
          [
            testCase('a', [
              {
                type: 'loop',
                id: 'loop',
                count: iterations,
                body: [apiNode('item', '/item/{{index}}'), { ...apiNode('skip', '/skip'), disabled: true }],
              },
            ]),
          ],
          { settings: { segmentHistoryEvents: 20 } },
        ),
        debug: true,
      },
    });
    await (await stubs.start(run)).result();
    const calls = run.calls.filter((c) => c.name === 'executeApiNode');
    expect(calls.map((c) => (c.input as { request: { url: string } }).request.url)).to.deep.equal(
      Array.from({ length: iterations }, (_, i) => `http://stub.test/item/${i}`),
    );
    expect(new Set(calls.map((c) => c.workflowId)).size, 'some iterations ran in child workflows').to.be.at.least(2);
    const [recorded] = storedResults(run);
    const loop = recorded!.result.nodes[0]!;
    expect(loop.iterationResults).to.have.length(iterations);
    for (const [i, it] of loop.iterationResults!.entries()) {
      expect(it.nodes[0]!.debug!.request!.url, `iteration ${i}`).to.equal(`http://stub.test/item/${i}`);
      expect(it.nodes[1]).to.include({ status: 'skipped', reason: 'disabled' });
      expect(it.nodes[1]!.debug).to.equal(undefined);
    }
  });

  it('records no capture for a plan without `debug`', async () => {
    const runId = newRunId();
    const run = stubs.register({ plan: planOf(runId, [testCase('a', flow())]) });
    await (await stubs.start(run)).result();
    const [recorded] = storedResults(run);
    expect(JSON.stringify(recorded!.result)).to.not.include('"debug"');
    expect(recorded!.result.nodes.map((n) => n.status)).to.deep.equal(['skipped', 'passed', 'skipped', 'passed']);
  });
});
