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
 * context-node.ts, loop.ts) and use the helpers below. In a workflow, the order of their awaits is
 * the order of the workflow's commands (Parallel lanes interleave by it): keep it as recorded
 * (test/integration/replay.test.ts).
 */
import type { Failure, FlowState, LoopFrame, LoopSegmentInput, LoopSegmentOutput } from './types';
import { emptyState } from './types';
import type { InterpreterPort } from './port';
import type { TemplateVariables } from '../domain/templating';
import type { FlowNode, IterationNode, LoopNode, NodeResult, TestCaseDefinition, TestCaseResult } from '../domain/types';
import { runApiNode } from './api-node';
import { runIfNode, runParallelNode } from './control-nodes';
import { runContextNode } from './context-node';
import { runIterations, runLoopNode } from './loop';
import { runScriptNode } from './script-node';
import { runWaitNode } from './wait-node';

/** Failures kept per test case. */
const KEPT_FAILURES = 200;
/** Decisions kept to prefix the next activity's summary ({@link FlowInterpreter.note}). */
const KEPT_NOTES = 3;

/** Runs flows of one test case over a port; `state` is what the nodes run so far left. */
export class FlowInterpreter {
  /** Decisions (IF branches) since the last activity, shown before its summary in the Web UI's timeline. */
  private notes: string[] = [];

  constructor(
    readonly port: InterpreterPort,
    readonly testCase: LoopSegmentInput['testCase'],
    public state: FlowState,
  ) {}

  /** Runs a test case's flow and builds its result. Throws only DeadlineReached (or a cancellation). */
  static async runTestCase(port: InterpreterPort, testCase: TestCaseDefinition, variables: Record<string, unknown>): Promise<TestCaseResult> {
    const flow = new FlowInterpreter(port, { id: testCase.id, name: testCase.name, dataSets: testCase.dataSets }, emptyState(variables));
    const nodes = await flow.runNodes(testCase.flow);
    const duration = Math.round(nodes.reduce((ms, n) => ms + n.duration, 0) * 10) / 10;
    const failed = nodes.some((n) => n.status === 'failed');
    return {
      testCaseId: testCase.id,
      name: testCase.name,
      status: failed ? 'failed' : 'passed',
      duration,
      assertions: flow.state.assertions,
      passedAssertions: flow.state.passedAssertions,
      failures: flow.state.failures,
      nodes,
    };
  }

  /** Runs `nodes` one after the other. */
  async runNodes(nodes: FlowNode[]): Promise<NodeResult[]> {
    const results: NodeResult[] = [];
    for (const node of nodes) results.push(await this.runNode(node));
    return results;
  }

  /** Runs one node (and its children) between the port's `beforeNode` and `afterNode`. */
  async runNode(node: FlowNode): Promise<NodeResult> {
    this.port.beforeNode();
    let result: NodeResult;
    switch (node.type) {
      case 'api':
        result = await runApiNode(this, node);
        break;
      case 'if':
        result = await runIfNode(this, node);
        break;
      case 'loop':
      case 'iteration':
        result = await runLoopNode(this, node);
        break;
      case 'script':
        result = await runScriptNode(this, node);
        break;
      case 'wait':
        result = await runWaitNode(this, node);
        break;
      case 'context':
        result = await runContextNode(this, node);
        break;
      case 'parallel':
        result = await runParallelNode(this, node);
        break;
      default: {
        const unknown = node as { id?: string; type?: string };
        result = this.fail({ id: String(unknown.id), type: 'api', status: 'failed', duration: 0 }, `Node type "${String(unknown.type)}" is not supported by this worker`);
      }
    }
    await this.port.afterNode();
    return result;
  }

  /** Runs iterations `start`… of a Loop or Iteration node (see loop.ts); the loop segment workflow starts here. */
  runIterations(node: LoopNode | IterationNode, start: number, items: unknown[] | undefined, kept: number): Promise<LoopSegmentOutput> {
    return runIterations(this, node, start, items, kept);
  }

  // --- helpers of the node handlers --------------------------------------------------------------

  /** What expressions see (see the module comment). */
  expressionInput(extra: Record<string, unknown> = {}): Record<string, unknown> {
    const loops: Record<string, LoopFrame> = {};
    for (const frame of this.state.loops) loops[frame.nodeId] = frame;
    return {
      variables: this.state.variables,
      nodes: this.state.nodes,
      loop: this.state.loops[this.state.loops.length - 1],
      loops,
      testCase: { id: this.testCase.id, name: this.testCase.name },
      ...extra,
    };
  }

  /** Variables as templates see them: the innermost loops' names win. */
  templateVariables(): TemplateVariables {
    const vars: TemplateVariables = { ...this.state.variables };
    for (const frame of this.state.loops) {
      vars.index = frame.index;
      vars.iteration = frame.iteration;
      if (frame.as) vars[frame.as] = frame.item;
    }
    return vars;
  }

  /** Evaluates `expression` against {@link expressionInput}. Throws ExpressionError. */
  evaluate(expression: string): Promise<unknown> {
    return this.port.evaluate(expression, this.expressionInput());
  }

  /** Marks `result` failed with `message` and lists the failure. */
  fail(result: NodeResult, message: string, extra: Partial<Failure> = {}): NodeResult {
    result.status = 'failed';
    result.error = message;
    this.addFailure({ node: result.id, message, ...extra });
    return result;
  }

  /** Lists a failure (the first {@link KEPT_FAILURES} of a test case are kept). */
  addFailure(failure: Failure): void {
    if (this.state.failures.length < KEPT_FAILURES) this.state.failures.push(failure);
  }

  /**
   * Records a decision that has no durable step of its own (an IF branch): a step line for the
   * port, and a prefix of the next activity's summary, so the Web UI's timeline reads
   * `IF response.status = 200 → then ▸ get user: GET …`.
   */
  note(line: string): void {
    this.notes.push(line);
    if (this.notes.length > KEPT_NOTES) this.notes.shift();
    this.port.recordStep?.(line);
  }

  /** The summary of an activity (Temporal Web UI, at most 200 characters): the pending notes, then `what`. */
  summary(what: string): string {
    const text = this.notes.length ? `${this.notes.join(' ▸ ')} ▸ ${what}` : what;
    this.notes = [];
    return text.length > 200 ? `${text.slice(0, 199)}…` : text;
  }

  /** A passed result of `node` with no duration yet. */
  base(node: FlowNode): NodeResult {
    return { id: node.id, ...(node.name ? { name: node.name } : {}), type: node.type, status: 'passed', duration: 0 };
  }

  /** What scripts see of the run, the test case and the innermost loop. */
  scope() {
    return { runId: this.port.runId, testCase: { id: this.testCase.id, name: this.testCase.name }, loop: this.state.loops[this.state.loops.length - 1] };
  }
}
