/**
 * The designer tree's keymap (console/src/designer/tree/keys.ts): key combinations as written in
 * the one KEYMAP table, APG tree navigation over the visible rows, and the edit keys, each run
 * through a real store to check what a user would see change.
 */
import { expect } from 'chai';
import type { FlowNode } from '../../src/domain/types';
import { emptyDoc, findById } from '../../console/src/designer/model/doc';
import { createDesignerStore, type DesignerStore } from '../../console/src/designer/model/store';
import { describePlace } from '../../console/src/designer/model/summary';
import {
  comboOf,
  keyAction,
  KEYMAP,
  visibleIds,
  type KeyAction,
  type KeyInput,
} from '../../console/src/designer/tree/keys';

const api = (id: string): FlowNode => ({ id, type: 'api', request: { method: 'GET', url: '{{base}}/x' } });

/** login, ok (IF: then [me], else [bye]), loop (body [step]), tail */
function store(readOnly = false): DesignerStore {
  return createDesignerStore({
    readOnly,
    doc: {
      ...emptyDoc(),
      flow: [
        api('login'),
        { id: 'ok', type: 'if', condition: 'true', then: [api('me')], else: [api('bye')] },
        { id: 'loop', type: 'loop', count: 2, body: [api('step')] },
        api('tail'),
      ],
    },
  });
}

/** Presses `key` on `s` (with the focus on `focus`, when given) and carries out a command action; answers the action. */
function press(s: DesignerStore, key: KeyInput, focus?: string): KeyAction | undefined {
  if (focus) s.dispatch({ label: 'focus', run: (st) => ({ ...st, focus, selection: [focus] }) });
  const action = keyAction(s.getState(), key);
  if (action?.kind === 'command') s.dispatch(action.command);
  if (action?.kind === 'undo') s.undo();
  if (action?.kind === 'redo') s.redo();
  return action;
}

describe('designer keys: combinations and the keymap table', () => {
  it('writes combinations as the keymap does', () => {
    expect(comboOf({ key: 'z', ctrl: true, shift: true })).to.equal('Ctrl+Shift+Z');
    expect(comboOf({ key: 'Z', metaKey: true, shiftKey: true })).to.equal('Ctrl+Shift+Z'); // ⌘ on macOS
    expect(comboOf({ key: 'ArrowUp', altKey: true })).to.equal('Alt+ArrowUp');
    expect(comboOf({ key: ' ' })).to.equal('Space');
    expect(comboOf({ key: '?', shift: true })).to.equal('?');
    expect(comboOf({ key: 'a' })).to.equal('A');
  });

  it('binds each combination once, and every binding is labelled', () => {
    const combos = KEYMAP.flatMap((b) => b.keys);
    expect(new Set(combos).size).to.equal(combos.length);
    for (const b of KEYMAP) expect(b.label, b.keys.join()).to.match(/\w/);
    for (const wanted of ['Ctrl+Z', 'Ctrl+Shift+Z', 'Ctrl+Y', 'Alt+ArrowUp', 'Alt+ArrowDown', 'Ctrl+C', 'Ctrl+X'])
      expect(combos).to.include(wanted);
    for (const wanted of ['Ctrl+V', 'Ctrl+D', 'Delete', 'Insert', 'Enter', 'Home', 'End', 'Space', 'Ctrl+/'])
      expect(combos).to.include(wanted);
  });
});

describe('designer keys: navigation (APG tree view)', () => {
  it('moves through the visible rows with ↑/↓/Home/End, skipping closed containers', () => {
    const s = store();
    expect(visibleIds(s.getState().doc.flow, s.getState().expanded)).to.deep.equal([
      'login',
      'ok',
      'me',
      'bye',
      'loop',
      'step',
      'tail',
    ]);
    press(s, { key: 'ArrowDown' }, 'login');
    press(s, { key: 'ArrowDown' });
    expect(s.getState().focus).to.equal('me');
    expect(s.getState().selection).to.deep.equal(['me']);
    press(s, { key: 'End' });
    expect(s.getState().focus).to.equal('tail');
    press(s, { key: 'ArrowDown' });
    expect(s.getState().focus).to.equal('tail'); // stays on the last row
    press(s, { key: 'Home' });
    expect(s.getState().focus).to.equal('login');
    press(s, { key: 'ArrowLeft' }, 'ok'); // open container: closes it
    expect(s.getState().expanded.has('ok')).to.equal(false);
    press(s, { key: 'ArrowDown' });
    expect(s.getState().focus).to.equal('loop'); // me and bye are hidden
  });

  it('→ opens a container, then enters it; ← goes to the parent', () => {
    const s = store();
    press(s, { key: 'ArrowLeft' }, 'loop');
    expect(s.getState().expanded.has('loop')).to.equal(false);
    press(s, { key: 'ArrowRight' });
    expect(s.getState().expanded.has('loop')).to.equal(true);
    expect(s.getState().focus).to.equal('loop');
    press(s, { key: 'ArrowRight' });
    expect(s.getState().focus).to.equal('step');
    press(s, { key: 'ArrowLeft' });
    expect(s.getState().focus).to.equal('loop');
    expect(press(s, { key: 'ArrowRight' }, 'tail')).to.equal(undefined); // a leaf has nothing to open
  });

  it('Ctrl+↓ moves the focus without selecting; Space adds to the selection; Shift+↓ extends it', () => {
    const s = store();
    press(s, { key: 'ArrowDown', ctrl: true }, 'login');
    expect(s.getState()).to.deep.include({ focus: 'ok', selection: ['login'] });
    press(s, { key: ' ' });
    expect(s.getState().selection).to.deep.equal(['login', 'ok']);
    press(s, { key: 'ArrowDown', shift: true });
    expect(s.getState().selection).to.deep.equal(['login', 'ok', 'me']);
  });

  it('Enter opens the focused node; ? shows the keys; Shift+F10 opens the row menu', () => {
    const s = store();
    expect(press(s, { key: 'Enter' }, 'me')).to.deep.equal({ kind: 'open', id: 'me' });
    expect(press(s, { key: '?', shift: true })).to.deep.equal({ kind: 'help' });
    expect(press(s, { key: 'F10', shift: true })).to.deep.equal({ kind: 'menu', id: 'me' });
    expect(press(s, { key: 'q' })).to.equal(undefined);
  });
});

