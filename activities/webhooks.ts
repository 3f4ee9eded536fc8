/**
 * Outgoing webhooks of a finished run (spec "Events"; docs/deployments.md).
 *
 * When each array fires: `onComplete` when the run completed (whatever its result); `onFailure`
 * when the run failed (timeout, cancellation, an error) or completed with a result other than
 * `passed`. A completed run with failing tests fires both.
 *
 * `planDeliveries` records one delivery per entry (idempotent); `deliverWebhook` makes one attempt
 * and throws when it did not land, so Temporal retries it with exponential backoff; each attempt
 * carries the same `x-assay-delivery` id, so a receiver can drop a duplicate if an attempt that did
 * land was not recorded (a worker dying in between).
 *
 * The deployment's signing secret and header values are stored sealed (src/store/entities/
 * deployment-secrets.ts; docs/secrets.md): an attempt opens them with the key ring, and seals a
 * signing secret still stored plain (from before encryption) or under an older key.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/activity';
import type { DataSource } from 'typeorm';
import type { AssayConfig } from '../src/config';
import { newId } from '../src/ids';
import {
  Deployment,
  Run,
  RunTestCaseResult,
  WebhookDelivery,
  type DeliveryEvent,
  type OutgoingWebhook,
} from '../src/store/entities';
import { addressRefusalIn, type AddressPolicy } from '../src/net/address-policy';
import { guardedRequest } from '../src/net/http';
import {
  defaultPayload,
  renderTemplate,
  signature,
  standardWebhookHeaders,
  type WebhookData,
} from '../src/webhooks/payload';
import { FAILURE_TYPES } from '../src/domain/failures';
import { KeyRingError, keyRingFor } from '../src/secrets/keyring';
import { webhookDeliveries } from '../src/observability/metrics';
import {
  openSigningSecret,
  openWebhookHeaders,
  sealSigningSecret,
  signingSecretNeedsSealing,
} from '../src/store/entities/deployment-secrets';

export interface DeliveryPlan {
  deliveries: Array<{ id: string; event: DeliveryEvent; position: number }>;
  /** Retry policy of the attempts (worker configuration), milliseconds. */
  retry: { initialMs: number; maximumMs: number; giveUpAfterMs: number };
}

/** Timeout of one delivery attempt. */
const ATTEMPT_TIMEOUT_MS = 10_000;

/**
 * The webhook activities. Deliveries go through `policy`'s agent for webhooks (private, loopback
 * and link-local receivers refused unless ASSAY_EGRESS_PRIVATE_FOR_WEBHOOKS allows them); a
 * refused receiver fails the delivery at once (no retries), with the policy's message.
 */
