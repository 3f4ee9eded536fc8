/**
 * The test-case designer (docs/console.md "The designer"): `/test-cases/:id` and `/test-cases/new`.
 * A test case is edited as a tree of nodes (tree/), each node in a form made from the server's own
 * schemas (forms/), the flow also as JSON one click away (page/JsonView.tsx: the same document,
 * both ways), debugged in place through the real engine (debug/: `POST /v1/test-cases/debug`), and
 * saved whole with `If-Match` (page/save.ts: a save over someone else's newer save answers 409 and
 * opens page/ConflictDialog.tsx). The document lives in one store (model/store.ts) with undo/redo;
 * a draft is kept in localStorage after each edit (page/drafts.ts) and offered back on open;
 * leaving with unsaved changes asks first. Read keys see everything, edit nothing. Below, the
 * test case's history and its saved versions (versions/VersionsPanel.tsx: compare, restore).
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { api, problemOf, type Problem } from '../api';
import { useLoad } from '../hooks';
import { can, session } from '../session';
import { dateTime } from '../format';
import { ConfirmButton, Empty, PageHeader, ProblemBox } from '../ui/kit';
import { listAll, Loading } from '../resources/common';
import { HistorySection } from '../history/section';
import { VersionsPanel } from '../versions/VersionsPanel';
import type { Environment } from '../types';
import { createDesignerStore, type DesignerStore } from './model/store';
import { useDesigner } from './use-designer';
import { forEachNode } from '../../../src/flow/tree';
import * as cmd from './model/commands';
import {
  emptyDoc,
  findById,
  fromTestCase,
  nodeIds,
  pathToPointer,
  pointerToPath,
  type FlowNode,
  type TestCaseDoc,
} from './model/doc';
import { FlowTree } from './tree/FlowTree';
import { NodeForm } from './forms/NodeForm';
import { DebugPanel } from './debug/DebugPanel';
import { useDebugRun } from './debug/use-debug-run';
import { WaysIn } from './ways-in/WaysIn';
import { TestCaseSettings } from './page/Settings';
import { JsonView } from './page/JsonView';
import { ConflictDialog } from './page/ConflictDialog';
import { SaveConflict, saveTestCase, type SavedTestCase } from './page/save';
import { draftKey, dropDraft, readDraft, writeDraft, type Draft } from './page/drafts';
import { completionVariables } from './page/variables';
import './page/page.css';

const seg = encodeURIComponent;

/** The node id and the pointer relative to it of each API field error under `/flow/...`. */
function nodeErrors(problem: Problem | undefined, flow: FlowNode[]) {
  const byNode = new Map<string, { pointer: string; message: string }[]>();
  for (const e of problem?.errors ?? []) {
    if (!e.pointer) continue;
    const path = pointerToPath(e.pointer.replace(/^#?\/testCase/, ''));
    if (path[0] !== 'flow') continue;
    // The deepest node on the path: walk it while it names nodes.
    let at: FlowNode[] | undefined = flow;
    let node: FlowNode | undefined;
    let i = 1;
    while (at && i < path.length && typeof path[i] === 'number') {
      node = at[path[i] as number];
      i += 1;
      const field = path[i];
      const children =
        node && typeof field === 'string' ? (node as unknown as Record<string, unknown>)[field] : undefined;
      if (
        Array.isArray(children) &&
        ['then', 'else', 'body', 'children'].includes(field as string) &&
        typeof path[i + 1] === 'number'
      ) {
        at = children as FlowNode[];
        i += 1;
      } else break;
    }
    if (!node) continue;
    const rest = path
      .slice(i)
      .map((s) => `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`)
      .join('');
    const list = byNode.get(node.id) ?? [];
    list.push({ pointer: rest, message: e.detail });
    byNode.set(node.id, list);
  }
  return byNode;
}

/** Asks before leaving the page (closing the tab, or a link inside the console) while `dirty`. */
function useLeaveGuard(dirty: boolean) {
  useEffect(() => {
    if (!dirty) return;
    const beforeUnload = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      e.returnValue = '';
    };
    // preact-iso routes on clicks of same-origin links: ask first, in the capture phase.
    const click = (e: MouseEvent) => {
      const a = (e.target as Element | null)?.closest?.('a[href]') as HTMLAnchorElement | null;
      if (!a || a.target || e.defaultPrevented || a.origin !== location.origin) return;
      if (a.pathname === location.pathname) return;
      if (!window.confirm('Leave the designer? Your unsaved changes are kept as a draft in this browser.')) {
        e.preventDefault();
        e.stopImmediatePropagation();
      }
    };
    window.addEventListener('beforeunload', beforeUnload);
    document.addEventListener('click', click, true);
    return () => {
      window.removeEventListener('beforeunload', beforeUnload);
      document.removeEventListener('click', click, true);
    };
  }, [dirty]);
}

/** Why the page is read-only, in the caller's terms (a role for a person, a scope for a key). */
function readOnlyReason(): string {
  const s = session();
  return s?.kind === 'user'
    ? `Your role here is ${s.role}: this test case is read-only.`
    : `Your key has ${s?.scope ?? 'read'} scope: this test case is read-only.`;
}

/** The route `/test-cases/:id`: loads the test case, then the designer. */
export function TestCaseDesignerPage() {
  const { params } = useRoute();
  const id = params.id!;
  const tc = useLoad((signal) => api<SavedTestCase>('GET', `/v1/test-cases/${seg(id)}`, undefined, { signal }), [id]);
  if (tc.problem) return <ProblemBox problem={tc.problem} onRetry={tc.reload} />;
  if (!tc.data) return <Loading what="the test case" />;
  return <Designer key={id} loaded={tc.data} />;
}

/** The route `/test-cases/new`: the designer on an empty test case (a starter API node). */
export function NewTestCaseDesignerPage() {
  if (!can('write'))
    return (
      <Empty title="Creating test cases needs the write scope">
        Sign in with a key of scope write, or ask for the editor role.
      </Empty>
    );
  return <Designer key="new" />;
}

/** The designer on `loaded` (a stored test case) or on a new one. */
function Designer({ loaded }: { loaded?: SavedTestCase }) {
  const { route, query } = useLocation();
  const writable = can('write');
  const workspace = session()?.workspace.id ?? 'default';
  const initial = useMemo(() => {
    if (loaded) return fromTestCase(loaded);
    const doc = emptyDoc('', query.folder ?? '');
    return { doc, server: {} as { id?: string; version?: number | string; updatedAt?: string } };
  }, []);
  const storeRef = useRef<DesignerStore>();
  storeRef.current ??= createDesignerStore({
    doc: initial.doc,
    version: initial.server.version,
    updatedAt: initial.server.updatedAt,
    readOnly: !writable,
  });
  const store = storeRef.current;
  const state = useDesigner(store, (s) => s);
  const { doc, dirty } = state;
  const [id, setId] = useState(initial.server.id);
  const [view, setView] = useState<'tree' | 'json'>(query.view === 'json' ? 'json' : 'tree');
  const [jsonError, setJsonError] = useState<string>();
  const [saveProblem, setSaveProblem] = useState<Problem>();
  const [saving, setSaving] = useState(false);
  const [savedNote, setSavedNote] = useState('');
  const [conflict, setConflict] = useState<{ theirs?: TestCaseDoc; version?: number | string; updatedAt?: string }>();
  const [pane, setPane] = useState<'node' | 'result'>('node');
  const [environment, setEnvironment] = useState(() => localStorage.getItem(`assay.designer.env.${workspace}`) ?? '');
  const key = draftKey(workspace, id);
  const [offer, setOffer] = useState<Draft | undefined>(() => {
    const d = readDraft(localStorage, key);
    return d && JSON.stringify(d.doc) !== JSON.stringify(initial.doc) ? d : undefined;
  });
  const debug = useDebugRun();

  // Lookups the forms complete from: environments (and the chosen one's variables), auth profiles, test cases.
  const envs = useLoad((signal) => listAll<Environment>('/v1/environments', signal), []);
  const profiles = useLoad((signal) => listAll<{ name: string }>('/v1/auth-profiles', signal), []);
  const testCases = useLoad(
    (signal) => listAll<{ id: string; name: string; folder?: string; reusable?: boolean }>('/v1/test-cases', signal),
    [],
  );
  // The workspace files multipart parts and file bodies choose from (none when the listing fails).
  const files = useLoad(
    (signal) => listAll<{ name: string; contentType: string; size: number }>('/v1/files', signal),
    [],
  );
  const envNames = (envs.data ?? []).map((e) => e.name);
  const chosenEnv = environment && envNames.includes(environment) ? environment : (envNames[0] ?? '');
  const envDoc = useLoad(
    (signal) =>
      chosenEnv
        ? api<Environment & { servers?: Record<string, string> }>(
            'GET',
            `/v1/environments/${seg(chosenEnv)}`,
            undefined,
            { signal },
          )
        : Promise.resolve(undefined),
    [chosenEnv],
  );

  useEffect(() => store.setReadOnly(!writable || !!jsonError), [writable, jsonError]);
  useLeaveGuard(dirty && writable);
  // The draft: kept a moment after each edit, dropped once saved or equal to the base. While an
  // earlier draft is offered it is left alone; an edit instead of "Restore them" sets it aside (the
  // new edits are the draft from then on).
  useEffect(() => {
    if (!writable) return;
    if (offer) {
      if (!dirty) return;
      setOffer(undefined);
    }
    const t = setTimeout(() => {
      if (dirty) writeDraft(localStorage, key, doc, state.base.version);
      else dropDraft(localStorage, key);
    }, 400);
    return () => clearTimeout(t);
  }, [doc, dirty, key]);

  const selectedId = state.selection[state.selection.length - 1] ?? state.focus;
  const found = selectedId ? findById(doc.flow, selectedId) : undefined;
  const selected = found?.node;
  // The form's identity: the node's place, not its id, so renaming the node keeps the form (and its focus).
  const formKey = found ? pathToPointer(found.path) : '';
  const problem = saveProblem ?? (debug.problem?.errors?.length ? debug.problem : undefined);
  const errorsByNode = useMemo(() => {
    const p = problem && {
      ...problem,
      errors: problem.errors?.map((e) => ({ ...e, pointer: e.pointer?.replace(/^#?\/testCase/, '#') })),
    };
    return nodeErrors(p, doc.flow);
  }, [problem, doc.flow]);
  const problemsForTree = useMemo(
    () => new Map([...errorsByNode].map(([nid, list]) => [nid, list.map((e) => e.message)])),
    [errorsByNode],
  );
  const context = useMemo(
    () => ({
      variables: completionVariables(doc, selectedId, envDoc.data),
      authProfiles: (profiles.data ?? []).map((p) => p.name),
      servers: Object.keys(envDoc.data?.servers ?? {}),
      testCases: (testCases.data ?? [])
        .filter((t) => t.id !== id)
        .map((t) => ({ id: t.id, name: t.name, reusable: !!t.reusable })),
      dataSets: doc.dataSets.map((d) => d.name),
      files: (files.data ?? []).map((f) => ({ name: f.name, contentType: f.contentType, size: f.size })),
      reloadFiles: files.reload,
      onSend: can('run') && selected?.type === 'api' && chosenEnv ? () => void send() : undefined,
    }),
    [doc, selectedId, envDoc.data, profiles.data, testCases.data, files.data, chosenEnv],
  );

  async function save(overwrite = false) {
    if (!writable || saving) return;
    if (jsonError) {
      setSaveProblem({ title: 'The JSON view has an error', status: 0, detail: `${jsonError}: fix it before saving.` });
      return;
    }
    setSaving(true);
    setSaveProblem(undefined);
    setSavedNote('');
    const sent = doc;
    try {
      const saved = await saveTestCase(sent, id, state.base.version, overwrite);
      store.markSaved(sent, saved.version, saved.updatedAt);
      dropDraft(localStorage, key);
      setConflict(undefined);
      setSavedNote(`Saved at ${dateTime(saved.updatedAt ?? new Date().toISOString())}.`);
      if (!id) {
        dropDraft(localStorage, draftKey(workspace, saved.id));
        setId(saved.id);
        route(`/test-cases/${seg(saved.id)}`, true);
      }
    } catch (err) {
      if (err instanceof SaveConflict) {
        let theirs: TestCaseDoc | undefined;
        try {
          theirs = fromTestCase(await api<SavedTestCase>('GET', `/v1/test-cases/${seg(id!)}`)).doc;
        } catch {
          theirs = undefined;
        }
        setConflict({ theirs, version: err.version, updatedAt: err.updatedAt });
      } else setSaveProblem(problemOf(err));
    } finally {
      setSaving(false);
    }
  }

  async function reloadTheirs() {
    try {
      const fresh = fromTestCase(await api<SavedTestCase>('GET', `/v1/test-cases/${seg(id!)}`));
      store.resetTo(fresh.doc, fresh.server.version, fresh.server.updatedAt);
      dropDraft(localStorage, key);
      setConflict(undefined);
      setSavedNote('Reloaded the saved version; your changes were dropped.');
    } catch (err) {
      setSaveProblem(problemOf(err));
    }
  }

  async function run() {
    setPane('result');
    await debug.start(doc, chosenEnv);
  }
  // When a debug run ends with a failed node, that node opens with its error (the first in tree order).
  const ended = debug.state === 'done' || debug.state === 'failed';
  useEffect(() => {
    if (!ended || debug.sentNodeId) return;
    let failed: string | undefined;
    forEachNode(store.getState().doc.flow, (node) => {
      if (!failed && debug.results.get(node.id)?.status === 'failed') failed = node.id;
    });
    if (failed) {
      store.dispatch(cmd.focusNode(failed, true));
      setPane('result');
    }
  }, [ended, debug.results]);
  async function send() {
    if (!selectedId) return;
    setPane('result');
    await debug.sendNode(doc, selectedId, chosenEnv);
  }

  const onKey = (e: KeyboardEvent) => {
    const mod = e.ctrlKey || e.metaKey;
    if (mod && e.key.toLowerCase() === 's') {
      e.preventDefault();
      void save();
    }
  };
  // Undo and redo anywhere on the page outside text fields and editors (which keep their own undo);
  // the tree handles its own keys.
  useEffect(() => {
    const onDocKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || e.altKey || e.defaultPrevented) return;
      const el = e.target as HTMLElement | null;
      if (el?.closest?.('input, textarea, select, [contenteditable="true"], [role="tree"], dialog')) return;
      const k = e.key.toLowerCase();
      if (k === 'z' && !e.shiftKey) store.undo();
      else if ((k === 'z' && e.shiftKey) || k === 'y') store.redo();
      else return;
      e.preventDefault();
    };
    document.addEventListener('keydown', onDocKey);
    return () => document.removeEventListener('keydown', onDocKey);
  }, [store]);

  const remove = async () => {
    try {
      await api('DELETE', `/v1/test-cases/${seg(id!)}`);
      dropDraft(localStorage, key);
      store.resetTo(doc);
      route('/test-cases');
    } catch (err) {
      setSaveProblem(problemOf(err));
    }
  };

  const nodeErrs = selectedId ? (errorsByNode.get(selectedId) ?? []) : [];
  const otherErrors =
    problem &&
    (!problem.errors?.length || problem.errors.some((e) => !e.pointer || !/^#?(\/testCase)?\/flow\//.test(e.pointer)))
      ? problem
      : undefined;

  return (
    <div class="dz-page" onKeyDown={onKey}>
      <PageHeader
        title={doc.name || (id ? 'Test case' : 'New test case')}
        sub={
          id ? (
            <>
              <a href={doc.folder ? `/test-cases?folder=${encodeURIComponent(doc.folder)}` : '/test-cases'}>
                {doc.folder || 'top level'}
              </a>{' '}
              · <code>{id}</code>
              {state.base.updatedAt && <> · saved {dateTime(state.base.updatedAt)}</>}
              {state.base.version !== undefined && <> · version {String(state.base.version)}</>}
            </>
          ) : (
            'A flow of nodes, built in the tree; saved with POST /v1/test-cases.'
          )
        }
      >
        {writable && (
          <>
            <button
              type="button"
              class="secondary"
              disabled={state.past.length === 0}
              onClick={() => store.undo()}
              title="Ctrl+Z"
            >
              Undo
            </button>
            <button
              type="button"
              class="secondary"
              disabled={state.future.length === 0}
              onClick={() => store.redo()}
              title="Ctrl+Shift+Z"
            >
              Redo
            </button>
            <button
              type="button"
              disabled={saving || (!dirty && !!id && !jsonError)}
              onClick={() => void save()}
              title="Ctrl+S"
            >
              {saving ? 'Saving…' : id ? 'Save' : 'Create test case'}
            </button>
          </>
        )}
        {id && writable && (
          <ConfirmButton
            class="danger"
            question={`Delete test case “${doc.name}”? Runners that list it forget it.`}
            onConfirm={() => void remove()}
          >
            Delete
          </ConfirmButton>
        )}
      </PageHeader>
      <p class="dz-status" aria-live="polite">
        {!writable ? readOnlyReason() : dirty ? 'Unsaved changes (kept as a draft in this browser).' : savedNote}
      </p>
      {offer && writable && (
        <div class="notice dz-draft" role="status">
          This browser kept unsaved changes from {dateTime(offer.savedAt)}.{' '}
          <button
            type="button"
            onClick={() => {
              store.dispatch({ label: 'Restore draft', run: (s) => ({ ...s, doc: offer.doc }) });
              setOffer(undefined);
            }}
          >
            Restore them
          </button>{' '}
          <button
            type="button"
            class="secondary"
            onClick={() => {
              dropDraft(localStorage, key);
              setOffer(undefined);
            }}
          >
            Discard
          </button>
        </div>
      )}
      <ProblemBox problem={otherErrors} />
      {saveProblem && !otherErrors && (
        <p class="field-error" role="alert">
          {saveProblem.title}: nothing was saved. Fix the marked nodes and save again.
        </p>
      )}
      {conflict && (
        <ConflictDialog
          mine={doc}
          theirs={conflict.theirs}
          theirsUpdatedAt={conflict.updatedAt}
          onReload={() => void reloadTheirs()}
          onOverwrite={() => void save(true)}
          onCancel={() => setConflict(undefined)}
        />
      )}
      <details class="card dz-settings-card" open={!id}>
        <summary>Test case: name, folder, tags, auth, data sets, hooks</summary>
        <TestCaseSettings
          doc={doc}
          problem={saveProblem}
          readOnly={!writable}
          authProfiles={(profiles.data ?? []).map((p) => p.name)}
          testCases={testCases.data}
          selfId={id}
          onSet={(k, v) => store.dispatch(cmd.setTestCaseField(k, v as never))}
        />
      </details>
      <div class="dz-bar">
        <div role="tablist" aria-label="View" class="dz-views">
          <button type="button" role="tab" aria-selected={view === 'tree'} onClick={() => setView('tree')}>
            Designer
          </button>
          <button type="button" role="tab" aria-selected={view === 'json'} onClick={() => setView('json')}>
            JSON
          </button>
        </div>
        <div class="dz-run">
          <label>
            <span class="muted">Run in</span>{' '}
            <select
              aria-label="Run in environment"
              value={chosenEnv}
              onChange={(e) => {
                setEnvironment(e.currentTarget.value);
                localStorage.setItem(`assay.designer.env.${workspace}`, e.currentTarget.value);
              }}
            >
              {envNames.length === 0 && <option value="">(no environment)</option>}
              {envNames.map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </select>
          </label>{' '}
          {can('run') && (
            <button
              type="button"
              disabled={!chosenEnv || debug.state === 'starting' || debug.state === 'running' || doc.flow.length === 0}
              onClick={() => void run()}
              title={
                chosenEnv
                  ? 'Run this test case as it is here (saved or not) through the engine'
                  : 'Create an environment first'
              }
            >
              {debug.state === 'starting' || debug.state === 'running' ? 'Running…' : 'Run'}
            </button>
          )}{' '}
          <span class="muted" aria-live="polite">
            {debug.run && (
              <>
                Debug run <a href={`/runs/${seg(debug.run.runId)}`}>{debug.run.runId}</a>: {debug.run.status}
                {debug.run.result ? `, ${debug.run.result}` : ''}
              </>
            )}
          </span>
        </div>
      </div>
      {debug.problem && !debug.problem.errors?.length && <ProblemBox problem={debug.problem} />}
      {view === 'json' ? (
        <JsonView
          flow={doc.flow}
          readOnly={!writable}
          problem={problem}
          onError={setJsonError}
          onFlow={(flow) => store.dispatch(cmd.replaceFlow(flow))}
          onSubmit={() => void save()}
        />
      ) : (
        <div class="dz-main">
          <section class="dz-tree-pane" aria-label="Flow">
            {jsonError && (
              <p class="field-error">The JSON view has an error: the tree is read-only until it is fixed.</p>
            )}
            <FlowTree store={store} results={debug.results} problems={problemsForTree} onOpen={() => setPane('node')} />
            {writable && (
              <WaysIn
                taken={nodeIds(doc.flow)}
                onAdd={(node: FlowNode) => {
                  const focus = state.focus;
                  const place = (focus ? cmd.placeAfter(doc.flow, focus) : undefined) ?? {
                    parent: null,
                    field: 'flow' as const,
                    index: doc.flow.length,
                  };
                  store.dispatch(cmd.insertNodes(place, [node], 'Add node'));
                }}
              />
            )}
          </section>
          <section class="dz-node-pane" aria-label="Node">
            {selected ? (
              <>
                <div role="tablist" aria-label="Node view" class="dz-views">
                  <button type="button" role="tab" aria-selected={pane === 'node'} onClick={() => setPane('node')}>
                    Edit
                  </button>
                  <button type="button" role="tab" aria-selected={pane === 'result'} onClick={() => setPane('result')}>
                    Result{debug.results.get(selected.id) ? ` (${debug.results.get(selected.id)!.status})` : ''}
                  </button>
                </div>
                {pane === 'node' ? (
                  <NodeForm
                    key={formKey}
                    node={selected}
                    readOnly={!writable || !!jsonError}
                    errors={nodeErrs}
                    context={context}
                    onSet={(fieldPath, value) => store.dispatch(cmd.setNodeField(selected.id, fieldPath, value))}
                  />
                ) : (
                  <DebugPanel
                    result={debug.results.get(selected.id)}
                    runId={debug.run?.runId}
                    count={debug.counts.get(selected.id)}
                    state={debug.state}
                    onAssert={
                      writable
                        ? (nodeId, assertion) => {
                            const node = findById(store.getState().doc.flow, nodeId)?.node as
                              { assertions?: unknown[] } | undefined;
                            store.dispatch(
                              cmd.setNodeField(
                                nodeId,
                                ['assertions'],
                                [...(node?.assertions ?? []), assertion],
                                'Add assertion',
                              ),
                            );
                            setPane('node');
                          }
                        : undefined
                    }
                    onExtract={
                      writable
                        ? (nodeId, extraction) => {
                            store.dispatch(
                              cmd.setNodeField(
                                nodeId,
                                ['extract', extraction.variable],
                                extraction.expression,
                                'Add extraction',
                              ),
                            );
                            setPane('node');
                          }
                        : undefined
                    }
                  />
                )}
              </>
            ) : (
              <Empty title={doc.flow.length ? 'No node selected' : 'An empty flow'}>
                {doc.flow.length
                  ? 'Choose a node in the tree to edit it.'
                  : 'Add a node from the palette, paste a cURL command, or start from an API design.'}
              </Empty>
            )}
          </section>
        </div>
      )}
      {id && <HistorySection testCaseId={id} />}
      {id && (
        <VersionsPanel
          base={`/v1/test-cases/${seg(id)}`}
          what="test case"
          flow
          revision={state.base.updatedAt}
          initial={query.version && /^[0-9]+$/.test(query.version) ? Number(query.version) : undefined}
          onRestored={(resource) => {
            const fresh = fromTestCase(resource);
            store.resetTo(fresh.doc, fresh.server.version, fresh.server.updatedAt);
            dropDraft(localStorage, key);
            setOffer(undefined);
            setSavedNote(`Restored; saved at ${dateTime(fresh.server.updatedAt ?? new Date().toISOString())}.`);
          }}
        />
      )}
    </div>
  );
}
