/**
 * The scheduling fields of runners, deployments and runs in the console (docs/parallel.md;
 * api/routes/parallel-fields.ts): `concurrency` (test cases under way at once, 1–64), `bail` (stop
 * starting test cases after this many failed; 0: never) and `originLimits` (`{maxInFlight?,
 * requestsPerSecond?}` per origin; null: no limit). A runner holds values (absent: the defaults 1,
 * 0, null); a deployment or a run holds a value or null, inherited from the one below it (run →
 * deployment → runner).
 *
 * The inputs hold text; what they send is built by {@link parallelBody}. Range checks are the
 * API's (its field errors are shown at each input), so the inputs carry no `max` that would stop
 * the form before the API is asked.
 */
import { useState } from 'preact/hooks';
import type { Problem } from '../api';
import { MAX_CONCURRENCY, type OriginLimits, type ParallelFields } from '../types';
import { Field, fieldError } from '../ui/kit';

/** The text of the scheduling inputs: empty means "not set" (the default, or inherited). */
export interface ParallelText {
  concurrency: string;
  bail: string;
  maxInFlight: string;
  requestsPerSecond: string;
}

/** The inputs' state and its setter. */
export interface ParallelState {
  text: ParallelText;
  set: (field: keyof ParallelText, value: string) => void;
}

const asText = (n: number | null | undefined) => (n === undefined || n === null ? '' : String(n));

/** The form state of a resource's scheduling fields, starting from what it holds (`undefined`: a new one). */
export function useParallel(initial: ParallelFields | undefined): ParallelState {
  const [text, setText] = useState<ParallelText>(() => ({
    concurrency: asText(initial?.concurrency),
    bail: asText(initial?.bail),
    maxInFlight: asText(initial?.originLimits?.maxInFlight),
    requestsPerSecond: asText(initial?.originLimits?.requestsPerSecond),
  }));
  return { text, set: (field, value) => setText((t) => ({ ...t, [field]: value })) };
}

/**
 * A number input's text as sent: the number, or the text itself when it is not one (the API then
 * names the field at fault), undefined when empty.
 */
function numberOf(text: string): number | string | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  const n = Number(t);
  return Number.isFinite(n) ? n : t;
}

/**
 * The body fields for the text `s`. `empty` says what an empty concurrency or bail input sends:
 * `'omit'` (a runner: absent is the default; a run: absent is inherited) or `'null'` (a
 * deployment's PATCH: null puts it back to the runner's). The origin limits are one object of the
 * inputs set; both empty send null under `limitsEmpty` `'null'` (a runner: no limit; a deployment:
 * the runner's), nothing under `'omit'`.
 */
export function parallelBody(s: ParallelText, empty: 'omit' | 'null', limitsEmpty: 'omit' | 'null' = empty) {
  const body: Record<string, unknown> = {};
  for (const key of ['concurrency', 'bail'] as const) {
    const v = numberOf(s[key]);
    if (v !== undefined) body[key] = v;
    else if (empty === 'null') body[key] = null;
  }
  const limits: Record<string, unknown> = {};
  const inFlight = numberOf(s.maxInFlight);
  const rps = numberOf(s.requestsPerSecond);
  if (inFlight !== undefined) limits.maxInFlight = inFlight;
  if (rps !== undefined) limits.requestsPerSecond = rps;
  if (Object.keys(limits).length > 0) body.originLimits = limits;
  else if (limitsEmpty === 'null') body.originLimits = null;
  return body;
}

/** True when any scheduling input holds something. */
export function anyParallel(s: ParallelText): boolean {
  return Object.values(s).some((v) => v.trim() !== '');
}

/**
 * The three inputs, labelled "Test cases at once", "Stop after failures" and "Per origin: max in
 * flight" / "requests per second", with the API's field errors at each. `inherit` is what an empty
 * input stands for (`the runner’s`), shown as its placeholder; a runner's form has none (empty: the
 * default).
 */
