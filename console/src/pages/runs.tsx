/**
 * The runs list: newest first, filtered by runner, environment, status and
 * trigger, paged with the API's cursors (20 a page; `?limit=N` in the address for another size), polled every second while any listed run is queued or
 * running so their progress bars move.
 */
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, withQuery, type Page } from '../api';
import { usePoll, useLoad } from '../hooks';
import { can } from '../session';
import { isActive, type Environment, type Run, type Runner } from '../types';
import { duration, relative } from '../format';
import { Badge, Empty, Field, PageHeader, ProblemBox, ProgressBar } from '../ui/kit';

export function RunsPage() {
  const { query, route, path } = useLocation();
  const filters = {
    runner: query.runner ?? '',
    environment: query.environment ?? '',
    status: query.status ?? '',
    trigger: query.trigger ?? '',
  };
  const limit = Math.min(200, Math.max(1, Number(query.limit) || 20));
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const runners = useLoad((signal) => api<Page<Runner>>('GET', '/v1/runners?limit=200', undefined, { signal }), []);
  const envs = useLoad(
    (signal) => api<Page<Environment>>('GET', '/v1/environments?limit=200', undefined, { signal }),
    [],
  );
  const runs = usePoll(
    (signal) =>
      api<Page<Run>>(
        'GET',
        withQuery('/v1/runs', { ...filters, cursor, limit, orderBy: 'createdAt', order: 'desc' }),
        undefined,
        { signal },
      ),
    [filters.runner, filters.environment, filters.status, filters.trigger, cursor, limit],
    1000,
    (d) => !!d?.items.some(isActive),
  );

  const setFilter = (name: string, value: string) => {
    setCursors([]);
    route(withQuery(path, { ...filters, limit: query.limit, [name]: value }), true);
  };

  return (
    <>
      <PageHeader title="Runs" sub="Newest first. Running runs update live.">
        {can('run') && (
          <a class="button" href="/runs/new">
            Start a run
          </a>
        )}
      </PageHeader>
      <div class="filters" role="search">
        <Field label="Runner">
          <select value={filters.runner} onChange={(e) => setFilter('runner', e.currentTarget.value)}>
            <option value="">All runners</option>
            {runners.data?.items.map((r) => (
              <option key={r.name}>{r.name}</option>
            ))}
          </select>
        </Field>
        <Field label="Environment">
          <select value={filters.environment} onChange={(e) => setFilter('environment', e.currentTarget.value)}>
            <option value="">All environments</option>
            {envs.data?.items.map((r) => (
              <option key={r.name}>{r.name}</option>
            ))}
          </select>
        </Field>
        <Field label="Status">
          <select value={filters.status} onChange={(e) => setFilter('status', e.currentTarget.value)}>
            <option value="">Any status</option>
            {['queued', 'running', 'completed', 'failed'].map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </Field>
        <Field label="Trigger">
          <select value={filters.trigger} onChange={(e) => setFilter('trigger', e.currentTarget.value)}>
            <option value="">Any trigger</option>
            {['api', 'schedule', 'webhook'].map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </Field>
      </div>
      <ProblemBox problem={runs.problem} onRetry={runs.reload} />
      {runs.data && runs.data.items.length === 0 && (
        <Empty title={cursor || Object.values(filters).some(Boolean) ? 'No runs match these filters' : 'No runs yet'}>
          {can('run') ? (
            <>
              <a href="/runs/new">Start a run</a> of a runner against an environment, or trigger one from a deployment's
              schedule or webhook.
            </>
          ) : (
            'Runs appear here once someone starts one.'
          )}
        </Empty>
      )}
      {runs.data && runs.data.items.length > 0 && (
        <table aria-label="Runs">
          <thead>
            <tr>
              <th>Run</th>
              <th>Runner</th>
              <th>Environment</th>
              <th>Trigger</th>
              <th style={{ width: '14rem' }}>Status</th>
              <th>Result</th>
              <th class="num">Duration</th>
              <th>Started</th>
            </tr>
          </thead>
          <tbody>
            {runs.data.items.map((r) => (
              <tr key={r.runId} data-run-id={r.runId}>
                <td>
                  <a href={`/runs/${r.runId}`} class="mono">
                    {r.runId}
                  </a>
                </td>
                <td>{r.runner}</td>
                <td>{r.environment}</td>
                <td>{r.trigger}</td>
                <td>
                  {r.status === 'running' && r.progress ? (
                    <ProgressBar percentage={r.progress.percentage} label={`Progress of ${r.runId}`} />
                  ) : (
                    <Badge value={r.status} />
                  )}
                </td>
                <td>
                  <Badge value={r.result} />
                </td>
                <td class="num">{duration(r.duration)}</td>
                <td title={r.createdAt}>{relative(r.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <nav class="pager" aria-label="Pages">
        <button
          type="button"
          class="secondary"
          disabled={cursors.length === 0}
          onClick={() => setCursors(cursors.slice(0, -1))}
        >
          Newer
        </button>
        <button
          type="button"
          class="secondary"
          disabled={!runs.data?.nextCursor}
          onClick={() => runs.data?.nextCursor && setCursors([...cursors, runs.data.nextCursor])}
        >
          Older
        </button>
      </nav>
    </>
  );
}
