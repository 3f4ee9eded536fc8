/**
 * Creating and starting a run, for every API path that starts one (POST /v1/runs, incoming
 * webhooks, POST /v1/deployments/{id}/runs): the row is stored `queued`, then workflow
 * `run-<runId>` starts. When Temporal cannot be reached the row is ended `failed` with the reason
 * (never left `queued`) and the caller gets 503.
 */
import type { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { newId, runWorkflowId } from '../src/ids';
import { Run, queuedRun, type Environment, type Runner } from '../src/store/entities';
import type { RunTrigger, Variables } from '../src/domain/types';
import type { RunLauncher } from '../src/temporal/run-launcher';
import { Problem } from './problem';

export interface NewRun {
  workspaceId: string;
  runner: Runner;
  environment: Environment;
  timeoutSeconds: number;
  variables: Variables;
  trigger: RunTrigger;
  deploymentId?: string;
  /** Caller context stored on the run and returned with its results. */
  context?: Record<string, unknown>;
}

export async function createAndStartRun(deps: { dataSource: DataSource; runs: RunLauncher; logger: Logger }, input: NewRun): Promise<Run> {
  const repo = deps.dataSource.getRepository(Run);
  const id = newId('run');
  const run = repo.create(
    queuedRun({
      id,
      workspaceId: input.workspaceId,
      runnerId: input.runner.id,
      runnerName: input.runner.name,
      environmentId: input.environment.id,
      environmentName: input.environment.name,
      deploymentId: input.deploymentId ?? null,
      trigger: input.trigger,
      workflowId: runWorkflowId(id),
      timeoutSeconds: input.timeoutSeconds,
      variables: input.variables,
      context: input.context ?? null,
    }),
  );
  await repo.save(run);
  try {
    await deps.runs.start(run);
  } catch (err) {
    deps.logger.warn({ err, runId: id }, 'could not start run workflow');
    await repo.update(
      { id, status: 'queued' },
      { status: 'failed', error: 'The run could not be started: the workflow service is unavailable.', completedAt: new Date(), duration: 0 },
    );
    throw new Problem('temporal-unavailable', `Run ${id} could not be started: the workflow service is unavailable. Retry later.`, { runId: id });
  }
  return run;
}
