/**
 * A design's mock behaviour beyond its responses (docs/mocks.md), the tabs of the design page after
 * "Responses":
 *
 * - **Data**: the data collections the design's state responses name (`responses[].state.collection`)
 *   and the collection whose CRUD base path covers the design's path, each with its shared records
 *   and "Reset to seed" (`GET /v1/mock-collections`, `…/{id}/records`, `…/{id}/reset`).
 * - **Journal**: the requests the mock received, newest first, read again every 2 s while the tab is
 *   open (`GET /v1/designs/{id}/requests`, keyset pages of {@link MockJournalEntryView}); requests
 *   with contract violations are marked and list them; filters by scope and "violations only";
 *   write keys can clear the design's journal (`DELETE /v1/mock-requests?designId=`).
 * - **Faults**: latency (WireMock's fixed/uniform/lognormal), faults with their probability, the
 *   seed of the design's random source, and contract validation switches, saved with `PATCH
 *   /v1/designs/{id}` (or `PUT` with the whole document when a delay or seed is removed, which a
 *   merge cannot express).
 * - **Recording**: the workspace's validation/recording proxy (`GET/PUT /v1/mock-settings`):
 *   off, `validate` (forward and report violations) or `record` (forward and record answers as
 *   designs), its upstream URL and the workspace's default seed.
 */
import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, withQuery, type Page } from '../api';
import { useAction, useLoad, usePoll } from '../hooks';
import { can } from '../session';
import { dateTime } from '../format';
import { ConfirmButton, Empty, Field, ProblemBox, fieldError } from '../ui/kit';
import { FieldErrors, listAll, Loading, pretty, seg } from './common';
import { covers, RecordsTable, ResetButton, type MockCollection } from './mock-collections';
import type {
  MockDelay,
  MockFault,
  MockFaultRule,
  MockJournalEntryView,
  MockSettingsView,
} from '../../../src/domain/mocks';
import type { Design } from './design-types';

/** The faults a design may inject (src/domain/mocks.ts `MOCK_FAULTS`), with what each does. */
export const FAULTS: { fault: MockFault; label: string }[] = [
  { fault: 'status', label: 'status: a 5xx problem answer' },
  { fault: 'connection-reset', label: 'connection-reset: TCP reset' },
  { fault: 'empty-response', label: 'empty-response: closed without a byte' },
  { fault: 'malformed-chunk', label: 'malformed-chunk: a bad chunk, then closed' },
  { fault: 'random-data', label: 'random-data: garbage bytes, then closed' },
];

/** How often the journal tab reads the journal again, ms. */
export const JOURNAL_POLL_MS = 2000;
/** How many journal entries the tab shows (the newest). */
export const JOURNAL_SHOWN = 50;

/** The collections a design uses: named by its state responses, or covering its path with CRUD routes. */
export function collectionsOf(design: Design, all: MockCollection[]): MockCollection[] {
  const named = new Set(design.responses.map((r) => r.state?.collection).filter((n): n is string => !!n));
  return all.filter((c) => named.has(c.name) || covers(c.basePath, design.path));
}

