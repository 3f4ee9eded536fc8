/**
 * Runs made from other runs (docs/history.md "Rerun, replay, resume"; `POST /v1/runs/{id}/rerun`,
 * `/replay`, `/resume`): what the API checks before it creates one, and what `startRun`
 * (activities/runs.ts) freezes for it.
 *
 * - rerun: a new run of the origin's runner, environment and variables whose selection is the
 *   origin's failed test cases (or the ones named), with their CURRENT definitions;
 * - replay: the origin's frozen plan again, exactly (new run id and start time; same `planHash`);
 * - resume: the origin's frozen plan, starting at the failed test case's first failed top-level
 *   node with the state (variables and node outputs) it had there; the results before that
 *   position are copied from the origin, not run again.
 *
 * A resumed run is a NEW workflow seeded from the recorded state, not a Temporal reset of the
 * origin's workflow (docs/history.md says why). Resume states are stored sealed with the key ring
 * (`run_test_case_results.resumeState`), bound to their run and position.
 */
import type { EntityManager } from 'typeorm';
import { RunTestCaseResult, type Run, type TestCase } from './entities';
import { findRunWithPlan } from './runs';
import { testCaseQuery } from './test-cases';
import type { KeyRing } from '../secrets/keyring';
import type { RunPlan, RunSummary, TestCaseResult } from '../domain/types';
import { RESUME_STATE_BYTES, type ResumePoint } from '../flow/resume';
import { formatBytes } from '../domain/limits';
import { fieldError, type FieldError } from '../problems';

/** Why a run cannot be made from another: the API answers it as the problem `code` names. */
export class OriginRefused extends Error {
  constructor(
    readonly code:
      'run-active' | 'debug-run' | 'nothing-to-rerun' | 'not-resumable' | 'plan-unavailable' | 'validation-failed',
    detail: string,
    readonly extras: { errors?: FieldError[]; [key: string]: unknown } = {},
  ) {
    super(detail);
    this.name = 'OriginRefused';
  }
}

/** A resumed run's origin could not be read when it started (deleted meanwhile, or its state does not open). */
export class OriginUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OriginUnavailable';
  }
}

/** The additional authenticated data of a sealed resume state: its run and position (a state moved elsewhere does not open). */
function resumeAad(runId: string, position: number): string {
  return `assay-resume:${runId}:${position}`;
}

/** Seals a resume point (src/flow/resume.ts) for `run_test_case_results.resumeState`. */
export function sealResumePoint(ring: KeyRing, runId: string, position: number, point: ResumePoint): string {
  return ring.seal(JSON.stringify(point), resumeAad(runId, position));
}

/** Opens what {@link sealResumePoint} sealed. @throws KeyRingError */
export function openResumePoint(ring: KeyRing, runId: string, position: number, sealed: string): ResumePoint {
  return JSON.parse(ring.open(sealed, resumeAad(runId, position))) as ResumePoint;
}

/**
 * A stored plan with its resume state opened for the workflow (`resumeFrom.state`; the sealed text
 * dropped); plans of other runs unchanged. @throws KeyRingError when it does not open.
 */
export function openResumeFrom(plan: RunPlan, ring: KeyRing): RunPlan {
  const from = plan.resumeFrom;
  if (!from?.sealedState) return plan;
  const point = openResumePoint(ring, from.runId, from.position, from.sealedState);
  const { sealedState: _sealed, ...rest } = from;
  return { ...plan, resumeFrom: { ...rest, state: point.state ?? { variables: {}, nodes: {} } } };
}

/**
 * @throws OriginRefused `debug-run` for a debug run (trigger `debug`: the designer's, of a test
 *   case as it was being edited; docs/api.md "Debug runs"), `run-active` while `origin` is queued or running.
 */
function requireEnded(origin: Run): void {
  if (origin.trigger === 'debug')
    throw new OriginRefused(
      'debug-run',
      `Run ${origin.id} is a debug run of a test case as the designer held it: debug it again from the designer, or start a run of a runner.`,
      { runId: origin.id },
    );
  if (origin.status === 'completed' || origin.status === 'failed') return;
  throw new OriginRefused(
    'run-active',
    `Run ${origin.id} is ${origin.status}; a run can be made from it once it has ended.`,
    { runStatus: origin.status },
  );
}

/** The stored results of a run, in position order (with their sealed resume states when asked). */
function resultsOf(manager: EntityManager, runId: string, withResumeState = false): Promise<RunTestCaseResult[]> {
  const qb = manager
    .getRepository(RunTestCaseResult)
    .createQueryBuilder('r')
    .where('r.runId = :runId', { runId })
    .orderBy('r.position', 'ASC');
  if (withResumeState) qb.addSelect('r.resumeState');
  return qb.getMany();
}

