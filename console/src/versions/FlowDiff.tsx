/**
 * A test case's flow compared between two versions, as a tree (docs/console.md "Versions"): the
 * merged tree of versions/diff.ts `diffFlow`, one row per node with its type, name and the
 * designer's one-line summary (designer/model/summary.ts), marked added, removed, changed or moved;
 * a changed node lists its changed fields (before → after). Unchanged branches stay folded into
 * their rows; "Show unchanged nodes" lists every node. A list with `role="tree"` semantics is not
 * needed here (nothing is selected or edited): nested lists, each item named by its node.
 */
import { useMemo, useState } from 'preact/hooks';
import type { FlowNode } from '../designer/model/doc';
import { listLabel, summarize, typeLabel } from '../designer/model/summary';
import { countStatuses, diffFlow, type DiffNode, type NodeStatus } from './diff';
import './versions.css';

const STATUS_WORDS: Record<NodeStatus, string> = {
  added: 'added',
  removed: 'removed',
  changed: 'changed',
  moved: 'moved',
  same: '',
};

/** True when the node or anything below it differs. */
function differs(d: DiffNode): boolean {
  return d.status !== 'same' || d.lists.some((l) => l.nodes.some(differs));
}

function short(value: unknown): string {
  if (value === undefined) return '(none)';
  const text = JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

function Row({ d, all }: { d: DiffNode; all: boolean }) {
  const name = d.node.name || d.node.id || d.key;
  const status = d.status === 'changed' && d.moved ? 'changed, moved' : STATUS_WORDS[d.status];
  const beforeSummary = d.before && summarize(d.before);
  const afterSummary = summarize(d.node);
  return (
    <li
      class={`vs-node vs-node-${d.status}`}
      aria-label={`${typeLabel(d.node.type)} ${name}${status ? `: ${status}` : ''}`}
    >
      <div class="vs-node-row">
        {status && <span class={`badge vs-badge-${d.status}`}>{status}</span>}
        <span class="vs-node-type">{typeLabel(d.node.type)}</span> <strong>{name}</strong>{' '}
        <span class="muted mono">
          {d.status === 'changed' && beforeSummary !== afterSummary ? (
            <>
              <del>{beforeSummary}</del> → <ins>{afterSummary}</ins>
            </>
          ) : (
            afterSummary
          )}
        </span>
      </div>
      {d.changes.length > 0 && (
        <ul class="vs-fields" aria-label={`Changed fields of ${name}`}>
          {d.changes.map((c) => (
            <li key={c.path}>
              <code>{c.path}</code>: <span class="vs-before">{short(c.before)}</span> →{' '}
              <span class="vs-after">{short(c.after)}</span>
            </li>
          ))}
        </ul>
      )}
      {d.lists.map((l) => {
        const shown = all ? l.nodes : l.nodes.filter(differs);
        if (shown.length === 0) return null;
        return (
          <div key={l.field} class="vs-list">
            <span class="vs-list-label muted">{listLabel(l.field)}</span>
            <ul>
              {shown.map((c) => (
                <Row key={c.key} d={c} all={all} />
              ))}
            </ul>
          </div>
        );
      })}
    </li>
  );
}

/** The flows of versions `from` (older) and `to` compared as one tree. */
export function FlowDiff({ before, after, label }: { before: FlowNode[]; after: FlowNode[]; label: string }) {
  const [all, setAll] = useState(false);
  const tree = useMemo(() => diffFlow(before, after), [before, after]);
  const counts = countStatuses(tree);
  const changed = counts.added + counts.removed + counts.changed + counts.moved;
  const shown = all ? tree : tree.filter(differs);
  return (
    <section class="vs-flow" aria-label={label}>
      <div class="vs-flow-head">
        <h4>Flow</h4>
        <span class="muted">
          {changed === 0
            ? 'no node changed'
            : (['added', 'removed', 'changed', 'moved'] as const)
                .filter((k) => counts[k] > 0)
                .map((k) => `${counts[k]} ${k}`)
                .join(' · ')}
        </span>
        <label class="check">
          <input type="checkbox" checked={all} onChange={(e) => setAll(e.currentTarget.checked)} /> Show unchanged nodes
        </label>
      </div>
      {shown.length > 0 ? (
        <ul class="vs-tree">
          {shown.map((d) => (
            <Row key={d.key} d={d} all={all} />
          ))}
        </ul>
      ) : (
        <p class="muted">The flow is the same in both versions.</p>
      )}
    </section>
  );
}
