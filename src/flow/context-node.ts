/** Context nodes: variables set from expressions, in order (a later one sees an earlier one). */
import { preview } from '../domain/assertions';
import type { ExpressionError } from '../domain/expressions';
import type { ContextNode, NodeResult } from '../domain/types';
import type { FlowBase } from './flow-base';

/**
 * Runs a Context node: an `undefined` value removes the variable. Failed at the first expression
 * that cannot be evaluated or whose value is over `PAYLOAD_LIMITS.valueBytes`.
 */
export async function runContextNode(flow: FlowBase, node: ContextNode): Promise<NodeResult> {
  const result = flow.base(node);
  const set: Record<string, unknown> = {};
  for (const [name, expression] of Object.entries(node.set)) {
    try {
      const value = await flow.evaluate(expression);
      const problem = flow.variableValueProblem(value, `set.${name}`);
      if (problem) return flow.fail(result, problem);
      set[name] = value;
      if (value === undefined) delete flow.state.variables[name];
      else flow.state.variables = { ...flow.state.variables, [name]: value };
    } catch (err) {
      return flow.fail(result, `set.${name}: ${(err as ExpressionError).message}`);
    }
  }
  result.variablesSet = Object.fromEntries(Object.entries(set).map(([k, v]) => [k, preview(v, 500)]));
  return result;
}
