/**
 * The environment page's servers and inheritance (docs/reuse.md): a table of the environment's own
 * servers (name → base URL; a write key edits them, saved with the variables as a JSON merge patch
 * of the changes only), and what it inherits through `extends`, each value with the environment it
 * comes from (read only; secrets `***`).
 */
import type { Environment } from '../types';
import { valueText } from './common';

/** One row of the servers table as the form holds it. */
export interface ServerRow {
  name: string;
  url: string;
}

/** The rows of `env`'s own servers. */
export function serverRowsOf(env: Environment): ServerRow[] {
  return Object.entries(env.servers ?? {}).map(([name, url]) => ({ name, url }));
}

/**
 * The merge patch (RFC 7396) of `servers` that turns `before` into `rows`: changed and new names
 * with their URLs, removed names as null; empty when nothing changed. Throws when two rows share a name.
 */
export function serversPatch(before: Record<string, string>, rows: ServerRow[]): Record<string, string | null> {
  const patch: Record<string, string | null> = {};
  const names = new Set<string>();
  for (const r of rows) {
    const name = r.name.trim();
    if (!name) continue;
    if (names.has(name)) throw new Error(`Two servers are named “${name}”.`);
    names.add(name);
    if (before[name] !== r.url.trim()) patch[name] = r.url.trim();
  }
  for (const name of Object.keys(before)) if (!names.has(name)) patch[name] = null;
  return patch;
}

/** The servers table: inputs for a write key, text otherwise. */
export function ServersTable({
  rows,
  writable,
  onChange,
}: {
  rows: ServerRow[];
  writable: boolean;
  onChange: (rows: ServerRow[]) => void;
}) {
  const update = (i: number, change: Partial<ServerRow>) =>
    onChange(rows.map((r, j) => (j === i ? { ...r, ...change } : r)));
  return (
    <>
      <h2>Servers</h2>
      {rows.length === 0 && (
        <p class="muted">
          No servers of its own.
          {writable ? ' Add one below; API nodes use it as {{server.name}} or with "server".' : ''}
        </p>
      )}
      {rows.length > 0 && (
        <table aria-label="Servers" class="res-vars">
          <thead>
            <tr>
              <th>Name</th>
              <th>Base URL</th>
              {writable && (
                <th>
                  <span class="sr-only">Actions</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {rows.map((r, i) => {
              const label = r.name || `server ${i + 1}`;
              return (
                <tr key={i}>
                  <td>
                    {writable ? (
                      <input
                        aria-label={`Name of server ${i + 1}`}
                        value={r.name}
                        onInput={(e) => update(i, { name: e.currentTarget.value })}
                      />
                    ) : (
                      <code>{r.name}</code>
                    )}
                  </td>
                  <td>
                    {writable ? (
                      <input
                        aria-label={`Base URL of ${label}`}
                        value={r.url}
                        placeholder="https://users.example.com"
                        onInput={(e) => update(i, { url: e.currentTarget.value })}
                      />
                    ) : (
                      <code>{r.url}</code>
                    )}
                  </td>
                  {writable && (
                    <td>
                      <button
                        type="button"
                        class="secondary small"
                        aria-label={`Remove ${label}`}
                        onClick={() => onChange(rows.filter((_, j) => j !== i))}
                      >
                        Remove
                      </button>
                    </td>
                  )}
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {writable && (
        <div class="row res-actions">
          <button type="button" class="secondary" onClick={() => onChange([...rows, { name: '', url: '' }])}>
            Add server
          </button>
        </div>
      )}
    </>
  );
}

/** What `env` inherits through `extends` (nothing when it extends none). */
export function InheritedValues({ env }: { env: Environment }) {
  const inherited = env.inherited;
  if (!env.extends || !inherited) return null;
  const variables = Object.entries(inherited.variables);
  const servers = Object.entries(inherited.servers);
  return (
    <div class="card" data-testid="inherited">
      <h2>Inherited</h2>
      <p class="muted">From {[...inherited.chain].reverse().join(' ← ')}; values set here override them.</p>
      {variables.length + servers.length === 0 && <p class="muted">Nothing: this environment overrides every value.</p>}
      {variables.length + servers.length > 0 && (
        <table aria-label="Inherited values" class="res-vars">
          <thead>
            <tr>
              <th>Name</th>
              <th>Value</th>
              <th>From</th>
            </tr>
          </thead>
          <tbody>
            {variables.map(([name, v]) => (
              <tr key={`v:${name}`}>
                <td>
                  <code>{name}</code>
                </td>
                <td>
                  <code>{valueText(v.value)}</code> {v.secret && <span class="badge">secret</span>}
                </td>
                <td>{v.from}</td>
              </tr>
            ))}
            {servers.map(([name, s]) => (
              <tr key={`s:${name}`}>
                <td>
                  <code>{`server.${name}`}</code>
                </td>
                <td>
                  <code>{s.value}</code>
                </td>
                <td>{s.from}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
