/**
 * The interpreter's port: everything it may use from the outside world. Two adapters implement it:
 *
 * - the workflow port (workflows/workflow-port.ts `createWorkflowPort`): every effect is a durable
 *   step of the run workflow or its loop segment workflow (local or normal activities, durable
 *   timers, checkpoints), time is the deterministic workflow clock moved forward by activities'
 *   readings, long loops continue in child workflows and the work of one workflow task is metered;
 * - the direct port (activities/direct-port.ts `directPorts`): plain in-process async calls through
 *   the same node implementation as the activities (activities/nodes.ts), real timers and the real
 *   clock, loops always inline; for running flows many times inside one activity (load tests).
 *
 * Members are called without their object (`port.evaluate` is passed on as a function), so they
 * must not rely on `this`.
 */
import type { DynamicSources } from '../domain/templating';
import type { RunSettings } from '../domain/types';
import type { ApiNodeInput, ApiNodeOutput, ScriptNodeInput, ScriptNodeOutput } from '../domain/node-io';
import type { LoopSegmentInput, LoopSegmentOutput } from './types';
import type { CallbackPort } from '../domain/callbacks';
import type { StreamNodeInput, StreamNodeOutput } from '../domain/stream-io';
import type { GrpcCallInput, GrpcCallOutput } from '../domain/grpc-io';
import type { RunWaiting } from '../domain/run-workflow';
import type { MockVerifyInput, MockVerifyOutput } from '../domain/mock-verify-io';
import type { TestCaseSegmentOutput, TestCaseSegmentRequest } from './segments';

