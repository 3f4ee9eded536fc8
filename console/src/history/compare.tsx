/**
 * `/runs/{a}/compare/{b}` and `/runs/{b}/compare/baseline` (docs/console.md "Comparing runs"):
 * `GET /v1/runs/{a}/compare/{b}` (a the base, b the head) or `GET /v1/runs/{b}/compare/baseline`
 * (the head against its runner's or deployment's baseline, else the last passing run before it)
 * shown as: the verdict, the two runs, whether they ran the same plan (and, when not, what
 * changed in it: "the test changed" rather than "the service changed"), the test cases that newly
 * fail, newly pass, appeared, disappeared, got slower or faster, and for performance runs every
 * figure side by side with its change, per request name, and the two per-second series overlaid
 * on elapsed time (base dashed). Rules: docs/history.md "Comparing runs".
 */
import { useRoute } from 'preact-iso';
import './history.css';
import { api } from '../api';
import { useLoad } from '../hooks';
import { dateTime, duration } from '../format';
import { Chart } from '../ui/chart';
import { Badge, PageHeader, ProblemBox } from '../ui/kit';
import type { CompareItem, Comparison, FigureChange, SeriesPoint } from './types';
import type { PerfFigure } from '../../../src/history/types';

/** How each figure is read: its label, its unit, and whether lower is better. */
const FIGURES: Record<PerfFigure, { label: string; kind: 'ms' | 'rps' | 'rate'; lowerIsBetter: boolean }> = {
  p95: { label: 'p95', kind: 'ms', lowerIsBetter: true },
  p99: { label: 'p99', kind: 'ms', lowerIsBetter: true },
  med: { label: 'median', kind: 'ms', lowerIsBetter: true },
  avg: { label: 'average', kind: 'ms', lowerIsBetter: true },
  rps: { label: 'requests/s', kind: 'rps', lowerIsBetter: false },
  errorRate: { label: 'error rate', kind: 'rate', lowerIsBetter: true },
  checksRate: { label: 'checks passed', kind: 'rate', lowerIsBetter: false },
};

function figureValue(name: PerfFigure, v: number | null): string {
  if (v === null || v === undefined) return '—';
  const kind = FIGURES[name]?.kind;
  if (kind === 'ms') return duration(v);
  if (kind === 'rps') return `${v.toFixed(1)}/s`;
  if (kind === 'rate') return `${(v * 100).toFixed(2)} %`;
  return String(Math.round(v * 100) / 100);
}

/** A change as people read it: `+12.0 %` (relative) or `+1.50 pt` (rates: a difference in points). */
function changeText(name: PerfFigure, f: FigureChange): string {
  if (f.change === null || f.change === undefined) return '—';
  const sign = f.change > 0 ? '+' : '';
  return FIGURES[name]?.kind === 'rate'
    ? `${sign}${(f.change * 100).toFixed(2)} pt`
    : `${sign}${(f.change * 100).toFixed(1)} %`;
}

/** `worse`, `better` or `same` for a figure's change (colours the cell; the verdict is the API's). */
function direction(name: PerfFigure, f: FigureChange): 'worse' | 'better' | 'same' {
  if (f.regression) return 'worse';
  if (f.improvement) return 'better';
  if (!f.change) return 'same';
  const lower = FIGURES[name]?.lowerIsBetter ?? true;
  return f.change > 0 === lower ? 'worse' : 'better';
}

