/**
 * The flow as a tree: the WAI-ARIA APG Tree View pattern
 * (https://www.w3.org/WAI/ARIA/apg/patterns/treeview/) — `tree`, `treeitem`, `group`,
 * `aria-level`/`aria-setsize`/`aria-posinset`/`aria-expanded`/`aria-selected`, one tab stop
 * (roving `tabindex` on the focused row). Each row shows the node's name (or id), type and summary,
 * its result after a debug run (status and duration, from `results`), a count of its problems
 * (from `problems`), and is greyed when disabled. IF `then`/`else`, Loop and Iteration `body` and
 * Parallel `lanes` are labelled groups; an empty one offers "Add node here" and takes drops.
 *
 * Keys come from keys.ts (`KEYMAP`), drag and drop from dnd.ts, the palette (Palette.tsx) and the
 * row's menu (NodeMenu.tsx) dispatch commands (model/commands.ts); every move is announced in an
 * `aria-live` region. Rows are pure components keyed and compared by node identity: an edit
 * re-renders only the rows whose node changed (the model keeps the others' identity).
 *
 * The treeitem's accessible name is the node's name or id alone (`getByRole('treeitem', {name:
 * 'login', exact: true})`); type, summary, result and problems are its description.
 */
import { Component, createContext, type ComponentChildren } from 'preact';
import { useContext, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { NodeResult } from '../../types';
import {
  childFieldsOf,
  childList,
  findById,
  isDisabled,
  type ChildField,
  type FlowNode,
  type NodeId,
} from '../model/doc';
import * as cmd from '../model/commands';
import type { Place } from '../model/commands';
import { parseClipboard, serializeNodes } from '../model/clipboard';
import type { Command, DesignerStore } from '../model/store';
import { listLabel, summarize, typeLabel } from '../model/summary';
import { useDesigner } from '../use-designer';
import { attachList, attachRow, monitorDrops, type RowIndicator } from './dnd';
import { keyAction, KEYMAP, targets } from './keys';
import { NodeMenu } from './NodeMenu';
import { Palette } from './Palette';
import '../designer.css';

/** The tree's props. `results` and `problems` are keyed by node id; `onOpen` is Enter or a double click on a row. */
export interface FlowTreeProps {
  store: DesignerStore;
  /** A debug run's results by node id: each row shows its status and duration. */
  results?: Map<string, NodeResult>;
  /** Problems by node id (from the API's error pointers): each row shows their count. */
  problems?: Map<string, string[]>;
  /** Open the node's form. */
  onOpen?(id: NodeId): void;
  /** The tree's accessible name (default "Flow"). */
  label?: string;
}

/** What every row needs that does not change while the tree lives (so rows do not re-render for it). */
interface TreeContext {
  store: DesignerStore;
  run(command: Command): void;
  open(id: NodeId): void;
  openMenu(id: NodeId, anchor: HTMLElement): void;
  openPalette(place: Place): void;
  /** True when the tree has the keyboard focus (rows then take DOM focus when they become focused). */
  active(): boolean;
}

const Ctx = createContext<TreeContext>(undefined as unknown as TreeContext);
const Overlay = createContext<{ results?: Map<string, NodeResult>; problems?: Map<string, string[]> }>({});

/** The tree of `store`'s flow, with its palette, row menu and live region. */
export function FlowTree({ store, results, problems, onOpen, label = 'Flow' }: FlowTreeProps) {
  const flow = useDesigner(store, (s) => s.doc.flow);
  const readOnly = useDesigner(store, (s) => s.readOnly);
  const [palette, setPalette] = useState<Place | undefined>();
  const [menu, setMenu] = useState<{ id: NodeId; anchor: HTMLElement } | undefined>();
  const [help, setHelp] = useState(false);
  const [said, setSaid] = useState('');
  const treeRef = useRef<HTMLUListElement>(null);
  const openRef = useRef(onOpen);
  openRef.current = onOpen;
  const pasteSeen = useRef(false);
  // Whether the keyboard focus is (or was last, before its row was re-created by a move) in the tree.
  const hadFocus = useRef(false);

  const announce = (text: string) => setSaid((prev) => (prev === text ? `${text}\u00a0` : text));

  const ctx = useMemo<TreeContext>(
    () => ({
      store,
      run(command) {
        const result = store.dispatch(command);
        if (!result.ok) announce(result.error);
        else if (result.announcement) announce(result.announcement);
      },
      open: (id) => openRef.current?.(id),
      openMenu: (id, anchor) => setMenu({ id, anchor }),
      openPalette: (place) => setPalette(place),
      active: () =>
        hadFocus.current &&
        (document.activeElement === document.body ||
          document.activeElement === null ||
          (!!treeRef.current && treeRef.current.contains(document.activeElement))),
    }),
    [store],
  );

  // A new object only when the maps change, so a document edit does not re-render every row.
  const overlay = useMemo(() => ({ results, problems }), [results, problems]);

  useEffect(() => monitorDrops(store, (id, place) => ctx.run(cmd.moveNode(id, place))), [store, ctx]);

  const focusTree = () => {
    // Leave the focus where a dialog (the palette) or another control put it.
    const now = document.activeElement;
    if (now && now !== document.body && !treeRef.current?.contains(now)) return;
    const id = store.getState().focus;
    const row = id ? treeRef.current?.querySelector<HTMLElement>(`[data-node-id="${CSS.escape(id)}"]`) : null;
    (row ?? treeRef.current?.querySelector<HTMLElement>('[role="treeitem"]'))?.focus();
  };

  const writeClipboard = (ids: NodeId[]) => {
    const flowNow = store.getState().doc.flow;
    const nodes = ids.map((id) => findById(flowNow, id)?.node).filter((n): n is FlowNode => !!n);
    navigator.clipboard?.writeText(serializeNodes(nodes)).catch(() => undefined);
  };

  const pasteText = (text: string | undefined, place: Place) => {
    const parsed = text ? parseClipboard(text) : undefined;
    if (parsed?.ok) ctx.run(cmd.pasteNodes(place, parsed.nodes));
    else if (store.getState().clipboard) ctx.run(cmd.pasteNodes(place));
    else announce(parsed && !parsed.ok ? parsed.error : 'Nothing to paste: copy a node first.');
  };

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.target !== event.currentTarget && !(event.target as HTMLElement).matches('[role="treeitem"]')) return;
    const state = store.getState();
    const action = keyAction(state, event);
    if (!action) return;
    if (action.kind !== 'paste') event.preventDefault();
    switch (action.kind) {
      case 'command':
        ctx.run(action.command);
        break;
      case 'undo':
        if (!store.undo()) announce('Nothing to undo');
        else announce('Undone');
        break;
      case 'redo':
        if (!store.redo()) announce('Nothing to redo');
        else announce('Redone');
        break;
      case 'open':
        ctx.open(action.id);
        break;
      case 'palette':
        setPalette(action.place);
        break;
      case 'copy':
        ctx.run(cmd.copyNodes(action.ids));
        writeClipboard(action.ids);
        break;
      case 'cut':
        writeClipboard(action.ids);
        ctx.run(cmd.cutNodes(action.ids));
        break;
      case 'paste': {
        // The browser's paste event (below) brings the system clipboard without a permission
        // prompt; when none comes, read it through the Clipboard API, else the tree's own.
        pasteSeen.current = false;
        const place = action.place;
        setTimeout(() => {
          if (pasteSeen.current) return;
          const read = navigator.clipboard?.readText?.();
          if (read) read.then((text) => pasteText(text, place)).catch(() => pasteText(undefined, place));
          else pasteText(undefined, place);
        }, 0);
        break;
      }
      case 'menu': {
        const row = treeRef.current?.querySelector<HTMLElement>(`[data-node-id="${CSS.escape(action.id)}"] > .dz-row`);
        if (row) setMenu({ id: action.id, anchor: row });
        break;
      }
      case 'help':
        setHelp(true);
        break;
    }
  };

  const onPaste = (event: ClipboardEvent) => {
    pasteSeen.current = true;
    const state = store.getState();
    if (state.readOnly) return;
    event.preventDefault();
    const place = (state.focus && cmd.placeAfter(state.doc.flow, state.focus)) || {
      parent: null,
      field: 'flow' as const,
      index: state.doc.flow.length,
    };
    pasteText(event.clipboardData?.getData('text/plain'), place);
  };

  const onCopy = (event: ClipboardEvent) => {
    const state = store.getState();
    const ids = targets(state, state.focus);
    const nodes = ids.map((id) => findById(state.doc.flow, id)?.node).filter((n): n is FlowNode => !!n);
    if (nodes.length === 0 || !event.clipboardData) return;
    event.clipboardData.setData('text/plain', serializeNodes(nodes));
    event.preventDefault();
  };

  return (
    <Ctx.Provider value={ctx}>
      <Overlay.Provider value={overlay}>
        <div class={`dz-tree-wrap${readOnly ? ' dz-readonly' : ''}`}>
          <ul
            role="tree"
            aria-label={label}
            aria-multiselectable="true"
            aria-readonly={readOnly || undefined}
            class="dz-tree"
            ref={treeRef}
            onKeyDown={onKeyDown}
            onPaste={onPaste}
            onCopy={onCopy}
            onCut={onCopy}
            onFocusIn={() => (hadFocus.current = true)}
            onFocusOut={(e) => {
              const to = e.relatedTarget as Node | null;
              if (to && !treeRef.current?.contains(to)) hadFocus.current = false;
            }}
          >
            <NodeList nodes={flow} level={1} parentId={null} />
          </ul>
          {flow.length === 0 && <EmptyList parentId={null} field="flow" label="The flow has no nodes yet." tabbable />}
          {flow.length > 0 && !readOnly && (
            <div class="dz-tree-actions">
              <button
                type="button"
                class="secondary small"
                title="Insert (after the focused node); Shift+Insert adds inside a container"
                onClick={() => {
                  const state = store.getState();
                  setPalette(
                    (state.focus && cmd.placeAfter(state.doc.flow, state.focus)) || {
                      parent: null,
                      field: 'flow',
                      index: state.doc.flow.length,
                    },
                  );
                }}
              >
                Add node
              </button>{' '}
              <button type="button" class="secondary small" title="?" onClick={() => setHelp(true)}>
                Keyboard shortcuts
              </button>
            </div>
          )}
          <div class="dz-sr-only" aria-live="polite" role="status">
            {said}
          </div>
          {palette && (
            <Palette
              store={store}
              place={palette}
              onClose={(added) => {
                setPalette(undefined);
                if (added) announce(added);
                hadFocus.current = true;
                requestAnimationFrame(focusTree);
              }}
            />
          )}
          {menu && (
            <NodeMenu
              store={store}
              id={menu.id}
              anchor={menu.anchor}
              run={ctx.run}
              onPalette={(place) => setPalette(place)}
              onCopy={(ids) => {
                ctx.run(cmd.copyNodes(ids));
                writeClipboard(ids);
              }}
              onCut={(ids) => {
                writeClipboard(ids);
                ctx.run(cmd.cutNodes(ids));
              }}
              onClose={() => {
                setMenu(undefined);
                hadFocus.current = true;
                requestAnimationFrame(focusTree);
              }}
            />
          )}
          {help && <KeymapHelp onClose={() => (setHelp(false), requestAnimationFrame(focusTree))} />}
        </div>
      </Overlay.Provider>
    </Ctx.Provider>
  );
}

