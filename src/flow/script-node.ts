/**
 * Script nodes: the code runs through the port (the sandbox); the variables it leaves replace the
 * flow's, and `variable` takes what its `generateValue` returned.
 */
import { preview } from '../domain/assertions';
import type { ScriptCheck } from '../domain/node-io';
import type { NodeResult, ScriptNode } from '../domain/types';
import type { FlowBase } from './flow-base';

/** Runs a Script node at `path` (execution-id.ts): failed (with the line of the user's code) when the script failed. */
export async function runScriptNode(flow: FlowBase, node: ScriptNode, path: string): Promise<NodeResult> {
  const result = flow.base(node);
  const before = flow.state.variables;
  const execution = flow.executionId(path);
  const out = await flow.port.runScript(
    {
      ...flow.scope(),
      label: node.id,
      script: node.script,
      generateValue: node.variable !== undefined,
      variables: flow.state.variables,
      nodes: flow.state.nodes,
      ...(execution ? { execution } : {}),
    },
    flow.summary(`${node.name ?? node.id}: script`),
  );
  result.duration = out.durationMs;
  if (out.logs.length) result.logs = out.logs;
  recordScriptChecks(flow, result, node.id, out.tests);
  flow.step(
    `${node.name ?? node.id}: script → ${out.ok ? `ok · ${Math.round(out.durationMs)} ms` : `failed: ${(out.error?.message ?? 'unknown error').slice(0, 80)}`}`,
  );
  // A script that threw keeps the variables it set before (docs/flows.md "Errors"), as its checks.
  flow.state.variables = { ...out.variables };
  if (out.ok && node.variable !== undefined) flow.state.variables[node.variable] = out.value;
  const set = changed(before, flow.state.variables);
  if (out.ok || Object.keys(set).length) result.variablesSet = set;
  if (!out.ok) {
    result.line = out.error?.line;
    return flow.fail(result, `script failed${where(out.error ?? {})}: ${out.error?.message ?? 'unknown error'}`);
  }
  return result;
}

/** ` (line 3, column 10)` for a script error's place in the user's code; empty when unknown. */
export function where(place: { line?: number; column?: number }): string {
  if (!place.line) return '';
  return place.column ? ` (line ${place.line}, column ${place.column})` : ` (line ${place.line})`;
}

/** Variables that a script changed or removed (removed ones show as null), as previews. */
export function changed(before: Record<string, unknown>, after: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(after))
    if (JSON.stringify(before[k]) !== JSON.stringify(v)) out[k] = preview(v, 500);
  for (const k of Object.keys(before)) if (!(k in after)) out[k] = null;
  return out;
}

/**
 * The checks a node's script recorded with `$test` (docs/flows.md "Scripts"), added to the node's
 * assertions as `{name, target: "$test", operator: "test", passed, message}` and counted like
 * assertions: a failed one fails the node and is listed in the test case's failures.
 */
export function recordScriptChecks(
  flow: FlowBase,
  result: NodeResult,
  nodeId: string,
  checks: ScriptCheck[] | undefined,
): void {
  if (!checks?.length) return;
  result.assertions ??= [];
  for (const t of checks) {
    result.assertions.push({
      name: t.name,
      target: '$test',
      operator: 'test',
      passed: t.passed,
      ...(t.passed ? {} : { message: t.message ?? 'failed' }),
    });
    flow.state.assertions += 1;
    if (t.passed) flow.state.passedAssertions += 1;
    else {
      result.status = 'failed';
      flow.addFailure({ node: nodeId, assertion: t.name, operator: 'test', message: t.message ?? 'failed' });
    }
  }
}
