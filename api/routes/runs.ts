/**
 * Runs (spec "Run", "States and transitions", "Endpoints").
 *
 *   POST /v1/runs                      {runner, environment, timeout?, variables?, performance?, durability?,
 *                                      concurrency?, bail?, originLimits?, folder?, tags?}
 *                                      → 201 (`performance`: a load profile, docs/performance.md;
 *                                      `durability`: `node` or `testCase` over the deployment's and
 *                                      runner's, docs/durability.md "Durability modes"; the scheduling fields and
 *                                      the narrowing `folder`/`tags`: docs/parallel.md)
 *   POST /v1/test-cases/debug          {testCase, environment, variables?, timeout?} → 201 the run document:
 *                                      a debug run of one test case as the designer holds it (module
 *                                      comment below; docs/api.md "Debug runs")
 *   GET  /v1/runs                      listing: runner, environment, status, trigger, deployment, limit,
 *                                      orderBy=createdAt, order=desc|asc, cursor; a filter given
 *                                      empty (`runner=`) is 400 `invalid-query` naming it
 *   GET  /v1/runs/{runId}              status; progress and estimatedCompletion while running (from the
 *                                      stored row, never waiting on Temporal); while the store does not
 *                                      answer, a queued or running run's live state from its workflow,
 *                                      marked `source: "workflow"`, `storeUnavailable: true`;
 *                                      result, summary, duration, completedAt once completed;
 *                                      error once failed; a running performance run adds live
 *                                      `performance` figures (progress in seconds of its profile);
 *                                      `durability`: the mode frozen in its plan, or, while queued,
 *                                      the one it will get (its own, its deployment's or runner's)
 *   GET  /v1/runs/{runId}/results      runId, status, result, summary, duration, completedAt, details, and
 *                                      `performance` for a performance run (docs/performance.md)
 *   POST /v1/runs/{runId}/cancel       requests cancellation; the run ends `failed` ("Run cancelled") → 202;
 *                                      a run whose workflow already closed without ending it (terminated,
 *                                      timed out) is ended `failed` at once with that reason
 *   POST /v1/runs/{runId}/control      {action: pause|resume|scale|stop, vus?, rate?, reason?} → 200
 *                                      {runId, control}: live control of a running performance run
 *                                      (docs/performance.md "Steering a running test"; scope `write`);
 *                                      400 `validation-failed` naming the field, 409
 *                                      `run-not-controllable`, 503 `temporal-unavailable`
 *   GET  /v1/runs/{runId}/deliveries   outgoing webhook deliveries of a deployment's run: event, url,
 *                                      status (pending, delivered, failed), attempts, last status/error
 *   DELETE /v1/runs/{runId}            deletes an ended run with its results and deliveries → 204 (scope
 *                                      `write`); 409 `run-active` while queued or running (cancel first)
 *
 * Starting a run accepts `Idempotency-Key` (api/idempotency.ts): the same key and body within
 * 24 h answer the run the first call created (201 again, `Idempotent-Replayed: true`).
 *
 * `variables` are plain values or secrets `{"value": …, "secret": true}` (docs/secrets.md): the run's
 * row stores secrets sealed with the key ring; the run document answers them as `{"secret": true,
 * "value": "***"}` to every key (plain values as sent, or `"***"` for a `read`-scope key). A secret
 * shorter than 4 characters, or `{"secret": true, "value": "***"}` (a run has no stored secret to
 * keep), is 400 `validation-failed` naming `variables.<name>`.
 *
 * Starting and cancelling need scope `run`. `timeout` is in seconds (default 1800, at most
 * ASSAY_MAX_RUN_TIMEOUT_SECONDS); `duration` is in milliseconds.
 *
 * Debug runs (trigger `debug`; docs/spec-choices.md "Debug runs"): `testCase` is a test case body as
 * `POST /v1/test-cases` takes it, plus `id`, the saved test case it is a draft of (optional; 422
 * `unknown-reference` naming `testCase.id` when there is none). It is checked exactly as a save
 * checks it (api/routes/test-cases.ts `checkTestCaseBody`: the same problems, fields under
 * `testCase`), kept in the run's row, and the run starts as any run (idempotency, quotas, servers,
 * recovery, 503 `temporal-unavailable`); its plan is frozen from that test case
 * (activities/runs.ts `startRun`) with `debug: true` and durability `node`. It has no runner: its
 * document says `runner: null`, `trigger: "debug"` and `testCaseId` (when given). `timeout`
 * defaults to {@link DEBUG_TIMEOUT_SECONDS}. It is listed and deleted as any run (`trigger=debug`
 * filters them) but writes no test case history: it never counts toward trends, flaky flags or
 * baselines, and has no deployment, so no outgoing webhook.
 */
