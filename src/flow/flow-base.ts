/**
 * What every node handler of the flow interpreter works with: the port, the test case, the state
 * the nodes run so far left, and the helpers below (expressions, templates, failures, the Web UI's
 * summaries). {@link FlowInterpreter} (interpreter.ts) extends it with the dispatch of node types;
 * the handlers (api-node.ts, script-node.ts, …) take a `FlowBase`, so none imports the interpreter.
 */
import type { FlowState, LoopFrame, LoopSegmentInput } from './types';
import type { Assertion, AssertionResult, FlowNode, NodeResult, TestCaseFailure } from '../domain/types';
import type { InterpreterPort } from './port';
import type { TemplateVariables } from '../domain/templating';
import { preview } from '../domain/assertions';
import { jsonBytes, overCapMessage, PAYLOAD_LIMITS } from '../domain/limits';
import { callbackKey } from '../domain/callback-address';
import { forEachNode } from './tree';
import { executionId } from './execution-id';

/** Failures kept per test case (the load engine keeps its own, fewer: src/perf). */
export const KEPT_TEST_CASE_FAILURES = 200;
/** Decisions kept to prefix the next activity's summary ({@link FlowBase.note}). */
const KEPT_NOTES = 3;

/** The state and helpers of one test case's run; subclasses add the dispatch (`runNode`). */
export abstract class FlowBase {
  /** Decisions (IF branches) since the last activity, shown before its summary in the Web UI's timeline. */
  private notes: string[] = [];

  /**
   * `callback` in templates when the flow has Callback nodes (docs/async.md "Callbacks"):
   * `{url, <nodeId>: {url}}`, `url` being the first Callback node's (document order). Undefined
   * otherwise, so flows without Callback nodes template exactly as before.
   */
  private readonly callbackVariables?: Record<string, unknown>;

  /**
   * @param chain the names of the Ref nodes this flow runs inside, outermost first (empty for a
   *   test case's own flow): the prefix of its step lines and summaries (`login › get token: …`).
   * @param flow the nodes of this flow (a test case's, a sub-flow's, a loop segment's loop), whose
   *   Callback nodes' addresses templates see as `{{callback.url}}` and `{{callback.<nodeId>.url}}`
   */
  constructor(
    readonly port: InterpreterPort,
    readonly testCase: LoopSegmentInput['testCase'],
    public state: FlowState,
    readonly chain: readonly string[] = [],
    flow?: FlowNode[],
  ) {
    const callbacks = port.callbacks;
    if (!flow || !callbacks) return;
    const vars: Record<string, unknown> = {};
    forEachNode(flow, (node) => {
      if (node.type !== 'callback' || vars[node.id] !== undefined) return;
      const url = callbacks.url(this.callbackKey(node.id));
      vars.url ??= url;
      vars[node.id] = { url };
    });
    if (vars.url !== undefined) this.callbackVariables = vars;
  }

  /** The key of this flow's Callback node `nodeId` within the run (src/domain/callback-address.ts). */
  callbackKey(nodeId: string): string {
    return callbackKey(this.testCase.id, this.chain, nodeId);
  }

  /**
   * Runs one node (and its children) between the port's `beforeNode` and `afterNode`. `scope` is
   * the path of what the node is inside (src/flow/execution-id.ts; `''` at the test case's top level).
   */
  abstract runNode(node: FlowNode, scope?: string): Promise<NodeResult>;

  /** An interpreter for a sub-flow (Ref nodes, ref-node.ts): the same port and test case, its own `state`, `name` added to the chain; `flow` its nodes. */
  abstract subFlow(state: FlowState, name: string, flow?: FlowNode[]): FlowBase;

  /** Runs `nodes` one after the other, inside `scope` (as {@link runNode}). */
  abstract runNodes(nodes: FlowNode[], scope?: string): Promise<NodeResult[]>;

