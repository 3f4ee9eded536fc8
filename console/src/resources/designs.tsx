/**
 * API design pages (docs/mocks.md): the list (filtered by path prefix), one
 * design with its method, path, its mock address with a copy button and "Try it", which calls the
 * mock from the browser (same origin, `/mock/...`, no key, so no CORS question) with the design's
 * method and shows the answer, then tabs (`?tab=`): responses per status (body and headers, JSON
 * pretty, delay and state), and the mock's data, live journal, faults and recording
 * (design-mock.tsx). Write keys create a design from a form (design-form.tsx) or from JSON (both
 * `POST /v1/designs`), import an OpenAPI 3.x document (`POST /v1/designs/import`, request
 * validation on) and delete designs.
 */
import { Fragment, type ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { api, withQuery, type Problem, problemOf } from '../api';
import { useAction, useLoad } from '../hooks';
import { can } from '../session';
import { Editor, type EditorMark } from '../ui/editor';
import { ConfirmButton, CopyButton, Empty, Field, PageHeader, ProblemBox } from '../ui/kit';
import { VersionsPanel } from '../versions/VersionsPanel';
import { FieldErrors, Loading, marksUnder, pretty, readJson, seg } from './common';
import { ResourceList } from './list';
import { DesignData, DesignFaults, DesignJournal, HeaderList, MockRecording } from './design-mock';
import type { MockDelay } from '../../../src/domain/mocks';
import type { Design } from './design-types';
import { DesignForm } from './design-form';

export type { Design };

/** The mock address's path (`/mock/ws_…/users/{userId}`), to call on this origin; `{param}`s become `1`. */
export function mockPath(mockUrl: string): string {
  let p: string;
  try {
    p = new URL(mockUrl).pathname;
  } catch {
    p = mockUrl;
  }
  return p.replace(/%7B[^/]*?%7D|\{[^/]*?\}/gi, '1');
}

/** `/designs`: the designs, filtered by a path prefix (`?path=` of the API). */
export function DesignsPage() {
  const { query, route, path } = useLocation();
  const prefix = query.path ?? '';
  const [text, setText] = useState(prefix);
  const filters = (
    <form
      class="filters"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        route(text.trim() ? `${path}?path=${encodeURIComponent(text.trim())}` : path, true);
      }}
    >
      <Field label="Path starts with">
        <input value={text} placeholder="/users" onInput={(e) => setText(e.currentTarget.value)} />
      </Field>
      <button type="submit" class="secondary">
        Filter
      </button>
    </form>
  );
  return (
    <ResourceList<Design>
      title="API designs"
      sub="Methods and paths with mock responses per status; each design answers at its mock address."
      create={{ href: '/designs/new', label: 'New design or import' }}
      path={withQuery('/v1/designs', { path: prefix || undefined })}
      what="designs"
      filters={filters}
      empty={{
        title: prefix ? `No design's path starts with ${prefix}` : 'No API designs yet',
        write: <a href="/designs/new">Create one or import an OpenAPI document</a>,
        calls: ['POST /v1/designs', 'POST /v1/designs/import'],
      }}
      table={{
        label: 'API designs',
        key: (d) => d.id,
        columns: [
          { head: 'Method', cell: (d) => <span class="badge">{d.method}</span> },
          {
            head: 'Path',
            cell: (d) => (
              <a href={`/designs/${seg(d.id)}`}>
                <code>{d.path}</code>
              </a>
            ),
          },
          { head: 'Name', cell: (d) => d.name || <span class="muted">—</span> },
          {
            head: 'Statuses',
            cell: (d) =>
              [...new Set(d.responses.map((r) => r.status))].join(', ') || <span class="muted">no responses</span>,
          },
        ],
      }}
    />
  );
}

/** The answer "Try it" got from the mock. */
interface TryAnswer {
  status: number;
  statusText: string;
  headers: [string, string][];
  body: string;
  ms: number;
}