import { normaliseFolder } from '../../src/domain/folders';
import { applyParallel, NULLABLE_PARALLEL_FIELDS, ownParallelJson, runnerParallelJson } from './parallel-fields';
import type { OriginLimits } from '../../src/domain/node-io';
import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { DataSource } from 'typeorm';
import {
  DEBUG_RUNNER_NAME,
  Deployment,
  Environment,
  Run,
  RunLoadShard,
  Runner,
  RunTestCaseResult,
  TestCase,
  WebhookDelivery,
} from '../../src/store/entities';
import {
  INITIAL_LOAD_CONTROL,
  LOAD_CONTROL_ACTIONS,
  loadCommandRefusal,
  type LoadControlAction,
  type LoadControlRequest,
  type LoadControlState,
} from '../../src/domain/load-control';
import { readLoadControl } from '../../src/store/load-control';
import { fieldError } from '../../src/problems';
import { liveFigures } from '../../src/perf/metrics';
import { plannedMs, validateProfile } from '../../src/perf/profile';
import { RUN_STATUSES, type Durability, type RunTrigger } from '../../src/domain/types';
import { keyRingFor } from '../../src/secrets/keyring';
import { estimateCompletion } from '../../src/flow/estimate';
import type { LiveRun, RunWorkflowClient } from '../../src/temporal/run-workflows';
import { isDatabaseUnavailable } from '../../src/store/errors';
import { closedWorkflowReason, failOpenRun } from '../../src/temporal/run-recovery';
import type { ApiDeps, AppContext, AppState } from '../context';
import { invalid, Problem } from '../problem';
import { bodyValidator, jsonBody, queryEnum, queryFilter, queryFilterEnum } from '../validation';
import { answerStartedRun, runnerOf, runStarter } from '../run-starter';
import { newId } from '../../src/ids';
import { checkTestCaseBody, TEST_CASE_SCHEMAS, type TestCaseInput } from './test-cases';
import { readIdempotencyKey } from '../idempotency';
import { keysetPage, page, readPaging, type Keyset } from '../paging';
import { findOr404, requireRunTarget, workspaceRows } from '../lookups';
import { deleteRun } from '../../src/store/retention';
import { iso, nameSchema, validatedWith, variablesSchema } from './shared';
import {
  bodyVariables,
  keptSecretErrors,
  sealVariableInputs,
  variablesAnswer,
  variableShapeErrors,
  type VariablesInput,
} from '../secrets';
import { checkedProfile } from '../load-profile';
import { NULLABLE_DURABILITY_SCHEMA } from './runners';
import type { LoadProfileInput } from '../../src/perf/profile';

interface RunInput {
  runner: string;
  environment: string;
  timeout?: number;
  variables?: VariablesInput;
  /** A load profile: makes this a performance run (docs/performance.md). */
  performance?: LoadProfileInput;
  /** Its durability mode (docs/durability.md "Durability modes"); absent or null: the deployment's, else the runner's. */
  durability?: Durability | null;
  /** Its scheduling (docs/parallel.md), each over the deployment's and runner's; absent or null: inherited. */
  concurrency?: number | null;
  bail?: number | null;
  originLimits?: OriginLimits | null;
  /** Narrows the runner's selection to this folder (and below; docs/parallel.md "Part of a runner"). */
  folder?: string;
  /** Narrows the runner's selection to test cases carrying every one of these tags. */
  tags?: string[];
}

/**
 * The body schema of `POST /v1/runs` (`timeout` at most `maxTimeoutSeconds`,
 * ASSAY_MAX_RUN_TIMEOUT_SECONDS): what ajv validates with and what the OpenAPI document shows
 * (api/openapi/operations.ts). Variables and the load profile are checked further after it.
 */
export function runInputSchema(maxTimeoutSeconds: number) {
  return {
    type: 'object',
    required: ['runner', 'environment'],
    additionalProperties: false,
    properties: {
      runner: nameSchema,
      environment: nameSchema,
      timeout: { type: 'integer', minimum: 1, maximum: maxTimeoutSeconds },
      variables: variablesSchema,
      performance: { type: 'object' },
      durability: NULLABLE_DURABILITY_SCHEMA,
      ...NULLABLE_PARALLEL_FIELDS,
      folder: {
        type: 'string',
        maxLength: 255,
        description: "Runs only the runner's test cases in this folder or below it (`assay run --folder`).",
      },
      tags: {
        type: 'array',
        maxItems: 50,
        uniqueItems: true,
        items: { type: 'string', minLength: 1, maxLength: 100 },
        description: "Runs only the runner's test cases that carry every one of these tags (`assay run --tag`).",
      },
    },
  };
}

/** A debug run's default `timeout`, seconds (5 minutes; at most ASSAY_MAX_RUN_TIMEOUT_SECONDS). */
export const DEBUG_TIMEOUT_SECONDS = 300;

/** The body of `POST /v1/test-cases/debug`. */
interface DebugInput {
  testCase: TestCaseInput & { id?: string };
  environment: string;
  variables?: VariablesInput;
  timeout?: number;
}

/**
 * The body schema of `POST /v1/test-cases/debug` (`timeout` at most `maxTimeoutSeconds`): what ajv
 * validates with and what the OpenAPI document shows. `testCase` is the test case body of `POST
 * /v1/test-cases` ({@link TEST_CASE_SCHEMAS}`.full`) plus `id`; its flow, data sets, references and
 * quotas are checked after it, as a save checks them.
 */
