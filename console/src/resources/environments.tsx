/**
 * Environment pages: the list (and a create form), and one environment with its
 * variables. Values are masked (••••) until the user asks to see one ("Show"); a read-scope key
 * gets every value as `"***"` from the API anyway (docs/api.md "Environments"). A write key edits
 * the variables (typed values: `true`, `false` and numbers are sent as such) and saves them as a
 * JSON merge patch (RFC 7396) of the changes only, so a masked `"***"` is never sent back; it also
 * renames and deletes the environment.
 *
 * Secret variables (docs/secrets.md): the API answers them `{"secret": true, "value": "***"}` to
 * every key; they show a "secret" badge and `***`, never a value. A write key marks a variable
 * secret with its "Secret" checkbox (sent as `{"value": …, "secret": true}`); a stored secret left
 * as `***` is left out of the patch (kept); typing a value replaces it.
 *
 * Saving: the form is disabled while the PATCH is under way, and its answer (the environment as
 * stored) replaces the form the moment it lands, with "Saved.". Nothing typed in between is lost:
 * a form that stayed editable and was replaced by a later reload dropped what was typed after
 * "Save".
 */
import { useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { api, type Problem, problemOf } from '../api';
import { useAction, useLoad } from '../hooks';
import { can } from '../session';
import type { Environment } from '../types';
import { ConfirmButton, Field, PageHeader, ProblemBox, fieldError } from '../ui/kit';
import { VersionsPanel } from '../versions/VersionsPanel';
import { Loading, seg, typedValue, valueText } from './common';
import { ResourceList } from './list';
import { InheritedValues, ServersTable, serverRowsOf, serversPatch, type ServerRow } from './environment-reuse';

/** The mask the API puts in place of every value for a read-scope key. */
export const API_MASK = '***';

/** A secret as the API answers it: `{"secret": true, "value": "***"}`. */
export function isMaskedSecret(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as { secret?: unknown }).secret === true;
}

/** `/environments`: every environment, and (write) a form to create one. */
export function EnvironmentsPage() {
  const { route } = useLocation();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const create = useAction(async () => {
    const env = await api<Environment>('POST', '/v1/environments', { name, description, variables: {} });
    route(`/environments/${seg(env.name)}`);
  });
  return (
    <ResourceList<Environment>
      title="Environments"
      sub="Named sets of variables a run uses ({{name}} in flows)."
      path="/v1/environments"
      what="environments"
      empty={{ title: 'No environments yet', write: 'Create one below', calls: ['POST /v1/environments'] }}
      table={{
        label: 'Environments',
        key: (e) => e.name,
        columns: [
          { head: 'Name', cell: (e) => <a href={`/environments/${seg(e.name)}`}>{e.name}</a> },
          { head: 'Description', cell: (e) => e.description || <span class="muted">—</span> },
          { head: 'Variables', class: 'num', cell: (e) => Object.keys(e.variables ?? {}).length },
        ],
      }}
    >
      {can('write') && (
        <form
          class="card res-form res-create"
          onSubmit={(e) => {
            e.preventDefault();
            void create.run();
          }}
        >
          <h2>New environment</h2>
          <div class="row">
            <Field label="Environment name" hint="letters, digits, _ . -" error={fieldError(create.problem, 'name')}>
              <input required value={name} onInput={(e) => setName(e.currentTarget.value)} />
            </Field>
            <Field label="Environment description" error={fieldError(create.problem, 'description')}>
              <input value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
            </Field>
          </div>
          <ProblemBox problem={create.problem} />
          <button type="submit" disabled={create.busy}>
            {create.busy ? 'Creating…' : 'Create environment'}
          </button>
        </form>
      )}
    </ResourceList>
  );
}

/** One row of the variables table as the form holds it. */
interface Row {
  /** The name the variable had when loaded (undefined for a new row). */
  original?: string;
  name: string;
  value: string;
  shown: boolean;
  /** Saved as a secret (`{"value": …, "secret": true}`). */
  secret?: boolean;
}

