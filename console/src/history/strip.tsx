/**
 * The history strip (docs/console.md "History"): the last N outcomes of a test case as coloured
 * cells, oldest left, each a link to its run; then its pass rate, p95 duration, "failing since"
 * (the first failure of the current streak, with the commit its trigger carried) and a flaky
 * mark. Read from `GET /v1/test-cases/{id}/history` (docs/history.md), filtered by runner and
 * environment when given (the run page shows a test case's history on the run's own runner and
 * environment). The test case page adds the full history section (history/section.tsx).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import './history.css';
import { api, withQuery } from '../api';
import { useLoad } from '../hooks';
import { dateTime, duration } from '../format';
import type { HistoryEntry, TestCaseHistory } from './types';

/** `83 %`, `—` when nothing ran. */
export function percent(rate: number | null | undefined, digits = 0): string {
  return rate === null || rate === undefined || Number.isNaN(rate) ? '—' : `${(rate * 100).toFixed(digits)} %`;
}

/** A commit as people read it: its first 10 characters. */
export function shortCommit(commit: string | null | undefined): string | undefined {
  return commit ? commit.slice(0, 10) : undefined;
}

/** The history filters the API takes (`GET /v1/test-cases/{id}/history`). */
export interface HistoryFilter {
  limit?: number;
  runner?: string;
  environment?: string;
  deployment?: string;
  trigger?: string;
  kind?: string;
  since?: string;
  until?: string;
}

/** Loads the history of `testCaseId` with `filter` (once `enabled`). */
export function useHistory(testCaseId: string, filter: HistoryFilter, enabled = true) {
  const key = JSON.stringify(filter);
  return useLoad<TestCaseHistory | undefined>(
    (signal) =>
      enabled
        ? api<TestCaseHistory>(
            'GET',
            withQuery(`/v1/test-cases/${encodeURIComponent(testCaseId)}/history`, { ...filter }),
            undefined,
            { signal },
          )
        : Promise.resolve(undefined),
    [testCaseId, key, enabled],
  );
}

/** True once the element has been on screen (a run with hundreds of test cases loads only the strips one sees). */
function useSeen<T extends Element>(): [preact.RefObject<T>, boolean] {
  const ref = useRef<T>(null);
  const [seen, setSeen] = useState(false);
  useEffect(() => {
    const el = ref.current;
    if (!el || seen) return;
    if (typeof IntersectionObserver === 'undefined') {
      setSeen(true);
      return;
    }
    const io = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) {
        setSeen(true);
        io.disconnect();
      }
    });
    io.observe(el);
    return () => io.disconnect();
  }, [seen]);
  return [ref, seen];
}

/** A cell's tooltip: outcome, when, how long, where, commit, failure. */
function cellTitle(e: HistoryEntry): string {
  const parts = [
    `${e.status}${e.quarantined ? ' (quarantined)' : ''}`,
    dateTime(e.ranAt),
    duration(e.durationMs),
    `${e.runner} on ${e.environment}`,
  ];
  if (e.commit) parts.push(`commit ${shortCommit(e.commit)}`);
  if (e.failure) parts.push(e.failure);
  return parts.join(' · ');
}

/** The coloured cells of `entries` (newest first, as the API lists them), drawn oldest left. */
export function OutcomeCells({ entries, currentRunId }: { entries: HistoryEntry[]; currentRunId?: string }) {
  const cells = [...entries].reverse();
  return (
    <span class="hs-cells" role="list" aria-label="Outcomes, oldest first">
      {cells.map((e) => (
        <a
          key={`${e.runId}:${e.position}`}
          role="listitem"
          href={`/runs/${encodeURIComponent(e.runId)}`}
          class={`hs-cell hs-${e.status}${e.quarantined ? ' hs-quarantined' : ''}${e.runId === currentRunId ? ' hs-current' : ''}`}
          title={cellTitle(e)}
          aria-label={cellTitle(e)}
          data-status={e.status}
          data-run={e.runId}
        />
      ))}
    </span>
  );
}

/** The figures next to the cells: pass rate, p95, failing since, flaky. */
export function StripFacts({ h, showFlaky = true }: { h: TestCaseHistory; showFlaky?: boolean }) {
  return (
    <span class="hs-facts">
      <span data-testid="pass-rate">pass rate {percent(h.stats.passRate)}</span>
      <span data-testid="p95">p95 {duration(h.stats.p95Ms)}</span>
      {h.failingSince && (
        <span class="hs-failing" data-testid="failing-since">
          failing since{' '}
          <a href={`/runs/${encodeURIComponent(h.failingSince.runId)}`} title={dateTime(h.failingSince.ranAt)}>
            {dateTime(h.failingSince.ranAt)}
          </a>
          {h.failingSince.commit && (
            <>
              {' '}
              at commit <code>{shortCommit(h.failingSince.commit)}</code>
            </>
          )}
        </span>
      )}
      {showFlaky && h.flaky.length > 0 && (
        <span
          class="badge badge-flaky"
          data-testid="flaky"
          title={h.flaky.map((f) => `${f.runner} on ${f.environment}: ${f.flips} flips in ${f.window} runs`).join('; ')}
        >
          flaky
        </span>
      )}
    </span>
  );
}

/**
 * A test case's history strip: loads when it first comes into view. `runner`/`environment` narrow
 * it (the run page passes the run's own); `currentRunId` outlines that run's cell.
 */
export function HistoryStrip({
  testCaseId,
  runner,
  environment,
  limit = 20,
  currentRunId,
  showFlaky = true,
}: {
  testCaseId: string;
  runner?: string;
  environment?: string;
  limit?: number;
  currentRunId?: string;
  /** Whether the strip shows the flaky mark (the run page shows the result's own instead). */
  showFlaky?: boolean;
}) {
  const [ref, seen] = useSeen<HTMLDivElement>();
  const h = useHistory(testCaseId, { limit, runner, environment }, seen);
  return (
    <div class="hs" ref={ref} data-testid="history-strip" data-test-case={testCaseId}>
      {h.data ? (
        h.data.entries.length ? (
          <>
            <OutcomeCells entries={h.data.entries} currentRunId={currentRunId} />
            <StripFacts h={h.data} showFlaky={showFlaky} />
          </>
        ) : (
          <span class="muted">no history yet</span>
        )
      ) : h.problem ? (
        <span class="muted" title={h.problem.detail}>
          history unavailable ({h.problem.title})
        </span>
      ) : (
        <span class="muted">history…</span>
      )}
    </div>
  );
}
