/** Callback nodes (docs/async.md "Callbacks"). */
import type { CallbackNode, NodeResult } from '../domain/types';
import type { FlowBase } from './flow-base';

/** Runs a Callback node. */
export async function runCallbackNode(flow: FlowBase, node: CallbackNode): Promise<NodeResult> {
  return flow.fail(flow.base(node), `Node type "${node.type}" is not implemented yet`);
}
