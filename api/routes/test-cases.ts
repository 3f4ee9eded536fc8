/**
 * Test cases (spec "Test case"): addressed by id, filed in folders, labelled with tags.
 *
 *   GET    /v1/test-cases?folder=users&tags=a,b  list: `folder` selects it and its subfolders; `tags`
 *                                              (comma-separated) keeps test cases carrying all of them;
 *                                              ordered by folder then name; `limit`, `cursor`. A filter
 *                                              given empty (`folder=`, `tags=,`) is 400 `invalid-query`
 *   POST   /v1/test-cases                      create {name, folder?, description?, tags?, flow, dataSets?, hooks?} → 201
 *   GET    /v1/test-cases/{testCaseId}
 *   PUT    /v1/test-cases/{testCaseId}         replace {name, folder?, description?, tags?, flow, dataSets?, hooks?, authProfile?, reusable?} → 200
 *   PATCH  /v1/test-cases/{testCaseId}         any of {tags, name, folder, description, flow, dataSets, hooks, authProfile, reusable} → 200
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
 */
import Router from '@koa/router';
import type { EntityManager } from 'typeorm';
import { newId } from '../../src/ids';
import { Runner, TestCase, TestCaseTag } from '../../src/store/entities';
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
import { Problem } from '../problem';
import { bodyValidator, issuesProblem, jsonBody, queryFilter, queryProblem } from '../validation';
import { keysetPage, readPaging, type Keyset } from '../paging';
import { iso } from './shared';
import { AUTH_PROFILE_REF_SCHEMA, checkTestCaseAuthProfiles } from './auth-profiles';
import { isUniqueViolation } from '../../src/store/errors';
import { checkReferences, fillClones, referencingTestCases, type SubFlowIssue } from '../../src/store/sub-flows';
import { assignSubFlowIds } from '../../src/flow/sub-flows';

interface TestCaseInput {
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

async function load(manager: EntityManager, ctx: AppContext): Promise<TestCase> {
  const id = ctx.params.testCaseId!;
  const tc = await manager
    .getRepository(TestCase)
    .findOne({ where: { id, workspaceId: ctx.state.caller.workspaceId }, relations: { tagRows: true } });
  if (!tc) throw new Problem('not-found', `Test case "${id}" does not exist.`);
  return tc;
}

/** Saves a test case and replaces its tag rows, in the caller's transaction; 409 on a taken name. */
async function save(manager: EntityManager, tc: TestCase, tags: string[]): Promise<TestCase> {
  try {
    // Tags are written below, by hand: the cascade would null out removed tag rows instead of deleting them.
    const { tagRows: _tags, ...columns } = tc;
    await manager.getRepository(TestCase).save(manager.getRepository(TestCase).create(columns));
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw new Problem('name-taken', `A test case named "${tc.name}" already exists in folder "${tc.folder}".`, {
        errors: [{ field: 'name', pointer: '#/name', detail: 'is already taken in this folder' }],
      });
    }
    throw err;
  }
  const tagRepo = manager.getRepository(TestCaseTag);
  await tagRepo.delete({ testCaseId: tc.id });
  if (tags.length > 0) await tagRepo.insert(tags.map((tag) => ({ testCaseId: tc.id, tag })));
  tc.tagRows = tags.map((tag) => Object.assign(new TestCaseTag(), { testCaseId: tc.id, tag }));
  return tc;
}

export function testCasesRouter({ dataSource, config }: ApiDeps): Router<AppState> {
  const router = new Router<AppState>();

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
    const { flow, dataSets } = await withSubFlows(
      dataSource.manager,
      ctx.state.caller.workspaceId,
      undefined,
      checked(input.flow, input.dataSets, config),
      config,
    );
    const hooks = checkedHooks(input.hooks);
    const now = new Date();
    const tc = Object.assign(new TestCase(), {
      id: newId('testCase'),
      workspaceId: ctx.state.caller.workspaceId,
      name: input.name,
      folder: normaliseFolder(input.folder ?? ''),
      description: input.description ?? '',
      flow,
      dataSets,
      hooks,
      reusable: input.reusable ?? false,
      createdAt: now,
      updatedAt: now,
    });
    tc.authProfile = input.authProfile ?? null;
    await checkTestCaseAuthProfiles(dataSource.manager, tc);
    const saved = await dataSource.transaction((manager) => save(manager, tc, input.tags ?? []));
    ctx.status = 201;
    ctx.set('Location', `/v1/test-cases/${saved.id}`);
    ctx.body = testCaseJson(saved);
  });

  router.get('/test-cases/:testCaseId', async (ctx) => {
    ctx.body = testCaseJson(await load(dataSource.manager, ctx));
  });

  router.put('/test-cases/:testCaseId', async (ctx) => {
    const input = validateFull(jsonBody(ctx));
    const valid = checked(input.flow, input.dataSets, config);
    const hooks = checkedHooks(input.hooks);
    ctx.body = testCaseJson(
      await dataSource.transaction(async (manager) => {
        const tc = await load(manager, ctx);
        const { flow, dataSets } = await withSubFlows(manager, tc.workspaceId, tc, valid, config);
        Object.assign(tc, {
          name: input.name,
          folder: normaliseFolder(input.folder ?? ''),
          description: input.description ?? '',
          flow,
          dataSets,
          hooks,
          authProfile: input.authProfile ?? null,
          reusable: input.reusable ?? false,
          updatedAt: new Date(),
        });
        await checkTestCaseAuthProfiles(manager, tc);
        return save(manager, tc, input.tags ?? []);
      }),
    );
  });

  router.patch('/test-cases/:testCaseId', async (ctx) => {
    const patch = validatePatch(jsonBody(ctx));
    const hooks = patch.hooks === undefined ? undefined : checkedHooks(patch.hooks);
    ctx.body = testCaseJson(
      await dataSource.transaction(async (manager) => {
        const tc = await load(manager, ctx);
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
        tc.updatedAt = new Date();
        await checkTestCaseAuthProfiles(manager, tc);
        return save(manager, tc, patch.tags ?? tagsOf(tc));
      }),
    );
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
