/**
 * A child workflow that runs the rest of a long Loop or Iteration node, so that the run's own
 * history stops growing. It receives the interpreter's state and the iteration to
 * start from, runs until the loop ends (or hands the rest on to a child of its own, in the same
 * way), and returns the state, the counts and the iteration results it kept.
 */
import { CancellationScope, executeChild, setHandler, workflowInfo } from '@temporalio/workflow';
import { callbackSignal } from '../src/domain/run-workflow';
import { CallbackInbox } from '../src/domain/callback-inbox';
import { createWorkflowPort } from './workflow-port';
import { endedByTimeout, timedOutFailure } from './endings';
import { FlowInterpreter, type LoopSegmentInput, type LoopSegmentOutput } from '../src/flow';

export async function loopSegmentWorkflow(input: LoopSegmentInput): Promise<LoopSegmentOutput> {
  // Callback nodes inside the loop get addresses naming this workflow (docs/async.md "Callbacks").
  const inbox = new CallbackInbox();
  setHandler(callbackSignal, (delivery) => inbox.add(delivery));
  const port = createWorkflowPort({
    ...(input.callbacks ? { callbacks: { ...input.callbacks, inbox } } : {}),
    runId: input.runId,
    settings: input.settings,
    deadlineMs: input.deadlineMs,
    ...(input.servers ? { servers: input.servers } : {}),
    ...(input.mockScope ? { mockScope: input.mockScope } : {}),
    ...(input.debug ? { debug: true } : {}),
    startLoopSegment,
  });
  const scope = new CancellationScope({ cancellable: true, timeout: Math.max(1, input.deadlineMs - Date.now()) });
  try {
    return await scope.run(() =>
      new FlowInterpreter(port, input.testCase, input.state, input.chain, [input.node]).runLoopIterations(
        input.node,
        input.start,
        input.items,
        input.kept,
        input.path ?? input.node.id,
      ),
    );
  } catch (err) {
    if (endedByTimeout(err)) throw timedOutFailure('The run reached its timeout');
    throw err;
  }
}

/**
 * Starts {@link loopSegmentWorkflow} as a child on this task queue and waits for it (the workflow
 * port's `startLoopSegment`: the run workflow's and each segment's own).
 */
export function startLoopSegment(
  input: LoopSegmentInput,
  child: { workflowId: string; staticSummary: string },
): Promise<LoopSegmentOutput> {
  return executeChild(loopSegmentWorkflow, {
    workflowId: child.workflowId,
    args: [input],
    taskQueue: workflowInfo().taskQueue,
    staticSummary: child.staticSummary,
  });
}
