/**
 * The editor of one local request: name, method, URL, Send, the relay setting, the variable group,
 * headers, body, and the response panel. Every change is handed to `onPatch` at once (the page
 * saves it). Ctrl/Cmd+Enter sends from anywhere in the editor, the code editors included.
 */
import { Fragment, type ComponentChildren } from 'preact';
import { useMemo, useState } from 'preact/hooks';
import { parse as parseJsonc, printParseErrorCode, type ParseError } from 'jsonc-parser';
import type { Problem } from '../api';
import { bytes, duration } from '../format';
import { can } from '../session';
import type { Environment } from '../types';
import { Editor, type EditorMark, type EditorProps } from '../ui/editor';
import { ConfirmButton, Field, ProblemBox } from '../ui/kit';
import { PartsEditor, RowsEditor } from './rows';
import {
  BODY_KINDS,
  METHODS,
  displayName,
  putFile,
  deleteFile,
  type BodyKind,
  type LocalGroup,
  type LocalRequest,
  type Method,
} from './store';
import { showBody, type SendOutcome } from './send';

/** The last send of a request: in progress, its outcome, or the problem that stopped it. */
export interface SendState {
  busy?: boolean;
  outcome?: SendOutcome;
  problem?: Problem;
}

const BODY_LABELS: Record<BodyKind, string> = {
  none: 'None',
  json: 'JSON',
  form: 'URL-encoded form',
  multipart: 'Multipart form (files)',
  text: 'Plain text',
};