export function createWebhookActivities(dataSource: DataSource, config: AssayConfig, policy: AddressPolicy) {
  const ring = keyRingFor(config.secretKeys, config.dataDir);

  /**
   * The plain signing secret of `deployment`. One stored plain or under an older key is sealed
   * again under the primary key, unless the row changed meanwhile (a rotation wins).
   */
  async function signingSecretOf(deployment: Deployment): Promise<string> {
    const secret = openSigningSecret(ring, deployment);
    if (signingSecretNeedsSealing(ring, deployment)) {
      await dataSource
        .getRepository(Deployment)
        .update(
          { id: deployment.id, signingSecret: deployment.signingSecret },
          { signingSecret: sealSigningSecret(ring, deployment.id, secret) },
        );
    }
    return secret;
  }

  async function data(run: Run, deployment: Deployment): Promise<WebhookData> {
    const rows = await dataSource
      .getRepository(RunTestCaseResult)
      .find({ where: { runId: run.id }, order: { position: 'ASC' } });
    const summary = run.summary ?? { total: rows.length, passed: 0, failed: 0, skipped: 0 };
    const outcome = run.status === 'completed' && run.result === 'passed' ? 'passed' : 'failed';
    const performance = run.loadProfile
      ? (
          await dataSource
            .getRepository(Run)
            .findOne({ select: { id: true, performance: true }, where: { id: run.id } })
        )?.performance
      : undefined;
    return {
      event: run.status === 'completed' ? 'run.completed' : 'run.failed',
      deployment: {
        id: deployment.id,
        name: deployment.name,
        runner: run.runnerName,
        environment: run.environmentName,
      },
      result: {
        runId: run.id,
        status: outcome,
        runStatus: run.status,
        result: run.result,
        summary,
        details: { testCases: rows.map((r) => r.detail) },
        passed: summary.passed,
        failed: summary.failed,
        skipped: summary.skipped,
        total: summary.total,
        duration: run.duration,
        timestamp: (run.completedAt ?? new Date()).toISOString(),
        detailsUrl: `${config.api.publicUrl}/v1/runs/${run.id}/results`,
        error: run.error,
        trigger: run.trigger,
      },
      context: run.context ?? {},
      ...(performance ? { performance } : {}),
    };
  }

  return {
    /** Records the deliveries a finished run owes (one per entry of the arrays that fire). */
    async planDeliveries(input: { runId: string; deploymentId: string }): Promise<DeliveryPlan> {
      const retry = {
        initialMs: config.webhooks.retryInitialMs,
        maximumMs: config.webhooks.retryMaximumMs,
        giveUpAfterMs: config.webhooks.giveUpAfterMs,
      };
      const run = await dataSource.getRepository(Run).findOneBy({ id: input.runId });
      const deployment = await dataSource.getRepository(Deployment).findOneBy({ id: input.deploymentId });
      if (!run || !deployment || (run.status !== 'completed' && run.status !== 'failed'))
        return { deliveries: [], retry };
      const fire: Array<[DeliveryEvent, OutgoingWebhook[]]> = [];
      if (run.status === 'completed') fire.push(['complete', deployment.webhooks?.onComplete ?? []]);
      if (run.status === 'failed' || run.result !== 'passed')
        fire.push(['failure', deployment.webhooks?.onFailure ?? []]);
      const repo = dataSource.getRepository(WebhookDelivery);
      const deliveries: DeliveryPlan['deliveries'] = [];
      for (const [event, entries] of fire) {
        for (const [position, entry] of entries.entries()) {
          const existing = await repo.findOneBy({ runId: run.id, event, position });
          if (existing) {
            deliveries.push({ id: existing.id, event, position });
            continue;
          }
          const now = new Date();
          const row = repo.create({
            id: newId('delivery'),
            runId: run.id,
            deploymentId: deployment.id,
            event,
            position,
            url: entry.url,
            method: (entry.method ?? 'POST').toUpperCase(),
            status: 'pending',
            attempts: 0,
            lastStatusCode: null,
            lastError: null,
            deliveredAt: null,
            createdAt: now,
            updatedAt: now,
          });
          await repo.insert(row);
          deliveries.push({ id: row.id, event, position });
        }
      }
      return { deliveries, retry };
    },

    /** One attempt of a delivery. Throws (retryable) unless the receiver answered 2xx. */
    async deliverWebhook(input: { deliveryId: string }): Promise<{ status: number }> {
      const repo = dataSource.getRepository(WebhookDelivery);
      const delivery = await repo.findOneBy({ id: input.deliveryId });
      // The run was deleted (DELETE /v1/runs/{id} or the retention sweep) with its deliveries: nothing to send.
      if (!delivery)
        throw ApplicationFailure.nonRetryable('The run and its deliveries were deleted', FAILURE_TYPES.runDeleted);
      if (delivery.status === 'delivered') return { status: delivery.lastStatusCode ?? 200 };
      const run = await dataSource.getRepository(Run).findOneBy({ id: delivery.runId });
      if (!run) throw ApplicationFailure.nonRetryable('The run was deleted', 'RunDeleted');
      const deployment = await dataSource.getRepository(Deployment).findOneBy({ id: delivery.deploymentId });
      if (!deployment)
        throw ApplicationFailure.nonRetryable('The deployment was deleted', FAILURE_TYPES.deploymentGone);
      // A secret sealed with a key ASSAY_SECRET_KEYS no longer holds cannot be sent: no retry helps.
      const unopenable = async (err: unknown): Promise<never> => {
        if (!(err instanceof KeyRingError)) throw err;
        const error = `The deployment's secrets cannot be opened: ${err.message}`;
        await repo.update({ id: delivery.id }, { lastError: error, updatedAt: new Date() });
        throw ApplicationFailure.nonRetryable(error, 'SecretUnavailable');
      };
      let webhooks: typeof deployment.webhooks;
      try {
        webhooks = openWebhookHeaders(ring, deployment.id, deployment.webhooks);
      } catch (err) {
        return unopenable(err);
      }
      const entry = (delivery.event === 'complete' ? webhooks?.onComplete : webhooks?.onFailure)?.[delivery.position];
      if (!entry)
        throw ApplicationFailure.nonRetryable(
          'The webhook entry was removed from the deployment',
          FAILURE_TYPES.webhookGone,
        );

      const d = await data(run, deployment);
      const payload = entry.payload === undefined ? defaultPayload(d) : await renderTemplate(entry.payload, d);
      const body = JSON.stringify(payload);
      const signingSecret = await signingSecretOf(deployment).catch(unopenable);
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(entry.headers ?? {})) {
        const rendered = await renderTemplate(v, d);
        headers[k.toLowerCase()] = typeof rendered === 'string' ? rendered : JSON.stringify(rendered);
      }
      Object.assign(headers, {
        'content-type': 'application/json',
        'user-agent': 'Assay-Webhooks/0.1',
        'x-assay-event': d.event,
        'x-assay-delivery': delivery.id,
        'x-assay-deployment': deployment.id,
        'x-assay-signature': signature(signingSecret, body),
        // Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature): a fresh timestamp
        // on every attempt, so receivers can refuse old (replayed) deliveries.
        ...standardWebhookHeaders(signingSecret, delivery.id, body),
      });

      const attempt = Context.current().info.attempt;
      let status: number | null = null;
      let error: string | null = null;
      try {
        const res = await guardedRequest(policy.agent('webhook'), entry.url, {
          method: delivery.method,
          headers,
          body,
          timeoutMs: ATTEMPT_TIMEOUT_MS,
        });
        status = res.statusCode;
        await res.body.dump();
        if (status < 200 || status >= 300) error = `The receiver answered HTTP ${status}`;
      } catch (err) {
        const refused = addressRefusalIn(err);
        error = refused
          ? `The receiver was not contacted: ${refused.message}`
          : `The receiver could not be reached: ${(err as Error).message}`;
        if (refused) {
          webhookDeliveries.inc({ outcome: 'refused' });
          await repo.update(
            { id: delivery.id },
            { attempts: attempt, lastStatusCode: null, lastError: error, updatedAt: new Date() },
          );
          throw ApplicationFailure.nonRetryable(error, 'AddressNotAllowed');
        }
      }
      await repo.update(
        { id: delivery.id },
        {
          attempts: attempt,
          lastStatusCode: status,
          lastError: error,
          ...(error ? {} : { status: 'delivered' as const, deliveredAt: new Date() }),
          updatedAt: new Date(),
        },
      );
      webhookDeliveries.inc({ outcome: error ? (status === null ? 'unreachable' : 'rejected') : 'delivered' });
      if (error) throw ApplicationFailure.retryable(error, FAILURE_TYPES.deliveryFailed);
      return { status: status! };
    },

    /** Records that a delivery gave up (its retries ran out or it cannot be sent). */
    async markDeliveryFailed(input: { deliveryId: string; error: string }): Promise<void> {
      const marked = await dataSource
        .getRepository(WebhookDelivery)
        .update(
          { id: input.deliveryId, status: 'pending' },
          { status: 'failed', lastError: input.error, updatedAt: new Date() },
        );
      if (marked.affected !== 0) webhookDeliveries.inc({ outcome: 'gave_up' });
    },
  };
}
