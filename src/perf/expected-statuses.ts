/**
 * Which HTTP statuses a load run counts as a successful request (k6's `http_req_failed`), per API
 * node: k6 has a script say it with `http.setResponseCallback(http.expectedStatuses(...))`
 * (https://grafana.com/docs/k6/latest/javascript-api/k6-http/set-response-callback/), and counts
 * 200–399 as expected without one. Assay reads it from the node's own assertions on
 * `response.status` (docs/performance.md "Expected statuses"): a node that asserts
 * `response.status equals 404` expects a 404, and such a response is not a failed request. Pure.
 */
import { assertionHolds } from '../domain/assertions';
import type { Assertion, AssertionOperator, FlowNode } from '../domain/types';
import { forEachNode } from '../flow/tree';

/** Whether an HTTP status (100–599) is one the node expects. */
export type ExpectedStatuses = (status: number) => boolean;

/** k6's default expected statuses: 200–399 (`http.expectedStatuses({min: 200, max: 399})`). */
export const DEFAULT_EXPECTED_STATUSES: ExpectedStatuses = (status) => status >= 200 && status <= 399;

/**
 * The operators that say which statuses a node expects (k6's `expectedStatuses` takes codes and
 * `{min, max}` ranges): equality, one of a list, a range, a bound. Negative ones (`notEquals`) and
 * the rest say nothing about it and are ignored.
 */
const STATUS_OPERATORS: ReadonlySet<AssertionOperator> = new Set<AssertionOperator>([
  'equals',
  'oneOf',
  'inRange',
  'greaterThan',
  'greaterThanOrEqual',
  'lessThan',
  'lessThanOrEqual',
]);

/** An assertion on the response's status: target `response.status` (spaces ignored) with a status operator. */
function isStatusAssertion(a: Assertion): boolean {
  return a.target.replace(/\s/g, '') === 'response.status' && STATUS_OPERATORS.has(a.operator);
}

/**
 * The statuses each API node (`type: 'api'`) of `flow` expects, by node id, for the nodes that
 * assert on their status: a status is expected when every such assertion of the node holds on it
 * (evaluated as the assertion module does, src/domain/assertions.ts), so `equals 404` expects 404
 * alone, `oneOf [200, 404]` both, `inRange [200, 499]` or `greaterThanOrEqual 200` with `lessThan 500`
 * the range. A node without one is absent: it expects {@link DEFAULT_EXPECTED_STATUSES}.
 */
export function expectedHttpStatuses(flow: FlowNode[]): Map<string, ExpectedStatuses> {
  const out = new Map<string, ExpectedStatuses>();
  forEachNode(flow, (node) => {
    if (node.type !== 'api') return;
    const status = (node.assertions ?? []).filter(isStatusAssertion);
    if (status.length === 0) return;
    out.set(node.id, (code) => status.every((a) => assertionHolds(a, code)));
  });
  return out;
}

/**
 * Whether a request failed as k6's `http_req_failed` counts it: no response (`status` undefined:
 * network error, timeout, refused address) or a status the node does not expect (`expected`, or
 * k6's default 200–399).
 */
export function httpRequestFailed(status: number | undefined, expected?: ExpectedStatuses): boolean {
  return status === undefined || !(expected ?? DEFAULT_EXPECTED_STATUSES)(status);
}
