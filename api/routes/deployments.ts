/**
 * Deployments (spec "Deployment"; docs/deployments.md): a runner paired with an environment, with
 * an optional cron schedule, an incoming webhook address and outgoing webhooks. Addressed by id.
 *
 *   GET    /v1/deployments                         list (by name)
 *   POST   /v1/deployments                         create                                      → 201
 *   GET    /v1/deployments/{id}                    one, with its schedule's next run times
 *   PATCH  /v1/deployments/{id}                    any field                                   → 200
 *   DELETE /v1/deployments/{id}                    also deletes its schedule                   → 204
 *   POST   /v1/deployments/{id}/runs               run it now (scope `run`)                    → 201
 *                                                  (409 `deployment-disabled` when `enabled: false`)
 *   POST   /v1/deployments/{id}/rotate-webhook     new webhook address and token (shown once)  → 200
 *   POST   /v1/deployments/{id}/rotate-signing-secret  new signing secret (shown once)         → 200
 *
 * Body: {name, runner, environment, schedule?, timezone?, enabled?, webhookEnabled?,
 * webhookRequireAuth?, webhooks?: {onComplete?: [...], onFailure?: [...]}, signingSecret?, loadProfile?,
 * baseline?, durability?, concurrency?, bail?, originLimits?} (`loadProfile`: docs/performance.md; it must fit the default run timeout; `baseline`:
 * `lastPassing` or a run id of the workspace, over the runner's, docs/history.md "Baselines" —
 * another value is 422 `unknown-reference` naming `baseline`; `durability`: `node` or `testCase`
 * over the runner's, null for the runner's, docs/durability.md "Durability modes"; `concurrency`, `bail`,
 * `originLimits`: over the runner's, null for the runner's, docs/parallel.md). A
 * schedule that is not a valid five-field cron expression, a bad time zone, a webhook entry with a
 * bad URL, method or template: 400 naming the field; an unknown runner or environment: 422; nothing
 * is stored then. The webhook token and the signing secret are shown only when they are made.
 * Outgoing webhook entries' header values are answered as `"***"`; on PATCH a `"***"` value keeps
 * the stored one (api/secrets.ts). The signing secret and the header values are stored sealed with
 * the key ring (src/store/entities/deployment-secrets.ts; docs/secrets.md): every write seals them
 * again under the primary key, including values stored plain before encryption.
 */
import { applyParallel, NULLABLE_PARALLEL_FIELDS, ownParallelJson } from './parallel-fields';
import type { OriginLimits } from '../../src/domain/node-io';
import Router from '@koa/router';
import { CronExpressionParser } from 'cron-parser';
import { temporalCronProblem } from '../../src/temporal/cron';
import type { EntityManager } from 'typeorm';
import { newId } from '../../src/ids';
import { Deployment, type DeploymentWebhooks } from '../../src/store/entities';
import {
  openSigningSecret,
  openWebhookHeaders,
  sealSigningSecret,
  sealWebhookHeaders,
} from '../../src/store/entities/deployment-secrets';
import { keyRingFor } from '../../src/secrets/keyring';
import { templateIssues } from '../../src/webhooks/payload';
import type { ScheduleState } from '../../src/temporal/schedules';
import type { ApiDeps, AppContext, AppState } from '../context';
import { fieldError, type FieldError } from '../../src/problems';
import { invalid, Problem } from '../problem';
import { answerStartedRun, runStarter } from '../run-starter';
import { readIdempotencyKey } from '../idempotency';
import { bodyValidator, jsonBody } from '../validation';
import { byName, keysetPage, readPaging } from '../paging';
import { deploymentRunTarget, findOr404, requireRunTarget, workspaceRows } from '../lookups';
import { iso, nameSchema, uniqueName } from './shared';
import { issueWebhookToken, keepMaskedWebhookHeaders, maskWebhookHeaders, newSecret } from '../secrets';
import { checkedProfile, loadProfileSchema } from '../load-profile';
import type { LoadProfileInput } from '../../src/perf/profile';
import { BASELINE_SCHEMA, NULLABLE_DURABILITY_SCHEMA } from './runners';
import type { Durability } from '../../src/domain/types';
import { baselineFieldError } from '../../src/store/baselines';

