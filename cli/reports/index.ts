/**
 * Reporters of the `assay` command line (docs/reports.md): `cli` (the terminal summary),
 * `json` (results.json), `junit` (junit.xml), `html` (report.html, self-contained). Each turns the
 * run and results documents (cli/reports/types.ts) into text; {@link writeReports} writes the
 * file reporters' output into the `--out` folder.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { renderHtml } from './html';
import { renderJson } from './json';
import { renderJunit } from './junit';
import type { ReportInput } from './model';
import type { ReporterName } from './types';

export type { ReportInput } from './model';
export { renderCli } from './cli';
export { renderHtml } from './html';
export { renderJson } from './json';
export { renderJunit } from './junit';
export { caseUnits, type CaseUnit } from './model';

/** File name each file reporter writes inside `--out` (stable, so CI steps can name it). */
export const REPORT_FILES: Record<Exclude<ReporterName, 'cli'>, string> = {
  json: 'results.json',
  junit: 'junit.xml',
  html: 'report.html',
};

const RENDERERS: Record<Exclude<ReporterName, 'cli'>, (input: ReportInput) => string> = {
  json: renderJson,
  junit: renderJunit,
  html: renderHtml,
};

/**
 * Writes the file reporters among `reporters` into `outDir` (created with its parents), replacing
 * files of the same name; `cli` is skipped (the caller prints it). Answers the paths written, in
 * the order of `reporters`. Rejects with the file system's error (e.g. EACCES) when a file cannot
 * be written.
 */
export async function writeReports(input: ReportInput, reporters: ReporterName[], outDir: string): Promise<string[]> {
  const files: string[] = [];
  await fs.mkdir(outDir, { recursive: true });
  for (const r of reporters) {
    if (r === 'cli') continue;
    const file = path.join(outDir, REPORT_FILES[r]);
    await fs.writeFile(file, RENDERERS[r](input), 'utf8');
    files.push(file);
  }
  return files;
}