/** `/designs/:id`: the design, its mock address, "Try it", delete. */
export function DesignPage() {
  const { params } = useRoute();
  const { route, path, query } = useLocation();
  const id = params.id!;
  const tab: DesignTab = DESIGN_TABS.some((t) => t.id === query.tab) ? (query.tab as DesignTab) : 'responses';
  const design = useLoad((signal) => api<Design>('GET', `/v1/designs/${seg(id)}`, undefined, { signal }), [id]);
  const [deleteProblem, setDeleteProblem] = useState<Problem | undefined>();
  const d = design.data;
  const remove = async () => {
    try {
      await api('DELETE', `/v1/designs/${seg(id)}`);
      route('/designs');
    } catch (err) {
      setDeleteProblem(problemOf(err));
    }
  };
  const statuses = d ? [...new Set(d.responses.map((r) => r.status))].sort((a, b) => a - b) : [];
  return (
    <>
      <PageHeader
        title={d ? `${d.method} ${d.path}` : 'API design'}
        sub={
          d && (
            <>
              {d.name && <span>{d.name} · </span>}
              <code>{d.id}</code>
            </>
          )
        }
      >
        {d && can('write') && (
          <ConfirmButton
            class="danger"
            question={`Delete design ${d.method} ${d.path}? Its mock stops answering.`}
            onConfirm={() => void remove()}
          >
            Delete
          </ConfirmButton>
        )}
      </PageHeader>
      <ProblemBox problem={design.problem ?? deleteProblem} onRetry={design.problem ? design.reload : undefined} />
      {!d && !design.problem && <Loading what="the design" />}
      {d && (
        <>
          {d.description && <p>{d.description}</p>}
          <section class="card res-section" aria-label="Mock">
            <h2>Mock</h2>
            {d.mockUrl ? (
              <>
                <div class="res-secret">
                  <span class="field-label">Mock address</span> <code data-testid="mock-url">{d.mockUrl}</code>{' '}
                  <CopyButton text={d.mockUrl} label="Copy mock address" />
                </div>
                <p class="muted" data-testid="mock-validation">
                  Request validation:{' '}
                  {d.requestSchema || d.parameters?.length
                    ? d.validateRequests === false
                      ? 'off'
                      : 'on (invalid requests get 422 with the violations)'
                    : 'nothing to check (no request schema or parameters)'}
                  {d.delay && <> · delay {delayText(d.delay)}</>}
                  {d.faults && d.faults.length > 0 && <> · {d.faults.length} fault rule(s)</>}
                </p>
                <p class="muted">
                  No key needed. Pick a response with <code>?_status_=404</code> or <code>?_code_=2</code>; without them
                  the lowest 2xx status answers, one of its responses at random.
                </p>
                <TryIt design={d} statuses={statuses} />
              </>
            ) : (
              <p class="muted">This design has no responses yet, so it has no mock address.</p>
            )}
          </section>
          <DesignTabs
            design={d}
            tab={tab}
            onTab={(t) => route(t === 'responses' ? path : `${path}?tab=${t}`, true)}
            onSaved={design.replace}
          >
            <Responses design={d} statuses={statuses} />
          </DesignTabs>
          <VersionsPanel
            base={`/v1/designs/${seg(id)}`}
            what="API design"
            revision={(d as { updatedAt?: string }).updatedAt}
            onRestored={() => design.reload()}
          />
        </>
      )}
    </>
  );
}

/** The design page's tabs, in order; `responses` is the default (no `?tab=`). */
export const DESIGN_TABS = [
  { id: 'responses', label: 'Responses' },
  { id: 'data', label: 'Data' },
  { id: 'journal', label: 'Journal' },
  { id: 'faults', label: 'Faults' },
  { id: 'recording', label: 'Recording' },
] as const;
export type DesignTab = (typeof DESIGN_TABS)[number]['id'];

/** A delay in words: `fixed 200 ms`, `uniform 100–300 ms`, `lognormal median 80 ms σ 0.4`. */
export function delayText(d: MockDelay): string {
  if (d.type === 'fixed') return `fixed ${d.milliseconds} ms`;
  if (d.type === 'uniform') return `uniform ${d.lower}–${d.upper} ms`;
  return `lognormal median ${d.median} ms σ ${d.sigma}${d.maxValue ? ` ≤ ${d.maxValue} ms` : ''}`;
}