/** Where a JSON text fails to parse (jsonc-parser, strict: no comments, no trailing commas), as editor marks. */
function jsonMarks(text: string): EditorMark[] {
  if (text.trim() === '') return [];
  const errors: ParseError[] = [];
  parseJsonc(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  return errors.slice(0, 1).map((e) => ({
    from: e.offset,
    to: e.offset + Math.max(e.length, 1),
    message: `Not valid JSON (${printParseErrorCode(e.error)})`,
  }));
}

/**
 * The shared {@link Editor}, fed its text once, when it mounts: after that the editor owns the
 * text and reports it with `onChange`. (Feeding every saved text back as `value` lets a
 * re-render that is one keystroke behind replace the text with an older one, which answers with
 * a newer one, and so on: fast typing made the shared Editor's value effect ping-pong forever.)
 */
function BodyEditor(props: EditorProps) {
  const [initial] = useState(props.value);
  return <Editor {...props} value={initial} />;
}

export interface RequestEditorProps {
  request: LocalRequest;
  workspaceId: string;
  groups: LocalGroup[];
  environments: Environment[] | undefined;
  environmentsProblem: Problem | undefined;
  groupProblem: string | undefined;
  warnings: string[] | undefined;
  onDismissWarnings: () => void;
  onPatch: (patch: Partial<LocalRequest>) => void;
  onGroups: (groups: LocalGroup[]) => void;
  newGroupId: () => string;
  onSend: () => void;
  sending: boolean;
  result: SendState | undefined;
  actions: ComponentChildren;
}

/** One request's editor and response panel. */
export function RequestEditor(props: RequestEditorProps) {
  const { request: r, onPatch, onSend, sending } = props;
  const [fileProblem, setFileProblem] = useState<string>();
  const marks = useMemo(() => (r.bodyKind === 'json' ? jsonMarks(r.text) : []), [r.bodyKind, r.text]);
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && !e.defaultPrevented) {
      e.preventDefault();
      onSend();
    }
  };
  const chooseFile = async (i: number, file: File) => {
    setFileProblem(undefined);
    try {
      const fileId = await putFile(props.workspaceId, file);
      const old = r.multipart[i]?.fileId;
      if (old) void deleteFile(props.workspaceId, old).catch(() => undefined);
      onPatch({
        multipart: r.multipart.map((p, j) =>
          j === i ? { ...p, fileId, fileName: file.name, fileType: file.type, fileSize: file.size } : p,
        ),
      });
    } catch (err) {
      setFileProblem((err as Error).message);
    }
  };
  const bodyIgnored = r.bodyKind !== 'none' && (r.method === 'GET' || r.method === 'HEAD');

  return (
    <div class="lr-editor" onKeyDown={onKeyDown}>
      <div class="lr-title">
        <h2 data-testid="request-title">{displayName(r)}</h2>
        <div class="page-actions">{props.actions}</div>
      </div>
      {props.warnings && props.warnings.length > 0 && (
        <div class="notice" role="status" aria-label="Import warnings">
          <strong>Imported from curl, with notes:</strong>
          <ul>
            {props.warnings.map((w, i) => (
              <li key={i}>{w}</li>
            ))}
          </ul>
          <button type="button" class="secondary small" onClick={props.onDismissWarnings}>
            Dismiss
          </button>
        </div>
      )}
      <Field label="Name" hint="Optional. When empty, the URL is shown as the name.">
        <input
          aria-label="Name"
          value={r.name}
          placeholder={r.url || '/'}
          onInput={(e) => onPatch({ name: e.currentTarget.value })}
        />
      </Field>
      <form
        class="lr-line"
        onSubmit={(e) => {
          e.preventDefault();
          onSend();
        }}
      >
        <Field label="Method">
          <select
            aria-label="Method"
            value={r.method}
            onChange={(e) => onPatch({ method: e.currentTarget.value as Method })}
          >
            {METHODS.map((m) => (
              <option key={m}>{m}</option>
            ))}
          </select>
        </Field>
        <Field
          label="URL"
          hint="Relative URLs (like /) go to this console's own address. {{name}} variables come from the linked group."
        >
          <input
            aria-label="URL"
            class="mono"
            value={r.url}
            spellcheck={false}
            onInput={(e) => onPatch({ url: e.currentTarget.value })}
          />
        </Field>
        <button
          type="submit"
          class="lr-send"
          disabled={sending}
          aria-keyshortcuts="Control+Enter Meta+Enter"
          title="Send (Ctrl+Enter)"
        >
          {sending ? 'Sending…' : 'Send'}
        </button>
      </form>
      <label class="check lr-relay">
        <input type="checkbox" checked={r.relay} onChange={(e) => onPatch({ relay: e.currentTarget.checked })} />
        <span>
          Send through the Assay relay
          <span class="field-hint">
            {' '}
            — off: the browser sends it (subject to CORS). On: the method, URL, headers and body go to the Assay server,
            which sends the request and returns the answer.
            {!can('run') && ' The relay needs a key with the run scope; this key is read only.'}
          </span>
        </span>
      </label>

      <GroupSection {...props} />

      <fieldset class="lr-fieldset">
        <legend>Headers</legend>
        <RowsEditor noun="Header" rows={r.headers} onChange={(headers) => onPatch({ headers })} />
      </fieldset>

      <fieldset class="lr-fieldset">
        <legend>Body</legend>
        <div class="lr-kinds" role="radiogroup" aria-label="Body kind">
          {BODY_KINDS.map((k) => (
            <label key={k} class="check">
              <input
                type="radio"
                name={`body-kind-${r.id}`}
                value={k}
                checked={r.bodyKind === k}
                onChange={() => onPatch({ bodyKind: k })}
              />
              {BODY_LABELS[k]}
            </label>
          ))}
        </div>
        {bodyIgnored && <p class="field-hint">A {r.method} request is sent without its body: browsers refuse one.</p>}
        {r.bodyKind === 'json' && (
          <>
            <BodyEditor
              label="JSON body"
              language="json"
              value={r.text}
              onChange={(text) => onPatch({ text })}
              onSubmit={onSend}
              marks={marks}
            />
            <p class="field-hint" role={marks.length ? 'status' : undefined}>
              {marks.length
                ? 'Not valid JSON: it is still sent, exactly as written, with Content-Type: application/json.'
                : 'Sent with Content-Type: application/json unless a header says otherwise. {{name}} variables are replaced in the text.'}
            </p>
          </>
        )}
        {r.bodyKind === 'text' && (
          <>
            <BodyEditor
              label="Text body"
              language="text"
              value={r.text}
              onChange={(text) => onPatch({ text })}
              onSubmit={onSend}
            />
            <p class="field-hint">Sent with Content-Type: text/plain;charset=UTF-8 unless a header says otherwise.</p>
          </>
        )}
        {r.bodyKind === 'form' && <RowsEditor noun="Field" rows={r.form} onChange={(form) => onPatch({ form })} />}
        {r.bodyKind === 'multipart' && (
          <>
            <PartsEditor
              parts={r.multipart}
              onChange={(multipart) => onPatch({ multipart })}
              onFile={(i, f) => void chooseFile(i, f)}
              onRemoveFile={(id) => void deleteFile(props.workspaceId, id).catch(() => undefined)}
            />
            <p class="field-hint">
              Files stay in this browser (IndexedDB), up to 10 MiB each, and survive a reload. The browser writes the
              multipart Content-Type.
            </p>
            {fileProblem && (
              <p class="field-error" role="alert">
                {fileProblem}
              </p>
            )}
          </>
        )}
      </fieldset>

      <ResponsePanel state={props.result} onRelay={() => onPatch({ relay: true })} relayOn={r.relay} onSend={onSend} />
    </div>
  );
}

