/**
 * Runners: named selections of test cases, addressed by name (a run names its runner).
 *
 *   GET    /v1/runners                         list (by name; `limit`, `cursor`)
 *   POST   /v1/runners                         create                                        → 201
 *   GET    /v1/runners/{name}
 *   GET    /v1/runners/{name}/test-cases       the test cases a run would execute now, in order
 *   PUT    /v1/runners/{name}                  replace                                       → 200
 *   PATCH  /v1/runners/{name}                  any field                                     → 200
 *   DELETE /v1/runners/{name}                                                                → 204
 *
 * Body: {name, description?, testCaseIds?, folder?, tags?, order?, loadProfile?, variableScope?, durability?, baseline?,
 * quarantineFlaky?}
 * (`baseline`: the run its runs compare with and relative thresholds measure against, docs/history.md
 * "Baselines": `lastPassing` or the id of a run of the workspace, else 422 `unknown-reference`
 * naming `baseline`; null: the default, the last passing run)
 * (`loadProfile`: docs/performance.md; `quarantineFlaky`: its runs do not fail for failures of test
 * cases flagged flaky, docs/history.md "Quarantine"; `variableScope`: `testCase`, the default, or `run`, whose test
 * cases start from the variables the one before ended with, docs/flows.md "Variables across test
 * cases"; `durability`: `node`, the default, or `testCase`, docs/durability.md "Durability modes").
 * Selection: `testCaseIds` run
 * first in their order; then the test cases in `folder` (subfolders included; '' is every folder)
 * that carry all `tags`, ordered by `order` (`name`: folder then name, the default; `createdAt`).
 * At least one of a non-empty `testCaseIds`, `folder` or a non-empty `tags` is required; an id
 * that does not exist is 422.
 */
import { applyParallel, PARALLEL_FIELDS, runnerParallelJson } from './parallel-fields';
import type { OriginLimits } from '../../src/domain/node-io';
import Router from '@koa/router';
import type { EntityManager } from 'typeorm';
import { In } from 'typeorm';
import { newId } from '../../src/ids';
import { Runner, RUNNER_ORDERS, TestCase, type RunnerOrder } from '../../src/store/entities';
import { normaliseFolder } from '../../src/domain/folders';
import { resolveRunnerSelection } from '../../src/store/test-cases';
import type { ApiDeps, AppContext, AppState } from '../context';
import { fieldError } from '../../src/problems';
import { invalid, Problem } from '../problem';
import { bodyValidator, jsonBody } from '../validation';
import { byName, keysetPage, page, readPaging } from '../paging';
import { findOr404, workspaceRows } from '../lookups';
import { iso, nameSchema, uniqueName } from './shared';
import { testCaseJson } from './test-cases';
import { checkedProfile, loadProfileSchema } from '../load-profile';
import { AUTH_PROFILE_REF_SCHEMA, checkAuthProfileRefs } from './auth-profiles';
import type { LoadProfileInput } from '../../src/perf/profile';
import { DURABILITIES, VARIABLE_SCOPES, type Durability, type VariableScope } from '../../src/domain/types';
import { baselineFieldError } from '../../src/store/baselines';

/**
 * The `baseline` field of runners and deployments (docs/history.md "Baselines"): `lastPassing`, a
 * run id of the workspace (checked after the schema), or null (the default: the last passing run).
 */
export const BASELINE_SCHEMA = {
  type: ['string', 'null'],
  minLength: 1,
  maxLength: 40,
  description:
    'The run its runs are compared with (GET /v1/runs/{id}/compare/baseline) and relative thresholds (`p(95)<baseline*1.10`) measure against: `lastPassing` (the last run of the same runner, environment and kind that passed) or the id of a run of the workspace; null: `lastPassing`.',
} as const;

/**
 * The `durability` field of runners (docs/durability.md "Durability modes"); deployments and runs
 * take it nullable ({@link NULLABLE_DURABILITY_SCHEMA}).
 */
export const DURABILITY_SCHEMA = {
  enum: [...DURABILITIES],
  description:
    '`node` (default): every node of a test case is its own durable step, so a crash repeats at most the node under way; `testCase`: each test case runs in one activity that heartbeats its progress (Wait, Callback and Poll nodes stay durable steps), so a crash repeats at most the nodes since its last checkpoint, for less overhead per node. Performance runs ignore it.',
} as const;

/** The `durability` field of deployments and runs: a mode, or null for the one it would inherit. */
export const NULLABLE_DURABILITY_SCHEMA = {
  enum: [...DURABILITIES, null],
  description: DURABILITY_SCHEMA.description,
} as const;

