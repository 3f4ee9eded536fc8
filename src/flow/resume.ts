/**
 * Resume points of a test case (docs/history.md "Resume"): the state before each top-level node of
 * its flow, of which the one before the first failed top-level node is kept with the result, and
 * the state a resumed run starts that node with.
 *
 * A snapshot is a shallow copy of the variables and of the node outputs (`nodes.<id>`): node
 * handlers replace those maps' entries (or the maps), they never change a value in place, so the
 * copy stays what it was. Pure and synchronous: taking one adds no command to a workflow (the
 * order of awaits in workflow code is the order of its commands, interpreter.ts).
 */
import type { FlowState, NodeContext } from './types';
import type { FlowNode, NodeResult, ResumeSnapshot, RunResumeFrom } from '../domain/types';
import { jsonBytes } from '../domain/limits';

/**
 * Bytes of JSON a resume state may take (variables and node outputs together): it goes into the
 * activity input that records the result (Temporal history) and into the resumed run's plan. Over
 * it the test case is not resumable, and says so.
 */
export const RESUME_STATE_BYTES = 256 * 1024;

/** The state before a failed test case's first failed top-level node, as recorded with its result. */
export interface ResumePoint {
  /** Index of the top-level node in the test case's `flow`. */
  nodeIndex: number;
  nodeId: string;
  /** The state before it; absent when it was over {@link RESUME_STATE_BYTES}. */
  state?: ResumeSnapshot;
  /** Bytes of JSON of the state (set when over the cap, to say by how much). */
  stateBytes?: number;
}

/** What a test case's run does about resume points (FlowInterpreter `runTestCase`). */
export interface ResumeOptions {
  /** A resumed run: start at this top-level node with this state. */
  from?: Pick<RunResumeFrom, 'runId' | 'nodeIndex' | 'nodeId' | 'state'>;
  /** Filled with the resume point of the test case's first failed top-level node, if one fails. */
  capture?: { point?: ResumePoint };
}

/** The state before a node, copied (see the module comment). */
export function snapshot(state: FlowState): ResumeSnapshot {
  return { variables: { ...state.variables }, nodes: { ...state.nodes } };
}

/** The resume point of node `index` from the state before it: the state kept, or only its size when over the cap. */
export function resumePoint(index: number, node: FlowNode, before: ResumeSnapshot): ResumePoint {
  const bytes = jsonBytes(before);
  if (bytes > RESUME_STATE_BYTES) return { nodeIndex: index, nodeId: node.id, stateBytes: bytes };
  return { nodeIndex: index, nodeId: node.id, state: before };
}

/** The state a resumed test case starts its node with: the recorded variables and node outputs, nothing counted yet. */
export function resumedState(from: NonNullable<ResumeOptions['from']>): FlowState {
  const state = from.state ?? { variables: {}, nodes: {} };
  return {
    variables: { ...state.variables },
    nodes: { ...(state.nodes as Record<string, NodeContext>) },
    loops: [],
    assertions: 0,
    passedAssertions: 0,
    failures: [],
  };
}

/** The result of a top-level node before the resume point: not run here, it ran in the origin run. */
export function ranInOrigin(node: FlowNode, originRunId: string): NodeResult {
  return {
    id: node.id,
    ...(node.name ? { name: node.name } : {}),
    type: node.type,
    status: 'skipped',
    duration: 0,
    reason: `resumed: ran in run ${originRunId}`,
  };
}