export function debugInputSchema(maxTimeoutSeconds: number) {
  return {
    type: 'object',
    required: ['testCase', 'environment'],
    additionalProperties: false,
    properties: {
      testCase: {
        ...TEST_CASE_SCHEMAS.full,
        properties: { ...TEST_CASE_SCHEMAS.full.properties, id: { type: 'string', minLength: 1, maxLength: 40 } },
      },
      environment: nameSchema,
      variables: variablesSchema,
      timeout: { type: 'integer', minimum: 1, maximum: maxTimeoutSeconds },
    },
  } as const;
}

/** The body of `POST /v1/runs/{runId}/control`. */
interface ControlInput {
  action: LoadControlAction;
  vus?: number;
  rate?: number;
  reason?: string;
}

/**
 * The body schema of `POST /v1/runs/{runId}/control` (what ajv validates with and the OpenAPI
 * document shows): `vus` an integer 0–10,000 (VU executors), `rate` iterations per the profile's
 * `timeUnit` (arrival-rate executors), for `scale` only; `reason` free text up to 200 characters.
 * Which of `vus`/`rate` a run takes, and the rate's bound per second, are checked against its
 * profile after it (src/domain/load-control.ts `loadCommandRefusal`).
 */
export const controlInputSchema = {
  type: 'object',
  required: ['action'],
  additionalProperties: false,
  properties: {
    action: { type: 'string', enum: [...LOAD_CONTROL_ACTIONS] },
    vus: { type: 'integer', minimum: 0, maximum: 10_000 },
    rate: { type: 'number', minimum: 0 },
    reason: { type: 'string', maxLength: 200 },
  },
} as const;

/**
 * What `performance.state` says of a running performance run: `paused` or `stopping` as last
 * commanded (the shards apply it within `CONTROL_POLL_MS` plus a tick), else `running`.
 */
export function loadState(control: LoadControlState | null): 'running' | 'paused' | 'stopping' {
  if (control?.stopped) return 'stopping';
  return control?.paused ? 'paused' : 'running';
}

/** The field a refusal of `loadCommandRefusal` is about (`''`: none, the refusal is a 409). */
function refusalField(request: LoadControlRequest, reason: string): string {
  if (/stopping/.test(reason)) return '';
  if (/^action/.test(reason)) return 'action';
  if (request.vus !== undefined && /vus/.test(reason)) return 'vus';
  if (/rate/.test(reason)) return 'rate';
  return /vus/.test(reason) ? 'vus' : 'action';
}

/** The values of the `trigger` filter (a Record, so that a new trigger kind cannot be forgotten here). */
export const RUN_TRIGGERS = Object.keys({ api: true, schedule: true, webhook: true, debug: true } satisfies Record<
  RunTrigger,
  true
>) as RunTrigger[];

/** Default and largest page of the run listing. */
const RUN_PAGE = { default: 20, max: 200 } as const;

/** The run listing's order: by `createdAt`, then id (the cursor holds both). */
const ORDER: Keyset<Run, 'time-id'> = {
  shape: 'time-id',
  keys: [
    { column: 'run.createdAt', of: (run) => run.createdAt.toISOString(), parse: (value) => new Date(value) },
    { column: 'run.id', of: (run) => run.id },
  ],
};

/** The links of a run document: itself, its results, and its workflow in the Temporal Web UI. */
function links(run: Pick<Run, 'id' | 'workflowId'>, workflows: RunWorkflowClient) {
  return { self: `/v1/runs/${run.id}`, results: `/v1/runs/${run.id}/results`, temporal: workflows.uiLink(run) };
}

/**
 * `GET /v1/runs/{runId}` while the store is slow: after this long without an answer from
 * the store (authentication's key lookup included), the run's workflow is asked too
 * ({@link liveRunLookup}), so that its answer is there when the store's bound runs out, ms.
 */
export const LIVE_RUN_AFTER_MS = 250;

/**
 * By when, counted from the request's start, the workflow must have answered, ms: the answer then
 * comes within 2 s. A workflow waiting on a store write answers a query only at its next workflow
 * task heartbeat (up to 1.6 s with the default `ASSAY_WORKFLOW_TASK_TIMEOUT_MS` of 2000), hence the
 * early start. When the lookup starts later (the store failed only after this, bounds raised), it
 * gets {@link LIVE_RUN_MIN_MS}.
 */
export const LIVE_RUN_ANSWER_BY_MS = 1900;

/** The least time a workflow lookup gets, ms. */
export const LIVE_RUN_MIN_MS = 1000;

/** The path of `GET /v1/runs/{runId}` (case-insensitive, as the routers match), capturing the id. */
const RUN_PATH = /^\/v1\/runs\/([^/]+)\/?$/i;

/**
 * Middleware for the /v1 pipeline, before authentication: on `GET /v1/runs/{runId}` it sets
 * `ctx.state.liveRun`, the run's live state from its workflow ({@link RunWorkflowClient.liveRun}),
 * looked up once, when first asked for or {@link LIVE_RUN_AFTER_MS} after the request started,
 * whichever comes first, and given until {@link LIVE_RUN_ANSWER_BY_MS} after the start. The route
 * asks for it only when the store did not answer; a lookup started early for a request the store
 * then answered is left to finish unread (Temporal's answer is discarded).
 */