/**
 * The merge patch (RFC 7396) of the `variables` that turns `before` into `rows`: changed and new
 * names with their typed values, removed (or renamed-away) names as null. Unchanged values are
 * left out, so a value the API masked is never sent back; a stored secret still `"***"` and still
 * secret is unchanged (kept). A secret row is sent as `{"value": …, "secret": true}`. Throws when a
 * row holds `"***"` as a new value (a read key's mask, or a secret renamed or made plain: its value
 * is not known here), or when two rows share a name.
 */
export function variablesPatch(
  before: Record<string, unknown>,
  rows: { name: string; value: string; secret?: boolean }[],
): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  const names = new Set<string>();
  for (const r of rows) {
    const name = r.name.trim();
    if (!name) continue;
    if (names.has(name)) throw new Error(`Two variables are named “${name}”.`);
    names.add(name);
    const was = Object.hasOwn(before, name) ? before[name] : undefined;
    if (isMaskedSecret(was)) {
      if (r.secret && r.value === API_MASK) continue;
    } else if (was !== undefined && !r.secret && valueText(was) === r.value) continue;
    if (r.value === API_MASK) throw new Error(`“${name}” holds ${API_MASK}, a masked value: type the real value.`);
    patch[name] = r.secret ? { value: r.value, secret: true } : typedValue(r.value);
  }
  for (const name of Object.keys(before)) if (!names.has(name)) patch[name] = null;
  return patch;
}

function rowsOf(env: Environment): Row[] {
  return Object.entries(env.variables ?? {}).map(([name, value]) =>
    isMaskedSecret(value)
      ? { original: name, name, value: API_MASK, shown: false, secret: true }
      : { original: name, name, value: valueText(value), shown: false },
  );
}

/** `/environments/:name`: the variables (masked), editing (write), rename and delete. */
export function EnvironmentPage() {
  const { params } = useRoute();
  const { route } = useLocation();
  const name = params.name!;
  const env = useLoad(
    (signal) => api<Environment>('GET', `/v1/environments/${seg(name)}`, undefined, { signal }),
    [name],
  );
  // The answer of the last save (shown with "Saved." while it is what the page shows) and how many saves there were.
  const [lastSave, setLastSave] = useState<{ env: Environment; count: number } | undefined>();
  const onSaved = (stored: Environment) => {
    setLastSave((s) => ({ env: stored, count: (s?.count ?? 0) + 1 }));
    env.replace(stored);
  };
  return (
    <>
      <PageHeader title={`Environment ${name}`} sub={env.data?.description || undefined} />
      <ProblemBox problem={env.problem} onRetry={env.reload} />
      {!env.data && !env.problem && <Loading what="the environment" />}
      {env.data && (
        <EnvironmentBody
          // A save, or other stored variables, start the form afresh from what is stored.
          key={`${lastSave?.count ?? 0}:${env.data.name}:${JSON.stringify([env.data.variables, env.data.servers, env.data.extends])}`}
          env={env.data}
          justSaved={env.data === lastSave?.env}
          onSaved={onSaved}
          onRenamed={(n) => route(`/environments/${seg(n)}`, true)}
          onDeleted={() => route('/environments')}
        />
      )}
      {env.data && (
        <VersionsPanel
          base={`/v1/environments/${seg(env.data.name)}`}
          what="environment"
          revision={(env.data as { updatedAt?: string }).updatedAt ?? lastSave?.count}
          onRestored={(stored) => env.replace(stored as unknown as Environment)}
        />
      )}
    </>
  );
}

interface EnvironmentBodyProps {
  env: Environment;
  /** `env` is the answer of a save just made: say "Saved.". */
  justSaved: boolean;
  /** A save landed; `stored` is the environment as the API answered it. */
  onSaved: (stored: Environment) => void;
  onRenamed: (name: string) => void;
  onDeleted: () => void;
}

