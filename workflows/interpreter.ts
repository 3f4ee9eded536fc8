/**
 * The flow interpreter: runs one test case's nodes in order and says what happened.
 *
 * It runs inside the workflow, so every effect goes through {@link InterpreterEnv} (activities,
 * deterministic clock and randomness) and every user expression through the guarded JSONata
 * evaluator. Nothing here throws for a user mistake: a bad expression, an unreachable host or a
 * failed assertion is a failed node, reported with expected and actual values.
 */
import { evaluateAssertion, preview, type AssertionContext } from '../src/domain/assertions';
import { fillTemplate, fillTemplates, type DynamicSources } from '../src/domain/templating';
import type {
  ApiNode,
  FlowNode,
  HttpExchange,
  NodeResult,
  ResolvedRequest,
  RunPlan,
  TestCaseDefinition,
  TestCaseResult,
  Variables,
} from '../src/domain/types';

/** Everything the interpreter may use from the outside world. */
export interface InterpreterEnv {
  variables: Variables;
  settings: RunPlan['settings'];
  dynamic: DynamicSources;
  /** Sends a request (an activity); `summary` labels it in the Temporal Web UI. */
  sendHttp(request: ResolvedRequest, summary: string): Promise<HttpExchange>;
  /** Called before each node; throws to stop the run (its deadline has passed). */
  beforeNode(): void;
  /** Called after each node: progress and checkpoints. */
  afterNode(): Promise<void>;
}

/** Per-test-case state visible to expressions. */
interface FlowState {
  nodes: AssertionContext['nodes'];
  result: TestCaseResult;
}

/** Fills placeholders and defaults of an API node's request. */
export function resolveRequest(node: ApiNode, env: Pick<InterpreterEnv, 'variables' | 'settings' | 'dynamic'>): ResolvedRequest {
  const { variables, dynamic, settings } = env;
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

async function runApiNode(node: ApiNode, env: InterpreterEnv, state: FlowState): Promise<NodeResult> {
  const request = resolveRequest(node, env);
  const label = node.name ? `${node.name} (${node.id})` : node.id;
  const exchange = await env.sendHttp(request, `${label}: ${request.method} ${request.url}`.slice(0, 200));
  const response: AssertionContext['response'] = {
    status: exchange.status,
    headers: exchange.headers,
    body: exchange.body,
    time: exchange.timeMs,
    size: exchange.size,
  };
  state.nodes[node.id] = { request: { method: request.method, url: request.url }, response };
  const result: NodeResult = {
    id: node.id,
    name: node.name,
    type: 'api',
    status: 'passed',
    duration: exchange.timeMs,
    request: { method: request.method, url: request.url },
    response: { status: exchange.status, timeMs: exchange.timeMs, size: exchange.size, truncated: exchange.truncated },
  };
  const tc = state.result;
  if (exchange.error) {
    result.status = 'failed';
    result.error = exchange.error;
    tc.failures.push({ node: node.id, message: exchange.error });
    return result;
  }
  const context: AssertionContext = { response, variables: env.variables, nodes: state.nodes };
  result.assertions = [];
  for (const assertion of node.assertions ?? []) {
    const outcome = await evaluateAssertion(assertion, context);
    result.assertions.push(outcome);
    tc.assertions += 1;
    if (outcome.passed) tc.passedAssertions += 1;
    else {
      result.status = 'failed';
      tc.failures.push({
        node: node.id,
        assertion: assertion.name ?? assertion.target,
        operator: assertion.operator,
        expected: preview(assertion.expected, 500),
        actual: outcome.actual,
        message: outcome.message ?? 'assertion failed',
      });
    }
  }
  return result;
}

async function runNode(node: FlowNode, env: InterpreterEnv, state: FlowState): Promise<NodeResult> {
  switch (node.type) {
    case 'api':
      return runApiNode(node, env, state);
    default: {
      const unknown = node as { id?: string; type?: string };
      const message = `Node type "${String(unknown.type)}" is not supported by this worker`;
      state.result.failures.push({ node: String(unknown.id), message });
      return { id: String(unknown.id), type: 'api', status: 'failed', duration: 0, error: message };
    }
  }
}

/** Total number of nodes a test case will execute (issue 2: flat flows). */
export function countNodes(testCase: TestCaseDefinition): number {
  return testCase.flow.length;
}

/** Runs every node of `testCase` in order; a failed node does not stop the ones after it. */
export async function runTestCase(testCase: TestCaseDefinition, env: InterpreterEnv): Promise<TestCaseResult> {
  const state: FlowState = {
    nodes: {},
    result: {
      testCaseId: testCase.id,
      name: testCase.name,
      status: 'passed',
      duration: 0,
      assertions: 0,
      passedAssertions: 0,
      failures: [],
      nodes: [],
    },
  };
  for (const node of testCase.flow) {
    env.beforeNode();
    const nodeResult = await runNode(node, env, state);
    state.result.nodes.push(nodeResult);
    state.result.duration += nodeResult.duration;
    await env.afterNode();
  }
  state.result.duration = Math.round(state.result.duration * 10) / 10;
  if (state.result.nodes.some((n) => n.status === 'failed')) state.result.status = 'failed';
  return state.result;
}
