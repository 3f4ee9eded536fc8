/**
 * The interpreter's workflow port (workflows/workflow-port.ts) inside the real run workflow, with
 * stubbed activities (test/helpers/workflow-stubs.ts), triggered cheaply through the run's frozen
 * settings (RunSettings in src/domain/types.ts):
 *
 * - the work budget: pure in-workflow work is metered per workflow task, and past
 *   `TASK_WORK_BUDGET` the task ends with the no-op `endWorkflowTask` activity (counted here, with the
 *   workflow tasks in the history);
 * - the checkpoint: after `checkpointMs` of local activities, a normal activity (the run's
 *   `saveProgress`) ends the workflow task;
 * - segmenting: past `segmentHistoryEvents`, the rest of a loop runs in child
 *   `loopSegmentWorkflow`s, whose counts, kept iterations, state and failures come back merged;
 *   one that reaches the run's deadline times the run out.
 */
import { expect } from 'chai';
import { WorkflowFailedError } from '@temporalio/client';
import { NODE_WORK, TASK_WORK_BUDGET } from '../../workflows/workflow-port';
import { FAILURE_TYPES, RUN_ERROR_PREFIX } from '../../src/domain/failures';
import { KEPT_ITERATIONS } from '../../src/flow';
import type { FlowNode, NodeResult } from '../../src/domain/types';
import {
  apiNode,
  eventCounts,
  inputsOf,
  storedResults,
  newRunId,
  planOf,
  startStubWorkflowEnv,
  testCase,
  type StubRun,
  type StubWorkflowEnv,
} from '../helpers/workflow-stubs';