/** 422 `unknown-reference` naming `baseline` when it is neither `lastPassing` nor a run of the workspace. */
async function checkBaseline(manager: EntityManager, workspaceId: string, baseline: string | null): Promise<void> {
  const error = await baselineFieldError(manager, workspaceId, baseline);
  if (error) throw new Problem('unknown-reference', `${error.field}: ${error.detail}`, { errors: [error] });
}

interface DeploymentInput {
  name?: string;
  runner?: string;
  environment?: string;
  schedule?: string | null;
  timezone?: string;
  enabled?: boolean;
  webhookEnabled?: boolean;
  webhookRequireAuth?: boolean;
  webhooks?: DeploymentWebhooks | null;
  signingSecret?: string;
  /** A load profile that makes the deployment's runs performance runs (docs/performance.md); null clears it. */
  loadProfile?: LoadProfileInput | null;
  /** Its runs' baseline (src/store/baselines.ts), over the runner's: `lastPassing` or a run id; null clears it. */
  baseline?: string | null;
  /** Its runs' durability mode (src/domain/types.ts `Durability`), over the runner's; null clears it. */
  durability?: Durability | null;
  /** Its runs' scheduling (docs/parallel.md), each over the runner's; null clears (inherits). */
  concurrency?: number | null;
  bail?: number | null;
  originLimits?: OriginLimits | null;
}

const webhookEntry = {
  type: 'object',
  required: ['url'],
  additionalProperties: false,
  properties: {
    url: { type: 'string', minLength: 1, maxLength: 2048 },
    method: { enum: ['POST', 'PUT', 'PATCH', 'post', 'put', 'patch'] },
    headers: { type: 'object', maxProperties: 50, additionalProperties: { type: 'string', maxLength: 4096 } },
    payload: {},
  },
};
const fields = {
  name: nameSchema,
  runner: nameSchema,
  environment: nameSchema,
  schedule: { type: ['string', 'null'], maxLength: 200 },
  timezone: { type: 'string', minLength: 1, maxLength: 64 },
  enabled: { type: 'boolean' },
  webhookEnabled: { type: 'boolean' },
  webhookRequireAuth: { type: 'boolean' },
  webhooks: {
    type: ['object', 'null'],
    additionalProperties: false,
    properties: {
      onComplete: { type: 'array', maxItems: 20, items: webhookEntry },
      onFailure: { type: 'array', maxItems: 20, items: webhookEntry },
    },
  },
  signingSecret: { type: 'string', minLength: 16, maxLength: 200 },
  loadProfile: loadProfileSchema,
  baseline: BASELINE_SCHEMA,
  durability: NULLABLE_DURABILITY_SCHEMA,
  ...NULLABLE_PARALLEL_FIELDS,
};
/**
 * The request body schemas of the deployment endpoints: what ajv validates with (below) and what
 * the OpenAPI document shows (api/openapi/operations.ts). Cron, time zone, URLs and templates are
 * checked after them ({@link semanticErrors}).
 */
export const DEPLOYMENT_SCHEMAS = {
  create: {
    type: 'object',
    required: ['name', 'runner', 'environment'],
    additionalProperties: false,
    properties: fields,
  },
  patch: { type: 'object', additionalProperties: false, minProperties: 1, properties: fields },
} as const;
const validateCreate = bodyValidator<DeploymentInput & { name: string; runner: string; environment: string }>(
  DEPLOYMENT_SCHEMAS.create,
);
const validatePatch = bodyValidator<DeploymentInput>(DEPLOYMENT_SCHEMAS.patch);

/**
 * Checks a cron expression: five fields (minute hour day-of-month month day-of-week), values in
 * range, and only what Temporal's schedule parser accepts (src/temporal/cron.ts: no `?`, `L`, `#`). Restricting both day of month and day of week is refused: cron tools disagree on whether
 * that means "and" or "or" (Temporal reads "and"), so it would not do what half the users expect.
 */
