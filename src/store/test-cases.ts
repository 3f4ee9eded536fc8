/**
 * Queries over test cases shared by the REST API (listing) and the run activities (a runner's
 * selection).
 */
import type { EntityManager, SelectQueryBuilder } from 'typeorm';
import { TestCase, TestCaseTag, Runner } from './entities';
import { folderCondition } from './folders';
import { normaliseFolder } from '../domain/folders';
import type { RunSelection, TestCaseDefinition } from '../domain/types';
import { dataSetsByName } from '../validation/data-sets';

/** Filters of a test case query. Both given: a test case must match both. */
export interface TestCaseFilter {
  /** Folder and its subfolders. */
  folder?: string;
  /** Tags a test case must all carry. */
  tags?: string[];
}

/** A query builder over a workspace's test cases (with their tags) narrowed by `filter`. */
export function testCaseQuery(
  manager: EntityManager,
  workspaceId: string,
  filter: TestCaseFilter,
): SelectQueryBuilder<TestCase> {
  const qb = manager
    .getRepository(TestCase)
    .createQueryBuilder('tc')
    .leftJoinAndSelect('tc.tagRows', 'tagRow')
    .where('tc.workspaceId = :workspaceId', { workspaceId });
  if (filter.folder !== undefined) {
    const cond = folderCondition('tc.folder', filter.folder);
    qb.andWhere(cond.sql, cond.params);
  }
  (filter.tags ?? []).forEach((tag, i) => {
    const sub = manager
      .getRepository(TestCaseTag)
      .createQueryBuilder(`t${i}`)
      .select('1')
      .where(`t${i}.testCaseId = tc.id`)
      .andWhere(`t${i}.tag = :tag${i}`);
    qb.andWhere(`EXISTS (${sub.getQuery()})`, { [`tag${i}`]: tag });
  });
  return qb;
}

/** Tags of a loaded test case, sorted. */
export function tagsOf(testCase: TestCase): string[] {
  return (testCase.tagRows ?? []).map((t) => t.tag).sort();
}

/** The definition a run executes. */
export function toDefinition(testCase: TestCase): TestCaseDefinition {
  return {
    id: testCase.id,
    name: testCase.name,
    folder: testCase.folder,
    tags: tagsOf(testCase),
    flow: testCase.flow,
    dataSets: dataSetsByName(testCase.dataSets),
    ...(testCase.hooks ? { hooks: testCase.hooks } : {}),
    ...(testCase.authProfile ? { authProfile: testCase.authProfile } : {}),
    ...(testCase.dependsOn?.length ? { dependsOn: testCase.dependsOn } : {}),
  };
}

/**
 * The test cases a runner selects, in run order: first `testCaseIds` in their order (ids that no
 * longer exist are left out), then the test cases matching `folder` and `tags` (both when both are
 * set) ordered by the runner's `order`, without repeating one already selected. Reusable test cases
 * (docs/reuse.md "Sub-flows") come only from `testCaseIds`.
 */
export async function resolveRunnerSelection(manager: EntityManager, runner: Runner): Promise<TestCase[]> {
  const selected: TestCase[] = [];
  const seen = new Set<string>();
  if (runner.testCaseIds.length > 0) {
    const rows = await testCaseQuery(manager, runner.workspaceId, {})
      .andWhere('tc.id IN (:...ids)', { ids: runner.testCaseIds })
      .getMany();
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const id of runner.testCaseIds) {
      const tc = byId.get(id);
      if (tc && !seen.has(id)) {
        seen.add(id);
        selected.push(tc);
      }
    }
  }
  if (runner.folder !== null || runner.tags.length > 0) {
    const qb = testCaseQuery(manager, runner.workspaceId, { folder: runner.folder ?? undefined, tags: runner.tags });
    // Reusable test cases (shared steps Ref nodes run) are selected only by id.
    qb.andWhere('tc.reusable = :reusable', { reusable: false });
    if (runner.order === 'createdAt') qb.orderBy('tc.createdAt', 'ASC').addOrderBy('tc.id', 'ASC');
    else qb.orderBy('tc.folder', 'ASC').addOrderBy('tc.name', 'ASC');
    for (const tc of await qb.getMany()) {
      if (!seen.has(tc.id)) {
        seen.add(tc.id);
        selected.push(tc);
      }
    }
  }
  return selected;
}

