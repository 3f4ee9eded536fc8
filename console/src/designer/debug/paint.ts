/**
 * A debug run's results by node id, for painting the designer's tree (docs/console.md "The designer"): every
 * `NodeResult` of the run's test case results, through IF/Parallel `children` and Loop/Iteration
 * `iterationResults`. A node that ran more than once (in a loop body, once per data-set row) keeps
 * its last result, and how many it had. Ref nodes' `children` are another test case's nodes, whose
 * ids may equal this test case's, so they are not painted here (the Ref node's own result is).
 * Pure: compiled by the root tsconfig too.
 */
import type { NodeResult, TestCaseResult } from '../../../../src/domain/types';

/** Results by node id: the last of each, and how many results each node had. */
export interface PaintedResults {
  results: Map<string, NodeResult>;
  counts: Map<string, number>;
}

/** The {@link PaintedResults} of `testCases` (in order; later results win). */
export function paintResults(testCases: ReadonlyArray<Pick<TestCaseResult, 'nodes'>>): PaintedResults {
  const results = new Map<string, NodeResult>();
  const counts = new Map<string, number>();
  const visit = (nodes: readonly NodeResult[] | undefined) => {
    for (const n of nodes ?? []) {
      results.set(n.id, n);
      counts.set(n.id, (counts.get(n.id) ?? 0) + 1);
      if (n.type !== 'ref') visit(n.children);
      for (const it of n.iterationResults ?? []) visit(it.nodes);
    }
  };
  for (const tc of testCases) visit(tc.nodes);
  return { results, counts };
}
