/**
 * The page's dialogs (native <dialog>, modal, closed with Escape): import from curl, copy as curl,
 * save as test case.
 */
import { useState } from 'preact/hooks';
import { api, problemOf, type Problem } from '../api';
import { can, session } from '../session';
import { Dialog } from '../ui/Dialog';
import { CopyButton, Field, ProblemBox, fieldError } from '../ui/kit';
import { CurlError, parseCurl, toCurl, type CurlImport } from './curl';
import { displayName, type LocalRequest } from './store';
import { localRequestToNode, partsToUpload } from '../designer/ways-in/local';
import { testCaseBody } from './test-case';
import { uploadLocalFiles } from './upload';
import { resolve, type Variables } from './variables';

/** Paste a curl command line; `onImport` gets what was read (warnings included). */
export function ImportCurlDialog({
  onClose,
  onImport,
}: {
  onClose: () => void;
  onImport: (imported: CurlImport) => void;
}) {
  const [text, setText] = useState('');
  const [error, setError] = useState<string>();
  const submit = (e: Event) => {
    e.preventDefault();
    try {
      onImport(parseCurl(text));
    } catch (err) {
      setError(err instanceof CurlError ? err.message : `This command line cannot be read: ${(err as Error).message}`);
    }
  };
  return (
    <Dialog title="Import from curl" class="lr-dialog" onClose={onClose}>
      <form onSubmit={submit}>
        <Field
          label="curl command"
          error={error}
          hint="Supported: -X, -H, -d/--data/--data-raw/--data-binary/--data-urlencode, --json, -F/--form, -u, --url, -G, -I, -A, -b. Other flags are listed after the import."
        >
          <textarea
            aria-label="curl command"
            rows={8}
            cols={70}
            value={text}
            onInput={(e) => setText(e.currentTarget.value)}
            placeholder={`curl -X POST https://api.example.com/users -H 'Content-Type: application/json' -d '{"name":"Ada"}'`}
          />
        </Field>
        <div class="row">
          <button type="submit">Import</button>
          <button type="button" class="secondary" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** The request as a curl command line, variables as written or resolved from the linked group. */
export function CopyCurlDialog({
  request,
  variables,
  onClose,
}: {
  request: LocalRequest;
  variables: Variables;
  onClose: () => void;
}) {
  const [resolved, setResolved] = useState(false);
  const command = toCurl(request, {
    origin: location.origin,
    transform: resolved ? (s) => resolve(s, variables) : undefined,
  });
  return (
    <Dialog title="Copy as curl" class="lr-dialog" onClose={onClose}>
      <label class="check">
        <input type="checkbox" checked={resolved} onChange={(e) => setResolved(e.currentTarget.checked)} />
        Resolve variables (values of the linked group, new {'{{$guid}}'} and {'{{$timestamp}}'})
      </label>
      <Field
        label="curl command line"
        hint="Quoted for POSIX shells (sh, bash, zsh). Multipart files are named by their file name: run it next to them."
      >
        <textarea aria-label="curl command line" rows={10} cols={80} readOnly value={command} />
      </Field>
      <CopyButton text={command} label="Copy command" />
    </Dialog>
  );
}

/**
 * "Save as test case": the explicit upload (POST /v1/test-cases), then a link to the new test case.
 * A multipart body's files live in this browser: saving uploads them as workspace files first
 * (./upload.ts `uploadLocalFiles`, said in the dialog) and the node's parts name them
 * (console/src/designer/ways-in/local.ts `localRequestToNode`).
 */
export function SaveTestCaseDialog({ request, onClose }: { request: LocalRequest; onClose: () => void }) {
  const [name, setName] = useState(displayName(request).slice(0, 200));
  const [folder, setFolder] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem>();
  const [created, setCreated] = useState<{ id: string; name: string }>();
  const toUpload = partsToUpload(request);
  // Checked up front with the files taken as uploaded: a part without a file, or no part, is said now.
  const pending = Object.fromEntries(toUpload.map((p) => [p.fileId!, p.fileName ?? p.name]));
  const checked = localRequestToNode(request, { origin: location.origin, uploaded: pending });
  const converted = 'error' in checked ? { reason: checked.error } : { request: checked.node.request };
  const fileNames = toUpload.map((p) => p.fileName ?? p.name);
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!('request' in converted)) return;
    setBusy(true);
    setProblem(undefined);
    try {
      const ws = session()?.workspace.id;
      const uploaded = toUpload.length > 0 && ws ? await uploadLocalFiles(ws, toUpload) : {};
      const made = localRequestToNode(request, { origin: location.origin, uploaded });
      if ('error' in made) throw new Error(made.error);
      const tc = await api<{ id: string; name: string }>(
        'POST',
        '/v1/test-cases',
        testCaseBody(request, made.node.request, name, folder),
      );
      setCreated(tc);
    } catch (err) {
      setProblem(problemOf(err, 'Could not save the test case'));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog title="Save as test case" class="lr-dialog" onClose={onClose}>
      <p class="muted">
        This uploads the request (method, URL, headers, body; variables as written) to Assay as a test case with one API
        node. Nothing else about local requests is ever sent.
      </p>
      {'reason' in converted ? (
        <p class="notice" role="alert">
          {converted.reason}
        </p>
      ) : created ? (
        <p class="notice" role="status">
          Saved. <a href={`/test-cases/${created.id}`}>Open the test case “{created.name}”</a>
        </p>
      ) : (
        <form onSubmit={submit}>
          <Field label="Test case name" error={fieldError(problem, 'name')}>
            <input value={name} maxLength={200} required onInput={(e) => setName(e.currentTarget.value)} />
          </Field>
          <Field
            label="Folder (optional)"
            error={fieldError(problem, 'folder')}
            hint="Like users/admin; empty is the top level."
          >
            <input aria-label="Folder" value={folder} onInput={(e) => setFolder(e.currentTarget.value)} />
          </Field>
          {fileNames.length > 0 && (
            <p class="muted" role="note">
              Saving uploads {fileNames.join(', ')} to the workspace files (the <a href="/files">Files</a> page lists
              them); the test case&apos;s multipart parts send them from there.
            </p>
          )}
          <ProblemBox problem={problem} />
          {!can('write') && (
            <p class="muted">
              Saving needs a key with the write scope; this key's scope is lower, so Assay will refuse it.
            </p>
          )}
          <div class="row">
            <button type="submit" disabled={busy}>
              {busy ? 'Saving…' : 'Save test case'}
            </button>
            <button type="button" class="secondary" onClick={onClose}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </Dialog>
  );
}
