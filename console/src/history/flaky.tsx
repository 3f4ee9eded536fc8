/**
 * `/flaky`: the test cases flagged flaky in the workspace (`GET /v1/flaky`, docs/history.md
 * "Flaky tests"), one row per test case, runner and environment: flips in the window, flip rate,
 * when it was flagged, its last run, and its history strip on that runner and environment.
 * Filters for runner and environment live in the address (`/flaky?runner=smoke`).
 */
import { useLocation } from 'preact-iso';
import { api, withQuery } from '../api';
import { useLoad } from '../hooks';
import { dateTime } from '../format';
import { Empty, PageHeader, ProblemBox } from '../ui/kit';
import { HistoryStrip, percent } from './strip';
import type { FlakyItem } from './types';

export function FlakyPage() {
  const { query, route, path } = useLocation();
  const runner = query.runner ?? '';
  const environment = query.environment ?? '';
  const list = useLoad(
    (signal) =>
      api<{ items: FlakyItem[] }>('GET', withQuery('/v1/flaky', { runner, environment }), undefined, { signal }),
    [runner, environment],
  );
  const items = list.data?.items ?? [];
  return (
    <>
      <PageHeader
        title="Flaky tests"
        sub="Test cases whose outcome flipped at least k times in their last n runs on one runner and environment, with the test case unchanged."
      />
      <form
        class="row filters"
        aria-label="Filters"
        onSubmit={(e) => {
          e.preventDefault();
          const f = new FormData(e.currentTarget);
          route(
            withQuery(path, {
              runner: String(f.get('runner') ?? '').trim(),
              environment: String(f.get('environment') ?? '').trim(),
            }),
          );
        }}
      >
        <label class="field">
          <span class="field-label">Runner</span>
          <input name="runner" defaultValue={runner} placeholder="any" />
        </label>
        <label class="field">
          <span class="field-label">Environment</span>
          <input name="environment" defaultValue={environment} placeholder="any" />
        </label>
        <button type="submit" class="secondary">
          Filter
        </button>
      </form>
      <ProblemBox problem={list.problem} onRetry={list.reload} />
      {!list.data && !list.problem && <p class="muted">Loading the flaky tests…</p>}
      {list.data && items.length === 0 && (
        <Empty title="No flaky test case">
          A test case is flagged when its outcome flips often on the same runner and environment; a runner with
          “Quarantine flaky test cases” keeps their failures from failing its runs.
        </Empty>
      )}
      {items.length > 0 && (
        <table aria-label="Flaky test cases">
          <thead>
            <tr>
              <th>Test case</th>
              <th>Runner</th>
              <th>Environment</th>
              <th class="num">Flips</th>
              <th class="num">Flip rate</th>
              <th>Flagged</th>
              <th>Last runs</th>
            </tr>
          </thead>
          <tbody>
            {items.map((f) => (
              <tr key={`${f.testCaseId}/${f.runner}/${f.environment}`} data-test-case={f.testCaseId}>
                <td>
                  <a href={`/test-cases/${encodeURIComponent(f.testCaseId)}`}>{f.name}</a>
                </td>
                <td>
                  <a href={`/runners/${encodeURIComponent(f.runner)}`}>{f.runner}</a>
                </td>
                <td>{f.environment}</td>
                <td class="num">
                  {f.flips} in {f.window}
                </td>
                <td class="num">{percent(f.flipRate)}</td>
                <td>
                  {dateTime(f.flaggedAt)} ·{' '}
                  <a href={`/runs/${encodeURIComponent(f.lastRunId)}`} title="The run that flagged it last">
                    run
                  </a>
                </td>
                <td>
                  <HistoryStrip
                    testCaseId={f.testCaseId}
                    runner={f.runner}
                    environment={f.environment}
                    limit={f.window}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
