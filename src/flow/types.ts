/**
 * The flow interpreter's types: its serialisable state, what a finished node leaves for later
 * expressions, the loop stack, failures, the input and output of a loop continued in a child
 * workflow, and the one error that stops a test case midway ({@link DeadlineReached}).
 */
import type { OuterHook } from '../domain/node-io';
import type { TestCaseAuth } from '../domain/auth-profiles';
import type {
  IterationNode,
  IterationResult,
  LoopNode,
  NodeResult,
  RunSettings,
  TestCaseFailure,
} from '../domain/types';

/** Thrown between nodes (and by a wait or a request cut short) once the run's deadline has passed. */
export class DeadlineReached extends Error {
  constructor() {
    super('deadline reached');
    this.name = 'DeadlineReached';
  }
}

/** What a finished node left for later expressions (`nodes.<id>`). */
export interface NodeContext {
  request: { method: string; url: string; headers?: Record<string, string>; body?: unknown };
  response: { status?: number; headers: Record<string, string>; body?: unknown; time: number; size: number };
  /** Callback nodes: every matching callback received (`request` is the last). */
  callbacks?: unknown[];
  /** WebSocket and SSE nodes: the messages kept (their `data`), in order. */
  messages?: unknown[];
  /** gRPC nodes: the trailing metadata. */
  trailers?: Record<string, string>;
  /** Poll nodes: attempts made. */
  attempts?: number;
}

/** One level of the loop stack. */
export interface LoopFrame {
  nodeId: string;
  index: number;
  iteration: number;
  item?: unknown;
  /** Name of the item in templates (Iteration nodes). */
  as?: string;
}

/** The interpreter's state: serialisable, so a loop can continue in a child workflow. */
export interface FlowState {
  variables: Record<string, unknown>;
  nodes: Record<string, NodeContext>;
  loops: LoopFrame[];
  assertions: number;
  passedAssertions: number;
  failures: TestCaseFailure[];
  /**
   * Set when an Assert node without `continueOnFailure` failed (src/flow/assert-node.ts): the reason
   * the test case's remaining nodes are listed as skipped instead of run. Absent otherwise (states
   * in recorded histories have none).
   */
  stopped?: string;
  /**
   * Debug runs only (InterpreterPort `debug`): bytes of JSON the test case's debug captures took so
   * far, against DEBUG_TEST_CASE_LIMIT (src/flow/debug.ts). Absent in every other run.
   */
  debugBytes?: number;
}

/** Input of a child workflow that runs the rest of a loop. */
export interface LoopSegmentInput {
  runId: string;
  settings: RunSettings;
  deadlineMs: number;
  /** The run's servers (InterpreterPort `servers`); absent when the plan has none. */
  servers?: Record<string, string>;
  /** The run's mock scope (InterpreterPort `mockScope`); absent when the plan has none. */
  mockScope?: { workspaceId: string; scope: string };
  testCase: {
    id: string;
    name: string;
    /** The test case's place in the run's plan, from 0 (node execution ids, src/flow/execution-id.ts); absent in inputs recorded before them (0). */
    position?: number;
    dataSets: Record<string, unknown[]>;
    /**
     * The hooks around the test case's API nodes besides their own, outermost first (the test
     * case's, then its folders' from the outermost): absent when there are none.
     */
    outerHooks?: OuterHook[];
    /** The auth profiles of the test case's run (absent when it uses none). */
    auth?: TestCaseAuth;
  };
  node: LoopNode | IterationNode;
  /** Index of the first iteration to run. */
  start: number;
  /** The Iteration node's items, evaluated by the parent. */
  items?: unknown[];
  /** Iteration results the parent keeps already (the child keeps at most the rest). */
  kept: number;
  state: FlowState;
  /** Inside a sub-flow: the Ref nodes' names, outermost first (FlowBase `chain`); absent otherwise. */
  chain?: string[];
  /** The loop node's path in the test case's tree (src/flow/execution-id.ts); absent in inputs recorded before it (the node's id). */
  path?: string;
  /** The run's callback address base and key (RunPlan `callbacks`), for Callback nodes in the loop; absent without them. */
  callbacks?: { baseUrl: string; key: string };
  /** A debug run (InterpreterPort `debug`): the child captures as its parent does; absent otherwise. */
  debug?: true;
}

/** What a run of loop iterations (in this workflow or a child) did. */
export interface LoopSegmentOutput {
  state: FlowState;
  iterations: number;
  failedIterations: number;
  stoppedBy: NonNullable<NodeResult['stoppedBy']>;
  error?: string;
  iterationResults: IterationResult[];
  omittedIterations: number;
}

/** The state a test case starts with: its variables (copied), nothing else. */
export function emptyState(variables: Record<string, unknown>): FlowState {
  return { variables: { ...variables }, nodes: {}, loops: [], assertions: 0, passedAssertions: 0, failures: [] };
}
