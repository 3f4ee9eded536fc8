/** Wait nodes: a pause of `ms` (or what `expression` yields) through the port's timer, never past the deadline. */
import type { ExpressionError } from '../domain/expressions';
import type { NodeResult, WaitNode } from '../domain/types';
import type { FlowBase } from './flow-base';
import { DeadlineReached } from './types';

/**
 * Runs a Wait node: failed when the time is not a number of ms >= 0. A wait longer than the time
 * left sleeps until the deadline, then throws {@link DeadlineReached}.
 */
export async function runWaitNode(flow: FlowBase, node: WaitNode): Promise<NodeResult> {
  const result = flow.base(node);
  let ms: unknown = node.ms;
  if (node.expression !== undefined) {
    try {
      ms = await flow.evaluate(node.expression);
    } catch (err) {
      return flow.fail(result, `expression: ${(err as ExpressionError).message}`);
    }
  }
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0)
    return flow.fail(result, `the wait must be a number of milliseconds >= 0, got ${JSON.stringify(ms)}`);
  const timeLeft = flow.port.deadlineMs - flow.port.now();
  await flow.port.sleep(Math.min(ms, Math.max(0, timeLeft)), flow.summary(`${node.name ?? node.id}: wait ${ms} ms`));
  if (ms > timeLeft) throw new DeadlineReached();
  result.waitedMs = ms;
  result.duration = ms;
  return result;
}
