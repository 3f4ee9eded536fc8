/**
 * Shapes of a test case's history (docs/history.md), shared by the store, the API, the CLI and the
 * console. Pure types: no I/O.
 */

/** One node's outcome in one run, as a history row keeps it (nested nodes flattened, ids joined by `›` inside sub-flows). */
export interface HistoryNodeOutcome {
  /** Node id (`ref › inner` inside a Ref node's sub-flow). */
  id: string;
  name?: string;
  type: string;
  status: 'passed' | 'failed' | 'skipped';
  /** Milliseconds. */
  durationMs: number;
  /** Assertions of the node: their label (`name`, else `target operator`) and whether each passed. */
  assertions?: Array<{ label: string; passed: boolean }>;
}

/** How a run came from another (`POST /v1/runs/{id}/rerun`, `/replay`, `/resume`). */
export interface RunOrigin {
  kind: 'rerun' | 'replay' | 'resume';
  /** The run it came from. */
  runId: string;
  /** `rerun`: the test case ids it runs (in the origin's order). */
  testCaseIds?: string[];
  /** `resume`: the origin's position of the test case it resumes and the top-level node it resumes at. */
  position?: number;
  nodeId?: string;
}
