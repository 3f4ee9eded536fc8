/**
 * The `verifyMocks` activity: a mockVerify node's read of the mock journal (src/flow/mock-verify-node.ts,
 * src/mock/journal.ts `verifyJournal`). Only mockVerify nodes schedule it. A store error is
 * thrown (Temporal retries the activity as the port's options say); everything else comes back
 * as data.
 */
import type { DataSource } from 'typeorm';
import { verifyJournal } from '../src/mock/journal';
import type { MockVerifyInput, MockVerifyOutput } from '../src/domain/mock-verify-io';

export function createMockVerifyActivities(dataSource: DataSource) {
  return {
    /** Counts the journal entries a mockVerify node asks for (docs/flows.md "mockVerify node"). */
    verifyMocks(input: MockVerifyInput): Promise<MockVerifyOutput> {
      return verifyJournal(dataSource, input);
    },
  };
}
