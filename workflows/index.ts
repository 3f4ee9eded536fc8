/**
 * Entry point of the workflow bundle: every workflow type the worker serves.
 */
export { runWorkflow } from './run';
export { loopSegmentWorkflow } from './segment';
export { testCaseWorkflow } from './test-case';
export { deliverWebhooksWorkflow } from './webhooks';
