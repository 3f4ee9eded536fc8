/**
 * Mock data pages (docs/mocks.md "State"): the workspace's data collections (`GET
 * /v1/mock-collections`), one collection with its records (`GET
 * /v1/mock-collections/{id}/records?scope=`, the shared state or one scope's), "Reset" (`POST
 * /v1/mock-collections/{id}/reset`: the shared state back to the seed), discarding a scope (`DELETE
 * /v1/mock-scopes/{scope}`) and, for write keys, creating a collection from a JSON seed and
 * deleting one. {@link RecordsTable} and {@link ResetButton} are also used by a design's "Data"
 * tab (design-mock.tsx).
 */
import { useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { api, withQuery, type Page, type Problem, problemOf } from '../api';
import { useAction, useLoad } from '../hooks';
import { can } from '../session';
import { dateTime } from '../format';
import { ConfirmButton, CopyButton, Empty, Field, PageHeader, ProblemBox, fieldError } from '../ui/kit';
import { FieldErrors, Loading, pretty, readJson, seg } from './common';
import { ResourceList } from './list';

/** A data collection as `GET /v1/mock-collections/{id}` answers it (docs/mocks.md "State"). */
export interface MockCollection {
  id: string;
  name: string;
  /** Where CRUD routes are generated (`/users`), if any. */
  basePath?: string | null;
  /** The field naming a record (default `id`). */
  idField?: string;
  /** How many records the seed holds. */
  seedCount?: number;
  seedFrom?: { designId: string; status?: number; count: number } | null;
  /** How many records the shared state holds. */
  records: number;
  /** The mock address of the CRUD routes (the workspace's mock root when there is no `basePath`). */
  mockUrl?: string | null;
  createdAt?: string;
  updatedAt?: string;
}

/** A record as the records listing gives it: the record's own JSON. */
export type MockRecordItem = Record<string, unknown>;

/** How many records a records table asks for (one page; the count says how many there are). */
export const RECORDS_SHOWN = 100;

/** The record's id (its `idField`) as text, `—` when it has none. */
export function recordId(item: MockRecordItem, idField = 'id'): string {
  const id = item[idField];
  return id === undefined || id === null ? '—' : String(id);
}

/** True when the collection's CRUD routes (`basePath`) answer the design's path (`/users/{id}` under `/users`). */
export function covers(basePath: string | null | undefined, designPath: string): boolean {
  if (!basePath) return false;
  const base = basePath.replace(/\/+$/, '');
  return designPath === base || designPath.startsWith(`${base}/`);
}

/**
 * The records of `collection`: the shared state (`scope` empty) or one scope's, first
 * {@link RECORDS_SHOWN}, in insertion order, each as its id and its JSON. `version` changes make it
 * read again (after a reset).
 */
export function RecordsTable({
  collection,
  scope = '',
  version = 0,
}: {
  collection: MockCollection;
  scope?: string;
  version?: number;
}) {
  const records = useLoad(
    (signal) =>
      api<Page<MockRecordItem>>(
        'GET',
        withQuery(`/v1/mock-collections/${seg(collection.id)}/records`, {
          scope: scope || undefined,
          limit: RECORDS_SHOWN,
        }),
        undefined,
        { signal },
      ),
    [collection.id, scope, version],
  );
  const items = records.data?.items;
  const label = `Records of ${collection.name}${scope ? ` in scope ${scope}` : ''}`;
  return (
    <div class="mock-records">
      <ProblemBox problem={records.problem} onRetry={records.reload} />
      {!items && !records.problem && <Loading what="the records" />}
      {items && items.length === 0 && (
        <p class="muted">{scope ? `Scope ${scope} has no records (or was never used).` : 'No records.'}</p>
      )}
      {items && items.length > 0 && (
        <>
          <table aria-label={label} class="mock-records-table">
            <thead>
              <tr>
                <th class="res-narrow">{collection.idField ?? 'id'}</th>
                <th>record</th>
              </tr>
            </thead>
            <tbody>
              {items.map((item, i) => {
                const id = recordId(item, collection.idField);
                return (
                  <tr key={`${id}-${i}`}>
                    <td>
                      <code>{id}</code>
                    </td>
                    <td>
                      <code class="mock-record-json">{JSON.stringify(item)}</code>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          {records.data?.nextCursor && (
            <p class="muted">
              The first {items.length} records; the rest through{' '}
              <code>GET /v1/mock-collections/{collection.id}/records</code>.
            </p>
          )}
        </>
      )}
    </div>
  );
}

/** "Reset": the shared state back to the collection's seed (write keys; asks first). */
export function ResetButton({ collection, onReset }: { collection: MockCollection; onReset: () => void }) {
  const reset = useAction(async () => {
    await api('POST', `/v1/mock-collections/${seg(collection.id)}/reset`);
    onReset();
  });
  if (!can('write')) return null;
  return (
    <>
      <ConfirmButton
        class="secondary small"
        question={`Reset ${collection.name}? Its shared records go back to the seed; scopes keep theirs.`}
        onConfirm={() => void reset.run()}
        disabled={reset.busy}
        aria-label={`Reset ${collection.name}`}
      >
        {reset.busy ? 'Resetting…' : 'Reset to seed'}
      </ConfirmButton>
      <ProblemBox problem={reset.problem} />
    </>
  );
}

/** `/mock-collections`: every data collection with its CRUD base path and record count; a create form for write keys. */
export function MockCollectionsPage() {
  const [version, setVersion] = useState(0);
  return (
    <ResourceList<MockCollection>
      key={version}
      title="Mock data"
      sub="Data collections the mocks read and write: CRUD routes on a base path, and designs whose responses use state."
      path="/v1/mock-collections"
      what="collections"
      empty={{
        title: 'No data collections yet',
        write: 'Create one below',
        calls: ['POST /v1/mock-collections'],
      }}
      table={{
        label: 'Data collections',
        key: (c) => c.id,
        columns: [
          {
            head: 'Name',
            cell: (c) => <a href={`/mock-collections/${seg(c.id)}`}>{c.name}</a>,
          },
          {
            head: 'CRUD routes',
            cell: (c) => (c.basePath ? <code>{c.basePath}</code> : <span class="muted">none</span>),
          },
          { head: 'Records', cell: (c) => c.records, class: 'num' },
          {
            head: 'Mock address',
            cell: (c) =>
              c.basePath && c.mockUrl ? <code class="res-break">{c.mockUrl}</code> : <span class="muted">—</span>,
          },
        ],
      }}
    >
      {can('write') && <NewCollectionForm onCreated={() => setVersion((v) => v + 1)} />}
    </ResourceList>
  );
}

const SEED_EXAMPLE = pretty([
  { id: 1, name: 'Ada', email: 'ada@example.com' },
  { id: 2, name: 'Grace', email: 'grace@example.com' },
]);

/** Creates a collection (`POST /v1/mock-collections`) from a name, a base path, an id field and a JSON seed. */
function NewCollectionForm({ onCreated }: { onCreated: () => void }) {
  const { route } = useLocation();
  const [name, setName] = useState('');
  const [basePath, setBasePath] = useState('');
  const [idField, setIdField] = useState('');
  const [seed, setSeed] = useState(SEED_EXAMPLE);
  const [seedError, setSeedError] = useState<string | undefined>();
  const create = useAction(async () => {
    setSeedError(undefined);
    const read = seed.trim() ? readJson(seed, 'The seed') : ({ ok: true, value: undefined } as const);
    if (!read.ok) {
      setSeedError(read.message);
      return;
    }
    const c = await api<MockCollection>('POST', '/v1/mock-collections', {
      name: name.trim(),
      ...(basePath.trim() ? { basePath: basePath.trim() } : {}),
      ...(idField.trim() ? { idField: idField.trim() } : {}),
      ...(read.value !== undefined ? { seed: read.value } : {}),
    });
    onCreated();
    route(`/mock-collections/${seg(c.id)}`);
  });
  const p = create.problem;
  return (
    <form
      class="card res-form res-create"
      aria-label="New data collection"
      onSubmit={(e) => {
        e.preventDefault();
        void create.run();
      }}
    >
      <h2>New data collection</h2>
      <div class="row">
        <Field label="Name" error={fieldError(p, 'name')} hint="lower case, digits, - and _">
          <input value={name} required placeholder="users" onInput={(e) => setName(e.currentTarget.value)} />
        </Field>
        <Field
          label="CRUD base path"
          error={fieldError(p, 'basePath')}
          hint="optional: generates GET/POST/PUT/PATCH/DELETE"
        >
          <input value={basePath} placeholder="/users" onInput={(e) => setBasePath(e.currentTarget.value)} />
        </Field>
        <Field label="Id field" error={fieldError(p, 'idField')} hint="default id">
          <input value={idField} placeholder="id" onInput={(e) => setIdField(e.currentTarget.value)} />
        </Field>
      </div>
      <Field label="Seed (JSON array of records)" error={seedError ?? fieldError(p, 'seed')}>
        <textarea rows={8} class="mono" value={seed} onInput={(e) => setSeed(e.currentTarget.value)} />
      </Field>
      <ProblemBox problem={p && { ...p, errors: undefined }} />
      <FieldErrors
        errors={(p?.errors ?? []).filter((e) => !/^(name|basePath|idField|seed)/.test(e.field ?? ''))}
        label="Collection errors"
      />
      <button type="submit" disabled={create.busy || !name.trim()}>
        {create.busy ? 'Creating…' : 'Create collection'}
      </button>
    </form>
  );
}

/** `/mock-collections/:id`: one collection, its records (shared or a scope's), reset, discard a scope, delete. */
export function MockCollectionPage() {
  const { params } = useRoute();
  const { route } = useLocation();
  const id = params.id!;
  const loaded = useLoad(
    (signal) => api<MockCollection>('GET', `/v1/mock-collections/${seg(id)}`, undefined, { signal }),
    [id],
  );
  const [version, setVersion] = useState(0);
  const [scopeText, setScopeText] = useState('');
  const [scope, setScope] = useState('');
  const [problem, setProblem] = useState<Problem | undefined>();
  const [note, setNote] = useState<string | undefined>();
  const c = loaded.data;
  const remove = async () => {
    try {
      await api('DELETE', `/v1/mock-collections/${seg(id)}`);
      route('/mock-collections');
    } catch (err) {
      setProblem(problemOf(err));
    }
  };
  const discard = async () => {
    setNote(undefined);
    try {
      await api('DELETE', `/v1/mock-scopes/${seg(scope)}`);
      setNote(`Scope ${scope} discarded: its next request starts again from the seed.`);
      setVersion((v) => v + 1);
    } catch (err) {
      setProblem(problemOf(err));
    }
  };
  return (
    <>
      <PageHeader title={c ? `Data: ${c.name}` : 'Data collection'} sub={c && <code>{c.id}</code>}>
        {c && can('write') && (
          <ConfirmButton
            class="danger"
            question={`Delete collection ${c.name} with all its records, shared and scoped?`}
            onConfirm={() => void remove()}
          >
            Delete
          </ConfirmButton>
        )}
      </PageHeader>
      <ProblemBox problem={loaded.problem ?? problem} onRetry={loaded.problem ? loaded.reload : undefined} />
      {!c && !loaded.problem && <Loading what="the collection" />}
      {c && (
        <>
          <section class="card res-section" aria-label="Collection">
            <dl class="kv">
              <dt>CRUD routes</dt>
              <dd>
                {c.basePath ? (
                  <>
                    <code>
                      GET/POST {c.basePath}, GET/PUT/PATCH/DELETE {c.basePath}/{'{'}
                      {c.idField ?? 'id'}
                      {'}'}
                    </code>
                  </>
                ) : (
                  <span class="muted">none (used by designs' state responses only)</span>
                )}
              </dd>
              {c.basePath && c.mockUrl && (
                <>
                  <dt>Mock address</dt>
                  <dd>
                    <code data-testid="collection-mock-url">{c.mockUrl}</code>{' '}
                    <CopyButton text={c.mockUrl} label="Copy mock address" />
                  </dd>
                </>
              )}
              <dt>Id field</dt>
              <dd>
                <code>{c.idField ?? 'id'}</code>
              </dd>
              <dt>Shared records</dt>
              <dd data-testid="collection-records">{c.records}</dd>
              <dt>Seed</dt>
              <dd>
                {c.seedFrom
                  ? `${c.seedFrom.count} records sampled from design ${c.seedFrom.designId}`
                  : `${c.seedCount ?? 0} records`}
              </dd>
              {c.updatedAt && (
                <>
                  <dt>Changed</dt>
                  <dd>{dateTime(c.updatedAt)}</dd>
                </>
              )}
            </dl>
          </section>
          <section class="card res-section" aria-label="Records">
            <div class="res-code-head">
              <h2>Records {scope ? `in scope ${scope}` : '(shared state)'}</h2>
              {!scope && (
                <ResetButton
                  collection={c}
                  onReset={() => {
                    setVersion((v) => v + 1);
                    loaded.reload();
                  }}
                />
              )}
            </div>
            <form
              class="filters"
              role="search"
              onSubmit={(e) => {
                e.preventDefault();
                setNote(undefined);
                setScope(scopeText.trim());
              }}
            >
              <Field label="Scope" hint="empty: the shared state; a run's scope is its run id">
                <input value={scopeText} placeholder="run_…" onInput={(e) => setScopeText(e.currentTarget.value)} />
              </Field>
              <button type="submit" class="secondary">
                Show
              </button>
              {scope && can('write') && (
                <ConfirmButton
                  class="secondary"
                  question={`Discard scope ${scope} in every collection of the workspace?`}
                  onConfirm={() => void discard()}
                >
                  Discard scope
                </ConfirmButton>
              )}
            </form>
            {note && (
              <p class="muted" role="status">
                {note}
              </p>
            )}
            <RecordsTable collection={c} scope={scope} version={version} />
          </section>
        </>
      )}
    </>
  );
}

/** The collections of the workspace that are empty: the line a page shows instead of a table. */
export function NoCollections() {
  return (
    <Empty title="No data collection">
      Create one on the <a href="/mock-collections">Mock data</a> page, or with <code>POST /v1/mock-collections</code>.
    </Empty>
  );
}
