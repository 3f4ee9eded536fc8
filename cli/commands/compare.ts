/**
 * `assay compare` (docs/cli.md; docs/history.md "Comparing runs"):
 *
 * - `assay compare BASE HEAD` compares two runs (`GET /v1/runs/{BASE}/compare/{HEAD}`);
 * - `assay compare HEAD --baseline` compares a run with its baseline (`GET /v1/runs/{HEAD}/compare/baseline`).
 *
 * Prints a table (test cases that changed, performance figures side by side, what changed in the
 * plan), or the API's JSON with `--json`. Exit codes: 0 when the verdict is `improvement` or
 * `unchanged`, 1 on `regression`, 2 for a usage error or a problem the caller can fix (a run not
 * ended, no baseline, an unknown run), 3 when the service cannot be reached.
 */
import type { Registrar } from '../context';
import { EXIT, UsageError } from '../errors';
import type { CompareItem, FigureChange, PerfFigure, RunComparison } from '../../src/history/compare';

/** A comparison as the API answers it (`compare/baseline` adds `baseline`). */
export type ComparisonDocument = RunComparison & { baseline?: { runId: string; setting: string; source: string } };

const FIGURE_LABELS: Record<PerfFigure, string> = {
  p95: 'p95 (ms)',
  p99: 'p99 (ms)',
  med: 'median (ms)',
  avg: 'avg (ms)',
  rps: 'requests/s',
  errorRate: 'error rate',
  checksRate: 'checks passed',
};
const RATE_FIGURES = new Set<PerfFigure>(['errorRate', 'checksRate']);

function table(rows: string[][], indent = '  '): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map(
    (row) =>
      indent +
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!)))
        .join('  ')
        .trimEnd(),
  );
}

const outcome = (s: CompareItem['base']) => (s ? `${s.status} ${s.durationMs} ms` : '—');

function figureText(f: PerfFigure, v: number | null): string {
  if (v === null) return '—';
  return RATE_FIGURES.has(f) ? `${(v * 100).toFixed(2)} %` : String(Math.round(v * 100) / 100);
}

function changeText(f: PerfFigure, c: FigureChange): string {
  if (c.change === null) return '';
  const sign = c.change > 0 ? '+' : '';
  const text = RATE_FIGURES.has(f)
    ? `${sign}${(c.change * 100).toFixed(2)} pt`
    : `${sign}${(c.change * 100).toFixed(1)} %`;
  return c.regression ? `${text}  regression` : c.improvement ? `${text}  improvement` : text;
}

const runLine = (label: string, r: RunComparison['base']) =>
  `${label} ${r.runId}  ${r.kind}, ${r.status}${r.result ? ` (${r.result})` : ''}, ${r.createdAt}`;

