/**
 * A list of changed fields as a table: the field's path, the value before and after (docs/console.md
 * "Audit" and "Versions"). Used by the audit page (an event's `changes`) and by the versions panel
 * (fields other than the flow). Secret values arrive masked from the API and are shown as they come.
 */
import type { Change } from './diff';
import './versions.css';

/** A value in a cell: JSON for objects, a quoted string, "(none)" when absent. */
function Value({ value }: { value: unknown }) {
  if (value === undefined) return <span class="muted">(none)</span>;
  const text = typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value, null, 2);
  return <pre class="vs-value">{text}</pre>;
}

/** `changes` as a table named `label`; an empty list says so. */
export function ChangesTable({ changes, label }: { changes: Change[]; label: string }) {
  if (changes.length === 0) return <p class="muted">No field changed.</p>;
  return (
    <table aria-label={label} class="vs-changes">
      <thead>
        <tr>
          <th>Field</th>
          <th>Before</th>
          <th aria-hidden="true" />
          <th>After</th>
        </tr>
      </thead>
      <tbody>
        {changes.map((c) => (
          <tr key={c.path} class={c.before === undefined ? 'vs-add' : c.after === undefined ? 'vs-del' : undefined}>
            <td>
              <code>{c.path}</code>
            </td>
            <td>
              <Value value={c.before} />
            </td>
            <td aria-hidden="true">→</td>
            <td>
              <Value value={c.after} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
