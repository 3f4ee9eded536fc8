/**
 * The suite ledger ({@link SuiteLedger}): the run workflow's bookkeeping when its test cases are
 * scheduled side by side (docs/parallel.md) and its plan's test cases live outside its history
 * (loaded by position: workflows/plan-source.ts). The counterpart of workflows/run-ledger.ts, which
 * runs recorded before it replay with. Pure and deterministic (times come from the workflow clock
 * passed in).
 */
import type { RunPlan, RunProgress, RunStatus, RunSummary, TestCaseResult } from '../src/domain/types';
import { jsonBytes, overCapMessage, PAYLOAD_LIMITS } from '../src/domain/limits';
import {
  waitingLine,
  type ResumeState,
  type RunLiveState,
  type RunWaiting,
  type SuiteResume,
} from '../src/domain/run-workflow';
import { CallbackInbox } from '../src/domain/callback-inbox';
import { estimateCompletion } from '../src/flow/estimate';
import type { SegmentProgress } from '../activities/test-case';

/** Steps listed under each test case under way in the run's current details. */
const KEPT_STEPS = 4;
/** Test cases under way listed by name in the details. */
const LISTED_UNDER_WAY = 8;

/** A test case under way: its name, its expected node executions, the node executions so far. */
interface UnderWay {
  name: string;
  expected: number;
  nodes: number;
  steps: string[];
}

/**
 * The bookkeeping of one run workflow execution on the suite path: the plan's head, counts and
 * summary, the test cases under way, the work done against that expected (progress, the estimate)
 * and the state it continues as new with.
 */
export class SuiteLedger {
  status: RunStatus = 'queued';
  plan?: RunPlan;
  /** Test cases in the plan. */
  count = 0;
  /** Position of the next test case to start (every position before it is done or under way). */
  nextIndex = 0;
  /** Test cases done so far. */
  done = 0;
  nodesDone = 0;
  /** Expected node executions of the whole plan, and of the test cases done. */
  totalNodes = 0;
  workFinished = 0;
  summary: RunSummary = { total: 0, passed: 0, failed: 0, skipped: 0 };
  quarantined = 0;
  /** Failed test cases that count towards `bail` (not the quarantined ones). */
  failedForBail = 0;
  /** With `variableScope: 'run'`: the variables the last test case ended with. */
  variables?: Record<string, unknown>;
  /** Outcomes by position of the test cases others depend on. */
  outcomes: Record<number, TestCaseResult['status']> = {};
  readonly inbox: CallbackInbox;
  waiting?: RunWaiting;
  readonly underWay = new Map<number, UnderWay>();

  constructor(private readonly resume?: ResumeState & { suite?: SuiteResume }) {
    this.inbox = new CallbackInbox(resume?.callbacks);
  }

  /**
   * Starts the bookkeeping of `plan`, with `count` test cases expecting `expectedNodes` node
   * executions together; a continued execution takes up its counts from the resume state.
   */
  begin(plan: RunPlan, count: number, expectedNodes: number): void {
    this.plan = plan;
    this.status = 'running';
    this.count = count;
    this.totalNodes = expectedNodes;
    this.summary.total = count;
    const from = plan.resumeFrom;
    if (from) {
      this.nextIndex = Math.min(from.position, count);
      this.done = this.nextIndex;
      this.summary = { ...this.summary, ...from.before };
    }
    const resume = this.resume;
    if (resume) {
      this.nextIndex = resume.nextIndex;
      this.summary = { ...resume.summary };
      this.nodesDone = resume.nodesDone;
      this.variables = resume.variables;
      this.quarantined = resume.quarantined ?? 0;
      this.done = resume.suite?.done ?? resume.nextIndex;
      this.workFinished = resume.suite?.workFinished ?? 0;
      this.outcomes = { ...(resume.suite?.outcomes ?? {}) };
      this.failedForBail = resume.suite?.failedForBail ?? Math.max(0, this.summary.failed - this.quarantined);
    }
  }

  /** Epoch ms by which the run must end. */
  get deadlineMs(): number {
    return this.plan ? this.plan.startedAtMs + this.plan.timeoutSeconds * 1000 : Number.MAX_SAFE_INTEGER;
  }

  /** A test case starts at `position`. */
  started(position: number, name: string, expected: number): void {
    this.underWay.set(position, { name, expected, nodes: 0, steps: [] });
  }

  /** A node of the test case at `position` ended. */
  nodeDone(position: number): void {
    this.nodesDone += 1;
    const u = this.underWay.get(position);
    if (u) u.nodes += 1;
  }

  /** A step of the test case at `position` ended ({@link details}). */
  step(position: number, line: string): void {
    const u = this.underWay.get(position);
    if (!u) return;
    u.steps.push(line);
    if (u.steps.length > KEPT_STEPS) u.steps.shift();
  }

  /**
   * The test case at `position` ended with `result` (or was skipped without starting); `expected`
   * counts its node executions towards the work done.
   */
  testCaseDone(position: number, result: TestCaseResult, expected: number, dependedOn: boolean): void {
    if (result.status === 'passed') this.summary.passed += 1;
    else if (result.status === 'skipped') this.summary.skipped += 1;
    else this.summary.failed += 1;
    if (result.status === 'failed') {
      if (result.quarantined) this.quarantined += 1;
      else this.failedForBail += 1;
    }
    if (dependedOn) this.outcomes[position] = result.status;
    this.underWay.delete(position);
    this.done += 1;
    this.workFinished += expected;
  }