/** The comparison as the text `assay compare` prints (no colours: it is read in CI logs too). */
export function renderComparison(c: ComparisonDocument): string {
  const out: string[] = [];
  out.push(runLine('base', c.base));
  out.push(runLine('head', c.head));
  if (c.baseline) out.push(`baseline: ${c.baseline.setting} (${c.baseline.source})`);
  out.push(`verdict: ${c.verdict.toUpperCase()}`);
  out.push(
    c.samePlan
      ? 'plan: the same (both runs executed the same thing)'
      : c.planDiff
        ? 'plan: changed'
        : 'plan: different or unknown',
  );
  if (c.planDiff) {
    const d = c.planDiff;
    const names = (list: Array<{ name: string }>) => list.map((t) => t.name).join(', ');
    const lines: string[][] = [];
    if (d.testCases.changed.length) lines.push(['test cases changed', names(d.testCases.changed)]);
    if (d.testCases.added.length) lines.push(['test cases added', names(d.testCases.added)]);
    if (d.testCases.removed.length) lines.push(['test cases removed', names(d.testCases.removed)]);
    if (d.variables.changed.length) lines.push(['variables changed', d.variables.changed.join(', ')]);
    if (d.variables.added.length) lines.push(['variables added', d.variables.added.join(', ')]);
    if (d.variables.removed.length) lines.push(['variables removed', d.variables.removed.join(', ')]);
    if (d.settings.length) lines.push(['settings changed', d.settings.join(', ')]);
    if (d.servers.length) lines.push(['servers changed', d.servers.join(', ')]);
    if (d.other.length) lines.push(['also changed', d.other.join(', ')]);
    out.push(...table(lines));
  }
  out.push('');
  const t = c.testCases;
  const rows: string[][] = [['', 'test case', 'base', 'head', 'change']];
  const lists: Array<[string, CompareItem[]]> = [
    ['newly failing', t.newlyFailing],
    ['newly passing', t.newlyPassing],
    ['appeared', t.appeared],
    ['disappeared', t.disappeared],
    ['slower', t.slower],
    ['faster', t.faster],
  ];
  for (const [label, items] of lists)
    for (const i of items)
      rows.push([
        label,
        i.name,
        outcome(i.base),
        outcome(i.head),
        i.change === undefined || i.change === null ? '' : `${i.change > 0 ? '+' : ''}${(i.change * 100).toFixed(0)} %`,
      ]);
  out.push(`test cases: ${rows.length - 1} changed, ${t.unchanged} unchanged`);
  if (rows.length > 1) out.push(...table(rows));
  if (c.performance) {
    out.push('');
    out.push('performance');
    const perf: string[][] = [['', 'base', 'head', 'change']];
    for (const [f, label] of Object.entries(FIGURE_LABELS) as Array<[PerfFigure, string]>) {
      const fig = c.performance.overall[f];
      perf.push([label, figureText(f, fig.base), figureText(f, fig.head), changeText(f, fig)]);
    }
    out.push(...table(perf));
    if (c.performance.requests.length) {
      out.push('');
      out.push('per request');
      const req: string[][] = [['request', 'p95 base', 'p95 head', 'change', 'errors base', 'errors head']];
      for (const r of c.performance.requests) {
        const p = r.figures.p95;
        const e = r.figures.errorRate;
        req.push([
          r.name,
          figureText('p95', p.base),
          figureText('p95', p.head),
          changeText('p95', p),
          figureText('errorRate', e.base),
          figureText('errorRate', e.head),
        ]);
      }
      out.push(...table(req));
    }
  }
  return `${out.join('\n')}\n`;
}

export const registerCompareCommands: Registrar = (program, ctx, done) => {
  program
    .command('compare')
    .description(
      'compare two runs (GET /v1/runs/{base}/compare/{head}), or a run with its baseline (--baseline); exit 1 on a regression',
    )
    .argument('<run>', 'the base run (run_…); with --baseline, the run to compare with its baseline')
    .argument('[head]', 'the head run (run_…), compared with the base')
    .option(
      '-b, --baseline',
      "compare <run> with its baseline (its runner's or deployment's, else the last passing run)",
    )
    .option('--json', "print the API's comparison document instead of the table")
    .addHelpText(
      'after',
      `
Examples:
  assay compare run_01A… run_01B…      # base, then head
  assay compare run_01B… --baseline    # the run against its baseline
Exit codes: 0 unchanged or improved · 1 regression · 2 usage, a run not ended, no baseline · 3 unreachable.`,
    )
    .action(
      done(async () => {
        const cmd = program.commands.find((c) => c.name() === 'compare')!;
        const [run, head] = cmd.args as [string, string | undefined];
        const flags = cmd.opts<{ baseline?: boolean; json?: boolean }>();
        if (flags.baseline && head !== undefined)
          throw new UsageError('give one run with --baseline (assay compare RUN --baseline), or two runs without it');
        if (!flags.baseline && head === undefined)
          throw new UsageError('give two runs (assay compare BASE HEAD), or one with --baseline');
        const client = ctx.client();
        const path = flags.baseline
          ? `/v1/runs/${encodeURIComponent(run)}/compare/baseline`
          : `/v1/runs/${encodeURIComponent(run)}/compare/${encodeURIComponent(head!)}`;
        const comparison = await client.get<ComparisonDocument>(path);
        if (flags.json) ctx.print(JSON.stringify(comparison, null, 2));
        else ctx.io.stdout.write(renderComparison(comparison));
        return comparison.verdict === 'regression' ? EXIT.testsFailed : EXIT.ok;
      }),
    );
};