describe('designer keys: edits', () => {
  it('Alt+↓ / Alt+↑ move the node within and across lists, and Ctrl+Z / Ctrl+Shift+Z / Ctrl+Y undo and redo', () => {
    const s = store();
    press(s, { key: 'ArrowDown', alt: true }, 'login');
    expect(describePlace(s.getState().doc.flow, 'login')).to.equal("into IF 'ok', then, 1 of 2");
    press(s, { key: 'ArrowDown', alt: true });
    press(s, { key: 'ArrowDown', alt: true });
    expect(describePlace(s.getState().doc.flow, 'login')).to.equal("into IF 'ok', else, 1 of 2");
    press(s, { key: 'ArrowUp', alt: true });
    expect(describePlace(s.getState().doc.flow, 'login')).to.equal("into IF 'ok', then, 2 of 2");
    expect(s.getState().focus).to.equal('login');
    press(s, { key: 'z', ctrl: true });
    expect(describePlace(s.getState().doc.flow, 'login')).to.equal("into IF 'ok', else, 1 of 2");
    press(s, { key: 'Z', ctrl: true, shift: true });
    expect(describePlace(s.getState().doc.flow, 'login')).to.equal("into IF 'ok', then, 2 of 2");
    press(s, { key: 'z', ctrl: true });
    press(s, { key: 'y', ctrl: true });
    expect(describePlace(s.getState().doc.flow, 'login')).to.equal("into IF 'ok', then, 2 of 2");
  });

  it('Delete removes the selection, Ctrl+D duplicates, Ctrl+/ disables and enables', () => {
    const s = store();
    press(s, { key: 'd', ctrl: true }, 'tail');
    expect(s.getState().doc.flow.map((n) => n.id)).to.deep.equal(['login', 'ok', 'loop', 'tail', 'tail1']);
    expect(s.getState().focus).to.equal('tail1');
    press(s, { key: '/', ctrl: true });
    expect((findById(s.getState().doc.flow, 'tail1')!.node as { disabled?: boolean }).disabled).to.equal(true);
    press(s, { key: '/', ctrl: true });
    expect('disabled' in findById(s.getState().doc.flow, 'tail1')!.node).to.equal(false);
    press(s, { key: 'Delete' });
    expect(s.getState().doc.flow.map((n) => n.id)).to.deep.equal(['login', 'ok', 'loop', 'tail']);
    expect(s.getState().focus).to.equal('tail');
  });

  it('Ctrl+C / Ctrl+X act on the selection holding the focus; Ctrl+V and Insert place after the focused node', () => {
    const s = store();
    press(s, { key: 'ArrowDown', shift: true }, 'login');
    expect(press(s, { key: 'c', ctrl: true })).to.deep.equal({ kind: 'copy', ids: ['login', 'ok'] });
    expect(press(s, { key: 'x', ctrl: true })).to.deep.equal({ kind: 'cut', ids: ['login', 'ok'] });
    expect(press(s, { key: 'v', ctrl: true }, 'me')).to.deep.equal({
      kind: 'paste',
      place: { parent: 'ok', field: 'then', index: 1 },
    });
    expect(press(s, { key: 'Insert' })).to.deep.equal({
      kind: 'palette',
      place: { parent: 'ok', field: 'then', index: 1 },
    });
    expect(press(s, { key: 'Insert', shift: true }, 'loop')).to.deep.equal({
      kind: 'palette',
      place: { parent: 'loop', field: 'body', index: 1 },
    });
    expect(press(s, { key: 'Insert', shift: true }, 'tail')).to.equal(undefined);
    const empty = createDesignerStore({ doc: emptyDoc() });
    expect(keyAction(empty.getState(), { key: 'a' })).to.deep.equal({
      kind: 'palette',
      place: { parent: null, field: 'flow', index: 0 },
    });
  });

  it('offers no edit key when read-only, but still navigates and copies', () => {
    const s = store(true);
    expect(press(s, { key: 'Delete' }, 'login')).to.equal(undefined);
    expect(press(s, { key: 'ArrowDown', alt: true })).to.equal(undefined);
    expect(press(s, { key: 'z', ctrl: true })).to.equal(undefined);
    expect(press(s, { key: 'Insert' })).to.equal(undefined);
    expect(press(s, { key: 'c', ctrl: true })).to.deep.equal({ kind: 'copy', ids: ['login'] });
    press(s, { key: 'ArrowDown' });
    expect(s.getState().focus).to.equal('ok');
  });
});
