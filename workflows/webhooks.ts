/**
 * Delivers a finished run's outgoing webhooks (started by the run workflow, abandoned when it
 * closes, so that a receiver that is down for hours holds up nothing). Each delivery is an
 * activity retried with exponential backoff until it lands or its time runs out; deliveries run
 * side by side and are recorded per run (GET /v1/runs/{runId}/deliveries).
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { FAILURE_TYPES } from '../src/domain/failures';
import { rootMessage } from './endings';

// No attempt limit: a database outage delays deliveries, never drops them.
const store = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumInterval: '30 seconds' },
});
const delivery = proxyActivities<Activities>({ startToCloseTimeout: '30 seconds' });

export async function deliverWebhooksWorkflow(input: {
  runId: string;
  deploymentId: string;
}): Promise<{ delivered: number; failed: number }> {
  const plan = await store.planDeliveries(input);
  let delivered = 0;
  let failed = 0;
  await Promise.all(
    plan.deliveries.map(async (d) => {
      try {
        await delivery.deliverWebhook.executeWithOptions(
          {
            startToCloseTimeout: '30 seconds',
            scheduleToCloseTimeout: plan.retry.giveUpAfterMs,
            retry: {
              initialInterval: plan.retry.initialMs,
              backoffCoefficient: 2,
              maximumInterval: plan.retry.maximumMs,
              nonRetryableErrorTypes: [
                FAILURE_TYPES.deploymentGone,
                FAILURE_TYPES.webhookGone,
                FAILURE_TYPES.runDeleted,
              ],
            },
            summary: `on${d.event === 'complete' ? 'Complete' : 'Failure'}[${d.position}]`,
          },
          [{ deliveryId: d.id }],
        );
        delivered += 1;
      } catch (err) {
        await store.markDeliveryFailed({ deliveryId: d.id, error: rootMessage(err, 'delivery failed') });
        failed += 1;
      }
    }),
  );
  return { delivered, failed };
}
