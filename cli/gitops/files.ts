/**
 * The directory side of tests as files (docs/tests-as-files.md "Layout"): reading every resource
 * file under a directory for `assay apply`, and writing an export for `assay export` — one YAML
 * file per resource, an existing file of the same resource rewritten in place (so files a person
 * moved or renamed stay where they are), new ones named by {@link resourcePath}, files of
 * resources that no longer exist removed only when asked (`--clean`).
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { FILES_FOLDER } from './file-sync';
import { parseResourceFile, resourcePath, serialiseResource, type FileProblem } from './format';
import { KIND_FOLDER, KIND_ORDER, resourceKey, resourceLabel, type ResourceSpec } from './model';
import type { DesiredResource } from './plan';

/** `.yaml` and `.yml` files, hidden files and folders (`.git`) skipped. */
function isResourceFile(name: string): boolean {
  return !name.startsWith('.') && /\.ya?ml$/i.test(name);
}

/**
 * Every resource file under `dir` as `/`-separated paths relative to it, sorted. The top-level
 * `files/` folder holds workspace files as they are (cli/gitops/file-sync.ts), not resources: it is
 * not read.
 * @throws Error with code ENOENT/ENOTDIR when `dir` is not a directory.
 */
export async function listResourceFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (rel: string) => {
    const entries = await fs.readdir(path.join(dir, rel), { withFileTypes: true });
    for (const e of entries) {
      if (e.name.startsWith('.')) continue;
      if (!rel && e.name === FILES_FOLDER) continue;
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(child);
      else if (e.isFile() && isResourceFile(e.name)) out.push(child);
    }
  };
  await walk('');
  return out.sort();
}

/** What a directory holds: the resources its files describe, and the problems of files that do not read. */
export interface DirectoryContents {
  resources: DesiredResource[];
  problems: FileProblem[];
  /** How many resource files were read. */
  files: number;
}

/**
 * Reads and checks every resource file under `dir` ({@link parseResourceFile}). Files are named in
 * results and problems as `shownDir/<relative path>`, so messages point at what the user typed.
 */
export async function readDirectory(dir: string, shownDir = dir): Promise<DirectoryContents> {
  const files = await listResourceFiles(dir);
  const resources: DesiredResource[] = [];
  const problems: FileProblem[] = [];
  for (const rel of files) {
    const shown = path.join(shownDir, rel);
    const parsed = parseResourceFile(shown, await fs.readFile(path.join(dir, rel), 'utf8'));
    if (parsed.spec) resources.push({ spec: parsed.spec, file: shown });
    else problems.push(...parsed.problems);
  }
  return { resources, problems, files: files.length };
}

/** What {@link writeExport} did, paths relative to the directory. */
export interface ExportReport {
  written: string[];
  unchanged: string[];
  /** Files of resources the workspace no longer has, removed (with `clean`). */
  removed: Array<{ file: string; label: string }>;
  /** The same, left in place (without `clean`). */
  stale: Array<{ file: string; label: string }>;
  /** Files that do not read as a resource, left alone. */
  unreadable: string[];
  /** A second file for a resource already written elsewhere, left alone. */
  duplicates: string[];
}

/** Apply order, then by label: the order files are written and listed. */
function exportOrder(a: ResourceSpec, b: ResourceSpec): number {
  return KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) || resourceLabel(a).localeCompare(resourceLabel(b));
}

/**
 * Writes one file per spec under `dir` (made when missing). A resource that already has a file
 * there keeps it (rewritten only when its text changes); a new one gets a fresh safe name. With
 * `clean`, files of resources not in `specs` are deleted, and folders left empty under the kind
 * folders removed.
 */
export async function writeExport(
  dir: string,
  specs: ResourceSpec[],
  options: { clean?: boolean } = {},
): Promise<ExportReport> {
  await fs.mkdir(dir, { recursive: true });
  const report: ExportReport = { written: [], unchanged: [], removed: [], stale: [], unreadable: [], duplicates: [] };
  const existing = new Map<string, { file: string; text: string; label: string }>();
  const taken = new Set<string>();
  for (const rel of await listResourceFiles(dir)) {
    taken.add(rel.toLowerCase());
    const text = await fs.readFile(path.join(dir, rel), 'utf8');
    const parsed = parseResourceFile(rel, text);
    if (!parsed.spec) {
      report.unreadable.push(rel);
      continue;
    }
    const key = resourceKey(parsed.spec);
    if (existing.has(key)) report.duplicates.push(rel);
    else existing.set(key, { file: rel, text, label: resourceLabel(parsed.spec) });
  }
  const wanted = new Set<string>();
  for (const spec of [...specs].sort(exportOrder)) {
    const key = resourceKey(spec);
    wanted.add(key);
    const text = serialiseResource(spec);
    const had = existing.get(key);
    const rel = had?.file ?? resourcePath(spec, taken);
    if (had?.text === text) {
      report.unchanged.push(rel);
      continue;
    }
    await fs.mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await fs.writeFile(path.join(dir, rel), text);
    report.written.push(rel);
  }
  for (const [key, had] of existing) {
    if (wanted.has(key)) continue;
    if (!options.clean) {
      report.stale.push({ file: had.file, label: had.label });
      continue;
    }
    await fs.rm(path.join(dir, had.file));
    report.removed.push({ file: had.file, label: had.label });
    await removeEmptyParents(dir, path.dirname(had.file));
  }
  return report;
}

/** Removes `rel` and its parents while they are empty, stopping at a kind folder. */
async function removeEmptyParents(dir: string, rel: string): Promise<void> {
  const stops = new Set(['.', '', ...Object.values(KIND_FOLDER)]);
  for (let at = rel; !stops.has(at); at = path.dirname(at)) {
    const full = path.join(dir, at);
    if ((await fs.readdir(full)).length > 0) return;
    await fs.rmdir(full);
  }
}
