/**
 * Copy and paste of nodes as JSON text: what the tree puts on the
 * system clipboard (and keeps in its own), and what it accepts back: one node, a list of nodes, or
 * a whole test case (`{"name": …, "flow": [...]}`, as `GET /v1/test-cases/{id}` answers), from
 * this test case, another one, or a text editor. Pasted nodes get fresh ids where theirs clash
 * (ops.ts `withFreshIds`), and `nodes.<old>` references inside the pasted subtree follow the
 * renaming. The browser's clipboard itself is used in tree/, not here.
 */
import { NODE_TYPES } from '../../../../src/domain/types';
import { childLists } from '../../../../src/flow/tree';
import type { FlowNode, NodeId } from './doc';
import { withFreshIds } from './ops';

export { withFreshIds };

/** The JSON text of copied nodes: a list, two-space indented (what a paste into the JSON view or a file expects). */
export function serializeNodes(nodes: FlowNode[]): string {
  return JSON.stringify(nodes, null, 2);
}

/** What {@link parseClipboard} makes of a text: nodes, or why they are not. */
export type ParsedClipboard = { ok: true; nodes: FlowNode[] } | { ok: false; error: string };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function nodeProblem(value: unknown, where: string): string | undefined {
  if (!isObject(value)) return `${where} is not a node (an object with a "type").`;
  if (typeof value.type !== 'string' || !(NODE_TYPES as readonly string[]).includes(value.type))
    return `${where} has no known node type (${NODE_TYPES.join(', ')}).`;
  for (const { field, nodes } of childLists(value as unknown as FlowNode))
    for (let i = 0; i < nodes.length; i++) {
      const problem = nodeProblem(nodes[i], `${where} ${field} ${i + 1}`);
      if (problem) return problem;
    }
  return undefined;
}

/**
 * Reads pasted text: JSON of one node, a list of nodes, or a test case with a `flow` list. Only the
 * shape that makes nodes is checked here (objects with a known `type`, through child lists); the
 * rest is the server's to judge when the test case is saved. Errors are sentences for the user.
 */
export function parseClipboard(text: string): ParsedClipboard {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, error: 'The clipboard holds no JSON nodes.' };
  }
  let nodes: unknown[];
  if (Array.isArray(value)) nodes = value;
  else if (isObject(value) && Array.isArray(value.flow) && typeof value.type !== 'string') nodes = value.flow;
  else nodes = [value];
  if (nodes.length === 0) return { ok: false, error: 'The clipboard holds an empty list of nodes.' };
  for (let i = 0; i < nodes.length; i++) {
    const problem = nodeProblem(nodes[i], nodes.length === 1 ? 'The pasted value' : `Item ${i + 1}`);
    if (problem) return { ok: false, error: problem };
  }
  return { ok: true, nodes: nodes as FlowNode[] };
}

/** `nodes` ready to insert into a tree whose ids are `used`: {@link withFreshIds} on a copy of `used`. */
export function prepareForPaste(nodes: FlowNode[], used: ReadonlySet<NodeId>): FlowNode[] {
  return withFreshIds(nodes, new Set(used));
}
