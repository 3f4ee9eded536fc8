/**
 * The run workflow's suite path (docs/parallel.md): a functional run's test cases scheduled up to
 * the plan's concurrency, with dependencies and bail, each test case's result stored once, by
 * position, whatever order they end in. Runs recorded before it replay the sequential loop of
 * workflows/run.ts; this path is taken behind `patched(SUITE_PATCH)`.
 *
 * - Order: test cases start in the runner's order. One whose dependencies (TestCaseDefinition
 *   `dependsOn`, resolved to positions in the plan's `dependencies`) have not all ended waits, and
 *   the next ones start meanwhile; one whose dependency failed or was skipped is skipped. A
 *   dependency that comes after the test case in the runner's order is refused the same way
 *   (it would wait for ever with concurrency 1).
 * - Determinism: with concurrency above 1, in the `node` mode each test case is a child workflow
 *   (workflows/test-case.ts: its local activities are its own); in the `testCase` mode it runs on a
 *   lane of the workflow port (workflows/workflow-port.ts `testCaseLane`: its own clock and random
 *   source, never ending a workflow task itself, as a Parallel node's lanes, and normal activities
 *   only). With concurrency 1 it runs on the root port, which ends workflow tasks as the
 *   sequential loop does (checkpoints).
 * - Results: a result is stored when its test case ends; results that end together are stored in
 *   one write (`recordTestCaseResults`), and the last ones go with the run's end (`finishRun`).
 * - Bail: once `bail` test cases have failed (quarantined ones do not count), no test case starts;
 *   those under way finish and are stored; the rest are stored skipped by `finishRun`.
 * - Continue-as-new: after `testCasesPerExecution` test cases (or when Temporal suggests it) no new
 *   test case starts; once those under way have ended the workflow continues as new, carrying the
 *   counts and no test case (they live in the store).
 */
import { workflowInfo } from '@temporalio/workflow';
import type { RunPlan, TestCaseDefinition, TestCaseResult } from '../src/domain/types';
import type { ResumePoint, ResumeOptions } from '../src/flow/resume';
import { testCaseAuth } from '../src/domain/auth-profiles';
import { capTestCaseResult } from '../src/domain/limits';
import { frozenParallel } from '../src/domain/parallel';
import { expectedNodeExecutions } from '../src/flow/estimate';
import { FlowInterpreter } from '../src/flow';
import type { InterpreterPort } from '../src/flow';
import type { PlanTestCases } from './plan-source';
import type { SuiteLedger } from './suite-ledger';
import type { TestCaseHooks, WorkflowPort } from './workflow-port';
import { MAX_GROUP, type TestCaseWorkflowOutput } from './test-case';

/** patched() id of the suite path (plans outside history, concurrency, dependencies, bail). */
export const SUITE_PATCH = 'suite-path-parallel-test-cases';

/** A result between being computed and being stored. */
export interface UnstoredResult {
  position: number;
  result: TestCaseResult;
  resumeState?: ResumePoint;
}

/** What the suite path needs from the run workflow. */
export interface SuiteDeps {
  plan: RunPlan;
  ledger: SuiteLedger;
  source: PlanTestCases;
  port: WorkflowPort;
  /** Points the root port's hooks at a test case's (concurrency 1), or at nothing. */
  setRootHooks: (hooks: TestCaseHooks | undefined) => void;
  /** Stores results that ended (one write for the batch). */
  record: (batch: UnstoredResult[]) => Promise<void>;
  /** Stores the run's progress alone (test cases whose child workflows stored their results). */
  saveProgress: () => Promise<void>;
  /** Called when a test case started or ended (the run's current details). */
  changed: () => void;
  /**
   * Runs one test case as a child workflow (workflows/test-case.ts): the `node` mode's way to run
   * test cases side by side. Absent: test cases side by side run on lanes of this workflow.
   */
  runChild?: (
    group: Array<{ position: number; testCase: TestCaseDefinition; resume: ResumeOptions }>,
  ) => Promise<TestCaseWorkflowOutput>;
}