/** What a runner selects, as the API writes it: `testCaseIds`, `folder`, `tags` (only those set). */
export function runnerSelection(runner: Pick<Runner, 'testCaseIds' | 'folder' | 'tags'>): {
  testCaseIds?: string[];
  folder?: string;
  tags?: string[];
} {
  return {
    ...(runner.testCaseIds.length > 0 ? { testCaseIds: runner.testCaseIds } : {}),
    ...(runner.folder !== null ? { folder: runner.folder } : {}),
    ...(runner.tags.length > 0 ? { tags: runner.tags } : {}),
  };
}

/**
 * The reason a runner that selects no test case cannot run, naming it and what it selects (the API's
 * 422 `runner-selects-nothing`, and the error of a scheduled or webhook run refused for it).
 */
export function emptySelectionMessage(runner: Pick<Runner, 'name' | 'testCaseIds' | 'folder' | 'tags'>): string {
  const sel = runnerSelection(runner);
  const parts = [
    ...(sel.testCaseIds ? [`test case ids ${sel.testCaseIds.join(', ')}`] : []),
    ...(sel.folder !== undefined ? [`folder "${sel.folder}"`] : []),
    ...(sel.tags ? [`tags ${sel.tags.map((t) => `"${t}"`).join(', ')}`] : []),
  ];
  const what = parts.length > 0 ? parts.join(' and ') : 'nothing (no testCaseIds, folder or tags)';
  const reusable =
    sel.folder !== undefined || sel.tags ? ' Reusable test cases are selected only by id (testCaseIds).' : '';
  return `Runner "${runner.name}" selects no test case (it selects ${what}); a run would pass with 0 tests. Add matching test cases or change the runner.${reusable}`;
}

/** True when `folder` (a test case's) is `within` or one of its subfolders; every folder is within ''. */
function inFolder(folder: string, within: string): boolean {
  if (within === '') return true;
  const f = normaliseFolder(folder);
  return f === within || f.startsWith(`${within}/`);
}

/**
 * A run's own narrowing of its runner's selection (src/domain/types.ts `RunSelection`; `assay run
 * --folder/--tag`): the test cases of `testCases` (loaded with their tags, as
 * {@link resolveRunnerSelection} returns them) in `selection.folder` or a subfolder of it (paths
 * compared segment by segment after src/domain/folders.ts `normaliseFolder`, as the folder filter
 * of {@link testCaseQuery} selects them) that carry every tag of `selection.tags` (compared
 * exactly), in their order. `testCases` itself when `selection` is null or narrows nothing (no
 * folder or '', no tags). Pure: activities/runs.ts `startRun` and api/run-starter.ts use the same rule.
 */
export function narrowSelection(testCases: TestCase[], selection: RunSelection | null | undefined): TestCase[] {
  const folder = normaliseFolder(selection?.folder ?? '');
  const tags = selection?.tags ?? [];
  if (folder === '' && tags.length === 0) return testCases;
  return testCases.filter((tc) => {
    if (!inFolder(tc.folder, folder)) return false;
    const own = new Set(tagsOf(tc));
    return tags.every((tag) => own.has(tag));
  });
}

/** `lies in folder "a/b" (or below it) and carries the tags "x", "y"`: what a selection asks of a test case. */
function selectionWords(selection: RunSelection): string {
  const folder = normaliseFolder(selection.folder ?? '');
  const tags = selection.tags ?? [];
  return [
    ...(folder !== '' ? [`lies in folder "${folder}" (or below it)`] : []),
    ...(tags.length
      ? [`carries the ${tags.length === 1 ? 'tag' : 'tags'} ${tags.map((t) => `"${t}"`).join(', ')}`]
      : []),
  ].join(' and ');
}

/**
 * The reason a run whose own selection (`RunSelection`) leaves none of its runner's test cases
 * cannot run, naming the runner, the folder and the tags: the error of a run that fails to start
 * for it (activities/runs.ts `startRun`), and what the API can answer with a 422.
 */
export function narrowedSelectionMessage(runner: Pick<Runner, 'name'>, selection: RunSelection): string {
  return `None of the test cases runner "${runner.name}" selects ${selectionWords(selection)}; a run would pass with 0 tests. Choose another folder or tags (assay run --folder/--tag), or change the runner.`;
}