export function ParallelInputs({
  state,
  problem,
  inherit,
}: {
  state: ParallelState;
  problem: Problem | undefined;
  inherit?: string;
}) {
  const { text, set } = state;
  // The inherited value's name is the placeholder, never in the label: forms find their "Runner"
  // and "Environment" inputs by label text, which takes a label's hint in.
  const empty = inherit ? '; empty: inherited' : '';
  const limitsError = fieldError(problem, 'originLimits');
  const inFlightError = fieldError(problem, 'originLimits.maxInFlight');
  const rpsError = fieldError(problem, 'originLimits.requestsPerSecond');
  return (
    <fieldset class="res-parallel">
      <legend>Parallel suites (docs/parallel.md)</legend>
      <div class="row">
        <Field
          label="Test cases at once"
          hint={`1–${MAX_CONCURRENCY}; 1: one after another${empty} (docs/parallel.md)`}
          error={fieldError(problem, 'concurrency')}
        >
          <input
            type="number"
            inputMode="numeric"
            value={text.concurrency}
            placeholder={inherit ? inherit : '1'}
            onInput={(e) => set('concurrency', e.currentTarget.value)}
          />
        </Field>
        <Field
          label="Stop after failures"
          hint={`0 = never${empty} (docs/parallel.md "Bail")`}
          error={fieldError(problem, 'bail')}
        >
          <input
            type="number"
            inputMode="numeric"
            value={text.bail}
            placeholder={inherit ? inherit : '0'}
            onInput={(e) => set('bail', e.currentTarget.value)}
          />
        </Field>
        <Field
          label="Per origin: max in flight"
          hint={`both empty: ${inherit ? 'inherited' : 'no limit'} (docs/parallel.md "Protecting the target")`}
          error={inFlightError ?? (rpsError ? undefined : limitsError)}
        >
          <input
            type="number"
            inputMode="numeric"
            value={text.maxInFlight}
            placeholder={inherit ? inherit : 'no limit'}
            onInput={(e) => set('maxInFlight', e.currentTarget.value)}
          />
        </Field>
        <Field label="Per origin: requests per second" hint="evenly spaced; may be a fraction" error={rpsError}>
          <input
            type="number"
            inputMode="decimal"
            step="any"
            value={text.requestsPerSecond}
            placeholder={inherit ? inherit : 'no limit'}
            onInput={(e) => set('requestsPerSecond', e.currentTarget.value)}
          />
        </Field>
      </div>
    </fieldset>
  );
}

/** `8 at once`, `1 (one after another)`. */
export function concurrencyWords(n: number): string {
  return n > 1 ? `${n} at once` : '1 (one after another)';
}

/** `after 2 failures`, `never`. */
export function bailWords(n: number): string {
  return n > 0 ? `after ${n} failure${n === 1 ? '' : 's'}` : 'never';
}

/** `at most 3 in flight · 5 requests/s`, `no limit`. */
export function originLimitsWords(l: OriginLimits | null | undefined): string {
  const parts: string[] = [];
  if (l?.maxInFlight !== undefined) parts.push(`at most ${l.maxInFlight} in flight`);
  if (l?.requestsPerSecond !== undefined) parts.push(`${l.requestsPerSecond} requests/s`);
  return parts.length ? `${parts.join(' · ')} per origin` : 'no limit';
}

/**
 * The `<dt>/<dd>` pairs of a resource's scheduling fields for a `dl.kv` (`data-testid`
 * `concurrency`, `bail`, `origin-limits`). `inherited` (a deployment's): null reads "the runner’s".
 */
export function ParallelDetails({ value, inherited }: { value: ParallelFields; inherited?: boolean }) {
  const show = (v: unknown, words: string) =>
    inherited && (v === null || v === undefined) ? <span class="muted">the runner’s</span> : words;
  return (
    <>
      <dt>Test cases at once</dt>
      <dd data-testid="concurrency">{show(value.concurrency, concurrencyWords(value.concurrency ?? 1))}</dd>
      <dt>Stop after failures</dt>
      <dd data-testid="bail">{show(value.bail, bailWords(value.bail ?? 0))}</dd>
      <dt>Per origin</dt>
      <dd data-testid="origin-limits">{show(value.originLimits, originLimitsWords(value.originLimits))}</dd>
    </>
  );
}
