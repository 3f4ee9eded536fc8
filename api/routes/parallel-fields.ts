/**
 * The scheduling fields of runners, deployments and runs (docs/parallel.md): `concurrency`, `bail`,
 * `originLimits`, stored together as `parallel` (src/domain/types.ts `ParallelSettings`). Runners
 * take values (absent: the default); deployments and runs also take null (inherit).
 */
import { MAX_CONCURRENCY, type ParallelSettings } from '../../src/domain/types';
import type { OriginLimits } from '../../src/domain/node-io';

const CONCURRENCY = {
  type: 'integer',
  minimum: 1,
  maximum: MAX_CONCURRENCY,
  description: `Test cases under way at once, 1 to ${MAX_CONCURRENCY} (docs/parallel.md). Default 1: one after another. Results stay in the runner's order whatever order they finish in. A runner with \`variableScope: "run"\` runs one at a time whatever this says.`,
} as const;
const BAIL = {
  type: 'integer',
  minimum: 0,
  maximum: 100000,
  description:
    'Stop starting test cases once this many have failed (docs/parallel.md "Bail"): those under way finish, the rest are reported skipped and the run fails. 0 (default): never.',
} as const;
const ORIGIN_LIMITS = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  description:
    'Per-origin limits on the run\'s HTTP requests, honoured across workers (docs/parallel.md "Protecting the target"): each request of an API or Poll node waits for a slot of its origin (scheme, host, port).',
  properties: {
    maxInFlight: { type: 'integer', minimum: 1, maximum: 1000, description: 'Requests in flight at once per origin.' },
    requestsPerSecond: {
      type: 'number',
      exclusiveMinimum: 0,
      maximum: 10000,
      description: 'Requests started per second per origin, evenly spaced.',
    },
  },
} as const;

/** Runner fields: values only. */
export const PARALLEL_FIELDS = {
  concurrency: CONCURRENCY,
  bail: BAIL,
  originLimits: { ...ORIGIN_LIMITS, type: ['object', 'null'] },
} as const;

/** Deployment and run fields: a value, or null for the one it would inherit. */
export const NULLABLE_PARALLEL_FIELDS = {
  concurrency: {
    ...CONCURRENCY,
    type: ['integer', 'null'],
    description: `${CONCURRENCY.description} Null: inherited.`,
  },
  bail: { ...BAIL, type: ['integer', 'null'], description: `${BAIL.description} Null: inherited.` },
  originLimits: {
    ...ORIGIN_LIMITS,
    type: ['object', 'null'],
    description: `${ORIGIN_LIMITS.description} Null: inherited.`,
  },
} as const;

/** The fields as a request body carries them. */
export interface ParallelInput {
  concurrency?: number | null;
  bail?: number | null;
  originLimits?: OriginLimits | null;
}

/**
 * Applies a body's fields to stored settings: a field given replaces, null clears (inherits or
 * the default), absent keeps (`replace`: absent clears too).
 * @returns the settings to store, null when none is set
 */
export function applyParallel(
  current: ParallelSettings | null,
  input: ParallelInput,
  replace = false,
): ParallelSettings | null {
  const next: ParallelSettings = replace ? {} : { ...(current ?? {}) };
  for (const key of ['concurrency', 'bail', 'originLimits'] as const) {
    const value = input[key];
    if (value === undefined) continue;
    if (value === null) delete next[key];
    else (next as Record<string, unknown>)[key] = value;
  }
  return Object.keys(next).length > 0 ? next : null;
}

/** A runner's fields in its JSON form: the defaults filled in. */
export function runnerParallelJson(p: ParallelSettings | null) {
  return { concurrency: p?.concurrency ?? 1, bail: p?.bail ?? 0, originLimits: p?.originLimits ?? null };
}

/** A deployment's or run's fields in its JSON form: null where it inherits. */
export function ownParallelJson(p: ParallelSettings | null) {
  return { concurrency: p?.concurrency ?? null, bail: p?.bail ?? null, originLimits: p?.originLimits ?? null };
}