  /** Where the run stands before a segment of the test case at `position` (activities/test-case.ts). */
  segmentProgress(position: number): SegmentProgress {
    const u = this.underWay.get(position);
    return {
      completed: this.progress.completed,
      total: this.progress.total,
      workBefore: this.workFinished + this.partialWork(position),
      workExpected: u?.expected ?? 0,
      workTotal: this.totalNodes,
      nodesBefore: u?.nodes ?? 0,
    };
  }

  /** Expected node executions credited to test cases under way other than `except` (at most 95 % of each). */
  private partialWork(except?: number): number {
    let sum = 0;
    for (const [position, u] of this.underWay) if (position !== except) sum += Math.min(u.nodes, 0.95 * u.expected);
    return sum;
  }

  /** Fraction of the run's work done, 0 to 1: the test cases done, plus those under way (at most 95 % each). */
  get work(): number {
    if (!this.plan || this.totalNodes <= 0) return this.count > 0 ? this.done / this.count : 0;
    if (this.done >= this.count) return 1;
    return Math.min(1, (this.workFinished + this.partialWork()) / this.totalNodes);
  }

  get progress(): RunProgress & { running: number } {
    const total = this.count;
    const completed = Math.min(this.done, total);
    return {
      completed,
      total,
      percentage: total === 0 ? 0 : Math.round((completed / total) * 1000) / 10,
      running: this.underWay.size,
    };
  }

  /** Epoch ms when the run should end at the pace so far. */
  estimatedCompletionMs(nowMs: number): number | undefined {
    if (!this.plan) return undefined;
    return estimateCompletion({
      startedAtMs: this.plan.startedAtMs,
      deadlineMs: this.deadlineMs,
      work: this.work,
      nowMs,
    });
  }

  live(nowMs: number): RunLiveState {
    const state: RunLiveState = { status: this.status, progress: this.progress };
    if (this.plan) state.startedAt = new Date(this.plan.startedAtMs).toISOString();
    const eta = this.status === 'running' ? this.estimatedCompletionMs(nowMs) : undefined;
    if (eta !== undefined) state.estimatedCompletion = new Date(eta).toISOString();
    if (this.waiting && this.status === 'running') state.waiting = { ...this.waiting };
    return state;
  }

  /** As workflows/run-ledger.ts `RunLedger.carryVariables` (variableScope `run`). */
  carryVariables(result: TestCaseResult, variables: Record<string, unknown>): TestCaseResult {
    const bytes = jsonBytes(variables);
    if (bytes <= PAYLOAD_LIMITS.variablesBytes) {
      this.variables = variables;
      return result;
    }
    const message = `The variables this test case ended with are not passed on to the next: ${overCapMessage('they', bytes, PAYLOAD_LIMITS.variablesBytes)}`;
    return { ...result, status: 'failed', failures: [...result.failures, { node: '', message }] };
  }

  /**
   * The state the next execution starts from: the plan without its test cases when they live in the
   * store (`outlined`), every position before {@link nextIndex} done.
   */
  resumeState(outlined: boolean): ResumeState & { suite: SuiteResume } {
    if (!this.plan) throw new Error('no plan to resume');
    const callbacks = this.inbox.state();
    return {
      ...(callbacks ? { callbacks } : {}),
      plan: outlined ? { ...this.plan, testCases: [] } : this.plan,
      nextIndex: this.nextIndex,
      summary: { ...this.summary },
      nodesDone: this.nodesDone,
      ...(this.variables ? { variables: this.variables } : {}),
      ...(this.quarantined ? { quarantined: this.quarantined } : {}),
      suite: {
        workFinished: this.workFinished,
        done: this.done,
        ...(Object.keys(this.outcomes).length ? { outcomes: { ...this.outcomes } } : {}),
        failedForBail: this.failedForBail,
      },
    };
  }

  /** Markdown for the Temporal Web UI's current details: counts, and the test cases under way with their latest steps. */
  details(): string {
    const p = this.progress;
    const s = this.summary;
    const lines = [
      `**${this.plan?.runner ?? '?'}** on **${this.plan?.environment ?? '?'}**: ${this.status}`,
      '',
      `Test cases: ${p.completed}/${p.total} (${p.percentage}%), passed ${s.passed}, failed ${s.failed}, skipped ${s.skipped}${p.running ? `, under way ${p.running}` : ''}`,
      `Nodes: ${this.nodesDone} run, about ${this.totalNodes} expected`,
    ];
    if (this.status === 'running') {
      const escape = (line: string) => line.replace(/[\\`*_[\]<>]/g, '\\$&');
      let listed = 0;
      for (const [position, u] of this.underWay) {
        if (listed++ >= LISTED_UNDER_WAY) {
          lines.push('', `… and ${this.underWay.size - LISTED_UNDER_WAY} more under way`);
          break;
        }
        lines.push('', `Under way: **${escape(u.name)}** (test case ${position + 1} of ${this.count})`);
        lines.push(...u.steps.map((line) => `- ${escape(line)}`));
      }
      if (this.waiting) lines.push(`- ${escape(waitingLine(this.waiting))}`);
    }
    return lines.join('\n');
  }
}
