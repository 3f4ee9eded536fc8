/** WebSocket and SSE nodes (docs/async.md "WebSocket and SSE"). */
import type { NodeResult, SseNode, WebsocketNode } from '../domain/types';
import type { FlowBase } from './flow-base';

/** Runs a WebSocket or SSE node. */
export async function runStreamNode(flow: FlowBase, node: WebsocketNode | SseNode): Promise<NodeResult> {
  return flow.fail(flow.base(node), `Node type "${node.type}" is not implemented yet`);
}
