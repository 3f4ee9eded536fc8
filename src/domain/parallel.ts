/**
 * Parallel suites (docs/parallel.md): how a run's test cases are scheduled. A run's own settings
 * over its deployment's over its runner's, field by field, then the defaults (one test case at a
 * time, no bail, no per-origin limit); frozen into the plan by `startRun` (activities/runs.ts).
 *
 * Pure: used by the API, the activities and (its types) the run workflow.
 */
import { MAX_CONCURRENCY, type ParallelSettings, type RunPlan } from './types';

/** The frozen settings of a plan: `concurrency` always set (1 for plans frozen before it existed). */
export interface FrozenParallel {
  concurrency: number;
  bail: number;
  originLimits?: ParallelSettings['originLimits'];
}

/**
 * Merges settings field by field, the first that sets a field winning (run, deployment, runner).
 * @returns the merged settings, or undefined when every field is its default (nothing to freeze)
 */
export function mergeParallel(...layers: Array<ParallelSettings | null | undefined>): ParallelSettings | undefined {
  const pick = <K extends keyof ParallelSettings>(key: K): ParallelSettings[K] | undefined => {
    for (const layer of layers) if (layer && layer[key] !== undefined && layer[key] !== null) return layer[key];
    return undefined;
  };
  const concurrency = pick('concurrency');
  const bail = pick('bail');
  const originLimits = pick('originLimits');
  const limits =
    originLimits && (originLimits.maxInFlight !== undefined || originLimits.requestsPerSecond !== undefined)
      ? originLimits
      : undefined;
  const merged: ParallelSettings = {
    ...(concurrency !== undefined && concurrency > 1 ? { concurrency: Math.min(concurrency, MAX_CONCURRENCY) } : {}),
    ...(bail !== undefined && bail > 0 ? { bail } : {}),
    ...(limits ? { originLimits: limits } : {}),
  };
  return Object.keys(merged).length > 0 ? merged : undefined;
}

/** A plan's scheduling settings with their defaults (plans frozen before `parallel` existed: one at a time). */
export function frozenParallel(plan: Pick<RunPlan, 'parallel'>): FrozenParallel {
  const p = plan.parallel;
  return {
    concurrency: Math.max(1, Math.min(p?.concurrency ?? 1, MAX_CONCURRENCY)),
    bail: p?.bail ?? 0,
    ...(p?.originLimits ? { originLimits: p.originLimits } : {}),
  };
}