export function ComparePage() {
  const { params } = useRoute();
  const a = params.a!;
  const b = params.b!;
  const cmp = useLoad(
    (signal) =>
      api<Comparison>('GET', `/v1/runs/${encodeURIComponent(a)}/compare/${encodeURIComponent(b)}`, undefined, {
        signal,
      }),
    [a, b],
  );
  const c = cmp.data;
  return (
    <>
      <PageHeader
        title={b === 'baseline' ? 'Run against its baseline' : 'Compare runs'}
        sub={
          c ? (
            <>
              base <RunLink id={c.base.runId} /> → head <RunLink id={c.head.runId} />
            </>
          ) : (
            `${a} → ${b}`
          )
        }
      >
        {c && (
          <span class={`badge verdict verdict-${c.verdict}`} data-testid="verdict">
            {c.verdict}
          </span>
        )}
      </PageHeader>
      <ProblemBox problem={cmp.problem} onRetry={cmp.reload} />
      {!c && !cmp.problem && <p class="muted">Comparing…</p>}
      {c && (
        <>
          <div class="cmp-sides">
            <Side title="Base" side={c.base} />
            <Side title="Head" side={c.head} />
          </div>
          <p data-testid="same-plan" class={c.samePlan ? 'muted' : 'cmp-plan-changed'}>
            {c.samePlan
              ? 'Both runs executed the same plan (equal plan hashes): a difference comes from the service.'
              : 'The plans differ: the test changed between the runs, see what changed below.'}
          </p>
          <h2>Test cases</h2>
          <ItemTable title="Newly failing" items={c.testCases.newlyFailing} />
          <ItemTable title="Newly passing" items={c.testCases.newlyPassing} />
          <ItemTable title="Slower" items={c.testCases.slower} change />
          <ItemTable title="Faster" items={c.testCases.faster} change />
          <ItemTable title="Appeared" items={c.testCases.appeared} />
          <ItemTable title="Disappeared" items={c.testCases.disappeared} />
          <p class="muted" data-testid="unchanged">
            {c.testCases.unchanged} test case{c.testCases.unchanged === 1 ? '' : 's'} unchanged.
          </p>
          {c.performance && <PerformanceCompare perf={c.performance} />}
          {c.planDiff && <PlanDiff diff={c.planDiff} />}
        </>
      )}
    </>
  );
}

function RunLink({ id }: { id: string }) {
  return (
    <a class="mono" href={`/runs/${encodeURIComponent(id)}`}>
      {id}
    </a>
  );
}

function Side({ title, side }: { title: string; side: Comparison['base'] }) {
  return (
    <section class="card" aria-label={title}>
      <h3>{title}</h3>
      <dl class="kv">
        <dt>Run</dt>
        <dd>
          <RunLink id={side.runId} />
        </dd>
        <dt>Created</dt>
        <dd>{dateTime(side.createdAt)}</dd>
        <dt>Outcome</dt>
        <dd>
          <Badge value={side.status} /> <Badge value={side.result ?? undefined} />
        </dd>
        <dt>Kind</dt>
        <dd>{side.kind ?? 'functional'}</dd>
        <dt>Plan hash</dt>
        <dd class="mono" title={side.planHash ?? undefined}>
          {side.planHash ? side.planHash.slice(0, 12) : '—'}
        </dd>
      </dl>
    </section>
  );
}

