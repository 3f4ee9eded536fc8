/**
 * The test-case designer's document model (console/src/designer/model, docs/console.md
 * "The designer"): path addressing, the pure operations with structural sharing, paste with id renaming,
 * the snapshot history with coalescing and its cap, the store, node templates (each accepted by
 * the server's own flow validation) and the one-line summaries.
 */
import { expect } from 'chai';
import type { FlowNode } from '../../src/domain/types';
import { NODE_TYPES } from '../../src/domain/types';
import { validateFlow } from '../../src/validation/flow';
import {
  emptyDoc,
  findById,
  fromTestCase,
  newNodeId,
  nodeIds,
  pathToPointer,
  pointerToPath,
  toRequestBody,
  type TestCaseDoc,
} from '../../console/src/designer/model/doc';
import * as ops from '../../console/src/designer/model/ops';
import { parseClipboard, prepareForPaste, serializeNodes } from '../../console/src/designer/model/clipboard';
import { HISTORY_LIMIT } from '../../console/src/designer/model/history';
import { createDesignerStore } from '../../console/src/designer/model/store';
import * as cmd from '../../console/src/designer/model/commands';
import { template } from '../../console/src/designer/model/templates';
import { describePlace, summarize, typeLabel } from '../../console/src/designer/model/summary';

const api = (id: string, url = '{{base}}/x', extra: Record<string, unknown> = {}): FlowNode =>
  ({ id, type: 'api', request: { method: 'GET', url }, ...extra }) as FlowNode;

/** login (api), ok (if: then [me], else [bye]), loop (body [step]), tail (api). */
function sample(): TestCaseDoc {
  return {
    ...emptyDoc('sample'),
    flow: [
      api('login', '{{base}}/login'),
      {
        id: 'ok',
        type: 'if',
        condition: 'nodes.login.response.status = 200',
        then: [api('me', '{{base}}/me')],
        else: [api('bye')],
      },
      { id: 'loop', type: 'loop', count: 2, body: [api('step')] },
      api('tail'),
    ],
  };
}

const ids = (flow: FlowNode[]) => flow.map((n) => n.id);

describe('designer model: addressing', () => {
  it('turns API error pointers into paths and back', () => {
    expect(pointerToPath('#/flow/2/then/0/request/url')).to.deep.equal(['flow', 2, 'then', 0, 'request', 'url']);
    expect(pointerToPath('/flow/0')).to.deep.equal(['flow', 0]);
    expect(pointerToPath('#/flow/0/request/headers/a~1b~0c')).to.deep.equal(['flow', 0, 'request', 'headers', 'a/b~c']);
    expect(pointerToPath('#/flow/0/set/a%20b')).to.deep.equal(['flow', 0, 'set', 'a b']);
    expect(pointerToPath('#')).to.deep.equal([]);
    // "01" is a key, not an index (RFC 6901 array indexes have no leading zero).
    expect(pointerToPath('#/flow/01')).to.deep.equal(['flow', '01']);
    expect(pathToPointer(['flow', 2, 'then', 0, 'request', 'url'])).to.equal('#/flow/2/then/0/request/url');
    expect(pointerToPath(pathToPointer(['flow', 0, 'headers', 'a/b~c']))).to.deep.equal([
      'flow',
      0,
      'headers',
      'a/b~c',
    ]);
  });

  it('finds nodes by id with their path, and makes fresh ids', () => {
    const doc = sample();
    expect(findById(doc.flow, 'bye')?.path).to.deep.equal(['flow', 1, 'else', 0]);
    expect(findById(doc.flow, 'step')?.path).to.deep.equal(['flow', 2, 'body', 0]);
    expect(findById(doc.flow, 'nope')).to.equal(undefined);
    expect([...nodeIds(doc.flow)].sort()).to.deep.equal(['bye', 'login', 'loop', 'me', 'ok', 'step', 'tail']);
    expect(newNodeId(doc.flow, 'loop')).to.equal('loop1');
    expect(newNodeId(new Set(['api1', 'api2']), 'api')).to.equal('api3');
    expect(newNodeId(new Set(), 'my-node 7')).to.equal('mynode1');
    expect(newNodeId(new Set(), '9lives')).to.equal('n9lives1');
  });

  it('reads a test case as the API answers it and writes every field back', () => {
    const { doc, server } = fromTestCase({
      id: 'tc_1',
      name: 'n',
      folder: 'f',
      description: 'd',
      tags: ['a'],
      flow: [api('a')],
      dataSets: [],
      hooks: { code: 'x' },
      authProfile: 'main',
      reusable: true,
      version: 3,
      updatedAt: '2025-01-01T00:00:00.000Z',
    });
    expect(server).to.deep.equal({ id: 'tc_1', version: 3, updatedAt: '2025-01-01T00:00:00.000Z' });
    expect(toRequestBody(doc)).to.deep.equal({
      name: 'n',
      folder: 'f',
      description: 'd',
      tags: ['a'],
      flow: [api('a')],
      dataSets: [],
      hooks: { code: 'x' },
      authProfile: 'main',
      reusable: true,
    });
    expect(toRequestBody(emptyDoc()).hooks).to.equal(null);
  });
});

