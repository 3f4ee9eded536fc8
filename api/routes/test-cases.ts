/**
 * Test cases (spec "Test case"): addressed by id, filed in folders, labelled with tags.
 *
 *   GET    /v1/test-cases?folder=users&tags=a,b  list: `folder` selects it and its subfolders; `tags`
 *                                              (comma-separated) keeps test cases carrying all of them;
 *                                              ordered by folder then name; `limit`, `cursor`. A filter
 *                                              given empty (`folder=`, `tags=,`) is 400 `invalid-query`
 *   POST   /v1/test-cases                      create {name, folder?, description?, tags?, flow, dataSets?, hooks?} → 201
 *   POST   /v1/test-cases/validate             the same body, checked as a save checks it, nothing stored →
 *                                              200 {valid: true, flow} (node ids assigned), else the save's problem
 *   GET    /v1/test-cases/{testCaseId}
 *   PUT    /v1/test-cases/{testCaseId}         replace {name, folder?, description?, tags?, flow, dataSets?, hooks?, authProfile?, reusable?, dependsOn?} → 200
 *   PATCH  /v1/test-cases/{testCaseId}         any of {tags, name, folder, description, flow, dataSets, hooks, authProfile, reusable, dependsOn} → 200
 *   DELETE /v1/test-cases/{testCaseId}         also removes it from runners that list it          → 204;
 *                                              409 `test-case-referenced` while Ref nodes link to it
 *
 * A flow is validated as a whole, against the test case's data sets, before anything is stored
 * (src/validation/flow.ts); docs/flows.md describes nodes and data sets. A flow expecting more loop
 * iterations than ASSAY_QUOTA_LOOP_ITERATIONS (counts multiplied through nesting) is refused with
 * 422 `loop-iterations-exceeded` naming the loop node. `hooks` (a script defining `beforeRequest`
 * and/or `afterResponse` around each of the test case's API nodes, docs/flows.md "Hooks") is
 * validated as an API node's `script`; `null` removes them. Ref nodes (docs/reuse.md "Sub-flows"): a
 * `clone` without `flow` gets a copy of the referenced flow when saved; a reference to no test case
 * of the workspace is 422 `unknown-reference`, a cycle or nesting beyond 5 levels 422
 * `invalid-sub-flow`, each naming the field (src/store/sub-flows.ts). `reusable` marks a shared
 * step that runners select only by id.
 *
 * Concurrent edits (docs/api.md "Concurrent edits"): a test case has a `version`, 1 when created and
 * one more at each PUT or PATCH; GET, POST, PUT and PATCH answer `ETag: "<version>"`. PUT and PATCH
 * honour `If-Match` (RFC 9110 §13.1.1: `*` or a list of entity tags, compared strongly): when no tag
 * names the stored version, 409 `test-case-changed` with the stored `version` and `updatedAt`, and
 * nothing is stored. The check and the write are one conditional UPDATE (`… WHERE version = ?`), so
 * of two writers sending the same tag exactly one stores. Without `If-Match` the last write wins, as
 * before (the CLI and imports).
 */
import Router from '@koa/router';
import { In, type EntityManager } from 'typeorm';
import { newId } from '../../src/ids';
import { Runner, TestCase, TestCaseTag, type DebugTestCase } from '../../src/store/entities';
import { normaliseFolder } from '../../src/domain/folders';
import { tagsOf, testCaseQuery } from '../../src/store/test-cases';
import { dataSetRowCounter, validateDataSets, validateFlow, validateHooks } from '../../src/validation/flow';
import { assignNodeIds } from '../../src/flow/tree';
import { expectedLoopIterations } from '../../src/flow/estimate';
import type { AssayConfig } from '../../src/config';
import type { DataSet, FlowNode, ScriptConfig } from '../../src/domain/types';
import { HOOKS_SCHEMA } from './folders';
import type { ApiDeps, AppContext, AppState } from '../context';
import { fieldError } from '../../src/problems';
import { invalid, Problem } from '../problem';
import { jsonValue } from '../../src/store/entities/columns';
import { bodyValidator, issuesProblem, jsonBody, queryFilter, queryProblem } from '../validation';
import { keysetPage, readPaging, type Keyset } from '../paging';
import { iso } from './shared';
import { AUTH_PROFILE_REF_SCHEMA, checkTestCaseAuthProfiles } from './auth-profiles';
import { isUniqueViolation } from '../../src/store/errors';
import { checkReferences, fillClones, referencingTestCases, type SubFlowIssue } from '../../src/store/sub-flows';
import { assignSubFlowIds } from '../../src/flow/sub-flows';

