/**
 * Callback nodes (docs/async.md "Callbacks"): wait durably for requests sent to the node's address.
 *
 * The address (`{{callback.url}}`, `{{callback.<nodeId>.url}}`; FlowBase) names the workflow and
 * the node; the API checks the callback (token, run still running, signature) and signals the
 * workflow, whose inbox keeps it until a wait here consumes it, so a callback that arrives before
 * the node starts waiting is not lost. The wait itself is the port's (`condition` with a durable
 * timer in a workflow): no activity and no worker slot is held while it lasts.
 */
import { evaluateAssertion, preview } from '../domain/assertions';
import { truthy, type ExpressionError } from '../domain/expressions';
import type { CallbackNode, NodeResult, ReceivedCallback } from '../domain/types';
import { formatDuration, nodeDurationMs } from '../domain/duration';
import type { FlowBase } from './flow-base';
import { DeadlineReached } from './types';

/** Default `timeout` of a Callback node. */
export const CALLBACK_DEFAULT_TIMEOUT = '5m';
/** Characters of a callback's body kept in results (the whole body stays in the workflow until consumed). */
const KEPT_BODY_CHARS = 4000;

/** A received callback as results keep it: the body cut to a readable size. */
function kept(callback: ReceivedCallback): ReceivedCallback {
  return callback.body === undefined ? callback : { ...callback, body: preview(callback.body, KEPT_BODY_CHARS) };
}

/** `callback cb_x… not received within 5m (2 callbacks did not match body.status = 'paid')` and the like. */
function notReceived(
  node: CallbackNode,
  out: { id: string; accepted: unknown[]; unmatched: number; dropped: number },
  count: number,
  timeoutMs: number,
  matchError: string | undefined,
): string {
  const got = count > 1 ? ` (${out.accepted.length} of ${count} received)` : '';
  const reasons: string[] = [];
  if (out.unmatched)
    reasons.push(
      `${out.unmatched} callback${out.unmatched === 1 ? '' : 's'} did not match ${node.match?.replace(/\s+/g, ' ')}`,
    );
  if (matchError) reasons.push(`match: ${matchError}`);
  if (out.dropped) reasons.push(`${out.dropped} dropped unread (over 100 waiting at this address)`);
  return `callback ${out.id} not received within ${formatDuration(timeoutMs)}${got}${reasons.length ? ` (${reasons.join('; ')})` : ''}`;
}

/**
 * Runs a Callback node: passes when `count` callbacks for which `match` holds arrived within
 * `timeout` and its assertions hold (they see `callback`, the last, and `callbacks`). Fails when
 * the time runs out (naming the wait), in a run without callbacks (performance runs), or on a
 * failed assertion. The wait never goes past the run's deadline: then {@link DeadlineReached}.
 */
export async function runCallbackNode(flow: FlowBase, node: CallbackNode): Promise<NodeResult> {
  const result = flow.base(node);
  const callbacks = flow.port.callbacks;
  if (!callbacks)
    return flow.fail(result, 'Callback nodes cannot run in performance runs (nothing can call back a virtual user)');
  let timeoutMs: number;
  try {
    timeoutMs = nodeDurationMs(node.timeout ?? CALLBACK_DEFAULT_TIMEOUT, 'seconds');
  } catch (err) {
    return flow.fail(result, `timeout: ${(err as Error).message}`);
  }
  const count = node.count ?? 1;
  const label = node.name ?? node.id;
  let matchError: string | undefined;
  const accept = async (callback: ReceivedCallback): Promise<boolean> => {
    if (node.match === undefined) return true;
    try {
      return truthy(await flow.port.evaluate(node.match, flow.expressionInput({ callback })));
    } catch (err) {
      matchError = (err as ExpressionError).message;
      return false;
    }
  };
  const out = await callbacks.wait({
    key: flow.callbackKey(node.id),
    nodeId: node.id,
    count,
    timeoutMs,
    summary: flow.summary(label),
    ...(node.match !== undefined ? { match: node.match } : {}),
    accept,
  });
  const received = out.accepted.map(kept);
  result.callback = {
    id: out.id,
    since: new Date(out.sinceMs).toISOString(),
    until: new Date(out.untilMs).toISOString(),
    received: received.length,
    expected: count,
    unmatched: out.unmatched,
    callbacks: received,
  };
  const endMs = out.timedOut ? out.untilMs : flow.port.now();
  result.duration = Math.max(0, endMs - out.sinceMs);
  const last = received[received.length - 1];
  if (last) {
    const query = Object.entries(last.query)
      .flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((x) => `${encodeURIComponent(k)}=${encodeURIComponent(x)}`))
      .join('&');
    flow.state.nodes[node.id] = {
      request: {
        method: last.method,
        url: `${last.path}${query ? `?${query}` : ''}`,
        headers: last.headers,
        ...(last.body !== undefined ? { body: last.body } : {}),
      },
      // What the API answered each callback (api/routes/callbacks.ts `callbackAnswer`).
      response: {
        status: node.respond?.status ?? 200,
        headers: node.respond?.headers ?? {},
        body: node.respond && 'body' in node.respond ? node.respond.body : { received: true, callbackId: out.id },
        time: 0,
        size: 0,
      },
      callbacks: received,
    };
  }
  if (out.timedOut) {
    // Cut short by the run's deadline, not by its own timeout: the test case is interrupted.
    if (out.untilMs < out.sinceMs + timeoutMs) throw new DeadlineReached();
    flow.step(`${label}: callback ${out.id} → not received ✗`);
    return flow.fail(result, notReceived(node, out, count, timeoutMs, matchError));
  }
  const input = flow.expressionInput({ callback: last, callbacks: received });
  for (const assertion of node.assertions ?? [])
    flow.recordAssertion(result, assertion, await evaluateAssertion(assertion, input as never, flow.port.evaluate));
  flow.step(
    `${label}: callback ${out.id} → ${received.length} received${result.status === 'failed' ? ' ✗' : ''} · ${formatDuration(result.duration)}`,
  );
  return result;
}