interface RunnerInput {
  name?: string;
  description?: string;
  testCaseIds?: string[];
  folder?: string | null;
  tags?: string[];
  order?: RunnerOrder;
  /** A load profile that makes this runner's runs performance runs (docs/performance.md); null clears it. */
  loadProfile?: LoadProfileInput | null;
  /** Whether its test cases share variables in a run (src/domain/types.ts `VariableScope`). */
  variableScope?: VariableScope;
  /** How its runs are made durable (src/domain/types.ts `Durability`) unless a deployment or the run gives its own. */
  durability?: Durability;
  /** How its runs schedule their test cases (docs/parallel.md): concurrency, bail, per-origin limits. */
  concurrency?: number;
  bail?: number;
  originLimits?: OriginLimits | null;
  /** The auth profile of its test cases when neither they nor their folder name one (docs/auth.md), or `none`; null clears it. */
  authProfile?: string | null;
  /** Its runs' baseline (src/store/baselines.ts): `lastPassing` or a run id; null clears it. */
  baseline?: string | null;
  /** Whether failures of test cases flagged flaky on its environment do not fail its runs (docs/history.md "Quarantine"). */
  quarantineFlaky?: boolean;
}

const fields = {
  name: nameSchema,
  description: { type: 'string', maxLength: 1000 },
  testCaseIds: { type: 'array', maxItems: 5000, items: { type: 'string', minLength: 1, maxLength: 40 } },
  folder: { type: ['string', 'null'], maxLength: 255 },
  tags: { type: 'array', maxItems: 50, uniqueItems: true, items: { type: 'string', minLength: 1, maxLength: 100 } },
  order: { enum: [...RUNNER_ORDERS] },
  loadProfile: loadProfileSchema,
  authProfile: AUTH_PROFILE_REF_SCHEMA,
  baseline: BASELINE_SCHEMA,
  quarantineFlaky: {
    type: 'boolean',
    description:
      'Quarantine flaky test cases (docs/history.md "Quarantine"): a run freezes the test cases flagged flaky on its runner and environment (`GET /v1/flaky`) when it starts; they run and are reported (`quarantined: true` on a failed result) but their failures do not fail the run. Default false.',
  },
  variableScope: {
    enum: [...VARIABLE_SCOPES],
    description:
      "`testCase` (default): every test case starts from the run's variables; `run`: each starts from the variables the test case before it ended with, in order, as a Newman collection run passes them on.",
  },
  durability: DURABILITY_SCHEMA,
  ...PARALLEL_FIELDS,
};
/** The request body schemas of the runner endpoints: what ajv validates with (below) and what the OpenAPI document shows (api/openapi/operations.ts). */
export const RUNNER_SCHEMAS = {
  create: { type: 'object', required: ['name'], additionalProperties: false, properties: fields },
  replace: { type: 'object', additionalProperties: false, properties: fields },
  patch: { type: 'object', additionalProperties: false, minProperties: 1, properties: fields },
} as const;
const validateCreate = bodyValidator<RunnerInput & { name: string }>(RUNNER_SCHEMAS.create);
const validateReplace = bodyValidator<RunnerInput>(RUNNER_SCHEMAS.replace);
const validatePatch = bodyValidator<RunnerInput>(RUNNER_SCHEMAS.patch);

/** The JSON form of a runner. */
export function runnerJson(r: Runner) {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    testCaseIds: r.testCaseIds,
    folder: r.folder,
    tags: r.tags,
    order: r.order,
    loadProfile: r.loadProfile ?? null,
    variableScope: r.variableScope ?? 'testCase',
    durability: r.durability ?? 'node',
    ...runnerParallelJson(r.parallel),
    authProfile: r.authProfile ?? null,
    baseline: r.baseline ?? null,
    quarantineFlaky: Boolean(r.quarantineFlaky),
    createdAt: iso(r.createdAt),
    updatedAt: iso(r.updatedAt),
  };
}

/** Checks the selection: something selected, every listed id exists in the workspace. */
async function checkSelection(manager: EntityManager, runner: Runner): Promise<void> {
  await checkAuthProfileRefs(
    manager,
    runner.workspaceId,
    runner.authProfile ? [{ at: ['authProfile'], name: runner.authProfile }] : [],
  );
  const baselineError = await baselineFieldError(manager, runner.workspaceId, runner.baseline);
  if (baselineError)
    throw new Problem('unknown-reference', `${baselineError.field}: ${baselineError.detail}`, {
      errors: [baselineError],
    });
  if (runner.testCaseIds.length === 0 && runner.folder === null && runner.tags.length === 0) {
    throw invalid(
      [fieldError([], "select test cases with testCaseIds, folder ('' for all) or tags")],
      'The runner selects no test cases.',
    );
  }
  if (runner.testCaseIds.length === 0) return;
  const found = await manager.getRepository(TestCase).find({
    select: { id: true },
    where: { workspaceId: runner.workspaceId, id: In(runner.testCaseIds) },
  });
  const known = new Set(found.map((t) => t.id));
  const errors = runner.testCaseIds
    .map((id, i) => ({ id, i }))
    .filter(({ id }) => !known.has(id))
    .map(({ id, i }) => fieldError(['testCaseIds', i], `test case "${id}" does not exist`));
  if (errors.length > 0)
    throw new Problem('unknown-reference', errors.map((e) => `${e.field}: ${e.detail}`).join('; '), { errors });
}

