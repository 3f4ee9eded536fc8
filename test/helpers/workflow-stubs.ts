/**
 * Workflow tests with stubbed activities, as Temporal's TypeScript samples do
 * (samples-typescript `hello-world/src/mocha/workflows-mocks.test.ts`): the real workflow code
 * (the prebuilt bundle `dist/workflow-bundle.js`, or the compiled workflows when it is missing)
 * runs on a Worker whose activities are the stubs below, on a task queue of its own. No store, no
 * HTTP, no sandbox: the test decides what every activity answers and reads what the workflow asked.
 *
 * The server: `TestWorkflowEnvironment.createLocal` on the Temporal CLI already on this machine
 * (`executable: { type: 'existing-path' }`, found by src/temporal/dev-server.ts `findTemporalCli`),
 * a dev server of the file's own (in memory, about half a second to start; it prints its address
 * on start). `TEMPORAL_ADDRESS` names a server to use instead; without a CLI, or when it does not
 * start, the harness's server (test/helpers/harness.ts). Not the time-skipping
 * environment: that one runs Temporal's Java test server (`temporal-test-server`), a binary the
 * SDK downloads and this machine cannot (no internet); the Temporal CLI is not that server (given as
 * its `existing-path`, it prints its usage and the SDK gives up after 5 s). So timeouts under test
 * are short real ones.
 *
 * Stubs by run: each test registers a {@link StubRun} under its run id (the plan `startRun`
 * answers, how API nodes answer) and reads back its {@link ActivityCall}s, in order. Calls that
 * carry no run id (`endWorkflowTask`) are attributed by their workflow id (`run-<runId>`, a loop
 * segment's `run-<runId>-loop-…`).
 */
import { Context } from '@temporalio/activity';
import type { WorkflowHandle } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { temporal } from '@temporalio/proto';
import type { Worker } from '@temporalio/worker';
import type {
  Activities,
  ApiNodeInput,
  ApiNodeOutput,
  FinishRunInput,
  RecordTestCaseInput,
  ScriptNodeInput,
  ScriptNodeOutput,
} from '../../activities';
import type { FlowNode, RunPlan, RunSettings, TestCaseDefinition, TestCaseResult } from '../../src/domain/types';
import { RUN_WORKFLOW_TYPE, type RunWorkflowInput } from '../../src/domain/run-workflow';
import type { runWorkflow } from '../../workflows/run';
import { findTemporalCli } from '../../src/temporal/dev-server';
import { workflowModules, workflowSource } from '../../src/temporal/bundle';
import { AssayWorker } from '../../src/temporal/workflow-worker';
import { getServices } from './harness';

/** Settings of a plan unless a test says otherwise: local activities, no segmenting, the default checkpoint. */
export const STUB_SETTINGS: RunSettings = {
  apiNodeActivity: 'local',
  requestTimeoutMs: 5000,
  maxResponseBytes: 1024 * 1024,
  testCasesPerExecution: 100,
  maxLoopIterations: 1000,
  segmentHistoryEvents: 40_000,
  checkpointMs: 1000,
};

/** The activities the stubs answer (every one the run, loop segment and port code calls for a functional run). */
type StubbedName =
  | 'startRun'
  | 'saveProgress'
  | 'recordTestCaseResult'
  | 'recordTestCaseResults'
  | 'loadPlanTestCases'
  | 'finishRun'
  | 'executeApiNode'
  | 'runScript'
  | 'evaluateExpression'
  | 'endWorkflowTask';

/** One activity call as the stub saw it. */
export interface ActivityCall {
  name: StubbedName;
  workflowId: string;
  /** The workflow execution's run id (a run that continued as new has several). */
  execution: string;
  local: boolean;
  input: unknown;
}

/** What an API node answers: a status and body (default 200, `{}`), and optionally when it ended (epoch ms) or a real delay. */
export interface StubAnswer {
  status?: number;
  body?: unknown;
  finishedAtMs?: number;
  delayMs?: number;
}

/** A run the stubs answer for. */
export interface StubRun {
  plan: RunPlan;
  /** How API nodes answer (default: 200 with `{}`). */
  api?: (input: ApiNodeInput) => StubAnswer | Promise<StubAnswer>;
  /** `startRun` waits for it before answering (to query a run that has not started). */
  startGate?: Promise<void>;
  /** `startRun` throws it instead of answering. */
  startError?: Error;
  calls: ActivityCall[];
}

/** The input of the calls of one activity, in order. */
export function inputsOf(run: StubRun, name: 'recordTestCaseResult'): RecordTestCaseInput[];
export function inputsOf(run: StubRun, name: 'finishRun'): FinishRunInput[];
export function inputsOf(run: StubRun, name: 'executeApiNode'): ApiNodeInput[];
export function inputsOf(run: StubRun, name: StubbedName): unknown[];
export function inputsOf(run: StubRun, name: StubbedName): unknown[] {
  return run.calls.filter((c) => c.name === name).map((c) => c.input);
}

