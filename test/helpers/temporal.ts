/**
 * Temporal helpers for tests: a client on the shared server, workflow status, and recording of
 * workflow histories as replay fixtures (when ASSAY_RECORD_HISTORIES=1).
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { dataConverter } from '../../src/temporal/codec';
import { getServices } from './harness';
import { TEST_SECRET_KEYS } from './app';

let client: Promise<Client> | undefined;

/**
 * The data converter of the test apps (their key ring is TEST_SECRET_KEYS): for a client or a
 * replay worker that reads their encrypted payloads (src/temporal/codec.ts).
 */
export function testDataConverter(): DataConverter {
  return dataConverter({ secretKeys: TEST_SECRET_KEYS, dataDir: path.resolve('.assay') });
}

/**
 * A client on the shared Temporal server (closed with the process), with the test apps' codec:
 * results, queries and schedule actions read decrypted. `fetchHistory` gives raw events (encrypted
 * payloads): replay them with `dataConverter: testDataConverter()`.
 */
export function temporalClient(): Promise<Client> {
  client ??= getServices().then(
    async ({ temporalAddress }) =>
      new Client({
        connection: await Connection.connect({ address: temporalAddress }),
        dataConverter: testDataConverter(),
      }),
  );
  return client;
}

/** Execution status name of a workflow: RUNNING, COMPLETED, FAILED, CANCELLED, ... */
export async function workflowStatus(workflowId: string): Promise<string> {
  const description = await (await temporalClient()).workflow.getHandle(workflowId).describe();
  return description.status.name;
}

/** Folder of the committed replay fixtures. */
export const HISTORY_FIXTURES = path.resolve(__dirname, '../../../test/fixtures/histories');

/**
 * With ASSAY_RECORD_HISTORIES=1, writes the history of `workflowId` to the fixtures as `<name>.json`
 * (all executions of a continued-as-new chain are not followed: the first execution is written).
 * Its payloads are encrypted with TEST_SECRET_KEYS; replay.test.ts replays with that ring. `client`:
 * one on another Temporal server than the shared one (a test's own).
 */
export async function recordHistory(name: string, workflowId: string, client?: Client): Promise<void> {
  if (process.env.ASSAY_RECORD_HISTORIES !== '1') return;
  const handle = (client ?? (await temporalClient())).workflow.getHandle(workflowId);
  // The store says "completed" a moment before the workflow closes: wait for the close.
  await handle.result().catch(() => undefined);
  const history = await handle.fetchHistory();
  fs.mkdirSync(HISTORY_FIXTURES, { recursive: true });
  fs.writeFileSync(path.join(HISTORY_FIXTURES, `${name}.json`), `${historyToJSON(history)}\n`);
}
