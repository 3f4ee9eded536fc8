/**
 * The figures of a test case's history (docs/history.md "Test history"): outcome counts, pass
 * rate, median and p95 duration, the same per node and per assertion. Pure: it reads history rows
 * already fetched (src/store/history.ts), newest first.
 */
import type { HistoryNodeOutcome, HistoryStats, NodeStats } from './types';

export type { HistoryStats, NodeStats };

/** What the figures read of one history row. */
export interface SummaryRow {
  status: string;
  durationMs: number;
  nodes?: HistoryNodeOutcome[] | null;
}

/**
 * The value at percentile `p` (0–100) of `values` by the nearest-rank method (the smallest value
 * with at least p % of the values at or below it); the median (p = 50) of an even count is the
 * mean of the two middle values, rounded. Null for no values.
 */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  if (p === 50 && sorted.length % 2 === 0) {
    const mid = sorted.length / 2;
    return Math.round((sorted[mid - 1]! + sorted[mid]!) / 2);
  }
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

function rate(passed: number, failed: number): number | null {
  const n = passed + failed;
  return n === 0 ? null : Math.round((passed / n) * 10_000) / 10_000;
}

/** The figures of `rows` (see {@link HistoryStats}). */
export function historyStats(rows: readonly SummaryRow[]): HistoryStats {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const durations: number[] = [];
  for (const row of rows) {
    if (row.status === 'passed') passed += 1;
    else if (row.status === 'failed') failed += 1;
    else skipped += 1;
    if (row.status === 'passed' || row.status === 'failed') durations.push(row.durationMs);
  }
  return {
    runs: rows.length,
    passed,
    failed,
    skipped,
    passRate: rate(passed, failed),
    medianMs: percentile(durations, 50),
    p95Ms: percentile(durations, 95),
  };
}

/**
 * Each node's figures over `rows` (newest first): nodes in the order the newest row that has them
 * lists them, then nodes only older rows had. Performance rows (no nodes) count nothing.
 */
export function nodeStats(rows: readonly SummaryRow[]): NodeStats[] {
  interface Acc {
    id: string;
    name?: string;
    type: string;
    passed: number;
    failed: number;
    durations: number[];
    assertions: Map<string, { runs: number; passed: number }>;
  }
  const byId = new Map<string, Acc>();
  for (const row of rows) {
    for (const node of row.nodes ?? []) {
      let acc = byId.get(node.id);
      if (!acc) {
        acc = {
          id: node.id,
          ...(node.name ? { name: node.name } : {}),
          type: node.type,
          passed: 0,
          failed: 0,
          durations: [],
          assertions: new Map(),
        };
        byId.set(node.id, acc);
      }
      if (node.status === 'skipped') continue;
      if (node.status === 'passed') acc.passed += 1;
      else acc.failed += 1;
      acc.durations.push(node.durationMs);
      for (const a of node.assertions ?? []) {
        const seen = acc.assertions.get(a.label) ?? { runs: 0, passed: 0 };
        seen.runs += 1;
        if (a.passed) seen.passed += 1;
        acc.assertions.set(a.label, seen);
      }
    }
  }
  return [...byId.values()].map((acc) => ({
    id: acc.id,
    ...(acc.name ? { name: acc.name } : {}),
    type: acc.type,
    runs: acc.passed + acc.failed,
    passed: acc.passed,
    failed: acc.failed,
    passRate: rate(acc.passed, acc.failed),
    medianMs: percentile(acc.durations, 50),
    p95Ms: percentile(acc.durations, 95),
    assertions: [...acc.assertions].map(([label, a]) => ({ label, runs: a.runs, passed: a.passed })),
  }));
}