/**
 * Every result a run stored, by position: those its result writes stored, then those a completed
 * run's end stored (`finishRun`'s `unfinished`: workflows/suite.ts leaves the last ones to it).
 */
export function storedResults(run: StubRun): Array<{ position: number; result: TestCaseResult }> {
  const ended = inputsOf(run, 'finishRun').filter((f) => f.status === 'completed');
  return [
    ...inputsOf(run, 'recordTestCaseResult').map(({ position, result }) => ({ position, result })),
    ...ended.flatMap((f) => f.unfinished),
  ].sort((a, b) => a.position - b.position);
}

/** Resolves once `condition` holds (checked every 20 ms), or rejects after `timeoutMs`. */
export async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A promise and the function that resolves it. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** Test case of a plan. */
export function testCase(id: string, flow: FlowNode[], dataSets: Record<string, unknown[]> = {}): TestCaseDefinition {
  return { id, name: `Test case ${id}`, folder: '', tags: [], flow, dataSets };
}

/** An API node `GET http://stub.test<path>`, asserting status 200 unless told otherwise. */
export function apiNode(
  id: string,
  path: string,
  assertions: Array<{ target: string; operator: 'equals'; expected: unknown }> = [
    { target: 'response.status', operator: 'equals', expected: 200 },
  ],
): FlowNode {
  return { id, type: 'api', request: { method: 'GET', url: `http://stub.test${path}` }, assertions };
}

let runs = 0;

/** A fresh run id (`run_WFT…`: no `-`, so workflow ids parse back to it). */
export function newRunId(): string {
  runs += 1;
  return `run_WFT${runs}X${Math.random().toString(36).slice(2, 10).toUpperCase()}`;
}

/** The plan `startRun` answers: `startedAtMs` when the stub is called unless given. */
export function planOf(
  runId: string,
  testCases: TestCaseDefinition[],
  options: { settings?: Partial<RunSettings>; timeoutSeconds?: number; startedAtMs?: number } = {},
): RunPlan {
  return {
    runId,
    workspaceId: 'ws_test',
    runner: 'stub runner',
    environment: 'stub environment',
    timeoutSeconds: options.timeoutSeconds ?? 60,
    startedAtMs: options.startedAtMs ?? 0,
    variables: {},
    testCases,
    settings: { ...STUB_SETTINGS, ...options.settings },
  };
}

/** Events of a history by type name (`WORKFLOW_TASK_COMPLETED`, `CHILD_WORKFLOW_EXECUTION_STARTED`, …). */
export function eventCounts(history: temporal.api.history.v1.IHistory): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const event of history.events ?? []) {
    const name = (temporal.api.enums.v1.EventType[event.eventType ?? 0] ?? String(event.eventType)).replace(
      /^EVENT_TYPE_/,
      '',
    );
    counts[name] = (counts[name] ?? 0) + 1;
  }
  return counts;
}

export interface StubWorkflowEnv {
  env: TestWorkflowEnvironment;
  taskQueue: string;
  /** Registers a run for the stubs (call before starting its workflow). */
  register(run: Omit<StubRun, 'calls'>): StubRun;
  /** Starts the run workflow of a registered run as the API does: workflow id `run-<runId>`, the run id in the input. */
  start(run: StubRun): Promise<WorkflowHandle<typeof runWorkflow>>;
  /** Terminates the workflows started here that are still open (a test that failed midway), stops the Worker and the server. */
  stop(): Promise<void>;
}

/** The server (see the module comment): `TEMPORAL_ADDRESS`, else a dev server of our own from the CLI, else the harness's. */
async function environment(): Promise<TestWorkflowEnvironment> {
  if (process.env.TEMPORAL_ADDRESS)
    return TestWorkflowEnvironment.createFromExistingServer({ address: process.env.TEMPORAL_ADDRESS });
  const cli = findTemporalCli();
  if (cli) {
    try {
      return await TestWorkflowEnvironment.createLocal({
        server: { executable: { type: 'existing-path', path: cli }, log: { format: 'pretty', level: 'never' } },
      });
    } catch {
      // The SDK gives its dev server 5 s to answer; the harness waits longer (or starts a container).
    }
  }
  const { temporalAddress } = await getServices();
  return TestWorkflowEnvironment.createFromExistingServer({ address: temporalAddress });
}

/**
 * What `value` resolves to, unless the activity is cancelled first (then it throws): a stub held by
 * a test that failed midway does not hold the Worker's shutdown.
 */
async function untilCancelled<T>(value: T | Promise<T>): Promise<T> {
  return Promise.race([value, Context.current().cancelled]);
}

/**
 * Sleeps `ms` in an activity, heartbeating, so that a cancel (the workflow's, or its end) reaches
 * it and it stops: cancelled, it throws (a local activity's cancel arrives without heartbeats).
 */
async function sleepHeartbeating(ms: number): Promise<void> {
  const ctx = Context.current();
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (!ctx.info.isLocal) ctx.heartbeat();
    await ctx.sleep(Math.min(50, end - Date.now()));
  }
}

