/**
 * A runner's or deployment's `baseline` (docs/history.md "Baselines"): what its runs are compared
 * with (`/runs/{id}/compare/baseline`) and what relative thresholds (`p(95)<baseline*1.10`)
 * measure against — not set (the last passing run before each run), `lastPassing`, or a pinned
 * run id. The form field, its state, and how a page shows it.
 */
import { useState } from 'preact/hooks';
import type { Problem } from '../api';
import { Field, fieldError } from '../ui/kit';

type Kind = 'none' | 'lastPassing' | 'run';

/** The field's state, from the stored value; `value` is what to send (null: not set). */
export function useBaseline(stored: string | null | undefined) {
  const [kind, setKind] = useState<Kind>(!stored ? 'none' : stored === 'lastPassing' ? 'lastPassing' : 'run');
  const [runId, setRunId] = useState(stored && stored !== 'lastPassing' ? stored : '');
  const value = kind === 'none' ? null : kind === 'lastPassing' ? 'lastPassing' : runId.trim();
  return { kind, setKind, runId, setRunId, value };
}

/**
 * Adds `baseline` to a runner's or deployment's body when the server's document has the field
 * or the form sets it (a server without it refuses fields it does not know).
 */
export function withBaseline(body: Record<string, unknown>, stored: string | null | undefined, value: string | null) {
  if (stored !== undefined || value !== null) body.baseline = value;
}

/** The baseline's controls: a choice, and the run id for a pinned run; the API's error under them. */
export function BaselineField({
  state,
  problem,
  unset = 'not set (the last passing run before each run)',
}: {
  state: ReturnType<typeof useBaseline>;
  problem?: Problem;
  /**
   * What "not set" means here (a deployment's is its runner's). Not the word "runner": the label
   * holds the options' text, and forms find their runner field by that label.
   */
  unset?: string;
}) {
  const error = fieldError(problem, 'baseline');
  return (
    <div class="row">
      <Field
        label="Baseline (what its runs compare with)"
        error={state.kind === 'run' ? undefined : error}
        hint="relative thresholds such as p(95)<baseline*1.10 read it"
      >
        <select value={state.kind} onChange={(e) => state.setKind(e.currentTarget.value as Kind)}>
          <option value="none">{unset}</option>
          <option value="lastPassing">the last passing run</option>
          <option value="run">a pinned run</option>
        </select>
      </Field>
      {state.kind === 'run' && (
        <Field label="Baseline run id" error={error}>
          <input class="mono" required value={state.runId} onInput={(e) => state.setRunId(e.currentTarget.value)} />
        </Field>
      )}
    </div>
  );
}

/** A stored baseline in words, with a link to a pinned run. */
export function BaselineText({ baseline }: { baseline: string | null | undefined }) {
  if (baseline === 'lastPassing') return <>the last passing run</>;
  if (baseline)
    return (
      <>
        run <a href={`/runs/${encodeURIComponent(baseline)}`}>{baseline}</a>
      </>
    );
  return <span class="muted">not set: the last passing run before each run</span>;
}
