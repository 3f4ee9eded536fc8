/**
 * Workspace files in tests as files (docs/tests-as-files.md "Workspace files"): `assay export`
 * writes each file of the workspace byte for byte under `DIR/files/<name>` (a name's `/` are
 * folders), and `assay apply` uploads the files there that are new or whose content differs (by
 * SHA-256, the `sha256` the API reports), and with `--prune` deletes workspace files that have no
 * file there.
 *
 * A name that cannot be a path under `files/` — a segment that is empty or starts with `.` (hidden
 * files are skipped when reading, as `.git` is), or a name that is also the folder of another
 * (`a` beside `a/b`) — is never exported (a warning names it) and never pruned.
 *
 * Plan and export are computed here; the REST calls are cli/workspace-files.ts.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { AssayClient } from '../client';
import {
  FILE_NAME_RULE,
  deleteFile,
  downloadFile,
  formatSize,
  guessContentType,
  isFileName,
  sha256Hex,
  uploadFile,
  type WorkspaceFile,
} from '../workspace-files';
import type { FileProblem } from './format';

/** The folder of an export directory holding workspace files (never read for resource YAML). */
export const FILES_FOLDER = 'files';

/** Why `name` cannot be a path under `files/` on its own, or null when it can. */
function segmentProblem(name: string): string | null {
  const segments = name.split('/');
  if (segments.some((s) => s === '')) return 'it has an empty path segment (a leading, trailing or double "/")';
  if (segments.some((s) => s.startsWith('.'))) return 'a path segment starts with "." (hidden files are not read)';
  return null;
}

/**
 * Workspace file names that cannot be a file under `files/`, with the reason: a bad segment
 * ({@link segmentProblem}) or a name that is a folder of another name (`a` beside `a/b`).
 */
export function unrepresentable(names: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  const folders = new Set<string>();
  for (const name of names) {
    const segments = name.split('/');
    for (let i = 1; i < segments.length; i++) folders.add(segments.slice(0, i).join('/'));
  }
  for (const name of names) {
    const problem = segmentProblem(name);
    if (problem) out.set(name, problem);
    else if (folders.has(name)) out.set(name, `another file's name uses "${name}/" as a folder`);
  }
  return out;
}

/** A file under `DIR/files/`: the workspace file it stands for. */
export interface LocalFile {
  /** The workspace file name: its path relative to `files/`, `/`-separated. */
  name: string;
  /** The path as shown to the user (`assay/files/logo.png`). */
  file: string;
  /** Absolute path. */
  full: string;
  size: number;
  sha256: string;
}

/** What `DIR/files/` holds. */
export interface LocalFiles {
  files: LocalFile[];
  /** Files whose path is not a valid workspace file name. */
  problems: FileProblem[];
  /** Whether `DIR/files/` exists. */
  folder: boolean;
}

/**
 * Every regular file under `dir/files/` (symbolic links to files followed; hidden files and
 * folders skipped), hashed. Paths that are not valid file names ({@link isFileName}) are problems.
 */
export async function readLocalFiles(dir: string, shownDir = dir): Promise<LocalFiles> {
  const root = path.join(dir, FILES_FOLDER);
  const out: LocalFiles = { files: [], problems: [], folder: false };
  try {
    if (!(await fs.stat(root)).isDirectory()) return out;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return out;
    throw err;
  }
  out.folder = true;
  const walk = async (rel: string) => {
    const entries = await fs.readdir(path.join(root, rel), { withFileTypes: true });
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      if (e.name.startsWith('.')) continue;
      const name = rel ? `${rel}/${e.name}` : e.name;
      const full = path.join(root, name);
      const stat = e.isSymbolicLink() ? await fs.stat(full).catch(() => undefined) : undefined;
      if (e.isDirectory() || stat?.isDirectory()) await walk(name);
      else if (e.isFile() || stat?.isFile()) {
        const shown = path.join(shownDir, FILES_FOLDER, name);
        if (!isFileName(name)) {
          out.problems.push({ file: shown, message: `${FILE_NAME_RULE}; rename it` });
          continue;
        }
        const bytes = await fs.readFile(full);
        out.files.push({ name, file: shown, full, size: bytes.length, sha256: sha256Hex(bytes) });
      }
    }
  };
  await walk('');
  return out;
}

/** One change to a workspace file. */
export interface FileAction {
  op: 'create' | 'update' | 'delete';
  name: string;
  /** `file NAME`, as plan lines name it. */
  label: string;
  /** The local file (create, update). */
  local?: LocalFile;
  /** The workspace file (update, delete). */
  current?: WorkspaceFile;
}

/** What the files under `files/` change in the workspace's files. */
export interface FilePlan {
  /** Creates and updates, in name order. */
  uploads: FileAction[];
  /** Deletes (with `prune`), in name order. */
  deletes: FileAction[];
  /** Files whose content is the same. */
  unchanged: number;
  /** Labels of workspace files with no local file, kept because `prune` is off. */
  kept: string[];
  /** Workspace files whose name cannot be a path under `files/` ({@link unrepresentable}): never pruned. */
  unexportable: Array<{ name: string; reason: string }>;
}

