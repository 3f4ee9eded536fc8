/**
 * Test cases of a parallel run in the `node` durability mode (docs/parallel.md "Durability"): a
 * child workflow of the run (`run-<runId>-tc-<position of its first>`) runs a group of up to
 * {@link MAX_GROUP} consecutive test cases one after another, as the run workflow runs them alone:
 * every node its own durable step, local activities, checkpoints; each result stored as its test
 * case ends. The run keeps up to its concurrency of them under way (workflows/suite.ts); a group
 * amortises a child's start and end (a few Temporal server round trips) over its test cases.
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

/** The most test cases one child runs (workflows/suite.ts picks fewer near the end of a run). */
export const MAX_GROUP = 4;

/** Steps listed in the child's current details. */
const KEPT_STEPS = 6;

/** One test case of a child workflow's group. */
export interface TestCaseWorkflowItem {
  /** The test case's place in the run's plan (node execution ids: src/flow/execution-id.ts). */
  position: number;
  testCase: TestCaseDefinition;
  auth?: TestCaseAuth;
  /** A resumed run's resume point, when it is this test case's (RunPlan `resumeFrom`). */
  resumeFrom?: ResumeOptions['from'];
  /** The plan quarantines this test case (RunPlan `quarantine`): a failure is reported `quarantined`. */
  quarantined?: true;
}

/** What the run hands a child workflow: a group of test cases, run one after another. */
export interface TestCaseWorkflowInput {
  runId: string;
  items: TestCaseWorkflowItem[];
  /** The run's variables (RunPlan `variables`). */
  variables: Record<string, unknown>;
  settings: RunSettings;
  /** Epoch ms by which the run must end. */
  deadlineMs: number;
  servers?: Record<string, string>;
  mockScope?: { workspaceId: string; scope: string };
  callbacks?: { baseUrl: string; key: string };
  originLimits?: OriginLimits;
  debug?: true;
}

/**
 * What it hands back: its outcome and node executions. The result itself (and a failure's resume
 * point) the child stores, by position, before it ends, so that the run's history holds each test
 * case's definition once and no result.
 */
export interface TestCaseWorkflowOutcome {
  position: number;
  status: TestCaseResult['status'];
  quarantined?: true;
  nodesDone: number;
}

/** The outcome of each test case of the group, in order. */
export type TestCaseWorkflowOutput = TestCaseWorkflowOutcome[];

export async function testCaseWorkflow(input: TestCaseWorkflowInput): Promise<TestCaseWorkflowOutput> {
  // Callback nodes get addresses naming this workflow (docs/async.md "Callbacks").
  const inbox = new CallbackInbox();
  setHandler(callbackSignal, (delivery) => inbox.add(delivery));
  let nodesDone = 0;
  let current = '';
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
      setCurrentDetails([`**${current}**`, '', ...steps.map((s) => `- ${s}`)].join('\n'));
    },
  });
  const scope = new CancellationScope({ cancellable: true, timeout: Math.max(1, input.deadlineMs - Date.now()) });
  try {
    return await scope.run(async () => {
      const outcomes: TestCaseWorkflowOutcome[] = [];
      for (const item of input.items) {
        nodesDone = 0;
        steps.length = 0;
        current = `${item.testCase.name} (test case ${item.position + 1})`;
        const resume: ResumeOptions = { capture: {}, ...(item.resumeFrom ? { from: item.resumeFrom } : {}) };
        const result = await FlowInterpreter.runTestCase(
          port,
          item.testCase,
          input.variables,
          item.auth,
          resume,
          item.position,
        );
        const point = result.status === 'failed' ? resume.capture?.point : undefined;
        // Capped (src/domain/limits.ts): the result is an activity input.
        let stored = capTestCaseResult(result);
        const quarantined = stored.status === 'failed' && item.quarantined;
        if (quarantined) stored = { ...stored, quarantined: true };
        await store.recordTestCaseResults({
          runId: input.runId,
          results: [{ position: item.position, result: stored, ...(point ? { resumeState: point } : {}) }],
        });
        outcomes.push({
          position: item.position,
          status: stored.status,
          nodesDone,
          ...(quarantined ? { quarantined: true as const } : {}),
        });
      }
      return outcomes;
    });
  } catch (err) {
    if (endedByTimeout(err)) throw timedOutFailure('The run reached its timeout');
    throw err;
  }
}
