/**
 * Test case pages: the list with its folder tree and tag filter, one test case
 * to view and edit (name, folder, tags, description, the flow and data sets as JSON) with its
 * history (history/section.tsx), and a new
 * test case. Saving sends `PUT /v1/test-cases/{id}` (or `POST /v1/test-cases`); the API's
 * `validation-failed` errors are shown at their field, flow errors as lint marks in the flow
 * editor and as a list under it (docs/api.md "Errors", docs/flows.md).
 */
import type { ComponentChildren } from 'preact';
import { useMemo, useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { api, type Problem, problemOf } from '../api';
import { useAction, useLoad } from '../hooks';
import { can } from '../session';
import { dateTime } from '../format';
import { Editor, type EditorMark } from '../ui/editor';
import { ConfirmButton, Empty, Field, PageHeader, ProblemBox, fieldError } from '../ui/kit';
import { FieldErrors, Loading, marksUnder, pretty, readJson, seg, TagChips } from './common';
import { ResourceList } from './list';
import { HistorySection } from '../history/section';

/** A test case as `GET /v1/test-cases/{id}` answers it. */
export interface TestCase {
  id: string;
  name: string;
  folder: string;
  description: string;
  tags: string[];
  flow: unknown[];
  dataSets: unknown[];
  /** Hooks around each of its API nodes (docs/flows.md "Hooks at three levels"); absent when none. */
  hooks?: { code: string; libs?: string[] };
  createdAt: string;
  updatedAt: string;
}

/** A node of the folder tree: its full path (`users/admin`), its last segment, children, count. */
export interface FolderNode {
  path: string;
  name: string;
  children: FolderNode[];
  /** Test cases in this folder and its subfolders. */
  count: number;
}

/** The folder tree of `folders` (`''` is the top level; `a/b` makes `a` and `a/b`), sorted by name. */
export function folderTree(folders: string[]): FolderNode {
  const root: FolderNode = { path: '', name: 'All folders', children: [], count: 0 };
  for (const folder of folders) {
    root.count++;
    let node = root;
    for (const part of folder.split('/').filter(Boolean)) {
      const path = node.path ? `${node.path}/${part}` : part;
      let child = node.children.find((c) => c.path === path);
      if (!child) {
        child = { path, name: part, children: [], count: 0 };
        node.children.push(child);
        node.children.sort((a, b) => a.name.localeCompare(b.name));
      }
      child.count++;
      node = child;
    }
  }
  return root;
}

/** True when `folder` is `selected` or below it (the API's `folder=` filter: subfolders included). */
export function inFolder(folder: string, selected: string): boolean {
  return selected === '' || folder === selected || folder.startsWith(`${selected}/`);
}

function FolderTree({
  node,
  selected,
  onSelect,
}: {
  node: FolderNode;
  selected: string;
  onSelect: (path: string) => void;
}) {
  return (
    <li>
      <button
        type="button"
        class={`res-folder${node.path === selected ? ' res-folder-current' : ''}`}
        aria-current={node.path === selected ? 'true' : undefined}
        onClick={() => onSelect(node.path)}
      >
        <span>{node.name}</span> <span class="muted">({node.count})</span>
      </button>
      {node.children.length > 0 && (
        <ul>
          {node.children.map((c) => (
            <FolderTree key={c.path} node={c} selected={selected} onSelect={onSelect} />
          ))}
        </ul>
      )}
    </li>
  );
}

/** The folder tree and the tag chips, built from the test cases read (none yet while loading), beside `children` (the list). */
function TestCaseFilters({
  items = [],
  folder,
  chosen,
  go,
  children,
}: {
  items: TestCase[] | undefined;
  folder: string;
  chosen: string[];
  go: (folder: string, tags: string[]) => void;
  children: ComponentChildren;
}) {
  const tree = useMemo(() => folderTree(items.map((t) => t.folder)), [items]);
  const allTags = useMemo(() => [...new Set(items.flatMap((t) => t.tags))].sort(), [items]);
  const toggle = (tag: string) => go(folder, chosen.includes(tag) ? chosen.filter((t) => t !== tag) : [...chosen, tag]);
  return (
    <div class="split">
      <nav aria-label="Folders" class="res-tree card">
        <ul>
          <FolderTree node={tree} selected={folder} onSelect={(p) => go(p, chosen)} />
        </ul>
      </nav>
      <div>
        <fieldset class="res-chips" aria-label="Filter by tags">
          <legend>Tags (test cases carrying all chosen tags)</legend>
          {allTags.length === 0 && <span class="muted">No tags yet.</span>}
          {allTags.map((tag) => (
            <button
              key={tag}
              type="button"
              class={`res-chip${chosen.includes(tag) ? ' res-chip-on' : ''}`}
              aria-pressed={chosen.includes(tag)}
              onClick={() => toggle(tag)}
            >
              {tag}
            </button>
          ))}
          {chosen.length > 0 && (
            <button type="button" class="secondary small" onClick={() => go(folder, [])}>
              Clear tags
            </button>
          )}
        </fieldset>
        {children}
      </div>
    </div>
  );
}

/**
 * `/test-cases`: every test case (all pages of `GET /v1/test-cases`), a folder tree to pick a
 * folder (with its subfolders), tag chips (keeps test cases carrying all chosen tags); the
 * choices live in the address (`?folder=a/b&tags=x,y`) so they can be linked.
 */
export function TestCasesPage() {
  const { query, route, path } = useLocation();
  const folder = query.folder ?? '';
  const chosen = (query.tags ?? '').split(',').filter(Boolean);
  const go = (nextFolder: string, nextTags: string[]) => {
    const q = new URLSearchParams();
    if (nextFolder) q.set('folder', nextFolder);
    if (nextTags.length) q.set('tags', nextTags.join(','));
    const s = q.toString();
    route(s ? `${path}?${s}` : path, true);
  };
  return (
    <ResourceList<TestCase>
      title="Test cases"
      sub="Flows of API calls and assertions, in folders, with tags."
      create={{
        href: `/test-cases/new${folder ? `?folder=${encodeURIComponent(folder)}` : ''}`,
        label: 'New test case',
      }}
      path="/v1/test-cases"
      what="test cases"
      empty={{
        title: 'No test cases yet',
        write: <a href="/test-cases/new">New test case</a>,
        via: 'or import them with the API',
        calls: ['POST /v1/test-cases'],
      }}
      table={{
        label: 'Test cases',
        key: (t) => t.id,
        columns: [
          { head: 'Name', cell: (t) => <a href={`/test-cases/${seg(t.id)}`}>{t.name}</a> },
          { head: 'Folder', cell: (t) => t.folder || <span class="muted">(top level)</span> },
          { head: 'Tags', cell: (t) => <TagChips tags={t.tags} /> },
          { head: 'Updated', cell: (t) => dateTime(t.updatedAt) },
        ],
      }}
      narrow={{
        keep: (t) => inFolder(t.folder, folder) && chosen.every((tag) => t.tags.includes(tag)),
        none: (
          <>
            No test case in {folder ? `folder “${folder}”` : 'any folder'}
            {chosen.length ? ` carries all of the tags ${chosen.join(', ')}` : ''}. Choose another folder or fewer tags.
          </>
        ),
      }}
      around={(list, items) => (
        <TestCaseFilters items={items} folder={folder} chosen={chosen} go={go}>
          {list}
        </TestCaseFilters>
      )}
    />
  );
}

const NEW_FLOW = [
  {
    type: 'api',
    id: 'health',
    request: { method: 'GET', url: '{{base}}/health' },
    assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
  },
];

/** The editable fields of a test case as the form holds them (texts). */
interface Draft {
  name: string;
  folder: string;
  tags: string;
  description: string;
  flow: string;
  dataSets: string;
}

function draftOf(tc: TestCase | undefined, folder = ''): Draft {
  return {
    name: tc?.name ?? '',
    folder: tc?.folder ?? folder,
    tags: (tc?.tags ?? []).join(', '),
    description: tc?.description ?? '',
    flow: pretty(tc?.flow ?? NEW_FLOW),
    dataSets: pretty(tc?.dataSets ?? []),
  };
}

/**
 * The form of a test case (edit and new): fields, the flow editor, the data sets editor.
 * Invalid JSON is reported at its place before anything is sent; the API's field errors are put
 * next to their field (flow and data sets errors as lint marks plus a list under the editor).
 */
function TestCaseForm({ tc, onSaved }: { tc?: TestCase; onSaved: (tc: TestCase) => void }) {
  const { query } = useLocation();
  const writable = can('write');
  const [draft, setDraft] = useState<Draft>(() => draftOf(tc, query.folder ?? ''));
  const [local, setLocal] = useState<{ flow?: EditorMark; dataSets?: EditorMark; message?: string }>({});
  const [saved, setSaved] = useState(false);
  const set = (k: keyof Draft) => (v: string) => {
    setDraft((d) => ({ ...d, [k]: v }));
    setSaved(false);
  };
  const save = useAction(async () => {
    setLocal({});
    setSaved(false);
    const flow = readJson(draft.flow, 'The flow');
    const dataSets = readJson(draft.dataSets, 'The data sets');
    if (!flow.ok || !dataSets.ok) {
      setLocal({
        flow: flow.ok ? undefined : flow.mark,
        dataSets: dataSets.ok ? undefined : dataSets.mark,
        message: !flow.ok ? flow.message : !dataSets.ok ? dataSets.message : undefined,
      });
      return;
    }
    const body = {
      name: draft.name,
      folder: draft.folder,
      description: draft.description,
      tags: draft.tags
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean),
      flow: flow.value,
      dataSets: dataSets.value,
      // PUT replaces: the test case's hooks (set through the API; no editor here) are sent back as they are.
      ...(tc?.hooks ? { hooks: tc.hooks } : {}),
    };
    const result = tc
      ? await api<TestCase>('PUT', `/v1/test-cases/${seg(tc.id)}`, body)
      : await api<TestCase>('POST', '/v1/test-cases', body);
    setSaved(true);
    onSaved(result);
  });
  const problem: Problem | undefined = save.problem;
  const flowErr = marksUnder(problem, '/flow', draft.flow);
  const dsErr = marksUnder(problem, '/dataSets', draft.dataSets);
  const flowMarks = local.flow ? [local.flow] : flowErr.marks;
  const dsMarks = local.dataSets ? [local.dataSets] : dsErr.marks;
  // Problems other than field errors of the editors (a name taken, a loop quota…) go in the box.
  const otherProblem =
    problem &&
    (problem.errors?.length ?? 0) > 0 &&
    flowErr.errors.length + dsErr.errors.length === problem.errors!.length
      ? undefined
      : problem;

  return (
    <form
      class="card res-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (writable) void save.run();
      }}
    >
      <div class="row">
        <Field label="Name" error={fieldError(problem, 'name')}>
          <input required value={draft.name} readOnly={!writable} onInput={(e) => set('name')(e.currentTarget.value)} />
        </Field>
        <Field label="Folder" hint="e.g. users/admin; empty for the top level" error={fieldError(problem, 'folder')}>
          <input value={draft.folder} readOnly={!writable} onInput={(e) => set('folder')(e.currentTarget.value)} />
        </Field>
        <Field label="Tags" hint="comma-separated" error={fieldError(problem, 'tags')}>
          <input value={draft.tags} readOnly={!writable} onInput={(e) => set('tags')(e.currentTarget.value)} />
        </Field>
      </div>
      <Field label="Description" error={fieldError(problem, 'description')}>
        <textarea
          rows={2}
          value={draft.description}
          readOnly={!writable}
          onInput={(e) => set('description')(e.currentTarget.value)}
        />
      </Field>
      <div class={`field${flowMarks.length ? ' field-invalid' : ''}`}>
        <span class="field-label" id="flow-label">
          Flow (JSON: a list of nodes, docs/flows.md)
        </span>
        <Editor
          value={draft.flow}
          onChange={set('flow')}
          language="json"
          label="Flow"
          readOnly={!writable}
          marks={flowMarks}
          onSubmit={() => writable && void save.run()}
          minHeight="16rem"
        />
        {local.flow && (
          <p class="field-error" role="alert">
            {local.message} — nothing was sent.
          </p>
        )}
        <FieldErrors errors={flowErr.errors} label="Flow errors" />
      </div>
      <div class={`field${dsMarks.length ? ' field-invalid' : ''}`}>
        <span class="field-label">Data sets (JSON list; [] for none)</span>
        <Editor
          value={draft.dataSets}
          onChange={set('dataSets')}
          language="json"
          label="Data sets"
          readOnly={!writable}
          marks={dsMarks}
          minHeight="4rem"
        />
        {local.dataSets && !local.flow && (
          <p class="field-error" role="alert">
            {local.message} — nothing was sent.
          </p>
        )}
        <FieldErrors errors={dsErr.errors} label="Data sets errors" />
      </div>
      <ProblemBox
        problem={
          otherProblem
            ? {
                ...otherProblem,
                errors: otherProblem.errors?.filter((e) => !e.pointer || !/^#?\/(flow|dataSets)(\/|$)/.test(e.pointer)),
              }
            : undefined
        }
      />
      {problem && !otherProblem && (
        <p class="field-error" role="alert">
          {problem.title}: nothing was saved. Fix the marked places and save again.
        </p>
      )}
      {writable ? (
        <div class="row res-actions">
          <button type="submit" disabled={save.busy}>
            {save.busy ? 'Saving…' : tc ? 'Save' : 'Create test case'}
          </button>
          <span class="muted" aria-live="polite">
            {saved ? 'Saved.' : 'Ctrl+Enter in the flow editor saves too.'}
          </span>
        </div>
      ) : (
        <p class="notice">Your key has read scope: this test case is read-only.</p>
      )}
    </form>
  );
}

