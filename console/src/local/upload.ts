/**
 * A local request's files (kept in this browser's IndexedDB, console/src/local/store.ts) uploaded as
 * workspace files (docs/api.md "Files"), so that a test case made from the request sends them:
 * used by the designer's "From a local request" and by "Save as test case".
 */
import { ApiError, uploadFile, type WorkspaceFile } from '../api';
import { fileNameFor } from '../designer/forms/values';
import { listAll } from '../resources/common';
import { explainUploadProblem } from '../resources/files';
import type { PartRow } from './request';
import { getFile } from './store';

/**
 * Uploads the local files of `parts` (IndexedDB, console/src/local/store.ts `getFile`) as workspace
 * files (api.ts `uploadFile`, the name made from the file's, `fileNameFor`); a name already taken
 * by other content gets `-2`, `-3`… before its extension, the same content is reused as it is.
 * Answers the workspace file name by `fileId`. Throws an Error naming a file this browser no longer
 * has, and {@link ApiError} for a refused upload (its size-limit or quota problem explained).
 */
export async function uploadLocalFiles(workspaceId: string, parts: PartRow[]): Promise<Record<string, string>> {
  const existing = new Map((await listAll<WorkspaceFile>('/v1/files')).map((f) => [f.name, f.sha256]));
  const out: Record<string, string> = {};
  for (const p of parts) {
    if (!p.fileId || out[p.fileId]) continue;
    const blob = await getFile(workspaceId, p.fileId);
    if (!blob)
      throw new Error(
        `${p.fileName ?? p.name} is no longer kept in this browser: choose it again on the Local requests page.`,
      );
    const sha = [...new Uint8Array(await crypto.subtle.digest('SHA-256', await blob.arrayBuffer()))]
      .map((b) => b.toString(16).padStart(2, '0'))
      .join('');
    const base = fileNameFor(p.fileName ?? p.name);
    let name = base;
    for (let i = 2; existing.has(name) && existing.get(name) !== sha; i++)
      name = base.replace(/(\.[^./]*)?$/, (ext) => `-${i}${ext}`);
    if (existing.get(name) !== sha) {
      try {
        const stored = await uploadFile(name, blob, p.fileType || blob.type || undefined);
        existing.set(stored.name, stored.sha256);
      } catch (err) {
        if (err instanceof ApiError) throw new ApiError(explainUploadProblem(err.problem, blob));
        throw err;
      }
    }
    out[p.fileId] = name;
  }
  return out;
}
