/**
 * Incoming webhooks (spec "Incoming webhook body", "Authentication" 2; docs/deployments.md):
 *
 *   POST {webhook_base}/webhooks/deploy/{webhookId}   JSON body → 200 {runId, status, ...}
 *
 * Starts a run of the deployment. Authentication (spec "Authentication" 2; the spec leaves the
 * precedence open, docs/spec-choices.md): a call may carry `Authorization: Bearer <WEBHOOK_TOKEN>`
 * (the deployment's own token), `X-API-Key: <API_KEY>` (a key of the deployment's workspace with
 * scope `run` or `write`), or both. It is accepted when **any one** credential it carries is valid,
 * whatever the others say; it is refused with 401 when it carries credentials and none is valid
 * (also when the deployment has `webhookRequireAuth: false`), the detail saying what was wrong with
 * each. An `Authorization` header that is not `Bearer <token>` counts as a wrong credential. A call
 * with no credential is refused (401) unless the deployment has `webhookRequireAuth: false`.
 *
 * Other refusals: unknown webhook or webhook not enabled (`webhookEnabled: false`): 404; the
 * deployment disabled (`enabled: false`): 409 `deployment-disabled` (after authentication); a body
 * that is not a JSON object: 400 (415 when not JSON); an unknown environment override: 422. No run
 * is started by a refused call.
 *
 * Body: `trigger` (a label, default "webhook"), `environment` (overrides the deployment's),
 * `version`, `variables` (the run's variables), `metadata`, and any other fields (branch, commit,
 * pipeline id…). Everything but `variables` is stored on the run as its `context` and returned with
 * its results. A variable may be a secret `{"value": …, "secret": true}` as in `POST /v1/runs`
 * (docs/secrets.md): stored sealed on the run, answered masked; the same 400s for a malformed or
 * too short one.
 *
 * `Idempotency-Key` (api/idempotency.ts): the same key and body within 24 h answer the run the
 * first call started (header `Idempotent-Replayed: true`), never a second run.
 *
 * The route is a chain of named steps ({@link webhookSteps}), each adding what it found to
 * `ctx.state`: find the webhook (404) → rate limit per deployment (429) → authenticate (401) →
 * refuse a disabled deployment (409) → parse and validate the body (415, 400, 413) → find the
 * runner and environment (422) → read the idempotency key (400) → start the run (422, 429, 503)
 * → record it in the audit trail ({@link recordWebhookRun}) → answer.
 */
import Router from '@koa/router';
import type Koa from 'koa';
import compose from 'koa-compose';
import type { ParameterizedContext } from 'koa';
import { findKey } from '../../src/api-keys';
import { Deployment } from '../../src/store/entities';
import { scopeAllows } from '../../src/teams/roles';
import { resolveKeyCaller } from '../auth';
import { keyRingFor } from '../../src/secrets/keyring';
import type { ApiDeps, AppState } from '../context';
import { Problem } from '../problem';
import { answerStartedRun, runStarter, type StartedRun } from '../run-starter';
import { readIdempotencyKey, type IdempotencyRequest } from '../idempotency';
import { bodyValidator } from '../validation';
import { auditWriteFailures, recordAudit } from '../../src/teams/audit';
import { jsonDiff, maskSecrets } from '../../src/teams/diff';
import { hasBody, jsonBodies, parsedBody } from '../body';
import { PerMinuteLimit } from '../rate-limit';
import { deploymentRunTarget, type RunTarget } from '../lookups';
import {
  bodyVariables,
  keptSecretErrors,
  sealVariableInputs,
  variableShapeErrors,
  webhookTokenMatches,
  type VariablesInput,
} from '../secrets';
import { deploymentDisabled } from './deployments';
import { validatedWith, variablesSchema } from './shared';

interface WebhookBody {
  trigger?: string;
  environment?: string;
  version?: string;
  variables?: VariablesInput;
  metadata?: Record<string, unknown>;
  [field: string]: unknown;
}

/** The body schema of an incoming webhook call: what ajv validates with and what the OpenAPI document shows (api/openapi/operations.ts). */
export const WEBHOOK_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: true,
  properties: {
    trigger: { type: 'string', minLength: 1, maxLength: 200 },
    environment: { type: 'string', minLength: 1, maxLength: 100 },
    version: { type: 'string', maxLength: 200 },
    variables: variablesSchema,
    metadata: { type: 'object' },
  },
} as const;
const validateBody = bodyValidator<WebhookBody>(WEBHOOK_BODY_SCHEMA);

