/** gRPC nodes (docs/async.md "gRPC"). */
import type { GrpcNode, NodeResult } from '../domain/types';
import type { FlowBase } from './flow-base';

/** Runs a Grpc node. */
export async function runGrpcNode(flow: FlowBase, node: GrpcNode): Promise<NodeResult> {
  return flow.fail(flow.base(node), `Node type "${node.type}" is not implemented yet`);
}
