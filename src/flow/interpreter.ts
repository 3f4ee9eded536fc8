/**
 * The flow interpreter: runs one test case's tree of nodes and says what happened.
 *
 * Every effect goes through its {@link InterpreterPort} (activities, timers, the clock: in the
 * workflow, durable steps; in an activity, plain calls) and every user expression through the
 * guarded JSONata evaluator. Nothing here throws for a user mistake: a bad expression, an
 * unreachable host, a failing script or a failed assertion is a failed node with its reason. Only
 * the run's deadline ({@link DeadlineReached}) and cancellation stop a test case midway.
 *
 * Expressions (IF conditions, `while`, `breakCondition`, `items`, Context values, Wait
 * expressions, assertion targets) see (docs/flows.md):
 *
 *   { variables, nodes: { <id>: { request, response } }, loop: <innermost loop>,
 *     loops: { <loop node id>: { index, iteration, item } }, testCase: { id, name },
 *     response (assertions only) }
 *
 * Templates (`{{name}}`) see the variables plus the innermost loops' `index`, `iteration` and item.
 *
 * The node handlers live beside it (api-node.ts, script-node.ts, control-nodes.ts, wait-node.ts,
 * context-node.ts, loop.ts, ref-node.ts; the async nodes of docs/async.md: callback-node.ts,
 * poll-node.ts, stream-node.ts, grpc-node.ts) and use the state and helpers of {@link FlowBase} (flow-base.ts), which
 * this class extends with the dispatch, so that no handler imports the interpreter. In a workflow, the order of their awaits is
 * the order of the workflow's commands (Parallel lanes interleave by it): keep it as recorded
 * (test/integration/runs/replay.test.ts).
 */
import type { FlowState, LoopSegmentOutput } from './types';
import { emptyState } from './types';
import type { InterpreterPort } from './port';
import type { TestCaseAuth } from '../domain/auth-profiles';
import { FlowBase } from './flow-base';
import type {
  FlowNode,
  IterationNode,
  LoopNode,
  NodeResult,
  TestCaseDefinition,
  TestCaseResult,
} from '../domain/types';
import { runApiNode } from './api-node';
import { runIfNode, runParallelNode } from './control-nodes';
import { runContextNode } from './context-node';
import { runLoopIterations, runLoopNode } from './loop';
import { runScriptNode } from './script-node';
import { runWaitNode } from './wait-node';
import { runAssertNode } from './assert-node';
import { outerHooksOf } from './hooks';
import { runRefNode, withChainMessages } from './ref-node';
import { runCallbackNode } from './callback-node';
import { runPollNode } from './poll-node';
import { runStreamNode } from './stream-node';
import { runGrpcNode } from './grpc-node';
import { runMockVerifyNode } from './mock-verify-node';
import { ranInOrigin, resumedState, resumePoint, snapshot, type ResumeOptions } from './resume';
import { testCaseSegments } from './segments';
import { DeadlineReached } from './types';
import { nodePath } from './execution-id';
import { captureNode, fitDebugCaptures } from './debug';

/** Runs flows of one test case over a port; `state` is what the nodes run so far left. */
export class FlowInterpreter extends FlowBase {
  /** Runs a test case's flow and builds its result. Throws only DeadlineReached (or a cancellation). */
  static async runTestCase(
    port: InterpreterPort,
    testCase: TestCaseDefinition,
    variables: Record<string, unknown>,
    auth?: TestCaseAuth,
    resume?: ResumeOptions,
    position?: number,
  ): Promise<TestCaseResult> {
    return (await FlowInterpreter.runTestCaseWithVariables(port, testCase, variables, auth, resume, position)).result;
  }

