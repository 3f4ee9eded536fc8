/**
 * Node activities through the worker's node execution records (src/store/node-executions.ts;
 * docs/durability.md "What a crash repeats"): a local activity of a run that carries a node
 * execution id is run at most once across crashes and repeated workflow tasks, or answered with its
 * recorded outcome. Normal activities are not recorded (Temporal records their results when they
 * complete, and runs one again only after its worker died with it under way), nor are executions
 * without an id (inputs recorded before ids) or calls outside an activity (benches, the direct port).
 */
import { Context } from '@temporalio/activity';
import type { NodeExecutionRecords } from '../src/store/node-executions';
import { parseExecutionId } from '../src/flow/execution-id';

/**
 * Runs `execute` for `input`'s node execution through `records` when it applies (see the module
 * comment), else as it is. An output made after the activity was cancelled is not recorded.
 */
export async function recordedExecution<T>(
  records: NodeExecutionRecords | undefined,
  input: { execution?: string },
  execute: () => Promise<T>,
): Promise<T> {
  if (!records || !input.execution) return execute();
  let context: Context;
  try {
    context = Context.current();
  } catch {
    return execute();
  }
  const target = parseExecutionId(input.execution);
  if (!context.info.isLocal || !target) return execute();
  const signal = context.cancellationSignal;
  return records.run({ execution: input.execution, runId: target.runId, position: target.position }, execute, {
    keep: () => !signal.aborted,
    signal,
  });
}