describe('designer model: operations', () => {
  it('inserts with structural sharing: untouched nodes keep their identity', () => {
    const doc = sample();
    const next = ops.insert(doc, ['flow', 1, 'then'], 1, [api('new1')]);
    expect(ids((next.flow[1] as { then: FlowNode[] }).then)).to.deep.equal(['me', 'new1']);
    expect(next.flow[0]).to.equal(doc.flow[0]);
    expect(next.flow[2]).to.equal(doc.flow[2]);
    expect((next.flow[1] as { else: FlowNode[] }).else).to.equal((doc.flow[1] as { else: FlowNode[] }).else);
    expect(doc.flow[1]).to.not.equal(next.flow[1]);
    expect(ids((doc.flow[1] as { then: FlowNode[] }).then)).to.deep.equal(['me']); // not mutated
  });

  it('creates an IF else list when inserting into it, and refuses a clashing id', () => {
    const doc = { ...emptyDoc(), flow: [{ id: 'c', type: 'if', condition: 'true', then: [] } as FlowNode] };
    const next = ops.insert(doc, ['flow', 0, 'else'], 0, [api('e')]);
    expect(ids((next.flow[0] as { else: FlowNode[] }).else)).to.deep.equal(['e']);
    expect(() => ops.insert(next, ['flow'], 0, [api('e')])).to.throw(ops.OpError, 'already used');
    expect(() => ops.insert(next, ['flow', 0, 'body'], 0, [api('z')])).to.throw(ops.OpError);
  });

  it('removes nodes with their subtrees', () => {
    const doc = sample();
    const next = ops.remove(doc, ['ok', 'step']);
    expect(ids(next.flow)).to.deep.equal(['login', 'loop', 'tail']);
    expect((next.flow[1] as { body: FlowNode[] }).body).to.deep.equal([]);
    expect(ops.remove(doc, ['nothing'])).to.equal(doc);
  });

  it('refuses to move a node into its own subtree', () => {
    const doc = sample();
    expect(() => ops.move(doc, 'ok', ['flow', 1, 'then'], 0)).to.throw(ops.OpError, 'into itself');
    const nested = ops.insert(doc, ['flow', 1, 'then'], 0, [
      { id: 'inner', type: 'loop', count: 1, body: [] } as FlowNode,
    ]);
    expect(() => ops.move(nested, 'ok', ['flow', 1, 'then', 0, 'body'], 0)).to.throw(ops.OpError, 'into itself');
    // Into a sibling container is fine.
    const moved = ops.move(doc, 'ok', ['flow', 2, 'body'], 1);
    expect(ids(moved.flow)).to.deep.equal(['login', 'loop', 'tail']);
    expect(ids((moved.flow[1] as { body: FlowNode[] }).body)).to.deep.equal(['step', 'ok']);
    expect((moved.flow[1] as { body: FlowNode[] }).body[1]).to.equal(doc.flow[1]); // the node itself, not a copy
  });

  it('shifts the index of a move within one list (index counts the list before the move)', () => {
    const doc = { ...emptyDoc(), flow: [api('a'), api('b'), api('c')] };
    expect(ids(ops.move(doc, 'a', ['flow'], 2).flow)).to.deep.equal(['b', 'a', 'c']);
    expect(ids(ops.move(doc, 'a', ['flow'], 3).flow)).to.deep.equal(['b', 'c', 'a']);
    expect(ids(ops.move(doc, 'c', ['flow'], 0).flow)).to.deep.equal(['c', 'a', 'b']);
    expect(ops.move(doc, 'a', ['flow'], 1)).to.equal(doc); // before the next node: where it is
    expect(ops.move(doc, 'b', ['flow'], 1)).to.equal(doc);
  });

  it('moves across lists when an earlier sibling of the target is the node moved', () => {
    const doc = sample();
    // login leaves index 0, so the IF shifts to index 0: the target is found by id, not by the stale path.
    const next = ops.move(doc, 'login', ['flow', 1, 'else'], 1);
    expect(ids(next.flow)).to.deep.equal(['ok', 'loop', 'tail']);
    expect(ids((next.flow[0] as { else: FlowNode[] }).else)).to.deep.equal(['bye', 'login']);
  });

  it('sets fields, deletes keys and removes objects a delete leaves empty', () => {
    const doc = { ...emptyDoc(), flow: [api('a', 'u', { assertions: [] })] };
    const withHeader = ops.setField(doc, 'a', ['request', 'headers', 'X-Trace'], '1');
    expect((withHeader.flow[0] as { request: { headers: unknown } }).request.headers).to.deep.equal({ 'X-Trace': '1' });
    const without = ops.setField(withHeader, 'a', ['request', 'headers', 'X-Trace'], undefined);
    expect(without.flow[0]).to.deep.equal(doc.flow[0]);
    expect('headers' in (without.flow[0] as { request: object }).request).to.equal(false);
    expect(ops.setField(doc, 'a', ['request', 'url'], 'u')).to.equal(doc); // same value: same document
    const listed = ops.setField(doc, 'a', ['assertions', 0], { target: 'x', operator: 'exists' });
    expect((listed.flow[0] as { assertions: unknown[] }).assertions).to.have.length(1);
    expect(
      (ops.setField(listed, 'a', ['assertions', 0], undefined).flow[0] as { assertions: unknown[] }).assertions,
    ).to.deep.equal([]);
    expect(() => ops.setField(sample(), 'ok', ['then'], [])).to.throw(ops.OpError, 'child nodes');
    expect(() => ops.setField(doc, 'a', ['type'], 'if')).to.throw(ops.OpError);
    expect(() => ops.setField(doc, 'zz', ['name'], 'x')).to.throw(ops.OpError, 'No node');
  });

  it('renames a node and the nodes.<id> references to it', () => {
    const next = ops.setField(sample(), 'login', ['id'], 'signIn');
    expect(ids(next.flow)[0]).to.equal('signIn');
    expect((next.flow[1] as { condition: string }).condition).to.equal('nodes.signIn.response.status = 200');
    expect(() => ops.setField(sample(), 'login', ['id'], 'tail')).to.throw(ops.OpError, 'already used');
    expect(() => ops.setField(sample(), 'login', ['id'], '1bad')).to.throw(ops.OpError);
  });

  it('toggles disabled: true on, and removes the key to enable', () => {
    const doc = sample();
    const off = ops.toggleDisabled(doc, ['login', 'tail']);
    expect((off.flow[0] as { disabled?: boolean }).disabled).to.equal(true);
    expect(off.flow[1]).to.equal(doc.flow[1]);
    const on = ops.toggleDisabled(off, ['login', 'tail']);
    expect(on.flow[0]).to.deep.equal(doc.flow[0]);
    expect('disabled' in on.flow[0]!).to.equal(false);
  });

  it('wraps siblings in IF, Loop or Parallel and unwraps', () => {
    const doc = sample();
    const wrapped = ops.wrap(doc, ['tail', 'login'], 'loop', 'again');
    expect(ids(wrapped.flow)).to.deep.equal(['again', 'ok', 'loop']);
    expect(ids((wrapped.flow[0] as { body: FlowNode[] }).body)).to.deep.equal(['login', 'tail']);
    expect(() => ops.wrap(doc, ['login', 'me'], 'if')).to.throw(ops.OpError, 'one list');
    const lanes = ops.wrap(doc, ['login'], 'parallel');
    expect(lanes.flow[0]!.type).to.equal('parallel');
    expect(ids(ops.unwrap(wrapped, 'again').flow)).to.deep.equal(['login', 'tail', 'ok', 'loop']);
    expect(ids(ops.unwrap(doc, 'ok').flow)).to.deep.equal(['login', 'me', 'bye', 'loop', 'tail']);
    expect(() => ops.unwrap(doc, 'login')).to.throw(ops.OpError);
  });

  it('duplicates with fresh ids, renaming references inside the copy only', () => {
    const doc = {
      ...emptyDoc(),
      flow: [
        {
          id: 'grp',
          type: 'if',
          condition: 'true',
          then: [
            api('get'),
            { id: 'chk', type: 'assert', assertions: [{ target: 'nodes.get.response.status', operator: 'exists' }] },
          ],
        } as FlowNode,
        {
          id: 'after',
          type: 'assert',
          assertions: [{ target: 'nodes.get.response.status', operator: 'exists' }],
        } as FlowNode,
      ],
    };
    const next = ops.duplicate(doc, ['grp']);
    expect(ids(next.flow)).to.deep.equal(['grp', 'grp1', 'after']);
    const copy = next.flow[1] as { then: Array<FlowNode & { assertions?: Array<{ target: string }> }> };
    expect(ids(copy.then)).to.deep.equal(['get1', 'chk1']);
    expect(copy.then[1]!.assertions![0]!.target).to.equal('nodes.get1.response.status');
    expect((next.flow[2] as { assertions: Array<{ target: string }> }).assertions[0]!.target).to.equal(
      'nodes.get.response.status',
    );
    expect(next.flow[0]).to.equal(doc.flow[0]);
  });
});

