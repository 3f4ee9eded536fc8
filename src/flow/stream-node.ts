/**
 * WebSocket and SSE nodes (docs/async.md "WebSocket and SSE"): the node's templates filled and its
 * server joined here (as API nodes', src/flow/api-node.ts), the connection made through the port
 * (`runStream`: the `runStreamNode` activity, or in-process: activities/streams.ts), then the
 * assertions evaluated on what arrived.
 *
 * Expressions (assertions) see `{messages, count, first, last, events, closed, stoppedBy, response,
 * …}`: `messages` the data of the kept messages in order (the first and last 20), `first` and
 * `last` the data of the first and the latest message, `events` the kept messages whole
 * (`{atMs, data, event, id}`), `closed` the WebSocket close `{code, reason}`, `response` the
 * handshake (`status`, `headers`, `body` = the latest message's data, `time`, `size`).
 *
 * The node fails on a connection error (with the output's `errorCode` as the result's, docs/flows.md
 * "Error codes"), or when `until` was given and never held. Awaits: one
 * (`runStream`), then one per assertion, in document order.
 */
import { fillTemplate, fillTemplates, type TemplateVariables } from '../domain/templating';
import type { NodeResult, SseNode, StreamMessage, WebsocketNode } from '../domain/types';
import type { StreamNodeInput } from '../domain/stream-io';
import { STREAM_DEFAULTS } from '../domain/stream-io';
import { apiNodeAuthProfile, profileInResults } from '../domain/auth-profiles';
import { evaluateAssertion } from '../domain/assertions';
import { formatDuration, nodeDurationMs } from '../domain/duration';
import type { FlowBase } from './flow-base';
import { fillServers, fillServersDeep, joinServerUrl, UnknownServerError } from './servers';
import { DeadlineReached } from './types';

/**
 * The activity's input of `node`: templates filled (servers first, then variables), the server's
 * base URL joined to a path `url`, `send` items serialised (a string as it is, else JSON). Without
 * the run's `servers` (a plan frozen before them) a `server` field is an unknown server.
 * @throws UnknownServerError
 */
export function resolveStream(
  node: WebsocketNode | SseNode,
  variables: TemplateVariables,
  dynamic: Parameters<typeof fillTemplate>[2],
  servers: Readonly<Record<string, string>> | undefined,
  timeoutMs: number,
): StreamNodeInput {
  const withServers = (text: string) => (servers ? fillServers(text, servers, variables) : text);
  const deep = (value: unknown): unknown => fillServersDeep(value, servers, variables);
  const fill = (text: string) => fillTemplate(withServers(text), variables, dynamic);
  let url = withServers(node.url);
  if (node.server !== undefined) {
    const base = servers?.[node.server];
    if (base === undefined) throw new UnknownServerError(node.server, Object.keys(servers ?? {}));
    url = joinServerUrl(base, url);
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(node.headers ?? {})) headers[fill(name)] = fill(value);
  const input: StreamNodeInput = {
    kind: node.type,
    label: node.id,
    url: fillTemplate(url, variables, dynamic),
    headers,
    maxMessages: Math.min(node.maxMessages ?? STREAM_DEFAULTS.maxMessages, STREAM_DEFAULTS.maxMessagesCap),
    timeoutMs,
  };
  if (node.until !== undefined) input.until = node.until;
  if (node.type === 'websocket') {
    if (node.subprotocols?.length) input.subprotocols = [...node.subprotocols];
    if (node.send?.length)
      input.send = node.send.map((item) => {
        const data = fillTemplates(deep(item.data), variables, dynamic);
        return {
          text: typeof data === 'string' ? data : JSON.stringify(data ?? null),
          ...(item.delayMs ? { delayMs: item.delayMs } : {}),
        };
      });
  } else {
    input.method = node.method ?? 'GET';
    if (node.body !== undefined) input.body = fillTemplates(deep(node.body), variables, dynamic);
  }
  return input;
}

