/**
 * Test case segments of the `testCase` durability mode (RunPlan `durability`; docs/durability.md
 * "Durability modes"): a test case's top-level nodes, split where a node waits.
 *
 * - A top-level node that is, or contains (in IF branches, loop bodies, Parallel lanes, Ref nodes'
 *   sub-flows), a Wait, Callback or Poll node is *durable*: it runs in the workflow as in the `node`
 *   mode, each of its nodes a durable step, so a wait of minutes is a Temporal timer (or signal) and
 *   holds no activity slot.
 * - Every other run of consecutive top-level nodes is one *activity segment*: one activity
 *   (activities/test-case.ts `runTestCaseSegment`) runs them through the direct port with the same
 *   interpreter, and hands the interpreter's state back for the next segment.
 *
 * Pure and deterministic: used inside workflow code.
 */
import type { FlowNode, NodeResult } from '../domain/types';
import type { FlowState, LoopSegmentInput } from './types';
import type { ResumePoint } from './resume';
import { childLists } from './tree';

/** Node types that wait for time or for the outside world. */
const WAITING_TYPES: ReadonlySet<FlowNode['type']> = new Set(['wait', 'callback', 'poll']);

/**
 * Whether `node` is, or contains (children, sub-flows), a Wait, Callback or Poll node that is not
 * switched off (NodeBase `disabled`: a disabled node waits for nothing, nor does anything under it).
 */
export function waitsDurably(node: FlowNode): boolean {
  if (node.disabled === true) return false;
  if (WAITING_TYPES.has(node.type)) return true;
  if (node.type === 'ref' && Array.isArray(node.flow) && node.flow.some(waitsDurably)) return true;
  return childLists(node).some((list) => list.nodes.some(waitsDurably));
}

/** A range of top-level nodes, `[start, end)`, and where it runs. */
export interface TestCaseSegment {
  start: number;
  end: number;
  /** True: in the workflow, node by node (a node that waits); false: in one activity. */
  durable: boolean;
}

/**
 * The segments of `flow` from top-level node `from` on, in order: each durable node alone, the
 * nodes between them together. Empty when `from` is past the end.
 */
export function testCaseSegments(flow: FlowNode[], from = 0): TestCaseSegment[] {
  const segments: TestCaseSegment[] = [];
  let start = from;
  for (let i = from; i < flow.length; i++) {
    if (!waitsDurably(flow[i]!)) continue;
    if (i > start) segments.push({ start, end: i, durable: false });
    segments.push({ start: i, end: i + 1, durable: true });
    start = i + 1;
  }
  if (start < flow.length) segments.push({ start, end: flow.length, durable: false });
  return segments;
}

/** What the interpreter asks the port to run in one activity segment (InterpreterPort `runTestCaseSegment`). */
export interface TestCaseSegmentRequest {
  /** The test case, as interpreters know it (id, name, data sets, outer hooks, auth). */
  testCase: LoopSegmentInput['testCase'];
  /** The test case's whole top-level flow (node indexes and callback addresses are the test case's). */
  flow: FlowNode[];
  /** Top-level nodes `[start, end)` of `flow` to run. */
  start: number;
  end: number;
  /** The interpreter's state before node `start`. */
  state: FlowState;
  /** Record the resume point of the first failed top-level node (src/flow/resume.ts). */
  capture: boolean;
  /** Whether another segment follows: the node outputs (`state.nodes`) are handed back only then. */
  more: boolean;
}

/** What one activity segment hands back. */
export interface TestCaseSegmentOutput {
  /** The results of top-level nodes `[start, end)`. */
  nodes: NodeResult[];
  /** The state after them; `nodes` (node outputs) is empty when no segment follows. */
  state: FlowState;
  /** Node executions run (children and loop iterations included), for progress. */
  nodesDone: number;
  /** The resume point of the first failed top-level node, when `capture` was asked. */
  capture?: ResumePoint;
  /** True when the run's deadline cut the segment short (the interpreter then throws DeadlineReached). */
  deadlineReached?: boolean;
  /** The activity attempt that finished (1: no retry). */
  attempt: number;
  /** The top-level node a retry resumed at, from the last checkpoint; absent when it started at `start`. */
  resumedAt?: number;
  /** The finished top-level nodes as lines for people (the run's details in the Temporal Web UI), last few. */
  steps: string[];
  /** Epoch ms when it finished (moves the workflow's clock). */
  finishedAtMs: number;
}