/** `/test-cases/:id`: one test case, editable with a write key; Delete asks first. */
export function TestCasePage() {
  const { params } = useRoute();
  const { route } = useLocation();
  const id = params.id!;
  const tc = useLoad((signal) => api<TestCase>('GET', `/v1/test-cases/${seg(id)}`, undefined, { signal }), [id]);
  const [deleteProblem, setDeleteProblem] = useState<Problem | undefined>();
  const remove = async () => {
    try {
      await api('DELETE', `/v1/test-cases/${seg(id)}`);
      route('/test-cases');
    } catch (err) {
      setDeleteProblem(problemOf(err));
    }
  };
  return (
    <>
      <PageHeader
        title={tc.data ? tc.data.name : 'Test case'}
        sub={
          tc.data && (
            <>
              <a href={tc.data.folder ? `/test-cases?folder=${encodeURIComponent(tc.data.folder)}` : '/test-cases'}>
                {tc.data.folder || 'top level'}
              </a>{' '}
              · <code>{tc.data.id}</code> · updated {dateTime(tc.data.updatedAt)}
            </>
          )
        }
      >
        {tc.data && can('write') && (
          <ConfirmButton
            class="danger"
            question={`Delete test case “${tc.data.name}”? Runners that list it forget it.`}
            onConfirm={() => void remove()}
          >
            Delete
          </ConfirmButton>
        )}
      </PageHeader>
      <ProblemBox problem={tc.problem ?? deleteProblem} onRetry={tc.problem ? tc.reload : undefined} />
      {!tc.data && !tc.problem && <Loading what="the test case" />}
      {tc.data && <HistorySection testCaseId={tc.data.id} />}
      {tc.data && <TestCaseForm key={tc.data.id} tc={tc.data} onSaved={tc.reload} />}
    </>
  );
}

/** `/test-cases/new`: the form with a starter flow; creating goes to the new test case's page. */
export function NewTestCasePage() {
  const { route } = useLocation();
  if (!can('write'))
    return <Empty title="Creating test cases needs a write key">Sign in with a key of scope write.</Empty>;
  return (
    <>
      <PageHeader title="New test case" sub="POST /v1/test-cases: a name, a folder, tags and a flow." />
      <TestCaseForm onSaved={(tc) => route(`/test-cases/${seg(tc.id)}`)} />
    </>
  );
}