/** A test case body as POST and PUT take it (PATCH: any of its fields). */
export interface TestCaseInput {
  name: string;
  folder?: string;
  description?: string;
  tags?: string[];
  flow: unknown;
  dataSets?: unknown;
  hooks?: ScriptConfig | null;
  /** The test case's auth profile (docs/auth.md), or `none`; null clears it. */
  authProfile?: string | null;
  reusable?: boolean;
  /** Ids of test cases that must have passed in the same run before this one starts (docs/parallel.md "Dependencies"); null or [] clears. */
  dependsOn?: string[] | null;
}

const TAG = { type: 'string', minLength: 1, maxLength: 100, pattern: '^[^,]+$' } as const;
const fields = {
  name: { type: 'string', minLength: 1, maxLength: 200 },
  folder: { type: 'string', maxLength: 255 },
  description: { type: 'string', maxLength: 2000 },
  tags: { type: 'array', maxItems: 50, uniqueItems: true, items: TAG },
  // The flow's and the data sets' own shapes are checked by validateFlow/validateDataSets, with paths inside them.
  flow: { type: 'array' },
  dataSets: { type: 'array' },
  hooks: HOOKS_SCHEMA,
  authProfile: AUTH_PROFILE_REF_SCHEMA,
  reusable: { type: 'boolean' },
  dependsOn: {
    type: ['array', 'null'],
    maxItems: 50,
    uniqueItems: true,
    items: { type: 'string', minLength: 1, maxLength: 40 },
    description:
      'Ids of test cases of the workspace that must have passed, in the same run, before this one starts (docs/parallel.md "Dependencies"): with concurrency above 1 it waits for them; when one failed or was skipped it is skipped. A dependency the run does not include is not waited for.',
  },
};
/** The test case listing's order: by folder, then name (unique within a folder). */
const ORDER: Keyset<TestCase, 'pair'> = {
  shape: 'pair',
  keys: [
    { column: 'tc.folder', of: (tc) => tc.folder },
    { column: 'tc.name', of: (tc) => tc.name },
  ],
};

/**
 * The request body schemas of the test case endpoints (`full`: create and replace): what ajv
 * validates with (below) and what the OpenAPI document shows (api/openapi/operations.ts). The flow
 * and data sets are then checked node by node (src/validation/flow.ts).
 */
export const TEST_CASE_SCHEMAS = {
  full: { type: 'object', required: ['name', 'flow'], additionalProperties: false, properties: fields },
  patch: { type: 'object', additionalProperties: false, minProperties: 1, properties: fields },
} as const;
const validateFull = bodyValidator<TestCaseInput>(TEST_CASE_SCHEMAS.full);
/** Validates a test case body against {@link TEST_CASE_SCHEMAS}`.full`; 400 naming each field at fault. */
export const validateTestCaseBody = validateFull;
const validatePatch = bodyValidator<Partial<TestCaseInput>>(TEST_CASE_SCHEMAS.patch);

