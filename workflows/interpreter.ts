/**
 * The flow interpreter: runs one test case's tree of nodes and says what happened.
 *
 * It runs inside the workflow, so every effect goes through {@link InterpreterEnv} (activities,
 * timers, the deterministic clock) and every user expression through the guarded JSONata
 * evaluator. Nothing here throws for a user mistake: a bad expression, an unreachable host, a
 * failing script or a failed assertion is a failed node with its reason. Only the run's deadline
 * ({@link DeadlineReached}) and cancellation stop a test case midway.
 *
 * Expressions (IF conditions, `while`, `breakCondition`, `items`, Context values, Wait
 * expressions, assertion targets) see (docs/flows.md):
 *
 *   { variables, nodes: { <id>: { request, response } }, loop: <innermost loop>,
 *     loops: { <loop node id>: { index, iteration, item } }, testCase: { id, name },
 *     response (assertions only) }
 *
 * Templates (`{{name}}`) see the variables plus the innermost loops' `index`, `iteration` and item.
 */
import { evaluateAssertion, preview } from '../src/domain/assertions';
import { ExpressionError, truthy } from '../src/domain/expressions';
import { jsonBytes, overCapMessage, PAYLOAD_LIMITS } from '../src/domain/limits';
import { fillTemplate, fillTemplates, type DynamicSources, type TemplateVariables } from '../src/domain/templating';
import type {
  ApiNode,
  ContextNode,
  FlowNode,
  IfNode,
  IterationNode,
  IterationResult,
  LoopNode,
  NodeResult,
  ParallelNode,
  ResolvedRequest,
  RunSettings,
  ScriptNode,
  TestCaseDefinition,
  TestCaseResult,
  WaitNode,
} from '../src/domain/types';
import type { ApiNodeInput, ApiNodeOutput, ScriptNodeInput, ScriptNodeOutput } from '../activities';

/** Thrown between nodes once the run's deadline has passed. */
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

export interface Failure {
  node: string;
  assertion?: string;
  operator?: string;
  expected?: unknown;
  actual?: unknown;
  message: string;
}

/** The interpreter's state: serialisable, so a loop can continue in a child workflow. */
export interface FlowState {
  variables: Record<string, unknown>;
  nodes: Record<string, NodeContext>;
  loops: LoopFrame[];
  assertions: number;
  passedAssertions: number;
  failures: Failure[];
}

/** Input of a child workflow that runs the rest of a loop. */
export interface LoopSegmentInput {
  runId: string;
  settings: RunSettings;
  deadlineMs: number;
  testCase: { id: string; name: string; dataSets: Record<string, unknown[]> };
  node: LoopNode | IterationNode;
  /** Index of the first iteration to run. */
  start: number;
  /** The Iteration node's items, evaluated by the parent. */
  items?: unknown[];
  /** Iteration results the parent keeps already (the child keeps at most the rest). */
  kept: number;
  state: FlowState;
}

export interface LoopSegmentOutput {
  state: FlowState;
  iterations: number;
  failedIterations: number;
  stoppedBy: NonNullable<NodeResult['stoppedBy']>;
  error?: string;
  iterationResults: IterationResult[];
  omittedIterations: number;
}

/** Everything the interpreter may use from the outside world. */
export interface InterpreterEnv {
  runId: string;
  settings: RunSettings;
  dynamic: DynamicSources;
  deadlineMs: number;
  /** Workflow time, moved forward by activities' clock readings. */
  now(): number;
  executeApiNode(input: ApiNodeInput, summary: string): Promise<ApiNodeOutput>;
  runScript(input: ScriptNodeInput, summary: string): Promise<ScriptNodeOutput>;
  /** Evaluates a user expression: in the workflow, or in an activity when it is heavy. Throws ExpressionError. */
  evaluate(expression: string, input: unknown): Promise<unknown>;
  sleep(ms: number, summary: string): Promise<void>;
  /** Events in the current workflow execution's history. */
  historyLength(): number;
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
}

/** Iteration results kept in the details of a loop; the rest are counted in `omittedIterations`. */
export const KEPT_ITERATIONS = 50;
/** Failures kept per test case. */
const KEPT_FAILURES = 200;
/** Bytes of a response body kept in the state a child workflow receives. */
const SEGMENT_BODY_BYTES = 32 * 1024;


