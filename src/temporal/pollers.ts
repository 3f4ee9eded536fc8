/**
 * Which processes poll a task queue, as Temporal sees them: the pollers `DescribeTaskQueue` lists
 * (those seen in the last few minutes), by the pid in the SDK's default worker identity
 * `<pid>@<host>`; a poller with another identity is left out.
 */
import { temporal } from '@temporalio/proto';

/**
 * Pids of the processes polling `taskQueue` for `type` tasks (activity tasks by default).
 * @throws when Temporal does not answer (the caller decides whether that means "none yet")
 */
export async function pollerPids(
  service: temporal.api.workflowservice.v1.WorkflowService,
  query: { namespace: string; taskQueue: string; type?: temporal.api.enums.v1.TaskQueueType },
): Promise<Set<number>> {
  const answer = await service.describeTaskQueue({
    namespace: query.namespace,
    taskQueue: { name: query.taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: query.type ?? temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
  });
  const pids = new Set<number>();
  for (const p of answer.pollers ?? []) {
    const m = /^(\d+)@/.exec(p.identity ?? '');
    if (m) pids.add(Number(m[1]));
  }
  return pids;
}