  /**
   * The node execution id of the node at `path` in this test case (src/flow/execution-id.ts), for
   * its activity's input (`execution`); undefined when the port makes none (load tests).
   */
  executionId(path: string): string | undefined {
    return this.port.executionIds ? executionId(this.port.runId, this.testCase.position ?? 0, path) : undefined;
  }

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
    if (this.callbackVariables) vars.callback = this.callbackVariables;
    return vars;
  }

  /**
   * An interpreter for one lane of a Parallel node (control-nodes.ts): this one over the port's
   * lane port (InterpreterPort `lane`), the same test case and chain, reading and writing this
   * one's `state`; this interpreter itself when the port has no lanes of its own.
   */
  forLane(): FlowBase {
    const port = this.port.lane?.();
    if (!port) return this;
    const lane = Object.create(this) as FlowBase;
    Object.defineProperty(lane, 'port', { value: port });
    Object.defineProperty(lane, 'state', {
      get: () => this.state,
      set: (state: FlowState) => {
        this.state = state;
      },
    });
    return lane;
  }

  /**
   * Above 0 while the nodes run make results nobody keeps (the iterations of a loop past
   * KEPT_ITERATIONS, loop.ts): a debug run captures nothing for them. Per lane (a lane made by
   * {@link forLane} counts its own from its parent's).
   */
  debugPaused = 0;

  /** Whether node results get a debug capture now: a debug run's port (InterpreterPort `debug`), not {@link debugPaused}. */
  get capturing(): boolean {
    return this.port.debug === true && this.debugPaused === 0;
  }

  /** Evaluates `expression` against {@link expressionInput}. Throws ExpressionError. */
  evaluate(expression: string): Promise<unknown> {
    return this.port.evaluate(expression, this.expressionInput());
  }

  /**
   * Why `value` cannot be a variable's value (Context nodes' `set`, Ref nodes' `inputs`), prefixed
   * with `field` (`set.token: …`), or undefined when it can: variables go into activity inputs and
   * child workflows, so a value over `PAYLOAD_LIMITS.valueBytes` (src/domain/limits.ts) is refused
   * like a script's. Synchronous: callers await the evaluation themselves (the awaits of node
   * handlers are the order of the workflow's commands, see interpreter.ts).
   */
  variableValueProblem(value: unknown, field: string): string | undefined {
    const bytes = jsonBytes(value);
    return bytes > PAYLOAD_LIMITS.valueBytes
      ? `${field}: ${overCapMessage('the value', bytes, PAYLOAD_LIMITS.valueBytes)}`
      : undefined;
  }

  /** Marks `result` failed with `message` and lists the failure. */
  fail(result: NodeResult, message: string, extra: Partial<TestCaseFailure> = {}): NodeResult {
    result.status = 'failed';
    result.error = message;
    this.addFailure({ node: result.id, message, ...extra });
    return result;
  }

  /**
   * Marks `result` failed with `message` (as {@link fail}) and the stable code of that failure
   * when it has one: the node's `errorCode` and its failure's (docs/flows.md "Error codes"). Without
   * a code, exactly {@link fail}: no `errorCode` key at all.
   */
  failWithCode(result: NodeResult, message: string, errorCode: string | undefined): NodeResult {
    this.fail(result, message, errorCode ? { errorCode } : {});
    if (errorCode) result.errorCode = errorCode;
    return result;
  }

  /** Lists a failure (the first {@link KEPT_TEST_CASE_FAILURES} of a test case are kept). */
  addFailure(failure: TestCaseFailure): void {
    if (this.state.failures.length < KEPT_TEST_CASE_FAILURES) this.state.failures.push(failure);
  }

  /**
   * Lists one evaluated assertion of a node (API and Assert nodes) in `result.assertions` and counts
   * it in the test case; one that failed makes the node `failed` and is listed as a failure with its
   * expected and actual values. Synchronous: the handler awaits each evaluation itself, as recorded.
   */
  recordAssertion(result: NodeResult, assertion: Assertion, outcome: AssertionResult): void {
    (result.assertions ??= []).push(outcome);
    this.state.assertions += 1;
    if (outcome.passed) {
      this.state.passedAssertions += 1;
      return;
    }
    result.status = 'failed';
    this.addFailure({
      node: result.id,
      assertion: assertion.name ?? assertion.target,
      operator: assertion.operator,
      expected: preview(assertion.expected, 500),
      actual: outcome.actual,
      message: outcome.message ?? 'assertion failed',
    });
  }

  /**
   * Records a decision that has no durable step of its own (an IF branch): a step line for the
   * port, and a prefix of the next activity's summary, so the Web UI's timeline reads
   * `IF response.status = 200 → then ▸ get user: GET …`.
   */
  note(line: string): void {
    this.notes.push(line);
    if (this.notes.length > KEPT_NOTES) this.notes.shift();
    this.step(line);
  }

  /** A finished step's line for the port (InterpreterPort.recordStep), prefixed with the {@link chain} inside a sub-flow. */
  step(line: string): void {
    this.port.recordStep?.(this.chained(line));
  }

  /** `line` prefixed with the chain of Ref nodes (`login › get token: …`); as it is outside sub-flows. */
  chained(line: string): string {
    return this.chain.length ? `${this.chain.join(' › ')} › ${line}` : line;
  }

  /** The summary of an activity (Temporal Web UI, at most 200 characters): the pending notes, then `what`. */
  summary(what: string): string {
    const text = this.notes.length ? `${this.notes.join(' ▸ ')} ▸ ${this.chained(what)}` : this.chained(what);
    this.notes = [];
    return text.length > 200 ? `${text.slice(0, 199)}…` : text;
  }

  /** A passed result of `node` with no duration yet. */
  base(node: FlowNode): NodeResult {
    return { id: node.id, ...(node.name ? { name: node.name } : {}), type: node.type, status: 'passed', duration: 0 };
  }

  /** A skipped result of `node` that is switched off (NodeBase `disabled`): `reason: 'disabled'`, no children. */
  disabledResult(node: FlowNode): NodeResult {
    return { ...this.base(node), status: 'skipped', reason: 'disabled' };
  }

  /** A skipped result of `node`, not run because the test case was stopped ({@link FlowState.stopped}). */
  notRun(node: FlowNode): NodeResult {
    return { ...this.base(node), status: 'skipped', reason: this.state.stopped ?? 'not run' };
  }

  /** What scripts see of the run, the test case and the loops (the innermost, and all of them when nested). */
  scope() {
    const loops = this.state.loops;
    return {
      runId: this.port.runId,
      testCase: { id: this.testCase.id, name: this.testCase.name },
      loop: loops[loops.length - 1],
      ...(loops.length > 1 ? { loops: [...loops] } : {}),
    };
  }
}
