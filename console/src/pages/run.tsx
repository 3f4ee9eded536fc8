/**
 * One run: summary, live progress, each test case with its nodes, failed
 * assertions with expected vs actual, request and response details, script logs and errors; a
 * link to the workflow in the Temporal Web UI; cancel and re-run; rerun only the failed test
 * cases, replay the frozen plan, resume from the failed node (docs/history.md), compare with the
 * baseline or another run; each test case's history strip on this run's runner and environment,
 * with its flaky and quarantined marks; how it is scheduled (`8 at once`, `bail after 2`, the
 * folder and tags it narrowed its runner to, and while running the test cases under way:
 * docs/parallel.md). Performance runs add their
 * figures and per-second charts (docs/performance.md "Results"). Polls every second while the run
 * is queued or running.
 */
import { useLocation, useRoute } from 'preact-iso';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { useAction, usePoll } from '../hooks';
import { can } from '../session';
import {
  DURABILITY_WORDS,
  isActive,
  type PerformanceResults,
  type Run,
  type RunLive,
  type RunResults,
  type TestCaseResult,
} from '../types';
import { WaitingLine } from './async-nodes';
import { dateTime, duration, relative } from '../format';
import { Compare, NodeResultView } from '../results/node-result';
import { Badge, ConfirmButton, Empty, PageHeader, ProblemBox, ProgressBar } from '../ui/kit';
import { Chart } from '../ui/chart';
import { HistoryStrip } from '../history/strip';
import { LoadControls, type LoadControlView } from '../resources/load-controls';

/** Still to end, or not read yet (both keep the page polling). */
const active = (r: Run | undefined) => !r || isActive(r);

