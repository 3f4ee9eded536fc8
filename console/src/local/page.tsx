/**
 * The Local requests page (interface spec "Local request"): ad-hoc requests kept
 * only in this browser, per workspace. A list on the left, the selected request's editor and its
 * last response on the right (routes `/requests` and `/requests/:requestId`).
 *
 * Privacy: this page calls the Assay API only for `GET /v1/environments` (to offer environments as
 * variable groups), and, when the user asks for it, `POST /v1/relay` (a request whose "Send through
 * the Assay relay" is on) and `POST /v1/test-cases` ("Save as test case"). The browser test
 * test/browser/local-requests.test.ts checks that no other /v1 call carries a request's content.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { api, ApiError, type Page, type Problem } from '../api';
import { useLoad } from '../hooks';
import { useSession } from '../session';
import type { Environment } from '../types';
import { ConfirmButton, Empty, PageHeader, ProblemBox } from '../ui/kit';
import { CopyCurlDialog, ImportCurlDialog, SaveTestCaseDialog } from './dialogs';
import { RequestEditor, type SendState } from './editor';
import {
  deleteFile,
  displayName,
  load,
  newId,
  newRequest,
  save,
  type LocalGroup,
  type LocalRequest,
  type LocalState,
} from './store';
import { linkedEnvironmentVariables, rowsToVariables, type Variables } from './variables';
import { PrepareError, prepare, sendDirect, sendViaRelay } from './send';
import type { CurlImport } from './curl';
import './local.css';

/** The page: one {@link Workspace} per signed-in workspace (its own storage). */
export function LocalRequestsPage() {
  const s = useSession();
  if (!s) return null;
  return <Workspace key={s.workspace.id} workspaceId={s.workspace.id} />;
}

type DialogState = { kind: 'import' } | { kind: 'curl'; id: string } | { kind: 'test-case'; id: string } | null;