/** The current test cases with these ids in the workspace, in the order of `ids` (ids that no longer exist left out). */
export async function testCasesByIds(manager: EntityManager, workspaceId: string, ids: string[]): Promise<TestCase[]> {
  if (ids.length === 0) return [];
  const rows = await testCaseQuery(manager, workspaceId, {}).andWhere('tc.id IN (:...ids)', { ids }).getMany();
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []));
}

/** What a rerun runs: the test case ids (origin order) and their current definitions. */
export interface RerunSelection {
  testCaseIds: string[];
  selection: TestCase[];
}

/**
 * The test cases a rerun of `origin` runs: those named in `testCases` (each must be one of the
 * origin's), else those that failed in it (`only: 'failed'`, the default), in the origin's order,
 * as they are now. Test cases deleted since are left out.
 * @throws OriginRefused `run-active` (origin not ended), `validation-failed` (a named id that is not
 *   the origin's: field `testCases[i]`), `nothing-to-rerun` (no failed test case, or none still exists)
 */
export async function rerunSelection(
  manager: EntityManager,
  origin: Run,
  body: { only?: 'failed'; testCases?: string[] },
): Promise<RerunSelection> {
  requireEnded(origin);
  const results = await resultsOf(manager, origin.id);
  const ran = new Set(results.map((r) => r.testCaseId));
  let wanted: string[];
  if (body.testCases) {
    const errors = body.testCases.flatMap((id, i) =>
      ran.has(id) ? [] : [fieldError(['testCases', i], `test case "${id}" is not one of run ${origin.id}'s`)],
    );
    if (errors.length) throw new OriginRefused('validation-failed', errors.map((e) => e.detail).join('; '), { errors });
    const named = new Set(body.testCases);
    wanted = results.filter((r) => named.has(r.testCaseId)).map((r) => r.testCaseId);
  } else wanted = results.filter((r) => r.status === 'failed').map((r) => r.testCaseId);
  wanted = [...new Set(wanted)];
  if (wanted.length === 0)
    throw new OriginRefused(
      'nothing-to-rerun',
      results.length === 0
        ? `Run ${origin.id} has no results: it ended before any test case ran (${origin.error ?? 'no reason given'}). Start a new run instead.`
        : `Run ${origin.id} has no failed test case: nothing to rerun.`,
      { runId: origin.id },
    );
  const selection = await testCasesByIds(manager, origin.workspaceId, wanted);
  if (selection.length === 0)
    throw new OriginRefused(
      'nothing-to-rerun',
      `The test cases to rerun from run ${origin.id} no longer exist: ${wanted.join(', ')}.`,
      { runId: origin.id, missing: wanted },
    );
  return { testCaseIds: selection.map((tc) => tc.id), selection };
}

/**
 * Checks that `origin`'s frozen plan can be run again (replay).
 * @throws OriginRefused `run-active`, `plan-unavailable` (it never froze a plan: it failed before it started)
 */
export async function requireFrozenPlan(manager: EntityManager, origin: Run): Promise<RunPlan> {
  requireEnded(origin);
  const stored = await findRunWithPlan(manager, origin.id);
  if (!stored?.plan)
    throw new OriginRefused(
      'plan-unavailable',
      `Run ${origin.id} never froze a plan (it ended before it started${origin.error ? `: ${origin.error}` : ''}); there is nothing to replay or resume.`,
      { runId: origin.id },
    );
  return stored.plan;
}

/** Where a resumed run starts: the origin's position, test case and top-level node. */
export interface ResumeTarget {
  position: number;
  testCaseId: string;
  nodeIndex: number;
  nodeId: string;
}

/** Why the failed result `r` cannot be resumed, or its resume point. */
function resumability(ring: KeyRing, runId: string, r: RunTestCaseResult): { point?: ResumePoint; why?: string } {
  if (!r.resumeState)
    return {
      why: `test case "${r.name}" (position ${r.position}) has no recorded state: it was interrupted (the run timed out or was cancelled) or recorded before resume existed`,
    };
  let point: ResumePoint;
  try {
    point = openResumePoint(ring, runId, r.position, r.resumeState);
  } catch (err) {
    return { why: `the state of test case "${r.name}" does not open: ${(err as Error).message}` };
  }
  if (!point.state)
    return {
      why: `the state of test case "${r.name}" before node "${point.nodeId}" was ${formatBytes(point.stateBytes ?? 0)}, over the ${formatBytes(RESUME_STATE_BYTES)} a resume state may take, so it was not kept`,
    };
  return { point };
}

/**
 * Where a resume of `origin` starts: the failed test case named (`testCaseId`), else the first
 * failed one in position order that has a usable resume state, at its first failed top-level node.
 * @throws OriginRefused `run-active`, `plan-unavailable`, `not-resumable` (a performance run, no
 *   failed test case, none with a state, or the named one without one: the detail says which and why)
 */