/**
 * The plan for the workspace's files (`current`) to match the local ones: a local file the
 * workspace lacks is a create, one whose SHA-256 differs an update; with `prune` a workspace file
 * without a local one is a delete, unless its name cannot be a path ({@link unrepresentable}):
 * it could never have been exported, so it is kept.
 */
export function computeFilePlan(
  local: readonly LocalFile[],
  current: readonly WorkspaceFile[],
  options: { prune?: boolean } = {},
): FilePlan {
  const plan: FilePlan = { uploads: [], deletes: [], unchanged: 0, kept: [], unexportable: [] };
  const byName = new Map(current.map((f) => [f.name, f]));
  const localNames = new Set(local.map((f) => f.name));
  for (const l of [...local].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const now = byName.get(l.name);
    const label = `file ${l.name}`;
    if (!now) plan.uploads.push({ op: 'create', name: l.name, label, local: l });
    else if (now.sha256.toLowerCase() !== l.sha256)
      plan.uploads.push({ op: 'update', name: l.name, label, local: l, current: now });
    else plan.unchanged += 1;
  }
  const cannot = unrepresentable(current.map((f) => f.name));
  for (const f of [...current].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (localNames.has(f.name)) continue;
    const reason = cannot.get(f.name);
    if (reason) plan.unexportable.push({ name: f.name, reason });
    else if (options.prune) plan.deletes.push({ op: 'delete', name: f.name, label: `file ${f.name}`, current: f });
    else plan.kept.push(`file ${f.name}`);
  }
  return plan;
}

/** `+ create file logo.png (1.2 KiB)`, `~ update file data.csv (content)`, `- delete file old.bin`. */
export function describeFileAction(a: FileAction): string {
  if (a.op === 'create') return `+ create ${a.label} (${formatSize(a.local!.size)})`;
  if (a.op === 'update') return `~ update ${a.label} (content)`;
  return `- delete ${a.label}`;
}

/**
 * Carries out one file action: an upload sends the local bytes (`PUT /v1/files/{name}`; an
 * update keeps the workspace file's content type, a create guesses it from the extension,
 * cli/workspace-files.ts {@link guessContentType}); a delete is `DELETE /v1/files/{name}`.
 * @throws ApiProblem / UnreachableError from the client as they come.
 */
export async function applyFileAction(client: AssayClient, action: FileAction): Promise<void> {
  if (action.op === 'delete') return deleteFile(client, action.name);
  const bytes = await fs.readFile(action.local!.full);
  await uploadFile(client, action.name, bytes, action.current?.contentType ?? guessContentType(action.name));
}

/** What {@link exportFiles} did; paths relative to the export directory (`files/logo.png`). */
export interface FileExportReport {
  written: string[];
  unchanged: string[];
  /** Local files of workspace files that no longer exist, removed (`clean`). */
  removed: string[];
  /** The same, left in place. */
  stale: string[];
  /** Workspace files not written, with the reason ({@link unrepresentable}). */
  skipped: Array<{ name: string; reason: string }>;
}

/**
 * Writes every workspace file to `dir/files/<name>`, downloading only those whose local copy is
 * missing or differs by SHA-256 (written to a hidden temporary file, then renamed, so a failed
 * download leaves no partial file). `files/` is made only when there is a file to write. With
 * `clean`, local files of workspace files that no longer exist are removed (and folders left
 * empty under `files/`); else they are listed as stale.
 * @throws ApiProblem / UnreachableError; file system errors as they come.
 */
export async function exportFiles(
  client: AssayClient,
  dir: string,
  files: readonly WorkspaceFile[],
  options: { clean?: boolean } = {},
): Promise<FileExportReport> {
  const report: FileExportReport = { written: [], unchanged: [], removed: [], stale: [], skipped: [] };
  const cannot = unrepresentable(files.map((f) => f.name));
  const local = await readLocalFiles(dir);
  const localByName = new Map(local.files.map((f) => [f.name, f]));
  const root = path.join(dir, FILES_FOLDER);
  for (const f of [...files].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const reason = cannot.get(f.name);
    if (reason) {
      report.skipped.push({ name: f.name, reason });
      continue;
    }
    const rel = `${FILES_FOLDER}/${f.name}`;
    if (localByName.get(f.name)?.sha256 === f.sha256.toLowerCase()) {
      report.unchanged.push(rel);
      continue;
    }
    const bytes = await downloadFile(client, f.name);
    const target = path.join(root, f.name);
    await fs.mkdir(path.dirname(target), { recursive: true });
    const temp = path.join(path.dirname(target), `.${path.basename(target)}.assay-download`);
    await fs.writeFile(temp, bytes);
    await fs.rename(temp, target);
    report.written.push(rel);
  }
  const wanted = new Set(files.map((f) => f.name));
  for (const l of local.files) {
    if (wanted.has(l.name)) continue;
    const rel = `${FILES_FOLDER}/${l.name}`;
    if (!options.clean) {
      report.stale.push(rel);
      continue;
    }
    await fs.rm(l.full);
    report.removed.push(rel);
    for (let at = path.dirname(l.name); at !== '.'; at = path.dirname(at)) {
      const full = path.join(root, at);
      if ((await fs.readdir(full)).length > 0) break;
      await fs.rmdir(full);
    }
  }
  return report;
}
