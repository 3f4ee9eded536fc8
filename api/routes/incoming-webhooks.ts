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
 * its results.
 *
 * `Idempotency-Key` (api/idempotency.ts): the same key and body within 24 h answer the run the
 * first call started (header `Idempotent-Replayed: true`), never a second run.
 */
import { timingSafeEqual } from 'node:crypto';
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import type Koa from 'koa';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { findKey, hashKey } from '../../src/keys';
import { Deployment, Environment, KEY_SCOPES, Runner } from '../../src/store/entities';
import type { Variables } from '../../src/domain/types';
import type { ApiDeps, AppContext, AppState } from '../context';
import { fieldError, Problem } from '../problem';
import { createAndStartRun, runLimits } from '../run-starter';
import { readIdempotencyKey } from '../idempotency';
import { bodyValidator } from '../validation';
import { refuseDeepBody } from '../body';
import { deploymentDisabled } from './deployments';
import { iso, variablesSchema } from './shared';

interface WebhookBody {
  trigger?: string;
  environment?: string;
  version?: string;
  variables?: Variables;
  metadata?: Record<string, unknown>;
  [field: string]: unknown;
}

const validateBody = bodyValidator<WebhookBody>({
  type: 'object',
  additionalProperties: true,
  properties: {
    trigger: { type: 'string', minLength: 1, maxLength: 200 },
    environment: { type: 'string', minLength: 1, maxLength: 100 },
    version: { type: 'string', maxLength: 200 },
    variables: variablesSchema,
    metadata: { type: 'object' },
  },
});

function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

export function incomingWebhooksRouter({ dataSource, runs, logger, config }: ApiDeps): Router<AppState> {
  const router = new Router<AppState>();
  const limiter = new RateLimiterMemory({ points: config.api.rateLimitPerMinute, duration: 60 });
  const parse = bodyParser({ enableTypes: ['json'], jsonLimit: config.api.maxBodyBytes, encoding: 'utf-8' }) as unknown as Koa.Middleware<AppState>;

  /**
   * Checks the credentials of a call to `deployment`'s webhook (rule in the file's docstring):
   * returns when one of them is valid, or when there are none and the deployment does not require
   * any; otherwise throws 401 `unauthorized` whose detail names what was wrong with each.
   */
  async function authenticateCall(ctx: AppContext, deployment: Deployment): Promise<void> {
    const authorization = ctx.get('Authorization');
    const apiKey = ctx.get('X-API-Key');
    if (!authorization && !apiKey) {
      if (deployment.webhookRequireAuth) throw new Problem('unauthorized', 'Send `Authorization: Bearer <WEBHOOK_TOKEN>` or `X-API-Key: <API_KEY>`.');
      return;
    }
    const wrong: string[] = [];
    if (authorization) {
      const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
      if (!bearer) wrong.push('the Authorization header is not `Bearer <WEBHOOK_TOKEN>`');
      else if (deployment.webhookTokenHash && sameHash(hashKey(bearer[1]!), deployment.webhookTokenHash)) return;
      else wrong.push('the webhook token is wrong');
    }
    if (apiKey) {
      const key = await findKey(dataSource.manager, apiKey);
      if (key && key.workspaceId === deployment.workspaceId && KEY_SCOPES.indexOf(key.scope) >= KEY_SCOPES.indexOf('run')) return;
      wrong.push('the API key is unknown, revoked, of another workspace, or its scope does not allow starting runs');
    }
    const text = wrong.join('; and ');
    throw new Problem('unauthorized', `${text.charAt(0).toUpperCase()}${text.slice(1)}.`);
  }

  router.post('/webhooks/deploy/:webhookId', async (ctx, next) => {
    const deployment = await dataSource.getRepository(Deployment).findOneBy({ webhookId: ctx.params.webhookId! });
    if (!deployment || !deployment.webhookEnabled) throw new Problem('not-found', 'No enabled webhook at this address.');
    try {
      await limiter.consume(deployment.id, 1);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      throw new Problem('rate-limited', `Too many calls to this webhook; retry in ${retryAfter} s.`, { retryAfter });
    }

    await authenticateCall(ctx, deployment);
    if (!deployment.enabled) throw deploymentDisabled(deployment);

    const hasBody = (ctx.request.length ?? 0) > 0 || ctx.get('Transfer-Encoding') !== '';
    if (hasBody && !ctx.is('application/json', 'application/*+json')) {
      throw new Problem('unsupported-media-type', 'The webhook body must be JSON (Content-Type: application/json).');
    }
    await parse(ctx, async () => undefined);
    refuseDeepBody((ctx.request as { body?: unknown }).body);
    const body = validateBody(hasBody ? (ctx.request as { body?: unknown }).body : {});

    const environmentName = body.environment ?? deployment.environmentName;
    const [runner, environment] = await Promise.all([
      dataSource.getRepository(Runner).findOneBy({ workspaceId: deployment.workspaceId, name: deployment.runnerName }),
      dataSource.getRepository(Environment).findOneBy({ workspaceId: deployment.workspaceId, name: environmentName }),
    ]);
    if (!environment) throw new Problem('unknown-reference', `environment "${environmentName}" does not exist`, { errors: [fieldError(['environment'], `environment "${environmentName}" does not exist`)] });
    if (!runner) throw new Problem('unknown-reference', `The deployment's runner "${deployment.runnerName}" no longer exists.`);

    const idempotency = readIdempotencyKey(ctx, `webhook ${deployment.id}`, body);
    const { variables, ...context } = body;
    const { run, replayed } = await createAndStartRun(
      { dataSource, runs, logger, limits: runLimits(config) },
      {
        workspaceId: deployment.workspaceId,
        runner,
        environment,
        timeoutSeconds: config.runs.defaultTimeoutSeconds,
        variables: variables ?? {},
        trigger: 'webhook',
        deploymentId: deployment.id,
        context: { trigger: 'webhook', ...context },
        idempotency,
      },
    );
    if (replayed) ctx.set('Idempotent-Replayed', 'true');
    ctx.status = 200;
    ctx.body = { runId: run.id, status: run.status, runner: run.runnerName, environment: run.environmentName, deploymentId: deployment.id, createdAt: iso(run.createdAt), links: { self: `/v1/runs/${run.id}`, results: `/v1/runs/${run.id}/results` } };
    void next;
  });
  return router;
}