/** Fills placeholders and defaults of an API node's request. */
export function resolveRequest(node: ApiNode, variables: TemplateVariables, dynamic: DynamicSources, settings: RunSettings): ResolvedRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(node.request.headers ?? {})) {
    headers[fillTemplate(name, variables, dynamic)] = fillTemplate(value, variables, dynamic);
  }
  return {
    method: node.request.method,
    url: fillTemplate(node.request.url, variables, dynamic),
    headers,
    body: node.request.body === undefined ? undefined : fillTemplates(node.request.body, variables, dynamic),
    timeoutMs: node.request.timeoutMs ?? settings.requestTimeoutMs,
    followRedirects: node.request.followRedirects ?? true,
    maxResponseBytes: settings.maxResponseBytes,
  };
}

export function emptyState(variables: Record<string, unknown>): FlowState {
  return { variables: { ...variables }, nodes: {}, loops: [], assertions: 0, passedAssertions: 0, failures: [] };
}

export class FlowRunner {
  constructor(
    private readonly env: InterpreterEnv,
    private readonly testCase: LoopSegmentInput['testCase'],
    public state: FlowState,
  ) {}

  /** Runs a test case's flow and builds its result. */
  static async runTestCase(env: InterpreterEnv, testCase: TestCaseDefinition, variables: Record<string, unknown>): Promise<TestCaseResult> {
    const runner = new FlowRunner(env, { id: testCase.id, name: testCase.name, dataSets: testCase.dataSets }, emptyState(variables));
    const nodes = await runner.runNodes(testCase.flow);
    const duration = Math.round(nodes.reduce((ms, n) => ms + n.duration, 0) * 10) / 10;
    const failed = nodes.some((n) => n.status === 'failed');
    return {
      testCaseId: testCase.id,
      name: testCase.name,
      status: failed ? 'failed' : 'passed',
      duration,
      assertions: runner.state.assertions,
      passedAssertions: runner.state.passedAssertions,
      failures: runner.state.failures,
      nodes,
    };
  }

  async runNodes(nodes: FlowNode[]): Promise<NodeResult[]> {
    const results: NodeResult[] = [];
    for (const node of nodes) results.push(await this.runNode(node));
    return results;
  }

  async runNode(node: FlowNode): Promise<NodeResult> {
    this.env.beforeNode();
    let result: NodeResult;
    switch (node.type) {
      case 'api':
        result = await this.api(node);
        break;
      case 'if':
        result = await this.if(node);
        break;
      case 'loop':
      case 'iteration':
        result = await this.loop(node);
        break;
      case 'script':
        result = await this.script(node);
        break;
      case 'wait':
        result = await this.wait(node);
        break;
      case 'context':
        result = await this.context(node);
        break;
      case 'parallel':
        result = await this.parallel(node);
        break;
      default: {
        const unknown = node as { id?: string; type?: string };
        result = this.fail({ id: String(unknown.id), type: 'api', status: 'failed', duration: 0 }, `Node type "${String(unknown.type)}" is not supported by this worker`);
      }
    }
    await this.env.afterNode();
    return result;
  }

  // --- expressions ---------------------------------------------------------------------------------

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
  private templateVariables(): TemplateVariables {
    const vars: TemplateVariables = { ...this.state.variables };
    for (const frame of this.state.loops) {
      vars.index = frame.index;
      vars.iteration = frame.iteration;
      if (frame.as) vars[frame.as] = frame.item;
    }
    return vars;
  }

  private evaluate(expression: string): Promise<unknown> {
    return this.env.evaluate(expression, this.expressionInput());
  }

  private fail(result: NodeResult, message: string, extra: Partial<Failure> = {}): NodeResult {
    result.status = 'failed';
    result.error = message;
    this.addFailure({ node: result.id, message, ...extra });
    return result;
  }

  private addFailure(failure: Failure): void {
    if (this.state.failures.length < KEPT_FAILURES) this.state.failures.push(failure);
  }

  private base(node: FlowNode): NodeResult {
    return { id: node.id, ...(node.name ? { name: node.name } : {}), type: node.type, status: 'passed', duration: 0 };
  }

