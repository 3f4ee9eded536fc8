/**
 * The run's ledger ({@link RunLedger}): the run workflow's bookkeeping of counts, summary,
 * progress and the estimate of completion. Pure and deterministic (times come from the workflow
 * clock passed in).
 */
import type { RunPlan, RunProgress, RunStatus, RunSummary, TestCaseResult } from '../src/domain/types';
import { jsonBytes, overCapMessage, PAYLOAD_LIMITS } from '../src/domain/limits';
import { waitingLine, type ResumeState, type RunLiveState, type RunWaiting } from '../src/domain/run-workflow';
import { CallbackInbox } from '../src/domain/callback-inbox';
import { estimateCompletion, expectedNodeExecutions, workDone } from '../src/flow/estimate';
import type { SegmentProgress } from '../activities/test-case';

/** Steps listed under the test case under way in the run's current details. */
const KEPT_STEPS = 6;

/**
 * The bookkeeping of one run workflow execution: the plan, the test cases done and the summary,
 * the node executions done against those expected (progress, the work fraction and the estimate),
 * the live state the query answers and the state it continues as new with.
 */
export class RunLedger {
  status: RunStatus = 'queued';
  plan?: RunPlan;
  nextIndex = 0;
  nodesDone = 0;
  /** Node executions in the test case under way. */
  nodesInTestCase = 0;
  /** Expected node executions per test case ({@link expectedNodeExecutions}) and their prefix sums. */
  private expected: number[] = [];
  private expectedBefore: number[] = [];
  totalNodes = 0;
  summary: RunSummary = { total: 0, passed: 0, failed: 0, skipped: 0 };
  /** Failed test cases the plan quarantines (`quarantined: true`), counted in `summary.failed` but not failing the run. */
  quarantined = 0;
  /**
   * With the plan's `variableScope: 'run'`: the variables the last test case ended with, which the
   * next one starts from (carried across continue-as-new in {@link resumeState}); else undefined.
   */
  variables?: Record<string, unknown>;
  /** Callbacks received and not consumed yet (the `callback` signal fills it; carried across continue-as-new). */
  readonly inbox: CallbackInbox;
  /** The wait under way (a Callback node; a Poll node between attempts), for the live state and the details. */
  waiting?: RunWaiting;

  constructor(resume?: ResumeState) {
    this.inbox = new CallbackInbox(resume?.callbacks);
    if (resume) {
      this.begin(resume.plan);
      this.nextIndex = resume.nextIndex;
      this.summary = { ...resume.summary };
      this.nodesDone = resume.nodesDone;
      this.variables = resume.variables;
      this.quarantined = resume.quarantined ?? 0;
    }
  }

  begin(plan: RunPlan): void {
    this.plan = plan;
    this.status = 'running';
    this.expected = plan.testCases.map((tc) => expectedNodeExecutions(tc, plan.settings.maxLoopIterations));
    let sum = 0;
    this.expectedBefore = this.expected.map((e) => {
      const before = sum;
      sum += e;
      return before;
    });
    this.totalNodes = sum;
    this.summary.total = plan.testCases.length;
    // A resumed run starts at the resumed position; the results before it were copied from the origin.
    const from = plan.resumeFrom;
    if (from) {
      this.nextIndex = Math.min(from.position, plan.testCases.length);
      this.summary = { ...this.summary, ...from.before };
    }
  }

  /** Epoch ms by which the run must end. */
  get deadlineMs(): number {
    return this.plan ? this.plan.startedAtMs + this.plan.timeoutSeconds * 1000 : Number.MAX_SAFE_INTEGER;
  }

  nodeDone(): void {
    this.nodesDone += 1;
    this.nodesInTestCase += 1;
  }

  /**
   * Fraction of the run's work done, 0 to 1: the expected node executions of the test cases done,
   * plus those of the test case under way (at most 95 % of it until it ends: a loop may run longer
   * than expected).
   */
  get work(): number {
    if (!this.plan || this.totalNodes === 0) return 0;
    const i = Math.min(this.nextIndex, this.expected.length);
    if (i >= this.expected.length) return 1;
    return workDone({
      before: this.expectedBefore[i]!,
      expected: this.expected[i]!,
      nodes: this.nodesInTestCase,
      total: this.totalNodes,
    });
  }