export async function resumeTarget(
  manager: EntityManager,
  origin: Run,
  ring: KeyRing,
  testCaseId?: string,
): Promise<ResumeTarget> {
  const plan = await requireFrozenPlan(manager, origin);
  if (plan.performance)
    throw new OriginRefused('not-resumable', `Run ${origin.id} is a performance run: replay it instead.`, {
      runId: origin.id,
    });
  const failed = (await resultsOf(manager, origin.id, true)).filter(
    (r) => r.status === 'failed' && (testCaseId === undefined || r.testCaseId === testCaseId),
  );
  if (failed.length === 0)
    throw new OriginRefused(
      'not-resumable',
      testCaseId === undefined
        ? `Run ${origin.id} has no failed test case: nothing to resume.`
        : `Test case "${testCaseId}" did not fail in run ${origin.id}: nothing to resume.`,
      { runId: origin.id },
    );
  const reasons: string[] = [];
  for (const r of failed) {
    const { point, why } = resumability(ring, origin.id, r);
    if (point)
      return { position: r.position, testCaseId: r.testCaseId, nodeIndex: point.nodeIndex, nodeId: point.nodeId };
    reasons.push(why!);
  }
  throw new OriginRefused('not-resumable', `Run ${origin.id} cannot be resumed: ${reasons.join('; ')}.`, {
    runId: origin.id,
  });
}

/**
 * The plan of run `run` made from another by a replay or a resume (its `origin`), and the
 * results a resume copies: the origin's stored plan (secrets still sealed) with this run's id and
 * start time; a resume adds `resumeFrom` (its state still sealed) and copies the origin's results
 * before the resumed position into this run (marked `copiedFrom`). Runs inside `startRun`'s
 * transaction. @throws OriginUnavailable when the origin, its plan or its resume state is gone.
 */
export async function seededPlan(
  manager: EntityManager,
  run: Run,
  ring: KeyRing,
  startedAt: Date,
): Promise<{ plan: RunPlan; loadProfile: Run['loadProfile'] }> {
  const origin = run.origin!;
  const stored = await findRunWithPlan(manager, origin.runId);
  if (!stored?.plan)
    throw new OriginUnavailable(`The run it ${origin.kind}s (${origin.runId}) or its plan no longer exists`);
  // A replay runs the whole plan, even of a resumed run; a resume gets its own resume point below.
  const { resumeFrom: _previous, ...base } = stored.plan;
  const plan: RunPlan = { ...base, runId: run.id, startedAtMs: startedAt.getTime() };
  if (origin.kind === 'resume') {
    const position = origin.position ?? -1;
    const results = await resultsOf(manager, origin.runId, true);
    const at = results.find((r) => r.position === position);
    const point = at?.resumeState ? safeOpen(ring, origin.runId, at) : undefined;
    if (!at || !point?.state)
      throw new OriginUnavailable(`The state run ${origin.runId} recorded at position ${position} is no longer there`);
    const before = results.filter((r) => r.position < position);
    const counts: RunResumeCounts = { passed: 0, failed: 0, skipped: 0 };
    for (const r of before)
      counts[r.status === 'passed' ? 'passed' : r.status === 'skipped' ? 'skipped' : 'failed'] += 1;
    plan.resumeFrom = {
      runId: origin.runId,
      position,
      nodeIndex: point.nodeIndex,
      nodeId: point.nodeId,
      sealedState: at.resumeState!,
      before: counts,
    };
    if (before.length) {
      const copies = before.map((r) => ({
        runId: run.id,
        position: r.position,
        testCaseId: r.testCaseId,
        name: r.name,
        status: r.status,
        duration: r.duration,
        assertions: r.assertions,
        detail: { ...r.detail, copiedFrom: r.detail.copiedFrom ?? origin.runId } as TestCaseResult,
        createdAt: new Date(),
      }));
      await manager.getRepository(RunTestCaseResult).upsert(copies as never[], ['runId', 'position']);
    }
  }
  return { plan, loadProfile: stored.loadProfile };
}

type RunResumeCounts = Omit<RunSummary, 'total'>;

function safeOpen(ring: KeyRing, runId: string, r: RunTestCaseResult): ResumePoint | undefined {
  try {
    return openResumePoint(ring, runId, r.position, r.resumeState!);
  } catch {
    return undefined;
  }
}

/**
 * The test cases a run executes when they are not its runner's selection: a rerun's (its origin's
 * `testCaseIds`, current definitions); undefined for any other run.
 */
export async function originSelection(manager: EntityManager, run: Run): Promise<TestCase[] | undefined> {
  if (run.origin?.kind !== 'rerun') return undefined;
  return testCasesByIds(manager, run.workspaceId, run.origin.testCaseIds ?? []);
}