/** How the suite path ended: all done, stopped by bail, or to continue as new. */
export interface SuiteOutcome {
  ending: 'done' | 'bail' | 'continue';
  /** Results computed and not stored yet (the run's end stores them). */
  unstored: UnstoredResult[];
}

/** The state of one suite path execution, for the run's end when it fails (workflows/run.ts). */
export class SuiteRun {
  /** Results computed and not stored yet, by position (also those whose write is under way). */
  readonly unstored = new Map<number, UnstoredResult>();
  /** Test cases under way, by position, with their ids and names. */
  readonly running = new Map<number, { id: string; name: string }>();

  constructor(private readonly deps: SuiteDeps) {}

  /**
   * Runs test cases until every one has ended, bail stopped the run, or this execution ran its
   * share. Throws what a test case threw (the deadline, a cancellation) once it is seen; the test
   * cases still under way then stop with the run's cancellation scope.
   */
  async run(): Promise<SuiteOutcome> {
    const { plan, ledger, source, port } = this.deps;
    const parallel = frozenParallel(plan);
    // Shared variables need order: each test case starts from what the one before ended with.
    const concurrency = plan.variableScope === 'run' ? 1 : parallel.concurrency;
    const dependencies = plan.dependencies ?? {};
    const dependedOn = new Set(Object.values(dependencies).flat());
    const perExecution = plan.settings.testCasesPerExecution;
    const waiting: number[] = [];
    let launchedHere = 0;
    let bailed = false;
    // The first thing a test case (or a write) threw; set from callbacks, so kept in an object.
    const thrown: { failure?: { error: unknown } } = {};
    const failed = (): { error: unknown } | undefined => thrown.failure;
    const rethrow = () => {
      const f = failed();
      if (f) throw f.error;
    };
    // Results to store, written one batch at a time; the last ones are left for the run's end.
    const queue: UnstoredResult[] = [];
    let writing: Promise<void> | undefined;
    // Test cases ended whose results their child workflows stored: only the progress is to write.
    let progressChanged = false;
    const lanes = new Map<number, Promise<void>>();

    /** Whether every dependency of `position` has ended; `blocked`: one failed, was skipped, or comes after it. */
    const dependencyState = (position: number): { ready: boolean; blocked?: string } => {
      for (const dep of dependencies[position] ?? []) {
        if (dep >= position)
          return { ready: true, blocked: `test case ${dep + 1}, which comes after it in the runner's order` };
        const outcome = ledger.outcomes[dep];
        if (outcome === undefined) return { ready: false };
        if (outcome !== 'passed')
          return {
            ready: true,
            blocked: `test case ${dep + 1}, which ${outcome === 'failed' ? 'failed' : 'was skipped'}`,
          };
      }
      return { ready: true };
    };
    const moreToStart = () =>
      !bailed &&
      ledger.nextIndex < source.count &&
      launchedHere < perExecution &&
      !(launchedHere > 0 && workflowInfo().continueAsNewSuggested);
    const flush = () => {
      if (writing) return;
      if (queue.length === 0) {
        if (!progressChanged) return;
        progressChanged = false;
        writing = this.deps
          .saveProgress()
          .catch((error: unknown) => {
            thrown.failure ??= { error };
          })
          .finally(() => {
            writing = undefined;
            flush();
          });
        return;
      }
      // The last results of the run go with its end (one write fewer per run).
      if (lanes.size === 0 && waiting.length === 0 && !moreToStart() && ledger.nextIndex >= source.count) return;
      const batch = queue.splice(0);
      writing = this.deps
        .record(batch)
        .then(() => {
          for (const entry of batch) this.unstored.delete(entry.position);
        })
        .catch((error: unknown) => {
          thrown.failure ??= { error };
        })
        .finally(() => {
          writing = undefined;
          flush();
        });
    };
    const ended = (
      position: number,
      result: TestCaseResult,
      expected: number,
      resumeState?: ResumePoint,
      stored = false,
    ) => {
      const entry: UnstoredResult = { position, result, ...(resumeState ? { resumeState } : {}) };
      if (!stored) this.unstored.set(position, entry);
      this.running.delete(position);
      ledger.testCaseDone(position, result, expected, dependedOn.has(position));
      source.release(position);
      if (parallel.bail > 0 && ledger.failedForBail >= parallel.bail) bailed = true;
      if (stored) progressChanged = true;
      else queue.push(entry);
      this.deps.changed();
    };

    const runOne = async (position: number, testCase: TestCaseDefinition, expected: number): Promise<void> => {
      const hooks: TestCaseHooks = {
        onNodeDone: () => ledger.nodeDone(position),
        onStep: (line) => {
          ledger.step(position, line);
          this.deps.changed();
        },
        segmentProgress: () => ledger.segmentProgress(position),
      };
      let lane: InterpreterPort = port;
      if (concurrency > 1) lane = port.testCaseLane(hooks);
      else this.deps.setRootHooks(hooks);
      try {
        const { result, resumeState } = await runPlannedTestCase(
          lane,
          plan,
          testCase,
          position,
          plan.variableScope === 'run' ? ledger : undefined,
        );
        ended(position, result, expected, resumeState);
      } finally {
        if (concurrency > 1) port.joinLanes([lane]);
        else this.deps.setRootHooks(undefined);
      }
    };

    /** Whether the test case at `position` may share a child workflow: nothing depends on it, it depends on nothing. */
    const groupable = (position: number) => !dependedOn.has(position) && !dependencies[position]?.length;
    /**
     * The `node` mode side by side (workflows/test-case.ts): the test case at `position` and up to
     * MAX_GROUP - 1 following ones (fewer near the end, so the last test cases still spread over
     * the lanes) in one child workflow; each result stored by the child as its test case ends.
     */
    const runGroup = async (
      runChild: NonNullable<SuiteDeps['runChild']>,
      position: number,
      testCase: TestCaseDefinition,
      expected: number,
    ): Promise<void> => {
      const group = [{ position, testCase, resume: resumeOptions(plan, position), expected }];
      const size = Math.max(1, Math.min(MAX_GROUP, Math.floor((source.count - ledger.nextIndex) / (concurrency * 2))));
      while (group.length < size && groupable(position) && moreToStart() && groupable(ledger.nextIndex)) {
        const next = ledger.nextIndex;
        ledger.nextIndex += 1;
        launchedHere += 1;
        const tc = await source.get(next);
        const nextExpected = expectedNodeExecutions(tc, plan.settings.maxLoopIterations);
        this.running.set(next, { id: tc.id, name: tc.name });
        ledger.started(next, tc.name, nextExpected);
        group.push({ position: next, testCase: tc, resume: resumeOptions(plan, next), expected: nextExpected });
      }
      const outcomes = await runChild(
        group.map(({ position: p, testCase: t, resume }) => ({ position: p, testCase: t, resume })),
      );
      for (const [i, out] of outcomes.entries()) {
        const member = group[i]!;
        for (let n = 0; n < out.nodesDone; n++) ledger.nodeDone(member.position);
        // The child stored the result; the ledger needs its outcome.
        const outcome: TestCaseResult = {
          ...skippedResult(member.testCase, ''),
          status: out.status,
          ...(out.quarantined ? { quarantined: true } : {}),
        };
        ended(member.position, outcome, member.expected, undefined, true);
      }
    };

    /** Starts the test case at `position`, or skips it when a dependency blocks it. */
    const start = async (position: number): Promise<void> => {
      const testCase = await source.get(position);
      const expected = expectedNodeExecutions(testCase, plan.settings.maxLoopIterations);
      const state = dependencyState(position);
      if (state.blocked) {
        ended(position, skippedResult(testCase, `Not run: it depends on ${state.blocked}`), expected);
        return;
      }
      this.running.set(position, { id: testCase.id, name: testCase.name });
      ledger.started(position, testCase.name, expected);
      this.deps.changed();
      const runChild = this.deps.runChild;
      const lane = (
        concurrency > 1 && runChild
          ? runGroup(runChild, position, testCase, expected)
          : runOne(position, testCase, expected)
      )
        .catch((error: unknown) => {
          thrown.failure ??= { error };
        })
        .finally(() => {
          lanes.delete(position);
          flush();
        });
      lanes.set(position, lane);
    };

    for (;;) {
      rethrow();
      // Fill the free slots: first a waiting test case whose dependencies ended, else the next one.
      while (!failed() && !bailed && lanes.size < concurrency) {
        const index = waiting.findIndex((p) => dependencyState(p).ready);
        let position: number;
        if (index >= 0) position = waiting.splice(index, 1)[0]!;
        else if (moreToStart()) {
          position = ledger.nextIndex;
          ledger.nextIndex += 1;
          launchedHere += 1;
          if (!dependencyState(position).ready) {
            waiting.push(position);
            continue;
          }
        } else break;
        await start(position);
      }
      rethrow();
      if (lanes.size === 0) {
        if (writing) {
          await writing;
          continue;
        }
        // Waiting test cases whose dependencies can no longer end (nothing under way): skipped.
        if (waiting.length > 0 && !bailed) {
          for (const position of waiting.splice(0)) {
            const testCase = await source.get(position);
            ended(position, skippedResult(testCase, 'Not run: its dependencies did not run'), 0);
          }
          continue;
        }
        break;
      }
      await Promise.race(lanes.values());
    }
    flush();
    while (writing) await writing;
    rethrow();
    const unstored = [...this.unstored.values()].sort((a, b) => a.position - b.position);
    const ending = bailed ? 'bail' : ledger.nextIndex < source.count ? 'continue' : 'done';
    // Continuing as new: every result is stored first (the next execution knows only counts).
    if (ending === 'continue' && unstored.length > 0) {
      await this.deps.record(unstored);
      this.unstored.clear();
      return { ending, unstored: [] };
    }
    return { ending, unstored };
  }
}

