/**
 * Names and message definitions of the run workflow, shared by the workflow, the worker and the
 * API client (importing this module pulls in no workflow code).
 */
import { defineQuery } from '@temporalio/workflow';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { RunProgress, RunStatus, RunTrigger } from '../src/domain/types';

/**
 * Search attribute carried by every run workflow: the run's id (`run_…`). API and webhook runs get
 * it at start; a scheduled run (workflow id `run-scheduled-<deploymentId>-<time>`, chosen by
 * Temporal's schedule) sets it once it has made its id. `temporal workflow list -q 'AssayRunId="run_…"'`.
 */
export const RUN_ID_SEARCH_ATTRIBUTE = defineSearchAttributeKey('AssayRunId', SearchAttributeType.KEYWORD);

/** Workflow type name of a run. */
export const RUN_WORKFLOW_TYPE = 'runWorkflow';

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
  resume?: import('./run-state').ResumeState;
}

/** What the progress query answers. Times are ISO 8601 UTC. */
export interface RunLiveState {
  status: RunStatus;
  progress: RunProgress;
  startedAt?: string;
  estimatedCompletion?: string;
}

/** Live state of a run: answered by a worker without adding history events. */
export const runStateQuery = defineQuery<RunLiveState>('runState');
