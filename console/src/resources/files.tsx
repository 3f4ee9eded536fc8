/**
 * The workspace files page (docs/console.md "Files"; the REST resource of docs/api.md "Files"):
 * every file of `GET /v1/files` as a table (name, content type, size, a short SHA-256, last
 * update) with a download link each; write keys also upload (`PUT /v1/files/{name}` with the raw
 * bytes and the file's own type, through api.ts `uploadFile`) and delete (`DELETE
 * /v1/files/{name}`, after a confirm). API nodes send these files as multipart parts or as the
 * whole body (the designer's Body tab). A refused upload shows its problem, with the size limit
 * (413 `file-too-large`) or the workspace quota (429 `quota-exceeded`) in words.
 */
import { useState } from 'preact/hooks';
import { api, downloadFile, filePath, problemOf, uploadFile, type Problem, type WorkspaceFile } from '../api';
import { bytes, dateTime } from '../format';
import { useLoad } from '../hooks';
import { can } from '../session';
import { ConfirmButton, Empty, Field, PageHeader, ProblemBox, fieldError } from '../ui/kit';
import { FILE_NAME_PATTERN, fileNameFor } from '../designer/forms/values';
import { listAll, Loading } from './common';

/** A number field of a problem (`limit`, `current`), when it has one. */
function figure(problem: Problem, ...keys: string[]): number | undefined {
  for (const k of keys) if (typeof problem[k] === 'number') return problem[k] as number;
  return undefined;
}

/**
 * The problem of a refused upload, its limit put in words: 413 `file-too-large` → "Files may be at
 * most 10.0 MB; this one is 12.0 MB." (`limit` in bytes, the size of `file` when known); 429
 * `quota-exceeded` of `quota: "file-bytes"` → "The workspace's files may take 100.0 MB in all;
 * 98.0 MB are used." (`limit`, `current`). Other problems are returned as they are.
 */
export function explainUploadProblem(problem: Problem, file?: { size: number }): Problem {
  if (problem.code === 'file-too-large' || problem.status === 413) {
    const limit = figure(problem, 'limit', 'maxBytes', 'limitBytes');
    const words = [
      limit !== undefined ? `Files may be at most ${bytes(limit)}` : 'The file is over the size limit',
      file ? `this one is ${bytes(file.size)}.` : undefined,
    ]
      .filter(Boolean)
      .join('; ');
    return {
      ...problem,
      detail: [problem.detail, words.endsWith('.') ? words : `${words}.`].filter(Boolean).join(' '),
    };
  }
  if (problem.code === 'quota-exceeded' && (problem.quota === 'file-bytes' || problem.quota === undefined)) {
    const limit = figure(problem, 'limit');
    const current = figure(problem, 'current', 'used');
    const words =
      limit !== undefined
        ? `The workspace's files may take ${bytes(limit)} in all${current !== undefined ? `; ${bytes(current)} are used` : ''}: delete files you no longer need.`
        : "The workspace's files are over their quota: delete files you no longer need.";
    return { ...problem, detail: [problem.detail, words].filter(Boolean).join(' ') };
  }
  return problem;
}

/** Saves `blob` in the browser's downloads as `name`'s last segment (an object URL clicked once). */
export function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name.split('/').pop() || 'file';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * A link to the content of file `name` (`GET /v1/files/{name}/content`): the API needs the key,
 * so a click fetches it with the session's key and saves the bytes; its address is the API's.
 */
export function DownloadLink({ name, onProblem }: { name: string; onProblem: (p: Problem | undefined) => void }) {
  return (
    <a
      href={filePath(name, '/content')}
      download={name.split('/').pop()}
      aria-label={`Download ${name}`}
      onClick={(e) => {
        e.preventDefault();
        onProblem(undefined);
        downloadFile(name).then(
          (blob) => saveBlob(blob, name),
          (err) => onProblem(problemOf(err, 'Download failed')),
        );
      }}
    >
      Download
    </a>
  );
}

