/**
 * The nodes that choose or schedule their children: IF (one branch runs, the other's nodes are
 * listed as skipped) and Parallel (children run concurrently, at most `concurrency` at a time).
 */
import { preview } from '../domain/assertions';
import { truthy, type ExpressionError } from '../domain/expressions';
import type { IfNode, NodeResult, ParallelNode } from '../domain/types';
import type { FlowBase } from './flow-base';

/** Runs an IF node at `path` (execution-id.ts): failed when its condition cannot be evaluated or a child of the branch taken failed. */
export async function runIfNode(flow: FlowBase, node: IfNode, path: string): Promise<NodeResult> {
  const result = flow.base(node);
  let value: unknown;
  try {
    value = await flow.evaluate(node.condition);
  } catch (err) {
    return flow.fail(result, `condition: ${(err as ExpressionError).message}`);
  }
  const holds = truthy(value);
  result.condition = preview(value, 200);
  const taken = holds ? node.then : (node.else ?? []);
  const other = holds ? (node.else ?? []) : node.then;
  result.branch = holds ? 'then' : node.else ? 'else' : 'none';
  const reason = holds ? 'condition held: Else branch not taken' : 'condition did not hold: Then branch not taken';
  const condition = node.condition.replace(/\s+/g, ' ');
  flow.note(`IF ${condition.length > 60 ? `${condition.slice(0, 59)}…` : condition} → ${result.branch}`);
  const children = await flow.runNodes(taken, path);
  result.children = [...children, ...other.map((n) => ({ ...flow.base(n), status: 'skipped' as const, reason }))];
  result.duration = children.reduce((ms, c) => ms + c.duration, 0);
  if (children.some((c) => c.status === 'failed')) result.status = 'failed';
  return result;
}

/**
 * Runs a Parallel node at `path` (execution-id.ts): `concurrency` lanes take the children in order;
 * its duration is the longest child's.
 */
export async function runParallelNode(flow: FlowBase, node: ParallelNode, path: string): Promise<NodeResult> {
  const result = flow.base(node);
  const children: NodeResult[] = new Array(node.children.length);
  let next = 0;
  // Each lane over a port of its own (FlowBase `forLane`), made here, before any lane awaits.
  const laneFlows: FlowBase[] = [];
  const lanes = Array.from(
    { length: Math.min(node.concurrency ?? node.children.length, node.children.length) },
    async () => {
      const lane = flow.forLane();
      laneFlows.push(lane);
      while (next < node.children.length) {
        const i = next++;
        children[i] = lane.state.stopped ? lane.notRun(node.children[i]!) : await lane.runNode(node.children[i]!, path);
      }
    },
  );
  await Promise.all(lanes);
  flow.port.joinLanes?.(laneFlows.map((l) => l.port));
  result.children = children;
  result.duration = Math.max(0, ...children.map((c) => c.duration));
  if (children.some((c) => c.status === 'failed')) result.status = 'failed';
  return result;
}