/** The JSON form of a test case. */
export function testCaseJson(tc: TestCase) {
  return {
    id: tc.id,
    name: tc.name,
    folder: tc.folder,
    description: tc.description,
    tags: tagsOf(tc),
    flow: tc.flow,
    dataSets: tc.dataSets ?? [],
    ...(tc.hooks ? { hooks: tc.hooks } : {}),
    authProfile: tc.authProfile ?? null,
    reusable: tc.reusable ?? false,
    dependsOn: tc.dependsOn ?? [],
    version: tc.version,
    createdAt: iso(tc.createdAt),
    updatedAt: iso(tc.updatedAt),
  };
}

/**
 * Validates a flow and the data sets it may iterate over, and gives nodes without an id one; 400
 * naming every field at fault.
 */
function checked(
  flow: unknown,
  dataSets: unknown,
  config: AssayConfig,
): { flow: FlowNode[]; dataSets: DataSet[] | null } {
  const setIssues = dataSets === undefined ? [] : validateDataSets(dataSets, ['dataSets']);
  const names = setIssues.length === 0 && Array.isArray(dataSets) ? (dataSets as DataSet[]).map((d) => d.name) : [];
  const issues = [...setIssues, ...validateFlow(flow, ['flow'], names)];
  if (issues.length > 0) throw issuesProblem(issues);
  const sets = (dataSets as DataSet[] | undefined) ?? null;
  checkLoopQuota(flow as FlowNode[], sets ?? [], config);
  return { flow: assignNodeIds(flow as FlowNode[]), dataSets: sets };
}

/** A test case's `hooks` as stored (null: none); 400 naming `hooks.code` when the code does not parse. */
function checkedHooks(hooks: ScriptConfig | null | undefined): ScriptConfig | null {
  if (!hooks) return null;
  const issues = validateHooks(hooks, ['hooks']);
  if (issues.length > 0) throw issuesProblem(issues);
  return hooks;
}

/**
 * The Ref nodes of a checked flow against the store (src/store/sub-flows.ts): clones without a
 * `flow` filled with a copy (the copy checked as the rest of the flow), then the live links
 * checked; node ids given inside sub-flows. @throws Problem 422 `unknown-reference` (a test case
 * that does not exist in the workspace) or `invalid-sub-flow` (a cycle, too deep), naming each field.
 */
async function withSubFlows(
  manager: EntityManager,
  workspaceId: string,
  self: TestCase | undefined,
  saved: { flow: FlowNode[]; dataSets: DataSet[] | null },
  config: AssayConfig,
): Promise<{ flow: FlowNode[]; dataSets: DataSet[] | null }> {
  const { issues: missing, filled } = await fillClones(manager, workspaceId, saved.flow);
  if (missing.length > 0) throw subFlowProblem(missing);
  const flow = filled ? checked(saved.flow, saved.dataSets ?? undefined, config).flow : saved.flow;
  const issues = await checkReferences(manager, workspaceId, self, flow);
  if (issues.length > 0) throw subFlowProblem(issues);
  return { flow: assignSubFlowIds(flow), dataSets: saved.dataSets };
}

function subFlowProblem(issues: SubFlowIssue[]): Problem {
  const errors = issues.map((i) => fieldError(i.path, i.message));
  return new Problem(
    issues.some((i) => i.kind === 'missing') ? 'unknown-reference' : 'invalid-sub-flow',
    errors.map((e) => `${e.field}: ${e.detail}`).join('; '),
    { errors },
  );
}

const figure = (n: number) => n.toLocaleString('en-US');

/**
 * The per-run loop iteration quota (ASSAY_QUOTA_LOOP_ITERATIONS; src/validation/flow.ts
 * `expectedLoopIterations`). @throws Problem `loop-iterations-exceeded` (422) naming the loop node
 * that expects the most iterations, with `expectedIterations` and `limit`.
 */