/** The "Data" tab. */
export function DesignData({ design }: { design: Design }) {
  const all = useLoad((signal) => listAll<MockCollection>('/v1/mock-collections', signal), [design.id]);
  const [versions, setVersions] = useState<Record<string, number>>({});
  const used = all.data ? collectionsOf(design, all.data) : undefined;
  const named = design.responses.filter((r) => r.state);
  return (
    <div>
      {named.length > 0 && (
        <p class="muted">
          State responses:{' '}
          {named.map((r, i) => (
            <Fragment key={`${r.status}-${r.code}`}>
              {i > 0 && ', '}
              {r.status} code {r.code} → <code>{r.state!.collection}</code>
              {r.state!.id && (
                <>
                  {' '}
                  record <code>{r.state!.id}</code>
                </>
              )}
            </Fragment>
          ))}
        </p>
      )}
      <ProblemBox problem={all.problem} onRetry={all.reload} />
      {!used && !all.problem && <Loading what="the data collections" />}
      {used && used.length === 0 && (
        <Empty title="This design uses no data collection">
          Give a response a <code>state</code> (<code>{'{"collection": "users", "id": "{{userId}}"}'}</code>), or create
          a collection whose <code>basePath</code> covers <code>{design.path}</code> on the{' '}
          <a href="/mock-collections">Mock data</a> page.
        </Empty>
      )}
      {used?.map((c) => (
        <section key={c.id} class="card res-section" aria-label={`Collection ${c.name}`}>
          <div class="res-code-head">
            <h3>
              <a href={`/mock-collections/${seg(c.id)}`}>{c.name}</a>{' '}
              <span class="muted">
                · {c.records} shared records
                {c.basePath && (
                  <>
                    {' '}
                    · CRUD on <code>{c.basePath}</code>
                  </>
                )}
              </span>
            </h3>
            <ResetButton
              collection={c}
              onReset={() => {
                setVersions((v) => ({ ...v, [c.id]: (v[c.id] ?? 0) + 1 }));
                all.reload();
              }}
            />
          </div>
          <RecordsTable collection={c} version={versions[c.id] ?? 0} />
        </section>
      ))}
    </div>
  );
}

/** `?a=1&b=2` or nothing. */
const queryText = (q: string) => (q ? (q.startsWith('?') ? q : `?${q}`) : '');

/** The "Journal" tab: live while open (every {@link JOURNAL_POLL_MS}), pausable. */
export function DesignJournal({ design }: { design: Design }) {
  const [scopeText, setScopeText] = useState('');
  const [scope, setScope] = useState('');
  const [violationsOnly, setViolationsOnly] = useState(false);
  const [live, setLive] = useState(true);
  const journal = usePoll(
    (signal) =>
      api<Page<MockJournalEntryView>>(
        'GET',
        withQuery(`/v1/designs/${seg(design.id)}/requests`, {
          scope: scope || undefined,
          violations: violationsOnly ? 'true' : undefined,
          limit: JOURNAL_SHOWN,
        }),
        undefined,
        { signal },
      ),
    [design.id, scope, violationsOnly],
    JOURNAL_POLL_MS,
    () => live,
  );
  const items = journal.data?.items;
  const clear = useAction(async () => {
    await api('DELETE', withQuery('/v1/mock-requests', { designId: design.id }));
    journal.reload();
  });
  return (
    <div>
      <form
        class="filters"
        role="search"
        aria-label="Journal filters"
        onSubmit={(e) => {
          e.preventDefault();
          setScope(scopeText.trim());
        }}
      >
        <Field label="Scope" hint="empty: every scope; a run's scope is its run id">
          <input value={scopeText} placeholder="run_…" onInput={(e) => setScopeText(e.currentTarget.value)} />
        </Field>
        <button type="submit" class="secondary">
          Filter
        </button>
        <label class="check">
          <input
            type="checkbox"
            checked={violationsOnly}
            onChange={(e) => setViolationsOnly(e.currentTarget.checked)}
          />{' '}
          Violations only
        </label>
        <button type="button" class="secondary" aria-pressed={live} onClick={() => setLive(!live)}>
          {live ? 'Pause' : 'Resume'}
        </button>
        <span class="muted" role="status" data-testid="journal-state">
          {live ? `live: every ${JOURNAL_POLL_MS / 1000} s` : 'paused'}
        </span>
        {can('write') && (
          <ConfirmButton
            class="secondary"
            question="Forget every journalled request of this design (all scopes)?"
            onConfirm={() => void clear.run()}
            disabled={clear.busy}
          >
            Clear journal
          </ConfirmButton>
        )}
      </form>
      <ProblemBox problem={journal.problem ?? clear.problem} onRetry={journal.problem ? journal.reload : undefined} />
      {!items && !journal.problem && <Loading what="the journal" />}
      {items && items.length === 0 && (
        <Empty title="No requests yet">
          Call the mock (Try it above, or <code>{design.mockUrl ?? 'its mock address'}</code>); requests appear here
          within {JOURNAL_POLL_MS / 1000} s.
        </Empty>
      )}
      {items && items.length > 0 && (
        <table aria-label="Journal" class="mock-journal">
          <thead>
            <tr>
              <th>Received</th>
              <th>Request</th>
              <th class="num">Status</th>
              <th>Scope</th>
              <th class="num">Delay</th>
              <th>Violations</th>
            </tr>
          </thead>
          <tbody>
            {items.map((e) => (
              <JournalRow key={e.id} entry={e} />
            ))}
          </tbody>
        </table>
      )}
      {journal.data?.nextCursor && (
        <p class="muted">
          The newest {JOURNAL_SHOWN}; older ones through <code>GET /v1/designs/{design.id}/requests</code>.
        </p>
      )}
    </div>
  );
}