export function liveRunLookup(workflows: RunWorkflowClient): Middleware<AppState> {
  return async (ctx, next) => {
    const match = ctx.method === 'GET' ? RUN_PATH.exec(ctx.path) : null;
    if (!match) return next();
    const runId = match[1]!;
    const started = Date.now();
    let lookup: Promise<LiveRun | null> | undefined;
    const liveRun = () =>
      (lookup ??= workflows.liveRun(runId, Math.max(LIVE_RUN_MIN_MS, started + LIVE_RUN_ANSWER_BY_MS - Date.now())));
    const timer = setTimeout(liveRun, LIVE_RUN_AFTER_MS);
    timer.unref();
    ctx.state.liveRun = { runId, lookup: liveRun };
    try {
      await next();
    } finally {
      clearTimeout(timer);
    }
  };
}

/**
 * The run document of a run whose stored row cannot be read now, from what its running workflow
 * knows (`live`, {@link RunWorkflowClient.liveRun}; docs/api.md "While the database is away"):
 * `runId`, `status` (`queued` or `running`), `runner`, `environment`, `trigger`, `startedAt`, and
 * while running `progress` and `estimatedCompletion`, plus `links`, marked `source: "workflow"` and
 * `storeUnavailable: true`. Fields only the store holds (variables, timeout, createdAt, context,
 * deploymentId, a performance run's live figures) are absent. A workflow whose run has ended is not
 * answered this way: its end, with the result and summary, is the store's to tell.
 * @returns null when the workflow does not serve: none found (`live` null), another workspace's
 *   (its `AssayWorkspace` is not `workspaceId`: answered as a run that does not exist), or an ended run.
 */
export function runFromWorkflow(
  live: LiveRun | null,
  runId: string,
  workspaceId: string,
  workflows: RunWorkflowClient,
): Record<string, unknown> | null {
  if (!live || live.workspaceId !== workspaceId) return null;
  const { state } = live;
  if (state.status !== 'queued' && state.status !== 'running') return null;
  const doc: Record<string, unknown> = { runId, status: state.status, source: 'workflow', storeUnavailable: true };
  if (live.runner !== undefined) doc.runner = live.runner === DEBUG_RUNNER_NAME ? null : live.runner;
  if (live.environment !== undefined) doc.environment = live.environment;
  if (live.trigger !== undefined) doc.trigger = live.trigger;
  if (state.startedAt) doc.startedAt = state.startedAt;
  if (state.status === 'running') {
    doc.progress = state.progress;
    if (state.estimatedCompletion) doc.estimatedCompletion = state.estimatedCompletion;
  }
  doc.links = links({ id: runId, workflowId: live.workflowId }, workflows);
  return doc;
}

/**
 * The run document, from the stored row alone (no call to Temporal, so polling answers fast even
 * while a request is in flight or a worker is down). Progress is what the workflow stored at its
 * last checkpoint (at most about a second old while nodes run); `estimatedCompletion` is computed
 * now from the observed rate (workflows/run-ledger.ts `estimateCompletion`): never in the past while
 * running, and it keeps moving while no worker is up. Secret variables read `{"secret": true,
 * "value": "***"}`; with `maskVariables` (a `read`-scope caller) plain values read `"***"` too, as
 * environment variables do for such keys.
 */
export function runJson(run: Run, workflows: RunWorkflowClient, nowMs = Date.now(), maskVariables = false) {
  const doc: Record<string, unknown> = {
    runId: run.id,
    status: run.status,
    runner: runnerOf(run),
    environment: run.environmentName,
    trigger: run.trigger,
    // Frozen in the row when the plan freezes; a run that started before modes existed ran `node`.
    // A queued run's inherited mode is filled in by the routes ({@link queuedDurability}).
    durability: run.durability ?? 'node',
    // The settings frozen in the plan once it starts (defaults filled); while queued, its own (null: inherited).
    ...(run.status === 'queued' ? ownParallelJson(run.parallel) : runnerParallelJson(run.parallel)),
    ...(run.selection ? { selection: run.selection } : {}),
    timeout: run.timeoutSeconds,
    variables: variablesAnswer(run.variables, maskVariables ? 'read' : 'run'),
    createdAt: iso(run.createdAt),
  };
  if (run.deploymentId) doc.deploymentId = run.deploymentId;
  // A debug run: the saved test case its test case is a draft of.
  if (run.testCaseId) doc.testCaseId = run.testCaseId;
  if (run.context) doc.context = run.context;
  // docs/history.md: what the run executed (its plan's content hash) and the run it was made from.
  if (run.planHash) doc.planHash = run.planHash;
  if (run.origin) doc.origin = run.origin;
  if (run.startedAt) doc.startedAt = iso(run.startedAt);
  if (run.status === 'running') {
    doc.progress = {
      completed: run.progressCompleted,
      total: run.progressTotal,
      percentage: run.progressTotal === 0 ? 0 : Math.round((run.progressCompleted / run.progressTotal) * 1000) / 10,
      // Test cases under way (docs/parallel.md).
      running: run.progressRunning ?? 0,
    };
    const startedAtMs = (run.startedAt ?? run.createdAt).getTime();
    const eta = estimateCompletion({
      startedAtMs,
      deadlineMs: startedAtMs + run.timeoutSeconds * 1000,
      work: run.progressWork,
      nowMs,
    });
    doc.estimatedCompletion = new Date(eta).toISOString();
  }
  if (run.status === 'completed') doc.result = run.result;
  if (run.status === 'completed' || run.status === 'failed') {
    if (run.summary) doc.summary = run.summary;
    if (run.duration !== null) doc.duration = run.duration;
    doc.completedAt = iso(run.completedAt);
  }
  if (run.status === 'failed') doc.error = run.error ?? 'The run failed';
  doc.links = links(run, workflows);
  return doc;
}

