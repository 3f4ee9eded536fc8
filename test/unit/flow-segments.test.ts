/**
 * Test case segments of the `testCase` durability mode (src/flow/segments.ts): which top-level
 * nodes wait durably in the workflow, and how a flow splits into activity segments around them.
 */
import { expect } from 'chai';
import { testCaseSegments, waitsDurably } from '../../src/flow/segments';
import type { FlowNode } from '../../src/domain/types';

const api = (id: string): FlowNode =>
  ({ id, type: 'api', request: { method: 'GET', url: 'http://127.0.0.1/' } }) as FlowNode;
const wait = (id: string): FlowNode => ({ id, type: 'wait', ms: 30_000 }) as FlowNode;
const node = (value: unknown): FlowNode => value as FlowNode;

describe('test case segments (testCase durability)', () => {
  it('finds Wait, Callback and Poll nodes at the top, in branches, loop bodies, lanes and sub-flows', () => {
    expect(waitsDurably(api('a'))).to.equal(false);
    expect(waitsDurably(wait('w'))).to.equal(true);
    expect(waitsDurably(node({ id: 'c', type: 'callback' }))).to.equal(true);
    expect(waitsDurably(node({ id: 'p', type: 'poll' }))).to.equal(true);
    expect(
      waitsDurably(node({ id: 'if', type: 'if', condition: 'true', then: [api('a')], else: [wait('w')] })),
    ).to.equal(true);
    expect(waitsDurably(node({ id: 'l', type: 'loop', count: 2, body: [api('a')] }))).to.equal(false);
    expect(
      waitsDurably(
        node({ id: 'l', type: 'loop', count: 2, body: [{ id: 'par', type: 'parallel', children: [wait('w')] }] }),
      ),
    ).to.equal(true);
    expect(waitsDurably(node({ id: 'r', type: 'ref', testCaseId: 'tc', flow: [api('a')] }))).to.equal(false);
    expect(waitsDurably(node({ id: 'r', type: 'ref', testCaseId: 'tc', flow: [api('a'), wait('w')] }))).to.equal(true);
    // A Ref node whose flow was not frozen (it fails when run) has nothing to wait for.
    expect(waitsDurably(node({ id: 'r', type: 'ref', testCaseId: 'tc' }))).to.equal(false);
  });

  it('runs the nodes between waits together, each wait alone in the workflow', () => {
    const flow = [api('a'), api('b'), wait('w1'), api('c'), wait('w2'), wait('w3'), api('d')];
    expect(testCaseSegments(flow)).to.deep.equal([
      { start: 0, end: 2, durable: false },
      { start: 2, end: 3, durable: true },
      { start: 3, end: 4, durable: false },
      { start: 4, end: 5, durable: true },
      { start: 5, end: 6, durable: true },
      { start: 6, end: 7, durable: false },
    ]);
  });

  it('is one segment without waits, none for an empty flow, and starts where a resumed run starts', () => {
    expect(testCaseSegments([api('a'), api('b')])).to.deep.equal([{ start: 0, end: 2, durable: false }]);
    expect(testCaseSegments([])).to.deep.equal([]);
    const flow = [api('a'), wait('w'), api('b'), api('c')];
    expect(testCaseSegments(flow, 2)).to.deep.equal([{ start: 2, end: 4, durable: false }]);
    expect(testCaseSegments(flow, 1)).to.deep.equal([
      { start: 1, end: 2, durable: true },
      { start: 2, end: 4, durable: false },
    ]);
    expect(testCaseSegments(flow, 4)).to.deep.equal([]);
  });
});