/** One journal entry: a row, marked when it broke the contract, with its headers and body on demand. */
function JournalRow({ entry: e }: { entry: MockJournalEntryView }) {
  const bad = e.violations.length > 0;
  return (
    <tr class={bad ? 'mock-violation' : undefined} data-testid="journal-row">
      <td class="mock-nowrap">{dateTime(e.receivedAt)}</td>
      <td>
        <span class="badge">{e.method}</span>{' '}
        <code class="res-break">
          {e.path}
          {queryText(e.query)}
        </code>
        {e.source === 'proxy' && <span class="badge mock-proxy">proxy</span>}
        <details>
          <summary>Headers and body</summary>
          <HeaderList headers={e.headers} />
          {e.body !== undefined && e.body !== null && (
            <pre class="res-code">{typeof e.body === 'string' ? e.body : pretty(e.body)}</pre>
          )}
        </details>
      </td>
      <td class="num">
        <span class={`badge ${e.status >= 500 || e.fault ? 'badge-failed' : e.status >= 400 ? 'mock-4xx' : ''}`}>
          {e.fault && e.fault !== 'status' ? e.fault : e.status}
        </span>
      </td>
      <td>{e.scope ? <code>{e.scope}</code> : <span class="muted">shared</span>}</td>
      <td class="num">{e.delayMs ? `${e.delayMs} ms` : <span class="muted">—</span>}</td>
      <td>
        {bad ? (
          <ul class="mock-violations" aria-label="Violations">
            {e.violations.map((v, i) => (
              <li key={i}>
                <strong>{v.in}</strong> <code>{v.field}</code> {v.message}
              </li>
            ))}
          </ul>
        ) : (
          <span class="muted">none</span>
        )}
      </td>
    </tr>
  );
}

/** The delay form's state: a type and its numbers as typed. */
interface DelayForm {
  type: 'none' | MockDelay['type'];
  milliseconds: string;
  lower: string;
  upper: string;
  median: string;
  sigma: string;
  maxValue: string;
}

function delayForm(d: MockDelay | undefined): DelayForm {
  const f: DelayForm = { type: 'none', milliseconds: '', lower: '', upper: '', median: '', sigma: '', maxValue: '' };
  if (!d) return f;
  if (d.type === 'fixed') return { ...f, type: 'fixed', milliseconds: String(d.milliseconds) };
  if (d.type === 'uniform') return { ...f, type: 'uniform', lower: String(d.lower), upper: String(d.upper) };
  return {
    ...f,
    type: 'lognormal',
    median: String(d.median),
    sigma: String(d.sigma),
    maxValue: d.maxValue === undefined ? '' : String(d.maxValue),
  };
}

/** The delay the form describes (numbers as typed; the API checks ranges and names the field). */
export function delayOf(f: DelayForm): MockDelay | undefined {
  const n = (s: string) => Number(s.trim());
  switch (f.type) {
    case 'none':
      return undefined;
    case 'fixed':
      return { type: 'fixed', milliseconds: n(f.milliseconds) };
    case 'uniform':
      return { type: 'uniform', lower: n(f.lower), upper: n(f.upper) };
    case 'lognormal':
      return {
        type: 'lognormal',
        median: n(f.median),
        sigma: n(f.sigma),
        ...(f.maxValue.trim() ? { maxValue: n(f.maxValue) } : {}),
      };
  }
}