export interface InterpreterPort {
  /** The run the flow belongs to (scripts' contexts are per run and test case). */
  runId: string;
  settings: RunSettings;
  /** Sources of `{{$uuid}}`, `{{$timestamp}}` and the like in templates (deterministic in a workflow). */
  dynamic: DynamicSources;
  /** Epoch ms by which the test case must end. */
  deadlineMs: number;
  /**
   * The run's servers, name → base URL (RunPlan `servers`; src/flow/servers.ts); undefined for a
   * plan frozen before servers existed, whose requests are filled as they always were.
   */
  servers?: Readonly<Record<string, string>>;
  /**
   * The run's mock scope (RunPlan `mockScope`) and its workspace: API and Poll nodes send
   * `X-Assay-Mock-Scope` to the workspace's mock URLs (src/flow/api-node.ts `withMockScope`).
   * Absent for plans without it.
   */
  mockScope?: { workspaceId: string; scope: string };
  /**
   * The run's workspace (RunPlan `workspaceId`), whose files requests' `multipart` and `file` name
   * (docs/flows.md "Files"); absent: `mockScope`'s workspace is used (load tests' ports set this,
   * their stored plan has no mock scope).
   */
  workspaceId?: string;
  /**
   * True: the inputs of API, Poll, Script, WebSocket, SSE and gRPC nodes carry their node execution
   * id (`execution`, src/flow/execution-id.ts): a run's ports (the workflow port, a `testCase`-mode
   * segment's direct port). Absent: no id is made (load tests' virtual users).
   */
  executionIds?: boolean;
  /**
   * True in a debug run (RunPlan `debug`): every node's result gets NodeResult `debug`, what the
   * designer shows (src/flow/debug.ts). Absent: nothing is captured, nothing costs.
   */
  debug?: boolean;
  /** Epoch ms now: the workflow's clock moved forward by activities' readings, or `Date.now()`. */
  now(): number;
  /**
   * Executes an API node (hooks, request with retries). Returns failures as data; throws
   * {@link DeadlineReached} when the request was cut short by the deadline. `summary` labels the
   * step (Temporal Web UI).
   */
  executeApiNode(input: ApiNodeInput, summary: string): Promise<ApiNodeOutput>;
  /** Runs a Script node in the sandbox. Returns failures as data (`ok: false`). */
  runScript(input: ScriptNodeInput, summary: string): Promise<ScriptNodeOutput>;
  /**
   * Evaluates a user expression with the guarded evaluator (src/domain/expressions.ts): with the
   * small step budget first, one that needs more on the heavy-expression path. Throws ExpressionError.
   */
  evaluate(expression: string, input: unknown): Promise<unknown>;
  /** Waits `ms` (a durable timer, or a real one). */
  sleep(ms: number, summary: string): Promise<void>;
  /** Events in the current workflow execution's history (0 where there is none: loops never segment). */
  historyLength(): number;
  /** Runs the rest of a loop elsewhere (a child workflow); only called when {@link historyLength} exceeds `settings.segmentHistoryEvents`. */
  runLoopSegment(input: LoopSegmentInput): Promise<LoopSegmentOutput>;
  /** Called before each node; throws {@link DeadlineReached} past the deadline. */
  beforeNode(): void;
  /** Called after each node: progress, checkpoints, and a yield when the task's work budget is spent. */
  afterNode(): Promise<void>;
  /**
   * Called after each loop iteration: counts its work; returns a promise (to await) only when the
   * workflow task yields, so iterations add no await otherwise (command order stays as recorded).
   * May reject with {@link DeadlineReached}.
   */
  afterIteration?(): Promise<void> | undefined;
  /**
   * A finished step as one line for people (`get user: GET http://…/users/1 → 200 · 4 ms`,
   * `IF response.status = 200 → then`): the workflow port shows the latest in the run's current
   * details in the Temporal Web UI; optional (the direct port has nobody to show them to).
   */
  recordStep?(line: string): void;
  /**
   * Callback nodes' addresses and waits (src/domain/callbacks.ts); absent where callbacks cannot
   * arrive (the direct port): a Callback node then fails saying so.
   */
  callbacks?: CallbackPort;
  /**
   * Tells the run what a node is waiting for (a Callback node, a Poll node between attempts), or
   * `undefined` once it no longer waits: the run's live state shows it (RunLiveState `waiting`).
   * Optional; no workflow command (the direct port has nobody to show it to).
   */
  setWaiting?(waiting: RunWaiting | undefined): void;
  /** Runs a WebSocket or SSE node's connection (an activity, or a plain call). Returns failures as data. */
  runStream?(input: StreamNodeInput, summary: string): Promise<StreamNodeOutput>;
  /** Makes a gRPC node's call (an activity, or a plain call). Returns failures as data. */
  callGrpc?(input: GrpcCallInput, summary: string): Promise<GrpcCallOutput>;
  /**
   * Reads the mock journal for a mockVerify node (src/mock/journal.ts `verifyJournal`): an activity
   * in a run (only this node's path schedules it), a plain call in the direct port. Absent where
   * the store cannot be reached: the node then fails saying so. Returns failures as data (`error`).
   */
  verifyMocks?(input: MockVerifyInput, summary: string): Promise<MockVerifyOutput>;
  /**
   * Runs top-level nodes of a test case in one durable step (the `testCase` durability mode,
   * src/flow/segments.ts): present only in the workflow port of a run whose plan says
   * `durability: 'testCase'`; the interpreter then splits each test case into segments. Absent:
   * every node runs through this port. Resolves `undefined` when the segment cannot be one step
   * (its input over the payload cap): the interpreter then runs its nodes through this port.
   */
  runTestCaseSegment?(request: TestCaseSegmentRequest, summary: string): Promise<TestCaseSegmentOutput | undefined>;
  /**
   * A port for one lane of a Parallel node, called when the lanes start: the workflow port gives
   * each lane a clock and a random source of its own, so that nothing a lane decides depends on when
   * other lanes' steps finished (workflows/workflow-port.ts `createWorkflowPort`). Absent, or
   * undefined: lanes use this port.
   */
  lane?(): InterpreterPort | undefined;
  /** Called when a Parallel node's lanes have all ended, with their ports: this port's clock moves to the latest. */
  joinLanes?(lanes: InterpreterPort[]): void;
}
