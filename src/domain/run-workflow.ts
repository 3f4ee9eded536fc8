/**
 * The run workflow's contract: its type name, input, live state query and search attribute, shared
 * by the workflow, the worker, the API and the run launcher (importing this module pulls in no
 * workflow code). `@temporalio/workflow` and `@temporalio/common` are imported for `defineQuery`
 * and `defineSearchAttributeKey` only (both are pure definitions).
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { RunPlan, RunProgress, RunStatus, RunSummary, RunTrigger } from './types';
import type { CallbackDelivery, CallbackInboxState } from './callback-inbox';

/**
 * Search attribute carried by every run workflow: the run's id (`run_…`). API and webhook runs get
 * it at start; a scheduled run (workflow id `run-scheduled-<deploymentId>-<time>`, chosen by
 * Temporal's schedule) sets it once it has made its id. `temporal workflow list -q 'AssayRunId="run_…"'`.
 */
export const RUN_ID_SEARCH_ATTRIBUTE = defineSearchAttributeKey('AssayRunId', SearchAttributeType.KEYWORD);

/**
 * Search attribute of performance runs: `AssayRunKind = "performance"`, set by the run workflow when
 * its plan carries a load profile (docs/performance.md). Functional runs do not set it.
 */
export const RUN_KIND_SEARCH_ATTRIBUTE = defineSearchAttributeKey('AssayRunKind', SearchAttributeType.KEYWORD);

/**
 * Suffix of the load task queue after the run task queue's name (`assay-runs-load`): performance
 * runs' load shards run there, on workers polling it (`ASSAY_LOAD_SHARDS_PER_WORKER`), so load never
 * starves functional runs' activities.
 */
export const LOAD_TASK_QUEUE_SUFFIX = '-load';

/** Workflow type name of a run. */
export const RUN_WORKFLOW_TYPE = 'runWorkflow';

/** What a run carries into the next execution when it continues as new (workflows/run-ledger.ts). */
export interface ResumeState {
  plan: RunPlan;
  /** Position of the next test case to run. */
  nextIndex: number;
  summary: RunSummary;
  nodesDone: number;
  /** With the plan's `variableScope: 'run'`: the variables the last test case ended with, which the next one starts from. */
  variables?: Record<string, unknown>;
  /** Failed test cases so far that the plan quarantines (they do not fail the run); absent: 0. */
  quarantined?: number;
  /** Callbacks received and not consumed yet (src/domain/callback-inbox.ts); absent: none. */
  callbacks?: CallbackInboxState;
  /**
   * The suite path's own counts (workflows/suite-ledger.ts `SuiteResume`; docs/parallel.md): absent
   * when the execution before ran the sequential path of runs recorded before it.
   */
  suite?: SuiteResume;
  /** The plan's test cases in all and their expected node executions, when they live in the store (workflows/plan-source.ts). */
  outline?: { count: number; expectedNodes: number };
}

/**
 * What the suite path of the run workflow (workflows/suite.ts; docs/parallel.md) carries across
 * continue-as-new besides {@link ResumeState}'s common fields.
 */
export interface SuiteResume {
  /** Σ expected node executions of the test cases done (the run's `work`). */
  workFinished: number;
  /** Test cases done (run, skipped, or before a resumed run's resume point) so far. */
  done: number;
  /** Outcomes by position of the test cases that others depend on (docs/parallel.md "Dependencies"). */
  outcomes?: Record<number, 'passed' | 'failed' | 'skipped'>;
  /** Failed test cases that count towards `bail` (quarantined ones do not). */
  failedForBail?: number;
}

/**
 * Input of the run workflow. Only ids go in: the plan is loaded by an activity (secrets stay out of
 * the start event). A run started by the API or an incoming webhook has its `runId` (its row exists);
 * a run started by a deployment's schedule has none and creates its row itself.
 */
export interface RunWorkflowInput {
  runId?: string;
  /** The deployment whose run this is: its outgoing webhooks fire when the run ends. */
  deploymentId?: string;
  trigger?: RunTrigger;
  /** Set when the workflow continued as new to keep its history short. */
  resume?: ResumeState;
}

/**
 * A node of a running run that is waiting for the world outside (docs/async.md): a Callback node
 * for its callbacks, or a Poll node between two attempts. Times are ISO 8601 UTC.
 */
export interface RunWaiting {
  nodeId: string;
  kind: 'callback' | 'poll';
  /** The wait (Poll: the node) began. */
  since: string;
  /** The wait ends at the latest (Poll: the node's timeout or the run's deadline). */
  until: string;
  /** Callback nodes: the callback id (`cb_…`). */
  callbackId?: string;
  /** The node's `match` (Callback) or `until` (Poll) expression, on one line. */
  match?: string;
  /** Poll nodes: attempts made so far, the most allowed, and when the next one is sent. */
  attempt?: number;
  maxAttempts?: number;
  nextAttemptAt?: string;
}

/** What the progress query answers. Times are ISO 8601 UTC. */
export interface RunLiveState {
  status: RunStatus;
  progress: RunProgress;
  startedAt?: string;
  estimatedCompletion?: string;
  /** What the run waits for right now (a Callback node, or a Poll node between attempts); absent when it is not waiting. */
  waiting?: RunWaiting;
}

/**
 * A wait in words (the Web UI's details and timer summaries): `waiting for callback cb_… since
 * 12:01:05, until 13:01:05 (matches body.status = 'paid')`; times UTC.
 */
export function waitingLine(w: RunWaiting): string {
  const at = (iso: string) => iso.slice(11, 19);
  const what = w.kind === 'callback' ? `callback ${w.callbackId ?? w.nodeId}` : `the next attempt of ${w.nodeId}`;
  const match = w.match !== undefined ? ` (matches ${w.match.replace(/\s+/g, ' ').slice(0, 80)})` : '';
  return `waiting for ${what} since ${at(w.since)}, until ${at(w.until)}${match}`;
}

/**
 * Signal of a callback received by the API (api/routes/callbacks.ts) for a Callback node of the run:
 * kept in the workflow's inbox until a wait at that key consumes it. Sent only to a running
 * workflow (never signal-with-start: a callback never starts a run).
 */
export const callbackSignal = defineSignal<[CallbackDelivery]>('callback');

/** Live state of a run: answered by a worker without adding history events. */
export const runStateQuery = defineQuery<RunLiveState>('runState');
