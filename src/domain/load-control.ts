/**
 * Live control of a performance run (docs/performance.md "Steering a running test"): pause, resume,
 * scale and stop, sent by the API (`POST /v1/runs/{id}/control`), the CLI or the console to the run
 * workflow as the `loadControl` update, and aborts decided by thresholds with `abortOnFail`.
 *
 * The workflow is the source of truth: it validates a command, appends it to its control state and
 * publishes the whole state to the store (`run_load_controls`, one row per run) before the update
 * returns. Each load shard reads that row every {@link CONTROL_POLL_MS} and applies it; the state is
 * absolute (paused or not, the VU or rate target), so applying it twice, or after a crash from the
 * row alone, gives the same shard. Importing this module pulls in no workflow code.
 */
import { defineUpdate } from '@temporalio/workflow';
import type { LoadProfile } from '../perf/profile';
import { LOAD_PROFILE_LIMITS as PROFILE_LIMITS } from './load-limits';

/** What a command does. */
export const LOAD_CONTROL_ACTIONS = ['pause', 'resume', 'scale', 'stop'] as const;
export type LoadControlAction = (typeof LOAD_CONTROL_ACTIONS)[number];

/** Milliseconds between a shard's reads of its run's control row (a command takes effect within this plus a write). */
export const CONTROL_POLL_MS = 500;

/** Commands kept in a run's control state (the oldest dropped beyond). */
export const KEPT_LOAD_COMMANDS = 200;

/**
 * A command as the API sends it. `scale` takes `vus` (VU executors: the target from now to the end
 * of the profile) or `rate` (arrival-rate executors: iterations per the profile's `timeUnit`), one
 * of them, the one the executor uses. `by` says who sent it: `key:<api key name>`, `cli`, `console`,
 * or `threshold` for an abort.
 */
export interface LoadControlRequest {
  action: LoadControlAction;
  vus?: number;
  rate?: number;
  /** Free text shown with the command (at most 200 characters). */
  reason?: string;
  by: string;
}

/** A command as the run recorded it: numbered from 1, stamped with the workflow's time (ISO 8601 UTC). */
export interface LoadCommand extends LoadControlRequest {
  seq: number;
  at: string;
}

/** A threshold with `abortOnFail` that stopped the run (src/perf/thresholds.ts). */
export interface LoadAbort {
  /** `http_req_duration{name:login}` */
  metric: string;
  /** The threshold as written: `p(95)<300 over 30s`. */
  threshold: string;
  /** The aggregation's value when it failed (ms, fraction or count); null when there was no data. */
  actual: number | null;
  /** Profile time of the failing evaluation, ms. */
  atMs: number;
  /** The run's `error`: `Threshold http_req_duration p(95)<300 over 30s failed at 42 s (p(95) = 512 ms): aborted (abortOnFail)`. */
  message: string;
}

/**
 * A run's control state: absolute, so a shard that applies it (again, or fresh after a crash)
 * ends up in the same state. `seq` is the last command's number (0: none yet).
 */
export interface LoadControlState {
  seq: number;
  paused: boolean;
  /** Stop requested (by a command or an abort): no iteration starts; those under way get `gracefulStop`. */
  stopped: boolean;
  /** Scale override: the VU target held from the command to the end of the profile (VU executors). */
  vus?: number;
  /** Scale override: the arrival rate per `timeUnit` held to the end of the profile (arrival-rate executors). */
  rate?: number;
  abort?: LoadAbort;
  /** Oldest first, at most {@link KEPT_LOAD_COMMANDS}. */
  commands: LoadCommand[];
}

/** The state of a run no command reached. */
export const INITIAL_LOAD_CONTROL: LoadControlState = { seq: 0, paused: false, stopped: false, commands: [] };

/**
 * The state after `command` (pure: the workflow's handler and tests use it). Pausing a paused run,
 * or resuming a running one, records the command and changes nothing else.
 */
export function applyLoadCommand(state: LoadControlState, command: LoadCommand): LoadControlState {
  const next: LoadControlState = {
    ...state,
    seq: command.seq,
    commands: [...state.commands, command].slice(-KEPT_LOAD_COMMANDS),
  };
  if (command.action === 'pause') next.paused = true;
  else if (command.action === 'resume') next.paused = false;
  else if (command.action === 'stop') next.stopped = true;
  else if (command.action === 'scale') {
    if (command.vus !== undefined) next.vus = command.vus;
    if (command.rate !== undefined) next.rate = command.rate;
  }
  return next;
}

/**
 * The run workflow's update (workflows/run.ts): validated (a performance run whose load is under
 * way and not stopped; scale values within the profile's limits), recorded, published to the store,
 * then answered with the new state. Refusals are `ApplicationFailure`s of type {@link LOAD_CONTROL_REFUSED}.
 */
export const loadControlUpdate = defineUpdate<LoadControlState, [LoadControlRequest]>('loadControl');

/** Failure type of a refused control command (the API answers 409 `run-not-controllable` or 400). */
export const LOAD_CONTROL_REFUSED = 'LoadControlRefused';

/**
 * Why `request` cannot be applied to a run with profile `profile` and control state `state`
 * (one sentence for the API's 409/400 and the update's refusal), or undefined when it can.
 * Value bounds: VUs 0 to 10,000, a rate 0 to 100,000 iterations per second (src/domain/load-limits.ts
 * `LOAD_PROFILE_LIMITS`); an arrival-rate executor's VU pool stays its `maxVUs`.
 */
export function loadCommandRefusal(
  profile: LoadProfile,
  state: LoadControlState,
  request: LoadControlRequest,
): string | undefined {
  if (!(LOAD_CONTROL_ACTIONS as readonly string[]).includes(request.action))
    return `action must be one of ${LOAD_CONTROL_ACTIONS.join(', ')}`;
  if (state.stopped) return 'the load is stopping already';
  if (request.action !== 'scale') {
    if (request.vus !== undefined || request.rate !== undefined) return `${request.action} takes no vus or rate`;
    return undefined;
  }
  const arrival = profile.executor === 'constant-arrival-rate' || profile.executor === 'ramping-arrival-rate';
  if (arrival) {
    if (request.vus !== undefined) return `${profile.executor} is scaled by rate (iterations per timeUnit), not vus`;
    if (request.rate === undefined) return 'scale needs rate (iterations per timeUnit)';
    const perSecond = (request.rate * 1000) / profile.timeUnitMs;
    if (!Number.isFinite(request.rate) || request.rate < 0 || perSecond > PROFILE_LIMITS.maxRatePerSecond)
      return `rate must be 0 to ${PROFILE_LIMITS.maxRatePerSecond} iterations per second`;
    return undefined;
  }
  if (request.rate !== undefined) return `${profile.executor} is scaled by vus, not rate`;
  if (request.vus === undefined) return 'scale needs vus';
  if (!Number.isInteger(request.vus) || request.vus < 0 || request.vus > PROFILE_LIMITS.maxVUs)
    return `vus must be an integer from 0 to ${PROFILE_LIMITS.maxVUs}`;
  return undefined;
}