  private scope() {
    return { runId: this.env.runId, testCase: { id: this.testCase.id, name: this.testCase.name }, loop: this.state.loops[this.state.loops.length - 1] };
  }

  // --- node types --------------------------------------------------------------------------------

  private async api(node: ApiNode): Promise<NodeResult> {
    const result = this.base(node);
    const request = resolveRequest(node, this.templateVariables(), this.env.dynamic, this.env.settings);
    const label = node.name ? `${node.name} (${node.id})` : node.id;
    const out = await this.env.executeApiNode(
      {
        ...this.scope(),
        label: node.id,
        request,
        script: node.script,
        retry: node.retry,
        variables: this.state.variables,
        nodes: node.script ? this.state.nodes : undefined,
        deadlineMs: this.env.deadlineMs,
      },
      `${label}: ${request.method} ${request.url}`.slice(0, 200),
    );
    this.state.variables = out.variables;
    result.request = { method: out.request.method, url: out.request.url };
    if (out.logs.length) result.logs = out.logs;
    if (out.attempts.length > 1) result.attempts = out.attempts;
    const ex = out.exchange;
    if (ex) {
      const response = { status: ex.status, headers: ex.headers, body: ex.body, time: ex.timeMs, size: ex.size };
      this.state.nodes[node.id] = { request: out.request, response };
      result.duration = out.attempts.reduce((ms, a) => ms + a.timeMs + (a.delayMs ?? 0), 0);
      result.response = { status: ex.status, timeMs: ex.timeMs, size: ex.size, truncated: ex.truncated };
      if (ex.error) return this.fail(result, ex.error);
      const input = this.expressionInput({ response });
      result.assertions = [];
      for (const assertion of node.assertions ?? []) {
        const outcome = await evaluateAssertion(assertion, input as never, this.env.evaluate);
        result.assertions.push(outcome);
        this.state.assertions += 1;
        if (outcome.passed) this.state.passedAssertions += 1;
        else {
          result.status = 'failed';
          this.addFailure({
            node: node.id,
            assertion: assertion.name ?? assertion.target,
            operator: assertion.operator,
            expected: preview(assertion.expected, 500),
            actual: outcome.actual,
            message: outcome.message ?? 'assertion failed',
          });
        }
      }
    }
    if (out.scriptError) {
      result.line = out.scriptError.line;
      return this.fail(result, `${out.scriptError.hook} failed${where(out.scriptError)}: ${out.scriptError.message}`);
    }
    return result;
  }

  private async if(node: IfNode): Promise<NodeResult> {
    const result = this.base(node);
    let value: unknown;
    try {
      value = await this.evaluate(node.condition);
    } catch (err) {
      return this.fail(result, `condition: ${(err as ExpressionError).message}`);
    }
    const holds = truthy(value);
    result.condition = preview(value, 200);
    const taken = holds ? node.then : (node.else ?? []);
    const other = holds ? (node.else ?? []) : node.then;
    result.branch = holds ? 'then' : node.else ? 'else' : 'none';
    const reason = holds ? 'condition held: Else branch not taken' : 'condition did not hold: Then branch not taken';
    const children = await this.runNodes(taken);
    result.children = [...children, ...other.map((n) => ({ ...this.base(n), status: 'skipped' as const, reason }))];
    result.duration = children.reduce((ms, c) => ms + c.duration, 0);
    if (children.some((c) => c.status === 'failed')) result.status = 'failed';
    return result;
  }

  private async loop(node: LoopNode | IterationNode): Promise<NodeResult> {
    const result = this.base(node);
    let items: unknown[] | undefined;
    if (node.type === 'iteration') {
      if (node.dataSet !== undefined) {
        items = this.testCase.dataSets[node.dataSet];
        if (!items) return this.fail(result, `no data set named "${node.dataSet}"`);
      } else {
        try {
          const value = await this.evaluate(node.items!);
          items = value === undefined || value === null ? [] : Array.isArray(value) ? value : [value];
        } catch (err) {
          return this.fail(result, `items: ${(err as ExpressionError).message}`);
        }
      }
    }
    const out = await this.runIterations(node, 0, items, 0);
    result.iterations = out.iterations;
    result.stoppedBy = out.stoppedBy;
    result.iterationResults = out.iterationResults;
    if (out.omittedIterations > 0) result.omittedIterations = out.omittedIterations;
    result.duration = out.iterationResults.reduce((ms, it) => ms + it.nodes.reduce((m, n) => m + n.duration, 0), 0);
    if (out.error) return this.fail(result, out.error);
    if (out.failedIterations > 0) result.status = 'failed';
    return result;
  }

