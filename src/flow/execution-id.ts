/**
 * Node execution ids: the value of the `X-Assay-Execution` header an API node's request carries,
 * and the key under which a node execution's outcome is recorded (src/store/node-executions.ts).
 * docs/durability.md "Node execution ids".
 *
 *   <runId>/<position>/<path>
 *
 * - `runId`: the Assay run (`run_…`; the same across continue-as-new and loop segment workflows);
 * - `position`: the test case's place in the run's plan, from 0;
 * - `path`: the node's place in the test case's tree, node ids joined by `/`: the ids of the nodes
 *   it is inside (IF, Parallel, Loop, Iteration, Ref), each loop's with the iteration as `[index]`
 *   (from 0), then its own, and a Poll node's attempt as `#n` (from 1):
 *   `checkout/pay`, `users[3]/get-user`, `login/get-token`, `wait-ready#4`.
 *
 * Derived from the plan and the tree only (never from the workflow's history, a clock or the order
 * in which Parallel lanes happen to finish), so a node executed again after a crash sends the same
 * value as the first time, in both durability modes, and no two node executions of a run share
 * one (node ids are unique within a flow, src/validation/flow.ts).
 *
 * Pure and deterministic: used in workflow code.
 */
import { sha256 } from '@noble/hashes/sha256';
import { utf8 } from '../domain/callback-address';

/** Characters of a path kept as they are; a longer path is replaced by `~` and a hash of it. */
export const MAX_EXECUTION_PATH = 500;

/** The path of node `nodeId` inside `scope` (the path of what it is in; `''` at a flow's top level). */
export function nodePath(scope: string, nodeId: string): string {
  return scope ? `${scope}/${nodeId}` : nodeId;
}

/** The scope of a loop's body in iteration `index`: `<loop path>[<index>]`. */
export function iterationScope(loopPath: string, index: number): string {
  return `${loopPath}[${index}]`;
}

/**
 * The execution id of the node at `path` of the test case at `position` of run `runId` (see the
 * module comment). A path longer than {@link MAX_EXECUTION_PATH} characters becomes `~` and the
 * first 128 bits of its SHA-256 in hex, so the header stays short whatever the nesting.
 */
export function executionId(runId: string, position: number, path: string): string {
  const kept = path.length > MAX_EXECUTION_PATH ? `~${hex(sha256(utf8(path))).slice(0, 32)}` : path;
  return `${runId}/${position}/${kept}`;
}

function hex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}

/** The run and test case position of a node execution id (see the module comment); undefined when it is not one. */
export function parseExecutionId(id: string): { runId: string; position: number; path: string } | undefined {
  const match = /^([^/]+)\/(\d+)\/(.+)$/.exec(id);
  return match ? { runId: match[1]!, position: Number(match[2]), path: match[3]! } : undefined;
}