/** What the steps of a webhook call find, in order; a step reads only what earlier steps set. */
export interface WebhookState extends AppState {
  /** The deployment whose webhook is called (step {@link findWebhook}). */
  deployment: Deployment;
  /** The validated body; `{}` when the call has none (step {@link parseWebhookBody}). */
  webhookBody: WebhookBody;
  /** The runner and environment of the run (step {@link resolveRunTarget}). */
  target: RunTarget;
  /** The call's `Idempotency-Key`, when it sent one (step {@link readIdempotency}). */
  idempotency?: IdempotencyRequest;
  /** The run started or replayed (step {@link startWebhookRun}). */
  started: StartedRun;
}

/** A step of the webhook chain. */
export type WebhookStep = Koa.Middleware<WebhookState>;
type WebhookContext = ParameterizedContext<WebhookState>;

/** 404 unless `:webhookId` is the address of a deployment whose webhook is enabled. */
export function findWebhook({ dataSource }: Pick<ApiDeps, 'dataSource'>): WebhookStep {
  return async (ctx, next) => {
    const deployment = await dataSource.getRepository(Deployment).findOneBy({ webhookId: ctx.params.webhookId! });
    if (!deployment || !deployment.webhookEnabled)
      throw new Problem('not-found', 'No enabled webhook at this address.');
    ctx.state.deployment = deployment;
    await next();
  };
}

/** 429 `rate-limited` (with `Retry-After`) beyond `ASSAY_RATE_LIMIT_PER_MINUTE` calls per deployment and minute. */
export function limitWebhookCalls({ config }: Pick<ApiDeps, 'config'>): WebhookStep {
  const limit = new PerMinuteLimit(config.api.rateLimitPerMinute);
  return async (ctx, next) => {
    await limit.consume(
      ctx.state.deployment.id,
      (retryAfter) => `Too many calls to this webhook; retry in ${retryAfter} s.`,
    );
    await next();
  };
}

/**
 * Checks the credentials of the call (rule in the file's docstring): goes on when one of them is
 * valid, or when there are none and the deployment does not require any; otherwise 401
 * `unauthorized` whose detail names what was wrong with each.
 */
export function authenticateWebhookCall({ dataSource }: Pick<ApiDeps, 'dataSource'>): WebhookStep {
  /** True when the call's credentials let it start a run; throws 401 when it has only wrong ones. */
  async function accepted(ctx: WebhookContext): Promise<boolean> {
    const { deployment } = ctx.state;
    const authorization = ctx.get('Authorization');
    const apiKey = ctx.get('X-API-Key');
    if (!authorization && !apiKey) {
      if (deployment.webhookRequireAuth)
        throw new Problem('unauthorized', 'Send `Authorization: Bearer <WEBHOOK_TOKEN>` or `X-API-Key: <API_KEY>`.');
      return true;
    }
    const wrong: string[] = [];
    if (authorization) {
      const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
      if (!bearer) wrong.push('the Authorization header is not `Bearer <WEBHOOK_TOKEN>`');
      else if (webhookTokenMatches(deployment, bearer[1]!)) return true;
      else wrong.push('the webhook token is wrong');
    }
    if (apiKey) {
      const key = await findKey(dataSource.manager, apiKey);
      // A person's key acts with at most their current role (docs/teams.md "API keys").
      const caller =
        key && key.workspaceId === deployment.workspaceId ? await resolveKeyCaller(dataSource.manager, key) : null;
      if (caller && typeof caller !== 'string' && scopeAllows(caller.scope, 'run')) return true;
      wrong.push('the API key is unknown, revoked, of another workspace, or its scope does not allow starting runs');
    }
    const text = wrong.join('; and ');
    throw new Problem('unauthorized', `${text.charAt(0).toUpperCase()}${text.slice(1)}.`);
  }
  return async (ctx, next) => {
    await accepted(ctx);
    await next();
  };
}

/** 409 `deployment-disabled` when the deployment has `enabled: false`. */
export const refuseDisabledDeployment: WebhookStep = async (ctx, next) => {
  if (!ctx.state.deployment.enabled) throw deploymentDisabled(ctx.state.deployment);
  await next();
};

/**
 * Parses the body as the /v1 routes do (api/body.ts: 415 unless JSON, 400 malformed or too deep,
 * 413 too large) and validates it; a call without a body counts as `{}`.
 */
export function parseWebhookBody({ config }: Pick<ApiDeps, 'config'>): WebhookStep {
  const parse = jsonBodies(config.api.maxBodyBytes) as unknown as WebhookStep;
  return (ctx, next) =>
    parse(ctx, async () => {
      ctx.state.webhookBody = validatedWith(validateBody, hasBody(ctx) ? parsedBody(ctx) : {}, (body) => [
        ...variableShapeErrors(body),
        ...keptSecretErrors(bodyVariables(body), undefined),
      ]);
      await next();
    });
}