export function RunPage() {
  const { params } = useRoute();
  const { route } = useLocation();
  const runId = params.runId!;
  const run = usePoll(
    (signal) => api<Run>('GET', `/v1/runs/${encodeURIComponent(runId)}`, undefined, { signal }),
    [runId],
    1000,
    active,
  );
  const results = usePoll(
    (signal) => api<RunResults>('GET', `/v1/runs/${encodeURIComponent(runId)}/results`, undefined, { signal }),
    [runId],
    2000,
    (d) => !d || isActive(d),
  );
  // A waiting node (Callback, Poll between attempts) is known to the workflow only: asked while running.
  const running = run.data?.status === 'running';
  const live = usePoll(
    (signal) =>
      running
        ? api<RunLive>('GET', `/v1/runs/${encodeURIComponent(runId)}/live`, undefined, { signal })
        : Promise.resolve(undefined),
    [runId, running],
    1000,
    () => running,
  );
  const cancel = useAction(async () => {
    await api('POST', `/v1/runs/${encodeURIComponent(runId)}/cancel`);
    run.reload();
  });
  const rerun = useAction(async () => {
    const r = run.data!;
    const body: Record<string, unknown> = { runner: r.runner, environment: r.environment };
    if (r.timeout) body.timeout = r.timeout;
    // The same part of the runner (docs/parallel.md "Part of a runner"); its scheduling is the runner's again.
    if (r.selection?.folder !== undefined) body.folder = r.selection.folder;
    if (r.selection?.tags?.length) body.tags = r.selection.tags;
    // Masked values (a read key's "***", secrets' {secret: true, value: "***"}) cannot be sent again.
    if (
      r.variables &&
      Object.keys(r.variables).length &&
      !Object.values(r.variables).some((v) => v === '***' || typeof v === 'object')
    )
      body.variables = r.variables;
    const next = await api<Run>('POST', '/v1/runs', body);
    route(`/runs/${next.runId}`);
  });

  /** Starts a run from this one (`rerun` with only the failed test cases, `replay`, `resume`) and opens it. */
  const fromThis = useAction(async (kind: 'rerun' | 'replay' | 'resume') => {
    const body = kind === 'rerun' ? { only: 'failed' } : {};
    const next = await api<Run>('POST', `/v1/runs/${encodeURIComponent(runId)}/${kind}`, body);
    route(`/runs/${next.runId}`);
  });
  const [compareWith, setCompareWith] = useState('');

  // When the run ends, read its results once more: the last poll may predate the final test cases.
  const finalStatus = run.data && !active(run.data) ? run.data.status : undefined;
  useEffect(() => {
    if (finalStatus) results.reload();
  }, [finalStatus]);

  if (run.problem && !run.data) return <ProblemBox problem={run.problem} onRetry={run.reload} />;
  const r = run.data;
  if (!r) return <p class="muted">Loading…</p>;
  const perf: PerformanceResults | undefined = results.data?.performance;
  const testCases = results.data?.details.testCases ?? [];
  // A debug run (the designer's, docs/api.md "Debug runs") has no runner: nothing to re-run it with.
  const debug = (r.trigger as string) === 'debug' || !r.runner;
  const testCaseId = (r as Run & { testCaseId?: string }).testCaseId;

  return (
    <>
      <PageHeader
        title={debug ? `Debug run on ${r.environment}` : `${r.runner} on ${r.environment}`}
        sub={
          <>
            <span class="mono">{r.runId}</span> · {r.trigger} · created {relative(r.createdAt)}
            {debug && testCaseId && (
              <>
                {' '}
                · of <a href={`/test-cases/${encodeURIComponent(testCaseId)}`}>its test case</a>
              </>
            )}
            {r.origin && (
              <>
                {' '}
                · <span data-testid="origin">{ORIGIN_WORDS[r.origin.kind]}</span>{' '}
                <a class="mono" href={`/runs/${encodeURIComponent(r.origin.runId)}`}>
                  {r.origin.runId}
                </a>
              </>
            )}
            {/* The default (`node`) goes without saying; a run made durable per test case says so. */}
            {r.durability === 'testCase' && !r.performance && !perf && (
              <>
                {' '}
                ·{' '}
                <span
                  data-testid="durability"
                  title={`Durability mode ${r.durability}: ${DURABILITY_WORDS[r.durability]} (docs/durability.md)`}
                >
                  durable {r.durability === 'testCase' ? 'per test case' : 'per node'}
                </span>
              </>
            )}
            {!r.performance && !perf && <Scheduling run={r} />}
            {r.planHash && (
              <>
                {' '}
                · plan{' '}
                <span class="mono" title={`Plan hash ${r.planHash}: runs with equal hashes executed the same thing`}>
                  {r.planHash.slice(0, 12)}
                </span>
              </>
            )}
          </>
        }
      >
        {r.links?.temporal && (
          <a class="button secondary" href={r.links.temporal} target="_blank" rel="noreferrer">
            Open in Temporal Web UI
          </a>
        )}
        {can('run') && active(r) && (
          <ConfirmButton
            class="danger"
            question="Cancel this run? It ends failed with “Run cancelled”."
            onConfirm={() => void cancel.run()}
            disabled={cancel.busy}
          >
            Cancel run
          </ConfirmButton>
        )}
        {can('run') && !active(r) && !debug && (
          <button type="button" onClick={() => void rerun.run()} disabled={rerun.busy}>
            Re-run
          </button>
        )}
        {can('run') && !active(r) && !debug && (r.summary?.failed ?? 0) > 0 && (
          <button
            type="button"
            class="secondary"
            title="A new run of the same runner, environment and variables with only the test cases that failed"
            onClick={() => void fromThis.run('rerun')}
            disabled={fromThis.busy}
          >
            Rerun failed
          </button>
        )}
        {can('run') && !active(r) && (
          <button
            type="button"
            class="secondary"
            title="Run this run's frozen plan again, exactly, even if its test cases changed since"
            onClick={() => void fromThis.run('replay')}
            disabled={fromThis.busy}
          >
            Replay
          </button>
        )}
        {can('run') && !active(r) && r.result === 'failed' && (
          <button
            type="button"
            class="secondary"
            title="A new run that starts the failed test case at its failed node, with the variables and outputs it had there"
            onClick={() => void fromThis.run('resume')}
            disabled={fromThis.busy}
          >
            Resume
          </button>
        )}
      </PageHeader>
      <ProblemBox problem={cancel.problem ?? rerun.problem ?? fromThis.problem} />
      {!active(r) && (
        <form
          class="row run-compare"
          aria-label="Compare"
          onSubmit={(e) => {
            e.preventDefault();
            const base = compareWith.trim();
            if (base) route(`/runs/${encodeURIComponent(base)}/compare/${encodeURIComponent(r.runId)}`);
          }}
        >
          <a class="button secondary small" href={`/runs/${encodeURIComponent(r.runId)}/compare/baseline`}>
            Compare with baseline
          </a>
          <input
            aria-label="Base run id"
            class="mono"
            placeholder="or with run id…"
            value={compareWith}
            onInput={(e) => setCompareWith(e.currentTarget.value)}
          />
          <button type="submit" class="secondary small" disabled={!compareWith.trim()}>
            Compare
          </button>
        </form>
      )}
      <div class="cards" aria-label="Summary">
        <Stat label="Status" value={<Badge value={r.status} />} />
        <Stat label="Result" value={<Badge value={r.result} />} />
        <Stat label="Passed" value={r.summary?.passed ?? '—'} />
        <Stat label="Failed" value={r.summary?.failed ?? '—'} />
        <Stat label="Skipped" value={r.summary?.skipped ?? '—'} />
        <Stat label="Duration" value={duration(r.duration)} />
      </div>
      <div class="card run-live" style={{ minHeight: '4.2rem', marginBottom: '1rem' }}>
        {r.status === 'running' || r.status === 'queued' ? (
          <>
            <ProgressBar percentage={r.progress?.percentage ?? 0} label="Run progress" />
            <p class="muted" style={{ margin: '0.4rem 0 0' }}>
              {r.status === 'queued'
                ? 'Queued: waiting for a worker.'
                : r.performance?.state === 'paused'
                  ? progressWords(r)
                  : `${progressWords(r)} · expected to finish ${relative(r.estimatedCompletion)}`}
            </p>
            {r.status === 'running' && live.data?.waiting && <WaitingLine waiting={live.data.waiting} />}
          </>
        ) : (
          <dl class="kv">
            <dt>Started</dt>
            <dd>{dateTime(r.startedAt)}</dd>
            <dt>Completed</dt>
            <dd>{dateTime(r.completedAt)}</dd>
          </dl>
        )}
      </div>
      {r.error && (
        <div class="problem" role="alert">
          <strong class="problem-title">Run failed</strong>
          <p class="problem-detail">{r.error}</p>
        </div>
      )}
      {r.variables && Object.keys(r.variables).length > 0 && (
        <details class="card" style={{ marginBottom: '1rem' }}>
          <summary>Variables of this run</summary>
          <dl class="kv">
            {Object.entries(r.variables).map(([k, v]) => (
              <>
                <dt key={`k${k}`}>{k}</dt>
                <dd key={`v${k}`} class="mono">
                  {typeof v === 'object' && v !== null ? '*** (secret)' : String(v)}
                </dd>
              </>
            ))}
          </dl>
        </details>
      )}
      {r.performance && active(r) && <LiveFigures run={r} />}
      {(r.performance ?? perf) && (
        <LoadControls
          runId={r.runId}
          performance={(r.performance ?? perf) as LoadControlView}
          running={r.status === 'running'}
          onChanged={run.reload}
        />
      )}
      {perf && <Performance perf={perf} />}
      <h2>Test cases</h2>
      <ProblemBox problem={results.problem} onRetry={results.reload} />
      {results.data && testCases.length === 0 && (
        <Empty title={active(r) ? 'No test case has finished yet' : 'This run has no test case results'}>
          Results appear as each test case ends.
        </Empty>
      )}
      {testCases.map((tc) => (
        <TestCase key={tc.testCaseId} tc={tc} run={r} />
      ))}
    </>
  );
}

