/** The one description of flow trees (src/flow/tree.ts): child fields, walk order and paths, copies. */
import { expect } from 'chai';
import { childLists, countNodes, forEachNode, mapChildLists } from '../../src/flow/tree';
import type { FlowNode } from '../../src/domain/types';

const api = (id: string): FlowNode =>
  ({ id, type: 'api', request: { method: 'GET', url: 'http://127.0.0.1/' } }) as FlowNode;
const tree = [
  api('a'),
  {
    id: 'if',
    type: 'if',
    condition: 'true',
    then: [api('t')],
    else: [{ id: 'par', type: 'parallel', children: [api('p1'), api('p2')] }],
  },
  { id: 'loop', type: 'loop', count: 3, body: [{ id: 'it', type: 'iteration', items: '[1]', body: [api('b')] }] },
] as FlowNode[];

describe('flow trees', () => {
  it('names the child fields of every container node, then before else', () => {
    expect(childLists(tree[1]!).map((l) => l.field)).to.deep.equal(['then', 'else']);
    expect(childLists(tree[2]!).map((l) => l.field)).to.deep.equal(['body']);
    expect(childLists((tree[1] as { else: FlowNode[] }).else[0]!).map((l) => l.field)).to.deep.equal(['children']);
    expect(childLists(tree[0]!)).to.deep.equal([]);
  });

  it('walks depth first, a node before its children, with paths into the document', () => {
    const seen: string[] = [];
    forEachNode(tree, (n, path) => seen.push(`${n.id}@${path.join('.')}`), ['flow']);
    expect(seen).to.deep.equal([
      'a@flow.0',
      'if@flow.1',
      't@flow.1.then.0',
      'par@flow.1.else.0',
      'p1@flow.1.else.0.children.0',
      'p2@flow.1.else.0.children.1',
      'loop@flow.2',
      'it@flow.2.body.0',
      'b@flow.2.body.0.body.0',
    ]);
    expect(countNodes(tree)).to.equal(9);
  });

  it('copies a node with its child lists replaced, leaving the original alone', () => {
    const copy = mapChildLists(tree[1]!, (nodes, field) => (field === 'else' ? [] : nodes));
    expect((copy as { else: FlowNode[] }).else).to.deep.equal([]);
    expect((tree[1] as { else: FlowNode[] }).else).to.have.length(1);
    expect(mapChildLists(tree[0]!, () => [])).to.equal(tree[0]);
  });
});
