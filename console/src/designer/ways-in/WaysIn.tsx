/**
 * Ways in to an API node (docs/console.md "The designer"): "Paste cURL" (a curl command line,
 * {@link curlToNode}), "From API design" (an operation of the workspace's API designs, `GET
 * /v1/designs`, {@link nodeFromOperation}) and "From a local request" (one of this browser's local
 * requests, console/src/local/store.ts, {@link localRequestToNode}; its multipart files uploaded
 * to the workspace files first, when the user agrees). Each is a modal dialog (native `<dialog>`, Escape closes it) that
 * hands the node to `onAdd` and closes; where the node goes is the designer's business.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, problemOf, withQuery, type Page, type Problem } from '../../api';
import { useLoad } from '../../hooks';
import type { Design } from '../../resources/design-types';
import { Dialog } from '../../ui/Dialog';
import { ProblemBox } from '../../ui/kit';
import { curlToNode, type CurlSecret } from './curl';
import { nodeFromOperation } from './design';
import { localRequestToNode, partsToUpload } from './local';
import { load as loadLocal } from '../../local/store';
import { listAll } from '../../resources/common';
import { uploadLocalFiles } from '../../local/upload';
import { displayName, type LocalRequest, type PartRow } from '../../local/request';
import { session } from '../../session';
import type { ApiNode } from './node';
import '../debug/debug.css';

/** Props of {@link WaysIn}, {@link CurlDialog} and {@link DesignDialog}. */
export interface WaysInProps {
  /** Receives the new API node (its id differs from each of `taken`). */
  onAdd: (node: ApiNode) => void;
  /** The ids already in the test case. */
  taken?: Iterable<string>;
}

/** The two buttons, each opening its dialog. */
export function WaysIn({ onAdd, taken }: WaysInProps) {
  const [open, setOpen] = useState<'curl' | 'design' | 'local'>();
  return (
    <div class="dzd-ways-in" role="group" aria-label="Add an API node from">
      <button type="button" class="secondary small" onClick={() => setOpen('curl')}>
        Paste cURL
      </button>
      <button type="button" class="secondary small" onClick={() => setOpen('design')}>
        From API design
      </button>
      <button type="button" class="secondary small" onClick={() => setOpen('local')}>
        From a local request
      </button>
      {open === 'curl' && <CurlDialog onAdd={onAdd} taken={taken} onClose={() => setOpen(undefined)} />}
      {open === 'local' && <LocalDialog onAdd={onAdd} taken={taken} onClose={() => setOpen(undefined)} />}
      {open === 'design' && <DesignDialog onAdd={onAdd} taken={taken} onClose={() => setOpen(undefined)} />}
    </div>
  );
}

/**
 * "Paste cURL": a textarea; "Add node" reads it. A command that cannot be read shows why at the
 * textarea; one read with warnings (flags not supported, files the browser cannot read) or with
 * credentials shows them and asks again before adding. Credentials are never literals in the node
 * ({@link curlToNode} names variables instead): the dialog lists them and may add them, as secrets,
 * to an environment of the user's choice (`PATCH /v1/environments/{name}`, a JSON merge of
 * `variables`; docs/secrets.md: values under 4 characters are kept plain).
 */