/**
 * A running run's progress in words: test cases done of all, or for a performance run the seconds
 * of its profile (`elapsed 21 s of 35 s`; `paused at`, `stopping at` when live control says so).
 */
function progressWords(r: Run): string {
  const p = r.progress;
  if (r.performance || p?.unit === 'seconds') {
    const elapsed = r.performance?.elapsedMs !== undefined ? r.performance.elapsedMs / 1000 : (p?.completed ?? 0);
    const total = r.performance?.durationMs !== undefined ? r.performance.durationMs / 1000 : p?.total;
    const state = r.performance?.state;
    const verb = state === 'paused' ? 'paused at' : state === 'stopping' ? 'stopping at' : 'elapsed';
    return `${verb} ${profileSeconds(elapsed)} of ${total === undefined ? '?' : profileSeconds(total)}`;
  }
  // Servers with parallel suites say how many are under way (docs/parallel.md).
  if (p?.running !== undefined) return `${p.completed} of ${p.total} done, ${p.running} under way`;
  return `${p?.completed ?? 0} of ${p?.total ?? '?'} test cases`;
}

/**
 * How a functional run is scheduled, after the durability in the header (docs/parallel.md): `8 at
 * once` (concurrency above 1), `bail after 2` (bail set), `folder users · tags smoke` (its own
 * narrowing of the runner). A queued run's null fields are inherited and not known yet: not shown.
 */