function EnvironmentBody({ env, justSaved, onSaved, onRenamed, onDeleted }: EnvironmentBodyProps) {
  const writable = can('write');
  const readKey = !can('run');
  const [rows, setRows] = useState<Row[]>(() => rowsOf(env));
  const [serverRows, setServerRows] = useState<ServerRow[]>(() => serverRowsOf(env));
  const [parent, setParent] = useState(env.extends ?? '');
  const [localError, setLocalError] = useState<string | undefined>();
  // What the polite status line says: "Saved." after a save, "Nothing changed." after a save with nothing to send; cleared by an edit.
  const [status, setStatus] = useState(justSaved ? 'Saved.' : '');
  const [newName, setNewName] = useState(env.name);
  const [description, setDescription] = useState(env.description ?? '');
  const [deleteProblem, setDeleteProblem] = useState<Problem | undefined>();
  const editRows = (change: (rs: Row[]) => Row[]) => {
    setRows(change);
    setStatus('');
  };
  const update = (i: number, change: Partial<Row>) =>
    editRows((rs) => rs.map((r, j) => (j === i ? { ...r, ...change } : r)));
  const save = useAction(async () => {
    setLocalError(undefined);
    let patch: Record<string, unknown>;
    let servers: Record<string, string | null>;
    try {
      patch = variablesPatch(env.variables ?? {}, rows);
      servers = serversPatch(env.servers ?? {}, serverRows);
    } catch (err) {
      setLocalError((err as Error).message);
      return;
    }
    const body: Record<string, unknown> = {};
    if (Object.keys(patch).length) body.variables = patch;
    if (Object.keys(servers).length) body.servers = servers;
    if (parent.trim() !== (env.extends ?? '')) body.extends = parent.trim() || null;
    if (description !== (env.description ?? '')) body.description = description;
    if (Object.keys(body).length === 0) {
      setStatus('Nothing changed.');
      return;
    }
    onSaved(await api<Environment>('PATCH', `/v1/environments/${seg(env.name)}`, body));
  });
  const rename = useAction(async () => {
    const renamed = await api<Environment>('PATCH', `/v1/environments/${seg(env.name)}`, { name: newName.trim() });
    onRenamed(renamed.name);
  });
  const remove = async () => {
    try {
      await api('DELETE', `/v1/environments/${seg(env.name)}`);
      onDeleted();
    } catch (err) {
      setDeleteProblem(problemOf(err));
    }
  };

  return (
    <>
      {readKey && (
        <p class="notice">
          Your key has read scope: the API sends every value as <code>{API_MASK}</code>, so the real values cannot be
          shown here.
        </p>
      )}
      <form
        class="card res-form"
        onSubmit={(e) => {
          e.preventDefault();
          void save.run();
        }}
      >
        {/* Disabled while saving: the answer replaces the form, so nothing may be typed into it meanwhile. */}
        <fieldset class="res-plain-fieldset" disabled={save.busy}>
          <h2>Variables</h2>
          {rows.length === 0 && (
            <p class="muted">No variables yet.{writable ? ' Add one below; flows use it as {{name}}.' : ''}</p>
          )}
          {rows.length > 0 && (
            <table aria-label="Variables" class="res-vars">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Value</th>
                  <th>Type</th>
                  {writable && <th>Secret</th>}
                  <th>
                    <span class="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((r, i) => {
                  const label = r.name || `variable ${i + 1}`;
                  const typed = typedValue(r.value);
                  // A stored secret's value never comes from the API: nothing to show.
                  const hidden = r.secret && r.value === API_MASK;
                  return (
                    <tr key={i}>
                      <td>
                        {writable ? (
                          <input
                            aria-label={`Name of variable ${i + 1}`}
                            value={r.name}
                            onInput={(e) => update(i, { name: e.currentTarget.value })}
                          />
                        ) : (
                          <code>{r.name}</code>
                        )}
                      </td>
                      <td class="res-value">
                        {writable ? (
                          <input
                            aria-label={`Value of ${label}`}
                            type={r.shown ? 'text' : 'password'}
                            autoComplete="off"
                            value={r.value}
                            onInput={(e) => update(i, { value: e.currentTarget.value })}
                          />
                        ) : (
                          <code data-testid={`value-${r.name}`}>{r.shown ? r.value : '••••'}</code>
                        )}
                      </td>
                      <td class="muted">
                        {r.secret ? (
                          <span class="badge" data-testid={`secret-${r.name}`}>
                            secret
                          </span>
                        ) : r.value === API_MASK && readKey ? (
                          'masked'
                        ) : (
                          typeof typed
                        )}
                      </td>
                      {writable && (
                        <td>
                          <input
                            type="checkbox"
                            aria-label={`${label} is secret`}
                            checked={!!r.secret}
                            onChange={(e) => update(i, { secret: e.currentTarget.checked })}
                          />
                        </td>
                      )}
                      <td>
                        <div class="res-row-actions">
                          {!(hidden && writable) && (
                            <button
                              type="button"
                              class="secondary small"
                              aria-pressed={r.shown}
                              aria-label={`${r.shown ? 'Hide' : 'Show'} value of ${label}`}
                              onClick={() => update(i, { shown: !r.shown })}
                            >
                              {r.shown ? 'Hide' : 'Show'}
                            </button>
                          )}
                          {writable && (
                            <button
                              type="button"
                              class="secondary small"
                              aria-label={`Remove ${label}`}
                              onClick={() => editRows((rs) => rs.filter((_, j) => j !== i))}
                            >
                              Remove
                            </button>
                          )}
                        </div>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )}
          {writable && (
            <>
              <p class="field-hint">
                Values true, false and numbers are saved typed; anything else as a string. A secret is stored encrypted,
                never shown again and masked as {API_MASK} in results; leave {API_MASK} to keep a stored secret.
              </p>
              <ServersTable
                rows={serverRows}
                writable
                onChange={(rs) => {
                  setServerRows(rs);
                  setStatus('');
                }}
              />
              <Field
                label="Extends"
                hint="the name of an environment whose variables, secrets and servers apply unless set here; empty: none"
                error={fieldError(save.problem, 'extends')}
              >
                <input
                  value={parent}
                  onInput={(e) => {
                    setParent(e.currentTarget.value);
                    setStatus('');
                  }}
                />
              </Field>
              <Field label="Description" error={fieldError(save.problem, 'description')}>
                <input
                  value={description}
                  onInput={(e) => {
                    setDescription(e.currentTarget.value);
                    setStatus('');
                  }}
                />
              </Field>
              {localError && (
                <p class="field-error" role="alert">
                  {localError}
                </p>
              )}
              <ProblemBox problem={save.problem} />
              <div class="row res-actions">
                <button
                  type="button"
                  class="secondary"
                  onClick={() => editRows((rs) => [...rs, { name: '', value: '', shown: true }])}
                >
                  Add variable
                </button>
                <button type="submit" disabled={save.busy}>
                  {save.busy ? 'Saving…' : 'Save variables'}
                </button>
                <span class="muted" aria-live="polite">
                  {status}
                </span>
              </div>
            </>
          )}
          {!writable && serverRows.length > 0 && (
            <ServersTable rows={serverRows} writable={false} onChange={() => {}} />
          )}
          {!writable && env.extends && (
            <p>
              Extends <a href={`/environments/${seg(env.extends)}`}>{env.extends}</a>.
            </p>
          )}
        </fieldset>
      </form>
      <InheritedValues env={env} />
      {writable && (
        <div class="card res-form res-danger-zone">
          <h2>Rename or delete</h2>
          <form
            class="row"
            onSubmit={(e) => {
              e.preventDefault();
              void rename.run();
            }}
          >
            <Field label="New name" error={fieldError(rename.problem, 'name')}>
              <input required value={newName} onInput={(e) => setNewName(e.currentTarget.value)} />
            </Field>
            <button type="submit" class="secondary" disabled={rename.busy || newName.trim() === env.name}>
              Rename
            </button>
            <ConfirmButton
              class="danger"
              question={`Delete environment “${env.name}” and its variables?`}
              onConfirm={() => void remove()}
            >
              Delete environment
            </ConfirmButton>
          </form>
          <ProblemBox problem={rename.problem ?? deleteProblem} />
        </div>
      )}
    </>
  );
}