/** The variable group link: none, a local group (editable here) or a workspace environment (read only). */
function GroupSection({
  request: r,
  groups,
  environments,
  environmentsProblem,
  groupProblem,
  onPatch,
  onGroups,
  newGroupId,
}: RequestEditorProps) {
  const value = r.group ? (r.group.kind === 'local' ? `local:${r.group.id}` : `env:${r.group.name}`) : '';
  const linkedLocal =
    r.group?.kind === 'local' ? groups.find((g) => g.id === (r.group as { id: string }).id) : undefined;
  const linkedEnv =
    r.group?.kind === 'environment'
      ? environments?.find((e) => e.name === (r.group as { name: string }).name)
      : undefined;
  const setGroup = (v: string) => {
    if (v === '') onPatch({ group: null });
    else if (v.startsWith('local:')) onPatch({ group: { kind: 'local', id: v.slice(6) } });
    else onPatch({ group: { kind: 'environment', name: v.slice(4) } });
  };
  const newGroup = () => {
    const g: LocalGroup = { id: newGroupId(), name: `Group ${groups.length + 1}`, variables: [] };
    onGroups([...groups, g]);
    onPatch({ group: { kind: 'local', id: g.id } });
  };
  const patchGroup = (patch: Partial<LocalGroup>) =>
    onGroups(groups.map((g) => (g.id === linkedLocal!.id ? { ...g, ...patch } : g)));
  return (
    <fieldset class="lr-fieldset">
      <legend>Variables</legend>
      <div class="row">
        <Field
          label="Variable group"
          hint="{{name}} in the URL, headers and body is replaced from it (case-sensitive); {{$guid}} and {{$timestamp}} are new on every send."
        >
          <select aria-label="Variable group" value={value} onChange={(e) => setGroup(e.currentTarget.value)}>
            <option value="">No group</option>
            <optgroup label="Local groups (this browser)">
              {groups.map((g) => (
                <option key={g.id} value={`local:${g.id}`}>
                  {g.name}
                </option>
              ))}
            </optgroup>
            <optgroup label="Environments (Assay, read only)">
              {(environments ?? []).map((e) => (
                <option key={e.name} value={`env:${e.name}`}>
                  {e.name}
                </option>
              ))}
              {r.group?.kind === 'environment' && !linkedEnv && <option value={value}>{r.group.name}</option>}
            </optgroup>
          </select>
        </Field>
        <button type="button" class="secondary lr-inline-button" onClick={newGroup}>
          New local group
        </button>
      </div>
      {environmentsProblem && <p class="field-hint">Environments could not be loaded: {environmentsProblem.title}.</p>}
      {groupProblem && r.group && <p class="field-error">{groupProblem}</p>}
      {linkedLocal && (
        <div class="lr-group">
          <div class="row">
            <Field label="Group name">
              <input value={linkedLocal.name} onInput={(e) => patchGroup({ name: e.currentTarget.value })} />
            </Field>
            <ConfirmButton
              class="danger lr-inline-button"
              question={`Delete the local group "${linkedLocal.name}"? Requests linked to it lose the link. This cannot be undone.`}
              onConfirm={() => onGroups(groups.filter((g) => g.id !== linkedLocal.id))}
            >
              Delete group
            </ConfirmButton>
          </div>
          <p class="field-hint">Shared by every request linked to this group; kept in this browser only.</p>
          <RowsEditor
            noun="Variable"
            rows={linkedLocal.variables}
            onChange={(variables) => patchGroup({ variables })}
          />
        </div>
      )}
      {linkedEnv && (
        <div class="lr-group">
          {Object.keys(linkedEnv.variables ?? {}).length === 0 ? (
            <p class="muted">This environment has no variables.</p>
          ) : (
            <dl class="kv" aria-label={`Variables of ${linkedEnv.name}`}>
              {Object.entries(linkedEnv.variables).map(([k, v]) => (
                <Fragment key={k}>
                  <dt class="mono">{k}</dt>
                  <dd class="mono">{typeof v === 'string' ? v : JSON.stringify(v)}</dd>
                </Fragment>
              ))}
            </dl>
          )}
          <p class="field-hint">
            Read from Assay (edit it on the Environments page).
            {!can('run') &&
              ' This key has the read scope, so Assay shows every value as "***": requests send "***" where such a variable is used.'}
          </p>
        </div>
      )}
    </fieldset>
  );
}

