/**
 * Drag and drop of tree rows with Atlassian's Pragmatic drag and drop (native HTML5 drag events,
 * no view library: docs/console.md "The designer"), so Playwright's `locator.dragTo` drives it in
 * Chromium like a mouse. A row is draggable and a drop target; an IF's `then`/`else`, a loop's
 * `body` and a Parallel's `lanes` headers, and the placeholder of an empty list, are drop targets
 * too. The hitbox package decides where on a row the pointer is: its upper half drops before the
 * row, its lower half after it, and the middle of a container's row ("combine") into the
 * container's first list, at its end. The lower half of an open container's row drops at the start
 * of its first list (what is drawn below it). Every drop is ONE `moveNode` command: one undo step,
 * refused into the dragged node's own subtree (`canDrop` says so before the drop).
 *
 * Playwright's `dragTo` drops at the target's centre by default: on a leaf row that is "after"
 * (use `targetPosition: {x, y: 2}` for "before"), on a container's row "into". The draggable is
 * the row line (`.dz-row`), not the whole tree item with its children.
 */
import {
  draggable,
  dropTargetForElements,
  monitorForElements,
} from '@atlaskit/pragmatic-drag-and-drop/element/adapter';
import { combine } from '@atlaskit/pragmatic-drag-and-drop/combine';
import {
  attachInstruction,
  extractInstruction,
  type Instruction,
} from '@atlaskit/pragmatic-drag-and-drop-hitbox/list-item';
import { childFieldsOf, findById, isInside, type ChildField, type FlowNode, type NodeId } from '../model/doc';
import { placeAfter, placeBefore, placeInside, type Place } from '../model/commands';
import type { DesignerStore } from '../model/store';

/** What a drop target carries: a row (with the hitbox's instruction), or a child list's header or empty placeholder. */
export type DropData =
  { kind: 'row'; id: NodeId } | { kind: 'list'; parent: NodeId | null; field: ChildField | 'flow' };

/** Where a drag dropped on `target` with `operation` lands; undefined when nowhere (the node itself, a gone row). */
export function dropPlace(
  flow: FlowNode[],
  expanded: ReadonlySet<NodeId>,
  target: DropData,
  operation: Instruction['operation'] | undefined,
): Place | undefined {
  if (target.kind === 'list') return { parent: target.parent, field: target.field, index: 0 };
  const node = findById(flow, target.id)?.node;
  if (!node) return undefined;
  const container = childFieldsOf(node.type).length > 0;
  if (operation === 'combine' && container) return placeInside(flow, node.id);
  if (operation === 'reorder-before') return placeBefore(flow, node.id);
  if (container && expanded.has(node.id)) return { parent: node.id, field: childFieldsOf(node.type)[0]!, index: 0 };
  return placeAfter(flow, node.id);
}

/** True when `source` may be dropped on `target`: not on itself, nor anywhere inside itself. */
export function canDropOn(flow: FlowNode[], source: NodeId, target: DropData): boolean {
  const inner = target.kind === 'row' ? target.id : target.parent;
  if (inner === null) return true;
  return !isInside(flow, source, inner);
}

const SOURCE = 'dzTreeNode';

/** The feedback a row shows while something is dragged over it. */
export type RowIndicator = 'before' | 'after' | 'inside' | 'blocked' | undefined;

/**
 * Makes `element` (a row line) draggable as node `id` and a drop target with before/after (and
 * "into" for containers) hitboxes; `indicate` is told what to draw. Answers the cleanup.
 */
export function attachRow(
  element: HTMLElement,
  id: NodeId,
  container: boolean,
  store: DesignerStore,
  indicate: (indicator: RowIndicator) => void,
): () => void {
  const data: DropData = { kind: 'row', id };
  const show = (self: Record<string | symbol, unknown>, source: Record<string | symbol, unknown>) => {
    const instruction = extractInstruction(self);
    if (!instruction) return indicate(undefined);
    if (!canDropOn(store.getState().doc.flow, source.id as NodeId, data)) return indicate('blocked');
    indicate(
      instruction.operation === 'combine' ? 'inside' : instruction.operation === 'reorder-before' ? 'before' : 'after',
    );
  };
  return combine(
    draggable({
      element,
      canDrag: () => !store.getState().readOnly,
      getInitialData: () => ({ [SOURCE]: true, id }),
    }),
    dropTargetForElements({
      element,
      canDrop: ({ source }) => source.data[SOURCE] === true,
      getData: ({ input, element: el }) =>
        attachInstruction(
          { ...data },
          {
            input,
            element: el,
            operations: {
              'reorder-before': 'available',
              'reorder-after': 'available',
              combine: container ? 'available' : 'not-available',
            },
          },
        ),
      onDragEnter: ({ self, source }) => show(self.data, source.data),
      onDrag: ({ self, source }) => show(self.data, source.data),
      onDragLeave: () => indicate(undefined),
      onDrop: () => indicate(undefined),
    }),
  );
}

/** Makes `element` (a list header or an empty list's placeholder) a drop target: into that list, at its start. */
export function attachList(
  element: HTMLElement,
  parent: NodeId | null,
  field: ChildField | 'flow',
  store: DesignerStore,
  indicate: (on: boolean) => void,
): () => void {
  const data: DropData = { kind: 'list', parent, field };
  return dropTargetForElements({
    element,
    canDrop: ({ source }) =>
      source.data[SOURCE] === true && canDropOn(store.getState().doc.flow, source.data.id as NodeId, data),
    getData: () => ({ ...data }),
    onDragEnter: () => indicate(true),
    onDragLeave: () => indicate(false),
    onDrop: () => indicate(false),
  });
}

/**
 * Watches drops of rows anywhere: the innermost drop target decides the place, and `drop(id,
 * place)` runs the move (one command). Answers the cleanup.
 */
export function monitorDrops(store: DesignerStore, drop: (id: NodeId, place: Place) => void): () => void {
  return monitorForElements({
    canMonitor: ({ source }) => source.data[SOURCE] === true,
    onDrop: ({ source, location }) => {
      const target = location.current.dropTargets[0];
      if (!target) return;
      const id = source.data.id as NodeId;
      const data = target.data as unknown as DropData;
      const state = store.getState();
      if (!canDropOn(state.doc.flow, id, data)) return;
      const instruction = extractInstruction(target.data);
      const place = dropPlace(state.doc.flow, state.expanded, data, instruction?.operation);
      if (place) drop(id, place);
    },
  });
}