/** The upload form of write keys: a file, a name (default the file's), Upload; replacing asks first. */
function UploadForm({ existing, onUploaded }: { existing: string[]; onUploaded: (f: WorkspaceFile) => void }) {
  const [file, setFile] = useState<File>();
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem>();
  const [done, setDone] = useState('');
  const chosenName = name.trim() || (file ? fileNameFor(file.name) : '');
  const nameError =
    fieldError(problem, 'name') ??
    (chosenName && !FILE_NAME_PATTERN.test(chosenName) ? 'A name is 1–200 letters, digits, _ . - or /.' : undefined);

  const submit = async (e: Event) => {
    e.preventDefault();
    if (!file || !chosenName || nameError) return;
    if (existing.includes(chosenName) && !window.confirm(`Replace the file ${chosenName}?`)) return;
    setBusy(true);
    setProblem(undefined);
    setDone('');
    try {
      const stored = await uploadFile(chosenName, file, file.type || undefined);
      setDone(`Uploaded ${stored.name} (${bytes(stored.size)}).`);
      onUploaded(stored);
    } catch (err) {
      setProblem(explainUploadProblem(problemOf(err), file));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card res-form res-files-upload" aria-label="Upload a file" onSubmit={(e) => void submit(e)}>
      <h2>Upload a file</h2>
      <div class="row">
        <Field label="File to upload">
          <input
            type="file"
            onChange={(e) => {
              setFile(e.currentTarget.files?.[0]);
              setProblem(undefined);
              setDone('');
            }}
          />
        </Field>
        <Field label="File name" hint="Default: the file's own name. Letters, digits, _ . - /" error={nameError}>
          <input
            class="mono"
            value={name}
            placeholder={file ? fileNameFor(file.name) : 'fixtures/avatar.png'}
            maxLength={200}
            spellcheck={false}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </Field>
      </div>
      {file && (
        <p class="muted res-files-chosen">
          {bytes(file.size)}, sent as <code>{file.type || 'application/octet-stream'}</code>
        </p>
      )}
      <ProblemBox problem={problem} />
      <div class="row res-actions">
        <button type="submit" disabled={!file || busy || !!nameError}>
          {busy ? 'Uploading…' : 'Upload'}
        </button>
        <span role="status">{done}</span>
      </div>
    </form>
  );
}

/** `/files`: the workspace's files, the upload form (write keys), download and delete. */
export function FilesPage() {
  const list = useLoad((signal) => listAll<WorkspaceFile>('/v1/files', signal), []);
  const [problem, setProblem] = useState<Problem>();
  const writable = can('write');
  const items = list.data;

  const remove = async (f: WorkspaceFile) => {
    setProblem(undefined);
    try {
      await api('DELETE', filePath(f.name));
      if (list.data) list.replace(list.data.filter((x) => x.name !== f.name));
      list.reload();
    } catch (err) {
      setProblem(problemOf(err, 'Delete failed'));
    }
  };

  return (
    <>
      <PageHeader
        title="Files"
        sub="Files API nodes send: as multipart parts or as the whole body (the designer's Body tab). Content type kept."
      />
      {writable ? (
        <UploadForm
          existing={(items ?? []).map((f) => f.name)}
          onUploaded={(f) => {
            if (list.data) list.replace([f, ...list.data.filter((x) => x.name !== f.name)]);
            list.reload();
          }}
        />
      ) : (
        <p class="muted">A key with write scope can upload and delete files.</p>
      )}
      <ProblemBox problem={list.problem} onRetry={list.reload} />
      <ProblemBox problem={problem} />
      {!items && !list.problem && <Loading what="files" />}
      {items?.length === 0 && (
        <Empty title="No files yet">
          {writable ? 'Upload one above' : 'A key with write scope can upload them'}, or with the API:{' '}
          <code>PUT /v1/files/{'{name}'}</code> with the file as the body.
        </Empty>
      )}
      {items && items.length > 0 && (
        <table aria-label="Files" class="res-files">
          <thead>
            <tr>
              <th>Name</th>
              <th>Type</th>
              <th class="num">Size</th>
              <th>SHA-256</th>
              <th>Updated</th>
              <th>Actions</th>
            </tr>
          </thead>
          <tbody>
            {items.map((f) => (
              <tr key={f.name}>
                <td class="res-break">
                  <code>{f.name}</code>
                </td>
                <td>
                  <code>{f.contentType}</code>
                </td>
                <td class="num" title={`${f.size} bytes`}>
                  {bytes(f.size)}
                </td>
                <td>
                  <code title={f.sha256}>{f.sha256.slice(0, 12)}</code>
                </td>
                <td>{dateTime(f.updatedAt)}</td>
                <td class="res-row-actions">
                  <DownloadLink name={f.name} onProblem={setProblem} />
                  {writable && (
                    <ConfirmButton
                      class="danger small"
                      aria-label={`Delete ${f.name}`}
                      question={`Delete the file ${f.name}? Requests that send it will fail until it is uploaded again.`}
                      onConfirm={() => void remove(f)}
                    >
                      Delete
                    </ConfirmButton>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
