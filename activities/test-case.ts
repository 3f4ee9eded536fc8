/**
 * The `testCase` durability mode's activity (docs/durability.md "Durability modes"): top-level
 * nodes of one test case, run in one activity through the direct port (activities/direct-port.ts:
 * the same interpreter and node implementations as the per-node activities), instead of one durable
 * step per node. The workflow splits each test case into such segments at nodes that wait
 * (src/flow/segments.ts) and hands the interpreter's state from one to the next.
 *
 * Checkpoints: after a top-level node, at most every {@link HEARTBEAT_MS}, the activity takes a
 * checkpoint (the state after it, the results so far and the counts) and heartbeats it; a timer
 * heartbeats the latest one every {@link HEARTBEAT_MS} in between, so a slow request is no dead
 * worker (the worker sends the latest to Temporal at most every second, bin/worker.ts). A retry (a worker killed, a heartbeat timeout) starts at the
 * top-level node after the last checkpoint Temporal holds, with that state; without one (the crash
 * came first, or the checkpoint was over {@link CHECKPOINT_BYTES}) it starts the segment again from
 * its input. So a crash repeats the top-level node under way (in full: a Loop's iterations, a
 * Parallel's lanes) and the top-level nodes finished since the last checkpoint Temporal received.
 *
 * Live progress: with the request's `progress`, the run's stored progress (`work`, from which the
 * API computes the estimate) moves with the nodes, written at most every second.
 */
import { Context, CancelledFailure } from '@temporalio/activity';
import type { DataSource } from 'typeorm';
import type { InterpreterPort } from '../src/flow';
import { DeadlineReached, FlowInterpreter, type ResumePoint } from '../src/flow';
import type { TestCaseSegmentOutput, TestCaseSegmentRequest } from '../src/flow/segments';
import type { FlowState } from '../src/flow/types';
import type { NodeResult, RunSettings } from '../src/domain/types';
import type { CallbackPort } from '../src/domain/callbacks';
import type { OriginLimits } from '../src/domain/node-io';
import { callbackUrl } from '../src/domain/callback-address';
import { jsonBytes } from '../src/domain/limits';
import type { DirectPortOptions } from './direct-port';
import { updateProgress } from './runs';
import { workDone } from '../src/flow/estimate';

/**
 * Least milliseconds between two checkpoints, and between two heartbeats, of a segment: the
 * worker sends at most one heartbeat a second (bin/worker.ts), and each heartbeat's details are
 * encoded (JSON, the payload codec) when it is made, so more often would cost without helping.
 */
export const HEARTBEAT_MS = 1000;
/** Least milliseconds between two writes of the run's progress. */
export const PROGRESS_MS = 1000;
/** Bytes of JSON a checkpoint may take (heartbeat details); over it the previous one is kept. */
export const CHECKPOINT_BYTES = 512 * 1024;
/** Step lines kept for the run's details. */
const KEPT_STEPS = 6;

/** Where the run stands, for the stored progress (workflows/run-ledger.ts `RunLedger.work`). */
export interface SegmentProgress {
  /** Test cases done and in all (the run's `progress`). */
  completed: number;
  total: number;
  /** Expected node executions of the test cases before this one, of this one, and of the run. */
  workBefore: number;
  workExpected: number;
  workTotal: number;
  /** Node executions of this test case before the segment. */
  nodesBefore: number;
}

/** The activity's input: the interpreter's request and what the port needs of the run. */
export interface TestCaseSegmentInput extends TestCaseSegmentRequest {
  runId: string;
  settings: RunSettings;
  /** Epoch ms by which the run must end. */
  deadlineMs: number;
  servers?: Record<string, string>;
  mockScope?: { workspaceId: string; scope: string };
  /** The plan's callback address base and key (templates' `{{callback.url}}`). */
  callbacks?: { baseUrl: string; key: string };
  progress?: SegmentProgress;
  /** A debug run (RunPlan `debug`): node results get their capture (src/flow/debug.ts); absent otherwise. */
  debug?: true;
  /** The run's per-origin limits (RunPlan `parallel.originLimits`; docs/parallel.md); absent: none. */
  originLimits?: OriginLimits;
}

/** A checkpoint: the state before top-level node `next`, and what the segment did until then. */
interface SegmentCheckpoint {
  next: number;
  state: FlowState;
  nodes: NodeResult[];
  nodesDone: number;
  capture?: ResumePoint;
}

/** Heartbeat details: progress for people (the Web UI shows them), and the checkpoint. */
export interface SegmentHeartbeat {
  nodesDone: number;
  lastStep?: string;
  checkpoint?: SegmentCheckpoint;
}

/** The state with copied maps and lists: handlers replace entries, never change a value in place (src/flow/resume.ts). */
function copyState(state: FlowState): FlowState {
  return {
    ...state,
    variables: { ...state.variables },
    nodes: { ...state.nodes },
    loops: [...state.loops],
    failures: [...state.failures],
  };
}

/**
 * The activity over a factory of direct ports (activities/direct-port.ts `directPorts`) and the
 * store the run's progress is written to.
 */
