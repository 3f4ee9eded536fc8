/**
 * Runner pages: the list, one runner with its selection (test case ids, folder,
 * tags, order, load profile as JSON) and the preview of what a run would execute now
 * (`GET /v1/runners/{name}/test-cases`, in order), a link to start a run with it, and the form to
 * create (`POST /v1/runners`) or replace (`PUT /v1/runners/{name}`) a runner (write keys), with
 * its baseline (none, the last passing run, or a pinned run) and whether it quarantines flaky test
 * cases (docs/history.md "Baselines", "Quarantine"), and how its runs are scheduled: test cases at
 * once, stop after failures, per-origin request limits (docs/parallel.md; ./parallel.tsx).
 * Selection rules: docs/api.md "Runners".
 */
import { useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { api, type Page, type Problem, problemOf } from '../api';
import { useAction, useLoad } from '../hooks';
import { can } from '../session';
import { DURABILITY_WORDS, type Durability, type Runner } from '../types';
import { Editor, type EditorMark } from '../ui/editor';
import { ConfirmButton, Empty, Field, PageHeader, ProblemBox, fieldError } from '../ui/kit';
import { VersionsPanel } from '../versions/VersionsPanel';
import { listAll, Loading, marksUnder, pretty, readJson, seg, TagChips } from './common';
import { ResourceList } from './list';
import type { TestCase } from './test-cases';
import { BaselineField, BaselineText, useBaseline, withBaseline } from '../history/baseline';
import { anyParallel, ParallelDetails, ParallelInputs, parallelBody, useParallel } from './parallel';

/** What a runner selects, in words: `3 ids, folder users, tags smoke`. */
export function selectionText(r: Runner): string {
  const parts: string[] = [];
  if (r.testCaseIds?.length) parts.push(`${r.testCaseIds.length} test case id${r.testCaseIds.length === 1 ? '' : 's'}`);
  if (r.folder !== undefined && r.folder !== null) parts.push(r.folder === '' ? 'every folder' : `folder ${r.folder}`);
  if (r.tags?.length) parts.push(`tags ${r.tags.join(', ')}`);
  return parts.join(' · ') || 'nothing';
}

/** `/runners`: every runner with what it selects. */
export function RunnersPage() {
  return (
    <ResourceList<Runner>
      title="Runners"
      sub="Named selections of test cases; a run executes one runner against one environment."
      create={{ href: '/runners/new', label: 'New runner' }}
      path="/v1/runners"
      what="runners"
      empty={{ title: 'No runners yet', calls: ['POST /v1/runners'] }}
      table={{
        label: 'Runners',
        key: (r) => r.name,
        columns: [
          { head: 'Name', cell: (r) => <a href={`/runners/${seg(r.name)}`}>{r.name}</a> },
          { head: 'Description', cell: (r) => r.description || <span class="muted">—</span> },
          { head: 'Selects', cell: selectionText },
          {
            head: 'Kind',
            cell: (r) =>
              r.loadProfile ? <span class="badge">performance</span> : <span class="muted">functional</span>,
          },
        ],
      }}
    />
  );
}

/** `/runners/:name`: the selection, the preview, start a run; edit and delete (write). */
export function RunnerPage() {
  const { params } = useRoute();
  const { route } = useLocation();
  const name = params.name!;
  const runner = useLoad((signal) => api<Runner>('GET', `/v1/runners/${seg(name)}`, undefined, { signal }), [name]);
  const preview = useLoad(
    (signal) => api<Page<TestCase>>('GET', `/v1/runners/${seg(name)}/test-cases`, undefined, { signal }),
    [name, runner.data],
  );
  const [editing, setEditing] = useState(false);
  const [deleteProblem, setDeleteProblem] = useState<Problem | undefined>();
  const r = runner.data;
  const remove = async () => {
    try {
      await api('DELETE', `/v1/runners/${seg(name)}`);
      route('/runners');
    } catch (err) {
      setDeleteProblem(problemOf(err));
    }
  };
  return (
    <>
      <PageHeader title={`Runner ${name}`} sub={r?.description || undefined}>
        {can('run') && (
          <a class="button" href={`/runs/new?runner=${encodeURIComponent(name)}`}>
            Start a run
          </a>
        )}
        {r && can('write') && !editing && (
          <button type="button" class="secondary" onClick={() => setEditing(true)}>
            Edit
          </button>
        )}
        {r && can('write') && (
          <ConfirmButton
            class="danger"
            question={`Delete runner “${name}”? Deployments using it stop working.`}
            onConfirm={() => void remove()}
          >
            Delete
          </ConfirmButton>
        )}
      </PageHeader>
      <ProblemBox problem={runner.problem ?? deleteProblem} onRetry={runner.problem ? runner.reload : undefined} />
      {!r && !runner.problem && <Loading what="the runner" />}
      {r && editing && (
        <RunnerForm
          runner={r}
          onSaved={(saved) => {
            setEditing(false);
            if (saved.name !== name) route(`/runners/${seg(saved.name)}`, true);
            else runner.reload();
          }}
          onCancel={() => setEditing(false)}
        />
      )}
      {r && !editing && (
        <section class="card" aria-label="Selection">
          <h2>Selection</h2>
          <dl class="kv">
            <dt>Test case ids</dt>
            <dd>
              {r.testCaseIds?.length ? (
                r.testCaseIds.map((id) => <code key={id}>{id} </code>)
              ) : (
                <span class="muted">none</span>
              )}
            </dd>
            <dt>Folder</dt>
            <dd>
              {r.folder === undefined || r.folder === null ? (
                <span class="muted">not selected by folder</span>
              ) : r.folder === '' ? (
                'every folder'
              ) : (
                <code>{r.folder}</code>
              )}
            </dd>
            <dt>Tags</dt>
            <dd>
              {r.tags?.length ? (
                r.tags.map((t) => (
                  <span key={t} class="badge res-tag">
                    {t}
                  </span>
                ))
              ) : (
                <span class="muted">none</span>
              )}
            </dd>
            <dt>Order</dt>
            <dd>{r.order ?? 'name'}</dd>
            <dt>Variables</dt>
            <dd>
              {r.variableScope === 'run'
                ? 'shared: each test case starts from what the one before ended with'
                : 'each test case starts from the run’s variables'}
            </dd>
            <dt>Durability</dt>
            <dd data-testid="durability">{DURABILITY_WORDS[r.durability ?? 'node']}</dd>
            <ParallelDetails value={r} />
            <dt>Baseline</dt>
            <dd data-testid="baseline">
              <BaselineText baseline={r.baseline} />
            </dd>
            <dt>Flaky test cases</dt>
            <dd data-testid="quarantine">
              {r.quarantineFlaky
                ? 'quarantined: their failures are reported but do not fail the run'
                : 'not quarantined: their failures fail the run'}{' '}
              · <a href={`/flaky?runner=${encodeURIComponent(r.name)}`}>flaky list</a>
            </dd>
            <dt>Load profile</dt>
            <dd>
              {r.loadProfile ? (
                <pre class="res-code">{pretty(r.loadProfile)}</pre>
              ) : (
                <span class="muted">none (functional runs)</span>
              )}
            </dd>
          </dl>
        </section>
      )}
      <h2>What a run executes now</h2>
      <ProblemBox problem={preview.problem} onRetry={preview.reload} />
      {!preview.data && !preview.problem && <Loading what="the selected test cases" />}
      {preview.data && preview.data.items.length === 0 && (
        <Empty title="This runner selects no test case now">Add test cases to its folder or give them its tags.</Empty>
      )}
      {preview.data && preview.data.items.length > 0 && (
        <table aria-label="Selected test cases">
          <thead>
            <tr>
              <th class="num res-narrow">#</th>
              <th>Name</th>
              <th>Folder</th>
              <th>Tags</th>
            </tr>
          </thead>
          <tbody>
            {preview.data.items.map((t, i) => (
              <tr key={t.id}>
                <td class="num">{i + 1}</td>
                <td>
                  <a href={`/test-cases/${seg(t.id)}`}>{t.name}</a>
                </td>
                <td>{t.folder || <span class="muted">(top level)</span>}</td>
                <td>
                  <TagChips tags={t.tags} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {r && (
        <VersionsPanel
          base={`/v1/runners/${seg(name)}`}
          what="runner"
          revision={(r as { updatedAt?: string }).updatedAt}
          onRestored={() => runner.reload()}
        />
      )}
    </>
  );
}

/** The form of a runner (new: POST; existing: PUT replaces it). */
function RunnerForm({
  runner,
  onSaved,
  onCancel,
}: {
  runner?: Runner;
  onSaved: (r: Runner) => void;
  onCancel?: () => void;
}) {
  const [name, setName] = useState(runner?.name ?? '');
  const [description, setDescription] = useState(runner?.description ?? '');
  const [ids, setIds] = useState((runner?.testCaseIds ?? []).join('\n'));
  const [byFolder, setByFolder] = useState(runner ? runner.folder !== undefined && runner.folder !== null : true);
  const [folder, setFolder] = useState(runner?.folder ?? '');
  const [tags, setTags] = useState((runner?.tags ?? []).join(', '));
  const [order, setOrder] = useState(runner?.order ?? 'name');
  const [variableScope, setVariableScope] = useState(runner?.variableScope ?? 'testCase');
  const [durability, setDurability] = useState<Durability>(runner?.durability ?? 'node');
  const parallel = useParallel(runner);
  const [profile, setProfile] = useState(runner?.loadProfile ? pretty(runner.loadProfile) : '');
  const baseline = useBaseline(runner?.baseline);
  const [quarantineFlaky, setQuarantineFlaky] = useState(runner?.quarantineFlaky ?? false);
  const [profileMark, setProfileMark] = useState<EditorMark | undefined>();
  const testCases = useLoad((signal) => listAll<TestCase>('/v1/test-cases', signal), []);
  const save = useAction(async () => {
    setProfileMark(undefined);
    let loadProfile: unknown = null;
    if (profile.trim()) {
      const read = readJson(profile, 'The load profile');
      if (!read.ok) {
        setProfileMark(read.mark);
        return;
      }
      loadProfile = read.value;
    }
    const body: Record<string, unknown> = {
      name: name.trim(),
      description,
      testCaseIds: ids
        .split(/[\s,]+/)
        .map((s) => s.trim())
        .filter(Boolean),
      folder: byFolder ? folder.trim() : null,
      tags: [
        ...new Set(
          tags
            .split(',')
            .map((t) => t.trim())
            .filter(Boolean),
        ),
      ],
      order,
      variableScope,
      loadProfile,
    };
    // Sent when the server's runner has the field or the form sets it (a server without history
    // features refuses fields it does not know).
    withBaseline(body, runner?.baseline, baseline.value);
    if (runner?.quarantineFlaky !== undefined || quarantineFlaky) body.quarantineFlaky = quarantineFlaky;
    if (runner?.durability !== undefined || durability !== 'node') body.durability = durability;
    // Empty inputs: the defaults (PUT replaces, so an absent field is reset to it).
    if (runner?.concurrency !== undefined || anyParallel(parallel.text))
      Object.assign(body, parallelBody(parallel.text, 'omit', 'null'));
    const saved = runner
      ? await api<Runner>('PUT', `/v1/runners/${seg(runner.name)}`, body)
      : await api<Runner>('POST', '/v1/runners', body);
    onSaved(saved);
  });
  const p = save.problem;
  const profileErrors = marksUnder(p, '/loadProfile', profile);
  const idsKnown = new Map((testCases.data ?? []).map((t) => [t.id, t]));
  return (
    <form
      class="card res-form"
      onSubmit={(e) => {
        e.preventDefault();
        void save.run();
      }}
    >
      <div class="row">
        <Field label="Runner name" error={fieldError(p, 'name')}>
          <input required value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </Field>
        <Field label="Description" error={fieldError(p, 'description')}>
          <input value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
        </Field>
      </div>
      <Field
        label="Test case ids (run first, in this order; one per line)"
        error={fieldError(p, 'testCaseIds')}
        hint={testCases.data ? `${testCases.data.length} test cases exist; ids are on their pages` : undefined}
      >
        <textarea rows={3} value={ids} onInput={(e) => setIds(e.currentTarget.value)} />
      </Field>
      {ids.trim() && testCases.data && (
        <ul class="res-id-check" aria-label="Listed test cases">
          {ids
            .split(/[\s,]+/)
            .filter(Boolean)
            .map((id, i) => (
              <li key={i}>
                <code>{id}</code>{' '}
                {idsKnown.get(id) ? idsKnown.get(id)!.name : <span class="field-error">unknown id</span>}
              </li>
            ))}
        </ul>
      )}
      <label class="check">
        <input type="checkbox" checked={byFolder} onChange={(e) => setByFolder(e.currentTarget.checked)} /> Select by
        folder
      </label>
      <div class="row">
        <Field label="Folder" hint="subfolders included; empty means every folder" error={fieldError(p, 'folder')}>
          <input value={folder} disabled={!byFolder} onInput={(e) => setFolder(e.currentTarget.value)} />
        </Field>
        <Field label="Tags (all required; comma-separated)" error={fieldError(p, 'tags')}>
          <input value={tags} onInput={(e) => setTags(e.currentTarget.value)} />
        </Field>
        <Field label="Order" error={fieldError(p, 'order')}>
          <select value={order} onChange={(e) => setOrder(e.currentTarget.value)}>
            <option value="name">name (folder, then name)</option>
            <option value="createdAt">createdAt (oldest first)</option>
          </select>
        </Field>
        <Field label="Variables across test cases" error={fieldError(p, 'variableScope')}>
          <select value={variableScope} onChange={(e) => setVariableScope(e.currentTarget.value as 'testCase' | 'run')}>
            <option value="testCase">each test case starts from the run’s variables</option>
            <option value="run">shared: each starts from what the one before ended with (as Newman)</option>
          </select>
        </Field>
        <Field
          label="Durability"
          hint="what a crash costs; a deployment or a run may set its own (docs/durability.md)"
          error={fieldError(p, 'durability')}
        >
          <select value={durability} onChange={(e) => setDurability(e.currentTarget.value as Durability)}>
            <option value="node">{DURABILITY_WORDS.node}</option>
            <option value="testCase">{DURABILITY_WORDS.testCase}</option>
          </select>
        </Field>
      </div>
      <ParallelInputs state={parallel} problem={p} />
      <BaselineField state={baseline} problem={p} />
      <label class="check">
        <input
          type="checkbox"
          checked={quarantineFlaky}
          onChange={(e) => setQuarantineFlaky(e.currentTarget.checked)}
        />{' '}
        Quarantine flaky test cases (they run and are reported, but their failures do not fail the run)
      </label>
      {fieldError(p, 'quarantineFlaky') && (
        <p class="field-error" role="alert">
          {fieldError(p, 'quarantineFlaky')}
        </p>
      )}
      <div class={`field${profileMark || profileErrors.marks.length ? ' field-invalid' : ''}`}>
        <span class="field-label">Load profile (JSON; empty for functional runs, docs/performance.md)</span>
        <Editor
          value={profile}
          onChange={setProfile}
          language="json"
          label="Load profile"
          marks={profileMark ? [profileMark] : profileErrors.marks}
          minHeight="4rem"
        />
        {profileMark && (
          <p class="field-error" role="alert">
            {profileMark.message} — nothing was sent.
          </p>
        )}
      </div>
      <ProblemBox problem={p} />
      <div class="row res-actions">
        <button type="submit" disabled={save.busy}>
          {save.busy ? 'Saving…' : runner ? 'Save runner' : 'Create runner'}
        </button>
        {onCancel && (
          <button type="button" class="secondary" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}

/** `/runners/new`: the runner form; creating goes to the runner's page. */
export function NewRunnerPage() {
  const { route } = useLocation();
  if (!can('write'))
    return <Empty title="Creating runners needs a write key">Sign in with a key of scope write.</Empty>;
  return (
    <>
      <PageHeader title="New runner" sub="Select test cases by id, by folder, by tags, or all three." />
      <RunnerForm onSaved={(r) => route(`/runners/${seg(r.name)}`)} />
    </>
  );
}