  /**
   * Runs iterations `start`… of a Loop or Iteration node. When this workflow's history has grown
   * past the configured length, the rest runs in a child workflow (which does the same in turn),
   * so no history grows without bound.
   */
  async runIterations(node: LoopNode | IterationNode, start: number, items: unknown[] | undefined, kept: number): Promise<LoopSegmentOutput> {
    const cap = Math.min(node.maxIterations ?? Number.MAX_SAFE_INTEGER, this.env.settings.maxLoopIterations);
    const out: LoopSegmentOutput = { state: this.state, iterations: 0, failedIterations: 0, stoppedBy: 'count', iterationResults: [], omittedIterations: 0 };
    for (let index = start; ; index++) {
      if (node.type === 'loop' && node.count !== undefined && index >= node.count) {
        out.stoppedBy = 'count';
        break;
      }
      if (node.type === 'iteration' && index >= items!.length) {
        out.stoppedBy = 'items';
        break;
      }
      if (node.type === 'loop' && node.while !== undefined) {
        try {
          if (!truthy(await this.evaluate(node.while))) {
            out.stoppedBy = 'condition';
            break;
          }
        } catch (err) {
          out.stoppedBy = 'error';
          out.error = `while: ${(err as ExpressionError).message}`;
          break;
        }
      }
      if (index >= cap) {
        out.stoppedBy = 'cap';
        out.error = `stopped at its cap of ${cap} iterations${cap === this.env.settings.maxLoopIterations ? ' (ASSAY_MAX_LOOP_ITERATIONS)' : ' (maxIterations)'}`;
        break;
      }
      if (index > start && this.env.historyLength() > this.env.settings.segmentHistoryEvents) {
        const rest = await this.env.runLoopSegment({
          runId: this.env.runId,
          settings: this.env.settings,
          deadlineMs: this.env.deadlineMs,
          testCase: this.testCase,
          node,
          start: index,
          items,
          kept: kept + out.iterationResults.length,
          state: compactState(this.state),
        });
        this.state = rest.state;
        out.state = rest.state;
        out.iterations += rest.iterations;
        out.failedIterations += rest.failedIterations;
        out.stoppedBy = rest.stoppedBy;
        out.error = rest.error;
        out.iterationResults.push(...rest.iterationResults);
        out.omittedIterations += rest.omittedIterations;
        break;
      }
      const frame: LoopFrame = { nodeId: node.id, index, iteration: index + 1 };
      if (node.type === 'iteration') {
        frame.item = items![index];
        frame.as = node.as ?? 'item';
      }
      this.state.loops.push(frame);
      let nodes: NodeResult[];
      try {
        nodes = await this.runNodes(node.body);
      } finally {
        this.state.loops.pop();
      }
      out.iterations += 1;
      const failed = nodes.some((n) => n.status === 'failed');
      if (failed) out.failedIterations += 1;
      if (kept + out.iterationResults.length < KEPT_ITERATIONS) {
        out.iterationResults.push({ index, ...(node.type === 'iteration' ? { item: preview(frame.item, 500) } : {}), status: failed ? 'failed' : 'passed', nodes });
      } else out.omittedIterations += 1;
      const pause = this.env.afterIteration?.();
      if (pause) await pause;
      if (node.breakCondition !== undefined) {
        this.state.loops.push(frame);
        try {
          if (truthy(await this.evaluate(node.breakCondition))) {
            out.stoppedBy = 'break';
            break;
          }
        } catch (err) {
          out.stoppedBy = 'error';
          out.error = `breakCondition: ${(err as ExpressionError).message}`;
          break;
        } finally {
          this.state.loops.pop();
        }
      }
    }
    out.state = this.state;
    return out;
  }

