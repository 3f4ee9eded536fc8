/**
 * What changed between two versions of a test case, in words a person reads in the save-conflict
 * dialog (docs/console.md "The designer"): the test case fields that differ, and the nodes added,
 * removed or changed (matched by id, wherever they are in the tree). Pure.
 */
import { forEachNode } from '../../../../src/flow/tree';
import { DOC_KEYS, type FlowNode, type TestCaseDoc } from '../model/doc';

/** The differences of `theirs` from `mine`. */
export interface DocChanges {
  /** Test case fields other than the flow whose values differ. */
  fields: string[];
  /** Node ids only in `theirs`. */
  added: string[];
  /** Node ids only in `mine`. */
  removed: string[];
  /** Node ids in both whose content differs (children aside). */
  changed: string[];
}

/** A node without its child lists, as comparable text. */
function ownContent(node: FlowNode): string {
  const { then: _t, else: _e, body: _b, children: _c, ...own } = node as unknown as Record<string, unknown>;
  return JSON.stringify(own);
}

function nodesById(flow: FlowNode[]): Map<string, string> {
  const out = new Map<string, string>();
  forEachNode(flow, (node) => {
    if (typeof node.id === 'string') out.set(node.id, ownContent(node));
  });
  return out;
}

/** What `theirs` has that `mine` has not, field by field and node by node. */
export function docChanges(mine: TestCaseDoc, theirs: TestCaseDoc): DocChanges {
  const fields = DOC_KEYS.filter(
    (k) => k !== 'flow' && JSON.stringify(mine[k] ?? null) !== JSON.stringify(theirs[k] ?? null),
  );
  const a = nodesById(mine.flow);
  const b = nodesById(theirs.flow);
  return {
    fields: [...fields],
    added: [...b.keys()].filter((id) => !a.has(id)),
    removed: [...a.keys()].filter((id) => !b.has(id)),
    changed: [...b.keys()].filter((id) => a.has(id) && a.get(id) !== b.get(id)),
  };
}