export function CurlDialog({ onAdd, taken, onClose }: WaysInProps & { onClose: () => void }) {
  const [text, setText] = useState('');
  const [error, setError] = useState<string>();
  const [problem, setProblem] = useState<Problem>();
  const [busy, setBusy] = useState(false);
  const [shown, setShown] = useState<{ text: string; warnings: string[]; secrets: CurlSecret[] }>();
  const [environment, setEnvironment] = useState('');
  const environments = useLoad((signal) => listAll<{ name: string }>('/v1/environments', signal), []);
  const submit = async (e: Event) => {
    e.preventDefault();
    const made = curlToNode(text, { taken });
    if ('error' in made) {
      setError(made.error);
      return;
    }
    setError(undefined);
    if ((made.warnings.length > 0 || made.secrets.length > 0) && shown?.text !== text) {
      setShown({ text, warnings: made.warnings, secrets: made.secrets });
      return;
    }
    if (environment && made.secrets.length > 0) {
      setBusy(true);
      setProblem(undefined);
      try {
        const variables = Object.fromEntries(
          made.secrets.map((s) => [s.variable, s.value.length >= 4 ? { value: s.value, secret: true } : s.value]),
        );
        await api('PATCH', `/v1/environments/${encodeURIComponent(environment)}`, { variables });
      } catch (err) {
        setProblem(problemOf(err, 'Could not save the credentials'));
        return;
      } finally {
        setBusy(false);
      }
    }
    onAdd(made.node);
    onClose();
  };
  const acknowledged = shown?.text === text;
  return (
    <Dialog title="Paste cURL" class="dzd-dialog" onClose={onClose}>
      <form onSubmit={(e) => void submit(e)}>
        <label class={`field${error ? ' field-invalid' : ''}`}>
          <span class="field-label">curl command</span>
          <textarea
            class="mono"
            rows={8}
            value={text}
            aria-invalid={error ? 'true' : undefined}
            aria-describedby={error ? 'dzd-curl-error' : undefined}
            placeholder={`curl -X POST https://api.example.com/users -H 'Content-Type: application/json' -d '{"name": "Ada"}'`}
            onInput={(e) => {
              setText(e.currentTarget.value);
              setError(undefined);
            }}
          />
          {error && (
            <span class="field-error" id="dzd-curl-error" role="alert">
              {error}
            </span>
          )}
        </label>
        {acknowledged && shown!.warnings.length > 0 && (
          <div class="dzd-warnings" role="status">
            <strong>Not everything was taken over:</strong>
            <ul>
              {shown!.warnings.map((w) => (
                <li key={w}>{w}</li>
              ))}
            </ul>
          </div>
        )}
        {acknowledged && shown!.secrets.length > 0 && (
          <div class="dzd-warnings" role="group" aria-label="Credentials">
            <strong>Credentials become variables, never literals in the test case:</strong>
            <ul>
              {shown!.secrets.map((s) => (
                <li key={s.variable}>
                  <code>{`{{${s.variable}}}`}</code> from the {s.header} header
                </li>
              ))}
            </ul>
            <label class="field">
              <span class="field-label">Keep their values as secrets in</span>
              <select value={environment} onChange={(e) => setEnvironment(e.currentTarget.value)}>
                <option value="">no environment (set them yourself)</option>
                {(environments.data ?? []).map((env) => (
                  <option key={env.name} value={env.name}>
                    {env.name}
                  </option>
                ))}
              </select>
            </label>
          </div>
        )}
        <ProblemBox problem={problem} />
        <div class="row">
          <button type="submit" disabled={!text.trim() || busy}>
            {busy ? 'Saving…' : acknowledged && shown!.warnings.length > 0 ? 'Add node anyway' : 'Add node'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/**
 * "From a local request": this browser's local requests of the workspace (kept in localStorage,
 * docs/local-requests.md), newest first; choosing one adds its API node. A multipart body's files
 * live in this browser only: the dialog asks "Upload <file name> to the workspace files?", uploads
 * each ({@link uploadLocalFiles}), then adds the node whose parts name them. A request the node
 * cannot carry shows why.
 */
export function LocalDialog({ onAdd, taken, onClose }: WaysInProps & { onClose: () => void }) {
  const ws = session()?.workspace.id;
  const requests = useMemo(
    () => (ws ? [...loadLocal(ws).requests].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt)) : []),
    [],
  );
  const [error, setError] = useState<string>();
  const [problem, setProblem] = useState<Problem>();
  const [pending, setPending] = useState<{ request: LocalRequest; parts: PartRow[] }>();
  const [busy, setBusy] = useState(false);
  const add = (r: LocalRequest, uploaded?: Record<string, string>) => {
    const made = localRequestToNode(r, { taken, uploaded });
    if ('error' in made) setError(`${displayName(r)}: ${made.error}`);
    else {
      onAdd(made.node);
      onClose();
    }
  };
  const choose = (r: LocalRequest) => {
    setError(undefined);
    setProblem(undefined);
    const parts = partsToUpload(r);
    if (parts.length > 0) setPending({ request: r, parts });
    else add(r);
  };
  const upload = async () => {
    if (!pending || !ws) return;
    setBusy(true);
    setProblem(undefined);
    try {
      add(pending.request, await uploadLocalFiles(ws, pending.parts));
      setPending(undefined);
    } catch (err) {
      setProblem(problemOf(err, 'Upload failed'));
    } finally {
      setBusy(false);
    }
  };
  const names = pending?.parts.map((p) => p.fileName ?? p.name) ?? [];
  return (
    <Dialog title="From a local request" class="dzd-dialog" onClose={onClose}>
      {requests.length === 0 ? (
        <p class="muted">
          No local requests in this browser yet: make one on the <a href="/requests">Local requests</a> page.
        </p>
      ) : (
        <ul class="dzd-pick" aria-label="Local requests">
          {requests.map((r) => (
            <li key={r.id}>
              <button type="button" class="secondary small" disabled={busy} onClick={() => choose(r)}>
                <code>{r.method}</code> {displayName(r)}
              </button>
            </li>
          ))}
        </ul>
      )}
      {pending && (
        <div class="notice" role="group" aria-label="Upload files">
          <p>
            Upload {names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}` : names[0]} to
            the workspace files? The node&apos;s multipart parts send them from there (the <a href="/files">Files</a>{' '}
            page lists them).
          </p>
          <div class="row">
            <button type="button" disabled={busy} onClick={() => void upload()}>
              {busy ? 'Uploading…' : 'Upload and add node'}
            </button>
            <button type="button" class="secondary" disabled={busy} onClick={() => setPending(undefined)}>
              Cancel
            </button>
          </div>
        </div>
      )}
      <ProblemBox problem={problem} />
      {error && (
        <p class="field-error" role="alert">
          {error}
        </p>
      )}
    </Dialog>
  );
}

/** Designs asked at most (pages of 200), so that a huge import does not hold the dialog. */
const MAX_DESIGNS = 2000;

/**
 * "From API design": the designs (filtered by a path prefix, `GET /v1/designs?path=`), grouped by
 * path; pick a path, then one of its methods; "Add node" makes the operation's node
 * ({@link nodeFromOperation}: `{{base}}` + path, example body, status and schema assertions).
 */
export function DesignDialog({ onAdd, taken, onClose }: WaysInProps & { onClose: () => void }) {
  const [prefix, setPrefix] = useState('');
  const [applied, setApplied] = useState('');
  const designs = useLoad(
    async (signal) => {
      const all: Design[] = [];
      let cursor: string | null = null;
      do {
        const page: Page<Design> = await api<Page<Design>>(
          'GET',
          withQuery('/v1/designs', { path: applied || undefined, limit: 200, cursor }),
          undefined,
          { signal },
        );
        all.push(...page.items);
        cursor = page.nextCursor;
      } while (cursor && all.length < MAX_DESIGNS);
      return { items: all, more: !!cursor };
    },
    [applied],
  );
  const byPath = useMemo(() => {
    const m = new Map<string, Design[]>();
    for (const d of designs.data?.items ?? []) m.set(d.path, [...(m.get(d.path) ?? []), d]);
    return m;
  }, [designs.data]);
  const [path, setPath] = useState<string>();
  const [method, setMethod] = useState<string>();
  const methods = path ? (byPath.get(path) ?? []) : [];
  useEffect(() => {
    if (path && !byPath.has(path)) setPath(undefined);
  }, [byPath]);
  useEffect(() => setMethod(methods.length === 1 ? methods[0]!.method : undefined), [path]);

  const add = (e: Event) => {
    e.preventDefault();
    if (!path || !method) return;
    onAdd(nodeFromOperation(methods, method, path, { taken }));
    onClose();
  };
  return (
    <Dialog title="From API design" class="dzd-dialog" onClose={onClose}>
      <form
        class="row"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setApplied(prefix.trim());
        }}
      >
        <label class="field">
          <span class="field-label">Path starts with</span>
          <input value={prefix} placeholder="/users" onInput={(e) => setPrefix(e.currentTarget.value)} />
        </label>
        <button type="submit" class="secondary small">
          Filter
        </button>
      </form>
      <ProblemBox problem={designs.problem} onRetry={designs.reload} />
      {designs.loading && !designs.data && <p class="muted">Loading designs…</p>}
      {designs.data && byPath.size === 0 && (
        <p class="muted">
          {applied ? `No design's path starts with ${applied}.` : 'No API designs yet: '}
          {!applied && <a href="/designs/new">create one or import an OpenAPI document</a>}
        </p>
      )}
      {byPath.size > 0 && (
        <form onSubmit={add}>
          <label class="field">
            <span class="field-label">Design (path)</span>
            <select
              size={Math.min(10, Math.max(2, byPath.size))}
              value={path ?? ''}
              onChange={(e) => setPath(e.currentTarget.value)}
            >
              {[...byPath.keys()].map((p) => (
                <option key={p} value={p}>
                  {p}
                </option>
              ))}
            </select>
          </label>
          {designs.data?.more && <p class="muted">Only the first {MAX_DESIGNS} designs are listed: filter by path.</p>}
          {path && (
            <fieldset class="dzd-methods">
              <legend>Operation</legend>
              {methods.map((d) => (
                <label key={d.method}>
                  <input
                    type="radio"
                    name="dzd-method"
                    value={d.method}
                    checked={method === d.method}
                    onChange={() => setMethod(d.method)}
                  />{' '}
                  <span class="badge">{d.method}</span> <code>{d.path}</code>
                  {d.name && <span class="muted"> {d.name}</span>}
                </label>
              ))}
            </fieldset>
          )}
          <div class="row">
            <button type="submit" disabled={!path || !method}>
              Add node
            </button>
          </div>
        </form>
      )}
    </Dialog>
  );
}
