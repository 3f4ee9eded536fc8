/**
 * The interpreter's workflow port: how its effects become Temporal commands (durable steps),
 * shared by the run workflow and the loop segment workflow. The other adapter of the same port,
 * activities/direct-port.ts, runs flows in-process (src/flow/port.ts).
 *
 * - API nodes and Script nodes are activities: local ones by default (about 1 ms each on the dev
 *   server, against about 100 ms for a normal activity; docs/benchmarks.md), normal ones when
 *   `apiNodeActivity` is `normal`.
 * - A local activity keeps the workflow task open, so nothing from the outside (a cancel, a timer,
 *   a query) reaches the workflow until the task ends: at most every {@link CHECKPOINT_MS} of local
 *   work, `endWorkflowTask` (a no-op normal activity) ends the task.
 * - The clock: inside one workflow task `Date.now()` does not move, so the time activities report
 *   (recorded in history, hence the same on replay) moves it forward; the deadline is checked
 *   against it before every node.
 * - Wait nodes are durable timers.
 * - The rest of a long loop runs in a child workflow (`loopSegmentWorkflow`). `historyLength` only
 *   moves when a workflow task starts, and local activities add their markers when it ends, so the
 *   estimate adds the markers not in history yet.
 * - Expressions are evaluated here with a small step budget; one that needs more runs again in a
 *   local activity with a larger budget and a wall-clock limit (src/domain/expressions.ts).
 * - Pure in-workflow work (Context and IF nodes, loop iterations, expressions) holds the worker's
 *   workflow thread: no other run's workflow task runs meanwhile. So the work of one workflow task
 *   is metered ({@link TASK_WORK_BUDGET}: JSONata steps, plus {@link NODE_WORK} per node or loop
 *   iteration); past the budget the task ends with the no-op `endWorkflowTask` activity (other workflows
 *   run, then this one goes on) and the deadline is checked with the new task's clock. Not a 1 ms
 *   timer: on a Temporal server with its default dynamic config such a timer fires after 0.8–0.9 s
 *   (about 50 ms on the dev server Assay starts; docs/async.md "Timer resolution"), the activity
 *   returns in tens of ms. Its events are in `historyLength` from the next task on, so the
 *   segmenting estimate counts them. Guarded by `patched(YIELD_PATCH)`: histories recorded before replay without them.
 * - The no-op activity was called `checkpoint` before (a word Assay keeps for heartbeat details);
 *   runs started before the rename go on calling it until their histories are replayed
 *   (`patched(END_WORKFLOW_TASK_PATCH)`), and the worker registers both.
 */
import {
  ActivityCancellationType,
  condition,
  proxyActivities,
  patched,
  proxyLocalActivities,
  sleep,
  uuid4,
  workflowInfo,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { RunSettings } from '../src/domain/types';
import type { OriginLimits } from '../src/domain/node-io';
import {
  BUDGET_CODE,
  evaluateExpression,
  ExpressionError,
  WORKFLOW_LIMITS,
  type StepMeter,
} from '../src/domain/expressions';
import { jsonBytes, overCapMessage, PAYLOAD_LIMITS } from '../src/domain/limits';
import { DeadlineReached, type InterpreterPort, type LoopSegmentInput, type LoopSegmentOutput } from '../src/flow';
import { childTimedOut } from './endings';
import type { CallbackPort } from '../src/domain/callbacks';
import type { CallbackInbox } from '../src/domain/callback-inbox';
import { callbackId, callbackTag, callbackUrl } from '../src/domain/callback-address';
import { waitingLine, type RunWaiting } from '../src/domain/run-workflow';
import type { Durability, ReceivedCallback } from '../src/domain/types';
import type { SegmentProgress, TestCaseSegmentInput } from '../activities/test-case';
import type { TestCaseSegmentOutput, TestCaseSegmentRequest } from '../src/flow/segments';
import { seededRandom, uuidFrom } from '../src/domain/random';

/** Longest stretch of local activities before a normal activity ends the workflow task, unless the run's settings say otherwise (`checkpointMs`). */
export const CHECKPOINT_MS = 1000;
/**
 * Work one workflow task may do before it yields (a `checkpoint` activity), in JSONata evaluation steps; a
 * node or a loop iteration counts {@link NODE_WORK}. Measured inside the workflow sandbox, a unit
 * costs 0.15 to 1 ms by machine load, so a task yields after about 0.03 to 0.2 s (the workflow task
 * timeout is 2 s by default). Issue 10 item 12.
 */
export const TASK_WORK_BUDGET = 200;
/** Work counted for each node and each loop iteration (their own bookkeeping, besides expressions). */
export const NODE_WORK = 2;
/** patched() id of the yield past {@link TASK_WORK_BUDGET}. */
export const YIELD_PATCH = 'yield-after-task-work-budget';
/** patched() id of the no-op activity's new name, `endWorkflowTask` (it was `checkpoint`). */
export const END_WORKFLOW_TASK_PATCH = 'end-workflow-task-activity';

const nodeActivities = proxyActivities<Activities>({ startToCloseTimeout: '1 minute' });
const localNodeActivities = proxyLocalActivities<Activities>({ startToCloseTimeout: '1 minute' });
// No attempt limit: a database outage holds the run at the end of a workflow task until the deadline, never fails it.
const noOp = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumInterval: '10 seconds' },
});