export function createTestCaseActivities(deps: {
  ports: (options: DirectPortOptions) => InterpreterPort;
  dataSource: DataSource;
}) {
  return {
    /**
     * Runs top-level nodes `[start, end)` of a test case (see the module comment). Returns failures
     * as data, as the interpreter does; the deadline as `deadlineReached`.
     * @throws CancelledFailure when the activity was cancelled (the run cancelled or timed out)
     */
    async runTestCaseSegment(input: TestCaseSegmentInput): Promise<TestCaseSegmentOutput> {
      const context = Context.current();
      const { info } = context;
      const execution = info.workflowExecution ?? { workflowId: input.runId, runId: '' };
      const workflowId = execution.workflowId;
      const saved = (info.heartbeatDetails as SegmentHeartbeat | undefined)?.checkpoint;
      const resumed = saved && saved.next > input.start && saved.next <= input.end ? saved : undefined;

      let nodesDone = resumed?.nodesDone ?? 0;
      const steps: string[] = [];
      let lastStep: string | undefined;
      let checkpoint = resumed;
      const capture: { point?: ResumePoint } = resumed?.capture ? { point: resumed.capture } : {};
      const results: NodeResult[] = resumed ? [...resumed.nodes] : [];

      let lastBeat = 0;
      const beat = () => {
        lastBeat = Date.now();
        context.heartbeat({ nodesDone, ...(lastStep ? { lastStep } : {}), ...(checkpoint ? { checkpoint } : {}) });
      };
      let lastProgress = Date.now();
      const progress = input.progress;
      const writeProgress = () => {
        lastProgress = Date.now();
        if (!progress) return;
        const work = workDone({
          before: progress.workBefore,
          expected: progress.workExpected,
          nodes: progress.nodesBefore + nodesDone,
          total: progress.workTotal,
        });
        // Best effort: the workflow stores the progress again when the test case ends.
        void updateProgress(deps.dataSource.manager, {
          runId: input.runId,
          progress: { completed: progress.completed, total: progress.total },
          work,
        }).catch(() => undefined);
      };

      const callbacks: CallbackPort | undefined = input.callbacks
        ? {
            url: (key) => callbackUrl(input.callbacks!, { runId: input.runId, workflowId, key }),
            wait: () => Promise.reject(new Error('Callback nodes wait in the workflow, not in a test case segment')),
          }
        : undefined;
      const port = deps.ports({
        runId: input.runId,
        settings: input.settings,
        deadlineMs: input.deadlineMs,
        ...(input.servers ? { servers: input.servers } : {}),
        ...(input.mockScope ? { mockScope: input.mockScope } : {}),
        executionIds: true,
        ...(input.debug ? { debug: true } : {}),
        ...(input.originLimits ? { originLimits: input.originLimits } : {}),
        capOutput: true,
        signal: context.cancellationSignal,
        stopped: () => new CancelledFailure('The test case segment was cancelled'),
        recordStep: (line) => {
          lastStep = line;
        },
        onNodeDone: () => {
          nodesDone += 1;
        },
        ...(callbacks ? { callbacks } : {}),
      });

      const interpreter = new FlowInterpreter(
        port,
        input.testCase,
        resumed ? copyState(resumed.state) : input.state,
        [],
        input.flow,
      );
      const from = resumed?.next ?? input.start;
      // No heartbeat before the first node: the worker sends the first one at once and holds the next
      // for a second, so the first checkpoint (after the first node) should be the one sent at once.
      // Heartbeats on a timer, not only between nodes: a slow request or script must not look like a dead worker.
      const timer = setInterval(() => {
        const now = Date.now();
        if (now - lastBeat >= HEARTBEAT_MS) beat();
        if (now - lastProgress >= PROGRESS_MS) writeProgress();
      }, HEARTBEAT_MS / 2);
      let lastCheckpoint = 0;
      try {
        await interpreter.runRange(
          input.flow,
          from,
          input.end,
          input.capture ? capture : undefined,
          (index, result) => {
            results.push(result);
            const node = input.flow[index]!;
            steps.push(
              `${result.status === 'failed' ? '✗' : result.status === 'skipped' ? '–' : '✓'} ${node.name ?? node.id}`,
            );
            if (steps.length > KEPT_STEPS) steps.shift();
            // None after the last node: the activity returns right after it.
            if (Date.now() - lastCheckpoint < HEARTBEAT_MS || index + 1 >= input.end) return;
            lastCheckpoint = Date.now();
            const next: SegmentCheckpoint = {
              next: index + 1,
              state: copyState(interpreter.state),
              nodes: [...results],
              nodesDone,
              ...(capture.point ? { capture: capture.point } : {}),
            };
            // Over the cap the last checkpoint that fitted stays: a retry repeats more, nothing breaks.
            if (jsonBytes(next) <= CHECKPOINT_BYTES) checkpoint = next;
            beat();
          },
        );
      } catch (err) {
        if (err instanceof DeadlineReached)
          return {
            nodes: [],
            state: { ...interpreter.state, nodes: {} },
            nodesDone,
            deadlineReached: true,
            attempt: info.attempt,
            steps,
            finishedAtMs: Date.now(),
          };
        throw err;
      } finally {
        clearInterval(timer);
      }
      writeProgress();
      const state = input.more ? interpreter.state : { ...interpreter.state, nodes: {} };
      return {
        nodes: results,
        state,
        nodesDone,
        ...(input.capture && capture.point ? { capture: capture.point } : {}),
        attempt: info.attempt,
        ...(resumed ? { resumedAt: resumed.next } : {}),
        steps,
        finishedAtMs: Date.now(),
      };
    },
  };
}