/** A fault rule as typed. */
interface FaultForm {
  fault: MockFault;
  probability: string;
  status: string;
}

/** The design document without what the API adds (id, mockUrl, times): the body of a PUT. */
function writable(d: Design): Record<string, unknown> {
  const { id: _id, mockUrl: _m, createdAt: _c, updatedAt: _u, ...rest } = d;
  return rest;
}

/** The "Faults" tab: latency, faults, seed and contract validation of the design. */
export function DesignFaults({ design, onSaved }: { design: Design; onSaved: (d: Design) => void }) {
  const [delay, setDelay] = useState<DelayForm>(delayForm(design.delay));
  const [faults, setFaults] = useState<FaultForm[]>(
    (design.faults ?? []).map((r) => ({
      fault: r.fault,
      probability: String(r.probability),
      status: r.status === undefined ? '' : String(r.status),
    })),
  );
  const [seed, setSeed] = useState(design.seed === undefined || design.seed === null ? '' : String(design.seed));
  const [validateRequests, setValidateRequests] = useState(design.validateRequests !== false);
  const [validateResponses, setValidateResponses] = useState(design.validateResponses === true);
  const [saved, setSaved] = useState(false);
  useEffect(() => setSaved(false), [delay, faults, seed, validateRequests, validateResponses]);
  const write = can('write');
  const save = useAction(async () => {
    const d = delayOf(delay);
    const rules: MockFaultRule[] = faults.map((f) => ({
      fault: f.fault,
      probability: Number(f.probability.trim()),
      ...(f.fault === 'status' && f.status.trim() ? { status: Number(f.status.trim()) } : {}),
    }));
    const s = seed.trim() === '' ? undefined : Number(seed.trim());
    const changes = {
      faults: rules,
      validateRequests,
      validateResponses,
      ...(d ? { delay: d } : {}),
      ...(s !== undefined ? { seed: s } : {}),
    };
    // A merge patch cannot remove a field: removing the delay or the seed replaces the whole design.
    const removes = (design.delay && !d) || (design.seed !== undefined && design.seed !== null && s === undefined);
    let next: Design;
    if (removes) {
      const body = { ...writable(design), ...changes };
      if (!d) delete body.delay;
      if (s === undefined) delete body.seed;
      next = await api<Design>('PUT', `/v1/designs/${seg(design.id)}`, body);
    } else next = await api<Design>('PATCH', `/v1/designs/${seg(design.id)}`, changes);
    onSaved(next);
    setSaved(true);
  });
  const p = save.problem;
  const num = (label: string, key: keyof DelayForm, hint?: string) => (
    <Field label={label} hint={hint} error={fieldError(p, `delay.${key}`)}>
      <input
        inputMode="decimal"
        value={delay[key]}
        disabled={!write}
        onInput={(e) => setDelay({ ...delay, [key]: e.currentTarget.value })}
      />
    </Field>
  );
  return (
    <form
      class="card res-form"
      aria-label="Latency and faults"
      onSubmit={(e) => {
        e.preventDefault();
        void save.run();
      }}
    >
      <h3>Latency</h3>
      <p class="muted">
        Added to every answer of this design; a response's own <code>delay</code> or <code>delayMs</code> replaces it.
        Per request: <code>?_delay_=250</code>.
      </p>
      <div class="row">
        <Field label="Delay" error={fieldError(p, 'delay')}>
          <select
            value={delay.type}
            disabled={!write}
            onChange={(e) => setDelay({ ...delay, type: e.currentTarget.value as DelayForm['type'] })}
          >
            <option value="none">none</option>
            <option value="fixed">fixed</option>
            <option value="uniform">uniform</option>
            <option value="lognormal">lognormal (WireMock)</option>
          </select>
        </Field>
        {delay.type === 'fixed' && num('Milliseconds', 'milliseconds')}
        {delay.type === 'uniform' && (
          <>
            {num('Lower, ms', 'lower')}
            {num('Upper, ms', 'upper')}
          </>
        )}
        {delay.type === 'lognormal' && (
          <>
            {num('Median, ms', 'median')}
            {num('Sigma', 'sigma', 'spread of ln(delay); 0.1 tight, 1 wide')}
            {num('Cap, ms', 'maxValue', 'default 60000')}
          </>
        )}
      </div>
      <h3>Faults</h3>
      <p class="muted">
        Drawn per request from the design's seeded source, so a scope sees the same sequence in every run. Per request:{' '}
        <code>?_fault_=connection-reset</code>.
      </p>
      {faults.length === 0 && <p class="muted">No faults.</p>}
      {faults.map((f, i) => (
        <div class="row mock-fault" key={i} role="group" aria-label={`Fault ${i + 1}`}>
          <Field label="Fault" error={fieldError(p, `faults[${i}].fault`)}>
            <select
              value={f.fault}
              disabled={!write}
              onChange={(e) =>
                setFaults(faults.map((x, j) => (j === i ? { ...x, fault: e.currentTarget.value as MockFault } : x)))
              }
            >
              {FAULTS.map((o) => (
                <option key={o.fault} value={o.fault}>
                  {o.label}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Probability (0–1)" error={fieldError(p, `faults[${i}].probability`)}>
            <input
              inputMode="decimal"
              value={f.probability}
              disabled={!write}
              onInput={(e) =>
                setFaults(faults.map((x, j) => (j === i ? { ...x, probability: e.currentTarget.value } : x)))
              }
            />
          </Field>
          {f.fault === 'status' && (
            <Field label="Status" hint="500–599, default 503" error={fieldError(p, `faults[${i}].status`)}>
              <input
                inputMode="numeric"
                value={f.status}
                disabled={!write}
                onInput={(e) =>
                  setFaults(faults.map((x, j) => (j === i ? { ...x, status: e.currentTarget.value } : x)))
                }
              />
            </Field>
          )}
          {write && (
            <button
              type="button"
              class="secondary small"
              aria-label={`Remove fault ${i + 1}`}
              onClick={() => setFaults(faults.filter((_, j) => j !== i))}
            >
              Remove
            </button>
          )}
        </div>
      ))}
      {write && faults.length < 10 && (
        <button
          type="button"
          class="secondary small"
          onClick={() => setFaults([...faults, { fault: 'status', probability: '0.1', status: '503' }])}
        >
          Add fault
        </button>
      )}
      <h3>Seed</h3>
      <div class="row">
        <Field
          label="Seed of the design's random source"
          hint="faults, latency and the random response; empty: the workspace's"
          error={fieldError(p, 'seed')}
        >
          <input inputMode="numeric" value={seed} disabled={!write} onInput={(e) => setSeed(e.currentTarget.value)} />
        </Field>
      </div>
      <h3>Contract</h3>
      <label class="check">
        <input
          type="checkbox"
          checked={validateRequests}
          disabled={!write}
          onChange={(e) => setValidateRequests(e.currentTarget.checked)}
        />{' '}
        Validate requests (422 <code>mock-request-invalid</code> naming the violations, against the request schema and
        parameters)
      </label>
      <label class="check">
        <input
          type="checkbox"
          checked={validateResponses}
          disabled={!write}
          onChange={(e) => setValidateResponses(e.currentTarget.checked)}
        />{' '}
        Validate responses (saving refuses an example that breaks its own schema)
      </label>
      <ProblemBox problem={p && { ...p, errors: undefined }} />
      <FieldErrors errors={p?.errors ?? []} label="Fault settings errors" />
      {write ? (
        <div class="row res-actions">
          <button type="submit" disabled={save.busy}>
            {save.busy ? 'Saving…' : 'Save faults'}
          </button>
          {saved && (
            <span class="muted" role="status">
              Saved: the mock answers with them now.
            </span>
          )}
        </div>
      ) : (
        <p class="muted">A key with write scope can change these.</p>
      )}
    </form>
  );
}

/** The recording form's mode: off is `proxy: null`. */
type ProxyMode = 'off' | 'validate' | 'record';

/** The "Recording" tab: the workspace's proxy (`GET/PUT /v1/mock-settings`). */
export function MockRecording() {
  const settings = useLoad((signal) => api<MockSettingsView>('GET', '/v1/mock-settings', undefined, { signal }), []);
  return (
    <>
      <ProblemBox problem={settings.problem} onRetry={settings.reload} />
      {!settings.data && !settings.problem && <Loading what="the mock settings" />}
      {settings.data && <RecordingForm settings={settings.data} onSaved={settings.replace} />}
    </>
  );
}

function RecordingForm({ settings, onSaved }: { settings: MockSettingsView; onSaved: (s: MockSettingsView) => void }) {
  const [mode, setMode] = useState<ProxyMode>(settings.proxy?.mode ?? 'off');
  const [url, setUrl] = useState(settings.proxy?.url ?? '');
  const [seed, setSeed] = useState(settings.seed === null ? '' : String(settings.seed));
  const [saved, setSaved] = useState(false);
  useEffect(() => setSaved(false), [mode, url, seed]);
  const write = can('write');
  const save = useAction(async () => {
    const body: MockSettingsView = {
      proxy: mode === 'off' ? null : { url: url.trim(), mode },
      seed: seed.trim() === '' ? null : Number(seed.trim()),
    };
    onSaved(await api<MockSettingsView>('PUT', '/v1/mock-settings', body));
    setSaved(true);
  });
  const p = save.problem;
  const modes: { value: ProxyMode; label: string; what: string }[] = [
    { value: 'off', label: 'Off', what: 'the designs answer (recorded ones included), offline' },
    {
      value: 'validate',
      label: 'Validate',
      what: 'forward every mock request to the URL and journal each request and answer that breaks the contract',
    },
    {
      value: 'record',
      label: 'Record',
      what: 'forward and record each answer as a response of the matching design (or a new one); secrets are never recorded',
    },
  ];
  return (
    <form
      class="card res-form"
      aria-label="Recording"
      onSubmit={(e) => {
        e.preventDefault();
        void save.run();
      }}
    >
      <p class="muted">For the whole workspace: every design's mock address goes through the proxy while it is on.</p>
      <fieldset class="res-plain-fieldset">
        <legend class="field-label">Proxy</legend>
        {modes.map((m) => (
          <label class="check" key={m.value}>
            <input
              type="radio"
              name="proxy-mode"
              value={m.value}
              checked={mode === m.value}
              disabled={!write}
              onChange={() => setMode(m.value)}
            />{' '}
            <strong>{m.label}</strong> <span class="muted">— {m.what}</span>
          </label>
        ))}
      </fieldset>
      <div class="row">
        <Field
          label="Upstream URL"
          hint="the real service; requests pass the address policy"
          error={fieldError(p, 'proxy.url') ?? fieldError(p, 'proxy')}
        >
          <input
            type="url"
            value={url}
            placeholder="https://api.example.com"
            disabled={!write || mode === 'off'}
            required={mode !== 'off'}
            onInput={(e) => setUrl(e.currentTarget.value)}
          />
        </Field>
        <Field label="Workspace seed" hint="for designs without their own; empty: none" error={fieldError(p, 'seed')}>
          <input inputMode="numeric" value={seed} disabled={!write} onInput={(e) => setSeed(e.currentTarget.value)} />
        </Field>
      </div>
      <ProblemBox problem={p && { ...p, errors: undefined }} />
      <FieldErrors errors={p?.errors ?? []} label="Mock settings errors" />
      {write ? (
        <div class="row res-actions">
          <button type="submit" disabled={save.busy}>
            {save.busy ? 'Saving…' : 'Save recording settings'}
          </button>
          {saved && (
            <span class="muted" role="status">
              Saved.
            </span>
          )}
        </div>
      ) : (
        <p class="muted">A key with write scope can change these.</p>
      )}
    </form>
  );
}

/** Headers as a definition list (name, value), as the design's responses and the journal show them. */
export function HeaderList({ headers }: { headers: Record<string, string> }) {
  return (
    <dl class="kv">
      {Object.entries(headers).map(([k, v]) => (
        <Fragment key={k}>
          <dt>{k}</dt>
          <dd>
            <code>{v}</code>
          </dd>
        </Fragment>
      ))}
    </dl>
  );
}