/** Ends the current workflow task with the no-op activity (its old name in runs started before the rename). */
function endWorkflowTask(): Promise<void> {
  return patched(END_WORKFLOW_TASK_PATCH) ? noOp.endWorkflowTask() : noOp.checkpoint();
}

/** What the port of one workflow execution is built from. */
export interface WorkflowPortOptions {
  runId: string;
  settings: RunSettings;
  deadlineMs: number;
  /** The run's servers (RunPlan `servers`); absent for a plan without them. */
  servers?: Readonly<Record<string, string>>;
  /** The run's mock scope and workspace (RunPlan `mockScope`); absent for a plan without it. */
  mockScope?: { workspaceId: string; scope: string };
  /** Called after each node. */
  onNodeDone?: () => void;
  /** Ends the workflow task (a normal activity; default the no-op `endWorkflowTask`); the run workflow stores its progress there. */
  endTask?: () => Promise<void>;
  /** A finished step as one line for people (InterpreterPort.recordStep). */
  onStep?: (line: string) => void;
  /**
   * Runs the rest of a long loop in a child workflow (workflows/segment.ts `startLoopSegment`), given
   * by the caller so that this module and the segment workflow, which builds a port of its own, do
   * not import each other.
   */
  startLoopSegment: (
    input: LoopSegmentInput,
    child: { workflowId: string; staticSummary: string },
  ) => Promise<LoopSegmentOutput>;
  /**
   * Callback nodes (docs/async.md "Callbacks"): the plan's `callbacks` (address base and key) and
   * the inbox the workflow's `callback` signal handler fills. Absent for a plan without them: the
   * port then has no `callbacks` and Callback nodes fail saying so.
   */
  callbacks?: { baseUrl: string; key: string; inbox: CallbackInbox };
  /** A wait began (Callback nodes; Poll nodes between attempts: InterpreterPort.setWaiting) or ended (`undefined`): the run's live state and details. */
  onWaiting?: (waiting: RunWaiting | undefined) => void;
  /**
   * The run's durability mode (RunPlan `durability`): with `testCase`, the port offers
   * `runTestCaseSegment` (one activity per segment of a test case, src/flow/segments.ts). Absent or
   * `node`: every node is its own durable step.
   */
  durability?: Durability;
  /** Where the run stands before a test case segment, for the progress the segment stores (activities/test-case.ts). */
  segmentProgress?: () => SegmentProgress;
  /**
   * A debug run (RunPlan `debug`): the port says so (InterpreterPort `debug`), and test case
   * segments capture too. Absent for every other run: nothing changes.
   */
  debug?: boolean;
  /** The run's per-origin limits (RunPlan `parallel.originLimits`): API nodes and segments carry them. Absent: none. */
  originLimits?: OriginLimits;
  /**
   * Every activity a normal one, whatever `apiNodeActivity` says: for test cases run side by side
   * (docs/parallel.md). A workflow task's local activities are recorded as markers, and which of
   * them reach the workflow code together in one activation is not recorded; with several test
   * cases under way, what one decides (the next test case to start, the sequence number of its next
   * activity) would depend on that, and a replay could schedule activities in another order (a
   * nondeterminism error: test/fixtures/histories/parallel-suite-crashed-node.json showed it).
   * Normal activities' completions arrive with the workflow tasks recorded in history.
   */
  normalActivitiesOnly?: boolean;
}