  private async script(node: ScriptNode): Promise<NodeResult> {
    const result = this.base(node);
    const before = this.state.variables;
    const out = await this.env.runScript(
      {
        ...this.scope(),
        label: node.id,
        script: node.script,
        generateValue: node.variable !== undefined,
        variables: this.state.variables,
        nodes: this.state.nodes,
      },
      `${node.name ?? node.id}: script`,
    );
    result.duration = out.durationMs;
    if (out.logs.length) result.logs = out.logs;
    if (!out.ok) {
      result.line = out.error?.line;
      return this.fail(result, `script failed${where(out.error ?? {})}: ${out.error?.message ?? 'unknown error'}`);
    }
    this.state.variables = { ...out.variables };
    if (node.variable !== undefined) this.state.variables[node.variable] = out.value;
    result.variablesSet = changed(before, this.state.variables);
    return result;
  }

  private async wait(node: WaitNode): Promise<NodeResult> {
    const result = this.base(node);
    let ms: unknown = node.ms;
    if (node.expression !== undefined) {
      try {
        ms = await this.evaluate(node.expression);
      } catch (err) {
        return this.fail(result, `expression: ${(err as ExpressionError).message}`);
      }
    }
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) return this.fail(result, `the wait must be a number of milliseconds >= 0, got ${JSON.stringify(ms)}`);
    const timeLeft = this.env.deadlineMs - this.env.now();
    await this.env.sleep(Math.min(ms, Math.max(0, timeLeft)), `${node.name ?? node.id}: wait ${ms} ms`);
    if (ms > timeLeft) throw new DeadlineReached();
    result.waitedMs = ms;
    result.duration = ms;
    return result;
  }

  private async context(node: ContextNode): Promise<NodeResult> {
    const result = this.base(node);
    const set: Record<string, unknown> = {};
    for (const [name, expression] of Object.entries(node.set)) {
      try {
        const value = await this.evaluate(expression);
        // Variables go into activity inputs and child workflows: capped like a script's (src/domain/limits.ts).
        const bytes = jsonBytes(value);
        if (bytes > PAYLOAD_LIMITS.valueBytes) return this.fail(result, `set.${name}: ${overCapMessage('the value', bytes, PAYLOAD_LIMITS.valueBytes)}`);
        set[name] = value;
        if (value === undefined) delete this.state.variables[name];
        else this.state.variables = { ...this.state.variables, [name]: value };
      } catch (err) {
        return this.fail(result, `set.${name}: ${(err as ExpressionError).message}`);
      }
    }
    result.variablesSet = Object.fromEntries(Object.entries(set).map(([k, v]) => [k, preview(v, 500)]));
    return result;
  }

  private async parallel(node: ParallelNode): Promise<NodeResult> {
    const result = this.base(node);
    const children: NodeResult[] = new Array(node.children.length);
    let next = 0;
    const lanes = Array.from({ length: Math.min(node.concurrency ?? node.children.length, node.children.length) }, async () => {
      while (next < node.children.length) {
        const i = next++;
        children[i] = await this.runNode(node.children[i]!);
      }
    });
    await Promise.all(lanes);
    result.children = children;
    result.duration = Math.max(0, ...children.map((c) => c.duration));
    if (children.some((c) => c.status === 'failed')) result.status = 'failed';
    return result;
  }
}

/** ` (line 3, column 10)` for a script error's place in the user's code; empty when unknown. */
function where(place: { line?: number; column?: number }): string {
  if (!place.line) return '';
  return place.column ? ` (line ${place.line}, column ${place.column})` : ` (line ${place.line})`;
}

/** Variables that a script or context node changed or removed (removed ones show as null). */
function changed(before: Record<string, unknown>, after: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(after)) if (JSON.stringify(before[k]) !== JSON.stringify(v)) out[k] = preview(v, 500);
  for (const k of Object.keys(before)) if (!(k in after)) out[k] = null;
  return out;
}

/** The state for a child workflow, with large response bodies cut so the input stays small. */
function compactState(state: FlowState): FlowState {
  const nodes: Record<string, NodeContext> = {};
  for (const [id, ctx] of Object.entries(state.nodes)) {
    const text = JSON.stringify(ctx.response.body ?? null);
    nodes[id] = text.length > SEGMENT_BODY_BYTES ? { ...ctx, response: { ...ctx.response, body: `${text.slice(0, SEGMENT_BODY_BYTES)}… (cut)` } } : ctx;
  }
  return { ...state, nodes };
}
