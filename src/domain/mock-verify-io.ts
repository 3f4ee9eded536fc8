/**
 * What a `mockVerify` node (src/flow/mock-verify-node.ts; docs/flows.md "mockVerify node") asks of
 * the mock journal and what it gets: the input and output of the port's `verifyMocks` (an activity
 * in a run, activities/mock-verify.ts; a plain call in the direct port), answered by
 * src/mock/journal.ts `verifyJournal`.
 */
import type { MockJournalEntryView, MockViolation } from './mocks';

/** Entries a verification looks at, at most (the oldest of the scope first); past it `truncated`. */
export const MOCK_VERIFY_SCAN_MAX = 5_000;
/** Matching requests a verification returns (the first, oldest first). */
export const MOCK_VERIFY_KEPT = 20;

export interface MockVerifyInput {
  /** The run (its workspace is the journal's; `scope: "run"` is this id). */
  runId: string;
  nodeId: string;
  /** `run`: requests with the run's scope (`X-Assay-Mock-Scope: <runId>`); `shared`: without a scope; `any`: all. */
  scope: 'run' | 'shared' | 'any';
  /** Upper-case HTTP method, when the node names one. */
  method?: string;
  /** A concrete path (`/users/7`) or a design path template (`/users/{id}`), templates filled. */
  path?: string;
  designId?: string;
  /** JSONata over each entry (with `query` as an object and `body` parsed): only entries for which it holds count. */
  where?: string;
}

/** A journal entry as `where` sees it and a node's result lists it: `query` as an object. */
export type MockVerifyEntry = Omit<MockJournalEntryView, 'query'> & { query: Record<string, string> };

export interface MockVerifyOutput {
  /** Entries matching method, path, design and `where`. */
  count: number;
  /** Entries matching method, path and design, whatever `where` says. */
  candidates: number;
  /** The first {@link MOCK_VERIFY_KEPT} matching entries, oldest first (bodies cut to a readable size). */
  requests: MockVerifyEntry[];
  /** The contract violations of the matching entries (at most 50). */
  violations: MockViolation[];
  /** When nothing matched `where`: the first 3 candidates, for the failure message. */
  nearest: MockVerifyEntry[];
  /** True when more than {@link MOCK_VERIFY_SCAN_MAX} entries were in scope (the newest were not looked at). */
  truncated: boolean;
  /** Why the journal could not be checked (the run is unknown, `where` failed); the node fails with it. */
  error?: string;
  /** Epoch ms (worker clock) when it was answered: the workflow's clock moves by it. */
  finishedAtMs: number;
}