/** The response: status, time, size, headers and body, or why there is none. Keeps its height while sending (no layout jump). */
function ResponsePanel({
  state,
  onRelay,
  relayOn,
  onSend,
}: {
  state: SendState | undefined;
  onRelay: () => void;
  relayOn: boolean;
  onSend: () => void;
}) {
  const outcome = state?.outcome;
  return (
    <section class="lr-response card" aria-label="Response" aria-busy={state?.busy ? 'true' : 'false'}>
      <h3>Response</h3>
      {!state && <p class="muted">Send the request (Send, or Ctrl+Enter / ⌘+Enter) to see the response here.</p>}
      {state?.busy && !outcome && <p class="muted">Sending…</p>}
      <ProblemBox problem={state?.problem} />
      {outcome?.kind === 'blocked' && (
        <div class="problem" role="alert">
          <strong class="problem-title">Not sent</strong>
          <p class="problem-detail" data-testid="blocked">
            {outcome.message}
          </p>
          <p class="problem-detail">
            A server must allow this console's origin ({location.origin}) with CORS headers, and an https page cannot
            call http addresses. Or send it through the Assay relay: the Assay server sends it instead of the browser.
          </p>
          {!relayOn && (
            <button
              type="button"
              class="secondary"
              onClick={() => {
                onRelay();
                setTimeout(onSend, 0);
              }}
            >
              Turn on the relay for this request and send again
            </button>
          )}
        </div>
      )}
      {outcome?.kind === 'answer' && <AnswerView outcome={outcome} />}
    </section>
  );
}

function AnswerView({ outcome }: { outcome: Extract<SendOutcome, { kind: 'answer' }> }) {
  const a = outcome.answer;
  const type = a.headers.find(([n]) => n.toLowerCase() === 'content-type')?.[1];
  const shown = useMemo(() => showBody(a.bytes, type), [a]);
  const cls = a.status >= 500 ? 'failed' : a.status >= 400 ? 'failed' : a.status >= 300 ? 'pending' : 'passed';
  return (
    <div class="lr-answer">
      <div class="lr-stats">
        <div class="stat">
          <span class="label">Status</span>
          <span class="value" data-testid="response-status">
            <span class={`badge badge-${cls}`}>{a.status}</span> {a.statusText}
          </span>
        </div>
        <div class="stat">
          <span class="label">Time</span>
          <span class="value" data-testid="response-time">
            {duration(a.timeMs)}
          </span>
        </div>
        <div class="stat">
          <span class="label">Size</span>
          <span class="value" data-testid="response-size" title={`${a.size} bytes`}>
            {a.size} bytes
          </span>
        </div>
        <div class="stat">
          <span class="label">Sent by</span>
          <span class="value">{a.via === 'relay' ? 'Assay relay' : 'this browser'}</span>
        </div>
      </div>
      {outcome.prepared.notes.map((n, i) => (
        <p key={i} class="field-hint">
          {n}
        </p>
      ))}
      {a.truncated && <p class="notice">The relay cut the body at {bytes(a.size)}: only the beginning is shown.</p>}
      <details class="lr-headers">
        <summary>Headers ({a.headers.length})</summary>
        <dl class="kv" aria-label="Response headers">
          {a.headers.map(([n, v], i) => (
            <Fragment key={i}>
              <dt class="mono">{n}</dt>
              <dd class="mono">{v}</dd>
            </Fragment>
          ))}
        </dl>
        {a.via === 'browser' && (
          <p class="field-hint">
            The browser shows only the headers the server exposes to this page (Access-Control-Expose-Headers).
          </p>
        )}
      </details>
      <h4>Body</h4>
      {shown.kind === 'empty' && <p class="muted">(empty body)</p>}
      {shown.kind === 'binary' && (
        <p class="notice">
          Binary body ({a.size} bytes, {shown.type}): not shown.
        </p>
      )}
      {(shown.kind === 'json' || shown.kind === 'text') && (
        <pre class="lr-body" data-testid="response-body" aria-label="Response body" tabIndex={0}>
          {shown.text}
        </pre>
      )}
    </div>
  );
}