function Workspace({ workspaceId }: { workspaceId: string }) {
  const { route } = useLocation();
  const { params } = useRoute();
  const selectedId = params.requestId;
  const stateRef = useRef<LocalState | null>(null);
  if (!stateRef.current) stateRef.current = load(workspaceId);
  const [, setTick] = useState(0);
  const [saveProblem, setSaveProblem] = useState<Problem>();
  const [dialog, setDialog] = useState<DialogState>(null);
  const [warnings, setWarnings] = useState<Record<string, string[]>>({});
  const [results, setResults] = useState<Record<string, SendState>>({});
  const [sending, setSending] = useState<string | null>(null);
  const envs = useLoad(
    (signal) => api<Page<Environment>>('GET', '/v1/environments?limit=200', undefined, { signal }),
    [],
  );

  const state = stateRef.current;
  const selected = state.requests.find((r) => r.id === selectedId);

  /** Saves synchronously (every change is stored at once) and re-renders. */
  const commit = (next: LocalState) => {
    stateRef.current = next;
    try {
      save(workspaceId, next);
      setSaveProblem(undefined);
    } catch (err) {
      setSaveProblem({
        title: 'Could not save in this browser',
        status: 0,
        detail: `The browser's storage refused the change (${(err as Error).message}). Delete requests or large bodies to make room.`,
      });
    }
    setTick((t) => t + 1);
  };
  const patchRequest = (id: string, patch: Partial<LocalRequest>) => {
    const st = stateRef.current!;
    commit({
      ...st,
      requests: st.requests.map((r) => (r.id === id ? { ...r, ...patch, updatedAt: new Date().toISOString() } : r)),
    });
  };
  const setGroups = (groups: LocalGroup[]) => {
    const st = stateRef.current!;
    const ids = new Set(groups.map((g) => g.id));
    commit({
      ...st,
      groups,
      requests: st.requests.map((r) => (r.group?.kind === 'local' && !ids.has(r.group.id) ? { ...r, group: null } : r)),
    });
  };

  const create = (fields: Partial<LocalRequest> = {}) => {
    const r = newRequest(fields);
    const st = stateRef.current!;
    commit({ ...st, requests: [r, ...st.requests] });
    route(`/requests/${r.id}`);
    return r;
  };
  const remove = (r: LocalRequest) => {
    const st = stateRef.current!;
    commit({ ...st, requests: st.requests.filter((x) => x.id !== r.id) });
    for (const p of r.multipart) if (p.fileId) void deleteFile(workspaceId, p.fileId).catch(() => undefined);
    route('/requests');
  };
  const onImport = (imported: CurlImport) => {
    setDialog(null);
    const r = create({ ...imported.request });
    if (imported.warnings.length > 0) setWarnings((w) => ({ ...w, [r.id]: imported.warnings }));
  };

  const variablesOf = (r: LocalRequest): { variables: Variables; missing?: string } => {
    if (!r.group) return { variables: {} };
    if (r.group.kind === 'local') {
      const id = r.group.id;
      const g = stateRef.current!.groups.find((x) => x.id === id);
      return g
        ? { variables: rowsToVariables(g.variables) }
        : { variables: {}, missing: 'The linked local group no longer exists.' };
    }
    const name = r.group.name;
    const env = envs.data?.items.find((e) => e.name === name);
    return env
      ? { variables: linkedEnvironmentVariables(env) }
      : {
          variables: {},
          missing: envs.data
            ? `The environment "${name}" no longer exists in this workspace.`
            : 'The environments are still loading.',
        };
  };

  const send = async (id: string) => {
    if (sending) return;
    const r = stateRef.current!.requests.find((x) => x.id === id);
    if (!r) return;
    patchRequest(id, { sentAt: new Date().toISOString() }); // saved on send
    setSending(id);
    setResults((m) => ({ ...m, [id]: { ...m[id], busy: true } }));
    let result: SendState;
    try {
      const prepared = await prepare(r, variablesOf(r).variables, workspaceId);
      const outcome = r.relay ? await sendViaRelay(prepared) : await sendDirect(prepared);
      result = { outcome };
    } catch (err) {
      if (err instanceof ApiError) result = { problem: err.problem };
      else if (err instanceof PrepareError) result = { problem: { title: 'Not sent', status: 0, detail: err.message } };
      else result = { problem: { title: 'Not sent', status: 0, detail: String((err as Error)?.message ?? err) } };
    }
    setResults((m) => ({ ...m, [id]: result }));
    setSending(null);
  };

  useEffect(() => {
    document.title = selected ? `${displayName(selected)} · Local requests · Assay` : 'Local requests · Assay';
  }, [selected?.name, selected?.url]);

  const empty = state.requests.length === 0;
  return (
    <div class="lr-page">
      <PageHeader
        title="Local requests"
        sub="Kept only in this browser, for this workspace. Never uploaded unless you relay a request or save it as a test case."
      >
        <button type="button" onClick={() => create()}>
          New request
        </button>
        <button type="button" class="secondary" onClick={() => setDialog({ kind: 'import' })}>
          Import from curl
        </button>
      </PageHeader>
      <ProblemBox problem={saveProblem} />
      {empty ? (
        <Empty title="No local requests yet">
          <p>Requests you make here stay in this browser. Start with a new one or paste a curl command.</p>
          <div class="lr-empty-actions">
            <button type="button" onClick={() => create()}>
              New request
            </button>
            <button type="button" class="secondary" onClick={() => setDialog({ kind: 'import' })}>
              Import from curl
            </button>
          </div>
        </Empty>
      ) : (
        <div class="lr-split">
          <nav aria-label="Local requests list" class="lr-list">
            <ul>
              {state.requests.map((r) => (
                <li key={r.id}>
                  <a href={`/requests/${r.id}`} aria-current={r.id === selectedId ? 'page' : undefined}>
                    <span class={`lr-method lr-method-${r.method}`}>{r.method}</span>
                    <span class="lr-list-name">{displayName(r)}</span>
                  </a>
                </li>
              ))}
            </ul>
          </nav>
          <section class="lr-main" aria-label="Request">
            {selected ? (
              <RequestEditor
                key={selected.id}
                request={selected}
                workspaceId={workspaceId}
                groups={state.groups}
                environments={envs.data?.items}
                environmentsProblem={envs.problem}
                groupProblem={variablesOf(selected).missing}
                warnings={warnings[selected.id]}
                onDismissWarnings={() => setWarnings((w) => ({ ...w, [selected.id]: [] }))}
                onPatch={(patch) => patchRequest(selected.id, patch)}
                onGroups={setGroups}
                newGroupId={newId}
                onSend={() => void send(selected.id)}
                sending={sending === selected.id}
                result={results[selected.id]}
                actions={
                  <>
                    <button
                      type="button"
                      class="secondary"
                      onClick={() => setDialog({ kind: 'curl', id: selected.id })}
                    >
                      Copy as curl
                    </button>
                    <button
                      type="button"
                      class="secondary"
                      onClick={() => setDialog({ kind: 'test-case', id: selected.id })}
                    >
                      Save as test case
                    </button>
                    <ConfirmButton
                      class="danger"
                      question={`Delete the local request "${displayName(selected)}"? This cannot be undone.`}
                      onConfirm={() => remove(selected)}
                    >
                      Delete
                    </ConfirmButton>
                  </>
                }
              />
            ) : selectedId ? (
              <Empty title="No such local request">
                It may have been deleted, or it belongs to another browser or workspace.{' '}
                <a href="/requests">Back to the list</a>
              </Empty>
            ) : (
              <Empty title="Choose a request">Pick one in the list, or make a new one.</Empty>
            )}
          </section>
        </div>
      )}
      {dialog?.kind === 'import' && <ImportCurlDialog onClose={() => setDialog(null)} onImport={onImport} />}
      {dialog?.kind === 'curl' && selected && (
        <CopyCurlDialog
          request={selected}
          variables={variablesOf(selected).variables}
          onClose={() => setDialog(null)}
        />
      )}
      {dialog?.kind === 'test-case' && selected && (
        <SaveTestCaseDialog request={selected} onClose={() => setDialog(null)} />
      )}
    </div>
  );
}