function ItemTable({ title, items, change }: { title: string; items: CompareItem[]; change?: boolean }) {
  if (!items.length) return null;
  return (
    <section aria-label={title} data-list={title}>
      <h3>
        {title} ({items.length})
      </h3>
      <table aria-label={title}>
        <thead>
          <tr>
            <th>Test case</th>
            <th>Base</th>
            <th>Head</th>
            {change && <th class="num">Change</th>}
          </tr>
        </thead>
        <tbody>
          {items.map((i) => (
            <tr key={i.testCaseId}>
              <td>
                <a href={`/test-cases/${encodeURIComponent(i.testCaseId)}`}>{i.name}</a>
              </td>
              <td>{i.base ? <Outcome o={i.base} /> : <span class="muted">did not run</span>}</td>
              <td>{i.head ? <Outcome o={i.head} /> : <span class="muted">did not run</span>}</td>
              {change && (
                <td class="num">
                  {i.change === undefined || i.change === null
                    ? '—'
                    : `${i.change > 0 ? '+' : ''}${(i.change * 100).toFixed(0)} %`}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function Outcome({ o }: { o: { status: string; durationMs: number } }) {
  return (
    <>
      <Badge value={o.status} /> <span class="muted">{duration(o.durationMs)}</span>
    </>
  );
}

/** The series of a run on elapsed seconds from its first point (the API's `offset`). */
function elapsed(series: SeriesPoint[]): number[] {
  const t0 = series[0]?.t ?? 0;
  return series.map((s) => s.offset ?? s.t - t0);
}

/** `base` and `head` on one x axis (the union of their elapsed seconds), null where a run has no point. */
function overlay(base: SeriesPoint[], head: SeriesPoint[], pick: (s: SeriesPoint) => number) {
  const [eb, eh] = [elapsed(base), elapsed(head)];
  const xs = [...new Set([...eb, ...eh])].sort((x, y) => x - y);
  const at = (series: SeriesPoint[], e: number[]) => {
    const m = new Map(e.map((x, i) => [x, pick(series[i]!)]));
    return xs.map((x) => m.get(x) ?? null);
  };
  return { xs, base: at(base, eb), head: at(head, eh) };
}

function PerformanceCompare({ perf }: { perf: NonNullable<Comparison['performance']> }) {
  const names = (Object.keys(FIGURES) as PerfFigure[]).filter((n) => perf.overall[n]);
  const p95 = overlay(perf.series.base, perf.series.head, (s) => s.p95);
  const rps = overlay(perf.series.base, perf.series.head, (s) => s.requests);
  return (
    <section aria-label="Performance">
      <h2>Performance</h2>
      <table aria-label="Figures side by side">
        <thead>
          <tr>
            <th>Figure</th>
            <th class="num">Base</th>
            <th class="num">Head</th>
            <th class="num">Change</th>
          </tr>
        </thead>
        <tbody>
          {names.map((n) => (
            <tr key={n} data-figure={n}>
              <td>{FIGURES[n]?.label ?? n}</td>
              <td class="num">{figureValue(n, perf.overall[n]!.base)}</td>
              <td class="num">{figureValue(n, perf.overall[n]!.head)}</td>
              <td class={`num cmp-${direction(n, perf.overall[n]!)}`}>{changeText(n, perf.overall[n]!)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {(p95.xs.length > 1 || rps.xs.length > 1) && (
        <>
          <Chart
            title="p95 response time (ms), base dashed, by seconds since each run started"
            times={p95.xs}
            xTime={false}
            dashes={[[6, 4], undefined]}
            series={[
              { label: 'base p95', values: p95.base, color: '#8a94a3', unit: 'ms' },
              { label: 'head p95', values: p95.head, color: '#1f9d6a', unit: 'ms' },
            ]}
          />
          <Chart
            title="Requests per second, base dashed, by seconds since each run started"
            times={rps.xs}
            xTime={false}
            dashes={[[6, 4], undefined]}
            series={[
              { label: 'base requests/s', values: rps.base, color: '#8a94a3', unit: 'req/s' },
              { label: 'head requests/s', values: rps.head, color: '#2f7fd8', unit: 'req/s' },
            ]}
          />
        </>
      )}
      {perf.requests.length > 0 && (
        <>
          <h3>By request</h3>
          <table aria-label="Requests side by side">
            <thead>
              <tr>
                <th>Request</th>
                {names.map((n) => (
                  <th key={n} class="num">
                    {FIGURES[n]?.label ?? n}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {perf.requests.map((r) => (
                <tr key={r.name}>
                  <td>{r.name}</td>
                  {names.map((n) => {
                    const f = r.figures[n];
                    return (
                      <td key={n} class={`num${f ? ` cmp-${direction(n, f)}` : ''}`}>
                        {f ? (
                          <>
                            {figureValue(n, f.head)} <span class="muted">({changeText(n, f)})</span>
                          </>
                        ) : (
                          '—'
                        )}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}

function PlanDiff({ diff }: { diff: NonNullable<Comparison['planDiff']> }) {
  const names = (xs: { id: string; name: string }[]) => xs.map((x) => x.name).join(', ');
  const rows: Array<[string, string]> = [
    ['Test cases changed', names(diff.testCases.changed)],
    ['Test cases added', names(diff.testCases.added)],
    ['Test cases removed', names(diff.testCases.removed)],
    ['Variables changed', diff.variables.changed.join(', ')],
    ['Variables added', diff.variables.added.join(', ')],
    ['Variables removed', diff.variables.removed.join(', ')],
    ['Settings', diff.settings.join(', ')],
    ['Servers', diff.servers.join(', ')],
    ['Other', diff.other.join(', ')],
  ].filter(([, v]) => v) as Array<[string, string]>;
  return (
    <section class="card" aria-label="What changed in the plan" data-testid="plan-diff">
      <h2>What changed in the plan</h2>
      {rows.length === 0 ? (
        <p class="muted">The hashes differ in parts not listed here (library versions, bundles).</p>
      ) : (
        <dl class="kv">
          {rows.map(([k, v]) => (
            <>
              <dt key={`k${k}`}>{k}</dt>
              <dd key={`v${k}`}>{v}</dd>
            </>
          ))}
        </dl>
      )}
      <p class="muted">Secret values are never shown: a changed secret is named, not its value.</p>
    </section>
  );
}