  /**
   * {@link runTestCase}, also answering the variables the test case ended with (what the next test
   * case starts from when the run's test cases share their variables: RunPlan `variableScope`).
   *
   * With `resume` (the run workflow's; src/flow/resume.ts): `resume.capture.point` is filled with
   * the state before the first failed top-level node, and with `resume.from` the flow starts at
   * that top-level node with that state (the nodes before it are listed as skipped: they ran in
   * the origin run). Either way each top-level node is awaited exactly as {@link runNodes} does.
   *
   * `position`: the test case's place in the run's plan (node execution ids, execution-id.ts).
   */
  static async runTestCaseWithVariables(
    port: InterpreterPort,
    testCase: TestCaseDefinition,
    variables: Record<string, unknown>,
    auth?: TestCaseAuth,
    resume?: ResumeOptions,
    position?: number,
  ): Promise<{ result: TestCaseResult; variables: Record<string, unknown> }> {
    const outerHooks = outerHooksOf(testCase);
    const flow = new FlowInterpreter(
      port,
      {
        id: testCase.id,
        name: testCase.name,
        ...(position !== undefined ? { position } : {}),
        dataSets: testCase.dataSets,
        ...(outerHooks ? { outerHooks } : {}),
        ...(auth ? { auth } : {}),
      },
      resume?.from ? resumedState(resume.from) : emptyState(variables),
      [],
      testCase.flow,
    );
    // The `testCase` durability mode (src/flow/segments.ts): only a port that offers segments has it.
    const nodes = await (port.runTestCaseSegment
      ? flow.runInSegments(testCase.flow, resume ?? {})
      : resume
        ? flow.runTopLevel(testCase.flow, resume)
        : flow.runNodes(testCase.flow));
    const duration = Math.round(nodes.reduce((ms, n) => ms + n.duration, 0) * 10) / 10;
    const failed = nodes.some((n) => n.status === 'failed');
    const result: TestCaseResult = {
      testCaseId: testCase.id,
      name: testCase.name,
      status: failed ? 'failed' : 'passed',
      duration,
      assertions: flow.state.assertions,
      passedAssertions: flow.state.passedAssertions,
      failures: withChainMessages(testCase.name, flow.state.failures),
      nodes,
      ...(flow.attempts > 1 ? { attempts: flow.attempts } : {}),
    };
    // A debug run's captures within the result's cap, before the run caps anything else (debug.ts).
    return { result: port.debug ? fitDebugCaptures(result) : result, variables: flow.state.variables };
  }

  /**
   * Runs `nodes` one after the other inside `scope` (execution-id.ts); once the test case is
   * stopped (a failed Assert node), the rest are listed as skipped.
   */
  async runNodes(nodes: FlowNode[], scope = ''): Promise<NodeResult[]> {
    const results: NodeResult[] = [];
    for (const node of nodes) results.push(this.state.stopped ? this.notRun(node) : await this.runNode(node, scope));
    return results;
  }

  /**
   * A test case's own flow, as {@link runNodes} runs it (one await per node, in order), with its
   * resume points (src/flow/resume.ts): from `resume.from.nodeIndex` on when resuming, the nodes
   * before listed as skipped; the state before each node copied until one fails, whose point is
   * put in `resume.capture`.
   */
  async runTopLevel(nodes: FlowNode[], resume: ResumeOptions): Promise<NodeResult[]> {
    const from = resume.from;
    const start = from ? Math.min(from.nodeIndex, nodes.length) : 0;
    const results: NodeResult[] = nodes.slice(0, start).map((node) => ranInOrigin(node, from!.runId));
    results.push(...(await this.runRange(nodes, start, nodes.length, resume.capture)));
    return results;
  }

  /**
   * Top-level nodes `[start, end)` of a test case's flow, one await per node, in order (as
   * {@link runTopLevel}): the state before each copied until one fails, whose resume point is put
   * in `capture` (when given and still empty). `onTopLevelDone` is called after each node with its
   * index (the activity segment's checkpoints, activities/test-case.ts).
   */
  async runRange(
    nodes: FlowNode[],
    start: number,
    end: number,
    capture: ResumeOptions['capture'],
    onTopLevelDone?: (index: number, result: NodeResult) => void,
  ): Promise<NodeResult[]> {
    const results: NodeResult[] = [];
    for (let i = start; i < end; i++) {
      const node = nodes[i]!;
      const before = capture && !capture.point && !this.state.stopped ? snapshot(this.state) : undefined;
      const result = this.state.stopped ? this.notRun(node) : await this.runNode(node);
      results.push(result);
      if (before && result.status === 'failed') capture!.point = resumePoint(i, node, before);
      onTopLevelDone?.(i, result);
    }
    return results;
  }

  /** Attempts the test case took (1 + its activity segments' retries; the `testCase` durability mode). */
  attempts = 1;

