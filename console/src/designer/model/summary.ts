/**
 * How a node reads in one line (the tree's rows, announcements, menus): its type's label, a
 * summary of what it does (`GET {{base}}/users/{{id}}`, `if response.status = 200`, `loop 5 ×`)
 * and where it stands ("into IF 'ok', then, 2 of 3").
 */
import type { FlowNode, FlowNodeType } from './doc';
import { childList, findById, locate, type ChildField, type NodeId } from './doc';

const LABELS: Record<FlowNodeType, string> = {
  api: 'API',
  if: 'IF',
  loop: 'Loop',
  iteration: 'Iteration',
  script: 'Script',
  wait: 'Wait',
  context: 'Context',
  parallel: 'Parallel',
  assert: 'Assert',
  ref: 'Ref',
  callback: 'Callback',
  poll: 'Poll',
  websocket: 'WebSocket',
  sse: 'SSE',
  grpc: 'gRPC',
  mockVerify: 'mockVerify',
};

/** The label of a node type as users read it (`API`, `IF`, `WebSocket`, `gRPC`); an unknown type as it is. */
export function typeLabel(type: FlowNodeType | string): string {
  return LABELS[type as FlowNodeType] ?? type;
}

/** Labels of child lists: IF `then`/`else`, Loop/Iteration `body`, Parallel `lanes`. */
export function listLabel(field: string): string {
  return field === 'children' ? 'lanes' : field;
}

function clip(text: string, max = 80): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

function keys(record: Record<string, unknown> | undefined): string {
  return Object.keys(record ?? {}).join(', ');
}

/**
 * The one-line summary of a node, at most about 80 characters: `GET {{base}}/users/{{id}}`, `if
 * response.status = 200`, `loop 5 ×`, `while …`, `for each item in …`, `wait 500 ms`, `set token,
 * id`, `ref <test case>`, `ws wss://…`, `grpc svc/Method`, `verify POST /payments`.
 */
export function summarize(node: FlowNode): string {
  switch (node.type) {
    case 'api':
      return clip(`${node.request?.method ?? ''} ${node.request?.url ?? ''}`);
    case 'poll':
      return clip(`poll ${node.request?.method ?? ''} ${node.request?.url ?? ''} until ${node.until ?? ''}`);
    case 'if':
      return clip(`if ${node.condition ?? ''}`);
    case 'loop':
      if (node.while !== undefined) return clip(`while ${node.while}`);
      return `loop ${node.count ?? '?'} ×`;
    case 'iteration':
      return clip(
        `for each ${node.as ?? 'item'} in ${node.dataSet !== undefined ? `data set ${node.dataSet}` : (node.items ?? '?')}`,
      );
    case 'script':
      return clip(node.variable ? `script → ${node.variable}` : `script: ${node.script?.code ?? ''}`);
    case 'wait':
      return node.ms !== undefined ? `wait ${node.ms} ms` : clip(`wait ${node.expression ?? '?'}`);
    case 'context':
      return clip(`set ${keys(node.set)}`);
    case 'parallel': {
      const lanes = node.children?.length ?? 0;
      return `${lanes} lane${lanes === 1 ? '' : 's'}${node.concurrency ? `, ${node.concurrency} at a time` : ''}`;
    }
    case 'assert': {
      const n = node.assertions?.length ?? 0;
      return clip(n === 1 ? `assert ${node.assertions[0]!.target}` : `assert ${n} checks`);
    }
    case 'ref':
      return clip(`${node.mode === 'clone' ? 'clone' : 'ref'} ${node.testCaseId || '(choose a test case)'}`);
    case 'callback':
      return clip(`wait for callback${node.count && node.count > 1 ? ` ×${node.count}` : ''}, ${node.timeout ?? '5m'}`);
    case 'websocket':
      return clip(`ws ${node.url ?? ''}`);
    case 'sse':
      return clip(`sse ${node.method ?? 'GET'} ${node.url ?? ''}`);
    case 'grpc':
      return clip(`grpc ${node.service ?? ''}/${node.method ?? ''}`);
    case 'mockVerify':
      return clip(`verify ${node.method ?? 'any'} ${node.path ?? '(any path)'}`);
    default:
      return '';
  }
}

/** `API 'login'`: a node's type and its name (or id), as announcements and menus name it. */
export function nodeTitle(node: FlowNode): string {
  return `${typeLabel(node.type)} '${node.name || node.id}'`;
}

/**
 * Where node `id` stands, for announcements: `into IF 'ok', then, 2 of 3` or `to the top level, 1
 * of 4`; '' when it is not in the flow.
 */
export function describePlace(flow: FlowNode[], id: NodeId): string {
  const at = locate(flow, id);
  if (!at) return '';
  if (at.list.parent === null) return `to the top level, ${at.index + 1} of ${flow.length}`;
  const parent = findById(flow, at.list.parent)!.node;
  const position = `${at.index + 1} of ${childList(parent, at.list.field as ChildField).length}`;
  return `into ${nodeTitle(parent)}, ${listLabel(at.list.field)}, ${position}`;
}