/**
 * The plan's `testCaseVersions` of run `runId` (src/domain/types.ts RunPlan), read out of the JSON
 * column without loading the plan (which may hold megabytes of test cases); null when the run has
 * no plan yet or its plan none.
 */
async function planTestCaseVersions(dataSource: DataSource, runId: string): Promise<Record<string, number> | null> {
  const type = dataSource.options.type;
  const extract =
    type === 'mysql' || type === 'mariadb'
      ? "JSON_EXTRACT(run.plan, '$.testCaseVersions')"
      : "json_extract(run.plan, '$.testCaseVersions')";
  const raw = await dataSource
    .getRepository(Run)
    .createQueryBuilder('run')
    .select(extract, 'versions')
    .where('run.id = :runId', { runId })
    .getRawOne<{ versions: unknown }>();
  const value = typeof raw?.versions === 'string' ? (JSON.parse(raw.versions) as unknown) : raw?.versions;
  return value && typeof value === 'object' ? (value as Record<string, number>) : null;
}

export function runsRouter(deps: ApiDeps): Router<AppState> {
  const { dataSource, workflows, config } = deps;
  const router = new Router<AppState>();
  const repo = dataSource.getRepository(Run);
  const startRun = runStarter(deps);
  const ring = keyRingFor(config.secretKeys, config.dataDir);
  const loadRun = (ctx: AppContext) =>
    findOr404(
      dataSource.manager,
      Run,
      { id: ctx.params.runId!, workspaceId: ctx.state.caller.workspaceId },
      `Run "${ctx.params.runId}"`,
    );
  const validateRun = bodyValidator<RunInput>(runInputSchema(config.runs.maxTimeoutSeconds));
  /**
   * The run document with the durability mode a queued run will get when its plan freezes
   * (activities/runs.ts `startRun`): its own, else its deployment's, else its runner's, else `node`.
   */
  const withDurability = async (doc: Record<string, unknown>, run: Run) => {
    if (run.status === 'queued' && !run.durability) doc.durability = await queuedDurability(run);
    return doc;
  };
  async function queuedDurability(run: Run): Promise<Durability> {
    // A debug run always runs `node` (activities/runs.ts `startRun`).
    if (run.trigger === 'debug') return 'node';
    const deployment = run.deploymentId
      ? await dataSource
          .getRepository(Deployment)
          .findOne({ select: { id: true, durability: true }, where: { id: run.deploymentId } })
      : null;
    if (deployment?.durability) return deployment.durability;
    const runner = await dataSource.getRepository(Runner).findOne({
      select: { id: true, durability: true },
      where: { workspaceId: run.workspaceId, name: run.runnerName },
    });
    return runner?.durability ?? 'node';
  }
  const validateControl = bodyValidator<ControlInput>(controlInputSchema);

  router.post('/runs', async (ctx) => {
    const input = validatedWith(validateRun, jsonBody(ctx), (body) => [
      ...variableShapeErrors(body),
      ...keptSecretErrors(bodyVariables(body), undefined),
    ]);
    const idempotency = readIdempotencyKey(ctx, 'POST /v1/runs', input, ring);
    const workspaceId = ctx.state.caller.workspaceId;
    const timeoutSeconds = input.timeout ?? config.runs.defaultTimeoutSeconds;
    checkedProfile(input.performance, 'performance', timeoutSeconds);
    const target = await requireRunTarget(dataSource, workspaceId, input);
    // The runner's stored profile makes its runs performance runs too: it must fit this run's timeout.
    if (!input.performance) checkedProfile(target.runner.loadProfile, "the runner's loadProfile", timeoutSeconds);
    const started = await startRun({
      workspaceId,
      ...target,
      timeoutSeconds,
      variables: sealVariableInputs(input.variables ?? {}, ring),
      loadProfile: input.performance ?? null,
      durability: input.durability ?? null,
      parallel: applyParallel(null, input),
      ...(input.folder !== undefined || input.tags?.length
        ? {
            runSelection: {
              ...(input.folder !== undefined ? { folder: normaliseFolder(input.folder) } : {}),
              ...(input.tags?.length ? { tags: input.tags } : {}),
            },
          }
        : {}),
      trigger: 'api',
      idempotency,
    });
    answerStartedRun(ctx, started, { status: 201, location: true, links: links(started.run, workflows) });
  });

  const validateDebug = bodyValidator<DebugInput>(debugInputSchema(config.runs.maxTimeoutSeconds));

  /**
   * `POST /v1/test-cases/debug` (scope `run`; module comment): a debug run of `testCase` on
   * `environment` → 201 the run document, `Location`. 400 `validation-failed` (fields under
   * `testCase`, `variables`, …), 422 as a save (`loop-iterations-exceeded`, `unknown-reference`,
   * `invalid-sub-flow`) or as `POST /v1/runs` (`unknown-reference` naming `environment`,
   * `server-missing`, `idempotency-key-reused`), 429 `quota-exceeded`, 503 `temporal-unavailable`.
   */
  router.post('/test-cases/debug', async (ctx) => {
    const input = validatedWith(validateDebug, jsonBody(ctx), (body) => [
      ...variableShapeErrors(body),
      ...keptSecretErrors(bodyVariables(body), undefined),
    ]);
    const idempotency = readIdempotencyKey(ctx, 'POST /v1/test-cases/debug', input, ring);
    const workspaceId = ctx.state.caller.workspaceId;
    const { id: draftOf, ...body } = input.testCase;
    const self =
      draftOf === undefined
        ? undefined
        : await dataSource.getRepository(TestCase).findOne({ where: { id: draftOf, workspaceId } });
    if (draftOf !== undefined && !self) {
      const detail = `test case "${draftOf}" does not exist (leave \`id\` out to debug a test case not saved yet)`;
      throw new Problem('unknown-reference', `testCase.id: ${detail}`, {
        errors: [fieldError(['testCase', 'id'], detail)],
      });
    }
    const checkedCase = await checkTestCaseBody(dataSource.manager, workspaceId, body, {
      config,
      self: self ?? undefined,
      at: ['testCase'],
    });
    const environment = await dataSource.getRepository(Environment).findOneBy({ workspaceId, name: input.environment });
    if (!environment) {
      const detail = `environment "${input.environment}" does not exist`;
      throw new Problem('unknown-reference', detail, { errors: [fieldError(['environment'], detail)] });
    }
    const { reusable: _reusable, ...definition } = checkedCase;
    const testCase = { id: draftOf ?? newId('testCase'), ...definition };
    const now = new Date();
    // What the run-level checks (servers, loop quota with sub-flows) look at: the test case as a row.
    const selected = Object.assign(new TestCase(), {
      ...testCase,
      workspaceId,
      reusable: false,
      version: 0,
      tagRows: testCase.tags.map((tag) => ({ testCaseId: testCase.id, tag })),
      createdAt: now,
      updatedAt: now,
    });
    const started = await startRun({
      workspaceId,
      runner: null,
      environment,
      timeoutSeconds: input.timeout ?? Math.min(DEBUG_TIMEOUT_SECONDS, config.runs.maxTimeoutSeconds),
      variables: sealVariableInputs(input.variables ?? {}, ring),
      loadProfile: null,
      durability: 'node',
      trigger: 'debug',
      idempotency,
      selection: [selected],
      debug: { testCase, testCaseId: draftOf ?? null },
    });
    if (started.replayed) ctx.set('Idempotent-Replayed', 'true');
    ctx.status = 201;
    ctx.set('Location', `/v1/runs/${started.run.id}`);
    ctx.body = runJson(started.run, workflows, Date.now(), false);
  });

  router.get('/runs', async (ctx) => {
    const paging = readPaging(ctx, ORDER, RUN_PAGE);
    queryEnum(ctx, 'orderBy', ['createdAt'] as const, 'createdAt');
    const order = queryEnum(ctx, 'order', ['desc', 'asc'] as const, 'desc');
    // Filters: absent means "any"; an empty value is a 400 (queryFilter), never "any".
    const status = queryFilterEnum(ctx, 'status', RUN_STATUSES);
    const runner = queryFilter(ctx, 'runner');
    const environment = queryFilter(ctx, 'environment');
    const trigger = queryFilterEnum(ctx, 'trigger', RUN_TRIGGERS);
    const deployment = queryFilter(ctx, 'deployment');
    const qb = workspaceRows(repo, 'run', ctx);
    if (deployment !== undefined) qb.andWhere('run.deploymentId = :deployment', { deployment });
    if (runner !== undefined) qb.andWhere('run.runnerName = :runner', { runner });
    if (environment !== undefined) qb.andWhere('run.environmentName = :environment', { environment });
    if (status !== undefined) qb.andWhere('run.status = :status', { status });
    if (trigger !== undefined) qb.andWhere('run.trigger = :trigger', { trigger });
    const mask = ctx.state.caller.scope === 'read';
    ctx.body = await keysetPage(
      qb,
      paging,
      ORDER,
      (r) => withDurability(runJson(r, workflows, Date.now(), mask), r),
      order === 'desc' ? 'DESC' : 'ASC',
    );
  });

  router.get('/runs/:runId', async (ctx) => {
    let run: Run;
    try {
      run = await loadRun(ctx);
    } catch (err) {
      if (!isDatabaseUnavailable(err)) throw err;
      // The store does not answer: a queued or running run's workflow can tell its live state.
      const runId = ctx.params.runId!;
      const early = ctx.state.liveRun;
      const live = await (early?.runId === runId ? early.lookup() : workflows.liveRun(runId, LIVE_RUN_MIN_MS));
      const fromWorkflow = runFromWorkflow(live, runId, ctx.state.caller.workspaceId, workflows);
      // Else (another workspace's run, an unknown or ended one, Temporal silent) the store's 503.
      if (!fromWorkflow) throw err;
      deps.logger.warn(
        { requestId: ctx.state.requestId, runId: ctx.params.runId, error: (err as Error).message },
        'database unavailable; run answered from its workflow',
      );
      ctx.body = fromWorkflow;
      return;
    }
    const now = Date.now();
    const doc = await withDurability(runJson(run, workflows, now, ctx.state.caller.scope === 'read'), run);
    if (run.status === 'running' && run.loadProfile) await addLiveFigures(doc, run, now);
    ctx.body = doc;
  });

  /**
   * A running performance run's live figures (docs/performance.md "Results"), merged from its
   * shards' latest snapshots: progress in time and `estimatedCompletion` at the end of the profile.
   */
  async function addLiveFigures(doc: Record<string, unknown>, run: Run, nowMs: number): Promise<void> {
    const { profile } = validateProfile(run.loadProfile);
    if (!profile) return;
    const [shards, control] = await Promise.all([
      dataSource.getRepository(RunLoadShard).findBy({ runId: run.id }),
      readLoadControl(dataSource, run.id),
    ]);
    const live = liveFigures(
      shards.map((s) => ({ metrics: s.metrics, elapsedMs: s.position.elapsedMs, activeVUs: s.activeVUs })),
      profile.shards,
      plannedMs(profile),
      nowMs,
    );
    // Live control (docs/performance.md "Steering a running test"): the commanded state and who did what when.
    // `scaleBy`: what a `scale` command takes for this executor (`vus`, or `rate` per timeUnit).
    const scaleBy = profile.executor.endsWith('arrival-rate') ? 'rate' : 'vus';
    doc.performance = {
      ...live,
      state: loadState(control),
      scaleBy,
      control: { commands: control?.commands ?? [] },
    };
    doc.progress = {
      completed: Math.round(live.elapsedMs / 1000),
      total: Math.round(live.durationMs / 1000),
      percentage: live.percent,
      unit: 'seconds',
    };
    doc.estimatedCompletion = new Date(nowMs + Math.max(1000, live.durationMs - live.elapsedMs)).toISOString();
  }

  /**
   * What a running run's workflow says now (a Temporal query; docs/async.md): its progress and the
   * node waiting for a callback or between two Poll attempts (`waiting`). The stored document
   * (`GET /v1/runs/{runId}`) never waits on Temporal; the console asks this while a run runs. A run
   * that is not running, or whose workflow does not answer within {@link LIVE_RUN_MIN_MS}, is
   * answered with its id and stored status alone (`live: false`).
   */
  router.get('/runs/:runId/live', async (ctx) => {
    const run = await loadRun(ctx);
    const doc: Record<string, unknown> = { runId: run.id, status: run.status, live: false };
    if (run.status === 'running') {
      const state = await workflows.liveState(run, LIVE_RUN_MIN_MS);
      if (state) {
        doc.live = true;
        doc.progress = state.progress;
        if (state.waiting) doc.waiting = state.waiting;
      }
    }
    ctx.body = doc;
  });

  router.get('/runs/:runId/results', async (ctx) => {
    const run = await loadRun(ctx);
    const rows = await dataSource
      .getRepository(RunTestCaseResult)
      .find({ where: { runId: run.id }, order: { position: 'ASC' } });
    const doc: Record<string, unknown> = {
      runId: run.id,
      status: run.status,
      runner: runnerOf(run),
      environment: run.environmentName,
    };
    if (run.status === 'completed') doc.result = run.result;
    if (run.summary) doc.summary = run.summary;
    else {
      const count = (s: string) => rows.filter((r) => r.status === s).length;
      doc.summary = {
        total: run.progressTotal,
        passed: count('passed'),
        failed: count('failed'),
        skipped: count('skipped'),
      };
    }
    if (run.duration !== null) doc.duration = run.duration;
    if (run.completedAt) doc.completedAt = iso(run.completedAt);
    if (run.status === 'failed') doc.error = run.error;
    if (run.context) doc.context = run.context;
    // Each result names the saved version of its test case that ran (the plan's `testCaseVersions`,
    // docs/teams.md "Versions"): null for runs frozen before versions were recorded and debug runs.
    const versions = await planTestCaseVersions(dataSource, run.id);
    doc.details = {
      testCases: rows.map((r) => ({ ...r.detail, testCaseVersion: versions?.[r.detail.testCaseId] ?? null })),
    };
    if (run.loadProfile) {
      const stored = await repo.findOne({ select: { id: true, performance: true }, where: { id: run.id } });
      if (stored?.performance) {
        const control = await readLoadControl(dataSource, run.id);
        doc.performance = { ...stored.performance, control: { commands: control?.commands ?? [] } };
      }
    }
    doc.links = links(run, workflows);
    ctx.body = doc;
  });

  router.get('/runs/:runId/deliveries', async (ctx) => {
    const run = await loadRun(ctx);
    const rows = await dataSource
      .getRepository(WebhookDelivery)
      .find({ where: { runId: run.id }, order: { event: 'ASC', position: 'ASC' } });
    ctx.body = page(
      rows.map((d) => ({
        id: d.id,
        event: d.event === 'complete' ? 'onComplete' : 'onFailure',
        position: d.position,
        url: d.url,
        method: d.method,
        status: d.status,
        attempts: d.attempts,
        lastStatusCode: d.lastStatusCode,
        lastError: d.lastError,
        deliveredAt: iso(d.deliveredAt),
        createdAt: iso(d.createdAt),
        updatedAt: iso(d.updatedAt),
      })),
      null,
    );
  });

  router.post('/runs/:runId/cancel', async (ctx) => {
    const run = await loadRun(ctx);
    if (run.status === 'completed' || run.status === 'failed') {
      throw new Problem('run-finished', `Run ${run.id} has already ended (${run.status}).`, { runStatus: run.status });
    }
    // Temporal unreachable: 503 `temporal-unavailable` (api/errors.ts).
    const presence = await workflows.cancel(run);
    // No workflow behind the row, or one that closed without ending it (terminated, timed out):
    // nothing else would end the row, so end it here.
    let ended = false;
    if (presence.state === 'not-found') ended = await failOpenRun(dataSource, run, 'Run cancelled');
    else if (presence.state === 'closed')
      ended = await failOpenRun(dataSource, run, closedWorkflowReason(presence.status));
    ctx.status = 202;
    ctx.body = { runId: run.id, status: ended ? 'failed' : run.status, cancelRequested: true };
  });

  /**
   * Live control of a running performance run (module comment; docs/performance.md "Steering a
   * running test"): sent to the run's workflow as its `loadControl` update, answered once applied
   * and published to the shards, with the run's whole control state. `by` is `key:<key name>`.
   */
  router.post('/runs/:runId/control', async (ctx) => {
    const input = validateControl(jsonBody(ctx));
    const run = await loadRun(ctx);
    const refuse = (detail: string) => new Problem('run-not-controllable', detail, { runStatus: run.status });
    if (!run.loadProfile) throw refuse(`Run ${run.id} is not a performance run: it has no load to control.`);
    if (run.status !== 'running')
      throw refuse(`Run ${run.id} is ${run.status}: only a running performance run takes commands.`);
    const { profile } = validateProfile(run.loadProfile);
    if (!profile) throw refuse(`Run ${run.id}'s load profile is not one this version runs.`);
    const { actor } = ctx.state.caller;
    const request: LoadControlRequest = {
      action: input.action,
      ...(input.vus !== undefined ? { vus: input.vus } : {}),
      ...(input.rate !== undefined ? { rate: input.rate } : {}),
      ...(input.reason !== undefined ? { reason: input.reason } : {}),
      by: `${actor.type === 'user' ? 'user' : 'key'}:${actor.name}`,
    };
    // Checked here first so bad values name their field; the workflow checks again (it decides).
    const current = (await readLoadControl(dataSource, run.id)) ?? INITIAL_LOAD_CONTROL;
    const refusal = loadCommandRefusal(profile, current, request);
    if (refusal) {
      const field = refusalField(request, refusal);
      if (!field) throw refuse(`Run ${run.id}: ${refusal}.`);
      throw invalid([fieldError([field], refusal)], `${field}: ${refusal}`);
    }
    // Temporal unreachable or the update unanswered in time: 503 `temporal-unavailable` (api/errors.ts).
    const outcome = await workflows.control(run, request);
    if (outcome.state === 'not-found') throw refuse(`Run ${run.id} has no running workflow.`);
    if (outcome.state === 'refused') throw refuse(`Run ${run.id}: ${outcome.reason}.`);
    ctx.body = { runId: run.id, control: outcome.control };
  });

  // DELETE /v1/runs/{runId} (scope `write`): an ended run with its results and deliveries → 204.
  router.delete('/runs/:runId', async (ctx) => {
    const runId = ctx.params.runId!;
    const done = await deleteRun(dataSource, ctx.state.caller.workspaceId, runId);
    if (done.outcome === 'not-found') throw new Problem('not-found', `Run "${runId}" does not exist.`);
    if (done.outcome === 'active') {
      throw new Problem(
        'run-active',
        `Run ${runId} is ${done.status}; cancel it first (POST /v1/runs/${runId}/cancel), then delete it once it has ended.`,
        { runStatus: done.status },
      );
    }
    ctx.status = 204;
  });

  return router;
}