/** How long a test case segment may go without a heartbeat before Temporal retries it elsewhere. */
export const SEGMENT_HEARTBEAT_TIMEOUT = '5 seconds';
/** Attempts of a test case segment (a worker dying mid-segment; a bug that throws). */
export const SEGMENT_ATTEMPTS = 5;

/**
 * The workflow's side of Callback nodes: addresses whose token names this workflow, and waits that
 * consume the inbox in arrival order, sleeping on `condition` (a durable timer for the timeout, no
 * activity held) until the signal handler adds a callback at the key.
 */
function workflowCallbacks(
  options: NonNullable<WorkflowPortOptions['callbacks']>,
  runId: string,
  deadlineMs: number,
  now: () => number,
  onWaiting: WorkflowPortOptions['onWaiting'],
): CallbackPort {
  const { inbox, key: planKey } = options;
  return {
    url(key) {
      return callbackUrl(options, { runId, workflowId: workflowInfo().workflowId, key });
    },
    async wait(request) {
      const id = callbackId(callbackTag(planKey, workflowInfo().workflowId, request.key));
      const sinceMs = now();
      const untilMs = Math.min(sinceMs + request.timeoutMs, deadlineMs);
      const accepted: ReceivedCallback[] = [];
      let unmatched = 0;
      let timedOut = false;
      let seen = 0;
      const waiting: RunWaiting = {
        nodeId: request.nodeId,
        kind: 'callback',
        since: new Date(sinceMs).toISOString(),
        until: new Date(untilMs).toISOString(),
        callbackId: id,
        ...(request.match !== undefined ? { match: request.match } : {}),
      };
      const line = `${request.summary}: ${waitingLine(waiting)}`;
      const summary = line.length > 200 ? `${line.slice(0, 199)}…` : line;
      onWaiting?.(waiting);
      try {
        for (;;) {
          for (const entry of inbox.after(request.key, seen)) {
            seen = entry.seq;
            if (await request.accept(entry.callback)) {
              inbox.take(request.key, entry.seq);
              accepted.push(entry.callback);
              if (accepted.length >= request.count) break;
            } else unmatched += 1;
          }
          if (accepted.length >= request.count) break;
          const left = untilMs - now();
          if (left <= 0 || !(await condition(() => inbox.has(request.key, seen), left, { summary }))) {
            timedOut = true;
            break;
          }
        }
      } finally {
        onWaiting?.(undefined);
      }
      return { accepted, unmatched, timedOut, id, sinceMs, untilMs, dropped: inbox.dropped[request.key] ?? 0 };
    },
  };
}

/**
 * A port's clock (see the module comment): `now()` in epoch ms; `observe` moves it to a time an
 * activity reported; `waited` moves it past a durable timer of `ms`.
 */
interface PortClock {
  now(): number;
  observe(ms: number): void;
  waited(ms: number): void;
}

/** A pseudo-random source (the workflow's seeded `Math.random`, or a lane's own). */
type Random = () => number;

/**
 * What one test case under way reports to the run (its node count, steps, the progress its
 * segments store): the root port's come from {@link WorkflowPortOptions}; a test case lane
 * ({@link WorkflowPort.testCaseLane}) has its own, and Parallel lanes inherit their parent's.
 */
export interface TestCaseHooks {
  onNodeDone?: () => void;
  onStep?: (line: string) => void;
  segmentProgress?: () => SegmentProgress;
}

/** The workflow port: the interpreter's port, plus lanes for test cases run side by side. */
export interface WorkflowPort extends InterpreterPort {
  /**
   * A port for one test case run beside others (docs/parallel.md), made when it starts: a lane as
   * a Parallel node's (its own clock from now, a random source seeded from the workflow's, never
   * ending a workflow task itself), with `hooks` for what it reports and, in the `testCase`
   * durability mode, its own activity segments.
   */
  testCaseLane(hooks: TestCaseHooks): InterpreterPort;
  /** Moves this port's clock to the latest of `lanes`' (a test case lane that ended). */
  joinLanes(lanes: InterpreterPort[]): void;
}