/**
 * The interpreter's resume options for the test case at `position` (src/flow/resume.ts): always
 * capture the resume point of a failure; in a resumed run, the resumed test case starts from the
 * plan's `resumeFrom`.
 */
export function resumeOptions(plan: RunPlan, position: number): ResumeOptions {
  const from = plan.resumeFrom;
  return { capture: {}, ...(from && from.position === position ? { from } : {}) };
}

/** Where a test case of a plan whose test cases share their variables starts from and hands them on (a run's ledger). */
export interface SharedVariables {
  variables?: Record<string, unknown>;
  carryVariables(result: TestCaseResult, variables: Record<string, unknown>): TestCaseResult;
}

/**
 * Runs the test case at `position` of `plan` on `port`, as both paths of the run workflow do: from
 * the run's variables, or with `shared` (the plan's `variableScope: 'run'`) from what the one before
 * ended with, handing its own on; the result capped (it is an activity input, written to history:
 * src/domain/limits.ts) and marked quarantined when the plan quarantines it (docs/history.md); a
 * failure's resume point (src/flow/resume.ts).
 */
export async function runPlannedTestCase(
  port: InterpreterPort,
  plan: RunPlan,
  testCase: TestCaseDefinition,
  position: number,
  shared?: SharedVariables,
): Promise<{ result: TestCaseResult; resumeState?: ResumePoint }> {
  const resume = resumeOptions(plan, position);
  let result: TestCaseResult;
  if (shared) {
    const ran = await FlowInterpreter.runTestCaseWithVariables(
      port,
      testCase,
      shared.variables ?? plan.variables,
      testCaseAuth(plan, testCase),
      resume,
      position,
    );
    result = shared.carryVariables(ran.result, ran.variables);
  } else
    result = await FlowInterpreter.runTestCase(
      port,
      testCase,
      plan.variables,
      testCaseAuth(plan, testCase),
      resume,
      position,
    );
  result = capTestCaseResult(result);
  if (result.status === 'failed' && plan.quarantine?.includes(testCase.id)) result = { ...result, quarantined: true };
  const resumeState = result.status === 'failed' ? resume.capture?.point : undefined;
  return { result, ...(resumeState ? { resumeState } : {}) };
}

/** The result of a test case that did not run (a dependency blocked it). */
function skippedResult(testCase: TestCaseDefinition, error: string): TestCaseResult {
  return {
    testCaseId: testCase.id,
    name: testCase.name,
    status: 'skipped',
    duration: 0,
    assertions: 0,
    passedAssertions: 0,
    failures: [],
    nodes: [],
    error,
  };
}