describe('workflow port with stubbed activities', function () {
  this.timeout(30_000);
  let stubs: StubWorkflowEnv;

  before(async function () {
    this.timeout(120_000);
    stubs = await startStubWorkflowEnv('wf-port');
  });

  after(async function () {
    this.timeout(60_000);
    await stubs?.stop();
  });

  const start = (run: StubRun) => stubs.start(run);

  /** `count` Context nodes, each setting `v<i>` to the number i. */
  const contextNodes = (count: number): FlowNode[] =>
    Array.from({ length: count }, (_, i) => ({ id: `c${i}`, type: 'context', set: { [`v${i}`]: String(i) } }));

  it('ends workflow tasks with the endWorkflowTask activity once a task has done its work budget', async () => {
    const nodes = 300;
    const long = stubs.register({ plan: planOf(newRunId(), [testCase('a', contextNodes(nodes))]) });
    const short = stubs.register({ plan: planOf(newRunId(), [testCase('a', contextNodes(10))]) });
    const handle = await start(long);
    await handle.result();
    await (await start(short)).result();

    const [record] = storedResults(long);
    expect(record!.result.status).to.equal('passed');
    expect(record!.result.nodes).to.have.length(nodes);
    expect(record!.result.nodes[nodes - 1]).to.deep.include({
      id: `c${nodes - 1}`,
      variablesSet: { [`v${nodes - 1}`]: nodes - 1 },
    });

    // Each node counts at least NODE_WORK (more with its expression's steps), and a task yields
    // once its work reaches the budget: at least floor(300 × 2 / 200) - 1 yields, and far fewer
    // than one per node.
    const yields = long.calls.filter((c) => c.name === 'endWorkflowTask');
    expect(yields.length, 'yields').to.be.at.least(Math.floor((nodes * NODE_WORK) / TASK_WORK_BUDGET) - 1);
    expect(yields.length, 'yields').to.be.below(nodes / 10);
    expect(yields.every((c) => !c.local && c.workflowId === `run-${long.plan.runId}`)).to.equal(true);
    const events = eventCounts(await handle.fetchHistory());
    expect(events.WORKFLOW_TASK_COMPLETED, 'workflow tasks: startRun, each yield, finishRun').to.be.at.least(
      yields.length + 2,
    );

    expect(
      short.calls.filter((c) => c.name === 'endWorkflowTask'),
      'a short flow does not yield',
    ).to.deep.equal([]);
  });

  it('ends the workflow task with saveProgress after checkpointMs of local activities, and not before', async () => {
    // API nodes of 60 ms each (a real delay: the checkpoint is about time spent in local activities).
    const flow = (count: number) => Array.from({ length: count }, (_, i) => apiNode(`n${i}`, `/n/${i}`));
    const often = stubs.register({
      plan: planOf(newRunId(), [testCase('a', flow(12))], { settings: { checkpointMs: 200 } }),
      api: () => ({ delayMs: 60 }),
    });
    const rarely = stubs.register({
      plan: planOf(newRunId(), [testCase('a', flow(4))], { settings: { checkpointMs: 1000 } }),
      api: () => ({ delayMs: 60 }),
    });
    await Promise.all([often, rarely].map(async (run) => (await start(run)).result()));

    // 12 × 60 ms with a checkpoint once 200 ms have passed since the last: after every fourth node
    // (more often only when each node's own overhead passes 40 ms), never after each one.
    const saves = inputsOf(often, 'saveProgress') as Array<{
      runId: string;
      progress: { completed: number; total: number };
      work: number;
    }>;
    expect(saves.length, 'checkpoints').to.be.within(3, 6);
    expect(often.calls.filter((c) => c.name === 'saveProgress').every((c) => !c.local)).to.equal(true);
    // The progress stored while the test case runs: not completed, the work fraction growing (at most 95 % until it ends).
    expect(saves.map((s) => s.progress)).to.deep.equal(
      saves.map(() => ({ completed: 0, total: 1, percentage: 0, running: 1 })),
    );
    const work = saves.map((s) => s.work);
    expect(work).to.deep.equal([...work].sort((a, b) => a - b));
    expect(work[0]).to.be.above(0);
    expect(work[work.length - 1]).to.be.at.most(0.95);
    expect(
      inputsOf(rarely, 'saveProgress'),
      'no checkpoint in 240 ms of local work with checkpointMs 1000',
    ).to.deep.equal([]);
  });

  describe('segmenting a long loop into child workflows', () => {
    // 60 iterations of an API node and a Context node; iteration 45 answers 500. With a history
    // limit of 20 events the loop moves to a child after about ten iterations, and each child
    // hands its rest to another.
    const iterations = 60;
    const loopFlow: FlowNode[] = [
      {
        id: 'loop',
        type: 'loop',
        count: iterations,
        body: [apiNode('item', '/item/{{index}}'), { id: 'keep', type: 'context', set: { last: 'loop.index' } }],
      },
      apiNode('after', '/after/{{last}}'),
    ];
    const answer500 = (input: { request: { url: string } }) =>
      input.request.url.endsWith('/item/45') ? { status: 500 } : {};

    it('runs the rest of the loop in child loopSegmentWorkflows and merges their results', async () => {
      const run = stubs.register({
        plan: planOf(newRunId(), [testCase('a', loopFlow)], { settings: { segmentHistoryEvents: 20 } }),
        api: answer500,
      });
      const handle = await start(run);
      await handle.result();

      const calls = run.calls.filter((c) => c.name === 'executeApiNode');
      expect(calls.map((c) => (c.input as { request: { url: string } }).request.url)).to.deep.equal([
        ...Array.from({ length: iterations }, (_, i) => `http://stub.test/item/${i}`),
        // The state the children left: `last` set by the final iteration.
        `http://stub.test/after/${iterations - 1}`,
      ]);
      const parentId = `run-${run.plan.runId}`;
      const children = [...new Set(calls.map((c) => c.workflowId).filter((id) => id !== parentId))];
      expect(children.length, 'children (each hands its rest on)').to.be.at.least(2);
      expect(children.every((id) => id.startsWith(`${parentId}-loop-loop-`))).to.equal(true);
      expect(calls[0]!.workflowId).to.equal(parentId);
      expect(calls[calls.length - 1]!.workflowId, 'the node after the loop runs in the run').to.equal(parentId);
      const events = eventCounts(await handle.fetchHistory());
      expect(
        events.CHILD_WORKFLOW_EXECUTION_STARTED,
        'the run starts one child; the others are its descendants',
      ).to.equal(1);
      expect(events.CHILD_WORKFLOW_EXECUTION_COMPLETED).to.equal(1);

      const [record] = storedResults(run);
      const result = record!.result;
      expect(result.status).to.equal('failed');
      expect(result).to.include({ assertions: iterations + 1, passedAssertions: iterations });
      expect(result.failures).to.have.length(1);
      expect(result.failures[0]).to.include({ node: 'item', expected: 200, actual: 500 });
      const loop = result.nodes[0] as NodeResult;
      expect(loop).to.include({
        id: 'loop',
        status: 'failed',
        iterations,
        stoppedBy: 'count',
        omittedIterations: iterations - KEPT_ITERATIONS,
      });
      expect(loop.iterationResults!.map((it) => it.index)).to.deep.equal(
        Array.from({ length: KEPT_ITERATIONS }, (_, i) => i),
      );
      expect(loop.iterationResults!.filter((it) => it.status === 'failed').map((it) => it.index)).to.deep.equal([45]);
      expect(result.nodes[1]).to.include({ id: 'after', status: 'passed' });
      expect(inputsOf(run, 'finishRun')[0]).to.deep.include({
        status: 'completed',
        result: 'failed',
        summary: { total: 1, passed: 0, failed: 1, skipped: 0 },
      });
    });

    it('times the run out when a child reaches the deadline', async () => {
      const runId = newRunId();
      const startedAtMs = Date.now();
      const deadlineMs = startedAtMs + 600_000;
      // Iteration 40 (in a child) reports it ended past the deadline.
      const run = stubs.register({
        plan: planOf(runId, [testCase('a', loopFlow), testCase('b', [apiNode('b1', '/b')])], {
          settings: { segmentHistoryEvents: 20 },
          timeoutSeconds: 600,
          startedAtMs,
        }),
        api: (input) => (input.request.url.endsWith('/item/40') ? { finishedAtMs: deadlineMs + 1 } : {}),
      });
      const err = await (await start(run)).result().then(
        () => undefined,
        (e: unknown) => e,
      );

      expect(err).to.be.instanceOf(WorkflowFailedError);
      const error = `${RUN_ERROR_PREFIX.timedOut} after 600 s`;
      expect((err as WorkflowFailedError).cause).to.include({ type: FAILURE_TYPES.runTimedOut, message: error });
      const calls = run.calls.filter((c) => c.name === 'executeApiNode');
      expect(calls).to.have.length(41);
      expect(calls[40]!.workflowId).to.not.equal(`run-${runId}`);
      const [finish] = inputsOf(run, 'finishRun');
      expect(finish).to.deep.include({
        status: 'failed',
        error,
        summary: { total: 2, passed: 0, failed: 1, skipped: 1 },
      });
      expect(
        [...finish!.unfinished, ...(finish!.interrupted ?? [])].map((u) => [u.position, u.result.status]),
      ).to.deep.equal([[0, 'failed']]);
      expect(finish!.skipRest).to.deep.equal({ error });
    });
  });
});
