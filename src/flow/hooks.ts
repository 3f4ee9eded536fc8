/**
 * Hooks at three levels (docs/flows.md "Hooks"): besides an API node's own `script`, the test
 * case's `hooks` and its folders' hooks run around each of its API nodes, in the onion order:
 * `beforeRequest` test case → folders (outermost first) → node; `afterResponse` node → folders
 * (innermost first) → test case (activities/nodes.ts runs them).
 */
import type { OuterHook } from '../domain/node-io';
import type { TestCaseDefinition } from '../domain/types';

/**
 * The hooks around `testCase`'s API nodes besides their own, outermost first: the test case's, then
 * its folders' from the outermost. Undefined when there are none, so that an API node's activity
 * input stays as it was before hooks had levels (recorded histories replay).
 */
export function outerHooksOf(testCase: Pick<TestCaseDefinition, 'hooks' | 'folderHooks'>): OuterHook[] | undefined {
  const hooks: OuterHook[] = [];
  if (testCase.hooks) hooks.push({ level: 'test case', script: testCase.hooks });
  for (const script of testCase.folderHooks ?? []) hooks.push({ level: 'folder', script });
  return hooks.length > 0 ? hooks : undefined;
}
