/**
 * Reporters of the `assay` command line (docs/cli.md "Reports"). STUB: replaced by the reports
 * work (cli text, JSON, JUnit XML, self-contained HTML).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { ReporterName, ResultsDocument, RunDocument, RunLinks } from './types';

export interface ReportInput {
  run: RunDocument;
  results: ResultsDocument;
  links: RunLinks;
  /** When the report was made (default: now). */
  generatedAt?: Date;
}

/** File name each file reporter writes inside `--out` (stable, so CI steps can name it). */
export const REPORT_FILES: Record<Exclude<ReporterName, 'cli'>, string> = { json: 'results.json', junit: 'junit.xml', html: 'report.html' };

/** The terminal summary: counts, each failed test case with its failures (expected vs actual), links. */
export function renderCli(input: ReportInput, _options: { color: boolean }): string {
  const s = input.results.summary;
  return `${input.results.result ?? input.results.status}: ${s?.passed ?? 0} passed, ${s?.failed ?? 0} failed\n`;
}

/** Writes the file reporters among `reporters` into `outDir` (created); answers the files written. */
export async function writeReports(input: ReportInput, reporters: ReporterName[], outDir: string): Promise<string[]> {
  const files: string[] = [];
  await fs.mkdir(outDir, { recursive: true });
  for (const r of reporters) {
    if (r === 'cli') continue;
    const file = path.join(outDir, REPORT_FILES[r]);
    await fs.writeFile(file, r === 'json' ? `${JSON.stringify(input.results, null, 2)}\n` : '');
    files.push(file);
  }
  return files;
}