function Scheduling({ run: r }: { run: Run }) {
  const sel = r.selection;
  const narrowing = [
    ...(sel?.folder !== undefined ? [sel.folder === '' ? 'every folder' : `folder ${sel.folder}`] : []),
    ...(sel?.tags?.length ? [`tags ${sel.tags.join(', ')}`] : []),
  ];
  return (
    <>
      {typeof r.concurrency === 'number' && r.concurrency > 1 && (
        <>
          {' '}
          ·{' '}
          <span data-testid="concurrency" title="Test cases under way at once (docs/parallel.md)">
            {r.concurrency} at once
          </span>
        </>
      )}
      {typeof r.bail === 'number' && r.bail > 0 && (
        <>
          {' '}
          ·{' '}
          <span
            data-testid="bail"
            title={`No test case starts once ${r.bail} failed; the rest are skipped (docs/parallel.md "Bail")`}
          >
            bail after {r.bail}
          </span>
        </>
      )}
      {narrowing.length > 0 && (
        <>
          {' '}
          ·{' '}
          <span data-testid="selection" title="This run's part of its runner's test cases (docs/parallel.md)">
            only {narrowing.join(' · ')}
          </span>
        </>
      )}
    </>
  );
}

/** Seconds of a load profile in words, whole seconds: `21 s`, `2 min 5 s`, `1 h 30 min`. */
function profileSeconds(seconds: number): string {
  const s = Math.floor(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return s % 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s / 60} min`;
  const min = Math.floor((s % 3600) / 60);
  return min ? `${Math.floor(s / 3600)} h ${min} min` : `${Math.floor(s / 3600)} h`;
}

function Stat({ label, value }: { label: string; value: preact.ComponentChildren }) {
  return (
    <div class="stat">
      <span class="label">{label}</span>
      <span class="value">{value}</span>
    </div>
  );
}

function LiveFigures({ run }: { run: Run }) {
  const p = run.performance!;
  return (
    <div class="cards" aria-label="Live load figures">
      <Stat label="Active VUs" value={p.activeVUs ?? '—'} />
      <Stat label="Requests/s" value={p.requestsPerSecond?.toFixed(1) ?? '—'} />
      <Stat label="p95" value={duration(p.p95ResponseTime)} />
      <Stat label="Errors" value={p.errorRate === undefined ? '—' : `${(p.errorRate * 100).toFixed(2)} %`} />
      <Stat label="Requests" value={p.requests ?? '—'} />
    </div>
  );
}

/** Final figures and per-second charts of a performance run. */
function Performance({ perf }: { perf: PerformanceResults }) {
  const series = perf.series ?? [];
  const times = series.map((s) => s.t);
  const res = perf.seriesResolution ?? 1;
  return (
    <section aria-label="Performance">
      <h2>Performance</h2>
      <div class="cards">
        <Stat label="Requests/s" value={perf.requestsPerSecond.toFixed(1)} />
        <Stat label="Average" value={duration(perf.avgResponseTime)} />
        <Stat label="p95" value={duration(perf.p95ResponseTime)} />
        <Stat label="p99" value={duration(perf.p99ResponseTime)} />
        <Stat label="Error rate" value={`${(perf.errorRate * 100).toFixed(2)} %`} />
        <Stat label="Requests" value={perf.requests ?? '—'} />
        <Stat label="Peak VUs" value={perf.peakVUs ?? '—'} />
        {perf.checks && <Stat label="Checks passed" value={`${(perf.checks.rate * 100).toFixed(1)} %`} />}
      </div>
      {perf.thresholds && perf.thresholds.length > 0 && (
        <table aria-label="Thresholds" style={{ marginBottom: '1rem' }}>
          <thead>
            <tr>
              <th>Metric</th>
              <th>Threshold</th>
              <th class="num">Actual</th>
              <th>Outcome</th>
            </tr>
          </thead>
          <tbody>
            {perf.thresholds.map((t, i) => (
              <tr key={i}>
                <td class="mono">{t.metric}</td>
                <td class="mono">{t.threshold}</td>
                <td class="num">{t.actual === undefined ? '—' : t.actual.toFixed(2)}</td>
                <td>
                  <Badge value={t.passed ? 'passed' : 'failed'} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {series.length > 1 && (
        <>
          <Chart
            title="Requests per second and VUs"
            times={times}
            series={[
              { label: 'requests/s', values: series.map((s) => s.requests / res), color: '#2f7fd8', unit: 'req/s' },
              { label: 'failed/s', values: series.map((s) => s.failed / res), color: '#d0453a', unit: 'req/s' },
              { label: 'VUs', values: series.map((s) => s.vus), color: '#8a63d2', axis: 'right' },
            ]}
          />
          <Chart
            title="p95 response time (ms)"
            times={times}
            series={[{ label: 'p95', values: series.map((s) => s.p95), color: '#1f9d6a', unit: 'ms' }]}
          />
        </>
      )}
    </section>
  );
}

/** How a run came from another, in words (before the origin's run id). */
const ORIGIN_WORDS = { rerun: 'rerun of', replay: 'replay of', resume: 'resumed from' } as const;

function TestCase({ tc, run }: { tc: TestCaseResult; run: Run }) {
  // The test case's saved version the run's plan recorded (docs/teams.md "Versions"); absent for
  // results stored before versions existed.
  const version = (tc as TestCaseResult & { testCaseVersion?: number | null }).testCaseVersion ?? undefined;
  const flakyNodes = new Map((tc.flakyNodes ?? []).map((f) => [f.id, f]));
  return (
    <details class="testcase" open={tc.status === 'failed'} data-testcase={tc.name}>
      <summary>
        <Badge value={tc.status} />
        <strong>{tc.name}</strong>
        {tc.flaky && (
          <span
            class="badge badge-flaky"
            title={`Flaky: its outcome flipped ${tc.flaky.flips} times in its last ${tc.flaky.window} runs on this runner and environment`}
          >
            flaky
          </span>
        )}
        {tc.quarantined && (
          <span
            class="badge badge-quarantined"
            title="It failed, but the runner quarantines flaky test cases: it does not fail the run"
          >
            quarantined
          </span>
        )}
        <span class="muted">
          {tc.passedAssertions}/{tc.assertions} assertions · {duration(tc.duration)}
        </span>
        {version !== undefined && (
          <a
            class="testcase-version"
            href={`/test-cases/${encodeURIComponent(tc.testCaseId)}?version=${version}#versions`}
            title="The saved version of the test case this run ran (its versions panel)"
          >
            version {version}
          </a>
        )}
        {!active(run) && run.runner && (
          <HistoryStrip
            testCaseId={tc.testCaseId}
            runner={run.runner}
            environment={run.environment}
            currentRunId={run.runId}
            showFlaky={false}
          />
        )}
      </summary>
      <div class="testcase-body">
        {tc.flaky && (
          <p class="flaky-note">
            Flaky on {run.runner} / {run.environment}: {tc.flaky.flips} flips in its last {tc.flaky.window} runs (flip
            rate {(tc.flaky.flipRate * 100).toFixed(0)} %).{' '}
            <a href={`/test-cases/${encodeURIComponent(tc.testCaseId)}`}>Its history</a>
          </p>
        )}
        {tc.error && (
          <div class="problem" role="alert">
            <p class="problem-detail">{tc.error}</p>
          </div>
        )}
        {tc.failures.length > 0 && (
          <section aria-label={`Failures of ${tc.name}`}>
            <h3>Failures</h3>
            {tc.failures.map((f, i) => (
              <div class="failure" key={i}>
                <div>
                  <span class="mono">{f.node}</span> {f.assertion && <code>{f.assertion}</code>}{' '}
                  {f.operator && <span class="muted">{f.operator}</span>}
                </div>
                <div>{f.message}</div>
                {(f.expected !== undefined || f.actual !== undefined) && (
                  <Compare expected={f.expected} actual={f.actual} />
                )}
              </div>
            ))}
          </section>
        )}
        <h3>Nodes</h3>
        {tc.nodes.map((n) => (
          <NodeResultView key={n.id} node={n} flaky={flakyNodes} />
        ))}
      </div>
    </details>
  );
}
