/**
 * Renaming `nodes.<id>` references: when pasted or duplicated nodes get new ids (clash renaming),
 * or a node is renamed, the expressions and templates that read `nodes.<old>` are rewritten to
 * `nodes.<new>`. A reference is `nodes.<id>` (or JSONata's quoted `` nodes.`<id>` ``) in any string
 * of a node's own fields (conditions, assertion targets, `{{…}}` templates, script code); child
 * lists are visited as nodes, and a Ref node's `flow` (a sub-flow with ids of its own) is left as
 * it is. Pure; unchanged parts keep their identity.
 */
import { childLists, mapChildLists } from '../../../../src/flow/tree';
import type { FlowNode, NodeId } from './doc';

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A function that rewrites the references of `map` (old id → new id) in one string. */
export function referenceRewriter(map: ReadonlyMap<NodeId, NodeId>): (text: string) => string {
  if (map.size === 0) return (text) => text;
  const alternatives = [...map.keys()]
    .sort((a, b) => b.length - a.length)
    .map(escape)
    .join('|');
  const pattern = new RegExp(`\\bnodes\\.(?:\`(${alternatives})\`|(${alternatives})(?![A-Za-z0-9_-]))`, 'g');
  return (text) =>
    text.includes('nodes.')
      ? text.replace(pattern, (_m, quoted: string | undefined, plain: string | undefined) =>
          quoted !== undefined ? `nodes.\`${map.get(quoted)}\`` : `nodes.${map.get(plain!)}`,
        )
      : text;
}

function mapStrings(value: unknown, fn: (text: string) => string): unknown {
  if (typeof value === 'string') return fn(value);
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((v) => {
      const next = mapStrings(v, fn);
      if (next !== v) changed = true;
      return next;
    });
    return changed ? out : value;
  }
  if (typeof value === 'object' && value !== null) {
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const next = mapStrings(v, fn);
      if (next !== v) changed = true;
      out[k] = next;
    }
    return changed ? out : value;
  }
  return value;
}

/**
 * `flow` with every `nodes.<old>` reference of `map` rewritten to `nodes.<new>` (ids themselves
 * are not changed here). Nodes without such a reference keep their identity.
 */
export function renameReferences(flow: FlowNode[], map: ReadonlyMap<NodeId, NodeId>): FlowNode[] {
  const rewrite = referenceRewriter(map);
  const visit = (list: FlowNode[]): FlowNode[] => {
    let changed = false;
    const out = list.map((node) => {
      const skip = new Set<string>(['id', 'type', ...childLists(node).map((l) => l.field)]);
      if (node.type === 'ref') skip.add('flow');
      let own: Record<string, unknown> | undefined;
      for (const [k, v] of Object.entries(node)) {
        if (skip.has(k)) continue;
        const next = mapStrings(v, rewrite);
        if (next !== v) (own ??= { ...node })[k] = next;
      }
      let kids = false;
      const base = (own as FlowNode | undefined) ?? node;
      const rebuilt = mapChildLists(base, (nodes) => {
        const next = visit(nodes);
        if (next !== nodes) kids = true;
        return next;
      });
      const result = own || kids ? rebuilt : node;
      if (result !== node) changed = true;
      return result;
    });
    return changed ? out : list;
  };
  return visit(flow);
}