describe('designer model: clipboard', () => {
  it('parses a node, a list of nodes and a whole test case; refuses what is not nodes', () => {
    const one = parseClipboard(JSON.stringify(api('a')));
    expect(one.ok && one.nodes.map((n) => n.id)).to.deep.equal(['a']);
    const list = parseClipboard(serializeNodes([api('a'), api('b')]));
    expect(list.ok && list.nodes).to.have.length(2);
    const tc = parseClipboard(JSON.stringify({ name: 'x', flow: [api('c')] }));
    expect(tc.ok && tc.nodes.map((n) => n.id)).to.deep.equal(['c']);
    expect(parseClipboard('GET /x').ok).to.equal(false);
    const bad = parseClipboard(JSON.stringify([api('a'), { type: 'teleport' }]));
    expect(bad).to.deep.include({ ok: false });
    expect(!bad.ok && bad.error).to.match(/Item 2/);
    const deep = parseClipboard(JSON.stringify({ id: 'i', type: 'if', condition: 'true', then: [42] }));
    expect(deep.ok).to.equal(false);
  });

  it('renames clashing ids on paste, and the nodes.<old> references inside the pasted subtree', () => {
    const doc = sample();
    const parsed = parseClipboard(
      JSON.stringify([
        api('login'),
        {
          type: 'assert',
          id: 'check',
          assertions: [
            { target: 'nodes.login.response.status', operator: 'equals', expected: 200 },
            { target: 'nodes.`login`.response.body', operator: 'exists' },
            { target: 'nodes.tail.response.status', operator: 'exists' },
            { target: 'nodes.loginx.response.status', operator: 'exists' },
          ],
        },
        { type: 'wait', ms: 1 },
      ]),
    );
    if (!parsed.ok) throw new Error(parsed.error);
    const ready = prepareForPaste(parsed.nodes, nodeIds(doc.flow));
    expect(ready.map((n) => n.id)).to.deep.equal(['login1', 'check', 'wait1']);
    const targets = (ready[1] as { assertions: Array<{ target: string }> }).assertions.map((a) => a.target);
    expect(targets).to.deep.equal([
      'nodes.login1.response.status',
      'nodes.`login1`.response.body',
      'nodes.tail.response.status', // a node outside the paste keeps its name
      'nodes.loginx.response.status',
    ]);
    const store = createDesignerStore({ doc });
    const result = store.dispatch(cmd.pasteNodes({ parent: 'ok', field: 'then', index: 1 }, parsed.nodes));
    expect(result).to.deep.include({ ok: true, changed: true });
    const then = (store.getState().doc.flow[1] as { then: FlowNode[] }).then;
    expect(ids(then)).to.deep.equal(['me', 'login1', 'check', 'wait1']);
    expect(store.getState().selection).to.deep.equal(['login1', 'check', 'wait1']);
    expect(store.getState().past).to.have.length(1); // one paste, one undo step
  });
});

