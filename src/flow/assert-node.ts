/**
 * Assert nodes: assertions on the flow's context without a request (docs/flows.md "Assert node").
 * Pure evaluation through the port's `evaluate` (the same guarded JSONata evaluator as every other
 * expression): no activity, timer or other workflow command of its own.
 */
import { evaluateAssertion, preview } from '../domain/assertions';
import { truthy, type ExpressionError } from '../domain/expressions';
import type { AssertNode, NodeResult } from '../domain/types';
import type { FlowBase } from './flow-base';

/**
 * Runs an Assert node: skipped (with the reason) when `skipIf` holds; otherwise every assertion is
 * evaluated against what expressions see and counted like an API node's. Failed when one fails or
 * `skipIf` cannot be evaluated; then, unless `continueOnFailure`, the test case's remaining nodes
 * are not run ({@link FlowState.stopped}, src/flow/types.ts).
 */
export async function runAssertNode(flow: FlowBase, node: AssertNode): Promise<NodeResult> {
  const result = flow.base(node);
  const label = node.name ? `${node.name} (${node.id})` : node.id;
  const stopUnlessContinuing = () => {
    if (result.status === 'failed' && !node.continueOnFailure)
      flow.state.stopped = `not run: Assert node ${label} failed (continueOnFailure is false)`;
    return result;
  };
  if (node.skipIf !== undefined) {
    let value: unknown;
    try {
      value = await flow.evaluate(node.skipIf);
    } catch (err) {
      flow.fail(result, `skipIf: ${(err as ExpressionError).message}`);
      return stopUnlessContinuing();
    }
    if (truthy(value)) {
      result.status = 'skipped';
      result.reason = `skipIf held (${JSON.stringify(preview(value, 200)) ?? 'undefined'})`;
      flow.step(`${label}: assert → skipped`);
      return result;
    }
  }
  const input = flow.expressionInput();
  result.assertions = [];
  for (const assertion of node.assertions)
    flow.recordAssertion(result, assertion, await evaluateAssertion(assertion, input as never, flow.port.evaluate));
  const passed = result.assertions.filter((a) => a.passed).length;
  flow.step(`${label}: assert → ${passed}/${result.assertions.length} passed${result.status === 'failed' ? ' ✗' : ''}`);
  return stopUnlessContinuing();
}