/**
 * The environment, and a Worker on a task queue named `<queuePrefix>-<random>` serving
 * the workflow bundle with the stubs; it runs until {@link StubWorkflowEnv.stop}.
 */
export async function startStubWorkflowEnv(queuePrefix: string): Promise<StubWorkflowEnv> {
  const env = await environment();
  const taskQueue = `${queuePrefix}-${Math.random().toString(36).slice(2, 10)}`;
  const registry = new Map<string, StubRun>();

  /** Records a call under its run (by `runId`, else by the calling workflow's id) and returns the run. */
  const log = (name: StubbedName, runId: string | undefined, input: unknown): StubRun => {
    const info = Context.current().info;
    const workflowId = info.workflowExecution?.workflowId ?? '';
    const id = runId ?? /^run-(run_[^-]+)/.exec(workflowId)?.[1];
    const run = id === undefined ? undefined : registry.get(id);
    if (!run) throw new Error(`no stub run registered for ${runId ?? workflowId}`);
    // A copy: the stub keeps what it was given, not what the caller changes later.
    run.calls.push({
      name,
      workflowId,
      execution: info.workflowExecution?.runId ?? '',
      local: info.isLocal,
      input: structuredClone(input),
    });
    return run;
  };

  const activities: Pick<Activities, StubbedName> = {
    async startRun(input) {
      const run = log('startRun', input.runId, input);
      await untilCancelled(run.startGate);
      if (run.startError) throw run.startError;
      return { ...run.plan, startedAtMs: run.plan.startedAtMs || Date.now() };
    },
    async saveProgress(input) {
      log('saveProgress', input.runId, input);
    },
    async recordTestCaseResult(input) {
      log('recordTestCaseResult', input.runId, input);
    },
    // The suite path (workflows/suite.ts) stores results in batches: each is logged as one
    // `recordTestCaseResult` call, so tests read every stored result the same way.
    async recordTestCaseResults(input) {
      const { results, ...progress } = input;
      for (const r of results) log('recordTestCaseResult', input.runId, { ...progress, ...r });
    },
    async loadPlanTestCases(input) {
      const run = log('loadPlanTestCases', input.runId, input);
      return { from: input.from, testCases: run.plan.testCases.slice(input.from) };
    },
    async finishRun(input) {
      log('finishRun', input.runId, input);
    },
    async executeApiNode(input): Promise<ApiNodeOutput> {
      const run = log('executeApiNode', input.runId, input);
      const answer = (await untilCancelled(run.api?.(input))) ?? {};
      if (answer.delayMs) await sleepHeartbeating(answer.delayMs);
      const status = answer.status ?? 200;
      const finishedAtMs = answer.finishedAtMs ?? Date.now();
      return {
        request: { method: input.request.method, url: input.request.url, headers: input.request.headers },
        exchange: {
          status,
          headers: { 'content-type': 'application/json' },
          body: answer.body ?? {},
          size: 2,
          truncated: false,
          timeMs: 1,
          finishedAtMs,
        },
        attempts: [{ attempt: 1, status, timeMs: 1 }],
        variables: input.variables,
        logs: [],
        finishedAtMs,
      };
    },
    async runScript(input: ScriptNodeInput): Promise<ScriptNodeOutput> {
      log('runScript', input.runId, input);
      return { ok: true, variables: input.variables, logs: [], durationMs: 0, finishedAtMs: Date.now() };
    },
    // No flow here needs the heavy-expression path: recorded, and answered with an error.
    async evaluateExpression(input) {
      log('evaluateExpression', undefined, input);
      return { error: { message: 'not stubbed', code: 'STUB' } };
    },
    async endWorkflowTask() {
      log('endWorkflowTask', undefined, undefined);
    },
  };

  const worker: Worker = await AssayWorker.create({
    connection: env.nativeConnection,
    taskQueue,
    ...workflowSource(),
    interceptors: { workflowModules: workflowModules() },
    activities,
    // Heartbeats reach the server at once, so a stub that sleeps learns of its cancel at once.
    defaultHeartbeatThrottleInterval: '50 ms',
    maxHeartbeatThrottleInterval: '50 ms',
  });
  const running = worker.run();

  const started: WorkflowHandle[] = [];

  return {
    env,
    taskQueue,
    register(run) {
      const registered: StubRun = { ...run, calls: [] };
      registry.set(run.plan.runId, registered);
      return registered;
    },
    async start(run) {
      const input: RunWorkflowInput = { runId: run.plan.runId, trigger: 'api' };
      const handle = await env.client.workflow.start<typeof runWorkflow>(RUN_WORKFLOW_TYPE, {
        taskQueue,
        workflowId: `run-${run.plan.runId}`,
        args: [input],
      });
      started.push(handle);
      return handle;
    },
    async stop() {
      // Left running, a workflow keeps a test's `result()` polling a connection about to close.
      await Promise.all(started.map((h) => h.terminate('test over').catch(() => undefined)));
      worker.shutdown();
      await running;
      await env.teardown();
    },
  };
}