  /**
   * A test case's own flow in the `testCase` durability mode (src/flow/segments.ts): each activity
   * segment through the port's `runTestCaseSegment` (one durable step), each node that waits here
   * through the port, node by node ({@link runRange}); the state handed from one to the next. Resume
   * points as {@link runTopLevel}. Throws DeadlineReached when a segment was cut by the deadline.
   */
  async runInSegments(nodes: FlowNode[], resume: ResumeOptions): Promise<NodeResult[]> {
    const from = resume.from;
    const start = from ? Math.min(from.nodeIndex, nodes.length) : 0;
    const results: NodeResult[] = nodes.slice(0, start).map((node) => ranInOrigin(node, from!.runId));
    const segments = testCaseSegments(nodes, start);
    for (const [k, segment] of segments.entries()) {
      if (segment.durable || this.state.stopped) {
        results.push(...(await this.runRange(nodes, segment.start, segment.end, resume.capture)));
        continue;
      }
      const capture = Boolean(resume.capture && !resume.capture.point);
      const out = await this.port.runTestCaseSegment!(
        {
          testCase: this.testCase,
          flow: nodes,
          start: segment.start,
          end: segment.end,
          state: this.state,
          capture,
          more: k < segments.length - 1,
        },
        this.summary(segmentSummary(this.testCase.name, nodes, segment.start, segment.end)),
      );
      if (!out) {
        results.push(...(await this.runRange(nodes, segment.start, segment.end, resume.capture)));
        continue;
      }
      this.state = out.state;
      this.attempts += out.attempt - 1;
      if (capture && out.capture) resume.capture!.point = out.capture;
      results.push(...out.nodes);
      if (out.deadlineReached) throw new DeadlineReached();
    }
    return results;
  }

  /**
   * Runs one node (and its children) between the port's `beforeNode` and `afterNode`; `scope` is
   * the path of what it is inside (execution-id.ts), its own path that and its id.
   */
  async runNode(node: FlowNode, scope = ''): Promise<NodeResult> {
    // Switched off: nothing of it runs, no step, no progress (src/flow/estimate.ts counts it not).
    if (node.disabled === true) return this.disabledResult(node);
    this.port.beforeNode();
    const path = nodePath(scope, node.id);
    let result: NodeResult;
    switch (node.type) {
      case 'api':
        result = await runApiNode(this, node, path);
        break;
      case 'if':
        result = await runIfNode(this, node, path);
        break;
      case 'loop':
      case 'iteration':
        result = await runLoopNode(this, node, path);
        break;
      case 'script':
        result = await runScriptNode(this, node, path);
        break;
      case 'wait':
        result = await runWaitNode(this, node);
        break;
      case 'context':
        result = await runContextNode(this, node);
        break;
      case 'parallel':
        result = await runParallelNode(this, node, path);
        break;
      case 'assert':
        result = await runAssertNode(this, node);
        break;
      case 'ref':
        result = await runRefNode(this, node, path);
        break;
      case 'callback':
        result = await runCallbackNode(this, node);
        break;
      case 'poll':
        result = await runPollNode(this, node, path);
        break;
      case 'websocket':
      case 'sse':
        result = await runStreamNode(this, node, path);
        break;
      case 'grpc':
        result = await runGrpcNode(this, node, path);
        break;
      case 'mockVerify':
        result = await runMockVerifyNode(this, node);
        break;
      default: {
        const unknown = node as { id?: string; type?: string };
        result = this.fail(
          { id: String(unknown.id), type: 'api', status: 'failed', duration: 0 },
          `Node type "${String(unknown.type)}" is not supported by this worker`,
        );
      }
    }
    // A debug run: the variables after the node, its capture held to the test case's budget (debug.ts).
    if (this.capturing) captureNode(result, this.state);
    else if (result.debug) delete result.debug;
    await this.port.afterNode();
    return result;
  }

  /** An interpreter for a sub-flow (ref-node.ts): same port and test case, its own state, `name` added to the chain. */
  subFlow(state: FlowState, name: string, flow?: FlowNode[]): FlowInterpreter {
    return new FlowInterpreter(this.port, this.testCase, state, [...this.chain, name], flow);
  }

  /**
   * Runs loop iterations `start`… of a Loop or Iteration node at `path` (see loop.ts); the loop
   * segment workflow starts here.
   */
  runLoopIterations(
    node: LoopNode | IterationNode,
    start: number,
    items: unknown[] | undefined,
    kept: number,
    path: string,
  ): Promise<LoopSegmentOutput> {
    return runLoopIterations(this, node, start, items, kept, path);
  }
}

/**
 * The Web UI's summary of an activity segment: `login: 12 nodes: get token, get user, post order, …`
 * (node names, else ids; the caller cuts it to 200 characters).
 */
function segmentSummary(testCase: string, nodes: FlowNode[], start: number, end: number): string {
  const names = nodes.slice(start, end).map((n) => n.name ?? n.id);
  const count = end - start;
  return `${testCase}: ${count} node${count === 1 ? '' : 's'}: ${names.join(', ')}`;
}