function checkLoopQuota(flow: FlowNode[], dataSets: DataSet[], config: AssayConfig): void {
  const limit = config.quotas.loopIterations;
  const { total, loops } = expectedLoopIterations(flow, {
    maxLoopIterations: config.runs.maxLoopIterations,
    rowsOf: dataSetRowCounter(dataSets),
  });
  const worst = loops[0];
  if (total <= limit || !worst) return;
  const name = worst.id ? `loop node "${worst.id}"` : 'a loop node';
  const detail = `${name} may run ${worst.chain.map(figure).join(' × ')} = ${figure(worst.iterations)} iterations through its nesting; the flow expects ${figure(total)} loop iterations per run, at most ${figure(limit)} are allowed (ASSAY_QUOTA_LOOP_ITERATIONS). Lower a count or set maxIterations.`;
  throw new Problem('loop-iterations-exceeded', `flow: ${detail}`, {
    errors: [fieldError(worst.path, detail)],
    ...(worst.id ? { node: worst.id } : {}),
    expectedIterations: total,
    limit,
  });
}

/** The test case `id` of the caller's workspace, with its tags; 404 `not-found` when there is none. */
async function loadById(manager: EntityManager, workspaceId: string, id: string): Promise<TestCase> {
  const tc = await manager
    .getRepository(TestCase)
    .findOne({ where: { id, workspaceId }, relations: { tagRows: true } });
  if (!tc) throw new Problem('not-found', `Test case "${id}" does not exist.`);
  return tc;
}

const load = (manager: EntityManager, ctx: AppContext) =>
  loadById(manager, ctx.state.caller.workspaceId, ctx.params.testCaseId!);

/**
 * What a save stores of a test case body once checked (its row's fields but the id, workspace,
 * version and times): folder normalised, node ids assigned (sub-flows' too), Ref clones filled.
 * The fields of a debug run's test case (src/store/entities/run.ts `DebugTestCase`, checked the
 * same way) but its id, and `reusable`.
 */
export type CheckedTestCase = Omit<DebugTestCase, 'id'> & { reusable: boolean; dependsOn: string[] | null };

/**
 * Checks a test case body (already valid against {@link TEST_CASE_SCHEMAS}`.full`) exactly as a
 * save does, storing nothing: the flow node by node against its data sets, the loop quota
 * (ASSAY_QUOTA_LOOP_ITERATIONS), the hooks' code, the Ref nodes against the workspace's test cases
 * (clones filled; a link back to `self`, the test case being replaced, is a cycle), the auth
 * profiles it names. Used by POST, PUT, `POST /v1/test-cases/validate` and debug runs
 * (api/routes/runs.ts). `at` (e.g. `['testCase']`) puts every field a problem names under it.
 * The name's uniqueness in its folder is the store's to check (409 `name-taken` on save).
 * @throws Problem 400 `validation-failed`; 422 `loop-iterations-exceeded`, `unknown-reference` (a
 *   Ref's or an auth profile's target missing), `invalid-sub-flow`; each naming its fields.
 */
export async function checkTestCaseBody(
  manager: EntityManager,
  workspaceId: string,
  input: TestCaseInput,
  options: { config: AssayConfig; self?: TestCase; at?: string[] },
): Promise<CheckedTestCase> {
  const { config, self, at = [] } = options;
  try {
    const valid = checked(input.flow, input.dataSets, config);
    const hooks = checkedHooks(input.hooks);
    const { flow, dataSets } = await withSubFlows(manager, workspaceId, self, valid, config);
    const result: CheckedTestCase = {
      name: input.name,
      folder: normaliseFolder(input.folder ?? ''),
      description: input.description ?? '',
      tags: input.tags ?? [],
      flow,
      dataSets,
      hooks,
      authProfile: input.authProfile ?? null,
      reusable: input.reusable ?? false,
      dependsOn: await checkedDependsOn(manager, workspaceId, input.dependsOn, self?.id),
    };
    await checkTestCaseAuthProfiles(manager, Object.assign(new TestCase(), { workspaceId, ...result }));
    return result;
  } catch (err) {
    if (at.length > 0 && err instanceof Problem) throw problemUnder(err, at);
    throw err;
  }
}