export function cronProblem(expression: string, timezone: string): string | null {
  const parts = expression.trim().split(/\s+/);
  if (parts.length !== 5)
    return `must have five fields (minute hour day-of-month month day-of-week), got ${parts.length}`;
  // What Temporal's schedule parser refuses (`?`, `L`, `#`…) would leave the schedule pending forever.
  const temporal = temporalCronProblem(expression);
  if (temporal) return `is not a cron expression Temporal accepts: ${temporal}`;
  try {
    CronExpressionParser.parse(expression, { tz: timezone });
  } catch (err) {
    return `is not a valid cron expression: ${(err as Error).message}`;
  }
  if (parts[2] !== '*' && parts[4] !== '*') {
    return 'restricts both day of month and day of week; use one of them (tools disagree on what both mean)';
  }
  return null;
}

function timezoneProblem(timezone: string): string | null {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
    return null;
  } catch {
    return `is not an IANA time zone such as "UTC" or "Europe/Berlin"`;
  }
}

/** Field errors of everything a schema cannot check. */
function semanticErrors(d: Pick<Deployment, 'schedule' | 'timezone' | 'webhooks'>): FieldError[] {
  const errors: FieldError[] = [];
  const tz = timezoneProblem(d.timezone);
  if (tz) errors.push(fieldError(['timezone'], tz));
  if (d.schedule !== null && !tz) {
    const cron = cronProblem(d.schedule, d.timezone);
    if (cron) errors.push(fieldError(['schedule'], cron));
  }
  for (const array of ['onComplete', 'onFailure'] as const) {
    (d.webhooks?.[array] ?? []).forEach((entry, i) => {
      const at = ['webhooks', array, i];
      try {
        const u = new URL(entry.url);
        if (u.protocol !== 'http:' && u.protocol !== 'https:')
          errors.push(fieldError([...at, 'url'], 'must be an http or https URL'));
      } catch {
        errors.push(fieldError([...at, 'url'], 'is not a valid URL'));
      }
      for (const issue of [
        ...templateIssues(entry.payload, [...at, 'payload']),
        ...templateIssues(entry.headers ?? {}, [...at, 'headers']),
      ]) {
        errors.push(fieldError(issue.path, issue.message));
      }
    });
  }
  return errors;
}

/**
 * The 409 `deployment-disabled` answer to a call that would start a run of a deployment with
 * `enabled: false` (run-now, incoming webhook; its schedule is paused too). No run is created.
 */
export function deploymentDisabled(d: Pick<Deployment, 'id' | 'name'>): Problem {
  return new Problem(
    'deployment-disabled',
    `Deployment "${d.name}" is disabled (enabled: false), so it starts no runs. Enable it with PATCH /v1/deployments/${d.id} {"enabled": true}.`,
    { deploymentId: d.id },
  );
}

function load(manager: EntityManager, ctx: AppContext): Promise<Deployment> {
  const id = ctx.params.deploymentId!;
  return findOr404(manager, Deployment, { id, workspaceId: ctx.state.caller.workspaceId }, `Deployment "${id}"`);
}

const ORDER = byName<Deployment>('d');

