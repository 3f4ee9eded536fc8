/**
 * Ref nodes: another test case's flow run inside this one (docs/reuse.md "Sub-flows").
 *
 * The sub-flow runs in an interpreter of its own (FlowBase `subFlow`): it starts from the caller's
 * variables overlaid with the node's `inputs` (JSONata evaluated in the caller's context), has its
 * own `nodes` and loop stack, and gives back only the variables its `outputs` name. Its nodes make
 * their usual durable steps (no step of its own), its assertions and failures count in the calling
 * test case, and its node results are the Ref node's `children`. A failure inside it carries the
 * chain of Ref nodes down to the failing node (`path`), and the test case's result prefixes its
 * message with it (`checkout › login › get token: …`, {@link withChainMessages}).
 */
import { preview } from '../domain/assertions';
import type { ExpressionError } from '../domain/expressions';
import type { NodeResult, RefNode, TestCaseFailure } from '../domain/types';
import type { FlowBase } from './flow-base';
import { MAX_SUB_FLOW_DEPTH } from './sub-flows';
import { forEachNode } from './tree';
import { emptyState } from './types';

/** The name a Ref node has in chains: its `name` (the frozen plan gives it the referenced test case's), else the test case id. */
export function refLabel(node: RefNode): string {
  return node.name ?? node.testCaseId;
}

/**
 * Runs a Ref node at `path` (execution-id.ts; its sub-flow's nodes run inside it): failed when an
 * input cannot be evaluated (the sub-flow does not start), when its sub-flow was not resolved into
 * the plan, or when a node of the sub-flow failed.
 */
export async function runRefNode(flow: FlowBase, node: RefNode, path: string): Promise<NodeResult> {
  const result = flow.base(node);
  if (node.version) result.version = node.version;
  const label = refLabel(node);
  if (!Array.isArray(node.flow))
    return flow.fail(
      result,
      `the flow of test case "${node.testCaseId}" was not frozen into the run's plan (a worker older than Ref nodes?)`,
    );
  if (flow.chain.length >= MAX_SUB_FLOW_DEPTH)
    return flow.fail(result, `sub-flows nest deeper than ${MAX_SUB_FLOW_DEPTH} levels`);
  const variables: Record<string, unknown> = { ...flow.state.variables };
  for (const [name, expression] of Object.entries(node.inputs ?? {})) {
    let value: unknown;
    try {
      value = await flow.evaluate(expression);
    } catch (err) {
      return flow.fail(result, `inputs.${name}: ${(err as ExpressionError).message}`);
    }
    const problem = flow.variableValueProblem(value, `inputs.${name}`);
    if (problem) return flow.fail(result, problem);
    if (value === undefined) delete variables[name];
    else variables[name] = value;
  }

  const sub = flow.subFlow(emptyState(variables), label, node.flow);
  // A debug run: the sub-flow's captures count in the test case's budget (debug.ts).
  if (flow.port.debug) {
    sub.state.debugBytes = flow.state.debugBytes ?? 0;
    sub.debugPaused = flow.debugPaused;
  }
  const children = await sub.runNodes(node.flow, path);
  if (flow.port.debug) flow.state.debugBytes = sub.state.debugBytes;

  flow.state.assertions += sub.state.assertions;
  flow.state.passedAssertions += sub.state.passedAssertions;
  const names = new Map<string, string>();
  forEachNode(node.flow, (n) => names.set(n.id, n.name ?? n.id));
  for (const failure of sub.state.failures)
    flow.addFailure({ ...failure, path: [label, ...(failure.path ?? [names.get(failure.node) ?? failure.node])] });

  const set: Record<string, unknown> = {};
  let callerVariables = flow.state.variables;
  for (const [callerName, subName] of Object.entries(node.outputs ?? {})) {
    const value = sub.state.variables[subName];
    callerVariables = { ...callerVariables };
    if (value === undefined) delete callerVariables[callerName];
    else callerVariables[callerName] = value;
    set[callerName] = value === undefined ? null : preview(value, 500);
  }
  flow.state.variables = callerVariables;
  if (Object.keys(set).length) result.variablesSet = set;

  result.children = children;
  result.duration = Math.round(children.reduce((ms, c) => ms + c.duration, 0) * 10) / 10;
  if (children.some((c) => c.status === 'failed')) result.status = 'failed';
  return result;
}

/**
 * A test case's failures as its result lists them: one raised inside a sub-flow (it has a `path`)
 * gets its message prefixed with the chain from the test case down, `checkout › login › get token: `.
 * The same list when none has a path (flows without Ref nodes).
 */
export function withChainMessages(testCaseName: string, failures: TestCaseFailure[]): TestCaseFailure[] {
  if (!failures.some((f) => f.path)) return failures;
  return failures.map((f) =>
    f.path ? { ...f, message: `${[testCaseName, ...f.path].join(' › ')}: ${f.message}` } : f,
  );
}
