/**
 * What `{{…}}` completion offers in a node's form (docs/console.md "The designer"): the chosen
 * environment's variables and servers, the data sets' columns, variables set by nodes before the
 * node (Context `set`, Script `variable`, API `extract`, Iteration `as`), and `nodes.<id>.response…`
 * of the API nodes before it. (Servers are chosen by name in a node's own field, not here.) Pure.
 */
import { forEachNode } from '../../../../src/flow/tree';
import type { FlowNode, TestCaseDoc } from '../model/doc';

/** One completion item: the name to insert and a word on where it comes from. */
export interface CompletionVariable {
  name: string;
  detail: string;
}

/** The column names of a data set: a JSON data set's first row's keys, a CSV data set's header. */
function columns(ds: TestCaseDoc['dataSets'][number]): string[] {
  const record = ds as unknown as Record<string, unknown>;
  if (Array.isArray(record.data)) {
    const first = record.data[0];
    return first && typeof first === 'object' && !Array.isArray(first) ? Object.keys(first) : [];
  }
  if (typeof record.csv === 'string') {
    const header = record.csv.split(/\r?\n/, 1)[0] ?? '';
    return header
      .split(',')
      .map((c) => c.trim().replace(/^"|"$/g, ''))
      .filter(Boolean);
  }
  return [];
}

/** The variables node `nodeId` can read (all of them when `nodeId` is undefined), without duplicates. */
export function completionVariables(
  doc: TestCaseDoc,
  nodeId: string | undefined,
  environment: { variables?: Record<string, unknown>; servers?: Record<string, unknown> } | undefined,
): CompletionVariable[] {
  const out = new Map<string, string>();
  const add = (name: string, detail: string) => {
    if (name && !out.has(name)) out.set(name, detail);
  };
  for (const name of Object.keys(environment?.variables ?? {})) add(name, 'environment');
  for (const ds of doc.dataSets) for (const c of columns(ds)) add(c, `data set ${ds.name}`);
  let reached = false;
  forEachNode(doc.flow, (node: FlowNode) => {
    if (reached) return;
    if (node.id === nodeId) {
      reached = true;
      return;
    }
    const n = node as unknown as Record<string, unknown>;
    if (node.type === 'context' && n.set && typeof n.set === 'object')
      for (const name of Object.keys(n.set)) add(name, `set by ${node.id}`);
    if (node.type === 'script' && typeof n.variable === 'string') add(n.variable, `set by ${node.id}`);
    if (node.type === 'iteration') add(typeof n.as === 'string' ? n.as : 'item', `item of ${node.id}`);
    if (node.type === 'api') {
      if (n.extract && typeof n.extract === 'object')
        for (const name of Object.keys(n.extract)) add(name, `extracted by ${node.id}`);
      add(`nodes.${node.id}.response.body`, `response of ${node.id}`);
      add(`nodes.${node.id}.response.status`, `status of ${node.id}`);
    }
  });
  return [...out].map(([name, detail]) => ({ name, detail }));
}