describe('designer model: store and history', () => {
  it('merges edits of one field within 1 s into one undo step, and not across fields or pauses', () => {
    let clock = 0;
    const store = createDesignerStore({ doc: sample(), now: () => clock });
    for (const url of ['h', 'ht', 'htt', 'http']) {
      store.dispatch(cmd.setNodeField('login', ['request', 'url'], url));
      clock += 400;
    }
    expect(store.getState().past).to.have.length(1);
    clock += 1500;
    store.dispatch(cmd.setNodeField('login', ['request', 'url'], 'https'));
    expect(store.getState().past).to.have.length(2);
    store.dispatch(cmd.setNodeField('login', ['name'], 'Sign in'));
    expect(store.getState().past).to.have.length(3);
    expect(store.undo()).to.equal(true);
    expect(store.undo()).to.equal(true);
    expect((store.getState().doc.flow[0] as { request: { url: string } }).request.url).to.equal('http');
    expect(store.undo()).to.equal(true);
    expect(store.getState().doc).to.equal(store.getState().base.doc);
    expect(store.getState().dirty).to.equal(false);
    expect(store.undo()).to.equal(false);
    expect(store.redo()).to.equal(true);
    expect(store.getState().dirty).to.equal(true);
    expect(store.getState().future).to.have.length(2);
    // A new edit drops the future.
    store.dispatch(cmd.setTestCaseField('name', 'renamed'));
    expect(store.getState().future).to.have.length(0);
  });

  it(`keeps at most ${HISTORY_LIMIT} undo steps`, () => {
    let clock = 0;
    const store = createDesignerStore({ doc: sample(), now: () => (clock += 2000) });
    for (let i = 0; i < HISTORY_LIMIT + 50; i++) store.dispatch(cmd.setTestCaseField('name', `n${i}`));
    expect(store.getState().past).to.have.length(HISTORY_LIMIT);
    let undone = 0;
    while (store.undo()) undone += 1;
    expect(undone).to.equal(HISTORY_LIMIT);
    expect(store.getState().doc.name).to.equal('n49'); // the 50 oldest steps are gone
  });

  it('refuses a move into the own subtree as a dispatch error, with no undo step', () => {
    const store = createDesignerStore({ doc: sample() });
    const before = store.getState();
    const result = store.dispatch(cmd.moveNode('ok', { parent: 'ok', field: 'else', index: 0 }));
    expect(result).to.deep.equal({ ok: false, error: 'A node cannot be moved into itself.' });
    expect(store.getState()).to.equal(before);
  });

  it('announces a move, selects and focuses the node; one drop is one undo step', () => {
    const store = createDesignerStore({ doc: sample() });
    const seen: number[] = [];
    store.subscribe((s) => seen.push(s.past.length));
    const result = store.dispatch(cmd.moveNode('tail', { parent: 'ok', field: 'then', index: 1 }));
    expect(result).to.deep.equal({
      ok: true,
      changed: true,
      announcement: "API 'tail' moved into IF 'ok', then, 2 of 2",
    });
    expect(store.getState().focus).to.equal('tail');
    expect(seen).to.deep.equal([1]);
    store.undo();
    expect(ids(store.getState().doc.flow)).to.deep.equal(['login', 'ok', 'loop', 'tail']);
  });

  it('moves by Alt+arrows through lists: into containers, between IF branches, out of them', () => {
    const store = createDesignerStore({ doc: sample() });
    const where = () => describePlace(store.getState().doc.flow, 'login');
    store.dispatch(cmd.moveStep('login', false));
    expect(where()).to.equal("into IF 'ok', then, 1 of 2");
    store.dispatch(cmd.moveStep('login', false));
    expect(where()).to.equal("into IF 'ok', then, 2 of 2");
    store.dispatch(cmd.moveStep('login', false));
    expect(where()).to.equal("into IF 'ok', else, 1 of 2");
    store.dispatch(cmd.moveStep('login', false));
    store.dispatch(cmd.moveStep('login', false));
    expect(where()).to.equal('to the top level, 2 of 4');
    store.dispatch(cmd.moveStep('login', true));
    expect(where()).to.equal("into IF 'ok', else, 2 of 2");
    // At the top of the flow there is nowhere to go: no change, no undo step.
    const top = createDesignerStore({ doc: sample() });
    expect(top.dispatch(cmd.moveStep('login', true))).to.deep.equal({ ok: true, changed: false });
  });

  it('is dirty until saved, refuses edits when read-only, and resets', () => {
    const store = createDesignerStore({ doc: sample(), version: 1, updatedAt: 't1' });
    store.dispatch(cmd.setTestCaseField('name', 'x'));
    expect(store.getState().dirty).to.equal(true);
    store.markSaved(store.getState().doc, 2, 't2');
    expect(store.getState()).to.deep.include({ dirty: false });
    expect(store.getState().base).to.deep.include({ version: 2, updatedAt: 't2' });
    expect(store.getState().past).to.have.length(1); // history kept across a save
    store.setReadOnly(true);
    expect(store.dispatch(cmd.setTestCaseField('name', 'y'))).to.deep.include({ ok: false });
    expect(store.dispatch(cmd.setExpanded('ok', false)).ok).to.equal(true); // not an edit
    expect(store.undo()).to.equal(false);
    store.setReadOnly(false);
    store.resetTo(sample(), 3, 't3');
    expect(store.getState()).to.deep.include({ dirty: false, past: [], future: [], focus: 'login' });
    expect([...store.getState().expanded].sort()).to.deep.equal(['loop', 'ok']);
  });

  it('deletes and moves the focus to the next node, else the previous, else the parent', () => {
    const store = createDesignerStore({ doc: sample() });
    store.dispatch(cmd.deleteNodes(['login']));
    expect(store.getState().focus).to.equal('ok');
    store.dispatch(cmd.deleteNodes(['me']));
    expect(store.getState().focus).to.equal('ok');
    store.dispatch(cmd.deleteNodes(['tail']));
    expect(store.getState().focus).to.equal('loop');
  });

  it('expands a container new to the tree, and cut + paste is a move in two steps', () => {
    const store = createDesignerStore({ doc: sample() });
    store.dispatch(cmd.addNode('loop', { parent: null, field: 'flow', index: 0 }));
    const added = store.getState().focus!;
    expect(added).to.equal('loop1');
    expect(store.getState().expanded.has('loop1')).to.equal(true);
    store.dispatch(cmd.cutNodes(['tail']));
    store.dispatch(cmd.pasteNodes({ parent: 'loop1', field: 'body', index: 0 }));
    expect(findById(store.getState().doc.flow, 'tail')?.path).to.deep.equal(['flow', 0, 'body', 0]);
    expect(store.dispatch(cmd.pasteNodes({ parent: null, field: 'flow', index: 0 }, []))).to.deep.include({
      ok: false,
    });
  });
});