  /** Where the run stands before a test case segment of the test case under way (activities/test-case.ts `SegmentProgress`). */
  segmentProgress(): SegmentProgress {
    const i = Math.min(this.nextIndex, Math.max(0, this.expected.length - 1));
    return {
      completed: this.progress.completed,
      total: this.progress.total,
      workBefore: this.expectedBefore[i] ?? 0,
      workExpected: this.expected[i] ?? 0,
      workTotal: this.totalNodes,
      nodesBefore: this.nodesInTestCase,
    };
  }

  testCaseDone(result: TestCaseResult): void {
    if (result.status === 'passed') this.summary.passed += 1;
    else if (result.status === 'skipped') this.summary.skipped += 1;
    else this.summary.failed += 1;
    if (result.status === 'failed' && result.quarantined) this.quarantined += 1;
    this.nextIndex += 1;
    this.nodesInTestCase = 0;
    this.steps = [];
  }

  get progress(): RunProgress {
    const total = this.plan?.testCases.length ?? 0;
    const completed = Math.min(this.nextIndex, total);
    return { completed, total, percentage: total === 0 ? 0 : Math.round((completed / total) * 1000) / 10 };
  }

  /** Epoch ms when the run should end at the pace so far ({@link estimateCompletion}). */
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

  /**
   * Keeps the variables a test case ended with for the next one (the plan's `variableScope: 'run'`).
   * Over `PAYLOAD_LIMITS.variablesBytes` (they go into every activity input and continue-as-new)
   * they are not passed on: the next test case starts from the last variables that were, and this
   * test case fails saying why. @returns the result, with that failure when it applies
   */
  carryVariables(result: TestCaseResult, variables: Record<string, unknown>): TestCaseResult {
    const bytes = jsonBytes(variables);
    if (bytes <= PAYLOAD_LIMITS.variablesBytes) {
      this.variables = variables;
      return result;
    }
    const message = `The variables this test case ended with are not passed on to the next: ${overCapMessage('they', bytes, PAYLOAD_LIMITS.variablesBytes)}`;
    return { ...result, status: 'failed', failures: [...result.failures, { node: '', message }] };
  }

  resumeState(): ResumeState {
    if (!this.plan) throw new Error('no plan to resume');
    const callbacks = this.inbox.state();
    return {
      ...(callbacks ? { callbacks } : {}),
      plan: this.plan,
      nextIndex: this.nextIndex,
      summary: { ...this.summary },
      nodesDone: this.nodesDone,
      ...(this.variables ? { variables: this.variables } : {}),
      ...(this.quarantined ? { quarantined: this.quarantined } : {}),
    };
  }

  /** The latest finished steps of the test case under way, oldest first ({@link step}). */
  private steps: string[] = [];

  /** Records a finished step (InterpreterPort.recordStep) for {@link details}; keeps the last {@link KEPT_STEPS}. */
  step(line: string): void {
    this.steps.push(line);
    if (this.steps.length > KEPT_STEPS) this.steps.shift();
  }

  /**
   * Markdown shown as the workflow's current details in the Temporal Web UI: runner, environment,
   * status, counts, and while running the test case under way with its latest steps.
   */
  details(): string {
    const p = this.progress;
    const s = this.summary;
    const current = this.status === 'running' ? this.plan?.testCases[this.nextIndex] : undefined;
    return [
      `**${this.plan?.runner ?? '?'}** on **${this.plan?.environment ?? '?'}**: ${this.status}`,
      '',
      `Test cases: ${p.completed}/${p.total} (${p.percentage}%), passed ${s.passed}, failed ${s.failed}, skipped ${s.skipped}`,
      `Nodes: ${this.nodesDone} run, about ${this.totalNodes} expected`,
      ...(current
        ? [
            '',
            `Under way: **${current.name}** (test case ${this.nextIndex + 1} of ${this.plan!.testCases.length})`,
            ...this.steps.map((line) => `- ${line.replace(/[\\`*_[\]<>]/g, '\\$&')}`),
            ...(this.waiting ? [`- ${waitingLine(this.waiting).replace(/[\\`*_[\]<>]/g, '\\$&')}`] : []),
          ]
        : []),
    ].join('\n');
  }
}