export function deploymentsRouter(deps: ApiDeps): Router<AppState> {
  const { dataSource, schedules, config } = deps;
  const router = new Router<AppState>();
  const repo = dataSource.getRepository(Deployment);
  const startRun = runStarter(deps);
  const ring = keyRingFor(config.secretKeys, config.dataDir);

  /**
   * Stores `plainWebhooks` (header values in plain text) and the signing secret `plainSecret` on
   * `d`, sealed under the key ring's primary key.
   */
  const seal = (d: Deployment, plainWebhooks: DeploymentWebhooks | null, plainSecret: string) => {
    d.webhooks = sealWebhookHeaders(ring, d.id, plainWebhooks);
    d.signingSecret = sealSigningSecret(ring, d.id, plainSecret);
  };

  /** The JSON form of a deployment (never the secrets: outgoing webhook header values read `"***"`). */
  const json = (
    d: Deployment,
    schedule: ScheduleState,
    once: { webhookToken?: string; signingSecret?: string } = {},
  ) => ({
    id: d.id,
    name: d.name,
    runner: d.runnerName,
    environment: d.environmentName,
    schedule: d.schedule,
    timezone: d.timezone,
    // Booleans as booleans: after an insert TypeORM sets the columns with defaults from MariaDB's
    // answer (TINYINT 1/0), so a just-created deployment would otherwise answer `"enabled": 1`.
    enabled: Boolean(d.enabled),
    scheduleState: schedule,
    webhookEnabled: Boolean(d.webhookEnabled),
    webhookRequireAuth: Boolean(d.webhookRequireAuth),
    ...(d.webhookEnabled && d.webhookId
      ? { webhookUrl: `${config.api.publicUrl}/webhooks/deploy/${d.webhookId}` }
      : {}),
    webhooks: maskWebhookHeaders(d.webhooks ?? { onComplete: [], onFailure: [] }),
    loadProfile: d.loadProfile ?? null,
    baseline: d.baseline ?? null,
    durability: d.durability ?? null,
    ...ownParallelJson(d.parallel ?? null),
    ...once,
    createdAt: iso(d.createdAt),
    updatedAt: iso(d.updatedAt),
  });

  /** Saves, then syncs the schedule (a failed sync is recorded and retried; the answer says `pending`). */
  async function saveAndSync(d: Deployment, insert: boolean): Promise<ScheduleState> {
    d.scheduleSyncedAt = null;
    await uniqueName('Deployment', d.name, async () => {
      if (insert) await repo.insert(d as never);
      else await repo.save(d);
    });
    await schedules.sync(d);
    return schedules.state((await repo.findOneByOrFail({ id: d.id }))!, true);
  }

  router.get('/deployments', async (ctx) => {
    const paging = readPaging(ctx, ORDER);
    const qb = workspaceRows(repo, 'd', ctx);
    ctx.body = await keysetPage(qb, paging, ORDER, async (d) => json(d, await schedules.state(d, false)));
  });

  router.post('/deployments', async (ctx) => {
    const input = validateCreate(jsonBody(ctx));
    const kept = keepMaskedWebhookHeaders(input.webhooks, null);
    if (kept.length) throw invalid(kept);
    const signingSecret = input.signingSecret ?? newSecret('whsec');
    const now = new Date();
    const d = repo.create({
      id: newId('deployment'),
      workspaceId: ctx.state.caller.workspaceId,
      name: input.name,
      runnerName: input.runner,
      environmentName: input.environment,
      schedule: input.schedule?.trim() || null,
      timezone: input.timezone ?? 'UTC',
      enabled: input.enabled ?? true,
      webhookEnabled: input.webhookEnabled ?? false,
      webhookRequireAuth: input.webhookRequireAuth ?? true,
      webhookId: null,
      webhookTokenHash: null,
      webhooks: input.webhooks ?? null,
      // Its runs have the default timeout: the profile must fit it.
      loadProfile: checkedProfile(input.loadProfile, 'loadProfile', config.runs.defaultTimeoutSeconds) ?? null,
      baseline: input.baseline ?? null,
      durability: input.durability ?? null,
      parallel: applyParallel(null, input),
      signingSecret: '',
      scheduleSyncedAt: null,
      scheduleError: null,
      createdAt: now,
      updatedAt: now,
    });
    const errors = semanticErrors(d);
    if (errors.length) throw invalid(errors);
    await requireRunTarget(dataSource, d.workspaceId, { runner: d.runnerName, environment: d.environmentName });
    await checkBaseline(dataSource.manager, d.workspaceId, d.baseline);
    const webhookToken = d.webhookEnabled ? issueWebhookToken(d) : undefined;
    seal(d, d.webhooks, signingSecret);
    const schedule = await saveAndSync(d, true);
    ctx.status = 201;
    ctx.set('Location', `/v1/deployments/${d.id}`);
    ctx.body = json(d, schedule, {
      ...(webhookToken ? { webhookToken } : {}),
      ...(input.signingSecret ? {} : { signingSecret }),
    });
  });

  router.get('/deployments/:deploymentId', async (ctx) => {
    const d = await load(dataSource.manager, ctx);
    ctx.body = json(d, await schedules.state(d, true));
  });

  router.patch('/deployments/:deploymentId', async (ctx) => {
    const patch = validatePatch(jsonBody(ctx));
    const d = await load(dataSource.manager, ctx);
    // Worked on in plain text, sealed again (under the primary key) just before saving.
    d.webhooks = openWebhookHeaders(ring, d.id, d.webhooks);
    const signingSecret = patch.signingSecret ?? openSigningSecret(ring, d);
    if (patch.name !== undefined) d.name = patch.name;
    if (patch.runner !== undefined) d.runnerName = patch.runner;
    if (patch.environment !== undefined) d.environmentName = patch.environment;
    if (patch.schedule !== undefined) d.schedule = patch.schedule?.trim() || null;
    if (patch.timezone !== undefined) d.timezone = patch.timezone;
    if (patch.enabled !== undefined) d.enabled = patch.enabled;
    if (patch.webhookRequireAuth !== undefined) d.webhookRequireAuth = patch.webhookRequireAuth;
    if (patch.loadProfile !== undefined)
      d.loadProfile = checkedProfile(patch.loadProfile, 'loadProfile', config.runs.defaultTimeoutSeconds) ?? null;
    if (patch.durability !== undefined) d.durability = patch.durability;
    d.parallel = applyParallel(d.parallel ?? null, patch);
    if (patch.baseline !== undefined) {
      d.baseline = patch.baseline;
      await checkBaseline(dataSource.manager, d.workspaceId, d.baseline);
    }
    if (patch.webhooks !== undefined) {
      const kept = keepMaskedWebhookHeaders(patch.webhooks, d.webhooks);
      if (kept.length) throw invalid(kept);
      d.webhooks = patch.webhooks;
    }
    const errors = semanticErrors(d);
    if (errors.length) throw invalid(errors);
    if (patch.runner !== undefined || patch.environment !== undefined) {
      await requireRunTarget(dataSource, d.workspaceId, { runner: d.runnerName, environment: d.environmentName });
    }
    if (patch.webhookEnabled !== undefined) d.webhookEnabled = patch.webhookEnabled;
    // Turned on for the first time: the deployment gets its address and token (shown once).
    const webhookToken = patch.webhookEnabled && !d.webhookId ? issueWebhookToken(d) : undefined;
    d.updatedAt = new Date();
    seal(d, d.webhooks, signingSecret);
    const schedule = await saveAndSync(d, false);
    ctx.body = json(d, schedule, webhookToken ? { webhookToken } : {});
  });

  router.delete('/deployments/:deploymentId', async (ctx) => {
    const d = await load(dataSource.manager, ctx);
    await repo.delete({ id: d.id });
    await schedules.remove(d.id);
    ctx.status = 204;
  });

  router.post('/deployments/:deploymentId/runs', async (ctx) => {
    const d = await load(dataSource.manager, ctx);
    if (!d.enabled) throw deploymentDisabled(d);
    const target = await deploymentRunTarget(dataSource, d);
    const idempotency = readIdempotencyKey(ctx, `POST /v1/deployments/${d.id}/runs`, {});
    const started = await startRun({
      workspaceId: d.workspaceId,
      ...target,
      timeoutSeconds: config.runs.defaultTimeoutSeconds,
      variables: {},
      trigger: 'api',
      deploymentId: d.id,
      idempotency,
    });
    answerStartedRun(ctx, started, { status: 201, location: true });
  });

  router.post('/deployments/:deploymentId/rotate-webhook', async (ctx) => {
    const d = await load(dataSource.manager, ctx);
    const webhookToken = issueWebhookToken(d);
    d.webhookEnabled = true;
    d.updatedAt = new Date();
    seal(d, openWebhookHeaders(ring, d.id, d.webhooks), openSigningSecret(ring, d));
    await repo.save(d);
    ctx.body = json(d, await schedules.state(d, false), { webhookToken });
  });

  router.post('/deployments/:deploymentId/rotate-signing-secret', async (ctx) => {
    const d = await load(dataSource.manager, ctx);
    const signingSecret = newSecret('whsec');
    d.updatedAt = new Date();
    seal(d, openWebhookHeaders(ring, d.id, d.webhooks), signingSecret);
    await repo.save(d);
    ctx.body = json(d, await schedules.state(d, false), { signingSecret });
  });

  return router;
}