/** The keys of the tree, from the one keymap table (keys.ts `KEYMAP`), in a dialog. */
export function KeymapHelp({ onClose }: { onClose(): void }) {
  const ref = useRef<HTMLButtonElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <div
      class="dz-dialog"
      role="dialog"
      aria-modal="true"
      aria-label="Keyboard shortcuts"
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.preventDefault();
          onClose();
        }
      }}
    >
      <h2>Keyboard shortcuts</h2>
      <table class="dz-keys">
        <tbody>
          {KEYMAP.map((b) => (
            <tr key={b.label}>
              <td>
                {b.keys.map((k, i) => (
                  <span key={k}>
                    {i > 0 && ' or '}
                    <kbd>{k}</kbd>
                  </span>
                ))}
              </td>
              <td>{b.label}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <button type="button" ref={ref} onClick={onClose}>
        Close
      </button>
    </div>
  );
}

/** The rows of one list. Each row is a pure component: it re-renders when its node (or position) changes. */
function NodeList({ nodes, level, parentId }: { nodes: FlowNode[]; level: number; parentId: NodeId | null }) {
  return (
    <>
      {nodes.map((node, i) => (
        <PureRow key={node.id} node={node} level={level} posinset={i + 1} setsize={nodes.length} parentId={parentId} />
      ))}
    </>
  );
}

interface RowProps {
  node: FlowNode;
  level: number;
  posinset: number;
  setsize: number;
  parentId: NodeId | null;
}

/** A row compared by its props' identity (preact/compat's `memo`, without compat). */
class PureRow extends Component<RowProps> {
  override shouldComponentUpdate(next: RowProps) {
    const p = this.props;
    return (
      p.node !== next.node ||
      p.level !== next.level ||
      p.posinset !== next.posinset ||
      p.setsize !== next.setsize ||
      p.parentId !== next.parentId
    );
  }
  override render(props: RowProps) {
    return <Row {...props} />;
  }
}

function statusText(result: NodeResult | undefined): string {
  if (!result) return '';
  return `${result.status} ${Math.round(result.duration)} ms`;
}

function Row({ node, level, posinset, setsize }: RowProps) {
  const ctx = useContext(Ctx);
  const { results, problems } = useContext(Overlay);
  const { store } = ctx;
  const id = node.id;
  const selected = useDesigner(store, (s) => s.selection.includes(id));
  const focused = useDesigner(store, (s) => s.focus === id);
  const expanded = useDesigner(store, (s) => s.expanded.has(id));
  const fields = childFieldsOf(node.type);
  const container = fields.length > 0;
  const itemRef = useRef<HTMLLIElement>(null);
  const rowRef = useRef<HTMLDivElement>(null);
  const [indicator, setIndicator] = useState<RowIndicator>();
  const result = results?.get(id);
  const issues = problems?.get(id);
  const disabled = isDisabled(node);
  const display = node.name || id;
  const descId = `dz-desc-${id}`;

  useEffect(
    () => (rowRef.current ? attachRow(rowRef.current, id, container, store, setIndicator) : undefined),
    [id, container, store],
  );
  useEffect(() => {
    if (focused && itemRef.current && document.activeElement !== itemRef.current && ctx.active())
      itemRef.current.focus();
  }, [focused]);

  const onClick = (event: MouseEvent) => {
    if ((event.target as HTMLElement).closest('button')) return;
    event.stopPropagation();
    if (event.ctrlKey || event.metaKey) ctx.run(cmd.toggleSelected(id));
    else if (event.shiftKey) ctx.run(cmd.select([...store.getState().selection, id], id));
    else ctx.run(cmd.focusNode(id, true));
    itemRef.current?.focus();
  };

  return (
    <li
      ref={itemRef}
      role="treeitem"
      data-node-id={id}
      aria-label={display}
      aria-describedby={descId}
      aria-level={level}
      aria-setsize={setsize}
      aria-posinset={posinset}
      aria-expanded={container ? expanded : undefined}
      aria-selected={selected}
      tabIndex={focused ? 0 : -1}
      class={`dz-item${selected ? ' dz-selected' : ''}${disabled ? ' dz-disabled' : ''}`}
    >
      <div
        ref={rowRef}
        class={`dz-row${indicator ? ` dz-drop-${indicator}` : ''}`}
        style={{ paddingLeft: `${(level - 1) * 1.25 + 0.25}rem` }}
        onClick={onClick}
        onDblClick={() => ctx.open(id)}
      >
        {container ? (
          <button
            type="button"
            class="dz-twisty"
            tabIndex={-1}
            aria-hidden="true"
            onClick={() => ctx.run(cmd.setExpanded(id, !expanded))}
          >
            {expanded ? '▾' : '▸'}
          </button>
        ) : (
          <span class="dz-twisty" aria-hidden="true" />
        )}
        <span class="dz-name">{display}</span>
        <span id={descId} class="dz-desc">
          <span class={`dz-type dz-type-${node.type}`}>{typeLabel(node.type)}</span>{' '}
          <span class="dz-summary">{summarize(node)}</span>
          {disabled && <span class="dz-off"> (disabled)</span>}
          {result && (
            <span class={`badge badge-${result.status} dz-status`} title={result.error}>
              {' '}
              {statusText(result)}
            </span>
          )}
          {issues && issues.length > 0 && (
            <span class="badge badge-failed dz-problems" title={issues.join('\n')}>
              {' '}
              {issues.length} {issues.length === 1 ? 'problem' : 'problems'}
            </span>
          )}
        </span>
        <button
          type="button"
          class="dz-more secondary small"
          tabIndex={-1}
          aria-label={`Actions for ${display}`}
          aria-haspopup="menu"
          onClick={(e) => {
            ctx.run(cmd.focusNode(id, !store.getState().selection.includes(id)));
            ctx.openMenu(id, e.currentTarget as HTMLElement);
          }}
        >
          ⋯
        </button>
      </div>
      {container && expanded && <Groups node={node} level={level} />}
    </li>
  );
}

/** A container's child lists as labelled groups (IF then/else, body, lanes). */
function Groups({ node, level }: { node: FlowNode; level: number }) {
  const fields = childFieldsOf(node.type);
  return (
    <>
      {fields.map((field) => (
        <Group key={field} node={node} field={field} level={level} />
      ))}
    </>
  );
}

function Group({ node, field, level }: { node: FlowNode; field: ChildField; level: number }) {
  const { store } = useContext(Ctx);
  const nodes = childList(node, field);
  const headRef = useRef<HTMLDivElement>(null);
  const [over, setOver] = useState(false);
  const name = listLabel(field);
  useEffect(
    () => (headRef.current ? attachList(headRef.current, node.id, field, store, setOver) : undefined),
    [node.id, field, store],
  );
  return (
    <div class="dz-branch">
      <div
        ref={headRef}
        class={`dz-branch-head${over ? ' dz-drop-inside' : ''}`}
        style={{ paddingLeft: `${level * 1.25 + 0.25}rem` }}
        aria-hidden="true"
      >
        {name}
      </div>
      <ul role="group" aria-label={`${node.name || node.id} ${name}`}>
        <NodeList nodes={nodes} level={level + 1} parentId={node.id} />
      </ul>
      {nodes.length === 0 && <EmptyList parentId={node.id} field={field} level={level + 1} />}
    </div>
  );
}

/** An empty list: a drop target and an "Add node here" button (opens the palette there). */
function EmptyList({
  parentId,
  field,
  level = 1,
  label,
  tabbable = false,
}: {
  parentId: NodeId | null;
  field: ChildField | 'flow';
  level?: number;
  label?: ComponentChildren;
  tabbable?: boolean;
}) {
  const ctx = useContext(Ctx);
  const readOnly = useDesigner(ctx.store, (s) => s.readOnly);
  const ref = useRef<HTMLDivElement>(null);
  const [over, setOver] = useState(false);
  useEffect(
    () => (ref.current ? attachList(ref.current, parentId, field, ctx.store, setOver) : undefined),
    [parentId, field, ctx.store],
  );
  return (
    <div
      ref={ref}
      class={`dz-empty${over ? ' dz-drop-inside' : ''}`}
      style={{ paddingLeft: `${(level - 1) * 1.25 + 1.5}rem` }}
    >
      {label && <span class="muted">{label} </span>}
      {!readOnly && (
        <button
          type="button"
          class="secondary small"
          tabIndex={tabbable ? 0 : -1}
          onClick={() => ctx.openPalette({ parent: parentId, field, index: 0 })}
        >
          Add node here
        </button>
      )}
    </div>
  );
}