/** The tab bar (arrow keys move between tabs, WAI-ARIA tabs pattern) and the open tab's panel. */
function DesignTabs({
  design,
  tab,
  onTab,
  onSaved,
  children,
}: {
  design: Design;
  tab: DesignTab;
  onTab: (t: DesignTab) => void;
  onSaved: (d: Design) => void;
  children: ComponentChildren;
}) {
  const ids = DESIGN_TABS.map((t) => t.id);
  const faultsOn = (design.faults?.length ?? 0) > 0 || design.delay !== undefined;
  return (
    <>
      <div class="mock-tabs" role="tablist" aria-label="Design">
        {DESIGN_TABS.map((t) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            id={`tab-${t.id}`}
            class="mock-tab"
            aria-selected={tab === t.id}
            aria-controls={`panel-${t.id}`}
            tabIndex={tab === t.id ? 0 : -1}
            onClick={() => onTab(t.id)}
            onKeyDown={(e) => {
              const step = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
              if (!step) return;
              e.preventDefault();
              const next = ids[(ids.indexOf(t.id) + step + ids.length) % ids.length]!;
              onTab(next);
              document.getElementById(`tab-${next}`)?.focus();
            }}
          >
            {t.label}
            {t.id === 'faults' && faultsOn && <span class="mock-dot" aria-label="(on)" />}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`} class="mock-panel">
        {tab === 'responses' && children}
        {tab === 'data' && <DesignData design={design} />}
        {tab === 'journal' && <DesignJournal design={design} />}
        {tab === 'faults' && <DesignFaults design={design} onSaved={onSaved} />}
        {tab === 'recording' && <MockRecording />}
      </div>
    </>
  );
}

/** The "Responses" tab: each status with its responses (body, headers, delay, state). */
function Responses({ design, statuses }: { design: Design; statuses: number[] }) {
  return (
    <>
      {statuses.map((status) => (
        <section key={status} class="card res-section" aria-label={`Status ${status}`}>
          <h3>
            Status {status}
            {design.responseSchemas?.[String(status)] !== undefined && (
              <span class="muted"> · has a response schema</span>
            )}
          </h3>
          {design.responses
            .filter((r) => r.status === status)
            .map((r) => (
              <div key={r.code} class="res-response">
                <div class="res-response-head">
                  <strong>code {r.code}</strong>
                  {r.name && <span> · {r.name}</span>}
                  {r.dynamic && <span class="badge">dynamic</span>}
                  {r.delayMs ? <span class="muted"> · delay {r.delayMs} ms</span> : null}
                  {r.delay && <span class="muted"> · delay {delayText(r.delay)}</span>}
                  {r.state && (
                    <span class="badge" title={r.state.update ? `update: ${r.state.update}` : undefined}>
                      state: {r.state.collection}
                      {r.state.update ? ' (writes)' : ''}
                    </span>
                  )}
                </div>
                {r.headers && Object.keys(r.headers).length > 0 && <HeaderList headers={r.headers} />}
                <pre class="res-code" aria-label={`Body of status ${status} code ${r.code}`} tabIndex={0}>
                  {r.data === undefined ? '(no body)' : pretty(r.data)}
                </pre>
              </div>
            ))}
        </section>
      ))}
      {statuses.length === 0 && <Empty title="No responses">Add responses with PUT /v1/designs/{design.id}.</Empty>}
    </>
  );
}

/** "Try it": calls the mock on this origin with the design's method and shows what came back. */
function TryIt({ design, statuses }: { design: Design; statuses: number[] }) {
  const [path, setPath] = useState(mockPath(design.mockUrl!));
  const [status, setStatus] = useState('');
  const [answer, setAnswer] = useState<TryAnswer | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const send = async () => {
    setBusy(true);
    setError(undefined);
    const started = performance.now();
    try {
      const url = new URL(path, window.location.origin);
      if (url.origin !== window.location.origin)
        throw new Error('Try it calls this Assay only: give a path starting with /mock/.');
      if (status) url.searchParams.set('_status_', status);
      const res = await fetch(url.pathname + url.search, {
        method: design.method === 'HEAD' ? 'HEAD' : design.method,
        headers: { Accept: 'application/json, */*' },
      });
      const text = await res.text();
      let body = text;
      try {
        body = pretty(JSON.parse(text));
      } catch {
        /* not JSON: shown as text */
      }
      setAnswer({
        status: res.status,
        statusText: res.statusText,
        headers: [...res.headers.entries()],
        body,
        ms: performance.now() - started,
      });
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="res-try">
      <h3>Try it</h3>
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          void send();
        }}
      >
        <Field label="Mock path to call" hint="path parameters are filled with 1; change them here">
          <input value={path} onInput={(e) => setPath(e.currentTarget.value)} />
        </Field>
        <Field label="Status (_status_)">
          <select value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            <option value="">default</option>
            {statuses.map((s) => (
              <option key={s} value={String(s)}>
                {s}
              </option>
            ))}
          </select>
        </Field>
        <button type="submit" disabled={busy}>
          {busy ? 'Sending…' : `Send ${design.method}`}
        </button>
      </form>
      <div class="res-try-answer" aria-live="polite">
        {error && (
          <p class="field-error" role="alert">
            {error}
          </p>
        )}
        {answer && (
          <>
            <p>
              <strong data-testid="try-status">
                {answer.status} {answer.statusText}
              </strong>{' '}
              <span class="muted">in {answer.ms.toFixed(0)} ms</span>
            </p>
            <details>
              <summary>Headers ({answer.headers.length})</summary>
              <dl class="kv">
                {answer.headers.map(([k, v]) => (
                  <Fragment key={k}>
                    <dt>{k}</dt>
                    <dd>{v}</dd>
                  </Fragment>
                ))}
              </dl>
            </details>
            <pre class="res-code" data-testid="try-body" aria-label="Mock answer body" tabIndex={0}>
              {answer.body || '(empty body)'}
            </pre>
          </>
        )}
        {!answer && !error && <p class="muted">Send a request to see the mock's status, headers and body.</p>}
      </div>
    </div>
  );
}

const NEW_DESIGN = {
  method: 'GET',
  path: '/users/{userId}',
  name: 'Get a user',
  responses: [
    { status: 200, code: 1, name: 'ada', data: { id: 1, name: 'Ada' } },
    { status: 404, code: 1, data: { error: 'no such user' } },
  ],
};

/** `/designs/new`: a design from a form or from JSON (POST /v1/designs), or an OpenAPI import. */
export function NewDesignPage() {
  const { route } = useLocation();
  const [text, setText] = useState(pretty(NEW_DESIGN));
  const [mark, setMark] = useState<EditorMark | undefined>();
  const [doc, setDoc] = useState('');
  const [replace, setReplace] = useState(false);
  const [imported, setImported] = useState<
    { created: Design[]; skipped: { operation: string; reason: string }[] } | undefined
  >();
  const create = useAction(async () => {
    setMark(undefined);
    const read = readJson(text, 'The design');
    if (!read.ok) {
      setMark(read.mark);
      return;
    }
    const d = await api<Design>('POST', '/v1/designs', read.value);
    route(`/designs/${seg(d.id)}`);
  });
  const importDoc = useAction(async () => {
    setImported(undefined);
    setImported(
      await api('POST', withQuery('/v1/designs/import', { replace: replace ? 'true' : undefined }), { document: doc }),
    );
  });
  if (!can('write'))
    return <Empty title="Creating designs needs a write key">Sign in with a key of scope write.</Empty>;
  const errs = marksUnder(create.problem, '', text);
  return (
    <>
      <PageHeader
        title="New API design"
        sub="From a form, from JSON (docs/mocks.md), or imported from an OpenAPI 3.x document."
      />
      <DesignForm onCreated={(d) => route(`/designs/${seg(d.id)}`)} />
      <form
        class="card res-form res-section"
        onSubmit={(e) => {
          e.preventDefault();
          void create.run();
        }}
      >
        <h2>From JSON</h2>
        <div class={`field${mark || errs.marks.length ? ' field-invalid' : ''}`}>
          <span class="field-label">Design (JSON: method, path, name, responses)</span>
          <Editor
            value={text}
            onChange={setText}
            language="json"
            label="Design"
            marks={mark ? [mark] : errs.marks}
            onSubmit={() => void create.run()}
            minHeight="14rem"
          />
          {mark && (
            <p class="field-error" role="alert">
              {mark.message} — nothing was sent.
            </p>
          )}
          <FieldErrors errors={errs.errors} label="Design errors" />
        </div>
        <ProblemBox problem={create.problem && { ...create.problem, errors: undefined }} />
        <button type="submit" disabled={create.busy}>
          {create.busy ? 'Creating…' : 'Create design'}
        </button>
      </form>
      <form
        class="card res-form res-section"
        onSubmit={(e) => {
          e.preventDefault();
          void importDoc.run();
        }}
      >
        <h2>Import OpenAPI</h2>
        <p class="muted" data-testid="import-validation">
          <strong>Request validation is on</strong> for imported designs: a request that breaks the operation's
          parameters (path, query, header) or its request body schema gets 422 <code>mock-request-invalid</code> naming
          the violations, as Prism does. Turn it off per design on its Faults tab (<code>validateRequests: false</code>
          ).
        </p>
        <Field label="OpenAPI 3.x document (JSON or YAML)">
          <textarea rows={8} value={doc} onInput={(e) => setDoc(e.currentTarget.value)} />
        </Field>
        <label class="check">
          <input type="checkbox" checked={replace} onChange={(e) => setReplace(e.currentTarget.checked)} /> Replace
          routes already designed
        </label>
        <ProblemBox problem={importDoc.problem} />
        <button type="submit" disabled={importDoc.busy || !doc.trim()}>
          {importDoc.busy ? 'Importing…' : 'Import'}
        </button>
        {imported && (
          <div aria-live="polite">
            <h3>Created {imported.created.length}</h3>
            <ul>
              {imported.created.map((d) => (
                <li key={d.id}>
                  <a href={`/designs/${seg(d.id)}`}>
                    {d.method} {d.path}
                  </a>
                </li>
              ))}
            </ul>
            {imported.skipped.length > 0 && (
              <>
                <h3>Skipped {imported.skipped.length}</h3>
                <ul>
                  {imported.skipped.map((s, i) => (
                    <li key={i}>
                      {s.operation}: {s.reason}
                    </li>
                  ))}
                </ul>
              </>
            )}
          </div>
        )}
      </form>
    </>
  );
}