/** patched() id of the Parallel lanes' own clocks and random sources ({@link LANE_PATCH}). */
export const LANE_PATCH = 'parallel-lane-clocks';

/**
 * The interpreter's port for one workflow execution (see the module comment).
 *
 * Parallel lanes (InterpreterPort `lane`): in one workflow task, the results of local activities of
 * different lanes can reach the workflow code one by one the first time and together on replay
 * (a replayed task resolves each local activity as soon as it is scheduled), so anything a lane
 * decides from a value other lanes move (the clock the activities' readings move, the markers
 * counted since the task began, the workflow's random source) can come out otherwise on replay: a
 * nondeterminism error, and a run stuck after a crash. So each lane gets a port of its own, with a
 * clock that only its own activities and timers move (starting at the parent's time when the
 * lanes start), the history length without uncounted markers, and a random source seeded when
 * the lanes start; a lane never ends a workflow task on its own (no checkpoint, no yield: the
 * Parallel node does after its lanes joined, the parent clock then at the latest lane's). Behind
 * `patched(LANE_PATCH)`: histories recorded before it replay with the shared port.
 */
export function createWorkflowPort(options: WorkflowPortOptions): WorkflowPort {
  const { runId, settings, deadlineMs } = options;
  // Test cases side by side: normal activities only (see WorkflowPortOptions `normalActivitiesOnly`).
  const local = settings.apiNodeActivity === 'local' && !options.normalActivitiesOnly;
  const activities = local ? localNodeActivities : nodeActivities;
  const expressionActivities = options.normalActivitiesOnly ? nodeActivities : localNodeActivities;
  // Frozen in the plan (RunSettings.checkpointMs); plans from before it have none.
  const checkpointMs = settings.checkpointMs ?? CHECKPOINT_MS;
  let observed = 0;
  let lastBoundary = Date.now();
  const rootClock: PortClock = {
    now: () => Math.max(Date.now(), observed),
    observe: (ms) => {
      observed = Math.max(observed, ms);
    },
    waited: () => undefined,
  };
  const now = rootClock.now;
  const endTask = options.endTask ?? endWorkflowTask;
  // Local activity markers written since the history length was last seen to change.
  let seenHistory = 0;
  let pendingMarkers = 0;
  const historyLength = () => {
    const length = workflowInfo().historyLength;
    if (length !== seenHistory) {
      seenHistory = length;
      pendingMarkers = 0;
    }
    return length + pendingMarkers;
  };
  const localDone = () => {
    historyLength();
    if (local) pendingMarkers += 1;
  };
  // Work done in the current workflow task. A new task is seen by the history length changing.
  const meter: StepMeter = { steps: 0 };
  let meteredTaskHistory = -1;
  const workInTask = (): number => {
    const length = workflowInfo().historyLength;
    if (length !== meteredTaskHistory) {
      meteredTaskHistory = length;
      meter.steps = 0;
    }
    return meter.steps;
  };
  /** Counts `work`; past the budget, ends the task with the no-op activity (a promise), else undefined (no extra await). */
  const pace = (work: number): Promise<void> | undefined => {
    if (workInTask() + work < TASK_WORK_BUDGET) {
      meter.steps += work;
      return undefined;
    }
    meter.steps += work;
    if (!patched(YIELD_PATCH)) return undefined;
    return (async () => {
      await endWorkflowTask();
      lastBoundary = Date.now();
      if (now() >= deadlineMs) throw new DeadlineReached();
    })();
  };
  const activityOptions = (timeoutMs: number, summary: string): ActivityOptions => ({
    startToCloseTimeout: timeoutMs,
    // Network errors come back as data; a retry only covers a worker that died mid-node.
    retry: { maximumAttempts: 3, initialInterval: '200 milliseconds' },
    cancellationType: ActivityCancellationType.TRY_CANCEL,
    summary,
  });

  // A normal activity's input is written to history when it is scheduled (a local activity's is
  // not): over the cap the node fails here, instead of every workflow task failing with
  // GrpcMessageTooLarge until the run's deadline (src/domain/limits.ts).
  const inputTooLarge = (input: unknown): string | undefined => {
    if (local) return undefined;
    const bytes = jsonBytes(input);
    return bytes > PAYLOAD_LIMITS.activityInputBytes
      ? overCapMessage(
          "the node's input (variables and earlier nodes' requests and responses)",
          bytes,
          PAYLOAD_LIMITS.activityInputBytes,
        )
      : undefined;
  };

  /**
   * One activity for top-level nodes of a test case (the `testCase` durability mode,
   * activities/test-case.ts): heartbeating, retried after a worker dies (resuming at its last
   * checkpoint), cancelled with the run's scope. An input over the payload cap runs here node by
   * node instead, as in the `node` mode.
   */
  const runTestCaseSegment = async (
    clock: PortClock,
    hooks: TestCaseHooks,
    lane: boolean,
    request: TestCaseSegmentRequest,
    summary: string,
  ): Promise<TestCaseSegmentOutput | undefined> => {
    const cb = options.callbacks;
    const input: TestCaseSegmentInput = {
      ...request,
      runId,
      settings,
      deadlineMs,
      ...(options.servers ? { servers: { ...options.servers } } : {}),
      ...(options.mockScope ? { mockScope: options.mockScope } : {}),
      ...(cb ? { callbacks: { baseUrl: cb.baseUrl, key: cb.key } } : {}),
      ...(hooks.segmentProgress ? { progress: hooks.segmentProgress() } : {}),
      ...(options.debug ? { debug: true as const } : {}),
      ...(options.originLimits ? { originLimits: options.originLimits } : {}),
    };
    // Written to history when scheduled: over the cap, the interpreter runs these nodes here.
    if (jsonBytes(input) > PAYLOAD_LIMITS.activityInputBytes) return undefined;
    const out = await nodeActivities.runTestCaseSegment.executeWithOptions(
      {
        startToCloseTimeout: Math.max(1000, deadlineMs - clock.now()) + 30_000,
        heartbeatTimeout: SEGMENT_HEARTBEAT_TIMEOUT,
        retry: { maximumAttempts: SEGMENT_ATTEMPTS, initialInterval: '200 milliseconds' },
        cancellationType: ActivityCancellationType.TRY_CANCEL,
        // Test cases side by side: through the server's matching, to any worker of the task queue.
        // Eagerly dispatched (src/temporal/dev-server.ts), each segment went to the worker that
        // completed the workflow task, i.e. the one holding the run: 61 of 64 test cases on one of
        // two hosts (test/cluster/suite-hosts.test.ts). Sequential runs keep eager dispatch.
        allowEagerDispatch: !options.normalActivitiesOnly,
        summary,
      },
      [input],
    );
    clock.observe(out.finishedAtMs);
    for (let i = 0; i < out.nodesDone; i++) hooks.onNodeDone?.();
    for (const line of out.steps) hooks.onStep?.(line);
    if (!lane) lastBoundary = Date.now();
    return out;
  };

  /**
   * The port over `clock` and `random`: the root's (`lane` false), a Parallel lane's or a test case
   * lane's; `hooks` say where its test case reports, `segments` whether it runs activity segments.
   */
  const build = (
    clock: PortClock,
    random: Random,
    lane: boolean,
    hooks: TestCaseHooks,
    segments: boolean,
  ): WorkflowPort => {
    const at = clock.now;
    const uuid = lane ? () => uuidFrom(random) : uuid4;
    const port: WorkflowPort = {
      runId,
      settings,
      deadlineMs,
      ...(options.servers ? { servers: options.servers } : {}),
      ...(options.mockScope ? { mockScope: options.mockScope } : {}),
      executionIds: true,
      ...(options.debug ? { debug: true } : {}),
      dynamic: {
        uuid,
        now: at,
        random,
        ...(options.mockScope ? { runId: options.mockScope.scope } : {}),
      },
      now: at,
      async executeApiNode(input, summary) {
        const attempts = input.retry?.attempts ?? 1;
        const perAttempt = Math.min(input.request.timeoutMs, Math.max(1, deadlineMs - at()));
        const hooks = input.script ? 2 * 30_000 : 0;
        const delays = (attempts - 1) * (input.retry?.maxDelayMs ?? 10_000);
        const bounded = {
          ...input,
          ...(options.originLimits ? { originLimits: options.originLimits } : {}),
          request: { ...input.request, timeoutMs: perAttempt },
        };
        const tooLarge = inputTooLarge(bounded);
        if (tooLarge) {
          const when = at();
          return {
            request: { method: input.request.method, url: input.request.url, headers: {} },
            exchange: {
              headers: {},
              size: 0,
              truncated: false,
              timeMs: 0,
              error: tooLarge,
              errorCode: 'INPUT_TOO_LARGE',
              finishedAtMs: when,
            },
            attempts: [],
            variables: input.variables,
            logs: [],
            finishedAtMs: when,
          };
        }
        // Under per-origin limits a request may wait for its slot until the run's deadline (src/net/origin-gate.ts).
        const own = perAttempt * attempts + delays + hooks + 10_000;
        const startToClose = options.originLimits ? Math.max(own, deadlineMs - at() + 10_000) : own;
        const out = await activities.executeApiNode.executeWithOptions(activityOptions(startToClose, summary), [
          bounded,
        ]);
        clock.observe(out.finishedAtMs);
        localDone();
        // Cut short by the run's deadline, not by its own timeout: the test case is interrupted.
        const last = out.exchange;
        if (last?.errorCode === 'TIMEOUT' && perAttempt < input.request.timeoutMs) throw new DeadlineReached();
        // No slot of its origin before the run's deadline (docs/parallel.md "Protecting the target"): likewise.
        if (last?.errorCode === 'ORIGIN_LIMIT_TIMEOUT') throw new DeadlineReached();
        return out;
      },
      async callGrpc(input, summary) {
        // The call's deadline cut to the time left before the run's deadline.
        const perCall = Math.min(input.deadlineMs, Math.max(1, deadlineMs - at()));
        const bounded = { ...input, deadlineMs: perCall };
        const tooLarge = inputTooLarge(bounded);
        if (tooLarge) {
          const base = { path: `${input.service}/${input.method}`, target: input.target, streaming: false };
          return {
            ...base,
            ...{ headers: {}, trailers: {}, messages: [], count: 0, truncated: false, size: 0, timeMs: 0 },
            error: tooLarge,
            errorCode: 'INPUT_TOO_LARGE',
            finishedAtMs: at(),
          };
        }
        const out = await activities.callGrpcNode.executeWithOptions(activityOptions(perCall + 10_000, summary), [
          bounded,
        ]);
        clock.observe(out.finishedAtMs);
        localDone();
        // DEADLINE_EXCEEDED because the run's deadline cut the call short: the test case is interrupted.
        if (out.code === 4 && perCall < input.deadlineMs) throw new DeadlineReached();
        return out;
      },
      async verifyMocks(input, summary) {
        // Only mockVerify nodes reach here: a new activity on their path alone (histories without them replay unchanged).
        const out = await activities.verifyMocks.executeWithOptions(activityOptions(30_000, summary), [input]);
        clock.observe(out.finishedAtMs);
        localDone();
        return out;
      },
      async runScript(input, summary) {
        const tooLarge = inputTooLarge(input);
        if (tooLarge)
          return {
            ok: false,
            variables: input.variables,
            logs: [],
            error: { kind: 'limit', message: tooLarge },
            durationMs: 0,
            finishedAtMs: at(),
          };
        const out = await activities.runScript.executeWithOptions(
          activityOptions(settings.requestTimeoutMs + 40_000, summary),
          [input],
        );
        clock.observe(out.finishedAtMs);
        localDone();
        return out;
      },
      async runStream(input, summary) {
        const tooLarge = inputTooLarge(input);
        if (tooLarge) {
          const when = at();
          return {
            request: { method: input.method ?? 'GET', url: input.url, headers: {} },
            outcome: { count: 0, first: [], last: [], stoppedBy: 'error' },
            headers: {},
            size: 0,
            timeMs: 0,
            error: tooLarge,
            errorCode: 'INPUT_TOO_LARGE',
            finishedAtMs: when,
          };
        }
        // The node's own timeout bounds the connection; the margin covers an auth profile's token request.
        const out = await activities.runStreamNode.executeWithOptions(
          activityOptions(input.timeoutMs + 15_000, summary),
          [input],
        );
        clock.observe(out.finishedAtMs);
        localDone();
        return out;
      },
      async evaluate(expression, input) {
        workInTask();
        try {
          return await evaluateExpression(expression, input, {}, WORKFLOW_LIMITS, meter);
        } catch (err) {
          if (!(err instanceof ExpressionError) || err.code !== BUDGET_CODE) throw err;
        }
        const out = await expressionActivities.evaluateExpression.executeWithOptions(
          { startToCloseTimeout: '10 seconds', retry: { maximumAttempts: 2 }, summary: 'heavy expression' },
          [{ expression, input }],
        );
        if (!options.normalActivitiesOnly) pendingMarkers += 1;
        if (out.error) throw new ExpressionError(out.error.message, expression, out.error.code);
        return out.value;
      },
      async sleep(ms, summary) {
        await sleep(ms, { summary });
        clock.waited(ms);
        if (!lane) lastBoundary = Date.now();
      },
      // A lane reads the history length as the task gives it: markers it would count are other lanes' too.
      historyLength: lane ? () => workflowInfo().historyLength : historyLength,
      async runLoopSegment(input: LoopSegmentInput): Promise<LoopSegmentOutput> {
        const cb = options.callbacks;
        try {
          return await options.startLoopSegment(
            cb ? { ...input, callbacks: { baseUrl: cb.baseUrl, key: cb.key } } : input,
            {
              workflowId: `run-${runId}-loop-${input.node.id}-${uuid().slice(0, 8)}`,
              staticSummary: `Loop ${input.node.id} from iteration ${input.start + 1}`,
            },
          );
        } catch (err) {
          if (childTimedOut(err)) throw new DeadlineReached();
          throw err;
        } finally {
          if (!lane) lastBoundary = Date.now();
        }
      },
      beforeNode() {
        if (at() >= deadlineMs) throw new DeadlineReached();
      },
      async afterNode() {
        hooks.onNodeDone?.();
        if (lane) return;
        if (local && now() - lastBoundary >= checkpointMs) {
          await endTask();
          lastBoundary = Date.now();
        }
        const pause = pace(NODE_WORK);
        if (pause) await pause;
      },
      afterIteration() {
        return lane ? undefined : pace(NODE_WORK);
      },
      ...(hooks.onStep ? { recordStep: hooks.onStep } : {}),
      ...(segments
        ? {
            runTestCaseSegment: (request: TestCaseSegmentRequest, summary: string) =>
              runTestCaseSegment(clock, hooks, lane, request, summary),
          }
        : {}),
      ...(options.onWaiting ? { setWaiting: options.onWaiting } : {}),
      ...(options.callbacks
        ? { callbacks: workflowCallbacks(options.callbacks, runId, deadlineMs, at, options.onWaiting) }
        : {}),
      lane(): InterpreterPort | undefined {
        if (!patched(LANE_PATCH)) return undefined;
        return newLane(hooks, false);
      },
      testCaseLane(laneHooks: TestCaseHooks): InterpreterPort {
        return newLane(laneHooks, options.durability === 'testCase');
      },
      joinLanes(lanes: InterpreterPort[]) {
        for (const l of lanes) clock.observe(l.now());
      },
    };
    /** A lane started now, at a point every replay reaches alike: this port's time and a seed drawn from its random source. */
    function newLane(laneHooks: TestCaseHooks, laneSegments: boolean): WorkflowPort {
      let laneTime = at();
      const laneClock: PortClock = {
        now: () => laneTime,
        observe: (ms) => {
          laneTime = Math.max(laneTime, ms);
        },
        waited: (ms) => {
          laneTime += ms;
        },
      };
      return build(laneClock, seededRandom(Math.floor(random() * 2 ** 32)), true, laneHooks, laneSegments);
    }
    return port;
  };

  const rootHooks: TestCaseHooks = {
    ...(options.onNodeDone ? { onNodeDone: options.onNodeDone } : {}),
    ...(options.onStep ? { onStep: options.onStep } : {}),
    ...(options.segmentProgress ? { segmentProgress: options.segmentProgress } : {}),
  };
  return build(rootClock, () => Math.random(), false, rootHooks, options.durability === 'testCase');
}
