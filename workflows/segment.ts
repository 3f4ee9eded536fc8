/**
 * A child workflow that runs the rest of a long Loop or Iteration node, so that the run's own
 * history stops growing (issue 3, item 3). It receives the interpreter's state and the iteration to
 * start from, runs until the loop ends (or hands the rest on to a child of its own, in the same
 * way), and returns the state, the counts and the iteration results it kept.
 */
import { CancellationScope, isCancellation } from '@temporalio/workflow';
import { createWorkflowPort, timedOut } from './workflow-port';
import { DeadlineReached, FlowInterpreter, type LoopSegmentInput, type LoopSegmentOutput } from '../src/flow';

export async function loopSegmentWorkflow(input: LoopSegmentInput): Promise<LoopSegmentOutput> {
  const port = createWorkflowPort({ runId: input.runId, settings: input.settings, deadlineMs: input.deadlineMs });
  const scope = new CancellationScope({ cancellable: true, timeout: Math.max(1, input.deadlineMs - Date.now()) });
  try {
    return await scope.run(() => new FlowInterpreter(port, input.testCase, input.state).runLoopIterations(input.node, input.start, input.items, input.kept));
  } catch (err) {
    const userCancelled = CancellationScope.current().consideredCancelled;
    if (err instanceof DeadlineReached || (isCancellation(err) && !userCancelled)) throw timedOut('The run reached its timeout');
    throw err;
  }
}
