/**
 * The estimate of completion (`estimatedCompletion`, docs/api.md "Runs"): expected node executions count loop iterations
 * when they are known, and the estimate follows the observed rate, never in the past.
 */
import { expect } from 'chai';
import { RunLedger } from '../../workflows/run-ledger';
import { estimateCompletion, expectedNodeExecutions } from '../../src/flow/estimate';
import type { FlowNode, RunPlan } from '../../src/domain/types';

const api = (id: string): FlowNode =>
  ({ id, type: 'api', request: { method: 'GET', url: 'http://127.0.0.1/' } }) as FlowNode;

describe('expected node executions', () => {
  it('counts a Loop body count times and an Iteration body once per data-set row', () => {
    const flow = [api('a'), { id: 'l', type: 'loop', count: 10, body: [api('b'), api('c')] }] as FlowNode[];
    expect(expectedNodeExecutions({ flow, dataSets: {} })).to.equal(1 + 1 + 10 * 2);
    const it = [{ id: 'i', type: 'iteration', dataSet: 'users', body: [api('b')] }] as FlowNode[];
    expect(expectedNodeExecutions({ flow: it, dataSets: { users: [1, 2, 3, 4] } })).to.equal(1 + 4);
  });

  it('caps by maxIterations and the worker limit, and counts an unknown-length loop once', () => {
    const flow = [{ id: 'l', type: 'loop', count: 500, maxIterations: 20, body: [api('b')] }] as FlowNode[];
    expect(expectedNodeExecutions({ flow, dataSets: {} })).to.equal(21);
    expect(
      expectedNodeExecutions(
        { flow: [{ id: 'l', type: 'loop', count: 500, body: [api('b')] }] as FlowNode[], dataSets: {} },
        100,
      ),
    ).to.equal(101);
    expect(
      expectedNodeExecutions({
        flow: [{ id: 'w', type: 'loop', while: 'true', body: [api('b')] }] as FlowNode[],
        dataSets: {},
      }),
    ).to.equal(2);
  });

  it('nests: a loop inside a loop multiplies', () => {
    const flow = [
      { id: 'o', type: 'loop', count: 3, body: [{ id: 'i', type: 'loop', count: 4, body: [api('x')] }] },
    ] as FlowNode[];
    expect(expectedNodeExecutions({ flow, dataSets: {} })).to.equal(1 + 3 * (1 + 4));
  });
});

describe('estimateCompletion', () => {
  const startedAtMs = 1_000_000;
  const deadlineMs = startedAtMs + 600_000;

  it('stretches the time elapsed by the work left', () => {
    // 10 s for a quarter of the work: 30 s more.
    expect(estimateCompletion({ startedAtMs, deadlineMs, work: 0.25, nowMs: startedAtMs + 10_000 })).to.equal(
      startedAtMs + 40_000,
    );
  });

  it('is the deadline before any work is done, and never after it', () => {
    expect(estimateCompletion({ startedAtMs, deadlineMs, work: 0, nowMs: startedAtMs + 5000 })).to.equal(deadlineMs);
    expect(estimateCompletion({ startedAtMs, deadlineMs, work: 0.001, nowMs: startedAtMs + 60_000 })).to.equal(
      deadlineMs,
    );
  });

  it('is never in the past, even when the work is (nearly) all done or the deadline has passed', () => {
    const nowMs = startedAtMs + 20_000;
    expect(estimateCompletion({ startedAtMs, deadlineMs, work: 1, nowMs })).to.be.greaterThan(nowMs);
    const late = deadlineMs + 60_000;
    expect(estimateCompletion({ startedAtMs, deadlineMs, work: 0.5, nowMs: late })).to.be.greaterThan(late);
  });

  it('keeps moving while no work is reported (a worker is down) instead of freezing', () => {
    const a = estimateCompletion({ startedAtMs, deadlineMs, work: 0.5, nowMs: startedAtMs + 10_000 });
    const b = estimateCompletion({ startedAtMs, deadlineMs, work: 0.5, nowMs: startedAtMs + 20_000 });
    expect(b - a).to.equal(20_000);
  });
});

describe('a run of loops: the estimate is not early', () => {
  it('counts every iteration, so halfway through the loop the run is about halfway done', () => {
    const plan = {
      runId: 'run_x',
      startedAtMs: 0,
      timeoutSeconds: 3600,
      settings: { maxLoopIterations: 1000 },
      testCases: [
        { id: 'tc', name: 'loop', flow: [{ id: 'l', type: 'loop', count: 100, body: [api('b')] }], dataSets: {} },
      ],
    } as unknown as RunPlan;
    const ledger = new RunLedger();
    ledger.begin(plan);
    for (let i = 0; i < 51; i++) ledger.nodeDone(); // the loop node and 50 iterations
    expect(ledger.work).to.be.closeTo(0.5, 0.01);
    // 15 s for half the work: about 15 s more, where counting the body once said it was long done.
    const eta = ledger.estimatedCompletionMs(15_000)!;
    expect(eta).to.be.within(29_000, 31_000);
  });
});
