/**
 * The history section of a test case's page (docs/console.md "History"): filters (runner,
 * environment, trigger, kind, how many runs), the strip with its figures, the last failure, the
 * runner+environment pairs where it is flagged flaky, each node's pass rate and durations with
 * its assertions, and the runs themselves. `GET /v1/test-cases/{id}/history` (docs/history.md).
 */
import { useState } from 'preact/hooks';
import { dateTime, duration } from '../format';
import { Badge, Empty, ProblemBox } from '../ui/kit';
import { OutcomeCells, percent, shortCommit, StripFacts, useHistory, type HistoryFilter } from './strip';

export function HistorySection({ testCaseId }: { testCaseId: string }) {
  const [filter, setFilter] = useState<HistoryFilter>({ limit: 50 });
  const h = useHistory(testCaseId, filter);
  const set = (k: keyof HistoryFilter, v: string) =>
    setFilter((f) => ({ ...f, [k]: k === 'limit' ? Number(v) || 50 : v.trim() || undefined }));
  const d = h.data;
  return (
    <section class="card hs-section" aria-label="History" data-testid="history">
      <h2>History</h2>
      <form
        class="row hs-filters"
        aria-label="History filters"
        onSubmit={(e) => {
          e.preventDefault();
          const form = new FormData(e.currentTarget);
          setFilter({
            limit: Number(form.get('limit')) || 50,
            runner: String(form.get('runner') ?? '').trim() || undefined,
            environment: String(form.get('environment') ?? '').trim() || undefined,
            trigger: String(form.get('trigger') ?? '') || undefined,
            kind: String(form.get('kind') ?? '') || undefined,
          });
        }}
      >
        <label class="field">
          <span class="field-label">Runner</span>
          <input name="runner" defaultValue={filter.runner ?? ''} placeholder="any" />
        </label>
        <label class="field">
          <span class="field-label">Environment</span>
          <input name="environment" defaultValue={filter.environment ?? ''} placeholder="any" />
        </label>
        <label class="field">
          <span class="field-label">Trigger</span>
          <select name="trigger" value={filter.trigger ?? ''} onChange={(e) => set('trigger', e.currentTarget.value)}>
            <option value="">any</option>
            <option value="api">api</option>
            <option value="schedule">schedule</option>
            <option value="webhook">webhook</option>
          </select>
        </label>
        <label class="field">
          <span class="field-label">Kind</span>
          <select name="kind" value={filter.kind ?? ''} onChange={(e) => set('kind', e.currentTarget.value)}>
            <option value="">any</option>
            <option value="functional">functional</option>
            <option value="performance">performance</option>
          </select>
        </label>
        <label class="field">
          <span class="field-label">Last runs</span>
          <select name="limit" value={String(filter.limit ?? 50)} onChange={(e) => set('limit', e.currentTarget.value)}>
            {[20, 50, 100, 200, 500].map((n) => (
              <option key={n} value={String(n)}>
                {n}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" class="secondary">
          Apply
        </button>
      </form>
      <ProblemBox problem={h.problem} onRetry={h.reload} />
      {!d && !h.problem && <p class="muted">Loading the history…</p>}
      {d && d.entries.length === 0 && (
        <Empty title="No run of this test case matches">
          Its history fills as runs end; summaries are kept for ASSAY_HISTORY_DAYS (90 days by default).
        </Empty>
      )}
      {d && d.entries.length > 0 && (
        <>
          <div class="hs hs-large" data-testid="history-strip" data-test-case={testCaseId}>
            <OutcomeCells entries={d.entries} />
            <StripFacts h={d} />
          </div>
          <div class="cards" aria-label="History figures">
            <Fig label="Runs" value={d.stats.runs} />
            <Fig label="Passed" value={d.stats.passed} />
            <Fig label="Failed" value={d.stats.failed} />
            <Fig label="Skipped" value={d.stats.skipped} />
            <Fig label="Pass rate" value={percent(d.stats.passRate, 1)} />
            <Fig label="Median" value={duration(d.stats.medianMs)} />
            <Fig label="p95" value={duration(d.stats.p95Ms)} />
          </div>
          {d.lastFailure && (
            <div class="failure" data-testid="last-failure">
              <strong>Last failure</strong>{' '}
              <a href={`/runs/${encodeURIComponent(d.lastFailure.runId)}`}>{dateTime(d.lastFailure.ranAt)}</a>
              {d.lastFailure.node && (
                <>
                  {' '}
                  at node <code>{d.lastFailure.node}</code>
                </>
              )}
              {d.lastFailure.commit && (
                <>
                  {' '}
                  · commit <code>{shortCommit(d.lastFailure.commit)}</code>
                </>
              )}
              {d.lastFailure.message && <div>{d.lastFailure.message}</div>}
            </div>
          )}
          {d.flaky.length > 0 && (
            <table aria-label="Flaky on" class="hs-table">
              <thead>
                <tr>
                  <th>Flaky on runner</th>
                  <th>Environment</th>
                  <th class="num">Flips</th>
                  <th class="num">Flip rate</th>
                  <th>Flagged</th>
                </tr>
              </thead>
              <tbody>
                {d.flaky.map((f) => (
                  <tr key={`${f.runner}/${f.environment}`}>
                    <td>
                      <a href={`/runners/${encodeURIComponent(f.runner)}`}>{f.runner}</a>
                    </td>
                    <td>{f.environment}</td>
                    <td class="num">
                      {f.flips} in {f.window}
                    </td>
                    <td class="num">{percent(f.flipRate)}</td>
                    <td>{dateTime(f.flaggedAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {d.nodes.length > 0 && (
            <>
              <h3>Nodes</h3>
              <table aria-label="Nodes over the history" class="hs-table">
                <thead>
                  <tr>
                    <th>Node</th>
                    <th class="num">Runs</th>
                    <th class="num">Pass rate</th>
                    <th class="num">Median</th>
                    <th class="num">p95</th>
                    <th>Assertions (passed of runs)</th>
                  </tr>
                </thead>
                <tbody>
                  {d.nodes.map((n) => (
                    <tr key={n.id} data-node={n.id}>
                      <td>
                        <strong>{n.name ?? n.id}</strong> <span class="muted">{n.type}</span>
                      </td>
                      <td class="num">{n.runs}</td>
                      <td class="num">{percent(n.passRate)}</td>
                      <td class="num">{duration(n.medianMs)}</td>
                      <td class="num">{duration(n.p95Ms)}</td>
                      <td>
                        {n.assertions.map((a) => (
                          <div key={a.label}>
                            <code>{a.label}</code>{' '}
                            <span class={a.passed < a.runs ? 'hs-ko' : 'muted'}>
                              {a.passed}/{a.runs}
                            </span>
                          </div>
                        ))}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </>
          )}
          <details>
            <summary>The runs ({d.entries.length})</summary>
            <table aria-label="Runs of this test case" class="hs-table">
              <thead>
                <tr>
                  <th>When</th>
                  <th>Outcome</th>
                  <th class="num">Duration</th>
                  <th>Runner</th>
                  <th>Environment</th>
                  <th>Trigger</th>
                  <th>Commit</th>
                  <th>Failure</th>
                </tr>
              </thead>
              <tbody>
                {d.entries.map((e) => (
                  <tr key={`${e.runId}:${e.position}`}>
                    <td>
                      <a href={`/runs/${encodeURIComponent(e.runId)}`}>{dateTime(e.ranAt)}</a>
                    </td>
                    <td>
                      <Badge value={e.status} />
                      {e.quarantined && <span class="badge badge-quarantined">quarantined</span>}
                    </td>
                    <td class="num">{duration(e.durationMs)}</td>
                    <td>{e.runner}</td>
                    <td>{e.environment}</td>
                    <td>{e.trigger}</td>
                    <td>{e.commit ? <code>{shortCommit(e.commit)}</code> : <span class="muted">—</span>}</td>
                    <td>
                      {e.failedNode && <code>{e.failedNode}</code>} {e.failure}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </details>
        </>
      )}
    </section>
  );
}

function Fig({ label, value }: { label: string; value: preact.ComponentChildren }) {
  return (
    <div class="stat">
      <span class="label">{label}</span>
      <span class="value">{value}</span>
    </div>
  );
}
