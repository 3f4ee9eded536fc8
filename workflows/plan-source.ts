/**
 * A run's test cases by position, for the run workflow's suite path (workflows/suite.ts): the frozen
 * plan stays in the store (the run's row; activities/runs.ts `startRun`), and the workflow holds
 * only the test cases it is running, loaded a page at a time by a local activity
 * (`loadPlanTestCases`), so a run of 10,000 test cases starts, continues as new and replays as one
 * of ten does (docs/parallel.md "Plans of any size"). A plan returned whole (recorded runs, a
 * performance run) serves its test cases from memory.
 *
 * Deterministic: pages are asked for in the order the workflow needs them; concurrent asks for one
 * page share one activity.
 */
import type { RunPlan, TestCaseDefinition } from '../src/domain/types';

/** The plan's test cases in all and their expected node executions (activities/runs.ts `PlanOutline`). */
export interface PlanOutline {
  count: number;
  expectedNodes: number;
}

/** A page of test cases: positions `from`, `from + 1`, … */
export interface PlanPage {
  from: number;
  testCases: TestCaseDefinition[];
}

/** Loads the page that starts at a position (the `loadPlanTestCases` activity). */
export type LoadPlanPage = (from: number) => Promise<PlanPage>;

/** The test cases of one run by position (see the module comment). */
export class PlanTestCases {
  /** Test cases loaded and not released, by position. */
  private readonly loaded = new Map<number, TestCaseDefinition>();
  /** Pages being loaded, by the position they were asked for. */
  private readonly loading = new Map<number, Promise<void>>();
  readonly count: number;

  /**
   * @param plan the plan as `startRun` returned it: with an outline, `testCases` holds the first
   *   page (positions 0…) or nothing (a continued execution); without, every test case
   * @param outline absent: `plan.testCases` is the whole plan
   * @param load the page loader; unused without an outline
   */
  constructor(
    plan: RunPlan,
    private readonly outline: PlanOutline | undefined,
    private readonly load: LoadPlanPage,
  ) {
    this.count = outline?.count ?? plan.testCases.length;
    plan.testCases.forEach((tc, position) => this.loaded.set(position, tc));
  }

  /** Whether the test cases live in the store (continue-as-new then carries none). */
  get outlined(): boolean {
    return this.outline !== undefined;
  }

  /**
   * The test case at `position` (0 ≤ position < count), loading the page that starts there when no
   * page being loaded from an earlier position may hold it.
   * @throws Error when the plan has no such position (or the store returned none)
   */
  async get(position: number): Promise<TestCaseDefinition> {
    for (;;) {
      const ready = this.loaded.get(position);
      if (ready) return ready;
      if (!this.outline || position < 0 || position >= this.count)
        throw new Error(`The plan has no test case at position ${position}`);
      const earlier = [...this.loading.entries()].filter(([from]) => from <= position).map(([, p]) => p);
      if (earlier.length > 0) {
        await Promise.all(earlier);
        continue;
      }
      const pending = this.load(position).then((page) => {
        page.testCases.forEach((tc, i) => {
          if (page.from + i < this.count) this.loaded.set(page.from + i, tc);
        });
      });
      this.loading.set(position, pending);
      try {
        await pending;
      } finally {
        this.loading.delete(position);
      }
      const tc = this.loaded.get(position);
      if (!tc) throw new Error(`The store returned no test case at position ${position} of ${this.count}`);
      return tc;
    }
  }

  /** Whether the test case at `position` is in memory now (no load needed). */
  has(position: number): boolean {
    return this.loaded.has(position);
  }

  /** Forgets the test case at `position` (it ended): only test cases under way stay in memory. */
  release(position: number): void {
    if (this.outline) this.loaded.delete(position);
  }
}