/** The runner and environment of the run: the deployment's, or the body's `environment` (422 when gone). */
export function resolveRunTarget({ dataSource }: Pick<ApiDeps, 'dataSource'>): WebhookStep {
  return async (ctx, next) => {
    ctx.state.target = await deploymentRunTarget(dataSource, ctx.state.deployment, ctx.state.webhookBody.environment);
    await next();
  };
}

/**
 * Reads `Idempotency-Key` (400 `invalid-header` when malformed), fingerprinting the body for this
 * deployment (secret variables as keyed HMACs, api/idempotency.ts).
 */
export function readIdempotency({ config }: Pick<ApiDeps, 'config'>): WebhookStep {
  const ring = keyRingFor(config.secretKeys, config.dataDir);
  return async (ctx, next) => {
    ctx.state.idempotency = readIdempotencyKey(ctx, `webhook ${ctx.state.deployment.id}`, ctx.state.webhookBody, ring);
    await next();
  };
}

/**
 * Starts the run (api/run-starter.ts: quotas, idempotency): the body's `variables` are the run's
 * (secrets sealed), everything else is stored as its `context`.
 */
export function startWebhookRun(deps: ApiDeps): WebhookStep {
  const startRun = runStarter(deps);
  const ring = keyRingFor(deps.config.secretKeys, deps.config.dataDir);
  return async (ctx, next) => {
    const { deployment, target, idempotency } = ctx.state;
    const { variables, ...context } = ctx.state.webhookBody;
    ctx.state.started = await startRun({
      workspaceId: deployment.workspaceId,
      ...target,
      timeoutSeconds: deps.config.runs.defaultTimeoutSeconds,
      variables: sealVariableInputs(variables ?? {}, ring),
      trigger: 'webhook',
      deploymentId: deployment.id,
      context: { trigger: 'webhook', ...context },
      idempotency,
    });
    await next();
  };
}

/**
 * Records the run start in the audit trail (src/teams/audit.ts; docs/teams.md "Audit trail"):
 * action `run.start`, actor `{type: 'webhook', id: <deployment id>, name: <deployment name>}`, the
 * call's address and request id; the changes are the body's top-level fields with secrets masked
 * (src/teams/diff.ts). A replayed call (same Idempotency-Key) started nothing and records nothing.
 * A failure to store the event is logged and counted; the run stands.
 */
export function recordWebhookRun({ dataSource, logger }: Pick<ApiDeps, 'dataSource' | 'logger'>): WebhookStep {
  return async (ctx, next) => {
    const { deployment, started } = ctx.state;
    if (!started.replayed) {
      try {
        await recordAudit(dataSource.manager, {
          workspaceId: deployment.workspaceId,
          actor: { type: 'webhook', id: deployment.id, name: deployment.name },
          address: ctx.ip || null,
          action: 'run.start',
          resourceType: 'run',
          resourceId: started.run.id,
          resourceName: started.run.runnerName,
          // The webhook's address is its credential: never in the trail.
          request: `${ctx.method} /webhooks/deploy/{webhookId}`,
          requestId: ctx.state.requestId ?? null,
          changes: jsonDiff({}, maskSecrets(ctx.state.webhookBody)),
        });
      } catch (err) {
        auditWriteFailures.inc();
        logger.error({ err, deploymentId: deployment.id }, 'audit: could not store the event');
      }
    }
    await next();
  };
}

/** 200 with the run, its deployment and links (`Idempotent-Replayed: true` on a replay). */
export const answerWebhookCall: WebhookStep = async (ctx) => {
  const { run } = ctx.state.started;
  answerStartedRun(ctx, ctx.state.started, {
    status: 200,
    links: { self: `/v1/runs/${run.id}`, results: `/v1/runs/${run.id}/results` },
  });
};

/** The steps of a webhook call, in order (module comment). */
export function webhookSteps(deps: ApiDeps): WebhookStep[] {
  return [
    findWebhook(deps),
    limitWebhookCalls(deps),
    authenticateWebhookCall(deps),
    refuseDisabledDeployment,
    parseWebhookBody(deps),
    resolveRunTarget(deps),
    readIdempotency(deps),
    startWebhookRun(deps),
    recordWebhookRun(deps),
    answerWebhookCall,
  ];
}

export function incomingWebhooksRouter(deps: ApiDeps): Router<AppState> {
  const router = new Router<AppState>();
  router.post('/webhooks/deploy/:webhookId', compose(webhookSteps(deps)) as unknown as Koa.Middleware<AppState>);
  return router;
}