/**
 * A test case's `dependsOn` as stored: null when empty. @throws Problem 422 `unknown-reference`
 * naming `dependsOn[<i>]` for an id that is not a test case of the workspace, 400 `validation-failed`
 * for the test case itself.
 */
async function checkedDependsOn(
  manager: EntityManager,
  workspaceId: string,
  ids: string[] | null | undefined,
  selfId: string | undefined,
): Promise<string[] | null> {
  if (!ids || ids.length === 0) return null;
  const self = ids.indexOf(selfId ?? '');
  if (selfId !== undefined && self >= 0)
    throw invalid([fieldError(['dependsOn', self], 'a test case cannot depend on itself')]);
  const found = await manager
    .getRepository(TestCase)
    .find({ select: { id: true }, where: { workspaceId, id: In(ids) } });
  const known = new Set(found.map((t) => t.id));
  const errors = ids
    .map((id, i) => ({ id, i }))
    .filter(({ id }) => !known.has(id))
    .map(({ id, i }) => fieldError(['dependsOn', i], `test case "${id}" does not exist`));
  if (errors.length > 0)
    throw new Problem('unknown-reference', errors.map((e) => `${e.field}: ${e.detail}`).join('; '), { errors });
  return ids;
}

/** A JSON Pointer's segments (`#/flow/0/url` → `['flow', 0, 'url']`; RFC 6901 unescaping). */
function pointerSegments(pointer: string): Array<string | number> {
  return pointer
    .replace(/^#/, '')
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^(0|[1-9][0-9]*)$/.test(s) ? Number(s) : s));
}

/**
 * `problem` with every field it names moved under `at` (`flow[0]`, `#/flow/0` → `testCase.flow[0]`,
 * `#/testCase/flow/0`): the problems of a test case checked inside a larger body (a debug run's
 * `testCase`). A `validation-failed` detail is written again from the moved fields.
 */
export function problemUnder(problem: Problem, at: string[]): Problem {
  const errors = problem.extras.errors;
  if (!errors?.length) return problem;
  const moved = errors.map((e) => fieldError([...at, ...pointerSegments(e.pointer)], e.detail));
  if (problem.code === 'validation-failed') return invalid(moved);
  return new Problem(
    problem.code,
    problem.detail,
    { ...problem.extras, errors: moved },
    { headers: { ...problem.headers } },
  );
}

/** A test case's `ETag` (RFC 9110 §8.8.3): its version, a strong tag. */
export function testCaseETag(tc: Pick<TestCase, 'version'>): string {
  return `"${tc.version}"`;
}

/**
 * The `If-Match` header of a request (RFC 9110 §13.1.1): absent (undefined), `*` (any stored version),
 * or the versions its entity tags name. Weak tags (`W/"3"`) are kept as never matching: If-Match
 * compares strongly. @throws Problem 400 `invalid-header` naming `If-Match` when it is neither `*`
 * nor a comma-separated list of entity tags (`"3"`, `"3", "4"`).
 */