describe('designer model: templates and summaries', () => {
  it('makes a node of every type that the server validation accepts', () => {
    for (const type of NODE_TYPES) {
      const node = template(type, { id: 'made', previousApiId: 'first', testCaseId: 'tc_ref' });
      const flow = [template('api', { id: 'first' }), node];
      expect(validateFlow(flow), type).to.deep.equal([]);
      expect(node.type).to.equal(type);
    }
    // An IF with no API node before it starts as `true`, also valid.
    expect(validateFlow([template('if', { id: 'c' })])).to.deep.equal([]);
  });

  it('wrapping and adding through commands keeps the flow valid', () => {
    const store = createDesignerStore({ doc: emptyDoc() });
    store.dispatch(cmd.addNode('api', { parent: null, field: 'flow', index: 0 }));
    store.dispatch(cmd.addNode('if', { parent: null, field: 'flow', index: 1 }));
    const flow = store.getState().doc.flow;
    expect((flow[1] as { condition: string }).condition).to.equal('nodes.api1.response.status = 200');
    store.dispatch(cmd.wrapNodes(['api1'], 'parallel'));
    store.dispatch(cmd.wrapNodes(['if1'], 'if'));
    store.dispatch(cmd.wrapNodes(['parallel1'], 'loop'));
    expect(validateFlow(store.getState().doc.flow)).to.deep.equal([]);
  });

  it('summarises each node in one line', () => {
    const cases: Array<[FlowNode, string]> = [
      [api('a', '{{base}}/users/{{id}}'), 'GET {{base}}/users/{{id}}'],
      [{ id: 'i', type: 'if', condition: 'response.status = 200', then: [] }, 'if response.status = 200'],
      [{ id: 'l', type: 'loop', count: 5, body: [] }, 'loop 5 ×'],
      [{ id: 'w', type: 'loop', while: 'variables.more', body: [] }, 'while variables.more'],
      [{ id: 'e', type: 'iteration', items: 'variables.users', body: [] }, 'for each item in variables.users'],
      [{ id: 'd', type: 'iteration', dataSet: 'users', as: 'user', body: [] }, 'for each user in data set users'],
      [{ id: 'z', type: 'wait', ms: 500 }, 'wait 500 ms'],
      [{ id: 'c', type: 'context', set: { token: 'x', id: 'y' } }, 'set token, id'],
      [{ id: 'r', type: 'ref', testCaseId: 'tc_login', mode: 'ref' }, 'ref tc_login'],
      [{ id: 's', type: 'websocket', url: 'wss://echo.example.com' }, 'ws wss://echo.example.com'],
      [
        { id: 'g', type: 'grpc', target: 't', proto: 'p', service: 'demo.Greeter', method: 'SayHello' },
        'grpc demo.Greeter/SayHello',
      ],
      [{ id: 'v', type: 'mockVerify', method: 'POST', path: '/payments' }, 'verify POST /payments'],
      [{ id: 'p', type: 'parallel', children: [api('x'), api('y')] }, '2 lanes'],
    ];
    for (const [node, line] of cases) expect(summarize(node), node.type).to.equal(line);
    expect(summarize(api('long', `{{base}}/${'x'.repeat(200)}`)).length).to.be.at.most(80);
    expect(typeLabel('websocket')).to.equal('WebSocket');
    expect(typeLabel('grpc')).to.equal('gRPC');
  });
});
