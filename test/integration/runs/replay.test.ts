/**
 * Determinism: the recorded histories in test/fixtures/histories (a completed run with failures, a
 * timed-out run, a cancelled run, a run whose worker was killed, the last execution of a run that
 * continued as new, a flow with every node type, a loop continued in a child workflow, a run started
 * by a schedule, the outgoing webhook deliveries of a run, a failed run recording its resume state,
 * a resumed run, a run in the `testCase` durability mode, a run of Parallel lanes whose worker
 * was killed twice, and parallel runs of 16 test cases at once whose worker was killed, in both
 * durability modes: docs/parallel.md) replay
 * against the current workflow bundle. A change to workflow code that
 * would break runs in flight fails here. Refresh the fixtures with `make record-histories` when a
 * change is deliberately made compatible (with `patched()`), never to silence this test.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { DeterminismViolationError } from '@temporalio/workflow';
import { Worker } from '@temporalio/worker';
import { BUNDLE_PATH, workflowSource } from '../../../src/temporal/bundle';
import { HISTORY_FIXTURES, testDataConverter } from '../../helpers/temporal';

const files = fs.existsSync(HISTORY_FIXTURES)
  ? fs
      .readdirSync(HISTORY_FIXTURES)
      .filter((f) => f.endsWith('.json'))
      .sort()
  : [];
const load = (file: string) => JSON.parse(fs.readFileSync(path.join(HISTORY_FIXTURES, file), 'utf8')) as unknown;

describe('replay of recorded workflow histories', function () {
  this.timeout(120_000);

  it('has the fixtures to replay, and a prebuilt bundle', () => {
    expect(files).to.include.members([
      'completed-mixed.json',
      'timed-out.json',
      'cancelled.json',
      'worker-killed.json',
      'continued-as-new-last-execution.json',
      'every-node-type.json',
      'loop-continued-in-child.json',
      'scheduled-run.json',
      'webhook-deliveries.json',
      'failed-with-resume-state.json',
      'resumed-run.json',
      'test-case-durability.json',
      'parallel-lanes-crashed.json',
      'parallel-suite-crashed-node.json',
      'parallel-suite-crashed-testCase.json',
    ]);
    expect(fs.existsSync(BUNDLE_PATH), 'run `npm run build` first').to.equal(true);
  });

  for (const file of files) {
    it(`replays ${file} with the current workflow code`, async () => {
      // The test apps' codec: fixtures recorded before encryption pass through it, later ones decrypt.
      await Worker.runReplayHistory(
        { ...workflowSource(), dataConverter: testDataConverter(), replayName: file },
        load(file),
      );
    });
  }

  it('does fail on workflow code that changed incompatibly', async () => {
    const changed = path.resolve(__dirname, '../../fixtures/workflows/changed-run.js');
    let error: unknown;
    try {
      await Worker.runReplayHistory({ workflowsPath: changed }, load('completed-mixed.json'));
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(DeterminismViolationError);
  });
});