export function readIfMatch(ctx: AppContext): '*' | string[] | undefined {
  const raw = ctx.get('If-Match');
  if (!ctx.headers['if-match']) return undefined;
  const value = raw.trim();
  if (value === '*') return '*';
  const refuse = () => {
    const detail = 'must be * or a comma-separated list of entity tags, e.g. "3" (the ETag of the test case as read)';
    return new Problem('invalid-header', `Header If-Match ${detail}.`, {
      errors: [{ field: 'If-Match', pointer: 'header:If-Match', detail }],
    });
  };
  const tags: string[] = [];
  let seen = 0;
  // entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE; list elements separated by commas, empty ones allowed (RFC 9110 §5.6.1).
  const tag = /\s*(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"\s*(?:,|$)|\s*,/y;
  let at = 0;
  while (at < value.length) {
    tag.lastIndex = at;
    const m = tag.exec(value);
    if (!m) throw refuse();
    if (m[2] !== undefined) {
      seen++;
      if (!m[1]) tags.push(m[2]);
    }
    at = tag.lastIndex;
  }
  if (seen === 0) throw refuse();
  return tags;
}

/** Thrown inside a write's transaction when its conditional UPDATE found another version: answered 409 outside it. */
class VersionChanged extends Error {}

/**
 * 409 `test-case-changed` for a write whose `If-Match` (`asked`) does not name the stored version of
 * `stored`: `version` and `updatedAt` are the stored test case's, `ETag` its tag.
 */
function changedProblem(stored: TestCase, asked: string[]): Problem {
  const named = asked.length ? asked.map((t) => `"${t}"`).join(', ') : 'no strong entity tag';
  return new Problem(
    'test-case-changed',
    `Test case "${stored.name}" was changed since you read it: it is at version ${stored.version} (updated ${iso(stored.updatedAt)}), your If-Match names ${named}. Nothing was stored: reload it (GET /v1/test-cases/${stored.id}) and apply your change again.`,
    { testCaseId: stored.id, version: stored.version, updatedAt: iso(stored.updatedAt) },
    { headers: { ETag: testCaseETag(stored) } },
  );
}

/**
 * Writes a changed test case (PUT, PATCH) in the caller's transaction: its columns and
 * `version = version + 1` in one UPDATE, conditional on `version = expected` when given (an
 * `If-Match` was sent), then its tag rows. The version it gets is read back. 409 `name-taken` on a
 * taken name; {@link VersionChanged} when the condition found another version.
 */
async function update(
  manager: EntityManager,
  tc: TestCase,
  tags: string[],
  expected: number | undefined,
): Promise<TestCase> {
  const repo = manager.getRepository(TestCase);
  const version = manager.connection.driver.escape('version');
  let affected: number | undefined;
  try {
    const result = await repo.update(expected === undefined ? { id: tc.id } : { id: tc.id, version: expected }, {
      name: tc.name,
      folder: tc.folder,
      description: tc.description,
      flow: jsonValue(tc.flow),
      dataSets: jsonValue(tc.dataSets),
      hooks: jsonValue(tc.hooks),
      authProfile: tc.authProfile,
      reusable: tc.reusable,
      dependsOn: jsonValue(tc.dependsOn ?? null),
      updatedAt: tc.updatedAt,
      version: () => `${version} + 1`,
    });
    affected = result.affected;
  } catch (err) {
    if (isUniqueViolation(err)) throw nameTaken(tc);
    throw err;
  }
  if (affected === 0) throw new VersionChanged();
  const now = await repo.findOne({ select: { id: true, version: true }, where: { id: tc.id } });
  tc.version = now?.version ?? tc.version + 1;
  await saveTags(manager, tc, tags);
  return tc;
}

function nameTaken(tc: TestCase): Problem {
  return new Problem('name-taken', `A test case named "${tc.name}" already exists in folder "${tc.folder}".`, {
    errors: [{ field: 'name', pointer: '#/name', detail: 'is already taken in this folder' }],
  });
}

/** Replaces a test case's tag rows, in the caller's transaction. */
async function saveTags(manager: EntityManager, tc: TestCase, tags: string[]): Promise<void> {
  const tagRepo = manager.getRepository(TestCaseTag);
  await tagRepo.delete({ testCaseId: tc.id });
  if (tags.length > 0) await tagRepo.insert(tags.map((tag) => ({ testCaseId: tc.id, tag })));
  tc.tagRows = tags.map((tag) => Object.assign(new TestCaseTag(), { testCaseId: tc.id, tag }));
}

/** Inserts a new test case (version 1) with its tags, in the caller's transaction; 409 on a taken name. */
async function insert(manager: EntityManager, tc: TestCase, tags: string[]): Promise<TestCase> {
  try {
    // Tags are written below, by hand: the cascade would null out removed tag rows instead of deleting them.
    const { tagRows: _tags, ...columns } = tc;
    await manager.getRepository(TestCase).insert(manager.getRepository(TestCase).create(columns) as never);
  } catch (err) {
    if (isUniqueViolation(err)) throw nameTaken(tc);
    throw err;
  }
  await saveTags(manager, tc, tags);
  return tc;
}

/** Answers a test case document with its `ETag`. */
function answer(ctx: AppContext, tc: TestCase): void {
  ctx.set('ETag', testCaseETag(tc));
  ctx.body = testCaseJson(tc);
}

export function testCasesRouter({ dataSource, config }: ApiDeps): Router<AppState> {
  const router = new Router<AppState>();

  /**
   * A PUT or PATCH: in one transaction, loads the test case, checks `If-Match` against its version,
   * lets `change` apply the request (its checks may throw) and returns the tags to store, then
   * writes it conditionally ({@link update}). @throws Problem 409 `test-case-changed` (nothing
   * stored) when the tag does not name the stored version, found before or by the UPDATE.
   */
  async function write(
    ctx: AppContext,
    change: (manager: EntityManager, tc: TestCase) => Promise<string[]>,
  ): Promise<TestCase> {
    const ifMatch = readIfMatch(ctx);
    try {
      return await dataSource.transaction(async (manager) => {
        const tc = await load(manager, ctx);
        if (Array.isArray(ifMatch) && !ifMatch.includes(String(tc.version))) throw changedProblem(tc, ifMatch);
        const expected = Array.isArray(ifMatch) ? tc.version : undefined;
        const tags = await change(manager, tc);
        tc.updatedAt = new Date();
        return update(manager, tc, tags, expected);
      });
    } catch (err) {
      if (!(err instanceof VersionChanged)) throw err;
      // Read outside the rolled-back transaction: the version the other writer stored.
      throw changedProblem(await load(dataSource.manager, ctx), ifMatch as string[]);
    }
  }

  router.get('/test-cases', async (ctx) => {
    const paging = readPaging(ctx, ORDER);
    // Filters: absent means "any"; an empty value is a 400 (queryFilter), never "any".
    const folder = queryFilter(ctx, 'folder');
    const tagsParam = queryFilter(ctx, 'tags');
    const tags =
      tagsParam === undefined
        ? []
        : [
            ...new Set(
              tagsParam
                .split(',')
                .map((t) => t.trim())
                .filter(Boolean),
            ),
          ];
    if (tagsParam !== undefined && tags.length === 0)
      throw queryProblem('tags', 'must name at least one tag (comma-separated)');
    const qb = testCaseQuery(dataSource.manager, ctx.state.caller.workspaceId, { folder, tags });
    ctx.body = await keysetPage(qb, paging, ORDER, testCaseJson);
  });

  router.post('/test-cases', async (ctx) => {
    const input = validateFull(jsonBody(ctx));
    const workspaceId = ctx.state.caller.workspaceId;
    const { tags, ...fields } = await checkTestCaseBody(dataSource.manager, workspaceId, input, { config });
    const now = new Date();
    const tc = Object.assign(new TestCase(), {
      id: newId('testCase'),
      workspaceId,
      ...fields,
      version: 1,
      createdAt: now,
      updatedAt: now,
    });
    const saved = await dataSource.transaction((manager) => insert(manager, tc, tags));
    ctx.status = 201;
    ctx.set('Location', `/v1/test-cases/${saved.id}`);
    answer(ctx, saved);
  });

  /**
   * `POST /v1/test-cases/validate` (scope `write`): a test case body checked as a save checks it
   * ({@link checkTestCaseBody}), nothing stored → 200 `{valid: true, flow}` (node ids assigned), else
   * the save's 400/422 problem. `?testCaseId=` checks it as `PUT /v1/test-cases/{testCaseId}` would
   * (its Ref links back to that test case are cycles); 404 when there is no such test case.
   */
  router.post('/test-cases/validate', async (ctx) => {
    const input = validateFull(jsonBody(ctx));
    const workspaceId = ctx.state.caller.workspaceId;
    const selfId = queryFilter(ctx, 'testCaseId');
    const self = selfId === undefined ? undefined : await loadById(dataSource.manager, workspaceId, selfId);
    const valid = await checkTestCaseBody(dataSource.manager, workspaceId, input, { config, self });
    ctx.body = { valid: true, flow: valid.flow };
  });

  router.get('/test-cases/:testCaseId', async (ctx) => {
    answer(ctx, await load(dataSource.manager, ctx));
  });

  router.put('/test-cases/:testCaseId', async (ctx) => {
    const input = validateFull(jsonBody(ctx));
    const saved = await write(ctx, async (manager, tc) => {
      const { tags, ...fields } = await checkTestCaseBody(manager, tc.workspaceId, input, { config, self: tc });
      Object.assign(tc, fields);
      return tags;
    });
    answer(ctx, saved);
  });

  router.patch('/test-cases/:testCaseId', async (ctx) => {
    const patch = validatePatch(jsonBody(ctx));
    const hooks = patch.hooks === undefined ? undefined : checkedHooks(patch.hooks);
    const saved = await write(ctx, async (manager, tc) => {
      if (patch.name !== undefined) tc.name = patch.name;
      if (patch.folder !== undefined) tc.folder = normaliseFolder(patch.folder);
      if (patch.description !== undefined) tc.description = patch.description;
      if (hooks !== undefined) tc.hooks = hooks;
      if (patch.reusable !== undefined) tc.reusable = patch.reusable;
      if (patch.flow !== undefined || patch.dataSets !== undefined) {
        // The flow is checked against the data sets it will have after the patch, and the other way round.
        const next = await withSubFlows(
          manager,
          tc.workspaceId,
          tc,
          checked(patch.flow ?? tc.flow, patch.dataSets ?? tc.dataSets ?? undefined, config),
          config,
        );
        tc.flow = next.flow;
        tc.dataSets = next.dataSets;
      }
      if (patch.authProfile !== undefined) tc.authProfile = patch.authProfile;
      if (patch.dependsOn !== undefined)
        tc.dependsOn = await checkedDependsOn(manager, tc.workspaceId, patch.dependsOn, tc.id);
      await checkTestCaseAuthProfiles(manager, tc);
      return patch.tags ?? tagsOf(tc);
    });
    answer(ctx, saved);
  });

  router.delete('/test-cases/:testCaseId', async (ctx) => {
    await dataSource.transaction(async (manager) => {
      const tc = await load(manager, ctx);
      // Live links (Ref nodes, mode "ref") would dangle: refused, naming who holds them. Clones are copies.
      const users = await referencingTestCases(manager, tc.workspaceId, tc.id);
      if (users.length > 0)
        throw new Problem(
          'test-case-referenced',
          `Test case "${tc.name}" is run by Ref nodes of ${users.map((u) => `"${u.name}" (${u.id}, node ${u.nodes.join(', ')})`).join(', ')}; remove those references (or make them clones) first.`,
          { referencedBy: users },
        );
      // Runners that list it by id forget it in the same transaction, so none points at nothing.
      const runners = await manager.getRepository(Runner).findBy({ workspaceId: tc.workspaceId });
      for (const runner of runners.filter((r) => r.testCaseIds.includes(tc.id))) {
        runner.testCaseIds = runner.testCaseIds.filter((id) => id !== tc.id);
        runner.updatedAt = new Date();
        await manager.getRepository(Runner).save(runner);
      }
      await manager.getRepository(TestCaseTag).delete({ testCaseId: tc.id });
      await manager.getRepository(TestCase).delete({ id: tc.id });
    });
    ctx.status = 204;
  });

  return router;
}