function apply(runner: Runner, input: RunnerInput, replace: boolean): void {
  if (input.name !== undefined) runner.name = input.name;
  if (replace || input.description !== undefined) runner.description = input.description ?? '';
  if (replace || input.testCaseIds !== undefined) runner.testCaseIds = [...new Set(input.testCaseIds ?? [])];
  if (replace || input.folder !== undefined)
    runner.folder = input.folder === undefined || input.folder === null ? null : normaliseFolder(input.folder);
  if (replace || input.tags !== undefined) runner.tags = input.tags ?? [];
  if (replace || input.order !== undefined) runner.order = input.order ?? 'name';
  if (replace || input.loadProfile !== undefined)
    runner.loadProfile = checkedProfile(input.loadProfile, 'loadProfile') ?? null;
  if (replace || input.variableScope !== undefined) runner.variableScope = input.variableScope ?? 'testCase';
  if (replace || input.durability !== undefined) runner.durability = input.durability ?? 'node';
  runner.parallel = applyParallel(runner.parallel ?? null, input, replace);
  if (replace || input.authProfile !== undefined) runner.authProfile = input.authProfile ?? null;
  if (replace || input.baseline !== undefined) runner.baseline = input.baseline ?? null;
  if (replace || input.quarantineFlaky !== undefined) runner.quarantineFlaky = input.quarantineFlaky ?? false;
}

function load(manager: EntityManager, ctx: AppContext): Promise<Runner> {
  const name = ctx.params.runnerName!;
  return findOr404(manager, Runner, { workspaceId: ctx.state.caller.workspaceId, name }, `Runner "${name}"`);
}

const ORDER = byName<Runner>('r');

export function runnersRouter({ dataSource }: ApiDeps): Router<AppState> {
  const router = new Router<AppState>();
  const repo = dataSource.getRepository(Runner);

  router.get('/runners', async (ctx) => {
    const paging = readPaging(ctx, ORDER);
    const qb = workspaceRows(repo, 'r', ctx);
    ctx.body = await keysetPage(qb, paging, ORDER, runnerJson);
  });

  router.post('/runners', async (ctx) => {
    const input = validateCreate(jsonBody(ctx));
    const now = new Date();
    const runner = Object.assign(new Runner(), {
      id: newId('runner'),
      workspaceId: ctx.state.caller.workspaceId,
      createdAt: now,
      updatedAt: now,
    });
    apply(runner, input, true);
    await dataSource.transaction(async (manager) => {
      await checkSelection(manager, runner);
      await uniqueName('Runner', runner.name, () => manager.getRepository(Runner).insert(runner));
    });
    ctx.status = 201;
    ctx.set('Location', `/v1/runners/${encodeURIComponent(runner.name)}`);
    ctx.body = runnerJson(runner);
  });

  router.get('/runners/:runnerName', async (ctx) => {
    ctx.body = runnerJson(await load(dataSource.manager, ctx));
  });

  router.get('/runners/:runnerName/test-cases', async (ctx) => {
    const runner = await load(dataSource.manager, ctx);
    const selected = await resolveRunnerSelection(dataSource.manager, runner);
    ctx.body = page(selected.map(testCaseJson), null);
  });

  for (const [method, validate, replace] of [
    ['put', validateReplace, true],
    ['patch', validatePatch, false],
  ] as const) {
    router[method]('/runners/:runnerName', async (ctx) => {
      const input = validate(jsonBody(ctx));
      ctx.body = runnerJson(
        await dataSource.transaction(async (manager) => {
          const runner = await load(manager, ctx);
          apply(runner, input, replace);
          runner.updatedAt = new Date();
          await checkSelection(manager, runner);
          return uniqueName('Runner', runner.name, () => manager.getRepository(Runner).save(runner));
        }),
      );
    });
  }

  router.delete('/runners/:runnerName', async (ctx) => {
    const runner = await load(dataSource.manager, ctx);
    await repo.delete({ id: runner.id });
    ctx.status = 204;
  });

  return router;
}
