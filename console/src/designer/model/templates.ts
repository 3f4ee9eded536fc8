/**
 * A new node of each type, as the palette inserts it: the smallest node that the server's flow
 * validation (src/validation/flow.ts `validateFlow`) accepts and that does something sensible, so
 * a user starts from a working example and edits it (test/unit/designer-model.test.ts checks every
 * type against the validator). Containers start with empty child lists; a Ref node needs the
 * test case it runs (`testCaseId` from the context; without one it is empty and the form asks).
 */
import { NODE_TYPES } from '../../../../src/domain/types';
import type { FlowNode, FlowNodeType, NodeId } from './doc';

/** What a template may use: the new node's id, the id of the API node before it (for IF), a test case to reference. */
export interface TemplateContext {
  id: NodeId;
  /** The nearest API node before the place (an IF's condition reads its status). */
  previousApiId?: NodeId;
  /** A reusable test case for a Ref node. */
  testCaseId?: string;
}

const STATUS_200 = { target: 'response.status', operator: 'equals', expected: 200 } as const;

const GRPC_PROTO = `syntax = "proto3";
package demo;

service Greeter {
  rpc SayHello (HelloRequest) returns (HelloReply);
}

message HelloRequest { string name = 1; }
message HelloReply { string message = 1; }
`;

/** A new node of `type` with id `ctx.id` (see the module comment for what each type starts as). */
export function template(type: FlowNodeType, ctx: TemplateContext): FlowNode {
  const id = ctx.id;
  switch (type) {
    case 'api':
      return { id, type, request: { method: 'GET', url: '{{base}}/' }, assertions: [{ ...STATUS_200 }] };
    case 'if':
      return {
        id,
        type,
        condition: ctx.previousApiId ? `nodes.${ctx.previousApiId}.response.status = 200` : 'true',
        then: [],
        else: [],
      };
    case 'loop':
      return { id, type, count: 3, body: [] };
    case 'iteration':
      return { id, type, items: '[1, 2, 3]', as: 'item', body: [] };
    case 'script':
      return { id, type, script: { code: "// $context.variables holds the flow's variables\n" } };
    case 'wait':
      return { id, type, ms: 1000 };
    case 'context':
      return { id, type, set: { value: '"hello"' } };
    case 'parallel':
      return { id, type, children: [] };
    case 'assert':
      return { id, type, assertions: [{ target: 'variables', operator: 'exists' }] };
    case 'ref':
      return { id, type, testCaseId: ctx.testCaseId ?? '', mode: 'ref' };
    case 'callback':
      return { id, type, timeout: '5m' };
    case 'poll':
      return {
        id,
        type,
        request: { method: 'GET', url: '{{base}}/status' },
        until: 'response.status = 200',
        interval: '1s',
        maxAttempts: 30,
      };
    case 'websocket':
      return {
        id,
        type,
        url: 'wss://echo.example.com/',
        send: [{ data: 'hello' }],
        until: 'count >= 1',
        timeout: '10s',
      };
    case 'sse':
      return { id, type, url: '{{base}}/events', until: 'count >= 1', timeout: '10s' };
    case 'grpc':
      return {
        id,
        type,
        target: 'localhost:50051',
        proto: GRPC_PROTO,
        service: 'demo.Greeter',
        method: 'SayHello',
        message: { name: 'world' },
        assertions: [{ target: 'response.status', operator: 'equals', expected: 0 }],
      };
    case 'mockVerify':
      return { id, type, method: 'POST', path: '/payments', count: 1 };
  }
}

/** One line per node type for the palette: what the node does, in words. */
export const TYPE_DESCRIPTIONS: Record<FlowNodeType, string> = {
  api: 'Send an HTTP request and check the response',
  if: 'Run nodes only when a condition holds (then / else)',
  loop: 'Repeat nodes a number of times or while a condition holds',
  iteration: 'Run nodes once per item of a list or data set',
  script: 'Run JavaScript',
  wait: 'Pause for a time',
  context: 'Set variables from expressions',
  parallel: 'Run lanes at the same time',
  assert: 'Check variables and earlier results without a request',
  ref: 'Run another test case inside this one',
  callback: 'Wait for a request to this run’s callback address',
  poll: 'Repeat a request until a condition holds',
  websocket: 'Open a WebSocket, send and receive messages',
  sse: 'Receive Server-Sent Events',
  grpc: 'Call a gRPC method',
  mockVerify: 'Check what the mocks received',
};

/** The node types, in the palette's order (src/domain/types.ts `NODE_TYPES`). */
export const PALETTE_TYPES: readonly FlowNodeType[] = NODE_TYPES;