/** Runs a WebSocket or SSE node at `path` (see the module comment; execution-id.ts). */
export async function runStreamNode(flow: FlowBase, node: WebsocketNode | SseNode, path: string): Promise<NodeResult> {
  const { port } = flow;
  const result = flow.base(node);
  const label = node.name ? `${node.name} (${node.id})` : node.id;
  const what = node.type === 'websocket' ? 'WebSocket' : 'SSE';
  if (!port.runStream) return flow.fail(result, `${what} nodes cannot run here (no stream connections)`);
  const nodeTimeoutMs = nodeDurationMs(node.timeout ?? STREAM_DEFAULTS.timeout, 'seconds');
  const timeLeft = Math.max(1, port.deadlineMs - port.now());
  const timeoutMs = Math.min(nodeTimeoutMs, timeLeft);
  let input: StreamNodeInput;
  try {
    input = resolveStream(node, flow.templateVariables(), port.dynamic, port.servers, timeoutMs);
  } catch (err) {
    if (!(err instanceof UnknownServerError)) throw err;
    flow.step(`${label}: not opened ✗ (${err.message})`);
    return flow.fail(result, err.message);
  }
  const execution = flow.executionId(path);
  if (execution) input.execution = execution;
  const authProfile = apiNodeAuthProfile(node.authProfile, flow.testCase.auth);
  if (authProfile) {
    input.authProfile = authProfile;
    input.variables = flow.state.variables;
  }
  const out = await port.runStream(input, flow.summary(`${label}: ${what} ${input.url}`));
  const stream = out.outcome;
  // Cut short by the run's deadline, not by its own timeout: the test case is interrupted.
  if (timeoutMs < nodeTimeoutMs && (stream.stoppedBy === 'timeout' || out.errorCode === 'TIMEOUT'))
    throw new DeadlineReached();
  result.stream = stream;
  result.duration = out.timeMs;
  result.request = {
    method: out.request.method,
    url: out.request.url,
    ...(authProfile ? { auth: profileInResults(authProfile) } : {}),
  };
  const kept: StreamMessage[] = [...stream.first, ...stream.last];
  const lastData = kept.length ? kept[kept.length - 1]!.data : undefined;
  const response = {
    status: stream.status,
    headers: out.headers,
    body: lastData,
    time: out.timeMs,
    size: out.size,
  };
  if (stream.status !== undefined || out.size > 0)
    result.response = { status: stream.status, timeMs: out.timeMs, size: out.size, truncated: false };
  const messages = kept.map((m) => m.data);
  flow.state.nodes[node.id] = { request: out.request, response, messages };
  const counted = `${stream.count} message${stream.count === 1 ? '' : 's'} received`;
  flow.step(
    `${label}: ${what} ${out.request.url} → ${out.error ? out.error : `${counted}, stopped by ${stream.stoppedBy}`}${out.error ? ' ✗' : ''}`,
  );
  if (out.error) return flow.failWithCode(result, out.error, out.errorCode);
  if (node.until !== undefined && !out.untilMet) {
    const why =
      stream.stoppedBy === 'maxMessages'
        ? `no message satisfied \`${node.until}\` among the first ${stream.count} (maxMessages ${input.maxMessages})`
        : stream.stoppedBy === 'closed'
          ? `the ${what === 'SSE' ? 'event stream' : 'WebSocket'} closed before a message satisfied \`${node.until}\` (${counted}${stream.closed?.code !== undefined ? `, close code ${stream.closed.code}` : ''})`
          : `no message satisfied \`${node.until}\` within ${formatDuration(nodeTimeoutMs)} (${counted})`;
    flow.fail(result, why);
  }
  const assertionInput = flow.expressionInput({
    messages,
    count: stream.count,
    first: stream.first[0]?.data,
    last: lastData,
    events: kept,
    closed: stream.closed,
    stoppedBy: stream.stoppedBy,
    response,
  });
  if (node.assertions?.length) result.assertions ??= [];
  for (const assertion of node.assertions ?? [])
    flow.recordAssertion(result, assertion, await evaluateAssertion(assertion, assertionInput as never, port.evaluate));
  return result;
}
