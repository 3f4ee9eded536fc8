/**
 * The run workflow's bookkeeping: counts, summary, progress and the estimate of completion.
 * Pure and deterministic (times come from the workflow clock passed in).
 */
import type { RunPlan, RunProgress, RunStatus, RunSummary, TestCaseResult } from '../src/domain/types';
import { countNodes } from './interpreter';
import type { RunLiveState } from './definitions';

/** What a run carries into the next execution when it continues as new. */
export interface ResumeState {
  plan: RunPlan;
  /** Position of the next test case to run. */
  nextIndex: number;
  summary: RunSummary;
  nodesDone: number;
}

export class RunBook {
  status: RunStatus = 'queued';
  plan?: RunPlan;
  nextIndex = 0;
  nodesDone = 0;
  totalNodes = 0;
  summary: RunSummary = { total: 0, passed: 0, failed: 0, skipped: 0 };

  constructor(resume?: ResumeState) {
    if (resume) {
      this.begin(resume.plan);
      this.nextIndex = resume.nextIndex;
      this.summary = { ...resume.summary };
      this.nodesDone = resume.nodesDone;
    }
  }

  begin(plan: RunPlan): void {
    this.plan = plan;
    this.status = 'running';
    this.totalNodes = plan.testCases.reduce((n, tc) => n + countNodes(tc), 0);
    this.summary.total = plan.testCases.length;
  }

  /** Epoch ms by which the run must end. */
  get deadlineMs(): number {
    return this.plan ? this.plan.startedAtMs + this.plan.timeoutSeconds * 1000 : Number.MAX_SAFE_INTEGER;
  }

  nodeDone(): void {
    this.nodesDone += 1;
  }

  testCaseDone(result: TestCaseResult): void {
    if (result.status === 'passed') this.summary.passed += 1;
    else if (result.status === 'skipped') this.summary.skipped += 1;
    else this.summary.failed += 1;
    this.nextIndex += 1;
  }

  get progress(): RunProgress {
    const total = this.plan?.testCases.length ?? 0;
    const completed = Math.min(this.nextIndex, total);
    return { completed, total, percentage: total === 0 ? 0 : Math.round((completed / total) * 1000) / 10 };
  }

  /**
   * Epoch ms when the run should end at the pace so far (by nodes, finer than test cases); the
   * deadline until the first node has finished.
   */
  estimatedCompletionMs(nowMs: number): number | undefined {
    if (!this.plan) return undefined;
    if (this.nodesDone === 0 || this.totalNodes === 0) return this.deadlineMs;
    const elapsed = Math.max(0, nowMs - this.plan.startedAtMs);
    return Math.min(this.deadlineMs, Math.round(this.plan.startedAtMs + (elapsed * this.totalNodes) / this.nodesDone));
  }

  live(nowMs: number): RunLiveState {
    const state: RunLiveState = { status: this.status, progress: this.progress };
    if (this.plan) state.startedAt = new Date(this.plan.startedAtMs).toISOString();
    const eta = this.status === 'running' ? this.estimatedCompletionMs(nowMs) : undefined;
    if (eta !== undefined) state.estimatedCompletion = new Date(eta).toISOString();
    return state;
  }

  resumeState(): ResumeState {
    if (!this.plan) throw new Error('no plan to resume');
    return { plan: this.plan, nextIndex: this.nextIndex, summary: { ...this.summary }, nodesDone: this.nodesDone };
  }

  /** Markdown shown as the workflow's current details in the Temporal Web UI. */
  details(): string {
    const p = this.progress;
    const s = this.summary;
    return [
      `**${this.plan?.runner ?? '?'}** on **${this.plan?.environment ?? '?'}**: ${this.status}`,
      '',
      `Test cases: ${p.completed}/${p.total} (${p.percentage}%), passed ${s.passed}, failed ${s.failed}, skipped ${s.skipped}`,
      `Nodes: ${this.nodesDone}/${this.totalNodes}`,
    ].join('\n');
  }
}
