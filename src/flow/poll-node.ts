/** Poll nodes (docs/async.md "Polling"). */
import type { PollNode, NodeResult } from '../domain/types';
import type { FlowBase } from './flow-base';

/** Runs a Poll node. */
export async function runPollNode(flow: FlowBase, node: PollNode): Promise<NodeResult> {
  return flow.fail(flow.base(node), `Node type "${node.type}" is not implemented yet`);
}
