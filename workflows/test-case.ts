/**
 * One test case of a parallel run in the `node` durability mode (docs/parallel.md "Durability"): a
 * child workflow of the run (`run-<runId>-tc-<position>`), which runs the test case as the run
 * workflow runs one alone: every node its own durable step, local activities, checkpoints. The
 * run starts up to its concurrency of them (workflows/suite.ts).
 *
 * Why a child and not a lane of the run's workflow: local activities of test cases side by side in
 * one workflow are replayed in an order history does not record (which of them reach the workflow
 * code together), so a replay could schedule them otherwise; a child's activities are its own, and
 * the run sees only each child's start and end, which history records. Each child's workflow
 * tasks go to any worker of the task queue, so one run's test cases spread over the fleet.
 */
import { CancellationScope, proxyLocalActivities, setCurrentDetails, setHandler } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { OriginLimits, RunSettings, TestCaseDefinition, TestCaseResult } from '../src/domain/types';
import type { TestCaseAuth } from '../src/domain/auth-profiles';
import type { ResumeOptions } from '../src/flow/resume';
import { callbackSignal } from '../src/domain/run-workflow';
import { CallbackInbox } from '../src/domain/callback-inbox';
import { capTestCaseResult } from '../src/domain/limits';
import { FlowInterpreter } from '../src/flow';
import { createWorkflowPort } from './workflow-port';
import { endedByTimeout, timedOutFailure } from './endings';
import { startLoopSegment } from './segment';

/** The result write: retried until it lands or the run's deadline passes (as the run's own, workflows/run.ts). */
const store = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '10 seconds' },
});

/** Steps listed in the child's current details. */
const KEPT_STEPS = 6;

/** What the run hands one test case's child workflow. */
export interface TestCaseWorkflowInput {
  runId: string;
  /** The test case's place in the run's plan (node execution ids: src/flow/execution-id.ts). */
  position: number;
  testCase: TestCaseDefinition;
  /** The run's variables (RunPlan `variables`). */
  variables: Record<string, unknown>;
  auth?: TestCaseAuth;
  /** A resumed run's resume point, when it is this test case's (RunPlan `resumeFrom`). */
  resumeFrom?: ResumeOptions['from'];
  settings: RunSettings;
  /** Epoch ms by which the run must end. */
  deadlineMs: number;
  servers?: Record<string, string>;
  mockScope?: { workspaceId: string; scope: string };
  callbacks?: { baseUrl: string; key: string };
  originLimits?: OriginLimits;
  debug?: true;
  /** The plan quarantines this test case (RunPlan `quarantine`): a failure is reported `quarantined`. */
  quarantined?: true;
}

/**
 * What it hands back: its outcome and node executions. The result itself (and a failure's resume
 * point) the child stores, by position, before it ends, so that the run's history holds each test
 * case's definition once and no result.
 */
export interface TestCaseWorkflowOutput {
  status: TestCaseResult['status'];
  quarantined?: true;
  nodesDone: number;
}

export async function testCaseWorkflow(input: TestCaseWorkflowInput): Promise<TestCaseWorkflowOutput> {
  // Callback nodes get addresses naming this workflow (docs/async.md "Callbacks").
  const inbox = new CallbackInbox();
  setHandler(callbackSignal, (delivery) => inbox.add(delivery));
  let nodesDone = 0;
  const steps: string[] = [];
  const port = createWorkflowPort({
    runId: input.runId,
    settings: input.settings,
    deadlineMs: input.deadlineMs,
    ...(input.servers ? { servers: input.servers } : {}),
    ...(input.mockScope ? { mockScope: input.mockScope } : {}),
    ...(input.debug ? { debug: true } : {}),
    ...(input.originLimits ? { originLimits: input.originLimits } : {}),
    ...(input.callbacks ? { callbacks: { ...input.callbacks, inbox } } : {}),
    startLoopSegment,
    onNodeDone: () => {
      nodesDone += 1;
    },
    onStep: (line) => {
      steps.push(line);
      if (steps.length > KEPT_STEPS) steps.shift();
      setCurrentDetails(
        [`**${input.testCase.name}** (test case ${input.position + 1})`, '', ...steps.map((s) => `- ${s}`)].join('\n'),
      );
    },
  });
  const scope = new CancellationScope({ cancellable: true, timeout: Math.max(1, input.deadlineMs - Date.now()) });
  try {
    return await scope.run(async () => {
      const resume: ResumeOptions = { capture: {}, ...(input.resumeFrom ? { from: input.resumeFrom } : {}) };
      const result = await FlowInterpreter.runTestCase(
        port,
        input.testCase,
        input.variables,
        input.auth,
        resume,
        input.position,
      );
      const point = result.status === 'failed' ? resume.capture?.point : undefined;
      // Capped (src/domain/limits.ts): the result is an activity input.
      let stored = capTestCaseResult(result);
      const quarantined = stored.status === 'failed' && input.quarantined;
      if (quarantined) stored = { ...stored, quarantined: true };
      await store.recordTestCaseResults({
        runId: input.runId,
        results: [{ position: input.position, result: stored, ...(point ? { resumeState: point } : {}) }],
      });
      return { status: stored.status, nodesDone, ...(quarantined ? { quarantined: true as const } : {}) };
    });
  } catch (err) {
    if (endedByTimeout(err)) throw timedOutFailure('The run reached its timeout');
    throw err;
  }
}
